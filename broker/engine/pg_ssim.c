/* SPDX-License-Identifier: MIT */
/* SSIM from exact integer window sums. Five column sums (x, y, x^2, y^2, xy
 * over the current `win` rows) slide down the image; each output row then
 * takes win-wide horizontal sums (by doubling: sums of 1, 2, 4.. columns,
 * added where win has a bit) and evaluates S for the whole row at once.
 * RGBA input is converted to grey row by row into a ring of win+1 rows, so
 * no grey image is ever allocated (its page faults cost more than the
 * conversion).
 * Every loop is element-wise over x, so the auto-vectoriser takes them all;
 * the mean is accumulated per column and summed once at the end (a fixed
 * order: the same bits whatever the vector width). */
#include "pg_ssim.h"

#include <stdlib.h>
#include <string.h>

#include "pg_simd.h"
#include "pg_template.h"

/* Where grey rows come from: planes, or RGBA images converted on demand. */
typedef struct {
    const pg_img *ia, *ib; /* RGBA sources, or NULL for planes */
    uint8_t *ring;         /* (win+1) x 2 grey rows */
} row_src;

typedef struct {
    const pg_ssim_grey_in *in;
    row_src src;
    uint32_t ow;        /* windows per row */
    int32_t *cs[5];     /* column sums, w each */
    int32_t *hs[5];     /* window sums, ow each */
    int32_t *pw[2];     /* doubling scratch, w each */
    double *s, *tot;    /* S of the current row; per-column running totals */
    uint64_t windows;
} ssim_ctx;

/* Column sums += row `add` (and -= row `sub` when non-NULL). */
PG_CLONES static void col_update(int32_t *restrict c0, int32_t *restrict c1, int32_t *restrict c2, int32_t *restrict c3,
                                 int32_t *restrict c4, const uint8_t *restrict a, const uint8_t *restrict b,
                                 const uint8_t *restrict oa, const uint8_t *restrict ob, uint32_t w) {
    if (!oa) {
        for (uint32_t x = 0; x < w; x++) {
            int32_t va = a[x], vb = b[x];
            c0[x] += va, c1[x] += vb, c2[x] += va * va, c3[x] += vb * vb, c4[x] += va * vb;
        }
        return;
    }
    for (uint32_t x = 0; x < w; x++) {
        int32_t va = a[x], vb = b[x], wa = oa[x], wb = ob[x];
        c0[x] += va - wa, c1[x] += vb - wb, c2[x] += va * va - wa * wa, c3[x] += vb * vb - wb * wb;
        c4[x] += va * vb - wa * wb;
    }
}

PG_CLONES static void add_to(int32_t *restrict h, const int32_t *restrict p, size_t n) {
    for (size_t x = 0; x < n; x++) h[x] += p[x]; /* size_t: no wrap-around for the vectoriser to fear */
}

PG_CLONES static void pair_sums(int32_t *restrict out, const int32_t *restrict p, size_t len, size_t n) {
    for (size_t x = 0; x < n; x++) out[x] = p[x] + p[x + len];
}

/* h[x] = c[x] + ... + c[x + win - 1]: for each bit of win (lowest first),
 * the sum of `len` columns starting at the current offset is added, and
 * the sums of len columns are paired into sums of 2 len. 7 = 1+2+4: four
 * vector adds per element instead of six. */
static void box_row(int32_t *h, const int32_t *c, int32_t *pw[2], uint32_t w, uint32_t ow, uint32_t win) {
    const int32_t *cur = c;
    size_t len = 1, off = 0;
    int first = 1, slot = 0;
    for (uint32_t bits = win;; bits >>= 1) {
        if (bits & 1) {
            if (first) memcpy(h, cur + off, sizeof *h * ow), first = 0;
            else add_to(h, cur + off, ow);
            off += len;
        }
        if (bits <= 1) break;
        size_t n = w - 2 * len + 1; /* sums of 2 len columns that exist */
        pair_sums(pw[slot], cur, len, n);
        cur = pw[slot];
        slot ^= 1;
        len *= 2;
    }
}

/* S of every window of the row, scaled by n^2 top and bottom so that the
 * moments stay exact integers: 2 sx sy, n Sxx - Sx^2, n Sxy - Sx Sy. */
