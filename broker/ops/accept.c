/* SPDX-License-Identifier: MIT */
/* accept: is the window what a human approved? A stable capture (or a token
 * as it is) against the case's approved baseline for this environment,
 * under the rules approved with it. The verdict is exact; about pixels the
 * caller may not have, the measurements are coarse and charged
 * (pg_disclose.h), like diff's. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_disclose.h"
#include "pg_fingerprint.h"
#include "pg_img_codec.h"
#include "pg_call.h"
#include "pg_report.h"

typedef enum { OUT_PASSED, OUT_FAILED, OUT_BLOCKED, OUT_NEEDS_APPROVAL } outcome;
static const char *const OUT_NAME[] = {"passed", "failed", "blocked", "needs_approval"};

typedef struct {
    const char *case_id, *variant;
    char owner[PG_CASE_OWNER_MAX]; /* whose case it is (pg_call_case_owner) */
    pg_img *cap;
    pg_env env;
    cJSON *stability;
    pg_stable_result s; /* window captures */
    bool from_window;
    cJSON *manifest;    /* the approved baseline's */
    pg_img *base;
    uint8_t *base_png;
    size_t base_png_len;
    uint8_t *diff_png; /* for the report page */
    size_t diff_png_len;
} accept_ctx;

static void ctx_free(accept_ctx *x) {
    pg_img_free(x->cap);
    cJSON_Delete(x->stability);
    cJSON_Delete(x->manifest);
    pg_img_free(x->base);
    free(x->base_png);
    free(x->diff_png);
}

/* The result of an outcome that did not compare: blocked or needs_approval. */
static pg_err finish(pg_call *c, outcome o, const char *reason, cJSON *r, const char *msg, pg_error *e) {
    cJSON_ReplaceItemInObjectCaseSensitive(r, "outcome", cJSON_CreateString(OUT_NAME[o])); /* first in r */
    cJSON_ReplaceItemInObjectCaseSensitive(r, "reason_code", cJSON_CreateString(reason));
    cJSON_ReplaceItemInObjectCaseSensitive(r, "message", cJSON_CreateString(msg));
    snprintf(c->audit.mode, sizeof c->audit.mode, "%s", OUT_NAME[o]);
    size_t len = strlen(c->audit.detail);
    snprintf(c->audit.detail + len, sizeof c->audit.detail - len, "%s%s %s", len ? "; " : "", OUT_NAME[o], reason);
    if (o == OUT_PASSED) {
        c->result = r;
        return PG_OK;
    }
    c->details = r;
    static const pg_err code[] = {PG_OK, PG_E_ASSERT, PG_E_BLOCKED, PG_E_NEEDS_APPROVAL};
    static const char *const tip[] = {
        "", "look at the regions and the diff token; fix the app, or prepare a new baseline for an approver",
        "not a defect of the app: fix what the message names; never loosen the rules to get past it",
        "ask an approver to review the candidate (baseline show CANDIDATE --png PATH) and approve it"};
    return pg_error_set(e, code[o], tip[o], "accept %s: %s", OUT_NAME[o], msg);
}

/* ---- the capture ---- */

static pg_err take_capture(pg_call *c, const pg_args_accept *a, accept_ctx *x, pg_error *e) {
    x->stability = cJSON_CreateObject();
    if (a->token) {
        pg_tok_meta m;
        char label[64];
        pg_err rc = pg_call_token_image(c, a->token, &x->cap, label, &m, e);
        if (!rc) rc = pg_call_env(c, m.screen ? "screen" : m.window_class, 0, &x->env, e);
        cJSON_AddBoolToObject(x->stability, "checked", false);
        cJSON_AddStringToObject(x->stability, "note", "compared an existing capture: no stability check ran");
        return rc;
    }
    pg_target t = PG_TARGET_OF(a);
    pg_stable_opts o;
    pg_stable_opts_init(&o);
    o.max_tries = a->tries;
    o.interval_s = a->interval;
    o.timeout_s = (double)a->tries * a->interval + 30;
    o.max_cycle = PG_STABLE_MAX_CYCLE;
    pg_err rc = pg_stable_capture(c, &t, NULL, &o, &x->s, e);
    if (rc) return rc;
    x->from_window = true;
    x->cap = x->s.last;
    x->s.last = NULL;
    cJSON_AddBoolToObject(x->stability, "checked", true);
    cJSON_AddBoolToObject(x->stability, "stable", x->s.stable);
    cJSON_AddNumberToObject(x->stability, "frames_observed", (double)x->s.observed);
    cJSON_AddStringToObject(x->stability, "rule", "two adjacent identical captures, or a repeating cycle of period "
                                                  "2..4 whose changes fit a caret (masked)");
    if (x->s.cycle) cJSON_AddNumberToObject(x->stability, "cycle", x->s.cycle);
    return pg_call_env(c, x->s.window.class_name, x->s.window.dpi, &x->env, e);
}

