/* SPDX-License-Identifier: MIT */
/* The dispatch path through pg_dispatch, against the fake desktop:
 * admission, the declaration's argument check, audit before the reply,
 * refusals audited, and "not on record, so it did not happen". */
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pg_broker_fixture.h"
#include "pg_crypto.h"
#include "pg_refusals.h"
#include "pg_test.h"
#include "pg_time.h"

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
    /* a repeated key is BAD_INPUT (protocol 1.1), like every malformed request */
    CHECK_EQ_INT(pg_fx_call(&fx, "windows", "{\"match\":\"a\",\"match\":\"b\"}", NULL, 0, &r), PG_E_BADINPUT);
    CHECK(strstr(r.e.message, "\"match\" twice") != NULL);
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

/* ---- record, then act ---- */

/* Writes past the audit log's size + room fail (EFBIG), as on a disk with room bytes left. */
static struct rlimit leave_room(pg_fx *fx, off_t room) {
    struct rlimit old, lim;
    struct stat st;
    getrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, SIG_IGN);
    if (stat(fx->audit_path, &st) != 0) st.st_size = 0;
    lim = (struct rlimit){(rlim_t)(st.st_size + room), old.rlim_max};
    setrlimit(RLIMIT_FSIZE, &lim);
    return old;
}

/* How many records of intent op has. */
static int intent_records(pg_fx *fx, const char *op) { return pg_fx_audit_count(fx, op, "INTENT"); }

PG_TEST(with_the_disk_full_no_input_is_delivered_and_effects_equal_records) {
    FX(fx, NULL);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 10, 10, 64, 48, 0xffffffff);
    char args[96];
    snprintf(args, sizeof args, "{\"id\":%llu,\"at\":{\"x\":5,\"y\":5}}", (unsigned long long)id);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "ping", NULL, NULL, 0, &r) == PG_OK); /* the log exists */
    pg_fx_reply_fini(&r);
    for (off_t room = 0; room <= 2000; room += 1000) { /* none, and room for one record but not two */
        struct rlimit old = leave_room(&fx, room);
        for (int i = 0; i < 4; i++) {
            CHECK_EQ_INT(pg_fx_call(&fx, "click", args, NULL, 0, &r), PG_E_INTERNAL);
            CHECK(strstr(r.e.message, "before acting") != NULL);
            pg_fx_reply_fini(&r);
        }
        setrlimit(RLIMIT_FSIZE, &old);
    }
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 0);
    CHECK_EQ_INT(intent_records(&fx, "click"), 0);
    REQUIRE(pg_fx_call(&fx, "click", args, NULL, 0, &r) == PG_OK); /* space again: it happens, on record */
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 1);
    CHECK_EQ_INT(intent_records(&fx, "click"), 1);
    pg_fx_fini(&fx);
}

PG_TEST(the_outcome_record_follows_its_intent_and_names_it) {
    FX(fx, NULL);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 10, 10, 64, 48, 0xffffffff);
    char args[96];
    snprintf(args, sizeof args, "{\"id\":%llu,\"chord\":\"ctrl+a\"}", (unsigned long long)id);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "key", args, NULL, 0, &r) == PG_OK);
    pg_fx_reply_fini(&r);
    cJSON *all = pg_fx_audit(&fx);
    int n = cJSON_GetArraySize(all);
    REQUIRE(n >= 2);
    const cJSON *intent = cJSON_GetArrayItem(all, n - 2), *outcome = cJSON_GetArrayItem(all, n - 1);
    CHECK_STR(cJSON_GetObjectItem(intent, "outcome")->valuestring, "INTENT");
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(intent, "disposition"), "detail")->valuestring, "key ctrl+a");
    CHECK_EQ_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(intent, "window"), "id")->valuedouble, id);
    CHECK_STR(cJSON_GetObjectItem(outcome, "outcome")->valuestring, "OK");
    char *line = cJSON_PrintUnformatted(intent), want[96];
    uint8_t h[32];
    char hex[65];
    REQUIRE(pg_sha256(line, strlen(line), h, NULL) == PG_OK); /* the record's exact bytes: keys in order */
    pg_hex(h, sizeof h, hex);
    snprintf(want, sizeof want, "%.0f:%s", cJSON_GetObjectItem(intent, "seq")->valuedouble, hex);
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(outcome, "disposition"), "intent")->valuestring, want);
    free(line);
    cJSON_Delete(all);
    pg_fx_fini(&fx);
}

