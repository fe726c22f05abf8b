/* The dispatch path through pg_dispatch, against the fake desktop:
 * admission, the declaration's argument check, audit before the reply,
 * refusals audited, and "not on record, so it did not happen". */
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pg_broker_fixture.h"
#include "pg_refusals.h"
#include "pg_test.h"

#define FX(fx, policy) \
    pg_fx fx;          \
    REQUIRE(pg_fx_init(&fx, policy) == 0)

PG_TEST(an_admitted_ping_answers_the_kernels_identity) {
    FX(fx, NULL);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "ping", NULL, NULL, 0, &r) == PG_OK);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r.result, "pong")));
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(r.result, "peer"), "user")->valuestring, "agent");
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(a_user_the_policy_does_not_admit_is_refused_and_audited) {
    FX(fx, NULL);
    snprintf(fx.peer.user, sizeof fx.peer.user, "outsider");
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "ping", NULL, NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "ping", "POLICY_REFUSED"), 1);
    pg_fx_fini(&fx);
}

PG_TEST(unknown_ops_arguments_types_and_ranges_are_usage_errors) {
    FX(fx, NULL);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "format_disk", NULL, NULL, 0, &r), PG_E_USAGE);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "windows", "{\"bogus\":1}", NULL, 0, &r), PG_E_USAGE);
    CHECK(strstr(r.e.message, "bogus") != NULL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "windows", "{\"match\":7}", NULL, 0, &r), PG_E_USAGE);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "windows", "{\"match\":\"a\",\"match\":\"b\"}", NULL, 0, &r), PG_E_USAGE);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "judge", "{\"token\":\"cap:x\",\"expect\":\"y\",\"samples\":10}", NULL, 0, &r),
                 PG_E_USAGE);
    CHECK(strstr(r.e.message, "1..9") != NULL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", "{\"window\":\"a\",\"screen\":true}", NULL, 0, &r), PG_E_USAGE);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "release", "{\"token\":\"cap:x\",\"png\":\"/etc/shadow\"}", NULL, 0, &r), PG_E_USAGE);
    pg_fx_reply_fini(&r); /* a client-only argument never reaches the broker */
    pg_fx_fini(&fx);
}

PG_TEST(an_audited_operation_is_on_record_before_its_reply) {
    FX(fx, NULL);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 10, 10, 64, 48, 0xffffffff);
    char tok[32];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    cJSON *all = pg_fx_audit(&fx);
    const cJSON *last = cJSON_GetArrayItem(all, cJSON_GetArraySize(all) - 1);
    CHECK_STR(cJSON_GetObjectItem(last, "op")->valuestring, "snapshot");
    CHECK(!strncmp(cJSON_GetObjectItem(cJSON_GetObjectItem(last, "disposition"), "token_prefix")->valuestring, tok, 8));
    cJSON_Delete(all);
    pg_fx_fini(&fx);
}

/* Writes past the audit log's current size fail (EFBIG), as on a full disk. */
static struct rlimit fill_disk(pg_fx *fx) {
    struct rlimit old, lim;
    struct stat st;
    getrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, SIG_IGN);
    if (stat(fx->audit_path, &st) != 0) st.st_size = 0;
    lim = (struct rlimit){(rlim_t)st.st_size, old.rlim_max};
    setrlimit(RLIMIT_FSIZE, &lim);
    return old;
}

PG_TEST(when_the_audit_record_cannot_be_written_the_token_is_undone) {
    FX(fx, NULL);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 10, 10, 64, 48, 0xffffffff);
    char tok[32];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0); /* the log exists and has a record */
    uint64_t held0, mem;
    unsigned n0, n1;
    pg_tok_usage(fx.b.tokens, &held0, &mem, &n0);
    struct rlimit old = fill_disk(&fx);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", "{\"window\":\"demo\"}", NULL, 0, &r), PG_E_INTERNAL);
    CHECK(strstr(r.e.message, "audit record could not be written") != NULL);
    CHECK(r.result == NULL);
    pg_fx_reply_fini(&r);
    setrlimit(RLIMIT_FSIZE, &old);
    pg_tok_usage(fx.b.tokens, &held0, &mem, &n1);
    CHECK_EQ_INT(n1, n0); /* the capture that is not on record does not exist */
    pg_fx_fini(&fx);
}

PG_TEST(a_flood_of_refusals_is_coalesced_not_written_one_by_one) {
    FX(fx, NULL);
    snprintf(fx.peer.user, sizeof fx.peer.user, "outsider");
    fx.peer.uid += 4242;
    for (int i = 0; i < 100; i++) {
        pg_fx_reply r;
        CHECK_EQ_INT(pg_fx_call(&fx, "ping", NULL, NULL, 0, &r), PG_E_POLICY); /* every one refused */
        pg_fx_reply_fini(&r);
    }
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "ping", "POLICY_REFUSED"), PG_REFUSALS_PER_WINDOW);
    /* the rest is counted, and on record when the broker stops */
    char path[300];
    snprintf(path, sizeof path, "%s", fx.audit_path);
    pg_broker_fini(&fx.b);
    FILE *f = fopen(path, "r");
    REQUIRE(f);
    char line[4096], want[64];
    snprintf(want, sizeof want, "%d refusals of uid %u coalesced", 100 - PG_REFUSALS_PER_WINDOW, fx.peer.uid);
    bool found = false;
    while (fgets(line, sizeof line, f)) found |= strstr(line, want) != NULL;
    fclose(f);
    CHECK(found);
    memset(&fx.b, 0, sizeof fx.b); /* already stopped */
    fx.b.plat_ops = &pg_fake_ops;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx.dir);
    CHECK(system(cmd) == 0);
}
