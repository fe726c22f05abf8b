/* snapshot: capture a window, a region of it, or the screen into the spool
 * and answer an opaque token. Pixels never leave the broker here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_disclose.h"
#include "pg_img.h"
#include "pg_log.h"
#include "pg_ops.h"
#include "pg_time.h"

/* Everything on screen as the backend lists it (list_all), for the blackout. */
typedef struct {
    pg_window *w;
    size_t n;
} win_list;

/* Fails closed: a list that cannot be read, or that the backend had to cut
 * (a window past its limit could be a denied one), refuses the capture. */
static pg_err list_for_redaction(pg_call *c, win_list *l, pg_error *e) {
    bool complete = false;
    pg_err rc = c->b->plat_ops->list_all(c->b->plat, &l->w, &l->n, &complete, e);
    if (rc)
        return pg_error_set(e, PG_E_INTERNAL, "retry; the display may be busy",
                            "screen capture refused: the window list could not be read to black out denied windows (%s)",
                            pg_err_name(rc));
    if (!complete)
        return pg_error_set(e, PG_E_INTERNAL, "close windows and retry",
                            "screen capture refused: the window list is incomplete (the backend stopped at its limit), "
                            "so a denied window could be missed");
    return PG_OK;
}

/* The window's outer bounds: the frame, and the content should a backend
 * report it outside the frame. */
static void outer(const pg_window *w, int64_t *x0, int64_t *y0, int64_t *x1, int64_t *y1) {
    *x0 = w->x, *y0 = w->y, *x1 = (int64_t)w->x + w->width, *y1 = (int64_t)w->y + w->height;
    if (!w->frame.w || !w->frame.h) return;
    int64_t fx1 = (int64_t)w->frame.x + w->frame.w, fy1 = (int64_t)w->frame.y + w->frame.h;
    if (w->frame.x < *x0) *x0 = w->frame.x;
    if (w->frame.y < *y0) *y0 = w->frame.y;
    if (fx1 > *x1) *x1 = fx1;
    if (fy1 > *y1) *y1 = fy1;
}

static bool overlap(const pg_window *a, const pg_window *b) {
    int64_t ax0, ay0, ax1, ay1, bx0, by0, bx1, by1;
    outer(a, &ax0, &ay0, &ax1, &ay1);
    outer(b, &bx0, &by0, &bx1, &by1);
    return ax0 < bx1 && bx0 < ax1 && ay0 < by1 && by0 < ay1;
}

/* Paints the window's outer bounds black, in the coordinates of the
 * capture's first pixel (the backend's origin: the clipped region, or a
 * negative virtual-screen origin), never the region the client asked for. */
static void black_out(pg_capture *cap, const pg_window *w) {
    int64_t x0, y0, x1, y1;
    outer(w, &x0, &y0, &x1, &y1);
    x0 -= cap->origin_x, x1 -= cap->origin_x, y0 -= cap->origin_y, y1 -= cap->origin_y;
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > cap->width) x1 = cap->width;
    if (y1 > cap->height) y1 = cap->height;
    for (int64_t y = y0; y < y1; y++) {
        uint8_t *row = cap->rgba + (size_t)y * cap->stride;
        for (int64_t x = x0; x < x1; x++) {
            row[4 * x] = row[4 * x + 1] = row[4 * x + 2] = 0;
            row[4 * x + 3] = 255;
        }
    }
}

/* Which windows of all[0..n) are a denied application's: denied itself
 * (the window-capture rule: a cut title counts as denied); a dialog or popup
 * whose parent is denied; or one with no parent (the backend could not say
 * whose it is) that overlaps a denied window or comes from the process of
 * one. all holds the lists from before and after the capture, so a window
 * counts as denied when it was in either. */
