/* SPDX-License-Identifier: MIT */
/* x11_conn.c - the X11 backend's connection: open/close, capabilities, the
 * bounded reply wait every other file uses, and the ops table.
 *
 * Contract: open() connects with XCB, negotiates the extensions it finds
 * (Composite, MIT-SHM, XTEST, X-Resource, DAMAGE, XFIXES, XKB) and, when
 * Composite is there, redirects root's children ONCE (automatic mode) on this
 * connection, which stays open for the handle's life: redirection ends when
 * the connection closes. A missing extension only switches off what needs it
 * (caps() says which); a missing display is PG_E_UNREACHABLE.
 * Never: prints, exits, or waits for the server without a deadline (the one
 * exception is libxkbcommon-x11, which blocks inside its own calls; we ping
 * the server with a bounded round trip right before each use).
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xcb/composite.h>
#include <xcb/damage.h>
#include <xcb/res.h>
#include <xcb/shm.h>
#include <xcb/xcbext.h>
#include <xcb/xfixes.h>
#include <xcb/xtest.h>
#include <xkbcommon/xkbcommon-x11.h>

#include "pg_person.h"
#include "x11_private.h"
#include "pg_framebuf.h"

const char *x11_error_name(uint8_t code) {
    static const char *const names[] = {
        "Success",   "BadRequest", "BadValue",  "BadWindow",         "BadPixmap",
        "BadAtom",   "BadCursor",  "BadFont",   "BadMatch",          "BadDrawable",
        "BadAccess", "BadAlloc",   "BadColor",  "BadGC",             "BadIDChoice",
        "BadName",   "BadLength",  "BadImplementation"};
    return code < sizeof names / sizeof names[0] ? names[code] : "extension error";
}

static pg_err conn_lost(pg_platform *p, pg_error *e) {
    return pg_error_set(e, PG_E_UNREACHABLE, "check that the X server is still running",
                        "X connection lost (xcb error %d)", xcb_connection_has_error(p->c));
}

pg_err x11_wait(pg_platform *p, unsigned int seq, void **reply, xcb_generic_error_t **xerr,
                pg_error *e) {
    *reply = NULL;
    *xerr = NULL;
    if (xcb_flush(p->c) <= 0) return conn_lost(p, e);
    pg_deadline deadline = pg_deadline_in_ms(X11_REPLY_TIMEOUT_MS);
    for (;;) {
        /* xcb_poll_for_reply reads whatever the socket has without blocking. */
        if (xcb_poll_for_reply(p->c, seq, reply, xerr)) {
            if (!*reply && !*xerr && xcb_connection_has_error(p->c)) return conn_lost(p, e);
            return PG_OK;
        }
        if (xcb_connection_has_error(p->c)) return conn_lost(p, e);
        uint32_t left = pg_deadline_left_ms(deadline);
        if (left == 0) {
            xcb_discard_reply(p->c, seq);
            return pg_error_set(e, PG_E_TIMEOUT, "the X server may be grabbed by another client",
                                "X server did not answer within %d ms", X11_REPLY_TIMEOUT_MS);
        }
        struct pollfd pfd = {xcb_get_file_descriptor(p->c), POLLIN, 0};
        (void)poll(&pfd, 1, left > 100 ? 100 : (int)left);
    }
}

pg_err x11_sync(pg_platform *p, pg_error *e) {
    void *r;
    xcb_generic_error_t *xe;
    pg_err rc = x11_wait(p, xcb_get_input_focus(p->c).sequence, &r, &xe, e);
    free(r);
    free(xe);
    return rc;
}

pg_err x11_check(pg_platform *p, xcb_void_cookie_t ck, xcb_generic_error_t **xerr, pg_error *e) {
    *xerr = NULL;
    /* Once a later request has been answered, xcb_request_check cannot block. */
    pg_err rc = x11_sync(p, e);
    if (rc != PG_OK) return rc;
    *xerr = xcb_request_check(p->c, ck);
    return PG_OK;
}

void *x11_take(pg_platform *p, unsigned int seq, pg_err *rc, pg_error *e) {
    if (*rc != PG_OK) {
        xcb_discard_reply(p->c, seq);
        return NULL;
    }
    void *r;
    xcb_generic_error_t *xe;
    *rc = x11_wait(p, seq, &r, &xe, e);
    free(xe);
    return r;
}

