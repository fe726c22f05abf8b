/* SPDX-License-Identifier: MIT */
/* compare: design fidelity of a candidate UI image against a reference
 * (broker/engine/pg_design.h), over tokens or the caller's own files. Both
 * images the caller's to have (its files, tokens under expose_pixels allow):
 * the engine's answer, exact. Otherwise the answer is bounded as
 * docs/threat-model.md says (core/pg_compare_coarse.c) and charged before it is
 * sent. The four diagnostic images become tokens that inherit the source of
 * the pixels they show, so they are released only as the policy allows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_design.h"
#include "pg_disclose.h"
#include "pg_call.h"

static pg_err opts_of(const pg_args_compare *a, pg_design_opts *o, pg_error *e) {
    pg_design_opts_init(o);
    o->mode = a->mode ? PG_DESIGN_WIDGET : PG_DESIGN_SCREEN;
    o->preset = a->preset ? PG_DESIGN_PRESET_DARK_UI : PG_DESIGN_PRESET_DEFAULT;
    o->visuals = a->visuals;
    for (size_t i = 0; i < a->weights.n; i++) {
        pg_err rc = pg_design_weights_parse(o, a->weights.v[i], e);
        if (rc) return rc;
    }
    if (a->ignore.n > PG_DESIGN_MAX_IGNORE)
        return pg_error_set(e, PG_E_USAGE, NULL, "at most %d --ignore rectangles", PG_DESIGN_MAX_IGNORE);
    o->n_ignore = a->ignore.n;
    for (size_t i = 0; i < a->ignore.n; i++) o->ignore[i] = pg_call_img_rect(&a->ignore.v[i]);
    return PG_OK;
}

/* Both image arguments; prot[i] says whether side i's pixels are protected
 * for the caller (a token under analyze-only or never; files never are). */
static pg_err load(pg_call *c, const pg_args_compare *a, pg_img *img[2], char label[2][64], bool prot[2],
                   pg_error *e) {
    pg_tok_meta m[2];
    bool is_token[2] = {false, false};
    memset(m, 0, sizeof m);
    pg_err rc = pg_call_image_pair(c, &a->ref, &a->cand, img, label, m, is_token, e);
    if (rc) return rc;
    for (int i = 0; i < 2; i++) {
        prot[i] = is_token[i] && pg_disclose_protected(c->view);
        if (is_token[i] && m[i].frames) rc = pg_error_set(e, PG_E_USAGE, "compare a snapshot; frame sets are for 'pixelgate motion'",
                                                    "%s %s is a frame set of %u frames, not one image",
                                                    i ? "CAND" : "REF", label[i], m[i].frames);
    }
    if (rc) {
        pg_img_free(img[0]), pg_img_free(img[1]);
        img[0] = img[1] = NULL;
    }
    return rc;
}

/* Protected pixels of one side the answer is about: its area times the share
 * of its part of the canvas that no ignore rectangle covers. */
static uint64_t answered_area(const pg_design_result *r, const pg_design_opts *o, int side) {
    uint32_t W = r->norm.width, rows = side ? r->norm.cand_height : r->norm.ref_height;
    uint64_t area = side ? (uint64_t)r->norm.cand_w * r->norm.cand_h : (uint64_t)r->norm.ref_w * r->norm.ref_h;
    if (!o->n_ignore || !rows) return area;
    uint8_t *mask = calloc((size_t)W * rows, 1);
    if (!mask) return 0; /* fails closed: refused as too small */
    uint64_t rw = r->norm.ref_w;
    for (size_t i = 0; i < o->n_ignore; i++) { /* reference pixels -> canvas, as the engine maps them */
        const pg_img_rect *g = &o->ignore[i];
        uint64_t x0 = g->x * (uint64_t)W / rw, x1 = (((uint64_t)g->x + g->w) * W + rw - 1) / rw;
        uint64_t y0 = g->y * (uint64_t)W / rw, y1 = (((uint64_t)g->y + g->h) * W + rw - 1) / rw;
        if (x1 > W) x1 = W;
        if (y1 > rows) y1 = rows;
        for (uint64_t y = y0; y < y1 && x0 < x1; y++) memset(mask + y * W + x0, 1, (size_t)(x1 - x0));
    }
    uint64_t open = 0;
    for (size_t i = 0; i < (size_t)W * rows; i++) open += !mask[i];
    free(mask);
    return (uint64_t)((double)area * (double)open / ((double)W * rows));
}

/* The diagnostic images as tokens into result.visuals (each handed over). */
static void visuals(pg_call *c, pg_design_result *r, cJSON *result) {
    pg_img **img[4] = {&r->overlay, &r->heatmap, &r->regions, &r->side_by_side};
    static const char *const name[4] = {"overlay", "heatmap", "regions", "side_by_side"};
    cJSON *v = cJSON_AddObjectToObject(result, "visuals");
    for (int i = 0; i < 4; i++) {
        if (!*img[i]) continue;
        char method[32];
        snprintf(method, sizeof method, "compare-%s", name[i]);
        pg_error ignored;
        pg_call_derived_token(c, *img[i], method, v, name[i], &ignored); /* takes the image either way */
        *img[i] = NULL;
    }
}

pg_err pg_op_compare(pg_call *c, const pg_args_compare *a, pg_error *e) {
    c->audit.kind = "compare";
    pg_design_opts o;
    pg_err rc = opts_of(a, &o, e);
    if (rc) return rc;
    pg_img *img[2] = {NULL, NULL};
    char label[2][64] = {"", ""};
    bool prot[2] = {false, false};
    rc = load(c, a, img, label, prot, e);
    pg_design_result *r = NULL;
    if (!rc) rc = pg_design_compare(img[0], img[1], &o, &r, e);
    pg_img_free(img[0]);
    pg_img_free(img[1]);
    if (rc) return rc;
    for (int s = 0; s < 2 && !rc; s++)
        if (prot[s]) rc = pg_disclose_area(c->view, answered_area(r, &o, s), s ? "a comparison of CAND" : "a comparison of REF", e);
    cJSON *j = NULL;
    double bits = 0;
    if (!rc && (prot[0] || prot[1])) {
        j = pg_compare_coarse_json(r, prot, &bits);
        if (!j) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for the comparison's JSON");
    } else if (!rc) {
        rc = pg_design_result_json(r, &j, e);
    }
    if (!rc) rc = pg_call_disclose(c, bits, e);
    if (rc) {
        cJSON_Delete(j);
        pg_design_result_free(r);
        return rc;
    }
    visuals(c, r, j);
    cJSON *ev = cJSON_AddObjectToObject(j, "evidence");
    cJSON_AddStringToObject(ev, "reference", label[0]);
    cJSON_AddStringToObject(ev, "candidate", label[1]);
    snprintf(c->audit.detail, sizeof c->audit.detail, "overall %.2f (%s, %s)%s", r->overall_scored ? r->overall : -1,
             pg_design_mode_name(o.mode), pg_design_preset_name(o.preset), prot[0] || prot[1] ? ", coarse" : "");
    pg_design_result_free(r);
    c->result = j;
    return PG_OK;
}
