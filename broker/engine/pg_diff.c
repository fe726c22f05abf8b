/* SPDX-License-Identifier: MIT */
/* pixelmatch-compatible comparison, both generations. The colour maths
 * mirrors pixelmatch 7.2.0 (YIQ) and 8.0.0 (OKLab, in pg_oklab.c) operation
 * by operation (IEEE doubles, same association order, built with
 * -ffp-contract=off) so counts agree exactly; the speed comes from skipping
 * identical rows and 64-byte blocks, running the antialiasing detector only
 * for pixels over the threshold, and testing alpha only where pixels differ
 * (opaque pixels never enter the blending code). */
#include "pg_diff.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pg_oklab.h"
#include "pg_regions.h"

/* YIQ weights and the delta's scale, as published (Kotsarenko & Ramos). */
#define Y_R 0.29889531
#define Y_G 0.58662247
#define Y_B 0.11448223
#define I_R 0.59597799
#define I_G 0.27417610
#define I_B 0.32180189
#define Q_R 0.21147017
#define Q_G 0.52261711
#define Q_B 0.31114694
#define MAX_YIQ_DELTA 35215.0

typedef struct {
    uint32_t x0, x1; /* [x0, x1) */
} span;

typedef struct {
    pg_img a, b;  /* views of the compared area */
    uint32_t w, h;
    double max_delta; /* yiq: squared YIQ distance; oklab: HyAB distance */
    bool include_aa, checker, oklab;
    double alpha;
    pg_oklab *ok; /* oklab only */
    pg_img *out;
    uint32_t grey_from; /* rows from here on have their grey drawn by diff_rows' helper */
    pg_img_rect *masks; /* compared-area coordinates, sorted by x */
    size_t n_masks;
    span *open, *shut; /* per-row scratch: unmasked and masked spans */
    pg_regions reg;
    uint64_t changed, aa, total;
    uint32_t run_x0, run_x1; /* pending run of changed pixels; run_x1 = UINT32_MAX: none */
} diff_ctx;

void pg_diff_opts_init(pg_diff_opts *o) {
    memset(o, 0, sizeof *o);
    o->threshold = 0.1;
    o->metric = PG_DIFF_YIQ;
    o->checkerboard = true; /* pixelmatch 7.1+'s default */
    o->alpha = 0.1;
}

static inline uint32_t load32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* ---- pixelmatch 7.2: YIQ ---- */

/* pixelmatch 7's background for translucent pixels at byte offset k. */
static void background(uint64_t k, bool checker, int *rb, int *gb, int *bb) {
    if (!checker) {
        *rb = *gb = *bb = 255;
        return;
    }
    /* JS: 48 + 159 * ((k / phi | 0) % 2), with ToInt32 wrap-around kept. */
    int32_t g = (int32_t)(uint32_t)(uint64_t)(int64_t)((double)k / 1.618033988749895);
    int32_t b = (int32_t)(uint32_t)(uint64_t)(int64_t)((double)k / 2.618033988749895);
    *rb = 48 + 159 * (int)(k % 2);
    *gb = 48 + 159 * (g % 2);
    *bb = 48 + 159 * (b % 2);
}

/* Channel differences of two pixels, blended when either is translucent. */
static void pixel_diff(const uint8_t *p, const uint8_t *q, uint64_t k, bool checker, double *dr, double *dg,
                       double *db) {
    int r1 = p[0], g1 = p[1], b1 = p[2], a1 = p[3];
    int r2 = q[0], g2 = q[1], b2 = q[2], a2 = q[3];
    if (a1 < 255 || a2 < 255) {
        int rb, gb, bb, da = a1 - a2;
        background(k, checker, &rb, &gb, &bb);
        *dr = (double)(r1 * a1 - r2 * a2 - rb * da) / 255;
        *dg = (double)(g1 * a1 - g2 * a2 - gb * da) / 255;
        *db = (double)(b1 * a1 - b2 * a2 - bb * da) / 255;
    } else {
        *dr = r1 - r2;
        *dg = g1 - g2;
        *db = b1 - b2;
    }
}

/* Squared YIQ distance, negative when b's pixel is darker (pixelmatch's sign). */
static double color_delta(const uint8_t *p, const uint8_t *q, uint64_t k, bool checker) {
    double dr, dg, db;
    pixel_diff(p, q, k, checker, &dr, &dg, &db);
    double y = dr * Y_R + dg * Y_G + db * Y_B;
    double i = dr * I_R - dg * I_G - db * I_B;
    double q2 = dr * Q_R - dg * Q_G + db * Q_B;
    double delta = 0.5053 * y * y + 0.299 * i * i + 0.1957 * q2 * q2;
    return y > 0 ? -delta : delta;
}

