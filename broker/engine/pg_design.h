/* SPDX-License-Identifier: MIT */
/* pg_design.h - design fidelity: how closely a candidate UI image reproduces
 * a reference, as one 0-100 score, five sub-scores, a list of concrete
 * findings and diagnostic images (docs/design-compare.md explains each).
 *
 * Pipeline (pg_design_compare):
 *   1. normalise: both images scaled to the canonical width (768, aspect
 *      kept; exact area averaging down, bilinear up; a canvas taller than
 *      PG_DESIGN_MAX_HEIGHT lowers the width for both), the shorter padded
 *      at the bottom with its own modal background to a common canvas; a
 *      height difference above 2 % is an aspect_mismatch finding;
 *   2. ignore rectangles (reference pixels) are painted with each image's
 *      background and their SSIM windows left out;
 *   3. align: screen mode registers an integer translation (zero-mean
 *      normalised correlation, coarse to fine, up to 10 % of each side) and
 *      falls back to identity - saying why - when it does not improve the
 *      correlation; widget mode is identity. Only layout uses the aligned
 *      candidate; the other dimensions see positions as they are;
 *   4. five dimensions, each 0-100 or not scored (null) with its reason:
 *      layout     SSIM of the aligned grey images, window pg_ssim_auto_win
 *                 (min(7, h, w), odd): clamp(SSIM, 0, 1) * 100;
 *      color      k-means (k 6, fixed seed) in CIELAB of a 160-px-wide
 *                 downsample, palettes paired (Hungarian) by minimum
 *                 total CIEDE2000 + 20 * (1 - overlap of where the two
 *                 colours are used): 100 * exp(-mean dE / 19), dE of the
 *                 pairs alone;
 *      content    blocks differing from the modal background (Otsu of the
 *                 colour distance, united with an Otsu edge mask, closed,
 *                 8-connected): reference blocks matched at IoU >= 0.3,
 *                 100 * coverage * (1 - 0.5 * min(1, extra / reference));
 *      typography text lines by morphology (gradient, Otsu, wide horizontal
 *                 close, shape filter): 100 * mean of the min/max ratios of
 *                 text amount and median line height;
 *      spacing    margins and vertical gaps between the bands of major
 *                 blocks: per-feature similarity, full within 12 %;
 *   5. overall: weighted geometric mean of the scored dimensions, weights
 *      renormalised over them, each score floored at 1;
 *   6. findings (sorted: severity, dimension, magnitude) and, if asked, the
 *      diagnostic images.
 * All coordinates in the result (boxes, features) are canonical-canvas
 * pixels; norm.ref_scale/cand_scale map them back to the inputs.
 * Deterministic: the same inputs give the same result bit for bit, also
 * across gcc, clang and mingw builds (IEEE basic operations and pg_dmath
 * only; fixed seeds; fixed orders).
 * Errors: PG_E_USAGE for bad options (unknown names, negative or non-finite
 * weights, an ignore rectangle outside the reference); PG_E_INTERNAL when
 * out of memory. A dimension that cannot run is not an error: it is left
 * unscored with its reason and the others still count.
 * Never: touches the platform, files or globals; never decodes; the
 * privacy bounds on what a score may reveal are the caller's (the broker
 * operation), not the engine's.
 * Ownership: pg_design_compare allocates the result (about 28 KB, with the
 * diagnostic images it points to); pg_design_result_free releases both.
 * Strings in the result are either static or held inside it.
 */
#ifndef PG_DESIGN_H
#define PG_DESIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_color.h"
#include "pg_error.h"
#include "pg_img.h"

#define PG_DESIGN_CANON_W 768
#define PG_DESIGN_MAX_HEIGHT 4096
#define PG_DESIGN_MAX_IGNORE 32
#define PG_DESIGN_PALETTE 6
#define PG_DESIGN_COLOR_W 160
#define PG_DESIGN_MAX_REGIONS 64
#define PG_DESIGN_MAX_GAPS 16
#define PG_DESIGN_MAX_FEATURES (4 + PG_DESIGN_MAX_GAPS)
#define PG_DESIGN_MAX_FINDINGS 40
#define PG_DESIGN_MAX_WEIGHT 100.0

