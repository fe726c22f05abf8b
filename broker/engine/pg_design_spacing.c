/* SPDX-License-Identifier: MIT */
/* Design comparison, spacing: outer margins and the vertical rhythm of the
 * major blocks (content blocks covering at least 1 % of the canvas, not
 * nested in another). Blocks that overlap vertically form one band (a row
 * of cards); the gaps between bands, in order, are the rhythm. A feature is
 * fully similar within 12 % (relative to the larger value, or to 2 % of the
 * canvas side when both are small), falling linearly to 0 at 100 %. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_design_int.h"

#define TOL 0.12

typedef struct {
    uint32_t y0, y1;
} band;

typedef struct {
    unsigned n_blocks, n_bands;
    uint32_t left, right, top, bottom;
    band b[PG_DESIGN_MAX_REGIONS];
} layout_of;

static int inside(const pg_img_rect *a, const pg_img_rect *b) {
    return a->x >= b->x && a->y >= b->y && a->x + a->w <= b->x + b->w && a->y + a->h <= b->y + b->h;
}

static int band_cmp(const void *a, const void *b) {
    const band *x = a, *y = b;
    if (x->y0 != y->y0) return x->y0 < y->y0 ? -1 : 1;
    return x->y1 < y->y1 ? -1 : x->y1 > y->y1;
}

static void measure(const pg_dz *z, const pg_dz_side *s, layout_of *l) {
    uint64_t min_area = (uint64_t)z->W * z->H / 100;
    const pg_img_rect *major[PG_DESIGN_MAX_REGIONS];
    unsigned n = 0;
    for (size_t i = 0; i < s->n_blocks; i++)
        if ((uint64_t)s->blocks[i].box.w * s->blocks[i].box.h >= min_area) major[n++] = &s->blocks[i].box;
    memset(l, 0, sizeof *l);
    uint32_t x0 = UINT32_MAX, y0 = UINT32_MAX, x1 = 0, y1 = 0;
    for (unsigned i = 0; i < n; i++) {
        int nested = 0;
        for (unsigned j = 0; j < n && !nested; j++) nested = j != i && inside(major[i], major[j]) &&
                                                   !(inside(major[j], major[i]) && j > i); /* equal boxes: keep one */
        if (nested) continue;
        const pg_img_rect *b = major[i];
        l->b[l->n_blocks++] = (band){b->y, b->y + b->h};
        if (b->x < x0) x0 = b->x;
        if (b->y < y0) y0 = b->y;
        if (b->x + b->w > x1) x1 = b->x + b->w;
        if (b->y + b->h > y1) y1 = b->y + b->h;
    }
    if (!l->n_blocks) return;
    l->left = x0, l->right = z->W - x1, l->top = y0, l->bottom = s->height > y1 ? s->height - y1 : 0;
    qsort(l->b, l->n_blocks, sizeof l->b[0], band_cmp);
    unsigned k = 0;
    for (unsigned i = 1; i < l->n_blocks; i++) { /* merge vertical overlaps into bands */
        if (l->b[i].y0 < l->b[k].y1) {
            if (l->b[i].y1 > l->b[k].y1) l->b[k].y1 = l->b[i].y1;
        } else {
            l->b[++k] = l->b[i];
        }
    }
    l->n_bands = k + 1;
}

static double similarity(double a, double b, double side) {
    double floor = 0.02 * side, m = a > b ? a : b;
    if (m < floor) m = floor;
    double r = fabs(a - b) / m;
    if (r <= TOL) return 1.0;
    double s = 1.0 - (r - TOL) / (1.0 - TOL);
    return s > 0 ? s : 0;
}

static void add_feature(pg_design_result *r, const char *name, int in_ref, double a, int in_cand, double b,
                        double side) {
    if (r->spacing.n_features >= PG_DESIGN_MAX_FEATURES) return;
    pg_design_feature *f = &r->spacing.f[r->spacing.n_features++];
    snprintf(f->name, sizeof f->name, "%s", name);
    f->in_ref = in_ref, f->in_cand = in_cand;
    f->ref = in_ref ? a : 0, f->cand = in_cand ? b : 0;
    f->similarity = in_ref && in_cand ? similarity(a, b, side) : 0;
}

