/* SPDX-License-Identifier: MIT */
/* pg_morph: dilation, erosion and closing equal a direct definition on
 * random masks (outside the image neutral), the gradient is max - min of
 * the 3x3 neighbourhood, Otsu splits a bimodal histogram between its modes,
 * and components come largest first with their boxes. */
#include "pg_morph.h"
#include "pg_test.h"
#include "test_engine_util.h"

static void direct(const uint8_t *in, uint8_t *out, int w, int h, int rx, int ry, int erode) {
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int any = 0, all = 1;
            for (int dy = -ry; dy <= ry; dy++)
                for (int dx = -rx; dx <= rx; dx++) {
                    int xx = x + dx, yy = y + dy;
                    if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
                    any |= in[yy * w + xx], all &= in[yy * w + xx];
                }
            out[y * w + x] = (uint8_t)(erode ? all : any);
        }
}

PG_TEST(dilate_erode_and_close_equal_the_direct_definition) {
    enum { W = 37, H = 23 };
    uint8_t in[W * H], got[W * H], want[W * H], tmp[W * H];
    uint32_t seed = 5;
    for (int rep = 0; rep < 30; rep++) {
        for (int i = 0; i < W * H; i++) in[i] = (uint8_t)(tu_rand(&seed) % 5 == 0);
        int rx = rep % 4, ry = (rep / 4) % 3;
        REQUIRE(pg_morph_dilate(in, got, W, H, (uint32_t)rx, (uint32_t)ry, NULL) == PG_OK);
        direct(in, want, W, H, rx, ry, 0);
        CHECK(memcmp(got, want, sizeof got) == 0);
        REQUIRE(pg_morph_erode(in, got, W, H, (uint32_t)rx, (uint32_t)ry, NULL) == PG_OK);
        direct(in, want, W, H, rx, ry, 1);
        CHECK(memcmp(got, want, sizeof got) == 0);
        REQUIRE(pg_morph_close(in, got, W, H, (uint32_t)rx, (uint32_t)ry, NULL) == PG_OK);
        direct(in, tmp, W, H, rx, ry, 0);
        direct(tmp, want, W, H, rx, ry, 1);
        CHECK(memcmp(got, want, sizeof got) == 0);
    }
}

PG_TEST(gradient_is_the_3x3_range) {
    enum { W = 9, H = 7 };
    uint8_t g[W * H], out[W * H];
    uint32_t seed = 8;
    for (int i = 0; i < W * H; i++) g[i] = (uint8_t)tu_rand(&seed);
    REQUIRE(pg_morph_gradient(g, out, W, H, NULL) == PG_OK);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int hi = 0, lo = 255;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int xx = x + dx, yy = y + dy;
                    if (xx < 0 || yy < 0 || xx >= W || yy >= H) continue;
                    int v = g[yy * W + xx];
                    hi = v > hi ? v : hi, lo = v < lo ? v : lo;
                }
            CHECK_EQ_INT(out[y * W + x], hi - lo);
        }
}

PG_TEST(otsu_splits_two_modes_between_them) {
    uint64_t h[256] = {0};
    for (int v = 20; v <= 40; v++) h[v] = 100;
    for (int v = 180; v <= 200; v++) h[v] = 50;
    uint8_t t = pg_morph_otsu(h);
    CHECK(t >= 40 && t < 180);
    uint64_t flat[256] = {0};
    flat[77] = 1000;
    CHECK_EQ_INT(pg_morph_otsu(flat), 0);
}

PG_TEST(components_come_largest_first_and_small_ones_are_dropped) {
    enum { W = 20, H = 10 };
    uint8_t m[W * H] = {0};
    for (int y = 1; y < 4; y++)
        for (int x = 1; x < 5; x++) m[y * W + x] = 1; /* 12 px at 1,1 4x3 */
    for (int y = 5; y < 10; y++)
        for (int x = 10; x < 20; x++) m[y * W + x] = 1; /* 50 px */
    m[0 * W + 19] = 1;                                  /* 1 px */
    pg_region_info r[4];
    size_t n;
    REQUIRE(pg_morph_components(m, W, H, 2, r, 4, &n, NULL) == PG_OK);
    CHECK_EQ_INT(n, 2);
    CHECK(r[0].pixels == 50 && r[0].box.x == 10 && r[0].box.y == 5 && r[0].box.w == 10 && r[0].box.h == 5);
    CHECK(r[1].pixels == 12 && r[1].box.x == 1 && r[1].box.y == 1 && r[1].box.w == 4 && r[1].box.h == 3);
}
