/* SPDX-License-Identifier: MIT */
/* pg_guard.c - --if-unchanged (pg_guard.h): the token's pixels around the
 * target, their place on the screen now, the verdict's charge, and the
 * backend's guard_begin / guard_end around the one input call. */
#include "pg_guard.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_crypto.h"

pg_err pg_guard_need_token(bool if_unchanged, const char *token, pg_error *e) {
    if (!if_unchanged || token) return PG_OK;
    return pg_error_set(e, PG_E_USAGE, "aim with --in TOKEN (and --at X,Y or --control N): the check compares with it",
                        "--if-unchanged needs --in TOKEN: it checks the target still looks as it did in that snapshot");
}

double pg_guard_bits(void) {
    double bits = 0;
    pg_disclose_flag(&bits);
    (void)pg_disclose_step(0, 0, PG_GUARD_TOLERANCE, PG_GUARD_STEP, &bits);
    return bits;
}

static pg_err need_backend(pg_call *c, pg_error *e) {
    if (c->b->plat_ops->guard_begin && c->b->plat_ops->guard_end) return PG_OK;
    return pg_error_set(e, PG_E_UNSUPPORTED, "send the input without --if-unchanged, after a fresh look",
                        "this display backend (%s) cannot hold the display still while it checks the target",
                        c->b->plat_ops->name);
}

/* The token must be a full-resolution picture of w: a downscaled one would
 * need the live pixels scaled the same way, and a scaled box blurs exactly
 * the small changes (a swapped label) the check is for. */
static pg_err token_fits(const pg_tok_meta *m, const char *label, const pg_window *w, pg_error *e) {
    if (m->screen || m->window_id != w->id || m->frames > 1)
        return pg_error_set(e, PG_E_USAGE, "aim with a snapshot of the target window itself",
                            "--if-unchanged: %s is not a snapshot of window %llu", label, (unsigned long long)w->id);
    if (m->width != m->source_width || m->height != m->source_height)
        return pg_error_set(e, PG_E_USAGE, "take the snapshot without downscaling (or of a smaller --region) and aim in it",
                            "--if-unchanged compares at full resolution: %s was downscaled from %ux%u to %ux%u",
                            label, m->source_width, m->source_height, m->width, m->height);
    return PG_OK;
}

/* The box around token pixel (tx,ty), clipped to the token. */
static pg_img_rect box_around(int64_t tx, int64_t ty, uint32_t w, uint32_t h) {
    int64_t x0 = tx - PG_GUARD_BOX / 2, y0 = ty - PG_GUARD_BOX / 2;
    int64_t x1 = x0 + PG_GUARD_BOX, y1 = y0 + PG_GUARD_BOX;
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > w) x1 = w;
    if (y1 > h) y1 = h;
    return (pg_img_rect){(uint32_t)x0, (uint32_t)y0, (uint32_t)(x1 - x0), (uint32_t)(y1 - y0)};
}

static pg_err copy_ref(const pg_img *img, pg_img_rect b, pg_guard_check *k, pg_error *e) {
    k->ref = malloc((size_t)b.w * b.h * 4);
    if (!k->ref) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    for (uint32_t y = 0; y < b.h; y++)
        memcpy(k->ref + (size_t)y * b.w * 4, img->px + (size_t)(b.y + y) * img->stride + (size_t)b.x * 4,
               (size_t)b.w * 4);
    return PG_OK;
}

/* What the verdict is charged to, for pixels the caller may not have: the
 * token's tiles in the box and the live pixels there now, read just before,
 * appended to the request's tiles from index first on (reading the token
 * noted all of its tiles there: the answer is about the box only, so they
 * are cut off again). *live_sha gets the live pixels' SHA-256 (zero when
 * not protected). */
static pg_err note_tiles(pg_call *c, size_t first, const pg_img *img, const pg_tok_meta *m, pg_img_rect b,
                         const pg_window *w, const pg_rect *in_window, uint8_t live_sha[PG_SHA256_LEN], pg_error *e) {
    memset(live_sha, 0, PG_SHA256_LEN);
    if (!pg_disclose_protected(c->view)) return PG_OK;
    if (c->n_tiles > first) c->n_tiles = first;
    pg_disclose_origin o;
    pg_call_tiles(c, img, &b, pg_call_tiles_origin(m, &o) ? &o : NULL);
    pg_window now = *w;
    pg_capture live;
    pg_err rc = pg_capture_checked(c, &now, in_window, &live, e); /* notes the window's tiles there */
    pg_sha256_ctx *h = NULL;
    if (!rc) rc = pg_sha256_new(&h, e);
    for (uint32_t y = 0; !rc && y < live.height; y++)
        rc = pg_sha256_update(h, live.rgba + (size_t)y * live.stride, (size_t)live.width * 4, e);
    if (!rc) rc = pg_sha256_final(h, live_sha, e), h = NULL;
    pg_sha256_free(h);
    free(live.rgba);
    return rc;
}

