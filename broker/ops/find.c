/* Finding things in an image: a template (normalized cross-correlation) or
 * a phrase (OCR inside the broker). Used by assert, click and wait_for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocr/pg_ocr.h"
#include "pg_ops.h"

static cJSON *hit_json(const pg_tmpl_hit *h) {
    cJSON *o = pg_rect_json(&h->box);
    cJSON_AddNumberToObject(o, "score", h->score);
    cJSON *ctr = cJSON_AddObjectToObject(o, "center");
    cJSON_AddNumberToObject(ctr, "x", h->box.x + h->box.w / 2);
    cJSON_AddNumberToObject(ctr, "y", h->box.y + h->box.h / 2);
    return o;
}

pg_err pg_find_template(pg_call *c, const pg_img *img, const pg_image_ref *tmpl_ref, double threshold, bool all,
                        const pg_img_rect *region, pg_tmpl_result *res, cJSON **out, pg_error *e) {
    pg_img *tmpl = NULL;
    char lt[64];
    pg_err rc = pg_call_image(c, tmpl_ref, &tmpl, lt, NULL, NULL, e);
    if (rc) return rc;
    pg_tmpl_opts o;
    pg_tmpl_opts_init(&o);
    o.threshold = threshold;
    o.all = all;
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
