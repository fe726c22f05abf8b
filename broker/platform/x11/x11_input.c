/* SPDX-License-Identifier: MIT */
/* x11_input.c - focus, pointer and keyboard input through XTEST.
 *
 * Contract: coordinates are relative to the client's content origin; a point
 * outside the content is PG_E_BADINPUT. Before a click the window stack is
 * walked from root down at that point: unless the target client is on the
 * path, something else would receive the click, and the click is refused
 * with PG_E_POLICY naming the covering window by its decimal id (never its
 * title: it may be another user's). focus() asks
 * the WM (_NET_ACTIVE_WINDOW) when one runs, raises, sets the input focus and
 * waits (bounded) until the focus is inside the window; key() and
 * type_text() focus first and refuse to type (PG_E_TIMEOUT) if the focus did
 * not arrive, and type_text() checks again before every character and stops
 * (PG_E_POLICY, saying how many went out) once the focus is elsewhere, so
 * at most the one character in flight can land in another window. key()
 * refuses, before focusing anything, the chords pg_keyguard.h lists.
 * Every injected sequence ends with a round trip, so when a call returns the
 * server has delivered the events; a click, scroll or drag also waits
 * (bounded) until the server reads its buttons as up again, so a press
 * that a window manager's grab froze in the queue has landed before the
 * next keys are sent; one still not up after max(1 s, 20 round trips
 * measured just before it) was sent but is unconfirmed (unconfirmed()
 * counts it; the call succeeds: a retry could click twice), and keys or a
 * focus change sent after it first wait for it the same way (else they
 * overtake it), refusing with nothing sent if it is still held.
 * Hover (pointer_move), scroll (core buttons 4-7) and drag take the same
 * checks as a click at every point they touch; a drag checks its whole path
 * before it presses, and releases whatever fails after the press.
 * hold() presses or releases one key or button and leaves it so (the
 * broker releases what a connection held when it ends); a press is checked
 * like key() or like a click, a release is never refused.
 * Never: clicks without the covering check, or leaves a button/key pressed
 * except through hold().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xcb/xtest.h>

#include "x11_private.h"

void x11_fake_key(pg_platform *p, uint8_t keycode, bool press) {
    xcb_test_fake_input(p->c, press ? XCB_KEY_PRESS : XCB_KEY_RELEASE, keycode, XCB_CURRENT_TIME,
                        XCB_NONE, 0, 0, 0);
    x11_watch_input_sent();
}

static void fake_motion(pg_platform *p, int32_t x, int32_t y) {
    xcb_test_fake_input(p->c, XCB_MOTION_NOTIFY, 0 /* absolute */, XCB_CURRENT_TIME, p->root,
                        (int16_t)x, (int16_t)y, 0);
    x11_watch_input_sent();
}

static pg_err need_xtest(pg_platform *p, pg_error *e) {
    return p->xtest.present ? PG_OK
                            : pg_error_set(e, PG_E_UNSUPPORTED, "enable XTEST in the X server",
                                           "the X server has no XTEST extension: no input");
}

static pg_err not_mapped(pg_error *e, xcb_window_t id) {
    return pg_error_set(e, PG_E_NOTFOUND, "focus the window to restore it, then retry",
                        "window %u is not mapped (minimised, on another desktop or withdrawn)",
                        (unsigned)id);
}

/* Window-relative point -> root coordinates, PG_E_BADINPUT if outside. */
static pg_err to_root(pg_platform *p, const x11_win *w, int32_t x, int32_t y, int32_t *rx,
                      int32_t *ry, pg_error *e) {
    *rx = *ry = 0; /* defined on every path, refusals included */
    if (x < 0 || y < 0 || (uint32_t)x >= w->width || (uint32_t)y >= w->height)
        return pg_error_set(e, PG_E_BADINPUT, "coordinates are relative to the window's content",
                            "point %d,%d is outside window %u (%ux%u)", x, y, (unsigned)w->id,
                            w->width, w->height);
    *rx = w->root_x + x;
    *ry = w->root_y + y;
    if (*rx < 0 || *ry < 0 || *rx >= p->screen->width_in_pixels ||
        *ry >= p->screen->height_in_pixels)
        return pg_error_set(e, PG_E_BADINPUT, "move the window onto the screen first",
                            "point %d,%d of window %u is off-screen (%d,%d)", x, y,
                            (unsigned)w->id, *rx, *ry);
    return PG_OK;
}

