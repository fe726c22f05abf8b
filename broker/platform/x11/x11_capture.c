/* SPDX-License-Identifier: MIT */
/* x11_capture.c - window, region and screen capture.
 *
 * Contract: capture_window() returns the client area of an application window
 * (window-relative region, clipped; empty intersection = PG_E_BADINPUT). With
 * Composite (root's children redirected at open) it names the toplevel's
 * pixmap - the WM frame when reparented - and crops the client out of it
 * (client offset inside the frame + the frame's border), so a covered window
 * still yields its own pixels. Without Composite it reads the window's screen
 * area from root (caps says capture_covered=false), and only when no other
 * window is stacked over that area: else it refuses with PG_E_POLICY naming
 * the cover by its decimal id (never its title: it may be another user's).
 * capture_screen() reads root, with the sign that an agent drives stepped
 * aside under a server grab (x11_indicator.c).
 * Pixels travel through one MIT-SHM segment per handle, created from a memfd
 * and passed with shm_attach_fd (MIT-SHM 1.2): the broker runs as its own uid,
 * so classic 0600 SysV segments would be BadAccess. If fd passing fails
 * (old server, remote display) the handle falls back to GetImage for good.
 * pg_capture.method says what ran: "composite+shm", "composite+getimage",
 * "shm", "getimage".
 * Never: returns pixels of a window other than the one asked for, or
 * crashes when the window vanishes mid-capture (PG_E_NOTFOUND).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xcb/composite.h>
#include <xcb/shm.h>

#include "x11_private.h"

/* Largest capture we accept: 16384 x 16384 RGBA. */
#define X11_MAX_PIXELS (16384ull * 16384ull)

/* ------------------------------------------------------------ shm segment */

void x11_shm_release(pg_platform *p) {
    if (!p->seg.addr) return;
    if (p->c && !xcb_connection_has_error(p->c)) {
        xcb_shm_detach(p->c, p->seg.seg);
        xcb_flush(p->c);
    }
    munmap(p->seg.addr, p->seg.size);
    memset(&p->seg, 0, sizeof p->seg);
}

/* A segment of at least need bytes, or false (then use GetImage). Only a
 * server refusal switches SHM off for good; a local failure just skips it. */
static bool shm_ensure(pg_platform *p, size_t need) {
    if (!p->shm_fd) return false;
    if (p->seg.addr && p->seg.size >= need) return true;
    x11_shm_release(p);
    size_t size = (need + (1u << 20) - 1) & ~(size_t)((1u << 20) - 1);
    int fd = memfd_create("pixelgate-capture", MFD_CLOEXEC);
    if (fd < 0) return false;
    void *addr = ftruncate(fd, (off_t)size) == 0
                     ? mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                     : MAP_FAILED;
    if (addr == MAP_FAILED) {
        close(fd);
        return false;
    }
    xcb_shm_seg_t seg = xcb_generate_id(p->c);
    /* xcb closes fd once it is sent; our mapping stays valid. */
    xcb_void_cookie_t ck = xcb_shm_attach_fd_checked(p->c, seg, fd, 0);
    xcb_generic_error_t *xe = NULL;
    if (x11_check(p, ck, &xe, NULL) != PG_OK || xe) {
        free(xe);
        munmap(addr, size);
        p->shm_fd = false;
        return false;
    }
    p->seg.seg = seg;
    p->seg.addr = addr;
    p->seg.size = size;
    return true;
}

/* ------------------------------------------------------------ reading */

typedef struct {
    xcb_drawable_t d;
    int32_t x, y;
    uint32_t w, h;
    x11_pixfmt fmt;
} grab_req;

static pg_err vanished(pg_error *e, uint8_t code) {
    return pg_error_set(e, PG_E_NOTFOUND, "list windows again; the window may have closed",
                        "window vanished or changed during capture (%s)", x11_error_name(code));
}

