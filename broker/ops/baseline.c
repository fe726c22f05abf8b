/* SPDX-License-Identifier: MIT */
/* baseline prepare / approve / reject / list / show: the candidates an agent
 * proposes and the baselines a human approves (pg_baseline.h keeps them;
 * environments, frozen rules and candidates are core's, pg_call.h).
 * An agent never reads or writes a baseline: it names a case. */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "pg_crypto.h"
#include "pg_disclose.h"
#include "pg_fingerprint.h"
#include "pg_img_codec.h"
#include "pg_call.h"
#include "pg_report.h"
#include "pg_time.h"

static pg_err names_check(const char *case_id, const char *variant, pg_error *e) {
    if (pg_baseline_name_ok(case_id) && pg_baseline_name_ok(variant)) return PG_OK;
    return pg_error_set(e, PG_E_USAGE, "case and variant names are 1..64 of A-Z a-z 0-9 . _ - (not starting with .)",
                        "bad case or variant name");
}

/* list and show are open to the policy's clients and to approvers. */
static pg_err client_or_approver(pg_call *c, bool *approver, pg_error *e) {
    *approver = pg_call_is_approver(c);
    if (*approver) return PG_OK;
    const char *groups[64];
    char buf[4096];
    pg_principal who;
    pg_call_principal(c, &who, groups, buf, sizeof buf);
    const pg_policy_view *v = NULL;
    pg_err rc = pg_policy_admit(c->policy, &who, &v, e);
    if (!rc) c->view = v;
    return rc;
}

/* ---- prepare ---- */

static pg_err prepare_image(pg_call *c, const pg_args_baseline_prepare *a, pg_img **img, pg_env *env,
                            const char **source, pg_error *e) {
    if (a->token) {
        pg_tok_meta m;
        char label[64];
        pg_err rc = pg_call_token_image(c, a->token, img, label, &m, e);
        if (!rc) rc = pg_call_env(c, m.screen ? "screen" : m.window_class, 0, env, e);
        *source = "token";
        return rc;
    }
    if (a->has_import) {
        char label[64];
        *source = "import";
        pg_err rc = pg_call_image(c, &a->import, img, label, NULL, NULL, e);
        return rc ? rc : pg_call_env(c, NULL, 0, env, e); /* a file of unknown origin: any toolkit */
    }
    pg_target t = PG_TARGET_OF(a);
    pg_stable_opts o;
    pg_stable_opts_init(&o);
    o.max_tries = 10;
    o.interval_s = 0.2;
    o.max_cycle = PG_STABLE_MAX_CYCLE;
    pg_stable_result s;
    *source = "window";
    pg_err rc = pg_stable_capture(c, &t, NULL, &o, &s, e);
    if (rc) return rc;
    if (!s.stable) {
        pg_img_free(s.last);
        /* never held still, after how many tries: the window's content (8
         * bits, as wait-stable and accept charge it) */
        if ((rc = pg_call_disclose(c, 8, e))) return rc;
        c->details = cJSON_CreateObject();
        cJSON_AddStringToObject(c->details, "outcome", "blocked");
        cJSON_AddStringToObject(c->details, "reason_code", "UNSTABLE");
        cJSON_AddNumberToObject(c->details, "frames_observed", (double)s.observed);
        return pg_error_set(e, PG_E_BLOCKED, "let the app settle, or prepare from a token you chose",
                            "the window never held still for two captures (%lld tries)", (long long)s.observed);
    }
    *img = s.last;
    return pg_call_env(c, s.window.class_name, s.window.dpi, env, e);
}