/* Every operation with an effect, run once to success: each writes its
 * intent before acting (a new one missing here fails the test). */
#define EFFECT_POLICY                                                                                      \
    "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"expose_pixels\":\"allow\",\"analysis\":{"       \
    "\"endpoints\":{\"cmd\":{\"kind\":\"command\",\"argv\":[\"/bin/sh\",\"-c\",\"cat >/dev/null; echo x >>" \
    " \\\"$0\\\"; echo 'VERDICT: MATCH - it does'\",\"%s\"]}}}}"

PG_TEST(every_operation_with_an_effect_writes_its_intent_first) {
    char policy[1024], effects[300];
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, NULL) == 0); /* for its directory */
    snprintf(effects, sizeof effects, "%s.effects", fx.dir);
    pg_fx_fini(&fx);
    snprintf(policy, sizeof policy, EFFECT_POLICY, effects);
    REQUIRE(pg_fx_init(&fx, policy) == 0);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 10, 10, 64, 48, 0xffffffff);
    char tok[32], args[256];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    static const char *const ops[] = {"focus", "click", "move", "scroll", "drag", "key", "key_down", "key_up",
                                        "mouse_down", "mouse_up", "type", "analyze", "judge", "release"};
    for (size_t i = 0; i < PG_OPI_COUNT; i++) {
        if (!(pg_opdecls[i].flags & PG_OPF_EFFECT)) continue;
        const char *op = pg_opdecls[i].id;
        bool known = false;
        for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) known |= !strcmp(ops[k], op);
        CHECK(known); /* a new operation with an effect: add it here */
        if (!strcmp(op, "focus")) snprintf(args, sizeof args, "{\"id\":%llu}", (unsigned long long)id);
        else if (!strcmp(op, "click")) snprintf(args, sizeof args, "{\"id\":%llu,\"at\":{\"x\":1,\"y\":1}}", (unsigned long long)id);
        else if (!strcmp(op, "move")) snprintf(args, sizeof args, "{\"id\":%llu,\"at\":{\"x\":1,\"y\":1}}", (unsigned long long)id);
        else if (!strcmp(op, "scroll")) snprintf(args, sizeof args, "{\"id\":%llu,\"direction\":\"down\"}", (unsigned long long)id);
        else if (!strcmp(op, "drag"))
            snprintf(args, sizeof args, "{\"id\":%llu,\"from\":{\"x\":1,\"y\":1},\"to\":{\"x\":9,\"y\":9},\"hold_ms\":0,\"step_ms\":0}",
                     (unsigned long long)id);
        else if (!strcmp(op, "key")) snprintf(args, sizeof args, "{\"id\":%llu,\"chord\":\"a\"}", (unsigned long long)id);
        else if (!strcmp(op, "key_down")) snprintf(args, sizeof args, "{\"id\":%llu,\"key\":\"a\"}", (unsigned long long)id);
        else if (!strcmp(op, "key_up")) snprintf(args, sizeof args, "{\"key\":\"a\"}");
        else if (!strcmp(op, "mouse_down") || !strcmp(op, "mouse_up"))
            snprintf(args, sizeof args, "{\"id\":%llu,\"at\":{\"x\":2,\"y\":2}}", (unsigned long long)id);
        else if (!strcmp(op, "type")) snprintf(args, sizeof args, "{\"id\":%llu,\"text\":\"hi\"}", (unsigned long long)id);
        else if (!strcmp(op, "analyze")) snprintf(args, sizeof args, "{\"token\":\"%s\",\"prompt\":\"p\",\"endpoint\":\"cmd\"}", tok);
        else if (!strcmp(op, "judge")) snprintf(args, sizeof args, "{\"token\":\"%s\",\"expect\":\"e\",\"samples\":1,\"endpoint\":\"cmd\"}", tok);
        else snprintf(args, sizeof args, "{\"token\":\"%s\"}", tok);
        pg_fx_reply r;
        pg_err rc = pg_fx_call(&fx, op, args, NULL, 0, &r);
        bool ok = rc == PG_OK;
        if (!ok) fprintf(stderr, "%s: %s: %s\n", op, pg_err_name(rc), r.e.message);
        CHECK(ok);
        pg_fx_reply_fini(&r);
        CHECK_EQ_INT(intent_records(&fx, op), 1);
    }
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 11); /* 7 and the two holds and their releases */
    FILE *f = fopen(effects, "r");
    int lines = 0;
    for (int ch; f && (ch = fgetc(f)) != EOF;) lines += ch == '\n';
    if (f) fclose(f);
    CHECK_EQ_INT(lines, 2); /* analyze and judge each reached the endpoint once */
    remove(effects);
    pg_fx_fini(&fx);
}

