/* SPDX-License-Identifier: MIT */
/* pg_motion.h - motion fidelity: does a candidate animate with the energy
 * and rhythm of the reference? Compares two frame series, not their looks.
 *
 * Does:
 *   - signature of a series: for each consecutive pair of frames, the mean
 *     absolute difference of their grey planes (pg_template's grey), / 255,
 *     so each value is in [0, 1]; exact integer sums;
 *   - energy = the mean of the signature; a series whose energy is below
 *     PG_MOTION_STATIC (0.0008) is static;
 *   - energy_ratio = min / max of the two energies (1 when both are 0);
 *   - motion_score = 0 when exactly one series moves, 100 * energy_ratio
 *     when both move, 100 when both are static (nothing moves on either side,
 *     so they agree; the note says so);
 *   - temporal_corr = Pearson correlation of the two signatures over their
 *     common length, undefined (JSON null, with the reason) when either
 *     series is static, the common length is below 3, or a signature is
 *     flat (steady motion has no temporal profile). It is phase-sensitive:
 *     the same animation captured from another start can correlate low.
 *   - a signature plot (reference green, candidate blue, the static level
 *     dashed grey) as an image.
 * Series may differ in frame size and count from each other; the frames of
 * one series must share one size. The content of the frames does not
 * matter: only how much they change.
 * Deterministic: integer sums, IEEE basic operations and sqrt only.
 * Errors: PG_E_USAGE for fewer than 2 or more than PG_MOTION_MAX_FRAMES
 * frames in a series; PG_E_BADINPUT when frames of one series differ in
 * size; PG_E_INTERNAL when out of memory.
 * Never: touches the platform, files or globals; memory is two grey rows.
 * Ownership: frames are the caller's; the result is a plain value (about
 * 10 KB: allocate it rather than put it on a small stack); the plot
 * is a new image the caller frees (pg_img_free); the JSON a new cJSON
 * object the caller deletes.
 */
#ifndef PG_MOTION_H
#define PG_MOTION_H

#include <stdbool.h>
#include <stddef.h>

#include "pg_error.h"
#include "pg_img.h"

#define PG_MOTION_MAX_FRAMES 600
#define PG_MOTION_STATIC 0.0008

typedef struct {
    size_t n_ref, n_cand;                        /* frames */
    double ref_sig[PG_MOTION_MAX_FRAMES - 1];    /* n_ref - 1 values */
    double cand_sig[PG_MOTION_MAX_FRAMES - 1];
    double ref_energy, cand_energy, energy_ratio;
    bool ref_moving, cand_moving;
    bool corr_defined;
    double temporal_corr;
    size_t corr_len;                             /* signature values correlated */
    double motion_score;
    char note[128];                              /* why temporal_corr is null; both static */
} pg_motion_result;

/* sig gets n - 1 values. */
pg_err pg_motion_signature(const pg_img *const *frames, size_t n, double *sig, pg_error *e);

pg_err pg_motion_compare(const pg_img *const *ref, size_t n_ref, const pg_img *const *cand, size_t n_cand,
                         pg_motion_result *r, pg_error *e);

/* Everything after the signatures, again, from r->n_ref, r->n_cand and the
 * signatures as they are now (pg_motion_compare ends with it): energies,
 * ratio, moving flags, motion_score, temporal_corr and the note. A caller
 * that must report coarser signatures rounds them and calls this, so every
 * number it reports follows from the rounded values alone. n_ref and n_cand
 * must be 2..PG_MOTION_MAX_FRAMES. */
void pg_motion_summarise(pg_motion_result *r);

/* The plot, PG_MOTION_PLOT_W x PG_MOTION_PLOT_H. */
#define PG_MOTION_PLOT_W 640
#define PG_MOTION_PLOT_H 240
pg_err pg_motion_plot(const pg_motion_result *r, pg_img **out, pg_error *e);

/* ref_energy, cand_energy, energy_ratio, temporal_corr (or null and
 * temporal_corr_note), ref_moving, cand_moving, motion_score,
 * static_threshold, frames, signatures; fixed decimals as pg_design. */
struct cJSON;
pg_err pg_motion_result_json(const pg_motion_result *r, struct cJSON **out, pg_error *e);

#endif
