/* SPDX-License-Identifier: MIT */
/* wait_stable and wait_for: poll live captures of one window until the
 * condition holds or the timeout passes (wait_for --appear / --gone poll
 * the window list instead, capturing nothing). The platform lock is held per
 * capture only, never across the sleep, so other clients keep working. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_disclose.h"
#include "pg_fingerprint.h"
#include "pg_call.h"
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

/* The last frame's fingerprint, for a caller who may have its pixels (the
 * policy's expose_pixels allow: pg_call_protected): the dHash the frames were
 * compared by, or with --exact (compared pixel for pixel, no dHash made) its
 * SHA-256, so the caller can match it to a later hash of the token. */
static void add_final_hash(const pg_stable_result *s, bool exact, cJSON *into) {
    char hex[65];
    pg_error ignored;
    uint8_t d[PG_SHA256_LEN];
    if (!exact) pg_fingerprint_dhash_hex(s->dhash, hex);
    else if (!s->last || pg_fingerprint_sha256(s->last, NULL, d, &ignored) != PG_OK) return;
    else pg_hex(d, sizeof d, hex);
    cJSON_AddStringToObject(into, s->stable ? "final_hash" : "last_hash", hex);
    cJSON_AddStringToObject(into, "algorithm", exact ? "sha256" : "dhash");
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
    o.exact = a->exact; /* else rendering noise within the dHash distance counts as still */
    pg_stable_result s;
    pg_err rc = pg_stable_capture(c, &t, a->has_region ? &a->region : NULL, &o, &s, e);
    if (rc) return rc;
    /* stable or not and after how many frames (7 bits); nothing more about
     * pixels the caller may not have. */
    if ((rc = pg_call_disclose(c, 8, e))) {
        pg_img_free(s.last);
        return rc;
    }
    cJSON *r = cJSON_CreateObject();
    cJSON_AddBoolToObject(r, "stable", s.stable);
    cJSON_AddNumberToObject(r, "frames_observed", (double)s.observed);
    if (!pg_call_protected(c)) add_final_hash(&s, a->exact, r);
    cJSON_AddNumberToObject(r, "elapsed_s", s.elapsed_s);
    keep_frame(c, s.last, s.method, r);
    cJSON_AddItemToObject(r, "window", pg_call_window_json(c, &s.window, NULL, 0));
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
    if (!rc && res.flat) { /* it can never appear: say so now rather than at the timeout */
        cJSON_Delete(*found_json);
        *found_json = NULL;
        return pg_error_set(e, PG_E_USAGE, "crop the template to include some detail",
                            "the template is a single flat colour: normalised correlation is undefined");
    }
    *found = !rc && res.found;
    if (*found) cJSON_AddItemReferenceToObject(*found_json, "match", cJSON_GetObjectItem(*found_json, "best"));
    return rc;
}

/* Is the target there now: listed and visible? NOT_FOUND is "not there";
 * several matches count as there (none of them has closed). */
static pg_err listed(pg_call *c, const pg_target *t, pg_window *w, bool *there, pg_error *e) {
    pg_err rc = pg_call_plat_read(c, e);
    if (rc) return rc;
    pg_error why;
    rc = pg_call_resolve_window(c, t, w, &why);
    pg_call_plat_done(c);
    bool several = rc == PG_E_USAGE && strstr(why.message, "windows match");
    if (several) { /* the candidates are not this answer's */
        cJSON_Delete(c->details);
        c->details = NULL;
        memset(w, 0, sizeof *w);
    }
    *there = (rc == PG_OK && w->visible) || several;
    if (rc == PG_OK || rc == PG_E_NOTFOUND || several) return PG_OK;
    *e = why;
    return rc;
}

/* --appear / --gone: poll the window list until the window is there (or
 * not), without capturing anything. */
static pg_err wait_presence(pg_call *c, const pg_args_wait_for *a, pg_error *e) {
    pg_target t = PG_TARGET_OF(a);
    double t0 = now_s();
    bool there = false;
    pg_window w;
    pg_err rc;
    c->audit.kind = "input"; /* no token: the window's metadata only */
    for (;;) {
        if ((rc = listed(c, &t, &w, &there, e))) return rc;
        if (there == a->appear || now_s() - t0 + a->interval > a->timeout) break;
        pg_sleep_ms(a->interval * 1000);
        if ((rc = pg_call_client_gone(c, e)) != PG_OK) return rc;
    }
    bool done = there == a->appear;
    if (there && w.id) pg_call_audit_window(c, &w);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddBoolToObject(r, a->appear ? "appeared" : "gone", done);
    cJSON_AddNumberToObject(r, "elapsed_s", (int)((now_s() - t0) * 1000) / 1000.0);
    if (there && w.id && a->appear) cJSON_AddItemToObject(r, "window", pg_call_window_json(c, &w, NULL, 0));
    snprintf(c->audit.detail, sizeof c->audit.detail, "wait_for %s %s", a->appear ? "appear" : "gone",
             done ? "done" : "timed out");
    if (done) {
        c->result = r;
        return PG_OK;
    }
    c->details = r;
    return pg_error_set(e, PG_E_TIMEOUT, "raise --timeout, or check the pattern with 'pixelgate windows'",
                        "the window %s within %.1f s", a->appear ? "did not appear" : "is still there", a->timeout);
}

/* The first capture, waiting (within the timeout) for a window that is not
 * listed yet: a dialog that is still being mapped. */
static pg_err first_frame(pg_call *c, const pg_target *t, const pg_args_wait_for *a, double t0, pg_window *w,
                          pg_img **img, char method[32], pg_error *e) {
    for (;;) {
        pg_err rc = pg_capture_window_img(c, t, w, NULL, img, method, e);
        if (rc != PG_E_NOTFOUND || now_s() - t0 + a->interval > a->timeout) return rc;
        pg_sleep_ms(a->interval * 1000);
        if ((rc = pg_call_client_gone(c, e)) != PG_OK) return rc;
    }
}

pg_err pg_op_wait_for(pg_call *c, const pg_args_wait_for *a, pg_error *e) {
    if (a->appear || a->gone) return wait_presence(c, a, e);
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
        rc = i == 0 ? first_frame(c, &t, a, t0, &w, &img, method, e)
                    : pg_capture_window_img(c, NULL, &w, NULL, &img, method, e);
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
    cJSON_AddItemToObject(r, "window", pg_call_window_json(c, &w, NULL, 0));
    snprintf(c->audit.detail, sizeof c->audit.detail, "wait_for %s", found ? "found" : "timed out");
    if (found) {
        c->result = r;
        return PG_OK;
    }
    c->details = r;
    return pg_error_set(e, PG_E_TIMEOUT, "the token holds the last frame; raise --timeout or check the expectation",
                        "not found within %.1f s", a->timeout);
}
