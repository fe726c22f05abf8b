/* SPDX-License-Identifier: MIT */
#include "pg_img.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pg_area.h"

pg_img_limits pg_img_limits_default(void) {
    return (pg_img_limits){PG_IMG_DEFAULT_MAX_INPUT_BYTES, PG_IMG_DEFAULT_MAX_PIXELS};
}

pg_err pg_img_limits_check(const pg_img_limits *lim, uint64_t w, uint64_t h, pg_error *e) {
    pg_img_limits d = pg_img_limits_default();
    if (!lim) lim = &d;
    if (w == 0 || h == 0)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "image has zero area (%llux%llu)", (unsigned long long)w,
                            (unsigned long long)h);
    if (w > PG_IMG_MAX_SIDE || h > PG_IMG_MAX_SIDE || w * h > lim->max_pixels)
        return pg_error_set(e, PG_E_BADINPUT, "reduce the image size or ask the administrator to raise the pixel limit",
                            "image %llux%llu exceeds the limit of %llu pixels", (unsigned long long)w,
                            (unsigned long long)h, (unsigned long long)lim->max_pixels);
    return PG_OK;
}

pg_err pg_img_new(pg_img **out, uint32_t w, uint32_t h, pg_error *e) {
    *out = NULL;
    if (w == 0 || h == 0 || w > PG_IMG_MAX_SIDE || h > PG_IMG_MAX_SIDE)
        return pg_error_set(e, PG_E_USAGE, NULL, "cannot make a %ux%u image", w, h);
    if ((uint64_t)w * h > SIZE_MAX / 4)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "image %ux%u too large for this machine", w, h);
    pg_img *img = malloc(sizeof *img);
    uint8_t *px = calloc((size_t)w * h, 4);
    if (!img || !px) {
        free(img);
        free(px);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for a %ux%u image", w, h);
    }
    *img = (pg_img){w, h, (size_t)w * 4, px};
    *out = img;
    return PG_OK;
}

void pg_img_free(pg_img *img) {
    if (!img) return;
    free(img->px);
    free(img);
}

pg_err pg_img_wrap(pg_img **out, uint8_t *px, uint32_t w, uint32_t h, size_t stride, pg_error *e) {
    *out = NULL;
    if (!px || w == 0 || h == 0 || w > PG_IMG_MAX_SIDE || h > PG_IMG_MAX_SIDE || stride < (size_t)w * 4)
        return pg_error_set(e, PG_E_USAGE, NULL, "cannot wrap a %ux%u buffer with stride %llu", w, h, (unsigned long long)stride);
    pg_img *img = malloc(sizeof *img);
    if (!img) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    *img = (pg_img){w, h, stride, px};
    *out = img;
    return PG_OK;
}

pg_err pg_img_rect_check(const pg_img *img, const pg_img_rect *r, pg_error *e) {
    if (r->w == 0 || r->h == 0)
        return pg_error_set(e, PG_E_USAGE, "give a region with positive width and height",
                            "region %u,%u,%u,%u has zero area", r->x, r->y, r->w, r->h);
    /* 64-bit sums: x+w cannot wrap. */
    if ((uint64_t)r->x + r->w > img->width || (uint64_t)r->y + r->h > img->height)
        return pg_error_set(e, PG_E_USAGE, "keep the region inside the image",
                            "region %u,%u,%u,%u lies outside the %ux%u image", r->x, r->y, r->w, r->h, img->width,
                            img->height);
    return PG_OK;
}

pg_err pg_img_view(const pg_img *src, const pg_img_rect *r, pg_img *view, pg_error *e) {
    if (!r) {
        *view = *src;
        return PG_OK;
    }
    pg_err rc = pg_img_rect_check(src, r, e);
    if (rc) return rc;
    *view = (pg_img){r->w, r->h, src->stride, src->px + (size_t)r->y * src->stride + (size_t)r->x * 4};
    return PG_OK;
}

pg_err pg_img_crop(const pg_img *src, const pg_img_rect *r, pg_img **out, pg_error *e) {
    pg_img v;
    *out = NULL;
    pg_err rc = pg_img_view(src, r, &v, e);
    if (rc) return rc;
    return pg_img_clone(&v, out, e);
}

pg_err pg_img_clone(const pg_img *src, pg_img **out, pg_error *e) {
    pg_err rc = pg_img_new(out, src->width, src->height, e);
    if (rc) return rc;
    size_t row = (size_t)src->width * 4;
    for (uint32_t y = 0; y < src->height; y++) memcpy(pg_img_row(*out, y), pg_img_row(src, y), row);
    return PG_OK;
}

