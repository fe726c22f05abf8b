/* SPDX-License-Identifier: MIT */
/* pg_diff: pixelmatch semantics on hand-made cases, masks (never a silent
 * pass), regions, size mismatch, connected regions, the diff image, both
 * metrics, translucency and the densest window. The bit-for-bit agreement
 * with the npm pixelmatch (7.2.0 and 8.0.0) is the oracle test's job. */
#include <math.h>
#include <string.h>

#include "pg_diff.h"
#include "pg_oklab.h"
#include "pg_test.h"
#include "test_engine_util.h"

static pg_img *blank(uint32_t w, uint32_t h) {
    pg_img *img;
    if (pg_img_new(&img, w, h, NULL)) return NULL;
    tu_fill(img, 255, 255, 255, 255);
    return img;
}

PG_TEST(identical_images_have_no_change) {
    pg_img *a = blank(40, 30), *b = blank(40, 30), *d;
    pg_diff_result r;
    REQUIRE(pg_diff(a, b, NULL, &r, &d, NULL) == PG_OK);
    CHECK(r.sizes_match);
    CHECK_EQ_INT(r.pixels_changed, 0);
    CHECK_EQ_INT(r.total_pixels, 1200);
    CHECK(!r.has_bounds);
    CHECK_EQ_INT(r.region_count, 0);
    CHECK_EQ_INT(tu_px(d, 5, 5)[0], 255); /* white faded stays white */
    pg_img_free(a), pg_img_free(b), pg_img_free(d);
}

PG_TEST(one_by_one_images) {
    pg_img *a = blank(1, 1), *b = blank(1, 1);
    tu_set(b, 0, 0, 0, 0, 0, 255);
    pg_diff_result r;
    REQUIRE(pg_diff(a, b, NULL, &r, NULL, NULL) == PG_OK);
    CHECK_EQ_INT(r.pixels_changed, 1);
    CHECK(r.changed_pct == 100.0);
    CHECK_EQ_INT(r.regions[0].box.w, 1);
    pg_img_free(a), pg_img_free(b);
}

PG_TEST(threshold_separates_small_and_large_colour_changes) {
    pg_img *a = blank(10, 10), *b = blank(10, 10);
    tu_set(b, 2, 2, 250, 250, 250, 255); /* faint */
    tu_set(b, 7, 7, 20, 20, 20, 255);    /* strong */
    pg_diff_result r;
    REQUIRE(pg_diff(a, b, NULL, &r, NULL, NULL) == PG_OK);
    CHECK_EQ_INT(r.pixels_changed, 1);
    pg_diff_opts o;
    pg_diff_opts_init(&o);
    o.threshold = 0;
    REQUIRE(pg_diff(a, b, &o, &r, NULL, NULL) == PG_OK);
    CHECK_EQ_INT(r.pixels_changed, 2);
    o.threshold = 1.5;
    pg_error e;
    CHECK_EQ_INT(pg_diff(a, b, &o, &r, NULL, &e), PG_E_USAGE);
    pg_img_free(a), pg_img_free(b);
}

PG_TEST(sizes_differ_without_scaling) {
    pg_img *a = blank(10, 10), *b = blank(11, 10);
    pg_diff_result r;
    pg_error e;
    CHECK_EQ_INT(pg_diff(a, b, NULL, &r, NULL, &e), PG_E_ASSERT);
    CHECK(!r.sizes_match);
    CHECK_EQ_INT(r.width_a, 10);
    CHECK_EQ_INT(r.width_b, 11);
    CHECK(strstr(e.message, "10x10 vs 11x10") != NULL);
    pg_img_free(a), pg_img_free(b);
}

PG_TEST(masks_leave_numerator_and_denominator) {
    pg_img *a = blank(20, 10), *b = blank(20, 10);
    tu_rect(b, 0, 0, 4, 4, 0, 0, 0);   /* 16 changed, masked below */
    tu_rect(b, 10, 5, 2, 2, 0, 0, 0);  /* 4 changed */
    pg_img_rect masks[2] = {{0, 0, 5, 5}, {3, 3, 4, 4}}; /* overlapping: 25 + 16 - 4 = 37 masked */
    pg_diff_opts o;
    pg_diff_opts_init(&o);
    o.masks = masks;
    o.n_masks = 2;
    pg_diff_result r;
    pg_img *d;
    REQUIRE(pg_diff(a, b, &o, &r, &d, NULL) == PG_OK);
    CHECK_EQ_INT(r.pixels_changed, 4);
    CHECK_EQ_INT(r.total_pixels, 200 - 37);
    CHECK_EQ_INT(r.region_count, 1);
    const uint8_t *m = tu_px(d, 1, 1), *u = tu_px(d, 15, 1);
    CHECK(m[2] > m[0]); /* masked: tinted blue */
    CHECK(u[0] == u[2]);
    pg_img_free(d);
    pg_img_free(a), pg_img_free(b);
}

