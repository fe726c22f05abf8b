/* SPDX-License-Identifier: MIT */
/* Design comparison, stage 1-2: the canonical canvas (scale, background,
 * padding, ignored rectangles) and the grey planes every dimension reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_design_int.h"
#include "pg_morph.h"
#include "pg_template.h"

/* Height of a w x h image scaled to width W, rounded to nearest (as
 * pg_img_fit_size rounds, so the area downscale agrees). */
static uint32_t scaled_h(uint32_t w, uint32_t h, uint32_t W) {
    uint64_t nh = ((uint64_t)2 * h * W + w) / ((uint64_t)2 * w);
    return nh < 1 ? 1 : nh > PG_IMG_MAX_SIDE ? PG_IMG_MAX_SIDE : (uint32_t)nh;
}

/* Bilinear source positions of an axis in 16.16 fixed point, pixel
 * centres aligned (as OpenCV's INTER_LINEAR). */
static void axis_map(uint32_t n_in, uint32_t n_out, uint32_t *i0, uint32_t *fr) {
    for (uint32_t j = 0; j < n_out; j++) {
        int64_t f = (((int64_t)2 * j + 1) * n_in * 65536) / ((int64_t)2 * n_out) - 32768;
        if (f < 0) f = 0;
        uint32_t i = (uint32_t)(f >> 16), r = (uint32_t)(f & 0xffff);
        if (i >= n_in - 1) i = n_in - 1, r = 0;
        i0[j] = i, fr[j] = r;
    }
}

static void bilinear_row(const pg_img *src, uint32_t y0, uint32_t fy, const uint32_t *xi, const uint32_t *xf,
                         uint8_t *out, uint32_t W) {
    const uint8_t *r0 = pg_img_row(src, y0), *r1 = pg_img_row(src, y0 + 1 < src->height ? y0 + 1 : y0);
    for (uint32_t x = 0; x < W; x++) {
        uint32_t a = xi[x], b = a + 1 < src->width ? a + 1 : a, f = xf[x];
        for (int c = 0; c < 4; c++) {
            uint64_t top = (uint64_t)r0[4 * a + c] * (65536 - f) + (uint64_t)r0[4 * b + c] * f;
            uint64_t bot = (uint64_t)r1[4 * a + c] * (65536 - f) + (uint64_t)r1[4 * b + c] * f;
            out[4 * x + c] = (uint8_t)((top * (65536 - fy) + bot * fy + ((uint64_t)1 << 31)) >> 32);
        }
    }
}

static pg_err upscale(const pg_img *src, uint32_t W, uint32_t H, pg_img **out, pg_error *e) {
    uint32_t *xi = malloc(sizeof *xi * W), *xf = malloc(sizeof *xf * W);
    uint32_t *yi = malloc(sizeof *yi * H), *yf = malloc(sizeof *yf * H);
    pg_err rc = (!xi || !xf || !yi || !yf) ? pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory while scaling")
                                           : pg_img_new(out, W, H, e);
    if (!rc) {
        axis_map(src->width, W, xi, xf);
        axis_map(src->height, H, yi, yf);
        for (uint32_t y = 0; y < H; y++) bilinear_row(src, yi[y], yf[y], xi, xf, pg_img_row(*out, y), W);
    }
    free(xi), free(xf), free(yi), free(yf);
    return rc;
}

static pg_err resize_to_width(const pg_img *src, uint32_t W, pg_img **out, pg_error *e) {
    if (src->width > W) return pg_img_downscale_fit(src, W, PG_IMG_MAX_SIDE, out, e);
    if (src->width == W) return pg_img_clone(src, out, e);
    return upscale(src, W, scaled_h(src->width, src->height, W), out, e);
}

/* The most frequent colour at 5 bits per channel (ties: the lower bin),
 * then the exact mean of the pixels in that bin. */
