/* SPDX-License-Identifier: MIT */
/* Design comparison: the diagnostic images (see pg_design.h), all on the
 * canonical canvas, integer arithmetic only. */
#include <stdlib.h>
#include <string.h>

#include "pg_design_int.h"

static void put(pg_img *img, uint32_t x, uint32_t y, const uint8_t c[3]) {
    if (x >= img->width || y >= img->height) return;
    uint8_t *p = pg_img_row(img, y) + 4 * (size_t)x;
    p[0] = c[0], p[1] = c[1], p[2] = c[2], p[3] = 255;
}

/* A 2-px outline just inside box. */
static void outline(pg_img *img, const pg_img_rect *b, const uint8_t c[3]) {
    for (uint32_t t = 0; t < 2 && t * 2 < b->w && t * 2 < b->h; t++) {
        uint32_t x0 = b->x + t, y0 = b->y + t, x1 = b->x + b->w - 1 - t, y1 = b->y + b->h - 1 - t;
        for (uint32_t x = x0; x <= x1; x++) put(img, x, y0, c), put(img, x, y1, c);
        for (uint32_t y = y0; y <= y1; y++) put(img, x0, y, c), put(img, x1, y, c);
    }
}

/* Reference and registered candidate, 50/50; outside the overlap the
 * reference alone. */
static pg_err overlay(pg_dz *z, pg_img **out, pg_error *e) {
    pg_err rc = pg_img_clone(z->ref.img, out, e);
    if (rc) return rc;
    const pg_img_rect *a = &z->r->layout.area;
    int dx = z->r->align.dx, dy = z->r->align.dy;
    for (uint32_t y = a->y; y < a->y + a->h; y++) {
        uint8_t *p = pg_img_row(*out, y) + 4 * (size_t)a->x;
        const uint8_t *q = pg_img_row(z->cand.img, (uint32_t)((int)y + dy)) + 4 * (size_t)((int)a->x + dx);
        for (size_t i = 0; i < 4 * (size_t)a->w; i++) p[i] = (uint8_t)((p[i] + q[i] + 1) / 2);
    }
    return PG_OK;
}

/* 1 - S of each window at its centre: black (equal) -> red -> yellow. */
static pg_err heatmap(pg_dz *z, pg_img **out, pg_error *e) {
    pg_err rc = pg_img_new(out, z->W, z->H, e);
    if (rc) return rc;
    const pg_img_rect *a = &z->r->layout.area;
    uint32_t off = z->r->layout.win / 2;
    for (uint32_t y = 0; y < z->H; y++) {
        uint8_t *p = pg_img_row(*out, y);
        for (uint32_t x = 0; x < z->W; x++) p[4 * x + 3] = 255;
    }
    for (uint32_t my = 0; my < z->map_h; my++)
        for (uint32_t mx = 0; mx < z->map_w; mx++) {
            float d = 1.0f - z->map[(size_t)my * z->map_w + mx];
            int v = d <= 0 ? 0 : d >= 1 ? 510 : (int)(d * 510.0f + 0.5f);
            uint8_t c[3] = {(uint8_t)(v > 255 ? 255 : v), (uint8_t)(v > 255 ? v - 255 : 0), 0};
            put(*out, a->x + off + mx, a->y + off + my, c);
        }
    return PG_OK;
}

/* The reference faded toward white, content boxes on top. */
static pg_err regions(pg_dz *z, pg_img **out, pg_error *e) {
    static const uint8_t green[3] = {0, 170, 0}, red[3] = {220, 0, 0}, orange[3] = {255, 140, 0};
    pg_err rc = pg_img_clone(z->ref.img, out, e);
    if (rc) return rc;
    for (uint32_t y = 0; y < z->H; y++) {
        uint8_t *p = pg_img_row(*out, y);
        for (uint32_t x = 0; x < z->W; x++)
            for (int c = 0; c < 3; c++) p[4 * x + c] = (uint8_t)((p[4 * x + c] + 255 * 2 + 1) / 3);
    }
    const pg_design_result *r = z->r;
    for (unsigned j = 0; j < r->content.n_cand; j++)
        if (r->content.cand[j].match < 0) outline(*out, &r->content.cand[j].box, orange);
    for (unsigned i = 0; i < r->content.n_ref; i++)
        outline(*out, &r->content.ref[i].box, r->content.ref[i].match >= 0 ? green : red);
    return PG_OK;
}

static pg_err side_by_side(pg_dz *z, pg_img **out, pg_error *e) {
    pg_err rc = pg_img_new(out, 2 * z->W + 8, z->H, e);
    if (rc) return rc;
    for (uint32_t y = 0; y < z->H; y++) {
        uint8_t *p = pg_img_row(*out, y);
        memcpy(p, pg_img_row(z->ref.img, y), 4 * (size_t)z->W);
        for (uint32_t x = z->W; x < z->W + 8; x++) p[4 * x] = p[4 * x + 1] = p[4 * x + 2] = 128, p[4 * x + 3] = 255;
        memcpy(p + 4 * ((size_t)z->W + 8), pg_img_row(z->cand.img, y), 4 * (size_t)z->W);
    }
    return PG_OK;
}

pg_err pg_dz_visuals(pg_dz *z, pg_error *e) {
    pg_design_result *r = z->r;
    pg_err rc = overlay(z, &r->overlay, e);
    if (!rc && z->map) rc = heatmap(z, &r->heatmap, e); /* none when layout did not run */
    if (!rc) rc = regions(z, &r->regions, e);
    if (!rc) rc = side_by_side(z, &r->side_by_side, e);
    return rc;
}
