/* SPDX-License-Identifier: MIT */
/* x11_settle.c - wait until a window stops repainting, or has handled the
 * input sent to it.
 *
 * Contract: settle() returns PG_OK once the client window (and everything
 * drawn inside it) has had no repaint for quiet_ms, PG_E_TIMEOUT if that did
 * not happen within timeout_ms, PG_E_NOTFOUND if the window went away.
 * With DAMAGE the handle's repaint watcher (x11_watch.c) keeps a damage
 * object on each client window it settled, between requests, so a window
 * quiet for quiet_ms already returns at once; a window first seen waits
 * quiet_ms. Without a watcher (it could not start, or its connection broke)
 * it creates a damage object for this request (ReportNonEmpty, re-armed with
 * DamageSubtract after each notify) and waits on the connection with poll(),
 * never longer than the remaining time. WM decoration changes on the frame
 * do not count.
 * Without DAMAGE it compares captures taken every min(quiet_ms/4, 50) ms and
 * calls the window quiet when they stayed byte-identical for quiet_ms; a
 * change that reverts between two samples goes unseen (sampling, not events).
 * wait_client() pings the client (_NET_WM_PING, answered to root); since a
 * client handles events in order, the answer proves it handled everything
 * sent before. It selects SubstructureNotify on root only for the wait.
 * Never: waits past timeout_ms (plus one reply timeout if the server hangs).
 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include <xcb/damage.h>

#include "x11_private.h"

static pg_err timed_out(pg_error *e, xcb_window_t id, uint32_t quiet_ms, uint32_t timeout_ms) {
    return pg_error_set(e, PG_E_TIMEOUT, "the window keeps repainting (animation, blinking cursor?)",
                        "window %u was not quiet for %u ms within %u ms", (unsigned)id, quiet_ms,
                        timeout_ms);
}

/* Read queued events; true if one of them is a notify for damage d. Also
 * notices an error about d (its window was destroyed). */
static bool drain_damage(pg_platform *p, xcb_damage_damage_t d, bool *gone) {
    bool hit = false;
    xcb_generic_event_t *ev;
    while ((ev = xcb_poll_for_event(p->c)) != NULL) {
        uint8_t type = ev->response_type & 0x7f;
        if (type == p->damage.first_event + XCB_DAMAGE_NOTIFY &&
            ((xcb_damage_notify_event_t *)ev)->damage == d)
            hit = true;
        else if (type == 0 && ((xcb_generic_error_t *)ev)->resource_id == d)
            *gone = true;
        free(ev);
    }
    return hit;
}

/* Wait on damage object d until quiet_ms without a notify, or timeout_ms. */
static pg_err wait_quiet(pg_platform *p, xcb_damage_damage_t d, xcb_window_t id,
                         uint32_t quiet_ms, uint32_t timeout_ms, pg_error *e) {
    double start = pg_mono_ms(), last = start;
    bool gone = false;
    for (;;) {
        /* Drain first: a notify may already sit in xcb's queue, where poll()
         * on the socket would not see it. */
        if (drain_damage(p, d, &gone)) {
            last = pg_mono_ms();
            /* NonEmpty reports once until the region is emptied again. */
            xcb_damage_subtract(p->c, d, XCB_NONE, XCB_NONE);
            xcb_flush(p->c);
        }
        if (gone) return pg_error_set(e, PG_E_NOTFOUND, NULL, "window %u vanished", (unsigned)id);
        if (xcb_connection_has_error(p->c)) return x11_alive(p, e);
        double now = pg_mono_ms();
        if (now - last >= quiet_ms) return PG_OK;
        if (now - start >= timeout_ms) return timed_out(e, id, quiet_ms, timeout_ms);
        double until = last + quiet_ms < start + timeout_ms ? last + quiet_ms : start + timeout_ms;
        struct pollfd pfd = {xcb_get_file_descriptor(p->c), POLLIN, 0};
        (void)poll(&pfd, 1, (int)(until - now) + 1); /* rounded up: no 0 ms spin */
    }
}