typedef enum { PG_DESIGN_SCREEN = 0, PG_DESIGN_WIDGET } pg_design_mode;
typedef enum { PG_DESIGN_PRESET_DEFAULT = 0, PG_DESIGN_PRESET_DARK_UI } pg_design_preset;
typedef enum {
    PG_DESIGN_LAYOUT = 0,
    PG_DESIGN_COLOR,
    PG_DESIGN_CONTENT,
    PG_DESIGN_TYPOGRAPHY,
    PG_DESIGN_SPACING,
    PG_DESIGN_NDIM
} pg_design_dim_id;
typedef enum { PG_DESIGN_LOW = 0, PG_DESIGN_MEDIUM, PG_DESIGN_HIGH } pg_design_severity;

typedef struct {
    pg_design_mode mode;               /* default screen */
    pg_design_preset preset;           /* default "default" */
    double weights[PG_DESIGN_NDIM];    /* override the preset where weight_set */
    bool weight_set[PG_DESIGN_NDIM];
    size_t n_ignore;
    pg_img_rect ignore[PG_DESIGN_MAX_IGNORE]; /* reference-image pixels */
    bool visuals;                      /* make the diagnostic images; default true */
} pg_design_opts;

void pg_design_opts_init(pg_design_opts *o);

/* Names on the wire: "layout", "color", "content", "typography", "spacing";
 * "screen"/"widget"; "default"/"dark-ui"; "high"/"medium"/"low". */
const char *pg_design_dim_name(pg_design_dim_id d);
const char *pg_design_mode_name(pg_design_mode m);
const char *pg_design_preset_name(pg_design_preset p);
const char *pg_design_severity_name(pg_design_severity s);
pg_err pg_design_mode_parse(const char *name, pg_design_mode *m, pg_error *e);
pg_err pg_design_preset_parse(const char *name, pg_design_preset *p, pg_error *e);
/* One explicit weight: name as above, 0 <= value <= PG_DESIGN_MAX_WEIGHT. */
pg_err pg_design_set_weight(pg_design_opts *o, const char *name, double value, pg_error *e);
/* Explicit weights as text: "layout=0.5,color=0.2" (names as above, values
 * decimal numbers in range, no spaces, at most 5 pairs; a later pair for the
 * same dimension wins). On PG_E_USAGE o is unchanged. */
pg_err pg_design_weights_parse(pg_design_opts *o, const char *spec, pg_error *e);
/* A preset's weights, in pg_design_dim_id order. */
void pg_design_preset_weights(pg_design_preset p, double w[PG_DESIGN_NDIM]);

/* The aggregation alone: weighted geometric mean of the scored dimensions
 * (weights renormalised over them, scores clamped to [1, 100]). Returns
 * false - no overall - when no scored dimension has weight. */
bool pg_design_aggregate(const double score[PG_DESIGN_NDIM], const bool scored[PG_DESIGN_NDIM],
                         const double weight[PG_DESIGN_NDIM], double *overall, double effective[PG_DESIGN_NDIM]);

typedef struct {
    bool scored;
    double score;           /* 0..100 when scored */
    const char *reason;     /* what the dimension measures */
    char note[160];         /* why it is not scored (empty when scored) */
} pg_design_dim;

typedef struct {
    uint8_t rgb[3];
    char hex[8];
    double share; /* of the image's sampled pixels */
    pg_lab lab;
} pg_design_swatch;

typedef struct {
    pg_img_rect box;
    uint64_t pixels;
    int match;  /* index on the other side, -1 when unmatched */
    double iou; /* with that match */
} pg_design_region;

typedef struct {
    char name[16];          /* left_margin, right_margin, top_margin, bottom_margin, gap_1.. */
    bool in_ref, in_cand;   /* a gap may exist on one side only */
    double ref, cand;       /* canonical pixels */
    double similarity;      /* 0..1 */
} pg_design_feature;

