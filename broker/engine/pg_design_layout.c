/* SPDX-License-Identifier: MIT */
/* Design comparison, layout: SSIM of the reference and the registered
 * candidate over their overlap, and the areas where it is lowest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_design_int.h"
#include "pg_morph.h"
#include "pg_ssim.h"

#define HOT_S 0.6   /* a window below this SSIM is a structural difference */
#define HOT_MAX 3   /* findings */

/* Mean S of the map over a box in map coordinates. */
static double map_mean(const pg_dz *z, const pg_img_rect *b) {
    double s = 0;
    for (uint32_t y = b->y; y < b->y + b->h; y++)
        for (uint32_t x = b->x; x < b->x + b->w; x++) s += z->map[(size_t)y * z->map_w + x];
    return s / ((double)b->w * b->h);
}

/* Connected areas of low SSIM, largest first, as findings. */
static pg_err hotspots(pg_dz *z, pg_error *e) {
    const pg_design_result *r = z->r;
    size_t n = (size_t)z->map_w * z->map_h;
    uint8_t *m = malloc(n);
    if (!m) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for the SSIM map");
    uint32_t off = r->layout.win / 2;
    for (size_t i = 0; i < n; i++) m[i] = z->map[i] < HOT_S;
    for (uint32_t y = 0; z->skip && y < z->map_h; y++) { /* ignored areas are not findings */
        const uint8_t *sk = z->skip + (size_t)(y + r->layout.area.y + off) * z->W + r->layout.area.x + off;
        for (uint32_t x = 0; x < z->map_w; x++) m[(size_t)y * z->map_w + x] &= (uint8_t)!sk[x];
    }
    pg_region_info reg[HOT_MAX];
    size_t k = 0;
    pg_err rc = pg_morph_close(m, m, z->map_w, z->map_h, 2, 2, e);
    if (!rc) rc = pg_morph_components(m, z->map_w, z->map_h, n / 1000 + 1, reg, HOT_MAX, &k, e);
    for (size_t i = 0; !rc && i < k; i++) {
        double mean = map_mean(z, &reg[i].box);
        /* window top-left -> its centre, in reference canvas pixels */
        pg_img_rect box = {reg[i].box.x + r->layout.area.x + off, reg[i].box.y + r->layout.area.y + off, reg[i].box.w,
                           reg[i].box.h};
        pg_design_finding *f = pg_dz_finding(z, "layout", "structure_diff", pg_dz_area_severity(z, &box), 1.0 - mean);
        f->has_box = true, f->box = box;
        snprintf(f->observed, sizeof f->observed, "structure differs at x=%u,y=%u (%ux%u): mean SSIM %.2f there",
                 box.x, box.y, box.w, box.h, mean);
        snprintf(f->suggested_fix, sizeof f->suggested_fix,
                 "compare this area in the side-by-side image: shapes, borders, alignment or sharpness differ");
    }
    free(m);
    return rc;
}

pg_err pg_dz_layout(pg_dz *z, pg_error *e) {
    pg_design_result *r = z->r;
    int dx = r->align.dx, dy = r->align.dy;
    uint32_t x0 = dx < 0 ? (uint32_t)-dx : 0, y0 = dy < 0 ? (uint32_t)-dy : 0;
    uint32_t w = z->W - (uint32_t)abs(dx), h = z->H - (uint32_t)abs(dy);
    r->layout.area = (pg_img_rect){x0, y0, w, h};
    uint32_t win = pg_ssim_auto_win(w, h);
    r->layout.win = win;
    if (win == 0) {
        pg_dz_unscored(z, PG_DESIGN_LAYOUT, "the compared area is %ux%u: too small for SSIM (3x3 at least)", w, h);
        return PG_OK;
    }
    z->map_w = w - win + 1, z->map_h = h - win + 1;
    z->map = malloc(sizeof *z->map * z->map_w * z->map_h);
    if (!z->map) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for the SSIM map");
    pg_ssim_grey_in in = {z->ref.grey + (size_t)y0 * z->W + x0,
                          z->cand.grey + (size_t)(y0 + dy) * z->W + x0 + dx,
                          z->W, z->W, w, h, win,
                          z->skip ? z->skip + (size_t)y0 * z->W + x0 : NULL, z->W, z->map};
    pg_error le;
    double s;
    if (pg_ssim_grey(&in, &s, &r->layout.windows, &le)) {
        free(z->map);
        z->map = NULL;
        if (le.code == PG_E_INTERNAL) return pg_error_set(e, le.code, NULL, "%s", le.message);
        pg_dz_unscored(z, PG_DESIGN_LAYOUT, "%s", le.message);
        return PG_OK;
    }
    r->layout.ssim = s;
    pg_dz_scored(z, PG_DESIGN_LAYOUT, (s < 0 ? 0 : s > 1 ? 1 : s) * 100.0);
    return r->dim[PG_DESIGN_LAYOUT].score < 98.0 ? hotspots(z, e) : PG_OK;
}