static pg_err modal_bg(const pg_img *img, uint8_t bg[3], pg_error *e) {
    uint32_t *hist = calloc(32768, sizeof *hist);
    if (!hist) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for a colour histogram");
    for (uint32_t y = 0; y < img->height; y++) {
        const uint8_t *p = pg_img_row(img, y);
        for (uint32_t x = 0; x < img->width; x++, p += 4) hist[(p[0] >> 3) << 10 | (p[1] >> 3) << 5 | p[2] >> 3]++;
    }
    uint32_t best = 0;
    for (uint32_t i = 1; i < 32768; i++)
        if (hist[i] > hist[best]) best = i;
    uint64_t s[3] = {0, 0, 0}, n = 0;
    for (uint32_t y = 0; y < img->height; y++) {
        const uint8_t *p = pg_img_row(img, y);
        for (uint32_t x = 0; x < img->width; x++, p += 4) {
            if (((uint32_t)(p[0] >> 3) << 10 | (uint32_t)(p[1] >> 3) << 5 | (uint32_t)(p[2] >> 3)) != best) continue;
            s[0] += p[0], s[1] += p[1], s[2] += p[2], n++;
        }
    }
    for (int c = 0; c < 3; c++) bg[c] = (uint8_t)((2 * s[c] + n) / (2 * n));
    free(hist);
    return PG_OK;
}

static void fill_rect(pg_img *img, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1, const uint8_t bg[3]) {
    for (uint32_t y = y0; y < y1; y++) {
        uint8_t *p = pg_img_row(img, y) + 4 * (size_t)x0;
        for (uint32_t x = x0; x < x1; x++, p += 4) p[0] = bg[0], p[1] = bg[1], p[2] = bg[2], p[3] = 255;
    }
}

/* One side: scaled, background found, padded to W x H. */
static pg_err make_side(pg_dz_side *s, const pg_img *src, uint32_t W, uint32_t H, pg_error *e) {
    pg_img *scaled;
    pg_err rc = resize_to_width(src, W, &scaled, e);
    if (rc) return rc;
    s->height = scaled->height;
    rc = modal_bg(scaled, s->bg, e);
    if (!rc) rc = pg_img_new(&s->img, W, H, e);
    if (!rc) {
        for (uint32_t y = 0; y < scaled->height; y++) memcpy(pg_img_row(s->img, y), pg_img_row(scaled, y), (size_t)W * 4);
        fill_rect(s->img, 0, scaled->height, W, H, s->bg);
    }
    pg_img_free(scaled);
    return rc;
}

/* The canonical width: 768, lowered when either canvas would be taller
 * than PG_DESIGN_MAX_HEIGHT. */
static pg_err canonical_width(const pg_img *ref, const pg_img *cand, uint32_t *W, pg_error *e) {
    uint32_t w = PG_DESIGN_CANON_W;
    for (;;) {
        uint32_t hr = scaled_h(ref->width, ref->height, w), hc = scaled_h(cand->width, cand->height, w);
        uint32_t m = hr > hc ? hr : hc;
        if (m <= PG_DESIGN_MAX_HEIGHT) break;
        uint32_t next = (uint32_t)((uint64_t)w * PG_DESIGN_MAX_HEIGHT / m);
        w = next < w ? next : w - 1;
        if (w == 0)
            return pg_error_set(e, PG_E_BADINPUT, "crop the image to the part that matters",
                                "an image of %ux%u is too tall and narrow to compare", m == hr ? ref->width : cand->width,
                                m == hr ? ref->height : cand->height);
    }
    *W = w;
    return PG_OK;
}

static void aspect_finding(pg_dz *z) {
    pg_design_result *r = z->r;
    uint32_t hr = r->norm.ref_height, hc = r->norm.cand_height, d = hr > hc ? hr - hc : hc - hr;
    double rel = (double)d / (double)z->H;
    if (d <= 2 || rel <= 0.02) return;
    r->norm.aspect_mismatch = true;
    pg_design_finding *f = pg_dz_finding(z, "layout", "aspect_mismatch", rel > 0.10 ? PG_DESIGN_MEDIUM : PG_DESIGN_LOW,
                                         rel);
    snprintf(f->observed, sizeof f->observed,
             "at the canonical width %u the reference is %u px tall and the candidate %u px (aspect %ux%u vs %ux%u)",
             z->W, hr, hc, r->norm.ref_w, r->norm.ref_h, r->norm.cand_w, r->norm.cand_h);
    snprintf(f->suggested_fix, sizeof f->suggested_fix,
             "match the reference's proportions: about %.0f px tall at the candidate's width",
             (double)r->norm.ref_h * r->norm.cand_w / r->norm.ref_w);
}