/* keep_image: the case's one approved image, with the rules proposed now. */
static pg_err approved_image(pg_call *c, const char *case_id, const char *variant, pg_img **img, pg_env *env,
                             pg_error *e) {
    cJSON *all = NULL;
    char owner[PG_CASE_OWNER_MAX];
    pg_err rc = pg_call_case_owner(c, case_id, owner, e);
    if (!rc) rc = pg_baseline_list(c->b->baselines, owner, case_id, &all, e);
    if (rc) return rc;
    const cJSON *pick = NULL, *it;
    int n = 0;
    cJSON_ArrayForEach(it, all) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "variant");
        if (cJSON_IsString(v) && !strcmp(v->valuestring, variant)) pick = it, n++;
    }
    if (n != 1) {
        cJSON_Delete(all);
        return pg_error_set(e, n ? PG_E_USAGE : PG_E_NOTFOUND, "prepare from a token or a window instead",
                            "--keep-image needs exactly one approved baseline of %s/%s, there are %d", case_id,
                            variant, n);
    }
    pg_env_parse(cJSON_GetObjectItemCaseSensitive(pick, "environment"), env);
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pick, "protected")) && pg_disclose_protected(c->view)) {
        char src[48]; /* the approved pixels stay protected: the new candidate's digest is keyed */
        snprintf(src, sizeof src, "baseline:%.18s/%.18s", case_id, variant);
        pg_call_source(c, src);
    }
    cJSON *m = NULL;
    uint8_t *png = NULL;
    size_t len = 0;
    rc = pg_baseline_get(c->b->baselines, owner, case_id, variant, env->key, &m, &png, &len, e);
    cJSON_Delete(all);
    cJSON_Delete(m);
    if (!rc) rc = pg_img_decode(png, len, NULL, img, e);
    free(png);
    return rc;
}

pg_err pg_op_baseline_prepare(pg_call *c, const pg_args_baseline_prepare *a, pg_error *e) {
    c->audit.kind = "baseline";
    const char *variant = a->variant ? a->variant : "default";
    pg_err rc = names_check(a->case_id, variant, e);
    pg_rules r;
    if (!rc) rc = pg_rules_from(&r, a->threshold, a->max_diff_ratio, a->metric, a->include_aa, &a->masks, &a->zones,
                                a->shift, e);
    if (rc) return rc;
    pg_img *img = NULL;
    pg_env env;
    const char *source = "approved";
    rc = a->keep_image ? approved_image(c, a->case_id, variant, &img, &env, e)
                       : prepare_image(c, a, &img, &env, &source, e);
    if (!rc) rc = pg_call_candidate(c, a->case_id, variant, &env, &r, img, source, a->keep_image ? "rules" : "image",
                                    &c->result, e);
    pg_img_free(img);
    return rc;
}

/* ---- approve / reject ---- */

static pg_err load_candidate(pg_call *c, const char *id, cJSON **m, uint8_t **png, size_t *len, uint32_t *uid,
                             char user[64], pg_error *e) {
    pg_err rc = pg_baseline_candidate_get(c->b->baselines, id, m, png, len, e);
    if (rc) return rc;
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(*m, "prepared_by");
    *uid = (uint32_t)pg_json_num(by, "uid", UINT32_MAX);
    pg_json_str(by, "user", user, 64);
    return PG_OK;
}

/* The candidate is still what its digest says: image, rules and names. */
static pg_err verify_candidate(const cJSON *m, const uint8_t *png, size_t len, const char *given, pg_error *e) {
    pg_img *img = NULL;
    pg_err rc = pg_img_decode(png, len, NULL, &img, e);
    if (rc) return rc;
    char sha[65], digest[65], case_id[80], variant[80], want_sha[80], want_digest[80];
    pg_call_image_sha256(img, sha);
    pg_img_free(img);
    pg_json_str(m, "case", case_id, sizeof case_id);
    pg_json_str(m, "variant", variant, sizeof variant);
    pg_json_str(m, "image_sha256", want_sha, sizeof want_sha);
    pg_json_str(m, "digest", want_digest, sizeof want_digest);
    pg_env env;
    pg_env_parse(cJSON_GetObjectItemCaseSensitive(m, "environment"), &env);
    pg_baseline_digest(case_id, variant, env.key, sha, cJSON_GetObjectItemCaseSensitive(m, "rules"), digest);
    if (strcmp(sha, want_sha) || strcmp(digest, want_digest))
        return pg_error_set(e, PG_E_BLOCKED, "reject it and prepare the case again",
                            "the candidate no longer matches its own digest");
    if (strcmp(digest, given))
        return pg_error_set(e, PG_E_POLICY, "run 'pixelgate baseline show CANDIDATE' and approve the digest it prints",
                            "digest %.16s... is not this candidate's (%.16s...): it changed, or is another one", given,
                            digest);
    return PG_OK;
}

