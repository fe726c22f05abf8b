/* SPDX-License-Identifier: MIT */
/* assert template: is this image somewhere in that one (normalized
 * cross-correlation, OpenCV's TM_CCOEFF_NORMED)? */
#include <stdio.h>

#include "pg_call.h"

pg_err pg_op_assert_template(pg_call *c, const pg_args_assert_template *a, pg_error *e) {
    c->audit.kind = "assert";
    snprintf(c->audit.mode, sizeof c->audit.mode, "template");
    pg_img_rect region = pg_call_img_rect(&a->region);
    pg_img *img = NULL;
    char li[64];
    pg_err rc = pg_call_image(c, &a->image, &img, li, NULL, NULL, e);
    pg_template_result res;
    cJSON *j = NULL;
    if (!rc) rc = pg_find_template(c, img, &a->template, a->threshold, a->all, a->has_region ? &region : NULL, &res, &j, e);
    pg_img_free(img);
    if (rc) return rc;
    cJSON *ev = cJSON_AddObjectToObject(j, "evidence");
    cJSON_AddStringToObject(ev, "image", li);
    return pg_call_verdict(c, j, res.found, e, "the best match is in \"best\"; check the template or lower --threshold",
                           "template not found: best score %.4f is under the threshold %.4f",
                           cJSON_GetObjectItem(cJSON_GetObjectItem(j, "best"), "score")->valuedouble, a->threshold);
}
