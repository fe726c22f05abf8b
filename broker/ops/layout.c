/* SPDX-License-Identifier: MIT */
/* layout and assert control: a window's widgets from its pixels (no
 * accessibility tree), and checks of one of them. Controls are numbered in
 * the order pg_layout_detect lists them, which depends on the token's pixels
 * only (not on OCR or its language), so click/type --control N --in TOKEN
 * recompute the same numbering from the token. Text (labels, values, rows)
 * is the analysis.ocr release; boxes, states and positions of protected
 * pixels are quantised and charged (docs/threat-model.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocr/pg_ocr.h"
#include "ocr/pg_ocr_layout.h"
#include "pg_disclose.h"
#include "pg_layout.h"
#include "pg_call.h"

/* ---- the image: a token, or a fresh capture stored as one ---- */

typedef struct {
    const char *token; /* or NULL: capture the target */
    pg_target t;
} src_spec;

static pg_err load(pg_call *c, const src_spec *s, pg_img **img, pg_tok_meta *m, pg_error *e) {
    char label[64];
    if (s->token) return pg_call_token_image(c, s->token, img, label, m, e);
    return pg_capture_token(c, &s->t, img, m, e);
}

/* ---- JSON ---- */

typedef struct {
    bool q;        /* protected: boxes on the grid, values rounded, bits counted */
    uint32_t w, h; /* the image */
    double bits;
} shaper;

static cJSON *box_json(shaper *s, pg_img_rect r) {
    if (s->q) r = pg_disclose_box(r, s->w, s->h, &s->bits);
    return pg_rect_json(&r);
}

static double frac(shaper *s, double v) {
    if (!s->q) return (int)(v * 1000 + 0.5) / 1000.0;
    s->bits += 6.7; /* to 0.01: 101 values */
    return (int)(v * 100 + 0.5) / 100.0;
}

static cJSON *control_json(shaper *s, size_t n, const pg_ocr_layout_control *lc) {
    const pg_layout_control *k = &lc->c;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "n", (double)n);
    cJSON_AddStringToObject(o, "kind", pg_ctl_kind_name(k->kind));
    s->bits += 3; /* the kind */
    if (lc->label) cJSON_AddStringToObject(o, "label", lc->label);
    else cJSON_AddNullToObject(o, "label");
    switch (k->kind) {
    case PG_CTL_CHECK:
    case PG_CTL_RADIO:
        cJSON_AddBoolToObject(o, "checked", k->on);
        pg_disclose_flag(&s->bits);
        break;
    case PG_CTL_ENTRY:
    case PG_CTL_BUTTON:
        cJSON_AddStringToObject(o, "text", lc->text ? lc->text : "");
        break;
    case PG_CTL_LIST:
    case PG_CTL_TEXTAREA: {
        cJSON *rows = cJSON_AddArrayToObject(o, "rows");
        for (size_t i = 0; i < lc->n_rows; i++) { /* OCR text and its box, as `ocr` gives them: the text
                                                     is the release, the box is pixels' (issue 27) */
            cJSON *row = cJSON_CreateObject();
            cJSON_AddStringToObject(row, "text", lc->rows[i].text);
            cJSON_AddItemToObject(row, "box", box_json(s, lc->rows[i].box)); /* on the grid, charged */
            cJSON_AddItemToArray(rows, row);
        }
        if (k->kind == PG_CTL_LIST) {
            cJSON_AddNumberToObject(o, "selected", k->selected);
            if (lc->selected_text) cJSON_AddStringToObject(o, "selected_text", lc->selected_text);
            else cJSON_AddNullToObject(o, "selected_text");
            s->bits += 5; /* which row */
        }
        break;
    }
    case PG_CTL_SLIDER:
        cJSON_AddNumberToObject(o, "position", frac(s, k->first));
        cJSON_AddStringToObject(o, "orientation", k->vertical ? "vertical" : "horizontal");
        break;
    case PG_CTL_SCROLLBAR:
        cJSON_AddNumberToObject(o, "first", frac(s, k->first));
        cJSON_AddNumberToObject(o, "last", frac(s, k->last));
        cJSON_AddStringToObject(o, "orientation", k->vertical ? "vertical" : "horizontal");
        break;
    default: break;
    }
    cJSON_AddItemToObject(o, "box", box_json(s, k->box));
    double conf = (int)(k->conf * 10 + 0.5) / 10.0;
    s->bits += s->q ? 3.46 : 0; /* to 0.1: 11 values */
    cJSON_AddNumberToObject(o, "conf", conf);
    return o;
}

/* ---- layout ---- */

