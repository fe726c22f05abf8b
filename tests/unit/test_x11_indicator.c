/* SPDX-License-Identifier: MIT */
/* test_x11_indicator.c - the X11 backend's indicate(): the sign that an agent
 * drives, on a private Xvfb, first with no window manager, then under
 * openbox, then on a server without Composite.
 *
 * Proves: the ring is an override-redirect window named "pixelgate
 * indicator", 6 px outside the target's frame, shaped as 4 rectangles with an
 * empty input region; it is the topmost child of root and is so again after a
 * newly mapped, a raised and an override-redirect window went over it; an
 * XTEST click on a pixel of the ring or the banner reaches the window under
 * it (and the backend's own click there is not refused); a screen capture and
 * a window capture have the same bytes with the sign shown as with it hidden,
 * though the screen (read by this test's own connection) shows it; list_all
 * and top_at never report it; it follows the target's moves, hides while the
 * target is unmapped, hides on window 0, moves to another target, and goes
 * away with the handle; without Composite indicate is PG_E_UNSUPPORTED.
 * Starts its own Xvfb on the first free display of :220..:229 and openbox,
 * and kills them at exit (and, through PR_SET_PDEATHSIG, if this process
 * dies). Missing Xvfb or openbox is a FAILURE, never a skip. Every wait is
 * for a condition, with a deadline.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xcb/shape.h>
#include <xcb/xcb.h>
#include <xcb/xtest.h>

#include "pg_platform.h"
#include "pg_test.h"
#include "pg_time.h"
#include "x11_private.h" /* x11_indicator_aside_held: what a caller holding a grab uses */

enum { MODE_NONE, MODE_NOWM, MODE_OPENBOX, MODE_NOCOMPOSITE };

#define DEADLINE_MS 10000 /* a loaded 2-core machine: generous, never slept through */
#define ORANGE 0xff8c00u  /* the sign's colour as a 24-bit TrueColor pixel */
#define MAX_MADE 32

static struct {
    bool broken;
    char why[1200];
    int mode;
    char dpy[16];
    pid_t xvfb, openbox;
    bool composite;
    xcb_connection_t *c;
    xcb_window_t root;
    const pg_platform_ops *ops;
    pg_platform *p;
    xcb_window_t made[MAX_MADE];
    size_t nmade;
} env;

/* ------------------------------------------------------------ processes */

static bool on_path(const char *prog) {
    const char *path = getenv("PATH");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path ? path : "/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char full[4200];
        snprintf(full, sizeof full, "%s/%s", d, prog);
        if (access(full, X_OK) == 0) return true;
    }
    return false;
}

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
    for (double t0 = pg_mono_ms(); pg_mono_ms() - t0 < 2000; pg_sleep_ms(20))
        if (waitpid(*pid, NULL, WNOHANG) == *pid) {
            *pid = 0;
            return;
        }
    kill(*pid, SIGKILL);
    waitpid(*pid, NULL, 0);
    *pid = 0;
}

static void close_backend(void) {
    if (env.p) env.ops->close(env.p);
    env.p = NULL;
}

static void cleanup(void) {
    close_backend();
    if (env.c) xcb_disconnect(env.c);
    env.c = NULL;
    stop(&env.openbox);
    stop(&env.xvfb);
}

static bool fail_setup(const char *fmt, const char *arg) {
    snprintf(env.why, sizeof env.why, fmt, arg);
    env.broken = true;
    return false;
}

static void sync_test(void) { free(xcb_get_input_focus_reply(env.c, xcb_get_input_focus(env.c), NULL)); }

static bool start_xvfb(bool composite) {
    for (int d = 220; d <= 229; d++) {
        char lock[64], sock[64], num[16];
        snprintf(lock, sizeof lock, "/tmp/.X%d-lock", d);
        snprintf(sock, sizeof sock, "/tmp/.X11-unix/X%d", d);
        if (access(lock, F_OK) == 0 || access(sock, F_OK) == 0) continue;
        snprintf(num, sizeof num, ":%d", d);
        snprintf(env.dpy, sizeof env.dpy, ":%d", d);
        char *argv[] = {"Xvfb", num, "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-noreset",
                        composite ? NULL : "-extension", "Composite", NULL};
        env.xvfb = spawn(argv);
        for (double t0 = pg_mono_ms(); pg_mono_ms() - t0 < DEADLINE_MS; pg_sleep_ms(20)) {
            if (waitpid(env.xvfb, NULL, WNOHANG) == env.xvfb) break; /* lost a race for this number */
            if (access(sock, F_OK) != 0) continue;
            env.c = xcb_connect(env.dpy, NULL);
            if (!xcb_connection_has_error(env.c)) {
                env.root = xcb_setup_roots_iterator(xcb_get_setup(env.c)).data->root;
                env.composite = composite;
                return true;
            }
            xcb_disconnect(env.c);
            env.c = NULL;
        }
        env.xvfb = env.xvfb > 0 && waitpid(env.xvfb, NULL, WNOHANG) == 0 ? env.xvfb : 0;
        stop(&env.xvfb);
    }
    return fail_setup("could not start Xvfb on any display :220..:229%s", "");
}

/* ------------------------------------------------------------ X helpers */

static xcb_atom_t atom(const char *name) {
    xcb_intern_atom_reply_t *r =
        xcb_intern_atom_reply(env.c, xcb_intern_atom(env.c, 0, (uint16_t)strlen(name), name), NULL);
    xcb_atom_t a = r ? r->atom : XCB_NONE;
    free(r);
    return a;
}