/* The question a verdict answers: the operation, where, and the live
 * pixels it meets. Unlike pg_call_disclose's (the arguments alone), the
 * same arguments over live pixels that changed are a new question: an
 * agent that repaints its own window between two guarded inputs pays for
 * each verdict, on the token's tiles too. */
static pg_err question(pg_call *c, const pg_guard_check *k, const uint8_t live_sha[PG_SHA256_LEN], uint64_t *q,
                       pg_error *e) {
    pg_sha256_ctx *h = NULL;
    const char *op = c->req ? c->req->op : "";
    int32_t where[6] = {k->at.x, k->at.y, k->box.x, k->box.y, (int32_t)k->box.w, (int32_t)k->box.h};
    pg_err rc = pg_sha256_new(&h, e);
    if (!rc) rc = pg_sha256_update(h, "if-unchanged", 13, e);
    if (!rc) rc = pg_sha256_update(h, op, strlen(op) + 1, e);
    if (!rc) rc = pg_sha256_update(h, where, sizeof where, e);
    if (!rc) rc = pg_sha256_update(h, live_sha, PG_SHA256_LEN, e);
    uint8_t md[PG_SHA256_LEN];
    if (!rc) rc = pg_sha256_final(h, md, e), h = NULL;
    pg_sha256_free(h);
    if (!rc) memcpy(q, md, sizeof *q);
    return rc;
}

/* Charged before the question is asked (the input itself is the answer),
 * whatever the answer will be. A refusal says the balance, as every
 * disclosure refusal does. */
static pg_err charge(pg_call *c, size_t first, const pg_guard_check *k, const uint8_t live_sha[PG_SHA256_LEN],
                     pg_error *e) {
    if (!pg_call_protected(c)) return PG_OK;
    if (c->tiles_failed)
        return pg_error_set(e, PG_E_INTERNAL, "retry", "the disclosure ledger could not key these pixels: refused");
    uint64_t q = 0;
    pg_err rc = question(c, k, live_sha, &q, e);
    pg_disclose_receipt r;
    size_t n = c->n_tiles > first ? c->n_tiles - first : 0;
    if (!rc)
        rc = pg_disclose_charge(c->b->disclose, c->view, (uint32_t)c->peer->uid, n ? c->tiles + first : NULL, n, q,
                                pg_guard_bits(), &r, e);
    if (!rc) c->bits += r.charged;
    if (rc == PG_E_POLICY && !c->details) {
        c->details = cJSON_CreateObject();
        cJSON_AddNumberToObject(c->details, "disclosure_balance_bits", r.balance);
        if (r.retry_s >= 0) cJSON_AddNumberToObject(c->details, "retry_after_s", r.retry_s);
    }
    return rc;
}

/* Where the check looks, on the screen as it is now: the window's content
 * origin plus the crop's offset plus the box. */
static void place(pg_guard_check *k, const pg_window *w, const pg_tok_meta *m, pg_img_rect b, int64_t x, int64_t y) {
    k->box = (pg_rect){m->region_x + (int32_t)b.x, m->region_y + (int32_t)b.y, b.w, b.h};
    k->at = (pg_point){(int32_t)x, (int32_t)y};
    k->g.window = w->id;
    k->g.point = (pg_point){w->x + (int32_t)x, w->y + (int32_t)y};
    k->g.rect = (pg_rect){w->x + k->box.x, w->y + k->box.y, b.w, b.h};
    k->g.ref = k->ref;
    k->g.tolerance = PG_GUARD_TOLERANCE;
    k->g.difference = -1; /* not compared (yet) */
}

