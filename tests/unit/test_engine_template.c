/* SPDX-License-Identifier: MIT */
/* pg_template (and the internal pg_xcorr): FFT correlation within its error
 * bound of the direct sum, exact best match, ties, thresholds and NMS,
 * regions, flat and oversized templates. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pg_template.h"
#include "pg_test.h"
#include "pg_xcorr.h"
#include "test_engine_util.h"

/* A busy synthetic screen: noise blocks and stripes, seeded. */
static pg_img *screen(uint32_t w, uint32_t h, uint32_t seed) {
    pg_img *img;
    if (pg_img_new(&img, w, h, NULL)) return NULL;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint32_t v = tu_rand(&seed);
            uint8_t base = (uint8_t)(((x / 7) * 29 + (y / 5) * 53) % 200);
            tu_set(img, x, y, (uint8_t)(base + (v & 31)), (uint8_t)(base + ((v >> 5) & 31)), (uint8_t)(base + ((v >> 10) & 31)), 255);
        }
    return img;
}

typedef struct {
    float *map;
    uint32_t ow, oh;
    double err;
} full_map;

/* Sink that reassembles the strips into one map. */
static void to_map(void *user, uint32_t x0, uint32_t nv, const float *vals, size_t stride, double err) {
    full_map *f = user;
    for (uint32_t y = 0; y < f->oh; y++)
        for (uint32_t v = 0; v < nv; v++) f->map[(size_t)y * f->ow + x0 + v] = vals[y * stride + v];
    f->err = err;
}

static void xcorr_case(int *pg_failed_, uint32_t W, uint32_t H, uint32_t w, uint32_t h, uint32_t seed) {
    uint8_t *g = malloc((size_t)W * H);
    float *t = malloc(sizeof *t * w * h);
    uint32_t s = seed;
    for (size_t i = 0; i < (size_t)W * H; i++) g[i] = (uint8_t)(tu_rand(&s) % 256);
    double mean = 0;
    for (size_t i = 0; i < (size_t)w * h; i++) mean += (t[i] = (float)(tu_rand(&s) % 256));
    mean /= (double)w * h;
    for (size_t i = 0; i < (size_t)w * h; i++) t[i] = (float)(t[i] - mean);
    size_t np = (size_t)(W - w + 1) * (H - h + 1);
    float *a = malloc(sizeof *a * np), *b = malloc(sizeof *b * np);
    full_map fa = {a, W - w + 1, H - h + 1, 0}, fb = {b, W - w + 1, H - h + 1, 0};
    pg_xcorr_in in = {g, W, H, t, w, h};
    REQUIRE(pg_xcorr_direct(&in, to_map, &fa, NULL) == PG_OK);
    pg_ws ws = {{0}, {0}};
    REQUIRE(pg_xcorr_fft(&in, &ws, to_map, &fb, NULL) == PG_OK);
    pg_ws_release(&ws);
    double ea = fa.err, eb = fb.err;
    double worst = 0;
    for (size_t i = 0; i < np; i++) worst = fmax(worst, fabs((double)a[i] - b[i]));
    /* the bound must hold with room to spare (it is a worst case, not a guess) */
    if (getenv("PG_TEST_VERBOSE") || !(worst + ea <= eb)) fprintf(stderr, "%ux%u/%ux%u: error %g, bound %g\n", W, H, w, h, worst, eb);
    CHECK(worst + ea <= eb);
    CHECK(eb < 1e-2 * sqrt((double)w * h) * 255 * 128); /* and stays useful */
    free(g), free(t), free(a), free(b);
}

PG_TEST(fft_correlation_stays_within_its_error_bound) {
    xcorr_case(pg_failed_, 64, 48, 9, 7, 1);
    xcorr_case(pg_failed_, 97, 61, 16, 16, 2); /* odd sizes: padded to smooth lengths */
    xcorr_case(pg_failed_, 200, 150, 64, 40, 3);
    xcorr_case(pg_failed_, 33, 20, 33, 20, 4); /* template as large as the image */
    xcorr_case(pg_failed_, 31, 9, 2, 1, 5);
    xcorr_case(pg_failed_, 480, 270, 50, 30, 6);
}