/* ---- the baseline ---- */

/* The last baselines decoded, by the SHA-256 of their PNG (which the store
 * checked against the manifest): decoding a 1080p PNG costs more than
 * comparing it, and a case is accepted again and again. */
#define DECODED_MAX 2
static struct {
    pthread_mutex_t lock;
    char sha[DECODED_MAX][65];
    pg_img *img[DECODED_MAX];
    unsigned next;
} decoded = {.lock = PTHREAD_MUTEX_INITIALIZER};

static pg_err decode_baseline(const char *png_sha, const uint8_t *png, size_t len, pg_img **out, pg_error *e) {
    pthread_mutex_lock(&decoded.lock);
    pg_err rc = PG_E_NOTFOUND;
    for (unsigned i = 0; i < DECODED_MAX && rc; i++)
        if (decoded.img[i] && !strcmp(decoded.sha[i], png_sha)) rc = pg_img_clone(decoded.img[i], out, e);
    pthread_mutex_unlock(&decoded.lock);
    if (rc != PG_E_NOTFOUND) return rc;
    rc = pg_img_decode(png, len, NULL, out, e);
    pg_img *keep = NULL;
    if (!rc && pg_img_clone(*out, &keep, NULL) == PG_OK) {
        pthread_mutex_lock(&decoded.lock);
        unsigned i = decoded.next++ % DECODED_MAX;
        pg_img_free(decoded.img[i]);
        decoded.img[i] = keep;
        snprintf(decoded.sha[i], sizeof decoded.sha[i], "%s", png_sha);
        pthread_mutex_unlock(&decoded.lock);
    }
    return rc;
}

static pg_err load_baseline(pg_call *c, accept_ctx *x, const char *key, pg_error *e) {
    pg_err rc = pg_baseline_get(c->b->baselines, x->owner, x->case_id, x->variant, key, &x->manifest, &x->base_png,
                                &x->base_png_len, e);
    const cJSON *sha = rc ? NULL : cJSON_GetObjectItemCaseSensitive(x->manifest, "png_sha256");
    if (!rc) rc = decode_baseline(cJSON_IsString(sha) ? sha->valuestring : "", x->base_png, x->base_png_len, &x->base, e);
    if (rc == PG_E_BADINPUT) rc = pg_error_set(e, PG_E_BLOCKED, NULL, "baseline integrity: its image does not decode");
    return rc;
}

/* Finds the baseline for this environment (exact, then one imported for any
 * toolkit). PG_E_NOTFOUND: none here; *others says how many exist elsewhere
 * and why the first does not fit. */
static pg_err find_baseline(pg_call *c, accept_ctx *x, int *others, char why[256], pg_error *e) {
    pg_err rc = load_baseline(c, x, x->env.key, e);
    if (rc != PG_E_NOTFOUND) return rc;
    pg_env any;
    pg_env_any_toolkit(&x->env, &any);
    rc = load_baseline(c, x, any.key, e);
    if (rc != PG_E_NOTFOUND) return rc;
    cJSON *all = NULL;
    *others = 0;
    why[0] = 0;
    if (pg_baseline_list(c->b->baselines, x->owner, x->case_id, &all, e) == PG_OK) {
        const cJSON *it;
        cJSON_ArrayForEach(it, all) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(it, "variant");
            if (!cJSON_IsString(v) || strcmp(v->valuestring, x->variant)) continue;
            pg_env there;
            pg_env_parse(cJSON_GetObjectItemCaseSensitive(it, "environment"), &there);
            if ((*others)++ == 0) pg_env_diff(&there, &x->env, why, 256);
        }
    }
    cJSON_Delete(all);
    return PG_E_NOTFOUND;
}