/* Ignored rectangles: reference pixels -> canvas, painted with each side's
 * background, and marked so that layout leaves their windows out. */
static pg_err apply_ignore(pg_dz *z, const pg_img *ref, pg_error *e) {
    const pg_design_opts *o = z->o;
    if (o->n_ignore == 0) return PG_OK;
    if (o->n_ignore > PG_DESIGN_MAX_IGNORE)
        return pg_error_set(e, PG_E_USAGE, NULL, "at most %d ignore rectangles", PG_DESIGN_MAX_IGNORE);
    z->skip = calloc((size_t)z->W * z->H, 1);
    if (!z->skip) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for the ignore mask");
    uint64_t W = z->W, rw = ref->width;
    for (size_t i = 0; i < o->n_ignore; i++) {
        const pg_img_rect *g = &o->ignore[i];
        pg_err rc = pg_img_rect_check(ref, g, e);
        if (rc) return rc;
        uint32_t x0 = (uint32_t)(g->x * W / rw), x1 = (uint32_t)((((uint64_t)g->x + g->w) * W + rw - 1) / rw);
        uint32_t y0 = (uint32_t)(g->y * W / rw), y1 = (uint32_t)((((uint64_t)g->y + g->h) * W + rw - 1) / rw);
        if (x1 > z->W) x1 = z->W;
        if (y1 > z->H) y1 = z->H;
        if (y0 >= y1 || x0 >= x1) continue;
        fill_rect(z->ref.img, x0, y0, x1, y1, z->ref.bg);
        fill_rect(z->cand.img, x0, y0, x1, y1, z->cand.bg);
        for (uint32_t y = y0; y < y1; y++) memset(z->skip + (size_t)y * z->W + x0, 1, x1 - x0);
    }
    return PG_OK;
}

static pg_err planes(pg_dz *z, pg_dz_side *s, pg_error *e) {
    size_t n = (size_t)z->W * z->H;
    s->grey = malloc(n);
    s->grad = malloc(n);
    if (!s->grey || !s->grad) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for grey planes");
    pg_template_grey(s->img, s->grey);
    return pg_morph_gradient(s->grey, s->grad, z->W, z->H, e);
}

pg_err pg_dz_normalise(pg_dz *z, const pg_img *ref, const pg_img *cand, pg_error *e) {
    pg_design_result *r = z->r;
    r->norm.ref_w = ref->width, r->norm.ref_h = ref->height;
    r->norm.cand_w = cand->width, r->norm.cand_h = cand->height;
    uint32_t W = 0;
    pg_err rc = canonical_width(ref, cand, &W, e);
    if (rc) return rc;
    uint32_t hr = scaled_h(ref->width, ref->height, W), hc = scaled_h(cand->width, cand->height, W);
    z->W = W, z->H = hr > hc ? hr : hc;
    r->norm.width = z->W, r->norm.height = z->H;
    r->norm.ref_scale = (double)W / ref->width, r->norm.cand_scale = (double)W / cand->width;
    rc = make_side(&z->ref, ref, W, z->H, e);
    if (!rc) rc = make_side(&z->cand, cand, W, z->H, e);
    if (rc) return rc;
    r->norm.ref_height = z->ref.height, r->norm.cand_height = z->cand.height;
    memcpy(r->content.ref_bg, z->ref.bg, 3);
    memcpy(r->content.cand_bg, z->cand.bg, 3);
    aspect_finding(z);
    rc = apply_ignore(z, ref, e);
    if (!rc) rc = planes(z, &z->ref, e);
    if (!rc) rc = planes(z, &z->cand, e);
    return rc;
}
