/* ocr and assert text: reading a capture inside the broker. Only text and
 * word boxes leave; OCR is allowed under analyze-only and never unless the
 * policy turns analysis.ocr off. Tesseract engines are the broker's, one per
 * language spec (analysis.ocr_languages says which an agent may name), made on
 * first use (~130 ms) and lent to one request at a time (an engine is not
 * thread-safe; pg_broker_ocr_take). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocr/pg_ocr.h"
#include "pg_call.h"

typedef struct {
    const pg_img *img;
    const pg_img_rect *region;
    const pg_ocr_opts *opts;
    pg_ocr_result *out;
} ocr_job;

static pg_err run_job(pg_ocr *o, void *ctx, pg_error *e) {
    ocr_job *j = ctx;
    return pg_ocr_run_opts(o, j->img, j->region, j->opts, j->out, e);
}

/* Reads img (region optional) with the engine of lang (NULL: the policy's default). */
static pg_err broker_ocr(pg_call *c, const char *lang, const pg_img *img, const pg_img_rect *region,
                         const pg_ocr_opts *opts, pg_ocr_result *out, pg_error *e) {
    ocr_job j = {img, region, opts, out};
    return pg_call_ocr_with(c, lang, run_job, &j, e);
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
    pg_ocr_opts opts = {.field = a->field};
    if (!rc) rc = broker_ocr(c, a->lang, img, a->has_region ? &region : NULL, &opts, &r, e);
    pg_img_free(img);
    if (rc) return rc;
    snprintf(c->audit.detail, sizeof c->audit.detail, "%zu words%s", r.n_words, a->field ? ", field" : "");
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "text", r.text);
    bool coarse = pg_call_protected(c);
    cJSON_AddItemToObject(o, "words", words_json(&r, 0, r.n_words, coarse));
    cJSON_AddNumberToObject(o, "lines", (double)r.n_lines);
    cJSON_AddNumberToObject(o, "mean_conf", coarse ? (int)r.mean_conf : (int)(r.mean_conf * 10) / 10.0);
    cJSON_AddNumberToObject(o, "scale", r.scale);
    cJSON_AddBoolToObject(o, "inverted", r.inverted);
    char spec[128];
    if (pg_call_ocr_lang(c, a->lang, spec, e) == PG_OK) cJSON_AddStringToObject(o, "lang", spec);
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
    pg_find_text_opts fo = {.exact = exact};
    return pg_find_text_ex(c, img, region, phrase, &fo, box, out, e);
}

pg_err pg_find_text_ex(pg_call *c, const pg_img *img, const pg_img_rect *region, const char *phrase,
                       const pg_find_text_opts *fo, pg_img_rect *box, cJSON **out, pg_error *e) {
    pg_ocr_result r = {0};
    pg_ocr_opts opts = {.field = fo->field};
    pg_err rc = broker_ocr(c, fo->lang, img, region, &opts, &r, e);
    if (rc) return rc;
    unsigned flags = (fo->exact ? (PG_OCR_FIND_EXACT | PG_OCR_FIND_CASE) : 0) | (fo->normalize ? PG_OCR_FIND_NORMALIZE : 0);
    if (fo->normalize && fo->exact) flags &= ~PG_OCR_FIND_CASE; /* folded: case is gone on both sides */
    pg_ocr_match m;
    pg_error fe;
    pg_err found = pg_ocr_find(&r, phrase, flags, 0, &m, &fe);
    if (found != PG_OK && found != PG_E_NOTFOUND) {
        pg_ocr_result_fini(&r);
        *e = fe;
        return found;
    }
    pg_ocr_near near = {0};
    bool measured = fo->normalize || fo->max_distance > 0;
    if (measured) {
        rc = pg_ocr_nearest(&r, phrase, flags, &near, e);
        if (rc) {
            pg_ocr_result_fini(&r);
            return rc;
        }
        if (found != PG_OK && near.distance <= fo->max_distance && near.n_words) {
            found = PG_OK; /* within the tolerance the caller gave */
            m.box = near.box, m.first_word = near.first_word, m.n_words = near.n_words;
        }
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "found", found == PG_OK);
    cJSON_AddStringToObject(o, "expect", phrase);
    cJSON_AddBoolToObject(o, "exact", fo->exact);
    if (fo->normalize) cJSON_AddStringToObject(o, "normalized", "NFKC+casefold");
    if (measured) {
        cJSON_AddNumberToObject(o, "edit_distance", (double)near.distance);
        cJSON_AddNumberToObject(o, "max_distance", (double)fo->max_distance);
        cJSON_AddNumberToObject(o, "similarity", (int)(near.similarity * 1000) / 1000.0);
        cJSON_AddStringToObject(o, "closest", near.matched);
    }
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
    pg_find_text_opts fo = {.exact = a->exact, .normalize = a->normalize, .field = a->field, .lang = a->lang,
                            .max_distance = (size_t)a->max_distance};
    if (!rc) rc = pg_find_text_ex(c, img, a->has_region ? &region : NULL, a->expect, &fo, NULL, &j, e);
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
    const cJSON *d = cJSON_GetObjectItem(j, "edit_distance");
    if (cJSON_IsNumber(d))
        return pg_error_set(e, PG_E_ASSERT, "closest and edit_distance show the near miss; wait for the UI or check the expectation",
                            "text \"%.200s\" not found (closest is %d edits away)", a->expect, d->valueint);
    return pg_error_set(e, PG_E_ASSERT, "text_read shows what was read; wait for the UI or check the expectation",
                        "text \"%.200s\" not found", a->expect);
}