typedef struct {
    const pg_img *img;
    pg_ocr_layout *out;
} lay_job;

static pg_err run_layout(pg_ocr *o, void *ctx, pg_error *e) {
    lay_job *j = ctx;
    return pg_ocr_layout_run(o, j->img, NULL, j->out, e);
}

static pg_err lay_out(pg_call *c, const pg_img *img, const char *lang, pg_ocr_layout *lay, pg_error *e) {
    pg_err rc = pg_call_area(c, (uint64_t)img->width * img->height, "layout of an image", e);
    if (rc) return rc;
    lay_job j = {img, lay};
    return pg_call_ocr_with(c, lang, run_layout, &j, e);
}

pg_err pg_op_layout(pg_call *c, const pg_args_layout *a, pg_error *e) {
    c->audit.kind = "layout";
    src_spec s = {a->token, PG_TARGET_OF(a)};
    char spec[128];
    pg_err rc = pg_call_ocr_lang(c, a->lang, spec, e); /* refuse before any capture */
    if (rc) return rc;
    pg_img *img = NULL;
    pg_tok_meta m;
    rc = load(c, &s, &img, &m, e);
    if (rc) return rc;
    pg_ocr_layout lay;
    rc = lay_out(c, img, a->lang, &lay, e);
    if (rc) {
        pg_img_free(img);
        return rc;
    }
    shaper sh = {pg_call_protected(c), img->width, img->height, 0};
    pg_img_free(img);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "token", m.token);
    cJSON *ctl = cJSON_AddArrayToObject(o, "controls");
    unsigned counts[PG_CTL_KINDS] = {0};
    for (size_t i = 0; i < lay.n_controls; i++) {
        cJSON_AddItemToArray(ctl, control_json(&sh, i, &lay.controls[i]));
        counts[lay.controls[i].c.kind]++;
    }
    cJSON *lines = cJSON_AddArrayToObject(o, "lines");
    /* Text lines as `ocr` shows words: the text is the analysis.ocr release,
     * where it sits is computed from the pixels, so about protected pixels the
     * box is on the disclosure grid and charged with the rest (issue 27). */
    for (size_t i = 0; i < lay.n_lines; i++) {
        cJSON *l = cJSON_CreateObject();
        cJSON_AddStringToObject(l, "text", lay.lines[i].text);
        cJSON_AddItemToObject(l, "box", box_json(&sh, lay.lines[i].box));
        cJSON_AddItemToArray(lines, l);
    }
    cJSON *cn = cJSON_AddObjectToObject(o, "counts");
    for (int k = 0; k < PG_CTL_KINDS; k++) cJSON_AddNumberToObject(cn, pg_ctl_kind_name(k), counts[k]);
    cJSON_AddStringToObject(o, "lang", spec);
    cJSON_AddBoolToObject(o, "quantized", sh.q);
    cJSON_AddStringToObject(o, "cannot_see",
                            "combo and spin boxes (as entries or buttons), tabs, menus, tree views, icons without a frame, "
                            "controls under 7 px; states shown only by colour; see docs/ocr.md");
    snprintf(c->audit.detail, sizeof c->audit.detail, "%zu controls, %zu lines", lay.n_controls, lay.n_lines);
    pg_ocr_layout_fini(&lay);
    rc = pg_call_disclose(c, sh.bits, e);
    if (rc) {
        cJSON_Delete(o);
        return rc;
    }
    c->result = o;
    return PG_OK;
}

/* ---- assert control ---- */

/* A copy of s folded for comparison: NFKC + case folding where the build
 * has utf8proc, else ASCII lower case. */
static char *fold(const char *s) {
    pg_error ig;
    if (pg_ocr_can_normalize()) return pg_ocr_normalize(s, &ig);
    size_t n = strlen(s);
    char *d = malloc(n + 1);
    for (size_t i = 0; d && i <= n; i++) d[i] = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] + 32) : s[i];
    return d;
}

static bool label_is(const char *label, const char *want) {
    if (!label) return false;
    char *a = fold(label), *b = fold(want);
    bool eq = false;
    if (a && b) {
        /* A trailing colon is the label's punctuation, not its name. */
        size_t la = strlen(a), lb = strlen(b);
        while (la && (a[la - 1] == ':' || a[la - 1] == ' ')) a[--la] = 0;
        while (lb && (b[lb - 1] == ':' || b[lb - 1] == ' ')) b[--lb] = 0;
        eq = !strcmp(a, b);
    }
    free(a), free(b);
    return eq;
}

/* Edit distance between got and want after normalisation, through the OCR
 * module's comparison (one word per input). */
