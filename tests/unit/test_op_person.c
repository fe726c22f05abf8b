/* SPDX-License-Identifier: MIT */
/* The person's controls through the dispatcher, against the fake desktop:
 * the stop latch (the person's key, tampering, who may re-arm), take-over
 * (agent input and captures refused while a person uses the machine), the
 * lease (one agent at the keyboard), and the indicator the broker asks the
 * backend to draw. The backend's side (which input is physical) is
 * unit.test_x11_person's; here the test reports into the broker's
 * pg_person as a backend would. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pg_broker_fixture.h"
#include "pg_person.h"
#include "pg_time.h"
#include "pg_test.h"

#define APPROVERS "{\"version\":1,\"clients\":{\"users\":[\"agent\",\"other\"]},\"approvers\":[\"boss\"]"

static uint64_t own_window(pg_fx *fx) {
    return pg_fake_add_window(fx->fake, "demo", "Demo", getpid(), 100, 100, 300, 200, 0xf4f4f4ff);
}

static pg_err call1(pg_fx *fx, const char *op, const char *args) {
    pg_fx_reply r;
    pg_err rc = pg_fx_call(fx, op, args, NULL, 0, &r);
    pg_fx_reply_fini(&r);
    return rc;
}

static const char *CLICK = "{\"window\":\"demo\",\"at\":{\"x\":10,\"y\":20}}";
static const char *SNAP = "{\"window\":\"demo\"}";

/* ping's person object (owned). */
static cJSON *person_now(pg_fx *fx) {
    pg_fx_reply r;
    if (pg_fx_call(fx, "ping", NULL, NULL, 0, &r) != PG_OK) return NULL;
    cJSON *p = cJSON_DetachItemFromObject(r.result, "person");
    pg_fx_reply_fini(&r);
    return p;
}

static bool person_flag(pg_fx *fx, const char *name) {
    cJSON *p = person_now(fx);
    bool v = cJSON_IsTrue(cJSON_GetObjectItem(p, name));
    cJSON_Delete(p);
    return v;
}

static void as_user(pg_fx *fx, const char *user, uint32_t uid) {
    snprintf(fx->peer.user, sizeof fx->peer.user, "%s", user);
    fx->peer.uid = uid;
}

/* quiet_ms 0: no take-over, so that only the latch speaks (the key is a person's input too) */
#define NO_TAKEOVER "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"person\":{\"quiet_ms\":0}}"

PG_TEST(the_persons_key_stops_every_agent_operation_but_ping_caps_and_drop_until_pressed_again) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, NO_TAKEOVER) == 0);
    own_window(&fx);
    CHECK(person_flag(&fx, "watching"));
    CHECK(call1(&fx, "key_down", "{\"window\":\"demo\",\"key\":\"shift\"}") == PG_OK);
    size_t sent = pg_fake_input_count(fx.fake);
    pg_person_stop_key(fx.b.person, pg_mono_us());
    CHECK_EQ_INT(call1(&fx, "snapshot", SNAP), PG_E_STOPPED);
    CHECK_EQ_INT(call1(&fx, "click", CLICK), PG_E_STOPPED);
    CHECK_EQ_INT(call1(&fx, "windows", NULL), PG_E_STOPPED);
    CHECK_EQ_INT(call1(&fx, "wait_idle", "{\"timeout\":1}"), PG_E_STOPPED);
    CHECK_EQ_INT(call1(&fx, "lease", NULL), PG_E_STOPPED);
    CHECK_EQ_INT(call1(&fx, "ping", NULL), PG_OK);
    CHECK_EQ_INT(call1(&fx, "caps", NULL), PG_OK);
    CHECK_EQ_INT(call1(&fx, "drop", "{\"all\":true}"), PG_OK);
    CHECK(person_flag(&fx, "stopped"));
    /* the held key was let go of at the stop, and nothing of the agent's went out */
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), sent + 1);
    CHECK(strstr(pg_fake_input(fx.fake, sent), "shift up") != NULL);
    /* every refusal and the stop itself are on record */
    CHECK(pg_fx_audit_count(&fx, "click", "STOPPED") == 1);
    CHECK(pg_fx_audit_count(&fx, "person.stop", "OK") == 1);
    pg_person_stop_key(fx.b.person, pg_mono_us()); /* the same key again re-arms */
    CHECK_EQ_INT(call1(&fx, "click", CLICK), PG_OK);
    CHECK(!person_flag(&fx, "stopped"));
    CHECK(pg_fx_audit_count(&fx, "person.resume", "OK") == 1);
    pg_fx_fini(&fx);
}

