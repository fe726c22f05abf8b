/* SPDX-License-Identifier: MIT */
/* hash: a fingerprint of an image (a token, bytes the client sent, or a
 * fresh capture of a window, stored as a token first). */
#include <stdio.h>
#include <string.h>

#include "pg_disclose.h"
#include "pg_fingerprint.h"
#include "pg_call.h"

enum { ALGO_DHASH, ALGO_SHA256 }; /* the order of "algo"'s values: dhash is the default (seed 004) */

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

/* The image: the argument's, or the target window captured now (then it is
 * a token like any other: its digest is the store's). */
static pg_err load(pg_call *c, const pg_args_hash *a, pg_img **img, pg_tok_meta *m, bool *is_token, pg_error *e) {
    char label[64];
    *is_token = true;
    if (a->has_image) return pg_call_image(c, &a->image, img, label, m, is_token, e);
    pg_target t = PG_TARGET_OF(a);
    return pg_capture_token(c, &t, img, m, e);
}

pg_err pg_op_hash(pg_call *c, const pg_args_hash *a, pg_error *e) {
    c->audit.kind = "hash";
    const char *algo_name = a->algo == ALGO_SHA256 ? "sha256" : "dhash";
    pg_img_rect region = pg_call_img_rect(&a->region);
    const pg_img_rect *rp = a->has_region ? &region : NULL;
    bool is_token = !a->has_image || a->image.token != NULL;
    pg_err rc = is_token ? hash_token_rule(c, a->algo, rp, e) : PG_OK;
    pg_img *img = NULL;
    pg_tok_meta m;
    if (!rc) rc = load(c, a, &img, &m, &is_token, e);
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
    if (!a->has_image) cJSON_AddStringToObject(r, "token", m.token);
    c->result = r;
    return PG_OK;
}
