/* SPDX-License-Identifier: MIT */
/* windows, info, caps, ocr, assert text, analyze and judge against the fake
 * desktop: what each tells the agent, and what it refuses. */
#include <unistd.h>

#include "pg_broker_fixture.h"
#include "ocr/pg_ocr_cache.h"
#include "pg_disclose.h"
#include "pg_test.h"

#define FX(fx, policy) \
    pg_fx fx;          \
    REQUIRE(pg_fx_init(&fx, policy) == 0)

PG_TEST(windows_lists_and_marks_denied_windows) {
    FX(fx, NULL);
    pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 50, 50, 0xffffffff);
    pg_fake_add_window(fx.fake, "secret vault", "Vault", getpid(), 60, 0, 50, 50, 0xffffffff);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "windows", NULL, NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "count"), 2);
    const cJSON *w1 = cJSON_GetArrayItem(cJSON_GetObjectItem(r.result, "windows"), 1);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(w1, "capture_denied")));
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fx_call(&fx, "windows", "{\"match\":\"^dem\"}", NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "count"), 1);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "windows", "{\"match\":\"((a{1,255}){1,255}){1,255}\"}", NULL, 0, &r), PG_E_USAGE);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "windows", "OK"), 2);
    pg_fx_fini(&fx);
}

PG_TEST(info_and_caps_describe_without_pixels) {
    FX(fx, NULL);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 50, 40, 0xffffffff);
    char tok[32], args[96];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    snprintf(args, sizeof args, "{\"token\":\"%s\"}", tok);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "info", args, NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "width"), 50);
    CHECK_STR(pg_fx_str(&r, "method"), "fake");
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fx_call(&fx, "caps", NULL, NULL, 0, &r) == PG_OK);
    CHECK_STR(pg_fx_str(&r, "backend"), "fake");
    CHECK_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(r.result, "operations")), PG_OPI_COUNT);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* A window whose pixels are text rendered by ImageMagick (a PNG of our own). */
static uint64_t text_window(pg_fx *fx, const char *text) {
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "convert -size 400x60 xc:white -font DejaVu-Sans -pointsize 24 -fill black -draw \"text 12,40 '%s'\" "
             "-depth 8 rgba:-",
             text);
    FILE *p = popen(cmd, "r");
    if (!p) return 0;
    uint8_t *px = malloc(400 * 60 * 4);
    size_t n = fread(px, 1, 400 * 60 * 4, p);
    uint64_t id = 0;
    if (pclose(p) == 0 && n == 400 * 60 * 4) {
        id = pg_fake_add_window(fx->fake, "reader", "Reader", getpid(), 0, 0, 400, 60, 0xffffffff);
        pg_fake_set_pixels(fx->fake, id, px);
    }
    free(px);
    return id;
}

PG_TEST(ocr_and_assert_text_read_inside_the_broker) {
    FX(fx, NULL);
    uint64_t id = text_window(&fx, "Status: ready");
    REQUIRE(id);
    char tok[32], args[160];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    snprintf(args, sizeof args, "{\"token\":\"%s\"}", tok);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "ocr", args, NULL, 0, &r) == PG_OK);
    CHECK(strstr(pg_fx_str(&r, "text"), "Status: ready") != NULL);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"image\":{\"token\":\"%s\"},\"expect\":\"ready\"}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "assert_text", args, NULL, 0, &r), PG_OK);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"image\":{\"token\":\"%s\"},\"expect\":\"failed\"}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "assert_text", args, NULL, 0, &r), PG_E_ASSERT);
    CHECK(strstr(pg_fx_str(&r, "text_read"), "ready") != NULL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "ocr", "OK"), 1);
    pg_fx_fini(&fx);
}

PG_TEST(ocr_turned_off_by_policy_is_refused) {
    FX(fx, "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"analysis\":{\"ocr\":false}}");
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 50, 40, 0xffffffff);
    char tok[32], args[96];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    snprintf(args, sizeof args, "{\"token\":\"%s\"}", tok);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "ocr", args, NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* ---- what OCR tells beyond its text (issue 27) ---- */

#define BUDGET_POLICY(bits) \
    "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"disclosure\":{\"bits_per_user_hour\":" #bits "}}"

static pg_err ocr_tok(pg_fx *fx, const char *tok, const char *region, pg_fx_reply *r) {
    char args[200];
    snprintf(args, sizeof args, "{\"token\":\"%s\"%s%s}", tok, region ? ",\"region\":" : "", region ? region : "");
    return pg_fx_call(fx, "ocr", args, NULL, 0, r);
}

