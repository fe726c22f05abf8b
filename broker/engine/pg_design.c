/* SPDX-License-Identifier: MIT */
/* Design comparison: options, presets, the aggregation and the pipeline
 * that runs the stages in order (see pg_design.h). */
#include "pg_design.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_design_int.h"
#include "pg_dmath.h"

static const char *const dim_names[PG_DESIGN_NDIM] = {"layout", "color", "content", "typography", "spacing"};
static const char *const dim_reasons[PG_DESIGN_NDIM] = {
    "structural similarity (SSIM) after alignment",
    "dominant palette match (mean CIEDE2000 of paired k-means colours)",
    "reference blocks present in place (IoU matching)",
    "text amount and scale (coarse; not font identity)",
    "block margins and vertical rhythm (coarse)",
};

const char *pg_design_dim_name(pg_design_dim_id d) { return d < PG_DESIGN_NDIM ? dim_names[d] : "?"; }
const char *pg_design_mode_name(pg_design_mode m) { return m == PG_DESIGN_WIDGET ? "widget" : "screen"; }
const char *pg_design_preset_name(pg_design_preset p) { return p == PG_DESIGN_PRESET_DARK_UI ? "dark-ui" : "default"; }
const char *pg_design_severity_name(pg_design_severity s) {
    return s == PG_DESIGN_HIGH ? "high" : s == PG_DESIGN_MEDIUM ? "medium" : "low";
}

void pg_design_opts_init(pg_design_opts *o) {
    memset(o, 0, sizeof *o);
    o->mode = PG_DESIGN_SCREEN;
    o->preset = PG_DESIGN_PRESET_DEFAULT;
    o->visuals = true;
}

pg_err pg_design_mode_parse(const char *name, pg_design_mode *m, pg_error *e) {
    if (!strcmp(name, "screen")) *m = PG_DESIGN_SCREEN;
    else if (!strcmp(name, "widget")) *m = PG_DESIGN_WIDGET;
    else return pg_error_set(e, PG_E_USAGE, "use screen or widget", "unknown comparison mode '%.40s'", name);
    return PG_OK;
}

pg_err pg_design_preset_parse(const char *name, pg_design_preset *p, pg_error *e) {
    if (!strcmp(name, "default")) *p = PG_DESIGN_PRESET_DEFAULT;
    else if (!strcmp(name, "dark-ui")) *p = PG_DESIGN_PRESET_DARK_UI;
    else return pg_error_set(e, PG_E_USAGE, "use default or dark-ui", "unknown preset '%.40s'", name);
    return PG_OK;
}

pg_err pg_design_set_weight(pg_design_opts *o, const char *name, double value, pg_error *e) {
    for (int d = 0; d < PG_DESIGN_NDIM; d++) {
        if (strcmp(name, dim_names[d])) continue;
        if (!(value >= 0 && value <= PG_DESIGN_MAX_WEIGHT))
            return pg_error_set(e, PG_E_USAGE, "give a weight from 0 to 100", "weight %s=%g is out of range", name, value);
        o->weights[d] = value, o->weight_set[d] = true;
        return PG_OK;
    }
    return pg_error_set(e, PG_E_USAGE, "dimensions: layout, color, content, typography, spacing",
                        "unknown dimension '%.40s'", name);
}

pg_err pg_design_weights_parse(pg_design_opts *o, const char *spec, pg_error *e) {
    pg_design_opts t = *o; /* all or nothing */
    const char *p = spec;
    for (int pairs = 0;; pairs++) {
        const char *eq = strchr(p, '='), *end = strchr(p, ',');
        if (!end) end = p + strlen(p);
        if (pairs == PG_DESIGN_NDIM || !eq || eq > end || eq == p || eq + 1 == end || (size_t)(eq - p) > 15)
            return pg_error_set(e, PG_E_USAGE, "e.g. --weights layout=0.5,color=0.2",
                                "bad weights '%.60s': want up to 5 NAME=NUMBER pairs separated by commas", spec);
        char name[16], num[32];
        size_t nl = (size_t)(eq - p), vl = (size_t)(end - eq - 1);
        if (vl >= sizeof num || strspn(eq + 1, "0123456789.") < vl)
            return pg_error_set(e, PG_E_USAGE, "weights are plain decimal numbers from 0 to 100",
                                "bad weight value in '%.60s'", spec);
        memcpy(name, p, nl), name[nl] = '\0';
        memcpy(num, eq + 1, vl), num[vl] = '\0';
        char *stop;
        double v = strtod(num, &stop);
        if (*stop) return pg_error_set(e, PG_E_USAGE, "weights are plain decimal numbers from 0 to 100",
                                       "bad weight value '%s'", num);
        pg_err rc = pg_design_set_weight(&t, name, v, e);
        if (rc) return rc;
        if (!*end) break;
        p = end + 1;
    }
    *o = t;
    return PG_OK;
}

void pg_design_preset_weights(pg_design_preset p, double w[PG_DESIGN_NDIM]) {
    static const double def[PG_DESIGN_NDIM] = {0.35, 0.20, 0.15, 0.15, 0.15};
    static const double dark[PG_DESIGN_NDIM] = {0.60, 0.10, 0.0, 0.30, 0.0};
    memcpy(w, p == PG_DESIGN_PRESET_DARK_UI ? dark : def, sizeof def);
}

