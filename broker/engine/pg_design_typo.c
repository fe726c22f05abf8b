/* SPDX-License-Identifier: MIT */
/* Design comparison, typography: text lines found by morphology, not OCR.
 * The 3x3 gradient above its Otsu threshold (kept within [12, 64]) marks
 * strokes; a wide horizontal close (13x3 at 768) joins letters and words
 * into lines; a component is a line when it is 5 px to 1/8 of the width
 * tall, at least 1.2 times as wide as tall, and fills 35 % of its box (a
 * block's outline is a thin ring and fails that). Amount = line area per
 * canvas area; scale = the median line height. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_design_int.h"
#include "pg_morph.h"

#define MAX_LINES 1024

typedef struct {
    unsigned n;
    double amount, height;
} lines;

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int is_line(const pg_dz *z, const pg_region_info *c) {
    uint32_t w = c->box.w, h = c->box.h, hmax = z->W / 8 > 12 ? z->W / 8 : 12;
    if (h < 5 || h > hmax) return 0;
    if ((uint64_t)w * 5 < (uint64_t)h * 6) return 0;
    return c->pixels * 100 >= (uint64_t)w * h * 35;
}

static pg_err find_lines(const pg_dz *z, const pg_dz_side *s, lines *out, pg_error *e) {
    size_t n = (size_t)z->W * z->H;
    uint8_t *m = malloc(n);
    pg_region_info *c = malloc(sizeof *c * MAX_LINES);
    uint32_t *hs = malloc(sizeof *hs * MAX_LINES);
    if (!m || !c || !hs) {
        free(m), free(c), free(hs);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for text lines");
    }
    uint64_t hist[256] = {0};
    for (size_t i = 0; i < (size_t)z->W * s->height; i++) hist[s->grad[i]]++;
    uint8_t t = pg_morph_otsu(hist);
    t = t < 12 ? 12 : t > 64 ? 64 : t;
    for (size_t i = 0; i < n; i++) m[i] = s->grad[i] > t;
    uint32_t rx = z->W * 6 / PG_DESIGN_CANON_W;
    size_t k = 0;
    pg_err rc = pg_morph_close(m, m, z->W, z->H, rx < 2 ? 2 : rx, 1, e);
    if (!rc) rc = pg_morph_components(m, z->W, z->H, 12, c, MAX_LINES, &k, e);
    double area = 0;
    unsigned nl = 0;
    for (size_t i = 0; !rc && i < k; i++) {
        if (!is_line(z, &c[i])) continue;
        area += (double)c[i].box.w * c[i].box.h;
        hs[nl++] = c[i].box.h;
    }
    qsort(hs, nl, sizeof *hs, cmp_u32);
    *out = (lines){nl, area / ((double)z->W * z->H), nl ? hs[(nl - 1) / 2] : 0};
    free(m), free(c), free(hs);
    return rc;
}

static double ratio(double a, double b) {
    double lo = a < b ? a : b, hi = a < b ? b : a;
    return hi > 0 ? lo / hi : 1.0;
}

static void typo_findings(pg_dz *z) {
    const pg_design_result *r = z->r;
    double ar = r->typography.amount_ratio, sr = r->typography.scale_ratio;
    if (ar < 0.85) {
        int more = r->typography.cand_amount > r->typography.ref_amount;
        pg_design_finding *f = pg_dz_finding(z, "typography", "text_amount",
                                             ar < 0.5 ? PG_DESIGN_HIGH : ar < 0.75 ? PG_DESIGN_MEDIUM : PG_DESIGN_LOW, 1 - ar);
        snprintf(f->observed, sizeof f->observed, "the candidate has %.0f%% %s text area than the reference (%u vs %u lines)",
                 (more ? 1 / ar - 1 : 1 - ar) * 100, more ? "more" : "less", r->typography.cand_lines,
                 r->typography.ref_lines);
        snprintf(f->suggested_fix, sizeof f->suggested_fix, "%s text so that its amount matches the reference",
                 more ? "remove or shorten" : "add the missing");
    }
    if (sr < 0.9) {
        double rh = r->typography.ref_height, ch = r->typography.cand_height;
        pg_design_finding *f = pg_dz_finding(z, "typography", "text_scale",
                                             sr < 0.6 ? PG_DESIGN_HIGH : sr < 0.8 ? PG_DESIGN_MEDIUM : PG_DESIGN_LOW, 1 - sr);
        snprintf(f->observed, sizeof f->observed, "median text line is %.0f px tall in the candidate, %.0f px in the reference",
                 ch, rh);
        snprintf(f->suggested_fix, sizeof f->suggested_fix, "make the type about %.0f%% %s", (ch > rh ? 1 - rh / ch : rh / ch - 1) * 100,
                 ch > rh ? "smaller" : "larger");
    }
}

pg_err pg_dz_typography(pg_dz *z, pg_error *e) {
    pg_design_result *r = z->r;
    lines a, b;
    pg_err rc = find_lines(z, &z->ref, &a, e);
    if (!rc) rc = find_lines(z, &z->cand, &b, e);
    if (rc) return rc;
    r->typography.ref_lines = a.n, r->typography.cand_lines = b.n;
    r->typography.ref_amount = a.amount, r->typography.cand_amount = b.amount;
    r->typography.ref_height = a.height, r->typography.cand_height = b.height;
    r->typography.amount_ratio = ratio(a.amount, b.amount);
    r->typography.scale_ratio = ratio(a.height, b.height);
    if (a.n == 0) {
        pg_dz_unscored(z, PG_DESIGN_TYPOGRAPHY, "no text lines detected in the reference (%u in the candidate)", b.n);
        if (b.n) {
            pg_design_finding *f = pg_dz_finding(z, "typography", "text_extra", PG_DESIGN_LOW, b.n);
            snprintf(f->observed, sizeof f->observed, "the candidate shows %u text lines where the reference has none", b.n);
            snprintf(f->suggested_fix, sizeof f->suggested_fix, "check that the text belongs to the design");
        }
        return PG_OK;
    }
    if (b.n == 0) { /* text lost entirely: a real failure, not "not applicable" */
        pg_dz_scored(z, PG_DESIGN_TYPOGRAPHY, 0);
        pg_design_finding *f = pg_dz_finding(z, "typography", "text_missing", PG_DESIGN_HIGH, a.n);
        snprintf(f->observed, sizeof f->observed, "the reference has %u text lines, the candidate none", a.n);
        snprintf(f->suggested_fix, sizeof f->suggested_fix, "add the reference's text");
        return PG_OK;
    }
    pg_dz_scored(z, PG_DESIGN_TYPOGRAPHY, 100.0 * (0.5 * r->typography.amount_ratio + 0.5 * r->typography.scale_ratio));
    typo_findings(z);
    return PG_OK;
}