static xcb_window_t window_prop(xcb_window_t w, xcb_atom_t a) {
    xcb_get_property_reply_t *r =
        xcb_get_property_reply(env.c, xcb_get_property(env.c, 0, w, a, XCB_ATOM_WINDOW, 0, 1), NULL);
    xcb_window_t v = 0;
    if (r && xcb_get_property_value_length(r) == 4) memcpy(&v, xcb_get_property_value(r), 4);
    free(r);
    return v;
}

static bool wm_ready(xcb_window_t unused) {
    (void)unused;
    xcb_atom_t a = atom("_NET_SUPPORTING_WM_CHECK");
    xcb_window_t w = window_prop(env.root, a);
    return w && window_prop(w, a) == w;
}

static bool has_class(xcb_window_t w, const char *cls, size_t n) {
    xcb_get_property_reply_t *r = xcb_get_property_reply(
        env.c, xcb_get_property(env.c, 0, w, XCB_ATOM_WM_CLASS, XCB_ATOM_STRING, 0, 64), NULL);
    bool same = r && (size_t)xcb_get_property_value_length(r) == n && memcmp(xcb_get_property_value(r), cls, n) == 0;
    free(r);
    return same;
}

#define SIGN_CLASS "pixelgate-indicator\0pixelgate-indicator" /* with its final NUL: sizeof */

/* The sign among root's children (by its WM_CLASS), or 0; *top: it is the
 * topmost child of root; *viewable: it is mapped. */
static xcb_window_t find_sign(bool *top, bool *viewable) {
    *top = *viewable = false;
    xcb_query_tree_reply_t *t = xcb_query_tree_reply(env.c, xcb_query_tree(env.c, env.root), NULL);
    if (!t) return 0;
    const xcb_window_t *kids = xcb_query_tree_children(t);
    int n = xcb_query_tree_children_length(t);
    xcb_window_t sign = 0;
    for (int i = n - 1; i >= 0 && !sign; i--)
        if (has_class(kids[i], SIGN_CLASS, sizeof SIGN_CLASS)) sign = kids[i], *top = i == n - 1;
    free(t);
    xcb_get_window_attributes_reply_t *a =
        sign ? xcb_get_window_attributes_reply(env.c, xcb_get_window_attributes(env.c, sign), NULL) : NULL;
    *viewable = a && a->map_state == XCB_MAP_STATE_VIEWABLE;
    free(a);
    return sign;
}

static bool sign_on_top(xcb_window_t unused) {
    (void)unused;
    bool top, viewable;
    return find_sign(&top, &viewable) && top && viewable;
}

static bool sign_hidden(xcb_window_t unused) {
    (void)unused;
    bool top, viewable;
    (void)find_sign(&top, &viewable);
    return !viewable;
}

static bool sign_gone(xcb_window_t unused) {
    (void)unused;
    bool top, viewable;
    return find_sign(&top, &viewable) == 0;
}

static pg_rect geometry_of(xcb_window_t w) {
    xcb_get_geometry_reply_t *g = xcb_get_geometry_reply(env.c, xcb_get_geometry(env.c, w), NULL);
    pg_rect r = g ? (pg_rect){g->x, g->y, g->width, g->height} : (pg_rect){0, 0, 0, 0};
    free(g);
    return r;
}

static bool viewable(xcb_window_t w) {
    xcb_get_window_attributes_reply_t *a = xcb_get_window_attributes_reply(env.c, xcb_get_window_attributes(env.c, w), NULL);
    bool v = a && a->map_state == XCB_MAP_STATE_VIEWABLE;
    free(a);
    return v;
}

/* What the screen shows at x,y, read by this test's connection (the sign
 * included): a 24-bit pixel. */
