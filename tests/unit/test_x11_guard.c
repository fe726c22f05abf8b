/* SPDX-License-Identifier: MIT */
/* test_x11_guard.c - guard_begin / guard_end of the X11 backend (--if-
 * unchanged) on a private Xvfb (a display of :230-:239), without a window
 * manager and under openbox.
 *
 * Proves: a guarded click on an unchanged window goes through while the
 * server is grabbed (another connection's request waits until the input is
 * processed, then is answered); after the window's pixels change, or a
 * window is raised over the point (with the very same pixels), guard_begin
 * is TARGET_CHANGED, the server is not left grabbed, and no ButtonPress
 * reaches the window; under openbox, whose click-to-focus grab needs the
 * server to process its AllowEvents, a guarded click still lands at once
 * (the grab ends before the backend waits for delivery) and a guarded drag
 * presses and releases. Xvfb and openbox are killed at exit (and through
 * PR_SET_PDEATHSIG if this process dies). Missing Xvfb or openbox is a
 * FAILURE, never a skip.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include <xcb/xcb.h>
#include <xcb/xcbext.h> /* xcb_poll_for_reply: a reply awaited without blocking */

#include "pg_platform.h"
#include "pg_test.h"
#include "pg_time.h"

#define PAD_RGB 0x406080u
#define DEADLINE_MS 10000 /* a loaded 2-core machine: Xvfb, openbox and a map can be slow */

static struct {
    char dpy[16];
    pid_t xvfb, openbox;
    xcb_connection_t *c; /* the app's connection: the pads, and the "other client" */
    xcb_window_t root;
    const pg_platform_ops *ops;
    pg_platform *p;
    bool broken;
} env;