/* ---- pixelmatch 8: OKLab ---- */

/* pixelmatch 8's background at byte offset k: three bits of a Fibonacci hash
 * of the pixel index (JS: Math.imul(k >> 2, 0x9e3779b1), k >> 2 on the
 * 32-bit wrapped offset). */
static void background8(uint64_t k, bool checker, int *rb, int *gb, int *bb) {
    if (!checker) {
        *rb = *gb = *bb = 255;
        return;
    }
    uint32_t u = (uint32_t)k, idx = u >> 2 | (u & 0x80000000u ? 0xc0000000u : 0);
    uint32_t h = idx * 0x9e3779b1u;
    *rb = 48 + 159 * (int)(h >> 31);
    *gb = 48 + 159 * (int)(h >> 30 & 1);
    *bb = 48 + 159 * (int)(h >> 29 & 1);
}

/* Over the HyAB threshold? 0 if not, else pixelmatch 8's sign. Translucent
 * pairs are composited (each pixel over the background) before conversion.
 * Kept out of line so that the YIQ scan loop stays as small as it was. */
__attribute__((noinline)) static int oklab_delta(pg_oklab *ok, const uint8_t *p, const uint8_t *q, uint64_t k,
                                                 bool checker, double max) {
    pg_oklab_px x, y;
    if ((p[3] & q[3]) == 255) {
        pg_oklab_rgb8(ok, p, &x);
        pg_oklab_rgb8(ok, q, &y);
    } else {
        int bg[3], a1 = p[3], a2 = q[3];
        background8(k, checker, &bg[0], &bg[1], &bg[2]);
        double c1[3], c2[3];
        for (int i = 0; i < 3; i++) {
            c1[i] = (double)(p[i] * a1 + bg[i] * (255 - a1)) / 255;
            c2[i] = (double)(q[i] * a2 + bg[i] * (255 - a2)) / 255;
        }
        pg_oklab_rgbf(ok, c1[0], c1[1], c1[2], &x);
        pg_oklab_rgbf(ok, c2[0], c2[1], c2[2], &y);
    }
    return pg_oklab_exceeds(&x, &y, max);
}

/* ---- antialiasing detector (both generations) ---- */

static inline const uint8_t *px(const pg_img *img, uint32_t x, uint32_t y) {
    return img->px + (size_t)y * img->stride + (size_t)x * 4;
}

/* Does (x1,y1) have 3+ identical neighbours (the image border counts as one)? */
static bool many_siblings(const pg_img *img, uint32_t x1, uint32_t y1) {
    uint32_t x0 = x1 ? x1 - 1 : 0, y0 = y1 ? y1 - 1 : 0;
    uint32_t x2 = x1 + 1 < img->width ? x1 + 1 : x1, y2 = y1 + 1 < img->height ? y1 + 1 : y1;
    uint32_t val = load32(px(img, x1, y1));
    int zeroes = (x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2) ? 1 : 0;
    for (uint32_t x = x0; x <= x2; x++)
        for (uint32_t y = y0; y <= y2; y++) {
            if (x == x1 && y == y1) continue;
            zeroes += load32(px(img, x, y)) == val;
            if (zeroes > 2) return true;
        }
    return false;
}

/* Brightness-only deltas (luma of the blended difference) of the centre c
 * against its neighbours nb[0..n), in the order given; k is c's offset, whose
 * background pixelmatch 7 uses for every neighbour. When all are opaque no
 * blending applies and the delta is the plain weighted difference (identical
 * pixels give exactly 0, as pixelmatch's early return does), computed
 * without branches. Otherwise each neighbour takes pixelmatch's branches;
 * pixelmatch 8 always blends over white and, when that luma cancels out but
 * alpha differs, lets half the alpha step give the direction. */