static pg_err grab_shm(pg_platform *p, const grab_req *g, pg_capture *out, bool *done,
                       pg_error *e) {
    size_t stride = x11_src_stride(&g->fmt, g->w);
    *done = false;
    if (!shm_ensure(p, stride * g->h)) return PG_OK;
    void *r;
    xcb_generic_error_t *xe;
    xcb_shm_get_image_cookie_t ck =
        xcb_shm_get_image(p->c, g->d, (int16_t)g->x, (int16_t)g->y, (uint16_t)g->w, (uint16_t)g->h,
                          ~0u, XCB_IMAGE_FORMAT_Z_PIXMAP, p->seg.seg, 0);
    pg_err rc = x11_wait(p, ck.sequence, &r, &xe, e);
    if (rc != PG_OK) return rc;
    if (xe) {
        uint8_t code = xe->error_code;
        free(xe);
        if (code == XCB_WINDOW || code == XCB_PIXMAP || code == XCB_DRAWABLE || code == XCB_MATCH)
            return vanished(e, code);
        /* The segment itself was refused: stop using SHM on this handle. */
        x11_shm_release(p);
        p->shm_fd = false;
        return PG_OK;
    }
    free(r);
    *done = true;
    return x11_to_rgba(&g->fmt, p->seg.addr, stride, g->w, g->h, out, e);
}

static pg_err grab_getimage(pg_platform *p, const grab_req *g, pg_capture *out, pg_error *e) {
    void *r;
    xcb_generic_error_t *xe;
    xcb_get_image_cookie_t ck = xcb_get_image(p->c, XCB_IMAGE_FORMAT_Z_PIXMAP, g->d, (int16_t)g->x,
                                              (int16_t)g->y, (uint16_t)g->w, (uint16_t)g->h, ~0u);
    pg_err rc = x11_wait(p, ck.sequence, &r, &xe, e);
    if (rc != PG_OK) return rc;
    if (xe) {
        uint8_t code = xe->error_code;
        free(xe);
        return vanished(e, code);
    }
    size_t stride = x11_src_stride(&g->fmt, g->w);
    if ((size_t)xcb_get_image_data_length(r) < stride * g->h) {
        free(r);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "GetImage returned a short image");
    }
    rc = x11_to_rgba(&g->fmt, xcb_get_image_data(r), stride, g->w, g->h, out, e);
    free(r);
    return rc;
}

/* Read g into out, by SHM when possible; prefix names the source. */
static pg_err grab(pg_platform *p, const grab_req *g, const char *prefix, pg_capture *out,
                   pg_error *e) {
    bool done = false;
    pg_err rc = grab_shm(p, g, out, &done, e);
    if (rc == PG_OK && !done) rc = grab_getimage(p, g, out, e);
    if (rc == PG_OK)
        snprintf(out->method, sizeof out->method, "%s%s", prefix, done ? "shm" : "getimage");
    return rc;
}

/* ------------------------------------------------------------ regions */

/* Intersect the optional region with [0,w) x [0,h). */
static pg_err clip(const pg_rect *region, uint32_t w, uint32_t h, pg_rect *out, const char *what,
                   pg_error *e) {
    *out = (pg_rect){0}; /* defined on every path, refusals included */
    int64_t x0 = 0, y0 = 0, x1 = w, y1 = h;
    if (region) {
        x0 = region->x > 0 ? region->x : 0;
        y0 = region->y > 0 ? region->y : 0;
        int64_t rx1 = (int64_t)region->x + region->w, ry1 = (int64_t)region->y + region->h;
        if (rx1 < x1) x1 = rx1;
        if (ry1 < y1) y1 = ry1;
    }
    if (x1 <= x0 || y1 <= y0) {
        return pg_error_set(e, PG_E_BADINPUT, "give a region that overlaps the target",
                            "region %d,%d %ux%u does not overlap the %s (%ux%u)",
                            region ? region->x : 0, region ? region->y : 0, region ? region->w : 0,
                            region ? region->h : 0, what, w, h);
    }
    if ((uint64_t)(x1 - x0) * (uint64_t)(y1 - y0) > X11_MAX_PIXELS)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "capture larger than 16384x16384");
    *out = (pg_rect){(int32_t)x0, (int32_t)y0, (uint32_t)(x1 - x0), (uint32_t)(y1 - y0)};
    return PG_OK;
}

