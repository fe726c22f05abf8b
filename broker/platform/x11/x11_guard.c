/* SPDX-License-Identifier: MIT */
/* x11_guard.c - guard_begin / guard_end (pg_platform.def): --if-unchanged's
 * check of an input's target, under a server grab.
 *
 * Contract: guard_begin grabs the server on the handle's connection, so no
 * other client can map, raise, move or repaint anything until it ends; then
 * it checks that the listed window on top at g->point is g->window (the
 * same walk as top_at) and that the screen's pixels in g->rect (root
 * GetImage, what the person sees, as capture_screen reads it) are within
 * g->tolerance of g->ref (mean absolute difference per colour channel,
 * over the part of g->rect on the screen). A mismatch ungrabs and answers
 * PG_E_TARGET_CHANGED; a match answers PG_OK with the server still
 * grabbed, for the one input that follows on this handle.
 * The grab ends at the first of: guard_end; the input's own requests
 * processed (x11_guard_release, called by x11_input.c right after the
 * round trip that follows the injected events, before any wait for
 * delivery: that wait may need a window manager's AllowEvents, which a grab
 * would hold back); any error here. So it is held for a few round trips.
 * Never: leaves the server grabbed when it returns an error, or waits on
 * another connection while it holds the grab.
 */
#include <stdlib.h>

#include "x11_private.h"

void x11_guard_release(pg_platform *p) {
    if (!p->guard_grabbed) return;
    p->guard_grabbed = false;
    if (!p->c || xcb_connection_has_error(p->c)) return; /* a broken connection's grab ended with it */
    xcb_ungrab_server(p->c);
    pg_error ignored;
    (void)x11_sync(p, &ignored); /* processed before anything else of ours: bounded like any reply */
}

void x11_guard_end(pg_platform *p) { x11_guard_release(p); }

static pg_err same_window_on_top(pg_platform *p, const pg_guard *g, pg_error *e) {
    uint64_t top = 0;
    pg_err rc = x11_top_at(p, g->point.x, g->point.y, &top, e);
    if (rc != PG_OK || top == g->window) return rc;
    /* Named by id only: the window on top may be another user's. */
    return pg_error_set(e, PG_E_TARGET_CHANGED, NULL, "another window (%llu) is on top at %d,%d now",
                        (unsigned long long)top, g->point.x, g->point.y);
}

/* Mean absolute difference per colour channel between the capture and the
 * part of g->ref it covers (the capture is g->rect clipped to the screen). */
static double difference(const pg_capture *cap, const pg_guard *g) {
    uint32_t dx = (uint32_t)(cap->origin_x - g->rect.x), dy = (uint32_t)(cap->origin_y - g->rect.y);
    uint64_t sum = 0;
    for (uint32_t y = 0; y < cap->height; y++) {
        const uint8_t *live = cap->rgba + (size_t)y * cap->stride;
        const uint8_t *ref = g->ref + ((size_t)(y + dy) * g->rect.w + dx) * 4;
        for (uint32_t x = 0; x < cap->width * 4; x++) {
            if (x % 4 == 3) continue; /* alpha: always opaque on screen */
            int d = (int)live[x] - (int)ref[x];
            sum += (uint64_t)(d < 0 ? -d : d);
        }
    }
    uint64_t n = (uint64_t)cap->width * cap->height * 3;
    return n ? (double)sum / (double)n : 0;
}

static pg_err same_pixels(pg_platform *p, pg_guard *g, pg_error *e) {
    pg_capture cap;
    pg_err rc = x11_capture_screen(p, &g->rect, &cap, e);
    if (rc != PG_OK) return rc;
    bool inside = cap.origin_x >= g->rect.x && cap.origin_y >= g->rect.y &&
                  (int64_t)cap.origin_x + cap.width <= (int64_t)g->rect.x + g->rect.w &&
                  (int64_t)cap.origin_y + cap.height <= (int64_t)g->rect.y + g->rect.h;
    if (inside) g->difference = difference(&cap, g);
    free(cap.rgba);
    if (!inside) return pg_error_set(e, PG_E_INTERNAL, NULL, "the screen read does not lie in the region checked");
    if (g->difference <= g->tolerance) return PG_OK;
    return pg_error_set(e, PG_E_TARGET_CHANGED, NULL, "the region at %d,%d (%ux%u) differs by more than %.1f",
                        g->rect.x, g->rect.y, g->rect.w, g->rect.h, g->tolerance);
}

pg_err x11_guard_begin(pg_platform *p, pg_guard *g, pg_error *e) {
    g->difference = -1; /* not compared */
    if (!g->ref || g->rect.w == 0 || g->rect.h == 0)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "no region to check");
    pg_err rc = x11_alive(p, e);
    if (rc != PG_OK) return rc;
    if (p->guard_grabbed) return pg_error_set(e, PG_E_INTERNAL, NULL, "a guarded input is under way on this handle");
    xcb_grab_server(p->c);
    p->guard_grabbed = true;
    rc = x11_sync(p, e); /* once answered, the grab holds: nothing else changes the screen */
    if (rc == PG_OK) rc = same_window_on_top(p, g, e);
    if (rc == PG_OK) rc = same_pixels(p, g, e);
    if (rc != PG_OK) x11_guard_release(p);
    return rc;
}
