/* SPDX-License-Identifier: MIT */
/* Design comparison, content: the blocks that stand out from each image's
 * modal background, and which reference blocks the candidate reproduces.
 * Foreground = colour distance from the background above an Otsu threshold
 * (kept within [6, 10]: Otsu alone splits text from everything else and
 * would drop faint cards such as white on #f4f5f7, delta 11), united with an
 * edge mask (the 3x3 gradient above its own Otsu threshold, same range),
 * closed with a square of 9 px at 768 so letters and lines merge into
 * blocks, then 8-connected components of at least 0.04 % of the canvas. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_design_int.h"
#include "pg_morph.h"

#define T_LO 6
#define T_HI 10
#define MATCH_IOU 0.3

static uint8_t clamp_t(uint8_t t) { return t < T_LO ? T_LO : t > T_HI ? T_HI : t; }

static uint8_t colour_delta(const uint8_t *p, const uint8_t bg[3]) {
    int d0 = abs(p[0] - bg[0]), d1 = abs(p[1] - bg[1]), d2 = abs(p[2] - bg[2]);
    int m = d0 > d1 ? d0 : d1;
    return (uint8_t)(m > d2 ? m : d2);
}

/* The foreground mask of one side (W*H, 0/1). */
static void foreground(const pg_dz *z, const pg_dz_side *s, uint8_t *mask) {
    uint64_t hd[256] = {0}, hg[256] = {0};
    size_t W = z->W;
    for (uint32_t y = 0; y < s->height; y++) {
        const uint8_t *p = pg_img_row(s->img, y), *g = s->grad + y * W;
        uint8_t *m = mask + y * W;
        for (size_t x = 0; x < W; x++) {
            m[x] = colour_delta(p + 4 * x, s->bg);
            hd[m[x]]++, hg[g[x]]++;
        }
    }
    uint8_t td = clamp_t(pg_morph_otsu(hd)), tg = clamp_t(pg_morph_otsu(hg));
    for (uint32_t y = 0; y < s->height; y++) {
        const uint8_t *g = s->grad + y * W;
        uint8_t *m = mask + y * W;
        for (size_t x = 0; x < W; x++) m[x] = (uint8_t)(m[x] > td || g[x] > tg);
    }
    memset(mask + (size_t)s->height * W, 0, (size_t)(z->H - s->height) * W); /* the padding is background */
}

static pg_err segment(const pg_dz *z, pg_dz_side *s, pg_error *e) {
    uint8_t *mask = malloc((size_t)z->W * z->H);
    if (!mask) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for segmentation");
    foreground(z, s, mask);
    uint32_t r = z->W * 4 / PG_DESIGN_CANON_W;
    if (r < 1) r = 1;
    uint64_t min_px = (uint64_t)z->W * z->H / 2500;
    pg_err rc = pg_morph_close(mask, mask, z->W, z->H, r, r, e);
    if (!rc)
        rc = pg_morph_components(mask, z->W, z->H, min_px > 24 ? min_px : 24, s->blocks, PG_DESIGN_MAX_REGIONS,
                                 &s->n_blocks, e);
    free(mask);
    return rc;
}

typedef struct {
    double iou;
    unsigned i, j;
} cand_pair;

static int pair_cmp(const void *a, const void *b) {
    const cand_pair *x = a, *y = b;
    if (x->iou != y->iou) return x->iou > y->iou ? -1 : 1;
    if (x->i != y->i) return x->i < y->i ? -1 : 1;
    return x->j < y->j ? -1 : x->j > y->j;
}

/* Greedy one-to-one matching, best IoU first (ties: lower indices). */
static pg_err match(pg_dz *z, pg_error *e) {
    pg_design_result *r = z->r;
    unsigned n = r->content.n_ref, m = r->content.n_cand, k = 0;
    cand_pair *p = malloc(sizeof *p * (n * m + 1));
    if (!p) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for region matching");
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < m; j++) {
            double v = pg_dz_iou(&r->content.ref[i].box, &r->content.cand[j].box);
            if (v >= MATCH_IOU) p[k++] = (cand_pair){v, i, j};
        }
    qsort(p, k, sizeof *p, pair_cmp);
    for (unsigned q = 0; q < k; q++) {
        pg_design_region *a = &r->content.ref[p[q].i], *b = &r->content.cand[p[q].j];
        if (a->match >= 0 || b->match >= 0) continue;
        a->match = (int)p[q].j, b->match = (int)p[q].i;
        a->iou = b->iou = p[q].iou;
        r->content.matched++;
    }
    free(p);
    return PG_OK;
}

static void copy_regions(const pg_dz_side *s, pg_design_region *out, unsigned *n) {
    *n = (unsigned)s->n_blocks;
    for (size_t i = 0; i < s->n_blocks; i++) out[i] = (pg_design_region){s->blocks[i].box, s->blocks[i].pixels, -1, 0};
}

