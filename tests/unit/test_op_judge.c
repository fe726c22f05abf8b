/* SPDX-License-Identifier: MIT */
/* judge's contract (seed 000's content judgement): majority vote, the
 * outcomes, warning only unless blocking, blocked judgements never cached. */
#include <unistd.h>

#include "pg_broker_fixture.h"
#include "pg_test.h"

/* Endpoints answering a fixed sequence of verdicts (tests/relay/judge_seq.sh). */
#define SEQ(name, seq) \
    "\"" name "\":{\"kind\":\"command\",\"timeout_s\":2,\"argv\":[\"/bin/sh\",\"" PG_SOURCE_DIR "/tests/relay/judge_seq.sh\",\"/dev/null\",\"" seq "\"]}"
#define POLICY_FMT                                                                                               \
    "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"expose_pixels\":\"analyze-only\",\"analysis\":{"      \
    "\"endpoints\":{" SEQ("no", "MISMATCH") ",\"split\":{\"kind\":\"command\",\"argv\":[\"/bin/sh\",\"" PG_SOURCE_DIR \
    "/tests/relay/judge_seq.sh\",\"%s\",\"MATCH,MISMATCH,UNCERTAIN\"]}," SEQ("broken", "FAIL")                   \
    "," SEQ("garbage", "GARBAGE") "," SEQ("slow", "SLEEP") "}}}"

/* The policy, with the split endpoint counting its calls in a file of this run. */
static const char *policy(void) {
    static char text[4096], state[64];
    snprintf(state, sizeof state, "/tmp/pg-judge-split.%d", (int)getpid());
    remove(state);
    snprintf(text, sizeof text, POLICY_FMT, state);
    return text;
}
#define POLICY policy()

static pg_err judge(pg_fx *fx, const char *tok, const char *endpoint, int samples, bool blocking, pg_fx_reply *r) {
    char args[300];
    snprintf(args, sizeof args, "{\"token\":\"%s\",\"expect\":\"a red square\",\"samples\":%d,\"endpoint\":\"%s\"%s}",
             tok, samples, endpoint, blocking ? ",\"blocking\":true" : "");
    return pg_fx_call(fx, "judge", args, NULL, 0, r);
}

PG_TEST(a_mismatch_is_a_warning_unless_the_rule_is_blocking) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, POLICY) == 0);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 50, 40, 0xffffffff);
    char tok[32];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    pg_fx_reply r;
    CHECK_EQ_INT(judge(&fx, tok, "no", 3, false, &r), PG_OK);
    CHECK_STR(pg_fx_str(&r, "outcome"), "CONTENT_MISMATCH");
    CHECK(pg_fx_str(&r, "warning") != NULL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(judge(&fx, tok, "no", 3, true, &r), PG_E_ASSERT);
    CHECK_STR(pg_fx_str(&r, "status"), "failed");
    pg_fx_reply_fini(&r);
    /* one vote each of three: no majority, uncertain, which never fails even when blocking */
    CHECK_EQ_INT(judge(&fx, tok, "split", 3, true, &r), PG_OK);
    CHECK_STR(pg_fx_str(&r, "outcome"), "CONTENT_UNCERTAIN");
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
    char state[64];
    snprintf(state, sizeof state, "/tmp/pg-judge-split.%d", (int)getpid());
    remove(state);
}

PG_TEST(command_failure_timeout_and_invalid_output_block_and_are_never_cached) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, POLICY) == 0);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 50, 40, 0xffffffff);
    char tok[32];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    pg_fx_reply r;
    CHECK_EQ_INT(judge(&fx, tok, "broken", 1, true, &r), PG_E_BLOCKED);
    CHECK_STR(pg_fx_str(&r, "outcome"), "CONTENT_COMMAND_FAILED");
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(judge(&fx, tok, "garbage", 1, true, &r), PG_E_BLOCKED);
    CHECK_STR(pg_fx_str(&r, "outcome"), "CONTENT_OUTPUT_INVALID");
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(judge(&fx, tok, "slow", 1, true, &r), PG_E_BLOCKED);
    CHECK_STR(pg_fx_str(&r, "outcome"), "CONTENT_TIMEOUT");
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(judge(&fx, tok, "broken", 1, false, &r), PG_OK); /* warning only: blocked, said so, exit 0 */
    CHECK_STR(pg_fx_str(&r, "status"), "blocked");
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(r.result, "cached")));
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(judge(&fx, tok, "broken", 1, false, &r), PG_OK);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(r.result, "cached"))); /* asked again, not served from a cache */
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(judge(&fx, tok, "no", 1, false, &r), PG_OK);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(judge(&fx, tok, "no", 1, false, &r), PG_OK);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r.result, "cached"))); /* a completed judgement is */
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}