static uint32_t screen_pixel(int16_t x, int16_t y) {
    xcb_get_image_reply_t *r = xcb_get_image_reply(
        env.c, xcb_get_image(env.c, XCB_IMAGE_FORMAT_Z_PIXMAP, env.root, x, y, 1, 1, ~0u), NULL);
    uint32_t v = 0;
    if (r && xcb_get_image_data_length(r) >= 3) {
        const uint8_t *d = xcb_get_image_data(r);
        v = (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16;
    }
    free(r);
    return v;
}

/* A plain window of this test: its own colour, a name, at x,y (USPosition:
 * a window manager keeps it there), reporting button presses; mapped. */
static xcb_window_t make_window(int16_t x, int16_t y, uint16_t w, uint16_t h, uint32_t pixel, bool override,
                                const char *name) {
    xcb_window_t win = xcb_generate_id(env.c);
    uint32_t vals[] = {pixel, override, XCB_EVENT_MASK_BUTTON_PRESS};
    xcb_create_window(env.c, XCB_COPY_FROM_PARENT, win, env.root, x, y, w, h, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT,
                      XCB_COPY_FROM_PARENT, XCB_CW_BACK_PIXEL | XCB_CW_OVERRIDE_REDIRECT | XCB_CW_EVENT_MASK, vals);
    xcb_change_property(env.c, XCB_PROP_MODE_REPLACE, win, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8,
                        (uint32_t)strlen(name), name);
    xcb_change_property(env.c, XCB_PROP_MODE_REPLACE, win, XCB_ATOM_WM_CLASS, XCB_ATOM_STRING, 8, 14,
                        "pgtest\0PgTest");
    uint32_t hints[18] = {1u | 2u, (uint32_t)x, (uint32_t)y, w, h}; /* USPosition | USSize */
    xcb_change_property(env.c, XCB_PROP_MODE_REPLACE, win, XCB_ATOM_WM_NORMAL_HINTS, XCB_ATOM_WM_SIZE_HINTS, 32, 18,
                        hints);
    xcb_map_window(env.c, win);
    sync_test();
    if (env.nmade < MAX_MADE) env.made[env.nmade++] = win;
    return win;
}

static void destroy_made(void) {
    for (size_t i = 0; i < env.nmade; i++) xcb_destroy_window(env.c, env.made[i]);
    env.nmade = 0;
    sync_test();
}

/* ------------------------------------------------------------ waiting */

/* Poll cond(w) until it holds or DEADLINE_MS passed; its last answer. */
static bool wait_until(bool (*cond)(xcb_window_t), xcb_window_t w) {
    bool ok = cond(w);
    for (double t0 = pg_mono_ms(); !ok && pg_mono_ms() - t0 < DEADLINE_MS;) {
        pg_sleep_ms(10);
        ok = cond(w);
    }
    return ok;
}

/* In list_windows, visible: a window manager has taken it into its client
 * list, so the backend accepts its id. */
static bool listed(xcb_window_t w) {
    pg_window *ws;
    size_t n;
    pg_error e;
    bool found = false;
    if (env.ops->list_windows(env.p, &ws, &n, &e) != PG_OK) return false;
    for (size_t i = 0; i < n; i++) found |= ws[i].id == w && ws[i].visible;
    free(ws);
    return found;
}

static bool framed_and_listed(xcb_window_t w) { return viewable(w) && listed(w); }

/* The frame list_windows reports for w (under a WM: its frame). */
static pg_rect frame_of(xcb_window_t w) {
    pg_window d;
    pg_error e;
    return env.ops->describe_window(env.p, w, &d, &e) == PG_OK ? d.frame : (pg_rect){0, 0, 0, 0};
}

static bool rect_eq(pg_rect a, pg_rect b) { return a.x == b.x && a.y == b.y && a.w == b.w && a.h == b.h; }

/* The ring's window: 6 px around the frame on every side. */
static pg_rect ring_around(pg_rect f) { return (pg_rect){f.x - 6, f.y - 6, f.w + 12, f.h + 12}; }

static bool ring_at(xcb_window_t target) {
    bool top, view;
    xcb_window_t s = find_sign(&top, &view);
    return s && view && top && rect_eq(geometry_of(s), ring_around(frame_of(target)));
}

static bool pressed_in(xcb_window_t w) {
    xcb_generic_event_t *ev;
    bool hit = false;
    while ((ev = xcb_poll_for_event(env.c)) != NULL) {
        if ((ev->response_type & 0x7f) == XCB_BUTTON_PRESS && ((xcb_button_press_event_t *)ev)->event == w) hit = true;
        free(ev);
    }
    return hit;
}

static void drop_events(void) {
    xcb_generic_event_t *ev;
    while ((ev = xcb_poll_for_event(env.c)) != NULL) free(ev);
}

/* A click as a person (or any X client) would make it: XTEST, at root x,y. */
static void xtest_click(int16_t x, int16_t y) {
    xcb_test_fake_input(env.c, XCB_MOTION_NOTIFY, 0, XCB_CURRENT_TIME, env.root, x, y, 0);
    xcb_test_fake_input(env.c, XCB_BUTTON_PRESS, 1, XCB_CURRENT_TIME, XCB_NONE, 0, 0, 0);
    xcb_test_fake_input(env.c, XCB_BUTTON_RELEASE, 1, XCB_CURRENT_TIME, XCB_NONE, 0, 0, 0);
    sync_test();
}

static pg_err indicate(xcb_window_t w, pg_indicator_mode mode, pg_error *e) {
    pg_indicator how = {w, mode, "alice"};
    pg_err rc = env.ops->indicate(env.p, &how, e);
    if (rc != PG_OK) fprintf(stderr, "     indicate %u: %s\n", (unsigned)w, e->message); /* why, when a check fails */
    return rc;
}

/* ------------------------------------------------------------ setup */

static bool open_backend(void) {
    pg_error e;
    env.ops = pg_platform_default();
    if (env.ops->open(&env.p, env.dpy, &e) != PG_OK) return fail_setup("open: %s", e.message);
    return true;
}

/* openbox sets its check property before it handles map requests, and a
 * request that comes in between is lost: it is ready once it has framed a
 * probe window, mapped again each second until it has. */
static bool framed(xcb_window_t w) {
    xcb_query_tree_reply_t *t = xcb_query_tree_reply(env.c, xcb_query_tree(env.c, w), NULL);
    bool in_frame = t && t->parent != env.root;
    free(t);
    return in_frame && viewable(w);
}

static bool start_openbox(void) {
    char *argv[] = {"openbox", "--sm-disable", NULL};
    env.openbox = spawn(argv);
    if (!wait_until(wm_ready, 0)) return fail_setup("openbox did not set _NET_SUPPORTING_WM_CHECK%s", "");
    xcb_window_t probe = xcb_generate_id(env.c);
    xcb_create_window(env.c, XCB_COPY_FROM_PARENT, probe, env.root, 0, 0, 50, 50, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT,
                      XCB_COPY_FROM_PARENT, 0, NULL);
    bool ready = false;
    for (double t0 = pg_mono_ms(); !ready && pg_mono_ms() - t0 < DEADLINE_MS;) {
        xcb_unmap_window(env.c, probe);
        xcb_map_window(env.c, probe);
        sync_test();
        for (double t1 = pg_mono_ms(); !ready && pg_mono_ms() - t1 < 1000; pg_sleep_ms(10)) ready = framed(probe);
    }
    xcb_destroy_window(env.c, probe);
    sync_test();
    return ready || fail_setup("openbox never framed a window%s", "");
}

static bool setup(int mode) {
    if (env.broken) return false;
    if (env.mode == mode) return true;
    if (!env.xvfb) {
        const char *need[] = {"Xvfb", "openbox"};
        for (int i = 0; i < 2; i++)
            if (!on_path(need[i])) return fail_setup("%s not found on PATH: install it (this test never skips)", need[i]);
        atexit(cleanup);
    }
    bool composite = mode != MODE_NOCOMPOSITE;
    if (env.xvfb && composite != env.composite) cleanup(); /* the extension is chosen when the server starts */
    if (!env.xvfb && !start_xvfb(composite)) return false;
    close_backend();
    destroy_made();
    stop(&env.openbox);
    env.mode = MODE_NONE;
    if (mode == MODE_OPENBOX && !start_openbox()) return false;
    if (mode != MODE_OPENBOX) { /* a WM that quit may leave its check property behind */
        xcb_delete_property(env.c, env.root, atom("_NET_SUPPORTING_WM_CHECK"));
        sync_test();
    }
    if (!open_backend()) return false;
    env.mode = mode;
    return true;
}

#define SETUP(mode)                                                                    \
    do {                                                                               \
        if (!setup(mode)) {                                                            \
            fprintf(stderr, "%s:%d: setup failed: %s\n", __FILE__, __LINE__, env.why); \
            *pg_failed_ = 1;                                                           \
            return;                                                                    \
        }                                                                              \
    } while (0)

/* ------------------------------------------------------------ more helpers */

/* How many pixels of the screen rectangle have value v (this test's read,
 * the sign included). */
static uint32_t count_pixels(int16_t x, int16_t y, uint16_t w, uint16_t h, uint32_t v) {
    xcb_get_image_reply_t *r = xcb_get_image_reply(
        env.c, xcb_get_image(env.c, XCB_IMAGE_FORMAT_Z_PIXMAP, env.root, x, y, w, h, ~0u), NULL);
    uint32_t n = 0;
    if (r && (size_t)xcb_get_image_data_length(r) >= (size_t)w * h * 4) {
        const uint8_t *d = xcb_get_image_data(r);
        for (size_t i = 0; i < (size_t)w * h; i++)
            n += ((uint32_t)d[4 * i] | (uint32_t)d[4 * i + 1] << 8 | (uint32_t)d[4 * i + 2] << 16) == v;
    }
    free(r);
    return n;
}

static bool wait_pixel(int16_t x, int16_t y, uint32_t want) {
    bool ok = screen_pixel(x, y) == want;
    for (double t0 = pg_mono_ms(); !ok && pg_mono_ms() - t0 < DEADLINE_MS;) {
        pg_sleep_ms(10);
        ok = screen_pixel(x, y) == want;
    }
    return ok;
}

static bool banner_up(xcb_window_t unused) {
    (void)unused;
    bool top, view;
    xcb_window_t s = find_sign(&top, &view);
    return s && top && view && rect_eq(geometry_of(s), (pg_rect){0, 0, 1280, 24});
}

/* The 8-bit text property a of w, "" when none. */
static void text_prop(xcb_window_t w, xcb_atom_t a, char *out, size_t cap) {
    xcb_get_property_reply_t *r =
        xcb_get_property_reply(env.c, xcb_get_property(env.c, 0, w, a, XCB_GET_PROPERTY_TYPE_ANY, 0, 64), NULL);
    size_t n = r && r->format == 8 ? (size_t)xcb_get_property_value_length(r) : 0;
    n = n < cap - 1 ? n : cap - 1;
    if (n) memcpy(out, xcb_get_property_value(r), n);
    out[n] = 0;
    free(r);
}

static uint32_t shape_rects(xcb_window_t w, xcb_shape_kind_t kind) {
    xcb_shape_get_rectangles_reply_t *r =
        xcb_shape_get_rectangles_reply(env.c, xcb_shape_get_rectangles(env.c, w, kind), NULL);
    uint32_t n = r ? r->rectangles_len : 9999;
    free(r);
    return n;
}

/* Raise w as its program would: directly without a WM, a restack request
 * (which openbox carries out on the frame) with one. */
static void raise_window(xcb_window_t w) {
    uint32_t above = XCB_STACK_MODE_ABOVE;
    xcb_configure_window(env.c, w, XCB_CONFIG_WINDOW_STACK_MODE, &above);
    sync_test();
}

static void move_window(xcb_window_t w, int32_t x, int32_t y) {
    uint32_t v[] = {(uint32_t)x, (uint32_t)y};
    xcb_configure_window(env.c, w, XCB_CONFIG_WINDOW_X | XCB_CONFIG_WINDOW_Y, v);
    sync_test();
}

static bool same_capture(const pg_capture *a, const pg_capture *b) {
    if (a->width != b->width || a->height != b->height || a->origin_x != b->origin_x || a->origin_y != b->origin_y)
        return false;
    for (uint32_t y = 0; y < a->height; y++)
        if (memcmp(a->rgba + (size_t)y * a->stride, b->rgba + (size_t)y * b->stride, (size_t)a->width * 4)) return false;
    return !a->has_sha256 || !b->has_sha256 || memcmp(a->sha256, b->sha256, 32) == 0;
}

static uint32_t rgba_at(const pg_capture *c, int32_t sx, int32_t sy) {
    const uint8_t *px = c->rgba + (size_t)(sy - c->origin_y) * c->stride + (size_t)(sx - c->origin_x) * 4;
    return (uint32_t)px[0] << 16 | (uint32_t)px[1] << 8 | px[2];
}

/* The sign is nowhere in the backend's listings, and top_at at x,y is not it. */
static void check_never_reported(int *pg_failed_, int16_t x, int16_t y) {
    bool top, view;
    xcb_window_t sign = find_sign(&top, &view);
    REQUIRE(sign != 0 && view);
    pg_window *w;
    size_t n;
    bool complete;
    pg_error e;
    REQUIRE(env.ops->list_all(env.p, &w, &n, &complete, &e) == PG_OK);
    for (size_t i = 0; i < n; i++) {
        CHECK(w[i].id != sign);
        CHECK(strcmp(w[i].title, "pixelgate indicator") != 0);
    }
    free(w);
    REQUIRE(env.ops->list_windows(env.p, &w, &n, &e) == PG_OK);
    for (size_t i = 0; i < n; i++) CHECK(w[i].id != sign);
    free(w);
    uint64_t id = 0;
    CHECK_EQ_INT(env.ops->top_at(env.p, x, y, &id, &e), PG_OK);
    CHECK(id != sign);
    pg_window d;
    CHECK_EQ_INT(env.ops->describe_window(env.p, sign, &d, &e), PG_E_NOTFOUND);
    pg_capture c;
    CHECK_EQ_INT(env.ops->capture_window(env.p, sign, NULL, &c, &e), PG_E_NOTFOUND);
}

/* ------------------------------------------------------------ the tests */

/* (1), (2), (5): ring around the target's frame, on top again after a new
 * window, a raised window and an override-redirect window went over it. */
static void t_ring_on_top(int *pg_failed_, int mode) {
    xcb_window_t a = make_window(300, 200, 400, 300, 0x3060c0, false, "target A");
    REQUIRE(wait_until(framed_and_listed, a));
    pg_error e;
    REQUIRE(indicate(a, PG_INDICATOR_RING, &e) == PG_OK);
    CHECK(wait_until(ring_at, a));
    bool top, view;
    xcb_window_t sign = find_sign(&top, &view);
    REQUIRE(sign != 0);
    CHECK_EQ_INT(shape_rects(sign, XCB_SHAPE_SK_BOUNDING), 4);
    CHECK_EQ_INT(shape_rects(sign, XCB_SHAPE_SK_INPUT), 0); /* click-through */
    xcb_get_window_attributes_reply_t *attr =
        xcb_get_window_attributes_reply(env.c, xcb_get_window_attributes(env.c, sign), NULL);
    CHECK(attr && attr->override_redirect);
    free(attr);
    char name[64];
    text_prop(sign, XCB_ATOM_WM_NAME, name, sizeof name);
    CHECK_STR(name, "pixelgate indicator");
    text_prop(sign, atom("_NET_WM_NAME"), name, sizeof name);
    CHECK_STR(name, "pixelgate indicator");
    pg_rect f = frame_of(a);
    CHECK(wait_pixel((int16_t)(f.x - 3), (int16_t)(f.y + 30), ORANGE));   /* on the ring */
    CHECK(screen_pixel((int16_t)(f.x + 30), (int16_t)(f.y + 30)) != ORANGE); /* the window inside is not painted over */
    xcb_window_t b = make_window(350, 250, 400, 300, 0x40a040, false, "cover B"); /* mapped after: on top of the stack */
    REQUIRE(wait_until(framed_and_listed, b));
    CHECK(wait_until(sign_on_top, 0));
    raise_window(a);
    CHECK(wait_until(sign_on_top, 0));
    xcb_window_t menu = make_window(280, 180, 120, 120, 0xc04040, true, "menu"); /* override-redirect: no WM stacks it */
    REQUIRE(wait_until(viewable, menu));
    CHECK(wait_until(sign_on_top, 0));
    CHECK(wait_until(ring_at, a)); /* still around A */
    check_never_reported(pg_failed_, (int16_t)(f.x - 3), (int16_t)(f.y + 30));
    REQUIRE(indicate(0, PG_INDICATOR_RING, &e) == PG_OK);
    CHECK(wait_until(sign_hidden, 0));
    (void)mode;
}

/* (3): clicks through the ring and the banner reach the window under them. */
static void t_click_through(int *pg_failed_, int mode) {
    xcb_window_t under = make_window(0, 0, 900, 600, 0x808080, false, "under");
    xcb_window_t a = make_window(300, 200, 300, 200, 0x3060c0, false, "target");
    REQUIRE(wait_until(framed_and_listed, under) && wait_until(framed_and_listed, a));
    pg_error e;
    REQUIRE(indicate(a, PG_INDICATOR_RING, &e) == PG_OK);
    REQUIRE(wait_until(ring_at, a));
    pg_rect f = frame_of(a);
    int16_t x = (int16_t)(f.x - 3), y = (int16_t)(f.y + 40); /* the ring's left band, over `under` */
    REQUIRE(wait_pixel(x, y, ORANGE));
    drop_events();
    xtest_click(x, y);
    CHECK(wait_until(pressed_in, under));
    uint64_t id = 0;
    CHECK_EQ_INT(env.ops->top_at(env.p, x, y, &id, &e), PG_OK);
    CHECK_EQ_INT(id, under);
    pg_window u;
    REQUIRE(env.ops->describe_window(env.p, under, &u, &e) == PG_OK);
    drop_events();
    CHECK_EQ_INT(env.ops->click(env.p, under, x - u.x, y - u.y, PG_BTN_LEFT, 1, &e), PG_OK); /* not refused as covered */
    CHECK(wait_until(pressed_in, under));
    REQUIRE(indicate(a, PG_INDICATOR_BANNER, &e) == PG_OK);
    REQUIRE(wait_until(banner_up, 0));
    REQUIRE(wait_pixel(600, 5, ORANGE));
    CHECK(count_pixels(0, 0, 400, 24, 0x000000) > 40); /* the text: "pixelgate: alice is driving" */
    drop_events();
    xtest_click(600, 5);
    CHECK(wait_until(pressed_in, under));
    CHECK_EQ_INT(env.ops->top_at(env.p, 600, 5, &id, &e), PG_OK);
    CHECK_EQ_INT(id, under);
    check_never_reported(pg_failed_, 600, 5);
    REQUIRE(indicate(0, PG_INDICATOR_RING, &e) == PG_OK);
    (void)mode;
}

/* Captures with the sign shown and hidden; the first must show no sign. */
typedef struct {
    pg_capture screen, region, target, under;
} capture_set;

static bool capture_all(xcb_window_t target, xcb_window_t under, capture_set *s, pg_error *e) {
    pg_rect region = {250, 0, 400, 260};
    memset(s, 0, sizeof *s);
    return env.ops->capture_screen(env.p, NULL, &s->screen, e) == PG_OK &&
           env.ops->capture_screen(env.p, &region, &s->region, e) == PG_OK &&
           env.ops->capture_window(env.p, target, NULL, &s->target, e) == PG_OK &&
           env.ops->capture_window(env.p, under, NULL, &s->under, e) == PG_OK;
}

static void free_set(capture_set *s) {
    free(s->screen.rgba), free(s->region.rgba), free(s->target.rgba), free(s->under.rgba);
}

static bool same_set(const capture_set *x, const capture_set *y) {
    return same_capture(&x->screen, &y->screen) && same_capture(&x->region, &y->region) &&
           same_capture(&x->target, &y->target) && same_capture(&x->under, &y->under);
}

/* Where a sign of mode m on target a shows: a point of the ring's left band,
 * or of the banner. */
static void sign_point(xcb_window_t a, int m, int16_t *x, int16_t *y) {
    pg_rect f = frame_of(a);
    *x = m == PG_INDICATOR_RING ? (int16_t)(f.x - 3) : 600;
    *y = m == PG_INDICATOR_RING ? (int16_t)(f.y + 40) : 5;
}

/* Captures with the sign shown, between two with it hidden; false (and
 * nothing kept) when the call failed. */
static bool off_on_off(int *pg_failed_, xcb_window_t a, xcb_window_t under, int m, capture_set s[3]) {
    pg_error e;
    int16_t x = 0, y = 0;
    bool ok = indicate(0, PG_INDICATOR_RING, &e) == PG_OK && wait_until(sign_hidden, 0) && capture_all(a, under, &s[0], &e);
    ok = ok && indicate(a, (pg_indicator_mode)m, &e) == PG_OK && wait_until(m == PG_INDICATOR_RING ? ring_at : banner_up, a);
    if (ok) sign_point(a, m, &x, &y);
    ok = ok && wait_pixel(x, y, ORANGE) && capture_all(a, under, &s[1], &e); /* on screen, as this test reads it */
    if (ok) {
        CHECK(rgba_at(&s[1].screen, x, y) != ORANGE);
        CHECK(wait_until(sign_on_top, 0)); /* back, and on top, after the capture */
        CHECK(wait_pixel(x, y, ORANGE));
    }
    ok = ok && indicate(0, PG_INDICATOR_RING, &e) == PG_OK && wait_until(sign_hidden, 0) && capture_all(a, under, &s[2], &e);
    if (!ok) fprintf(stderr, "     capture round failed: %s\n", e.message);
    if (!ok) free_set(&s[0]), free_set(&s[1]), free_set(&s[2]);
    return ok;
}

/* (4): a screen capture is the same bytes with the sign on as with it off.
 * The window manager may still repaint a title bar (focus) on a loaded
 * machine: a round counts only when the two captures without the sign
 * around it agree, else it is taken again. */
static void t_captures(int *pg_failed_, int mode) {
    xcb_window_t under = make_window(100, 0, 900, 600, 0x808080, false, "under");
    xcb_window_t a = make_window(300, 200, 300, 200, 0x3060c0, false, "target");
    REQUIRE(wait_until(framed_and_listed, under) && wait_until(framed_and_listed, a));
    pg_error e;
    pg_window u;
    REQUIRE(env.ops->describe_window(env.p, under, &u, &e) == PG_OK);
    CHECK(u.y < 24); /* the banner lies over `under`'s own pixels, which its capture must not show */
    for (int m = PG_INDICATOR_RING; m <= PG_INDICATOR_BANNER; m++) {
        bool still = false;
        int rounds = 0;
        for (double t0 = pg_mono_ms(); !still && pg_mono_ms() - t0 < DEADLINE_MS; rounds++) {
            capture_set s[3];
            REQUIRE(off_on_off(pg_failed_, a, under, m, s));
            still = same_set(&s[0], &s[2]);
            if (still) {
                CHECK(same_capture(&s[1].screen, &s[2].screen));
                CHECK(same_capture(&s[1].region, &s[2].region));
                CHECK(same_capture(&s[1].target, &s[2].target));
                CHECK(same_capture(&s[1].under, &s[2].under));
                CHECK_STR(s[1].screen.method, s[2].screen.method);
                printf("     %s: screen %ux%u by %s compared with the sign and without (round %d)\n",
                       m == PG_INDICATOR_RING ? "ring" : "banner", s[1].screen.width, s[1].screen.height,
                       s[1].screen.method, rounds + 1);
            }
            free_set(&s[0]), free_set(&s[1]), free_set(&s[2]);
        }
        CHECK(still); /* the screen never held still for one round */
    }
    (void)mode;
}

static pg_rect moved_from;
static bool moved_and_ringed(xcb_window_t w) { return !rect_eq(frame_of(w), moved_from) && ring_at(w); }

/* (6): the ring follows the target, hides with it, moves to another
 * target, hides on window 0, and goes away with the handle. */
static void t_follows_and_ends(int *pg_failed_, int mode) {
    xcb_window_t a = make_window(200, 150, 300, 200, 0x3060c0, false, "target A");
    xcb_window_t b = make_window(700, 400, 200, 150, 0x40a040, false, "target B");
    REQUIRE(wait_until(framed_and_listed, a) && wait_until(framed_and_listed, b));
    pg_error e;
    REQUIRE(indicate(a, PG_INDICATOR_RING, &e) == PG_OK);
    REQUIRE(wait_until(ring_at, a));
    moved_from = frame_of(a);
    move_window(a, 420, 330);
    CHECK(wait_until(moved_and_ringed, a));
    xcb_unmap_window(env.c, a);
    sync_test();
    CHECK(wait_until(sign_hidden, 0));
    xcb_map_window(env.c, a); /* under openbox: managed again, in a new frame */
    sync_test();
    CHECK(wait_until(framed_and_listed, a));
    CHECK(wait_until(ring_at, a));
    REQUIRE(indicate(b, PG_INDICATOR_RING, &e) == PG_OK);
    CHECK(wait_until(ring_at, b));
    REQUIRE(indicate(0, PG_INDICATOR_RING, &e) == PG_OK);
    CHECK(wait_until(sign_hidden, 0));
    REQUIRE(indicate(a, PG_INDICATOR_BANNER, &e) == PG_OK);
    CHECK(wait_until(banner_up, 0));
    close_backend(); /* with the sign shown */
    CHECK(wait_until(sign_gone, 0));
    REQUIRE(open_backend());
    (void)mode;
}

/* A client that raises itself over and over: the sign wins each second
 * with at most 20 raises (no storm), and is on top once the fight ends. */
static void t_no_raise_storm(int *pg_failed_, int mode) {
    xcb_window_t a = make_window(300, 200, 300, 200, 0x3060c0, false, "target");
    xcb_window_t fighter = make_window(250, 150, 400, 300, 0xa0a000, false, "fighter");
    REQUIRE(wait_until(framed_and_listed, a) && wait_until(framed_and_listed, fighter));
    pg_error e;
    REQUIRE(indicate(a, PG_INDICATOR_RING, &e) == PG_OK);
    REQUIRE(wait_until(ring_at, a));
    bool top, view;
    xcb_window_t sign = find_sign(&top, &view);
    xcb_connection_t *watch = xcb_connect(env.dpy, NULL); /* counts the sign's restacks */
    REQUIRE(!xcb_connection_has_error(watch));
    uint32_t mask = XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY;
    xcb_change_window_attributes(watch, env.root, XCB_CW_EVENT_MASK, &mask);
    free(xcb_get_input_focus_reply(watch, xcb_get_input_focus(watch), NULL));
    double t0 = pg_mono_ms(), took;
    int fights = 0;
    while ((took = pg_mono_ms() - t0) < 1500) { /* as fast as the server answers */
        raise_window(fighter);
        fights++;
    }
    free(xcb_get_input_focus_reply(watch, xcb_get_input_focus(watch), NULL));
    int restacks = 0;
    xcb_generic_event_t *ev;
    while ((ev = xcb_poll_for_event(watch)) != NULL) {
        if ((ev->response_type & 0x7f) == XCB_CONFIGURE_NOTIFY && ((xcb_configure_notify_event_t *)ev)->window == sign)
            restacks++;
        free(ev);
    }
    xcb_disconnect(watch);
    printf("     %d raises of another window in %.0f ms; the sign raised itself %d times\n", fights, took, restacks);
    CHECK(restacks > 0);
    CHECK(restacks <= 20 * ((int)(took / 1000) + 3)); /* a few more for the raises still on the way */
    CHECK(wait_until(sign_on_top, 0));
    REQUIRE(indicate(0, PG_INDICATOR_RING, &e) == PG_OK);
    (void)mode;
}

/* A caller that holds the server grabbed already (x11_guard.c) steps the
 * sign aside without a grab of its own, and back leaves the grab held. */
static void t_aside_under_a_held_grab(int *pg_failed_, int mode) {
    xcb_window_t a = make_window(300, 200, 300, 200, 0x3060c0, false, "target");
    REQUIRE(wait_until(framed_and_listed, a));
    pg_error e;
    REQUIRE(indicate(a, PG_INDICATOR_BANNER, &e) == PG_OK);
    REQUIRE(wait_until(banner_up, 0));
    bool top, view;
    xcb_window_t sign = find_sign(&top, &view);
    xcb_connection_t *pc = env.p->c;
    xcb_grab_server(pc);
    x11_aside aside;
    pg_rect screen = {0, 0, 1280, 800}, elsewhere = {0, 500, 100, 100};
    CHECK_EQ_INT(x11_indicator_aside_held(env.p, &elsewhere, &aside, &e), PG_OK);
    CHECK_EQ_INT(aside.n, 0); /* a sign that is not over the region stays */
    CHECK_EQ_INT(x11_indicator_aside_held(env.p, &screen, &aside, &e), PG_OK);
    CHECK(aside.n == 1 && aside.win[0] == sign && !aside.grabbed);
    xcb_get_window_attributes_reply_t *at = xcb_get_window_attributes_reply(pc, xcb_get_window_attributes(pc, sign), NULL);
    CHECK(at && at->map_state == XCB_MAP_STATE_UNMAPPED);
    free(at);
    x11_indicator_back(env.p, &aside);
    at = xcb_get_window_attributes_reply(pc, xcb_get_window_attributes(pc, sign), NULL);
    CHECK(at && at->map_state == XCB_MAP_STATE_VIEWABLE);
    free(at);
    xcb_ungrab_server(pc);
    xcb_flush(pc);
    CHECK(wait_until(banner_up, 0));
    REQUIRE(indicate(0, PG_INDICATOR_RING, &e) == PG_OK);
    (void)mode;
}

static void t_bad_requests(int *pg_failed_, int mode) {
    pg_error e;
    CHECK_EQ_INT(indicate(0x1fffff00u, PG_INDICATOR_RING, &e), PG_E_NOTFOUND);
    CHECK_EQ_INT(indicate(env.root, PG_INDICATOR_RING, &e), PG_E_NOTFOUND);
    xcb_window_t a = make_window(200, 150, 300, 200, 0x3060c0, false, "target A");
    REQUIRE(wait_until(framed_and_listed, a));
    pg_indicator how = {a, (pg_indicator_mode)7, "alice"};
    CHECK_EQ_INT(env.ops->indicate(env.p, &how, &e), PG_E_BADINPUT);
    how.mode = PG_INDICATOR_BANNER;
    memset(how.user, 'x', sizeof how.user); /* not terminated */
    CHECK_EQ_INT(env.ops->indicate(env.p, &how, &e), PG_E_BADINPUT);
    CHECK(wait_until(sign_gone, 0) || wait_until(sign_hidden, 0));
    (void)mode;
}

/* (d): without Composite the sign could show in captures: not drawn. */
static void t_no_composite(int *pg_failed_, int mode) {
    xcb_window_t a = make_window(200, 150, 300, 200, 0x3060c0, false, "target A");
    REQUIRE(wait_until(framed_and_listed, a));
    pg_error e;
    CHECK_EQ_INT(indicate(a, PG_INDICATOR_RING, &e), PG_E_UNSUPPORTED);
    CHECK(strstr(e.message, "Composite") != NULL);
    printf("     %s\n", e.message);
    CHECK(sign_gone(0));
    (void)mode;
}

#define MODE_TESTS(prefix, mode)                                                                                  \
    PG_TEST(prefix##_ring_around_the_frame_stays_on_top_and_is_never_listed) {                                    \
        SETUP(mode);                                                                                              \
        t_ring_on_top(pg_failed_, mode);                                                                          \
        destroy_made();                                                                                           \
    }                                                                                                             \
    PG_TEST(prefix##_captures_are_the_same_bytes_with_the_sign_as_without) {                                      \
        SETUP(mode);                                                                                              \
        t_captures(pg_failed_, mode);                                                                             \
        destroy_made();                                                                                           \
    }                                                                                                             \
    PG_TEST(prefix##_the_ring_follows_hides_moves_and_ends_with_the_handle) {                                     \
        SETUP(mode);                                                                                              \
        t_follows_and_ends(pg_failed_, mode);                                                                     \
        destroy_made();                                                                                           \
    }

MODE_TESTS(nowm, MODE_NOWM)
PG_TEST(nowm_clicks_through_ring_and_banner_reach_the_window_under_them) {
    SETUP(MODE_NOWM);
    t_click_through(pg_failed_, MODE_NOWM);
    destroy_made();
}
PG_TEST(nowm_a_client_that_keeps_raising_itself_gets_no_raise_storm) {
    SETUP(MODE_NOWM);
    t_no_raise_storm(pg_failed_, MODE_NOWM);
    destroy_made();
}
PG_TEST(nowm_a_caller_holding_a_grab_steps_the_sign_aside_and_keeps_the_grab) {
    SETUP(MODE_NOWM);
    t_aside_under_a_held_grab(pg_failed_, MODE_NOWM);
    destroy_made();
}
PG_TEST(nowm_unknown_windows_bad_modes_and_names_are_refused) {
    SETUP(MODE_NOWM);
    t_bad_requests(pg_failed_, MODE_NOWM);
    destroy_made();
}
MODE_TESTS(openbox, MODE_OPENBOX)
PG_TEST(nocomposite_indicate_is_unsupported_and_draws_nothing) {
    SETUP(MODE_NOCOMPOSITE);
    t_no_composite(pg_failed_, MODE_NOCOMPOSITE);
    destroy_made();
}
