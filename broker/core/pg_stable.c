/* SPDX-License-Identifier: MIT */
/* The one "capture until the screen holds still" loop: wait-stable, accept
 * and baseline prepare --window all run it (pg_call.h, pg_stable_capture).
 * The platform lock is held per capture only, never across the sleep. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_fingerprint.h"
#include "pg_call.h"
#include "pg_time.h"

#define RING (2 * PG_STABLE_MAX_CYCLE) /* frames remembered: two turns of the longest cycle */

typedef struct {
    uint64_t sum;   /* fast content hash: a candidate for equality, confirmed by memcmp where both images are kept */
    uint64_t dhash; /* only when the comparison is by dHash */
    pg_img *img;    /* kept for the last PG_STABLE_MAX_CYCLE frames only */
} frame;

typedef struct {
    frame f[RING];
    int64_t n; /* frames seen; f[i % RING] */
} ring;

static frame *at(ring *r, int64_t back) { return &r->f[(r->n - 1 - back) % RING]; }

/* A 64-bit hash of the pixels (multiply-xorshift over 8-byte words, row by
 * row): SHA-256 of every frame of a 1080p screen would cost more than the
 * captures. Equality is settled by memcmp where both frames are kept. */
static uint64_t content_sum(const pg_img *img) {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ ((uint64_t)img->width << 32 | img->height);
    size_t row = (size_t)img->width * 4;
    for (uint32_t y = 0; y < img->height; y++) {
        const uint8_t *p = pg_img_row(img, y);
        size_t i = 0;
        for (; i + 8 <= row; i += 8) {
            uint64_t v;
            memcpy(&v, p + i, 8);
            h = (h ^ v) * 0xff51afd7ed558ccdull;
            h ^= h >> 32;
        }
        for (; i < row; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    }
    return h;
}

static bool identical(const frame *a, const frame *b) {
    if (a->sum != b->sum) return false;
    if (!a->img || !b->img) return true; /* an older frame: the 64-bit hash decides */
    if (a->img->width != b->img->width || a->img->height != b->img->height) return false;
    for (uint32_t y = 0; y < a->img->height; y++)
        if (memcmp(pg_img_row(a->img, y), pg_img_row(b->img, y), (size_t)a->img->width * 4)) return false;
    return true;
}

static bool same(const pg_stable_opts *o, const frame *a, const frame *b) {
    if (o->exact) return identical(a, b);
    return pg_fingerprint_hamming(a->dhash, b->dhash) <= PG_FINGERPRINT_DHASH_SAME;
}

/* The box of the pixels that differ between a and b (same size), grown into
 * *box; false when they are of different sizes. */
static bool grow_diff_box(const pg_img *a, const pg_img *b, pg_img_rect *box, bool *any) {
    if (a->width != b->width || a->height != b->height) return false;
    uint32_t x0 = box->x, y0 = box->y, x1 = box->x + box->w, y1 = box->y + box->h;
    for (uint32_t y = 0; y < a->height; y++) {
        const uint32_t *ra = (const uint32_t *)pg_img_row(a, y), *rb = (const uint32_t *)pg_img_row(b, y);
        for (uint32_t x = 0; x < a->width; x++) {
            if (ra[x] == rb[x]) continue;
            if (!*any) x0 = x1 = x, y0 = y1 = y, *any = true;
            if (x < x0) x0 = x;
            if (x + 1 > x1) x1 = x + 1;
            if (y < y0) y0 = y;
            if (y + 1 > y1) y1 = y + 1;
        }
    }
    if (*any) *box = (pg_img_rect){x0, y0, x1 - x0, y1 - y0};
    return true;
}

/* Is the end of the series a repeating cycle of period p (2 <= p): the last
 * p frames equal the p before them, and the frames inside the cycle are not
 * all one? Then *box covers what changes inside it. */
static bool cycle_of(ring *r, int p, pg_img_rect *box) {
    if (r->n < 2 * p) return false;
    for (int i = 0; i < p; i++)
        if (!identical(at(r, i), at(r, i + p))) return false;
    bool any = false;
    *box = (pg_img_rect){0, 0, 0, 0};
    for (int i = 0; i < p; i++) { /* each step of the cycle: frame i against the one before it */
        const pg_img *a = at(r, i)->img, *b = at(r, (i + 1) % p)->img;
        if (!a || !b || !grow_diff_box(a, b, box, &any)) return false;
    }
    return any;
}

/* The largest box a blinking caret may cover: 0.5 % of the frame, at least 256 px. */
static uint64_t caret_area(const pg_img *img) {
    uint64_t a = (uint64_t)img->width * img->height / 200;
    return a < 256 ? 256 : a;
}

static pg_err remember(const pg_stable_opts *o, ring *r, pg_img *img, pg_error *e) {
    frame *f = &r->f[r->n % RING];
    pg_img_free(f->img);
    memset(f, 0, sizeof *f);
    f->sum = content_sum(img);
    pg_err rc = o->exact ? PG_OK : pg_fingerprint_dhash(img, NULL, &f->dhash, e);
    if (rc) {
        pg_img_free(img);
        return rc;
    }
    f->img = img;
    r->n++;
    if (r->n > PG_STABLE_MAX_CYCLE) { /* only the last cycle's images are kept */
        frame *old = at(r, PG_STABLE_MAX_CYCLE);
        pg_img_free(old->img);
        old->img = NULL;
    }
    return PG_OK;
}

/* Has the series settled: `frames` frames in a row agree, or (cycles) the
 * end is a short cycle whose changes fit a caret? */
static bool settled(const pg_stable_opts *o, ring *r, pg_stable_result *res) {
    int64_t run = 1;
    while (run < r->n && run < o->frames && same(o, at(r, run - 1), at(r, run))) run++;
    if (run >= o->frames) return true;
    for (int p = 2; p <= o->max_cycle && p <= PG_STABLE_MAX_CYCLE; p++) {
        pg_img_rect box;
        if (cycle_of(r, p, &box) && (uint64_t)box.w * box.h <= caret_area(at(r, 0)->img)) {
            res->cycle = p;
            res->blink = box;
            return true;
        }
    }
    return false;
}

void pg_stable_opts_init(pg_stable_opts *o) {
    memset(o, 0, sizeof *o);
    o->frames = 2;
    o->interval_s = 0.1;
    o->timeout_s = 10;
    o->exact = true;
}

pg_err pg_stable_capture(pg_call *c, const pg_target *t, const pg_rect *region, const pg_stable_opts *o,
                         pg_stable_result *res, pg_error *e) {
    memset(res, 0, sizeof *res);
    ring r;
    memset(&r, 0, sizeof r);
    double t0 = pg_mono_ms() / 1000.0;
    pg_err rc = PG_OK;
    for (;;) {
        pg_img *img = NULL;
        rc = pg_capture_window_img(c, r.n == 0 ? t : NULL, &res->window, region, &img, res->method, e);
        if (!rc) rc = remember(o, &r, img, e);
        if (rc) break;
        res->stable = settled(o, &r, res);
        double elapsed = pg_mono_ms() / 1000.0 - t0;
        if (res->stable || (o->max_tries && r.n >= o->max_tries) || elapsed + o->interval_s > o->timeout_s) break;
        pg_sleep_ms((uint32_t)(o->interval_s * 1000));
        if ((rc = pg_call_client_gone(c, e)) != PG_OK) break; /* nobody is waiting for the answer any more */
    }
    res->observed = r.n;
    res->elapsed_s = (int)((pg_mono_ms() / 1000.0 - t0) * 1000) / 1000.0;
    if (!rc) {
        frame *last = at(&r, 0);
        res->dhash = last->dhash;
        res->last = last->img;
        last->img = NULL;
    }
    for (int i = 0; i < RING; i++) pg_img_free(r.f[i].img);
    return rc;
}
