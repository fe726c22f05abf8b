/* SPDX-License-Identifier: MIT */
/* color: the dominant colours of a region of a token, so "the error label is
 * red" is checkable without the pixels. Protected pixels: the region is at
 * least min_area pixels (--at means a neighbourhood of that size), colours
 * are reported to 4 bits a channel and fractions in 1/256 of the region,
 * and each colour is charged (docs/threat-model.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pg_disclose.h"
#include "pg_call.h"
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

pg_err pg_op_color(pg_call *c, const pg_args_color *a, pg_error *e) {
    c->audit.kind = "color";
    if (a->has_region && a->has_at)
        return pg_error_set(e, PG_E_USAGE, "give --region or --at (or neither: the whole image)",
                            "color takes one of --region and --at");
    pg_img *img = NULL;
    char label[64];
    pg_err rc = pg_call_token_image(c, a->token, &img, label, NULL, e);
    if (rc) return rc;
    pg_img_rect r = {0, 0, img->width, img->height};
    if (a->has_region) r = pg_call_img_rect(&a->region);
    if (a->has_at) {
        if (a->at.x < 0 || a->at.y < 0 || (uint32_t)a->at.x >= img->width || (uint32_t)a->at.y >= img->height) {
            pg_img_free(img);
            return pg_error_set(e, PG_E_BADINPUT, "--at is a point inside the image", "point %d,%d is outside the %ux%u image",
                                (int)a->at.x, (int)a->at.y, img->width, img->height);
        }
        r = around((uint32_t)a->at.x, (uint32_t)a->at.y, img->width, img->height, c->view->min_area);
    }
    if (a->has_region && (r.x >= img->width || r.y >= img->height || r.w > img->width - r.x || r.h > img->height - r.y)) {
        pg_img_free(img);
        return pg_error_set(e, PG_E_USAGE, "the region must lie inside the image", "region %u,%u %ux%u is outside the %ux%u image",
                            r.x, r.y, r.w, r.h, img->width, img->height);
    }
    rc = pg_call_area(c, (uint64_t)r.w * r.h, "colours of a region", e);
    pg_palette_color col[PG_PALETTE_MAX];
    unsigned n = 0;
    if (!rc) rc = pg_palette_dominant(img, &r, (unsigned)a->max, col, &n, e);
    pg_img_free(img);
    if (rc) return rc;
    bool q = pg_call_protected(c);
    double bits = 0;
    cJSON *o = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(o, "colors");
    uint64_t total = (uint64_t)r.w * r.h;
    for (unsigned i = 0; i < n; i++) {
        uint8_t rgb[3];
        double frac = col[i].fraction;
        for (int k = 0; k < 3; k++) rgb[k] = q ? (uint8_t)((col[i].rgb[k] >> 4) * 17) : col[i].rgb[k];
        if (q) {
            bits += 12; /* 4 bits a channel */
            /* in 1/256 of the region, rounded up: a colour present never reads as absent */
            frac = (double)((col[i].count * 256 + total - 1) / total) / 256.0;
            bits += 8.01; /* log2 257 */
        }
        char hex[8];
        snprintf(hex, sizeof hex, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "hex", hex);
        cJSON_AddStringToObject(x, "name", pg_palette_name(rgb)); /* of what is reported: no extra bits */
        cJSON_AddNumberToObject(x, "fraction", q ? frac : (int)(frac * 10000 + 0.5) / 10000.0);
        cJSON_AddItemToArray(arr, x);
    }
    rc = pg_call_disclose(c, bits, e);
    if (rc) {
        cJSON_Delete(o);
        return rc;
    }
    cJSON_AddItemToObject(o, "region", pg_rect_json(&r));
    cJSON_AddBoolToObject(o, "quantized", q);
    cJSON_AddStringToObject(o, "token", a->token);
    snprintf(c->audit.detail, sizeof c->audit.detail, "%u colours of %ux%u%s", n, r.w, r.h, q ? ", quantised" : "");
    c->result = o;
    return PG_OK;
}