/* ------------------------------------------------------------ capture */

static pg_err capture_composite(pg_platform *p, const x11_win *w, const pg_rect *r,
                                pg_capture *out, pg_error *e) {
    grab_req g = {.x = w->off_x + r->x, .y = w->off_y + r->y, .w = r->w, .h = r->h};
    pg_err rc = x11_pixfmt_for(p, w->top_visual, w->top_depth, &g.fmt, e);
    if (rc != PG_OK) return rc;
    if (g.x < 0 || g.y < 0 || (uint64_t)g.x + g.w > w->top_w || (uint64_t)g.y + g.h > w->top_h)
        return pg_error_set(e, PG_E_INTERNAL, NULL, "client area lies outside its frame");
    /* Not checked on its own: when naming the pixmap fails (the window went
     * away or was unmapped), reading the pixmap fails too, and that error
     * says the window vanished. One round trip fewer. */
    xcb_pixmap_t pix = xcb_generate_id(p->c);
    xcb_composite_name_window_pixmap(p->c, w->toplevel, pix);
    g.d = pix;
    rc = grab(p, &g, "composite+", out, e);
    xcb_free_pixmap(p->c, pix);
    xcb_flush(p->c);
    return rc;
}

/* A mapped InputOutput child of root stacked above w's toplevel whose
 * outer bounds meet the screen rectangle s: its client (or itself, for an
 * override-redirect window) in *cover, else 0. */
static pg_err find_cover(pg_platform *p, const x11_win *w, const pg_rect *s, xcb_window_t *cover, pg_error *e) {
    *cover = 0;
    pg_err rc = PG_OK;
    xcb_query_tree_reply_t *tree = x11_take(p, xcb_query_tree(p->c, p->root).sequence, &rc, e);
    if (rc != PG_OK) return rc;
    if (!tree) return pg_error_set(e, PG_E_INTERNAL, NULL, "QueryTree(root) failed");
    xcb_window_t *kids = xcb_query_tree_children(tree);
    size_t n = (size_t)xcb_query_tree_children_length(tree), k = 0;
    while (k < n && kids[k] != w->toplevel) k++; /* children are bottom to top */
    if (k == n) {
        free(tree);
        return vanished(e, XCB_WINDOW);
    }
    size_t above = n - k - 1;
    xcb_get_window_attributes_cookie_t *ca = malloc((above ? above : 1) * sizeof *ca);
    xcb_get_geometry_cookie_t *cg = malloc((above ? above : 1) * sizeof *cg);
    if (!ca || !cg) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    for (size_t i = 0; rc == PG_OK && i < above; i++) {
        ca[i] = xcb_get_window_attributes(p->c, kids[k + 1 + i]);
        cg[i] = xcb_get_geometry(p->c, kids[k + 1 + i]);
    }
    xcb_window_t top = 0;
    bool redirect = false;
    for (size_t i = 0; rc == PG_OK && i < above; i++) { /* take every reply, even after a hit */
        xcb_get_window_attributes_reply_t *a = x11_take(p, ca[i].sequence, &rc, e);
        xcb_get_geometry_reply_t *g = x11_take(p, cg[i].sequence, &rc, e);
        bool draws = a && g && a->map_state == XCB_MAP_STATE_VIEWABLE && a->_class == XCB_WINDOW_CLASS_INPUT_OUTPUT &&
                     !x11_indicator_is_own(kids[k + 1 + i]); /* the broker's own sign covers nothing */
        int64_t x1 = draws ? (int64_t)g->x + g->width + 2 * g->border_width : 0;
        int64_t y1 = draws ? (int64_t)g->y + g->height + 2 * g->border_width : 0;
        if (!top && draws && g->x < (int64_t)s->x + s->w && x1 > s->x && g->y < (int64_t)s->y + s->h && y1 > s->y) {
            top = kids[k + 1 + i];
            redirect = a->override_redirect;
        }
        free(a), free(g);
    }
    free(ca), free(cg), free(tree);
    if (rc == PG_OK && top) *cover = redirect ? top : x11_client_of(p, top);
    return rc;
}