static pg_err ocr_of(pg_fx *fx, uint64_t id, const char *region, pg_fx_reply *r) {
    char tok[32];
    return pg_fx_snapshot(fx, id, tok) ? PG_E_INTERNAL : ocr_tok(fx, tok, region, r);
}

static bool on_grid(int v, int end, int side) { return v % PG_DISCLOSE_GRID == 0 || v == side || v == end; }

/* Every word's box is on the disclosure grid and its confidence a multiple of 10. */
static bool words_coarse(const cJSON *words, int width, int height) {
    int n = 0;
    for (const cJSON *w = words ? words->child : NULL; w; w = w->next, n++) {
        int x = cJSON_GetObjectItem(w, "x")->valueint, y = cJSON_GetObjectItem(w, "y")->valueint;
        int x1 = x + cJSON_GetObjectItem(w, "w")->valueint, y1 = y + cJSON_GetObjectItem(w, "h")->valueint;
        double conf = cJSON_GetObjectItem(w, "conf")->valuedouble;
        if (!on_grid(x, -1, -1) || !on_grid(y, -1, -1) || !on_grid(x1, width, width) || !on_grid(y1, height, height) ||
            conf != (int)(conf / 10) * 10)
            return false;
    }
    return n > 0;
}

static bool has_engine_choices(const cJSON *o) {
    return cJSON_GetObjectItem(o, "inverted") || cJSON_GetObjectItem(o, "scale") || cJSON_GetObjectItem(o, "psm");
}

PG_TEST(ocr_replies_do_not_show_the_polarity_of_the_region) {
    /* Before: "inverted" was exactly "mean luma < 128", a free luminance
     * predicate. A dark and a light region with no text answer the same. */
    FX(fx, NULL);
    uint8_t *px = malloc(400 * 60 * 4);
    REQUIRE(px);
    for (int i = 0; i < 400 * 60; i++) {
        uint8_t v = (i % 400) < 200 ? 0 : 255;
        px[i * 4] = px[i * 4 + 1] = px[i * 4 + 2] = v, px[i * 4 + 3] = 255;
    }
    uint64_t id = pg_fake_add_window(fx.fake, "halves", "Halves", getpid(), 0, 0, 400, 60, 0xffffffff);
    pg_fake_set_pixels(fx.fake, id, px);
    free(px);
    char tok[32];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    double before = pg_disclose_used(fx.b.disclose, fx.peer.uid);
    pg_fx_reply dark, light;
    REQUIRE(ocr_tok(&fx, tok, "{\"x\":0,\"y\":0,\"w\":120,\"h\":60}", &dark) == PG_OK);
    REQUIRE(ocr_tok(&fx, tok, "{\"x\":280,\"y\":0,\"w\":120,\"h\":60}", &light) == PG_OK);
    CHECK(pg_disclose_used(fx.b.disclose, fx.peer.uid) == before); /* no words: nothing beyond the text */
    CHECK(!has_engine_choices(dark.result));
    cJSON_DeleteItemFromObject(dark.result, "token");
    cJSON_DeleteItemFromObject(light.result, "token");
    cJSON_DeleteItemFromObject(dark.result, "untrusted_nonce"); /* fresh for every reply */
    cJSON_DeleteItemFromObject(light.result, "untrusted_nonce");
    char *a = cJSON_PrintUnformatted(dark.result), *b = cJSON_PrintUnformatted(light.result);
    CHECK_STR(a, b);
    free(a), free(b);
    pg_fx_reply_fini(&dark), pg_fx_reply_fini(&light);
    pg_fx_fini(&fx);
}

