/* SPDX-License-Identifier: MIT */
#include "pg_fingerprint.h"

#include <stdlib.h>
#include <string.h>

#include "pg_area.h"

pg_err pg_fingerprint_sha256(const pg_img *img, const pg_img_rect *region, uint8_t out[PG_SHA256_LEN], pg_error *e) {
    pg_img v;
    pg_err rc = pg_img_view(img, region, &v, e);
    if (rc) return rc;
    size_t row = (size_t)v.width * 4;
    if (v.stride == row) return pg_sha256(v.px, row * v.height, out, e); /* contiguous: one call */
    pg_sha256_ctx *c;
    rc = pg_sha256_new(&c, e);
    for (uint32_t y = 0; !rc && y < v.height; y++) rc = pg_sha256_update(c, pg_img_row(&v, y), row, e);
    if (rc) {
        pg_sha256_free(c);
        return rc;
    }
    return pg_sha256_final(c, out, e);
}

/* Grey of one row composited over white, scaled by 16384 (see the header). */
static void grey_row(const uint8_t *p, uint32_t w, uint32_t *g) {
    unsigned all = 0xff;
    for (uint32_t x = 0; x < w; x++) all &= p[4 * x + 3];
    if (all == 0xff) { /* opaque: the common case, no compositing */
        for (uint32_t x = 0; x < w; x++) g[x] = 4899u * p[4 * x] + 9617u * p[4 * x + 1] + 1868u * p[4 * x + 2];
        return;
    }
    for (uint32_t x = 0; x < w; x++) {
        uint32_t a = p[4 * x + 3], bg = 255u * (255u - a);
        uint32_t r = (p[4 * x] * a + bg + 127) / 255, gg = (p[4 * x + 1] * a + bg + 127) / 255,
                 b = (p[4 * x + 2] * a + bg + 127) / 255;
        g[x] = 4899u * r + 9617u * gg + 1868u * b;
    }
}

/* Area-weighted sum of one grey row into each of the map's columns. */
static void cells_row(const uint32_t *g, const pg_area_map *mx, uint64_t *cell) {
    for (uint32_t j = 0; j < mx->n_out; j++) {
        const pg_area_span *s = &mx->span[j];
        const uint32_t *w = mx->w + s->woff;
        const uint32_t *v = g + s->first;
        uint64_t sum = (uint64_t)v[0] * w[0];
        if (s->count > 1) sum += (uint64_t)v[s->count - 1] * w[s->count - 1];
        uint64_t inner = 0; /* interior pixels are fully covered: weight n_out */
        for (uint32_t k = 1; k + 1 < s->count; k++) inner += v[k];
        cell[j] += sum + inner * mx->n_out;
    }
}

pg_err pg_fingerprint_dhash(const pg_img *img, const pg_img_rect *region, uint64_t *out, pg_error *e) {
    pg_img v;
    pg_err rc = pg_img_view(img, region, &v, e);
    if (rc) return rc;
    pg_area_map mx, my;
    if ((rc = pg_area_map_build(&mx, v.width, 9, e))) return rc;
    if ((rc = pg_area_map_build(&my, v.height, 8, e))) {
        pg_area_map_free(&mx);
        return rc;
    }
    uint32_t *g = malloc(sizeof *g * v.width);
    uint64_t cell[8][9], row[9];
    memset(cell, 0, sizeof cell);
    if (!g) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    for (uint32_t r = 0; !rc && r < 8; r++) {
        const pg_area_span *s = &my.span[r];
        for (uint32_t k = 0; k < s->count; k++) {
            grey_row(pg_img_row(&v, s->first + k), v.width, g);
            memset(row, 0, sizeof row);
            cells_row(g, &mx, row);
            for (int c = 0; c < 9; c++) cell[r][c] += row[c] * my.w[s->woff + k];
        }
    }
    free(g);
    pg_area_map_free(&mx);
    pg_area_map_free(&my);
    if (rc) return rc;
    uint64_t h = 0; /* all cells share one denominator: compare the sums */
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++) h = h << 1 | (cell[r][c] < cell[r][c + 1]);
    *out = h;
    return PG_OK;
}

void pg_fingerprint_dhash_hex(uint64_t h, char out[17]) {
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++) out[i] = digits[(h >> (60 - 4 * i)) & 0xf];
    out[16] = 0;
}

pg_err pg_fingerprint_dhash_parse(const char *hex, uint64_t *out, pg_error *e) {
    uint64_t h = 0;
    for (int i = 0; i < 16; i++) {
        char c = hex ? hex[i] : 0;
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return pg_error_set(e, PG_E_USAGE, NULL, "dHash must be 16 hex digits");
        h = h << 4 | (uint64_t)d;
    }
    if (hex[16] != 0) return pg_error_set(e, PG_E_USAGE, NULL, "dHash must be 16 hex digits");
    *out = h;
    return PG_OK;
}

int pg_fingerprint_hamming(uint64_t a, uint64_t b) {
    uint64_t x = a ^ b;
    int n = 0;
    while (x) { /* Kernighan: one step per set bit, portable C */
        x &= x - 1;
        n++;
    }
    return n;
}
