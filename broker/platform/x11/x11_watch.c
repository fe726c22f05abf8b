/* SPDX-License-Identifier: MIT */
/* x11_watch.c - the repaint history of every window a handle has settled,
 * kept between requests, so that a window that has been quiet for the settle
 * interval is captured at once instead of being watched for it again.
 *
 * Contract (x11_private.h, "x11_watch.c"): a watcher owns a second XCB
 * connection to the same display and one thread that does nothing but read
 * its events. For each window settled through it there is one DAMAGE object
 * (ReportNonEmpty, re-armed with DamageSubtract after each notify) and the
 * local monotonic time the last notify was read. The thread stamps a notify
 * the moment it arrives; a request only reads the stamps, under the lock, and
 * waits on a condition variable for the quiet interval when it has not
 * passed yet. A window first seen has no history: it is quiet only after
 * quiet_ms from then, exactly as the per-request settle was. Input this
 * process sent counts as activity of every window (x11_watch_input_sent):
 * the repaint it causes has not happened yet when the input returns.
 * At most X11_WATCH_MAX windows are watched; the least recently settled one
 * gives way (its damage object destroyed). A window that is destroyed takes
 * its damage object with it; the error our next request on it draws frees the
 * slot. When the watcher's connection breaks (the server went away) every
 * wait returns PG_E_UNREACHABLE and the handle falls back to settling per
 * request until the broker reopens the display.
 * Never: captures, reads pixels, holds the lock across an X round trip.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xcb/damage.h>

#include "x11_private.h"

#define X11_WATCH_MAX 128

/* When this process last sent input (pg_mono_us), on any handle: input goes
 * out on the broker's main connection, captures settle on readers, and an
 * app repaints a little after the input reached it, so a window the watcher
 * saw quiet before the input is not quiet until quiet_ms after it. */
static _Atomic int64_t last_input_us;

void x11_watch_input_sent(void) { atomic_store(&last_input_us, pg_mono_us()); }


typedef struct {
    xcb_window_t win;       /* 0: free slot */
    xcb_damage_damage_t dmg;
    double last_ms;         /* last repaint seen (or when watching began) */
    double used_ms;         /* last settled: picks the slot that gives way */
    bool gone;              /* the server refused the damage object: the window is gone */
} watch_slot;

/* The last moment the window was known active: its last repaint, or the
 * last input, whichever is later. */
static double active_at(const watch_slot *s) {
    double input_ms = (double)atomic_load(&last_input_us) / 1000.0;
    return s->last_ms > input_ms ? s->last_ms : input_ms;
}

struct x11_watch {
    xcb_connection_t *c;
    xcb_window_t stop_win;  /* ours: a client message to it ends the thread */
    uint8_t damage_event;   /* first_event + XCB_DAMAGE_NOTIFY on this connection */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed; /* a stamp moved, a slot went, or the connection broke */
    bool broken;
    watch_slot slot[X11_WATCH_MAX];
};

static watch_slot *slot_of_damage(x11_watch *w, xcb_damage_damage_t d) {
    for (size_t i = 0; i < X11_WATCH_MAX; i++)
        if (w->slot[i].win && w->slot[i].dmg == d) return &w->slot[i];
    return NULL;
}

/* An error on this connection names the damage object or the window it was
 * made on: either way the window is gone. */
static void note_error(x11_watch *w, const xcb_generic_error_t *xe) {
    for (size_t i = 0; i < X11_WATCH_MAX; i++) {
        watch_slot *s = &w->slot[i];
        if (s->win && (s->dmg == xe->resource_id || s->win == xe->resource_id)) s->gone = true;
    }
}

static bool is_stop(const x11_watch *w, const xcb_generic_event_t *ev) { return x11_is_self_message(ev, w->stop_win); }

static void *watch_main(void *arg) {
    x11_watch *w = arg;
    for (;;) {
        xcb_generic_event_t *ev = xcb_wait_for_event(w->c);
        if (!ev || is_stop(w, ev)) {
            pthread_mutex_lock(&w->lock);
            w->broken = true;
            pthread_cond_broadcast(&w->changed);
            pthread_mutex_unlock(&w->lock);
            free(ev);
            return NULL;
        }
        uint8_t type = ev->response_type & 0x7f;
        pthread_mutex_lock(&w->lock);
        if (type == w->damage_event) {
            xcb_damage_damage_t d = ((xcb_damage_notify_event_t *)ev)->damage;
            watch_slot *s = slot_of_damage(w, d);
            /* Empty the region so the next repaint reports again; the stamp
             * is taken after the subtract went out, so a repaint the
             * subtract swallowed is never older than the stamp. */
            xcb_damage_subtract(w->c, d, XCB_NONE, XCB_NONE);
            xcb_flush(w->c);
            if (s) s->last_ms = pg_mono_ms();
            pthread_cond_broadcast(&w->changed);
        } else if (type == 0) {
            note_error(w, (xcb_generic_error_t *)ev);
            pthread_cond_broadcast(&w->changed);
        }
        pthread_mutex_unlock(&w->lock);
        free(ev);
    }
}

/* DAMAGE must be negotiated on each connection before its first use. */
static bool damage_ready(xcb_connection_t *c, uint8_t *first_event) {
    const xcb_query_extension_reply_t *q = xcb_get_extension_data(c, &xcb_damage_id);
    if (!q || !q->present) return false;
    *first_event = q->first_event;
    pg_platform tmp = {.c = c}; /* x11_wait needs only the connection */
    void *r;
    xcb_generic_error_t *xe;
    pg_err rc = x11_wait(&tmp, xcb_damage_query_version(c, 1, 1).sequence, &r, &xe, NULL);
    bool ok = rc == PG_OK && r;
    free(r);
    free(xe);
    return ok;
}