static void mark_denied(pg_call *c, const pg_window *all, size_t n, bool *self, bool *out) {
    for (size_t i = 0; i < n; i++) {
        pg_error ignored;
        out[i] = self[i] = pg_capture_check_allowed(c, &all[i], &ignored) != PG_OK;
    }
    for (size_t i = 0; i < n; i++) {
        if (out[i] || all[i].kind == PG_WINDOW_NORMAL) continue;
        for (size_t j = 0; j < n && !out[i]; j++) {
            if (!self[j]) continue;
            if (all[i].parent) out[i] = all[j].id == all[i].parent;
            else out[i] = (all[j].visible && overlap(&all[i], &all[j])) || (all[i].pid >= 0 && all[i].pid == all[j].pid);
        }
    }
}

/* Blacks out every visible window of a denied application (mark_denied) in
 * both lists, where each list saw it: a window that moved or appeared while
 * the pixels were read is covered wherever the pixels can show it. Returns
 * how many distinct windows were blacked out. Caller holds the platform lock. */
static unsigned redact_denied(pg_call *c, pg_capture *cap, const win_list *before, const win_list *after,
                              pg_error *e, pg_err *rc) {
    size_t n = before->n + after->n;
    pg_window *all = malloc((n ? n : 1) * sizeof *all);
    bool *self = calloc(n ? n : 1, sizeof *self), *denied = calloc(n ? n : 1, sizeof *denied);
    unsigned hits = 0;
    *rc = all && self && denied ? PG_OK : pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    if (!*rc) {
        memcpy(all, before->w, before->n * sizeof *all);
        memcpy(all + before->n, after->w, after->n * sizeof *all);
        mark_denied(c, all, n, self, denied);
        for (size_t i = 0; i < n; i++) {
            if (!denied[i] || !all[i].visible) continue;
            black_out(cap, &all[i]);
            bool seen = false; /* one window in both lists counts once */
            for (size_t j = 0; j < i && !seen; j++) seen = denied[j] && all[j].visible && all[j].id == all[i].id;
            hits += !seen;
        }
    }
    free(all), free(self), free(denied);
    return hits;
}

/* A screen capture between two window lists, with everything of a denied
 * application blacked out; refused (nothing kept) when either list fails. */
static pg_err capture_screen_redacted(pg_call *c, const pg_rect *region, pg_capture *cap, unsigned *redacted,
                                      pg_error *e) {
    win_list before = {0}, after = {0};
    pg_err rc = list_for_redaction(c, &before, e);
    if (!rc) rc = c->b->plat_ops->capture_screen(c->b->plat, region, cap, e);
    if (!rc) rc = list_for_redaction(c, &after, e);
    if (!rc) *redacted = redact_denied(c, cap, &before, &after, e, &rc);
    if (rc) {
        free(cap->rgba);
        cap->rgba = NULL;
    }
    free(before.w);
    free(after.w);
    return rc;
}

/* Captures under the platform lock; fills cap, w (window case), settled and
 * the number of denied windows blacked out of a screen capture. */
static pg_err capture(pg_call *c, const pg_args_snapshot *a, pg_capture *cap, pg_window *w, cJSON **settled,
                      unsigned *redacted, pg_error *e) {
    pg_err rc = pg_broker_plat_lock(c->b, e);
    if (rc) return rc;
    const pg_platform_ops *ops = c->b->plat_ops;
    const pg_rect *region = a->has_region ? &a->region : NULL;
    if (a->screen) {
        rc = capture_screen_redacted(c, region, cap, redacted, e);
    } else {
        pg_target t = PG_TARGET_OF(a);
        rc = pg_call_resolve_window(c, &t, w, e);
        if (!rc) pg_call_audit_window(c, w);
        if (!rc) rc = pg_capture_check_allowed(c, w, e);
        if (!rc && a->settle) {
            /* Repaint lag after input: wait for quiet, but a busy window still gets captured. */
            pg_error se;
            pg_err sr = ops->settle(c->b->plat, w->id, c->b->settle_quiet_ms, c->b->settle_timeout_ms, &se);
            *settled = sr == PG_OK ? cJSON_CreateTrue() : sr == PG_E_TIMEOUT ? cJSON_CreateFalse() : cJSON_CreateNull();
        }
        if (!rc) rc = pg_capture_checked(c, w, region, cap, e); /* the deny rules again, after the settle */
    }
    pg_broker_plat_unlock(c->b);
    return rc;
}

