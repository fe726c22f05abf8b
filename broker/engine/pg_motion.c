/* SPDX-License-Identifier: MIT */
/* Motion signatures of frame series and their comparison (see pg_motion.h). */
#include "pg_motion.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_jnum.h"
#include "pg_template.h"

static uint64_t row_absdiff(const uint8_t *a, const uint8_t *b, size_t w) {
    uint64_t s = 0;
    for (size_t x = 0; x < w; x++) s += (uint64_t)(a[x] > b[x] ? a[x] - b[x] : b[x] - a[x]);
    return s;
}

/* Mean absolute grey difference of two frames, / 255. */
static pg_err frame_change(const pg_img *a, const pg_img *b, uint8_t *ga, uint8_t *gb, double *out, pg_error *e) {
    uint64_t s = 0;
    for (uint32_t y = 0; y < a->height; y++) {
        pg_img_rect row = {0, y, a->width, 1};
        pg_img va, vb;
        pg_err rc = pg_img_view(a, &row, &va, e);
        if (!rc) rc = pg_img_view(b, &row, &vb, e);
        if (rc) return rc;
        pg_template_grey(&va, ga);
        pg_template_grey(&vb, gb);
        s += row_absdiff(ga, gb, a->width);
    }
    *out = (double)s / (255.0 * (double)a->width * (double)a->height);
    return PG_OK;
}

pg_err pg_motion_signature(const pg_img *const *frames, size_t n, double *sig, pg_error *e) {
    if (n < 2 || n > PG_MOTION_MAX_FRAMES)
        return pg_error_set(e, PG_E_USAGE, "capture 2 to 600 frames", "a motion series needs 2..%d frames, got %zu",
                            PG_MOTION_MAX_FRAMES, n);
    uint32_t w = frames[0]->width, h = frames[0]->height;
    for (size_t i = 1; i < n; i++)
        if (frames[i]->width != w || frames[i]->height != h)
            return pg_error_set(e, PG_E_BADINPUT, "capture every frame of a series from the same area",
                                "frame %zu is %ux%u, frame 0 is %ux%u", i, frames[i]->width, frames[i]->height, w, h);
    uint8_t *ga = malloc(w), *gb = malloc(w);
    pg_err rc = (!ga || !gb) ? pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for a motion signature") : PG_OK;
    for (size_t i = 1; !rc && i < n; i++) rc = frame_change(frames[i - 1], frames[i], ga, gb, &sig[i - 1], e);
    free(ga), free(gb);
    return rc;
}

static double mean(const double *v, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += v[i];
    return s / (double)n;
}

/* Pearson correlation; false when a series has no variance. */
static bool pearson(const double *a, const double *b, size_t n, double *out) {
    double ma = mean(a, n), mb = mean(b, n), sab = 0, saa = 0, sbb = 0;
    for (size_t i = 0; i < n; i++) {
        double da = a[i] - ma, db = b[i] - mb;
        sab += da * db, saa += da * da, sbb += db * db;
    }
    if (!(saa > 0 && sbb > 0)) return false;
    double c = sab / sqrt(saa * sbb);
    *out = c > 1 ? 1 : c < -1 ? -1 : c;
    return true;
}

static void correlate(pg_motion_result *r) {
    size_t n = (r->n_ref < r->n_cand ? r->n_ref : r->n_cand) - 1;
    r->corr_len = n;
    if (!r->ref_moving || !r->cand_moving)
        snprintf(r->note, sizeof r->note, "%s static: no temporal profile to correlate",
                 !r->ref_moving && !r->cand_moving ? "both series are" : !r->ref_moving ? "the reference is" : "the candidate is");
    else if (n < 3)
        snprintf(r->note, sizeof r->note, "only %zu common signature values: too few to correlate", n);
    else if (!(r->corr_defined = pearson(r->ref_sig, r->cand_sig, n, &r->temporal_corr)))
        snprintf(r->note, sizeof r->note, "steady motion (a flat signature): no temporal profile to correlate");
}

