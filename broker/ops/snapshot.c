/* SPDX-License-Identifier: MIT */
/* snapshot: capture a window, a region of it, or the screen into the spool
 * and answer an opaque token. Pixels never leave the broker here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_disclose.h"
#include "pg_img.h"
#include "pg_log.h"
#include "pg_call.h"
#include "pg_time.h"

/* --screen, or one monitor of it (--output NAME): a screen capture either way. */
#define IS_SCREEN(a) ((a)->screen || (a)->output)

/* The rectangle of monitor name (region, if any, inside it: monitor
 * coordinates), or NOT_FOUND naming the monitors there are. */
static pg_err output_rect(pg_call *c, const char *name, const pg_rect *region, pg_rect *out, pg_error *e) {
    pg_monitor *m = NULL;
    size_t n = 0;
    pg_err rc = c->b->plat_ops->monitors ? c->b->plat_ops->monitors(c->plat, &m, &n, e)
                                         : pg_error_set(e, PG_E_UNSUPPORTED, NULL, "this backend lists no monitors");
    if (rc) return rc;
    char names[256] = "";
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(m[i].name, name)) {
            *out = m[i].r;
            if (region) { /* a rectangle of the monitor, clipped by the screen capture */
                *out = (pg_rect){m[i].r.x + region->x, m[i].r.y + region->y, region->w, region->h};
                if (region->x < 0 || region->y < 0 || (uint64_t)region->x + region->w > m[i].r.w ||
                    (uint64_t)region->y + region->h > m[i].r.h)
                    rc = pg_error_set(e, PG_E_BADINPUT, "with --output, --region is relative to the monitor",
                                      "region %d,%d,%u,%u is outside monitor %s (%ux%u)", region->x, region->y,
                                      region->w, region->h, name, m[i].r.w, m[i].r.h);
            }
            free(m);
            return rc;
        }
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", m[i].name);
    }
    free(m);
    return pg_error_set(e, PG_E_NOTFOUND, "list them with 'pixelgate screens'", "no monitor \"%.64s\" (there are: %s)",
                        name, names);
}

/* Captures under the platform lock; fills cap, w (window case), settled and
 * the number of denied windows blacked out of a screen capture. */
static pg_err capture(pg_call *c, const pg_args_snapshot *a, pg_capture *cap, pg_window *w, cJSON **settled,
                      double *settle_ms, unsigned *redacted, cJSON **popups, pg_error *e) {
    if (a->with_popups && (IS_SCREEN(a) || a->has_region))
        return pg_error_set(e, PG_E_USAGE, "--with-popups takes the whole window (and --max-size)",
                            "--with-popups goes with a window, without --region");
    pg_err rc = pg_call_plat_read(c, e);
    if (rc) return rc;
    const pg_platform_ops *ops = c->b->plat_ops;
    const pg_rect *region = a->has_region ? &a->region : NULL;
    pg_rect mon;
    if (a->output) {
        rc = output_rect(c, a->output, region, &mon, e);
        if (!rc) rc = pg_capture_screen_locked(c, &mon, cap, redacted, e);
    } else if (a->screen) {
        rc = pg_capture_screen_locked(c, region, cap, redacted, e);
    } else {
        pg_target t = PG_TARGET_OF(a);
        rc = pg_call_resolve_window(c, &t, w, e);
        if (!rc) pg_call_audit_window(c, w);
        if (!rc) rc = pg_capture_check_allowed(c, w, e);
        if (!rc && a->settle) {
            /* Repaint lag after input: wait for quiet, but a busy window still gets captured. */
            pg_error se;
            double t0 = pg_mono_ms();
            pg_err sr = ops->settle(c->plat, w->id, c->b->settle_quiet_ms, c->b->settle_timeout_ms, &se);
            *settle_ms = pg_mono_ms() - t0; /* 0 for a window the backend saw quiet for the interval already */
            *settled = sr == PG_OK ? cJSON_CreateTrue() : sr == PG_E_TIMEOUT ? cJSON_CreateFalse() : cJSON_CreateNull();
            if (*settle_ms >= 1) rc = pg_capture_refresh(c, w, e); /* it waited: the window may have changed */
        }
        if (!rc && a->with_popups) rc = pg_capture_with_popups(c, w, cap, popups, e);
        else if (!rc) rc = pg_capture_checked(c, w, region, cap, e); /* the deny rules again, after the settle */
    }
    pg_call_plat_done(c);
    return rc;
}

