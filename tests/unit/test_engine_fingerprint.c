/* SPDX-License-Identifier: MIT */
/* pg_fingerprint: SHA-256 of raw rows (stride-free), the exact dHash
 * definition, regions, hex and Hamming distance. */
#include <stdlib.h>
#include <string.h>

#include "pg_crypto.h"
#include "pg_fingerprint.h"
#include "pg_test.h"
#include "test_engine_util.h"

PG_TEST(sha256_is_the_digest_of_the_raw_rgba_rows) {
    pg_img *img;
    REQUIRE(pg_img_new(&img, 3, 2, NULL) == PG_OK);
    tu_noise(img, 3);
    uint8_t a[32], b[32];
    REQUIRE(pg_fingerprint_sha256(img, NULL, a, NULL) == PG_OK);
    REQUIRE(pg_sha256(img->px, 24, b, NULL) == PG_OK);
    CHECK(memcmp(a, b, 32) == 0);
    pg_img_free(img);
}

PG_TEST(sha256_of_a_region_ignores_stride_and_parent) {
    pg_img *big, *crop;
    REQUIRE(pg_img_new(&big, 50, 40, NULL) == PG_OK);
    tu_noise(big, 11);
    pg_img_rect r = {7, 9, 13, 5};
    REQUIRE(pg_img_crop(big, &r, &crop, NULL) == PG_OK);
    uint8_t a[32], b[32];
    REQUIRE(pg_fingerprint_sha256(big, &r, a, NULL) == PG_OK);
    REQUIRE(pg_fingerprint_sha256(crop, NULL, b, NULL) == PG_OK);
    CHECK(memcmp(a, b, 32) == 0);
    tu_set(crop, 12, 4, 0, 0, 0, 0);
    REQUIRE(pg_fingerprint_sha256(crop, NULL, b, NULL) == PG_OK);
    CHECK(memcmp(a, b, 32) != 0);
    pg_img_rect bad = {40, 0, 11, 1}, empty = {0, 0, 0, 1};
    pg_error e;
    CHECK_EQ_INT(pg_fingerprint_sha256(big, &bad, a, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_fingerprint_sha256(big, &empty, a, &e), PG_E_USAGE);
    pg_img_free(big);
    pg_img_free(crop);
}

PG_TEST(dhash_of_gradients_and_flat_images) {
    pg_img *img;
    uint64_t h;
    REQUIRE(pg_img_new(&img, 90, 40, NULL) == PG_OK);
    for (uint32_t y = 0; y < 40; y++)
        for (uint32_t x = 0; x < 90; x++) tu_set(img, x, y, (uint8_t)(x * 2), (uint8_t)(x * 2), (uint8_t)(x * 2), 255);
    REQUIRE(pg_fingerprint_dhash(img, NULL, &h, NULL) == PG_OK);
    CHECK(h == UINT64_MAX); /* brighter to the right everywhere */
    for (uint32_t y = 0; y < 40; y++)
        for (uint32_t x = 0; x < 90; x++) tu_set(img, x, y, (uint8_t)(200 - x), 0, 0, 255);
    REQUIRE(pg_fingerprint_dhash(img, NULL, &h, NULL) == PG_OK);
    CHECK(h == 0);
    tu_fill(img, 50, 60, 70, 255);
    REQUIRE(pg_fingerprint_dhash(img, NULL, &h, NULL) == PG_OK);
    CHECK(h == 0); /* equal cells: "<" is false */
    pg_img_free(img);
    REQUIRE(pg_img_new(&img, 1, 1, NULL) == PG_OK);
    tu_set(img, 0, 0, 9, 9, 9, 255);
    REQUIRE(pg_fingerprint_dhash(img, NULL, &h, NULL) == PG_OK);
    CHECK(h == 0);
    pg_img_free(img);
}

PG_TEST(dhash_bit_order_is_row_major_msb_first) {
    /* A 9x8 image maps one pixel per cell: rising only between columns 0 and 1
     * of row 0 sets the top bit; rising between columns 7 and 8 of row 7 sets bit 0. */
    pg_img *img;
    uint64_t h;
    REQUIRE(pg_img_new(&img, 9, 8, NULL) == PG_OK);
    tu_fill(img, 100, 100, 100, 255);
    tu_set(img, 1, 0, 101, 101, 101, 255);
    tu_set(img, 2, 0, 101, 101, 101, 255);
    tu_set(img, 8, 7, 120, 120, 120, 255);
    REQUIRE(pg_fingerprint_dhash(img, NULL, &h, NULL) == PG_OK);
    char hex[17];
    pg_fingerprint_dhash_hex(h, hex);
    CHECK_STR(hex, "8000000000000001");
    /* transparent pixels are composited over white: a clear pixel reads as white */
    tu_set(img, 4, 3, 0, 0, 0, 0);
    REQUIRE(pg_fingerprint_dhash(img, NULL, &h, NULL) == PG_OK);
    pg_fingerprint_dhash_hex(h, hex);
    CHECK_STR(hex, "8000001000000001"); /* row 3: column 3 < column 4 -> bit 63-27 */
    pg_img_free(img);
}

PG_TEST(dhash_tolerates_noise_and_sees_real_change) {
    pg_img *a, *b;
    REQUIRE(pg_img_new(&a, 320, 200, NULL) == PG_OK);
    REQUIRE(pg_img_new(&b, 320, 200, NULL) == PG_OK);
    uint32_t seed = 1;
    for (uint32_t y = 0; y < 200; y++)
        for (uint32_t x = 0; x < 320; x++) {
            uint8_t v = (uint8_t)(40 + (x / 20 * 37 + y / 50 * 53) % 170); /* stripes, no equal cells */
            int n = (int)(tu_rand(&seed) % 5) - 2;
            tu_set(a, x, y, v, v, v, 255);
            tu_set(b, x, y, (uint8_t)(v + n), (uint8_t)(v + n), (uint8_t)(v + n), 255);
        }
    uint64_t ha, hb;
    REQUIRE(pg_fingerprint_dhash(a, NULL, &ha, NULL) == PG_OK);
    REQUIRE(pg_fingerprint_dhash(b, NULL, &hb, NULL) == PG_OK);
    CHECK(pg_fingerprint_hamming(ha, hb) <= PG_FINGERPRINT_DHASH_SAME);
    tu_rect(b, 0, 0, 160, 200, 255, 255, 255);
    REQUIRE(pg_fingerprint_dhash(b, NULL, &hb, NULL) == PG_OK);
    CHECK(pg_fingerprint_hamming(ha, hb) > PG_FINGERPRINT_DHASH_SAME);
    pg_img_rect right = {160, 0, 160, 200};
    REQUIRE(pg_fingerprint_dhash(a, &right, &ha, NULL) == PG_OK);
    REQUIRE(pg_fingerprint_dhash(b, &right, &hb, NULL) == PG_OK);
    CHECK(pg_fingerprint_hamming(ha, hb) <= PG_FINGERPRINT_DHASH_SAME); /* the region excludes the change */
    pg_img_free(a);
    pg_img_free(b);
}

PG_TEST(hex_parse_and_hamming) {
    uint64_t h;
    char hex[17];
    pg_fingerprint_dhash_hex(0x0123456789abcdefULL, hex);
    CHECK_STR(hex, "0123456789abcdef");
    REQUIRE(pg_fingerprint_dhash_parse("0123456789ABCDEF", &h, NULL) == PG_OK);
    CHECK(h == 0x0123456789abcdefULL);
    CHECK_EQ_INT(pg_fingerprint_dhash_parse("0123", &h, NULL), PG_E_USAGE);
    CHECK_EQ_INT(pg_fingerprint_dhash_parse("0123456789abcdef0", &h, NULL), PG_E_USAGE);
    CHECK_EQ_INT(pg_fingerprint_dhash_parse("g123456789abcdef", &h, NULL), PG_E_USAGE);
    CHECK_EQ_INT(pg_fingerprint_hamming(0, UINT64_MAX), 64);
    CHECK_EQ_INT(pg_fingerprint_hamming(5, 6), 2);
    CHECK_EQ_INT(pg_fingerprint_hamming(7, 7), 0);
}