pg_err pg_motion_compare(const pg_img *const *ref, size_t n_ref, const pg_img *const *cand, size_t n_cand,
                         pg_motion_result *r, pg_error *e) {
    memset(r, 0, sizeof *r);
    pg_err rc = pg_motion_signature(ref, n_ref, r->ref_sig, e);
    if (!rc) rc = pg_motion_signature(cand, n_cand, r->cand_sig, e);
    if (rc) return rc;
    r->n_ref = n_ref, r->n_cand = n_cand;
    pg_motion_summarise(r);
    return PG_OK;
}

void pg_motion_summarise(pg_motion_result *r) {
    r->corr_defined = false;
    r->temporal_corr = 0;
    r->note[0] = '\0';
    r->ref_energy = mean(r->ref_sig, r->n_ref - 1);
    r->cand_energy = mean(r->cand_sig, r->n_cand - 1);
    double lo = r->ref_energy < r->cand_energy ? r->ref_energy : r->cand_energy;
    double hi = r->ref_energy < r->cand_energy ? r->cand_energy : r->ref_energy;
    r->energy_ratio = hi > 0 ? lo / hi : 1.0;
    r->ref_moving = r->ref_energy >= PG_MOTION_STATIC;
    r->cand_moving = r->cand_energy >= PG_MOTION_STATIC;
    if (r->ref_moving != r->cand_moving) r->motion_score = 0;
    else if (!r->ref_moving) r->motion_score = 100;
    else r->motion_score = 100 * r->energy_ratio;
    correlate(r);
}

/* ---- the plot ---- */

static void dot(pg_img *img, int x, int y, const uint8_t c[3]) {
    for (int dy = 0; dy < 2; dy++)
        for (int dx = 0; dx < 2; dx++) {
            int px = x + dx, py = y + dy;
            if (px < 0 || py < 0 || px >= (int)img->width || py >= (int)img->height) continue;
            uint8_t *p = pg_img_row(img, (uint32_t)py) + 4 * px;
            p[0] = c[0], p[1] = c[1], p[2] = c[2], p[3] = 255;
        }
}

static void line(pg_img *img, int x0, int y0, int x1, int y1, const uint8_t c[3], int dash) {
    int dx = abs(x1 - x0), sx = x0 < x1 ? 1 : -1, dy = -abs(y1 - y0), sy = y0 < y1 ? 1 : -1, err = dx + dy;
    for (int k = 0;; k++) {
        if (!dash || (k / 6) % 2 == 0) dot(img, x0, y0, c);
        if (x0 == x1 && y0 == y1) return;
        int e2 = 2 * err;
        if (e2 >= dy) err += dy, x0 += sx;
        if (e2 <= dx) err += dx, y0 += sy;
    }
}

#define M_L 40
#define M_R 12
#define M_T 12
#define M_B 24

static int px_x(size_t i, size_t n) {
    int w = PG_MOTION_PLOT_W - M_L - M_R;
    return M_L + (n > 1 ? (int)((double)i * w / (double)(n - 1) + 0.5) : 0);
}

static int px_y(double v, double top) {
    int h = PG_MOTION_PLOT_H - M_T - M_B;
    double f = v / top;
    if (f > 1) f = 1;
    return PG_MOTION_PLOT_H - M_B - (int)(f * h + 0.5);
}

static void series(pg_img *img, const double *s, size_t n, size_t span, double top, const uint8_t c[3]) {
    for (size_t i = 0; i < n; i++) {
        int x = px_x(i, span), y = px_y(s[i], top);
        if (i) line(img, px_x(i - 1, span), px_y(s[i - 1], top), x, y, c, 0);
        else dot(img, x, y, c);
    }
}