/* Source, window and region of a capture; owner and size are the store's. */
static void fill_meta(pg_tok_meta *m, const pg_args_snapshot *a, const pg_window *w, const pg_capture *cap) {
    memset(m, 0, sizeof *m);
    m->source_width = cap->width;
    m->source_height = cap->height;
    memcpy(m->method, cap->method, sizeof m->method);
    m->screen = a->screen;
    if (a->screen) snprintf(m->source, sizeof m->source, "screen");
    else snprintf(m->source, sizeof m->source, "window:%llu", (unsigned long long)w->id);
    if (!a->screen) {
        m->window_id = w->id;
        pg_copy_utf8(m->window_title, sizeof m->window_title, w->title);
        pg_copy_utf8(m->window_class, sizeof m->window_class, w->class_name);
    }
    if (a->has_region) { /* where the clipped capture starts: screen, or window-relative */
        m->region_x = a->screen ? cap->origin_x : cap->origin_x - w->x;
        m->region_y = a->screen ? cap->origin_y : cap->origin_y - w->y;
        m->region_w = cap->width;
        m->region_h = cap->height;
    }
}

/* The capture as an image, downscaled to fit max_size when asked. */
static pg_err to_image(const pg_args_snapshot *a, pg_capture *cap, pg_img **out, pg_error *e) {
    pg_img *img = NULL;
    pg_err rc = pg_img_wrap(&img, cap->rgba, cap->width, cap->height, cap->stride, e);
    if (rc) {
        free(cap->rgba);
        return rc;
    }
    if (a->has_max_size && (img->width > a->max_size.w || img->height > a->max_size.h)) {
        pg_img *small = NULL;
        rc = pg_img_downscale_fit(img, a->max_size.w, a->max_size.h, &small, e);
        pg_img_free(img);
        img = small;
    }
    *out = img;
    return rc;
}

pg_err pg_op_snapshot(pg_call *c, const pg_args_snapshot *a, pg_error *e) {
    double t0 = pg_mono_ms();
    pg_capture cap = {0};
    pg_window w = {0};
    cJSON *settled = NULL;
    unsigned redacted = 0;
    pg_err rc = capture(c, a, &cap, &w, &settled, &redacted, e);
    double t1 = pg_mono_ms();
    pg_img *img = NULL;
    if (!rc) rc = to_image(a, &cap, &img, e);
    pg_tok_meta m;
    double t2 = pg_mono_ms();
    if (!rc) {
        fill_meta(&m, a, &w, &cap);
        if (pg_disclose_protected(c->view)) pg_call_source(c, m.source);
        rc = pg_call_disclose(c, 1, e); /* its keyed digest: equal or not to another capture's */
        if (rc) pg_img_free(img);
    }
    if (!rc) rc = pg_call_store_image(c, img, &m, e);
    if (rc) {
        cJSON_Delete(settled);
        return rc;
    }
    pg_log(PG_LOG_DEBUG, "snapshot %ux%u via %s: capture %.2f ms, scale/pack %.2f ms, store %.2f ms", m.width,
           m.height, m.method, t1 - t0, t2 - t1, pg_mono_ms() - t2);
    memcpy(c->created_token, m.token, sizeof c->created_token);
    c->audit.kind = "token";
    memcpy(c->audit.token, m.token, sizeof c->audit.token);
    memcpy(c->audit.image_sha256, m.sha256, sizeof c->audit.image_sha256);
    snprintf(c->audit.detail, sizeof c->audit.detail, "%s %ux%u via %s%s", a->screen ? "screen" : "window", m.width,
             m.height, m.method, redacted ? ", denied windows blacked out" : "");
    cJSON *r = pg_tok_meta_json(c, &m);
    if (!a->screen) cJSON_ReplaceItemInObject(r, "window", pg_window_json(&w));
    cJSON_AddItemToObject(r, "settled", settled ? settled : cJSON_CreateNull());
    if (a->screen) cJSON_AddNumberToObject(r, "redacted_windows", redacted);
    c->result = r;
    return PG_OK;
}
