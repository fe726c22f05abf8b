/* SPDX-License-Identifier: MIT */
/* color and assert color: the dominant colours of a region of a token, so
 * "the error label is red" is checkable without the pixels. Protected pixels: the region is at
 * least min_area pixels (--at means a neighbourhood of that size), colours
 * are reported to 4 bits a channel and fractions in 1/256 of the region,
 * and each colour is charged (docs/threat-model.md); assert color answers
 * the one closest to the expected colour, charged the same. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pg_disclose.h"
#include "pg_call.h"
#include "pg_color.h"
#include "pg_colorname.h"
#include "pg_palette.h"

/* A square of side ceil(sqrt(min_area)) (at least 16) around p, moved
 * inside the image; the whole image when it is smaller. */
static pg_img_rect around(uint32_t px, uint32_t py, uint32_t w, uint32_t h, uint32_t min_area) {
    uint32_t side = (uint32_t)ceil(sqrt((double)min_area));
    if (side < 16) side = 16;
    uint32_t sw = side < w ? side : w, sh = side < h ? side : h;
    int64_t x = (int64_t)px - sw / 2, y = (int64_t)py - sh / 2;
    if (x < 0) x = 0;
    if (y < 0) y = 0;
    if (x + sw > w) x = w - sw;
    if (y + sh > h) y = h - sh;
    return (pg_img_rect){(uint32_t)x, (uint32_t)y, sw, sh};
}

/* The measured rectangle: --region as given (inside the image, else
 * USAGE), the neighbourhood of --at, or the whole image. */
static pg_err color_rect(const pg_call *c, const pg_img *img, bool has_region, const pg_rect *region, bool has_at,
                         pg_point at, pg_img_rect *r, pg_error *e) {
    *r = (pg_img_rect){0, 0, img->width, img->height};
    if (has_region) *r = pg_call_img_rect(region);
    if (has_at) {
        if (at.x < 0 || at.y < 0 || (uint32_t)at.x >= img->width || (uint32_t)at.y >= img->height)
            return pg_error_set(e, PG_E_BADINPUT, "--at is a point inside the image", "point %d,%d is outside the %ux%u image",
                                (int)at.x, (int)at.y, img->width, img->height);
        *r = around((uint32_t)at.x, (uint32_t)at.y, img->width, img->height, c->view->min_area);
    }
    if (has_region && (r->x >= img->width || r->y >= img->height || r->w > img->width - r->x || r->h > img->height - r->y))
        return pg_error_set(e, PG_E_USAGE, "the region must lie inside the image", "region %u,%u %ux%u is outside the %ux%u image",
                            r->x, r->y, r->w, r->h, img->width, img->height);
    return PG_OK;
}

/* Up to max dominant colours of the token's rectangle, after the min-area
 * rule; *r the rectangle measured. */
static pg_err measure(pg_call *c, const char *token, bool has_region, const pg_rect *region, bool has_at, pg_point at,
                      unsigned max, pg_palette_color *col, unsigned *n, pg_img_rect *r, pg_error *e) {
    pg_img *img = NULL;
    char label[64];
    pg_err rc = pg_call_token_image(c, token, &img, label, NULL, e);
    if (rc) return rc;
    rc = color_rect(c, img, has_region, region, has_at, at, r, e);
    if (!rc) rc = pg_call_area(c, (uint64_t)r->w * r->h, "colours of a region", e);
    if (!rc) rc = pg_palette_dominant(img, r, max, col, n, e);
    pg_img_free(img);
    return rc;
}

/* Protected pixels: 4 bits a channel (12 bits), the fraction in 1/256 of
 * the region rounded up, so a colour present never reads as absent (log2 257
 * bits); exact otherwise. Returns the bits it reveals. */
static double coarse(const pg_palette_color *in, bool q, uint64_t total, uint8_t rgb[3], double *frac) {
    for (int k = 0; k < 3; k++) rgb[k] = q ? (uint8_t)((in->rgb[k] >> 4) * 17) : in->rgb[k];
    *frac = q ? (double)((in->count * 256 + total - 1) / total) / 256.0 : (int)(in->fraction * 10000 + 0.5) / 10000.0;
    return q ? 12 + 8.01 : 0;
}

static cJSON *color_json(const uint8_t rgb[3], double frac) {
    char hex[8];
    snprintf(hex, sizeof hex, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "hex", hex);
    cJSON_AddStringToObject(x, "name", pg_palette_name(rgb)); /* of what is reported: no extra bits */
    cJSON_AddNumberToObject(x, "fraction", frac);
    return x;
}

/* region, quantized, token: what every answer of the family ends with. */
static void add_tail(cJSON *o, const pg_img_rect *r, bool q, const char *token) {
    cJSON_AddItemToObject(o, "region", pg_rect_json(r));
    cJSON_AddBoolToObject(o, "quantized", q);
    cJSON_AddStringToObject(o, "token", token);
}

