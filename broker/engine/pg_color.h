/* SPDX-License-Identifier: MIT */
/* pg_color.h - colour science for the design comparison: 8-bit sRGB to
 * CIELAB (D65) and the CIEDE2000 colour difference.
 *
 * Does:
 *   - sRGB -> CIELAB with scikit-image's rgb2lab constants (so its values can
 *     be checked against skimage.color): the IEC 61966-2-1 transfer function
 *     (c <= 0.04045 ? c/12.92 : ((c + 0.055)/1.055)^2.4), the sRGB->XYZ
 *     matrix [0.412453 0.357580 0.180423; 0.212671 0.715160 0.072169;
 *     0.019334 0.119193 0.950227], the D65 2-degree white (0.95047, 1,
 *     1.08883), f(t) = t > 0.008856 ? cbrt(t) : 7.787 t + 16/116,
 *     L = 116 f(Y) - 16, a = 500 (f(X) - f(Y)), b = 200 (f(Y) - f(Z)).
 *   - CIEDE2000 as Sharma, Wu and Dalal (2005) define it (kL = kC = kH = 1,
 *     their conventions for the mean hue and hue difference when a chroma
 *     is 0, hue angles in [0, 360)); equal to their published test data.
 *   - "#rrggbb" formatting.
 * Deterministic: only IEEE basic operations and pg_dmath, so the same bits
 * on every compiler. Alpha is not a colour here: callers drop it.
 * Never: touches images, the platform, files or globals; the transfer table
 * lives in a pg_color_ctx the caller owns (a plain value, no memory).
 */
#ifndef PG_COLOR_H
#define PG_COLOR_H

#include <stdint.h>

typedef struct {
    double L, a, b;
} pg_lab;

/* The 8-bit sRGB -> linear table (256 entries), filled once per use. */
typedef struct {
    double lin[256];
} pg_color_ctx;

void pg_color_ctx_init(pg_color_ctx *c);

pg_lab pg_color_lab(const pg_color_ctx *c, uint8_t r, uint8_t g, uint8_t b);

/* The same from linear-light RGB in [0, 1] (e.g. an average of linear values). */
pg_lab pg_color_lab_linear(double r, double g, double b);

/* CIEDE2000 difference of two CIELAB colours (>= 0; symmetric). */
double pg_color_de2000(const pg_lab *x, const pg_lab *y);

/* "#rrggbb" (lower case) into out[8]. */
void pg_color_hex(uint8_t r, uint8_t g, uint8_t b, char out[8]);

#endif
