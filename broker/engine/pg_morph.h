/* SPDX-License-Identifier: MIT */
/* pg_morph.h - binary morphology, Otsu thresholds and connected components
 * on byte planes: the segmentation steps of the design comparison (content
 * blocks, text lines).
 *
 * Does:
 *   - dilate / erode / close a 0-1 mask with a (2rx+1) x (2ry+1) rectangle.
 *     Outside the image is neutral: it never adds to a dilation and never
 *     removes from an erosion (OpenCV's default border for morphology), so a
 *     close never eats into the image edge. Separable running counts: O(1)
 *     per pixel whatever the rectangle.
 *   - the 3x3 morphological gradient of a grey plane (max - min).
 *   - Otsu's threshold of a 256-bin histogram: the t maximising the
 *     between-class variance of {v <= t} and {v > t} (ties: the lowest t).
 *   - 8-connected components of a mask with their boxes and pixel counts
 *     (pg_regions underneath: memory follows the runs, not the image).
 * Planes are tight (stride = width), one byte per pixel, masks hold 0 or 1.
 * Deterministic; integer arithmetic except Otsu's variance (IEEE double).
 * Never: touches the platform or keeps state; scratch memory is O(width)
 * rows and one plane for the call only. Ownership: every plane is the caller's.
 */
#ifndef PG_MORPH_H
#define PG_MORPH_H

#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"
#include "pg_regions.h"

pg_err pg_morph_dilate(const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h, uint32_t rx, uint32_t ry,
                       pg_error *e);
pg_err pg_morph_erode(const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h, uint32_t rx, uint32_t ry,
                      pg_error *e);
/* Dilate then erode. For all three, in and out may be the same plane. */
pg_err pg_morph_close(const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h, uint32_t rx, uint32_t ry,
                      pg_error *e);

/* 3x3 max - min of grey into out (w*h). */
/* Marks with 2 every 0 cell of m (w x h, row-major) that a 4-connected path
 * of 0 cells joins to the grid's edge; nonzero cells are walls and stay as
 * they are. stack has room for w * h entries. The 0 cells left are the
 * enclosed ones: a shape's holes, the text cut out of a button. */
void pg_morph_fill_from_edge(uint8_t *m, uint32_t w, uint32_t h, uint32_t *stack);
pg_err pg_morph_gradient(const uint8_t *grey, uint8_t *out, uint32_t w, uint32_t h, pg_error *e);

/* Otsu's threshold; 0 when the histogram holds a single value. */
uint8_t pg_morph_otsu(const uint64_t hist[256]);

/* Components with at least min_pixels pixels, largest first (ties: top,
 * then left), at most max_out of them; *n_out how many were written. */
pg_err pg_morph_components(const uint8_t *mask, uint32_t w, uint32_t h, uint64_t min_pixels, pg_region_info *out,
                           size_t max_out, size_t *n_out, pg_error *e);

#endif