/* No baseline at all: the capture becomes a candidate (one per image). */
static pg_err needs_approval(pg_call *c, accept_ctx *x, cJSON *r, pg_error *e) {
    char sha[65];
    uint8_t d[32];
    pg_fingerprint_sha256(x->cap, NULL, d, NULL);
    pg_hex(d, sizeof d, sha);
    cJSON *cands = NULL;
    const char *reuse = NULL;
    if (pg_baseline_candidates(c->b->baselines, &cands, e) == PG_OK) {
        const cJSON *it;
        cJSON_ArrayForEach(it, cands) {
            const cJSON *cs = cJSON_GetObjectItemCaseSensitive(it, "case"), *v = cJSON_GetObjectItemCaseSensitive(it, "variant");
            const cJSON *s = cJSON_GetObjectItemCaseSensitive(it, "image_sha256"), *id = cJSON_GetObjectItemCaseSensitive(it, "id");
            const cJSON *k = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(it, "environment"), "key");
            char owner[PG_CASE_OWNER_MAX];
            pg_call_manifest_owner(it, owner);
            if (cJSON_IsString(cs) && cJSON_IsString(v) && cJSON_IsString(s) && cJSON_IsString(id) && cJSON_IsString(k) &&
                !strcmp(cs->valuestring, x->case_id) && !strcmp(v->valuestring, x->variant) &&
                !strcmp(s->valuestring, sha) && !strcmp(k->valuestring, x->env.key) && !strcmp(owner, x->owner))
                reuse = id->valuestring;
        }
    }
    pg_err rc = PG_OK;
    if (reuse) {
        cJSON_AddStringToObject(r, "candidate", reuse);
        snprintf(c->audit.detail, sizeof c->audit.detail, "candidate %s pending", reuse);
    } else {
        pg_rules rules;
        pg_rect_list none_r = {.n = 0};
        pg_string_list none_s = {.n = 0};
        pg_rules_from(&rules, 0.1, 0.001, 0, false, &none_r, &none_s, 0, e);
        cJSON *cand = NULL;
        rc = pg_call_candidate(c, x->case_id, x->variant, &x->env, &rules, x->cap, "accept", "image", &cand, e);
        if (!rc) {
            cJSON_AddStringToObject(r, "candidate", cJSON_GetObjectItemCaseSensitive(cand, "candidate")->valuestring);
            cJSON_AddStringToObject(r, "candidate_digest", cJSON_GetObjectItemCaseSensitive(cand, "digest")->valuestring);
        }
        cJSON_Delete(cand);
    }
    cJSON_Delete(cands);
    return rc;
}

/* ---- the measurements, as the caller may see them ---- */

typedef struct {
    bool coarse;
    uint32_t w, h;
    double bits;
} shown;

static double count_of(shown *s, uint64_t n, uint64_t total) {
    return s->coarse ? (double)pg_disclose_count(n, total, &s->bits) : (double)n;
}

static cJSON *box_of(shown *s, pg_img_rect r) {
    if (s->coarse) r = pg_disclose_box(r, s->w, s->h, &s->bits);
    return pg_rect_json(&r);
}

