/* SPDX-License-Identifier: MIT */
/* frames: a series of live captures of one window (or the screen) stored as
 * one frame-set token: the frames stacked top to bottom in one image, its
 * metadata saying how many (pg_tok_meta.frames). One request, one audit
 * record, one token; the deny rules are checked on every frame
 * (pg_capture_checked; screen frames black out denied windows), and the
 * platform lock is held per frame only, never across the wait between two. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_disclose.h"
#include "pg_call.h"
#include "pg_time.h"

#define FRAMES_MAX_MS 60000 /* count x interval: a series is a short look, not a recording */

typedef struct {
    uint8_t *strip; /* count frames of w x h, tight rows */
    uint32_t w, h, count, done;
    char method[32];
    unsigned redacted;
} series;

/* One frame under the platform lock; the first one names the window. */
static pg_err one_frame(pg_call *c, const pg_args_frames *a, bool first, pg_window *w, pg_capture *cap,
                        unsigned *redacted, pg_error *e) {
    pg_err rc = pg_call_plat_read(c, e);
    if (rc) return rc;
    const pg_rect *region = a->has_region ? &a->region : NULL;
    if (a->screen) {
        rc = pg_capture_screen_locked(c, region, cap, redacted, e);
    } else {
        if (first) {
            pg_target t = PG_TARGET_OF(a);
            rc = pg_call_resolve_window(c, &t, w, e);
            if (!rc) pg_call_audit_window(c, w);
        }
        *redacted = 0;
        if (!rc) rc = pg_capture_checked(c, w, region, cap, e);
    }
    pg_call_plat_done(c);
    return rc;
}

/* Appends a capture to the series (its first fixes the size). */
static pg_err append(pg_call *c, series *s, pg_capture *cap, pg_error *e) {
    if (s->done == 0) {
        s->w = cap->width, s->h = cap->height;
        uint64_t px = (uint64_t)s->w * s->h * s->count;
        if (px > c->view->max_pixels || (uint64_t)s->h * s->count > PG_IMG_MAX_SIDE)
            return pg_error_set(e, PG_E_BADINPUT, "capture a --region, or fewer frames",
                                "%u frames of %ux%u are %llu pixels, over the image limit of %llu (images.max_pixels)",
                                s->count, s->w, s->h, (unsigned long long)px, (unsigned long long)c->view->max_pixels);
        s->strip = malloc((size_t)px * 4);
        if (!s->strip) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for %u frames", s->count);
        memcpy(s->method, cap->method, sizeof s->method);
    } else if (cap->width != s->w || cap->height != s->h) {
        return pg_error_set(e, PG_E_BADINPUT, "keep the window's size steady while its frames are captured",
                            "frame %u is %ux%u, frame 0 was %ux%u: the window changed size", s->done, cap->width,
                            cap->height, s->w, s->h);
    }
    size_t row = (size_t)s->w * 4;
    uint8_t *dst = s->strip + (size_t)s->done * s->h * row;
    for (uint32_t y = 0; y < s->h; y++) memcpy(dst + y * row, cap->rgba + (size_t)y * cap->stride, row);
    s->done++;
    return PG_OK;
}

static void fill_meta(pg_tok_meta *m, const pg_args_frames *a, const pg_window *w, const series *s) {
    memset(m, 0, sizeof *m);
    m->frames = s->count;
    m->source_width = s->w;
    m->source_height = s->h * s->count;
    memcpy(m->method, s->method, sizeof m->method);
    m->screen = a->screen;
    if (a->screen) {
        snprintf(m->source, sizeof m->source, "screen");
    } else {
        snprintf(m->source, sizeof m->source, "window:%llu", (unsigned long long)w->id);
        pg_call_meta_window(m, w);
    }
}

static pg_err capture_series(pg_call *c, const pg_args_frames *a, pg_window *w, series *s, double *elapsed,
                             pg_error *e) {
    double t0 = pg_mono_ms();
    pg_err rc = PG_OK;
    for (uint32_t i = 0; i < s->count && !rc; i++) {
        if (i) { /* on a schedule from the first frame, so slow captures do not stretch the series */
            double wait = t0 + (double)i * (double)a->interval - pg_mono_ms();
            if (wait > 0) pg_sleep_ms(wait);
        }
        pg_capture cap;
        unsigned redacted = 0;
        rc = one_frame(c, a, i == 0, w, &cap, &redacted, e);
        if (!rc) {
            if (redacted > s->redacted) s->redacted = redacted;
            rc = append(c, s, &cap, e);
            free(cap.rgba);
        }
    }
    *elapsed = pg_mono_ms() - t0;
    return rc;
}

pg_err pg_op_frames(pg_call *c, const pg_args_frames *a, pg_error *e) {
    c->audit.kind = "token";
    if (a->count * a->interval > FRAMES_MAX_MS)
        return pg_error_set(e, PG_E_USAGE, "fewer frames or a shorter --interval",
                            "%lld frames every %lld ms last over %d s", (long long)a->count, (long long)a->interval,
                            FRAMES_MAX_MS / 1000);
    series s = {.count = (uint32_t)a->count};
    pg_window w = {0};
    double elapsed = 0;
    pg_err rc = capture_series(c, a, &w, &s, &elapsed, e);
    pg_img *img = NULL;
    if (!rc) {
        rc = pg_img_wrap(&img, s.strip, s.w, s.h * s.count, (size_t)s.w * 4, e);
        if (!rc) s.strip = NULL;
    }
    free(s.strip);
    if (rc) return rc;
    pg_tok_meta m;
    fill_meta(&m, a, &w, &s);
    if (pg_disclose_protected(c->view)) pg_call_source(c, m.source);
    pg_call_tiles(c, img, NULL, NULL);
    rc = pg_call_disclose(c, 1, e); /* its keyed digest, as a snapshot's */
    if (rc) {
        pg_img_free(img);
        return rc;
    }
    if ((rc = pg_call_store_image(c, img, &m, e))) return rc;
    memcpy(c->created_token, m.token, sizeof c->created_token);
    memcpy(c->audit.token, m.token, sizeof c->audit.token);
    memcpy(c->audit.image_sha256, m.sha256, sizeof c->audit.image_sha256);
    snprintf(c->audit.detail, sizeof c->audit.detail, "frames: %u of %ux%u (%s) every %lld ms via %s%s", s.count, s.w,
             s.h, a->screen ? "screen" : "window", (long long)a->interval, m.method,
             s.redacted ? ", denied windows blacked out" : "");
    cJSON *r = pg_call_token_json(c, &m);
    cJSON_AddNumberToObject(r, "interval_ms", (double)a->interval);
    cJSON_AddNumberToObject(r, "elapsed_ms", (double)(long long)elapsed);
    if (!a->screen) cJSON_ReplaceItemInObject(r, "window", pg_call_window_json(c, &w, NULL, 0));
    else cJSON_AddNumberToObject(r, "redacted_windows", s.redacted);
    c->result = r;
    return PG_OK;
}