PG_TEST(masks_covering_everything_are_an_error_not_a_pass) {
    pg_img *a = blank(20, 10), *b = blank(20, 10);
    pg_img_rect masks[2] = {{0, 0, 10, 10}, {10, 0, 30, 30}}; /* second one spills over: clipped */
    pg_diff_opts o;
    pg_diff_opts_init(&o);
    o.masks = masks;
    o.n_masks = 2;
    pg_diff_result r;
    pg_error e;
    CHECK_EQ_INT(pg_diff(a, b, &o, &r, NULL, &e), PG_E_USAGE);
    CHECK(strstr(e.message, "whole") != NULL);
    pg_img_rect region = {2, 2, 5, 5}, m1 = {0, 0, 8, 8};
    o.region = &region;
    o.masks = &m1;
    o.n_masks = 1;
    CHECK_EQ_INT(pg_diff(a, b, &o, &r, NULL, &e), PG_E_USAGE); /* the region is all masked */
    pg_img_rect outside = {25, 0, 3, 3}, empty = {1, 1, 0, 4};
    o.region = NULL;
    o.masks = &outside;
    CHECK_EQ_INT(pg_diff(a, b, &o, &r, NULL, &e), PG_E_USAGE);
    o.masks = &empty;
    CHECK_EQ_INT(pg_diff(a, b, &o, &r, NULL, &e), PG_E_USAGE);
    pg_img_free(a), pg_img_free(b);
}

PG_TEST(region_crops_both_and_reports_image_coordinates) {
    pg_img *a = blank(30, 20), *b = blank(30, 20);
    tu_rect(b, 20, 12, 3, 2, 0, 0, 0);
    tu_rect(b, 1, 1, 2, 2, 0, 0, 0); /* outside the region */
    pg_img_rect region = {10, 10, 15, 8};
    pg_diff_opts o;
    pg_diff_opts_init(&o);
    o.region = &region;
    pg_diff_result r;
    pg_img *d;
    REQUIRE(pg_diff(a, b, &o, &r, &d, NULL) == PG_OK);
    CHECK_EQ_INT(r.total_pixels, 120);
    CHECK_EQ_INT(r.pixels_changed, 6);
    CHECK_EQ_INT(r.bounds.x, 20);
    CHECK_EQ_INT(r.bounds.y, 12);
    CHECK_EQ_INT(r.bounds.w, 3);
    CHECK_EQ_INT(d->width, 15);
    CHECK_EQ_INT(tu_px(d, 10, 2)[0], 255); /* (20,12) in the image */
    CHECK_EQ_INT(tu_px(d, 10, 2)[1], 0);
    pg_img_free(d);
    pg_img_rect zero = {3, 3, 0, 5}, out = {25, 0, 10, 5};
    pg_error e;
    o.region = &zero;
    CHECK_EQ_INT(pg_diff(a, b, &o, &r, NULL, &e), PG_E_USAGE);
    o.region = &out;
    CHECK_EQ_INT(pg_diff(a, b, &o, &r, NULL, &e), PG_E_USAGE);
    pg_img_free(a), pg_img_free(b);
}