static pg_err settle_damage(pg_platform *p, const x11_win *w, uint32_t quiet_ms,
                            uint32_t timeout_ms, pg_error *e) {
    xcb_damage_damage_t d = xcb_generate_id(p->c);
    xcb_generic_error_t *xe = NULL;
    pg_err rc = x11_check(
        p, xcb_damage_create_checked(p->c, d, w->id, XCB_DAMAGE_REPORT_LEVEL_NON_EMPTY), &xe, e);
    if (rc != PG_OK) return rc;
    if (xe) {
        free(xe);
        return pg_error_set(e, PG_E_NOTFOUND, NULL, "window %u vanished", (unsigned)w->id);
    }
    rc = wait_quiet(p, d, w->id, quiet_ms, timeout_ms, e);
    xcb_damage_destroy(p->c, d);
    xcb_flush(p->c);
    return rc;
}

static pg_err settle_compare(pg_platform *p, uint64_t id, uint32_t quiet_ms, uint32_t timeout_ms,
                             pg_error *e) {
    uint32_t step = quiet_ms / 4 < 50 ? (quiet_ms / 4 ? quiet_ms / 4 : 1) : 50;
    pg_capture prev = {0}, cur = {0};
    pg_err rc = x11_capture_window(p, id, NULL, &prev, e);
    double start = pg_mono_ms(), last = start;
    while (rc == PG_OK) {
        double now = pg_mono_ms();
        if (now - last >= quiet_ms) break;
        if (now - start >= timeout_ms) {
            rc = timed_out(e, (xcb_window_t)id, quiet_ms, timeout_ms);
            break;
        }
        pg_sleep_ms(step);
        if ((rc = x11_capture_window(p, id, NULL, &cur, e)) != PG_OK) break;
        bool same = cur.width == prev.width && cur.height == prev.height &&
                    memcmp(cur.rgba, prev.rgba, cur.stride * cur.height) == 0;
        if (!same) last = pg_mono_ms();
        free(prev.rgba);
        prev = cur;
        cur.rgba = NULL;
    }
    free(prev.rgba);
    return rc;
}

static bool is_pong(pg_platform *p, xcb_generic_event_t *ev, uint32_t stamp) {
    if ((ev->response_type & 0x7f) != XCB_CLIENT_MESSAGE) return false;
    xcb_client_message_event_t *m = (xcb_client_message_event_t *)ev;
    return m->type == p->atom.wm_protocols && m->format == 32 &&
           m->data.data32[0] == p->atom.net_wm_ping && m->data.data32[1] == stamp;
}

pg_err x11_wait_client(pg_platform *p, xcb_window_t w, uint32_t max_ms, bool *answered,
                       pg_error *e) {
    *answered = false;
    pg_err rc = x11_alive(p, e); /* drop queued events: only the pong matters */
    if (rc != PG_OK) return rc;
    uint32_t mask = XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY; /* clients answer to root */
    xcb_change_window_attributes(p->c, p->root, XCB_CW_EVENT_MASK, &mask);
    uint32_t stamp = ++p->ping_serial;
    xcb_client_message_event_t ev;
    memset(&ev, 0, sizeof ev);
    ev.response_type = XCB_CLIENT_MESSAGE;
    ev.format = 32;
    ev.window = w;
    ev.type = p->atom.wm_protocols;
    ev.data.data32[0] = p->atom.net_wm_ping;
    ev.data.data32[1] = stamp;
    ev.data.data32[2] = w;
    /* Empty mask: delivered to the client that created w. */
    xcb_send_event(p->c, 0, w, XCB_EVENT_MASK_NO_EVENT, (const char *)&ev);
    xcb_flush(p->c);
    for (pg_deadline end = pg_deadline_in_ms(max_ms); !*answered && !xcb_connection_has_error(p->c);) {
        xcb_generic_event_t *got;
        while ((got = xcb_poll_for_event(p->c)) != NULL) {
            *answered |= is_pong(p, got, stamp);
            free(got);
        }
        uint32_t left = pg_deadline_left_ms(end);
        if (*answered || left == 0) break;
        struct pollfd pfd = {xcb_get_file_descriptor(p->c), POLLIN, 0};
        (void)poll(&pfd, 1, (int)left);
    }
    mask = 0;
    xcb_change_window_attributes(p->c, p->root, XCB_CW_EVENT_MASK, &mask);
    return x11_alive(p, e);
}

