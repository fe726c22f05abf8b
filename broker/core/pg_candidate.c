/* SPDX-License-Identifier: MIT */
/* Baseline candidates (pg_call.h): the rules frozen with a baseline, the
 * digest an approver approves, and the candidate an agent proposes.
 * baseline prepare and accept share them; an agent never reads or writes a
 * baseline, it names a case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_call.h"
#include "pg_crypto.h"
#include "pg_disclose.h"
#include "pg_img_codec.h"

/* ---- rules ---- */

/* "X,Y,W,H:T:F" (T and F optional: the case's threshold and ratio). */
static pg_err zone_parse(const char *s, const pg_rules *r, pg_accept_zone *z, pg_error *e) {
    unsigned x, y, w, h;
    double t = r->r.threshold, f = r->r.max_ratio;
    int used = 0;
    int n = sscanf(s, "%u,%u,%u,%u%n", &x, &y, &w, &h, &used);
    const char *rest = n == 4 ? s + used : "";
    bool ok = n == 4 && w > 0 && h > 0;
    if (ok && *rest == ':') {
        char *end;
        t = strtod(rest + 1, &end);
        rest = end;
        if (*rest == ':') {
            f = strtod(rest + 1, &end);
            rest = end;
        }
    }
    if (!ok || *rest || !(t >= 0 && t <= 1) || !(f >= 0 && f <= 1))
        return pg_error_set(e, PG_E_USAGE, "--zone X,Y,W,H:THRESHOLD:MAX_DIFF_RATIO, e.g. 10,10,200,40:0.3:0.05",
                            "bad zone \"%.64s\"", s);
    *z = (pg_accept_zone){{x, y, w, h}, t, f};
    return PG_OK;
}

pg_err pg_rules_from(pg_rules *r, double threshold, double max_ratio, int metric, bool include_aa,
                     const pg_rect_list *masks, const pg_string_list *zones, int64_t shift, pg_error *e) {
    memset(r, 0, sizeof *r);
    pg_accept_rules_init(&r->r);
    r->r.threshold = threshold;
    r->r.max_ratio = max_ratio;
    r->r.metric = metric ? PG_DIFF_OKLAB : PG_DIFF_YIQ;
    r->r.include_aa = include_aa;
    r->r.shift = (uint32_t)shift;
    for (size_t i = 0; i < masks->n && i < PG_LIST_MAX; i++) r->masks[i] = pg_call_img_rect(&masks->v[i]);
    r->r.n_masks = masks->n;
    if (zones->n > PG_ACCEPT_MAX_ZONES)
        return pg_error_set(e, PG_E_USAGE, NULL, "at most %d zones", PG_ACCEPT_MAX_ZONES);
    for (size_t i = 0; i < zones->n; i++) {
        pg_err rc = zone_parse(zones->v[i], r, &r->zones[i], e);
        if (rc) return rc;
    }
    r->r.n_zones = zones->n;
    r->r.masks = r->masks;
    r->r.zones = r->zones;
    return PG_OK;
}

cJSON *pg_rules_json(const pg_rules *r) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "threshold", r->r.threshold);
    cJSON_AddNumberToObject(o, "max_diff_ratio", r->r.max_ratio);
    cJSON_AddStringToObject(o, "metric", r->r.metric == PG_DIFF_OKLAB ? "oklab" : "yiq");
    cJSON_AddBoolToObject(o, "include_aa", r->r.include_aa);
    cJSON *m = cJSON_AddArrayToObject(o, "masks");
    for (size_t i = 0; i < r->r.n_masks; i++) cJSON_AddItemToArray(m, pg_rect_json(&r->masks[i]));
    cJSON *z = cJSON_AddArrayToObject(o, "zones");
    for (size_t i = 0; i < r->r.n_zones; i++) {
        cJSON *j = pg_rect_json(&r->zones[i].box);
        cJSON_AddNumberToObject(j, "threshold", r->zones[i].threshold);
        cJSON_AddNumberToObject(j, "max_diff_ratio", r->zones[i].max_ratio);
        cJSON_AddItemToArray(z, j);
    }
    cJSON_AddNumberToObject(o, "shift", r->r.shift);
    return o;
}

static bool rect_of(const cJSON *j, pg_img_rect *out) {
    double x = pg_json_num(j, "x", -1), y = pg_json_num(j, "y", -1), w = pg_json_num(j, "w", -1), h = pg_json_num(j, "h", -1);
    if (x < 0 || y < 0 || w < 1 || h < 1 || x > 1e7 || y > 1e7 || w > 1e7 || h > 1e7) return false;
    *out = (pg_img_rect){(uint32_t)x, (uint32_t)y, (uint32_t)w, (uint32_t)h};
    return true;
}

