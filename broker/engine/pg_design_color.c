/* SPDX-License-Identifier: MIT */
/* Design comparison, color: the dominant palette of each image (k-means in
 * CIELAB of a 160-px-wide downsample; identical colours are merged into one
 * weighted point first, which changes nothing in k-means but its cost),
 * paired one to one by minimum total cost: CIEDE2000 plus a penalty for
 * colours used in different places. CIEDE2000 alone paired a recoloured
 * button crosswise (it is no metric: green-pale plus pale-red can be less
 * than green-red), so the advice moved the new red towards the background's
 * pale green instead of back to the button's green. The pairs' dE, the mean
 * and the score stay plain CIEDE2000. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_design_int.h"
#include "pg_dmath.h"
#include "pg_hungarian.h"
#include "pg_kmeans.h"

#define SHIFT_DE 5.0      /* a pair this far apart is a finding */
#define LONE_SHARE 0.05   /* an unpaired swatch this large is a finding */
#define PLACE_DE 20.0     /* pairing colours used in none of the same places costs this much dE more: a
                             shift the findings call high, so only near-ties in dE change partner */

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    uint32_t *px;  /* packed RGB, sorted, then the distinct ones */
    double *pts, *w;
    uint8_t *lab;
    size_t n, u;   /* pixels, distinct colours */
} samples;

static void samples_free(samples *s) { free(s->px), free(s->pts), free(s->w), free(s->lab); }

/* Where each swatch is used: the swatch of every pixel of the downsample. */
typedef struct {
    uint8_t *of; /* w*h swatch indices */
    uint32_t w, h;
} swatch_map;

/* Packed colours of the downsample, sorted and merged. */
static pg_err gather(const pg_dz *z, const pg_img *ds, samples *s, pg_error *e) {
    s->n = (size_t)ds->width * ds->height;
    s->px = malloc(sizeof *s->px * s->n);
    s->pts = malloc(sizeof *s->pts * 3 * s->n);
    s->w = malloc(sizeof *s->w * s->n);
    s->lab = malloc(s->n);
    if (!s->px || !s->pts || !s->w || !s->lab) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for colours");
    size_t k = 0;
    for (uint32_t y = 0; y < ds->height; y++) {
        const uint8_t *p = pg_img_row(ds, y);
        for (uint32_t x = 0; x < ds->width; x++, p += 4) s->px[k++] = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
    }
    qsort(s->px, s->n, sizeof *s->px, cmp_u32);
    s->u = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (s->u && s->px[s->u - 1] == s->px[i]) {
            s->w[s->u - 1] += 1;
            continue;
        }
        s->px[s->u] = s->px[i];
        s->w[s->u] = 1;
        pg_lab l = pg_color_lab(&z->col, (uint8_t)(s->px[i] >> 16), (uint8_t)(s->px[i] >> 8), (uint8_t)s->px[i]);
        s->pts[3 * s->u] = l.L, s->pts[3 * s->u + 1] = l.a, s->pts[3 * s->u + 2] = l.b;
        s->u++;
    }
    return PG_OK;
}

/* Swatches: each cluster's mean sRGB (exact, over its pixels), its share. */
static void swatches(const samples *s, const pg_km_result *km, pg_design_swatch *out) {
    double sum[PG_KM_MAX_K][3];
    memset(sum, 0, sizeof sum);
    for (size_t i = 0; i < s->u; i++) {
        double *t = sum[s->lab[i]];
        t[0] += s->w[i] * (s->px[i] >> 16), t[1] += s->w[i] * ((s->px[i] >> 8) & 255), t[2] += s->w[i] * (s->px[i] & 255);
    }
    for (unsigned j = 0; j < km->k; j++) {
        pg_design_swatch *w = &out[j];
        for (int c = 0; c < 3; c++) w->rgb[c] = (uint8_t)(sum[j][c] / km->weight[j] + 0.5);
        pg_color_hex(w->rgb[0], w->rgb[1], w->rgb[2], w->hex);
        w->share = km->weight[j] / (double)s->n;
        w->lab = (pg_lab){km->centre[j][0], km->centre[j][1], km->centre[j][2]};
    }
}