pg_err pg_op_color(pg_call *c, const pg_args_color *a, pg_error *e) {
    c->audit.kind = "color";
    if (a->has_region && a->has_at)
        return pg_error_set(e, PG_E_USAGE, "give --region or --at (or neither: the whole image)",
                            "color takes one of --region and --at");
    pg_palette_color col[PG_PALETTE_MAX];
    unsigned n = 0;
    pg_img_rect r;
    pg_err rc = measure(c, a->token, a->has_region, &a->region, a->has_at, a->at, (unsigned)a->max, col, &n, &r, e);
    if (rc) return rc;
    bool q = pg_call_protected(c);
    double bits = 0;
    cJSON *o = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(o, "colors");
    for (unsigned i = 0; i < n; i++) {
        uint8_t rgb[3];
        double frac;
        bits += coarse(&col[i], q, (uint64_t)r.w * r.h, rgb, &frac);
        cJSON_AddItemToArray(arr, color_json(rgb, frac));
    }
    rc = pg_call_disclose(c, bits, e);
    if (rc) {
        cJSON_Delete(o);
        return rc;
    }
    add_tail(o, &r, q, a->token);
    snprintf(c->audit.detail, sizeof c->audit.detail, "%u colours of %ux%u%s", n, r.w, r.h, q ? ", quantised" : "");
    c->result = o;
    return PG_OK;
}

/* ---- assert color ---- */

/* The colours assert color compares against: as many as color answers at most. */
#define ASSERT_COLORS 4

/* Of the n colours (as reported: quantised under protection), the one
 * closest to want by CIEDE2000; *de its distance. */
static unsigned closest(const pg_palette_color *col, unsigned n, bool q, uint64_t total, const uint8_t want[3],
                        double *de) {
    pg_color_ctx cx;
    pg_color_ctx_init(&cx);
    pg_lab w = pg_color_lab(&cx, want[0], want[1], want[2]);
    unsigned best = 0;
    *de = 1e300;
    for (unsigned i = 0; i < n; i++) {
        uint8_t rgb[3];
        double frac;
        (void)coarse(&col[i], q, total, rgb, &frac);
        pg_lab m = pg_color_lab(&cx, rgb[0], rgb[1], rgb[2]);
        double d = pg_color_de2000(&m, &w);
        if (d < *de) *de = d, best = i;
    }
    return best;
}

static cJSON *expect_json(const uint8_t rgb[3], const char *given) {
    char hex[8];
    snprintf(hex, sizeof hex, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "hex", hex);
    cJSON_AddStringToObject(x, "given", given);
    return x;
}

/* The verdict is computed from the colour as reported (quantised under
 * protection), so it and delta_e tell nothing the colour does not: one
 * answer is the colour's 12 bits and its fraction's 8, charged like color's. */
pg_err pg_op_assert_color(pg_call *c, const pg_args_assert_color *a, pg_error *e) {
    c->audit.kind = "color";
    uint8_t want[3];
    pg_err rc = pg_colorname_parse(a->expect, want, e);
    if (rc) return rc;
    pg_palette_color col[PG_PALETTE_MAX];
    unsigned n = 0;
    pg_img_rect r;
    rc = measure(c, a->token, a->has_region, &a->region, a->has_at, a->at, ASSERT_COLORS, col, &n, &r, e);
    if (rc) return rc;
    if (n == 0) return pg_error_set(e, PG_E_BLOCKED, "measure an opaque region", "the region has no opaque colour");
    bool q = pg_call_protected(c);
    uint64_t total = (uint64_t)r.w * r.h;
    double de;
    unsigned i = closest(col, n, q, total, want, &de);
    uint8_t rgb[3];
    double frac;
    rc = pg_call_disclose(c, coarse(&col[i], q, total, rgb, &frac), e);
    if (rc) return rc;
    de = round(de * 10) / 10;
    bool pass = de <= a->tolerance;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "passed", pass);
    cJSON_AddItemToObject(o, "expect", expect_json(want, a->expect));
    cJSON_AddItemToObject(o, "measured", color_json(rgb, frac));
    cJSON_AddNumberToObject(o, "delta_e", de);
    cJSON_AddNumberToObject(o, "tolerance", a->tolerance);
    add_tail(o, &r, q, a->token);
    snprintf(c->audit.detail, sizeof c->audit.detail, "assert color %.32s in %ux%u%s: %s", a->expect, r.w, r.h,
             q ? ", quantised" : "", pass ? "passed" : "failed");
    return pg_call_verdict(c, o, pass, e, "the closest colour measured is in \"measured\"; check the region or --tolerance",
                           "colour not found: the closest measured is %.1f from the expected (CIEDE2000), over the "
                           "tolerance %.1f", de, a->tolerance);
}