pg_err pg_rules_parse(const cJSON *j, pg_rules *r, pg_error *e) {
    memset(r, 0, sizeof *r);
    pg_accept_rules_init(&r->r);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "masks"), *z = cJSON_GetObjectItemCaseSensitive(j, "zones");
    const cJSON *metric = cJSON_GetObjectItemCaseSensitive(j, "metric");
    bool ok = cJSON_IsObject(j) && cJSON_IsArray(m) && cJSON_IsArray(z) && cJSON_IsString(metric) &&
              cJSON_GetArraySize(m) <= PG_LIST_MAX && cJSON_GetArraySize(z) <= PG_ACCEPT_MAX_ZONES;
    if (ok) {
        r->r.threshold = pg_json_num(j, "threshold", -1);
        r->r.max_ratio = pg_json_num(j, "max_diff_ratio", -1);
        r->r.metric = !strcmp(metric->valuestring, "oklab") ? PG_DIFF_OKLAB : PG_DIFF_YIQ;
        r->r.include_aa = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "include_aa"));
        r->r.shift = (uint32_t)pg_json_num(j, "shift", 0);
        const cJSON *it;
        cJSON_ArrayForEach(it, m) ok &= rect_of(it, &r->masks[r->r.n_masks++]);
        cJSON_ArrayForEach(it, z) {
            pg_accept_zone *zz = &r->zones[r->r.n_zones++];
            ok &= rect_of(it, &zz->box);
            zz->threshold = pg_json_num(it, "threshold", -1);
            zz->max_ratio = pg_json_num(it, "max_diff_ratio", -1);
        }
    }
    r->r.masks = r->masks;
    r->r.zones = r->zones;
    if (!ok) return pg_error_set(e, PG_E_BLOCKED, "the baseline store is damaged: re-prepare the case", "bad rules");
    return PG_OK;
}

/* ---- digests and candidates ---- */

void pg_baseline_digest(const char *case_id, const char *variant, const char *env_key_hex, const char *image_sha,
                        const cJSON *rules, char out[65]) {
    char *rt = cJSON_PrintUnformatted(rules);
    size_t n = strlen(case_id) + strlen(variant) + strlen(env_key_hex) + strlen(image_sha) + (rt ? strlen(rt) : 0) + 64;
    char *text = malloc(n);
    uint8_t h[PG_SHA256_LEN];
    memset(h, 0, sizeof h);
    if (text) {
        int len = snprintf(text, n, "pixelgate-baseline-v1\n%s\n%s\n%s\n%s\n%s", case_id, variant, env_key_hex,
                           image_sha, rt ? rt : "");
        pg_sha256(text, (size_t)len, h, NULL);
    }
    free(text);
    free(rt);
    pg_hex(h, sizeof h, out);
}

/* The digest as the caller may see it: keyed when the pixels are not theirs. */
static void shown_digest(pg_call *c, const char *real, char out[65], const char **kind) {
    if (pg_call_protected(c)) {
        pg_disclose_digest(c->b->disclose, (uint32_t)c->peer->uid, real, out);
        *kind = "keyed";
    } else {
        memcpy(out, real, 65);
        *kind = "sha256";
    }
}

/* Is the caller one of owners[0..n) by name? */
static bool among(const pg_call *c, const char *const *owners, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(owners[i], c->peer->user)) return true;
    return false;
}

pg_err pg_call_case_owner(pg_call *c, const char *case_id, char owner[PG_CASE_OWNER_MAX], pg_error *e) {
    size_t n = 0;
    const char *const *owners = pg_policy_case_owners(c->policy, case_id, &n);
    if (!owners) {
        snprintf(owner, PG_CASE_OWNER_MAX, "u%u", (unsigned)c->peer->uid);
        return PG_OK;
    }
    if (!among(c, owners, n))
        return pg_error_set(e, PG_E_POLICY, "a shared case is its owners' (baselines.shared_cases in the policy)",
                            "case %s is shared, and you are not one of its owners", case_id);
    snprintf(owner, PG_CASE_OWNER_MAX, "shared");
    return PG_OK;
}

void pg_call_manifest_owner(const cJSON *m, char owner[PG_CASE_OWNER_MAX]) {
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(m, "owner");
    if (cJSON_IsString(o) && strlen(o->valuestring) < PG_CASE_OWNER_MAX) {
        snprintf(owner, PG_CASE_OWNER_MAX, "%s", o->valuestring);
        return;
    }
    const cJSON *uid = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(m, "prepared_by"), "uid");
    snprintf(owner, PG_CASE_OWNER_MAX, "u%.0f", cJSON_IsNumber(uid) ? uid->valuedouble : -1.0);
}

