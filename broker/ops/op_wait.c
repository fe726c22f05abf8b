/* wait_stable and wait_for: poll live captures of one window until the
 * condition holds or the timeout passes. The platform lock is held per
 * capture only, never across the sleep, so other clients keep working. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pg_fingerprint.h"
#include "pg_ops.h"

#define WAIT_TARGET {"window", PG_ARG_STRING, false}, {"id", PG_ARG_INT, false}, {"first", PG_ARG_BOOL, false}
const pg_arg_spec pg_op_wait_stable_args[7] = {WAIT_TARGET,
                                               {"region", PG_ARG_OBJECT, false},
                                               {"frames", PG_ARG_INT, false},
                                               {"interval", PG_ARG_NUMBER, false},
                                               {"timeout", PG_ARG_NUMBER, false}};
const pg_arg_spec pg_op_wait_for_args[8] = {WAIT_TARGET,
                                            {"text", PG_ARG_STRING, false},
                                            {"template", PG_ARG_OBJECT, false},
                                            {"threshold", PG_ARG_NUMBER, false},
                                            {"interval", PG_ARG_NUMBER, false},
                                            {"timeout", PG_ARG_NUMBER, false}};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_s(double s) {
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

pg_err pg_capture_img_locked(pg_call *c, const pg_window *w, const pg_rect *region, pg_img **img, char method[32],
                             pg_error *e) {
    pg_capture cap = {0};
    pg_err rc = pg_check_capture_allowed(c, w, e);
    if (!rc) rc = c->b->plat_ops->capture_window(c->b->plat, w->id, region, &cap, e);
    if (rc) return rc;
    if (method) memcpy(method, cap.method, 32);
    rc = pg_img_wrap(img, cap.rgba, cap.width, cap.height, cap.stride, e);
    if (rc) free(cap.rgba);
    return rc;
}

pg_err pg_capture_window_img(pg_call *c, bool resolve, pg_window *w, const pg_rect *region, pg_img **img,
                             char method[32], pg_error *e) {
    pg_err rc = pg_broker_plat_lock(c->b, e);
    if (rc) return rc;
    if (resolve) {
        rc = pg_resolve_window(c, w, e);
        if (!rc) pg_audit_window_set(c, w);
    }
    if (!rc) rc = pg_capture_img_locked(c, w, region, img, method, e);
    pg_broker_plat_unlock(c->b);
    return rc;
}

/* Keeps the last frame as a token (into[field]) for evidence. */
static void keep_frame(pg_call *c, pg_img *img, const char *method, cJSON *into) {
    pg_error ignored;
    if (img && pg_derived_token(c, img, method, into, "token", &ignored) == PG_OK) {
        const cJSON *t = cJSON_GetObjectItem(into, "token");
        snprintf(c->audit.token, sizeof c->audit.token, "%s", t->valuestring);
        memcpy(c->created_token, c->audit.token, sizeof c->created_token);
    }
}

typedef struct {
    double interval, timeout;
    pg_rect region;
    bool has_region;
} poll_args;

static pg_err read_poll(pg_call *c, poll_args *p, pg_error *e) {
    p->interval = pg_args_num(c->req->args, "interval", 0.5);
    p->timeout = pg_args_num(c->req->args, "timeout", 10);
    if (p->interval <= 0 || p->interval > 60 || p->timeout <= 0 || p->timeout > 3600)
        return pg_error_set(e, PG_E_USAGE, NULL, "interval must be in (0, 60] s and timeout in (0, 3600] s");
    return pg_region_arg(c->req->args, "region", &p->region, &p->has_region, e);
}

