/* hash, diff and assert: the everyday checks of an agent verifying a GUI.
 * Inputs are tokens or the client's own files (sent as bytes); derived images
 * (the diff heatmap) become tokens under the same release policy. A check
 * that runs and says no is PG_E_ASSERT (exit 1) with the measurements in the
 * error details, which the client prints on stdout, plus an evidence bundle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_diff.h"
#include "pg_fingerprint.h"
#include "pg_ops.h"
#include "pg_template.h"

#define DIFF_ARGS                                                                                         \
    {"threshold", PG_ARG_NUMBER, false}, {"include_aa", PG_ARG_BOOL, false}, {"region", PG_ARG_OBJECT, false}, \
        {"masks", PG_ARG_ARRAY, false}

const pg_arg_spec pg_op_hash_args[3] = {
    {"image", PG_ARG_OBJECT, true}, {"algo", PG_ARG_STRING, false}, {"region", PG_ARG_OBJECT, false}};
const pg_arg_spec pg_op_diff_args[7] = {
    {"a", PG_ARG_OBJECT, true}, {"b", PG_ARG_OBJECT, true}, DIFF_ARGS, {"max_ratio", PG_ARG_NUMBER, false}};
const pg_arg_spec pg_op_assert_args[14] = {
    {"kind", PG_ARG_STRING, true},     {"a", PG_ARG_OBJECT, false},        {"b", PG_ARG_OBJECT, false},
    DIFF_ARGS,                         {"min_pct", PG_ARG_NUMBER, false},  {"max_pct", PG_ARG_NUMBER, false},
    {"image", PG_ARG_OBJECT, false},   {"template", PG_ARG_OBJECT, false}, {"all", PG_ARG_BOOL, false},
    {"expect", PG_ARG_STRING, false},  {"exact", PG_ARG_BOOL, false}};

static cJSON *rect_json(const pg_img_rect *r) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "x", r->x);
    cJSON_AddNumberToObject(o, "y", r->y);
    cJSON_AddNumberToObject(o, "w", r->w);
    cJSON_AddNumberToObject(o, "h", r->h);
    return o;
}

/* ---- hash ---- */

/* The smallest token region whose dhash an agent may ask for when it may not
 * have the pixels: 64 bits about at least 1024 pixels. */
#define PG_HASH_MIN_REGION 32

/* May the caller learn exact answers about this token's pixels? Only when the
 * policy would release them to it right now. */
static bool token_pixels_exact(const pg_call *c) { return c->view->expose_pixels == PG_EXPOSE_ALLOW; }

/* A token's sha256 is its stored whole-image digest; a sub-region's sha256 is
 * an exact oracle (a 1x1 region has 2^24 possible inputs) and is refused
 * unless the pixels are the caller's to have. */
static pg_err hash_token_rule(pg_call *c, const char *algo, const pg_img_rect *region, pg_error *e) {
    if (!region || token_pixels_exact(c)) return PG_OK;
    if (!strcmp(algo, "sha256"))
        return pg_error_set(e, PG_E_POLICY, "hash the whole token (its stored digest), or crop with snapshot --region",
                            "sha256 of a region of a token is refused under expose_pixels %s: it would reveal the pixels",
                            pg_policy_expose_name(c->view->expose_pixels));
    if (region->w < PG_HASH_MIN_REGION || region->h < PG_HASH_MIN_REGION)
        return pg_error_set(e, PG_E_POLICY, "use a region of at least 32x32 pixels",
                            "dhash of a %ux%u region of a token is refused under expose_pixels %s (minimum %dx%d)",
                            region->w, region->h, pg_policy_expose_name(c->view->expose_pixels), PG_HASH_MIN_REGION,
                            PG_HASH_MIN_REGION);
    return PG_OK;
}