static void best_case(int *pg_failed_, uint32_t W, uint32_t H, pg_img_rect cut, uint32_t seed) {
    pg_img *img = screen(W, H, seed), *t;
    REQUIRE(img && pg_img_crop(img, &cut, &t, NULL) == PG_OK);
    pg_template_opts o;
    pg_template_opts_init(&o);
    pg_template_result rf, rd;
    o.method = PG_TEMPLATE_FFT;
    REQUIRE(pg_template_match(img, t, &o, &rf, NULL) == PG_OK);
    o.method = PG_TEMPLATE_DIRECT;
    REQUIRE(pg_template_match(img, t, &o, &rd, NULL) == PG_OK);
    CHECK_EQ_INT(rf.best.box.x, cut.x);
    CHECK_EQ_INT(rf.best.box.y, cut.y);
    CHECK(fabs(rf.best.score - 1.0) < 1e-12);
    CHECK(rf.found);
    CHECK(rf.best.score == rd.best.score);
    CHECK_EQ_INT(rf.best.box.w, cut.w);
    pg_img_free(img);
    pg_img_free(t);
}

PG_TEST(exact_best_match_by_fft_and_direct) {
    best_case(pg_failed_, 160, 120, (pg_img_rect){37, 51, 24, 18}, 9);
    best_case(pg_failed_, 301, 97, (pg_img_rect){250, 0, 51, 30}, 10);
    best_case(pg_failed_, 64, 64, (pg_img_rect){0, 0, 64, 64}, 11);
}

PG_TEST(ties_go_to_the_top_left_and_all_lists_every_copy) {
    pg_img *img, *t;
    REQUIRE(pg_img_new(&img, 120, 80, NULL) == PG_OK);
    tu_fill(img, 255, 255, 255, 255);
    REQUIRE(pg_img_new(&t, 8, 6, NULL) == PG_OK);
    tu_noise(t, 77);
    const uint32_t xs[3] = {90, 10, 50}, ys[3] = {5, 60, 30};
    for (int k = 0; k < 3; k++)
        for (uint32_t y = 0; y < 6; y++) memcpy(pg_img_row(img, ys[k] + y) + 4 * xs[k], pg_img_row(t, y), 32);
    pg_template_opts o;
    pg_template_opts_init(&o);
    o.all = true;
    o.threshold = 0.9;
    pg_template_result r;
    REQUIRE(pg_template_match(img, t, &o, &r, NULL) == PG_OK);
    CHECK_EQ_INT(r.best.box.x, 90); /* three exact copies score 1: the top-most wins */
    CHECK_EQ_INT(r.best.box.y, 5);
    REQUIRE(r.n_matches == 3);
    CHECK_EQ_INT(r.matches[1].box.y, 30);
    CHECK_EQ_INT(r.matches[2].box.y, 60);
    pg_img_rect reg = {40, 20, 60, 40};
    o.region = &reg;
    REQUIRE(pg_template_match(img, t, &o, &r, NULL) == PG_OK);
    CHECK_EQ_INT(r.best.box.x, 50); /* coordinates stay in the image's frame */
    CHECK_EQ_INT(r.best.box.y, 30);
    CHECK_EQ_INT(r.n_matches, 1);
    pg_img_free(img);
    pg_img_free(t);
}

PG_TEST(absent_template_is_not_found_but_reports_its_best) {
    pg_img *img = screen(200, 100, 3), *t;
    REQUIRE(img && pg_img_new(&t, 20, 20, NULL) == PG_OK);
    for (uint32_t y = 0; y < 20; y++)
        for (uint32_t x = 0; x < 20; x++) tu_set(t, x, y, (uint8_t)((x ^ y) & 1 ? 255 : 0), 0, 0, 255);
    pg_template_opts o;
    pg_template_opts_init(&o);
    pg_template_result r;
    REQUIRE(pg_template_match(img, t, &o, &r, NULL) == PG_OK);
    CHECK(!r.found);
    CHECK(r.best.score < 0.8 && r.best.score > -1);
    pg_img_free(img);
    pg_img_free(t);
}

PG_TEST(a_flat_template_matches_nothing_and_says_why) {
    pg_img *img = screen(50, 40, 1), *flat;
    REQUIRE(img && pg_img_new(&flat, 5, 5, NULL) == PG_OK);
    tu_fill(flat, 9, 9, 9, 255);
    pg_template_opts o;
    pg_template_opts_init(&o);
    o.threshold = -1; /* even the lowest threshold finds nothing */
    pg_img_rect reg = {10, 5, 20, 20};
    o.region = &reg;
    pg_template_result r;
    REQUIRE(pg_template_match(img, flat, &o, &r, NULL) == PG_OK);
    CHECK(r.flat && !r.found);
    CHECK(r.best.score == 0 && r.best.box.x == 10 && r.best.box.y == 5 && r.best.box.w == 5);
    pg_img_free(img);
    pg_img_free(flat);
}