static void neighbour_deltas(const uint8_t *c, const uint8_t *const *nb, int n, uint64_t k, bool checker,
                             bool gen8, double *d) {
    unsigned opaque = c[3];
    for (int i = 0; i < n; i++) opaque &= nb[i][3];
    if (opaque == 255) {
        for (int i = 0; i < n; i++)
            d[i] = (double)(c[0] - nb[i][0]) * Y_R + (double)(c[1] - nb[i][1]) * Y_G + (double)(c[2] - nb[i][2]) * Y_B;
        return;
    }
    int rb = 255, gb = 255, bb = 255, ca = c[3];
    if (!gen8) background(k, checker, &rb, &gb, &bb);
    for (int i = 0; i < n; i++) {
        const uint8_t *q = nb[i];
        if (load32(c) == load32(q)) {
            d[i] = 0;
            continue;
        }
        int da = ca - q[3];
        double dr = c[0] - q[0], dg = c[1] - q[1], db = c[2] - q[2];
        if ((ca & q[3]) != 255) {
            dr = (double)(c[0] * ca - q[0] * q[3] - rb * da) / 255;
            dg = (double)(c[1] * ca - q[1] * q[3] - gb * da) / 255;
            db = (double)(c[2] * ca - q[2] * q[3] - bb * da) / 255;
        }
        double v = dr * Y_R + dg * Y_G + db * Y_B;
        d[i] = gen8 && v == 0 && da ? da / 2.0 : v;
    }
}

/* pixelmatch's antialiasing detector for the pixel of img at (x1,y1); the
 * sibling test looks at both compared images a and b. Neighbours are visited
 * column by column (x outer) because ties keep the first extreme found. */
static bool antialiased(const pg_img *img, const pg_img *a, const pg_img *b, uint32_t x1, uint32_t y1,
                        bool checker, bool gen8) {
    uint32_t x0 = x1 ? x1 - 1 : 0, y0 = y1 ? y1 - 1 : 0;
    uint32_t x2 = x1 + 1 < img->width ? x1 + 1 : x1, y2 = y1 + 1 < img->height ? y1 + 1 : y1;
    const uint8_t *nb[8];
    uint32_t nx[8], ny[8];
    int n = 0;
    for (uint32_t x = x0; x <= x2; x++)
        for (uint32_t y = y0; y <= y2; y++) {
            if (x == x1 && y == y1) continue;
            nb[n] = px(img, x, y), nx[n] = x, ny[n] = y, n++;
        }
    double d[8];
    neighbour_deltas(px(img, x1, y1), nb, n, ((uint64_t)y1 * img->width + x1) * 4, checker, gen8, d);
    int zeroes = (x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2) ? 1 : 0;
    double min = 0, max = 0;
    int imin = -1, imax = -1;
    for (int i = 0; i < n; i++) {
        if (d[i] == 0) {
            if (++zeroes > 2) return false;
        } else if (d[i] < min) {
            min = d[i], imin = i;
        } else if (d[i] > max) {
            max = d[i], imax = i;
        }
    }
    if (imin < 0 || imax < 0) return false; /* no darker or no brighter neighbour */
    return (many_siblings(a, nx[imin], ny[imin]) && many_siblings(b, nx[imin], ny[imin])) ||
           (many_siblings(a, nx[imax], ny[imax]) && many_siblings(b, nx[imax], ny[imax]));
}

/* ---- diff image ---- */

static void draw(uint8_t *o, uint8_t r, uint8_t g, uint8_t b) {
    o[0] = r;
    o[1] = g;
    o[2] = b;
    o[3] = 255;
}

/* pixelmatch's faded grey of a's pixels, truncated as a Uint8Array stores it. */
static void draw_grey_row(const uint8_t *a, uint32_t w, double alpha, uint8_t *o) {
    for (uint32_t x = 0; x < w; x++) {
        const uint8_t *p = a + 4 * (size_t)x;
        double y = p[0] * Y_R + p[1] * Y_G + p[2] * Y_B;
        uint8_t v = (uint8_t)(int)(255 + (y - 255) * alpha * p[3] / 255);
        draw(o + 4 * (size_t)x, v, v, v);
    }
}

static void tint_masked(uint8_t *o, const span *s) {
    for (uint32_t x = s->x0; x < s->x1; x++) {
        o[4 * x] = (uint8_t)(o[4 * x] * 3 / 4);
        o[4 * x + 1] = (uint8_t)(o[4 * x + 1] * 3 / 4);
    }
}

/* ---- masks ---- */

static int mask_cmp(const void *pa, const void *pb) {
    const pg_img_rect *a = pa, *b = pb;
    if (a->x != b->x) return a->x < b->x ? -1 : 1;
    if (a->y != b->y) return a->y < b->y ? -1 : 1;
    if (a->w != b->w) return a->w < b->w ? -1 : 1;
    return a->h < b->h ? -1 : a->h > b->h;
}

/* Split row y into unmasked (open) and masked (shut) spans; returns the
 * number of open spans, *n_shut the masked ones. Masks are sorted by x. */
