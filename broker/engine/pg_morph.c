/* SPDX-License-Identifier: MIT */
/* Morphology by running counts: a horizontal pass with a row prefix sum,
 * then a vertical pass with per-column counts that slide down the image.
 * A pixel of the dilation is set when its window holds any set pixel; of
 * the erosion when every in-image pixel of its window is set. */
#include "pg_morph.h"

#include <stdlib.h>
#include <string.h>

#include "pg_simd.h"

typedef struct {
    uint32_t w, h, rx, ry;
    int erode;
    uint32_t *pre, *cnt; /* w+1 prefix, w column counts */
    uint8_t *mid;        /* the horizontal pass, w*h */
} morph;

static void hpass_row(const morph *m, const uint8_t *in, uint8_t *out) {
    uint32_t *p = m->pre, w = m->w;
    p[0] = 0;
    for (uint32_t x = 0; x < w; x++) p[x + 1] = p[x] + in[x];
    for (uint32_t x = 0; x < w; x++) {
        uint32_t lo = x > m->rx ? x - m->rx : 0, hi = x + m->rx + 1 < w ? x + m->rx + 1 : w;
        uint32_t c = p[hi] - p[lo];
        out[x] = (uint8_t)(m->erode ? c == hi - lo : c > 0);
    }
}

PG_CLONES static void col_add(uint32_t *restrict cnt, const uint8_t *restrict row, size_t w, int sign) {
    if (sign > 0)
        for (size_t x = 0; x < w; x++) cnt[x] += row[x];
    else
        for (size_t x = 0; x < w; x++) cnt[x] -= row[x];
}

PG_CLONES static void col_out(const uint32_t *restrict cnt, uint8_t *restrict out, size_t w, uint32_t full,
                              int erode) {
    if (erode)
        for (size_t x = 0; x < w; x++) out[x] = (uint8_t)(cnt[x] == full);
    else
        for (size_t x = 0; x < w; x++) out[x] = (uint8_t)(cnt[x] > 0);
}

static void vpass(const morph *m, uint8_t *out) {
    size_t w = m->w;
    memset(m->cnt, 0, sizeof *m->cnt * w);
    for (uint32_t y = 0; y < m->ry && y < m->h; y++) col_add(m->cnt, m->mid + y * w, w, +1);
    for (uint32_t y = 0; y < m->h; y++) {
        uint64_t in_row = (uint64_t)y + m->ry;
        if (in_row < m->h) col_add(m->cnt, m->mid + in_row * w, w, +1);
        if (y > m->ry) col_add(m->cnt, m->mid + (size_t)(y - m->ry - 1) * w, w, -1);
        uint32_t lo = y > m->ry ? y - m->ry : 0;
        uint32_t hi = in_row + 1 < m->h ? (uint32_t)in_row + 1 : m->h;
        col_out(m->cnt, out + (size_t)y * w, w, hi - lo, m->erode);
    }
}

static pg_err run(const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h, uint32_t rx, uint32_t ry, int erode,
                  pg_error *e) {
    morph m = {w, h, rx, ry, erode, malloc(sizeof(uint32_t) * ((size_t)w + 1)), malloc(sizeof(uint32_t) * w),
               malloc((size_t)w * h)};
    pg_err rc = PG_OK;
    if (!m.pre || !m.cnt || !m.mid) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for morphology");
    for (uint32_t y = 0; !rc && y < h; y++) hpass_row(&m, in + (size_t)y * w, m.mid + (size_t)y * w);
    if (!rc) vpass(&m, out);
    free(m.pre), free(m.cnt), free(m.mid);
    return rc;
}

pg_err pg_morph_dilate(const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h, uint32_t rx, uint32_t ry,
                       pg_error *e) {
    return run(in, out, w, h, rx, ry, 0, e);
}

pg_err pg_morph_erode(const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h, uint32_t rx, uint32_t ry,
                      pg_error *e) {
    return run(in, out, w, h, rx, ry, 1, e);
}

pg_err pg_morph_close(const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h, uint32_t rx, uint32_t ry,
                      pg_error *e) {
    pg_err rc = run(in, out, w, h, rx, ry, 0, e);
    return rc ? rc : run(out, out, w, h, rx, ry, 1, e);
}

/* max/min of three neighbours along a row (edges: the two that exist). */
static void row_maxmin3(const uint8_t *in, uint8_t *mx, uint8_t *mn, uint32_t w) {
    for (uint32_t x = 0; x < w; x++) {
        uint8_t a = in[x > 0 ? x - 1 : x], b = in[x], c = in[x + 1 < w ? x + 1 : x];
        uint8_t hi = a > b ? a : b, lo = a < b ? a : b;
        mx[x] = hi > c ? hi : c;
        mn[x] = lo < c ? lo : c;
    }
}

