/* ocr and assert text: reading a capture inside the broker. Only text and
 * word boxes leave; OCR is allowed under analyze-only and never unless the
 * policy turns analysis.ocr off. One Tesseract engine, made on first use
 * (~130 ms) and shared under a lock (an engine is not thread-safe). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocr/pg_ocr.h"
#include "pg_ops.h"

/* Reads img (region optional) with the broker's engine. */
static pg_err broker_ocr(pg_call *c, const pg_img *img, const pg_img_rect *region, pg_ocr_result *out, pg_error *e) {
    if (!c->view->ocr)
        return pg_error_set(e, PG_E_POLICY, "the administrator turned OCR off (analysis.ocr)", "OCR is off by policy");
    pg_broker *b = c->b;
    pthread_mutex_lock(&b->ocr_lock);
    pg_err rc = b->ocr ? PG_OK : pg_ocr_new(&b->ocr, "eng", b->ocr_datapath[0] ? b->ocr_datapath : NULL, e);
    if (!rc) rc = pg_ocr_run(b->ocr, img, region, out, e);
    pthread_mutex_unlock(&b->ocr_lock);
    return rc;
}

static cJSON *words_json(const pg_ocr_result *r, size_t first, size_t n, bool coarse) {
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = first; i < first + n && i < r->n_words; i++) {
        const pg_ocr_word *w = &r->words[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "text", w->text);
        cJSON_AddNumberToObject(o, "x", w->x);
        cJSON_AddNumberToObject(o, "y", w->y);
        cJSON_AddNumberToObject(o, "w", w->w);
        cJSON_AddNumberToObject(o, "h", w->h);
        cJSON_AddNumberToObject(o, "conf", coarse ? (int)w->conf : (int)(w->conf * 10) / 10.0);
        cJSON_AddNumberToObject(o, "line", w->line);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

pg_err pg_op_ocr(pg_call *c, const pg_args_ocr *a, pg_error *e) {
    c->audit.kind = "ocr";
    pg_img_rect region = pg_call_img_rect(&a->region);
    pg_img *img = NULL;
    char label[64];
    pg_err rc = pg_call_token_image(c, a->token, &img, label, NULL, e);
    pg_ocr_result r = {0};
    if (!rc && a->has_region) rc = pg_call_area(c, (uint64_t)region.w * region.h, "OCR of a region", e);
    if (!rc) rc = broker_ocr(c, img, a->has_region ? &region : NULL, &r, e);
    pg_img_free(img);
    if (rc) return rc;
    snprintf(c->audit.detail, sizeof c->audit.detail, "%zu words", r.n_words);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "text", r.text);
    bool coarse = pg_call_protected(c);
    cJSON_AddItemToObject(o, "words", words_json(&r, 0, r.n_words, coarse));
    cJSON_AddNumberToObject(o, "lines", (double)r.n_lines);
    cJSON_AddNumberToObject(o, "mean_conf", coarse ? (int)r.mean_conf : (int)(r.mean_conf * 10) / 10.0);
    cJSON_AddNumberToObject(o, "scale", r.scale);
    cJSON_AddStringToObject(o, "token", a->token);
    pg_ocr_result_fini(&r);
    c->result = o;
    return PG_OK;
}

static cJSON *match_json(const pg_img_rect *box) {
    cJSON *b = pg_rect_json(box);
    cJSON *ctr = cJSON_AddObjectToObject(b, "center");
    cJSON_AddNumberToObject(ctr, "x", box->x + box->w / 2);
    cJSON_AddNumberToObject(ctr, "y", box->y + box->h / 2);
    return b;
}

pg_err pg_find_text(pg_call *c, const pg_img *img, const pg_img_rect *region, const char *phrase, bool exact,
                    pg_img_rect *box, cJSON **out, pg_error *e) {
    pg_ocr_result r = {0};
    pg_err rc = broker_ocr(c, img, region, &r, e);
    if (rc) return rc;
    pg_ocr_match m;
    pg_error fe;
    pg_err found = pg_ocr_find(&r, phrase, exact ? (PG_OCR_FIND_EXACT | PG_OCR_FIND_CASE) : 0, 0, &m, &fe);
    if (found != PG_OK && found != PG_E_NOTFOUND) {
        pg_ocr_result_fini(&r);
        *e = fe;
        return found;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "found", found == PG_OK);
    cJSON_AddStringToObject(o, "expect", phrase);
    cJSON_AddBoolToObject(o, "exact", exact);
    if (found == PG_OK) {
        cJSON_AddItemToObject(o, "match", match_json(&m.box));
        cJSON_AddItemToObject(o, "words", words_json(&r, m.first_word, m.n_words, pg_call_protected(c)));
        if (box) *box = m.box;
    }
    cJSON_AddStringToObject(o, "text_read", r.text);
    pg_ocr_result_fini(&r);
    *out = o;
    return PG_OK;
}

pg_err pg_op_assert_text(pg_call *c, const pg_args_assert_text *a, pg_error *e) {
    c->audit.kind = "assert";
    snprintf(c->audit.mode, sizeof c->audit.mode, "text");
    pg_img_rect region = pg_call_img_rect(&a->region);
    pg_img *img = NULL;
    char label[64];
    pg_err rc = pg_call_image(c, &a->image, &img, label, NULL, NULL, e);
    cJSON *j = NULL;
    if (!rc && a->has_region) rc = pg_call_area(c, (uint64_t)region.w * region.h, "OCR of a region", e);
    if (!rc) rc = pg_find_text(c, img, a->has_region ? &region : NULL, a->expect, a->exact, NULL, &j, e);
    pg_img_free(img);
    if (rc) return rc;
    bool found = cJSON_IsTrue(cJSON_GetObjectItem(j, "found"));
    cJSON_AddBoolToObject(j, "passed", found);
    cJSON *ev = cJSON_AddObjectToObject(j, "evidence");
    cJSON_AddStringToObject(ev, "image", label);
    if (found) {
        c->result = j;
        return PG_OK;
    }
    c->details = j;
    return pg_error_set(e, PG_E_ASSERT, "text_read shows what was read; wait for the UI or check the expectation",
                        "text \"%.200s\" not found", a->expect);
}