static pid_t spawn(char *const argv[]) {
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        setenv("DISPLAY", env.dpy, 1);
        int null = open("/dev/null", O_RDWR);
        dup2(null, 1);
        dup2(null, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    return pid;
}

static void stop(pid_t *pid) {
    if (*pid <= 0) return;
    kill(*pid, SIGTERM);
    for (pg_deadline d = pg_deadline_in_ms(2000); !pg_deadline_passed(d); pg_sleep_ms(10))
        if (waitpid(*pid, NULL, WNOHANG) == *pid) {
            *pid = 0;
            return;
        }
    kill(*pid, SIGKILL);
    waitpid(*pid, NULL, 0);
    *pid = 0;
}

static void cleanup(void) {
    if (env.p) env.ops->close(env.p);
    if (env.c) xcb_disconnect(env.c);
    stop(&env.openbox);
    stop(&env.xvfb);
}

/* Xvfb on the first free display of :230-:239 (this test's range). */
static bool start_xvfb(void) {
    for (int d = 230; d < 240; d++) {
        char lock[64], sock[64];
        snprintf(lock, sizeof lock, "/tmp/.X%d-lock", d);
        snprintf(sock, sizeof sock, "/tmp/.X11-unix/X%d", d);
        if (access(lock, F_OK) == 0 || access(sock, F_OK) == 0) continue;
        snprintf(env.dpy, sizeof env.dpy, ":%d", d);
        char *argv[] = {"Xvfb", env.dpy, "-screen", "0", "800x600x24", "-nolisten", "tcp", "-noreset", NULL};
        env.xvfb = spawn(argv);
        for (pg_deadline t = pg_deadline_in_ms(DEADLINE_MS); !pg_deadline_passed(t); pg_sleep_ms(20)) {
            if (waitpid(env.xvfb, NULL, WNOHANG) == env.xvfb) break; /* lost a race for this number */
            if (access(sock, F_OK) != 0) continue;
            env.c = xcb_connect(env.dpy, NULL);
            if (!xcb_connection_has_error(env.c)) {
                env.root = xcb_setup_roots_iterator(xcb_get_setup(env.c)).data->root;
                return true;
            }
            xcb_disconnect(env.c);
            env.c = NULL;
        }
        env.xvfb = 0;
    }
    fprintf(stderr, "could not start Xvfb on any of :230-:239\n");
    return false;
}

static bool setup_once(void) {
    if (env.c || env.broken) return !env.broken;
    atexit(cleanup);
    pg_error e;
    env.broken = !start_xvfb();
    env.ops = pg_platform_default();
    if (!env.broken && env.ops->open(&env.p, env.dpy, &e) != PG_OK) {
        fprintf(stderr, "open: %s\n", e.message);
        env.broken = true;
    }
    return !env.broken;
}

static xcb_atom_t atom(const char *name) {
    xcb_intern_atom_reply_t *r =
        xcb_intern_atom_reply(env.c, xcb_intern_atom(env.c, 0, (uint16_t)strlen(name), name), NULL);
    xcb_atom_t a = r ? r->atom : XCB_NONE;
    free(r);
    return a;
}

static bool wm_ready(void) {
    xcb_atom_t a = atom("_NET_SUPPORTING_WM_CHECK");
    xcb_get_property_reply_t *r =
        xcb_get_property_reply(env.c, xcb_get_property(env.c, 0, env.root, a, XCB_ATOM_WINDOW, 0, 1), NULL);
    bool ready = r && xcb_get_property_value_length(r) == 4;
    free(r);
    return ready;
}

static xcb_window_t parent_of(xcb_window_t w) {
    xcb_query_tree_reply_t *t = xcb_query_tree_reply(env.c, xcb_query_tree(env.c, w), NULL);
    xcb_window_t p = t ? t->parent : XCB_NONE;
    free(t);
    return p;
}

/* A window mapped now is framed within a second: openbox has finished
 * starting (its check property comes before it takes over mapping, and a
 * window mapped in between stays unmanaged). */
static bool manages_new_windows(void) {
    xcb_window_t probe = xcb_generate_id(env.c);
    xcb_create_window(env.c, XCB_COPY_FROM_PARENT, probe, env.root, 0, 0, 10, 10, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT,
                      XCB_COPY_FROM_PARENT, 0, NULL);
    xcb_map_window(env.c, probe);
    xcb_flush(env.c);
    bool framed = false;
    for (pg_deadline d = pg_deadline_in_ms(1000); !framed && !pg_deadline_passed(d); pg_sleep_ms(20))
        framed = parent_of(probe) != env.root;
    xcb_destroy_window(env.c, probe);
    xcb_flush(env.c);
    return framed;
}

/* With or without openbox, as the test wants. */
static bool want_wm(bool on) {
    if (!on) {
        stop(&env.openbox);
        return true;
    }
    if (env.openbox) return true;
    char *argv[] = {"openbox", "--sm-disable", NULL};
    env.openbox = spawn(argv);
    for (pg_deadline d = pg_deadline_in_ms(DEADLINE_MS); !pg_deadline_passed(d); pg_sleep_ms(20))
        if (wm_ready() && manages_new_windows()) return true;
    fprintf(stderr, "openbox did not start\n");
    return false;
}

/* Answered within the deadline: nobody holds the server grabbed. */
static bool other_client_answered(unsigned seq) {
    xcb_flush(env.c);
    for (pg_deadline d = pg_deadline_in_ms(DEADLINE_MS); !pg_deadline_passed(d); pg_sleep_ms(2)) {
        void *reply = NULL;
        xcb_generic_error_t *err = NULL;
        if (xcb_poll_for_reply(env.c, seq, &reply, &err)) {
            free(reply);
            free(err);
            return true;
        }
    }
    return false;
}

static bool server_free(void) { return other_client_answered(xcb_get_input_focus(env.c).sequence); }

/* A 200x100 window of colour rgb that reports its button presses to env.c,
 * listed by the backend: *out gets it as listed (its content origin). */
static xcb_window_t make_pad(int16_t x, int16_t y, uint32_t rgb, bool override, pg_window *out) {
    xcb_window_t w = xcb_generate_id(env.c);
    uint32_t vals[] = {rgb, override, XCB_EVENT_MASK_BUTTON_PRESS | XCB_EVENT_MASK_BUTTON_RELEASE};
    xcb_create_window(env.c, XCB_COPY_FROM_PARENT, w, env.root, x, y, 200, 100, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT,
                      XCB_COPY_FROM_PARENT, XCB_CW_BACK_PIXEL | XCB_CW_OVERRIDE_REDIRECT | XCB_CW_EVENT_MASK, vals);
    const char *title = "pixelgate guard pad";
    xcb_change_property(env.c, XCB_PROP_MODE_REPLACE, w, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8,
                        (uint32_t)strlen(title), title);
    xcb_map_window(env.c, w);
    xcb_flush(env.c);
    pg_error e;
    for (pg_deadline d = pg_deadline_in_ms(DEADLINE_MS); out && !pg_deadline_passed(d); pg_sleep_ms(20)) {
        pg_window *all;
        size_t n;
        if (env.ops->list_windows(env.p, &all, &n, &e) != PG_OK) break;
        bool found = false;
        for (size_t i = 0; i < n && !found; i++)
            if (all[i].id == w && all[i].visible) *out = all[i], found = true;
        free(all);
        if (found) return w;
    }
    return out ? XCB_NONE : w;
}

/* Every pixel of r on the screen is rgb (within the deadline). */
static bool screen_shows(pg_rect r, uint32_t rgb) {
    pg_error e;
    for (pg_deadline d = pg_deadline_in_ms(DEADLINE_MS); !pg_deadline_passed(d); pg_sleep_ms(20)) {
        pg_capture cap;
        if (env.ops->capture_screen(env.p, &r, &cap, &e) != PG_OK) return false;
        bool all = true;
        for (uint32_t y = 0; y < cap.height && all; y++)
            for (uint32_t x = 0; x < cap.width && all; x++) {
                const uint8_t *px = cap.rgba + y * cap.stride + x * 4;
                all = px[0] == (rgb >> 16 & 0xff) && px[1] == (rgb >> 8 & 0xff) && px[2] == (rgb & 0xff);
            }
        free(cap.rgba);
        if (all) return true;
    }
    return false;
}

/* The screen's pixels in r, tightly packed: the guard's reference. */
static uint8_t *reference(pg_rect r) {
    pg_error e;
    pg_capture cap;
    if (env.ops->capture_screen(env.p, &r, &cap, &e) != PG_OK) return NULL;
    uint8_t *ref = malloc((size_t)r.w * r.h * 4);
    for (uint32_t y = 0; ref && y < r.h; y++) memcpy(ref + (size_t)y * r.w * 4, cap.rgba + y * cap.stride, r.w * 4);
    free(cap.rgba);
    return ref;
}

/* Button presses on pad that reached env.c before a round trip made now:
 * whatever the backend's finished calls caused has arrived by then. */
static int presses_now(xcb_window_t pad) {
    free(xcb_get_input_focus_reply(env.c, xcb_get_input_focus(env.c), NULL));
    int n = 0;
    for (xcb_generic_event_t *ev; (ev = xcb_poll_for_queued_event(env.c)); free(ev))
        if ((ev->response_type & 0x7f) == XCB_BUTTON_PRESS && ((xcb_button_press_event_t *)ev)->event == pad) n++;
    return n;
}

/* Waits (bounded) until pad has had want presses. */
static bool presses_reach(xcb_window_t pad, int want) {
    int seen = 0;
    for (pg_deadline d = pg_deadline_in_ms(DEADLINE_MS); !pg_deadline_passed(d); pg_sleep_ms(10))
        if ((seen += presses_now(pad)) >= want) return seen == want;
    return false;
}

/* The guard as the core fills it: window, the point, the 32x32 box around it. */
static pg_guard guard_at(const pg_window *w, int32_t x, int32_t y, const uint8_t *ref) {
    pg_guard g = {.window = w->id, .point = {w->x + x, w->y + y}, .ref = ref, .tolerance = 6};
    g.rect = (pg_rect){w->x + x - 16, w->y + y - 16, 32, 32};
    return g;
}

/* What the core does: the input only after PG_OK, guard_end after it. */
static pg_err guarded_click(pg_guard *g, int32_t x, int32_t y, pg_error *e) {
    pg_err rc = env.ops->guard_begin(env.p, g, e);
    if (rc != PG_OK) return rc;
    rc = env.ops->click(env.p, g->window, x, y, PG_BTN_LEFT, 1, e);
    env.ops->guard_end(env.p);
    return rc;
}

#define SETUP(wm) REQUIRE(setup_once() && want_wm(wm))

PG_TEST(guarded_click_on_an_unchanged_window_goes_through_under_the_grab) {
    SETUP(false);
    pg_window w;
    xcb_window_t pad = make_pad(100, 100, PAD_RGB, false, &w);
    REQUIRE(pad != XCB_NONE);
    pg_guard g = guard_at(&w, 50, 50, NULL);
    REQUIRE(screen_shows(g.rect, PAD_RGB));
    uint8_t *ref = reference(g.rect);
    REQUIRE(ref != NULL);
    g.ref = ref;
    (void)presses_now(pad);
    pg_error e;
    REQUIRE(env.ops->guard_begin(env.p, &g, &e) == PG_OK);
    CHECK(g.difference == 0);
    /* grabbed: another client's request waits while the backend's own are answered */
    unsigned waiting = xcb_get_input_focus(env.c).sequence;
    xcb_flush(env.c);
    int32_t px, py;
    REQUIRE(env.ops->pointer_at(env.p, &px, &py, &e) == PG_OK);
    void *reply = NULL;
    xcb_generic_error_t *err = NULL;
    CHECK(xcb_poll_for_reply(env.c, waiting, &reply, &err) == 0);
    REQUIRE(env.ops->click(env.p, pad, 50, 50, PG_BTN_LEFT, 1, &e) == PG_OK);
    env.ops->guard_end(env.p);
    CHECK(other_client_answered(waiting));
    CHECK(presses_reach(pad, 1));
    /* guard_end without an input lets go too */
    REQUIRE(env.ops->guard_begin(env.p, &g, &e) == PG_OK);
    env.ops->guard_end(env.p);
    CHECK(server_free());
    free(ref);
    xcb_destroy_window(env.c, pad);
}

PG_TEST(changed_pixels_are_target_changed_and_no_press_arrives) {
    SETUP(false);
    pg_window w;
    xcb_window_t pad = make_pad(120, 300, PAD_RGB, false, &w);
    REQUIRE(pad != XCB_NONE);
    pg_guard g = guard_at(&w, 60, 40, NULL);
    REQUIRE(screen_shows(g.rect, PAD_RGB));
    uint8_t *ref = reference(g.rect);
    REQUIRE(ref != NULL);
    g.ref = ref;
    uint32_t red = 0xc62828;
    xcb_change_window_attributes(env.c, pad, XCB_CW_BACK_PIXEL, &red);
    xcb_clear_area(env.c, 0, pad, 0, 0, 0, 0);
    xcb_flush(env.c);
    REQUIRE(screen_shows(g.rect, red));
    (void)presses_now(pad);
    pg_error e;
    CHECK_EQ_INT(guarded_click(&g, 60, 40, &e), PG_E_TARGET_CHANGED);
    CHECK(g.difference > g.tolerance);
    CHECK(server_free());
    CHECK_EQ_INT(presses_now(pad), 0);
    /* a few pixels changed (a caret) still pass */
    xcb_change_window_attributes(env.c, pad, XCB_CW_BACK_PIXEL, (uint32_t[]){PAD_RGB});
    xcb_clear_area(env.c, 0, pad, 0, 0, 0, 0);
    xcb_gcontext_t gc = xcb_generate_id(env.c);
    xcb_create_gc(env.c, gc, pad, XCB_GC_FOREGROUND, (uint32_t[]){0x000000});
    xcb_poly_fill_rectangle(env.c, pad, gc, 1, (xcb_rectangle_t[]){{70, 30, 1, 12}});
    xcb_flush(env.c);
    pg_rect caret = {w.x + 70, w.y + 30, 1, 12};
    REQUIRE(screen_shows(caret, 0x000000));
    CHECK_EQ_INT(guarded_click(&g, 60, 40, &e), PG_OK);
    CHECK(g.difference > 0 && g.difference <= g.tolerance);
    CHECK(presses_reach(pad, 1));
    CHECK(server_free());
    free(ref);
    xcb_free_gc(env.c, gc);
    xcb_destroy_window(env.c, pad);
}

PG_TEST(a_window_raised_over_the_point_is_target_changed_even_with_the_same_pixels) {
    SETUP(false);
    pg_window w;
    xcb_window_t pad = make_pad(400, 100, PAD_RGB, false, &w);
    REQUIRE(pad != XCB_NONE);
    pg_guard g = guard_at(&w, 100, 50, NULL);
    REQUIRE(screen_shows(g.rect, PAD_RGB));
    uint8_t *ref = reference(g.rect);
    REQUIRE(ref != NULL);
    g.ref = ref;
    /* a "dialog" of the same colour, raised under the pointer */
    xcb_window_t cover = make_pad((int16_t)(w.x + 80), (int16_t)(w.y + 30), PAD_RGB, true, NULL);
    REQUIRE(screen_shows(g.rect, PAD_RGB));
    uint64_t top = 0;
    pg_error e;
    for (pg_deadline d = pg_deadline_in_ms(DEADLINE_MS); top != cover && !pg_deadline_passed(d); pg_sleep_ms(10))
        REQUIRE(env.ops->top_at(env.p, g.point.x, g.point.y, &top, &e) == PG_OK);
    REQUIRE(top == cover);
    (void)presses_now(pad);
    CHECK_EQ_INT(guarded_click(&g, 100, 50, &e), PG_E_TARGET_CHANGED);
    CHECK(strstr(e.message, "on top") != NULL);
    CHECK(server_free());
    CHECK_EQ_INT(presses_now(pad), 0);
    CHECK_EQ_INT(presses_now(cover), 0);
    xcb_destroy_window(env.c, cover);
    free(ref);
    xcb_destroy_window(env.c, pad);
}

/* openbox's click-to-focus grab freezes the pointer until openbox answers
 * with AllowEvents, which the server takes only once nobody holds it
 * grabbed: a guard still held while the backend waits for delivery would
 * leave the click unconfirmed after a second. */
PG_TEST(openbox_guarded_click_and_drag_land_at_once) {
    SETUP(true);
    pg_window w;
    xcb_window_t pad = make_pad(200, 200, PAD_RGB, false, &w);
    REQUIRE(pad != XCB_NONE);
    pg_guard g = guard_at(&w, 100, 50, NULL);
    REQUIRE(screen_shows(g.rect, PAD_RGB));
    uint8_t *ref = reference(g.rect);
    REQUIRE(ref != NULL);
    g.ref = ref;
    pg_error e;
    uint32_t unconfirmed = 0;
    REQUIRE(env.ops->unconfirmed(env.p, &unconfirmed, &e) == PG_OK);
    (void)presses_now(pad);
    CHECK_EQ_INT(guarded_click(&g, 100, 50, &e), PG_OK);
    REQUIRE(env.ops->unconfirmed(env.p, &unconfirmed, &e) == PG_OK);
    CHECK_EQ_INT((int)unconfirmed, 0); /* seen delivered: the grab was gone when the backend waited */
    CHECK(presses_reach(pad, 1));
    CHECK(server_free());
    pg_point path[3] = {{100, 50}, {120, 60}, {140, 70}};
    REQUIRE(env.ops->guard_begin(env.p, &g, &e) == PG_OK);
    CHECK_EQ_INT(env.ops->drag(env.p, pad, path, 3, PG_BTN_LEFT, 50, 20, &e), PG_OK);
    env.ops->guard_end(env.p);
    CHECK(presses_reach(pad, 1));
    CHECK(server_free());
    free(ref);
    xcb_destroy_window(env.c, pad);
    REQUIRE(want_wm(false));
}