PG_TEST(ocr_of_protected_pixels_shows_boxes_on_the_grid_and_charges_them) {
    FX(fx, NULL);
    uint64_t id = text_window(&fx, "Status: ready");
    REQUIRE(id);
    double before = pg_disclose_used(fx.b.disclose, fx.peer.uid);
    pg_fx_reply r;
    REQUIRE(ocr_of(&fx, id, NULL, &r) == PG_OK);
    CHECK(strstr(pg_fx_str(&r, "text"), "Status: ready") != NULL);
    CHECK(!has_engine_choices(r.result));
    CHECK(words_coarse(cJSON_GetObjectItem(r.result, "words"), 400, 60));
    double sum = 0; /* mean_conf is the mean of the confidences shown: no bits of its own */
    const cJSON *words = cJSON_GetObjectItem(r.result, "words");
    for (const cJSON *w = words->child; w; w = w->next) sum += cJSON_GetObjectItem(w, "conf")->valuedouble;
    CHECK(pg_fx_num(&r, "mean_conf") == (int)(sum / cJSON_GetArraySize(words) + 0.5));
    CHECK_STR(pg_fx_str(&r, "geometry"), "coarse");
    /* two words: two boxes on a 400x60 grid and two confidences, about 2 * 22 + 2 * 3.5 bits */
    double charged = pg_disclose_used(fx.b.disclose, fx.peer.uid) - before;
    CHECK(charged > 40 && charged < 80);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(ocr_over_the_budget_withholds_boxes_and_confidences_but_not_the_text) {
    FX(fx, BUDGET_POLICY(20));
    uint64_t id = text_window(&fx, "Status: ready");
    REQUIRE(id);
    char tok[32];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    double before = pg_disclose_used(fx.b.disclose, fx.peer.uid); /* the snapshot's digest */
    pg_fx_reply r;
    REQUIRE(ocr_tok(&fx, tok, NULL, &r) == PG_OK);
    CHECK(strstr(pg_fx_str(&r, "text"), "Status: ready") != NULL);
    const cJSON *w0 = cJSON_GetArrayItem(cJSON_GetObjectItem(r.result, "words"), 0);
    REQUIRE(w0);
    CHECK(cJSON_IsString(cJSON_GetObjectItem(w0, "text")) && cJSON_IsNumber(cJSON_GetObjectItem(w0, "line")));
    CHECK(!cJSON_GetObjectItem(w0, "x") && !cJSON_GetObjectItem(w0, "conf"));
    CHECK(!cJSON_GetObjectItem(r.result, "mean_conf") && !has_engine_choices(r.result));
    CHECK(!strncmp(pg_fx_str(&r, "geometry"), "withheld", 8));
    CHECK(pg_disclose_used(fx.b.disclose, fx.peer.uid) == before);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "ocr", "OK"), 1);
    pg_fx_fini(&fx);
}

PG_TEST(ocr_of_released_pixels_is_exact_and_free) {
    FX(fx, "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"expose_pixels\":\"allow\"}");
    uint64_t id = text_window(&fx, "Status: ready");
    REQUIRE(id);
    pg_fx_reply r;
    REQUIRE(ocr_of(&fx, id, NULL, &r) == PG_OK);
    const cJSON *w0 = cJSON_GetArrayItem(cJSON_GetObjectItem(r.result, "words"), 0);
    REQUIRE(w0);
    CHECK_EQ_INT(cJSON_GetObjectItem(w0, "x")->valueint % PG_DISCLOSE_GRID != 0, 1); /* 12 + the glyph's bearing */
    CHECK(!cJSON_GetObjectItem(r.result, "geometry") && !has_engine_choices(r.result));
    CHECK(pg_disclose_used(fx.b.disclose, fx.peer.uid) == 0);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(assert_text_shows_the_match_on_the_grid_and_over_the_budget_only_the_verdict) {
    for (int spent = 0; spent < 2; spent++) {
        pg_fx fx;
        REQUIRE(pg_fx_init(&fx, spent ? BUDGET_POLICY(20) : NULL) == 0);
        uint64_t id = text_window(&fx, "Status: ready");
        REQUIRE(id);
        char tok[32], args[160];
        REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
        snprintf(args, sizeof args, "{\"image\":{\"token\":\"%s\"},\"expect\":\"ready\"}", tok);
        pg_fx_reply r;
        REQUIRE(pg_fx_call(&fx, "assert_text", args, NULL, 0, &r) == PG_OK);
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r.result, "passed")));
        const cJSON *m = cJSON_GetObjectItem(r.result, "match");
        if (spent) {
            CHECK(m == NULL && !strncmp(pg_fx_str(&r, "geometry"), "withheld", 8));
        } else {
            REQUIRE(m);
            CHECK_EQ_INT(cJSON_GetObjectItem(m, "x")->valueint % PG_DISCLOSE_GRID, 0);
            CHECK(words_coarse(cJSON_GetObjectItem(r.result, "words"), 400, 60));
            CHECK(pg_disclose_used(fx.b.disclose, fx.peer.uid) > 0);
        }
        pg_fx_reply_fini(&r);
        /* not found: no geometry, nothing charged */
        double before = pg_disclose_used(fx.b.disclose, fx.peer.uid);
        snprintf(args, sizeof args, "{\"image\":{\"token\":\"%s\"},\"expect\":\"failed\"}", tok);
        CHECK_EQ_INT(pg_fx_call(&fx, "assert_text", args, NULL, 0, &r), PG_E_ASSERT);
        CHECK(pg_disclose_used(fx.b.disclose, fx.peer.uid) == before);
        pg_fx_reply_fini(&r);
        pg_fx_fini(&fx);
    }
}