/* ---- a display that goes away and comes back ---- */

static const char *display_state(pg_fx *fx, char reason[PG_ERR_MSG_MAX]) {
    static char state[16];
    pg_fx_reply r;
    state[0] = reason[0] = 0;
    if (pg_fx_call(fx, "ping", NULL, NULL, 0, &r) == PG_OK) {
        const cJSON *d = cJSON_GetObjectItem(r.result, "display");
        snprintf(state, sizeof state, "%s", cJSON_GetObjectItem(d, "state")->valuestring);
        const cJSON *why = cJSON_GetObjectItem(d, "reason");
        if (cJSON_IsString(why)) snprintf(reason, PG_ERR_MSG_MAX, "%s", why->valuestring);
    }
    pg_fx_reply_fini(&r);
    return state;
}

PG_TEST(a_lost_display_answers_unreachable_with_its_reason_and_returns_without_a_restart) {
    FX(fx, NULL);
    char reason[PG_ERR_MSG_MAX];
    CHECK_STR(display_state(&fx, reason), "up");
    pg_fake_lose_display(fx.fake, "X connection lost (the test killed it)");
    pg_fake_display_down(true);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "windows", NULL, NULL, 0, &r), PG_E_UNREACHABLE);
    CHECK(strstr(r.e.message, "the test killed it") != NULL);
    pg_fx_reply_fini(&r);
    fx.fake = NULL; /* the broker closed that connection */
    CHECK_STR(display_state(&fx, reason), "lost"); /* a health check can tell */
    CHECK(strstr(reason, "the test killed it") != NULL);
    CHECK_EQ_INT(pg_fx_call(&fx, "caps", NULL, NULL, 0, &r), PG_E_UNREACHABLE);
    CHECK(strstr(r.e.message, "reconnecting") != NULL);
    CHECK(cJSON_GetObjectItem(r.details, "display") != NULL);
    pg_fx_reply_fini(&r);
    pg_broker_watch_once(&fx.b); /* attempts while it is down fail, and back off */
    CHECK_STR(display_state(&fx, reason), "lost");
    pg_fake_display_down(false);
    pg_err rc = PG_E_UNREACHABLE;
    for (int i = 0; i < 200 && rc == PG_E_UNREACHABLE; i++) { /* bounded retries, as a client would */
        pg_broker_watch_once(&fx.b);
        rc = pg_fx_call(&fx, "windows", NULL, NULL, 0, &r);
        pg_fx_reply_fini(&r);
        if (rc == PG_E_UNREACHABLE) pg_sleep_ms(20);
    }
    CHECK_EQ_INT(rc, PG_OK);
    CHECK_STR(display_state(&fx, reason), "up");
    REQUIRE(pg_fx_call(&fx, "ping", NULL, NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(r.result, "display"), "reconnects")->valuedouble, 1);
    pg_fx_reply_fini(&r);
    fx.fake = (pg_fake *)fx.b.plat; /* the new connection's desktop */
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 10, 10, 64, 48, 0xffffffff);
    char tok[32];
    CHECK(pg_fx_snapshot(&fx, id, tok) == 0);
    pg_fx_fini(&fx);
}
