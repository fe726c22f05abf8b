/* SPDX-License-Identifier: MIT */
/* The acceptance comparison; see pg_accept.h. */
#include "pg_accept.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_regions.h"

void pg_accept_rules_init(pg_accept_rules *r) {
    memset(r, 0, sizeof *r);
    r->threshold = 0.1;
    r->max_ratio = 0.001;
    r->metric = PG_DIFF_YIQ;
}

const char *pg_accept_status_name(pg_accept_status s) {
    return s == PG_ACCEPT_PASSED ? "passed" : s == PG_ACCEPT_FAILED ? "failed" : "blocked";
}

static bool touches(const pg_img_rect *m, uint32_t w, uint32_t h) {
    return m->w > 0 && m->h > 0 && m->x < w && m->y < h;
}

static void block(pg_accept_result *r, const char *reason, const char *detail) {
    r->status = PG_ACCEPT_BLOCKED;
    r->reason = reason;
    snprintf(r->detail, sizeof r->detail, "%.255s", detail);
}

/* pixelmatch's squared YIQ distance of two opaque pixels (no blending:
 * the shift test looks for the same colour nearby, it is not the count). */
static double yiq_delta(const uint8_t *p, const uint8_t *q) {
    double dr = (double)p[0] - q[0], dg = (double)p[1] - q[1], db = (double)p[2] - q[2];
    double y = dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223;
    double i = dr * 0.59597799 - dg * 0.27417610 - db * 0.32180189;
    double k = dr * 0.21147017 - dg * 0.52261711 + db * 0.31114694;
    return 0.5053 * y * y + 0.299 * i * i + 0.1957 * k * k;
}

/* Is there, within s pixels of (x, y) in img, a pixel of colour px? */
static bool near_colour(const pg_img *img, uint32_t x, uint32_t y, uint32_t s, const uint8_t *px, double max) {
    uint32_t x0 = x > s ? x - s : 0, y0 = y > s ? y - s : 0;
    uint32_t x1 = x + s < img->width ? x + s : img->width - 1, y1 = y + s < img->height ? y + s : img->height - 1;
    for (uint32_t yy = y0; yy <= y1; yy++) {
        const uint8_t *row = pg_img_row(img, yy);
        for (uint32_t xx = x0; xx <= x1; xx++)
            if (yiq_delta(row + 4 * xx, px) <= max) return true;
    }
    return false;
}

static bool is_changed(const uint8_t *o) { return o[0] == 255 && o[1] == 0 && o[2] == 0; }

/* Forgives changed pixels that moved by up to shift pixels and recounts the
 * regions of the rest, from the diff image's red pixels. */
static pg_err apply_shift(const pg_img *base, const pg_img *cap, const pg_accept_rules *rules, pg_img *diff,
                          pg_accept_result *r, pg_error *e) {
    double max = 35215.0 * rules->threshold * rules->threshold;
    pg_regions g;
    pg_regions_init(&g);
    uint64_t left = 0;
    for (uint32_t y = 0; y < diff->height; y++) {
        uint8_t *o = pg_img_row(diff, y);
        const uint8_t *pc = pg_img_row(cap, y), *pb = pg_img_row(base, y);
        pg_regions_begin_row(&g, y);
        uint32_t run0 = UINT32_MAX;
        for (uint32_t x = 0; x <= diff->width; x++) {
            bool keep = false;
            if (x < diff->width && is_changed(o + 4 * x)) {
                bool moved = near_colour(base, x, y, rules->shift, pc + 4 * x, max) &&
                             near_colour(cap, x, y, rules->shift, pb + 4 * x, max);
                if (moved) {
                    o[4 * x] = 0, o[4 * x + 1] = 160, o[4 * x + 2] = 255;
                    r->shifted++;
                } else {
                    keep = true;
                    left++;
                }
            }
            if (keep && run0 == UINT32_MAX) run0 = x;
            if (!keep && run0 != UINT32_MAX) {
                pg_regions_add_run(&g, run0, x - 1);
                run0 = UINT32_MAX;
            }
        }
        pg_regions_end_row(&g);
    }
    pg_region_info info[PG_DIFF_MAX_REGIONS];
    size_t n = 0;
    uint64_t count = 0;
    pg_img_rect bounds = {0, 0, 0, 0};
    pg_err rc = pg_regions_finish(&g, info, PG_DIFF_MAX_REGIONS, &n, &count, &bounds, e);
    pg_regions_fini(&g);
    if (rc) return rc;
    pg_diff_result *m = &r->main;
    m->pixels_changed = left;
    m->changed_pct = m->total_pixels ? 100.0 * (double)left / (double)m->total_pixels : 0;
    m->region_count = count;
    m->regions_len = n;
    for (size_t i = 0; i < n; i++) m->regions[i] = (pg_diff_region){info[i].box, info[i].pixels};
    m->has_bounds = count > 0;
    m->bounds = count ? bounds : (pg_img_rect){0, 0, 0, 0};
    return PG_OK;
}

