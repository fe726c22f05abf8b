/* SPDX-License-Identifier: MIT */
/* hash, diff and the assertions against the fake desktop: tokens and the
 * agent's own files, exact answers where they are the agent's to have,
 * refusals where they would be a pixel oracle. */
#include <unistd.h>

#include "pg_broker_fixture.h"
#include "pg_crypto.h"
#include "pg_disclose.h"
#include "pg_test.h"

#define FX(fx, policy) \
    pg_fx fx;          \
    REQUIRE(pg_fx_init(&fx, policy) == 0)

#define ALLOW_POLICY "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"expose_pixels\":\"allow\"}"
#define NEVER_POLICY "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"expose_pixels\":\"never\"}"

/* Two tokens of one window: before and after painting a 20x10 block. */
static void before_after(pg_fx *fx, char a[32], char b[32]) {
    uint64_t id = pg_fake_add_window(fx->fake, "demo", "Demo", getpid(), 0, 0, 100, 80, 0xffffffff);
    pg_fx_snapshot(fx, id, a);
    pg_fake_fill(fx->fake, id, 30, 40, 20, 10, 0x000000ff);
    pg_fx_snapshot(fx, id, b);
}

static pg_err call2(pg_fx *fx, const char *op, const char *a, const char *b, const char *extra, pg_fx_reply *r) {
    char args[512];
    snprintf(args, sizeof args, "{\"a\":{\"token\":\"%s\"},\"b\":{\"token\":\"%s\"}%s%s}", a, b, extra ? "," : "",
             extra ? extra : "");
    return pg_fx_call(fx, op, args, NULL, 0, r);
}

PG_TEST(diff_counts_the_change_and_boxes_it_exactly_when_the_pixels_are_the_agents) {
    FX(fx, ALLOW_POLICY);
    char a[32], b[32];
    before_after(&fx, a, b);
    pg_fx_reply r;
    REQUIRE(call2(&fx, "diff", a, b, NULL, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "pixels_changed"), 200);
    const cJSON *box = cJSON_GetObjectItem(r.result, "bounds");
    CHECK_EQ_INT(cJSON_GetObjectItem(box, "x")->valueint, 30);
    CHECK_EQ_INT(cJSON_GetObjectItem(box, "w")->valueint, 20);
    CHECK(!strncmp(pg_fx_str(&r, "diff_token"), "cap:", 4)); /* the heatmap is a token, not pixels */
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(call2(&fx, "diff", a, b, "\"max_ratio\":0.001", &r), PG_E_ASSERT);
    CHECK(r.details != NULL); /* the measurements travel with the failure */
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "diff", "OK"), 1);
    pg_fx_fini(&fx);
}

PG_TEST(diff_of_protected_pixels_is_coarse_and_charged) {
    FX(fx, NULL); /* analyze-only: the pixels are not the agent's */
    char a[32], b[32];
    before_after(&fx, a, b);
    double before = pg_disclose_used(fx.b.disclose, fx.peer.uid);
    pg_fx_reply r;
    REQUIRE(call2(&fx, "diff", a, b, NULL, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "pixels_changed"), 224); /* 200 rounded up to steps of 8000/256 */
    const cJSON *box = cJSON_GetObjectItem(r.result, "bounds");
    CHECK_EQ_INT(cJSON_GetObjectItem(box, "x")->valueint, 24); /* 30..50 grown to the 8-pixel grid */
    CHECK_EQ_INT(cJSON_GetObjectItem(box, "w")->valueint, 32);
    CHECK(pg_fx_str(&r, "resolution") != NULL);
    pg_fx_reply_fini(&r);
    double charged = pg_disclose_used(fx.b.disclose, fx.peer.uid) - before;
    CHECK(charged > 8 && charged < 200);
    CHECK_EQ_INT(pg_disclose_used(fx.b.disclose, fx.peer.uid), before + charged);
    pg_fx_fini(&fx);
}