#define CMD_POLICY(expose)                                                                                    \
    "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"expose_pixels\":\"" expose "\",\"analysis\":{"     \
    "\"endpoints\":{\"cmd\":{\"kind\":\"command\",\"argv\":[\"/bin/sh\",\"" PG_SOURCE_DIR                    \
    "/tests/relay/analyze_cmd.sh\"]},\"judge\":{\"kind\":\"command\",\"argv\":[\"/bin/sh\",\"" PG_SOURCE_DIR \
    "/tests/relay/judge_seq.sh\",\"/dev/null\",\"MATCH\"]}}}}"

PG_TEST(analyze_and_judge_go_to_a_named_endpoint_and_only_text_returns) {
    FX(fx, CMD_POLICY("analyze-only"));
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 50, 40, 0xffffffff);
    char tok[32], args[160];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    snprintf(args, sizeof args, "{\"token\":\"%s\",\"prompt\":\"what\",\"endpoint\":\"cmd\"}", tok);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "analyze", args, NULL, 0, &r) == PG_OK);
    CHECK(strstr(pg_fx_str(&r, "answer"), "prompt=what") != NULL);
    CHECK(r.reply.data == NULL);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"token\":\"%s\",\"prompt\":\"x\",\"endpoint\":\"http://127.0.0.1:1/\"}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "analyze", args, NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"token\":\"%s\",\"expect\":\"a window\",\"samples\":1,\"endpoint\":\"judge\"}", tok);
    REQUIRE(pg_fx_call(&fx, "judge", args, NULL, 0, &r) == PG_OK);
    CHECK_STR(pg_fx_str(&r, "outcome"), "CONTENT_MATCH");
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "analyze", "OK"), 1);
    pg_fx_fini(&fx);
}

/* One user's judgement must not answer another's question: a hit would tell
 * user B that someone judged the very same pixels with the same words, and
 * hand B that user's samples and reasons. */
PG_TEST(the_judge_cache_never_answers_one_user_from_another_users_judgement) {
    FX(fx, "{\"version\":1,\"clients\":{\"users\":[\"agent\",\"agent2\"]},\"capture\":{\"other_users\":[\"@SELF@\"]},"
           "\"analysis\":{\"endpoints\":{"
           "\"judge\":{\"kind\":\"command\",\"argv\":[\"/bin/sh\",\"" PG_SOURCE_DIR
           "/tests/relay/judge_seq.sh\",\"/dev/null\",\"MATCH\"]}}}}");
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 50, 40, 0xffffffff);
    char tok[32], args[160];
    pg_fx_reply r;
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    snprintf(args, sizeof args, "{\"token\":\"%s\",\"expect\":\"a window\",\"samples\":1,\"endpoint\":\"judge\"}", tok);
    REQUIRE(pg_fx_call(&fx, "judge", args, NULL, 0, &r) == PG_OK);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(r.result, "cached")));
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fx_call(&fx, "judge", args, NULL, 0, &r) == PG_OK); /* the same user again: cached */
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r.result, "cached")));
    pg_fx_reply_fini(&r);
    fx.peer.uid += 1; /* another user, the same pixels, the same question */
    snprintf(fx.peer.user, sizeof fx.peer.user, "agent2");
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    snprintf(args, sizeof args, "{\"token\":\"%s\",\"expect\":\"a window\",\"samples\":1,\"endpoint\":\"judge\"}", tok);
    REQUIRE(pg_fx_call(&fx, "judge", args, NULL, 0, &r) == PG_OK);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(r.result, "cached")));
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* The OCR cache through the request path: the broker binds the caller's
 * uid (SO_PEERCRED's, here the fixture's peer) to the engine it lends, so a
 * second read of the same pixels by that uid is a hit with the same reply
 * (no field says so), and another uid reading them pays a full read. */
