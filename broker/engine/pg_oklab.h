/* SPDX-License-Identifier: MIT */
/* pg_oklab.h - engine-internal: the colour distance of pixelmatch 8, a
 * toe-corrected OKLab HyAB distance (Ottosson 2020 for OKLab and its toe
 * lightness Lr; Abasi et al. 2019 for HyAB = |dLr| + sqrt(da^2 + db^2)),
 * computed with the same IEEE double operations, in the same order, as
 * pixelmatch 8.0.0 running on node, so a threshold test never differs:
 *   - sRGB -> linear by a 257-entry table of node's values (C's pow() is not
 *     V8's: they differ in the last bit for some entries), fractional
 *     channels (blended translucent pixels) by linear interpolation in it;
 *   - linear RGB -> LMS by Ottosson's matrix, then a cube root by a 4096-step
 *     table with linear interpolation, except below 8/4096 where it is exact;
 *     "exact" means V8's Math.cbrt, the FreeBSD msun algorithm (bit-trick
 *     seed, rational refinement to 23 bits, one Newton step), which
 *     pg_oklab_cbrt implements because libm cube roots differ from it.
 * Never: visible outside broker/engine, global state (the table of cube
 * roots and the colour cache live in the caller's pg_oklab).
 * Ownership: pg_oklab is a plain struct (about 180 KB: allocate it).
 */
#ifndef PG_OKLAB_H
#define PG_OKLAB_H

#include <stdint.h>

#define PG_OKLAB_CBRT_N 4096
#define PG_OKLAB_CACHE_BITS 12

/* Cube-rooted LMS and the toe-corrected lightness of one colour. */
typedef struct {
    double l, m, s, lr;
} pg_oklab_px;

typedef struct {
    double cbrt[PG_OKLAB_CBRT_N + 2]; /* cbrt(i / N); NaN until first used */
    /* Direct-mapped cache of opaque colours: key rgb + 1 (0: empty). It
     * only saves work: a hit returns exactly what a recomputation would. */
    uint32_t key[1u << PG_OKLAB_CACHE_BITS];
    pg_oklab_px val[1u << PG_OKLAB_CACHE_BITS];
} pg_oklab;

void pg_oklab_init(pg_oklab *k);

/* V8's Math.cbrt, bit for bit. */
double pg_oklab_cbrt(double x);

/* An opaque 8-bit colour. */
void pg_oklab_rgb8(pg_oklab *k, const uint8_t *rgb, pg_oklab_px *out);

/* A colour with fractional channels in [0, 255] (a blended pixel). */
void pg_oklab_rgbf(pg_oklab *k, double r, double g, double b, pg_oklab_px *out);

/* Is the HyAB distance of p and q over max? 0 if not; otherwise -1 when q
 * is darker than p (lower Lr), else 1 (pixelmatch's sign). */
int pg_oklab_exceeds(const pg_oklab_px *p, const pg_oklab_px *q, double max);

#endif