/* A wait under way when the person presses the key ends STOPPED at its next
 * round, not at its timeout: the third capture of an endless animation is
 * where the key goes down. */
typedef struct {
    pg_person *person;
    int captures;
} press_at;

static void press_on_third_capture(pg_fake *f, void *ctx) {
    (void)f;
    press_at *p = ctx;
    if (++p->captures == 3) pg_person_stop_key(p->person, pg_mono_us());
}

PG_TEST(a_wait_under_way_ends_stopped_when_the_person_presses_the_key) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, NO_TAKEOVER) == 0);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 80, 40, 0xffffffff);
    uint8_t px[80 * 40 * 4];
    for (uint32_t k = 0; k < 4; k++) { /* a black bar that moves, looping: never stable (dHash sees it) */
        memset(px, 0xff, sizeof px);
        for (uint32_t y = 0; y < 40; y++)
            for (uint32_t x = 16 * k; x < 16 * k + 8; x++) memset(px + (y * 80 + x) * 4, 0, 3);
        pg_fake_add_frame(fx.fake, id, px, true);
    }
    press_at at = {fx.b.person, 0};
    pg_fake_on_capture(fx.fake, press_on_third_capture, &at);
    int64_t t0 = pg_mono_us();
    pg_fx_reply r;
    pg_err rc = pg_fx_call(&fx, "wait_stable", "{\"window\":\"demo\",\"interval\":0.01,\"timeout\":30}", NULL, 0, &r);
    if (rc != PG_E_STOPPED) fprintf(stderr, "wait_stable: %d %s (captures %d)\n", rc, r.e.message, at.captures);
    CHECK_EQ_INT(rc, PG_E_STOPPED);
    pg_fx_reply_fini(&r);
    CHECK(pg_mono_us() - t0 < 20 * 1000000LL); /* ended by the stop, long before its 30 s */
    CHECK(at.captures <= 4);                    /* at most the round under way finished */
    pg_fake_on_capture(fx.fake, NULL, NULL);
    pg_fx_fini(&fx);
}

PG_TEST(a_tampered_keyboard_stops_and_only_root_or_an_approver_re_arms) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, APPROVERS "}") == 0);
    own_window(&fx);
    uint32_t uid = fx.peer.uid;
    pg_person_tamper(fx.b.person, "keyboard 6 (Xephyr virtual keyboard) disabled");
    CHECK_EQ_INT(call1(&fx, "click", CLICK), PG_E_STOPPED);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "click", CLICK, NULL, 0, &r) == PG_E_STOPPED);
    CHECK(strstr(r.e.message, "Xephyr virtual keyboard") != NULL);
    pg_fx_reply_fini(&r);
    as_user(&fx, "agent", 4242); /* an agent (not root, whom the broker takes for an approver) */
    CHECK_EQ_INT(call1(&fx, "resume", NULL), PG_E_POLICY);
    as_user(&fx, "boss", uid == 0 ? 4343 : uid);
    REQUIRE(pg_fx_call(&fx, "resume", NULL, NULL, 0, &r) == PG_OK);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r.result, "resumed")));
    CHECK(strstr(pg_fx_str(&r, "was"), "disabled") != NULL);
    pg_fx_reply_fini(&r);
    as_user(&fx, "agent", uid);
    CHECK_EQ_INT(call1(&fx, "click", CLICK), PG_OK);
    pg_fx_fini(&fx);
}

PG_TEST(where_an_agent_could_forge_a_key_the_key_stops_but_never_re_arms) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, NULL) == 0);
    own_window(&fx);
    pg_broker_person_forgeable(&fx.b, "/dev/uinput is open to group input");
    pg_person_stop_key(fx.b.person, pg_mono_us());
    pg_person_stop_key(fx.b.person, pg_mono_us());
    CHECK_EQ_INT(call1(&fx, "click", CLICK), PG_E_STOPPED);
    cJSON *p = person_now(&fx);
    CHECK_STR(cJSON_GetObjectItem(p, "rearm")->valuestring, "admin");
    CHECK(strstr(cJSON_GetObjectItem(p, "rearm_why")->valuestring, "uinput") != NULL);
    cJSON_Delete(p);
    pg_fx_fini(&fx);
}