static size_t row_spans(const diff_ctx *c, uint32_t y, size_t *n_shut) {
    size_t no = 0, ns = 0;
    uint32_t x = 0; /* first column not yet covered */
    for (size_t i = 0; i < c->n_masks; i++) {
        const pg_img_rect *m = &c->masks[i];
        if (y < m->y || y >= m->y + m->h || m->x + m->w <= x) continue;
        if (m->x > x) c->open[no++] = (span){x, m->x};
        uint32_t from = m->x > x ? m->x : x;
        if (ns && c->shut[ns - 1].x1 == from) c->shut[ns - 1].x1 = m->x + m->w;
        else c->shut[ns++] = (span){from, m->x + m->w};
        x = m->x + m->w;
    }
    if (x < c->w) c->open[no++] = (span){x, c->w};
    *n_shut = ns;
    return no;
}

/* Validate masks against the image and clip them to the compared area. */
static pg_err prepare_masks(diff_ctx *c, const pg_img *img, const pg_img_rect *area, const pg_diff_opts *o,
                            pg_error *e) {
    if (o->n_masks > PG_DIFF_MAX_MASKS)
        return pg_error_set(e, PG_E_USAGE, NULL, "%llu masks given, at most %d allowed",
                            (unsigned long long)o->n_masks, PG_DIFF_MAX_MASKS);
    c->masks = malloc(sizeof *c->masks * (o->n_masks + 1));
    c->open = malloc(sizeof *c->open * (o->n_masks + 2));
    c->shut = malloc(sizeof *c->shut * (o->n_masks + 2));
    if (!c->masks || !c->open || !c->shut) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    for (size_t i = 0; i < o->n_masks; i++) {
        pg_img_rect m = o->masks[i];
        if (m.w == 0 || m.h == 0 || m.x >= img->width || m.y >= img->height)
            return pg_error_set(e, PG_E_USAGE, "give masks inside the image",
                                "mask %llu (%u,%u,%u,%u) is empty or outside the %ux%u image",
                                (unsigned long long)i + 1, m.x, m.y, m.w, m.h, img->width, img->height);
        uint64_t x0 = m.x > area->x ? m.x : area->x, y0 = m.y > area->y ? m.y : area->y;
        uint64_t x1 = (uint64_t)m.x + m.w, y1 = (uint64_t)m.y + m.h;
        if (x1 > (uint64_t)area->x + area->w) x1 = (uint64_t)area->x + area->w;
        if (y1 > (uint64_t)area->y + area->h) y1 = (uint64_t)area->y + area->h;
        if (x0 >= x1 || y0 >= y1) continue; /* outside the region: nothing to hide */
        c->masks[c->n_masks++] =
            (pg_img_rect){(uint32_t)(x0 - area->x), (uint32_t)(y0 - area->y), (uint32_t)(x1 - x0), (uint32_t)(y1 - y0)};
    }
    qsort(c->masks, c->n_masks, sizeof *c->masks, mask_cmp);
    return PG_OK;
}

/* ---- the scan ---- */

static void flush_run(diff_ctx *c) {
    if (c->run_x1 == UINT32_MAX) return;
    pg_regions_add_run(&c->reg, c->run_x0, c->run_x1);
    c->run_x1 = UINT32_MAX;
}

static void mark_changed(diff_ctx *c, uint32_t x) {
    if (c->run_x1 != UINT32_MAX && c->run_x1 + 1 == x) {
        c->run_x1 = x;
        return;
    }
    flush_run(c);
    c->run_x0 = c->run_x1 = x;
}

static bool over_threshold(const diff_ctx *c, const uint8_t *p, const uint8_t *q, uint64_t k) {
    if (c->oklab) return oklab_delta(c->ok, p, q, k, c->checker, c->max_delta) != 0;
    return fabs(color_delta(p, q, k, c->checker)) > c->max_delta;
}

static void judge_pixel(diff_ctx *c, uint32_t x, uint32_t y, const uint8_t *p, const uint8_t *q, uint8_t *o) {
    if (!over_threshold(c, p, q, ((uint64_t)y * c->w + x) * 4)) return;
    if (!c->include_aa && (antialiased(&c->a, &c->a, &c->b, x, y, c->checker, c->oklab) ||
                           antialiased(&c->b, &c->b, &c->a, x, y, c->checker, c->oklab))) {
        c->aa++;
        if (o) draw(o + 4 * (size_t)x, 255, 255, 0);
        return;
    }
    c->changed++;
    if (o) draw(o + 4 * (size_t)x, 255, 0, 0);
    mark_changed(c, x);
}