pg_err pg_op_hash(pg_call *c, pg_error *e) {
    c->audit.kind = "hash";
    const char *algo = pg_args_str(c->req->args, "algo", "sha256");
    if (strcmp(algo, "sha256") && strcmp(algo, "dhash"))
        return pg_error_set(e, PG_E_USAGE, "use --algo sha256 or dhash", "unknown hash algorithm \"%s\"", algo);
    pg_img_rect region;
    bool has_region;
    pg_err rc = pg_rect_arg(c->req->args, "region", &region, &has_region, e);
    const cJSON *image = cJSON_GetObjectItemCaseSensitive(c->req->args, "image");
    bool is_token = cJSON_GetObjectItemCaseSensitive(image, "token") != NULL;
    if (!rc && is_token) rc = hash_token_rule(c, algo, has_region ? &region : NULL, e);
    pg_img *img = NULL;
    char label[64];
    pg_tok_meta m;
    if (!rc && is_token) rc = pg_image_from_token(c, pg_args_str(image, "token", ""), &img, label, &m, e);
    else if (!rc) rc = pg_image_arg(c, "image", &img, label, e);
    if (rc) return rc;
    char hex[65];
    if (!strcmp(algo, "sha256") && is_token && !has_region) {
        memcpy(hex, m.sha256, sizeof hex); /* the digest the store computed at capture */
    } else if (!strcmp(algo, "sha256")) {
        uint8_t d[PG_SHA256_LEN];
        rc = pg_fp_sha256(img, has_region ? &region : NULL, d, e);
        if (!rc) pg_hex(d, sizeof d, hex);
    } else {
        uint64_t h;
        rc = pg_fp_dhash(img, has_region ? &region : NULL, &h, e);
        if (!rc) pg_fp_dhash_hex(h, hex);
    }
    uint32_t w = img->width, h = img->height;
    pg_img_free(img);
    if (rc) return rc;
    snprintf(c->audit.detail, sizeof c->audit.detail, "%s%s", algo, has_region ? " of a region" : "");
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "hash", hex);
    cJSON_AddStringToObject(r, "algorithm", algo);
    cJSON_AddNumberToObject(r, "width", has_region ? region.w : w);
    cJSON_AddNumberToObject(r, "height", has_region ? region.h : h);
    c->result = r;
    return PG_OK;
}

/* ---- diff ---- */

typedef struct {
    pg_diff_opts o;
    pg_img_rect region;
    pg_img_rect masks[64];
} diff_setup;

static pg_err read_diff_opts(const cJSON *args, diff_setup *d, pg_error *e) {
    pg_diff_opts_init(&d->o);
    d->o.threshold = pg_args_num(args, "threshold", d->o.threshold);
    d->o.include_aa = pg_args_bool(args, "include_aa", false);
    if (d->o.threshold < 0 || d->o.threshold > 1)
        return pg_error_set(e, PG_E_USAGE, NULL, "--threshold takes 0..1 (pixelmatch's colour tolerance)");
    bool has;
    pg_err rc = pg_rect_arg(args, "region", &d->region, &has, e);
    if (rc) return rc;
    if (has) d->o.region = &d->region;
    const cJSON *masks = cJSON_GetObjectItemCaseSensitive(args, "masks");
    size_t n = 0;
    for (const cJSON *m = masks ? masks->child : NULL; m; m = m->next) {
        if (n == 64) return pg_error_set(e, PG_E_USAGE, NULL, "at most 64 masks");
        cJSON *wrap = cJSON_CreateObject();
        cJSON_AddItemReferenceToObject(wrap, "mask", (cJSON *)m);
        rc = pg_rect_arg(wrap, "mask", &d->masks[n], &has, e);
        cJSON_Delete(wrap);
        if (rc) return rc;
        n++;
    }
    d->o.masks = d->masks;
    d->o.n_masks = n;
    return PG_OK;
}