pg_err pg_op_baseline_approve(pg_call *c, const pg_args_baseline_approve *a, pg_error *e) {
    c->audit.kind = "baseline";
    snprintf(c->audit.mode, sizeof c->audit.mode, "approve");
    cJSON *m = NULL;
    uint8_t *png = NULL;
    size_t len = 0;
    uint32_t uid;
    char user[64];
    pg_err rc = load_candidate(c, a->candidate, &m, &png, &len, &uid, user, e);
    if (!rc) rc = pg_call_may_approve(c, uid, user, e);
    if (!rc) rc = verify_candidate(m, png, len, a->digest, e);
    char case_id[80] = "", variant[80] = "", kind[16] = "", sha[80] = "", created[40];
    pg_env env;
    if (!rc) {
        pg_json_str(m, "case", case_id, sizeof case_id);
        pg_json_str(m, "variant", variant, sizeof variant);
        pg_json_str(m, "kind", kind, sizeof kind);
        pg_json_str(m, "image_sha256", sha, sizeof sha);
        memcpy(c->audit.image_sha256, sha, 65);
        pg_env_parse(cJSON_GetObjectItemCaseSensitive(m, "environment"), &env);
        pg_iso_time((int64_t)time(NULL) * 1000, created);
        cJSON *by = cJSON_AddObjectToObject(m, "approved_by");
        cJSON_AddNumberToObject(by, "uid", c->peer->uid);
        cJSON_AddStringToObject(by, "user", c->peer->user);
        cJSON_AddStringToObject(m, "approved_at", created);
        cJSON_AddStringToObject(m, "note", a->note);
        cJSON_AddStringToObject(m, "candidate", a->candidate);
        char owner[PG_CASE_OWNER_MAX]; /* the case the candidate was prepared for is its preparer's, or shared */
        pg_call_manifest_owner(m, owner);
        rc = pg_baseline_put(c->b->baselines, owner, case_id, variant, env.key, m, png, len, e);
    }
    if (!rc) pg_baseline_candidate_drop(c->b->baselines, a->candidate, e);
    free(png);
    if (!rc) {
        snprintf(c->audit.detail, sizeof c->audit.detail, "approved %s (%s) %s/%s env %s digest %s prepared by %s",
                 a->candidate, kind, case_id, variant, env.key, a->digest, user);
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "approved", a->candidate);
        cJSON_AddStringToObject(r, "kind", kind);
        cJSON_AddStringToObject(r, "case", case_id);
        cJSON_AddStringToObject(r, "variant", variant);
        cJSON_AddStringToObject(r, "environment_key", env.key);
        cJSON_AddStringToObject(r, "digest", a->digest);
        cJSON_AddStringToObject(r, "prepared_by", user);
        c->result = r;
    }
    cJSON_Delete(m);
    return rc;
}

pg_err pg_op_baseline_reject(pg_call *c, const pg_args_baseline_reject *a, pg_error *e) {
    c->audit.kind = "baseline";
    snprintf(c->audit.mode, sizeof c->audit.mode, "reject");
    cJSON *m = NULL;
    uint32_t uid;
    char user[64];
    pg_err rc = load_candidate(c, a->candidate, &m, NULL, NULL, &uid, user, e);
    if (!rc && uid != c->peer->uid) rc = pg_call_may_approve(c, uid, user, e); /* the preparer may withdraw it */
    char case_id[80] = "", digest[80] = "";
    if (!rc) {
        pg_json_str(m, "case", case_id, sizeof case_id);
        pg_json_str(m, "digest", digest, sizeof digest);
        pg_json_str(m, "image_sha256", c->audit.image_sha256, sizeof c->audit.image_sha256);
        rc = pg_baseline_candidate_drop(c->b->baselines, a->candidate, e);
    }
    cJSON_Delete(m);
    if (rc) return rc;
    snprintf(c->audit.detail, sizeof c->audit.detail, "rejected %s for %s digest %s%s%.120s", a->candidate, case_id,
             digest, a->note ? ": " : "", a->note ? a->note : "");
    c->result = cJSON_CreateObject();
    cJSON_AddStringToObject(c->result, "rejected", a->candidate);
    cJSON_AddStringToObject(c->result, "case", case_id);
    return PG_OK;
}

/* ---- list / show ---- */

