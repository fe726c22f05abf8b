/* pg_ssim.h - structural similarity (SSIM) of two images, as scikit-image's
 * structural_similarity computes it by default for 8-bit grey images.
 *
 * Does: grey conversion as pg_template (OpenCV RGB2GRAY, alpha ignored), then
 * for every 7x7 window lying fully inside the image (scikit-image's defaults:
 * win_size 7, uniform weights, sample covariance N/(N-1), K1 0.01, K2 0.03,
 * data_range 255; it crops (7-1)/2 = 3 pixels from each border before
 * averaging, so no padding mode matters)
 *     S = ((2 mx my + C1)(2 sxy + C2)) / ((mx^2 + my^2 + C1)(sx^2 + sy^2 + C2))
 * with C1 = (0.01*255)^2, C2 = (0.03*255)^2, and returns the mean of S.
 * Window sums are exact integers; S in double. 1.0 for identical images.
 * Errors: different sizes -> PG_E_ASSERT (never scaled); images or a region
 * smaller than 7x7 -> PG_E_USAGE.
 * Never: touches the platform, keeps state; memory is a few rows.
 */
#ifndef PG_SSIM_H
#define PG_SSIM_H

#include "pg_error.h"
#include "pg_img.h"

#define PG_SSIM_WIN 7

/* region NULL: whole images; otherwise both are cropped to it. */
pg_err pg_ssim(const pg_img *a, const pg_img *b, const pg_img_rect *region, double *out, pg_error *e);

#endif
