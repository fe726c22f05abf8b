/* SPDX-License-Identifier: MIT */
/* pg_accept.h - the acceptance comparison of a capture against an approved
 * baseline, under the rules frozen with that baseline.
 *
 * Does: pixelmatch semantics through pg_diff (the metric the baseline was
 * approved with, threshold default 0.1, antialiasing excluded unless the
 * rules include it, masks excluded from both counts, no scaling). The
 * changed ratio is changed / unmasked pixels and passes at <= max_ratio
 * (default 0.001). Zones are areas with a tolerance of their own: they are
 * left out of the main comparison and each compared alone with its own
 * threshold and max_ratio; every zone must pass too.
 * Shift-tolerant mode (shift = S > 0, opt in): a changed pixel is forgiven
 * when the baseline has a pixel of its colour (the same colour test,
 * pixelmatch's YIQ delta under the threshold) within S pixels of it in
 * either axis (Chebyshev distance), AND the capture has a pixel of the
 * baseline's colour within S pixels: content that moved by up to S pixels.
 * What it cannot see: anything that moved by up to S pixels (a button 3 px
 * off passes with S >= 3), a recolour to a colour already present within S
 * pixels (a thin line changing to its neighbour's colour), and a glyph
 * changing into one made of the same colours nearby. Regions and bounds
 * are then of the pixels left; forgiven pixels are counted in `shifted` and
 * drawn cyan (0,160,255) in the diff image.
 * Outcomes: PASSED; FAILED (PIXEL_DIFF, ZONE_FAILED, DIMENSION_MISMATCH);
 * BLOCKED (MASK_COVERS_ALL: nothing left to compare; MASK_UNMATCHED: a
 * mask or zone does not touch the image). Never a pass by default.
 * Images: a diff image of the whole capture (pg_diff's colours) and an
 * overlay (the capture with the listed regions outlined in magenta).
 * Never: scales, reads files, keeps state.
 */
#ifndef PG_ACCEPT_H
#define PG_ACCEPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_diff.h"
#include "pg_error.h"
#include "pg_img.h"

#define PG_ACCEPT_MAX_ZONES 16
#define PG_ACCEPT_MAX_SHIFT 8

typedef struct {
    pg_img_rect box;
    double threshold, max_ratio;
} pg_accept_zone;

typedef struct {
    double threshold;      /* default 0.1 */
    double max_ratio;      /* default 0.001 */
    pg_diff_metric metric; /* the baseline's */
    bool include_aa;
    const pg_img_rect *masks;
    size_t n_masks;
    const pg_accept_zone *zones;
    size_t n_zones;
    uint32_t shift; /* 0: off */
} pg_accept_rules;

typedef enum { PG_ACCEPT_PASSED = 0, PG_ACCEPT_FAILED = 1, PG_ACCEPT_BLOCKED = 2 } pg_accept_status;

typedef struct {
    pg_accept_status status;
    const char *reason;   /* PASSED, PIXEL_DIFF, ZONE_FAILED, DIMENSION_MISMATCH, MASK_COVERS_ALL, MASK_UNMATCHED */
    char detail[256];     /* for blocked: what pg_diff said */
    pg_diff_result main;  /* the main comparison, after shift tolerance */
    uint64_t shifted;     /* changed pixels forgiven by shift tolerance */
    double ratio;         /* main.pixels_changed / main.total_pixels */
    size_t n_zones;
    struct {
        uint64_t changed, total;
        double ratio;
        bool passed;
    } zones[PG_ACCEPT_MAX_ZONES];
} pg_accept_result;

void pg_accept_rules_init(pg_accept_rules *r);

/* Compares capture with baseline. PG_OK with r filled (whatever the
 * outcome); errors only for bad rules (PG_E_USAGE) or memory. diff and
 * overlay (may be NULL) get new images when sizes match and nothing blocked. */
pg_err pg_accept_compare(const pg_img *baseline, const pg_img *capture, const pg_accept_rules *rules,
                         pg_accept_result *r, pg_img **diff, pg_img **overlay, pg_error *e);

const char *pg_accept_status_name(pg_accept_status s); /* "passed", "failed", "blocked" */

#endif