static void metrics_json(cJSON *r, const pg_rules *rules, const pg_accept_result *res, shown *s) {
    const pg_diff_result *m = &res->main;
    cJSON *mt = cJSON_AddObjectToObject(r, "metrics");
    double changed = count_of(s, m->pixels_changed, m->total_pixels);
    cJSON_AddNumberToObject(mt, "pixels_changed", changed);
    cJSON_AddNumberToObject(mt, "pixels_antialiased", count_of(s, m->pixels_aa, m->total_pixels));
    cJSON_AddNumberToObject(mt, "total_pixels", (double)m->total_pixels);
    cJSON_AddNumberToObject(mt, "diff_ratio", m->total_pixels ? changed / (double)m->total_pixels : 0);
    cJSON_AddNumberToObject(mt, "max_diff_ratio", rules->r.max_ratio);
    cJSON_AddNumberToObject(mt, "threshold", rules->r.threshold);
    cJSON_AddStringToObject(mt, "metric", rules->r.metric == PG_DIFF_OKLAB ? "oklab" : "yiq");
    cJSON_AddBoolToObject(mt, "antialiasing_excluded", !rules->r.include_aa);
    if (rules->r.shift) {
        cJSON_AddNumberToObject(mt, "shift", rules->r.shift);
        cJSON_AddNumberToObject(mt, "pixels_shifted", count_of(s, res->shifted, m->total_pixels));
    }
    if (m->has_bounds) cJSON_AddItemToObject(r, "bounds", box_of(s, m->bounds));
    else cJSON_AddNullToObject(r, "bounds");
    cJSON_AddNumberToObject(r, "region_count", s->coarse ? (double)(m->region_count > 255 ? 255 : m->region_count)
                                                         : (double)m->region_count);
    if (s->coarse) s->bits += 8;
    size_t listed = m->regions_len;
    if (s->coarse && listed > PG_DISCLOSE_MAX_BOXES) listed = PG_DISCLOSE_MAX_BOXES;
    cJSON *arr = cJSON_AddArrayToObject(r, "regions");
    for (size_t i = 0; i < listed; i++) {
        cJSON *g = box_of(s, m->regions[i].box);
        cJSON_AddNumberToObject(g, "pixels", count_of(s, m->regions[i].pixels, m->total_pixels));
        cJSON_AddItemToArray(arr, g);
    }
    cJSON *zs = cJSON_AddArrayToObject(r, "zones");
    for (size_t i = 0; i < res->n_zones; i++) {
        cJSON *z = pg_rect_json(&rules->zones[i].box); /* the approved rule, not a measurement */
        cJSON_AddNumberToObject(z, "threshold", rules->zones[i].threshold);
        cJSON_AddNumberToObject(z, "max_diff_ratio", rules->zones[i].max_ratio);
        double zc = count_of(s, res->zones[i].changed, res->zones[i].total);
        cJSON_AddNumberToObject(z, "diff_ratio", res->zones[i].total ? zc / (double)res->zones[i].total : 0);
        cJSON_AddBoolToObject(z, "passed", res->zones[i].passed);
        if (s->coarse) pg_disclose_flag(&s->bits);
        cJSON_AddItemToArray(zs, z);
    }
    if (s->coarse) cJSON_AddStringToObject(r, "resolution", "coarse: pixels you may not have (docs/threat-model.md)");
}

static cJSON *baseline_json(pg_call *c, const cJSON *m) {
    cJSON *b = cJSON_CreateObject();
    const char *keys[] = {"candidate", "approved_at", "source"};
    for (size_t i = 0; i < 3; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, keys[i]);
        if (cJSON_IsString(v)) cJSON_AddStringToObject(b, keys[i], v->valuestring);
    }
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(m, "approved_by"), "user");
    if (cJSON_IsString(by)) cJSON_AddStringToObject(b, "approved_by", by->valuestring);
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(m, "digest");
    if (cJSON_IsString(d)) {
        char shown_d[65];
        bool keyed = pg_call_protected(c);
        if (keyed) pg_disclose_digest(c->b->disclose, (uint32_t)c->peer->uid, d->valuestring, shown_d);
        else snprintf(shown_d, sizeof shown_d, "%s", d->valuestring);
        cJSON_AddStringToObject(b, "digest", shown_d);
        cJSON_AddStringToObject(b, "digest_kind", keyed ? "keyed" : "sha256");
    }
    cJSON_AddItemToObject(b, "rules", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(m, "rules"), 1));
    return b;
}

/* ---- the report page ---- */

static pg_err encode(const pg_img *img, uint8_t **png, size_t *len, pg_error *e) {
    *png = NULL;
    *len = 0;
    return img ? pg_img_encode_png(img, NULL, png, len, e) : PG_OK;
}

