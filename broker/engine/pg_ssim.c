/* SSIM from exact integer window sums: five sliding 7x7 box sums (x, y, x^2,
 * y^2, xy) kept as column sums over the current 7 rows. */
#include "pg_ssim.h"

#include <stdlib.h>
#include <string.h>

#include "pg_template.h"

typedef struct {
    uint32_t w, h;
    uint8_t *ga, *gb;           /* grey images */
    uint64_t *cx, *cy, *cxx, *cyy, *cxy; /* column sums over 7 rows */
} ssim_ctx;

static void col_update(ssim_ctx *c, uint32_t row, int sign) {
    const uint8_t *a = c->ga + (size_t)row * c->w, *b = c->gb + (size_t)row * c->w;
    for (uint32_t x = 0; x < c->w; x++) {
        uint64_t va = a[x], vb = b[x];
        if (sign > 0) c->cx[x] += va, c->cy[x] += vb, c->cxx[x] += va * va, c->cyy[x] += vb * vb, c->cxy[x] += va * vb;
        else c->cx[x] -= va, c->cy[x] -= vb, c->cxx[x] -= va * va, c->cyy[x] -= vb * vb, c->cxy[x] -= va * vb;
    }
}

/* Sum of S over the windows of one output row. */
static double row_ssim(const ssim_ctx *c) {
    const double n = PG_SSIM_WIN * PG_SSIM_WIN, cov = n / (n - 1);
    const double c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255);
    uint64_t s[5] = {0, 0, 0, 0, 0};
    double total = 0;
    for (uint32_t x = 0; x < PG_SSIM_WIN; x++)
        s[0] += c->cx[x], s[1] += c->cy[x], s[2] += c->cxx[x], s[3] += c->cyy[x], s[4] += c->cxy[x];
    for (uint32_t x = 0;; x++) {
        double mx = s[0] / n, my = s[1] / n;
        double vx = cov * (s[2] / n - mx * mx), vy = cov * (s[3] / n - my * my), vxy = cov * (s[4] / n - mx * my);
        total += ((2 * mx * my + c1) * (2 * vxy + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2));
        if (x + PG_SSIM_WIN >= c->w) break;
        uint32_t in = x + PG_SSIM_WIN;
        s[0] += c->cx[in] - c->cx[x], s[1] += c->cy[in] - c->cy[x], s[2] += c->cxx[in] - c->cxx[x];
        s[3] += c->cyy[in] - c->cyy[x], s[4] += c->cxy[in] - c->cxy[x];
    }
    return total;
}

static pg_err ssim_alloc(ssim_ctx *c, const pg_img *a, const pg_img *b, pg_error *e) {
    size_t np = (size_t)c->w * c->h;
    c->ga = malloc(np);
    c->gb = malloc(np);
    uint64_t **cols[5] = {&c->cx, &c->cy, &c->cxx, &c->cyy, &c->cxy};
    for (int i = 0; i < 5; i++) *cols[i] = calloc(c->w, sizeof(uint64_t));
    if (!c->ga || !c->gb || !c->cx || !c->cy || !c->cxx || !c->cyy || !c->cxy)
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for SSIM");
    pg_tmpl_grey(a, c->ga);
    pg_tmpl_grey(b, c->gb);
    return PG_OK;
}

static void ssim_free(ssim_ctx *c) {
    free(c->ga), free(c->gb), free(c->cx), free(c->cy), free(c->cxx), free(c->cyy), free(c->cxy);
}

pg_err pg_ssim(const pg_img *a, const pg_img *b, const pg_img_rect *region, double *out, pg_error *e) {
    *out = 0;
    if (a->width != b->width || a->height != b->height)
        return pg_error_set(e, PG_E_ASSERT, "compare captures of the same size; pixelgate never scales",
                            "image sizes differ: %ux%u vs %ux%u", a->width, a->height, b->width, b->height);
    pg_img va, vb;
    pg_err rc = pg_img_view(a, region, &va, e);
    if (!rc) rc = pg_img_view(b, region, &vb, e);
    if (rc) return rc;
    if (va.width < PG_SSIM_WIN || va.height < PG_SSIM_WIN)
        return pg_error_set(e, PG_E_USAGE, NULL, "SSIM needs at least %dx%d pixels, got %ux%u", PG_SSIM_WIN,
                            PG_SSIM_WIN, va.width, va.height);
    ssim_ctx c;
    memset(&c, 0, sizeof c);
    c.w = va.width, c.h = va.height;
    rc = ssim_alloc(&c, &va, &vb, e);
    double total = 0;
    for (uint32_t y = 0; !rc && y < PG_SSIM_WIN; y++) col_update(&c, y, +1);
    for (uint32_t y = 0; !rc; y++) {
        total += row_ssim(&c);
        if (y + PG_SSIM_WIN >= c.h) break;
        col_update(&c, y + PG_SSIM_WIN, +1);
        col_update(&c, y, -1);
    }
    ssim_free(&c);
    if (rc) return rc;
    *out = total / ((double)(c.w - PG_SSIM_WIN + 1) * (c.h - PG_SSIM_WIN + 1));
    return PG_OK;
}