static pg_err earlier_landed(pg_platform *p, pg_error *e);

/* ---------------------------------------------------------------- focus */

bool x11_is_inside(pg_platform *p, xcb_window_t w, xcb_window_t id, pg_err *rc, pg_error *e) {
    for (int i = 0; i < X11_MAX_DEPTH && w > 1 && w != p->root && *rc == PG_OK; i++) {
        if (w == id) return true;
        xcb_query_tree_reply_t *t = x11_take(p, xcb_query_tree(p->c, w).sequence, rc, e);
        w = t ? t->parent : XCB_NONE;
        free(t);
    }
    return false;
}

static bool focus_inside(pg_platform *p, xcb_window_t id, pg_err *rc, pg_error *e) {
    xcb_get_input_focus_reply_t *f = x11_take(p, xcb_get_input_focus(p->c).sequence, rc, e);
    xcb_window_t w = f ? f->focus : XCB_NONE;
    free(f);
    return x11_is_inside(p, w, id, rc, e);
}

static void ask_wm_to_activate(pg_platform *p, xcb_window_t id) {
    xcb_client_message_event_t ev;
    memset(&ev, 0, sizeof ev);
    ev.response_type = XCB_CLIENT_MESSAGE;
    ev.format = 32;
    ev.window = id;
    ev.type = p->atom.net_active_window;
    ev.data.data32[0] = 2; /* source: pager - WMs honour it without focus-stealing rules */
    ev.data.data32[1] = XCB_CURRENT_TIME;
    xcb_send_event(p->c, 0, p->root,
                   XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT | XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY,
                   (const char *)&ev);
}

static bool viewable(pg_platform *p, xcb_window_t id, pg_err *rc, pg_error *e) {
    xcb_get_window_attributes_reply_t *a =
        x11_take(p, xcb_get_window_attributes(p->c, id).sequence, rc, e);
    bool v = a && a->map_state == XCB_MAP_STATE_VIEWABLE;
    free(a);
    return v;
}

/* Activate, raise and focus w. lazy: keep things as they are when the focus
 * is already inside w (before typing: no restacking for nothing). */
static pg_err focus_win(pg_platform *p, const x11_win *w, bool lazy, pg_error *e) {
    pg_err rc = PG_OK;
    if (lazy && (focus_inside(p, w->id, &rc, e) || rc != PG_OK)) return rc;
    bool wm = x11_wm_running(p, NULL, 0, e);
    uint32_t above = XCB_STACK_MODE_ABOVE;
    if (wm) {
        ask_wm_to_activate(p, w->id);
        /* Under a WM this becomes a ConfigureRequest the WM acts on. */
        xcb_configure_window(p->c, w->id, XCB_CONFIG_WINDOW_STACK_MODE, &above);
    } else {
        if (!w->viewable) xcb_map_window(p->c, w->id);
        xcb_configure_window(p->c, w->toplevel, XCB_CONFIG_WINDOW_STACK_MODE, &above);
    }
    pg_deadline deadline = pg_deadline_in_ms(X11_FOCUS_TIMEOUT_MS);
    double next_set = 0;
    while (rc == PG_OK) {
        double now = pg_mono_ms();
        /* SetInputFocus on an unmapped window is BadMatch: wait for the map. */
        if (now >= next_set && viewable(p, w->id, &rc, e)) {
            xcb_set_input_focus(p->c, XCB_INPUT_FOCUS_PARENT, w->id, XCB_CURRENT_TIME);
            next_set = now + 250;
        }
        if (rc == PG_OK && focus_inside(p, w->id, &rc, e)) return PG_OK;
        if (rc == PG_OK && pg_deadline_passed(deadline))
            return pg_error_set(e, PG_E_TIMEOUT, "another window may be holding a grab",
                                "window %u did not take the input focus within %d ms",
                                (unsigned)w->id, X11_FOCUS_TIMEOUT_MS);
        pg_sleep_ms(10);
    }
    return rc;
}

