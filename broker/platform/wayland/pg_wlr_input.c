/* SPDX-License-Identifier: MIT */
/* pg_wlr_input.c - the pointer through wlroots' virtual pointer, checked the
 * way the X11 backend checks its own: a point inside the window's content
 * and on top there (what a click would reach). Keys: pg_wlr_keys.c.
 * Every call ends with a round trip: what it sent has been handled by the
 * compositor when it returns.
 */
#include <linux/input-event-codes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wayland-client.h>

#include "pg_time.h"
#include "pg_wlr_private.h"
#include "wlr-virtual-pointer-v1-client.h"

#define WHEEL_STEP 15 /* wl_pointer axis units of one wheel notch (what libinput reports) */

/* Window-relative (x, y) of id -> layout coordinates, checked: inside the
 * content, the window on top there. */
static pg_err aim(pg_platform *p, uint64_t id, int32_t x, int32_t y, int32_t *lx, int32_t *ly, pg_error *e) {
    wlr_tree t = {0};
    const pg_window *w = NULL;
    pg_err rc = wlr_need(p, false, e);
    if (!rc) rc = wlr_tree_read(p, &t, e);
    if (!rc) rc = wlr_tree_find(&t, id, &w, e);
    if (!rc && !w->visible)
        rc = pg_error_set(e, PG_E_NOTFOUND, "focus the window to show its workspace, then retry",
                          "window %llu is not on a visible workspace", (unsigned long long)id);
    else if (!rc && (x < 0 || y < 0 || (uint32_t)x >= w->width || (uint32_t)y >= w->height))
        rc = pg_error_set(e, PG_E_BADINPUT, NULL, "point %d,%d is outside window %llu (%ux%u)", (int)x, (int)y,
                          (unsigned long long)id, (unsigned)w->width, (unsigned)w->height);
    uint64_t top = 0;
    if (!rc) *lx = w->x + x, *ly = w->y + y, top = wlr_tree_top_at(&t, *lx, *ly);
    if (!rc && top != id)
        rc = pg_error_set(e, PG_E_POLICY, "move or close the covering window, or focus the target first",
                          "the point %d,%d of window %llu is covered by window %llu", (int)x, (int)y,
                          (unsigned long long)id, (unsigned long long)top);
    wlr_tree_free(&t);
    return rc;
}

static void move_to(pg_platform *p, int32_t lx, int32_t ly) {
    pg_rect box = wlr_layout_box(p);
    zwlr_virtual_pointer_v1_motion_absolute(p->pointer, wlr_time_ms(), (uint32_t)(lx - box.x), (uint32_t)(ly - box.y),
                                            box.w, box.h);
    zwlr_virtual_pointer_v1_frame(p->pointer);
    p->pointer_known = true, p->pointer_x = lx, p->pointer_y = ly;
}

static uint32_t linux_button(pg_button b) {
    return b == PG_BTN_RIGHT ? BTN_RIGHT : b == PG_BTN_MIDDLE ? BTN_MIDDLE : BTN_LEFT;
}

static void button(pg_platform *p, pg_button b, bool down) {
    zwlr_virtual_pointer_v1_button(p->pointer, wlr_time_ms(), linux_button(b),
                                   down ? WL_POINTER_BUTTON_STATE_PRESSED : WL_POINTER_BUTTON_STATE_RELEASED);
    zwlr_virtual_pointer_v1_frame(p->pointer);
}

static pg_err check_button(pg_button b, pg_error *e) {
    if (b == PG_BTN_LEFT || b == PG_BTN_MIDDLE || b == PG_BTN_RIGHT) return PG_OK;
    return pg_error_set(e, PG_E_BADINPUT, NULL, "unknown button %d", (int)b);
}

pg_err wlr_pointer_move(pg_platform *p, uint64_t id, int32_t x, int32_t y, pg_error *e) {
    int32_t lx, ly;
    pg_err rc = aim(p, id, x, y, &lx, &ly, e);
    if (rc) return rc;
    move_to(p, lx, ly);
    return wlr_sync(p, e);
}

pg_err wlr_click(pg_platform *p, uint64_t id, int32_t x, int32_t y, pg_button b, int count, pg_error *e) {
    int32_t lx, ly;
    if (count < 1 || count > 3) return pg_error_set(e, PG_E_BADINPUT, NULL, "click count %d (1 to 3)", count);
    pg_err rc = check_button(b, e);
    if (!rc) rc = aim(p, id, x, y, &lx, &ly, e);
    if (rc) return rc;
    move_to(p, lx, ly);
    for (int i = 0; i < count; i++) button(p, b, true), button(p, b, false);
    return wlr_sync(p, e);
}

