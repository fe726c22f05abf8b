/* SPDX-License-Identifier: MIT */
/* pg_template.h - find a template in an image by normalised cross-correlation.
 *
 * Does: the score of OpenCV's matchTemplate with TM_CCOEFF_NORMED on grey
 * images: for a window W at position (x,y),
 *     score = sum((T - mean T)(W - mean W)) / sqrt(sum (T - mean T)^2 * sum (W - mean W)^2)
 * and 0 where the window is flat (as OpenCV). Grey is OpenCV 4's
 * cvtColor(RGB2GRAY) on 8 bits, byte for byte (its 15-bit fixed point,
 * checked against OpenCV 4.6 by the oracle test):
 * Y = (9798 R + 19235 G + 3735 B + 16384) >> 15; alpha is ignored
 * (OpenCV's imread drops it the same way).
 * Exactness: candidates come from a single-precision FFT correlation with a
 * guaranteed error bound; every position whose score the bound could move
 * to the top (or across the threshold) is recomputed exactly with integer
 * sums, so the best position and its score are those of exact arithmetic;
 * ties go to the top-most, then left-most position. Deterministic.
 * All matches: every position scoring >= threshold, greedily kept from the
 * highest down while its box overlaps no box already kept (non-maximum
 * suppression), at most PG_TEMPLATE_MAX_MATCHES.
 * Errors (PG_E_USAGE): a template larger than the searched area, with more
 * than PG_TEMPLATE_MAX_TEMPLATE_PIXELS or taller than 66051 pixels.
 * A single-grey template has no correlation defined (OpenCV answers 1
 * everywhere): it matches nothing, with flat set, found false and best the
 * search area's first position with score 0.
 * A search without any match above the threshold is not an error: found is
 * false and best still holds the highest score.
 * Never: touches the platform, keeps state; memory is a few floats per
 * pixel of the searched area, freed before returning - or kept in a
 * pg_template_ws the caller owns, for loops matching frame after frame (the
 * kernel's page faults for fresh memory cost a third of a search here).
 * Ownership: the result is a plain value; a pg_template_ws belongs to its
 * creator, holds only scratch memory (no result, no state between calls
 * that could change an answer) and is used by one thread at a time.
 */
#ifndef PG_TEMPLATE_H
#define PG_TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"
#include "pg_img.h"

#define PG_TEMPLATE_MAX_MATCHES 100
#define PG_TEMPLATE_MAX_TEMPLATE_PIXELS ((uint32_t)4 << 20)

typedef enum { PG_TEMPLATE_AUTO = 0, PG_TEMPLATE_FFT, PG_TEMPLATE_DIRECT } pg_template_method;

typedef struct {
    double threshold;          /* found when best >= threshold; default 0.8 */
    bool all;                  /* also list every match >= threshold (after NMS) */
    const pg_img_rect *region; /* search only here (image coordinates); NULL: everywhere */
    pg_template_method method;     /* AUTO picks by cost; the others are for tests */
} pg_template_opts;

typedef struct {
    pg_img_rect box; /* where the template's top-left lands, image coordinates */
    double score;    /* -1..1 */
} pg_template_hit;

typedef struct {
    bool found;         /* best.score >= threshold */
    pg_template_hit best;   /* centre: box.x + box.w/2, box.y + box.h/2 */
    size_t n_matches;   /* with opts.all */
    pg_template_hit matches[PG_TEMPLATE_MAX_MATCHES];
    uint64_t verified;  /* positions recomputed exactly (diagnostics) */
    bool flat;          /* the template is one grey level: not searched, found false */
} pg_template_result;

void pg_template_opts_init(pg_template_opts *o);

pg_err pg_template_match(const pg_img *img, const pg_img *tmpl, const pg_template_opts *o, pg_template_result *r,
                     pg_error *e);

/* Reusable scratch memory for repeated matches (e.g. wait-for polling). */
typedef struct pg_template_ws pg_template_ws;
pg_err pg_template_ws_new(pg_template_ws **out, pg_error *e);
void pg_template_ws_free(pg_template_ws *ws); /* NULL is fine */
/* pg_template_match with the scratch memory of ws (same results). */
pg_err pg_template_match_ws(pg_template_ws *ws, const pg_img *img, const pg_img *tmpl, const pg_template_opts *o,
                        pg_template_result *r, pg_error *e);

/* OpenCV's RGB2GRAY of one image into w*h bytes (tight). */
void pg_template_grey(const pg_img *img, uint8_t *out);

#endif