pg_err x11_focus(pg_platform *p, uint64_t id, pg_error *e) {
    x11_win w;
    pg_err rc = x11_resolve(p, id, &w, e);
    if (rc == PG_OK) rc = earlier_landed(p, e);
    if (rc == PG_OK) rc = focus_win(p, &w, false, e);
    x11_watch_input_sent(); /* a focus change repaints (highlight, caret) */
    return rc;
}

/* ---------------------------------------------------------------- pointer */

/* Walk the stack at (rx, ry) from root down; PG_E_POLICY unless the client
 * is on the path (the deepest window there gets the click). */
static pg_err check_on_top(pg_platform *p, const x11_win *w, int32_t rx, int32_t ry,
                           pg_error *e) {
    pg_err rc = PG_OK;
    xcb_window_t cur = p->root, top = XCB_NONE;
    for (int i = 0; i < X11_MAX_DEPTH && rc == PG_OK; i++) {
        xcb_translate_coordinates_reply_t *t = x11_take(
            p, xcb_translate_coordinates(p->c, p->root, cur, (int16_t)rx, (int16_t)ry).sequence,
            &rc, e);
        xcb_window_t child = t ? t->child : XCB_NONE;
        free(t);
        if (child == XCB_NONE) break;
        if (cur == p->root) top = child;
        if (child == w->id) return PG_OK;
        cur = child;
    }
    if (rc != PG_OK) return rc;
    /* Named by the decimal id `windows` lists, never by title: the cover may
     * be another user's window, whose title is private. */
    xcb_window_t cover = top != XCB_NONE && top != w->toplevel ? x11_client_of(p, top) : cur;
    return pg_error_set(e, PG_E_POLICY, "raise the target with focus first, or close the cover",
                        "click refused: window %u covers point %d,%d of window %u", (unsigned)cover,
                        rx - w->root_x, ry - w->root_y, (unsigned)w->id);
}

pg_err x11_top_at(pg_platform *p, int32_t x, int32_t y, uint64_t *id, pg_error *e) {
    *id = 0;
    pg_err rc = x11_alive(p, e);
    if (rc != PG_OK) return rc;
    xcb_translate_coordinates_reply_t *t =
        x11_take(p, xcb_translate_coordinates(p->c, p->root, p->root, (int16_t)x, (int16_t)y).sequence, &rc, e);
    xcb_window_t top = t ? t->child : XCB_NONE;
    free(t);
    if (rc == PG_OK && top != XCB_NONE) *id = x11_client_of(p, top); /* the client in a WM frame, or a popup */
    return rc;
}

/* What every pointer action checks first: the window, XTEST, mapped, the
 * point inside it and on screen, nothing on top of it there. */
static pg_err aim_window(pg_platform *p, uint64_t id, x11_win *w, pg_error *e) {
    pg_err rc = x11_resolve(p, id, w, e);
    if (rc == PG_OK) rc = need_xtest(p, e);
    if (rc == PG_OK && !w->viewable) rc = not_mapped(e, w->id);
    return rc;
}

static pg_err aim_point(pg_platform *p, const x11_win *w, int32_t x, int32_t y, int32_t *rx, int32_t *ry,
                        pg_error *e) {
    pg_err rc = to_root(p, w, x, y, rx, ry, e);
    return rc == PG_OK ? check_on_top(p, w, *rx, *ry, e) : rc;
}