PG_CLONES static void grad_row(const uint8_t *restrict mx0, const uint8_t *restrict mx1, const uint8_t *restrict mx2,
                               const uint8_t *restrict mn0, const uint8_t *restrict mn1, const uint8_t *restrict mn2,
                               uint8_t *restrict out, size_t w) {
    for (size_t x = 0; x < w; x++) {
        uint8_t hi = mx0[x] > mx1[x] ? mx0[x] : mx1[x], lo = mn0[x] < mn1[x] ? mn0[x] : mn1[x];
        hi = hi > mx2[x] ? hi : mx2[x];
        lo = lo < mn2[x] ? lo : mn2[x];
        out[x] = (uint8_t)(hi - lo);
    }
}

pg_err pg_morph_gradient(const uint8_t *grey, uint8_t *out, uint32_t w, uint32_t h, pg_error *e) {
    uint8_t *mx = malloc((size_t)w * h), *mn = malloc((size_t)w * h);
    if (!mx || !mn) {
        free(mx), free(mn);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for a gradient");
    }
    for (uint32_t y = 0; y < h; y++) row_maxmin3(grey + (size_t)y * w, mx + (size_t)y * w, mn + (size_t)y * w, w);
    for (uint32_t y = 0; y < h; y++) {
        size_t up = (size_t)(y > 0 ? y - 1 : y) * w, mid = (size_t)y * w, dn = (size_t)(y + 1 < h ? y + 1 : y) * w;
        grad_row(mx + up, mx + mid, mx + dn, mn + up, mn + mid, mn + dn, out + mid, w);
    }
    free(mx), free(mn);
    return PG_OK;
}

uint8_t pg_morph_otsu(const uint64_t hist[256]) {
    double total = 0, sum = 0;
    for (int v = 0; v < 256; v++) total += (double)hist[v], sum += (double)v * (double)hist[v];
    double w0 = 0, s0 = 0, best = -1;
    uint8_t t = 0;
    for (int v = 0; v < 255; v++) {
        w0 += (double)hist[v];
        s0 += (double)v * (double)hist[v];
        double w1 = total - w0;
        if (w0 == 0 || w1 == 0) continue;
        double d = s0 / w0 - (sum - s0) / w1;
        double between = w0 * w1 * d * d;
        if (between > best) best = between, t = (uint8_t)v;
    }
    return t;
}

pg_err pg_morph_components(const uint8_t *mask, uint32_t w, uint32_t h, uint64_t min_pixels, pg_region_info *out,
                           size_t max_out, size_t *n_out, pg_error *e) {
    pg_regions g;
    pg_regions_init(&g);
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *row = mask + (size_t)y * w;
        pg_regions_begin_row(&g, y);
        for (uint32_t x = 0; x < w;) {
            if (!row[x]) {
                x++;
                continue;
            }
            uint32_t x0 = x;
            while (x < w && row[x]) x++;
            pg_regions_add_run(&g, x0, x - 1);
        }
        pg_regions_end_row(&g);
    }
    uint64_t count;
    pg_img_rect bounds;
    pg_err rc = pg_regions_finish(&g, out, max_out, n_out, &count, &bounds, e);
    pg_regions_fini(&g);
    if (rc) return rc;
    while (*n_out > 0 && out[*n_out - 1].pixels < min_pixels) (*n_out)--;
    return PG_OK;
}

/* Pushes cell i when it is open (0), marking it reached (2) at once so that
 * it is pushed no more than once: the stack never holds more than w * h. */
static inline void fill_seed(uint8_t *m, uint32_t *stack, size_t *sp, size_t i) {
    if (m[i] == 0) m[i] = 2, stack[(*sp)++] = (uint32_t)i;
}

void pg_morph_fill_from_edge(uint8_t *m, uint32_t w, uint32_t h, uint32_t *stack) {
    if (!w || !h) return;
    size_t sp = 0;
    for (uint32_t x = 0; x < w; x++) {
        fill_seed(m, stack, &sp, x);
        fill_seed(m, stack, &sp, (size_t)(h - 1) * w + x);
    }
    for (uint32_t y = 0; y < h; y++) {
        fill_seed(m, stack, &sp, (size_t)y * w);
        fill_seed(m, stack, &sp, (size_t)y * w + w - 1);
    }
    while (sp) {
        size_t p = stack[--sp];
        uint32_t x = (uint32_t)(p % w), y = (uint32_t)(p / w);
        if (x > 0) fill_seed(m, stack, &sp, p - 1);
        if (x + 1 < w) fill_seed(m, stack, &sp, p + 1);
        if (y > 0) fill_seed(m, stack, &sp, p - w);
        if (y + 1 < h) fill_seed(m, stack, &sp, p + w);
    }
}
