/* SPDX-License-Identifier: MIT */
/* test_engine_ui.h - generated UI-like screens for the design-comparison
 * tests: a header bar with a title, three cards with lines of pseudo-text
 * (blocky glyphs from a fixed pattern, scaled by the "font" size), an accent
 * square and a call-to-action button; plus the degradations the tests apply
 * (blur, recolour, removed element, shifted block, larger font). */
#ifndef TEST_ENGINE_UI_H
#define TEST_ENGINE_UI_H

#include "pg_img.h"
#include "test_engine_util.h"

enum { UI_CTA = 1, UI_CARD3 = 2, UI_CARD2 = 4, UI_HEADER = 8 };

typedef struct {
    uint32_t w, h;
    uint8_t bg[3], header[3], card[3], accent[3], text[3];
    int glyph;        /* pseudo-font unit in px: a glyph is 3x5 units */
    unsigned hide;    /* UI_* elements left out */
    int shift_cta;    /* px down */
} ui_spec;

static inline void ui_default(ui_spec *s) {
    *s = (ui_spec){768, 600, {244, 245, 247}, {40, 60, 120}, {255, 255, 255}, {40, 120, 220}, {30, 30, 30}, 2, 0, 0};
}

/* A glyph: 3x5 cells, bit pattern from the letter index (never empty). */
static inline void ui_glyph(pg_img *img, int x, int y, int unit, unsigned k, const uint8_t c[3]) {
    uint32_t bits = (k * 2654435761u) >> 7 | 0x4925; /* 0x4925: a vertical stroke, so no glyph is blank */
    for (int gy = 0; gy < 5; gy++)
        for (int gx = 0; gx < 3; gx++)
            if (bits >> (gy * 3 + gx) & 1) tu_rect(img, (uint32_t)(x + gx * unit), (uint32_t)(y + gy * unit),
                                                   (uint32_t)unit, (uint32_t)unit, c[0], c[1], c[2]);
}

/* Words of pseudo-text from x to at most x_end; returns nothing. */
static inline void ui_text(pg_img *img, int x, int y, int x_end, int unit, unsigned seed, const uint8_t c[3]) {
    unsigned k = seed;
    while (x + 3 * unit <= x_end) {
        int letters = 3 + (int)(k % 5);
        if (x + letters * 4 * unit > x_end) break;
        for (int i = 0; i < letters; i++, k++) ui_glyph(img, x + i * 4 * unit, y, unit, k * 7 + 3, c);
        x += letters * 4 * unit + 3 * unit;
        k = k * 1103515245u + 12345u;
    }
}

static inline void ui_fill(pg_img *img, int x, int y, int w, int h, const uint8_t c[3]) {
    tu_rect(img, (uint32_t)x, (uint32_t)y, (uint32_t)w, (uint32_t)h, c[0], c[1], c[2]);
}

/* A card: fill, then lines of text at the font's line pitch. */
static inline void ui_card(pg_img *img, const ui_spec *s, int x, int y, int w, int h, int lines, unsigned seed) {
    ui_fill(img, x, y, w, h, s->card);
    int pitch = 5 * s->glyph + 3 * s->glyph + 4;
    for (int i = 0; i < lines && 16 + (i + 1) * pitch <= h; i++)
        ui_text(img, x + 16, y + 16 + i * pitch, x + w - 16 - (i % 2) * w / 4, s->glyph, seed + (unsigned)i * 31, s->text);
}

static inline void ui_draw(pg_img *img, const ui_spec *s) {
    static const uint8_t white[3] = {255, 255, 255};
    tu_fill(img, s->bg[0], s->bg[1], s->bg[2], 255);
    if (!(s->hide & UI_HEADER)) {
        ui_fill(img, 0, 0, (int)s->w, 56, s->header);
        ui_text(img, 24, 28 - 5 * s->glyph / 2, 400, s->glyph, 5, white);
    }
    ui_card(img, s, 32, 88, 704, 120, 3, 11);
    if (!(s->hide & UI_CARD2)) {
        ui_card(img, s, 32, 240, 328, 140, 2, 23);
        ui_fill(img, 300, 340, 40, 24, s->accent);
    }
    if (!(s->hide & UI_CARD3)) ui_card(img, s, 392, 240, 344, 140, 3, 37);
    if (!(s->hide & UI_CTA)) {
        int y = 480 + s->shift_cta;
        ui_fill(img, 32, y, 200, 48, s->accent);
        ui_text(img, 56, y + 24 - 5 * s->glyph / 2, 220, s->glyph, 41, white);
    }
}

static inline pg_img *ui_new(const ui_spec *s) {
    pg_img *img;
    if (pg_img_new(&img, s->w, s->h, NULL)) return NULL;
    ui_draw(img, s);
    return img;
}

/* Separable box blur of radius r (each channel, rounding half up). */
static inline void ui_blur(pg_img *img, int r) {
    if (r <= 0) return;
    uint32_t w = img->width, h = img->height;
    uint8_t *tmp = malloc((size_t)w * h * 4);
    if (!tmp) return;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++)
                for (int c = 0; c < 4; c++) {
                    int sum = 0, n = 0;
                    for (int k = -r; k <= r; k++) {
                        int xx = pass ? (int)x : (int)x + k, yy = pass ? (int)y + k : (int)y;
                        if (xx < 0 || yy < 0 || xx >= (int)w || yy >= (int)h) continue;
                        sum += tu_px(img, (uint32_t)xx, (uint32_t)yy)[c], n++;
                    }
                    tmp[((size_t)y * w + x) * 4 + (size_t)c] = (uint8_t)((2 * sum + n) / (2 * n));
                }
        for (uint32_t y = 0; y < h; y++) memcpy(pg_img_row(img, y), tmp + (size_t)y * w * 4, (size_t)w * 4);
    }
    free(tmp);
}

#endif