static cJSON *diff_json(const pg_diff_result *r) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "sizes_match", r->sizes_match);
    if (!r->sizes_match) {
        char a[32], b[32];
        snprintf(a, sizeof a, "%ux%u", r->width_a, r->height_a);
        snprintf(b, sizeof b, "%ux%u", r->width_b, r->height_b);
        cJSON_AddStringToObject(o, "size_a", a);
        cJSON_AddStringToObject(o, "size_b", b);
        return o;
    }
    cJSON_AddNumberToObject(o, "pixels_changed", (double)r->pixels_changed);
    cJSON_AddNumberToObject(o, "pixels_antialiased", (double)r->pixels_aa);
    cJSON_AddNumberToObject(o, "total_pixels", (double)r->total_pixels);
    cJSON_AddNumberToObject(o, "changed_pct", r->changed_pct);
    if (r->has_bounds) cJSON_AddItemToObject(o, "bounds", rect_json(&r->bounds));
    else cJSON_AddNullToObject(o, "bounds");
    cJSON_AddNumberToObject(o, "region_count", (double)r->region_count);
    cJSON *arr = cJSON_AddArrayToObject(o, "regions");
    for (size_t i = 0; i < r->regions_len; i++) {
        cJSON *g = rect_json(&r->regions[i].box);
        cJSON_AddNumberToObject(g, "pixels", (double)r->regions[i].pixels);
        cJSON_AddItemToArray(arr, g);
    }
    return o;
}

/* Runs the diff of args a and b; *out is the result JSON (with the diff token
 * and an evidence bundle). Returns PG_E_ASSERT when sizes differ. */