PG_TEST(assert_changed_and_unchanged_say_yes_and_no) {
    FX(fx, NULL);
    char a[32], b[32];
    before_after(&fx, a, b);
    pg_fx_reply r;
    CHECK_EQ_INT(call2(&fx, "assert_changed", a, b, "\"min_pct\":1", &r), PG_OK); /* 200/8000 = 2.5 % */
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(call2(&fx, "assert_changed", a, b, "\"min_pct\":5", &r), PG_E_ASSERT);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(r.details, "passed")));
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(call2(&fx, "assert_unchanged", a, b, NULL, &r), PG_E_ASSERT);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(call2(&fx, "assert_unchanged", a, b, "\"masks\":[{\"x\":30,\"y\":40,\"w\":20,\"h\":10}]", &r), PG_OK);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(call2(&fx, "assert_unchanged", a, b, "\"masks\":[{\"x\":0,\"y\":0,\"w\":100,\"h\":80}]", &r),
                 PG_E_USAGE); /* a mask over everything is never a pass */
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(hash_of_a_token_is_its_stored_digest_and_regions_follow_the_policy) {
    FX(fx, NULL); /* analyze-only */
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 64, 64, 0x123456ff);
    char tok[32];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    pg_tok_meta m;
    pg_error e;
    REQUIRE(pg_tok_get(fx.b.tokens, tok, fx.peer.uid, &m, &e) == PG_OK);
    char args[256];
    pg_fx_reply r;
    snprintf(args, sizeof args, "{\"image\":{\"token\":\"%s\"},\"algo\":\"sha256\"}", tok);
    REQUIRE(pg_fx_call(&fx, "hash", args, NULL, 0, &r) == PG_OK);
    CHECK(strcmp(pg_fx_str(&r, "hash"), m.sha256) != 0); /* keyed: not invertible, not matchable outside */
    CHECK_STR(pg_fx_str(&r, "algorithm"), "sha256-keyed");
    char keyed[65];
    snprintf(keyed, sizeof keyed, "%s", pg_fx_str(&r, "hash"));
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"token\":\"%s\"}", tok);
    REQUIRE(pg_fx_call(&fx, "info", args, NULL, 0, &r) == PG_OK); /* info shows the same keyed digest, no sha256 */
    CHECK_STR(pg_fx_str(&r, "digest"), keyed);
    CHECK_STR(pg_fx_str(&r, "digest_kind"), "keyed");
    CHECK(pg_fx_str(&r, "sha256") == NULL);
    pg_fx_reply_fini(&r);
    char tok2[32];
    REQUIRE(pg_fx_snapshot(&fx, id, tok2) == 0); /* the same pixels again: the same keyed digest */
    snprintf(args, sizeof args, "{\"image\":{\"token\":\"%s\"},\"algo\":\"sha256\"}", tok2);
    REQUIRE(pg_fx_call(&fx, "hash", args, NULL, 0, &r) == PG_OK);
    CHECK_STR(pg_fx_str(&r, "hash"), keyed);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"image\":{\"token\":\"%s\"},\"algo\":\"sha256\",\"region\":{\"x\":3,\"y\":3,\"w\":1,\"h\":1}}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "hash", args, NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args,
             "{\"image\":{\"token\":\"%s\"},\"algo\":\"dhash\",\"region\":{\"x\":0,\"y\":0,\"w\":31,\"h\":32}}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "hash", args, NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args,
             "{\"image\":{\"token\":\"%s\"},\"algo\":\"dhash\",\"region\":{\"x\":0,\"y\":0,\"w\":32,\"h\":32}}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "hash", args, NULL, 0, &r), PG_OK);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "hash", "OK"), 3);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "hash", "POLICY_REFUSED"), 2);
    pg_fx_fini(&fx);
}

