/* SPDX-License-Identifier: MIT */
/* pg_design_int.h - engine-internal: the state shared by the stages of
 * pg_design_compare (pg_design_*.c). One pg_dz per comparison, owned by
 * pg_design_compare and freed before it returns; the result it fills is the
 * caller's.
 * Never: visible outside broker/engine.
 */
#ifndef PG_DESIGN_INT_H
#define PG_DESIGN_INT_H

#include "pg_color.h"
#include "pg_design.h"
#include "pg_regions.h"

#define PG_DZ_PENDING 160 /* findings collected before sorting and the cap */

typedef struct {
    pg_img *img;      /* canonical canvas W x H, padded at the bottom */
    uint8_t *grey;    /* W*H, OpenCV grey */
    uint8_t *grad;    /* W*H, 3x3 morphological gradient of grey */
    uint32_t height;  /* rows before padding */
    uint8_t bg[3];    /* modal background colour */
    pg_region_info blocks[PG_DESIGN_MAX_REGIONS]; /* content segmentation */
    size_t n_blocks;
} pg_dz_side;

typedef struct {
    const pg_design_opts *o;
    pg_design_result *r;
    pg_color_ctx col;
    uint32_t W, H;
    pg_dz_side ref, cand;
    uint8_t *skip;             /* W*H: 1 inside an ignored rectangle; NULL when none */
    float *map;                /* SSIM of each layout window, map_w x map_h */
    uint32_t map_w, map_h;
    pg_design_finding pending[PG_DZ_PENDING];
    size_t n_pending;
} pg_dz;

/* Stages, in order. Each returns an error only for what stops the whole
 * comparison (out of memory, bad options); a dimension that cannot run is
 * recorded as unscored with its note. */
pg_err pg_dz_normalise(pg_dz *z, const pg_img *ref, const pg_img *cand, pg_error *e);
pg_err pg_dz_align(pg_dz *z, pg_error *e);
pg_err pg_dz_layout(pg_dz *z, pg_error *e);
pg_err pg_dz_color(pg_dz *z, pg_error *e);
pg_err pg_dz_content(pg_dz *z, pg_error *e);
pg_err pg_dz_typography(pg_dz *z, pg_error *e);
pg_err pg_dz_spacing(pg_dz *z, pg_error *e);
pg_err pg_dz_visuals(pg_dz *z, pg_error *e);

/* A new pending finding (a scratch slot once PG_DZ_PENDING are held: the
 * total still counts it). Caller fills observed / suggested_fix / box. */
pg_design_finding *pg_dz_finding(pg_dz *z, const char *area, const char *type, pg_design_severity sev,
                                 double magnitude);
/* Sort the pending findings and keep the first PG_DESIGN_MAX_FINDINGS. */
void pg_dz_findings_finish(pg_dz *z);
const char *pg_dz_rubric(void);

/* A dimension left unscored: note printf-style. */
void pg_dz_unscored(pg_dz *z, pg_design_dim_id d, const char *fmt, ...)
#if defined(__MINGW32__)
    __attribute__((format(gnu_printf, 3, 4)))
#elif defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void pg_dz_scored(pg_dz *z, pg_design_dim_id d, double score);

/* Shared helpers. */
double pg_dz_iou(const pg_img_rect *a, const pg_img_rect *b);
pg_design_severity pg_dz_area_severity(const pg_dz *z, const pg_img_rect *box);
/* A canonical length in the candidate's own pixels, rounded. */
long pg_dz_to_cand_px(const pg_dz *z, double canonical);

#endif
