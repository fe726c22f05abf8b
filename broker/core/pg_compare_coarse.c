/* SPDX-License-Identifier: MIT */
/* A design comparison as the caller may see it when REF or CAND holds pixels
 * it may not have (docs/threat-model.md, "compare"). The shape is the
 * engine's (pg_design_result_json) with fewer and coarser numbers:
 *   - what only one side's pixels decide (its palette, background, counts,
 *     text amount, margins) is exact for a side that is the caller's own
 *     and quantised for a protected side;
 *   - what both decide (scores, SSIM, colour distances, pairings, matches,
 *     offsets, which findings there are) is always quantised;
 *   - scores to whole points, SSIM to 0.01, dE to 0.5, shares to 0.05, hex
 *     colours to 4 bits per channel, boxes and lengths on the 8-px grid, at
 *     most six findings whose texts are written here from those values;
 *     no region lists, IoUs, correlation values or notes with numbers;
 *   - overall, effective weights, coverage and the ratios are computed from
 *     the quantised values, so they reveal nothing more.
 * *bits gets the sum of log2(values each quantised field can take): the
 * charge, an upper bound of what the answer tells. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_design.h"
#include "pg_disclose.h"
#include "pg_call.h"

#define COARSE_FINDINGS 6
#define COARSE_FEATURES 8 /* the four margins and the first four gaps */
#define COARSE_TYPES 18   /* finding types pg_design.h names */

typedef struct {
    const pg_design_result *r;
    bool prot[2]; /* reference, candidate */
    double bits;
    /* coarse values the findings' texts reuse */
    double dx, dy;
    double amount[2], height[2];
    unsigned lines[2];
} coarse;

/* ---- quantisers by who decides the value ---- */

static double side_step(coarse *k, int side, double v, double lo, double hi, double step) {
    return k->prot[side] ? pg_disclose_step(v, lo, hi, step, &k->bits) : v;
}

static double joint_step(coarse *k, double v, double lo, double hi, double step) {
    return pg_disclose_step(v, lo, hi, step, &k->bits);
}

static unsigned side_int(coarse *k, int side, unsigned v, unsigned max) {
    return k->prot[side] ? (unsigned)pg_disclose_int(v, max, &k->bits) : v;
}

static void side_hex(coarse *k, int side, const char *hex, char out[8]) {
    if (!k->prot[side]) {
        memcpy(out, hex, 8);
        return;
    }
    uint8_t rgb[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) rgb[i] = (uint8_t)strtoul((char[3]){hex[1 + 2 * i], hex[2 + 2 * i], 0}, NULL, 16);
    pg_disclose_hex(rgb, out, &k->bits);
}

/* A box of a finding. side 0/1: that side's pixels draw it (a block, a gap);
 * -1: both do. A box on the caller's own side is exact, but which of its at
 * most 64 blocks or gaps a finding names is still told: 6 bits. */
static pg_img_rect side_box(coarse *k, int side, const pg_img_rect *b) {
    if (side >= 0 && !k->prot[side]) {
        pg_disclose_int(0, PG_DESIGN_MAX_REGIONS - 1, &k->bits);
        return *b;
    }
    return pg_disclose_box(*b, k->r->norm.width, k->r->norm.height, &k->bits);
}

static cJSON *box_json(pg_img_rect b) {
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, cJSON_CreateNumber(b.x));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(b.y));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(b.w));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(b.h));
    return a;
}

static cJSON *pair_json(double a, double b) {
    cJSON *x = cJSON_CreateArray();
    cJSON_AddItemToArray(x, cJSON_CreateNumber(a));
    cJSON_AddItemToArray(x, cJSON_CreateNumber(b));
    return x;
}

static double round_to(double v, double unit) { return floor(v / unit + 0.5) * unit; }

/* ---- the dimensions ---- */

