#include "pg_img.h"

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

/* Horizontal pass for one source row: hsum[4*j+c] = sum of weight * channel. */
static void area_row(const uint8_t *src, const pg_area_map *mx, uint32_t *hsum) {
    for (uint32_t j = 0; j < mx->n_out; j++) {
        const pg_area_span *s = &mx->span[j];
        const uint8_t *p = src + (size_t)s->first * 4;
        const uint32_t *w = mx->w + s->woff;
        uint32_t r = 0, g = 0, b = 0, a = 0;
        for (uint32_t k = 0; k < s->count; k++) {
            r += p[4 * k] * w[k];
            g += p[4 * k + 1] * w[k];
            b += p[4 * k + 2] * w[k];
            a += p[4 * k + 3] * w[k];
        }
        hsum[4 * j] = r;
        hsum[4 * j + 1] = g;
        hsum[4 * j + 2] = b;
        hsum[4 * j + 3] = a;
    }
}

/* Vertical pass: accumulate weighted source rows of one output row, then
 * divide once by the total weight w*h, rounding half up. */
static void area_out_row(const pg_img *src, const pg_area_map *mx, const pg_area_map *my, uint32_t oy,
                         uint32_t *hsum, uint64_t *acc, uint8_t *dst) {
    size_t n = (size_t)mx->n_out * 4;
    memset(acc, 0, n * sizeof *acc);
    const pg_area_span *s = &my->span[oy];
    for (uint32_t k = 0; k < s->count; k++) {
        uint64_t wy = my->w[s->woff + k];
        area_row(pg_img_row(src, s->first + k), mx, hsum);
        for (size_t i = 0; i < n; i++) acc[i] += hsum[i] * wy;
    }
    uint64_t total = (uint64_t)src->width * src->height;
    for (size_t i = 0; i < n; i++) dst[i] = (uint8_t)((2 * acc[i] + total) / (2 * total));
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
    uint32_t *hsum = malloc(sizeof *hsum * 4 * (size_t)ow);
    uint64_t *acc = malloc(sizeof *acc * 4 * (size_t)ow);
    if (!hsum || !acc) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory while scaling");
    if (!rc) rc = pg_img_new(out, ow, oh, e);
    for (uint32_t y = 0; !rc && y < oh; y++) area_out_row(src, &mx, &my, y, hsum, acc, pg_img_row(*out, y));
    free(hsum);
    free(acc);
    pg_area_map_free(&mx);
    pg_area_map_free(&my);
    return rc;
}
