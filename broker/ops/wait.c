/* wait_stable and wait_for: poll live captures of one window until the
 * condition holds or the timeout passes. The platform lock is held per
 * capture only, never across the sleep, so other clients keep working. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_disclose.h"
#include "pg_fingerprint.h"
#include "pg_ops.h"
#include "pg_time.h"

static double now_s(void) { return pg_mono_ms() / 1000.0; }

/* Keeps the last frame as a token (into[field]) for evidence. */
static void keep_frame(pg_call *c, pg_img *img, const char *method, cJSON *into) {
    pg_error ignored;
    if (img && pg_call_derived_token(c, img, method, into, "token", &ignored) == PG_OK) {
        const cJSON *t = cJSON_GetObjectItem(into, "token");
        snprintf(c->audit.token, sizeof c->audit.token, "%s", t->valuestring);
        memcpy(c->created_token, c->audit.token, sizeof c->created_token);
    }
}

/* "responding": true/false, or null when it cannot be asked. */
static void add_responding(pg_call *c, const pg_window *w, cJSON *into) {
    pg_responding resp = PG_RESPONDING_UNKNOWN;
    pg_error ignored;
    if (pg_call_plat_read(c, &ignored) == PG_OK) {
        pg_broker_responding(c->b, c->plat, w, 500, &resp, &ignored);
        pg_call_plat_done(c);
    }
    if (resp == PG_RESPONDING_UNKNOWN) cJSON_AddNullToObject(into, "responding");
    else cJSON_AddBoolToObject(into, "responding", resp == PG_RESPONDING_YES);
}

pg_err pg_op_wait_stable(pg_call *c, const pg_args_wait_stable *a, pg_error *e) {
    c->audit.kind = "token";
    pg_target t = PG_TARGET_OF(a);
    if (a->has_region && pg_disclose_protected(c->view) && (uint64_t)a->region.w * a->region.h < c->view->min_area)
        return pg_disclose_area(c->view, (uint64_t)a->region.w * a->region.h, "watching a region", e);
    pg_stable_opts o;
    pg_stable_opts_init(&o);
    o.frames = a->frames;
    o.interval_s = a->interval;
    o.timeout_s = a->timeout;
    o.exact = false; /* rendering noise within the dHash distance counts as still */
    pg_stable_result s;
    pg_err rc = pg_stable_capture(c, &t, a->has_region ? &a->region : NULL, &o, &s, e);
    if (rc) return rc;
    /* stable or not and after how many frames (7 bits); the frame's dhash only
     * where the pixels are the caller's (64 bits more). */
    bool coarse = pg_call_protected(c);
    if ((rc = pg_call_disclose(c, 8, e))) {
        pg_img_free(s.last);
        return rc;
    }
    char hex[17];
    pg_fingerprint_dhash_hex(s.dhash, hex);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddBoolToObject(r, "stable", s.stable);
    cJSON_AddNumberToObject(r, "frames_observed", (double)s.observed);
    if (!coarse) cJSON_AddStringToObject(r, s.stable ? "final_hash" : "last_hash", hex);
    cJSON_AddNumberToObject(r, "elapsed_s", s.elapsed_s);
    keep_frame(c, s.last, s.method, r);
    cJSON_AddItemToObject(r, "window", pg_call_window_json(&s.window));
    add_responding(c, &s.window, r); /* a frozen program's window is "stable" too: say which it is */
    snprintf(c->audit.detail, sizeof c->audit.detail, "wait_stable %s after %lld frames",
             s.stable ? "stable" : "timed out", (long long)s.observed);
    if (s.stable) {
        c->result = r;
        return PG_OK;
    }
    c->details = r;
    return pg_error_set(e, PG_E_TIMEOUT, "the window keeps repainting: raise --timeout or watch a --region",
                        "not stable after %.1f s (%lld frames)", a->timeout, (long long)s.observed);
}

/* Looks for the text or template in img; *found_json gets the finding. */
static pg_err look(pg_call *c, const pg_args_wait_for *a, const pg_img *img, bool *found, cJSON **found_json,
                   pg_error *e) {
    if (a->text) {
        pg_err rc = pg_find_text(c, img, NULL, a->text, false, NULL, found_json, e);
        *found = !rc && cJSON_IsTrue(cJSON_GetObjectItem(*found_json, "found"));
        return rc;
    }
    pg_template_result res;
    pg_err rc = pg_find_template(c, img, &a->template, a->threshold, false, NULL, &res, found_json, e);
    *found = !rc && res.found;
    if (*found) cJSON_AddItemReferenceToObject(*found_json, "match", cJSON_GetObjectItem(*found_json, "best"));
    return rc;
}

pg_err pg_op_wait_for(pg_call *c, const pg_args_wait_for *a, pg_error *e) {
    c->audit.kind = "token";
    pg_target t = PG_TARGET_OF(a);
    double t0 = now_s();
    pg_window w;
    pg_img *last = NULL;
    char method[32] = "";
    cJSON *finding = NULL;
    bool found = false;
    pg_err rc;
    for (int i = 0;; i++) {
        pg_img *img = NULL;
        rc = pg_capture_window_img(c, i == 0 ? &t : NULL, &w, NULL, &img, method, e);
        cJSON_Delete(finding);
        finding = NULL;
        if (!rc) rc = look(c, a, img, &found, &finding, e);
        pg_img_free(last);
        last = img;
        if (rc || found || now_s() - t0 + a->interval > a->timeout) break;
        pg_sleep_ms(a->interval * 1000);
        if ((rc = pg_call_client_gone(c, e)) != PG_OK) break;
    }
    if (rc) {
        pg_img_free(last);
        cJSON_Delete(finding);
        return rc;
    }
    cJSON *r = finding ? finding : cJSON_CreateObject();
    cJSON_AddNumberToObject(r, "elapsed_s", (int)((now_s() - t0) * 1000) / 1000.0);
    keep_frame(c, last, method, r);
    cJSON_AddItemToObject(r, "window", pg_call_window_json(&w));
    snprintf(c->audit.detail, sizeof c->audit.detail, "wait_for %s", found ? "found" : "timed out");
    if (found) {
        c->result = r;
        return PG_OK;
    }
    c->details = r;
    return pg_error_set(e, PG_E_TIMEOUT, "the token holds the last frame; raise --timeout or check the expectation",
                        "not found within %.1f s", a->timeout);
}
