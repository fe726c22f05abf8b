/* SPDX-License-Identifier: MIT */
/* Finding things in an image: a template (normalized cross-correlation), a
 * phrase (OCR inside the broker, with the engines it lends) or a control
 * (layout). Used by assert, click, wait_for, ocr and layout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocr/pg_ocr.h"
#include "pg_disclose.h"
#include "pg_layout.h"
#include "pg_call.h"

/* A match as the caller may see it: exact, or (protected pixels) its
 * position on the grid and its score to 0.01, adding their bits. */
static cJSON *hit_json(const pg_template_hit *h, const pg_img *img, bool coarse, double *bits) {
    pg_img_rect box = h->box;
    double score = h->score;
    if (coarse) {
        pg_disclose_point(&box.x, &box.y, img->width, img->height, bits);
        score = pg_disclose_score(score, -1, 1, bits);
    }
    cJSON *o = pg_rect_json(&box);
    cJSON_AddNumberToObject(o, "score", score);
    cJSON *ctr = cJSON_AddObjectToObject(o, "center");
    cJSON_AddNumberToObject(ctr, "x", box.x + box.w / 2);
    cJSON_AddNumberToObject(ctr, "y", box.y + box.h / 2);
    return o;
}

pg_err pg_find_template(pg_call *c, const pg_img *img, const pg_image_ref *tmpl_ref, double threshold, bool all,
                        const pg_img_rect *region, pg_template_result *res, cJSON **out, pg_error *e) {
    pg_img *tmpl = NULL;
    char lt[64];
    pg_err rc = pg_call_image(c, tmpl_ref, &tmpl, lt, NULL, NULL, e);
    if (rc) return rc;
    pg_template_opts o;
    pg_template_opts_init(&o);
    o.threshold = threshold;
    o.all = all;
    o.region = region;
    uint64_t area = region ? (uint64_t)region->w * region->h : (uint64_t)img->width * img->height;
    rc = pg_call_area(c, area, "a template search", e);
    if (!rc) rc = pg_template_match(img, tmpl, &o, res, e);
    pg_img_free(tmpl);
    if (rc) return rc;
    bool coarse = pg_call_protected(c);
    double bits = 0;
    cJSON *j = cJSON_CreateObject();
    cJSON_AddBoolToObject(j, "found", res->found);
    if (coarse) pg_disclose_flag(&bits);
    if (res->flat) { /* a template of protected pixels being one colour is one more yes/no */
        cJSON_AddStringToObject(j, "reason", "FLAT_TEMPLATE: the template is one flat colour; nothing correlates "
                                             "with it (crop it to include some detail)");
        if (coarse) pg_disclose_flag(&bits);
    }
    cJSON_AddNumberToObject(j, "threshold", o.threshold);
    cJSON_AddItemToObject(j, "best", hit_json(&res->best, img, coarse, &bits));
    if (o.all) {
        size_t n = coarse && res->n_matches > PG_DISCLOSE_MAX_BOXES ? PG_DISCLOSE_MAX_BOXES : res->n_matches;
        cJSON *arr = cJSON_AddArrayToObject(j, "matches");
        for (size_t i = 0; i < n; i++) cJSON_AddItemToArray(arr, hit_json(&res->matches[i], img, coarse, &bits));
    }
    if ((rc = pg_call_disclose(c, bits, e))) {
        cJSON_Delete(j);
        return rc;
    }
    *out = j;
    return PG_OK;
}

/* ---- the OCR engines, lent to one request at a time ---- */

pg_err pg_call_ocr_lang(pg_call *c, const char *lang, char out[128], pg_error *e) {
    if (!c->view->ocr)
        return pg_error_set(e, PG_E_POLICY, "the administrator turned OCR off (analysis.ocr)", "OCR is off by policy");
    return pg_policy_ocr_lang(c->view, lang, out, e);
}

pg_err pg_call_ocr_with(pg_call *c, const char *lang, pg_call_ocr_fn fn, void *ctx, pg_error *e) {
    char spec[128];
    pg_err rc = pg_call_ocr_lang(c, lang, spec, e);
    if (rc) return rc;
    struct pg_ocr *engine = NULL;
    rc = pg_broker_ocr_take(c->b, spec, &engine, e);
    if (rc) return rc;
    /* Whatever fn reads is cached under the caller's uid only: a hit is never
     * another user's read (docs/threat-model.md, "The OCR cache"). */
    pg_ocr_bind_cache(engine, c->b->ocr_cache, c->peer->uid);
    rc = fn(engine, ctx, e);
    pg_ocr_bind_cache(engine, NULL, 0);
    pg_broker_ocr_give(c->b, engine);
    return rc;
}

/* ---- controls named relative to a token ---- */

pg_err pg_call_control_point(pg_call *c, const char *token, int64_t n, const char *lang, uint64_t *wid,
                             int64_t *x, int64_t *y, int *kind, pg_error *e) {
    (void)lang; /* numbering does not depend on OCR */
    pg_img *img = NULL;
    pg_tok_meta m;
    char label[64];
    pg_err rc = pg_call_token_image(c, token, &img, label, &m, e);
    if (rc) return rc;
    if (m.screen || !m.window_id || m.width != m.source_width || m.height != m.source_height) {
        pg_img_free(img);
        return pg_error_set(e, PG_E_USAGE, "run layout on a window snapshot taken without --max-size",
                            "%s is not a full-size capture of a window: its controls cannot be aimed at", label);
    }
    pg_layout_result lr;
    rc = pg_layout_detect(img, NULL, &lr, e);
    pg_img_free(img);
    if (rc) return rc;
    if (n < 0 || (size_t)n >= lr.n) {
        size_t have = lr.n;
        pg_layout_result_fini(&lr);
        return pg_error_set(e, PG_E_NOTFOUND, "number controls with 'pixelgate layout TOKEN'",
                            "%s has no control %lld (it has %zu)", label, (long long)n, have);
    }
    const pg_layout_control *k = &lr.v[n];
    *wid = m.window_id;
    *x = (int64_t)k->box.x + k->box.w / 2 + m.region_x;
    *y = (int64_t)k->box.y + k->box.h / 2 + m.region_y;
    if (kind) *kind = (int)k->kind;
    pg_layout_result_fini(&lr);
    return PG_OK;
}
