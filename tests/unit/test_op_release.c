/* SPDX-License-Identifier: MIT */
/* release and approve against the fake desktop: pixels leave only as the
 * policy says, once per approval, and never to the requester's own say-so. */
#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

#include "pg_broker_fixture.h"
#include "pg_img_codec.h"
#include "pg_test.h"

#define POLICY(expose)                                                                              \
    "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"approvers\":[\"alice\"],\"expose_pixels\":\"" expose \
    "\"}"

static int snap(pg_fx *fx, char tok[32]) {
    uint64_t id = pg_fake_add_window(fx->fake, "demo", "Demo", getpid(), 0, 0, 32, 16, 0xff8800ff);
    return pg_fx_snapshot(fx, id, tok);
}

static pg_err release(pg_fx *fx, const char *tok, pg_fx_reply *r) {
    char args[96];
    snprintf(args, sizeof args, "{\"token\":\"%s\"}", tok);
    return pg_fx_call(fx, "release", args, NULL, 0, r);
}

PG_TEST(under_allow_release_sends_a_png_of_the_token) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, POLICY("allow")) == 0);
    char tok[32];
    REQUIRE(snap(&fx, tok) == 0);
    pg_fx_reply r;
    REQUIRE(release(&fx, tok, &r) == PG_OK);
    CHECK_STR(pg_fx_str(&r, "mode"), "allow");
    REQUIRE(r.reply.len > 8);
    CHECK(!memcmp(r.reply.data, "\x89PNG", 4));
    /* written with the release settings (zlib's default strategy), not the spool's fast Z_RLE ones */
    pg_img *img = NULL;
    REQUIRE(pg_img_decode_png(r.reply.data, r.reply.len, NULL, &img, NULL) == PG_OK);
    pg_png_opts rel = pg_png_opts_release(), fast = pg_png_opts_default();
    uint8_t *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    REQUIRE(pg_img_encode_png(img, &rel, &a, &na, NULL) == PG_OK);
    REQUIRE(pg_img_encode_png(img, &fast, &b, &nb, NULL) == PG_OK);
    CHECK(na == r.reply.len && !memcmp(a, r.reply.data, na));
    CHECK(!(nb == r.reply.len && !memcmp(b, r.reply.data, nb)));
    free(a);
    free(b);
    pg_img_free(img);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "release", "OK"), 1);
    pg_fx_fini(&fx);
}

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