PG_TEST(bad_templates_and_regions_are_usage_errors) {
    pg_img *img = screen(50, 40, 1), *flat, *big;
    REQUIRE(img && pg_img_new(&flat, 5, 5, NULL) == PG_OK && pg_img_new(&big, 51, 10, NULL) == PG_OK);
    tu_fill(flat, 9, 9, 9, 255);
    tu_noise(big, 2);
    pg_template_result r;
    pg_error e;
    CHECK_EQ_INT(pg_template_match(img, big, NULL, &r, &e), PG_E_USAGE);
    pg_template_opts o;
    pg_template_opts_init(&o);
    pg_img_rect reg = {45, 0, 10, 10}, zero = {0, 0, 0, 0};
    o.region = &reg;
    CHECK_EQ_INT(pg_template_match(img, flat, &o, &r, &e), PG_E_USAGE);
    o.region = &zero;
    CHECK_EQ_INT(pg_template_match(img, flat, &o, &r, &e), PG_E_USAGE);
    pg_img *tall_img, *tall;
    REQUIRE(pg_img_new(&tall_img, 2, 66052, NULL) == PG_OK && pg_img_new(&tall, 1, 66052, NULL) == PG_OK);
    tu_noise(tall, 5);
    tu_noise(tall_img, 6);
    CHECK_EQ_INT(pg_template_match(tall_img, tall, NULL, &r, &e), PG_E_USAGE);
    pg_img_free(tall_img);
    pg_img_free(tall);
    pg_img_free(img);
    pg_img_free(flat);
    pg_img_free(big);
}

PG_TEST(one_pixel_template_in_one_pixel_image) {
    pg_img *img, *t;
    REQUIRE(pg_img_new(&img, 1, 1, NULL) == PG_OK && pg_img_new(&t, 1, 1, NULL) == PG_OK);
    pg_template_result r;
    CHECK_EQ_INT(pg_template_match(img, t, NULL, &r, NULL), PG_OK); /* a single pixel is flat: no match */
    CHECK(r.flat && !r.found);
    pg_img_free(img);
    pg_img_free(t);
}

PG_TEST(grey_is_opencv_rgb2gray) {
    pg_img *img;
    REQUIRE(pg_img_new(&img, 3, 1, NULL) == PG_OK);
    tu_set(img, 0, 0, 255, 0, 0, 0);
    tu_set(img, 1, 0, 0, 255, 0, 255);
    tu_set(img, 2, 0, 10, 200, 30, 255);
    uint8_t g[3];
    pg_template_grey(img, g);
    CHECK_EQ_INT(g[0], 76);  /* (255*9798 + 16384) >> 15 */
    CHECK_EQ_INT(g[1], 150); /* (255*19235 + 16384) >> 15 */
    CHECK_EQ_INT(g[2], (10 * 9798 + 200 * 19235 + 30 * 3735 + 16384) >> 15);
    pg_img_free(img);
}

PG_TEST(a_reused_workspace_gives_the_same_answers) {
    pg_template_ws *ws;
    REQUIRE(pg_template_ws_new(&ws, NULL) == PG_OK);
    const uint32_t sizes[3][2] = {{160, 120}, {90, 300}, {160, 120}};
    for (int i = 0; i < 3; i++) {
        pg_img *img = screen(sizes[i][0], sizes[i][1], 40 + (uint32_t)i), *t;
        pg_img_rect cut = {sizes[i][0] / 3, sizes[i][1] / 2, 21, 13};
        REQUIRE(img && pg_img_crop(img, &cut, &t, NULL) == PG_OK);
        pg_template_opts o;
        pg_template_opts_init(&o);
        o.method = PG_TEMPLATE_FFT;
        o.all = true;
        pg_template_result a, b;
        REQUIRE(pg_template_match(img, t, &o, &a, NULL) == PG_OK);
        REQUIRE(pg_template_match_ws(ws, img, t, &o, &b, NULL) == PG_OK);
        CHECK(a.best.score == b.best.score && a.best.box.x == b.best.box.x && a.best.box.y == b.best.box.y);
        CHECK_EQ_INT(a.n_matches, b.n_matches);
        CHECK_EQ_INT(b.best.box.x, cut.x);
        pg_img_free(img);
        pg_img_free(t);
    }
    pg_template_ws_free(ws);
    pg_template_ws_free(NULL);
}
