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
 * it was resolved); PG_E_NOTFOUND when it is gone. *owner_denied: the window
 * a dialog belongs to is one the deny rules (or a cut title) refuse. */
static pg_err refresh(pg_call *c, pg_window *w, bool *owner_denied, pg_error *e) {
    pg_window *all = NULL;
    size_t n = 0;
    *owner_denied = false;
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
    pg_error ignored;
    for (size_t i = 0; !rc && w->parent && i < n; i++)
        if (all[i].id == w->parent) *owner_denied = pg_capture_check_allowed(c, &all[i], &ignored) != PG_OK;
    free(all);
    return rc;
}

/* The deny rules for w and for the window it belongs to (a denied
 * application's dialogs are as private as its main window). */
static pg_err check_fresh(pg_call *c, pg_window *w, pg_error *e) {
    bool owner_denied;
    pg_err rc = refresh(c, w, &owner_denied, e);
    if (!rc) rc = pg_capture_check_allowed(c, w, e);
    if (!rc && owner_denied)
        rc = pg_error_set(e, PG_E_POLICY, "this window belongs to one the administrator's policy keeps private",
                          "window %llu is never captured: it is a dialog of a denied window (capture.deny_windows)",
                          (unsigned long long)w->id);
    return rc;
}

pg_err pg_capture_checked(pg_call *c, pg_window *w, const pg_rect *region, pg_capture *cap, pg_error *e) {
    memset(cap, 0, sizeof *cap);
    pg_err rc = check_fresh(c, w, e);
    if (!rc) rc = c->b->plat_ops->capture_window(c->b->plat, w->id, region, cap, e);
    if (rc) return rc;
    /* The title may have turned private while the pixels were read: look again. */
    rc = check_fresh(c, w, e);
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