/* Sends the HTML page where the policy lets pixels out; says why not otherwise. */
static void report_html(pg_call *c, accept_ctx *x, cJSON *r) {
    cJSON *rep = cJSON_AddObjectToObject(r, "report");
    bool allow = c->view->expose_pixels == PG_EXPOSE_ALLOW, approver = !allow && pg_call_is_approver(c);
    if (!allow && !approver) {
        cJSON_AddStringToObject(rep, "html", "withheld");
        cJSON_AddStringToObject(rep, "why", "the page embeds pixels: written only for approvers or under "
                                            "expose_pixels allow; report.json and report.md are text");
        return;
    }
    uint8_t *cap_png = NULL;
    size_t cap_len = 0;
    pg_error ignored;
    char title[160];
    snprintf(title, sizeof title, "%s / %s", x->case_id, x->variant);
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(r, "outcome"), *why = cJSON_GetObjectItemCaseSensitive(r, "message");
    pg_report_item it = {.title = title, .status = cJSON_IsString(o) ? o->valuestring : "",
                         .reason = cJSON_IsString(why) ? why->valuestring : "",
                         .metrics = cJSON_GetObjectItemCaseSensitive(r, "metrics"),
                         .regions = cJSON_GetObjectItemCaseSensitive(r, "regions"), .baseline_png = x->base_png,
                         .baseline_len = x->base_png_len};
    char *html = NULL;
    size_t len = 0;
    if (encode(x->cap, &cap_png, &cap_len, &ignored) == PG_OK) {
        it.actual_png = cap_png, it.actual_len = cap_len, it.diff_png = x->diff_png, it.diff_len = x->diff_png_len;
        if (pg_report_html("pixelgate acceptance", &it, 1, &html, &len, &ignored) == PG_OK)
            c->reply_att = (pg_blob){(uint8_t *)html, len};
    }
    free(cap_png);
    cJSON_AddStringToObject(rep, "html", html ? (allow ? "released (expose_pixels allow)" : "released (approver)")
                                              : "failed to build");
    if (html) {
        c->audit.kind = "release";
        snprintf(c->audit.endpoint, sizeof c->audit.endpoint, "report.html");
    }
}

/* ---- compare ---- */