size_t x11_utf8_decode(const uint8_t *s, size_t n, uint32_t *cp) {
    if (n == 0) return 0;
    uint8_t b = s[0];
    size_t len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    if (len == 0 || len > n) return 0;
    uint32_t v = len == 1 ? b : len == 2 ? (b & 0x1fu) : len == 3 ? (b & 0x0fu) : (b & 0x07u);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        v = (v << 6) | (s[i] & 0x3fu);
    }
    static const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < min[len] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
    *cp = v;
    return len;
}

pg_err x11_alive(pg_platform *p, pg_error *e) {
    if (!p || !p->c) return pg_error_set(e, PG_E_INTERNAL, NULL, "x11 backend: no handle");
    if (xcb_connection_has_error(p->c)) return conn_lost(p, e);
    /* We select no events outside settle(); what is queued are async errors
     * of unchecked requests (e.g. a window that vanished): drop them. */
    xcb_generic_event_t *ev;
    while ((ev = xcb_poll_for_event(p->c)) != NULL) free(ev);
    return xcb_connection_has_error(p->c) ? conn_lost(p, e) : PG_OK;
}

/* ---------------------------------------------------------------- atoms */

static pg_err intern_atoms(pg_platform *p, pg_error *e) {
    static const char *const names[] = {"UTF8_STRING", "_NET_WM_NAME", "_NET_CLIENT_LIST",
                                        "_NET_ACTIVE_WINDOW", "_NET_SUPPORTING_WM_CHECK",
                                        "WM_STATE", "WM_PROTOCOLS", "_NET_WM_PING", "_NET_WM_WINDOW_TYPE",
                                        "_NET_WM_WINDOW_TYPE_DESKTOP", "_NET_WM_WINDOW_TYPE_DOCK"};
    xcb_atom_t *dst[] = {&p->atom.utf8_string, &p->atom.net_wm_name, &p->atom.net_client_list,
                         &p->atom.net_active_window, &p->atom.net_supporting_wm_check,
                         &p->atom.wm_state, &p->atom.wm_protocols, &p->atom.net_wm_ping,
                         &p->atom.net_wm_window_type, &p->atom.net_wm_window_type_desktop,
                         &p->atom.net_wm_window_type_dock};
    enum { N = sizeof names / sizeof names[0] };
    xcb_intern_atom_cookie_t ck[N];
    for (int i = 0; i < N; i++)
        ck[i] = xcb_intern_atom(p->c, 0, (uint16_t)strlen(names[i]), names[i]);
    pg_err rc = PG_OK;
    for (int i = 0; i < N; i++) {
        void *r;
        xcb_generic_error_t *xe;
        pg_err w = x11_wait(p, ck[i].sequence, &r, &xe, e);
        if (w == PG_OK && r) *dst[i] = ((xcb_intern_atom_reply_t *)r)->atom;
        else if (rc == PG_OK)
            rc = w != PG_OK ? w : pg_error_set(e, PG_E_INTERNAL, NULL, "InternAtom %s failed", names[i]);
        free(r);
        free(xe);
    }
    p->atom.wm_name = XCB_ATOM_WM_NAME;
    p->atom.wm_class = XCB_ATOM_WM_CLASS;
    p->atom.string = XCB_ATOM_STRING;
    return rc;
}

/* ----------------------------------------------------------- extensions */

/* Ask the version of one extension; a refusal leaves it marked absent. */
static void ext_version(pg_platform *p, x11_ext *x, unsigned int seq, size_t major_off,
                        size_t minor_off, bool sixteen) {
    void *r;
    xcb_generic_error_t *xe;
    if (x11_wait(p, seq, &r, &xe, NULL) != PG_OK || !r) {
        x->present = false;
    } else if (sixteen) {
        x->major = *(uint16_t *)((char *)r + major_off);
        x->minor = *(uint16_t *)((char *)r + minor_off);
    } else {
        x->major = *(uint32_t *)((char *)r + major_off);
        x->minor = *(uint32_t *)((char *)r + minor_off);
    }
    free(r);
    free(xe);
}