PG_TEST(regions_are_8_connected_and_sorted_by_size) {
    pg_img *a = blank(50, 40), *b = blank(50, 40);
    tu_rect(b, 2, 2, 3, 3, 0, 0, 0);      /* 9 px */
    tu_rect(b, 5, 5, 2, 2, 0, 0, 0);      /* touches the first diagonally: one region of 13 */
    tu_rect(b, 30, 20, 10, 10, 0, 0, 0);  /* 100 px */
    tu_rect(b, 45, 35, 1, 1, 0, 0, 0);    /* 1 px */
    tu_rect(b, 20, 30, 1, 1, 0, 0, 0);    /* 1 px, higher up than the other single pixel */
    pg_diff_result r;
    REQUIRE(pg_diff(a, b, NULL, &r, NULL, NULL) == PG_OK);
    CHECK_EQ_INT(r.pixels_changed, 115);
    REQUIRE(r.region_count == 4);
    CHECK_EQ_INT(r.regions[0].pixels, 100);
    CHECK_EQ_INT(r.regions[0].box.x, 30);
    CHECK_EQ_INT(r.regions[0].box.w, 10);
    CHECK_EQ_INT(r.regions[1].pixels, 13);
    CHECK_EQ_INT(r.regions[1].box.w, 5);
    CHECK_EQ_INT(r.regions[1].box.h, 5);
    CHECK_EQ_INT(r.regions[2].box.y, 30);
    CHECK_EQ_INT(r.regions[3].box.y, 35);
    CHECK_EQ_INT(r.bounds.x, 2);
    CHECK_EQ_INT(r.bounds.y, 2);
    CHECK_EQ_INT(r.bounds.w, 44);
    CHECK_EQ_INT(r.bounds.h, 34);
    pg_img_free(a), pg_img_free(b);
}

PG_TEST(only_the_100_largest_regions_are_listed) {
    pg_img *a = blank(100, 100), *b = blank(100, 100);
    for (uint32_t y = 0; y < 100; y += 4)
        for (uint32_t x = 0; x < 100; x += 4) tu_set(b, x, y, 0, 0, 0, 255); /* 625 isolated pixels */
    tu_rect(b, 1, 1, 2, 2, 0, 0, 0); /* joins (0,0): one region of 5 */
    pg_diff_result r;
    REQUIRE(pg_diff(a, b, NULL, &r, NULL, NULL) == PG_OK);
    CHECK_EQ_INT(r.region_count, 625);
    CHECK_EQ_INT(r.regions_len, PG_DIFF_MAX_REGIONS);
    CHECK_EQ_INT(r.regions[0].pixels, 5);
    CHECK_EQ_INT(r.regions[1].box.x, 4); /* then single pixels in reading order */
    CHECK_EQ_INT(r.regions[1].box.y, 0);
    pg_img_free(a), pg_img_free(b);
}

PG_TEST(antialiased_edge_pixels_are_excluded_unless_asked) {
    /* A black/white edge whose boundary column moves from grey 128 to 100:
     * the grey pixel sits between darker and brighter flat neighbours. */
    pg_img *a = blank(9, 9), *b = blank(9, 9);
    tu_rect(a, 0, 0, 4, 9, 0, 0, 0);
    tu_rect(b, 0, 0, 4, 9, 0, 0, 0);
    for (uint32_t y = 0; y < 9; y++) {
        tu_set(a, 4, y, 128, 128, 128, 255);
        tu_set(b, 4, y, 60, 60, 60, 255);
    }
    pg_diff_result r;
    pg_img *d;
    REQUIRE(pg_diff(a, b, NULL, &r, &d, NULL) == PG_OK);
    CHECK_EQ_INT(r.pixels_changed, 0);
    CHECK_EQ_INT(r.pixels_aa, 9);
    CHECK_EQ_INT(tu_px(d, 4, 4)[1], 255); /* yellow */
    CHECK_EQ_INT(tu_px(d, 4, 4)[2], 0);
    pg_img_free(d);
    pg_diff_opts o;
    pg_diff_opts_init(&o);
    o.include_aa = true;
    REQUIRE(pg_diff(a, b, &o, &r, NULL, NULL) == PG_OK);
    CHECK_EQ_INT(r.pixels_changed, 9);
    CHECK_EQ_INT(r.pixels_aa, 0);
    pg_img_free(a), pg_img_free(b);
}

PG_TEST(defaults_are_pixelmatch_7_2s) {
    pg_diff_opts o;
    pg_diff_opts_init(&o);
    CHECK(o.threshold == 0.1);
    CHECK_EQ_INT(o.metric, PG_DIFF_YIQ);
    CHECK(o.checkerboard); /* 7.1+: checkerboard: true */
    CHECK(!o.include_aa);
    CHECK_EQ_INT(o.window_size, 0);
    CHECK(o.alpha == 0.1);
}

/* Transparent white (alpha 0) against opaque white. Over white both read as
 * white. Over the checkerboard the first pixel's background is (48,48,48) in
 * both generations (7: k = 0, so k/phi | 0 = 0; 8: hash of index 0 = 0), so
 * the transparent pixel reads as dark grey 48: a YIQ delta of
 * 0.5053 * 207^2 = 21652 > 35215 * 0.1^2, an OKLab step of about 0.7 > 0.1. */