PG_TEST(hash_is_exact_for_the_agents_own_file_and_under_allow) {
    FX(fx, ALLOW_POLICY);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 8, 8, 0x010203ff);
    char tok[32], args[256];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    snprintf(args, sizeof args, "{\"image\":{\"token\":\"%s\"},\"algo\":\"sha256\",\"region\":{\"x\":3,\"y\":3,\"w\":1,\"h\":1}}", tok);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "hash", args, NULL, 0, &r) == PG_OK); /* the pixels are the agent's under allow */
    uint8_t px[4] = {1, 2, 3, 255}, d[PG_SHA256_LEN];
    char hex[65];
    pg_error se;
    pg_sha256(px, 4, d, &se);
    pg_hex(d, sizeof d, hex);
    CHECK_STR(pg_fx_str(&r, "hash"), hex);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* A 120x90 window with a blue square holding a yellow one at (50,30), and a
 * token of the pattern alone; 0 when that snapshot failed. */
static uint64_t patterned(pg_fx *fx, char tmpl[32]) {
    uint64_t id = pg_fake_add_window(fx->fake, "demo", "Demo", getpid(), 0, 0, 120, 90, 0xffffffff);
    pg_fake_fill(fx->fake, id, 50, 30, 20, 20, 0x3366ccff);
    pg_fake_fill(fx->fake, id, 55, 35, 10, 10, 0xffcc00ff);
    uint64_t small = pg_fake_add_window(fx->fake, "patch", "Patch", getpid(), 300, 0, 20, 20, 0x3366ccff);
    pg_fake_fill(fx->fake, small, 5, 5, 10, 10, 0xffcc00ff);
    return pg_fx_snapshot(fx, small, tmpl) == 0 ? id : 0;
}