static pg_err aim(pg_platform *p, uint64_t id, int32_t x, int32_t y, x11_win *w, int32_t *rx, int32_t *ry,
                  pg_error *e) {
    pg_err rc = aim_window(p, id, w, e);
    return rc == PG_OK ? aim_point(p, w, x, y, rx, ry, e) : rc;
}

static void fake_button(pg_platform *p, uint8_t button, bool press) {
    xcb_test_fake_input(p->c, press ? XCB_BUTTON_PRESS : XCB_BUTTON_RELEASE, button, XCB_CURRENT_TIME, XCB_NONE, 0,
                        0, 0);
}

/* Delivered when it returns; the app's repaint is still to come. The grab
 * of --if-unchanged (x11_guard.c) ends here: the events are processed, and
 * what may follow (landed) waits on other clients, which a grab would stall. */
static pg_err sent(pg_platform *p, pg_error *e) {
    pg_err rc = x11_sync(p, e);
    x11_guard_release(p);
    x11_watch_input_sent();
    return rc;
}

/* The core state bit of buttons 1-5 (none for 6 and 7). */
static uint16_t button_mask(unsigned b) { return b >= 1 && b <= 5 ? (uint16_t)(XCB_BUTTON_MASK_1 << (b - 1)) : 0; }

/* The delivery wait scales with how fast the server answers: at least
 * 1 s, else 20 round trips measured just before the input (a server kept
 * busy by other clients delivers a frozen click late, not never), at most
 * 10 s so one request stays well inside the broker's I/O deadline. */
#define X11_RELEASE_WAIT_MS 1000
#define X11_RELEASE_WAIT_RTTS 20
#define X11_RELEASE_WAIT_MAX_MS 10000

/* One timed round trip just before an input: how fast the server answers now. */
static pg_err measure_rtt(pg_platform *p, pg_error *e) {
    double t0 = pg_mono_ms();
    pg_err rc = x11_sync(p, e);
    p->input_rtt_ms = pg_mono_ms() - t0;
    return rc;
}

static uint32_t delivery_wait_ms(const pg_platform *p) {
    double scaled = X11_RELEASE_WAIT_RTTS * p->input_rtt_ms;
    if (scaled < X11_RELEASE_WAIT_MS) return X11_RELEASE_WAIT_MS;
    return scaled > X11_RELEASE_WAIT_MAX_MS ? X11_RELEASE_WAIT_MAX_MS : (uint32_t)scaled;
}

/* Polls until the buttons in mask read as up, at most delivery_wait_ms();
 * *up says whether they did. */
static pg_err wait_up(pg_platform *p, uint16_t mask, bool *up, pg_error *e) {
    pg_err rc = PG_OK;
    *up = false;
    for (pg_deadline end = pg_deadline_in_ms(delivery_wait_ms(p)); rc == PG_OK; pg_sleep_ms(2)) {
        xcb_query_pointer_reply_t *q = x11_take(p, xcb_query_pointer(p->c, p->root).sequence, &rc, e);
        *up = q && !(q->mask & mask);
        free(q);
        if (rc != PG_OK || *up || pg_deadline_passed(end)) return rc;
    }
    return rc;
}

/* Waits until the server has processed the releases just sent: the
 * buttons in mask read as up. A window manager's click-to-focus grab
 * (openbox's, while it re-grabs its bindings after a keymap change)
 * freezes the pointer, and the press and release wait in the server's
 * queue while keys sent after them go ahead: a click that returned would
 * not have landed yet, and the next keys would reach the window before
 * it. Bounded by delivery_wait_ms(); a pointer still frozen then is not a
 * failure: the events were sent and the server may still deliver them
 * (a caller told to retry would click twice), so it is counted for
 * unconfirmed(), remembered for the next keys (earlier_landed), and the
 * input returns PG_OK. */
static pg_err landed(pg_platform *p, uint16_t mask, pg_error *e) {
    if (!mask) return PG_OK;
    bool up;
    pg_err rc = wait_up(p, mask, &up, e);
    if (rc == PG_OK && !up) p->unconfirmed++, p->pending_mask = mask;
    if (rc == PG_OK && up) p->pending_mask = 0; /* one queue: an earlier click went first */
    return rc;
}

