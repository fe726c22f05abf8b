/* SPDX-License-Identifier: MIT */
/* pg_diff.h - compare two images with pixelmatch's semantics, in either of
 * its generations, plus masks, a region, connected regions of change, the
 * densest N x N window of change and an optional diff image.
 *
 * Does: for every compared pixel that differs in any byte, pixelmatch's
 * colour test; an over-threshold pixel is changed unless pixelmatch's
 * antialiasing detector (Vysniauskas 2009, with its 3-equal-siblings test in
 * both images) claims it for either image, in which case it is counted as
 * antialiased and excluded (include_aa counts it as changed instead). Counts
 * equal pixelmatch's return value on the same (cropped) pixels, bit for bit:
 * the same IEEE double operations in the same order (docs/diff.md).
 *   metric PG_DIFF_YIQ (default) = pixelmatch 7.2.0: squared YIQ delta
 *     (Kotsarenko & Ramos) over 35215 * threshold^2; translucent pixels are
 *     blended over pixelmatch 7's checkerboard (default, as 7.1+) or white,
 *     in the colour delta and in the detector alike.
 *   metric PG_DIFF_OKLAB = pixelmatch 8.0.0: toe-corrected OKLab HyAB
 *     distance (pg_oklab.h) over threshold itself; translucent pixels are
 *     composited over pixelmatch 8's hashed checkerboard (default) or white;
 *     its detector always blends over white and breaks luma ties by alpha.
 * Masks: rectangles in image coordinates whose pixels count neither as
 * changed nor in total_pixels (the antialiasing detector still reads their
 * pixels as neighbours: pixelmatch 8's ignoreMask). A mask must be non-empty
 * and touch the image; masks are clipped to the compared area. Masks leaving
 * nothing to compare are an error (PG_E_USAGE), never a pass.
 * Region: both images are cropped to it before comparing (it must lie inside
 * them); result coordinates are in full-image coordinates.
 * Sizes: images of different dimensions are never scaled: the result says
 * sizes_match = false with both sizes and pg_diff returns PG_E_ASSERT.
 * Regions of change: 8-connected components of the changed pixels; the
 * PG_DIFF_MAX_REGIONS largest (by pixel count, ties by top-left y then x)
 * are listed, region_count says how many exist, bounds covers them all.
 * Window (window_size N > 0, either metric): the largest number of changed
 * pixels in any N x N window lying inside the compared area, N clamped to
 * its width and height (pixelmatch 8's windowSize).
 * Diff image (optional, the compared area's size, opaque), as both
 * generations draw it by default: changed red (255,0,0), antialiased yellow
 * (255,255,0), other pixels img A's luma faded toward white by alpha
 * (truncated to 8 bits); masked pixels as that faded grey tinted blue (R,G
 * scaled by 3/4), which is pixelgate's own.
 * Never: scales, reads files, keeps state, or uses more memory than a few
 * bytes per pixel (region bookkeeping is bounded by the changed pixels; the
 * OKLab tables are about 180 KB per call).
 * Ownership: the result is a plain value; *diff is a new image (pg_img_free).
 */
#ifndef PG_DIFF_H
#define PG_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"
#include "pg_img.h"

#define PG_DIFF_MAX_REGIONS 100
#define PG_DIFF_MAX_MASKS 1024

typedef enum {
    PG_DIFF_YIQ = 0,   /* pixelmatch 7.2.0 */
    PG_DIFF_OKLAB = 1, /* pixelmatch 8.0.0 */
} pg_diff_metric;

typedef struct {
    double threshold;          /* colour tolerance 0..1 (pixelmatch threshold), default 0.1 */
    pg_diff_metric metric;     /* default PG_DIFF_YIQ */
    bool include_aa;           /* count antialiased pixels as changed; default false */
    bool checkerboard;         /* blend translucent pixels over the checkerboard; default true (false: white) */
    uint32_t window_size;      /* N > 0: also find the densest N x N window; default 0 (not computed) */
    double alpha;              /* diff image: opacity of the faded original 0..1, default 0.1 */
    const pg_img_rect *region; /* NULL: the whole images */
    const pg_img_rect *masks;  /* image coordinates; n_masks <= PG_DIFF_MAX_MASKS */
    size_t n_masks;
} pg_diff_opts;

typedef struct {
    pg_img_rect box; /* full-image coordinates */
    uint64_t pixels; /* changed pixels in this component */
} pg_diff_region;

typedef struct {
    bool sizes_match;
    uint32_t width_a, height_a, width_b, height_b;
    uint64_t pixels_changed; /* what pixelmatch returns */
    uint64_t pixels_aa;      /* over the threshold but excluded as antialiasing */
    uint64_t total_pixels;   /* compared pixels: region minus masks */
    double changed_pct;      /* 100 * pixels_changed / total_pixels */
    bool has_bounds;         /* false when nothing changed */
    pg_img_rect bounds;      /* box around every changed pixel */
    uint32_t window_size;        /* N actually used (clamped); 0 when not asked */
    uint64_t max_window_changed; /* changed pixels in the densest N x N window */
    uint64_t region_count;   /* connected regions found */
    size_t regions_len;      /* listed: min(region_count, PG_DIFF_MAX_REGIONS) */
    pg_diff_region regions[PG_DIFF_MAX_REGIONS];
} pg_diff_result;

void pg_diff_opts_init(pg_diff_opts *o);

/* Compare a (before) and b (after). o NULL: defaults. diff NULL: no image.
 * PG_OK with r filled; PG_E_ASSERT when sizes differ (r says so);
 * PG_E_USAGE for bad options (threshold outside 0..1, unknown metric, region
 * or mask outside, everything masked). */
pg_err pg_diff(const pg_img *a, const pg_img *b, const pg_diff_opts *o, pg_diff_result *r, pg_img **diff,
               pg_error *e);

#endif
