/* SPDX-License-Identifier: MIT */
/* Design comparison: the result as JSON, keys in a fixed order, numbers
 * with fixed decimals (pg_jnum), so the text is the same run after run. */
#include <cJSON.h>
#include <stdio.h>
#include <string.h>

#include "pg_design.h"
#include "pg_jnum.h"

typedef struct {
    int oom;
} js;

static cJSON *add(js *j, cJSON *o, const char *k, cJSON *v) {
    if (!v || !cJSON_AddItemToObject(o, k, v)) {
        cJSON_Delete(v);
        j->oom = 1;
        return NULL;
    }
    return v;
}

static cJSON *push(js *j, cJSON *a, cJSON *v) {
    if (!v || !cJSON_AddItemToArray(a, v)) {
        cJSON_Delete(v);
        j->oom = 1;
        return NULL;
    }
    return v;
}

static void num(js *j, cJSON *o, const char *k, double v, int dec) { add(j, o, k, pg_jnum(v, dec)); }
static void str(js *j, cJSON *o, const char *k, const char *v) { add(j, o, k, cJSON_CreateString(v)); }
static void flag(js *j, cJSON *o, const char *k, int v) { add(j, o, k, cJSON_CreateBool(v)); }
static cJSON *obj(js *j, cJSON *o, const char *k) { return o ? add(j, o, k, cJSON_CreateObject()) : NULL; }
static cJSON *arr(js *j, cJSON *o, const char *k) { return o ? add(j, o, k, cJSON_CreateArray()) : NULL; }

static cJSON *box(js *j, const pg_img_rect *b) {
    cJSON *a = cJSON_CreateArray();
    if (!a) return NULL;
    uint32_t v[4] = {b->x, b->y, b->w, b->h};
    for (int i = 0; i < 4; i++) push(j, a, pg_jnum(v[i], 0));
    return a;
}

static cJSON *pair(js *j, double a, double b, int dec) {
    cJSON *x = cJSON_CreateArray();
    if (x) push(j, x, pg_jnum(a, dec)), push(j, x, pg_jnum(b, dec));
    return x;
}

static void layout_m(js *j, cJSON *m, const pg_design_result *r) {
    num(j, m, "ssim", r->layout.ssim, 6);
    num(j, m, "window", r->layout.win, 0);
    num(j, m, "windows", (double)r->layout.windows, 0);
    add(j, m, "area", box(j, &r->layout.area));
    cJSON *a = obj(j, m, "alignment");
    if (!a) return;
    str(j, a, "method", r->align.method);
    flag(j, a, "fallback", r->align.fallback);
    num(j, a, "dx", r->align.dx, 0);
    num(j, a, "dy", r->align.dy, 0);
    num(j, a, "cc", r->align.cc, 4);
    num(j, a, "cc_identity", r->align.cc_identity, 4);
    str(j, a, "note", r->align.note);
}

static void palette(js *j, cJSON *m, const char *k, const pg_design_swatch *s, unsigned n) {
    cJSON *a = arr(j, m, k);
    for (unsigned i = 0; a && i < n; i++) {
        cJSON *o = push(j, a, cJSON_CreateObject());
        if (!o) return;
        str(j, o, "hex", s[i].hex);
        num(j, o, "share", s[i].share, 4);
    }
}

