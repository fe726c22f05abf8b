/* SPDX-License-Identifier: MIT */
/* pg_ssim: identity, symmetry, a hand-checked constant case, sizes and the
 * 7x7 minimum. Agreement with scikit-image is the oracle test's job. */
#include <math.h>

#include "pg_ssim.h"
#include "pg_test.h"
#include "test_engine_util.h"

PG_TEST(identical_images_score_one) {
    pg_img *a;
    REQUIRE(pg_img_new(&a, 40, 30, NULL) == PG_OK);
    tu_noise(a, 4);
    double s;
    REQUIRE(pg_ssim(a, a, NULL, &s, NULL) == PG_OK);
    CHECK(fabs(s - 1.0) < 1e-12);
    pg_img_free(a);
}

PG_TEST(flat_images_follow_the_luminance_term) {
    /* Constant images: variances 0, so S = (2 mx my + C1) / (mx^2 + my^2 + C1). */
    pg_img *a, *b;
    REQUIRE(pg_img_new(&a, 7, 7, NULL) == PG_OK && pg_img_new(&b, 7, 7, NULL) == PG_OK);
    tu_fill(a, 100, 100, 100, 255);
    tu_fill(b, 150, 150, 150, 255);
    double s, c1 = 2.55 * 2.55;
    REQUIRE(pg_ssim(a, b, NULL, &s, NULL) == PG_OK);
    CHECK(fabs(s - (2.0 * 100 * 150 + c1) / (100.0 * 100 + 150.0 * 150 + c1)) < 1e-12);
    pg_img_free(a), pg_img_free(b);
}

PG_TEST(ssim_is_symmetric_and_drops_with_noise) {
    pg_img *a, *b, *c;
    REQUIRE(pg_img_new(&a, 64, 48, NULL) == PG_OK && pg_img_new(&b, 64, 48, NULL) == PG_OK &&
            pg_img_new(&c, 64, 48, NULL) == PG_OK);
    uint32_t seed = 3;
    for (uint32_t y = 0; y < 48; y++)
        for (uint32_t x = 0; x < 64; x++) {
            uint8_t v = (uint8_t)(x * 3 + y * 2);
            int n1 = (int)(tu_rand(&seed) % 11) - 5, n2 = (int)(tu_rand(&seed) % 81) - 40;
            tu_set(a, x, y, v, v, v, 255);
            tu_set(b, x, y, (uint8_t)(v + n1 < 0 ? 0 : v + n1 > 255 ? 255 : v + n1), (uint8_t)v, (uint8_t)v, 255);
            tu_set(c, x, y, (uint8_t)(v + n2 < 0 ? 0 : v + n2 > 255 ? 255 : v + n2), (uint8_t)v, (uint8_t)v, 255);
        }
    double ab, ba, ac;
    REQUIRE(pg_ssim(a, b, NULL, &ab, NULL) == PG_OK);
    REQUIRE(pg_ssim(b, a, NULL, &ba, NULL) == PG_OK);
    REQUIRE(pg_ssim(a, c, NULL, &ac, NULL) == PG_OK);
    CHECK(ab == ba);
    CHECK(ab < 1 && ac < ab);
    pg_img_free(a), pg_img_free(b), pg_img_free(c);
}

PG_TEST(sizes_and_small_regions) {
    pg_img *a, *b;
    REQUIRE(pg_img_new(&a, 20, 20, NULL) == PG_OK && pg_img_new(&b, 21, 20, NULL) == PG_OK);
    double s;
    pg_error e;
    CHECK_EQ_INT(pg_ssim(a, b, NULL, &s, &e), PG_E_ASSERT);
    pg_img_rect small = {0, 0, 6, 20}, ok = {5, 5, 7, 7};
    CHECK_EQ_INT(pg_ssim(a, a, &small, &s, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_ssim(a, a, &ok, &s, &e), PG_OK);
    pg_img_free(a), pg_img_free(b);
}

PG_TEST(auto_window_is_min_7_h_w_made_odd_and_at_least_3) {
    CHECK_EQ_INT(pg_ssim_auto_win(100, 100), 7);
    CHECK_EQ_INT(pg_ssim_auto_win(100, 6), 5);
    CHECK_EQ_INT(pg_ssim_auto_win(5, 100), 5);
    CHECK_EQ_INT(pg_ssim_auto_win(4, 4), 3);
    CHECK_EQ_INT(pg_ssim_auto_win(2, 100), 0);
}

PG_TEST(other_windows_follow_the_same_formula_and_even_ones_are_refused) {
    pg_img *a, *b;
    REQUIRE(pg_img_new(&a, 5, 5, NULL) == PG_OK && pg_img_new(&b, 5, 5, NULL) == PG_OK);
    tu_fill(a, 100, 100, 100, 255);
    tu_fill(b, 150, 150, 150, 255);
    double s, c1 = 2.55 * 2.55;
    REQUIRE(pg_ssim_win(a, b, NULL, 5, &s, NULL) == PG_OK);
    CHECK(fabs(s - (2.0 * 100 * 150 + c1) / (100.0 * 100 + 150.0 * 150 + c1)) < 1e-12);
    pg_error e;
    CHECK_EQ_INT(pg_ssim_win(a, b, NULL, 4, &s, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_ssim_win(a, b, NULL, 7, &s, &e), PG_E_USAGE); /* larger than the image */
    pg_img_free(a), pg_img_free(b);
}

PG_TEST(map_holds_every_window_and_skipped_centres_leave_the_mean) {
    enum { W = 30, H = 20, WIN = 5, OW = W - WIN + 1, OH = H - WIN + 1 };
    uint8_t ga[W * H], gb[W * H], skip[W * H];
    uint32_t seed = 21;
    for (int i = 0; i < W * H; i++) ga[i] = (uint8_t)tu_rand(&seed), gb[i] = (uint8_t)(ga[i] / 2 + 40);
    static float map[OW * OH];
    pg_ssim_grey_in in = {ga, gb, W, W, W, H, WIN, NULL, 0, map};
    double all, part;
    uint64_t n_all, n_part;
    REQUIRE(pg_ssim_grey(&in, &all, &n_all, NULL) == PG_OK);
    CHECK_EQ_INT(n_all, OW * OH);
    double sum = 0;
    for (int i = 0; i < OW * OH; i++) sum += map[i];
    CHECK(fabs(sum / (OW * OH) - all) < 1e-6); /* the map is float */
    memset(skip, 0, sizeof skip);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W / 2; x++) skip[y * W + x] = 1; /* left half of the centres */
    in.skip = skip, in.skip_stride = W, in.map = NULL;
    REQUIRE(pg_ssim_grey(&in, &part, &n_part, NULL) == PG_OK);
    double want = 0;
    uint64_t kept = 0;
    for (int y = 0; y < OH; y++)
        for (int x = 0; x < OW; x++)
            if (x + WIN / 2 >= W / 2) want += map[y * OW + x], kept++;
    CHECK_EQ_INT(n_part, kept);
    CHECK(fabs(part - want / (double)kept) < 1e-6);
    memset(skip, 1, sizeof skip);
    pg_error e;
    CHECK_EQ_INT(pg_ssim_grey(&in, &part, &n_part, &e), PG_E_USAGE);
}