void pg_img_fit_size(uint32_t w, uint32_t h, uint32_t max_w, uint32_t max_h, uint32_t *ow, uint32_t *oh) {
    *ow = w;
    *oh = h;
    if (w <= max_w && h <= max_h) return;
    if ((uint64_t)w * max_h >= (uint64_t)h * max_w) { /* width is the binding side */
        uint64_t nh = ((uint64_t)2 * h * max_w + w) / ((uint64_t)2 * w);
        *ow = max_w;
        *oh = (uint32_t)(nh < 1 ? 1 : nh > max_h ? max_h : nh);
    } else {
        uint64_t nw = ((uint64_t)2 * w * max_h + h) / ((uint64_t)2 * h);
        *oh = max_h;
        *ow = (uint32_t)(nw < 1 ? 1 : nw > max_w ? max_w : nw);
    }
}

/* round(num / den) half up, num = 2*acc + total, den = 2*total: a double
 * reciprocal gives the quotient to within one, and one integer check each
 * way makes it exact (an integer division per channel was most of the
 * scaler's time). */
static inline uint8_t div_round(uint64_t acc, uint64_t total, double inv2t) {
    uint64_t num = 2 * acc + total, den = 2 * total;
    uint64_t q = (uint64_t)((double)num * inv2t);
    if (q * den > num) q--;
    else if ((q + 1) * den <= num) q++;
    return (uint8_t)q;
}

/* One output row. Vertical first: the weighted sum of the source rows it
 * covers, contiguous and in 32 bits (at most 255 * height); then the
 * horizontal weights over those sums, and one division by the total weight
 * w*h. Integer sums in another order: the same numbers as row by row. The
 * horizontal sums fit 32 bits when 255 * w * h < 2^32 (16 Mpx); larger
 * images take 64. */
static void area_out_row(const pg_img *src, const pg_area_map *mx, const pg_area_map *my, uint32_t oy, uint32_t *vsum,
                         bool wide, uint8_t *dst) {
    size_t n = (size_t)src->width * 4;
    const pg_area_span *s = &my->span[oy];
    memset(vsum, 0, n * sizeof *vsum);
    for (uint32_t k = 0; k < s->count; k++) {
        uint32_t wy = my->w[s->woff + k];
        const uint8_t *row = pg_img_row(src, s->first + k);
        for (size_t i = 0; i < n; i++) vsum[i] += row[i] * wy;
    }
    uint64_t total = (uint64_t)src->width * src->height;
    double inv = 1.0 / (2.0 * (double)total);
    for (uint32_t j = 0; j < mx->n_out; j++) {
        const pg_area_span *t = &mx->span[j];
        const uint32_t *v = vsum + (size_t)t->first * 4, *w = mx->w + t->woff;
        if (!wide) {
            uint32_t acc[4] = {0, 0, 0, 0};
            for (uint32_t k = 0; k < t->count; k++)
                for (int c = 0; c < 4; c++) acc[c] += v[4 * k + (uint32_t)c] * w[k];
            for (int c = 0; c < 4; c++) dst[4 * j + (uint32_t)c] = div_round(acc[c], total, inv);
        } else {
            uint64_t acc[4] = {0, 0, 0, 0};
            for (uint32_t k = 0; k < t->count; k++)
                for (int c = 0; c < 4; c++) acc[c] += (uint64_t)v[4 * k + (uint32_t)c] * w[k];
            for (int c = 0; c < 4; c++) dst[4 * j + (uint32_t)c] = div_round(acc[c], total, inv);
        }
    }
}

pg_err pg_img_downscale_fit(const pg_img *src, uint32_t max_w, uint32_t max_h, pg_img **out, pg_error *e) {
    *out = NULL;
    if (max_w == 0 || max_h == 0)
        return pg_error_set(e, PG_E_USAGE, NULL, "cannot fit an image into %ux%u", max_w, max_h);
    uint32_t ow, oh;
    pg_img_fit_size(src->width, src->height, max_w, max_h, &ow, &oh);
    if (ow == src->width && oh == src->height) return pg_img_clone(src, out, e);
    pg_area_map mx, my;
    pg_err rc = pg_area_map_build(&mx, src->width, ow, e);
    if (rc) return rc;
    rc = pg_area_map_build(&my, src->height, oh, e);
    if (rc) {
        pg_area_map_free(&mx);
        return rc;
    }
    bool wide = (uint64_t)src->width * src->height * 255 >= ((uint64_t)1 << 32);
    uint32_t *vsum = malloc(sizeof *vsum * 4 * (size_t)src->width);
    if (!vsum) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory while scaling");
    if (!rc) rc = pg_img_new(out, ow, oh, e);
    for (uint32_t y = 0; !rc && y < oh; y++) area_out_row(src, &mx, &my, y, vsum, wide, pg_img_row(*out, y));
    free(vsum);
    pg_area_map_free(&mx);
    pg_area_map_free(&my);
    return rc;
}
