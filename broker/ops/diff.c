/* SPDX-License-Identifier: MIT */
/* diff, assert changed, assert unchanged: pixelmatch comparisons of two
 * images (tokens or the client's own files, sent as bytes). The diff image
 * becomes a token under the same release policy as any capture. A check that
 * runs and says no is PG_E_ASSERT (exit 1) with the measurements in the
 * error details, which the client prints on stdout, plus an evidence bundle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_diff.h"
#include "pg_disclose.h"
#include "pg_call.h"

/* The arguments every comparison shares (PG_DIFF_ARGS in pg_ops.def). */
typedef struct {
    const pg_image_ref *a, *b;
    double threshold;
    bool include_aa, checkerboard;
    int metric; /* index into "yiq|oklab" */
    uint32_t window_size; /* 0: not asked */
    const pg_rect *region; /* NULL: whole images */
    const pg_rect_list *masks;
} diff_in;
#define DIFF_IN(x)                                                                                          \
    ((diff_in){&(x)->a, &(x)->b, (x)->threshold, (x)->include_aa, (x)->checkerboard, (x)->metric,          \
               (x)->has_window_size ? (uint32_t)(x)->window_size : 0, (x)->has_region ? &(x)->region : NULL, \
               &(x)->masks})

/* The measurements as the caller may see them: exact, or (protected pixels)
 * counts in 1/256 of the compared area, boxes on the grid and at most
 * PG_DISCLOSE_MAX_BOXES regions; *bits gets what the quantised fields can
 * carry (pg_disclose.h). */
typedef struct {
    bool coarse;
    bool regions;  /* list the regions (diff); a check lists them only when exact */
    uint32_t w, h; /* the image's size, for the grid */
    double bits;
} shown;

static double count_of(shown *s, uint64_t n, uint64_t total) {
    return s->coarse ? (double)pg_disclose_count(n, total, &s->bits) : (double)n;
}

static cJSON *box_of(shown *s, const pg_img_rect *r) {
    if (!s->coarse) return pg_rect_json(r);
    pg_img_rect q = pg_disclose_box(*r, s->w, s->h, &s->bits);
    return pg_rect_json(&q);
}

static cJSON *diff_json(const diff_in *in, const pg_diff_result *r, shown *s) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "metric", in->metric ? "oklab" : "yiq");
    cJSON_AddBoolToObject(o, "checkerboard", in->checkerboard);
    cJSON_AddBoolToObject(o, "sizes_match", r->sizes_match);
    if (!r->sizes_match) {
        char a[32], b[32];
        snprintf(a, sizeof a, "%ux%u", r->width_a, r->height_a);
        snprintf(b, sizeof b, "%ux%u", r->width_b, r->height_b);
        cJSON_AddStringToObject(o, "size_a", a);
        cJSON_AddStringToObject(o, "size_b", b);
        return o;
    }
    uint64_t total = r->total_pixels;
    double changed = count_of(s, r->pixels_changed, total);
    cJSON_AddNumberToObject(o, "pixels_changed", changed);
    cJSON_AddNumberToObject(o, "pixels_antialiased", count_of(s, r->pixels_aa, total));
    cJSON_AddNumberToObject(o, "total_pixels", (double)total);
    cJSON_AddNumberToObject(o, "changed_pct", s->coarse ? (total ? 100.0 * changed / (double)total : 0) : r->changed_pct);
    if (r->has_bounds) cJSON_AddItemToObject(o, "bounds", box_of(s, &r->bounds));
    else cJSON_AddNullToObject(o, "bounds");
    if (r->window_size) {
        cJSON_AddNumberToObject(o, "window_size", r->window_size);
        uint64_t win = (uint64_t)r->window_size * r->window_size;
        cJSON_AddNumberToObject(o, "max_window_changed", count_of(s, r->max_window_changed, win));
    }
    size_t listed = s->coarse && !s->regions ? 0 : r->regions_len;
    if (s->coarse && listed > PG_DISCLOSE_MAX_BOXES) listed = PG_DISCLOSE_MAX_BOXES;
    cJSON_AddNumberToObject(o, "region_count", s->coarse ? (double)(r->region_count > 255 ? 255 : r->region_count)
                                                         : (double)r->region_count);
    if (s->coarse) s->bits += 8;
    cJSON *arr = cJSON_AddArrayToObject(o, "regions");
    for (size_t i = 0; i < listed; i++) {
        cJSON *g = box_of(s, &r->regions[i].box);
        cJSON_AddNumberToObject(g, "pixels", count_of(s, r->regions[i].pixels, total));
        cJSON_AddItemToArray(arr, g);
    }
    if (s->coarse) cJSON_AddStringToObject(o, "resolution", "coarse: pixels you may not have (docs/threat-model.md)");
    return o;
}

/* Runs the comparison; *out is the result JSON (with the diff token and an
 * evidence bundle). Returns PG_E_ASSERT when sizes differ. */
