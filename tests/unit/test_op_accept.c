/* SPDX-License-Identifier: MIT */
/* baseline prepare/approve/reject/list/show and accept against the fake
 * desktop: who may approve, frozen rules, environments, stability (a
 * blinking caret, an app that never settles), the outcomes and their exit
 * codes, zones and shift tolerance, the report page as a release, and what
 * the answers reveal about pixels the agent may not have. */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pg_broker_fixture.h"
#include "pg_crypto.h"
#include "pg_disclose.h"
#include "pg_test.h"

/* The agent is never root (root is always an approver): the fake's windows
 * belong to this process, so the policy lets the agent's uid see, capture
 * and use them. */
#define APPROVERS \
    "\"approvers\":[\"alice\"],\"input\":{\"other_users\":true},\"capture\":{\"other_users\":[\"@SELF@\"]}"
#define ALLOW_POLICY "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"expose_pixels\":\"allow\"," APPROVERS "}"
#define ANALYZE_POLICY \
    "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"expose_pixels\":\"analyze-only\"," APPROVERS "}"

#define FX(fx, policy)                   \
    pg_fx fx;                            \
    REQUIRE(pg_fx_init(&fx, policy) == 0); \
    fx.peer.uid = 4100

static uint64_t demo_window(pg_fx *fx, const char *title) {
    uint64_t id = pg_fake_add_window(fx->fake, title, "Demo", getpid(), 0, 0, 200, 120, 0xffffffff);
    pg_fake_fill(fx->fake, id, 20, 20, 60, 30, 0x3366ccff); /* a button */
    return id;
}

/* Calls as another OS user (uid 4242 "alice", an approver) and back. */
static pg_err as_alice(pg_fx *fx, const char *op, const char *args, pg_fx_reply *r) {
    pg_peer agent = fx->peer;
    fx->peer.uid = 4242;
    snprintf(fx->peer.user, sizeof fx->peer.user, "alice");
    pg_err rc = pg_fx_call(fx, op, args, NULL, 0, r);
    fx->peer = agent;
    return rc;
}

static pg_err callf(pg_fx *fx, const char *op, pg_fx_reply *r, const char *fmt, const char *a1, const char *a2) {
    char args[2048];
    snprintf(args, sizeof args, fmt, a1, a2);
    return pg_fx_call(fx, op, args, NULL, 0, r);
}

/* Prepares case from a window with extra rule args, and approves it as alice. */
static int prepare_and_approve(pg_fx *fx, const char *case_id, const char *window, const char *rules) {
    char args[1024];
    snprintf(args, sizeof args, "{\"case_id\":\"%s\",\"window\":\"%s\",\"interval\":0.01%s%s}", case_id, window,
             rules ? "," : "", rules ? rules : "");
    pg_fx_reply r;
    snprintf(args, sizeof args, "{\"case_id\":\"%s\",\"window\":\"%s\"%s%s}", case_id, window, rules ? "," : "",
             rules ? rules : "");
    if (pg_fx_call(fx, "baseline_prepare", args, NULL, 0, &r) != PG_OK) {
        fprintf(stderr, "prepare: %s\n", r.e.message);
        pg_fx_reply_fini(&r);
        return -1;
    }
    char cand[32];
    snprintf(cand, sizeof cand, "%s", pg_fx_str(&r, "candidate"));
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"what\":\"%s\"}", cand);
    if (as_alice(fx, "baseline_show", args, &r) != PG_OK) return -1;
    char digest[80];
    snprintf(digest, sizeof digest, "%s", pg_fx_str(&r, "digest"));
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"candidate\":\"%s\",\"digest\":\"%s\",\"note\":\"looks right\"}", cand, digest);
    int rc = as_alice(fx, "baseline_approve", args, &r);
    if (rc) fprintf(stderr, "approve: %s\n", r.e.message);
    pg_fx_reply_fini(&r);
    return rc;
}

static const char *outcome(const pg_fx_reply *r) { return pg_fx_str(r, "outcome"); }

