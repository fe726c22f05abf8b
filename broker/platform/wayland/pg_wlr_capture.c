/* SPDX-License-Identifier: MIT */
/* pg_wlr_capture.c - pixels through wlr-screencopy: a region of the layout
 * composed from the outputs it meets, a window's own pixels (refused where
 * another view covers it), and settle by comparing successive copies.
 *
 * Why copies of the output and not of the window: wlroots has no per-window
 * capture in the protocols sway 1.7 offers; the compositor draws every view
 * onto its outputs, so a view's pixels are the output's pixels where the view
 * is, which is the view's own only where nothing covers it (wlr_tree_uncovered).
 * The cursor is never drawn into a copy (overlay_cursor 0).
 */
/* memfd_create: _GNU_SOURCE, which the build defines */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <wayland-client.h>

#include "pg_time.h"
#include "pg_wlr_private.h"
#include "wlr-screencopy-v1-client.h"

#define SETTLE_STEP_MS 15u /* between two copies while waiting for quiet */

typedef struct {
    uint32_t format, width, height, stride;
    uint32_t flags;
    bool have_buffer, done, failed;
} frame_state;

static void fr_buffer(void *data, struct zwlr_screencopy_frame_v1 *f, uint32_t format, uint32_t w, uint32_t h,
                      uint32_t stride) {
    (void)f;
    frame_state *s = data;
    if (s->have_buffer) return; /* the first format offered is the one we take */
    *s = (frame_state){.format = format, .width = w, .height = h, .stride = stride, .have_buffer = true};
}
static void fr_flags(void *data, struct zwlr_screencopy_frame_v1 *f, uint32_t flags) {
    (void)f;
    ((frame_state *)data)->flags = flags;
}
static void fr_ready(void *data, struct zwlr_screencopy_frame_v1 *f, uint32_t hi, uint32_t lo, uint32_t ns) {
    (void)f, (void)hi, (void)lo, (void)ns;
    ((frame_state *)data)->done = true;
}
static void fr_failed(void *data, struct zwlr_screencopy_frame_v1 *f) {
    (void)f;
    frame_state *s = data;
    s->failed = s->done = true;
}
static const struct zwlr_screencopy_frame_v1_listener frame_listener = {
    .buffer = fr_buffer, .flags = fr_flags, .ready = fr_ready, .failed = fr_failed};

/* A shared-memory buffer of size bytes: the fd is closed once the
 * compositor holds its own reference (the pool). */
typedef struct {
    struct wl_buffer *buf;
    uint8_t *map;
    size_t size;
} shm_buffer;

static pg_err shm_buffer_new(pg_platform *p, const frame_state *f, shm_buffer *out, pg_error *e) {
    out->size = (size_t)f->stride * f->height;
    int fd = memfd_create("pixelgate-screencopy", MFD_CLOEXEC);
    if (fd < 0) return pg_error_set(e, PG_E_INTERNAL, NULL, "memfd_create: %s", strerror(errno));
    if (ftruncate(fd, (off_t)out->size) != 0) {
        close(fd);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "ftruncate %zu bytes: %s", out->size, strerror(errno));
    }
    out->map = mmap(NULL, out->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (out->map == MAP_FAILED) {
        close(fd);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "mmap %zu bytes: %s", out->size, strerror(errno));
    }
    struct wl_shm_pool *pool = wl_shm_create_pool(p->shm, fd, (int32_t)out->size);
    out->buf = wl_shm_pool_create_buffer(pool, 0, (int32_t)f->width, (int32_t)f->height, (int32_t)f->stride,
                                         f->format);
    wl_shm_pool_destroy(pool);
    close(fd);
    return PG_OK;
}

static void shm_buffer_free(shm_buffer *b) {
    if (b->buf) wl_buffer_destroy(b->buf);
    if (b->map && b->map != MAP_FAILED) munmap(b->map, b->size);
}

/* wl_shm's 32-bit formats, in memory order on a little-endian machine:
 * [X|A]RGB8888 is B,G,R,X; [X|A]BGR8888 is R,G,B,X. */
static bool swaps_rb(uint32_t format, bool *ok) {
    *ok = true;
    switch (format) {
    case WL_SHM_FORMAT_ARGB8888:
    case WL_SHM_FORMAT_XRGB8888: return true;
    case WL_SHM_FORMAT_ABGR8888:
    case WL_SHM_FORMAT_XBGR8888: return false;
    default: *ok = false; return false;
    }
}

