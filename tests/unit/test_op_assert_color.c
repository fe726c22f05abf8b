/* SPDX-License-Identifier: MIT */
/* assert color against the fake desktop: a region holds the expected colour
 * (a CSS name or #RRGGBB) within a CIEDE2000 tolerance, exit 1 with the
 * closest colour measured otherwise; under protected pixels that colour is
 * quantised and charged like color's, and the budget stops an attacker who
 * rebuilds a token through it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_broker_fixture.h"
#include "pg_disclose.h"
#include "pg_test.h"

#define ALLOW "{\"version\":1,\"clients\":{\"users\":[\"*\"]},\"expose_pixels\":\"allow\"}"

/* A white 128x64 window: red at 0,0 (32x32), #2e7d32 at 32,0 (32x32),
 * blue at 64,0 (32x32), and red text-like bars over white at 96,0 (32x32,
 * a fifth of it red). Its snapshot's token into tok; 0 on success. */
static int board(pg_fx *fx, char tok[32]) {
    uint64_t id = pg_fake_add_window(fx->fake, "board", "Board", getpid(), 0, 0, 128, 64, 0xffffffff);
    pg_fake_fill(fx->fake, id, 0, 0, 32, 32, 0xff0000ff);
    pg_fake_fill(fx->fake, id, 32, 0, 32, 32, 0x2e7d32ff);
    pg_fake_fill(fx->fake, id, 64, 0, 32, 32, 0x0000ffff);
    for (int y = 2; y < 32; y += 8) pg_fake_fill(fx->fake, id, 98, y, 28, 2, 0xff0000ff);
    return pg_fx_snapshot(fx, id, tok);
}

static pg_err ask(pg_fx *fx, const char *tok, const char *where, const char *expect, pg_fx_reply *r) {
    char args[256];
    snprintf(args, sizeof args, "{\"token\":\"%s\",%s,\"expect\":\"%s\"}", tok, where, expect);
    return pg_fx_call(fx, "assert_color", args, NULL, 0, r);
}

#define R_RED "\"region\":{\"x\":0,\"y\":0,\"w\":32,\"h\":32}"
#define R_GREEN "\"region\":{\"x\":32,\"y\":0,\"w\":32,\"h\":32}"
#define R_BLUE "\"region\":{\"x\":64,\"y\":0,\"w\":32,\"h\":32}"
#define R_TEXT "\"region\":{\"x\":96,\"y\":0,\"w\":32,\"h\":32}"

static const char *measured_hex(const cJSON *o) {
    return cJSON_GetObjectItem(cJSON_GetObjectItem(o, "measured"), "hex")->valuestring;
}

PG_TEST(a_named_colour_holds_in_a_region_and_around_a_point) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, NULL) == 0);
    char tok[32];
    REQUIRE(board(&fx, tok) == 0);
    pg_fx_reply r;
    CHECK_EQ_INT(ask(&fx, tok, R_RED, "Red", &r), PG_OK);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r.result, "passed")));
    CHECK_STR(measured_hex(r.result), "#ff0000");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r.result, "quantized")));
    CHECK(pg_fx_num(&r, "delta_e") == 0);
    CHECK(pg_fx_num(&r, "tolerance") == 5); /* the documented default */
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(ask(&fx, tok, "\"at\":{\"x\":80,\"y\":16}", "blue", &r), PG_OK);
    pg_fx_reply_fini(&r);
    /* text in a colour is one of the region's dominant colours, not the first */
    CHECK_EQ_INT(ask(&fx, tok, R_TEXT, "red", &r), PG_OK);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* Protected pixels: 4 bits a channel, so #2e7d32 reads #227733, which is
 * within the default tolerance; released pixels are exact. */
PG_TEST(a_hex_colour_holds_quantised_under_protection_and_exact_under_allow) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, NULL) == 0);
    char tok[32];
    REQUIRE(board(&fx, tok) == 0);
    pg_fx_reply r;
    CHECK_EQ_INT(ask(&fx, tok, R_GREEN, "#2E7D32", &r), PG_OK);
    CHECK_STR(measured_hex(r.result), "#227733");
    CHECK(pg_fx_num(&r, "delta_e") > 0 && pg_fx_num(&r, "delta_e") <= 5);
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(r.result, "expect"), "hex")->valuestring, "#2e7d32");
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
    REQUIRE(pg_fx_init(&fx, ALLOW) == 0);
    REQUIRE(board(&fx, tok) == 0);
    CHECK_EQ_INT(ask(&fx, tok, R_GREEN, "#2e7d32", &r), PG_OK);
    CHECK_STR(measured_hex(r.result), "#2e7d32");
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(r.result, "quantized")));
    CHECK(pg_fx_num(&r, "delta_e") == 0);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(out_of_tolerance_is_exit_1_with_the_colour_measured) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, NULL) == 0);
    char tok[32];
    REQUIRE(board(&fx, tok) == 0);
    pg_fx_reply r;
    CHECK_EQ_INT(ask(&fx, tok, R_BLUE, "red", &r), PG_E_ASSERT);
    REQUIRE(r.details);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(r.details, "passed")));
    CHECK_STR(measured_hex(r.details), "#0000ff");
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(r.details, "measured"), "name")->valuestring, "blue");
    CHECK(cJSON_GetObjectItem(r.details, "delta_e")->valuedouble > 5);
    pg_fx_reply_fini(&r);
    /* green in CSS is #008000: the quantised #227733 is near it, lime (#00ff00) is not */
    CHECK_EQ_INT(ask(&fx, tok, R_GREEN, "lime", &r), PG_E_ASSERT);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "assert_color", "ASSERTION_FAILED"), 2);
    pg_fx_fini(&fx);
}

