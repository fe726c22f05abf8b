/* Live pixels of a known window, under the policy's deny rules. The
 * platform lock is the caller's (pg_capture_img_locked) or taken here for
 * one capture (pg_capture_window_img), never across a sleep. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_disclose.h"
#include "pg_ops.h"

pg_err pg_capture_check_allowed(pg_call *c, const pg_window *w, pg_error *e) {
    char pattern[256];
    /* A title the backend had to cut might have matched an anchored deny pattern: fail closed. */
    if (!w->title_cut &&
        !pg_policy_capture_denied(c->view, w->title, w->class_name, w->instance, pattern, sizeof pattern))
        return PG_OK;
    return pg_error_set(e, PG_E_POLICY, "this window is private by the administrator's policy",
                        "window %llu is never captured (capture.deny_windows)", (unsigned long long)w->id);
}

/* The window as the platform lists it now (its title may have changed since
 * it was resolved); PG_E_NOTFOUND when it is gone. */
static pg_err refresh(pg_call *c, pg_window *w, pg_error *e) {
    pg_window *all = NULL;
    size_t n = 0;
    pg_err rc = c->b->plat_ops->list_windows(c->b->plat, &all, &n, e);
    if (rc) return rc;
    rc = pg_error_set(e, PG_E_NOTFOUND, "the window closed; find it again with 'pixelgate windows'",
                      "window %llu is gone", (unsigned long long)w->id);
    for (size_t i = 0; i < n; i++)
        if (all[i].id == w->id) {
            *w = all[i];
            rc = PG_OK;
            break;
        }
    free(all);
    return rc;
}

pg_err pg_capture_checked(pg_call *c, pg_window *w, const pg_rect *region, pg_capture *cap, pg_error *e) {
    memset(cap, 0, sizeof *cap);
    pg_err rc = refresh(c, w, e);
    if (!rc) rc = pg_capture_check_allowed(c, w, e);
    if (!rc) rc = c->b->plat_ops->capture_window(c->b->plat, w->id, region, cap, e);
    if (rc) return rc;
    /* The title may have turned private while the pixels were read: look again. */
    rc = refresh(c, w, e);
    if (!rc) rc = pg_capture_check_allowed(c, w, e);
    if (rc) {
        free(cap->rgba);
        cap->rgba = NULL;
        return rc;
    }
    if (pg_disclose_protected(c->view)) {
        char src[48];
        snprintf(src, sizeof src, "window:%llu", (unsigned long long)w->id);
        pg_call_source(c, src);
    }
    return PG_OK;
}

/* Blacks out every visible window the policy denies that lies inside the
 * screen capture, in the coordinates of the capture's first pixel (the
 * backend's origin: the clipped region, or a negative virtual-screen origin),
 * never the region the client asked for. Fails closed: when the windows
 * cannot be listed the capture is refused. Caller holds the platform lock. */
static pg_err redact_denied(pg_call *c, pg_capture *cap, unsigned *redacted, pg_error *e) {
    pg_window *all = NULL;
    size_t n = 0;
    pg_err rc = c->b->plat_ops->list_windows(c->b->plat, &all, &n, e);
    if (rc)
        return pg_error_set(e, PG_E_INTERNAL, "retry; the display may be busy",
                            "screen capture refused: the window list could not be read to black out denied windows (%s)",
                            pg_err_name(rc));
    int64_t ox = cap->origin_x, oy = cap->origin_y;
    unsigned hits = 0;
    for (size_t i = 0; i < n; i++) {
        const pg_window *w = &all[i];
        if (!w->visible || !pg_policy_capture_denied(c->view, w->title, w->class_name, w->instance, NULL, 0)) continue;
        int64_t x0 = w->x - ox, y0 = w->y - oy, x1 = x0 + w->width, y1 = y0 + w->height;
        if (x0 < 0) x0 = 0;
        if (y0 < 0) y0 = 0;
        if (x1 > cap->width) x1 = cap->width;
        if (y1 > cap->height) y1 = cap->height;
        if (x0 >= x1 || y0 >= y1) continue;
        for (int64_t y = y0; y < y1; y++) {
            uint8_t *row = cap->rgba + (size_t)y * cap->stride;
            for (int64_t x = x0; x < x1; x++) {
                row[4 * x] = row[4 * x + 1] = row[4 * x + 2] = 0;
                row[4 * x + 3] = 255;
            }
        }
        hits++;
    }
    free(all);
    *redacted = hits;
    return PG_OK;
}

pg_err pg_capture_screen_locked(pg_call *c, const pg_rect *region, pg_capture *cap, unsigned *redacted,
                                pg_error *e) {
    memset(cap, 0, sizeof *cap);
    *redacted = 0;
    pg_err rc = c->b->plat_ops->capture_screen(c->b->plat, region, cap, e);
    if (!rc) rc = redact_denied(c, cap, redacted, e);
    if (rc) {
        free(cap->rgba);
        cap->rgba = NULL;
    }
    return rc;
}

pg_err pg_capture_img_locked(pg_call *c, pg_window *w, const pg_rect *region, pg_img **img, char method[32],
                             pg_error *e) {
    pg_capture cap;
    pg_err rc = pg_capture_checked(c, w, region, &cap, e);
    if (rc) return rc;
    if (method) memcpy(method, cap.method, 32);
    rc = pg_img_wrap(img, cap.rgba, cap.width, cap.height, cap.stride, e);
    if (rc) free(cap.rgba);
    return rc;
}

pg_err pg_capture_window_img(pg_call *c, const pg_target *t, pg_window *w, const pg_rect *region, pg_img **img,
                             char method[32], pg_error *e) {
    pg_err rc = pg_broker_plat_lock(c->b, e);
    if (rc) return rc;
    if (t) {
        rc = pg_call_resolve_window(c, t, w, e);
        if (!rc) pg_call_audit_window(c, w);
    }
    if (!rc) rc = pg_capture_img_locked(c, w, region, img, method, e);
    pg_broker_plat_unlock(c->b);
    return rc;
}