/* Copies the frame's w x h pixels into dst at (dx, dy), RGBA, alpha 255. */
static void blit(const frame_state *f, const uint8_t *src, bool swap, uint8_t *dst, size_t dst_stride, uint32_t dx,
                 uint32_t dy) {
    bool invert = f->flags & ZWLR_SCREENCOPY_FRAME_V1_FLAGS_Y_INVERT;
    for (uint32_t y = 0; y < f->height; y++) {
        const uint8_t *s = src + (size_t)(invert ? f->height - 1 - y : y) * f->stride;
        uint8_t *d = dst + (size_t)(dy + y) * dst_stride + (size_t)dx * 4;
        for (uint32_t x = 0; x < f->width; x++, s += 4, d += 4) {
            d[0] = swap ? s[2] : s[0];
            d[1] = s[1];
            d[2] = swap ? s[0] : s[2];
            d[3] = 255;
        }
    }
}

/* Output o's pixels of r (output-local logical coordinates), into dst at
 * (dx, dy). Scale 1 only: a scaled output's buffer is in its own pixels. */
static pg_err grab_output(pg_platform *p, wlr_output *o, pg_rect r, uint8_t *dst, size_t dst_stride, uint32_t dx,
                          uint32_t dy, pg_error *e) {
    frame_state st = {0};
    struct zwlr_screencopy_frame_v1 *f = zwlr_screencopy_manager_v1_capture_output_region(
        p->copier, 0, o->o, r.x, r.y, (int32_t)r.w, (int32_t)r.h);
    zwlr_screencopy_frame_v1_add_listener(f, &frame_listener, &st);
    pg_err rc = wlr_pump(p, &st.have_buffer, WLR_REPLY_MS, e);
    bool ok = false;
    bool swap = rc ? false : swaps_rb(st.format, &ok);
    if (!rc && (!ok || st.width != r.w || st.height != r.h || st.stride < st.width * 4))
        rc = pg_error_set(e, PG_E_UNSUPPORTED, "run the output at scale 1, untransformed",
                          "the compositor offered a %ux%u buffer in format 0x%x for a %ux%u region", st.width,
                          st.height, st.format, (unsigned)r.w, (unsigned)r.h);
    shm_buffer b = {0};
    if (!rc) rc = shm_buffer_new(p, &st, &b, e);
    if (!rc) {
        zwlr_screencopy_frame_v1_copy(f, b.buf);
        rc = wlr_pump(p, &st.done, WLR_REPLY_MS, e);
    }
    if (!rc && st.failed)
        rc = pg_error_set(e, PG_E_INTERNAL, "retry; the output may have changed", "the compositor failed the copy");
    if (!rc) blit(&st, b.map, swap, dst, dst_stride, dx, dy);
    shm_buffer_free(&b);
    zwlr_screencopy_frame_v1_destroy(f);
    return rc;
}

bool wlr_intersect(pg_rect a, pg_rect b, pg_rect *out) {
    int64_t x0 = a.x > b.x ? a.x : b.x, y0 = a.y > b.y ? a.y : b.y;
    int64_t x1 = (int64_t)a.x + a.w < (int64_t)b.x + b.w ? (int64_t)a.x + a.w : (int64_t)b.x + b.w;
    int64_t y1 = (int64_t)a.y + a.h < (int64_t)b.y + b.h ? (int64_t)a.y + a.h : (int64_t)b.y + b.h;
    if (x1 <= x0 || y1 <= y0) return false;
    *out = (pg_rect){(int32_t)x0, (int32_t)y0, (uint32_t)(x1 - x0), (uint32_t)(y1 - y0)};
    return true;
}

static pg_rect output_rect(const wlr_output *o) {
    int32_t s = o->scale > 0 ? o->scale : 1;
    return (pg_rect){o->x, o->y, (uint32_t)(o->mode_w / s), (uint32_t)(o->mode_h / s)};
}

pg_err wlr_grab(pg_platform *p, pg_rect r, pg_capture *out, pg_error *e) {
    if (r.w > PG_WLR_MAX_DIM || r.h > PG_WLR_MAX_DIM)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "a %ux%u capture is over the limit", (unsigned)r.w, (unsigned)r.h);
    *out = (pg_capture){.width = r.w, .height = r.h, .stride = (size_t)r.w * 4, .origin_x = r.x, .origin_y = r.y};
    out->rgba = calloc((size_t)r.h, out->stride); /* black where no output is */
    if (!out->rgba) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for %ux%u", (unsigned)r.w, (unsigned)r.h);
    for (size_t i = 0; i < out->height * out->stride; i += 4) out->rgba[i + 3] = 255;
    pg_err rc = PG_OK;
    for (size_t i = 0; i < p->n_out && !rc; i++) {
        pg_rect o = output_rect(&p->out[i]), part;
        if (!wlr_intersect(o, r, &part)) continue;
        if (p->out[i].scale > 1 || p->out[i].transform != WL_OUTPUT_TRANSFORM_NORMAL)
            rc = pg_error_set(e, PG_E_UNSUPPORTED, "run the output at scale 1, untransformed",
                              "output %zu is scaled %d or transformed %d", i, (int)p->out[i].scale,
                              (int)p->out[i].transform);
        else
            rc = grab_output(p, &p->out[i], (pg_rect){part.x - o.x, part.y - o.y, part.w, part.h}, out->rgba,
                             out->stride, (uint32_t)(part.x - r.x), (uint32_t)(part.y - r.y), e);
    }
    snprintf(out->method, sizeof out->method, "wlr-screencopy");
    if (rc) free(out->rgba), out->rgba = NULL;
    return rc;
}