static pg_err compare(pg_call *c, const pg_args_accept *a, accept_ctx *x, cJSON *r, pg_error *e) {
    pg_rules rules;
    pg_err rc = pg_rules_parse(cJSON_GetObjectItemCaseSensitive(x->manifest, "rules"), &rules, e);
    if (rc) return finish(c, OUT_BLOCKED, "BASELINE_INTEGRITY", r, e->message, e);
    shown s = {.coarse = false, .w = x->cap->width, .h = x->cap->height};
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x->manifest, "protected")) && pg_disclose_protected(c->view)) {
        char src[48];
        snprintf(src, sizeof src, "baseline:%.18s/%.18s", x->case_id, x->variant);
        pg_call_source(c, src);
    }
    s.coarse = pg_call_protected(c);
    if (x->s.cycle && rules.r.n_masks < PG_LIST_MAX) { /* the blinking caret: masked, and said so */
        rules.masks[rules.r.n_masks++] = x->s.blink;
        cJSON_AddStringToObject(x->stability, "caret", "a repeating cycle was recognised; the pixels that change "
                                                       "within it are masked");
        cJSON_AddItemToObject(x->stability, "caret_mask", box_of(&s, x->s.blink));
    }
    cJSON_AddItemToObject(r, "baseline", baseline_json(c, x->manifest));
    pg_accept_result *res = calloc(1, sizeof *res);
    if (!res) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    pg_img *diff = NULL, *overlay = NULL;
    rc = pg_accept_compare(x->base, x->cap, &rules.r, res, &diff, &overlay, e);
    /* About protected pixels an answer must cover min_area of them: the whole and every zone. */
    if (!rc && res->status != PG_ACCEPT_BLOCKED && res->main.sizes_match) {
        rc = pg_call_area(c, res->main.total_pixels, "an acceptance check", e);
        for (size_t i = 0; !rc && i < res->n_zones; i++) rc = pg_call_area(c, res->zones[i].total, "a zone", e);
    }
    if (!rc) {
        if (res->main.sizes_match && res->status != PG_ACCEPT_BLOCKED) metrics_json(r, &rules, res, &s);
        if (!res->main.sizes_match) {
            char a_[32], b_[32];
            snprintf(a_, sizeof a_, "%ux%u", x->cap->width, x->cap->height);
            snprintf(b_, sizeof b_, "%ux%u", x->base->width, x->base->height);
            cJSON_AddStringToObject(r, "size_capture", a_);
            cJSON_AddStringToObject(r, "size_baseline", b_);
        }
        if (s.coarse) s.bits += 2 + 3; /* the outcome (4) and its reason (6) */
        rc = pg_call_disclose(c, s.bits, e);
    }
    if (!rc && diff && a->html) encode(diff, &x->diff_png, &x->diff_png_len, e);
    /* The diff and overlay tokens show where it differs: made when it does (each
     * token costs a copy and a SHA-256 of the frame). */
    bool differs = res->status != PG_ACCEPT_PASSED;
    if (!rc && diff && differs) {
        pg_error de;
        pg_call_derived_token(c, diff, "accept-diff", r, "diff_token", &de);
        diff = NULL; /* the store took it, or freed it */
    }
    if (!rc && overlay && differs) {
        pg_error de;
        pg_call_derived_token(c, overlay, "accept-overlay", r, "overlay_token", &de);
        overlay = NULL;
    }
    pg_img_free(diff);
    pg_img_free(overlay);
    if (rc) {
        free(res);
        return rc;
    }
    snprintf(c->audit.detail, sizeof c->audit.detail, "case %s/%s baseline %s changed %llu of %llu", x->case_id,
             x->variant, cJSON_GetObjectItemCaseSensitive(x->manifest, "digest")->valuestring,
             (unsigned long long)res->main.pixels_changed, (unsigned long long)res->main.total_pixels);
    outcome o = res->status == PG_ACCEPT_PASSED ? OUT_PASSED : res->status == PG_ACCEPT_FAILED ? OUT_FAILED : OUT_BLOCKED;
    char msg[320];
    if (res->detail[0]) snprintf(msg, sizeof msg, "%s", res->detail);
    else snprintf(msg, sizeof msg, "%s", o == OUT_PASSED ? "matches the approved baseline" :
                                         !strcmp(res->reason, "ZONE_FAILED") ? "a zone differs more than its rule allows"
                                                                             : "differs more than max_diff_ratio allows");
    const char *reason = res->reason;
    free(res);
    return finish(c, o, reason, r, msg, e);
}

/* The frame compared, kept as a token of the caller's (evidence) while the
 * comparison runs: storing it hashes the whole frame (SHA-256, for the token
 * and the audit record), which costs as much as the comparison itself, so it
 * runs on a thread of its own. The thread reads only what it was given and
 * the thread-safe token store. */
typedef struct {
    pthread_t thread;
    bool started;
    pg_tok_store *tokens;
    uint32_t uid, ttl_s;
    uint64_t quota;
    pg_img *copy;
    pg_tok_meta m;
    pg_err rc;
} keeper;

static void *keep_run(void *arg) {
    keeper *k = arg;
    pg_error ignored;
    uint8_t *px = k->copy->px; /* the store takes the pixels (pg_img_clone makes tight rows) */
    k->copy->px = NULL;
    pg_img_free(k->copy);
    k->copy = NULL;
    k->rc = pg_tok_put(k->tokens, &k->m, px, k->ttl_s, k->quota, &ignored);
    return NULL;
}

static void keep_start(pg_call *c, const pg_img *cap, const char *method, keeper *k) {
    memset(k, 0, sizeof *k);
    k->rc = PG_E_INTERNAL;
    if (pg_img_clone(cap, &k->copy, NULL) != PG_OK) return;
    k->tokens = c->b->tokens;
    k->uid = (uint32_t)c->peer->uid;
    k->ttl_s = c->view->token_ttl_s;
    k->quota = c->view->spool_quota_bytes;
    k->m.uid = k->uid;
    k->m.width = k->m.source_width = cap->width;
    k->m.height = k->m.source_height = cap->height;
    snprintf(k->m.method, sizeof k->m.method, "%s", method);
    if (c->n_sources) memcpy(k->m.source, c->sources[0], sizeof k->m.source);
    k->started = pthread_create(&k->thread, NULL, keep_run, k) == 0;
    if (!k->started) keep_run(k); /* no thread to be had: in line */
}

