/* baseline prepare / approve / reject / list / show: the candidates an agent
 * proposes and the baselines a human approves (pg_baseline.h keeps them),
 * plus what accept.c shares: environments, frozen rules, candidates.
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
#include "pg_ops.h"
#include "pg_report.h"
#include "pg_time.h"

/* ---- environment ---- */

/* Order-independent fingerprint of the font files under dir (names, sizes,
 * modification times), depth-limited: a font added, removed or upgraded
 * changes text rendering, so it changes the environment. */
static void fonts_walk(const char *dir, int depth, uint64_t *acc, unsigned *count) {
    DIR *d = depth > 4 ? NULL : opendir(dir);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d)) && *count < 20000) {
        if (de->d_name[0] == '.') continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            fonts_walk(path, depth + 1, acc, count);
            continue;
        }
        char line[2200];
        int n = snprintf(line, sizeof line, "%s|%lld|%lld", path, (long long)st.st_size, (long long)st.st_mtime);
        uint8_t h[PG_SHA256_LEN];
        if (n > 0 && pg_sha256(line, (size_t)n, h, NULL) == PG_OK) {
            uint64_t v;
            memcpy(&v, h, sizeof v);
            *acc += v; /* a sum: readdir's order does not matter */
            (*count)++;
        }
    }
    closedir(d);
}

static pthread_mutex_t fonts_lock = PTHREAD_MUTEX_INITIALIZER;
static char fonts_hex[17];
static int64_t fonts_at_ms = -1;

/* Recomputed at most once a minute. */
static void fonts_fingerprint(char out[17]) {
    pthread_mutex_lock(&fonts_lock);
    int64_t now = pg_mono_ms();
    if (fonts_at_ms < 0 || now - fonts_at_ms > 60000) {
        uint64_t acc = 0;
        unsigned count = 0;
#ifdef _WIN32
        const char *win = getenv("WINDIR");
        char dir[1024];
        snprintf(dir, sizeof dir, "%s\\Fonts", win ? win : "C:\\Windows");
        fonts_walk(dir, 0, &acc, &count);
#else
        static const char *const dirs[] = {"/usr/share/fonts", "/usr/local/share/fonts", "/etc/fonts"};
        for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) fonts_walk(dirs[i], 0, &acc, &count);
#endif
        snprintf(fonts_hex, sizeof fonts_hex, "%016llx", (unsigned long long)(acc ^ count));
        fonts_at_ms = now;
    }
    memcpy(out, fonts_hex, 17);
    pthread_mutex_unlock(&fonts_lock);
}

static void env_key(pg_env *v) {
    char text[512];
    int n = snprintf(text, sizeof text, "%s|%s|%u|%u|%s|%s", v->platform, v->backend, v->depth, v->scale_pct,
                     v->toolkit, v->fonts);
    uint8_t h[PG_SHA256_LEN];
    char hex[65];
    if (pg_sha256(text, (size_t)n, h, NULL) != PG_OK) memset(h, 0, sizeof h);
    pg_hex(h, sizeof h, hex);
    memcpy(v->key, hex, 16);
    v->key[16] = 0;
}

/* The screen depth from the backend's caps detail ("... screen WxHxD"). */
static uint32_t depth_of(const char *detail) {
    const char *p = strstr(detail, "screen ");
    unsigned w, h, d;
    return p && sscanf(p, "screen %ux%ux%u", &w, &h, &d) == 3 ? d : 0;
}

pg_err pg_env_current(pg_call *c, const char *toolkit, uint32_t dpi, pg_env *out, pg_error *e) {
    memset(out, 0, sizeof *out);
#ifdef _WIN32
    snprintf(out->platform, sizeof out->platform, "windows");
#else
    snprintf(out->platform, sizeof out->platform, "linux");
#endif
    pg_caps caps;
    memset(&caps, 0, sizeof caps);
    pg_err rc = pg_call_plat_input(c, e);
    if (rc) return rc;
    rc = c->b->plat_ops->caps(c->plat, &caps, e);
    pg_call_plat_done(c);
    if (rc) return rc;
    snprintf(out->backend, sizeof out->backend, "%s", caps.backend);
    out->depth = depth_of(caps.detail);
    out->scale_pct = dpi ? (dpi * 100 + 48) / 96 : 100; /* X11: physical pixels, no per-window scale */
    snprintf(out->toolkit, sizeof out->toolkit, "%s", toolkit && *toolkit ? toolkit : "*");
    fonts_fingerprint(out->fonts);
    env_key(out);
    return PG_OK;
}