/* Any difference among 16 pixels? Eight 64-bit XORs: cheap and branch-free. */
static inline bool block_differs(const uint8_t *p, const uint8_t *q) {
    uint64_t acc = 0;
    for (int i = 0; i < 8; i++) {
        uint64_t u, v;
        memcpy(&u, p + 8 * i, 8);
        memcpy(&v, q + 8 * i, 8);
        acc |= u ^ v;
    }
    return acc != 0;
}

static void scan_span(diff_ctx *c, uint32_t y, const span *s, const uint8_t *pa, const uint8_t *pb, uint8_t *po) {
    uint32_t x = s->x0;
    for (; x + 16 <= s->x1; x += 16) {
        if (!block_differs(pa + 4 * (size_t)x, pb + 4 * (size_t)x)) continue;
        for (uint32_t i = x; i < x + 16; i++)
            if (load32(pa + 4 * (size_t)i) != load32(pb + 4 * (size_t)i)) judge_pixel(c, i, y, pa + 4 * (size_t)i, pb + 4 * (size_t)i, po);
    }
    for (; x < s->x1; x++)
        if (load32(pa + 4 * (size_t)x) != load32(pb + 4 * (size_t)x)) judge_pixel(c, x, y, pa + 4 * (size_t)x, pb + 4 * (size_t)x, po);
}

static void diff_row(diff_ctx *c, uint32_t y) {
    const uint8_t *pa = pg_img_row(&c->a, y), *pb = pg_img_row(&c->b, y);
    uint8_t *po = c->out ? pg_img_row(c->out, y) : NULL;
    size_t n_shut, n_open = row_spans(c, y, &n_shut);
    for (size_t i = 0; i < n_open; i++) c->total += c->open[i].x1 - c->open[i].x0;
    if (po) {
        if (y < c->grey_from) draw_grey_row(pa, c->w, c->alpha, po);
        for (size_t i = 0; i < n_shut; i++) tint_masked(po, &c->shut[i]);
    }
    if (memcmp(pa, pb, (size_t)c->w * 4) == 0) return; /* the common case: row unchanged */
    pg_regions_begin_row(&c->reg, y);
    for (size_t i = 0; i < n_open; i++) scan_span(c, y, &c->open[i], pa, pb, po);
    flush_run(c);
    pg_regions_end_row(&c->reg);
}

/* ---- entry ---- */

static pg_err check_opts(const pg_diff_opts *o, pg_error *e) {
    if (!(o->threshold >= 0 && o->threshold <= 1))
        return pg_error_set(e, PG_E_USAGE, NULL, "threshold %g is not within 0..1", o->threshold);
    if (!(o->alpha >= 0 && o->alpha <= 1))
        return pg_error_set(e, PG_E_USAGE, NULL, "diff alpha %g is not within 0..1", o->alpha);
    if (o->n_masks && !o->masks) return pg_error_set(e, PG_E_USAGE, NULL, "mask count without masks");
    if (o->metric != PG_DIFF_YIQ && o->metric != PG_DIFF_OKLAB)
        return pg_error_set(e, PG_E_USAGE, "use the metric yiq or oklab", "unknown diff metric %d", (int)o->metric);
    return PG_OK;
}

static void fill_result(diff_ctx *c, const pg_img_rect *area, pg_diff_result *r, pg_region_info *info, size_t n,
                        uint64_t count, pg_img_rect bounds) {
    r->pixels_changed = c->changed;
    r->pixels_aa = c->aa;
    r->total_pixels = c->total;
    r->changed_pct = 100.0 * (double)c->changed / (double)c->total;
    r->region_count = count;
    r->regions_len = n;
    r->has_bounds = count > 0;
    if (count) r->bounds = (pg_img_rect){bounds.x + area->x, bounds.y + area->y, bounds.w, bounds.h};
    for (size_t i = 0; i < n; i++) {
        pg_img_rect b = info[i].box;
        r->regions[i] = (pg_diff_region){{b.x + area->x, b.y + area->y, b.w, b.h}, info[i].pixels};
    }
}

/* pixelmatch 8's windowSize: its N is clamped to the compared area. */
static pg_err window_count(diff_ctx *c, uint32_t asked, pg_diff_result *r, pg_error *e) {
    if (!asked) return PG_OK;
    uint32_t n = asked < c->w ? asked : c->w;
    if (n > c->h) n = c->h;
    r->window_size = n;
    return pg_regions_max_window(&c->reg, c->w, c->h, n, &r->max_window_changed, e);
}

