/* SPDX-License-Identifier: MIT */
/* spec: static image specification checks of a file the agent sent (its
 * bytes and name; exact, the agent's own) or of a token (only the checks
 * that apply to pixels; coarse and charged where the pixels are not the
 * agent's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_disclose.h"
#include "pg_call.h"
#include "pg_spec.h"

static pg_err range_arg(const char *name, const char *v, pg_spec_range *out, pg_error *e) {
    if (!v) return PG_OK;
    if (pg_spec_range_parse(v, out)) return PG_OK;
    return pg_error_set(e, PG_E_USAGE, "give N, MIN..MAX, MIN.. or ..MAX", "--%s \"%.40s\" is not a number or range",
                        name, v);
}

static pg_err rules_of(const pg_args_spec *a, pg_spec_rules *r, pg_error *e) {
    memset(r, 0, sizeof *r);
    for (size_t i = 0; i < a->formats.n; i++) {
        const char *f = a->formats.v[i];
        if (!strcmp(f, "png")) r->formats |= PG_SPEC_FMT_PNG;
        else if (!strcmp(f, "jpeg") || !strcmp(f, "jpg")) r->formats |= PG_SPEC_FMT_JPEG;
        else if (!strcmp(f, "webp")) r->formats |= PG_SPEC_FMT_WEBP;
        else return pg_error_set(e, PG_E_USAGE, "--format png, jpeg or webp", "unknown format \"%.20s\"", f);
    }
    r->file_name = a->file_name;
    r->transparency = (pg_spec_alpha)a->transparency;
    pg_err rc = range_arg("width", a->width, &r->width, e);
    if (!rc) rc = range_arg("height", a->height, &r->height, e);
    if (!rc) rc = range_arg("aspect-ratio", a->aspect_ratio, &r->aspect_ratio, e);
    if (!rc) rc = range_arg("file-size", a->file_size, &r->file_size, e);
    if (!rc) rc = range_arg("dpi", a->dpi, &r->dpi, e);
    return rc;
}

static cJSON *report_json(const pg_spec_report *rep, bool is_token, bool passed, bool blocked) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "passed", passed);
    cJSON_AddStringToObject(o, "status", passed ? "passed" : blocked ? "blocked" : "failed");
    cJSON *arr = cJSON_AddArrayToObject(o, "checks");
    for (size_t i = 0; i < rep->n; i++) {
        const pg_spec_check_result *c = &rep->checks[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "rule", c->rule);
        cJSON_AddStringToObject(j, "code", c->code);
        cJSON_AddBoolToObject(j, "passed", c->passed);
        if (!c->passed) cJSON_AddBoolToObject(j, "repairable", !c->blocking);
        if (c->detail[0]) cJSON_AddStringToObject(j, "detail", c->detail);
        cJSON_AddItemToArray(arr, j);
    }
    cJSON *img = cJSON_AddObjectToObject(o, "image");
    const pg_spec_info *in = &rep->info;
    if (!is_token) cJSON_AddStringToObject(img, "format", pg_img_format_name(in->format));
    cJSON_AddNumberToObject(img, "width", in->width);
    cJSON_AddNumberToObject(img, "height", in->height);
    if (!is_token) {
        cJSON_AddNumberToObject(img, "orientation", in->orientation);
        cJSON_AddNumberToObject(img, "file_size", (double)rep->file_size);
        cJSON_AddBoolToObject(img, "animated", in->animated);
        if (in->has_dpi) {
            cJSON *d = cJSON_AddObjectToObject(img, "dpi");
            cJSON_AddNumberToObject(d, "x", in->dpi_x);
            cJSON_AddNumberToObject(d, "y", in->dpi_y);
            cJSON_AddStringToObject(d, "source", in->dpi_source);
        } else {
            cJSON_AddNullToObject(img, "dpi");
        }
    }
    if (rep->decoded) cJSON_AddBoolToObject(img, "transparent", rep->transparent);
    if (is_token) {
        cJSON *na = cJSON_AddArrayToObject(o, "not_applicable");
        const char *skip[] = {"format", "extension", "static", "decode", "file_size", "dpi", "orientation"};
        for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++) cJSON_AddItemToArray(na, cJSON_CreateString(skip[i]));
        cJSON_AddStringToObject(o, "note", "a token is pixels, not a file: only width, height, aspect ratio and "
                                           "transparency were checked");
    }
    return o;
}

/* A file's checks: its bytes as sent, under the caller's image limits. */
static pg_err check_file(pg_call *c, const pg_image_ref *ref, const pg_spec_rules *r, pg_spec_report *rep,
                         pg_error *e) {
    if (ref->attachment < 0 || (size_t)ref->attachment >= c->msg->n_att)
        return pg_error_set(e, PG_E_USAGE, NULL, "image refers to a missing attachment");
    const pg_blob *b = &c->msg->att[ref->attachment];
    pg_img_limits lim = {(size_t)c->view->max_input_bytes, c->view->max_pixels};
    if (b->len > lim.max_input_bytes) { /* not judged: blocking */
        memset(rep, 0, sizeof *rep);
        rep->file_size = b->len;
        rep->n = 1;
        rep->checks[0] = (pg_spec_check_result){.rule = "decode", .code = "RESOURCE_LIMIT", .blocking = true};
        snprintf(rep->checks[0].detail, sizeof rep->checks[0].detail,
                 "%zu bytes are over the policy's images.max_input_bytes", b->len);
        return PG_OK;
    }
    snprintf(c->audit.detail, sizeof c->audit.detail, "spec of a file of %zu bytes", b->len);
    return pg_spec_check_file(b->data, b->len, &lim, r, rep, e);
}

pg_err pg_op_spec(pg_call *c, const pg_args_spec *a, pg_error *e) {
    c->audit.kind = "spec";
    pg_spec_rules r;
    pg_err rc = rules_of(a, &r, e);
    if (rc) return rc;
    pg_spec_report *rep = calloc(1, sizeof *rep);
    if (!rep) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    bool is_token = a->image.token != NULL;
    if (is_token) {
        pg_img *img = NULL;
        char label[64];
        rc = pg_call_token_image(c, a->image.token, &img, label, NULL, e);
        if (!rc) rc = pg_call_area(c, (uint64_t)img->width * img->height, "a spec check", e);
        if (!rc) pg_spec_check_pixels(img, &r, rep);
        pg_img_free(img);
        /* sizes are the token's metadata; what pixels add is each verdict and transparency */
        if (!rc) rc = pg_call_disclose(c, (double)rep->n + 1, e);
    } else {
        rc = check_file(c, &a->image, &r, rep, e);
    }
    if (rc) {
        free(rep);
        return rc;
    }
    bool blocked, passed = pg_spec_passed(rep, &blocked);
    cJSON *j = report_json(rep, is_token, passed, blocked);
    free(rep);
    if (passed) {
        c->result = j;
        return PG_OK;
    }
    c->details = j;
    return blocked ? pg_error_set(e, PG_E_BLOCKED, "the broker could not judge the file: see the blocking check",
                                  "spec blocked: a check could not run")
                   : pg_error_set(e, PG_E_ASSERT, "fix the file: every failed check is repairable",
                                  "the image does not meet the spec");
}
