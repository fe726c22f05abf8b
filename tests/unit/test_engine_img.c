/* SPDX-License-Identifier: MIT */
/* pg_img and pg_img_codec: ownership, views, crop, area downscale, decoders
 * under caps, corrupt and truncated input, PNG round trip. */
#include <stdlib.h>
#include <string.h>

#include "pg_img.h"
#include "pg_img_codec.h"
#include "pg_test.h"
#include "test_engine_util.h"

PG_TEST(new_is_zeroed_tight_and_rejects_zero_area) {
    pg_img *img;
    pg_error e;
    REQUIRE(pg_img_new(&img, 3, 2, &e) == PG_OK);
    CHECK_EQ_INT(img->stride, 12);
    for (size_t i = 0; i < 24; i++) CHECK_EQ_INT(img->px[i], 0);
    pg_img_free(img);
    CHECK_EQ_INT(pg_img_new(&img, 0, 5, &e), PG_E_USAGE);
    CHECK(img == NULL);
    pg_img_free(NULL);
}

PG_TEST(wrap_takes_ownership_only_on_success) {
    pg_img *img;
    uint8_t *buf = malloc(100);
    CHECK_EQ_INT(pg_img_wrap(&img, buf, 5, 2, 16, NULL), PG_E_USAGE); /* stride < 4*w */
    REQUIRE(pg_img_wrap(&img, buf, 4, 2, 20, NULL) == PG_OK);
    CHECK(img->px == buf);
    CHECK_EQ_INT(img->stride, 20);
    pg_img_free(img);
}

