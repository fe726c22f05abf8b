/* release and approve against the fake desktop: pixels leave only as the
 * policy says, once per approval, and never to the requester's own say-so. */
#include <unistd.h>

#include "pg_broker_fixture.h"
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
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "release", "OK"), 1);
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