PG_TEST(translucent_pixels_are_blended_over_the_checkerboard_unless_white_is_asked) {
    pg_img *big = blank(20, 20), *b = blank(10, 10), av;
    pg_img_rect r10 = {5, 5, 10, 10};
    REQUIRE(pg_img_view(big, &r10, &av, NULL) == PG_OK); /* a view: stride 80, not 40 */
    tu_set(b, 0, 0, 255, 255, 255, 0);
    pg_diff_metric metrics[2] = {PG_DIFF_YIQ, PG_DIFF_OKLAB};
    for (int m = 0; m < 2; m++) {
        pg_diff_opts o;
        pg_diff_opts_init(&o);
        o.metric = metrics[m];
        pg_diff_result r;
        REQUIRE(pg_diff(&av, b, &o, &r, NULL, NULL) == PG_OK);
        CHECK_EQ_INT(r.pixels_changed, 1);
        o.checkerboard = false;
        REQUIRE(pg_diff(&av, b, &o, &r, NULL, NULL) == PG_OK);
        CHECK_EQ_INT(r.pixels_changed, 0);
    }
    pg_img_free(big), pg_img_free(b);
}

/* Black against grey 30. YIQ: 0.5053 * 30^2 = 454.8, under 35215 * 0.12^2 =
 * 507. OKLab: linear 30/255 is ((0.1176 + 0.055) / 1.055)^2.4 = 0.01298,
 * cube root 0.2351 = L, toe-corrected Lr = 0.132 (black: 0), neutral so no
 * chroma: HyAB 0.132, over 0.12 and under 0.14. */
PG_TEST(oklab_threshold_is_the_hyab_distance_not_yiqs_scale) {
    pg_img *a = blank(1, 1), *b = blank(1, 1);
    tu_set(a, 0, 0, 0, 0, 0, 255);
    tu_set(b, 0, 0, 30, 30, 30, 255);
    pg_diff_opts o;
    pg_diff_opts_init(&o);
    o.threshold = 0.12;
    pg_diff_result r;
    REQUIRE(pg_diff(a, b, &o, &r, NULL, NULL) == PG_OK);
    CHECK_EQ_INT(r.pixels_changed, 0);
    o.metric = PG_DIFF_OKLAB;
    REQUIRE(pg_diff(a, b, &o, &r, NULL, NULL) == PG_OK);
    CHECK_EQ_INT(r.pixels_changed, 1);
    o.threshold = 0.14;
    REQUIRE(pg_diff(a, b, &o, &r, NULL, NULL) == PG_OK);
    CHECK_EQ_INT(r.pixels_changed, 0);
    o.metric = (pg_diff_metric)7;
    pg_error e;
    CHECK_EQ_INT(pg_diff(a, b, &o, &r, NULL, &e), PG_E_USAGE);
    pg_img_free(a), pg_img_free(b);
}

/* White ink whose edge column fades from alpha 128 to 64, between opaque
 * white (left) and transparent white (right). Over the checkerboard the edge
 * pixels differ; pixelmatch 8's detector blends over white, where every
 * neighbour has the same luma, and takes the alpha steps as the direction:
 * left darker (-127/2), right brighter (128/2), and the left column has 3+
 * equal siblings in both images, so each edge pixel is antialiasing. */
PG_TEST(oklab_detector_follows_alpha_steps_of_white_ink) {
    pg_img *a, *b;
    REQUIRE(pg_img_new(&a, 5, 8, NULL) == PG_OK);
    REQUIRE(pg_img_new(&b, 5, 8, NULL) == PG_OK);
    for (uint32_t y = 0; y < 8; y++)
        for (uint32_t x = 0; x < 5; x++) {
            uint8_t al = x < 2 ? 255 : x == 2 ? 128 : 0;
            tu_set(a, x, y, 255, 255, 255, al);
            tu_set(b, x, y, 255, 255, 255, x == 2 ? 64 : al);
        }
    pg_diff_opts o;
    pg_diff_opts_init(&o);
    o.metric = PG_DIFF_OKLAB;
    pg_diff_result r;
    REQUIRE(pg_diff(a, b, &o, &r, NULL, NULL) == PG_OK);
    CHECK_EQ_INT(r.pixels_changed, 0);
    CHECK(r.pixels_aa > 0);
    uint64_t over = r.pixels_aa;
    o.include_aa = true;
    REQUIRE(pg_diff(a, b, &o, &r, NULL, NULL) == PG_OK);
    CHECK_EQ_INT(r.pixels_changed, over);
    pg_img_free(a), pg_img_free(b);
}