/* Before keys or a focus change: the last unconfirmed click has landed.
 * Keys and focus do not queue behind a frozen pointer, so sent now they
 * would overtake it (the keys reach the field the click was to leave).
 * Still frozen: PG_E_TIMEOUT with nothing sent, so a retry is safe. */
static pg_err earlier_landed(pg_platform *p, pg_error *e) {
    if (!p->pending_mask) return PG_OK;
    bool up;
    pg_err rc = measure_rtt(p, e);
    if (rc == PG_OK) rc = wait_up(p, p->pending_mask, &up, e);
    if (rc != PG_OK) return rc;
    if (!up)
        return pg_error_set(e, PG_E_TIMEOUT, "nothing was sent: retry once the display answers (a grab may hold the pointer)",
                            "an earlier click is still not delivered after %u ms: keys now would overtake it",
                            (unsigned)delivery_wait_ms(p));
    p->pending_mask = 0;
    return PG_OK;
}

pg_err x11_unconfirmed(pg_platform *p, uint32_t *n, pg_error *e) {
    (void)e;
    *n = p->unconfirmed;
    p->unconfirmed = 0;
    return PG_OK;
}

/* sent(), then landed() for the buttons just released. */
static pg_err sent_released(pg_platform *p, uint16_t mask, pg_error *e) {
    pg_err rc = sent(p, e);
    return rc == PG_OK ? landed(p, mask, e) : rc;
}

pg_err x11_pointer_move(pg_platform *p, uint64_t id, int32_t x, int32_t y, pg_error *e) {
    x11_win w;
    int32_t rx, ry;
    pg_err rc = aim(p, id, x, y, &w, &rx, &ry, e);
    if (rc != PG_OK) return rc;
    fake_motion(p, rx, ry);
    return sent(p, e);
}

pg_err x11_click(pg_platform *p, uint64_t id, int32_t x, int32_t y, pg_button b, int count,
                 pg_error *e) {
    if (b != PG_BTN_LEFT && b != PG_BTN_MIDDLE && b != PG_BTN_RIGHT)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "unknown button %d", (int)b);
    if (count < 1 || count > 3)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "click count must be 1, 2 or 3, not %d", count);
    x11_win w;
    int32_t rx, ry;
    pg_err rc = aim(p, id, x, y, &w, &rx, &ry, e);
    if (rc == PG_OK) rc = measure_rtt(p, e);
    if (rc != PG_OK) return rc;
    /* X button numbers: 1 left, 2 middle, 3 right - same as pg_button. */
    fake_motion(p, rx, ry);
    for (int i = 0; i < count; i++) {
        fake_button(p, (uint8_t)b, true);
        fake_button(p, (uint8_t)b, false);
    }
    return sent_released(p, button_mask((unsigned)b), e);
}

/* X has no wheel events: the core protocol's buttons 4 and 5 are one notch
 * up and down, 6 and 7 left and right, each a press and a release. */
pg_err x11_scroll(pg_platform *p, uint64_t id, int32_t x, int32_t y, int32_t dx, int32_t dy, pg_error *e) {
    if (dx < -PG_SCROLL_MAX || dx > PG_SCROLL_MAX || dy < -PG_SCROLL_MAX || dy > PG_SCROLL_MAX)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "scroll of %d,%d notches: at most %d each way", dx, dy,
                            PG_SCROLL_MAX);
    x11_win w;
    int32_t rx, ry;
    pg_err rc = aim(p, id, x, y, &w, &rx, &ry, e);
    if (rc == PG_OK) rc = measure_rtt(p, e);
    if (rc != PG_OK) return rc;
    fake_motion(p, rx, ry);
    uint8_t vertical = dy < 0 ? 4 : 5, horizontal = dx < 0 ? 6 : 7;
    for (int32_t i = 0; i < abs(dy); i++) fake_button(p, vertical, true), fake_button(p, vertical, false);
    for (int32_t i = 0; i < abs(dx); i++) fake_button(p, horizontal, true), fake_button(p, horizontal, false);
    return sent_released(p, dy ? button_mask(vertical) : 0, e);
}

