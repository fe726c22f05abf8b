/* SSIM from exact integer window sums. Five column sums (x, y, x^2, y^2, xy
 * over the current `win` rows) slide down the image; each output row then
 * takes win-wide horizontal sums and evaluates S for the whole row at once.
 * Every loop is element-wise over x, so the auto-vectoriser takes them all;
 * the mean is accumulated per column and summed once at the end (a fixed
 * order: the same bits whatever the vector width). */
#include "pg_ssim.h"

#include <stdlib.h>
#include <string.h>

#include "pg_simd.h"
#include "pg_template.h"

typedef struct {
    const pg_ssim_grey_in *in;
    uint32_t ow;        /* windows per row */
    int32_t *cs[5];     /* column sums, w each */
    int32_t *hs[5];     /* window sums, ow each */
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

PG_CLONES static void box_row(int32_t *restrict h, const int32_t *restrict c, uint32_t ow, uint32_t win) {
    memcpy(h, c, sizeof *h * ow);
    for (uint32_t k = 1; k < win; k++) {
        const int32_t *ck = c + k; /* size_t index below: no wrap-around for the vectoriser to fear */
        for (size_t x = 0; x < ow; x++) h[x] += ck[x];
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
    for (int i = 0; i < 5; i++) box_row(c->hs[i], c->cs[i], c->ow, in->win);
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
    c->s = malloc(sizeof(double) * c->ow);
    c->tot = calloc(c->ow, sizeof(double));
    if (!ok || !c->s || !c->tot) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for SSIM");
    return PG_OK;
}

static void ctx_free(ssim_ctx *c) {
    for (int i = 0; i < 5; i++) free(c->cs[i]), free(c->hs[i]);
    free(c->s), free(c->tot);
}

pg_err pg_ssim_grey(const pg_ssim_grey_in *in, double *out, uint64_t *windows, pg_error *e) {
    *out = 0;
    if (windows) *windows = 0;
    pg_err rc = check_in(in, e);
    if (rc) return rc;
    ssim_ctx c;
    memset(&c, 0, sizeof c);
    c.in = in;
    c.ow = in->w - in->win + 1;
    rc = ctx_alloc(&c, e);
    const uint8_t *a = in->a, *b = in->b;
    size_t sa = in->stride_a, sb = in->stride_b;
    for (uint32_t y = 0; !rc && y < in->win; y++)
        col_update(c.cs[0], c.cs[1], c.cs[2], c.cs[3], c.cs[4], a + y * sa, b + y * sb, NULL, NULL, in->w);
    for (uint32_t y = 0; !rc; y++) {
        out_row(&c, y);
        uint32_t next = y + in->win;
        if (next >= in->h) break;
        col_update(c.cs[0], c.cs[1], c.cs[2], c.cs[3], c.cs[4], a + next * sa, b + next * sb, a + y * sa, b + y * sb,
                   in->w);
    }
    double total = 0;
    for (uint32_t x = 0; !rc && x < c.ow; x++) total += c.tot[x];
    ctx_free(&c);
    if (rc) return rc;
    if (c.windows == 0)
        return pg_error_set(e, PG_E_USAGE, "ignore less of the image", "every SSIM window lies in an ignored area");
    *out = total / (double)c.windows;
    if (windows) *windows = c.windows;
    return PG_OK;
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
    pg_ssim_grey_in in = {NULL, NULL, va.width, va.width, va.width, va.height, win, NULL, 0, NULL};
    rc = check_in(&in, e);
    if (rc) return rc;
    size_t np = (size_t)va.width * va.height;
    uint8_t *ga = malloc(np), *gb = malloc(np);
    if (!ga || !gb) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for SSIM");
    if (!rc) {
        pg_tmpl_grey(&va, ga);
        pg_tmpl_grey(&vb, gb);
        in.a = ga, in.b = gb;
        rc = pg_ssim_grey(&in, out, NULL, e);
    }
    free(ga), free(gb);
    return rc;
}

pg_err pg_ssim(const pg_img *a, const pg_img *b, const pg_img_rect *region, double *out, pg_error *e) {
    return pg_ssim_win(a, b, region, PG_SSIM_WIN, out, e);
}