static void color_m(js *j, cJSON *m, const pg_design_result *r) {
    num(j, m, "mean_delta_e", r->color.mean_de, 2);
    add(j, m, "palette_size", pair(j, r->color.n_ref, r->color.n_cand, 0));
    double d[PG_DESIGN_PALETTE];
    unsigned n = 0;
    for (unsigned i = 0; i < r->color.n_ref; i++)
        if (r->color.pair[i] >= 0) d[n++] = r->color.pair_de[i];
    for (unsigned i = 1; i < n; i++) /* descending */
        for (unsigned k = i; k > 0 && d[k] > d[k - 1]; k--) {
            double t = d[k];
            d[k] = d[k - 1], d[k - 1] = t;
        }
    cJSON *t = arr(j, m, "top_deltas");
    for (unsigned i = 0; t && i < n && i < 4; i++) push(j, t, pg_jnum(d[i], 2));
    palette(j, m, "reference_palette", r->color.ref, r->color.n_ref);
    palette(j, m, "candidate_palette", r->color.cand, r->color.n_cand);
    cJSON *p = arr(j, m, "pairs");
    for (unsigned i = 0; p && i < r->color.n_ref; i++) {
        if (r->color.pair[i] < 0) continue;
        cJSON *o = push(j, p, cJSON_CreateObject());
        if (!o) return;
        str(j, o, "reference", r->color.ref[i].hex);
        str(j, o, "candidate", r->color.cand[r->color.pair[i]].hex);
        num(j, o, "delta_e", r->color.pair_de[i], 2);
    }
}

static void regions(js *j, cJSON *m, const char *k, const pg_design_region *g, unsigned n) {
    cJSON *a = arr(j, m, k);
    for (unsigned i = 0; a && i < n; i++) {
        cJSON *o = push(j, a, cJSON_CreateObject());
        if (!o) return;
        add(j, o, "box", box(j, &g[i].box));
        num(j, o, "match", g[i].match, 0);
        num(j, o, "iou", g[i].iou, 4);
    }
}

static void content_m(js *j, cJSON *m, const pg_design_result *r) {
    char a[8], b[8];
    pg_color_hex(r->content.ref_bg[0], r->content.ref_bg[1], r->content.ref_bg[2], a);
    pg_color_hex(r->content.cand_bg[0], r->content.cand_bg[1], r->content.cand_bg[2], b);
    cJSON *bg = obj(j, m, "background");
    if (bg) str(j, bg, "reference", a), str(j, bg, "candidate", b);
    num(j, m, "coverage", r->content.coverage, 4);
    num(j, m, "ref_regions", r->content.n_ref, 0);
    num(j, m, "cand_regions", r->content.n_cand, 0);
    num(j, m, "matched", r->content.matched, 0);
    num(j, m, "missing", r->content.missing, 0);
    num(j, m, "extra", r->content.extra, 0);
    num(j, m, "extra_ratio", r->content.extra_ratio, 4);
    regions(j, m, "reference_regions", r->content.ref, r->content.n_ref);
    regions(j, m, "candidate_regions", r->content.cand, r->content.n_cand);
}

static void typo_m(js *j, cJSON *m, const pg_design_result *r) {
    add(j, m, "lines", pair(j, r->typography.ref_lines, r->typography.cand_lines, 0));
    add(j, m, "amount", pair(j, r->typography.ref_amount, r->typography.cand_amount, 4));
    add(j, m, "line_height", pair(j, r->typography.ref_height, r->typography.cand_height, 1));
    num(j, m, "amount_ratio", r->typography.amount_ratio, 4);
    num(j, m, "scale_ratio", r->typography.scale_ratio, 4);
}

static void spacing_m(js *j, cJSON *m, const pg_design_result *r) {
    add(j, m, "major_blocks", pair(j, r->spacing.ref_blocks, r->spacing.cand_blocks, 0));
    add(j, m, "bands", pair(j, r->spacing.ref_bands, r->spacing.cand_bands, 0));
    cJSON *a = arr(j, m, "features");
    for (unsigned i = 0; a && i < r->spacing.n_features; i++) {
        const pg_design_feature *f = &r->spacing.f[i];
        cJSON *o = push(j, a, cJSON_CreateObject());
        if (!o) return;
        str(j, o, "name", f->name);
        add(j, o, "reference", f->in_ref ? pg_jnum(f->ref, 1) : cJSON_CreateNull());
        add(j, o, "candidate", f->in_cand ? pg_jnum(f->cand, 1) : cJSON_CreateNull());
        num(j, o, "similarity", f->similarity, 4);
    }
}

typedef void (*meas_fn)(js *, cJSON *, const pg_design_result *);