bool pg_design_aggregate(const double score[PG_DESIGN_NDIM], const bool scored[PG_DESIGN_NDIM],
                         const double weight[PG_DESIGN_NDIM], double *overall, double effective[PG_DESIGN_NDIM]) {
    double wsum = 0, acc = 0;
    for (int d = 0; d < PG_DESIGN_NDIM; d++) wsum += scored[d] ? weight[d] : 0;
    for (int d = 0; d < PG_DESIGN_NDIM; d++) effective[d] = scored[d] && wsum > 0 ? weight[d] / wsum : 0;
    *overall = 0;
    if (!(wsum > 0)) return false;
    for (int d = 0; d < PG_DESIGN_NDIM; d++) {
        if (effective[d] == 0) continue;
        double s = score[d] < 1 ? 1 : score[d] > 100 ? 100 : score[d];
        acc += effective[d] * pg_dm_log(s);
    }
    double v = pg_dm_exp(acc);
    *overall = v > 100 ? 100 : v; /* rounding may land a hair above */
    return true;
}

static void resolve_weights(pg_design_result *r, const pg_design_opts *o) {
    pg_design_preset_weights(o->preset, r->weights);
    for (int d = 0; d < PG_DESIGN_NDIM; d++)
        if (o->weight_set[d]) r->weights[d] = o->weights[d];
}

static pg_err check_opts(const pg_design_opts *o, pg_error *e) {
    if (o->mode != PG_DESIGN_SCREEN && o->mode != PG_DESIGN_WIDGET)
        return pg_error_set(e, PG_E_USAGE, NULL, "unknown comparison mode %d", (int)o->mode);
    if (o->preset != PG_DESIGN_PRESET_DEFAULT && o->preset != PG_DESIGN_PRESET_DARK_UI)
        return pg_error_set(e, PG_E_USAGE, NULL, "unknown preset %d", (int)o->preset);
    for (int d = 0; d < PG_DESIGN_NDIM; d++)
        if (o->weight_set[d] && !(o->weights[d] >= 0 && o->weights[d] <= PG_DESIGN_MAX_WEIGHT))
            return pg_error_set(e, PG_E_USAGE, "give a weight from 0 to 100", "weight of %s is out of range", dim_names[d]);
    if (o->n_ignore > PG_DESIGN_MAX_IGNORE)
        return pg_error_set(e, PG_E_USAGE, NULL, "at most %d ignore rectangles", PG_DESIGN_MAX_IGNORE);
    return PG_OK;
}

static void aggregate(pg_design_result *r) {
    double s[PG_DESIGN_NDIM];
    bool ok[PG_DESIGN_NDIM];
    for (int d = 0; d < PG_DESIGN_NDIM; d++) s[d] = r->dim[d].score, ok[d] = r->dim[d].scored;
    r->overall_scored = pg_design_aggregate(s, ok, r->weights, &r->overall, r->effective);
    if (!r->overall_scored)
        snprintf(r->overall_note, sizeof r->overall_note, "no scored dimension has a weight above 0");
}

static void dz_free(pg_dz *z) {
    pg_dz_side *s[2] = {&z->ref, &z->cand};
    for (int i = 0; i < 2; i++) pg_img_free(s[i]->img), free(s[i]->grey), free(s[i]->grad);
    free(z->skip);
    free(z->map);
    free(z);
}

typedef pg_err (*stage_fn)(pg_dz *, pg_error *);

static pg_err run(pg_dz *z, const pg_img *ref, const pg_img *cand, pg_error *e) {
    static const stage_fn stages[] = {pg_dz_align, pg_dz_layout, pg_dz_color, pg_dz_content, pg_dz_typography,
                                      pg_dz_spacing};
    pg_err rc = pg_dz_normalise(z, ref, cand, e);
    for (size_t i = 0; !rc && i < sizeof stages / sizeof stages[0]; i++) rc = stages[i](z, e);
    if (rc) return rc;
    aggregate(z->r);
    pg_dz_findings_finish(z);
    return z->o->visuals ? pg_dz_visuals(z, e) : PG_OK;
}

pg_err pg_design_compare(const pg_img *ref, const pg_img *cand, const pg_design_opts *o, pg_design_result **out,
                         pg_error *e) {
    *out = NULL;
    pg_err rc = check_opts(o, e);
    if (rc) return rc;
    pg_design_result *r = calloc(1, sizeof *r);
    pg_dz *z = calloc(1, sizeof *z);
    if (!r || !z) {
        free(r), free(z);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for a comparison");
    }
    r->opts = *o;
    resolve_weights(r, o);
    for (int d = 0; d < PG_DESIGN_NDIM; d++) r->dim[d].reason = dim_reasons[d];
    r->critique_rubric = pg_dz_rubric();
    z->o = &r->opts, z->r = r;
    pg_color_ctx_init(&z->col);
    rc = run(z, ref, cand, e);
    dz_free(z);
    if (rc) {
        pg_design_result_free(r);
        return rc;
    }
    *out = r;
    return PG_OK;
}

void pg_design_result_free(pg_design_result *r) {
    if (!r) return;
    pg_img_free(r->overlay), pg_img_free(r->heatmap), pg_img_free(r->regions), pg_img_free(r->side_by_side);
    free(r);
}
