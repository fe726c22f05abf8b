/* SPDX-License-Identifier: MIT */
/* Live pixels of a known window, under the policy's deny rules. The
 * platform lock is the caller's (pg_capture_img_locked) or taken here for
 * one capture (pg_capture_window_img), never across a sleep. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_disclose.h"
#include "pg_call.h"

pg_err pg_capture_check_allowed(pg_call *c, const pg_window *w, pg_error *e) {
    char pattern[256];
    if (pg_call_window_foreign(c, w))
        return pg_error_set(e, PG_E_POLICY, "capture your own windows; the administrator can name accounts in capture.other_users",
                            "window %llu is another user's and is not captured (capture.other_users)",
                            (unsigned long long)w->id);
    /* A title the backend had to cut might have matched an anchored deny pattern: fail closed. */
    if (!w->title_cut &&
        !pg_policy_capture_denied(c->view, w->title, w->class_name, w->instance, pattern, sizeof pattern))
        return PG_OK;
    return pg_error_set(e, PG_E_POLICY, "this window is private by the administrator's policy",
                        "window %llu is never captured (capture.deny_windows)", (unsigned long long)w->id);
}

static pg_err gone(const pg_window *w, pg_error *e) {
    return pg_error_set(e, PG_E_NOTFOUND, "the window closed; find it again with 'pixelgate windows'",
                        "window %llu is gone", (unsigned long long)w->id);
}

/* Was then->pid, still is: else the id names another program's window now. */
static pg_err same_program(const pg_window *then, const pg_window *now, pg_error *e) {
    if (now->pid == then->pid) return PG_OK;
    return pg_error_set(e, PG_E_NOTFOUND, "find the window again with 'pixelgate windows'",
                        "window %llu now belongs to another program", (unsigned long long)then->id);
}

/* A normal window read on its own (describe_window: a few round trips, not
 * a listing). *done false: it takes the listing after all (the backend
 * cannot describe one window, or the window is a dialog now, whose parent's
 * deny rules count). */
static pg_err refresh_alone(pg_call *c, pg_window *w, bool *done, pg_error *e) {
    *done = false;
    if (w->kind != PG_WINDOW_NORMAL || !c->b->plat_ops->describe_window) return PG_OK;
    pg_window now;
    pg_err rc = c->b->plat_ops->describe_window(c->plat, w->id, &now, e);
    if (rc == PG_E_NOTFOUND) return gone(w, e);
    if (rc || now.kind != PG_WINDOW_NORMAL) return rc;
    if (!(rc = same_program(w, &now, e))) *w = now;
    *done = true;
    return rc;
}

/* The window as the platform lists it now (its title may have changed since
 * it was resolved); PG_E_NOTFOUND when it is gone. *owner_denied: the window
 * a dialog belongs to is one the deny rules (or a cut title) refuse. */
static pg_err refresh(pg_call *c, pg_window *w, bool *owner_denied, pg_error *e) {
    pg_window *all = NULL;
    size_t n = 0;
    *owner_denied = false;
    bool complete, done;
    pg_err rc = refresh_alone(c, w, &done, e);
    if (rc || done) return rc; /* a normal window has no parent whose rules count */
    rc = w->kind == PG_WINDOW_POPUP ? c->b->plat_ops->list_all(c->plat, &all, &n, &complete, e) /* popups too */
                                    : c->b->plat_ops->list_windows(c->plat, &all, &n, e);
    if (rc) return rc;
    rc = gone(w, e);
    for (size_t i = 0; i < n; i++)
        if (all[i].id == w->id) {
            if (!(rc = same_program(w, &all[i], e))) *w = all[i];
            break;
        }
    *owner_denied = !rc && pg_call_window_denied(c, w, all, n); /* the dialog's parent counts too */
    free(all);
    return rc;
}

/* The deny rules for w and for the window it belongs to (a denied
 * application's dialogs are as private as its main window). */
pg_err pg_capture_refresh(pg_call *c, pg_window *w, pg_error *e) {
    bool owner_denied;
    pg_err rc = refresh(c, w, &owner_denied, e);
    if (!rc) rc = pg_capture_check_allowed(c, w, e);
    if (!rc && owner_denied)
        rc = pg_error_set(e, PG_E_POLICY, "this window belongs to one the administrator's policy keeps private",
                          "window %llu is never captured: it is a dialog of a denied window (capture.deny_windows)",
                          (unsigned long long)w->id);
    return rc;
}

/* Capture health: why a window gave no picture worth a token, as a reason
 * code in the error's details (docs/agents.md lists them). */
static pg_err unhealthy(pg_call *c, pg_err code, const char *reason, const char *tip, const char *what,
                        const pg_window *w, pg_error *e) {
    if (!c->details) {
        c->details = cJSON_CreateObject();
        cJSON_AddStringToObject(c->details, "reason", reason);
    }
    return pg_error_set(e, code, tip, "window %llu %s", (unsigned long long)w->id, what);
}

/* Every pixel black: a window that drew nothing (still starting, a GL
 * surface without a compositor, a failed capture) - never a silent token. */
static bool all_black(const pg_capture *cap) {
    for (uint32_t y = 0; y < cap->height; y++) {
        const uint8_t *p = cap->rgba + (size_t)y * cap->stride;
        for (uint32_t x = 0; x < cap->width; x++, p += 4)
            if (p[0] | p[1] | p[2]) return false;
    }
    return true;
}

/* What the request's answers about these pixels are charged to: the
 * window as a source, and the tile contents of what was read (a region on
 * the window's grid, pg_disclose.h). */