/* A manifest as the caller may see it: approvers see everything; others
 * see no digests of pixels (an equality oracle) and no PNG digest. */
static cJSON *manifest_view(cJSON *m, bool approver) {
    cJSON_DeleteItemFromObjectCaseSensitive(m, "png_sha256");
    if (!approver) {
        cJSON_DeleteItemFromObjectCaseSensitive(m, "image_sha256");
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "protected")))
            cJSON_DeleteItemFromObjectCaseSensitive(m, "digest");
    }
    return m;
}

/* The manifests of all (consumed) that the caller may see (of case_id, when
 * given), as the caller may see them. */
static cJSON *visible_only(pg_call *c, cJSON *all, const char *case_id, bool approver) {
    cJSON *keep = cJSON_CreateArray(), *m;
    while ((m = cJSON_DetachItemFromArray(all, 0))) {
        const cJSON *cs = cJSON_GetObjectItemCaseSensitive(m, "case");
        bool of_case = !case_id || (cJSON_IsString(cs) && !strcmp(cs->valuestring, case_id));
        if (of_case && pg_call_manifest_visible(c, m, approver)) cJSON_AddItemToArray(keep, manifest_view(m, approver));
        else cJSON_Delete(m);
    }
    cJSON_Delete(all);
    return keep;
}

pg_err pg_op_baseline_list(pg_call *c, const pg_args_baseline_list *a, pg_error *e) {
    bool approver;
    pg_err rc = client_or_approver(c, &approver, e);
    if (!rc && a->case_id && !pg_baseline_name_ok(a->case_id)) rc = names_check(a->case_id, "default", e);
    cJSON *base = NULL, *cand = NULL;
    if (!rc) rc = pg_baseline_list(c->b->baselines, NULL, a->case_id, &base, e);
    if (!rc) rc = pg_baseline_candidates(c->b->baselines, &cand, e);
    if (rc) {
        cJSON_Delete(base);
        return rc;
    }
    c->result = cJSON_CreateObject();
    cJSON_AddItemToObject(c->result, "baselines", visible_only(c, base, NULL, approver));
    cJSON_AddItemToObject(c->result, "candidates", visible_only(c, cand, a->case_id, approver));
    return PG_OK;
}

/* The approved baseline a candidate would replace, as PNG (NULL when none). */
static void current_png(pg_call *c, const cJSON *m, uint8_t **png, size_t *len) {
    char case_id[80], variant[80];
    pg_json_str(m, "case", case_id, sizeof case_id);
    pg_json_str(m, "variant", variant, sizeof variant);
    pg_env env;
    pg_env_parse(cJSON_GetObjectItemCaseSensitive(m, "environment"), &env);
    cJSON *cur = NULL;
    pg_error ignored;
    char owner[PG_CASE_OWNER_MAX];
    pg_call_manifest_owner(m, owner);
    *png = NULL;
    if (pg_baseline_get(c->b->baselines, owner, case_id, variant, env.key, &cur, png, len, &ignored) != PG_OK)
        *png = NULL;
    cJSON_Delete(cur);
}

/* The approver's review page: the candidate next to the baseline it replaces. */
static pg_err review_html(pg_call *c, const cJSON *m, const uint8_t *png, size_t len, pg_error *e) {
    uint8_t *cur = NULL;
    size_t cur_len = 0;
    current_png(c, m, &cur, &cur_len);
    char title[260], case_id[80], variant[80], id[40];
    pg_json_str(m, "case", case_id, sizeof case_id);
    pg_json_str(m, "variant", variant, sizeof variant);
    pg_json_str(m, "id", id, sizeof id);
    snprintf(title, sizeof title, "%s / %s: candidate %s", case_id, variant, id);
    cJSON *metrics = cJSON_CreateObject();
    const char *keys[] = {"kind", "digest", "source", "prepared_at"};
    for (size_t i = 0; i < 4; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, keys[i]);
        if (cJSON_IsString(v)) cJSON_AddStringToObject(metrics, keys[i], v->valuestring);
    }
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(m, "prepared_by"), "user");
    if (cJSON_IsString(by)) cJSON_AddStringToObject(metrics, "prepared_by", by->valuestring);
    char *rules = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(m, "rules"));
    char *envs = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(m, "environment"));
    cJSON_AddStringToObject(metrics, "rules", rules ? rules : "");
    cJSON_AddStringToObject(metrics, "environment", envs ? envs : "");
    free(rules);
    free(envs);
    pg_report_item it = {.title = title, .status = "needs_approval",
                         .reason = cur ? "replaces the approved baseline shown left" : "no approved baseline yet",
                         .metrics = metrics, .baseline_png = cur, .baseline_len = cur_len, .actual_png = png,
                         .actual_len = len, .left_label = "approved baseline", .right_label = "candidate"};
    char *html = NULL;
    size_t html_len = 0;
    pg_err rc = pg_report_html("pixelgate baseline review", &it, 1, &html, &html_len, e);
    cJSON_Delete(metrics);
    free(cur);
    if (!rc) c->reply_att = (pg_blob){(uint8_t *)html, html_len};
    return rc;
}