PG_TEST(release_with_max_size_sends_only_the_downscaled_image_and_says_its_scale) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, POLICY("allow")) == 0);
    char tok[32];
    REQUIRE(snap(&fx, tok) == 0); /* 32 x 16 */
    char args[128];
    snprintf(args, sizeof args, "{\"token\":\"%s\",\"max_size\":{\"w\":8,\"h\":8}}", tok);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "release", args, NULL, 0, &r) == PG_OK);
    REQUIRE(r.reply.len > 24 && !memcmp(r.reply.data, "\x89PNG", 4));
    CHECK_EQ_INT(be32(r.reply.data + 16), 8); /* IHDR: the bytes that left are 8 x 4 */
    CHECK_EQ_INT(be32(r.reply.data + 20), 4);
    CHECK_EQ_INT(pg_fx_num(&r, "width"), 32); /* the token's own size is still said */
    CHECK_EQ_INT(pg_fx_num(&r, "released_width"), 8);
    CHECK_EQ_INT(pg_fx_num(&r, "released_height"), 4);
    CHECK(pg_fx_num(&r, "scale") == 0.25);
    pg_fx_reply_fini(&r);
    cJSON *log = pg_fx_audit(&fx);
    const cJSON *last = cJSON_GetArrayItem(log, cJSON_GetArraySize(log) - 1);
    const cJSON *detail = cJSON_GetObjectItem(cJSON_GetObjectItem(last, "disposition"), "detail");
    CHECK(cJSON_IsString(detail) && strstr(detail->valuestring, "downscaled 32x16 -> 8x4"));
    cJSON_Delete(log);
    /* a max_size the image already fits releases it whole, scale 1 */
    snprintf(args, sizeof args, "{\"token\":\"%s\",\"max_size\":{\"w\":1568,\"h\":1568}}", tok);
    REQUIRE(pg_fx_call(&fx, "release", args, NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(be32(r.reply.data + 16), 32);
    CHECK(pg_fx_num(&r, "scale") == 1.0);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(under_analyze_only_release_needs_an_approver_other_than_the_requester) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, POLICY("analyze-only")) == 0);
    char tok[32];
    REQUIRE(snap(&fx, tok) == 0);
    pg_fx_reply r;
    CHECK_EQ_INT(release(&fx, tok, &r), PG_E_POLICY);
    CHECK(r.reply.data == NULL);
    char req[64];
    snprintf(req, sizeof req, "%s", cJSON_GetObjectItem(r.details, "request_id")->valuestring);
    pg_fx_reply_fini(&r);
    char args[96];
    snprintf(args, sizeof args, "{\"request\":\"%s\"}", req);
    CHECK_EQ_INT(pg_fx_call(&fx, "approve", args, NULL, 0, &r), PG_E_POLICY); /* the agent itself */
    pg_fx_reply_fini(&r);
    pg_peer agent = fx.peer;
    fx.peer.uid = agent.uid + 7; /* alice, another account */
    snprintf(fx.peer.user, sizeof fx.peer.user, "alice");
    REQUIRE(pg_fx_call(&fx, "approve", args, NULL, 0, &r) == PG_OK);
    CHECK_STR(pg_fx_str(&r, "requester"), "agent");
    pg_fx_reply_fini(&r);
    fx.peer = agent;
    REQUIRE(release(&fx, tok, &r) == PG_OK);
    CHECK_STR(pg_fx_str(&r, "mode"), "approved");
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(release(&fx, tok, &r), PG_E_POLICY); /* once */
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(under_never_nothing_is_released) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, POLICY("never")) == 0);
    char tok[32];
    REQUIRE(snap(&fx, tok) == 0);
    pg_fx_reply r;
    CHECK_EQ_INT(release(&fx, tok, &r), PG_E_POLICY);
    CHECK(r.reply.data == NULL);
    CHECK(r.details == NULL || !cJSON_GetObjectItem(r.details, "request_id"));
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