static void layout_m(coarse *k, cJSON *m) {
    const pg_design_result *r = k->r;
    cJSON_AddNumberToObject(m, "ssim", joint_step(k, r->layout.ssim, -1, 1, 0.01));
    cJSON_AddNumberToObject(m, "window", r->layout.win); /* from the canvas size */
    cJSON *a = cJSON_AddObjectToObject(m, "alignment");
    cJSON_AddStringToObject(a, "method", r->align.method);
    k->dx = k->dy = 0;
    if (r->opts.mode == PG_DESIGN_SCREEN) { /* widget mode is identity whatever the pixels */
        pg_disclose_flag(&k->bits);
        k->dx = pg_disclose_offset(r->align.dx, r->norm.width / 10 + 1, &k->bits);
        k->dy = pg_disclose_offset(r->align.dy, r->norm.height / 10 + 1, &k->bits);
    }
    cJSON_AddBoolToObject(a, "fallback", r->align.fallback);
    cJSON_AddNumberToObject(a, "dx", k->dx);
    cJSON_AddNumberToObject(a, "dy", k->dy);
}

static cJSON *palette(coarse *k, int side, const pg_design_swatch *s, unsigned n) {
    cJSON *a = cJSON_CreateArray();
    for (unsigned i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        char hex[8];
        side_hex(k, side, s[i].hex, hex);
        cJSON_AddStringToObject(o, "hex", hex);
        cJSON_AddNumberToObject(o, "share", k->prot[side] ? side_step(k, side, s[i].share, 0, 1, 0.05) : round_to(s[i].share, 0.0001));
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static void color_m(coarse *k, cJSON *m) {
    const pg_design_result *r = k->r;
    unsigned nr = side_int(k, 0, r->color.n_ref, PG_DESIGN_PALETTE), nc = side_int(k, 1, r->color.n_cand, PG_DESIGN_PALETTE);
    double de[PG_DESIGN_PALETTE], sum = 0;
    unsigned n = 0;
    cJSON *pairs = cJSON_CreateArray();
    for (unsigned i = 0; i < nr; i++) {
        pg_disclose_int(0, nc, &k->bits); /* which candidate colour it pairs with, or none */
        if (r->color.pair[i] < 0) continue;
        cJSON *o = cJSON_CreateObject();
        char a[8], b[8];
        side_hex(k, 0, r->color.ref[i].hex, a);
        side_hex(k, 1, r->color.cand[r->color.pair[i]].hex, b);
        de[n] = joint_step(k, r->color.pair_de[i], 0, 128, 0.5);
        cJSON_AddStringToObject(o, "reference", a);
        cJSON_AddStringToObject(o, "candidate", b);
        cJSON_AddNumberToObject(o, "delta_e", de[n]);
        cJSON_AddItemToArray(pairs, o);
        sum += de[n++];
    }
    cJSON_AddNumberToObject(m, "mean_delta_e", n ? round_to(sum / n, 0.01) : 0);
    cJSON_AddItemToObject(m, "palette_size", pair_json(nr, nc));
    for (unsigned i = 1; i < n; i++) /* descending, as the engine lists them */
        for (unsigned j = i; j > 0 && de[j] > de[j - 1]; j--) {
            double t = de[j];
            de[j] = de[j - 1], de[j - 1] = t;
        }
    cJSON *top = cJSON_AddArrayToObject(m, "top_deltas");
    for (unsigned i = 0; i < n && i < 4; i++) cJSON_AddItemToArray(top, cJSON_CreateNumber(de[i]));
    cJSON_AddItemToObject(m, "reference_palette", palette(k, 0, r->color.ref, nr));
    cJSON_AddItemToObject(m, "candidate_palette", palette(k, 1, r->color.cand, nc));
    cJSON_AddItemToObject(m, "pairs", pairs);
}

static void content_m(coarse *k, cJSON *m) {
    const pg_design_result *r = k->r;
    char a[8], b[8], ha[8], hb[8];
    pg_color_hex(r->content.ref_bg[0], r->content.ref_bg[1], r->content.ref_bg[2], ha);
    pg_color_hex(r->content.cand_bg[0], r->content.cand_bg[1], r->content.cand_bg[2], hb);
    side_hex(k, 0, ha, a);
    side_hex(k, 1, hb, b);
    cJSON *bg = cJSON_AddObjectToObject(m, "background");
    cJSON_AddStringToObject(bg, "reference", a);
    cJSON_AddStringToObject(bg, "candidate", b);
    unsigned nr = side_int(k, 0, r->content.n_ref, PG_DESIGN_MAX_REGIONS);
    unsigned nc = side_int(k, 1, r->content.n_cand, PG_DESIGN_MAX_REGIONS);
    unsigned matched = nr ? (unsigned)pg_disclose_int(r->content.matched, nr < nc ? nr : nc, &k->bits) : 0;
    cJSON_AddNumberToObject(m, "coverage", nr ? round_to((double)matched / nr, 0.0001) : 0);
    cJSON_AddNumberToObject(m, "ref_regions", nr);
    cJSON_AddNumberToObject(m, "cand_regions", nc);
    cJSON_AddNumberToObject(m, "matched", matched);
    cJSON_AddNumberToObject(m, "missing", nr - matched);
    cJSON_AddNumberToObject(m, "extra", nc - matched);
    cJSON_AddNumberToObject(m, "extra_ratio", nr ? round_to((double)(nc - matched) / nr, 0.0001) : 0);
}

static double ratio(double a, double b) {
    double lo = a < b ? a : b, hi = a < b ? b : a;
    return hi > 0 ? lo / hi : 1;
}

static void typo_m(coarse *k, cJSON *m) {
    const pg_design_result *r = k->r;
    k->lines[0] = side_int(k, 0, r->typography.ref_lines > 255 ? 255 : r->typography.ref_lines, 255);
    k->lines[1] = side_int(k, 1, r->typography.cand_lines > 255 ? 255 : r->typography.cand_lines, 255);
    k->amount[0] = side_step(k, 0, r->typography.ref_amount, 0, 1, 0.001);
    k->amount[1] = side_step(k, 1, r->typography.cand_amount, 0, 1, 0.001);
    k->height[0] = side_step(k, 0, r->typography.ref_height, 0, 255, 1);
    k->height[1] = side_step(k, 1, r->typography.cand_height, 0, 255, 1);
    cJSON_AddItemToObject(m, "lines", pair_json(k->lines[0], k->lines[1]));
    cJSON_AddItemToObject(m, "amount", pair_json(round_to(k->amount[0], 0.0001), round_to(k->amount[1], 0.0001)));
    cJSON_AddItemToObject(m, "line_height", pair_json(round_to(k->height[0], 0.1), round_to(k->height[1], 0.1)));
    cJSON_AddNumberToObject(m, "amount_ratio", round_to(ratio(k->amount[0], k->amount[1]), 0.0001));
    cJSON_AddNumberToObject(m, "scale_ratio", round_to(ratio(k->height[0], k->height[1]), 0.0001));
}

/* A spacing feature's value on one side: exact for the caller's own side,
 * else on the grid of its axis. */
static double feature_value(coarse *k, int side, const pg_design_feature *f) {
    double extent = strstr(f->name, "left") || strstr(f->name, "right") ? k->r->norm.width : k->r->norm.height;
    double v = side ? f->cand : f->ref;
    return k->prot[side] ? pg_disclose_step(v, 0, extent, PG_DISCLOSE_GRID, &k->bits) : round_to(v, 0.1);
}

static void spacing_m(coarse *k, cJSON *m) {
    const pg_design_result *r = k->r;
    cJSON_AddItemToObject(m, "major_blocks", pair_json(side_int(k, 0, r->spacing.ref_blocks, PG_DESIGN_MAX_REGIONS),
                                                       side_int(k, 1, r->spacing.cand_blocks, PG_DESIGN_MAX_REGIONS)));
    cJSON_AddItemToObject(m, "bands", pair_json(side_int(k, 0, r->spacing.ref_bands, PG_DESIGN_MAX_REGIONS),
                                                side_int(k, 1, r->spacing.cand_bands, PG_DESIGN_MAX_REGIONS)));
    cJSON *a = cJSON_AddArrayToObject(m, "features");
    for (unsigned i = 0; i < r->spacing.n_features && i < COARSE_FEATURES; i++) {
        const pg_design_feature *f = &r->spacing.f[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", f->name);
        cJSON_AddItemToObject(o, "reference", f->in_ref ? cJSON_CreateNumber(feature_value(k, 0, f)) : cJSON_CreateNull());
        cJSON_AddItemToObject(o, "candidate", f->in_cand ? cJSON_CreateNumber(feature_value(k, 1, f)) : cJSON_CreateNull());
        cJSON_AddItemToArray(a, o);
    }
}

/* Why a dimension is not scored, without the engine's numbers. */
static const char *const unscored_note[PG_DESIGN_NDIM] = {
    "the compared area is too small for SSIM",
    "no colours to compare",
    "no blocks detected in the reference",
    "no text lines detected in the reference",
    "too few major blocks in the reference for margins and rhythm",
};

static void subscores(coarse *k, cJSON *root, double score[PG_DESIGN_NDIM], bool scored[PG_DESIGN_NDIM]) {
    typedef void (*meas_fn)(coarse *, cJSON *);
    static const meas_fn meas[PG_DESIGN_NDIM] = {layout_m, color_m, content_m, typo_m, spacing_m};
    cJSON *s = cJSON_AddObjectToObject(root, "subscores");
    for (int d = 0; d < PG_DESIGN_NDIM; d++) {
        const pg_design_dim *x = &k->r->dim[d];
        cJSON *o = cJSON_AddObjectToObject(s, pg_design_dim_name((pg_design_dim_id)d));
        pg_disclose_flag(&k->bits); /* scored or not */
        scored[d] = x->scored;
        score[d] = x->scored ? joint_step(k, x->score, 0, 100, 1) : 0;
        if (x->scored) cJSON_AddNumberToObject(o, "score", score[d]);
        else cJSON_AddNullToObject(o, "score");
        cJSON_AddStringToObject(o, "reason", x->reason);
        cJSON *m = cJSON_AddObjectToObject(o, "measurements");
        if (!x->scored) {
            cJSON_AddStringToObject(m, "note", unscored_note[d]);
            if (d != PG_DESIGN_TYPOGRAPHY) continue; /* the findings' texts read the text measurements */
        }
        meas[d](k, m);
    }
}

/* ---- findings, written from the coarse values ---- */

static long cand_px(const coarse *k, double canonical) { return (long)floor(canonical / k->r->norm.cand_scale + 0.5); }

/* Which side's pixels decide a finding's box. */
static int box_side_of(const char *type) {
    if (!strcmp(type, "extra_region")) return 1;
    if (!strcmp(type, "missing_region") || !strcmp(type, "moved_region") || !strncmp(type, "gap_", 4)) return 0;
    return -1;
}

static void region_text(coarse *k, const pg_design_finding *f, pg_img_rect b, char *obs, char *fix, size_t n) {
    const char *about = k->prot[box_side_of(f->type)] ? "about " : "";
    if (!strcmp(f->type, "moved_region") && f->has_to) {
        pg_img_rect t = side_box(k, 1, &f->to);
        long dx = (long)t.x - (long)b.x, dy = (long)t.y - (long)b.y;
        snprintf(obs, n, "reference block at x=%u,y=%u (%ux%u) appears at about x=%u,y=%u in the candidate (moved %ld,%ld)",
                 b.x, b.y, b.w, b.h, t.x, t.y, dx, dy);
        snprintf(fix, n, "move it back by about %ld,%ld px in the candidate", cand_px(k, -dx), cand_px(k, -dy));
    } else if (!strcmp(f->type, "missing_region")) {
        snprintf(obs, n, "reference block at %sx=%u,y=%u (%ux%u) is missing", about, b.x, b.y, b.w, b.h);
        snprintf(fix, n, "add the missing element at this position");
    } else {
        snprintf(obs, n, "the candidate has an extra block at %sx=%u,y=%u (%ux%u)", about, b.x, b.y, b.w, b.h);
        snprintf(fix, n, "remove it, or check that the design has it");
    }
}

static void color_text(coarse *k, const pg_design_finding *f, cJSON *o, char *obs, char *fix, size_t n) {
    char a[8] = "", b[8] = "";
    if (f->ref_hex[0]) side_hex(k, 0, f->ref_hex, a), cJSON_AddStringToObject(o, "reference_hex", a);
    if (f->cand_hex[0]) side_hex(k, 1, f->cand_hex, b), cJSON_AddStringToObject(o, "candidate_hex", b);
    if (!strcmp(f->type, "color_shift")) {
        snprintf(obs, n, "dominant colour reads %s where the reference uses %s: dE2000 about %.1f", b, a,
                 joint_step(k, f->magnitude, 0, 128, 0.5));
        snprintf(fix, n, "move %s toward %s", b, a);
    } else {
        int in_ref = !strcmp(f->type, "color_missing");
        double share = side_step(k, in_ref ? 0 : 1, f->magnitude / 100, 0, 1, 0.05) * 100;
        snprintf(obs, n, "%s colour %s (about %.0f%%) has no counterpart in the %s", in_ref ? "reference" : "candidate",
                 in_ref ? a : b, share, in_ref ? "candidate" : "reference");
        if (in_ref) snprintf(fix, n, "use %s where the reference does", a);
        else snprintf(fix, n, "replace %s with a reference colour", b);
    }
}

static void text_text(coarse *k, const pg_design_finding *f, char *obs, char *fix, size_t n) {
    double ar = ratio(k->amount[0], k->amount[1]), rh = k->height[0], ch = k->height[1];
    bool more = k->amount[1] > k->amount[0];
    if (!strcmp(f->type, "text_missing")) {
        snprintf(obs, n, "the reference has %u text lines, the candidate none", k->lines[0]);
        snprintf(fix, n, "add the reference's text");
    } else if (!strcmp(f->type, "text_extra")) {
        snprintf(obs, n, "the candidate shows %u text lines where the reference has none", k->lines[1]);
        snprintf(fix, n, "check that the text belongs to the design");
    } else if (!strcmp(f->type, "text_amount")) {
        snprintf(obs, n, "the candidate has about %.0f%% %s text area than the reference (%u vs %u lines)",
                 (ar > 0 ? (more ? 1 / ar - 1 : 1 - ar) : 1) * 100, more ? "more" : "less", k->lines[1], k->lines[0]);
        snprintf(fix, n, "%s text so that its amount matches the reference", more ? "remove or shorten" : "add the missing");
    } else {
        snprintf(obs, n, "median text line is about %.0f px tall in the candidate, %.0f px in the reference", ch, rh);
        snprintf(fix, n, "make the type about %.0f%% %s", (ch > rh ? (ch > 0 ? 1 - rh / ch : 0) : (ch > 0 ? rh / ch - 1 : 0)) * 100,
                 ch > rh ? "smaller" : "larger");
    }
}

static void spacing_text(coarse *k, const pg_design_finding *f, char *obs, char *fix, size_t n) {
    if (!f->feature || f->feature > k->r->spacing.n_features) {
        snprintf(obs, n, "spacing differs");
        snprintf(fix, n, "compare margins and gaps on the side-by-side image");
        return;
    }
    const pg_design_feature *x = &k->r->spacing.f[f->feature - 1];
    double a = x->in_ref ? feature_value(k, 0, x) : 0, b = x->in_cand ? feature_value(k, 1, x) : 0;
    if (x->in_ref && x->in_cand) {
        snprintf(obs, n, "%s is about %.0f px in the candidate, %.0f px in the reference (canonical)", x->name, b, a);
        snprintf(fix, n, "make %s about %ld px in the candidate (now about %ld)", x->name, cand_px(k, a), cand_px(k, b));
    } else if (x->in_ref) {
        snprintf(obs, n, "%s (about %.0f px in the reference) has no counterpart in the candidate", x->name, a);
        snprintf(fix, n, "restore the reference's rows of blocks and their spacing");
    } else {
        snprintf(obs, n, "the candidate has an extra %s (about %.0f px)", x->name, b);
        snprintf(fix, n, "remove the extra row of blocks, or merge it");
    }
}

static cJSON *finding_json(coarse *k, const pg_design_finding *f) {
    cJSON *o = cJSON_CreateObject();
    pg_disclose_int(0, COARSE_TYPES * 3 - 1, &k->bits); /* its type and severity */
    cJSON_AddStringToObject(o, "area", f->area);
    cJSON_AddStringToObject(o, "type", f->type);
    cJSON_AddStringToObject(o, "severity", pg_design_severity_name(f->severity));
    pg_img_rect b = {0, 0, 0, 0};
    if (f->has_box) {
        b = side_box(k, box_side_of(f->type), &f->box);
        cJSON_AddItemToObject(o, "box", box_json(b));
    }
    char obs[200], fix[200];
    if (!strcmp(f->type, "aspect_mismatch")) { /* the images' sizes alone */
        snprintf(obs, sizeof obs, "%s", f->observed);
        snprintf(fix, sizeof fix, "%s", f->suggested_fix);
    } else if (!strcmp(f->type, "alignment_fallback")) {
        snprintf(obs, sizeof obs, "registration fell back to identity");
        snprintf(fix, sizeof fix, "layout compares the images as they lie; crop both to the same area or use widget mode");
    } else if (!strcmp(f->type, "alignment_shift")) {
        snprintf(obs, sizeof obs, "the candidate's content sits about %.0f,%.0f px (canonical) away from the reference's; "
                 "layout registered it out", k->dx, k->dy);
        snprintf(fix, sizeof fix, "if unintended, move the content by about %ld,%ld px in the candidate", cand_px(k, -k->dx),
                 cand_px(k, -k->dy));
    } else if (!strcmp(f->type, "structure_diff")) {
        snprintf(obs, sizeof obs, "structure differs at about x=%u,y=%u (%ux%u): mean SSIM about %.2f there", b.x, b.y, b.w,
                 b.h, joint_step(k, 1 - f->magnitude, -1, 1, 0.01));
        snprintf(fix, sizeof fix, "compare this area in the side-by-side image: shapes, borders, alignment or sharpness differ");
    } else if (!strncmp(f->type, "color_", 6)) {
        color_text(k, f, o, obs, fix, sizeof obs);
    } else if (!strcmp(f->area, "content")) {
        region_text(k, f, b, obs, fix, sizeof obs);
    } else if (!strncmp(f->type, "text_", 5)) {
        text_text(k, f, obs, fix, sizeof obs);
    } else {
        spacing_text(k, f, obs, fix, sizeof obs);
    }
    cJSON_AddStringToObject(o, "observed", obs);
    cJSON_AddStringToObject(o, "suggested_fix", fix);
    return o;
}

/* The fields that come from the options and the images' sizes alone, as the engine writes them. */
static void copy_plain(const pg_design_result *r, cJSON *root) {
    cJSON *exact = NULL;
    pg_error ignored;
    if (pg_design_result_json(r, &exact, &ignored)) return;
    static const char *const keys[] = {"critique_rubric", "mode", "preset", "weights"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        cJSON_AddItemToObject(root, keys[i], cJSON_DetachItemFromObjectCaseSensitive(exact, keys[i]));
    cJSON *norm = cJSON_DetachItemFromObjectCaseSensitive(exact, "normalization");
    cJSON_Delete(exact);
    cJSON *eff = cJSON_CreateObject(); /* placeholder, filled by the caller before normalization */
    cJSON_AddItemToObject(root, "effective_weights", eff);
    cJSON_AddItemToObject(root, "normalization", norm);
}

cJSON *pg_compare_coarse_json(const pg_design_result *r, const bool prot[2], double *bits) {
    coarse k = {.r = r, .prot = {prot[0], prot[1]}};
    cJSON *root = cJSON_CreateObject();
    if (!root) return NULL;
    double score[PG_DESIGN_NDIM], eff[PG_DESIGN_NDIM], overall = 0;
    bool scored[PG_DESIGN_NDIM];
    cJSON_AddNullToObject(root, "overall"); /* first, as the engine prints it */
    subscores(&k, root, score, scored);
    if (pg_design_aggregate(score, scored, r->weights, &overall, eff))
        cJSON_ReplaceItemInObjectCaseSensitive(root, "overall", cJSON_CreateNumber(round_to(overall, 0.01)));
    else
        cJSON_AddStringToObject(root, "overall_note", r->overall_note);
    cJSON *list = cJSON_AddArrayToObject(root, "cv_findings");
    for (size_t i = 0; i < r->n_findings && i < COARSE_FINDINGS; i++) cJSON_AddItemToArray(list, finding_json(&k, &r->findings[i]));
    cJSON_AddNumberToObject(root, "findings_total",
                            (double)pg_disclose_int(r->findings_total > 255 ? 255 : r->findings_total, 255, &k.bits));
    copy_plain(r, root);
    cJSON *ew = cJSON_GetObjectItemCaseSensitive(root, "effective_weights");
    for (int d = 0; ew && d < PG_DESIGN_NDIM; d++)
        cJSON_AddNumberToObject(ew, pg_design_dim_name((pg_design_dim_id)d), round_to(eff[d], 0.0001));
    cJSON_AddStringToObject(root, "resolution", "coarse: pixels you may not have (docs/threat-model.md)");
    cJSON_AddNumberToObject(root, "disclosed_bits", round_to(k.bits, 0.1));
    *bits = k.bits;
    return root;
}
