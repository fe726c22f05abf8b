/* SPDX-License-Identifier: MIT */
/* pg_ssim.h - structural similarity (SSIM) of two images, as scikit-image's
 * structural_similarity computes it for 8-bit grey images.
 *
 * Does: grey conversion as pg_template (OpenCV RGB2GRAY, alpha ignored), then
 * for every win x win window lying fully inside the image (scikit-image's
 * defaults: uniform weights, sample covariance N/(N-1), K1 0.01, K2 0.03,
 * data_range 255; it crops (win-1)/2 pixels from each border before
 * averaging, so no padding mode matters)
 *     S = ((2 mx my + C1)(2 sxy + C2)) / ((mx^2 + my^2 + C1)(sx^2 + sy^2 + C2))
 * with C1 = (0.01*255)^2, C2 = (0.03*255)^2, and returns the mean of S.
 * pg_ssim uses scikit-image's default window of 7; pg_ssim_grey takes any
 * odd window from 3 to PG_SSIM_MAX_WIN (scikit-image's win_size), grey
 * planes with strides, an optional per-window map and an optional mask of
 * window centres to leave out of the mean (ignored areas).
 * Exactness: window sums and the variance numerators n*Sxx - Sx^2 are exact
 * integers (exact in double too), S is evaluated in double from them.
 * 1.0 for identical images. Deterministic: IEEE basic operations only.
 * Errors: different sizes -> PG_E_ASSERT (never scaled); an image or region
 * smaller than the window, or a window that is even or out of range ->
 * PG_E_USAGE; every window masked out -> PG_E_USAGE.
 * Never: touches the platform, keeps state; memory is a few rows (RGBA
 * input is converted to grey row by row).
 * Ownership: all buffers in pg_ssim_grey_in are the caller's.
 */
#ifndef PG_SSIM_H
#define PG_SSIM_H

#include <stdint.h>

#include "pg_error.h"
#include "pg_img.h"

#define PG_SSIM_WIN 7
#define PG_SSIM_MAX_WIN 31

/* region NULL: whole images; otherwise both are cropped to it. Window 7. */
pg_err pg_ssim(const pg_img *a, const pg_img *b, const pg_img_rect *region, double *out, pg_error *e);

/* The same with a chosen odd window (3..PG_SSIM_MAX_WIN). */
pg_err pg_ssim_win(const pg_img *a, const pg_img *b, const pg_img_rect *region, uint32_t win, double *out,
                   pg_error *e);

/* The window the design comparison uses for a w x h image: min(7, w, h),
 * lowered to the next odd number (scikit-image accepts only odd windows);
 * 0 when that is below 3 (no SSIM defined). */
uint32_t pg_ssim_auto_win(uint32_t w, uint32_t h);

typedef struct {
    const uint8_t *a, *b;      /* grey planes, row y at a + y*stride_a */
    size_t stride_a, stride_b; /* bytes per row, >= w */
    uint32_t w, h;
    uint32_t win;              /* odd, 3..PG_SSIM_MAX_WIN */
    const uint8_t *skip;       /* NULL, or a w x h plane: windows centred on a non-zero byte are left out */
    size_t skip_stride;        /* bytes per row of skip */
    float *map;                /* NULL, or (w-win+1)*(h-win+1) floats: S of the window at (x, y), row-major */
} pg_ssim_grey_in;

/* Mean S over the windows not left out; *windows (may be NULL) = how many. */
pg_err pg_ssim_grey(const pg_ssim_grey_in *in, double *out, uint64_t *windows, pg_error *e);

#endif