PG_TEST(prepare_makes_a_candidate_that_only_another_user_who_is_an_approver_can_approve_by_its_digest) {
    FX(fx, ALLOW_POLICY);
    demo_window(&fx, "demo");
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "baseline_prepare", "{\"case_id\":\"home\",\"window\":\"demo\"}", NULL, 0, &r) == PG_OK);
    char cand[32], digest[80];
    snprintf(cand, sizeof cand, "%s", pg_fx_str(&r, "candidate"));
    snprintf(digest, sizeof digest, "%s", pg_fx_str(&r, "digest"));
    CHECK(!strncmp(cand, "cand:", 5));
    CHECK_STR(pg_fx_str(&r, "digest_kind"), "sha256"); /* allow: the pixels are the agent's */
    pg_fx_reply_fini(&r);
    /* The agent approving its own candidate: refused, whatever the digest. */
    CHECK_EQ_INT(callf(&fx, "baseline_approve", &r, "{\"candidate\":\"%s\",\"digest\":\"%s\",\"note\":\"me\"}", cand,
                       digest),
                 PG_E_POLICY);
    pg_fx_reply_fini(&r);
    /* alice, with a wrong digest: refused; with the one she was shown: approved. */
    char args[512];
    snprintf(args, sizeof args, "{\"candidate\":\"%s\",\"digest\":\"%064d\",\"note\":\"x\"}", cand, 0);
    CHECK_EQ_INT(as_alice(&fx, "baseline_approve", args, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"candidate\":\"%s\",\"digest\":\"%s\",\"note\":\"ok\"}", cand, digest);
    CHECK_EQ_INT(as_alice(&fx, "baseline_approve", args, &r), PG_OK);
    CHECK_STR(pg_fx_str(&r, "case"), "home");
    pg_fx_reply_fini(&r);
    /* approved once: the candidate is gone */
    CHECK_EQ_INT(as_alice(&fx, "baseline_approve", args, &r), PG_E_NOTFOUND);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "baseline_approve", "OK"), 1);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "baseline_prepare", "OK"), 1);
    pg_fx_fini(&fx);
}

PG_TEST(a_user_who_is_not_an_approver_cannot_approve_and_no_client_can_list_without_admission) {
    FX(fx, ALLOW_POLICY);
    demo_window(&fx, "demo");
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "baseline_prepare", "{\"case_id\":\"home\",\"window\":\"demo\"}", NULL, 0, &r) == PG_OK);
    char args[512];
    snprintf(args, sizeof args, "{\"candidate\":\"%s\",\"digest\":\"%s\",\"note\":\"x\"}", pg_fx_str(&r, "candidate"),
             pg_fx_str(&r, "digest"));
    pg_fx_reply_fini(&r);
    pg_peer agent = fx.peer;
    fx.peer.uid = 4343;
    snprintf(fx.peer.user, sizeof fx.peer.user, "mallory");
    CHECK_EQ_INT(pg_fx_call(&fx, "baseline_approve", args, NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "baseline_list", NULL, NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    fx.peer = agent;
    CHECK_EQ_INT(pg_fx_call(&fx, "baseline_list", NULL, NULL, 0, &r), PG_OK);
    CHECK_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(r.result, "candidates")), 1);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(accept_passes_on_the_approved_screen_and_fails_with_the_region_of_exactly_the_change) {
    FX(fx, ALLOW_POLICY);
    uint64_t id = demo_window(&fx, "demo");
    REQUIRE(prepare_and_approve(&fx, "home", "demo", NULL) == 0);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "accept", "{\"case_id\":\"home\",\"window\":\"demo\",\"interval\":0.01}", NULL, 0, &r),
                 PG_OK);
    CHECK_STR(outcome(&r), "passed");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(r.result, "stability"), "stable")));
    CHECK(!strncmp(pg_fx_str(&r, "capture_token"), "cap:", 4));
    CHECK(pg_fx_str(&r, "diff_token") == NULL); /* nothing to show where */
    pg_fx_reply_fini(&r);
    pg_fake_fill(fx.fake, id, 120, 70, 10, 6, 0xcc0000ff); /* recolour a 10x6 spot */
    CHECK_EQ_INT(pg_fx_call(&fx, "accept", "{\"case_id\":\"home\",\"window\":\"demo\",\"interval\":0.01}", NULL, 0, &r),
                 PG_E_ASSERT);
    CHECK_STR(outcome(&r), "failed");
    CHECK_STR(pg_fx_str(&r, "reason_code"), "PIXEL_DIFF");
    CHECK(!strncmp(pg_fx_str(&r, "diff_token"), "cap:", 4));
    CHECK(!strncmp(pg_fx_str(&r, "overlay_token"), "cap:", 4));
    const cJSON *b = cJSON_GetObjectItem(r.details, "bounds");
    CHECK_EQ_INT(cJSON_GetObjectItem(b, "x")->valueint, 120);
    CHECK_EQ_INT(cJSON_GetObjectItem(b, "y")->valueint, 70);
    CHECK_EQ_INT(cJSON_GetObjectItem(b, "w")->valueint, 10);
    CHECK_EQ_INT(cJSON_GetObjectItem(b, "h")->valueint, 6);
    CHECK_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(r.details, "regions")), 1);
    CHECK_EQ_INT(pg_fx_num(&(pg_fx_reply){.details = cJSON_GetObjectItem(r.details, "metrics")}, "pixels_changed"), 60);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "accept", "OK"), 1);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "accept", "ASSERTION_FAILED"), 1);
    pg_fx_fini(&fx);
}