static pg_err run_diff(pg_call *c, const diff_in *in, bool regions, pg_diff_result *res, cJSON **out, pg_error *e) {
    pg_diff_opts o;
    pg_diff_opts_init(&o);
    o.threshold = in->threshold;
    o.include_aa = in->include_aa;
    o.checkerboard = in->checkerboard;
    o.metric = in->metric ? PG_DIFF_OKLAB : PG_DIFF_YIQ;
    o.window_size = in->window_size;
    pg_img_rect region, masks[PG_LIST_MAX];
    if (in->region) {
        region = pg_call_img_rect(in->region);
        o.region = &region;
    }
    for (size_t i = 0; i < in->masks->n; i++) masks[i] = pg_call_img_rect(&in->masks->v[i]);
    o.masks = masks;
    o.n_masks = in->masks->n;
    pg_img *img[2] = {NULL, NULL}, *heat = NULL;
    char label[2][64] = {"", ""};
    pg_tok_meta meta[2];
    bool is_token[2];
    pg_err rc = pg_call_image_pair(c, in->a, in->b, img, label, meta, is_token, e); /* two files: decoded in parallel */
    if (!rc) rc = pg_diff(img[0], img[1], &o, res, &heat, e);
    pg_img_free(img[0]);
    pg_img_free(img[1]);
    shown sh = {.coarse = pg_call_protected(c), .regions = regions};
    if (!rc) {
        sh.w = res->width_a; /* boxes are in whole-image coordinates */
        sh.h = res->height_a;
        rc = pg_call_area(c, res->total_pixels, "a comparison", e);
    }
    if (rc && !(rc == PG_E_ASSERT && !res->sizes_match)) {
        pg_img_free(heat);
        return rc;
    }
    cJSON *j = diff_json(in, res, &sh);
    if (sh.coarse) pg_disclose_flag(&sh.bits); /* the verdict a check adds */
    pg_err dr = pg_call_disclose(c, sh.bits, e);
    if (dr) {
        pg_img_free(heat);
        cJSON_Delete(j);
        return dr;
    }
    cJSON *ev = cJSON_CreateObject();
    cJSON_AddStringToObject(ev, "a", label[0]);
    cJSON_AddStringToObject(ev, "b", label[1]);
    if (heat) {
        pg_error de;
        if (pg_call_derived_token(c, heat, "diff", j, "diff_token", &de) == PG_OK)
            cJSON_AddStringToObject(ev, "diff", cJSON_GetObjectItem(j, "diff_token")->valuestring);
    }
    cJSON_AddItemToObject(j, "evidence", ev);
    *out = j;
    if (!res->sizes_match)
        return pg_error_set(e, PG_E_ASSERT, "compare captures of the same size (same window, --region and --max-size)",
                            "images differ in size (%ux%u vs %ux%u): not compared", res->width_a, res->height_a,
                            res->width_b, res->height_b);
    snprintf(c->audit.detail, sizeof c->audit.detail, "%llu of %llu pixels changed",
             (unsigned long long)res->pixels_changed, (unsigned long long)res->total_pixels);
    return PG_OK;
}

/* changed_pct as the result shows it (coarse for protected pixels): what
 * messages may repeat, never the exact value the verdict used. */
static double shown_pct(const cJSON *j) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "changed_pct");
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

pg_err pg_op_diff(pg_call *c, const pg_args_diff *a, pg_error *e) {
    c->audit.kind = "diff";
    pg_diff_result res;
    cJSON *j = NULL;
    diff_in in = DIFF_IN(a);
    pg_err rc = run_diff(c, &in, true, &res, &j, e);
    if (rc) {
        c->details = j;
        return rc;
    }
    if (!a->has_max_ratio) {
        c->result = j;
        return PG_OK;
    }
    double ratio = res.total_pixels ? (double)res.pixels_changed / (double)res.total_pixels : 0;
    /* The verdict is exact; the message repeats only what the result shows. */
    return pg_call_verdict(c, j, ratio <= a->max_ratio, e, "the images differ more than --max-ratio allows",
                           "changed ratio %.6f is over --max-ratio %.6f", shown_pct(j) / 100, a->max_ratio);
}

/* assert changed (want_change) or unchanged, against limit percent. */
static pg_err assert_change(pg_call *c, const diff_in *in, bool want_change, double limit, pg_error *e) {
    c->audit.kind = "assert";
    snprintf(c->audit.mode, sizeof c->audit.mode, "%s", want_change ? "changed" : "unchanged");
    pg_diff_result res;
    cJSON *j = NULL;
    pg_err rc = run_diff(c, in, false, &res, &j, e);
    if (rc) {
        c->details = j;
        return rc;
    }
    if (want_change) {
        cJSON_AddNumberToObject(j, "min_pct", limit);
        return pg_call_verdict(c, j, res.changed_pct >= limit, e, "let the UI settle (wait-stable) or lower --min-pct",
                               "only %.4f%% of pixels changed; at least %.4f%% expected", shown_pct(j), limit);
    }
    cJSON_AddNumberToObject(j, "max_pct", limit);
    return pg_call_verdict(c, j, res.changed_pct <= limit, e, "look at the diff token's regions; mask what may change",
                           "%.4f%% of pixels changed; at most %.4f%% allowed", shown_pct(j), limit);
}

pg_err pg_op_assert_changed(pg_call *c, const pg_args_assert_changed *a, pg_error *e) {
    diff_in in = DIFF_IN(a);
    return assert_change(c, &in, true, a->min_pct, e);
}

pg_err pg_op_assert_unchanged(pg_call *c, const pg_args_assert_unchanged *a, pg_error *e) {
    diff_in in = DIFF_IN(a);
    return assert_change(c, &in, false, a->max_pct, e);
}
