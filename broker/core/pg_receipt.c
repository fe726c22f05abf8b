/* SPDX-License-Identifier: MIT */
/* receipt.c - --expect-change on an input verb: did the input have a visible
 * effect? The window (or --region of it) is captured before the input;
 * after it, the broker captures until the pixels differ from that frame and
 * then hold still (two frames alike), or the timeout passes. The answer is
 * the box of what changed, how many pixels, and a token of the after-frame;
 * about protected pixels the box is on the disclosure grid, the count in
 * 1/256 of the area and the time in 0.1 s steps, charged to the budgets like
 * diff's (with a bit for "settled"). No net change is
 * PG_E_ASSERT (exit 1, "no visible effect") with the last frame's token. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_disclose.h"
#include "pg_call.h"
#include "pg_time.h"

#define RECEIPT_INTERVAL_MS 50
#define RECEIPT_STEP_S 0.1 /* elapsed_s about protected pixels: 31 values in the default 3 s, 5 bits */

void pg_receipt_fini(pg_receipt *r) {
    pg_img_free(r->before);
    r->before = NULL;
}

pg_err pg_receipt_before(pg_call *c, pg_receipt *r, const pg_window *w, pg_error *e) {
    if (!r->on) return r->region ? pg_error_set(e, PG_E_USAGE, "--region goes with --expect-change",
                                                "--region and --timeout only shape --expect-change")
                                 : PG_OK;
    if (r->region && pg_disclose_protected(c->view) && (uint64_t)r->region->w * r->region->h < c->view->min_area)
        return pg_disclose_area(c->view, (uint64_t)r->region->w * r->region->h, "watching a region", e);
    pg_window now = *w;
    return pg_capture_img_locked(c, &now, r->region, &r->before, r->method, e);
}

/* The bounding box of the pixels that differ (RGB), and how many. */
static uint64_t changed_box(const pg_img *a, const pg_img *b, pg_img_rect *box) {
    if (a->width != b->width || a->height != b->height) {
        *box = (pg_img_rect){0, 0, b->width, b->height};
        return (uint64_t)b->width * b->height;
    }
    uint32_t x0 = UINT32_MAX, y0 = UINT32_MAX, x1 = 0, y1 = 0;
    uint64_t n = 0;
    for (uint32_t y = 0; y < a->height; y++) {
        const uint8_t *pa = a->px + (size_t)y * a->stride, *pb = b->px + (size_t)y * b->stride;
        for (uint32_t x = 0; x < a->width; x++, pa += 4, pb += 4) {
            if (pa[0] == pb[0] && pa[1] == pb[1] && pa[2] == pb[2]) continue;
            n++;
            if (x < x0) x0 = x;
            if (x > x1) x1 = x;
            if (y < y0) y0 = y;
            if (y > y1) y1 = y;
        }
    }
    *box = n ? (pg_img_rect){x0, y0, x1 - x0 + 1, y1 - y0 + 1} : (pg_img_rect){0, 0, 0, 0};
    return n;
}

static bool same(const pg_img *a, const pg_img *b) {
    pg_img_rect ignored;
    return changed_box(a, b, &ignored) == 0;
}

/* Captures until the frame differs from before and then holds still, or the
 * time is up; *last is the final frame, *settled whether it held still. */
static pg_err watch(pg_call *c, pg_receipt *r, pg_window *w, pg_img **last, bool *settled, double *elapsed_s,
                    pg_error *e) {
    double t0 = pg_mono_ms();
    bool moved = false;
    *settled = false;
    for (;;) {
        pg_img *img = NULL;
        pg_err rc = pg_capture_window_img(c, NULL, w, r->region, &img, r->method, e);
        if (rc) return rc;
        if (*last && moved && same(*last, img)) *settled = true;
        moved |= !same(r->before, img);
        pg_img_free(*last);
        *last = img;
        *elapsed_s = (pg_mono_ms() - t0) / 1000.0;
        if (*settled || *elapsed_s + RECEIPT_INTERVAL_MS / 1000.0 > r->timeout_s) return PG_OK;
        pg_sleep_ms(RECEIPT_INTERVAL_MS);
        if ((rc = pg_call_client_gone(c, e)) != PG_OK) return rc;
    }
}

pg_err pg_receipt_after(pg_call *c, pg_receipt *r, pg_window *w, cJSON *result, pg_error *e) {
    if (!r->on) return PG_OK;
    pg_img *last = NULL;
    bool settled = false;
    double elapsed = 0;
    pg_err rc = watch(c, r, w, &last, &settled, &elapsed, e);
    if (rc) {
        pg_img_free(last);
        return rc;
    }
    pg_img_rect box;
    uint64_t n = changed_box(r->before, last, &box);
    bool coarse = pg_call_protected(c);
    double bits = 1;
    uint64_t total = (uint64_t)last->width * last->height;
    cJSON *fx = cJSON_CreateObject();
    cJSON_AddBoolToObject(fx, "changed", n > 0);
    if (n) {
        pg_img_rect shown = coarse ? pg_disclose_box(box, last->width, last->height, &bits) : box;
        if (r->region) shown.x += (uint32_t)r->region->x, shown.y += (uint32_t)r->region->y; /* window coordinates */
        cJSON_AddItemToObject(fx, "box", pg_rect_json(&shown));
        cJSON_AddNumberToObject(fx, "changed_pixels", coarse ? (double)pg_disclose_count(n, total, &bits) : (double)n);
        cJSON_AddBoolToObject(fx, "settled", settled); /* false: still changing when the time was up */
        if (coarse) pg_disclose_flag(&bits);
    }
    /* When the pixels changed and settled is the content's too: a timing an
     * agent can steer (issue 27), so about protected pixels it comes in steps
     * of the capture interval's order and is paid for like the box. */
    cJSON_AddNumberToObject(fx, "elapsed_s", coarse ? pg_disclose_step(elapsed, 0, r->timeout_s, RECEIPT_STEP_S, &bits)
                                                    : (int)(elapsed * 1000) / 1000.0);
    rc = pg_call_disclose(c, bits, e);
    if (!rc) rc = pg_call_derived_token(c, last, r->method, fx, "token", e); /* takes the frame */
    else pg_img_free(last);
    if (rc) {
        cJSON_Delete(fx);
        return rc;
    }
    if (n) {
        cJSON_AddItemToObject(result, "effect", fx);
        return PG_OK;
    }
    c->details = cJSON_CreateObject();
    cJSON_AddItemToObject(c->details, "effect", fx);
    return pg_error_set(e, PG_E_ASSERT, "the input landed but nothing changed there: check the point, or wait longer",
                        "no visible effect within %.1f s%s", r->timeout_s, r->region ? " in the region" : "");
}
