/* SPDX-License-Identifier: MIT */
/* hash: a fingerprint of an image (a token, or bytes the client sent). */
#include <stdio.h>
#include <string.h>

#include "pg_disclose.h"
#include "pg_fingerprint.h"
#include "pg_call.h"

enum { ALGO_SHA256, ALGO_DHASH }; /* the order of "algo"'s values */

/* A token's sha256 is its stored whole-image digest (keyed when the pixels are
 * not the caller's: pg_disclose.h); a region's sha256 is an exact oracle (a
 * 1x1 region has 2^24 possible inputs) and is refused unless the pixels are
 * the caller's to have. */
static pg_err hash_token_rule(pg_call *c, int algo, const pg_img_rect *region, pg_error *e) {
    if (!region || !pg_disclose_protected(c->view) || algo != ALGO_SHA256) return PG_OK;
    return pg_error_set(e, PG_E_POLICY, "hash the whole token (its stored digest), or crop with snapshot --region",
                        "sha256 of a region of a token is refused under expose_pixels %s: it would reveal the pixels",
                        pg_policy_expose_name(c->view->expose_pixels));
}

pg_err pg_op_hash(pg_call *c, const pg_args_hash *a, pg_error *e) {
    c->audit.kind = "hash";
    const char *algo_name = a->algo == ALGO_SHA256 ? "sha256" : "dhash";
    pg_img_rect region = pg_call_img_rect(&a->region);
    const pg_img_rect *rp = a->has_region ? &region : NULL;
    bool is_token = a->image.token != NULL;
    pg_err rc = is_token ? hash_token_rule(c, a->algo, rp, e) : PG_OK;
    pg_img *img = NULL;
    char label[64];
    pg_tok_meta m;
    if (!rc) rc = pg_call_image(c, &a->image, &img, label, &m, NULL, e);
    if (rc) return rc;
    char hex[65];
    bool keyed = false;
    if (a->algo == ALGO_SHA256 && is_token && !rp) {
        pg_call_digest(c, &m, hex, &keyed); /* the digest the store computed at capture */
        rc = pg_call_area(c, (uint64_t)img->width * img->height, "a digest", e);
        if (!rc) rc = pg_call_disclose(c, 1, e); /* equal or not to another capture's */
    } else if (a->algo == ALGO_SHA256) {
        uint8_t d[PG_SHA256_LEN];
        rc = pg_fingerprint_sha256(img, rp, d, e);
        if (!rc) pg_hex(d, sizeof d, hex);
    } else {
        uint64_t h;
        uint64_t area = rp ? (uint64_t)rp->w * rp->h : (uint64_t)img->width * img->height;
        rc = pg_call_area(c, area, "a dhash", e);
        if (!rc) rc = pg_fingerprint_dhash(img, rp, &h, e);
        if (!rc) rc = pg_call_disclose(c, 64, e);
        if (!rc) pg_fingerprint_dhash_hex(h, hex);
    }
    uint32_t w = img->width, h = img->height;
    pg_img_free(img);
    if (rc) return rc;
    snprintf(c->audit.detail, sizeof c->audit.detail, "%s%s", algo_name, rp ? " of a region" : "");
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "hash", hex);
    cJSON_AddStringToObject(r, "algorithm", keyed ? "sha256-keyed" : algo_name);
    cJSON_AddNumberToObject(r, "width", rp ? region.w : w);
    cJSON_AddNumberToObject(r, "height", rp ? region.h : h);
    c->result = r;
    return PG_OK;
}
