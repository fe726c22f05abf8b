/* Finding things in an image: a template (normalized cross-correlation) or
 * a phrase (OCR inside the broker). Used by assert, click and wait_for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocr/pg_ocr.h"
#include "pg_disclose.h"
#include "pg_ops.h"

/* A match as the caller may see it: exact, or (protected pixels) its
 * position on the grid and its score to 0.01, adding their bits. */
static cJSON *hit_json(const pg_template_hit *h, const pg_img *img, bool coarse, double *bits) {
    pg_img_rect box = h->box;
    double score = h->score;
    if (coarse) {
        pg_disclose_point(&box.x, &box.y, img->width, img->height, bits);
        score = pg_disclose_score(score, -1, 1, bits);
    }
    cJSON *o = pg_rect_json(&box);
    cJSON_AddNumberToObject(o, "score", score);
    cJSON *ctr = cJSON_AddObjectToObject(o, "center");
    cJSON_AddNumberToObject(ctr, "x", box.x + box.w / 2);
    cJSON_AddNumberToObject(ctr, "y", box.y + box.h / 2);
    return o;
}

pg_err pg_find_template(pg_call *c, const pg_img *img, const pg_image_ref *tmpl_ref, double threshold, bool all,
                        const pg_img_rect *region, pg_template_result *res, cJSON **out, pg_error *e) {
    pg_img *tmpl = NULL;
    char lt[64];
    pg_err rc = pg_call_image(c, tmpl_ref, &tmpl, lt, NULL, NULL, e);
    if (rc) return rc;
    pg_template_opts o;
    pg_template_opts_init(&o);
    o.threshold = threshold;
    o.all = all;
    o.region = region;
    uint64_t area = region ? (uint64_t)region->w * region->h : (uint64_t)img->width * img->height;
    rc = pg_call_area(c, area, "a template search", e);
    if (!rc) rc = pg_template_match(img, tmpl, &o, res, e);
    pg_img_free(tmpl);
    if (rc) return rc;
    bool coarse = pg_call_protected(c);
    double bits = 0;
    cJSON *j = cJSON_CreateObject();
    cJSON_AddBoolToObject(j, "found", res->found);
    if (coarse) pg_disclose_flag(&bits);
    cJSON_AddNumberToObject(j, "threshold", o.threshold);
    cJSON_AddItemToObject(j, "best", hit_json(&res->best, img, coarse, &bits));
    if (o.all) {
        size_t n = coarse && res->n_matches > PG_DISCLOSE_MAX_BOXES ? PG_DISCLOSE_MAX_BOXES : res->n_matches;
        cJSON *arr = cJSON_AddArrayToObject(j, "matches");
        for (size_t i = 0; i < n; i++) cJSON_AddItemToArray(arr, hit_json(&res->matches[i], img, coarse, &bits));
    }
    if ((rc = pg_call_disclose(c, bits, e))) {
        cJSON_Delete(j);
        return rc;
    }
    *out = j;
    return PG_OK;
}