PG_TEST(accept_without_a_baseline_prepares_one_candidate_and_needs_approval) {
    FX(fx, ALLOW_POLICY);
    demo_window(&fx, "demo");
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "accept", "{\"case_id\":\"fresh\",\"window\":\"demo\"}", NULL, 0, &r),
                 PG_E_NEEDS_APPROVAL);
    CHECK_STR(outcome(&r), "needs_approval");
    char cand[32];
    snprintf(cand, sizeof cand, "%s", pg_fx_str(&r, "candidate"));
    CHECK(!strncmp(cand, "cand:", 5));
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "accept", "{\"case_id\":\"fresh\",\"window\":\"demo\"}", NULL, 0, &r),
                 PG_E_NEEDS_APPROVAL);
    CHECK_STR(pg_fx_str(&r, "candidate"), cand); /* the same image: the same candidate, not a second one */
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fx_call(&fx, "baseline_list", NULL, NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(r.result, "candidates")), 1);
    CHECK_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(r.result, "baselines")), 0); /* never approved by itself */
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(a_baseline_from_another_environment_blocks_and_says_what_differs) {
    FX(fx, ALLOW_POLICY);
    demo_window(&fx, "demo");
    REQUIRE(prepare_and_approve(&fx, "home", "demo", NULL) == 0);
    /* Move the approved baseline to a 16-bit screen's environment, as if approved there. */
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "baseline_list", NULL, NULL, 0, &r) == PG_OK);
    char key[32];
    snprintf(key, sizeof key, "%s",
             cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(r.result, "baselines"), 0),
                                                     "environment"),
                                 "key")
                 ->valuestring);
    pg_fx_reply_fini(&r);
    char from[700], to[700], text[16384];
    snprintf(from, sizeof from, "%s/baselines/owners/u4100/home/default/%s.json", fx.dir, key);
    FILE *f = fopen(from, "r");
    REQUIRE(f != NULL);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    remove(from);
    cJSON *m = cJSON_Parse(text);
    REQUIRE(m != NULL);
    cJSON_SetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(m, "environment"), "depth"), 16);
    snprintf(from, sizeof from, "%s/baselines/owners/u4100/home/default/%s.png", fx.dir, key);
    snprintf(to, sizeof to, "%s/baselines/owners/u4100/home/default/0000000000000016.png", fx.dir);
    REQUIRE(rename(from, to) == 0);
    char *out = cJSON_PrintUnformatted(m);
    snprintf(to, sizeof to, "%s/baselines/owners/u4100/home/default/0000000000000016.json", fx.dir);
    f = fopen(to, "w");
    REQUIRE(f != NULL);
    fputs(out, f);
    fclose(f);
    free(out);
    cJSON_Delete(m);
    CHECK_EQ_INT(pg_fx_call(&fx, "accept", "{\"case_id\":\"home\",\"window\":\"demo\"}", NULL, 0, &r), PG_E_BLOCKED);
    CHECK_STR(outcome(&r), "blocked");
    CHECK_STR(pg_fx_str(&r, "reason_code"), "ENVIRONMENT_MISMATCH");
    CHECK(strstr(pg_fx_str(&r, "message"), "screen depth 16, here 0") != NULL);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(a_baseline_file_changed_behind_the_brokers_back_blocks) {
    FX(fx, ALLOW_POLICY);
    demo_window(&fx, "demo");
    REQUIRE(prepare_and_approve(&fx, "home", "demo", NULL) == 0);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "baseline_list", NULL, NULL, 0, &r) == PG_OK);
    const char *key = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(r.result,
                                                                                                     "baselines"), 0),
                                                             "environment"),
                                          "key")
                          ->valuestring;
    char path[600];
    snprintf(path, sizeof path, "%s/baselines/owners/u4100/home/default/%s.png", fx.dir, key);
    pg_fx_reply_fini(&r);
    FILE *f = fopen(path, "r+b");
    REQUIRE(f != NULL);
    fseek(f, 40, SEEK_SET);
    fputc(0x55, f);
    fclose(f);
    CHECK_EQ_INT(pg_fx_call(&fx, "accept", "{\"case_id\":\"home\",\"window\":\"demo\"}", NULL, 0, &r), PG_E_BLOCKED);
    CHECK_STR(pg_fx_str(&r, "reason_code"), "BASELINE_INTEGRITY");
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* A 200x120 white window whose caret (1x12 at 50,40) blinks: frames alternate. */
static uint64_t caret_window(pg_fx *fx, uint32_t caret_w, uint32_t caret_h) {
    uint64_t id = pg_fake_add_window(fx->fake, "entry", "Entry", getpid(), 0, 0, 200, 120, 0xffffffff);
    uint8_t *px = malloc(200 * 120 * 4);
    memset(px, 255, 200 * 120 * 4);
    for (uint32_t y = 40; y < 40 + caret_h; y++)
        for (uint32_t x = 50; x < 50 + caret_w; x++) memset(px + 4 * (y * 200 + x), 0, 3);
    pg_fake_add_frame(fx->fake, id, px, true);
    free(px);
    return id;
}