PG_TEST(while_a_person_uses_the_machine_agent_input_and_captures_are_refused_not_queued) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"person\":{\"quiet_ms\":60000}}") == 0);
    own_window(&fx);
    pg_person_activity(fx.b.person, pg_mono_us());
    size_t sent = pg_fake_input_count(fx.fake);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "click", CLICK, NULL, 0, &r) == PG_E_HUMAN);
    CHECK(strstr(r.e.message, "a person is using the machine") != NULL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(call1(&fx, "snapshot", SNAP), PG_E_HUMAN);
    CHECK_EQ_INT(call1(&fx, "windows", NULL), PG_OK); /* metadata is not a capture */
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), sent);
    CHECK(person_flag(&fx, "human_active"));
    CHECK_EQ_INT(call1(&fx, "wait_idle", "{\"timeout\":0.2}"), PG_E_TIMEOUT);
    CHECK(pg_fx_audit_count(&fx, "click", "HUMAN_ACTIVE") == 1);
    pg_fx_fini(&fx);
}

PG_TEST(wait_idle_answers_once_the_quiet_period_has_passed) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"person\":{\"quiet_ms\":300}}") == 0);
    own_window(&fx);
    pg_person_activity(fx.b.person, pg_mono_us());
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "wait_idle", "{\"timeout\":30}", NULL, 0, &r) == PG_OK);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r.result, "idle")));
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(call1(&fx, "click", CLICK), PG_OK);
    pg_fx_fini(&fx);
}

static const char *lease_of(pg_fx *fx, char id[64]) {
    pg_fx_reply r;
    if (pg_fx_call(fx, "lease", "{\"ttl\":60}", NULL, 0, &r) != PG_OK) return NULL;
    snprintf(id, 64, "%s", pg_fx_str(&r, "lease"));
    pg_fx_reply_fini(&r);
    return id;
}

PG_TEST(a_lease_keeps_other_agents_input_busy_until_released) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, APPROVERS "}") == 0);
    own_window(&fx);
    char id[64], args[256];
    REQUIRE(lease_of(&fx, id) != NULL);
    CHECK(strncmp(id, "lease:", 6) == 0);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "click", CLICK, NULL, 0, &r) == PG_E_BUSY); /* the same uid without the id */
    CHECK(strstr(r.e.message, "leased to agent") != NULL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(call1(&fx, "lease", NULL), PG_E_BUSY); /* one at a time */
    snprintf(args, sizeof args, "{\"window\":\"demo\",\"at\":{\"x\":10,\"y\":20},\"lease\":\"%s\"}", id);
    CHECK_EQ_INT(call1(&fx, "click", args), PG_OK);
    CHECK_EQ_INT(call1(&fx, "snapshot", SNAP), PG_OK); /* captures stay shared */
    snprintf(args, sizeof args, "{\"release\":\"%s\"}", id);
    CHECK_EQ_INT(call1(&fx, "lease", args), PG_OK);
    CHECK_EQ_INT(call1(&fx, "lease", args), PG_E_NOTFOUND);
    CHECK_EQ_INT(call1(&fx, "click", CLICK), PG_OK);
    pg_fx_fini(&fx);
}

PG_TEST(a_lease_ends_with_its_connection_a_persons_touch_or_an_approvers_break) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, APPROVERS ",\"person\":{\"quiet_ms\":1}}") == 0);
    own_window(&fx);
    int conn_a;
    fx.conn = (pg_conn *)&conn_a;
    CHECK_EQ_INT(call1(&fx, "lease", "{\"connection\":true}"), PG_OK);
    fx.conn = NULL;
    CHECK_EQ_INT(call1(&fx, "click", CLICK), PG_E_BUSY);
    pg_broker_person_conn_gone(&fx.b, &conn_a);
    CHECK_EQ_INT(call1(&fx, "click", CLICK), PG_OK);
    char id[64];
    REQUIRE(lease_of(&fx, id) != NULL);
    pg_person_activity(fx.b.person, pg_mono_us()); /* a person's input ends it */
    pg_sleep_ms(2);                               /* past the 1 ms quiet period */
    CHECK_EQ_INT(call1(&fx, "click", CLICK), PG_OK);
    REQUIRE(lease_of(&fx, id) != NULL);
    uint32_t uid = fx.peer.uid;
    as_user(&fx, "other", 4242);
    CHECK_EQ_INT(call1(&fx, "lease", "{\"break_all\":true}"), PG_E_POLICY);
    as_user(&fx, "boss", uid == 0 ? 4343 : uid);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "lease", "{\"break_all\":true}", NULL, 0, &r) == PG_OK);
    CHECK_STR(pg_fx_str(&r, "holder"), "agent");
    pg_fx_reply_fini(&r);
    as_user(&fx, "agent", uid);
    CHECK_EQ_INT(call1(&fx, "click", CLICK), PG_OK);
    pg_fx_fini(&fx);
}