/* A colour that is no colour, and a place given twice or not at all, are
 * usage errors (exit 2), refused before anything is measured or charged. */
PG_TEST(bad_colours_and_places_are_usage_errors_that_charge_nothing) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, NULL) == 0);
    char tok[32];
    REQUIRE(board(&fx, tok) == 0);
    double before = pg_disclose_used(fx.b.disclose, fx.peer.uid);
    static const char *const bad[] = {"reddish", "#12345", "#1234567", "#gg0000", "ff0000", ""};
    pg_fx_reply r;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK_EQ_INT(ask(&fx, tok, R_RED, bad[i], &r), PG_E_USAGE);
        pg_fx_reply_fini(&r);
    }
    CHECK_EQ_INT(ask(&fx, tok, R_RED ",\"at\":{\"x\":1,\"y\":1}", "red", &r), PG_E_USAGE);
    pg_fx_reply_fini(&r);
    char args[128];
    snprintf(args, sizeof args, "{\"token\":\"%s\",\"expect\":\"red\"}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "assert_color", args, NULL, 0, &r), PG_E_USAGE);
    pg_fx_reply_fini(&r);
    CHECK(fabs(pg_disclose_used(fx.b.disclose, fx.peer.uid) - before) < 1e-9);
    pg_fx_fini(&fx);
}

/* One answer about protected pixels costs what one colour of color costs
 * (12 + log2 257 bits); the same question again about the same pixels is free. */
PG_TEST(an_answer_is_charged_like_one_colour_of_color) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, NULL) == 0);
    char tok[32];
    REQUIRE(board(&fx, tok) == 0);
    double before = pg_disclose_used(fx.b.disclose, fx.peer.uid);
    pg_fx_reply r;
    CHECK_EQ_INT(ask(&fx, tok, R_BLUE, "navy", &r), PG_E_ASSERT);
    pg_fx_reply_fini(&r);
    double one = pg_disclose_used(fx.b.disclose, fx.peer.uid) - before;
    CHECK(fabs(one - 20.01) < 0.01);
    CHECK_EQ_INT(ask(&fx, tok, R_BLUE, "navy", &r), PG_E_ASSERT);
    pg_fx_reply_fini(&r);
    CHECK(fabs(pg_disclose_used(fx.b.disclose, fx.peer.uid) - before - one) < 1e-9);
    pg_fx_fini(&fx);
}

/* ---- attack: rebuilding a protected noise token through assert color ---- */

/* The attacker asks, around every other pixel, for each corner of the RGB
 * cube: each answer names the dominant colour closest to that corner, so
 * four questions read four colours of the neighbourhood; it takes the
 * colour of its first answer as its guess of the pixels there. */
PG_TEST(assert_color_cannot_rebuild_a_noise_token_and_stops_at_the_budget) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, NULL) == 0);
    uint8_t *truth = NULL;
    uint32_t W = 128, H = 128;
    uint64_t id = pg_fx_noise_window(&fx, W, H, &truth);
    char tok[32];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    static const char *const corners[] = {"black", "white", "red", "blue"};
    double *guess = calloc((size_t)W * H * 3, sizeof *guess);
    int answered = 0, refused = 0;
    for (uint32_t y = 0; y < H && !refused; y += 2)
        for (uint32_t x = 0; x < W && !refused; x += 2)
            for (size_t k = 0; k < 4 && !refused; k++) {
                char where[64];
                snprintf(where, sizeof where, "\"at\":{\"x\":%u,\"y\":%u},\"tolerance\":0", x, y);
                pg_fx_reply r;
                pg_err rc = ask(&fx, tok, where, corners[k], &r);
                refused = rc == PG_E_POLICY;
                const cJSON *o = rc == PG_OK ? r.result : rc == PG_E_ASSERT ? r.details : NULL;
                if (o && k == 0) {
                    answered++;
                    unsigned rr, gg, bb;
                    sscanf(measured_hex(o), "#%02x%02x%02x", &rr, &gg, &bb);
                    for (uint32_t dy = 0; dy < 2; dy++)
                        for (uint32_t dx = 0; dx < 2; dx++) {
                            size_t i = ((size_t)(y + dy) * W + x + dx) * 3;
                            guess[i] = rr, guess[i + 1] = gg, guess[i + 2] = bb;
                        }
                }
                pg_fx_reply_fini(&r);
            }
    CHECK(refused); /* the tiles' cap ends it long before every point is asked */
    CHECK(pg_disclose_used(fx.b.disclose, fx.peer.uid) <= 64 * 128.0 + 1e-6); /* 64 tiles, 128 bits each */
    double err = 0;
    for (size_t i = 0; i < (size_t)W * H; i++)
        for (int k = 0; k < 3; k++) err += fabs(guess[3 * i + k] - truth[4 * i + k]);
    err /= (double)W * H * 3;
    fprintf(stderr, "assert color attack: %d neighbourhoods read before the refusal, %.0f bits charged, mean error "
                    "%.1f levels\n", answered, pg_disclose_used(fx.b.disclose, fx.peer.uid), err);
    CHECK(err > 50); /* noise: what came back says next to nothing about any pixel */
    CHECK(answered > 10);
    CHECK(pg_fx_audit_count(&fx, "assert_color", "POLICY_REFUSED") >= 1);
    free(guess);
    free(truth);
    pg_fx_fini(&fx);
}