PG_TEST(a_blinking_caret_is_recognised_as_a_cycle_masked_and_accepted) {
    FX(fx, ALLOW_POLICY);
    caret_window(&fx, 1, 12);
    REQUIRE(prepare_and_approve(&fx, "entry", "entry", NULL) == 0);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "accept", "{\"case_id\":\"entry\",\"window\":\"entry\",\"interval\":0.01}", NULL, 0, &r),
                 PG_OK);
    CHECK_STR(outcome(&r), "passed");
    const cJSON *st = cJSON_GetObjectItem(r.result, "stability");
    CHECK_EQ_INT(cJSON_GetObjectItem(st, "cycle")->valueint, 2);
    const cJSON *m = cJSON_GetObjectItem(st, "caret_mask");
    CHECK_EQ_INT(cJSON_GetObjectItem(m, "x")->valueint, 50);
    CHECK_EQ_INT(cJSON_GetObjectItem(m, "h")->valueint, 12);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(a_window_that_never_settles_is_blocked_unstable_not_failed) {
    FX(fx, ALLOW_POLICY);
    caret_window(&fx, 150, 60); /* a large area flips: no caret */
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "accept", "{\"case_id\":\"x\",\"window\":\"entry\",\"interval\":0.01,\"tries\":6}", NULL,
                            0, &r),
                 PG_E_BLOCKED);
    CHECK_STR(pg_fx_str(&r, "reason_code"), "UNSTABLE");
    CHECK_EQ_INT(pg_fx_num(&(pg_fx_reply){.details = cJSON_GetObjectItem(r.details, "stability")}, "frames_observed"), 6);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "baseline_prepare", "{\"case_id\":\"x\",\"window\":\"entry\"}", NULL, 0, &r),
                 PG_E_BLOCKED);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(accept_of_a_token_says_that_no_stability_check_ran) {
    FX(fx, ALLOW_POLICY);
    uint64_t id = demo_window(&fx, "demo");
    REQUIRE(prepare_and_approve(&fx, "home", "demo", NULL) == 0);
    char tok[32];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    pg_fx_reply r;
    CHECK_EQ_INT(callf(&fx, "accept", &r, "{\"case_id\":\"%s\",\"token\":\"%s\"}", "home", tok), PG_OK);
    const cJSON *st = cJSON_GetObjectItem(r.result, "stability");
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(st, "checked")));
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(masks_covering_everything_or_nothing_block) {
    FX(fx, ALLOW_POLICY);
    demo_window(&fx, "demo");
    REQUIRE(prepare_and_approve(&fx, "all", "demo", "\"masks\":[{\"x\":0,\"y\":0,\"w\":200,\"h\":120}]") == 0);
    REQUIRE(prepare_and_approve(&fx, "none", "demo", "\"masks\":[{\"x\":500,\"y\":500,\"w\":10,\"h\":10}]") == 0);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "accept", "{\"case_id\":\"all\",\"window\":\"demo\"}", NULL, 0, &r), PG_E_BLOCKED);
    CHECK_STR(pg_fx_str(&r, "reason_code"), "MASK_COVERS_ALL");
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "accept", "{\"case_id\":\"none\",\"window\":\"demo\"}", NULL, 0, &r), PG_E_BLOCKED);
    CHECK_STR(pg_fx_str(&r, "reason_code"), "MASK_UNMATCHED");
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(a_zone_has_its_own_tolerance_and_fails_on_its_own) {
    FX(fx, ALLOW_POLICY);
    uint64_t id = demo_window(&fx, "demo");
    REQUIRE(prepare_and_approve(&fx, "loose", "demo", "\"zones\":[\"100,60,60,40:0.1:0.5\"]") == 0);
    REQUIRE(prepare_and_approve(&fx, "tight", "demo", "\"zones\":[\"100,60,60,40:0.1:0.001\"]") == 0);
    pg_fake_fill(fx.fake, id, 120, 70, 10, 6, 0xcc0000ff); /* inside the zone: 60 of 2400 pixels */
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "accept", "{\"case_id\":\"loose\",\"window\":\"demo\"}", NULL, 0, &r), PG_OK);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "accept", "{\"case_id\":\"tight\",\"window\":\"demo\"}", NULL, 0, &r), PG_E_ASSERT);
    CHECK_STR(pg_fx_str(&r, "reason_code"), "ZONE_FAILED");
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(shift_tolerance_forgives_content_moved_by_a_few_pixels_and_nothing_else) {
    FX(fx, ALLOW_POLICY);
    uint64_t id = demo_window(&fx, "demo");
    REQUIRE(prepare_and_approve(&fx, "strict", "demo", NULL) == 0);
    REQUIRE(prepare_and_approve(&fx, "shifty", "demo", "\"shift\":3") == 0);
    pg_fake_fill(fx.fake, id, 20, 20, 60, 30, 0xffffffff); /* the button moves 3 px right */
    pg_fake_fill(fx.fake, id, 23, 20, 60, 30, 0x3366ccff);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "accept", "{\"case_id\":\"strict\",\"window\":\"demo\"}", NULL, 0, &r), PG_E_ASSERT);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "accept", "{\"case_id\":\"shifty\",\"window\":\"demo\"}", NULL, 0, &r), PG_OK);
    CHECK(pg_fx_num(&(pg_fx_reply){.result = cJSON_GetObjectItem(r.result, "metrics")}, "pixels_shifted") >= 180);
    pg_fx_reply_fini(&r);
    pg_fake_fill(fx.fake, id, 150, 90, 8, 8, 0x00aa00ff); /* a new green square: not a shift */
    CHECK_EQ_INT(pg_fx_call(&fx, "accept", "{\"case_id\":\"shifty\",\"window\":\"demo\"}", NULL, 0, &r), PG_E_ASSERT);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(a_capture_of_another_size_fails_without_scaling) {
    FX(fx, ALLOW_POLICY);
    demo_window(&fx, "demo");
    REQUIRE(prepare_and_approve(&fx, "home", "demo", NULL) == 0);
    pg_fake_add_window(fx.fake, "wide", "Demo", getpid(), 0, 0, 220, 120, 0xffffffff);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "accept", "{\"case_id\":\"home\",\"window\":\"wide\"}", NULL, 0, &r), PG_E_ASSERT);
    CHECK_STR(pg_fx_str(&r, "reason_code"), "DIMENSION_MISMATCH");
    CHECK_STR(pg_fx_str(&r, "size_capture"), "220x120");
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(the_report_page_is_released_under_allow_and_withheld_from_the_agent_under_analyze_only) {
    FX(fx, ALLOW_POLICY);
    demo_window(&fx, "demo");
    REQUIRE(prepare_and_approve(&fx, "home", "demo", NULL) == 0);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "accept", "{\"case_id\":\"home\",\"window\":\"demo\",\"html\":true}", NULL, 0, &r),
                 PG_OK);
    REQUIRE(r.reply.data != NULL);
    CHECK(strstr((const char *)r.reply.data, "<!DOCTYPE html>") != NULL);
    CHECK(strstr((const char *)r.reply.data, "data:image/png;base64,") != NULL);
    CHECK(strstr((const char *)r.reply.data, "http://") == NULL && strstr((const char *)r.reply.data, "https://") == NULL);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);

    FX(fx2, ANALYZE_POLICY);
    demo_window(&fx2, "demo");
    REQUIRE(prepare_and_approve(&fx2, "home", "demo", NULL) == 0);
    CHECK_EQ_INT(pg_fx_call(&fx2, "accept", "{\"case_id\":\"home\",\"window\":\"demo\",\"html\":true}", NULL, 0, &r),
                 PG_OK);
    CHECK(r.reply.data == NULL);
    CHECK_STR(pg_fx_str(&(pg_fx_reply){.result = cJSON_GetObjectItem(r.result, "report")}, "html"), "withheld");
    CHECK_STR(outcome(&r), "passed"); /* the verdict stays exact */
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx2);
}

