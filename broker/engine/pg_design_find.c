/* SPDX-License-Identifier: MIT */
/* Design comparison: collecting, ordering and capping the findings, the
 * critique rubric, and small helpers the stages share. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_design_int.h"

pg_design_finding *pg_dz_finding(pg_dz *z, const char *area, const char *type, pg_design_severity sev,
                                 double magnitude) {
    z->r->findings_total++;
    /* Past the limit, the last slot is scratch: overwritten, never sorted
     * in twice (n_pending stops at the limit). */
    pg_design_finding *f = &z->pending[z->n_pending < PG_DZ_PENDING ? z->n_pending++ : PG_DZ_PENDING - 1];
    memset(f, 0, sizeof *f);
    f->area = area, f->type = type, f->severity = sev, f->magnitude = magnitude;
    return f;
}

static int area_rank(const char *area) {
    for (int d = 0; d < PG_DESIGN_NDIM; d++)
        if (!strcmp(area, pg_design_dim_name((pg_design_dim_id)d))) return d;
    return PG_DESIGN_NDIM;
}

/* Stable order: severity, then dimension, then magnitude, then found first. */
static int before(const pg_design_finding *a, size_t ia, const pg_design_finding *b, size_t ib) {
    if (a->severity != b->severity) return a->severity > b->severity;
    int ra = area_rank(a->area), rb = area_rank(b->area);
    if (ra != rb) return ra < rb;
    if (a->magnitude != b->magnitude) return a->magnitude > b->magnitude;
    return ia < ib;
}

void pg_dz_findings_finish(pg_dz *z) {
    size_t n = z->n_pending, idx[PG_DZ_PENDING];
    for (size_t i = 0; i < n; i++) idx[i] = i;
    for (size_t i = 1; i < n; i++) /* insertion sort on indices: n is small, the order total */
        for (size_t j = i; j > 0 && before(&z->pending[idx[j]], idx[j], &z->pending[idx[j - 1]], idx[j - 1]); j--) {
            size_t t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
    pg_design_result *r = z->r;
    r->n_findings = n < PG_DESIGN_MAX_FINDINGS ? n : PG_DESIGN_MAX_FINDINGS;
    for (size_t i = 0; i < r->n_findings; i++) r->findings[i] = z->pending[idx[i]];
}

const char *pg_dz_rubric(void) {
    return "Turn this comparison into a short, ordered fix list. "
           "1) Read the subscores: the lowest scored dimension drags 'overall' down most (geometric mean); "
           "a null dimension did not apply and is not a failure. "
           "2) Fix structure first: content missing_region / moved_region / extra_region (boxes are canonical "
           "pixels; divide by the candidate scale for its own pixels), then layout structure_diff areas "
           "(see the SSIM heatmap and the side-by-side image). "
           "3) Then colour: each color_shift names the candidate hex and the reference hex to move toward. "
           "4) Then spacing (margins, gaps between rows of blocks) and typography (text amount and line "
           "height only: font family and weight are not measured - judge them on the side-by-side image). "
           "5) Ignore findings inside areas you know differ on purpose (pass them as ignore rectangles). "
           "Re-run after each fix: the score is deterministic and should rise.";
}

void pg_dz_unscored(pg_dz *z, pg_design_dim_id d, const char *fmt, ...) {
    pg_design_dim *x = &z->r->dim[d];
    x->scored = false;
    x->score = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->note, sizeof x->note, fmt, ap);
    va_end(ap);
}

void pg_dz_scored(pg_dz *z, pg_design_dim_id d, double score) {
    pg_design_dim *x = &z->r->dim[d];
    x->scored = true;
    x->score = score < 0 ? 0 : score > 100 ? 100 : score;
    x->note[0] = '\0';
}

double pg_dz_iou(const pg_img_rect *a, const pg_img_rect *b) {
    uint64_t x0 = a->x > b->x ? a->x : b->x, y0 = a->y > b->y ? a->y : b->y;
    uint64_t ax1 = (uint64_t)a->x + a->w, bx1 = (uint64_t)b->x + b->w, ay1 = (uint64_t)a->y + a->h,
             by1 = (uint64_t)b->y + b->h;
    uint64_t x1 = ax1 < bx1 ? ax1 : bx1, y1 = ay1 < by1 ? ay1 : by1;
    if (x1 <= x0 || y1 <= y0) return 0;
    uint64_t inter = (x1 - x0) * (y1 - y0);
    uint64_t uni = (uint64_t)a->w * a->h + (uint64_t)b->w * b->h - inter;
    return (double)inter / (double)uni;
}

pg_design_severity pg_dz_area_severity(const pg_dz *z, const pg_img_rect *box) {
    double f = (double)box->w * box->h / ((double)z->W * z->H);
    return f >= 0.02 ? PG_DESIGN_HIGH : f >= 0.005 ? PG_DESIGN_MEDIUM : PG_DESIGN_LOW;
}

long pg_dz_to_cand_px(const pg_dz *z, double canonical) {
    return (long)floor(canonical / z->r->norm.cand_scale + 0.5);
}
