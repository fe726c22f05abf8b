/* SPDX-License-Identifier: MIT */
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
#include "pg_disclose.h"

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

/* How a reply shows what OCR found beyond its text. The text, each word's
 * text and line, and the line count are the analysis.ocr release (the line
 * count and a word's line follow from the text's rows). Everything else comes
 * from the pixels and not from the text: where each word sits and how sure
 * Tesseract was. About protected pixels those are coarse (boxes on the
 * disclosure grid, confidences in steps of 10) and charged; when the budget
 * cannot pay, they are withheld and the text still comes back (whether the
 * budget pays depends on the word count and the image size only, so the
 * choice tells nothing). */
typedef struct {
    bool coarse;      /* protected pixels */
    bool withheld;    /* coarse, and the budget refused the geometry */
    uint32_t w, h;    /* the image, for the grid */
    double bits;      /* what the coarse fields shown can carry */
} shown;

#define CONF_STEP 10.0 /* 11 levels: 3.5 bits, enough to tell a sure word from a guess */

static double conf_shown(shown *s, double conf) {
    if (!s->coarse) return (int)(conf * 10) / 10.0;
    return pg_disclose_step(conf, 0, 100, CONF_STEP, &s->bits);
}

/* The mean of the confidences shown: about protected pixels a function of
 * what the words already carry (no bits of its own), 0 with no words. */
static double mean_conf_shown(const pg_ocr_result *r, const shown *s) {
    if (!s->coarse) return (int)(r->mean_conf * 10) / 10.0;
    double sum = 0, ignored = 0;
    for (size_t i = 0; i < r->n_words; i++) sum += pg_disclose_step(r->words[i].conf, 0, 100, CONF_STEP, &ignored);
    return r->n_words ? (int)(sum / (double)r->n_words + 0.5) : 0;
}

static pg_img_rect box_shown(shown *s, pg_img_rect box) {
    return s->coarse ? pg_disclose_box(box, s->w, s->h, &s->bits) : box;
}

static cJSON *words_json(const pg_ocr_result *r, size_t first, size_t n, shown *s) {
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = first; i < first + n && i < r->n_words; i++) {
        const pg_ocr_word *w = &r->words[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "text", w->text);
        if (!s->withheld) {
            pg_img_rect b = box_shown(s, (pg_img_rect){(uint32_t)w->x, (uint32_t)w->y, (uint32_t)w->w, (uint32_t)w->h});
            cJSON_AddNumberToObject(o, "x", b.x);
            cJSON_AddNumberToObject(o, "y", b.y);
            cJSON_AddNumberToObject(o, "w", b.w);
            cJSON_AddNumberToObject(o, "h", b.h);
            cJSON_AddNumberToObject(o, "conf", conf_shown(s, w->conf));
        }
        cJSON_AddNumberToObject(o, "line", w->line);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

/* Charges what the coarse fields of *o carry (s->bits, gathered while o was
 * built). A refusal is not the caller's error: *o is rebuilt without them by
 * build, and the reply says so in "geometry". */
typedef cJSON *(*build_fn)(void *ctx, shown *s);

static cJSON *build_charged(pg_call *c, build_fn build, void *ctx, shown *s) {
    cJSON *o = build(ctx, s);
    if (!s->coarse) return o;
    pg_error refused;
    if (pg_call_disclose(c, s->bits, &refused) == PG_OK) {
        cJSON_AddStringToObject(o, "geometry", "coarse");
        return o;
    }
    cJSON_Delete(o);
    s->withheld = true, s->bits = 0;
    o = build(ctx, s);
    cJSON_AddStringToObject(o, "geometry", "withheld: the disclosure budget is spent; the text is complete");
    return o;
}

typedef struct {
    pg_call *c;
    const pg_args_ocr *a;
    const pg_ocr_result *r;
} ocr_reply;

/* The reply of ocr. The engine's own choices (scale, polarity, segmentation
 * mode) stay in the broker: the polarity is "mean luma < 128" over the
 * region, an exact luminance predicate that a sliding region turns into
 * block sums of the pixels (issue 27). */
static cJSON *ocr_json(void *ctx, shown *s) {
    ocr_reply *rep = ctx;
    const pg_ocr_result *r = rep->r;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "text", r->text);
    cJSON_AddItemToObject(o, "words", words_json(r, 0, r->n_words, s));
    cJSON_AddNumberToObject(o, "lines", (double)r->n_lines);
    if (!s->withheld) cJSON_AddNumberToObject(o, "mean_conf", mean_conf_shown(r, s));
    char spec[128];
    pg_error ignored;
    if (pg_call_ocr_lang(rep->c, rep->a->lang, spec, &ignored) == PG_OK) cJSON_AddStringToObject(o, "lang", spec);
    cJSON_AddStringToObject(o, "token", rep->a->token);
    return o;
}

