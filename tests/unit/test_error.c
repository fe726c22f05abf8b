/* SPDX-License-Identifier: MIT */
/* The exit-code table is a public contract: values and names never change. */
#include "pg_crypto.h"
#include "pg_error.h"
#include "pg_test.h"

PG_TEST(exit_codes_match_the_documented_table) {
    CHECK_EQ_INT(PG_OK, 0);
    CHECK_EQ_INT(PG_E_ASSERT, 1);
    CHECK_EQ_INT(PG_E_USAGE, 2);
    CHECK_EQ_INT(PG_E_POLICY, 3);
    CHECK_EQ_INT(PG_E_NOTFOUND, 4);
    CHECK_EQ_INT(PG_E_UNREACHABLE, 5);
    CHECK_EQ_INT(PG_E_TIMEOUT, 6);
    CHECK_EQ_INT(PG_E_UNSUPPORTED, 7);
    CHECK_EQ_INT(PG_E_BADINPUT, 8);
    CHECK_EQ_INT(PG_E_INTERNAL, 9);
    CHECK_EQ_INT(PG_E_BLOCKED, 10);
    CHECK_EQ_INT(PG_E_NEEDS_APPROVAL, 11);
    CHECK_EQ_INT(PG_E_BUSY, 12);
    CHECK_EQ_INT(PG_E_STOPPED, 13);
    CHECK_EQ_INT(PG_E_HUMAN, 14);
    CHECK_EQ_INT(PG_E_TARGET_CHANGED, 15);
    CHECK_EQ_INT(PG_ERR_LAST, PG_E_TARGET_CHANGED);
}

PG_TEST(names_round_trip) {
    for (int i = 0; i <= PG_ERR_LAST; i++) CHECK_EQ_INT(pg_err_from_name(pg_err_name((pg_err)i)), i);
    CHECK_STR(pg_err_name(PG_E_NOTFOUND), "NOT_FOUND");
    CHECK_STR(pg_err_name(PG_E_BLOCKED), "BLOCKED");
    CHECK_STR(pg_err_name(PG_E_NEEDS_APPROVAL), "NEEDS_APPROVAL");
    CHECK_STR(pg_err_name(PG_E_BUSY), "BUSY");
    CHECK(strstr(pg_err_default_tip(PG_E_BUSY), "retry") != NULL);
    CHECK_EQ_INT(pg_err_from_name("NO_SUCH_NAME"), PG_E_INTERNAL);
    CHECK_STR(pg_err_name((pg_err)42), "INTERNAL");
}

PG_TEST(error_set_formats_and_truncates) {
    pg_error e;
    char big[2000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    CHECK_EQ_INT(pg_error_set(&e, PG_E_BADINPUT, "tip", "%s", big), PG_E_BADINPUT);
    CHECK_EQ_INT(strlen(e.message), PG_ERR_MSG_MAX - 1);
    CHECK_STR(e.recovery_tip, "tip");
    CHECK_EQ_INT(pg_error_set(NULL, PG_E_USAGE, NULL, "x"), PG_E_USAGE);
}

PG_TEST(sha256_known_vector) {
    uint8_t d[PG_SHA256_LEN];
    char hex[65];
    REQUIRE(pg_sha256("abc", 3, d, NULL) == PG_OK);
    pg_hex(d, sizeof d, hex);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    pg_sha256_ctx *c;
    REQUIRE(pg_sha256_new(&c, NULL) == PG_OK);
    pg_sha256_update(c, "a", 1, NULL);
    pg_sha256_update(c, "bc", 2, NULL);
    REQUIRE(pg_sha256_final(c, d, NULL) == PG_OK);
    pg_hex(d, sizeof d, hex);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

PG_TEST(hmac_sha256_rfc4231_vectors) {
    uint8_t d[PG_SHA256_LEN], key[20];
    char hex[65];
    memset(key, 0x0b, sizeof key); /* test case 1 */
    REQUIRE(pg_hmac_sha256(key, sizeof key, "Hi There", 8, d, NULL) == PG_OK);
    pg_hex(d, sizeof d, hex);
    CHECK_STR(hex, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    REQUIRE(pg_hmac_sha256((const uint8_t *)"Jefe", 4, "what do ya want for nothing?", 28, d, NULL) == PG_OK);
    pg_hex(d, sizeof d, hex); /* test case 2 */
    CHECK_STR(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

PG_TEST(base64_vectors_rfc4648) {
    char out[64];
    const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    const char *std[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    const char *url[] = {"", "Zg", "Zm8", "Zm9v", "Zm9vYg", "Zm9vYmE", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        size_t n = strlen(in[i]);
        pg_b64_encode((const uint8_t *)in[i], n, out);
        CHECK_STR(out, std[i]);
        CHECK_EQ_INT(strlen(out), pg_b64_len(n));
        pg_b64url_encode((const uint8_t *)in[i], n, out);
        CHECK_STR(out, url[i]);
        CHECK_EQ_INT(strlen(out), pg_b64url_len(n));
    }
    uint8_t hi[3] = {0xfb, 0xff, 0xfe};
    pg_b64url_encode(hi, 3, out);
    CHECK_STR(out, "-__-");
}

PG_TEST(random_bytes_differ) {
    uint8_t a[16], b[16];
    REQUIRE(pg_random_bytes(a, 16, NULL) == PG_OK);
    REQUIRE(pg_random_bytes(b, 16, NULL) == PG_OK);
    CHECK(memcmp(a, b, 16) != 0);
}