PG_CLONES static void row_s(const int32_t *restrict h0, const int32_t *restrict h1, const int32_t *restrict h2,
                            const int32_t *restrict h3, const int32_t *restrict h4, uint32_t ow, double n,
                            double *restrict s) {
    const double cov2 = 2.0 * n / (n - 1), cov = n / (n - 1);
    const double c1 = (0.01 * 255) * (0.01 * 255) * n * n, c2 = (0.03 * 255) * (0.03 * 255) * n * n;
    for (uint32_t x = 0; x < ow; x++) {
        double sx = h0[x], sy = h1[x];
        double vx = n * h2[x] - sx * sx, vy = n * h3[x] - sy * sy, vxy = n * h4[x] - sx * sy;
        s[x] = ((2.0 * sx * sy + c1) * (cov2 * vxy + c2)) / ((sx * sx + sy * sy + c1) * (cov * (vx + vy) + c2));
    }
}

PG_CLONES static void accumulate(double *restrict tot, const double *restrict s, uint32_t ow) {
    for (uint32_t x = 0; x < ow; x++) tot[x] += s[x];
}

/* As accumulate, leaving out windows whose centre is masked. */
static uint64_t accumulate_skip(double *tot, const double *s, const uint8_t *skip, uint32_t ow) {
    uint64_t kept = 0;
    for (uint32_t x = 0; x < ow; x++) {
        int keep = skip[x] == 0;
        tot[x] += keep ? s[x] : 0.0;
        kept += (uint64_t)keep;
    }
    return kept;
}

/* Windows of output row y (top-left row y). */
static void out_row(ssim_ctx *c, uint32_t y) {
    const pg_ssim_grey_in *in = c->in;
    for (int i = 0; i < 5; i++) box_row(c->hs[i], c->cs[i], c->pw, in->w, c->ow, in->win);
    row_s(c->hs[0], c->hs[1], c->hs[2], c->hs[3], c->hs[4], c->ow, (double)in->win * in->win, c->s);
    if (in->map)
        for (uint32_t x = 0; x < c->ow; x++) in->map[(size_t)y * c->ow + x] = (float)c->s[x];
    if (in->skip) {
        c->windows += accumulate_skip(c->tot, c->s, in->skip + (size_t)(y + in->win / 2) * in->skip_stride + in->win / 2, c->ow);
    } else {
        accumulate(c->tot, c->s, c->ow);
        c->windows += c->ow;
    }
}

static pg_err check_in(const pg_ssim_grey_in *in, pg_error *e) {
    if (in->win < 3 || in->win > PG_SSIM_MAX_WIN || in->win % 2 == 0)
        return pg_error_set(e, PG_E_USAGE, "use an odd window from 3 to 31", "SSIM window %u is not allowed", in->win);
    if (in->w < in->win || in->h < in->win)
        return pg_error_set(e, PG_E_USAGE, NULL, "SSIM needs at least %ux%u pixels, got %ux%u", in->win, in->win,
                            in->w, in->h);
    return PG_OK;
}

static pg_err ctx_alloc(ssim_ctx *c, pg_error *e) {
    int ok = 1;
    for (int i = 0; i < 5; i++) {
        c->cs[i] = calloc(c->in->w, sizeof(int32_t));
        c->hs[i] = malloc(sizeof(int32_t) * c->ow);
        ok = ok && c->cs[i] && c->hs[i];
    }
    c->pw[0] = malloc(sizeof(int32_t) * c->in->w);
    c->pw[1] = malloc(sizeof(int32_t) * c->in->w);
    c->s = malloc(sizeof(double) * c->ow);
    c->tot = calloc(c->ow, sizeof(double));
    if (c->src.ia) c->src.ring = malloc((size_t)2 * (c->in->win + 1) * c->in->w);
    if (!ok || !c->pw[0] || !c->pw[1] || !c->s || !c->tot || (c->src.ia && !c->src.ring))
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for SSIM");
    return PG_OK;
}

static void ctx_free(ssim_ctx *c) {
    for (int i = 0; i < 5; i++) free(c->cs[i]), free(c->hs[i]);
    free(c->pw[0]), free(c->pw[1]), free(c->s), free(c->tot), free(c->src.ring);
}