static pg_err run_diff(pg_call *c, pg_diff_result *res, cJSON **out, pg_error *e) {
    diff_setup d;
    pg_err rc = read_diff_opts(c->req->args, &d, e);
    pg_img *a = NULL, *b = NULL, *heat = NULL;
    char la[64] = "", lb[64] = "";
    if (!rc) rc = pg_image_arg(c, "a", &a, la, e);
    if (!rc) rc = pg_image_arg(c, "b", &b, lb, e);
    if (!rc) rc = pg_diff(a, b, &d.o, res, &heat, e);
    pg_img_free(a);
    pg_img_free(b);
    if (rc && !(rc == PG_E_ASSERT && !res->sizes_match)) {
        pg_img_free(heat);
        return rc;
    }
    cJSON *j = diff_json(res);
    cJSON *ev = cJSON_CreateObject();
    cJSON_AddStringToObject(ev, "a", la);
    cJSON_AddStringToObject(ev, "b", lb);
    if (heat) {
        pg_error de;
        if (pg_derived_token(c, heat, "diff", j, "diff_token", &de) == PG_OK)
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

/* Finishes a check: on success the measurements are the result; on failure
 * they travel as error details (printed on stdout by the client). */
static pg_err verdict(pg_call *c, cJSON *measured, bool pass, pg_error *e, const char *tip, const char *fmt,
                      double v1, double v2) {
    cJSON_AddBoolToObject(measured, "passed", pass);
    if (pass) {
        c->result = measured;
        return PG_OK;
    }
    c->details = measured;
    return pg_error_set(e, PG_E_ASSERT, tip, fmt, v1, v2);
}

pg_err pg_op_diff(pg_call *c, pg_error *e) {
    c->audit.kind = "diff";
    pg_diff_result res;
    cJSON *j = NULL;
    pg_err rc = run_diff(c, &res, &j, e);
    if (rc) {
        c->details = j;
        return rc;
    }
    const cJSON *max = cJSON_GetObjectItemCaseSensitive(c->req->args, "max_ratio");
    if (!max) {
        c->result = j;
        return PG_OK;
    }
    double ratio = res.total_pixels ? (double)res.pixels_changed / (double)res.total_pixels : 0;
    return verdict(c, j, ratio <= max->valuedouble, e, "the images differ more than --max-ratio allows",
                   "changed ratio %.6f is over --max-ratio %.6f", ratio, max->valuedouble);
}

static pg_err assert_changed(pg_call *c, bool want_change, pg_error *e) {
    pg_diff_result res;
    cJSON *j = NULL;
    pg_err rc = run_diff(c, &res, &j, e);
    if (rc) {
        c->details = j;
        return rc;
    }
    if (want_change) {
        double min = pg_args_num(c->req->args, "min_pct", 1.0);
        cJSON_AddNumberToObject(j, "min_pct", min);
        return verdict(c, j, res.changed_pct >= min, e, "let the UI settle (wait-stable) or lower --min-pct",
                       "only %.4f%% of pixels changed; at least %.4f%% expected", res.changed_pct, min);
    }
    double max = pg_args_num(c->req->args, "max_pct", 0.5);
    cJSON_AddNumberToObject(j, "max_pct", max);
    return verdict(c, j, res.changed_pct <= max, e, "look at the diff token's regions; mask what may change",
                   "%.4f%% of pixels changed; at most %.4f%% allowed", res.changed_pct, max);
}

/* ---- template ---- */

static cJSON *hit_json(const pg_tmpl_hit *h) {
    cJSON *o = rect_json(&h->box);
    cJSON_AddNumberToObject(o, "score", h->score);
    cJSON *ctr = cJSON_AddObjectToObject(o, "center");
    cJSON_AddNumberToObject(ctr, "x", h->box.x + h->box.w / 2);
    cJSON_AddNumberToObject(ctr, "y", h->box.y + h->box.h / 2);
    return o;
}

pg_err pg_template_find(pg_call *c, const pg_img *img, const pg_img_rect *region, pg_tmpl_result *res, cJSON **out,
                        pg_error *e) {
    pg_img *tmpl = NULL;
    char lt[64];
    pg_err rc = pg_image_arg(c, "template", &tmpl, lt, e);
    if (rc) return rc;
    pg_tmpl_opts o;
    pg_tmpl_opts_init(&o);
    o.threshold = pg_args_num(c->req->args, "threshold", 0.8);
    o.all = pg_args_bool(c->req->args, "all", false);
    o.region = region;
    rc = pg_tmpl_match(img, tmpl, &o, res, e);
    pg_img_free(tmpl);
    if (rc) return rc;
    cJSON *j = cJSON_CreateObject();
    cJSON_AddBoolToObject(j, "found", res->found);
    cJSON_AddNumberToObject(j, "threshold", o.threshold);
    cJSON_AddItemToObject(j, "best", hit_json(&res->best));
    if (o.all) {
        cJSON *arr = cJSON_AddArrayToObject(j, "matches");
        for (size_t i = 0; i < res->n_matches; i++) cJSON_AddItemToArray(arr, hit_json(&res->matches[i]));
    }
    *out = j;
    return PG_OK;
}

static pg_err assert_template(pg_call *c, pg_error *e) {
    pg_img_rect region;
    bool has_region;
    pg_err rc = pg_rect_arg(c->req->args, "region", &region, &has_region, e);
    pg_img *img = NULL;
    char li[64];
    if (!rc) rc = pg_image_arg(c, "image", &img, li, e);
    pg_tmpl_result res;
    cJSON *j = NULL;
    if (!rc) rc = pg_template_find(c, img, has_region ? &region : NULL, &res, &j, e);
    pg_img_free(img);
    if (rc) return rc;
    cJSON *ev = cJSON_AddObjectToObject(j, "evidence");
    cJSON_AddStringToObject(ev, "image", li);
    return verdict(c, j, res.found, e, "the best match is in \"best\"; check the template or lower --threshold",
                   "template not found: best score %.4f is under the threshold %.4f", res.best.score,
                   pg_args_num(c->req->args, "threshold", 0.8));
}

pg_err pg_op_assert(pg_call *c, pg_error *e) {
    const char *kind = pg_args_str(c->req->args, "kind", "");
    c->audit.kind = "assert";
    snprintf(c->audit.mode, sizeof c->audit.mode, "%.31s", kind);
    if (!strcmp(kind, "changed")) return assert_changed(c, true, e);
    if (!strcmp(kind, "unchanged")) return assert_changed(c, false, e);
    if (!strcmp(kind, "template")) return assert_template(c, e);
    if (!strcmp(kind, "text")) return pg_assert_text(c, e);
    return pg_error_set(e, PG_E_USAGE, "assert changed|unchanged|template|text", "unknown assertion \"%s\"", kind);
}