static const char *str_of(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItem(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* What an approver is shown, with --show before deciding and in the reply
 * of the approval itself: the requester, the capture's window title,
 * source and owner (whose window it shows: the review's N8), its size, when
 * it was taken and its full digest. */
static void check_subject(int *pg_failed_, const cJSON *res, const char *digest) {
    CHECK_STR(str_of(res, "requester"), "agent");
    CHECK_STR(str_of(res, "source"), "window");
    CHECK_STR(str_of(res, "window_title"), "demo");
    const struct passwd *pw = getpwuid(getuid()); /* the fake window's program is this process */
    CHECK_STR(str_of(res, "window_owner"), pw ? pw->pw_name : "?");
    CHECK_EQ_INT(cJSON_GetObjectItem(res, "width") ? cJSON_GetObjectItem(res, "width")->valueint : -1, 32);
    CHECK_EQ_INT(cJSON_GetObjectItem(res, "height") ? cJSON_GetObjectItem(res, "height")->valueint : -1, 16);
    const char *t = str_of(res, "captured_at");
    CHECK(strlen(t) == 24 && t[10] == 'T' && t[23] == 'Z');
    CHECK_STR(str_of(res, "sha256"), digest);
}

PG_TEST(an_approver_sees_title_source_size_time_and_digest_before_and_when_approving) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, POLICY("analyze-only")) == 0);
    char tok[32], args[160];
    REQUIRE(snap(&fx, tok) == 0);
    pg_fx_reply r;
    /* the digest the audit log holds for this capture (the agent sees only a keyed one) */
    char digest[65] = "";
    cJSON *log = pg_fx_audit(&fx);
    const cJSON *rec;
    cJSON_ArrayForEach(rec, log) if (!strcmp(str_of(rec, "op"), "snapshot"))
        snprintf(digest, sizeof digest, "%s", str_of(rec, "image_sha256"));
    cJSON_Delete(log);
    CHECK_EQ_INT(strlen(digest), 64);
    CHECK_EQ_INT(release(&fx, tok, &r), PG_E_POLICY);
    char req[64];
    snprintf(req, sizeof req, "%s", cJSON_GetObjectItem(r.details, "request_id")->valuestring);
    pg_fx_reply_fini(&r);
    pg_peer agent = fx.peer;
    fx.peer.uid = agent.uid + 7;
    snprintf(fx.peer.user, sizeof fx.peer.user, "alice");
    snprintf(args, sizeof args, "{\"request\":\"%s\",\"show\":true}", req);
    REQUIRE(pg_fx_call(&fx, "approve", args, NULL, 0, &r) == PG_OK);
    if (r.result) {
        check_subject(pg_failed_, r.result, digest);
        CHECK_STR(str_of(r.result, "pending"), req);
        CHECK(cJSON_GetObjectItem(r.result, "approved") == NULL); /* shown, not approved */
    }
    pg_fx_reply_fini(&r);
    fx.peer = agent;
    CHECK_EQ_INT(release(&fx, tok, &r), PG_E_POLICY); /* --show approved nothing */
    pg_fx_reply_fini(&r);
    fx.peer.uid = agent.uid + 7;
    snprintf(fx.peer.user, sizeof fx.peer.user, "alice");
    snprintf(args, sizeof args, "{\"request\":\"%s\"}", req);
    REQUIRE(pg_fx_call(&fx, "approve", args, NULL, 0, &r) == PG_OK);
    if (r.result) {
        check_subject(pg_failed_, r.result, digest);
        CHECK_STR(str_of(r.result, "approved"), req);
    }
    pg_fx_reply_fini(&r);
    fx.peer = agent;
    REQUIRE(release(&fx, tok, &r) == PG_OK);
    pg_fx_reply_fini(&r);
    /* the agent may not look at the request as an approver would */
    CHECK_EQ_INT(release(&fx, tok, &r), PG_E_POLICY);
    snprintf(req, sizeof req, "%s", cJSON_GetObjectItem(r.details, "request_id")->valuestring);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"request\":\"%s\",\"show\":true}", req);
    CHECK_EQ_INT(pg_fx_call(&fx, "approve", args, NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* One agent cannot fill the table every user's releases share: at most 8
 * pending requests per user, and then another user still gets one. */
PG_TEST(pending_release_requests_are_capped_per_user) {
    pg_fx fx;
    /* agent2 (another uid) captures the same window: the test's account's */
    REQUIRE(pg_fx_init(&fx, "{\"version\":1,\"clients\":{\"users\":[\"agent\",\"agent2\"]},\"approvers\":[\"alice\"],"
                            "\"capture\":{\"other_users\":[\"@SELF@\"]}}") == 0);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 32, 16, 0xff8800ff);
    char tok[32];
    pg_fx_reply r;
    for (int i = 0; i < 8; i++) {
        REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
        CHECK_EQ_INT(release(&fx, tok, &r), PG_E_POLICY);
        CHECK(r.details && cJSON_GetObjectItem(r.details, "request_id"));
        pg_fx_reply_fini(&r);
    }
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    CHECK_EQ_INT(release(&fx, tok, &r), PG_E_POLICY);
    CHECK(!r.details || !cJSON_GetObjectItem(r.details, "request_id")); /* the ninth gets none */
    CHECK(strstr(r.e.message, "pending") != NULL);
    pg_fx_reply_fini(&r);
    fx.peer.uid += 1;
    snprintf(fx.peer.user, sizeof fx.peer.user, "agent2");
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    CHECK_EQ_INT(release(&fx, tok, &r), PG_E_POLICY);
    CHECK(r.details && cJSON_GetObjectItem(r.details, "request_id")); /* another user is not blocked */
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}