PG_TEST(assert_template_finds_a_token_inside_a_token) {
    FX(fx, NULL);
    char big[32], tmpl[32], args[256];
    uint64_t id = patterned(&fx, tmpl);
    REQUIRE(id && pg_fx_snapshot(&fx, id, big) == 0);
    snprintf(args, sizeof args, "{\"image\":{\"token\":\"%s\"},\"template\":{\"token\":\"%s\"}}", big, tmpl);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "assert_template", args, NULL, 0, &r) == PG_OK);
    const cJSON *best = cJSON_GetObjectItem(r.result, "best");
    CHECK_EQ_INT(cJSON_GetObjectItem(best, "x")->valueint, 48); /* 50 on the 8-pixel grid (analyze-only) */
    CHECK_EQ_INT(cJSON_GetObjectItem(best, "y")->valueint, 32); /* 30 */
    CHECK(cJSON_GetObjectItem(best, "score")->valuedouble == 1.0);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(hash_defaults_to_dhash_and_captures_a_window_live) {
    FX(fx, ALLOW_POLICY);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 64, 48, 0xffffffff);
    pg_fake_fill(fx.fake, id, 10, 10, 30, 20, 0x204080ff);
    char tok[32], args[256], live[65];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    pg_fx_reply r;
    snprintf(args, sizeof args, "{\"image\":{\"token\":\"%s\"}}", tok);
    REQUIRE(pg_fx_call(&fx, "hash", args, NULL, 0, &r) == PG_OK);
    CHECK_STR(pg_fx_str(&r, "algorithm"), "dhash"); /* seed 004's default */
    CHECK_EQ_INT((int)strlen(pg_fx_str(&r, "hash")), 16);
    CHECK(pg_fx_str(&r, "token") == NULL); /* no capture: nothing new to name */
    snprintf(live, sizeof live, "%s", pg_fx_str(&r, "hash"));
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fx_call(&fx, "hash", "{\"window\":\"demo\"}", NULL, 0, &r) == PG_OK);
    CHECK_STR(pg_fx_str(&r, "algorithm"), "dhash");
    CHECK_STR(pg_fx_str(&r, "hash"), live); /* the same pixels, captured now */
    CHECK(!strncmp(pg_fx_str(&r, "token"), "cap:", 4));
    CHECK_EQ_INT((int)pg_fx_num(&r, "width"), 64);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"id\":%llu,\"algo\":\"sha256\"}", (unsigned long long)id);
    REQUIRE(pg_fx_call(&fx, "hash", args, NULL, 0, &r) == PG_OK);
    CHECK_STR(pg_fx_str(&r, "algorithm"), "sha256"); /* the agent's to have under allow: not keyed */
    pg_tok_meta m;
    pg_error e;
    REQUIRE(pg_tok_get(fx.b.tokens, pg_fx_str(&r, "token"), fx.peer.uid, &m, &e) == PG_OK);
    CHECK_STR(pg_fx_str(&r, "hash"), m.sha256);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "hash", "{}", NULL, 0, &r), PG_E_USAGE); /* an image or a window */
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(hash_of_a_window_follows_the_policy_like_a_token) {
    FX(fx, NULL); /* analyze-only */
    pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 64, 64, 0x123456ff);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "hash", "{\"window\":\"demo\",\"algo\":\"sha256\"}", NULL, 0, &r) == PG_OK);
    CHECK_STR(pg_fx_str(&r, "algorithm"), "sha256-keyed");
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "hash",
                            "{\"window\":\"demo\",\"algo\":\"sha256\",\"region\":{\"x\":3,\"y\":3,\"w\":1,\"h\":1}}",
                            NULL, 0, &r),
                 PG_E_POLICY);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(assert_template_searches_a_window_captured_live) {
    FX(fx, ALLOW_POLICY);
    char tmpl[32], args[256];
    REQUIRE(patterned(&fx, tmpl) != 0);
    snprintf(args, sizeof args, "{\"window\":\"demo\",\"template\":{\"token\":\"%s\"}}", tmpl);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "assert_template", args, NULL, 0, &r) == PG_OK);
    const cJSON *best = cJSON_GetObjectItem(r.result, "best");
    CHECK_EQ_INT(cJSON_GetObjectItem(best, "x")->valueint, 50); /* exact under allow */
    CHECK_EQ_INT(cJSON_GetObjectItem(best, "y")->valueint, 30);
    CHECK(!strncmp(pg_fx_str(&r, "token"), "cap:", 4));
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(r.result, "evidence"), "image")->valuestring,
              pg_fx_str(&r, "token"));
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(assert_template_with_a_flat_template_answers_not_found_with_the_reason) {
    FX(fx, NULL);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 120, 90, 0xffffffff);
    pg_fake_fill(fx.fake, id, 50, 30, 20, 20, 0x3366ccff);
    uint64_t flat = pg_fake_add_window(fx.fake, "flat", "Flat", getpid(), 300, 0, 16, 16, 0x3366ccff);
    char big[32], tmpl[32], args[256];
    REQUIRE(pg_fx_snapshot(&fx, id, big) == 0 && pg_fx_snapshot(&fx, flat, tmpl) == 0);
    snprintf(args, sizeof args, "{\"image\":{\"token\":\"%s\"},\"template\":{\"token\":\"%s\"},\"threshold\":-1}",
             big, tmpl);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "assert_template", args, NULL, 0, &r), PG_E_ASSERT); /* not PG_E_USAGE */
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(r.details, "found")));
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(r.details, "passed")));
    const cJSON *why = cJSON_GetObjectItem(r.details, "reason");
    CHECK(cJSON_IsString(why) && !strncmp(why->valuestring, "FLAT_TEMPLATE", 13));
    CHECK(strstr(r.e.message, "flat") != NULL);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(another_users_token_answers_like_an_unknown_one) {
    FX(fx, NULL);
    char a[32], b[32];
    before_after(&fx, a, b);
    fx.peer.uid += 1;
    pg_fx_reply r1, r2;
    CHECK_EQ_INT(call2(&fx, "diff", a, b, NULL, &r1), PG_E_NOTFOUND);
    CHECK_EQ_INT(call2(&fx, "diff", "cap:AAAAAAAAAAAAAAAAAAAAAA", b, NULL, &r2), PG_E_NOTFOUND);
    CHECK(strstr(r1.e.message, "(unknown, expired, or not yours)") && strstr(r2.e.message, "(unknown, expired, or not yours)"));
    CHECK_STR(r1.e.recovery_tip, r2.e.recovery_tip);
    pg_fx_reply_fini(&r1);
    pg_fx_reply_fini(&r2);
    pg_fx_fini(&fx);
}