static void feature_finding(pg_dz *z, const pg_design_feature *f, const layout_of *ref, unsigned gap) {
    if (f->similarity >= 1.0) return;
    int is_gap = gap > 0;
    const char *type = !is_gap ? "margin_mismatch" : !f->in_cand ? "gap_missing" : !f->in_ref ? "gap_extra" : "gap_mismatch";
    pg_design_severity sev = f->similarity < 0.5 ? PG_DESIGN_HIGH : f->similarity < 0.8 ? PG_DESIGN_MEDIUM : PG_DESIGN_LOW;
    pg_design_finding *fd = pg_dz_finding(z, "spacing", type, sev, 1.0 - f->similarity);
    fd->feature = 1 + (unsigned)(f - z->r->spacing.f);
    if (is_gap && f->in_ref) {
        fd->has_box = true;
        fd->box = (pg_img_rect){0, ref->b[gap - 1].y1, z->W, ref->b[gap].y0 - ref->b[gap - 1].y1};
        if (fd->box.h == 0) fd->box.h = 1;
    }
    if (f->in_ref && f->in_cand) {
        snprintf(fd->observed, sizeof fd->observed, "%s is %.0f px in the candidate, %.0f px in the reference (canonical)",
                 f->name, f->cand, f->ref);
        snprintf(fd->suggested_fix, sizeof fd->suggested_fix, "make %s about %ld px in the candidate (now %ld)", f->name,
                 pg_dz_to_cand_px(z, f->ref), pg_dz_to_cand_px(z, f->cand));
    } else if (f->in_ref) {
        snprintf(fd->observed, sizeof fd->observed, "%s (%.0f px in the reference) has no counterpart in the candidate",
                 f->name, f->ref);
        snprintf(fd->suggested_fix, sizeof fd->suggested_fix, "restore the reference's rows of blocks and their spacing");
    } else {
        snprintf(fd->observed, sizeof fd->observed, "the candidate has an extra %s (%.0f px)", f->name, f->cand);
        snprintf(fd->suggested_fix, sizeof fd->suggested_fix, "remove the extra row of blocks, or merge it");
    }
}

pg_err pg_dz_spacing(pg_dz *z, pg_error *e) {
    (void)e;
    pg_design_result *r = z->r;
    layout_of a, b;
    measure(z, &z->ref, &a);
    measure(z, &z->cand, &b);
    r->spacing.ref_blocks = a.n_blocks, r->spacing.cand_blocks = b.n_blocks;
    r->spacing.ref_bands = a.n_bands, r->spacing.cand_bands = b.n_bands;
    if (a.n_blocks < 2) {
        pg_dz_unscored(z, PG_DESIGN_SPACING, "%u major block(s) in the reference: too few for margins and rhythm",
                       a.n_blocks);
        return PG_OK;
    }
    int c = b.n_blocks > 0;
    add_feature(r, "left_margin", 1, a.left, c, b.left, z->W);
    add_feature(r, "right_margin", 1, a.right, c, b.right, z->W);
    add_feature(r, "top_margin", 1, a.top, c, b.top, z->H);
    add_feature(r, "bottom_margin", 1, a.bottom, c, b.bottom, z->H);
    unsigned ga = a.n_bands - 1, gb = b.n_bands ? b.n_bands - 1 : 0, gn = ga > gb ? ga : gb;
    if (gn > PG_DESIGN_MAX_GAPS) gn = PG_DESIGN_MAX_GAPS;
    for (unsigned g = 1; g <= gn; g++) {
        char name[16];
        snprintf(name, sizeof name, "gap_%u", g);
        add_feature(r, name, g <= ga, g <= ga ? a.b[g].y0 - a.b[g - 1].y1 : 0, g <= gb,
                    g <= gb ? b.b[g].y0 - b.b[g - 1].y1 : 0, z->H);
    }
    double sum = 0;
    for (unsigned i = 0; i < r->spacing.n_features; i++) {
        sum += r->spacing.f[i].similarity;
        feature_finding(z, &r->spacing.f[i], &a, i >= 4 ? i - 3 : 0);
    }
    pg_dz_scored(z, PG_DESIGN_SPACING, 100.0 * sum / r->spacing.n_features);
    return PG_OK;
}