/* A 3x3 block at (2,2), four pixels within a 3x3 square at (10,10)-(12,12)
 * and one at (18,18): the densest N x N windows hold 1 (N=1), 4 (N=2),
 * 9 (N=3), 13 (N=11: x and y 2..12), 14 (N=17: 2..18). */
PG_TEST(window_size_finds_the_densest_square_of_change) {
    pg_img *a = blank(20, 20), *b = blank(20, 20);
    tu_rect(b, 2, 2, 3, 3, 0, 0, 0);
    tu_set(b, 10, 10, 0, 0, 0, 255);
    tu_set(b, 12, 10, 0, 0, 0, 255);
    tu_set(b, 10, 12, 0, 0, 0, 255);
    tu_set(b, 12, 12, 0, 0, 0, 255);
    tu_set(b, 18, 18, 0, 0, 0, 255);
    uint32_t sizes[5] = {1, 2, 3, 11, 17};
    uint64_t want[5] = {1, 4, 9, 13, 14};
    pg_diff_opts o;
    pg_diff_opts_init(&o);
    pg_diff_result r;
    REQUIRE(pg_diff(a, b, &o, &r, NULL, NULL) == PG_OK);
    CHECK_EQ_INT(r.pixels_changed, 14);
    CHECK_EQ_INT(r.window_size, 0); /* not asked */
    CHECK_EQ_INT(r.max_window_changed, 0);
    for (int m = 0; m < 2; m++) {
        o.metric = m ? PG_DIFF_OKLAB : PG_DIFF_YIQ;
        for (int i = 0; i < 5; i++) {
            o.window_size = sizes[i];
            REQUIRE(pg_diff(a, b, &o, &r, NULL, NULL) == PG_OK);
            CHECK_EQ_INT(r.window_size, sizes[i]);
            CHECK_EQ_INT(r.max_window_changed, want[i]);
        }
    }
    o.window_size = 500; /* clamped to the image: the whole of it */
    REQUIRE(pg_diff(a, b, &o, &r, NULL, NULL) == PG_OK);
    CHECK_EQ_INT(r.window_size, 20);
    CHECK_EQ_INT(r.max_window_changed, 14);
    pg_img_rect region = {1, 1, 16, 5}, mask = {2, 2, 1, 3}; /* the block's first column masked */
    o.region = &region;
    o.masks = &mask;
    o.n_masks = 1;
    REQUIRE(pg_diff(a, b, &o, &r, NULL, NULL) == PG_OK);
    CHECK_EQ_INT(r.window_size, 5); /* clamped to the region's height */
    CHECK_EQ_INT(r.max_window_changed, 6);
    pg_img_free(a), pg_img_free(b);
}

PG_TEST(identical_images_have_an_empty_densest_window) {
    pg_img *a = blank(7, 3), *b = blank(7, 3);
    pg_diff_opts o;
    pg_diff_opts_init(&o);
    o.window_size = 2;
    pg_diff_result r;
    REQUIRE(pg_diff(a, b, &o, &r, NULL, NULL) == PG_OK);
    CHECK_EQ_INT(r.window_size, 2);
    CHECK_EQ_INT(r.max_window_changed, 0);
    pg_img_free(a), pg_img_free(b);
}

PG_TEST(oklab_cube_root_is_exact_on_cubes_and_keeps_signs) {
    CHECK(pg_oklab_cbrt(8.0) == 2.0);
    CHECK(pg_oklab_cbrt(27.0) == 3.0);
    CHECK(pg_oklab_cbrt(0.125) == 0.5);
    CHECK(pg_oklab_cbrt(-64.0) == -4.0);
    CHECK(pg_oklab_cbrt(0x1p-1074) == 0x1p-358); /* smallest subnormal */
    CHECK(pg_oklab_cbrt(0.0) == 0.0 && !signbit(pg_oklab_cbrt(0.0)));
    CHECK(signbit(pg_oklab_cbrt(-0.0)));
    CHECK(isinf(pg_oklab_cbrt(INFINITY)));
    CHECK(isnan(pg_oklab_cbrt(NAN)));
    double x = 0.3, y = pg_oklab_cbrt(x); /* within an ulp of the true root */
    CHECK(fabs(y * y * y - x) < 4e-16);
}