pg_err wlr_capture_screen(pg_platform *p, const pg_rect *region, pg_capture *out, pg_error *e) {
    pg_rect box = wlr_layout_box(p), r = box;
    if (!box.w) return pg_error_set(e, PG_E_UNSUPPORTED, NULL, "the compositor at %s has no output", p->display);
    if (region && !wlr_intersect(box, *region, &r))
        return pg_error_set(e, PG_E_BADINPUT, NULL, "the region lies outside the screen");
    return wlr_grab(p, r, out, e);
}

/* The window's content rect on t (layout coordinates), clipped to region. */
static pg_err window_rect(const wlr_tree *t, uint64_t id, const pg_rect *region, pg_rect *r, pg_error *e) {
    const pg_window *w = NULL;
    pg_err rc = wlr_tree_find(t, id, &w, e);
    if (rc) return rc;
    if (!w->visible)
        return pg_error_set(e, PG_E_NOTFOUND, "focus the window to show its workspace, then retry",
                            "window %llu is not on a visible workspace", (unsigned long long)id);
    *r = (pg_rect){w->x, w->y, w->width, w->height};
    if (!region) return PG_OK;
    pg_rect want = {w->x + region->x, w->y + region->y, region->w, region->h};
    if (!wlr_intersect(*r, want, r)) return pg_error_set(e, PG_E_BADINPUT, NULL, "the region lies outside the window");
    return PG_OK;
}

/* Where the window's pixels are, checked uncovered: one read of the tree. */
static pg_err placed(pg_platform *p, uint64_t id, const pg_rect *region, pg_rect *r, pg_error *e) {
    wlr_tree t;
    pg_err rc = wlr_tree_read(p, &t, e);
    if (!rc) rc = window_rect(&t, id, region, r, e);
    if (!rc) rc = wlr_tree_uncovered(&t, id, *r, e);
    wlr_tree_free(&t);
    return rc;
}

pg_err wlr_capture_window(pg_platform *p, uint64_t id, const pg_rect *region, pg_capture *out, pg_error *e) {
    pg_rect r;
    pg_err rc = placed(p, id, region, &r, e);
    return rc ? rc : wlr_grab(p, r, out, e);
}

/* FNV-1a over the pixels: which picture a window showed, for settle. */
static uint64_t picture_hash(const pg_capture *c) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < c->stride * c->height; i++) h = (h ^ c->rgba[i]) * 0x100000001b3ull;
    return h;
}

/* One look at the window for settle: its picture now, and since when it
 * has shown that picture as far as this handle saw (p->seen: the last
 * look, kept between calls, so a window still showing what the previous
 * call saw counts the time since then). */
static pg_err look(pg_platform *p, uint64_t id, double *since, pg_error *e) {
    pg_rect r;
    pg_capture now = {0};
    pg_err rc = placed(p, id, NULL, &r, e);
    if (!rc) rc = wlr_grab(p, r, &now, e);
    if (rc) return rc;
    uint64_t h = picture_hash(&now);
    free(now.rgba);
    bool same = p->seen.id == id && p->seen.hash == h && !memcmp(&p->seen.r, &r, sizeof r);
    if (!same) p->seen = (wlr_seen){.id = id, .r = r, .hash = h, .since = pg_mono_ms()};
    *since = p->seen.since;
    return PG_OK;
}

/* Quiet: the window has shown the same picture for quiet_ms, looked at
 * every SETTLE_STEP_MS (and at the last call's look, when it was this
 * window: the repaints in between would be missed by sampling anyway). */
pg_err wlr_settle(pg_platform *p, uint64_t id, uint32_t quiet_ms, uint32_t timeout_ms, pg_error *e) {
    pg_deadline end = pg_deadline_in_ms(timeout_ms);
    for (;;) {
        double since;
        pg_err rc = look(p, id, &since, e);
        if (rc) return rc;
        if (pg_mono_ms() - since >= quiet_ms) return PG_OK;
        if (pg_deadline_passed(end))
            return pg_error_set(e, PG_E_TIMEOUT, "the window keeps repainting (an animation?); wait longer or assert anyway",
                                "window %llu did not stop repainting for %u ms within %u ms", (unsigned long long)id,
                                (unsigned)quiet_ms, (unsigned)timeout_ms);
        pg_sleep_ms(SETTLE_STEP_MS);
    }
}
