/* SPDX-License-Identifier: MIT */
/* pg_palette.c - see pg_palette.h. */
#include "pg_palette.h"

#include <stdlib.h>
#include <string.h>

#include "pg_color.h"

static const struct {
    const char *name;
    uint8_t rgb[3];
} names[] = {
    {"red", {220, 30, 30}},        {"dark red", {139, 0, 0}},     {"orange", {255, 140, 0}},
    {"yellow", {250, 220, 20}},    {"olive", {128, 128, 0}},      {"green", {40, 160, 50}},
    {"dark green", {0, 100, 0}},   {"lime", {150, 230, 60}},      {"teal", {0, 128, 128}},
    {"cyan", {0, 200, 220}},       {"light blue", {150, 190, 240}}, {"blue", {40, 90, 220}},
    {"navy", {0, 0, 128}},         {"purple", {128, 40, 160}},    {"magenta", {220, 0, 220}},
    {"pink", {250, 160, 190}},     {"brown", {140, 80, 30}},      {"beige", {235, 220, 180}},
};

/* Greys (chroma below this in CIELAB) are named by lightness alone. */
#define GREY_CHROMA 8.0

const char *pg_palette_name(const uint8_t rgb[3]) {
    pg_color_ctx cx;
    pg_color_ctx_init(&cx);
    pg_lab l = pg_color_lab(&cx, rgb[0], rgb[1], rgb[2]);
    double ch2 = l.a * l.a + l.b * l.b;
    if (ch2 < GREY_CHROMA * GREY_CHROMA) {
        if (l.L < 12) return "black";
        if (l.L < 40) return "dark gray";
        if (l.L < 70) return "gray";
        if (l.L < 94) return "light gray";
        return "white";
    }
    double best = 1e300;
    const char *bn = "gray";
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        pg_lab m = pg_color_lab(&cx, names[i].rgb[0], names[i].rgb[1], names[i].rgb[2]);
        double d = pg_color_de2000(&l, &m);
        if (d < best) best = d, bn = names[i].name;
    }
    return bn;
}

typedef struct {
    uint64_t n, r, g, b;
} bin;

typedef struct {
    uint64_t n, r, g, b;
    pg_lab lab; /* of the group's first bin: what others join to */
} group;


pg_err pg_palette_dominant(const pg_img *img, const pg_img_rect *region, unsigned max, pg_palette_color *out,
                           unsigned *n, pg_error *e) {
    *n = 0;
    if (max < 1 || max > PG_PALETTE_MAX) return pg_error_set(e, PG_E_USAGE, NULL, "max colours %u outside 1..%d", max, PG_PALETTE_MAX);
    pg_img v;
    pg_err rc = pg_img_view(img, region, &v, e);
    if (rc) return rc;
    bin *h = calloc(32768, sizeof *h);
    uint32_t *order = malloc(32768 * sizeof *order);
    if (!h || !order) {
        free(h), free(order);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    }
    for (uint32_t y = 0; y < v.height; y++) {
        const uint8_t *p = pg_img_row(&v, y);
        for (uint32_t x = 0; x < v.width; x++, p += 4) {
            uint32_t a = p[3], r = (p[0] * a + 255 * (255 - a) + 127) / 255, g = (p[1] * a + 255 * (255 - a) + 127) / 255,
                     b = (p[2] * a + 255 * (255 - a) + 127) / 255;
            bin *k = &h[((r >> 3) << 10) | ((g >> 3) << 5) | (b >> 3)];
            k->n++, k->r += r, k->g += g, k->b += b;
        }
    }
    /* Bins by count, largest first (ties: lower index): insertion into a
     * list of the non-empty ones. */
    size_t nb = 0;
    for (uint32_t i = 0; i < 32768; i++)
        if (h[i].n) order[nb++] = i;
    for (size_t i = 1; i < nb; i++) { /* few distinct bins in a GUI region: insertion sort is enough */
        uint32_t t = order[i];
        size_t j = i;
        while (j > 0 && (h[order[j - 1]].n < h[t].n || (h[order[j - 1]].n == h[t].n && order[j - 1] > t))) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = t;
    }
    pg_color_ctx cx;
    pg_color_ctx_init(&cx);
    group gr[PG_PALETTE_GROUPS];
    size_t ng = 0;
    uint64_t total = (uint64_t)v.width * v.height;
    for (size_t i = 0; i < nb; i++) {
        const bin *k = &h[order[i]];
        pg_lab l = pg_color_lab(&cx, (uint8_t)(k->r / k->n), (uint8_t)(k->g / k->n), (uint8_t)(k->b / k->n));
        size_t best = ng;
        double bd = 1e300;
        for (size_t j = 0; j < ng; j++) {
            double dL = l.L - gr[j].lab.L, da = l.a - gr[j].lab.a, db = l.b - gr[j].lab.b;
            double d = dL * dL + da * da + db * db;
            if (d < bd) bd = d, best = j;
        }
        if ((best == ng || bd > PG_PALETTE_JOIN * PG_PALETTE_JOIN) && ng < PG_PALETTE_GROUPS) {
            gr[ng] = (group){0, 0, 0, 0, l};
            best = ng++;
        }
        gr[best].n += k->n, gr[best].r += k->r, gr[best].g += k->g, gr[best].b += k->b;
    }
    /* Groups by size, largest first (ties: first made). */
    for (size_t i = 1; i < ng; i++) {
        group t = gr[i];
        size_t j = i;
        while (j > 0 && gr[j - 1].n < t.n) gr[j] = gr[j - 1], j--;
        gr[j] = t;
    }
    for (size_t i = 0; i < ng && *n < max; i++) {
        pg_palette_color *c = &out[(*n)++];
        c->rgb[0] = (uint8_t)((gr[i].r + gr[i].n / 2) / gr[i].n);
        c->rgb[1] = (uint8_t)((gr[i].g + gr[i].n / 2) / gr[i].n);
        c->rgb[2] = (uint8_t)((gr[i].b + gr[i].n / 2) / gr[i].n);
        c->count = gr[i].n;
        c->fraction = (double)gr[i].n / (double)total;
        c->name = pg_palette_name(c->rgb);
    }
    free(h);
    free(order);
    return PG_OK;
}