pg_err pg_guard_prepare(pg_call *c, const char *token, const pg_window *w, int64_t x, int64_t y, pg_guard_check *k,
                        pg_error *e) {
    memset(k, 0, sizeof *k);
    pg_err rc = need_backend(c, e);
    pg_img *img = NULL;
    pg_tok_meta m;
    memset(&m, 0, sizeof m);
    size_t first = c->n_tiles; /* the tiles this answer is about start here */
    if (!rc) rc = pg_call_token_image(c, token, &img, k->label, &m, e);
    if (!rc) rc = token_fits(&m, k->label, w, e);
    int64_t tx = x - m.region_x, ty = y - m.region_y; /* full resolution: token pixels are the window's */
    if (!rc && (tx < 0 || ty < 0 || tx >= m.width || ty >= m.height))
        rc = pg_error_set(e, PG_E_BADINPUT, "aim at a point the snapshot shows",
                          "--if-unchanged: point %lld,%lld of the window is outside %s", (long long)x, (long long)y,
                          k->label);
    pg_img_rect b = {0};
    if (!rc) b = box_around(tx, ty, m.width, m.height), rc = copy_ref(img, b, k, e);
    if (!rc) place(k, w, &m, b, x, y);
    uint8_t live_sha[PG_SHA256_LEN];
    if (!rc) rc = note_tiles(c, first, img, &m, b, w, &k->box, live_sha, e);
    pg_img_free(img);
    if (!rc) rc = charge(c, first, k, live_sha, e);
    if (rc) {
        pg_guard_fini(k);
        return rc;
    }
    k->on = true;
    return PG_OK;
}

/* Appends to the audit record's detail what the check said. */
static void audit_says(pg_call *c, const char *what) {
    size_t used = strlen(c->audit.detail);
    snprintf(c->audit.detail + used, sizeof c->audit.detail - used, ", if-unchanged %s", what);
}

/* "region": the box checked, in the window's coordinates. */
static void region_into(const pg_guard_check *k, cJSON *u) {
    cJSON *g = cJSON_AddObjectToObject(u, "region");
    cJSON_AddNumberToObject(g, "x", k->box.x);
    cJSON_AddNumberToObject(g, "y", k->box.y);
    cJSON_AddNumberToObject(g, "w", k->box.w);
    cJSON_AddNumberToObject(g, "h", k->box.h);
}

static pg_err refused(pg_call *c, pg_guard_check *k, pg_err rc, const pg_error *why, pg_error *e) {
    audit_says(c, rc == PG_E_TARGET_CHANGED ? "refused: the target changed" : "could not check");
    if (rc != PG_E_TARGET_CHANGED) {
        *e = *why;
        return rc;
    }
    /* Told apart by whether the pixels were compared: never the difference
     * itself, which the charge did not pay for. */
    bool covered = k->g.difference < 0;
    if (!c->details) c->details = cJSON_CreateObject();
    cJSON *u = cJSON_AddObjectToObject(c->details, "unchanged");
    region_into(k, u);
    cJSON_AddNumberToObject(u, "tolerance", k->g.tolerance);
    cJSON_AddBoolToObject(u, "passed", false);
    if (covered)
        return pg_error_set(e, PG_E_TARGET_CHANGED, "look again (a fresh snapshot) before you act",
                            "the target changed since %s: another window is on top at %d,%d of the window now",
                            k->label, k->at.x, k->at.y);
    return pg_error_set(e, PG_E_TARGET_CHANGED, "look again (a fresh snapshot) before you act",
                        "the target changed since %s: the %ux%u region at %d,%d of the window differs by more than "
                        "%.0f/255",
                        k->label, k->box.w, k->box.h, k->box.x, k->box.y, k->g.tolerance);
}

pg_err pg_guard_begin(pg_call *c, pg_guard_check *k, pg_error *e) {
    if (!k || !k->on) return PG_OK;
    pg_error why;
    pg_err rc = c->b->plat_ops->guard_begin(c->plat, &k->g, &why);
    if (rc) return refused(c, k, rc, &why, e);
    k->passed = k->held = true;
    char said[64];
    snprintf(said, sizeof said, "passed (difference %.0f/255)",
             pg_disclose_step(k->g.difference, 0, k->g.tolerance, PG_GUARD_STEP, &(double){0}));
    audit_says(c, said);
    return PG_OK;
}

void pg_guard_end(pg_call *c, pg_guard_check *k) {
    if (!k || !k->held) return;
    k->held = false;
    c->b->plat_ops->guard_end(c->plat);
}

void pg_guard_report(const pg_guard_check *k, cJSON *r) {
    if (!k || !k->on || !k->passed) return;
    cJSON *u = cJSON_AddObjectToObject(r, "unchanged");
    region_into(k, u);
    double bits = 0;
    cJSON_AddNumberToObject(u, "difference", pg_disclose_step(k->g.difference, 0, k->g.tolerance, PG_GUARD_STEP, &bits));
    cJSON_AddNumberToObject(u, "tolerance", k->g.tolerance);
}

void pg_guard_fini(pg_guard_check *k) {
    if (!k) return;
    free(k->ref);
    k->ref = NULL;
    k->g.ref = NULL;
    k->on = false;
}