static pg_err show_candidate(pg_call *c, const pg_args_baseline_show *a, bool approver, pg_error *e) {
    bool image = a->image != 0; /* "none|png|html" */
    cJSON *m = NULL;
    uint8_t *png = NULL;
    size_t len = 0;
    pg_err rc = pg_baseline_candidate_get(c->b->baselines, a->what, &m, image ? &png : NULL, &len, e);
    if (rc) return rc;
    if (!pg_call_manifest_visible(c, m, approver)) { /* another user's case: as if it did not exist */
        cJSON_Delete(m);
        free(png);
        return pg_error_set(e, PG_E_NOTFOUND, "'pixelgate baseline list' shows the pending candidates",
                            "no candidate %.20s", a->what);
    }
    if (image && !approver) {
        cJSON_Delete(m);
        free(png);
        return pg_error_set(e, PG_E_POLICY, "an approver reviews candidates; you get its metadata",
                            "only an approver may see a candidate's image");
    }
    pg_json_str(m, "image_sha256", c->audit.image_sha256, sizeof c->audit.image_sha256);
    snprintf(c->audit.detail, sizeof c->audit.detail, "show %s%s", a->what,
             a->image == 1 ? ": PNG released to the approver" : a->image == 2 ? ": review page released to the approver" : "");
    c->result = cJSON_CreateObject();
    cJSON_AddItemToObject(c->result, "candidate", manifest_view(cJSON_Duplicate(m, 1), approver));
    if (approver) {
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(m, "digest");
        cJSON_AddStringToObject(c->result, "digest", cJSON_IsString(d) ? d->valuestring : "");
    }
    if (a->image == 1) {
        c->audit.kind = "release";
        snprintf(c->audit.mode, sizeof c->audit.mode, "approver");
        c->reply_att = (pg_blob){png, len};
        png = NULL;
    } else if (a->image == 2) {
        c->audit.kind = "release";
        snprintf(c->audit.mode, sizeof c->audit.mode, "approver");
        rc = review_html(c, m, png, len, e);
    }
    free(png);
    cJSON_Delete(m);
    if (rc) {
        cJSON_Delete(c->result);
        c->result = NULL;
    }
    return rc;
}

pg_err pg_op_baseline_show(pg_call *c, const pg_args_baseline_show *a, pg_error *e) {
    c->audit.kind = "baseline";
    bool approver;
    pg_err rc = client_or_approver(c, &approver, e);
    if (rc) return rc;
    if (!strncmp(a->what, "cand:", 5)) return show_candidate(c, a, approver, e);
    if (a->image)
        return pg_error_set(e, PG_E_USAGE, "show a candidate's image; approved images are reviewed as candidates",
                            "--png and --report take a candidate id");
    rc = names_check(a->what, "default", e);
    cJSON *base = NULL;
    if (!rc) rc = pg_baseline_list(c->b->baselines, NULL, a->what, &base, e);
    if (rc) return rc;
    base = visible_only(c, base, NULL, approver);
    if (cJSON_GetArraySize(base) == 0) {
        cJSON_Delete(base);
        return pg_error_set(e, PG_E_NOTFOUND, "prepare a candidate and have it approved", "case %s has no approved baseline",
                            a->what);
    }
    c->result = cJSON_CreateObject();
    cJSON_AddStringToObject(c->result, "case", a->what);
    cJSON_AddItemToObject(c->result, "baselines", base);
    return PG_OK;
}
