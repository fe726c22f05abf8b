/* pg_diff.h - compare two images with pixelmatch's semantics, plus masks,
 * a region, connected regions of change and an optional diff image.
 *
 * Does: for every compared pixel, the YIQ colour delta of pixelmatch 7.2
 * (Kotsarenko & Ramos constants; translucent pixels blended over white, or
 * over pixelmatch's checkerboard when asked); a pixel whose |delta| exceeds
 * 35215 * threshold^2 is changed unless pixelmatch's antialiasing detector
 * (Vysniauskas 2009, with its 3-equal-siblings test in both images) claims it
 * for either image, in which case it is counted as antialiased and excluded
 * (include_aa counts it as changed instead). Counts equal pixelmatch's return
 * value on the same (cropped) pixels, bit for bit: the same IEEE double
 * operations in the same order.
 * Masks: rectangles in image coordinates whose pixels count neither as
 * changed nor in total_pixels (the antialiasing detector still reads their
 * pixels as neighbours). A mask must be non-empty and touch the image; masks
 * are clipped to the compared area. Masks leaving nothing to compare are an
 * error (PG_E_USAGE), never a pass.
 * Region: both images are cropped to it before comparing (it must lie inside
 * them); result coordinates are in full-image coordinates.
 * Sizes: images of different dimensions are never scaled: the result says
 * sizes_match = false with both sizes and pg_diff returns PG_E_ASSERT.
 * Regions of change: 8-connected components of the changed pixels; the
 * PG_DIFF_MAX_REGIONS largest (by pixel count, ties by top-left y then x)
 * are listed, region_count says how many exist, bounds covers them all.
 * Diff image (optional, the compared area's size, opaque): changed red
 * (255,0,0), antialiased yellow (255,255,0), unchanged pixels as pixelmatch
 * draws them (img A's luma faded toward white by alpha, truncated to 8 bits),
 * masked pixels as that faded grey tinted blue (R,G scaled by 3/4).
 * Never: scales, reads files, keeps state, or uses more memory than a few
 * bytes per pixel (region bookkeeping is bounded by the changed pixels).
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

typedef struct {
    double threshold;          /* colour tolerance 0..1 (pixelmatch threshold), default 0.1 */
    bool include_aa;           /* count antialiased pixels as changed; default false */
    bool checkerboard;         /* blend translucent pixels over pixelmatch's checkerboard; default false (white) */
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
    uint64_t region_count;   /* connected regions found */
    size_t regions_len;      /* listed: min(region_count, PG_DIFF_MAX_REGIONS) */
    pg_diff_region regions[PG_DIFF_MAX_REGIONS];
} pg_diff_result;

void pg_diff_opts_init(pg_diff_opts *o);

/* Compare a (before) and b (after). o NULL: defaults. diff NULL: no image.
 * PG_OK with r filled; PG_E_ASSERT when sizes differ (r says so);
 * PG_E_USAGE for bad options (threshold outside 0..1, region or mask outside,
 * everything masked). */
pg_err pg_diff(const pg_img *a, const pg_img *b, const pg_diff_opts *o, pg_diff_result *r, pg_img **diff,
               pg_error *e);

#endif