pg_err pg_op_wait_stable(pg_call *c, pg_error *e) {
    c->audit.kind = "token";
    poll_args p;
    pg_err rc = read_poll(c, &p, e);
    int64_t frames = pg_args_int(c->req->args, "frames", 2);
    if (!rc && (frames < 2 || frames > 100)) rc = pg_error_set(e, PG_E_USAGE, NULL, "frames must be 2..100");
    if (rc) return rc;
    double t0 = now_s();
    pg_window w;
    pg_img *last = NULL;
    char method[32] = "";
    uint64_t prev = 0, hash = 0;
    int64_t run = 0, observed = 0;
    for (;;) {
        pg_img *img = NULL;
        rc = pg_capture_window_img(c, observed == 0, &w, p.has_region ? &p.region : NULL, &img, method, e);
        if (!rc) rc = pg_fp_dhash(img, NULL, &hash, e);
        if (rc) {
            pg_img_free(img);
            break;
        }
        observed++;
        run = (observed > 1 && pg_fp_hamming(prev, hash) <= PG_FP_DHASH_SAME) ? run + 1 : 1;
        prev = hash;
        pg_img_free(last);
        last = img;
        if (run >= frames || now_s() - t0 + p.interval > p.timeout) break;
        sleep_s(p.interval);
    }
    if (rc) {
        pg_img_free(last);
        return rc;
    }
    char hex[17];
    pg_fp_dhash_hex(hash, hex);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddBoolToObject(r, "stable", run >= frames);
    cJSON_AddNumberToObject(r, "frames_observed", (double)observed);
    cJSON_AddStringToObject(r, run >= frames ? "final_hash" : "last_hash", hex);
    cJSON_AddNumberToObject(r, "elapsed_s", (int)((now_s() - t0) * 1000) / 1000.0);
    keep_frame(c, last, method, r);
    cJSON_AddItemToObject(r, "window", pg_window_json(&w));
    snprintf(c->audit.detail, sizeof c->audit.detail, "wait_stable %s after %lld frames",
             run >= frames ? "stable" : "timed out", (long long)observed);
    if (run >= frames) {
        c->result = r;
        return PG_OK;
    }
    c->details = r;
    return pg_error_set(e, PG_E_TIMEOUT, "the window keeps repainting: raise --timeout or watch a --region",
                        "not stable after %.1f s (%lld frames)", p.timeout, (long long)observed);
}

/* Looks for the text or template in img; *found_json gets the finding. */
static pg_err look(pg_call *c, const pg_img *img, bool *found, cJSON **found_json, pg_error *e) {
    const char *text = pg_args_str(c->req->args, "text", NULL);
    if (text) {
        pg_err rc = pg_find_text(c, img, NULL, text, false, NULL, found_json, e);
        *found = !rc && cJSON_IsTrue(cJSON_GetObjectItem(*found_json, "found"));
        return rc;
    }
    pg_tmpl_result res;
    pg_err rc = pg_template_find(c, img, NULL, &res, found_json, e);
    *found = !rc && res.found;
    if (*found) cJSON_AddItemReferenceToObject(*found_json, "match", cJSON_GetObjectItem(*found_json, "best"));
    return rc;
}

pg_err pg_op_wait_for(pg_call *c, pg_error *e) {
    c->audit.kind = "token";
    poll_args p;
    pg_err rc = read_poll(c, &p, e);
    bool has_text = pg_args_str(c->req->args, "text", NULL) != NULL;
    bool has_tmpl = cJSON_GetObjectItemCaseSensitive(c->req->args, "template") != NULL;
    if (!rc && has_text == has_tmpl) rc = pg_error_set(e, PG_E_USAGE, NULL, "wait_for needs exactly one of text or template");
    if (rc) return rc;
    double t0 = now_s();
    pg_window w;
    pg_img *last = NULL;
    char method[32] = "";
    cJSON *finding = NULL;
    bool found = false;
    for (int i = 0;; i++) {
        pg_img *img = NULL;
        rc = pg_capture_window_img(c, i == 0, &w, NULL, &img, method, e);
        cJSON_Delete(finding);
        finding = NULL;
        if (!rc) rc = look(c, img, &found, &finding, e);
        pg_img_free(last);
        last = img;
        if (rc || found || now_s() - t0 + p.interval > p.timeout) break;
        sleep_s(p.interval);
    }
    if (rc) {
        pg_img_free(last);
        cJSON_Delete(finding);
        return rc;
    }
    cJSON *r = finding ? finding : cJSON_CreateObject();
    cJSON_AddNumberToObject(r, "elapsed_s", (int)((now_s() - t0) * 1000) / 1000.0);
    keep_frame(c, last, method, r);
    cJSON_AddItemToObject(r, "window", pg_window_json(&w));
    snprintf(c->audit.detail, sizeof c->audit.detail, "wait_for %s", found ? "found" : "timed out");
    if (found) {
        c->result = r;
        return PG_OK;
    }
    c->details = r;
    return pg_error_set(e, PG_E_TIMEOUT, "the token holds the last frame; raise --timeout or check the expectation",
                        "not found within %.1f s", p.timeout);
}