PG_TEST(the_indicator_names_who_drives_which_window_and_the_policy_can_turn_it_off) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, NO_TAKEOVER) == 0);
    uint64_t id = own_window(&fx);
    unsigned calls = 0;
    CHECK_EQ_INT(pg_fake_indicated(fx.fake, &calls)->window, 0);
    CHECK_EQ_INT(call1(&fx, "snapshot", SNAP), PG_OK); /* looking is not driving */
    CHECK_EQ_INT(pg_fake_indicated(fx.fake, &calls)->window, 0);
    CHECK_EQ_INT(call1(&fx, "click", CLICK), PG_OK);
    const pg_indicator *shown = pg_fake_indicated(fx.fake, &calls);
    CHECK_EQ_INT(shown->window, id);
    CHECK_STR(shown->user, "agent");
    CHECK_EQ_INT(shown->mode, PG_INDICATOR_RING);
    CHECK_EQ_INT(call1(&fx, "click", CLICK), PG_OK);
    unsigned again = 0;
    pg_fake_indicated(fx.fake, &again);
    CHECK_EQ_INT(again, calls); /* the same window and user: drawn once */
    /* the administrator switches to the banner: the next input draws it so */
    pg_policy *np = NULL;
    pg_error pe;
    const char *banner = "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"person\":{\"quiet_ms\":0,"
                         "\"indicator\":\"banner\"}}";
    REQUIRE(pg_policy_parse(banner, strlen(banner), &np, &pe) == PG_OK);
    pthread_mutex_lock(&fx.b.policy_lock);
    pg_policy *old = fx.b.policy;
    fx.b.policy = np;
    pthread_mutex_unlock(&fx.b.policy_lock);
    pg_policy_free(old);
    CHECK_EQ_INT(call1(&fx, "click", CLICK), PG_OK);
    CHECK_EQ_INT(pg_fake_indicated(fx.fake, NULL)->mode, PG_INDICATOR_BANNER);
    pg_person_stop_key(fx.b.person, pg_mono_us());
    CHECK_EQ_INT(call1(&fx, "click", CLICK), PG_E_STOPPED);
    CHECK_EQ_INT(pg_fake_indicated(fx.fake, NULL)->window, 0); /* the stop takes it down */
    pg_fx_fini(&fx);

    REQUIRE(pg_fx_init(&fx, "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"person\":{\"indicator\":\"off\"}}") == 0);
    own_window(&fx);
    CHECK_EQ_INT(call1(&fx, "click", CLICK), PG_OK);
    CHECK_EQ_INT(pg_fake_indicated(fx.fake, &calls)->window, 0);
    CHECK_EQ_INT(calls, 0);
    pg_fx_fini(&fx);
}

PG_TEST(the_policys_person_section_is_checked) {
    pg_policy *p = NULL;
    pg_error e;
    const char *bad[] = {
        "{\"version\":1,\"person\":{\"stop_key\":\"ctrl+alt+x\"}}",
        "{\"version\":1,\"person\":{\"quiet_ms\":70000}}",
        "{\"version\":1,\"person\":{\"indicator\":\"blink\"}}",
        "{\"version\":1,\"person\":{\"stop\":\"Pause\"}}",
        "{\"version\":1,\"users\":{\"agent\":{\"person\":{\"quiet_ms\":1}}}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        pg_error_clear(&e);
        CHECK_EQ_INT(pg_policy_parse(bad[i], strlen(bad[i]), &p, &e), PG_E_BADINPUT);
        CHECK(strstr(e.message, "person") != NULL);
    }
    const char *ok = "{\"version\":1,\"person\":{\"stop_key\":\"Scroll_Lock\",\"quiet_ms\":0,\"indicator\":\"banner\"}}";
    REQUIRE(pg_policy_parse(ok, strlen(ok), &p, &e) == PG_OK);
    CHECK_STR(pg_policy_settings_get(p)->person_stop_key, "Scroll_Lock");
    CHECK_EQ_INT(pg_policy_settings_get(p)->person_indicator, PG_INDICATE_BANNER);
    pg_policy_free(p);
}