PG_TEST(only_an_approver_sees_a_candidates_image_and_review_page) {
    FX(fx, ANALYZE_POLICY);
    demo_window(&fx, "demo");
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "baseline_prepare", "{\"case_id\":\"home\",\"window\":\"demo\"}", NULL, 0, &r) == PG_OK);
    CHECK_STR(pg_fx_str(&r, "digest_kind"), "keyed"); /* protected pixels: no raw digest for the agent */
    char cand[32], args[200];
    snprintf(cand, sizeof cand, "%s", pg_fx_str(&r, "candidate"));
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"what\":\"%s\",\"image\":\"png\"}", cand);
    CHECK_EQ_INT(pg_fx_call(&fx, "baseline_show", args, NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(as_alice(&fx, "baseline_show", args, &r), PG_OK);
    REQUIRE(r.reply.data != NULL && r.reply.len > 8);
    CHECK(!memcmp(r.reply.data, "\x89PNG", 4));
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"what\":\"%s\",\"image\":\"html\"}", cand);
    CHECK_EQ_INT(as_alice(&fx, "baseline_show", args, &r), PG_OK);
    REQUIRE(r.reply.data != NULL);
    CHECK(strstr((const char *)r.reply.data, "candidate") != NULL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "baseline_show", "OK"), 2);
    /* the agent may withdraw its own candidate */
    snprintf(args, sizeof args, "{\"candidate\":\"%s\"}", cand);
    CHECK_EQ_INT(pg_fx_call(&fx, "baseline_reject", args, NULL, 0, &r), PG_OK);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(accept_about_protected_pixels_is_exact_in_its_verdict_coarse_in_its_measurements_and_charged) {
    FX(fx, ANALYZE_POLICY);
    uint64_t id = demo_window(&fx, "demo");
    REQUIRE(prepare_and_approve(&fx, "home", "demo", NULL) == 0);
    pg_fake_fill(fx.fake, id, 121, 71, 10, 6, 0xcc0000ff);
    double before = pg_disclose_used(fx.b.disclose, fx.peer.uid);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "accept", "{\"case_id\":\"home\",\"window\":\"demo\"}", NULL, 0, &r), PG_E_ASSERT);
    CHECK_STR(outcome(&r), "failed");
    const cJSON *b = cJSON_GetObjectItem(r.details, "bounds");
    CHECK_EQ_INT(cJSON_GetObjectItem(b, "x")->valueint % 8, 0); /* on the grid */
    CHECK_EQ_INT(cJSON_GetObjectItem(b, "w")->valueint % 8, 0);
    CHECK(pg_fx_str(&r, "resolution") != NULL);
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(r.details, "baseline"), "digest_kind")->valuestring, "keyed");
    pg_fx_reply_fini(&r);
    double charged = pg_disclose_used(fx.b.disclose, fx.peer.uid) - before;
    CHECK(charged > 0 && charged < 200);
    pg_fx_fini(&fx);
}