static pg_err distance(const char *got, const char *want, size_t *d, pg_error *e) {
    pg_ocr_word w = {(char *)(got && got[0] ? got : " "), 0, 0, 1, 1, 100, 0};
    pg_ocr_result r = {.text = w.text, .words = &w, .n_words = got && got[0] ? 1 : 0};
    pg_ocr_near nr;
    unsigned flags = PG_OCR_FIND_EXACT | (pg_ocr_can_normalize() ? PG_OCR_FIND_NORMALIZE : 0);
    pg_err rc = pg_ocr_nearest(&r, want, flags, &nr, e);
    if (!rc) *d = nr.distance;
    return rc;
}

pg_err pg_op_assert_control(pg_call *c, const pg_args_assert_control *a, pg_error *e) {
    c->audit.kind = "assert";
    snprintf(c->audit.mode, sizeof c->audit.mode, "control");
    src_spec s = {a->in, PG_TARGET_OF(a)};
    char spec[128];
    pg_err rc = pg_call_ocr_lang(c, a->lang, spec, e);
    if (rc) return rc;
    pg_img *img = NULL;
    pg_tok_meta m;
    rc = load(c, &s, &img, &m, e);
    if (rc) return rc;
    pg_ocr_layout lay;
    rc = lay_out(c, img, a->lang, &lay, e);
    shaper sh = {pg_call_protected(c), img->width, img->height, 0};
    pg_img_free(img);
    if (rc) return rc;
    int want_kind = a->kind - 1; /* "any" is 0 */
    size_t pick = SIZE_MAX;
    for (size_t i = 0; i < lay.n_controls && pick == SIZE_MAX; i++) {
        const pg_ocr_layout_control *lc = &lay.controls[i];
        if (want_kind >= 0 && (int)lc->c.kind != want_kind) continue;
        if (a->has_checked || a->has_unchecked)
            if (lc->c.kind != PG_CTL_CHECK && lc->c.kind != PG_CTL_RADIO) continue;
        if (a->has_selected && lc->c.kind != PG_CTL_LIST) continue;
        if (a->has_control ? (int64_t)i == a->control : label_is(lc->label, a->label)) pick = i;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "token", m.token);
    cJSON *ex = cJSON_AddObjectToObject(o, "expect");
    if (a->has_label) cJSON_AddStringToObject(ex, "label", a->label);
    else cJSON_AddNumberToObject(ex, "control", (double)a->control);
    bool pass = false;
    if (pick == SIZE_MAX) {
        cJSON *labels = cJSON_AddArrayToObject(o, "labels_seen");
        for (size_t i = 0; i < lay.n_controls && i < 64; i++)
            if (lay.controls[i].label) cJSON_AddItemToArray(labels, cJSON_CreateString(lay.controls[i].label));
        cJSON_AddNullToObject(o, "control");
    } else {
        const pg_ocr_layout_control *lc = &lay.controls[pick];
        cJSON_AddItemToObject(o, "control", control_json(&sh, pick, lc));
        if (a->has_checked || a->has_unchecked) {
            cJSON_AddBoolToObject(ex, "checked", a->has_checked);
            pass = lc->c.on == a->has_checked;
        } else if (a->has_value || a->has_selected) {
            const char *want = a->has_value ? a->value : a->selected;
            const char *got = a->has_value ? lc->text : lc->selected_text;
            cJSON_AddStringToObject(ex, a->has_value ? "value" : "selected", want);
            size_t d = 0;
            rc = distance(got, want, &d, e);
            if (!rc) {
                cJSON_AddNumberToObject(o, "edit_distance", (double)d);
                pass = d <= (size_t)a->max_distance;
            }
        } else {
            pass = true; /* the control exists */
        }
    }
    pg_disclose_flag(&sh.bits);
    double n_ctl = (double)lay.n_controls;
    pg_ocr_layout_fini(&lay);
    if (!rc) rc = pg_call_disclose(c, sh.bits, e);
    if (rc) {
        cJSON_Delete(o);
        return rc;
    }
    snprintf(c->audit.detail, sizeof c->audit.detail, "control %s: %s", pick == SIZE_MAX ? "not found" : "found",
             pass ? "passed" : "failed");
    return pg_call_verdict(c, o, pass, e, "control shows what was found; labels_seen lists the labels read",
                           pick == SIZE_MAX ? "no such control among the %.0f found%.0s"
                                            : "control %.0f of %.0f does not match the expectation",
                           pick == SIZE_MAX ? n_ctl : (double)pick, n_ctl);
}