PG_TEST(ocr_results_are_kept_per_uid_and_never_answer_another_uid) {
    FX(fx, "{\"version\":1,\"clients\":{\"users\":[\"agent\",\"agent2\"]},\"capture\":{\"other_users\":[\"@SELF@\"]}}");
    uint64_t id = text_window(&fx, "Status: ready");
    REQUIRE(id);
    pg_fx_reply r1, r2, r3;
    REQUIRE(ocr_of(&fx, id, NULL, &r1) == PG_OK);
    REQUIRE(ocr_of(&fx, id, NULL, &r2) == PG_OK); /* a new token, the same pixels */
    pg_ocr_cache_stats st;
    pg_ocr_cache_stats_get(fx.b.ocr_cache, &st);
    CHECK_EQ_INT(st.full, 1);
    CHECK_EQ_INT(st.hits, 1);
    CHECK_STR(pg_fx_str(&r1, "text"), pg_fx_str(&r2, "text"));
    CHECK_EQ_INT(cJSON_GetArraySize(r1.result), cJSON_GetArraySize(r2.result)); /* no "cached" field */
    fx.peer.uid += 1;
    snprintf(fx.peer.user, sizeof fx.peer.user, "agent2");
    REQUIRE(ocr_of(&fx, id, NULL, &r3) == PG_OK);
    pg_ocr_cache_stats_get(fx.b.ocr_cache, &st);
    CHECK_EQ_INT(st.hits, 1);
    CHECK_EQ_INT(st.full, 2);
    CHECK_STR(pg_fx_str(&r3, "text"), pg_fx_str(&r1, "text"));
    pg_fx_reply_fini(&r1), pg_fx_reply_fini(&r2), pg_fx_reply_fini(&r3);
    pg_fx_fini(&fx);
}

PG_TEST(under_never_no_image_goes_to_any_endpoint) {
    FX(fx, CMD_POLICY("never"));
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 50, 40, 0xffffffff);
    char tok[32], args[160];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    snprintf(args, sizeof args, "{\"token\":\"%s\",\"prompt\":\"what\",\"endpoint\":\"cmd\"}", tok);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "analyze", args, NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(drop_frees_the_callers_tokens_and_says_nothing_of_others) {
    FX(fx, NULL);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 50, 40, 0xffffffff);
    char a[32], b[32], args[200];
    REQUIRE(pg_fx_snapshot(&fx, id, a) == 0);
    REQUIRE(pg_fx_snapshot(&fx, id, b) == 0);
    pg_peer me = fx.peer;
    fx.peer.uid += 1; /* another admitted uid, same name */
    snprintf(args, sizeof args, "{\"tokens\":[\"%s\"]}", a);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "drop", args, NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "dropped"), 0); /* not theirs: the same as unknown */
    CHECK_EQ_INT(pg_fx_num(&r, "not_found"), 1);
    pg_fx_reply_fini(&r);
    fx.peer = me;
    snprintf(args, sizeof args, "{\"tokens\":[\"%s\",\"cap:AAAAAAAAAAAAAAAAAAAAAA\"]}", a);
    REQUIRE(pg_fx_call(&fx, "drop", args, NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "dropped"), 1);
    CHECK_EQ_INT(pg_fx_num(&r, "not_found"), 1);
    CHECK_EQ_INT(pg_fx_num(&r, "freed_bytes"), 50 * 40 * 4 + PG_TOK_OVERHEAD);
    CHECK_EQ_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(r.result, "held"), "tokens")->valuedouble, 1);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"token\":\"%s\"}", a);
    CHECK_EQ_INT(pg_fx_call(&fx, "info", args, NULL, 0, &r), PG_E_NOTFOUND);
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fx_call(&fx, "drop", "{\"all\":true}", NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "dropped"), 1);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "drop", "{}", NULL, 0, &r), PG_E_USAGE); /* tokens or --all */
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "drop", "OK"), 3);
    pg_fx_fini(&fx);
}

PG_TEST(a_quota_refusal_says_what_is_held_and_how_to_free_it_and_drop_frees_it) {
    FX(fx, "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"tokens\":{\"spool_quota_mb\":1}}");
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 300, 300, 0xffffffff); /* 360 KB */
    char t[32], args[96];
    REQUIRE(pg_fx_snapshot(&fx, id, t) == 0);
    REQUIRE(pg_fx_snapshot(&fx, id, t) == 0);
    snprintf(args, sizeof args, "{\"id\":%llu}", (unsigned long long)id);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", args, NULL, 0, &r), PG_E_POLICY);
    CHECK(strstr(r.e.message, "you hold 2 tokens") != NULL);
    CHECK(strstr(r.e.recovery_tip, "pixelgate drop --all") != NULL);
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fx_call(&fx, "drop", "{\"all\":true}", NULL, 0, &r) == PG_OK);
    pg_fx_reply_fini(&r);
    CHECK(pg_fx_snapshot(&fx, id, t) == 0); /* room again */
    pg_fx_fini(&fx);
}