/* The swatch map of ds: each pixel's distinct colour (s->px is sorted) and
 * that colour's cluster. */
static pg_err map_of(const samples *s, const pg_img *ds, swatch_map *map, pg_error *e) {
    map->w = ds->width, map->h = ds->height;
    map->of = malloc((size_t)map->w * map->h);
    if (!map->of) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for colours");
    size_t k = 0;
    for (uint32_t y = 0; y < ds->height; y++) {
        const uint8_t *p = pg_img_row(ds, y);
        for (uint32_t x = 0; x < ds->width; x++, p += 4) {
            uint32_t v = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
            const uint32_t *at = bsearch(&v, s->px, s->u, sizeof *s->px, cmp_u32); /* always there */
            map->of[k++] = at ? s->lab[at - s->px] : 0;
        }
    }
    return PG_OK;
}

static pg_err palette_of(pg_dz *z, const pg_dz_side *side, pg_design_swatch *out, unsigned *n_out, swatch_map *map,
                         pg_error *e) {
    pg_img view = *side->img, *ds = NULL;
    view.height = side->height; /* not the padding */
    samples s = {0};
    pg_err rc = pg_img_downscale_fit(&view, PG_DESIGN_COLOR_W, PG_IMG_MAX_SIDE, &ds, e);
    if (!rc) rc = gather(z, ds, &s, e);
    pg_km_opts ko;
    pg_km_opts_init(&ko);
    ko.k = PG_DESIGN_PALETTE;
    pg_km_result km;
    if (!rc) rc = pg_kmeans(s.pts, s.w, s.u, &ko, &km, s.lab, e);
    if (!rc) {
        swatches(&s, &km, out);
        *n_out = km.k;
        rc = map_of(&s, ds, map, e);
    }
    samples_free(&s);
    pg_img_free(ds);
    return rc;
}

static void shift_finding(pg_dz *z, unsigned i) {
    const pg_design_result *r = z->r;
    const pg_design_swatch *a = &r->color.ref[i], *b = &r->color.cand[r->color.pair[i]];
    double de = r->color.pair_de[i];
    pg_design_severity sev = de >= 20 ? PG_DESIGN_HIGH : de >= 10 ? PG_DESIGN_MEDIUM : PG_DESIGN_LOW;
    pg_design_finding *f = pg_dz_finding(z, "color", "color_shift", sev, de);
    f->has_colors = true;
    memcpy(f->ref_hex, a->hex, 8);
    memcpy(f->cand_hex, b->hex, 8);
    snprintf(f->observed, sizeof f->observed,
             "dominant colour reads %s (%.1f%% of the candidate) where the reference uses %s (%.1f%%): dE2000 %.1f",
             b->hex, b->share * 100, a->hex, a->share * 100, de);
    snprintf(f->suggested_fix, sizeof f->suggested_fix, "move %s toward %s", b->hex, a->hex);
}

static void lone_finding(pg_dz *z, const pg_design_swatch *s, int in_ref) {
    pg_design_finding *f = pg_dz_finding(z, "color", in_ref ? "color_missing" : "color_extra",
                                         s->share >= 0.2 ? PG_DESIGN_MEDIUM : PG_DESIGN_LOW, s->share * 100);
    f->has_colors = true;
    memcpy(in_ref ? f->ref_hex : f->cand_hex, s->hex, 8);
    if (in_ref) {
        snprintf(f->observed, sizeof f->observed, "reference colour %s (%.0f%%) has no counterpart in the candidate",
                 s->hex, s->share * 100);
        snprintf(f->suggested_fix, sizeof f->suggested_fix, "use %s where the reference does", s->hex);
    } else {
        snprintf(f->observed, sizeof f->observed, "candidate colour %s (%.0f%%) has no counterpart in the reference",
                 s->hex, s->share * 100);
        snprintf(f->suggested_fix, sizeof f->suggested_fix, "replace %s with a reference colour", s->hex);
    }
}

