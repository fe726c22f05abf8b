/* SPDX-License-Identifier: MIT */
/* assert template: is this image somewhere in that one (normalized
 * cross-correlation, OpenCV's TM_CCOEFF_NORMED)? */
#include <stdio.h>

#include "pg_call.h"

/* Where to look: the argument's image, or the target window captured now
 * and stored as a token (named in the answer, like layout's). */
static pg_err load(pg_call *c, const pg_args_assert_template *a, pg_img **img, char label[64], pg_tok_meta *m,
                   pg_error *e) {
    if (a->has_image) return pg_call_image(c, &a->image, img, label, NULL, NULL, e);
    pg_target t = PG_TARGET_OF(a);
    pg_err rc = pg_capture_token(c, &t, img, m, e);
    if (!rc) snprintf(label, 64, "%.60s", m->token);
    return rc;
}

pg_err pg_op_assert_template(pg_call *c, const pg_args_assert_template *a, pg_error *e) {
    c->audit.kind = "assert";
    snprintf(c->audit.mode, sizeof c->audit.mode, "template");
    pg_img_rect region = pg_call_img_rect(&a->region);
    pg_img *img = NULL;
    char li[64];
    pg_tok_meta m;
    pg_err rc = load(c, a, &img, li, &m, e);
    pg_template_result res;
    cJSON *j = NULL;
    if (!rc) rc = pg_find_template(c, img, &a->template, a->threshold, a->all, a->has_region ? &region : NULL, &res, &j, e);
    pg_img_free(img);
    if (rc) return rc;
    cJSON *ev = cJSON_AddObjectToObject(j, "evidence");
    cJSON_AddStringToObject(ev, "image", li);
    if (!a->has_image) cJSON_AddStringToObject(j, "token", m.token);
    if (res.flat) /* an answer, not a usage error: the seed's found false, with the reason in the details */
        return pg_call_verdict(c, j, false, e, "crop the template to include some detail",
                               "template not found: it is one flat colour, so it scores %.0f everywhere (threshold "
                               "%.4f)",
                               0, a->threshold);
    return pg_call_verdict(c, j, res.found, e, "the best match is in \"best\"; check the template or lower --threshold",
                           "template not found: best score %.4f is under the threshold %.4f",
                           cJSON_GetObjectItem(cJSON_GetObjectItem(j, "best"), "score")->valuedouble, a->threshold);
}