/* The capture with the listed regions outlined (2 px, magenta). */
static pg_err make_overlay(const pg_img *cap, const pg_diff_result *m, pg_img **out, pg_error *e) {
    pg_err rc = pg_img_clone(cap, out, e);
    if (rc) return rc;
    pg_img *o = *out;
    for (size_t i = 0; i < m->regions_len; i++) {
        pg_img_rect b = m->regions[i].box;
        int64_t x0 = (int64_t)b.x - 2, y0 = (int64_t)b.y - 2, x1 = (int64_t)b.x + b.w + 1, y1 = (int64_t)b.y + b.h + 1;
        for (int64_t y = y0; y <= y1; y++)
            for (int64_t x = x0; x <= x1; x++) {
                bool edge = x - x0 < 2 || x1 - x < 2 || y - y0 < 2 || y1 - y < 2;
                if (!edge || x < 0 || y < 0 || x >= o->width || y >= o->height) continue;
                uint8_t *p = pg_img_row(o, (uint32_t)y) + 4 * x;
                p[0] = 255, p[1] = 0, p[2] = 255, p[3] = 255;
            }
    }
    return PG_OK;
}

static pg_err check_rules(const pg_accept_rules *rules, pg_error *e) {
    bool bad = !(rules->threshold >= 0 && rules->threshold <= 1) || !(rules->max_ratio >= 0 && rules->max_ratio <= 1) ||
               rules->n_zones > PG_ACCEPT_MAX_ZONES || rules->shift > PG_ACCEPT_MAX_SHIFT ||
               rules->n_masks + rules->n_zones > PG_DIFF_MAX_MASKS;
    for (size_t i = 0; i < rules->n_zones; i++)
        bad |= !(rules->zones[i].threshold >= 0 && rules->zones[i].threshold <= 1) ||
               !(rules->zones[i].max_ratio >= 0 && rules->zones[i].max_ratio <= 1);
    return bad ? pg_error_set(e, PG_E_USAGE, NULL, "acceptance rules out of range") : PG_OK;
}

/* Each zone alone, with its own threshold and ratio, under the same masks. */
static pg_err compare_zones(const pg_img *base, const pg_img *cap, const pg_accept_rules *rules,
                            pg_accept_result *r, pg_error *e) {
    for (size_t i = 0; i < rules->n_zones; i++) {
        const pg_accept_zone *z = &rules->zones[i];
        pg_img_rect box = z->box; /* clipped: a zone may hang over the edge */
        if (box.x + box.w > cap->width) box.w = cap->width - box.x;
        if (box.y + box.h > cap->height) box.h = cap->height - box.y;
        pg_diff_opts o;
        pg_diff_opts_init(&o);
        o.threshold = z->threshold;
        o.metric = rules->metric;
        o.include_aa = rules->include_aa;
        o.region = &box;
        o.masks = rules->masks;
        o.n_masks = rules->n_masks;
        pg_diff_result *d = malloc(sizeof *d);
        if (!d) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
        pg_error de;
        pg_err rc = pg_diff(cap, base, &o, d, NULL, &de);
        if (rc == PG_E_USAGE) {
            char msg[256];
            snprintf(msg, sizeof msg, "zone %zu: %.200s", i + 1, de.message);
            block(r, "MASK_COVERS_ALL", msg);
            free(d);
            return PG_OK;
        }
        if (rc) {
            free(d);
            *e = de;
            return rc;
        }
        r->zones[i].changed = d->pixels_changed;
        r->zones[i].total = d->total_pixels;
        r->zones[i].ratio = d->total_pixels ? (double)d->pixels_changed / (double)d->total_pixels : 0;
        r->zones[i].passed = r->zones[i].ratio <= z->max_ratio;
        free(d);
    }
    r->n_zones = rules->n_zones;
    return PG_OK;
}