pg_err pg_op_ocr(pg_call *c, const pg_args_ocr *a, pg_error *e) {
    c->audit.kind = "ocr";
    pg_img_rect region = pg_call_img_rect(&a->region);
    pg_img *img = NULL;
    char label[64];
    pg_err rc = pg_call_token_image(c, a->token, &img, label, NULL, e);
    pg_ocr_result r = {0};
    uint32_t w = img ? img->width : 0, h = img ? img->height : 0;
    if (!rc && a->has_region) rc = pg_call_area(c, (uint64_t)region.w * region.h, "OCR of a region", e);
    pg_ocr_opts opts = {.field = a->field};
    if (!rc) rc = broker_ocr(c, a->lang, img, a->has_region ? &region : NULL, &opts, &r, e);
    pg_img_free(img);
    if (rc) return rc;
    shown sh = {.coarse = pg_call_protected(c), .w = w, .h = h};
    ocr_reply rep = {c, a, &r};
    c->result = build_charged(c, ocr_json, &rep, &sh);
    snprintf(c->audit.detail, sizeof c->audit.detail, "%zu words%s%s", r.n_words, a->field ? ", field" : "",
             sh.withheld ? ", geometry withheld (budget)" : "");
    pg_ocr_result_fini(&r);
    return PG_OK;
}

static void match_json(cJSON *o, const pg_img_rect *box) {
    cJSON *b = pg_rect_json(box);
    cJSON *ctr = cJSON_AddObjectToObject(b, "center");
    cJSON_AddNumberToObject(ctr, "x", box->x + box->w / 2);
    cJSON_AddNumberToObject(ctr, "y", box->y + box->h / 2);
    cJSON_AddItemToObject(o, "match", b);
}

typedef struct {
    const char *phrase;
    const pg_find_text_opts *fo;
    const pg_ocr_result *r;
    bool found, measured;
    const pg_ocr_match *m;
    const pg_ocr_near *near;
} find_reply;

/* The reply of a text search: found or not, the distance measures and the
 * text read (all functions of the text and the phrase), and where the match
 * is (shown like ocr's word boxes; the center is the shown box's). */
static cJSON *find_json(void *ctx, shown *s) {
    const find_reply *f = ctx;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "found", f->found);
    cJSON_AddStringToObject(o, "expect", f->phrase);
    cJSON_AddBoolToObject(o, "exact", f->fo->exact);
    if (f->fo->normalize) cJSON_AddStringToObject(o, "normalized", "NFKC+casefold");
    if (f->measured) {
        cJSON_AddNumberToObject(o, "edit_distance", (double)f->near->distance);
        cJSON_AddNumberToObject(o, "max_distance", (double)f->fo->max_distance);
        cJSON_AddNumberToObject(o, "similarity", (int)(f->near->similarity * 1000) / 1000.0);
        cJSON_AddStringToObject(o, "closest", f->near->matched);
    }
    if (f->found) {
        if (!s->withheld) {
            pg_img_rect b = box_shown(s, f->m->box);
            match_json(o, &b);
        }
        cJSON_AddItemToObject(o, "words", words_json(f->r, f->m->first_word, f->m->n_words, s));
    }
    cJSON_AddStringToObject(o, "text_read", f->r->text);
    return o;
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
    find_reply f = {phrase, fo, &r, found == PG_OK, measured, &m, &near};
    /* nothing found shows no geometry: a wait polling for the text is not charged per frame */
    shown sh = {.coarse = pg_call_protected(c) && f.found, .w = img->width, .h = img->height};
    *out = build_charged(c, find_json, &f, &sh);
    if (f.found && box) *box = m.box; /* exact: the broker's own click aims with it */
    pg_ocr_result_fini(&r);
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