static void query_extensions(pg_platform *p) {
    xcb_extension_t *ids[] = {&xcb_composite_id, &xcb_shm_id, &xcb_test_id,
                              &xcb_res_id,       &xcb_damage_id, &xcb_xfixes_id};
    x11_ext *dst[] = {&p->composite, &p->shm, &p->xtest, &p->res, &p->damage, &p->xfixes};
    for (size_t i = 0; i < 6; i++) xcb_prefetch_extension_data(p->c, ids[i]);
    if (x11_sync(p, NULL) != PG_OK) return; /* replies are buffered now: no blocking below */
    for (size_t i = 0; i < 6; i++) {
        const xcb_query_extension_reply_t *q = xcb_get_extension_data(p->c, ids[i]);
        dst[i]->present = q && q->present;
        dst[i]->first_event = q ? q->first_event : 0;
    }
    /* Each extension wants its version negotiated before first use. */
    if (p->composite.present)
        ext_version(p, &p->composite, xcb_composite_query_version(p->c, 0, 4).sequence,
                    offsetof(xcb_composite_query_version_reply_t, major_version),
                    offsetof(xcb_composite_query_version_reply_t, minor_version), false);
    if (p->shm.present)
        ext_version(p, &p->shm, xcb_shm_query_version(p->c).sequence,
                    offsetof(xcb_shm_query_version_reply_t, major_version),
                    offsetof(xcb_shm_query_version_reply_t, minor_version), true);
    if (p->xtest.present) {
        void *r;
        xcb_generic_error_t *xe;
        if (x11_wait(p, xcb_test_get_version(p->c, 2, 2).sequence, &r, &xe, NULL) == PG_OK && r) {
            p->xtest.major = ((xcb_test_get_version_reply_t *)r)->major_version;
            p->xtest.minor = ((xcb_test_get_version_reply_t *)r)->minor_version;
        } else {
            p->xtest.present = false;
        }
        free(r);
        free(xe);
    }
    if (p->res.present)
        ext_version(p, &p->res, xcb_res_query_version(p->c, 1, 2).sequence,
                    offsetof(xcb_res_query_version_reply_t, server_major),
                    offsetof(xcb_res_query_version_reply_t, server_minor), true);
    if (p->xfixes.present)
        ext_version(p, &p->xfixes, xcb_xfixes_query_version(p->c, 5, 0).sequence,
                    offsetof(xcb_xfixes_query_version_reply_t, major_version),
                    offsetof(xcb_xfixes_query_version_reply_t, minor_version), false);
    if (p->damage.present)
        ext_version(p, &p->damage, xcb_damage_query_version(p->c, 1, 1).sequence,
                    offsetof(xcb_damage_query_version_reply_t, major_version),
                    offsetof(xcb_damage_query_version_reply_t, minor_version), false);
}

static void setup_xkb(pg_platform *p) {
    p->kbd_device = -1;
    if (x11_sync(p, NULL) != PG_OK) return; /* xkbcommon-x11 blocks: only ask a live server */
    uint16_t major = 0, minor = 0;
    uint8_t ev = 0, er = 0;
    if (!xkb_x11_setup_xkb_extension(p->c, XKB_X11_MIN_MAJOR_XKB_VERSION,
                                     XKB_X11_MIN_MINOR_XKB_VERSION,
                                     XKB_X11_SETUP_XKB_EXTENSION_NO_FLAGS, &major, &minor, &ev, &er))
        return;
    p->kbd_device = xkb_x11_get_core_keyboard_device_id(p->c);
    p->xkb.present = p->kbd_device >= 0;
    p->xkb.major = major;
    p->xkb.minor = minor;
    p->xkb_ctx = xkb_context_new(XKB_CONTEXT_NO_DEFAULT_INCLUDES | XKB_CONTEXT_NO_ENVIRONMENT_NAMES);
    if (!p->xkb_ctx) p->xkb.present = false;
}

/* Redirect root's children once, for the life of this connection, so every
 * top-level keeps its own pixmap even when covered. */
static void redirect_once(pg_platform *p) {
    if (!p->composite.present || (p->composite.major == 0 && p->composite.minor < 2)) return;
    xcb_generic_error_t *xe = NULL;
    xcb_void_cookie_t ck =
        xcb_composite_redirect_subwindows_checked(p->c, p->root, XCB_COMPOSITE_REDIRECT_AUTOMATIC);
    p->redirected = x11_check(p, ck, &xe, NULL) == PG_OK && !xe;
    free(xe);
}

/* ------------------------------------------- a reader thread's own wake-up */