static void color_findings(pg_dz *z) {
    const pg_design_result *r = z->r;
    int cand_paired[PG_DESIGN_PALETTE] = {0};
    for (unsigned i = 0; i < r->color.n_ref; i++) {
        if (r->color.pair[i] < 0) {
            if (r->color.ref[i].share >= LONE_SHARE) lone_finding(z, &r->color.ref[i], 1);
            continue;
        }
        cand_paired[r->color.pair[i]] = 1;
        if (r->color.pair_de[i] >= SHIFT_DE) shift_finding(z, i);
    }
    for (unsigned j = 0; j < r->color.n_cand; j++)
        if (!cand_paired[j] && r->color.cand[j].share >= LONE_SHARE) lone_finding(z, &r->color.cand[j], 0);
}

/* o[i*m+j]: how much reference swatch i and candidate swatch j are used in
 * the same places, 0..1 (Dice: twice the pixels where both are, over the
 * pixels of either), on the rows and columns both downsamples have (the
 * canvases share their width; heights may differ). */
static void overlaps(const swatch_map *a, const swatch_map *b, unsigned n, unsigned m, double *o) {
    double both[PG_DESIGN_PALETTE][PG_DESIGN_PALETTE] = {{0}}, na[PG_DESIGN_PALETTE] = {0}, nb[PG_DESIGN_PALETTE] = {0};
    uint32_t w = a->w < b->w ? a->w : b->w, h = a->h < b->h ? a->h : b->h;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint8_t i = a->of[(size_t)y * a->w + x], j = b->of[(size_t)y * b->w + x];
            both[i][j] += 1, na[i] += 1, nb[j] += 1;
        }
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < m; j++) o[i * m + j] = na[i] + nb[j] > 0 ? 2 * both[i][j] / (na[i] + nb[j]) : 0;
}

/* Pairs the palettes (r->color.pair, pair_de: the plain dE of each pair) by
 * minimum total dE + PLACE_DE * (1 - overlap). When no colour shares a place
 * with another (layouts that differ throughout) every pair pays the same
 * penalty and the pairing is the plain minimum-dE one. */
static pg_err pair_palettes(pg_design_result *r, const swatch_map *ma, const swatch_map *mb, pg_error *e) {
    unsigned n = r->color.n_ref, m = r->color.n_cand;
    double o[PG_DESIGN_PALETTE * PG_DESIGN_PALETTE] = {0}, de[PG_DESIGN_PALETTE * PG_DESIGN_PALETTE] = {0};
    double cost[PG_DESIGN_PALETTE * PG_DESIGN_PALETTE] = {0}, total;
    overlaps(ma, mb, n, m, o);
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < m; j++) {
            de[i * m + j] = pg_color_de2000(&r->color.ref[i].lab, &r->color.cand[j].lab);
            cost[i * m + j] = de[i * m + j] + PLACE_DE * (1 - o[i * m + j]);
        }
    pg_err rc = pg_hungarian(cost, n, m, r->color.pair, &total, e);
    for (unsigned i = 0; !rc && i < n; i++)
        r->color.pair_de[i] = r->color.pair[i] >= 0 ? de[i * m + (unsigned)r->color.pair[i]] : 0;
    return rc;
}

pg_err pg_dz_color(pg_dz *z, pg_error *e) {
    pg_design_result *r = z->r;
    swatch_map ma = {0}, mb = {0};
    pg_err rc = palette_of(z, &z->ref, r->color.ref, &r->color.n_ref, &ma, e);
    if (!rc) rc = palette_of(z, &z->cand, r->color.cand, &r->color.n_cand, &mb, e);
    if (!rc) rc = pair_palettes(r, &ma, &mb, e);
    free(ma.of), free(mb.of);
    if (rc) return rc;
    double sum = 0;
    r->color.n_pairs = 0;
    for (unsigned i = 0; i < r->color.n_ref; i++)
        if (r->color.pair[i] >= 0) sum += r->color.pair_de[i], r->color.n_pairs++;
    r->color.mean_de = sum / r->color.n_pairs;
    pg_dz_scored(z, PG_DESIGN_COLOR, 100.0 * pg_dm_exp(-r->color.mean_de / 19.0));
    color_findings(z);
    return PG_OK;
}