PG_TEST(diff_reports_the_densest_window_and_its_metric) {
    FX(fx, ALLOW_POLICY);
    char a[32], b[32];
    before_after(&fx, a, b); /* a 20x10 block changed */
    pg_fx_reply r;
    REQUIRE(call2(&fx, "diff", a, b, "\"metric\":\"oklab\",\"window_size\":5", &r) == PG_OK);
    CHECK_STR(pg_fx_str(&r, "metric"), "oklab");
    CHECK_EQ_INT(pg_fx_num(&r, "window_size"), 5);
    CHECK_EQ_INT(pg_fx_num(&r, "max_window_changed"), 25);
    CHECK_EQ_INT(pg_fx_num(&r, "pixels_changed"), 200);
    pg_fx_reply_fini(&r);
    REQUIRE(call2(&fx, "diff", a, b, "\"window_size\":16", &r) == PG_OK);
    CHECK_STR(pg_fx_str(&r, "metric"), "yiq");
    CHECK_EQ_INT(pg_fx_num(&r, "max_window_changed"), 160); /* 16 wide, 10 high */
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(call2(&fx, "diff", a, b, "\"metric\":\"lab\"", &r), PG_E_USAGE);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(a_check_of_protected_pixels_lists_no_regions_and_costs_little) {
    FX(fx, NULL);
    char a[32], b[32];
    before_after(&fx, a, b);
    double before = pg_disclose_used(fx.b.disclose, fx.peer.uid);
    pg_fx_reply r;
    REQUIRE(call2(&fx, "assert_changed", a, b, "\"min_pct\":1", &r) == PG_OK);
    CHECK_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(r.result, "regions")), 0);
    pg_fx_reply_fini(&r);
    double cost = pg_disclose_used(fx.b.disclose, fx.peer.uid) - before;
    CHECK(cost > 0 && cost < 64); /* a verdict, two counts, the bounds and the region count */
    pg_fx_fini(&fx);
}

PG_TEST(a_failed_check_of_protected_pixels_repeats_only_the_coarse_figure_in_its_message) {
    FX(fx, NULL);
    char a[32], b[32];
    before_after(&fx, a, b); /* 200 of 8000 changed: 2.5 %, shown as 224: 2.8 % */
    pg_fx_reply r;
    CHECK_EQ_INT(call2(&fx, "assert_unchanged", a, b, "\"max_pct\":1", &r), PG_E_ASSERT);
    CHECK(strstr(r.e.message, "2.8000%") != NULL);
    CHECK(strstr(r.e.message, "2.5000%") == NULL); /* the exact value the verdict used stays inside */
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(call2(&fx, "diff", a, b, "\"max_ratio\":0.01", &r), PG_E_ASSERT);
    CHECK(strstr(r.e.message, "0.025000") == NULL);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(decoded_pixels_share_one_budget_across_requests) {
    FX(fx, ALLOW_POLICY);
    char a[32], b[32];
    before_after(&fx, a, b); /* two 100x80 tokens: 32000 bytes each */
    fx.b.pixels_wait_ms = 0;
    fx.b.pixels_budget = 50000; /* one of them fits, not both */
    pg_fx_reply r;
    CHECK_EQ_INT(call2(&fx, "diff", a, b, NULL, &r), PG_E_BUSY);
    CHECK(strstr(r.e.message, "decoded pixels") != NULL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(fx.b.pixels_used, 0); /* what the refused request held is given back */
    fx.b.pixels_budget = 20000; /* less than one image: it can never fit */
    char args[96];
    snprintf(args, sizeof args, "{\"image\":{\"token\":\"%s\"},\"algo\":\"dhash\"}", a);
    CHECK_EQ_INT(pg_fx_call(&fx, "hash", args, NULL, 0, &r), PG_E_BADINPUT);
    pg_fx_reply_fini(&r);
    fx.b.pixels_budget = 1 << 20;
    CHECK_EQ_INT(call2(&fx, "diff", a, b, NULL, &r), PG_OK);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(fx.b.pixels_used, 0);
    pg_fx_fini(&fx);
}