static void keep_finish(pg_call *c, keeper *k, cJSON *r) {
    if (k->started) pthread_join(k->thread, NULL);
    if (k->rc != PG_OK) return;
    if (!r) { /* no answer to carry it */
        pg_tok_drop(c->b->tokens, k->m.token);
        return;
    }
    cJSON_AddStringToObject(r, "capture_token", k->m.token);
    memcpy(c->audit.image_sha256, k->m.sha256, sizeof c->audit.image_sha256);
    memcpy(c->audit.token, k->m.token, sizeof c->audit.token);
    memcpy(c->created_token, k->m.token, sizeof c->created_token);
}

pg_err pg_op_accept(pg_call *c, const pg_args_accept *a, pg_error *e) {
    c->audit.kind = "accept";
    accept_ctx x;
    memset(&x, 0, sizeof x);
    x.case_id = a->case_id;
    x.variant = a->variant ? a->variant : "default";
    if (!pg_baseline_name_ok(x.case_id) || !pg_baseline_name_ok(x.variant))
        return pg_error_set(e, PG_E_USAGE, "names are 1..64 of A-Z a-z 0-9 . _ -", "bad case or variant name");
    pg_err rc = pg_call_case_owner(c, x.case_id, x.owner, e); /* before any capture */
    if (!rc) rc = take_capture(c, a, &x, e);
    if (rc) {
        ctx_free(&x);
        return rc;
    }
    cJSON *r = cJSON_CreateObject();
    cJSON_AddNullToObject(r, "outcome"); /* the verdict leads the answer; finish() fills these */
    cJSON_AddNullToObject(r, "reason_code");
    cJSON_AddNullToObject(r, "message");
    cJSON_AddStringToObject(r, "case", x.case_id);
    cJSON_AddStringToObject(r, "variant", x.variant);
    cJSON_AddItemToObject(r, "stability", x.stability); /* r owns it now; compare() may still add to it */
    cJSON_AddItemToObject(r, "environment", pg_env_json(&x.env));
    keeper k = {0};
    if (x.from_window) {
        cJSON_AddItemToObject(r, "window", pg_call_window_json(c, &x.s.window, NULL, 0));
        keep_start(c, x.cap, x.s.method, &k);
    }
    /* stability says whether the frames held still, after how many and with
     * which caret cycle: the content's, whatever the outcome (8 bits, as
     * wait-stable charges them). */
    if (x.from_window) rc = pg_call_disclose(c, 8, e);
    if (rc) {
        /* over the budget: no answer */
    } else if (x.from_window && !x.s.stable) {
        rc = finish(c, OUT_BLOCKED, "UNSTABLE", r, "the window never held still: no two adjacent captures were "
                    "identical and no caret-sized cycle repeated", e);
    } else {
        int others = 0;
        char why[256];
        rc = find_baseline(c, &x, &others, why, e);
        if (rc == PG_E_NOTFOUND && others) {
            char msg[400];
            snprintf(msg, sizeof msg, "the case's baseline was approved in another environment (%s)", why);
            rc = finish(c, OUT_BLOCKED, "ENVIRONMENT_MISMATCH", r, msg, e);
        } else if (rc == PG_E_NOTFOUND) {
            rc = needs_approval(c, &x, r, e);
            if (!rc) rc = finish(c, OUT_NEEDS_APPROVAL, "NO_BASELINE", r, "no approved baseline: a candidate was "
                                 "prepared for an approver; nothing was compared", e);
        } else if (rc == PG_E_BLOCKED) {
            char msg[PG_ERR_MSG_MAX];
            snprintf(msg, sizeof msg, "%s", e->message);
            rc = finish(c, OUT_BLOCKED, "BASELINE_INTEGRITY", r, msg, e);
        } else if (rc == PG_OK) {
            rc = compare(c, a, &x, r, e);
        }
    }
    if (x.from_window) keep_finish(c, &k, c->result == r || c->details == r ? r : NULL);
    bool answered = c->result == r || c->details == r;
    if (answered && a->html) report_html(c, &x, r);
    if (!answered) cJSON_Delete(r);
    x.stability = NULL;
    ctx_free(&x);
    return rc;
}