x11_watch *x11_watch_start(const char *display) {
    x11_watch *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->c = xcb_connect(display, NULL);
    if (xcb_connection_has_error(w->c) || !damage_ready(w->c, &w->damage_event)) {
        xcb_disconnect(w->c);
        free(w);
        return NULL;
    }
    w->damage_event = (uint8_t)(w->damage_event + XCB_DAMAGE_NOTIFY);
    const xcb_screen_t *scr = xcb_setup_roots_iterator(xcb_get_setup(w->c)).data;
    w->stop_win = x11_self_window(w->c, scr->root);
    xcb_flush(w->c);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->changed, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&w->lock, NULL);
    if (pthread_create(&w->thread, NULL, watch_main, w) != 0) {
        pthread_cond_destroy(&w->changed);
        pthread_mutex_destroy(&w->lock);
        xcb_disconnect(w->c);
        free(w);
        return NULL;
    }
    return w;
}

void x11_watch_stop(x11_watch *w) {
    if (!w) return;
    x11_self_message(w->c, w->stop_win, 0); /* a broken connection has ended the thread already */
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->changed);
    pthread_mutex_destroy(&w->lock);
    xcb_disconnect(w->c); /* frees the server's damage objects and our window */
    free(w);
}

/* The slot for win, made (and its damage object created) when there is
 * none; lock held. */
static watch_slot *slot_for(x11_watch *w, xcb_window_t win, double now) {
    watch_slot *free_slot = NULL, *oldest = NULL;
    for (size_t i = 0; i < X11_WATCH_MAX; i++) {
        watch_slot *s = &w->slot[i];
        if (s->win == win && !s->gone) return s;
        if (s->win && s->gone) { /* its window went away: reuse the slot */
            xcb_damage_destroy(w->c, s->dmg);
            s->win = 0;
        }
        if (!s->win && !free_slot) free_slot = s;
        if (s->win && (!oldest || s->used_ms < oldest->used_ms)) oldest = s;
    }
    watch_slot *s = free_slot;
    if (!s) {
        s = oldest;
        xcb_damage_destroy(w->c, s->dmg);
    }
    s->win = win;
    s->gone = false;
    s->dmg = xcb_generate_id(w->c);
    s->last_ms = now; /* no history: quiet only after quiet_ms from now */
    xcb_damage_create(w->c, s->dmg, win, XCB_DAMAGE_REPORT_LEVEL_NON_EMPTY);
    xcb_flush(w->c);
    return s;
}

static struct timespec mono_at(double ms) {
    struct timespec t;
    t.tv_sec = (time_t)(ms / 1000.0);
    t.tv_nsec = (long)((ms - (double)t.tv_sec * 1000.0) * 1e6);
    if (t.tv_nsec >= 1000000000L) t.tv_sec++, t.tv_nsec -= 1000000000L;
    if (t.tv_nsec < 0) t.tv_nsec = 0;
    return t;
}

bool x11_watch_quiet(x11_watch *w, xcb_window_t win, uint32_t quiet_ms) {
    bool quiet = false;
    pthread_mutex_lock(&w->lock);
    double now = pg_mono_ms();
    for (size_t i = 0; !w->broken && i < X11_WATCH_MAX; i++) {
        watch_slot *s = &w->slot[i];
        if (s->win != win || s->gone) continue;
        quiet = now - active_at(s) >= quiet_ms;
        if (quiet) s->used_ms = now;
        break;
    }
    pthread_mutex_unlock(&w->lock);
    return quiet;
}

pg_err x11_watch_settle(x11_watch *w, xcb_window_t win, uint32_t quiet_ms, uint32_t timeout_ms, bool *waited,
                        pg_error *e) {
    *waited = false;
    pthread_mutex_lock(&w->lock);
    double start = pg_mono_ms();
    watch_slot *s = w->broken ? NULL : slot_for(w, win, start);
    pg_err rc = PG_OK;
    for (;;) {
        double now = pg_mono_ms();
        if (w->broken) {
            rc = pg_error_set(e, PG_E_UNREACHABLE, "check that the X server is still running",
                              "X connection of the repaint watcher lost");
            break;
        }
        if (s->gone) {
            rc = pg_error_set(e, PG_E_NOTFOUND, NULL, "window %u vanished", (unsigned)win);
            break;
        }
        double active = active_at(s);
        if (now - active >= quiet_ms) break;
        if (now - start >= timeout_ms) {
            rc = pg_error_set(e, PG_E_TIMEOUT, "the window keeps repainting (animation, blinking cursor?)",
                              "window %u was not quiet for %u ms within %u ms", (unsigned)win, quiet_ms,
                              timeout_ms);
            break;
        }
        double until = active + quiet_ms < start + timeout_ms ? active + quiet_ms : start + timeout_ms;
        struct timespec at = mono_at(until); /* the condition runs on CLOCK_MONOTONIC, pg_mono_ms's clock */
        *waited = true;
        int r = pthread_cond_timedwait(&w->changed, &w->lock, &at);
        (void)r; /* woken or timed out: the loop looks again either way */
    }
    if (s && !w->broken) s->used_ms = pg_mono_ms();
    pthread_mutex_unlock(&w->lock);
    return rc;
}
