/* hash: a fingerprint of an image (a token, or bytes the client sent). */
#include <stdio.h>
#include <string.h>

#include "pg_fingerprint.h"
#include "pg_ops.h"

/* The smallest token region whose dhash an agent may ask for when it may not
 * have the pixels: 64 bits about at least 1024 pixels. */
#define PG_HASH_MIN_REGION 32

enum { ALGO_SHA256, ALGO_DHASH }; /* the order of "algo"'s values */

/* May the caller learn exact answers about this token's pixels? Only when the
 * policy would release them to it right now. */
static bool token_pixels_exact(const pg_call *c) { return c->view->expose_pixels == PG_EXPOSE_ALLOW; }

/* A token's sha256 is its stored whole-image digest; a sub-region's sha256 is
 * an exact oracle (a 1x1 region has 2^24 possible inputs) and is refused
 * unless the pixels are the caller's to have. */
static pg_err hash_token_rule(pg_call *c, int algo, const pg_img_rect *region, pg_error *e) {
    if (!region || token_pixels_exact(c)) return PG_OK;
    if (algo == ALGO_SHA256)
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
    if (a->algo == ALGO_SHA256 && is_token && !rp) {
        memcpy(hex, m.sha256, sizeof hex); /* the digest the store computed at capture */
    } else if (a->algo == ALGO_SHA256) {
        uint8_t d[PG_SHA256_LEN];
        rc = pg_fp_sha256(img, rp, d, e);
        if (!rc) pg_hex(d, sizeof d, hex);
    } else {
        uint64_t h;
        rc = pg_fp_dhash(img, rp, &h, e);
        if (!rc) pg_fp_dhash_hex(h, hex);
    }
    uint32_t w = img->width, h = img->height;
    pg_img_free(img);
    if (rc) return rc;
    snprintf(c->audit.detail, sizeof c->audit.detail, "%s%s", algo_name, rp ? " of a region" : "");
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "hash", hex);
    cJSON_AddStringToObject(r, "algorithm", algo_name);
    cJSON_AddNumberToObject(r, "width", rp ? region.w : w);
    cJSON_AddNumberToObject(r, "height", rp ? region.h : h);
    c->result = r;
    return PG_OK;
}