cJSON *pg_env_json(const pg_env *v) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "platform", v->platform);
    cJSON_AddStringToObject(o, "backend", v->backend);
    cJSON_AddNumberToObject(o, "depth", v->depth);
    cJSON_AddNumberToObject(o, "scale_pct", v->scale_pct);
    cJSON_AddStringToObject(o, "toolkit", v->toolkit);
    cJSON_AddStringToObject(o, "fonts", v->fonts);
    cJSON_AddStringToObject(o, "key", v->key);
    return o;
}

static void jstr(const cJSON *o, const char *k, char *dst, size_t n) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    snprintf(dst, n, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

static double jnum(const cJSON *o, const char *k, double def) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : def;
}

bool pg_env_parse(const cJSON *j, pg_env *out) {
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(j)) return false;
    jstr(j, "platform", out->platform, sizeof out->platform);
    jstr(j, "backend", out->backend, sizeof out->backend);
    out->depth = (uint32_t)jnum(j, "depth", 0);
    out->scale_pct = (uint32_t)jnum(j, "scale_pct", 0);
    jstr(j, "toolkit", out->toolkit, sizeof out->toolkit);
    jstr(j, "fonts", out->fonts, sizeof out->fonts);
    env_key(out);
    return true;
}

void pg_env_any_toolkit(const pg_env *v, pg_env *out) {
    *out = *v;
    snprintf(out->toolkit, sizeof out->toolkit, "*");
    env_key(out);
}