static pg_err compare_main(const pg_img *base, const pg_img *cap, const pg_accept_rules *rules,
                           pg_accept_result *r, pg_img **diff, pg_error *e) {
    size_t n = rules->n_masks + rules->n_zones;
    pg_img_rect *masks = malloc((n ? n : 1) * sizeof *masks);
    if (!masks) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    for (size_t i = 0; i < rules->n_masks; i++) masks[i] = rules->masks[i];
    for (size_t i = 0; i < rules->n_zones; i++) masks[rules->n_masks + i] = rules->zones[i].box; /* judged alone */
    pg_diff_opts o;
    pg_diff_opts_init(&o);
    o.threshold = rules->threshold;
    o.metric = rules->metric;
    o.include_aa = rules->include_aa;
    o.masks = masks;
    o.n_masks = n;
    pg_error de;
    pg_err rc = pg_diff(cap, base, &o, &r->main, diff, &de);
    free(masks);
    if (rc == PG_E_USAGE) {
        block(r, "MASK_COVERS_ALL", de.message);
        return PG_OK;
    }
    if (rc) *e = de;
    return rc;
}

pg_err pg_accept_compare(const pg_img *baseline, const pg_img *capture, const pg_accept_rules *rules,
                         pg_accept_result *r, pg_img **diff, pg_img **overlay, pg_error *e) {
    memset(r, 0, sizeof *r);
    if (diff) *diff = NULL;
    if (overlay) *overlay = NULL;
    pg_err rc = check_rules(rules, e);
    if (rc) return rc;
    r->main.width_a = capture->width, r->main.height_a = capture->height;
    r->main.width_b = baseline->width, r->main.height_b = baseline->height;
    if (capture->width != baseline->width || capture->height != baseline->height) {
        r->status = PG_ACCEPT_FAILED;
        r->reason = "DIMENSION_MISMATCH";
        snprintf(r->detail, sizeof r->detail, "capture %ux%u, baseline %ux%u: not compared, never scaled",
                 capture->width, capture->height, baseline->width, baseline->height);
        return PG_OK;
    }
    r->main.sizes_match = true;
    for (size_t i = 0; i < rules->n_masks + rules->n_zones; i++) {
        const pg_img_rect *m = i < rules->n_masks ? &rules->masks[i] : &rules->zones[i - rules->n_masks].box;
        if (!touches(m, capture->width, capture->height)) {
            char msg[160];
            snprintf(msg, sizeof msg, "%s %zu (%u,%u %ux%u) lies outside the %ux%u capture",
                     i < rules->n_masks ? "mask" : "zone", i < rules->n_masks ? i + 1 : i - rules->n_masks + 1, m->x,
                     m->y, m->w, m->h, capture->width, capture->height);
            block(r, "MASK_UNMATCHED", msg);
            return PG_OK;
        }
    }
    pg_img *d = NULL;
    rc = compare_main(baseline, capture, rules, r, &d, e);
    if (!rc && r->status != PG_ACCEPT_BLOCKED && rules->shift && d) rc = apply_shift(baseline, capture, rules, d, r, e);
    if (!rc && r->status != PG_ACCEPT_BLOCKED) rc = compare_zones(baseline, capture, rules, r, e);
    if (rc || r->status == PG_ACCEPT_BLOCKED) {
        pg_img_free(d);
        return rc;
    }
    r->ratio = r->main.total_pixels ? (double)r->main.pixels_changed / (double)r->main.total_pixels : 0;
    bool zones_ok = true;
    for (size_t i = 0; i < r->n_zones; i++) zones_ok &= r->zones[i].passed;
    r->status = r->ratio <= rules->max_ratio && zones_ok ? PG_ACCEPT_PASSED : PG_ACCEPT_FAILED;
    r->reason = r->status == PG_ACCEPT_PASSED ? "PASSED" : r->ratio > rules->max_ratio ? "PIXEL_DIFF" : "ZONE_FAILED";
    if (overlay) rc = make_overlay(capture, &r->main, overlay, e);
    if (diff && !rc) *diff = d;
    else pg_img_free(d);
    return rc;
}