static void note_source(pg_call *c, const pg_window *w, const pg_capture *cap, const pg_rect *region) {
    if (!pg_disclose_protected(c->view)) return;
    char src[48];
    snprintf(src, sizeof src, "window:%llu", (unsigned long long)w->id);
    pg_call_source(c, src);
    pg_img px = {.px = cap->rgba, .width = cap->width, .height = cap->height, .stride = cap->stride};
    pg_disclose_origin o = {cap->origin_x - w->x, cap->origin_y - w->y, src};
    pg_call_tiles(c, &px, NULL, region ? &o : NULL);
}

pg_err pg_capture_checked(pg_call *c, pg_window *w, const pg_rect *region, pg_capture *cap, pg_error *e) {
    memset(cap, 0, sizeof *cap);
    if (w->minimized)
        return unhealthy(c, PG_E_BADINPUT, "WINDOW_MINIMIZED", "restore it first: pixelgate focus", "is minimized", w, e);
    if (w->width == 0 || w->height == 0)
        return unhealthy(c, PG_E_BADINPUT, "ZERO_SIZE", "wait until it is laid out (wait-for --appear)",
                         "has no area (0 pixels wide or high)", w, e);
    /* Another user's window or a denied one is refused before its pixels
     * are read at all. The caller resolved w just before, under this lock
     * (and refreshed it after any wait: pg_capture_refresh); the rules are
     * applied again to the window as it is after the read, which catches a
     * title that turned private before or during it. */
    pg_err rc = pg_capture_check_allowed(c, w, e);
    if (!rc) rc = c->b->plat_ops->capture_window(c->plat, w->id, region, cap, e);
    if (rc == PG_E_NOTFOUND && !w->visible && !c->details) {
        c->details = cJSON_CreateObject();
        cJSON_AddStringToObject(c->details, "reason", "WINDOW_UNMAPPED");
    }
    if (rc) return rc;
    if (!region && cap->width * cap->height >= 64 && all_black(cap)) {
        /* "every pixel black" is a bit about the pixels, however it is told */
        note_source(c, w, cap, region);
        free(cap->rgba);
        cap->rgba = NULL;
        if ((rc = pg_call_disclose(c, 1, e))) return rc;
        return unhealthy(c, PG_E_BLOCKED, "BLACK_FRAME",
                         "it drew nothing yet, or draws where capture cannot see (GL without a compositor): "
                         "wait-stable, then retry",
                         "captured all black: no token was made", w, e);
    }
    /* The title may have turned private while the pixels were read: look again. */
    rc = pg_capture_refresh(c, w, e);
    if (rc) {
        free(cap->rgba);
        cap->rgba = NULL;
        return rc;
    }
    note_source(c, w, cap, region);
    return PG_OK;
}

/* Everything on screen as the backend lists it (list_all), for the blackout. */
typedef struct {
    pg_window *w;
    size_t n;
} win_list;

/* Fails closed: a list that cannot be read, or that the backend had to cut
 * (a window past its limit could be a denied one), refuses the capture. */
static pg_err list_for_redaction(pg_call *c, win_list *l, pg_error *e) {
    bool complete = false;
    pg_err rc = c->b->plat_ops->list_all(c->plat, &l->w, &l->n, &complete, e);
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
    if (x0 < x1 && y0 < y1) cap->has_sha256 = false; /* the backend's digest was of the pixels before */
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
pg_err pg_capture_screen_locked(pg_call *c, const pg_rect *region, pg_capture *cap, unsigned *redacted,
                                pg_error *e) {
    memset(cap, 0, sizeof *cap);
    *redacted = 0;
    win_list before = {0}, after = {0};
    pg_err rc = list_for_redaction(c, &before, e);
    if (!rc) rc = c->b->plat_ops->capture_screen(c->plat, region, cap, e);
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
    pg_err rc = pg_call_plat_read(c, e);
    if (rc) return rc;
    if (t) {
        rc = pg_call_resolve_window(c, t, w, e);
        if (!rc) pg_call_audit_window(c, w);
    }
    if (!rc) rc = pg_capture_img_locked(c, w, region, img, method, e);
    pg_call_plat_done(c);
    return rc;
}

/* A fresh capture is stored like a snapshot so the answer can name it (the
 * caller's evidence) and later answers about the same pixels read the same
 * token; its tiles are recorded as every read of protected pixels is. */
pg_err pg_capture_token(pg_call *c, const pg_target *t, pg_img **img, pg_tok_meta *m, pg_error *e) {
    pg_window w = {0};
    char method[32] = "";
    pg_err rc = pg_capture_window_img(c, t, &w, NULL, img, method, e);
    if (rc) return rc;
    memset(m, 0, sizeof *m);
    m->source_width = (*img)->width, m->source_height = (*img)->height;
    snprintf(m->method, sizeof m->method, "%s", method);
    snprintf(m->source, sizeof m->source, "window:%llu", (unsigned long long)w.id);
    pg_call_meta_window(m, &w);
    if (pg_disclose_protected(c->view)) pg_call_source(c, m->source);
    pg_call_tiles(c, *img, NULL, NULL);
    pg_img *keep = NULL;
    rc = pg_img_clone(*img, &keep, e); /* the store takes its own copy's pixels */
    if (!rc) rc = pg_call_store_image(c, keep, m, e);
    if (rc) {
        pg_img_free(*img);
        *img = NULL;
        return rc;
    }
    memcpy(c->created_token, m->token, sizeof c->created_token);
    memcpy(c->audit.token, m->token, sizeof c->audit.token);
    memcpy(c->audit.image_sha256, m->sha256, sizeof c->audit.image_sha256);
    return PG_OK;
}