/* The faded grey of a large diff image is most of a diff's own time (a
 * 1080p one: 2 M pixels of floating point): the lower half is drawn on a
 * helper thread while this one compares the upper half, and compared once
 * the helper is done (the marks of a row go over its grey). */
#define GREY_SPLIT_MIN_PIXELS (1u << 20)

typedef struct {
    const diff_ctx *c;
    uint32_t y0, y1;
} grey_job;

static void *grey_rows(void *arg) {
    const grey_job *j = arg;
    for (uint32_t y = j->y0; y < j->y1; y++)
        draw_grey_row(pg_img_row(&j->c->a, y), j->c->w, j->c->alpha, pg_img_row(j->c->out, y));
    return NULL;
}

static void diff_rows(diff_ctx *c) {
    uint32_t half = c->h / 2;
    grey_job job = {c, half, c->h};
    pthread_t helper;
    c->grey_from = c->h;
    bool split = c->out && (uint64_t)c->w * c->h >= GREY_SPLIT_MIN_PIXELS &&
                 pthread_create(&helper, NULL, grey_rows, &job) == 0;
    if (split) c->grey_from = half;
    for (uint32_t y = 0; y < c->h; y++) {
        if (split && y == half) pthread_join(helper, NULL);
        diff_row(c, y);
    }
}

static pg_err run_diff(diff_ctx *c, const pg_img_rect *area, uint32_t window, pg_diff_result *r, pg_error *e) {
    diff_rows(c);
    if (c->total == 0)
        return pg_error_set(e, PG_E_USAGE, "shrink the masks: a fully masked comparison proves nothing",
                            "the masks cover the whole compared area");
    pg_region_info info[PG_DIFF_MAX_REGIONS];
    size_t n;
    uint64_t count;
    pg_img_rect bounds = {0, 0, 0, 0};
    pg_err rc = window_count(c, window, r, e);
    if (!rc) rc = pg_regions_finish(&c->reg, info, PG_DIFF_MAX_REGIONS, &n, &count, &bounds, e);
    if (!rc) fill_result(c, area, r, info, n, count, bounds);
    return rc;
}

pg_err pg_diff(const pg_img *a, const pg_img *b, const pg_diff_opts *opts, pg_diff_result *r, pg_img **diff,
               pg_error *e) {
    pg_diff_opts d;
    if (!opts) pg_diff_opts_init(&d);
    const pg_diff_opts *o = opts ? opts : &d;
    memset(r, 0, sizeof *r);
    if (diff) *diff = NULL;
    *r = (pg_diff_result){.width_a = a->width, .height_a = a->height, .width_b = b->width, .height_b = b->height};
    pg_err rc = check_opts(o, e);
    if (rc) return rc;
    if (a->width != b->width || a->height != b->height)
        return pg_error_set(e, PG_E_ASSERT, "compare captures of the same size; pixelgate never scales",
                            "image sizes differ: %ux%u vs %ux%u", a->width, a->height, b->width, b->height);
    r->sizes_match = true;
    pg_img_rect area = o->region ? *o->region : (pg_img_rect){0, 0, a->width, a->height};
    bool oklab = o->metric == PG_DIFF_OKLAB;
    diff_ctx c = {.max_delta = oklab ? o->threshold : MAX_YIQ_DELTA * o->threshold * o->threshold,
                  .include_aa = o->include_aa, .checker = o->checkerboard, .oklab = oklab, .alpha = o->alpha,
                  .run_x1 = UINT32_MAX};
    pg_regions_init(&c.reg);
    if (oklab && !(c.ok = malloc(sizeof *c.ok))) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    if (oklab) pg_oklab_init(c.ok);
    rc = pg_img_view(a, &area, &c.a, e);
    if (!rc) rc = pg_img_view(b, &area, &c.b, e);
    c.w = area.w;
    c.h = area.h;
    if (!rc) rc = prepare_masks(&c, a, &area, o, e);
    if (!rc && diff) rc = pg_img_new(&c.out, c.w, c.h, e);
    if (!rc) rc = run_diff(&c, &area, o->window_size, r, e);
    pg_regions_fini(&c.reg);
    free(c.ok);
    free(c.masks);
    free(c.open);
    free(c.shut);
    if (rc) {
        pg_img_free(c.out);
        return rc;
    }
    if (diff) *diff = c.out;
    return PG_OK;
}