/* How many captures it took until two were alike (and the caret's cycle) is
 * the window's content: charged on every answer from a window, not only when
 * it never held still (issue 27: a stable answer, or one without a baseline,
 * told frames_observed for free). */
PG_TEST(accept_from_a_window_charges_the_stability_it_reports_whatever_the_outcome) {
    FX(fx, ANALYZE_POLICY);
    demo_window(&fx, "demo");
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "accept", "{\"case_id\":\"fresh\",\"window\":\"demo\"}", NULL, 0, &r),
                 PG_E_NEEDS_APPROVAL);
    const cJSON *st = cJSON_GetObjectItem(r.details, "stability");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(st, "stable")) && cJSON_GetObjectItem(st, "frames_observed"));
    pg_fx_reply_fini(&r);
    CHECK(pg_disclose_used(fx.b.disclose, fx.peer.uid) >= 8 - 1e-9);
    pg_fx_fini(&fx);
}

/* A candidate's digest is keyed about protected pixels but still says
 * whether two candidates' pixels are equal (1 bit, as a snapshot's digest),
 * and a window that never held still says so after how many tries: both are
 * charged (issue 27: baseline prepare charged nothing). */
PG_TEST(baseline_prepare_from_a_protected_window_charges_its_digest_and_its_stability) {
    FX(fx, ANALYZE_POLICY);
    demo_window(&fx, "demo");
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "baseline_prepare", "{\"case_id\":\"p\",\"window\":\"demo\"}", NULL, 0, &r) == PG_OK);
    CHECK_STR(pg_fx_str(&r, "digest_kind"), "keyed");
    pg_fx_reply_fini(&r);
    CHECK(pg_disclose_used(fx.b.disclose, fx.peer.uid) >= 1 - 1e-9); /* shares of 1 bit over the tiles, summed */
    pg_fx_fini(&fx);
    FX(fx2, ANALYZE_POLICY);
    caret_window(&fx2, 150, 60);
    CHECK_EQ_INT(pg_fx_call(&fx2, "baseline_prepare", "{\"case_id\":\"x\",\"window\":\"entry\"}", NULL, 0, &r),
                 PG_E_BLOCKED);
    CHECK_STR(pg_fx_str(&r, "reason_code"), "UNSTABLE");
    pg_fx_reply_fini(&r);
    CHECK(pg_disclose_used(fx2.b.disclose, fx2.peer.uid) >= 8 - 1e-9);
    pg_fx_fini(&fx2);
}

/* The attack: rebuild a protected token through accept verdicts. The agent
 * gets an approver to approve a 1-pixel zone (a per-pixel comparator) and
 * then hammers accept with its token: the zone is refused for being under
 * min_area, and the whole-image verdict is charged once: asked again about
 * the same pixels it is the same answer, tells nothing new and charges
 * nothing (issue 27: budgets bound reconstruction, not repetition). */
