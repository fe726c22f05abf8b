/* SPDX-License-Identifier: MIT */
/* snapshot --with-popups: a window and the popups and dialogs its program
 * shows over it, in one image. Each is captured as itself (its own pixels,
 * its deny rules and its owner's, pg_capture_checked) and painted in stacking
 * order onto the rectangle that holds them all; whatever lies between them
 * is black, never another window's pixels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_call.h"

/* The window's own popups and dialogs, by the owner attribution input uses
 * (into_own_popup): parent w, the same process, shown, with an area. */
static bool own_popup(const pg_window *o, const pg_window *w) {
    return o->kind != PG_WINDOW_NORMAL && o->parent == w->id && o->pid == w->pid && o->pid > 0 && o->visible &&
           o->width && o->height;
}

static void paint(pg_capture *dst, const pg_capture *src, int64_t x, int64_t y) {
    for (uint32_t r = 0; r < src->height; r++) {
        int64_t dy = y + r;
        if (dy < 0 || dy >= dst->height) continue;
        int64_t x0 = x < 0 ? 0 : x, x1 = x + src->width > dst->width ? dst->width : x + src->width;
        if (x1 <= x0) continue;
        memcpy(dst->rgba + (size_t)dy * dst->stride + (size_t)x0 * 4, src->rgba + (size_t)r * src->stride + (size_t)(x0 - x) * 4,
               (size_t)(x1 - x0) * 4);
    }
}

static void grow(int64_t *x0, int64_t *y0, int64_t *x1, int64_t *y1, const pg_window *o) {
    if (o->x < *x0) *x0 = o->x;
    if (o->y < *y0) *y0 = o->y;
    if ((int64_t)o->x + o->width > *x1) *x1 = (int64_t)o->x + o->width;
    if ((int64_t)o->y + o->height > *y1) *y1 = (int64_t)o->y + o->height;
}

/* "popups": where each one is in the image, its id and kind. */
static void describe(cJSON *list, const pg_window *o, int64_t ox, int64_t oy) {
    cJSON *p = cJSON_CreateObject();
    cJSON_AddNumberToObject(p, "id", (double)o->id);
    cJSON_AddStringToObject(p, "kind", o->kind == PG_WINDOW_POPUP ? "popup" : "dialog");
    cJSON_AddNumberToObject(p, "x", (double)(o->x - ox));
    cJSON_AddNumberToObject(p, "y", (double)(o->y - oy));
    cJSON_AddNumberToObject(p, "width", o->width);
    cJSON_AddNumberToObject(p, "height", o->height);
    cJSON_AddItemToArray(list, p);
}

pg_err pg_capture_with_popups(pg_call *c, pg_window *w, pg_capture *cap, cJSON **popups, pg_error *e) {
    *popups = cJSON_CreateArray();
    pg_capture own[1 + PG_POPUPS_MAX];
    pg_window shown[PG_POPUPS_MAX];
    size_t n = 0;
    pg_err rc = pg_capture_checked(c, w, NULL, &own[0], e);
    pg_window *all = NULL;
    size_t n_all = 0;
    bool complete;
    if (!rc) rc = c->b->plat_ops->list_all(c->plat, &all, &n_all, &complete, e);
    int64_t x0 = w->x, y0 = w->y, x1 = (int64_t)w->x + w->width, y1 = (int64_t)w->y + w->height;
    for (size_t i = 0; !rc && i < n_all && n < PG_POPUPS_MAX; i++) {
        if (!own_popup(&all[i], w)) continue;
        shown[n] = all[i];
        pg_error gone;
        pg_err pr = pg_capture_checked(c, &shown[n], NULL, &own[1 + n], &gone);
        if (pr == PG_E_NOTFOUND) continue; /* closed since the listing: not shown */
        if (pr) rc = pr, *e = gone;
        else grow(&x0, &y0, &x1, &y1, &shown[n++]);
    }
    free(all);
    if (!rc && (x1 - x0 > PG_POPUPS_MAX_DIM || y1 - y0 > PG_POPUPS_MAX_DIM))
        rc = pg_error_set(e, PG_E_BADINPUT, "capture the popups one by one (snapshot --id)",
                          "the window and its popups span %lldx%lld pixels, more than %d a side", (long long)(x1 - x0),
                          (long long)(y1 - y0), PG_POPUPS_MAX_DIM);
    memset(cap, 0, sizeof *cap);
    if (!rc) {
        cap->width = (uint32_t)(x1 - x0), cap->height = (uint32_t)(y1 - y0), cap->stride = (size_t)cap->width * 4;
        cap->rgba = calloc(cap->height, cap->stride);
        if (!cap->rgba) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    }
    if (!rc) {
        for (size_t i = 3; i < cap->stride * cap->height; i += 4) cap->rgba[i] = 255; /* black between them */
        cap->origin_x = (int32_t)x0, cap->origin_y = (int32_t)y0;
        paint(cap, &own[0], w->x - x0, w->y - y0);
        for (size_t i = 0; i < n; i++) { /* bottom of the stack first, as listed */
            paint(cap, &own[1 + i], shown[i].x - x0, shown[i].y - y0);
            describe(*popups, &shown[i], x0, y0);
        }
        snprintf(cap->method, sizeof cap->method, "%.20s+popups", own[0].method);
    }
    free(own[0].rgba);
    for (size_t i = 0; i < n; i++) free(own[1 + i].rgba);
    return rc;
}