/* Does w list _NET_WM_PING in WM_PROTOCOLS (it promises to answer)? */
static bool takes_ping(pg_platform *p, xcb_window_t w, pg_error *e) {
    void *r;
    xcb_generic_error_t *xe;
    xcb_get_property_cookie_t ck = xcb_get_property(p->c, 0, w, p->atom.wm_protocols, XCB_ATOM_ATOM, 0, 64);
    if (x11_wait(p, ck.sequence, &r, &xe, e) != PG_OK || !r) {
        free(xe);
        return false;
    }
    bool yes = false;
    const xcb_atom_t *a = xcb_get_property_value(r);
    for (int i = 0, n = xcb_get_property_value_length(r) / 4; i < n; i++) yes |= a[i] == p->atom.net_wm_ping;
    free(r);
    return yes;
}

pg_err x11_responding(pg_platform *p, uint64_t id, uint32_t max_ms, pg_responding *out, pg_error *e) {
    *out = PG_RESPONDING_UNKNOWN;
    x11_win w;
    pg_err rc = x11_resolve(p, id, &w, e);
    if (rc != PG_OK) return rc;
    if (!x11_wm_running(p, NULL, 0, NULL)) return PG_OK;
    bool answered = false;
    rc = x11_wait_client(p, w.id, max_ms, &answered, e);
    if (rc == PG_OK)
        *out = answered ? PG_RESPONDING_YES : takes_ping(p, w.id, NULL) ? PG_RESPONDING_NO : PG_RESPONDING_SILENT;
    return rc;
}

static pg_err still_there(pg_platform *p, xcb_window_t id, pg_error *e) {
    pg_err rc = x11_alive(p, e);
    if (rc != PG_OK) return rc;
    xcb_get_window_attributes_reply_t *a = x11_take(p, xcb_get_window_attributes(p->c, id).sequence, &rc, e);
    if (rc == PG_OK && !a)
        rc = pg_error_set(e, PG_E_NOTFOUND, "list windows again; the window may have closed", "window %u is gone",
                          (unsigned)id);
    free(a);
    return rc;
}

pg_err x11_settle(pg_platform *p, uint64_t id, uint32_t quiet_ms, uint32_t timeout_ms,
                  pg_error *e) {
    /* A window the watcher knows (resolved when it was first watched), quiet
     * for the interval: settled once one round trip shows it still exists,
     * without resolving it again (the capture that follows does that). */
    if (p->watch && id && id <= 0xffffffffu && x11_watch_quiet(p->watch, (xcb_window_t)id, quiet_ms))
        return still_there(p, (xcb_window_t)id, e);
    x11_win w;
    pg_err rc = x11_resolve(p, id, &w, e);
    if (rc != PG_OK) return rc;
    if (!p->damage.present) return settle_compare(p, id, quiet_ms, timeout_ms, e);
    if (!p->watch && !p->watch_failed) p->watch_failed = !(p->watch = x11_watch_start(p->display));
    bool waited = true;
    rc = p->watch ? x11_watch_settle(p->watch, w.id, quiet_ms, timeout_ms, &waited, e) : PG_E_UNREACHABLE;
    if (rc == PG_E_UNREACHABLE) /* no watcher, or its connection broke: watch for this request only */
        waited = true, rc = settle_damage(p, &w, quiet_ms, timeout_ms, e);
    if (rc != PG_OK || !waited) return rc; /* quiet already: resolved a moment ago, under the same lock */
    /* A destroyed window stops reporting damage; make sure it is still there. */
    x11_win again;
    return x11_resolve(p, id, &again, e);
}