PG_TEST(attack_accept_cannot_be_turned_into_a_pixel_oracle_on_a_protected_token) {
    FX(fx, "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"expose_pixels\":\"analyze-only\"," APPROVERS
           ",\"disclosure\":{\"bits_per_tile_hour\":400,\"bits_per_user_hour\":400}}");
    uint64_t id = demo_window(&fx, "demo");
    REQUIRE(prepare_and_approve(&fx, "pixel", "demo", "\"zones\":[\"30,30,1,1:0:0\"]") == 0);
    REQUIRE(prepare_and_approve(&fx, "whole", "demo", NULL) == 0);
    char tok[32];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    pg_fx_reply r;
    CHECK_EQ_INT(callf(&fx, "accept", &r, "{\"case_id\":\"%s\",\"token\":\"%s\"}", "pixel", tok), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    char *first = NULL;
    double after_first = 0;
    int same = 0;
    for (int i = 0; i < 50; i++) {
        pg_err rc = callf(&fx, "accept", &r, "{\"case_id\":\"%s\",\"token\":\"%s\"}", "whole", tok);
        REQUIRE(rc == PG_OK || rc == PG_E_ASSERT);
        char *o = cJSON_PrintUnformatted(cJSON_GetObjectItem(rc ? r.details : r.result, "outcome"));
        if (!first) first = o, after_first = pg_disclose_used(fx.b.disclose, fx.peer.uid);
        else same += o && first && !strcmp(o, first), free(o);
        pg_fx_reply_fini(&r);
    }
    CHECK_EQ_INT(same, 49);
    CHECK(after_first > 0);
    CHECK(pg_disclose_used(fx.b.disclose, fx.peer.uid) == after_first);
    CHECK(pg_disclose_used(fx.b.disclose, fx.peer.uid) <= 400);
    free(first);
    pg_fx_fini(&fx);
}

PG_TEST(the_store_is_the_brokers_own_a_0700_dir_of_0600_files) {
    FX(fx, ALLOW_POLICY);
    demo_window(&fx, "demo");
    REQUIRE(prepare_and_approve(&fx, "home", "demo", NULL) == 0);
    char path[600];
    struct stat st;
    snprintf(path, sizeof path, "%s/baselines", fx.dir);
    REQUIRE(stat(path, &st) == 0);
    CHECK_EQ_INT(st.st_mode & 0777, 0700);
    snprintf(path, sizeof path, "%s/baselines/owners/u4100/home/default", fx.dir);
    DIR *d = opendir(path);
    REQUIRE(d != NULL);
    int files = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        char f[900];
        snprintf(f, sizeof f, "%s/%s", path, de->d_name);
        REQUIRE(lstat(f, &st) == 0);
        CHECK(S_ISREG(st.st_mode));
        CHECK_EQ_INT(st.st_mode & 0777, 0600);
        files++;
    }
    closedir(d);
    CHECK_EQ_INT(files, 2); /* the manifest and the PNG, nothing left over */
    pg_fx_fini(&fx);
}

PG_TEST(a_rules_change_keeps_the_approved_image_stays_keyed_and_needs_its_own_approval) {
    FX(fx, ANALYZE_POLICY);
    uint64_t id = demo_window(&fx, "demo");
    REQUIRE(prepare_and_approve(&fx, "home", "demo", NULL) == 0);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "baseline_prepare", "{\"case_id\":\"home\",\"keep_image\":true,\"threshold\":0.3}", NULL, 0,
                       &r) == PG_OK);
    CHECK_STR(pg_fx_str(&r, "kind"), "rules");
    CHECK_STR(pg_fx_str(&r, "digest_kind"), "keyed"); /* the approved pixels are still not the agent's */
    char cand[32];
    snprintf(cand, sizeof cand, "%s", pg_fx_str(&r, "candidate"));
    pg_fx_reply_fini(&r);
    /* until approved, the old rules hold: a 10x6 change still fails */
    pg_fake_fill(fx.fake, id, 120, 70, 10, 6, 0xcc0000ff);
    CHECK_EQ_INT(pg_fx_call(&fx, "accept", "{\"case_id\":\"home\",\"window\":\"demo\"}", NULL, 0, &r), PG_E_ASSERT);
    CHECK_EQ_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(r.details, "metrics"), "threshold")->valuedouble * 10, 1);
    pg_fx_reply_fini(&r);
    char args[200];
    snprintf(args, sizeof args, "{\"what\":\"%s\"}", cand);
    REQUIRE(as_alice(&fx, "baseline_show", args, &r) == PG_OK);
    snprintf(args, sizeof args, "{\"candidate\":\"%s\",\"digest\":\"%s\",\"note\":\"ok\"}", cand, pg_fx_str(&r, "digest"));
    pg_fx_reply_fini(&r);
    REQUIRE(as_alice(&fx, "baseline_approve", args, &r) == PG_OK);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "accept", "{\"case_id\":\"home\",\"window\":\"demo\"}", NULL, 0, &r), PG_E_ASSERT);
    CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(r.details, "metrics"), "threshold")->valuedouble > 0.29);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* Calls as another client (uid 4300 "bob") and back. */
static pg_err as_bob(pg_fx *fx, const char *op, const char *args, pg_fx_reply *r) {
    pg_peer agent = fx->peer;
    fx->peer.uid = 4300;
    snprintf(fx->peer.user, sizeof fx->peer.user, "bob");
    pg_err rc = pg_fx_call(fx, op, args, NULL, 0, r);
    fx->peer = agent;
    return rc;
}

static int array_size(const pg_fx_reply *r, const char *field) {
    return r->result ? cJSON_GetArraySize(cJSON_GetObjectItem(r->result, field)) : -1;
}

#define TWO_CLIENTS "\"clients\":{\"users\":[\"agent\",\"bob\"]},\"expose_pixels\":\"allow\"," APPROVERS

/* The review's N9: baselines were shared by every user, so anyone could
 * accept against, or prepare candidates for, another user's case. */
