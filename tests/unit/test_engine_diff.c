/* pg_diff: pixelmatch semantics on hand-made cases, masks (never a silent
 * pass), regions, size mismatch, connected regions and the diff image. The
 * bit-for-bit agreement with the npm pixelmatch is the oracle test's job. */
#include <string.h>

#include "pg_diff.h"
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

PG_TEST(stride_and_translucency) {
    pg_img *big = blank(20, 20), *b = blank(10, 10), av;
    pg_img_rect r10 = {5, 5, 10, 10};
    REQUIRE(pg_img_view(big, &r10, &av, NULL) == PG_OK);
    tu_set(b, 3, 3, 0, 0, 0, 0); /* transparent black over white reads as white */
    pg_diff_result r;
    REQUIRE(pg_diff(&av, b, NULL, &r, NULL, NULL) == PG_OK);
    CHECK_EQ_INT(r.pixels_changed, 0);
    pg_diff_opts o;
    pg_diff_opts_init(&o);
    o.checkerboard = true; /* over pixelmatch's checkerboard the same pixel changes */
    REQUIRE(pg_diff(&av, b, &o, &r, NULL, NULL) == PG_OK);
    CHECK_EQ_INT(r.pixels_changed, 1);
    pg_img_free(big), pg_img_free(b);
}