/* An unmatched candidate block of about the same size as reference block a:
 * the nearest one (its centre), or -1. */
static int moved_partner(const pg_design_result *r, const pg_design_region *a, const int *used) {
    int best = -1;
    double bd = 0;
    for (unsigned j = 0; j < r->content.n_cand; j++) {
        const pg_design_region *b = &r->content.cand[j];
        if (b->match >= 0 || used[j]) continue;
        double rw = (double)b->box.w / a->box.w, rh = (double)b->box.h / a->box.h;
        if (rw < 0.8 || rw > 1.25 || rh < 0.8 || rh > 1.25) continue;
        double dx = (b->box.x + b->box.w / 2.0) - (a->box.x + a->box.w / 2.0);
        double dy = (b->box.y + b->box.h / 2.0) - (a->box.y + a->box.h / 2.0);
        double d = dx * dx + dy * dy;
        if (best < 0 || d < bd) best = (int)j, bd = d;
    }
    return best;
}

static void region_finding(pg_dz *z, const pg_design_region *a, const char *type, const pg_design_region *b) {
    pg_design_severity sev = pg_dz_area_severity(z, &a->box);
    pg_design_finding *f = pg_dz_finding(z, "content", type, sev, (double)a->box.w * a->box.h);
    const pg_img_rect *x = &a->box;
    f->has_box = true, f->box = *x;
    if (b) {
        f->has_to = true, f->to = b->box;
        int dx = (int)b->box.x - (int)x->x, dy = (int)b->box.y - (int)x->y;
        snprintf(f->observed, sizeof f->observed,
                 "reference block at x=%u,y=%u (%ux%u) appears at x=%u,y=%u in the candidate (moved %d,%d)", x->x, x->y,
                 x->w, x->h, b->box.x, b->box.y, dx, dy);
        snprintf(f->suggested_fix, sizeof f->suggested_fix, "move it back by %ld,%ld px in the candidate",
                 pg_dz_to_cand_px(z, -dx), pg_dz_to_cand_px(z, -dy));
    } else if (!strcmp(type, "missing_region")) {
        snprintf(f->observed, sizeof f->observed, "reference block at x=%u,y=%u (%ux%u) is missing", x->x, x->y, x->w,
                 x->h);
        snprintf(f->suggested_fix, sizeof f->suggested_fix, "add the missing element at this position");
    } else {
        snprintf(f->observed, sizeof f->observed, "the candidate has an extra block at x=%u,y=%u (%ux%u)", x->x, x->y,
                 x->w, x->h);
        snprintf(f->suggested_fix, sizeof f->suggested_fix, "remove it, or check that the design has it");
    }
}

static void content_findings(pg_dz *z) {
    const pg_design_result *r = z->r;
    int used[PG_DESIGN_MAX_REGIONS] = {0};
    for (unsigned i = 0; i < r->content.n_ref; i++) {
        const pg_design_region *a = &r->content.ref[i];
        if (a->match >= 0) continue;
        int j = moved_partner(r, a, used);
        if (j >= 0) used[j] = 1;
        region_finding(z, a, j >= 0 ? "moved_region" : "missing_region", j >= 0 ? &r->content.cand[j] : NULL);
    }
    for (unsigned j = 0; j < r->content.n_cand; j++)
        if (r->content.cand[j].match < 0 && !used[j]) region_finding(z, &r->content.cand[j], "extra_region", NULL);
}

pg_err pg_dz_content(pg_dz *z, pg_error *e) {
    pg_design_result *r = z->r;
    pg_err rc = segment(z, &z->ref, e);
    if (!rc) rc = segment(z, &z->cand, e);
    if (rc) return rc;
    copy_regions(&z->ref, r->content.ref, &r->content.n_ref);
    copy_regions(&z->cand, r->content.cand, &r->content.n_cand);
    if (r->content.n_ref == 0) {
        pg_dz_unscored(z, PG_DESIGN_CONTENT, "no blocks detected in the reference (%u in the candidate)",
                       r->content.n_cand);
        return PG_OK;
    }
    rc = match(z, e);
    if (rc) return rc;
    r->content.missing = r->content.n_ref - r->content.matched;
    r->content.extra = r->content.n_cand - r->content.matched;
    r->content.coverage = (double)r->content.matched / r->content.n_ref;
    r->content.extra_ratio = (double)r->content.extra / r->content.n_ref;
    double x = r->content.extra_ratio > 1 ? 1 : r->content.extra_ratio;
    pg_dz_scored(z, PG_DESIGN_CONTENT, 100.0 * r->content.coverage * (1.0 - 0.5 * x));
    content_findings(z);
    return PG_OK;
}