pg_err wlr_scroll(pg_platform *p, uint64_t id, int32_t x, int32_t y, int32_t dx, int32_t dy, pg_error *e) {
    int32_t lx, ly;
    if (abs(dx) > PG_SCROLL_MAX || abs(dy) > PG_SCROLL_MAX)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "at most %d notches per axis", PG_SCROLL_MAX);
    pg_err rc = aim(p, id, x, y, &lx, &ly, e);
    if (rc) return rc;
    move_to(p, lx, ly);
    const int32_t d[2] = {dy, dx}; /* wl_pointer.axis: 0 vertical, 1 horizontal */
    for (uint32_t axis = 0; axis < 2; axis++)
        for (int32_t i = 0; i < abs(d[axis]); i++) {
            int32_t s = d[axis] > 0 ? 1 : -1;
            zwlr_virtual_pointer_v1_axis_source(p->pointer, WL_POINTER_AXIS_SOURCE_WHEEL);
            zwlr_virtual_pointer_v1_axis_discrete(p->pointer, wlr_time_ms(), axis, wl_fixed_from_int(s * WHEEL_STEP), s);
            zwlr_virtual_pointer_v1_frame(p->pointer);
        }
    return wlr_sync(p, e);
}

pg_err wlr_drag(pg_platform *p, uint64_t id, const pg_point *path, size_t n, pg_button b, uint32_t hold_ms,
                uint32_t step_ms, pg_error *e) {
    if (!pg_drag_shape_ok(n, hold_ms, step_ms)) return pg_error_set(e, PG_E_BADINPUT, NULL, "bad drag shape");
    pg_err rc = check_button(b, e);
    pg_point *at = rc ? NULL : malloc(n * sizeof *at);
    if (!rc && !at) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    for (size_t i = 0; i < n && !rc; i++) rc = aim(p, id, path[i].x, path[i].y, &at[i].x, &at[i].y, e);
    if (rc) return free(at), rc;
    move_to(p, at[0].x, at[0].y);
    button(p, b, true);
    rc = wlr_sync(p, e);
    pg_sleep_ms(hold_ms);
    for (size_t i = 1; i < n && !rc; i++) {
        if (i > 1) pg_sleep_ms(step_ms);
        move_to(p, at[i].x, at[i].y);
        rc = wlr_sync(p, e);
    }
    button(p, b, false); /* whatever failed: a drag never leaves the button down */
    pg_error e2;
    pg_err rc2 = wlr_sync(p, &e2);
    free(at);
    if (!rc && rc2) *e = e2, rc = rc2;
    return rc;
}

pg_err wlr_pointer_at(pg_platform *p, int32_t *x, int32_t *y, pg_error *e) {
    if (!p->pointer_known)
        return pg_error_set(e, PG_E_UNSUPPORTED, "move or click first",
                            "Wayland tells no client where the pointer is; pixelgate knows it once it moved it");
    *x = p->pointer_x, *y = p->pointer_y;
    return PG_OK;
}

/* ---- held buttons (held keys: pg_wlr_keys.c) ---- */

static pg_err hold_button(pg_platform *p, const pg_hold *h, pg_error *e) {
    pg_err rc = check_button(h->button, e);
    if (!rc) rc = wlr_need(p, false, e);
    int32_t lx, ly;
    if (!rc && h->at) rc = aim(p, h->id, h->x, h->y, &lx, &ly, e);
    if (rc) return rc;
    if (h->at) move_to(p, lx, ly);
    button(p, h->button, h->down);
    uint32_t bit = 1u << (h->button - 1);
    p->buttons_held = h->down ? p->buttons_held | bit : p->buttons_held & ~bit;
    return wlr_sync(p, e);
}

pg_err wlr_hold(pg_platform *p, const pg_hold *h, pg_error *e) {
    return h->is_key ? wlr_hold_key(p, h, e) : hold_button(p, h, e);
}

void wlr_release_all(pg_platform *p) {
    pg_error e;
    for (unsigned b = 1; b <= 3; b++)
        if (p->pointer && (p->buttons_held & (1u << (b - 1)))) button(p, (pg_button)b, false);
    p->buttons_held = 0;
    (void)wlr_sync(p, &e);
}
