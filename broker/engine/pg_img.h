/* SPDX-License-Identifier: MIT */
/* pg_img.h - the engine's one image type: RGBA8 (straight alpha), row-major.
 *
 * Does: allocate, wrap, view, crop and downscale images; check decode limits.
 * Never: touches the platform, files or globals; every function is pure over
 * memory and deterministic.
 * Ownership: a pg_img from pg_img_new/pg_img_wrap/pg_img_crop/
 * pg_img_downscale_fit/the decoders owns its struct and its px and is released
 * with pg_img_free. A view (pg_img_view) is a plain value that borrows the
 * parent's pixels: never pg_img_free it, never use it after the parent died.
 * Layout: pixel (x, y) starts at px + y*stride + 4*x as R, G, B, A bytes;
 * stride >= 4*width. Images made here have stride == 4*width. Zero-area
 * images do not exist: width and height are >= 1.
 */
#ifndef PG_IMG_H
#define PG_IMG_H

#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"

typedef struct {
    uint32_t width, height;
    size_t stride; /* bytes per row, >= 4*width */
    uint8_t *px;
} pg_img;

/* A rectangle in image pixels; x,y is the top-left corner. */
typedef struct {
    uint32_t x, y, w, h;
} pg_img_rect;

/* Caps for untrusted images, checked BEFORE any pixel allocation. */
typedef struct {
    size_t max_input_bytes; /* encoded size */
    uint64_t max_pixels;    /* width*height after decoding */
} pg_img_limits;

#define PG_IMG_DEFAULT_MAX_INPUT_BYTES ((size_t)64 << 20) /* 64 MiB */
#define PG_IMG_DEFAULT_MAX_PIXELS ((uint64_t)100000000)   /* 100 Mpx */
/* Absolute ceiling on either side, whatever the limits say (keeps 4*width
 * and all coordinate arithmetic far from overflow). */
#define PG_IMG_MAX_SIDE ((uint32_t)1 << 20)

pg_img_limits pg_img_limits_default(void);

/* PG_E_BADINPUT when w*h exceeds lim->max_pixels (lim NULL: defaults), a side
 * exceeds PG_IMG_MAX_SIDE, or an area is zero. */
pg_err pg_img_limits_check(const pg_img_limits *lim, uint64_t w, uint64_t h, pg_error *e);

/* New zero-filled (transparent black) image, stride 4*w. Only the absolute
 * ceiling applies here; decoders check their limits first. */
pg_err pg_img_new(pg_img **out, uint32_t w, uint32_t h, pg_error *e);
void pg_img_free(pg_img *img); /* NULL is fine */

/* Take ownership of a malloc'd RGBA8 buffer (e.g. a capture). On success the
 * image frees px; on failure the caller still owns px. */
pg_err pg_img_wrap(pg_img **out, uint8_t *px, uint32_t w, uint32_t h, size_t stride, pg_error *e);

/* Is r a non-empty rectangle inside img? PG_E_USAGE with the numbers if not. */
pg_err pg_img_rect_check(const pg_img *img, const pg_img_rect *r, pg_error *e);

/* A borrowed view of r inside src (no copy). r NULL: the whole image. */
pg_err pg_img_view(const pg_img *src, const pg_img_rect *r, pg_img *view, pg_error *e);

/* A new image holding a copy of r inside src. */
pg_err pg_img_crop(const pg_img *src, const pg_img_rect *r, pg_img **out, pg_error *e);

/* Deep copy with tight stride. */
pg_err pg_img_clone(const pg_img *src, pg_img **out, pg_error *e);

/* The size that fits w x h inside max_w x max_h keeping the aspect ratio
 * (rounded to nearest, at least 1), or w x h when it already fits. */
void pg_img_fit_size(uint32_t w, uint32_t h, uint32_t max_w, uint32_t max_h, uint32_t *ow, uint32_t *oh);

/* New image scaled down to fit max_w x max_h (aspect ratio kept) by exact area
 * averaging: each output pixel is the mean of the source area it covers,
 * fractional edge pixels weighted by their covered fraction, rounded half up,
 * each channel independently (straight alpha). A plain copy when src already
 * fits. max_w or max_h of 0 is PG_E_USAGE. */
pg_err pg_img_downscale_fit(const pg_img *src, uint32_t max_w, uint32_t max_h, pg_img **out, pg_error *e);

/* Row y of img. */
static inline uint8_t *pg_img_row(const pg_img *img, uint32_t y) { return img->px + (size_t)y * img->stride; }

#endif