/* Source, window and region of a capture; owner and size are the store's. */
static void fill_meta(pg_tok_meta *m, const pg_args_snapshot *a, const pg_window *w, const pg_capture *cap) {
    memset(m, 0, sizeof *m);
    m->source_width = cap->width;
    m->source_height = cap->height;
    memcpy(m->method, cap->method, sizeof m->method);
    m->screen = IS_SCREEN(a);
    if (IS_SCREEN(a)) snprintf(m->source, sizeof m->source, "screen");
    else snprintf(m->source, sizeof m->source, "window:%llu", (unsigned long long)w->id);
    if (!IS_SCREEN(a)) {
        pg_call_meta_window(m, w);
    }
    if (a->has_region || a->with_popups) { /* where the capture starts: screen, or window-relative */
        m->region_x = IS_SCREEN(a) ? cap->origin_x : cap->origin_x - w->x;
        m->region_y = IS_SCREEN(a) ? cap->origin_y : cap->origin_y - w->y;
        m->region_w = cap->width;
        m->region_h = cap->height;
    }
}

/* The capture as an image, downscaled to fit max_size when asked (then the
 * backend's digest no longer fits it). */
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
        cap->has_sha256 = false; /* other pixels than the backend hashed */
    }
    *out = img;
    return rc;
}

pg_err pg_op_snapshot(pg_call *c, const pg_args_snapshot *a, pg_error *e) {
    double t0 = pg_mono_ms();
    pg_capture cap = {0};
    pg_window w = {0};
    cJSON *settled = NULL;
    double settle_ms = -1;
    unsigned redacted = 0;
    cJSON *popups = NULL;
    pg_err rc = capture(c, a, &cap, &w, &settled, &settle_ms, &redacted, &popups, e);
    double t1 = pg_mono_ms();
    pg_img *img = NULL;
    if (!rc) rc = to_image(a, &cap, &img, e);
    pg_tok_meta m;
    double t2 = pg_mono_ms();
    if (!rc) {
        fill_meta(&m, a, &w, &cap);
        if (pg_disclose_protected(c->view)) pg_call_source(c, m.source);
        pg_disclose_origin o; /* the stored pixels, as later answers about the token read them */
        pg_call_tiles(c, img, NULL, pg_call_tiles_origin(&m, &o) ? &o : NULL);
        rc = pg_call_disclose(c, 1, e); /* its keyed digest: equal or not to another capture's */
        if (rc) pg_img_free(img);
    }
    if (!rc) rc = pg_call_store_hashed(c, img, cap.has_sha256 ? cap.sha256 : NULL, &m, e);
    if (rc) {
        cJSON_Delete(settled);
        cJSON_Delete(popups);
        return rc;
    }
    pg_log(PG_LOG_DEBUG, "snapshot %ux%u via %s: capture %.2f ms, scale/pack %.2f ms, store %.2f ms", m.width,
           m.height, m.method, t1 - t0, t2 - t1, pg_mono_ms() - t2);
    memcpy(c->created_token, m.token, sizeof c->created_token);
    c->audit.kind = "token";
    memcpy(c->audit.token, m.token, sizeof c->audit.token);
    memcpy(c->audit.image_sha256, m.sha256, sizeof c->audit.image_sha256);
    snprintf(c->audit.detail, sizeof c->audit.detail, "%s %ux%u via %s%s", IS_SCREEN(a) ? "screen" : "window", m.width,
             m.height, m.method,
             redacted ? ", denied windows blacked out" : popups ? ", with its popups" : "");
    cJSON *r = pg_call_token_json(c, &m);
    if (!IS_SCREEN(a)) cJSON_ReplaceItemInObject(r, "window", pg_call_window_json(c, &w, NULL, 0));
    cJSON_AddItemToObject(r, "settled", settled ? settled : cJSON_CreateNull());
    if (settle_ms >= 0) cJSON_AddNumberToObject(r, "settle_ms", (double)(int64_t)(settle_ms * 10 + 0.5) / 10);
    cJSON_AddStringToObject(r, "via", pg_call_display_source(c));
    if (IS_SCREEN(a)) cJSON_AddNumberToObject(r, "redacted_windows", redacted);
    if (popups) { /* where the image's pixels sit: its top-left, window-relative, and each popup in it */
        cJSON_AddItemToObject(r, "popups", popups);
        cJSON *o = cJSON_AddObjectToObject(r, "origin");
        cJSON_AddNumberToObject(o, "x", m.region_x);
        cJSON_AddNumberToObject(o, "y", m.region_y);
    }
    c->result = r;
    return PG_OK;
}