xcb_window_t x11_self_window(xcb_connection_t *c, xcb_window_t root) {
    xcb_window_t win = xcb_generate_id(c);
    xcb_create_window(c, 0, win, root, -1, -1, 1, 1, 0, XCB_WINDOW_CLASS_INPUT_ONLY, XCB_COPY_FROM_PARENT, 0, NULL);
    return win;
}

void x11_self_message(xcb_connection_t *c, xcb_window_t win, uint32_t what) {
    xcb_client_message_event_t ev;
    memset(&ev, 0, sizeof ev);
    ev.response_type = XCB_CLIENT_MESSAGE;
    ev.format = 32;
    ev.window = win;
    ev.data.data32[0] = what;
    /* Empty mask: delivered to the client that made the window, the reader. */
    xcb_send_event(c, 0, win, XCB_EVENT_MASK_NO_EVENT, (const char *)&ev);
    xcb_flush(c);
}

bool x11_is_self_message(const xcb_generic_event_t *ev, xcb_window_t win) {
    return (ev->response_type & 0x7f) == XCB_CLIENT_MESSAGE &&
           ((const xcb_client_message_event_t *)ev)->window == win;
}

/* ----------------------------------------------------------- open/close */

static void x11_close(pg_platform *p) {
    if (!p) return;
    x11_person_stop(p->person_watch);
    pg_person_free(p->polled); /* after the watcher that reported into it has stopped */
    x11_watch_stop(p->watch);
    x11_indicator_stop(p->indicator);
    free(p->display);
    x11_shm_release(p);
    if (p->xkb_ctx) xkb_context_unref(p->xkb_ctx);
    if (p->c) xcb_disconnect(p->c);
    free(p);
    pg_framebuf_release();
}

static pg_err x11_open(pg_platform **out, const char *display, pg_error *e) {
    *out = NULL;
    pg_platform *p = calloc(1, sizeof *p);
    if (!p) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    int scr = 0;
    if (display && !(p->display = strdup(display))) {
        free(p);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    }
    pg_framebuf_retain(); /* x11_close releases it, on every path from here */
    p->c = xcb_connect(display, &scr);
    if (xcb_connection_has_error(p->c)) {
        const char *d = display ? display : getenv("DISPLAY");
        x11_close(p);
        return pg_error_set(e, PG_E_UNREACHABLE,
                            "check that the X server runs and admits the broker (xhost +SI:localuser:pixelgate), "
                            "or reach it through pixelgate-session (pixelgated --display-source session-helper)",
                            "cannot connect to X display '%s'", d ? d : "(unset)");
    }
    xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(p->c));
    for (int i = 0; i < scr && it.rem; i++) xcb_screen_next(&it);
    if (!it.rem) {
        x11_close(p);
        return pg_error_set(e, PG_E_UNREACHABLE, NULL, "X display has no screen %d", scr);
    }
    p->screen = it.data;
    p->root = p->screen->root;
    pg_err rc = intern_atoms(p, e);
    if (rc != PG_OK) {
        x11_close(p);
        return rc;
    }
    query_extensions(p);
    setup_xkb(p);
    redirect_once(p);
    p->shm_fd = p->shm.present && (p->shm.major > 1 || p->shm.minor >= 2);
    if (xcb_connection_has_error(p->c)) {
        rc = conn_lost(p, e);
        x11_close(p);
        return rc;
    }
    *out = p;
    return PG_OK;
}

/* ----------------------------------------------------------------- caps */

xcb_get_property_cookie_t x11_wm_check_ask(pg_platform *p) {
    return xcb_get_property(p->c, 0, p->root, p->atom.net_supporting_wm_check, XCB_ATOM_WINDOW, 0, 1);
}

bool x11_wm_check_take(pg_platform *p, xcb_get_property_cookie_t root_check, char *name, size_t cap, pg_error *e) {
    if (name && cap) name[0] = 0;
    xcb_atom_t a = p->atom.net_supporting_wm_check;
    void *r;
    xcb_generic_error_t *xe;
    if (x11_wait(p, root_check.sequence, &r, &xe, e) != PG_OK || !r) {
        free(xe);
        return false;
    }
    xcb_window_t w = 0;
    if (xcb_get_property_value_length(r) == 4) memcpy(&w, xcb_get_property_value(r), 4);
    free(r);
    if (!w) return false;
    /* A stale property outlives a dead WM: the check window must exist and
     * point to itself. */
    xcb_get_property_cookie_t self = xcb_get_property(p->c, 0, w, a, XCB_ATOM_WINDOW, 0, 1);
    bool ok = x11_wait(p, self.sequence, &r, &xe, e) == PG_OK && r &&
              xcb_get_property_value_length(r) == 4 &&
              memcmp(xcb_get_property_value(r), &w, 4) == 0;
    free(r);
    free(xe);
    if (ok && name && cap) (void)x11_title(p, w, name, cap);
    return ok;
}