void pg_env_diff(const pg_env *want, const pg_env *have, char *out, size_t n) {
    size_t len = 0;
    out[0] = 0;
#define FIELD(cond, fmt, ...)                                                                             \
    if ((cond) && len < n) len += (size_t)snprintf(out + len, n - len, "%s" fmt, len ? "; " : "", __VA_ARGS__)
    FIELD(strcmp(want->platform, have->platform), "platform %s, here %s", want->platform, have->platform);
    FIELD(strcmp(want->backend, have->backend), "backend %s, here %s", want->backend, have->backend);
    FIELD(want->depth != have->depth, "screen depth %u, here %u", want->depth, have->depth);
    FIELD(want->scale_pct != have->scale_pct, "scale %u%%, here %u%%", want->scale_pct, have->scale_pct);
    FIELD(strcmp(want->toolkit, "*") && strcmp(want->toolkit, have->toolkit), "toolkit %s, here %s", want->toolkit,
          have->toolkit);
    FIELD(strcmp(want->fonts, have->fonts), "fonts %s, here %s", want->fonts, have->fonts);
#undef FIELD
}

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
    double x = jnum(j, "x", -1), y = jnum(j, "y", -1), w = jnum(j, "w", -1), h = jnum(j, "h", -1);
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
        r->r.threshold = jnum(j, "threshold", -1);
        r->r.max_ratio = jnum(j, "max_diff_ratio", -1);
        r->r.metric = !strcmp(metric->valuestring, "oklab") ? PG_DIFF_OKLAB : PG_DIFF_YIQ;
        r->r.include_aa = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "include_aa"));
        r->r.shift = (uint32_t)jnum(j, "shift", 0);
        const cJSON *it;
        cJSON_ArrayForEach(it, m) ok &= rect_of(it, &r->masks[r->r.n_masks++]);
        cJSON_ArrayForEach(it, z) {
            pg_accept_zone *zz = &r->zones[r->r.n_zones++];
            ok &= rect_of(it, &zz->box);
            zz->threshold = jnum(it, "threshold", -1);
            zz->max_ratio = jnum(it, "max_diff_ratio", -1);
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

static void img_sha(const pg_img *img, char out[65]) {
    uint8_t d[PG_SHA256_LEN];
    if (pg_fingerprint_sha256(img, NULL, d, NULL) != PG_OK) memset(d, 0, sizeof d);
    pg_hex(d, sizeof d, out);
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

pg_err pg_candidate_make(pg_call *c, const char *case_id, const char *variant, const pg_env *env, const pg_rules *r,
                         const pg_img *img, const char *source, const char *kind, cJSON **out, pg_error *e) {
    char sha[65], digest[65], created[40];
    img_sha(img, sha);
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
    uint8_t *png = NULL;
    size_t len = 0;
    char id[PG_BASELINE_ID_LEN + 1];
    pg_err rc = pg_img_encode_png(img, NULL, &png, &len, e);
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

static pg_err names_check(const char *case_id, const char *variant, pg_error *e) {
    if (pg_baseline_name_ok(case_id) && pg_baseline_name_ok(variant)) return PG_OK;
    return pg_error_set(e, PG_E_USAGE, "case and variant names are 1..64 of A-Z a-z 0-9 . _ - (not starting with .)",
                        "bad case or variant name");
}

/* ---- who may ---- */

/* The caller as the policy sees it (groups from the connection). */
static void caller_principal(pg_call *c, pg_principal *p, const char **groups, char *buf, size_t n) {
    pg_broker_principal(c->peer, p, groups, 64, buf, n);
    p->remote = pg_peer_is_remote(c->peer);
}

/* May the caller approve what (uid, user) prepared? */
static pg_err may_approve(pg_call *c, uint32_t uid, const char *user, pg_error *e) {
    const char *groups[64];
    char buf[4096];
    pg_principal me, them;
    caller_principal(c, &me, groups, buf, sizeof buf);
    pg_principal_start(&them, uid, user, NULL); /* only who it is: uid and name */
    return pg_policy_may_approve(c->policy, &me, &them, e);
}

/* Is the caller an approver at all (for seeing true digests and images)? */
bool pg_call_is_approver(pg_call *c) {
    pg_error ignored;
    return may_approve(c, UINT32_MAX - 1, "\x01nobody", &ignored) == PG_OK;
}

/* list and show are open to the policy's clients and to approvers. */
static pg_err client_or_approver(pg_call *c, bool *approver, pg_error *e) {
    *approver = pg_call_is_approver(c);
    if (*approver) return PG_OK;
    const char *groups[64];
    char buf[4096];
    pg_principal who;
    caller_principal(c, &who, groups, buf, sizeof buf);
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
        if (!rc) rc = pg_env_current(c, m.screen ? "screen" : m.window_class, 0, env, e);
        *source = "token";
        return rc;
    }
    if (a->has_import) {
        char label[64];
        *source = "import";
        pg_err rc = pg_call_image(c, &a->import, img, label, NULL, NULL, e);
        return rc ? rc : pg_env_current(c, NULL, 0, env, e); /* a file of unknown origin: any toolkit */
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
        c->details = cJSON_CreateObject();
        cJSON_AddStringToObject(c->details, "outcome", "blocked");
        cJSON_AddStringToObject(c->details, "reason_code", "UNSTABLE");
        cJSON_AddNumberToObject(c->details, "frames_observed", (double)s.observed);
        return pg_error_set(e, PG_E_BLOCKED, "let the app settle, or prepare from a token you chose",
                            "the window never held still for two captures (%lld tries)", (long long)s.observed);
    }
    *img = s.last;
    return pg_env_current(c, s.window.class_name, s.window.dpi, env, e);
}

/* keep_image: the case's one approved image, with the rules proposed now. */
static pg_err approved_image(pg_call *c, const char *case_id, const char *variant, pg_img **img, pg_env *env,
                             pg_error *e) {
    cJSON *all = NULL;
    pg_err rc = pg_baseline_list(c->b->baselines, case_id, &all, e);
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
    rc = pg_baseline_get(c->b->baselines, case_id, variant, env->key, &m, &png, &len, e);
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
    if (!rc) rc = pg_candidate_make(c, a->case_id, variant, &env, &r, img, source, a->keep_image ? "rules" : "image",
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
    *uid = (uint32_t)jnum(by, "uid", UINT32_MAX);
    jstr(by, "user", user, 64);
    return PG_OK;
}

/* The candidate is still what its digest says: image, rules and names. */
static pg_err verify_candidate(const cJSON *m, const uint8_t *png, size_t len, const char *given, pg_error *e) {
    pg_img *img = NULL;
    pg_err rc = pg_img_decode(png, len, NULL, &img, e);
    if (rc) return rc;
    char sha[65], digest[65], case_id[80], variant[80], want_sha[80], want_digest[80];
    img_sha(img, sha);
    pg_img_free(img);
    jstr(m, "case", case_id, sizeof case_id);
    jstr(m, "variant", variant, sizeof variant);
    jstr(m, "image_sha256", want_sha, sizeof want_sha);
    jstr(m, "digest", want_digest, sizeof want_digest);
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
    if (!rc) rc = may_approve(c, uid, user, e);
    if (!rc) rc = verify_candidate(m, png, len, a->digest, e);
    char case_id[80] = "", variant[80] = "", kind[16] = "", sha[80] = "", created[40];
    pg_env env;
    if (!rc) {
        jstr(m, "case", case_id, sizeof case_id);
        jstr(m, "variant", variant, sizeof variant);
        jstr(m, "kind", kind, sizeof kind);
        jstr(m, "image_sha256", sha, sizeof sha);
        memcpy(c->audit.image_sha256, sha, 65);
        pg_env_parse(cJSON_GetObjectItemCaseSensitive(m, "environment"), &env);
        pg_iso_time((int64_t)time(NULL) * 1000, created);
        cJSON *by = cJSON_AddObjectToObject(m, "approved_by");
        cJSON_AddNumberToObject(by, "uid", c->peer->uid);
        cJSON_AddStringToObject(by, "user", c->peer->user);
        cJSON_AddStringToObject(m, "approved_at", created);
        cJSON_AddStringToObject(m, "note", a->note);
        cJSON_AddStringToObject(m, "candidate", a->candidate);
        rc = pg_baseline_put(c->b->baselines, case_id, variant, env.key, m, png, len, e);
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
    if (!rc && uid != c->peer->uid) rc = may_approve(c, uid, user, e); /* the preparer may withdraw it */
    char case_id[80] = "", digest[80] = "";
    if (!rc) {
        jstr(m, "case", case_id, sizeof case_id);
        jstr(m, "digest", digest, sizeof digest);
        jstr(m, "image_sha256", c->audit.image_sha256, sizeof c->audit.image_sha256);
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

pg_err pg_op_baseline_list(pg_call *c, const pg_args_baseline_list *a, pg_error *e) {
    bool approver;
    pg_err rc = client_or_approver(c, &approver, e);
    if (!rc && a->case_id && !pg_baseline_name_ok(a->case_id)) rc = names_check(a->case_id, "default", e);
    cJSON *base = NULL, *cand = NULL;
    if (!rc) rc = pg_baseline_list(c->b->baselines, a->case_id, &base, e);
    if (!rc) rc = pg_baseline_candidates(c->b->baselines, &cand, e);
    if (rc) {
        cJSON_Delete(base);
        return rc;
    }
    cJSON *it, *keep = cJSON_CreateArray();
    cJSON_ArrayForEach(it, base) manifest_view(it, approver);
    while (cJSON_GetArraySize(cand) > 0) {
        cJSON *m = cJSON_DetachItemFromArray(cand, 0);
        const cJSON *cs = cJSON_GetObjectItemCaseSensitive(m, "case");
        if (a->case_id && !(cJSON_IsString(cs) && !strcmp(cs->valuestring, a->case_id))) cJSON_Delete(m);
        else cJSON_AddItemToArray(keep, manifest_view(m, approver));
    }
    cJSON_Delete(cand);
    c->result = cJSON_CreateObject();
    cJSON_AddItemToObject(c->result, "baselines", base);
    cJSON_AddItemToObject(c->result, "candidates", keep);
    return PG_OK;
}

/* The approved baseline a candidate would replace, as PNG (NULL when none). */
static void current_png(pg_call *c, const cJSON *m, uint8_t **png, size_t *len) {
    char case_id[80], variant[80];
    jstr(m, "case", case_id, sizeof case_id);
    jstr(m, "variant", variant, sizeof variant);
    pg_env env;
    pg_env_parse(cJSON_GetObjectItemCaseSensitive(m, "environment"), &env);
    cJSON *cur = NULL;
    pg_error ignored;
    *png = NULL;
    if (pg_baseline_get(c->b->baselines, case_id, variant, env.key, &cur, png, len, &ignored) != PG_OK) *png = NULL;
    cJSON_Delete(cur);
}

/* The approver's review page: the candidate next to the baseline it replaces. */
static pg_err review_html(pg_call *c, const cJSON *m, const uint8_t *png, size_t len, pg_error *e) {
    uint8_t *cur = NULL;
    size_t cur_len = 0;
    current_png(c, m, &cur, &cur_len);
    char title[260], case_id[80], variant[80], id[40];
    jstr(m, "case", case_id, sizeof case_id);
    jstr(m, "variant", variant, sizeof variant);
    jstr(m, "id", id, sizeof id);
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
    if (image && !approver) {
        cJSON_Delete(m);
        free(png);
        return pg_error_set(e, PG_E_POLICY, "an approver reviews candidates; you get its metadata",
                            "only an approver may see a candidate's image");
    }
    jstr(m, "image_sha256", c->audit.image_sha256, sizeof c->audit.image_sha256);
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
    if (!rc) rc = pg_baseline_list(c->b->baselines, a->what, &base, e);
    if (rc) return rc;
    cJSON *it;
    cJSON_ArrayForEach(it, base) manifest_view(it, approver);
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