pg_err pg_motion_plot(const pg_motion_result *r, pg_img **out, pg_error *e) {
    static const uint8_t axis[3] = {60, 60, 60}, grid[3] = {225, 225, 225}, thr[3] = {150, 150, 150},
                         green[3] = {0, 160, 0}, blue[3] = {20, 80, 220};
    pg_err rc = pg_img_new(out, PG_MOTION_PLOT_W, PG_MOTION_PLOT_H, e);
    if (rc) return rc;
    memset((*out)->px, 255, (size_t)PG_MOTION_PLOT_W * PG_MOTION_PLOT_H * 4);
    size_t nr = r->n_ref ? r->n_ref - 1 : 0, nc = r->n_cand ? r->n_cand - 1 : 0, span = nr > nc ? nr : nc;
    double top = 2 * PG_MOTION_STATIC;
    for (size_t i = 0; i < nr; i++) top = r->ref_sig[i] > top ? r->ref_sig[i] : top;
    for (size_t i = 0; i < nc; i++) top = r->cand_sig[i] > top ? r->cand_sig[i] : top;
    top *= 1.1;
    int x1 = PG_MOTION_PLOT_W - M_R, yb = PG_MOTION_PLOT_H - M_B;
    for (int g = 1; g <= 4; g++) line(*out, M_L, px_y(top * g / 4.4, top), x1, px_y(top * g / 4.4, top), grid, 0);
    line(*out, M_L, px_y(PG_MOTION_STATIC, top), x1, px_y(PG_MOTION_STATIC, top), thr, 1);
    line(*out, M_L, M_T, M_L, yb, axis, 0);
    line(*out, M_L, yb, x1, yb, axis, 0);
    series(*out, r->ref_sig, nr, span, top, green);
    series(*out, r->cand_sig, nc, span, top, blue);
    return PG_OK;
}

/* ---- JSON ---- */

static int add_sig(cJSON *o, const char *k, const double *s, size_t n) {
    cJSON *a = cJSON_CreateArray();
    if (!a || !cJSON_AddItemToObject(o, k, a)) {
        cJSON_Delete(a);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        cJSON *v = pg_jnum(s[i], 6);
        if (!v || !cJSON_AddItemToArray(a, v)) {
            cJSON_Delete(v);
            return 0;
        }
    }
    return 1;
}

static int add_bool(cJSON *o, const char *k, bool v) { return cJSON_AddBoolToObject(o, k, v) != NULL; }

pg_err pg_motion_result_json(const pg_motion_result *r, cJSON **out, pg_error *e) {
    cJSON *o = cJSON_CreateObject();
    int ok = o != NULL;
    ok = ok && pg_jnum_add(o, "ref_energy", r->ref_energy, 6) && pg_jnum_add(o, "cand_energy", r->cand_energy, 6);
    ok = ok && pg_jnum_add(o, "energy_ratio", r->energy_ratio, 4);
    if (ok && r->corr_defined) ok = pg_jnum_add(o, "temporal_corr", r->temporal_corr, 4);
    else if (ok) ok = cJSON_AddNullToObject(o, "temporal_corr") && cJSON_AddStringToObject(o, "temporal_corr_note", r->note);
    ok = ok && add_bool(o, "ref_moving", r->ref_moving) && add_bool(o, "cand_moving", r->cand_moving);
    ok = ok && pg_jnum_add(o, "motion_score", r->motion_score, 2);
    ok = ok && pg_jnum_add(o, "static_threshold", PG_MOTION_STATIC, 6);
    ok = ok && pg_jnum_add(o, "ref_frames", (double)r->n_ref, 0) && pg_jnum_add(o, "cand_frames", (double)r->n_cand, 0);
    ok = ok && add_sig(o, "ref_signature", r->ref_sig, r->n_ref - 1) &&
         add_sig(o, "cand_signature", r->cand_sig, r->n_cand - 1);
    if (!ok) {
        cJSON_Delete(o);
        *out = NULL;
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory for JSON");
    }
    *out = o;
    return PG_OK;
}