PG_TEST(a_case_is_its_preparers_and_another_user_of_the_same_name_has_another_case) {
    FX(fx, "{\"version\":1," TWO_CLIENTS "}");
    demo_window(&fx, "demo");
    REQUIRE(prepare_and_approve(&fx, "home", "demo", NULL) == 0);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "accept", "{\"case_id\":\"home\",\"window\":\"demo\"}", NULL, 0, &r) == PG_OK);
    CHECK_STR(outcome(&r), "passed");
    pg_fx_reply_fini(&r);
    /* bob sees none of the agent's baselines or candidates ... */
    REQUIRE(as_bob(&fx, "baseline_list", "{}", &r) == PG_OK);
    CHECK_EQ_INT(array_size(&r, "baselines"), 0);
    CHECK_EQ_INT(array_size(&r, "candidates"), 0);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(as_bob(&fx, "baseline_show", "{\"what\":\"home\"}", &r), PG_E_NOTFOUND);
    pg_fx_reply_fini(&r);
    /* ... and his accept of "home" is judged against nothing: it makes his own candidate */
    CHECK_EQ_INT(as_bob(&fx, "accept", "{\"case_id\":\"home\",\"window\":\"demo\"}", &r), PG_E_NEEDS_APPROVAL);
    CHECK(r.details == NULL || !cJSON_GetObjectItem(r.details, "outcome") ||
          strcmp(pg_fx_str(&r, "outcome"), "passed") != 0);
    pg_fx_reply_fini(&r);
    /* the agent does not see bob's candidate; the approver sees both, with their owners */
    REQUIRE(pg_fx_call(&fx, "baseline_list", "{}", NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(array_size(&r, "baselines"), 1);
    CHECK_EQ_INT(array_size(&r, "candidates"), 0);
    pg_fx_reply_fini(&r);
    REQUIRE(as_alice(&fx, "baseline_list", "{}", &r) == PG_OK);
    CHECK_EQ_INT(array_size(&r, "baselines"), 1);
    CHECK_EQ_INT(array_size(&r, "candidates"), 1);
    const cJSON *b0 = cJSON_GetArrayItem(cJSON_GetObjectItem(r.result, "baselines"), 0);
    const cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItem(r.result, "candidates"), 0);
    CHECK_STR(cJSON_GetObjectItem(b0, "owner")->valuestring, "u4100");
    CHECK_STR(cJSON_GetObjectItem(c0, "owner")->valuestring, "u4300");
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(a_shared_case_is_its_owners_together_and_nobody_elses) {
    FX(fx, "{\"version\":1," TWO_CLIENTS ",\"baselines\":{\"shared_cases\":{\"team\":[\"agent\",\"bob\"],"
           "\"theirs\":[\"carol\"]}}}");
    demo_window(&fx, "demo");
    REQUIRE(prepare_and_approve(&fx, "team", "demo", NULL) == 0);
    pg_fx_reply r;
    REQUIRE(as_bob(&fx, "accept", "{\"case_id\":\"team\",\"window\":\"demo\"}", &r) == PG_OK);
    CHECK_STR(outcome(&r), "passed"); /* bob is judged by the baseline the agent prepared */
    pg_fx_reply_fini(&r);
    REQUIRE(as_bob(&fx, "baseline_list", "{}", &r) == PG_OK);
    CHECK_EQ_INT(array_size(&r, "baselines"), 1);
    pg_fx_reply_fini(&r);
    /* a case shared by others only: refused before anything is captured */
    CHECK_EQ_INT(pg_fx_call(&fx, "accept", "{\"case_id\":\"theirs\",\"window\":\"demo\"}", NULL, 0, &r), PG_E_POLICY);
    CHECK(strstr(r.e.message, "not one of its owners") != NULL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "baseline_prepare", "{\"case_id\":\"theirs\",\"window\":\"demo\"}", NULL, 0, &r),
                 PG_E_POLICY);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* A baseline approved before cases had owners (cases/<case>/...) stays its
 * preparer's: read for them, nobody else. */
PG_TEST(a_baseline_from_before_owners_is_its_preparers) {
    FX(fx, "{\"version\":1," TWO_CLIENTS "}");
    demo_window(&fx, "demo");
    REQUIRE(prepare_and_approve(&fx, "home", "demo", NULL) == 0);
    char from[600], to[600];
    snprintf(from, sizeof from, "%s/baselines/owners/u4100/home", fx.dir);
    snprintf(to, sizeof to, "%s/baselines/cases", fx.dir);
    mkdir(to, 0700);
    snprintf(to, sizeof to, "%s/baselines/cases/home", fx.dir);
    REQUIRE(rename(from, to) == 0); /* the old layout */
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "accept", "{\"case_id\":\"home\",\"window\":\"demo\"}", NULL, 0, &r) == PG_OK);
    CHECK_STR(outcome(&r), "passed");
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fx_call(&fx, "baseline_list", "{}", NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(array_size(&r, "baselines"), 1);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(as_bob(&fx, "accept", "{\"case_id\":\"home\",\"window\":\"demo\"}", &r), PG_E_NEEDS_APPROVAL);
    pg_fx_reply_fini(&r);
    REQUIRE(as_bob(&fx, "baseline_list", "{}", &r) == PG_OK);
    CHECK_EQ_INT(array_size(&r, "baselines"), 0);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}