bool pg_call_manifest_visible(pg_call *c, const cJSON *m, bool approver) {
    if (approver) return true;
    char have[PG_CASE_OWNER_MAX], mine[PG_CASE_OWNER_MAX], case_id[80];
    pg_error ignored;
    pg_call_manifest_owner(m, have);
    pg_json_str(m, "case", case_id, sizeof case_id);
    return pg_call_case_owner(c, case_id, mine, &ignored) == PG_OK && !strcmp(have, mine);
}

pg_err pg_call_candidate(pg_call *c, const char *case_id, const char *variant, const pg_env *env, const pg_rules *r,
                         const pg_img *img, const char *source, const char *kind, cJSON **out, pg_error *e) {
    char sha[65], digest[65], created[40], owner[PG_CASE_OWNER_MAX];
    pg_err rc = pg_call_case_owner(c, case_id, owner, e);
    if (rc) return rc;
    /* The digest shown is keyed about protected pixels, but two candidates of
     * one case, environment and rules are equal or not as their pixels are:
     * 1 bit, as a snapshot's digest, paid before anything is kept. */
    rc = pg_call_disclose(c, 1, e);
    if (rc) return rc;
    pg_call_image_sha256(img, sha);
    cJSON *rules = pg_rules_json(r);
    pg_baseline_digest(case_id, variant, env->key, sha, rules, digest);
    pg_iso_time((int64_t)time(NULL) * 1000, created);
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "kind", kind);
    cJSON_AddStringToObject(m, "case", case_id);
    cJSON_AddStringToObject(m, "variant", variant);
    cJSON_AddItemToObject(m, "environment", pg_env_json(env));
    cJSON_AddItemToObject(m, "rules", rules);
    cJSON_AddNumberToObject(m, "width", img->width);
    cJSON_AddNumberToObject(m, "height", img->height);
    cJSON_AddStringToObject(m, "image_sha256", sha);
    cJSON_AddStringToObject(m, "digest", digest);
    cJSON_AddStringToObject(m, "source", source);
    cJSON_AddBoolToObject(m, "protected", pg_call_protected(c));
    cJSON *by = cJSON_AddObjectToObject(m, "prepared_by");
    cJSON_AddNumberToObject(by, "uid", c->peer->uid);
    cJSON_AddStringToObject(by, "user", c->peer->user);
    cJSON_AddStringToObject(m, "prepared_at", created);
    cJSON_AddStringToObject(m, "owner", owner); /* whose case the approval files it under */
    uint8_t *png = NULL;
    size_t len = 0;
    char id[PG_BASELINE_ID_LEN + 1];
    rc = pg_img_encode_png(img, NULL, &png, &len, e);
    if (!rc) rc = pg_baseline_candidate_put(c->b->baselines, m, png, len, id, e);
    free(png);
    if (rc) {
        cJSON_Delete(m);
        return rc;
    }
    memcpy(c->audit.image_sha256, sha, sizeof c->audit.image_sha256);
    snprintf(c->audit.detail, sizeof c->audit.detail, "prepared %s (%s) for %s/%s env %s digest %s", id, kind, case_id,
             variant, env->key, digest);
    const char *dk;
    char shown[65];
    shown_digest(c, digest, shown, &dk);
    cJSON *res = cJSON_CreateObject();
    cJSON_AddStringToObject(res, "candidate", id);
    cJSON_AddStringToObject(res, "kind", kind);
    cJSON_AddStringToObject(res, "case", case_id);
    cJSON_AddStringToObject(res, "variant", variant);
    cJSON_AddStringToObject(res, "digest", shown);
    cJSON_AddStringToObject(res, "digest_kind", dk);
    cJSON_AddNumberToObject(res, "width", img->width);
    cJSON_AddNumberToObject(res, "height", img->height);
    cJSON_AddItemToObject(res, "environment", pg_env_json(env));
    cJSON_AddItemReferenceToObject(res, "rules", cJSON_GetObjectItemCaseSensitive(m, "rules"));
    cJSON_AddStringToObject(res, "next", "an approver reviews it (baseline show CANDIDATE --png PATH) and approves it");
    *out = cJSON_Duplicate(res, 1);
    cJSON_Delete(res);
    cJSON_Delete(m);
    return PG_OK;
}