bool x11_wm_running(pg_platform *p, char *name, size_t cap, pg_error *e) {
    return x11_wm_check_take(p, x11_wm_check_ask(p), name, cap, e);
}

static void add_ext(char *buf, size_t cap, const char *name, const x11_ext *x) {
    size_t n = strlen(buf);
    if (x->present && n < cap)
        snprintf(buf + n, cap - n, "%s%s %u.%u", n ? ", " : "", name, (unsigned)x->major,
                 (unsigned)x->minor);
}

static pg_err x11_caps(pg_platform *p, pg_caps *out, pg_error *e) {
    memset(out, 0, sizeof *out);
    pg_err rc = x11_alive(p, e);
    if (rc != PG_OK) return rc;
    char wm[96], ext[160] = "";
    out->window_manager = x11_wm_running(p, wm, sizeof wm, NULL);
    add_ext(ext, sizeof ext, "Composite", &p->composite);
    add_ext(ext, sizeof ext, "MIT-SHM", &p->shm);
    add_ext(ext, sizeof ext, "XTEST", &p->xtest);
    add_ext(ext, sizeof ext, "X-Resource", &p->res);
    add_ext(ext, sizeof ext, "DAMAGE", &p->damage);
    add_ext(ext, sizeof ext, "XFIXES", &p->xfixes);
    add_ext(ext, sizeof ext, "XKB", &p->xkb);
    out->list_windows = true;
    out->capture_window = true;
    out->capture_covered = p->redirected;
    out->capture_screen = true;
    out->input_pointer = p->xtest.present;
    out->input_keys = p->xtest.present && p->xkb.present;
    out->input_text_unicode = out->input_keys;
    out->settle = true; /* DAMAGE, or comparing captures without it */
    snprintf(out->backend, sizeof out->backend, "x11");
    snprintf(out->detail, sizeof out->detail, "ext: %s; shm: %s; wm: %s; screen %ux%ux%u",
             ext[0] ? ext : "none", p->shm_fd ? "memfd" : "off",
             out->window_manager ? (wm[0] ? wm : "unnamed") : "none",
             (unsigned)p->screen->width_in_pixels, (unsigned)p->screen->height_in_pixels,
             (unsigned)p->screen->root_depth);
    return PG_OK;
}

/* Reading what waits on the socket (no wait) is what notices a server that
 * went away: xcb marks the connection broken at end of stream. */
static bool x11_lost(pg_platform *p, char *why, size_t n) {
    pg_error e;
    if (x11_alive(p, &e) == PG_OK) return false;
    snprintf(why, n, "%s", e.message);
    return true;
}

static const pg_platform_ops x11_ops = {
    .name = "x11",
    .open = x11_open,
    .close = x11_close,
    .caps = x11_caps,
    .list_windows = x11_list_windows,
    .list_all = x11_list_all,
    .describe_window = x11_describe_window,
    .window_frame = x11_window_frame,
    .selection_owner = x11_selection_owner,
    .capture_window = x11_capture_window,
    .capture_screen = x11_capture_screen,
    .focus = x11_focus,
    .pointer_move = x11_pointer_move,
    .scroll = x11_scroll,
    .drag = x11_drag,
    .top_at = x11_top_at,
    .hold = x11_hold,
    .key_check = x11_key_check,
    .pointer_at = x11_pointer_at,
    .monitors = x11_monitors,
    .click = x11_click,
    .key = x11_key,
    .type_text = x11_type_text,
    .settle = x11_settle,
    .watch_person = x11_watch_person,
    .person_poll = x11_person_poll,
    .lost = x11_lost,
    .responding = x11_responding,
    .unconfirmed = x11_unconfirmed,
    .guard_begin = x11_guard_begin,
    .guard_end = x11_guard_end,
    .indicate = x11_indicate,
};

const pg_platform_ops *pg_platform_default(void) { return &x11_ops; }