pg_err x11_drag(pg_platform *p, uint64_t id, const pg_point *path, size_t n, pg_button b, uint32_t hold_ms,
                uint32_t step_ms, pg_error *e) {
    if (b != PG_BTN_LEFT && b != PG_BTN_MIDDLE && b != PG_BTN_RIGHT)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "unknown button %d", (int)b);
    if (!pg_drag_shape_ok(n, hold_ms, step_ms))
        return pg_error_set(e, PG_E_BADINPUT, NULL, "a drag has 2 to %d points and takes at most %d ms",
                            PG_DRAG_MAX_POINTS, PG_DRAG_MAX_MS);
    int32_t *root = malloc(n * 2 * sizeof *root);
    if (!root) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    x11_win w;
    pg_err rc = aim_window(p, id, &w, e);
    for (size_t i = 0; i < n && rc == PG_OK; i++) /* every point checked before anything is sent */
        rc = aim_point(p, &w, path[i].x, path[i].y, &root[2 * i], &root[2 * i + 1], e);
    if (rc == PG_OK) rc = measure_rtt(p, e);
    if (rc == PG_OK) {
        fake_motion(p, root[0], root[1]);
        fake_button(p, (uint8_t)b, true);
        rc = x11_sync(p, e);
        x11_guard_release(p); /* pressed where it was checked: the drag's waits run ungrabbed */
        if (rc == PG_OK) pg_sleep_ms(hold_ms);
        for (size_t i = 1; i < n && rc == PG_OK; i++) {
            fake_motion(p, root[2 * i], root[2 * i + 1]);
            rc = x11_sync(p, e);
            if (rc == PG_OK && i + 1 < n) pg_sleep_ms(step_ms);
        }
        fake_button(p, (uint8_t)b, false); /* whatever failed: never left pressed */
        pg_error ignore;
        pg_err done = sent(p, rc == PG_OK ? e : &ignore);
        if (rc == PG_OK) rc = done;
        if (rc == PG_OK) rc = landed(p, button_mask((unsigned)b), e);
    }
    free(root);
    return rc;
}

/* ---------------------------------------------------------------- held */

pg_err x11_pointer_at(pg_platform *p, int32_t *x, int32_t *y, pg_error *e) {
    *x = *y = 0;
    pg_err rc = x11_alive(p, e);
    xcb_query_pointer_reply_t *q = rc == PG_OK ? x11_take(p, xcb_query_pointer(p->c, p->root).sequence, &rc, e) : NULL;
    if (q) *x = q->root_x, *y = q->root_y;
    free(q);
    return rc;
}

/* A button held or let go: at the point (moved there first) or where the
 * pointer is, either checked like a click; a release without a window goes
 * out wherever the pointer is (letting go is never refused). */
static pg_err hold_button(pg_platform *p, const pg_hold *h, pg_error *e) {
    if (h->button != PG_BTN_LEFT && h->button != PG_BTN_MIDDLE && h->button != PG_BTN_RIGHT)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "unknown button %d", (int)h->button);
    pg_err rc = need_xtest(p, e);
    if (rc == PG_OK && h->id == 0 && h->down)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "a button goes down in a window");
    x11_win w;
    int32_t rx = 0, ry = 0;
    if (rc == PG_OK && h->id != 0) {
        if (h->at) rc = aim(p, h->id, h->x, h->y, &w, &rx, &ry, e);
        if (!h->at && (rc = aim_window(p, h->id, &w, e)) == PG_OK && (rc = x11_pointer_at(p, &rx, &ry, e)) == PG_OK)
            rc = aim_point(p, &w, rx - w.root_x, ry - w.root_y, &rx, &ry, e);
    }
    if (rc == PG_OK) rc = measure_rtt(p, e);
    if (rc != PG_OK) return rc;
    if (h->at && h->id != 0) fake_motion(p, rx, ry);
    fake_button(p, (uint8_t)h->button, h->down);
    return sent_released(p, h->down ? 0 : button_mask((unsigned)h->button), e);
}