static void subscores(js *j, cJSON *root, const pg_design_result *r) {
    static const meas_fn meas[PG_DESIGN_NDIM] = {layout_m, color_m, content_m, typo_m, spacing_m};
    cJSON *s = obj(j, root, "subscores");
    for (int d = 0; s && d < PG_DESIGN_NDIM; d++) {
        const pg_design_dim *x = &r->dim[d];
        cJSON *o = obj(j, s, pg_design_dim_name((pg_design_dim_id)d));
        if (!o) return;
        add(j, o, "score", x->scored ? pg_jnum(x->score, 2) : cJSON_CreateNull());
        str(j, o, "reason", x->reason);
        cJSON *m = obj(j, o, "measurements");
        if (!m) return;
        if (!x->scored) str(j, m, "note", x->note);
        meas[d](j, m, r);
    }
}

static void findings(js *j, cJSON *root, const pg_design_result *r) {
    cJSON *a = arr(j, root, "cv_findings");
    for (size_t i = 0; a && i < r->n_findings; i++) {
        const pg_design_finding *f = &r->findings[i];
        cJSON *o = push(j, a, cJSON_CreateObject());
        if (!o) return;
        str(j, o, "area", f->area);
        str(j, o, "type", f->type);
        str(j, o, "severity", pg_design_severity_name(f->severity));
        if (f->has_box) add(j, o, "box", box(j, &f->box));
        if (f->has_colors) {
            if (f->ref_hex[0]) str(j, o, "reference_hex", f->ref_hex);
            if (f->cand_hex[0]) str(j, o, "candidate_hex", f->cand_hex);
        }
        str(j, o, "observed", f->observed);
        str(j, o, "suggested_fix", f->suggested_fix);
    }
    num(j, root, "findings_total", (double)r->findings_total, 0);
}

static void weights(js *j, cJSON *root, const char *k, const double *w) {
    cJSON *o = obj(j, root, k);
    for (int d = 0; o && d < PG_DESIGN_NDIM; d++) num(j, o, pg_design_dim_name((pg_design_dim_id)d), w[d], 4);
}

static void normalisation(js *j, cJSON *root, const pg_design_result *r) {
    cJSON *n = obj(j, root, "normalization");
    if (!n) return;
    add(j, n, "canvas", pair(j, r->norm.width, r->norm.height, 0));
    cJSON *a = obj(j, n, "reference"), *b = obj(j, n, "candidate");
    if (!a || !b) return;
    add(j, a, "size", pair(j, r->norm.ref_w, r->norm.ref_h, 0));
    num(j, a, "scale", r->norm.ref_scale, 6);
    num(j, a, "height", r->norm.ref_height, 0);
    add(j, b, "size", pair(j, r->norm.cand_w, r->norm.cand_h, 0));
    num(j, b, "scale", r->norm.cand_scale, 6);
    num(j, b, "height", r->norm.cand_height, 0);
    flag(j, n, "aspect_mismatch", r->norm.aspect_mismatch);
}

pg_err pg_design_result_json(const pg_design_result *r, cJSON **out, pg_error *e) {
    js j = {0};
    cJSON *root = cJSON_CreateObject();
    *out = NULL;
    if (!root) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for JSON");
    add(&j, root, "overall", r->overall_scored ? pg_jnum(r->overall, 2) : cJSON_CreateNull());
    if (!r->overall_scored) str(&j, root, "overall_note", r->overall_note);
    subscores(&j, root, r);
    findings(&j, root, r);
    str(&j, root, "critique_rubric", r->critique_rubric);
    str(&j, root, "mode", pg_design_mode_name(r->opts.mode));
    str(&j, root, "preset", pg_design_preset_name(r->opts.preset));
    weights(&j, root, "weights", r->weights);
    weights(&j, root, "effective_weights", r->effective);
    normalisation(&j, root, r);
    if (j.oom) {
        cJSON_Delete(root);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for JSON");
    }
    *out = root;
    return PG_OK;
}
