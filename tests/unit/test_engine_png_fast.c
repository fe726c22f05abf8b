/* SPDX-License-Identifier: MIT */
/* test_engine_png_fast: the PNG decoder's libdeflate fast path
 * (broker/engine/pg_img_png_fast.c) gives libpng's pixels, and leaves to
 * libpng every file it is not sure of: each PNG of tests/data and of the
 * fuzz corpus decodes to the same answer both ways; pixelgate's own PNGs
 * (every filter setting, RGB and RGBA, one IDAT and many) take the fast path
 * and round-trip exactly; damaged and cut files are refused as libpng
 * refuses them. */
#include <dirent.h>
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

#include "pg_img.h"
#include "pg_img_codec.h"
#include "pg_img_codec_private.h"
#include "pg_test.h"
#include "test_engine_util.h"

/* Both ways: the same error, or the same pixels. */
static int same_both_ways(const uint8_t *buf, size_t n, const char *what) {
    pg_img *a = NULL, *b = NULL;
    pg_error e1, e2;
    pg_err r1 = pg_img_decode_png(buf, n, NULL, &a, &e1), r2 = pg_img_decode_png_libpng(buf, n, NULL, &b, &e2);
    int ok = r1 == r2 && (r1 != PG_OK || tu_same_pixels(a, b));
    if (!ok) fprintf(stderr, "%s: fast path %d, libpng %d\n", what, (int)r1, (int)r2);
    pg_img_free(a);
    pg_img_free(b);
    return ok;
}

static int check_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "cannot open %s\n", dir);
        return 0;
    }
    int ok = 1, seen = 0;
    for (struct dirent *de; (de = readdir(d));) {
        if (de->d_name[0] == '.') continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        uint8_t *buf = malloc(1 << 22);
        size_t n = buf ? fread(buf, 1, 1 << 22, f) : 0;
        fclose(f);
        if (n >= 8 && !memcmp(buf, "\x89PNG", 4)) ok &= same_both_ways(buf, n, path), seen++;
        free(buf);
    }
    closedir(d);
    return ok && seen > 0;
}

PG_TEST(every_png_of_the_tests_decodes_the_same_both_ways) {
    CHECK(check_dir(PG_TEST_DATA_DIR));
    CHECK(check_dir(PG_FUZZ_CORPUS_DIR));
}

/* A w x h image: noise in the top half, gradients below (so libpng's filter
 * heuristic picks each of the five filters somewhere), alpha varied or not. */
static pg_img *pattern(uint32_t w, uint32_t h, bool alpha) {
    pg_img *img = NULL;
    pg_error e;
    if (pg_img_new(&img, w, h, &e)) return NULL;
    uint32_t s = 12345;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint32_t r = tu_rand(&s);
            if (y < h / 2) tu_set(img, x, y, (uint8_t)r, (uint8_t)(r >> 8), (uint8_t)(r >> 16), alpha ? (uint8_t)(r >> 24) : 255);
            else tu_set(img, x, y, (uint8_t)(x * 3), (uint8_t)(y * 5), (uint8_t)(x + y), alpha ? (uint8_t)(x ^ y) : 255);
        }
    return img;
}

PG_TEST(pixelgates_own_pngs_take_the_fast_path_and_round_trip) {
    static const pg_png_filter filters[] = {PG_PNG_FILTER_NONE, PG_PNG_FILTER_SUB, PG_PNG_FILTER_UP, PG_PNG_FILTER_ALL};
    static const uint32_t sizes[][2] = {{1, 1}, {13, 7}, {97, 61}, {700, 400}}; /* the last: many IDATs */
    for (int alpha = 0; alpha < 2; alpha++)
        for (size_t f = 0; f < sizeof filters / sizeof *filters; f++)
            for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
                pg_img *src = pattern(sizes[k][0], sizes[k][1], alpha);
                REQUIRE(src);
                pg_png_opts o = pg_png_opts_default();
                o.filter = filters[f];
                o.keep_alpha = alpha;
                uint8_t *png = NULL;
                size_t n = 0;
                pg_error e;
                REQUIRE(pg_img_encode_png(src, &o, &png, &n, &e) == PG_OK);
                pg_img *fast = NULL;
                CHECK_EQ_INT(pg_img_png_fast(png, n, NULL, &fast), PG_OK);
                CHECK(fast && tu_same_pixels(fast, src));
                CHECK(same_both_ways(png, n, "own png"));
                pg_img_free(fast);
                pg_img_free(src);
                free(png);
            }
}

PG_TEST(damaged_and_cut_pngs_are_refused_as_libpng_refuses_them) {
    pg_img *src = pattern(97, 61, true);
    REQUIRE(src);
    pg_png_opts o = pg_png_opts_default();
    o.keep_alpha = true;
    uint8_t *png = NULL;
    size_t n = 0;
    pg_error e;
    REQUIRE(pg_img_encode_png(src, &o, &png, &n, &e) == PG_OK);
    for (size_t at = 8; at < n; at += 97) { /* a flipped byte anywhere: a chunk's CRC no longer holds */
        png[at] ^= 0x40;
        CHECK(same_both_ways(png, n, "flipped byte"));
        png[at] ^= 0x40;
    }
    for (size_t cut = 8; cut < n; cut += 131) CHECK(same_both_ways(png, cut, "cut file"));
    pg_img *img = NULL;
    CHECK_EQ_INT(pg_img_png_fast(png, n - 12, NULL, &img), PG_E_UNSUPPORTED); /* no IEND: libpng decides */
    CHECK(img == NULL);
    /* An ancillary chunk whose type is not four letters, CRC right (found by
     * fuzz.fuzz_png_fast): libpng refuses the file, so the fast path must not
     * decode it. */
    uint8_t *odd = malloc(n + 12);
    REQUIRE(odd);
    memcpy(odd, png, n - 12);
    static const uint8_t chunk[12] = {0, 0, 0, 0, '5', 'x', 'y', 'z'};
    memcpy(odd + n - 12, chunk, 12);
    uint32_t crc = (uint32_t)libdeflate_crc32(0, odd + n - 8, 4);
    for (int i = 0; i < 4; i++) odd[n - 4 + i] = (uint8_t)(crc >> (24 - 8 * i));
    memcpy(odd + n, png + n - 12, 12); /* IEND */
    CHECK(same_both_ways(odd, n + 12, "a chunk type of a digit and letters"));
    CHECK_EQ_INT(pg_img_png_fast(odd, n + 12, NULL, &img), PG_E_UNSUPPORTED);
    free(odd);
    free(png);
    pg_img_free(src);
}