/* A key held or let go: a press focuses the window first and is checked
 * like a chord of that key alone (the broker checks what it makes with the
 * keys already held); a release goes out wherever the focus is. */
static pg_err hold_key(pg_platform *p, const pg_hold *h, pg_error *e) {
    x11_keymap *k = NULL;
    uint8_t code = 0;
    pg_err rc = need_xtest(p, e);
    if (rc == PG_OK) rc = earlier_landed(p, e);
    if (rc == PG_OK) rc = x11_keymap_load(p, &k, e);
    if (rc == PG_OK) rc = x11_keymap_hold_code(k, h->key, &code, e);
    if (rc == PG_OK && h->down) rc = x11_keymap_check(k, h->key, e);
    x11_keymap_free(k);
    if (rc == PG_OK && h->down) {
        x11_win w;
        rc = x11_resolve(p, h->id, &w, e);
        if (rc == PG_OK) rc = focus_win(p, &w, true, e);
    }
    if (rc != PG_OK) return rc;
    x11_fake_key(p, code, h->down);
    return sent(p, e);
}

pg_err x11_hold(pg_platform *p, const pg_hold *h, pg_error *e) {
    return h->is_key ? hold_key(p, h, e) : hold_button(p, h, e);
}

pg_err x11_key_check(pg_platform *p, const char *chord, pg_error *e) {
    x11_keymap *k = NULL;
    pg_err rc = x11_keymap_load(p, &k, e);
    if (rc == PG_OK) rc = x11_keymap_check(k, chord, e);
    x11_keymap_free(k);
    return rc;
}

/* ---------------------------------------------------------------- keys */

/* Resolve, check, load the keymap and, unless chord is refused, focus:
 * what key() and type_text() share. A refused chord never moves the focus. */
static pg_err prepare_keys(pg_platform *p, uint64_t id, const char *chord, x11_keymap **k, pg_error *e) {
    x11_win w;
    pg_err rc = x11_resolve(p, id, &w, e);
    if (rc == PG_OK) rc = need_xtest(p, e);
    if (rc == PG_OK) rc = earlier_landed(p, e);
    if (rc == PG_OK) rc = x11_keymap_load(p, k, e);
    if (rc == PG_OK && chord) rc = x11_keymap_check(*k, chord, e);
    if (rc == PG_OK) rc = focus_win(p, &w, true, e);
    return rc;
}

pg_err x11_key(pg_platform *p, uint64_t id, const char *chord, pg_error *e) {
    x11_keymap *k = NULL;
    pg_err rc = prepare_keys(p, id, chord ? chord : "", &k, e);
    if (rc == PG_OK) rc = x11_keymap_chord(p, k, (xcb_window_t)id, chord, e);
    x11_keymap_free(k);
    return rc;
}

pg_err x11_type_text(pg_platform *p, uint64_t id, const char *utf8, pg_error *e) {
    if (!utf8) return pg_error_set(e, PG_E_BADINPUT, NULL, "no text");
    /* Reject bad UTF-8 before anything is typed: half a string is worse. */
    size_t n = strlen(utf8);
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = x11_utf8_decode((const uint8_t *)utf8 + i, n - i, &cp);
        if (!len)
            return pg_error_set(e, PG_E_BADINPUT, NULL, "text is not valid UTF-8 at byte %zu", i);
        i += len;
    }
    x11_keymap *k = NULL;
    pg_err rc = prepare_keys(p, id, NULL, &k, e);
    if (rc == PG_OK) rc = x11_keymap_type(p, k, (xcb_window_t)id, utf8, e);
    x11_keymap_free(k);
    return rc;
}