PG_TEST(view_and_crop_check_bounds_and_copy_the_rect) {
    pg_img *img, *c;
    pg_img v;
    pg_error e;
    REQUIRE(pg_img_new(&img, 10, 8, NULL) == PG_OK);
    tu_noise(img, 7);
    pg_img_rect r = {2, 3, 4, 5};
    REQUIRE(pg_img_view(img, &r, &v, NULL) == PG_OK);
    CHECK(v.px == tu_px(img, 2, 3));
    REQUIRE(pg_img_crop(img, &r, &c, NULL) == PG_OK);
    CHECK(tu_same_pixels(&v, c));
    CHECK_EQ_INT(c->stride, 16);
    pg_img_free(c);
    pg_img_rect one = {9, 7, 1, 1};
    REQUIRE(pg_img_crop(img, &one, &c, NULL) == PG_OK);
    CHECK(memcmp(c->px, tu_px(img, 9, 7), 4) == 0);
    pg_img_free(c);
    pg_img_rect zero = {1, 1, 0, 3}, out = {8, 0, 3, 1}, wrap = {UINT32_MAX, 0, 2, 1};
    CHECK_EQ_INT(pg_img_crop(img, &zero, &c, &e), PG_E_USAGE);
    CHECK(strstr(e.message, "zero area") != NULL);
    CHECK_EQ_INT(pg_img_crop(img, &out, &c, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_img_view(img, &wrap, &v, &e), PG_E_USAGE);
    pg_img_free(img);
}

PG_TEST(fit_size_keeps_aspect_and_rounds) {
    uint32_t w, h;
    pg_img_fit_size(1920, 1080, 800, 800, &w, &h);
    CHECK_EQ_INT(w, 800);
    CHECK_EQ_INT(h, 450);
    pg_img_fit_size(1080, 1920, 800, 800, &w, &h);
    CHECK_EQ_INT(w, 450);
    CHECK_EQ_INT(h, 800);
    pg_img_fit_size(100, 50, 200, 200, &w, &h);
    CHECK_EQ_INT(w, 100);
    CHECK_EQ_INT(h, 50);
    pg_img_fit_size(10000, 1, 100, 100, &w, &h);
    CHECK_EQ_INT(w, 100);
    CHECK_EQ_INT(h, 1);
}

PG_TEST(downscale_by_two_is_the_exact_2x2_mean) {
    pg_img *src, *dst;
    REQUIRE(pg_img_new(&src, 4, 2, NULL) == PG_OK);
    /* left 2x2 block: 0,10,20,31 -> mean 15.25 -> 15; right block: 255 and 0 -> 127.5 -> 128 */
    tu_set(src, 0, 0, 0, 0, 0, 255);
    tu_set(src, 1, 0, 10, 0, 0, 255);
    tu_set(src, 0, 1, 20, 0, 0, 255);
    tu_set(src, 1, 1, 31, 0, 0, 255);
    tu_set(src, 2, 0, 255, 255, 255, 255);
    tu_set(src, 3, 0, 255, 255, 255, 255);
    tu_set(src, 2, 1, 0, 0, 0, 255);
    tu_set(src, 3, 1, 0, 0, 0, 255);
    REQUIRE(pg_img_downscale_fit(src, 2, 2, &dst, NULL) == PG_OK);
    CHECK_EQ_INT(dst->width, 2);
    CHECK_EQ_INT(dst->height, 1);
    CHECK_EQ_INT(tu_px(dst, 0, 0)[0], 15);
    CHECK_EQ_INT(tu_px(dst, 1, 0)[0], 128);
    CHECK_EQ_INT(tu_px(dst, 1, 0)[1], 128);
    CHECK_EQ_INT(tu_px(dst, 0, 0)[3], 255);
    pg_img_free(src);
    pg_img_free(dst);
}

PG_TEST(downscale_fractional_weights_are_area_exact) {
    /* 3 columns -> 2: output 0 covers 1 + 1/2 source pixels, output 1 the rest. */
    pg_img *src, *dst;
    REQUIRE(pg_img_new(&src, 3, 1, NULL) == PG_OK);
    tu_set(src, 0, 0, 0, 0, 0, 255);
    tu_set(src, 1, 0, 90, 0, 0, 255);
    tu_set(src, 2, 0, 180, 0, 0, 255);
    REQUIRE(pg_img_downscale_fit(src, 2, 1, &dst, NULL) == PG_OK);
    CHECK_EQ_INT(dst->width, 2);
    CHECK_EQ_INT(tu_px(dst, 0, 0)[0], 30);  /* (0*2 + 90*1)/3 */
    CHECK_EQ_INT(tu_px(dst, 1, 0)[0], 150); /* (90*1 + 180*2)/3 */
    pg_img_free(src);
    pg_img_free(dst);
}

PG_TEST(downscale_keeps_flat_colour_and_copies_when_it_fits) {
    pg_img *src, *dst;
    REQUIRE(pg_img_new(&src, 97, 61, NULL) == PG_OK);
    tu_fill(src, 12, 200, 77, 128);
    REQUIRE(pg_img_downscale_fit(src, 10, 10, &dst, NULL) == PG_OK);
    CHECK_EQ_INT(dst->width, 10);
    CHECK_EQ_INT(dst->height, 6);
    int ok = 1;
    for (uint32_t y = 0; y < dst->height; y++)
        for (uint32_t x = 0; x < dst->width; x++) {
            const uint8_t *p = tu_px(dst, x, y);
            ok &= p[0] == 12 && p[1] == 200 && p[2] == 77 && p[3] == 128;
        }
    CHECK(ok);
    pg_img_free(dst);
    REQUIRE(pg_img_downscale_fit(src, 97, 61, &dst, NULL) == PG_OK);
    CHECK(tu_same_pixels(src, dst));
    CHECK(dst->px != src->px);
    pg_img_free(dst);
    CHECK_EQ_INT(pg_img_downscale_fit(src, 0, 10, &dst, NULL), PG_E_USAGE);
    pg_img_free(src);
}

PG_TEST(limits_check_rejects_before_allocation) {
    pg_error e;
    pg_img_limits lim = {1000, 100};
    CHECK_EQ_INT(pg_img_limits_check(&lim, 10, 10, &e), PG_OK);
    CHECK_EQ_INT(pg_img_limits_check(&lim, 10, 11, &e), PG_E_BADINPUT);
    CHECK_EQ_INT(pg_img_limits_check(NULL, 100000, 100000, &e), PG_E_BADINPUT);
    CHECK_EQ_INT(pg_img_limits_check(NULL, 0, 1, &e), PG_E_BADINPUT);
    CHECK_EQ_INT(pg_img_limits_check(NULL, (uint64_t)1 << 32, 1, &e), PG_E_BADINPUT);
}

PG_TEST(sniff_by_magic_bytes) {
    const uint8_t png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    const uint8_t jpg[] = {0xff, 0xd8, 0xff, 0xe0};
    const uint8_t webp[] = {'R', 'I', 'F', 'F', 0, 0, 0, 0, 'W', 'E', 'B', 'P'};
    const uint8_t gif[] = {'G', 'I', 'F', '8', '9', 'a'};
    CHECK_EQ_INT(pg_img_sniff(png, sizeof png), PG_IMG_FMT_PNG);
    CHECK_EQ_INT(pg_img_sniff(png, 7), PG_IMG_FMT_UNKNOWN);
    CHECK_EQ_INT(pg_img_sniff(jpg, sizeof jpg), PG_IMG_FMT_JPEG);
    CHECK_EQ_INT(pg_img_sniff(webp, sizeof webp), PG_IMG_FMT_WEBP);
    CHECK_EQ_INT(pg_img_sniff(gif, sizeof gif), PG_IMG_FMT_UNKNOWN);
    pg_img *img;
    pg_error e;
    CHECK_EQ_INT(pg_img_decode(gif, sizeof gif, NULL, &img, &e), PG_E_BADINPUT);
    CHECK_EQ_INT(pg_img_decode(NULL, 0, NULL, &img, &e), PG_E_BADINPUT);
}

static pg_img *load(const char *name, pg_err *rc, pg_error *e) {
    size_t n = 0;
    uint8_t *buf = tu_read(name, &n);
    pg_img *img = NULL;
    *rc = buf ? pg_img_decode(buf, n, NULL, &img, e) : PG_E_NOTFOUND;
    free(buf);
    return img;
}

PG_TEST(png_variants_decode_to_the_same_rgba) {
    pg_err rc;
    pg_error e;
    pg_img *rgba = load("engine_rgba.png", &rc, &e);
    REQUIRE(rc == PG_OK);
    CHECK_EQ_INT(rgba->width, 13);
    CHECK_EQ_INT(rgba->height, 7);
    /* pixel (0,0): x=y=0 -> alpha 255 by the pattern; (1,0): alpha 20 */
    CHECK_EQ_INT(tu_px(rgba, 0, 0)[3], 255);
    CHECK_EQ_INT(tu_px(rgba, 1, 0)[3], 20);
    CHECK_EQ_INT(tu_px(rgba, 1, 0)[0], 19);
    pg_img *rgb = load("engine_rgb.png", &rc, &e);
    REQUIRE(rc == PG_OK);
    pg_img *il = load("engine_rgb_interlaced.png", &rc, &e);
    REQUIRE(rc == PG_OK);
    CHECK(tu_same_pixels(rgb, il));
    int ok = 1;
    for (uint32_t y = 0; y < 7; y++)
        for (uint32_t x = 0; x < 13; x++)
            ok &= memcmp(tu_px(rgb, x, y), tu_px(rgba, x, y), 3) == 0 && tu_px(rgb, x, y)[3] == 255;
    CHECK(ok);
    pg_img *g8 = load("engine_gray.png", &rc, &e);
    REQUIRE(rc == PG_OK);
    pg_img *g16 = load("engine_gray16.png", &rc, &e);
    REQUIRE(rc == PG_OK);
    CHECK(tu_same_pixels(g8, g16));
    CHECK_EQ_INT(tu_px(g8, 1, 0)[0], 19);
    CHECK_EQ_INT(tu_px(g8, 1, 0)[2], 19);
    pg_img *pal = load("engine_palette.png", &rc, &e);
    CHECK_EQ_INT(rc, PG_OK);
    if (pal) CHECK_EQ_INT(pal->width, 13);
    pg_img_free(rgba);
    pg_img_free(rgb);
    pg_img_free(il);
    pg_img_free(g8);
    pg_img_free(g16);
    pg_img_free(pal);
}

PG_TEST(png_bomb_is_refused_by_the_pixel_cap) {
    pg_err rc;
    pg_error e;
    pg_img *img = load("engine_bomb_100000x100000.png", &rc, &e);
    CHECK_EQ_INT(rc, PG_E_BADINPUT);
    CHECK(img == NULL);
    CHECK(strstr(e.message, "100000x100000") != NULL);
    size_t n;
    uint8_t *buf = tu_read("engine_bomb_100000x100000.png", &n);
    REQUIRE(buf);
    pg_img_format f;
    uint32_t w, h;
    CHECK_EQ_INT(pg_img_probe(buf, n, &f, &w, &h, NULL), PG_OK);
    CHECK_EQ_INT(w, 100000);
    CHECK_EQ_INT(h, 100000);
    pg_img_limits tight = {n - 1, 100};
    CHECK_EQ_INT(pg_img_decode(buf, n, &tight, &img, &e), PG_E_BADINPUT);
    CHECK(strstr(e.message, "bytes") != NULL);
    free(buf);
}

/* Every prefix and a few corruptions of a file must fail cleanly. */
static void check_truncations(int *pg_failed_, const char *name) {
    size_t n;
    uint8_t *buf = tu_read(name, &n);
    REQUIRE(buf);
    pg_img *img;
    pg_error e;
    for (size_t len = 1; len < n; len++) {
        pg_err rc = pg_img_decode(buf, len, NULL, &img, &e);
        if (rc == PG_OK) pg_img_free(img);
        if (rc != PG_E_BADINPUT) {
            fprintf(stderr, "%s cut at %zu of %zu: rc %d\n", name, len, n, rc);
            CHECK(rc == PG_E_BADINPUT);
            break;
        }
    }
    uint32_t seed = 99;
    for (int i = 0; i < 300; i++) {
        uint8_t *c = malloc(n);
        memcpy(c, buf, n);
        for (int k = 0; k < 3; k++) c[16 + tu_rand(&seed) % (n - 16)] ^= (uint8_t)(1 + tu_rand(&seed) % 255);
        pg_err rc = pg_img_decode(c, n, NULL, &img, &e);
        if (rc == PG_OK) pg_img_free(img);
        CHECK(rc == PG_OK || rc == PG_E_BADINPUT);
        free(c);
    }
    free(buf);
}

PG_TEST(truncated_and_corrupt_png_fail_with_badinput) {
    check_truncations(pg_failed_, "engine_rgba.png");
    check_truncations(pg_failed_, "engine_rgb_interlaced.png");
}

/* Any changed byte inside the compressed rows is refused: libpng checks each
 * chunk's CRC-32 (the decoder skips zlib's Adler-32, pg_img_png.c). */
PG_TEST(a_flipped_byte_inside_idat_is_refused_by_its_crc) {
    size_t n;
    uint8_t *buf = tu_read("engine_rgba.png", &n);
    REQUIRE(buf);
    size_t at = 0;
    for (size_t i = 8; i + 8 <= n && !at; i++)
        if (!memcmp(buf + i, "IDAT", 4)) at = i;
    REQUIRE(at > 4);
    uint32_t len = (uint32_t)buf[at - 4] << 24 | (uint32_t)buf[at - 3] << 16 | (uint32_t)buf[at - 2] << 8 | buf[at - 1];
    REQUIRE(len > 4 && at + 4 + len <= n);
    for (uint32_t k = 2; k < len; k += len / 7 + 1) { /* past the zlib header, then across the data */
        uint8_t *c = malloc(n);
        memcpy(c, buf, n);
        c[at + 4 + k] ^= 0x01;
        pg_img *img = NULL;
        pg_error e;
        pg_err rc = pg_img_decode(c, n, NULL, &img, &e);
        if (rc != PG_E_BADINPUT) fprintf(stderr, "IDAT byte %u flipped: rc %d\n", k, rc);
        CHECK_EQ_INT(rc, PG_E_BADINPUT);
        pg_img_free(img);
        free(c);
    }
    free(buf);
}

PG_TEST(jpeg_decodes_or_says_unsupported) {
    pg_err rc;
    pg_error e;
    const char *files[] = {"engine_photo.jpg", "engine_photo_progressive.jpg", "engine_photo_gray.jpg",
                           "engine_photo_cmyk.jpg"};
    pg_img *ref = load("engine_photo.png", &rc, &e);
    REQUIRE(rc == PG_OK);
    for (int i = 0; i < 4; i++) {
        pg_img *img = load(files[i], &rc, &e);
        if (!pg_img_codec_has(PG_IMG_FMT_JPEG)) {
            CHECK_EQ_INT(rc, PG_E_UNSUPPORTED);
            continue;
        }
        CHECK_EQ_INT(rc, PG_OK);
        if (!img) continue;
        CHECK_EQ_INT(img->width, 64);
        CHECK_EQ_INT(img->height, 48);
        if (i < 2) { /* colour at quality 90: close to the source */
            long err = 0;
            for (uint32_t y = 0; y < 48; y++)
                for (uint32_t x = 0; x < 64; x++)
                    for (int c = 0; c < 3; c++) err += labs((long)tu_px(img, x, y)[c] - tu_px(ref, x, y)[c]);
            CHECK(err / (64 * 48 * 3) < 8);
        }
        CHECK_EQ_INT(tu_px(img, 5, 5)[3], 255);
        pg_img_free(img);
    }
    pg_img_free(ref);
    if (pg_img_codec_has(PG_IMG_FMT_JPEG)) {
        check_truncations(pg_failed_, "engine_photo.jpg");
        check_truncations(pg_failed_, "engine_photo_progressive.jpg");
    }
}

PG_TEST(webp_decodes_or_says_unsupported) {
    pg_err rc;
    pg_error e;
    pg_img *img = load("engine_rgba_lossless.webp", &rc, &e);
    if (!pg_img_codec_has(PG_IMG_FMT_WEBP)) {
        CHECK_EQ_INT(rc, PG_E_UNSUPPORTED);
        return;
    }
    REQUIRE(rc == PG_OK);
    pg_img *ref = load("engine_rgba.png", &rc, &e);
    REQUIRE(rc == PG_OK);
    /* Lossless WebP may rewrite the colour of fully transparent pixels. */
    int ok = 1;
    for (uint32_t y = 0; y < 7; y++)
        for (uint32_t x = 0; x < 13; x++) {
            const uint8_t *a = tu_px(img, x, y), *b = tu_px(ref, x, y);
            ok &= a[3] == b[3] && (b[3] == 0 || memcmp(a, b, 3) == 0);
        }
    CHECK(ok);
    pg_img_free(img);
    pg_img_free(ref);
    img = load("engine_photo.webp", &rc, &e);
    CHECK_EQ_INT(rc, PG_OK);
    if (img) CHECK_EQ_INT(img->width, 64);
    pg_img_free(img);
    check_truncations(pg_failed_, "engine_photo.webp");
    check_truncations(pg_failed_, "engine_rgba_lossless.webp");
}

static void roundtrip(int *pg_failed_, const pg_img *img, const pg_png_opts *o) {
    uint8_t *png;
    size_t n;
    REQUIRE(pg_img_encode_png(img, o, &png, &n, NULL) == PG_OK);
    pg_img *back;
    REQUIRE(pg_img_decode_png(png, n, NULL, &back, NULL) == PG_OK);
    CHECK(tu_same_pixels(img, back));
    pg_img_free(back);
    free(png);
}

/* A real screen of text (the order form): the release settings (zlib's default
 * strategy) keep every pixel and write a clearly smaller file than the fast
 * Z_RLE defaults, which stay for what never leaves the broker. */
PG_TEST(png_release_settings_are_lossless_and_smaller_on_text) {
    pg_err rc;
    pg_error e;
    pg_img *img = load("form_default_v1.png", &rc, &e);
    REQUIRE(img != NULL);
    pg_png_opts rel = pg_png_opts_release(), fast = pg_png_opts_default();
    CHECK(!rel.rle && fast.rle);
    CHECK_EQ_INT(rel.level, PG_PNG_RELEASE_LEVEL);
    roundtrip(pg_failed_, img, &rel);
    uint8_t *a, *b;
    size_t na, nb;
    REQUIRE(pg_img_encode_png(img, &rel, &a, &na, NULL) == PG_OK);
    REQUIRE(pg_img_encode_png(img, &fast, &b, &nb, NULL) == PG_OK);
    printf("     form_default_v1 %ux%u: release %zu bytes, fast (Z_RLE) %zu bytes\n", (unsigned)img->width,
           (unsigned)img->height, na, nb);
    CHECK(na * 4 < nb * 3); /* at least a quarter smaller */
    free(a);
    free(b);
    pg_img_free(img);
}

PG_TEST(png_encode_round_trips_with_and_without_alpha) {
    pg_img *img;
    REQUIRE(pg_img_new(&img, 37, 19, NULL) == PG_OK);
    tu_noise(img, 5);
    roundtrip(pg_failed_, img, NULL); /* opaque: written as RGB */
    pg_png_opts o = pg_png_opts_default();
    o.keep_alpha = true;
    o.filter = PG_PNG_FILTER_ALL;
    o.level = 6;
    o.rle = false;
    roundtrip(pg_failed_, img, &o);
    tu_set(img, 3, 4, 1, 2, 3, 4);
    roundtrip(pg_failed_, img, NULL); /* has alpha: stays RGBA */
    pg_img v;
    pg_img_rect r = {1, 1, 20, 10};
    REQUIRE(pg_img_view(img, &r, &v, NULL) == PG_OK); /* stride != 4*w */
    roundtrip(pg_failed_, &v, NULL);
    o.level = 10;
    uint8_t *png;
    size_t n;
    CHECK_EQ_INT(pg_img_encode_png(img, &o, &png, &n, NULL), PG_E_USAGE);
    pg_img_free(img);
}