typedef struct {
    const char *area;       /* a dimension name */
    const char *type;       /* aspect_mismatch, alignment_shift, alignment_fallback, structure_diff,
                               color_shift, color_missing, color_extra, missing_region, extra_region,
                               moved_region, text_missing, text_extra, text_amount, text_scale,
                               margin_mismatch, gap_mismatch, gap_missing, gap_extra */
    pg_design_severity severity;
    char observed[200];
    char suggested_fix[200];
    bool has_box;
    pg_img_rect box;        /* canonical pixels (reference side for missing/moved) */
    bool has_to;
    pg_img_rect to;         /* moved_region: where the block sits in the candidate */
    unsigned feature;       /* spacing findings: 1 + the index into spacing.f; 0 otherwise */
    bool has_colors;
    char ref_hex[8], cand_hex[8];
    double magnitude;       /* orders findings of one kind */
} pg_design_finding;

typedef struct {
    pg_design_opts opts;                 /* as given */
    double weights[PG_DESIGN_NDIM];      /* resolved: preset merged with explicit weights */
    double effective[PG_DESIGN_NDIM];    /* renormalised over the scored dimensions (0 elsewhere) */
    bool overall_scored;
    double overall;
    char overall_note[96];
    pg_design_dim dim[PG_DESIGN_NDIM];
    struct {
        uint32_t ref_w, ref_h, cand_w, cand_h; /* inputs */
        uint32_t width, height;                /* the canonical canvas */
        uint32_t ref_height, cand_height;      /* each image's height before padding */
        double ref_scale, cand_scale;          /* canonical / input */
        bool aspect_mismatch;
    } norm;
    struct {
        const char *method;  /* "translation" or "identity" */
        bool fallback;       /* screen mode that fell back to identity */
        char note[128];
        int dx, dy;          /* candidate content sits at reference + (dx, dy) */
        double cc, cc_identity;
    } align;
    struct {
        double ssim;
        uint32_t win;
        uint64_t windows;
        pg_img_rect area;    /* the overlap compared, reference coordinates */
    } layout;
    struct {
        double mean_de;
        unsigned n_ref, n_cand, n_pairs;
        pg_design_swatch ref[PG_DESIGN_PALETTE], cand[PG_DESIGN_PALETTE];
        int pair[PG_DESIGN_PALETTE]; /* reference swatch i -> candidate swatch, -1 unpaired */
        double pair_de[PG_DESIGN_PALETTE];
    } color;
    struct {
        uint8_t ref_bg[3], cand_bg[3];
        unsigned n_ref, n_cand, matched, missing, extra;
        double coverage, extra_ratio;
        pg_design_region ref[PG_DESIGN_MAX_REGIONS], cand[PG_DESIGN_MAX_REGIONS];
    } content;
    struct {
        unsigned ref_lines, cand_lines;
        double ref_amount, cand_amount; /* text-line area / canvas area */
        double ref_height, cand_height; /* median text-line height, px */
        double amount_ratio, scale_ratio;
    } typography;
    struct {
        unsigned ref_blocks, cand_blocks, ref_bands, cand_bands;
        unsigned n_features;
        pg_design_feature f[PG_DESIGN_MAX_FEATURES];
    } spacing;
    size_t n_findings, findings_total; /* kept, and found before the cap */
    pg_design_finding findings[PG_DESIGN_MAX_FINDINGS];
    const char *critique_rubric;
    /* Diagnostic images (NULL unless opts.visuals), canonical canvas size:
     * overlay 50/50 of reference and aligned candidate; heatmap of 1 - SSIM
     * (dark = equal, red to yellow = different); regions on the reference
     * (green matched, red missing, orange extra); side by side (2W + 8). */
    pg_img *overlay, *heatmap, *regions, *side_by_side;
} pg_design_result;

/* The result as JSON (what the broker answers; the images are not in it):
 * a new cJSON object the caller owns (cJSON_Delete). Numbers carry fixed
 * decimals (scores 2, SSIM 6, dE 2, ratios 4), so the printed text is
 * byte-identical run after run and build after build. */
struct cJSON;
pg_err pg_design_result_json(const pg_design_result *r, struct cJSON **out, pg_error *e);

pg_err pg_design_compare(const pg_img *ref, const pg_img *cand, const pg_design_opts *o, pg_design_result **out,
                         pg_error *e);
void pg_design_result_free(pg_design_result *r); /* NULL is fine */

#endif