/* Without Composite: what the screen shows where the window is, which is the
 * window's own pixels only while nothing covers that rectangle. The server
 * is grabbed from the stack check to the copy, so no window can map or move
 * over it in between. */
static pg_err capture_from_root(pg_platform *p, const x11_win *w, const pg_rect *r,
                                pg_capture *out, pg_error *e) {
    pg_rect on_screen = {w->root_x + r->x, w->root_y + r->y, r->w, r->h};
    pg_rect s;
    pg_err rc = clip(&on_screen, p->screen->width_in_pixels, p->screen->height_in_pixels, &s,
                     "screen", e);
    if (rc != PG_OK) return rc;
    grab_req g = {p->root, s.x, s.y, s.w, s.h, {0}};
    rc = x11_pixfmt_for(p, p->screen->root_visual, p->screen->root_depth, &g.fmt, e);
    if (rc != PG_OK) return rc;
    xcb_grab_server(p->c);
    xcb_window_t cover = 0;
    rc = find_cover(p, w, &s, &cover, e);
    if (rc == PG_OK && cover)
        rc = pg_error_set(e, PG_E_POLICY, "raise the window (focus) or capture a region the other window does not cover",
                          "window %u covers part of window %u: without Composite a capture would copy it",
                          (unsigned)cover, (unsigned)w->id);
    if (rc == PG_OK) rc = grab(p, &g, "", out, e);
    xcb_ungrab_server(p->c);
    xcb_flush(p->c);
    out->origin_x = s.x;
    out->origin_y = s.y;
    return rc;
}

pg_err x11_capture_window(pg_platform *p, uint64_t id, const pg_rect *region, pg_capture *out,
                          pg_error *e) {
    memset(out, 0, sizeof *out);
    x11_win w;
    pg_err rc = x11_resolve(p, id, &w, e);
    if (rc != PG_OK) return rc;
    if (!w.viewable)
        return pg_error_set(e, PG_E_NOTFOUND, "focus the window to restore it, then retry",
                            "window %llu is not mapped (minimised, on another desktop or "
                            "withdrawn): nothing to capture",
                            (unsigned long long)id);
    pg_rect r;
    if ((rc = clip(region, w.width, w.height, &r, "window", e)) != PG_OK) return rc;
    if (!p->redirected) return capture_from_root(p, &w, &r, out, e);
    rc = capture_composite(p, &w, &r, out, e);
    out->origin_x = w.root_x + r.x;
    out->origin_y = w.root_y + r.y;
    return rc;
}

pg_err x11_capture_screen(pg_platform *p, const pg_rect *region, pg_capture *out, pg_error *e) {
    memset(out, 0, sizeof *out);
    pg_err rc = x11_alive(p, e);
    if (rc != PG_OK) return rc;
    pg_rect r;
    rc = clip(region, p->screen->width_in_pixels, p->screen->height_in_pixels, &r, "screen", e);
    if (rc != PG_OK) return rc;
    grab_req g = {p->root, r.x, r.y, r.w, r.h, {0}};
    rc = x11_pixfmt_for(p, p->screen->root_visual, p->screen->root_depth, &g.fmt, e);
    x11_aside aside = {.grabbed = false}; /* the sign that an agent drives is never in a capture */
    /* Under --if-unchanged's grab (x11_guard.c) the sign steps aside inside
     * that grab, which back must leave held for the input that follows. */
    if (rc == PG_OK)
        rc = p->guard_grabbed ? x11_indicator_aside_held(p, &r, &aside, e) : x11_indicator_aside(p, &r, &aside, e);
    if (rc == PG_OK) rc = grab(p, &g, "", out, e);
    x11_indicator_back(p, &aside);
    out->origin_x = r.x; /* the clipped start, not the region asked for */
    out->origin_y = r.y;
    return rc;
}
