/* SPDX-License-Identifier: MIT */
/* test_engine_util.h - helpers shared by the engine unit tests: deterministic
 * synthetic images and reading the committed files in tests/data. */
#ifndef TEST_ENGINE_UTIL_H
#define TEST_ENGINE_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_img.h"

#ifndef PG_TEST_DATA_DIR
#define PG_TEST_DATA_DIR "tests/data"
#endif

/* Whole file into a malloc'd buffer; NULL if unreadable. */
static inline uint8_t *tu_read(const char *name, size_t *n) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", PG_TEST_DATA_DIR, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(len > 0 ? (size_t)len : 1);
    *n = buf ? fread(buf, 1, (size_t)len, f) : 0;
    fclose(f);
    return buf;
}

/* xorshift32: deterministic noise without libc rand(). */
static inline uint32_t tu_rand(uint32_t *s) {
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

static inline void tu_set(pg_img *img, uint32_t x, uint32_t y, uint8_t r, uint8_t g, uint8_t b, uint8_t a) {
    uint8_t *p = pg_img_row(img, y) + 4 * (size_t)x;
    p[0] = r;
    p[1] = g;
    p[2] = b;
    p[3] = a;
}

static inline const uint8_t *tu_px(const pg_img *img, uint32_t x, uint32_t y) {
    return pg_img_row(img, y) + 4 * (size_t)x;
}

static inline void tu_fill(pg_img *img, uint8_t r, uint8_t g, uint8_t b, uint8_t a) {
    for (uint32_t y = 0; y < img->height; y++)
        for (uint32_t x = 0; x < img->width; x++) tu_set(img, x, y, r, g, b, a);
}

static inline void tu_rect(pg_img *img, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, uint8_t r, uint8_t g,
                           uint8_t b) {
    for (uint32_t y = y0; y < y0 + h && y < img->height; y++)
        for (uint32_t x = x0; x < x0 + w && x < img->width; x++) tu_set(img, x, y, r, g, b, 255);
}

static inline void tu_noise(pg_img *img, uint32_t seed) {
    for (uint32_t y = 0; y < img->height; y++)
        for (uint32_t x = 0; x < img->width; x++) {
            uint32_t v = tu_rand(&seed);
            tu_set(img, x, y, (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), 255);
        }
}

static inline int tu_same_pixels(const pg_img *a, const pg_img *b) {
    if (a->width != b->width || a->height != b->height) return 0;
    for (uint32_t y = 0; y < a->height; y++)
        if (memcmp(pg_img_row(a, y), pg_img_row(b, y), (size_t)a->width * 4)) return 0;
    return 1;
}

#endif