/* Grey row y of side 0 (a) or 1 (b). Streamed rows are converted when
 * first asked for, in increasing y; a row stays valid for win more rows. */
static const uint8_t *grey_row(ssim_ctx *c, int side, uint32_t y, int fresh) {
    const pg_ssim_grey_in *in = c->in;
    if (!c->src.ia) return side ? in->b + y * in->stride_b : in->a + y * in->stride_a;
    uint8_t *slot = c->src.ring + ((size_t)(y % (in->win + 1)) * 2 + (size_t)side) * in->w;
    if (fresh) {
        const pg_img *img = side ? c->src.ib : c->src.ia;
        pg_img row = {in->w, 1, img->stride, pg_img_row(img, y)};
        pg_template_grey(&row, slot);
    }
    return slot;
}

static pg_err run(ssim_ctx *c, double *out, uint64_t *windows, pg_error *e) {
    const pg_ssim_grey_in *in = c->in;
    c->ow = in->w - in->win + 1;
    pg_err rc = ctx_alloc(c, e);
    int32_t **cs = c->cs;
    for (uint32_t y = 0; !rc && y < in->win; y++)
        col_update(cs[0], cs[1], cs[2], cs[3], cs[4], grey_row(c, 0, y, 1), grey_row(c, 1, y, 1), NULL, NULL, in->w);
    for (uint32_t y = 0; !rc; y++) {
        out_row(c, y);
        uint32_t next = y + in->win;
        if (next >= in->h) break;
        const uint8_t *na = grey_row(c, 0, next, 1), *nb = grey_row(c, 1, next, 1);
        col_update(cs[0], cs[1], cs[2], cs[3], cs[4], na, nb, grey_row(c, 0, y, 0), grey_row(c, 1, y, 0), in->w);
    }
    double total = 0;
    for (uint32_t x = 0; !rc && x < c->ow; x++) total += c->tot[x];
    ctx_free(c);
    if (rc) return rc;
    if (c->windows == 0)
        return pg_error_set(e, PG_E_USAGE, "ignore less of the image", "every SSIM window lies in an ignored area");
    *out = total / (double)c->windows;
    if (windows) *windows = c->windows;
    return PG_OK;
}

pg_err pg_ssim_grey(const pg_ssim_grey_in *in, double *out, uint64_t *windows, pg_error *e) {
    *out = 0;
    if (windows) *windows = 0;
    pg_err rc = check_in(in, e);
    if (rc) return rc;
    ssim_ctx c;
    memset(&c, 0, sizeof c);
    c.in = in;
    return run(&c, out, windows, e);
}


uint32_t pg_ssim_auto_win(uint32_t w, uint32_t h) {
    uint32_t m = PG_SSIM_WIN;
    if (w < m) m = w;
    if (h < m) m = h;
    if (m % 2 == 0) m--;
    return m >= 3 ? m : 0;
}

pg_err pg_ssim_win(const pg_img *a, const pg_img *b, const pg_img_rect *region, uint32_t win, double *out,
                   pg_error *e) {
    *out = 0;
    if (a->width != b->width || a->height != b->height)
        return pg_error_set(e, PG_E_ASSERT, "compare captures of the same size; pixelgate never scales",
                            "image sizes differ: %ux%u vs %ux%u", a->width, a->height, b->width, b->height);
    pg_img va, vb;
    pg_err rc = pg_img_view(a, region, &va, e);
    if (!rc) rc = pg_img_view(b, region, &vb, e);
    if (rc) return rc;
    pg_ssim_grey_in in = {NULL, NULL, 0, 0, va.width, va.height, win, NULL, 0, NULL};
    rc = check_in(&in, e);
    if (rc) return rc;
    ssim_ctx c;
    memset(&c, 0, sizeof c);
    c.in = &in;
    c.src.ia = &va, c.src.ib = &vb;
    return run(&c, out, NULL, e);
}

pg_err pg_ssim(const pg_img *a, const pg_img *b, const pg_img_rect *region, double *out, pg_error *e) {
    return pg_ssim_win(a, b, region, PG_SSIM_WIN, out, e);
}
