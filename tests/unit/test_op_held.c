/* SPDX-License-Identifier: MIT */
/* key-down, key-up, mouse-down, mouse-up, key --hold and cursor against the
 * fake desktop: what is held is the display's and one connection's (the
 * input lock), chords built from held keys are judged whole, and
 * everything held is let go of when its connection ends, when its holder
 * sends no input for input.hold_idle_s, after input.hold_max_s in all
 * whatever it sends, or when an approver says key-up --all. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pg_broker_fixture.h"
#include "pg_time.h"
#include "pg_test.h"

#define FX(fx, policy) \
    pg_fx fx;          \
    REQUIRE(pg_fx_init(&fx, policy) == 0)

static uint64_t own_window(pg_fx *fx) {
    return pg_fake_add_window(fx->fake, "demo", "Demo", getpid(), 100, 100, 300, 200, 0xf4f4f4ff);
}

/* Input line i is exactly the formatted text (the window id put in first). */
static bool input_is(pg_fx *fx, size_t i, const char *fmt, uint64_t id) {
    char want[128];
    snprintf(want, sizeof want, fmt, (unsigned long long)id);
    bool ok = i < pg_fake_input_count(fx->fake) && strcmp(pg_fake_input(fx->fake, i), want) == 0;
    if (!ok) fprintf(stderr, "input %zu: want '%s', have '%s'\n", i, want,
                     i < pg_fake_input_count(fx->fake) ? pg_fake_input(fx->fake, i) : "(none)");
    return ok;
}

static pg_err call(pg_fx *fx, const char *op, const char *args, pg_fx_reply *r) {
    return pg_fx_call(fx, op, args, NULL, 0, r);
}

/* Calls op and drops the reply; returns its code. */
static pg_err call1(pg_fx *fx, const char *op, const char *args) {
    pg_fx_reply r;
    pg_err rc = call(fx, op, args, &r);
    pg_fx_reply_fini(&r);
    return rc;
}

static int held_count(const pg_fx_reply *r) { return cJSON_GetArraySize(cJSON_GetObjectItem(r->result, "held")); }

PG_TEST(a_held_modifier_goes_with_later_input_and_is_not_pressed_twice) {
    FX(fx, NULL);
    uint64_t id = own_window(&fx);
    pg_fx_reply r;
    REQUIRE(call(&fx, "key_down", "{\"window\":\"demo\",\"key\":\"shift\"}", &r) == PG_OK);
    CHECK_STR(pg_fx_str(&r, "pressed"), "shift");
    CHECK_EQ_INT(held_count(&r), 1);
    pg_fx_reply_fini(&r);
    CHECK(call1(&fx, "click", "{\"window\":\"demo\",\"at\":{\"x\":10,\"y\":20}}") == PG_OK);
    CHECK(call1(&fx, "key", "{\"window\":\"demo\",\"chord\":\"shift+Down\"}") == PG_OK);
    REQUIRE(call(&fx, "key_up", "{\"key\":\"shift\"}", &r) == PG_OK);
    CHECK_EQ_INT(held_count(&r), 0);
    CHECK_STR(cJSON_GetArrayItem(cJSON_GetObjectItem(r.result, "released"), 0)->valuestring, "shift");
    pg_fx_reply_fini(&r);
    CHECK(input_is(&fx, 0, "hold %llu key shift down", id));
    CHECK(input_is(&fx, 1, "click %llu 10,20 left x1", id));
    CHECK(input_is(&fx, 2, "key_check shift+Down", 0)); /* judged whole */
    CHECK(input_is(&fx, 3, "key %llu Down", id));             /* sent without the held shift */
    CHECK(input_is(&fx, 4, "hold 0 key shift up", 0));
    CHECK_EQ_INT((int)pg_fake_input_count(fx.fake), 5);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "key_down", "OK"), 1);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "key_up", "OK"), 1);
    pg_fx_fini(&fx);
}

PG_TEST(a_refused_chord_built_from_held_keys_is_refused_in_either_order) {
    FX(fx, NULL);
    own_window(&fx);
    pg_fake_refuse_chord(fx.fake, "ctrl+alt+Delete");
    CHECK(call1(&fx, "key_down", "{\"window\":\"demo\",\"key\":\"ctrl\"}") == PG_OK);
    CHECK(call1(&fx, "key_down", "{\"window\":\"demo\",\"key\":\"alt\"}") == PG_OK);
    size_t before = pg_fake_input_count(fx.fake);
    CHECK(call1(&fx, "key", "{\"window\":\"demo\",\"chord\":\"Delete\"}") == PG_E_POLICY);
    CHECK(call1(&fx, "key", "{\"window\":\"demo\",\"chord\":\"Delete\",\"hold\":50}") == PG_E_POLICY);
    CHECK(call1(&fx, "key_down", "{\"window\":\"demo\",\"key\":\"Delete\"}") == PG_E_POLICY);
    for (size_t i = before; i < pg_fake_input_count(fx.fake); i++) /* only questions, nothing sent */
        CHECK(strncmp(pg_fake_input(fx.fake, i), "key_check ", 10) == 0);
    CHECK(call1(&fx, "key_up", "{\"all\":true}") == PG_OK);
    /* the other way round: the key first, then the modifiers */
    CHECK(call1(&fx, "key_down", "{\"window\":\"demo\",\"key\":\"Delete\"}") == PG_OK);
    CHECK(call1(&fx, "key_down", "{\"window\":\"demo\",\"key\":\"ctrl\"}") == PG_OK);
    before = pg_fake_input_count(fx.fake);
    CHECK(call1(&fx, "key_down", "{\"window\":\"demo\",\"key\":\"alt\"}") == PG_E_POLICY);
    CHECK_EQ_INT((int)(pg_fake_input_count(fx.fake) - before), 1); /* the question, no press */
    CHECK(call1(&fx, "key_up", "{\"all\":true}") == PG_OK);
    CHECK(call1(&fx, "cursor", NULL) == PG_OK);
    pg_fx_fini(&fx);
}

PG_TEST(while_one_connection_holds_input_every_other_is_refused_busy_until_it_ends) {
    FX(fx, NULL);
    uint64_t id = own_window(&fx);
    int conn_a, conn_b; /* two connections, by address */
    fx.conn = (pg_conn *)&conn_a;
    CHECK(call1(&fx, "key_down", "{\"window\":\"demo\",\"key\":\"shift\"}") == PG_OK);
    CHECK(call1(&fx, "mouse_down", "{\"window\":\"demo\",\"at\":{\"x\":5,\"y\":6}}") == PG_OK);
    fx.conn = (pg_conn *)&conn_b;
    size_t before = pg_fake_input_count(fx.fake);
    pg_fx_reply r;
    REQUIRE(call(&fx, "click", "{\"window\":\"demo\",\"at\":{\"x\":10,\"y\":20}}", &r) == PG_E_BUSY);
    CHECK(strstr(r.e.message, "shift, left button") != NULL);
    pg_fx_reply_fini(&r);
    CHECK(call1(&fx, "type", "{\"window\":\"demo\",\"text\":\"x\"}") == PG_E_BUSY);
    CHECK(call1(&fx, "key_up", "{\"key\":\"shift\"}") == PG_E_BUSY);
    CHECK(call1(&fx, "mouse_up", "{}") == PG_E_BUSY);
    CHECK_EQ_INT((int)(pg_fake_input_count(fx.fake) - before), 0);
    /* another connection ending releases nothing; the holder's ending releases all */
    pg_broker_release_held(&fx.b, &conn_b);
    CHECK_EQ_INT((int)(pg_fake_input_count(fx.fake) - before), 0);
    pg_broker_release_held(&fx.b, &conn_a);
    CHECK(input_is(&fx, before, "hold 0 button left up", 0)); /* buttons first, then keys */
    CHECK(input_is(&fx, before + 1, "hold 0 key shift up", 0));
    CHECK(call1(&fx, "click", "{\"window\":\"demo\",\"at\":{\"x\":10,\"y\":20}}") == PG_OK);
    CHECK(input_is(&fx, before + 2, "click %llu 10,20 left x1", id));
    /* the release is on record, as the holder's input */
    cJSON *all = pg_fx_audit(&fx), *rec;
    int releases = 0;
    cJSON_ArrayForEach(rec, all) {
        const cJSON *op = cJSON_GetObjectItem(rec, "op");
        if (!cJSON_IsString(op) || strcmp(op->valuestring, "release_held")) continue;
        releases++;
        const cJSON *d = cJSON_GetObjectItem(rec, "disposition");
        CHECK(strstr(cJSON_GetObjectItem(d, "detail")->valuestring, "shift, left button") != NULL);
        CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(rec, "principal"), "user")->valuestring, "agent");
    }
    CHECK_EQ_INT(releases, 1);
    cJSON_Delete(all);
    fx.conn = NULL;
    pg_fx_fini(&fx);
}

PG_TEST(mouse_down_move_mouse_up_drags_and_release_goes_where_the_pointer_is) {
    FX(fx, NULL);
    uint64_t id = own_window(&fx);
    pg_fx_reply r;
    REQUIRE(call(&fx, "mouse_down", "{\"window\":\"demo\",\"at\":{\"x\":5,\"y\":6},\"button\":\"right\"}", &r) == PG_OK);
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(r.result, "pressed"), "button")->valuestring, "right");
    CHECK_STR(cJSON_GetArrayItem(cJSON_GetObjectItem(r.result, "held"), 0)->valuestring, "right button");
    pg_fx_reply_fini(&r);
    CHECK(call1(&fx, "mouse_down", "{\"window\":\"demo\",\"at\":{\"x\":5,\"y\":6},\"button\":\"right\"}") == PG_E_USAGE);
    CHECK(call1(&fx, "move", "{\"window\":\"demo\",\"at\":{\"x\":50,\"y\":60}}") == PG_OK);
    CHECK(call1(&fx, "mouse_up", "{}") == PG_E_BADINPUT); /* the left one is not held */
    REQUIRE(call(&fx, "mouse_up", "{\"button\":\"right\"}", &r) == PG_OK);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(r.result, "window")));
    pg_fx_reply_fini(&r);
    CHECK(input_is(&fx, 0, "hold %llu button right down at 5,6", id));
    CHECK(input_is(&fx, 1, "move %llu 50,60", id));
    CHECK(input_is(&fx, 2, "hold 0 button right up", 0));
    /* pressed where the pointer is, let go at a point */
    CHECK(call1(&fx, "mouse_down", "{\"window\":\"demo\"}") == PG_OK);
    CHECK(input_is(&fx, 3, "hold %llu button left down", id));
    CHECK(call1(&fx, "mouse_up", "{\"window\":\"demo\"}") == PG_E_USAGE); /* a window and --at go together */
    CHECK(call1(&fx, "mouse_up", "{\"window\":\"demo\",\"at\":{\"x\":400,\"y\":6}}") == PG_E_BADINPUT);
    CHECK(call1(&fx, "mouse_up", "{\"window\":\"demo\",\"at\":{\"x\":7,\"y\":8}}") == PG_OK);
    CHECK(input_is(&fx, 4, "hold %llu button left up at 7,8", id));
    /* a press where the pointer is not over the window is refused */
    pg_fake_set_pointer(fx.fake, 5, 5);
    CHECK(call1(&fx, "mouse_down", "{\"window\":\"demo\"}") == PG_E_BADINPUT);
    CHECK_EQ_INT((int)pg_fake_input_count(fx.fake), 5);
    pg_fx_fini(&fx);
}

PG_TEST(a_covered_point_takes_no_press_and_type_waits_for_held_keys) {
    FX(fx, NULL);
    own_window(&fx);
    pg_fake_add_window(fx.fake, "cover", "Cover", getpid(), 100, 100, 20, 20, 0x000000ff);
    CHECK(call1(&fx, "mouse_down", "{\"window\":\"demo\",\"at\":{\"x\":5,\"y\":6}}") == PG_E_POLICY);
    CHECK(call1(&fx, "key_down", "{\"window\":\"demo\",\"key\":\"ctrl\"}") == PG_OK);
    CHECK(call1(&fx, "type", "{\"window\":\"demo\",\"text\":\"abc\"}") == PG_E_USAGE);
    CHECK(call1(&fx, "key_down", "{\"window\":\"demo\",\"key\":\"control\"}") == PG_E_USAGE); /* the same key */
    CHECK(call1(&fx, "key_up", "{\"key\":\"shift\"}") == PG_E_BADINPUT);
    CHECK(call1(&fx, "key_up", "{\"key\":\"Control\"}") == PG_OK);
    CHECK(call1(&fx, "type", "{\"window\":\"demo\",\"text\":\"abc\"}") == PG_OK);
    pg_fx_fini(&fx);
}

PG_TEST(key_hold_presses_the_chord_waits_and_lets_go_in_reverse) {
    FX(fx, NULL);
    uint64_t id = own_window(&fx);
    pg_fx_reply r;
    double t0 = pg_mono_ms();
    REQUIRE(call(&fx, "key", "{\"window\":\"demo\",\"chord\":\"ctrl+shift+Right\",\"hold\":120}", &r) == PG_OK);
    CHECK(pg_mono_ms() - t0 >= 115);
    CHECK_EQ_INT(pg_fx_num(&r, "held_ms"), 120);
    pg_fx_reply_fini(&r);
    CHECK(input_is(&fx, 0, "key_check ctrl+shift+Right", 0));
    CHECK(input_is(&fx, 1, "hold %llu key ctrl down", id));
    CHECK(input_is(&fx, 2, "hold %llu key shift down", id));
    CHECK(input_is(&fx, 3, "hold %llu key Right down", id));
    CHECK(input_is(&fx, 4, "hold 0 key Right up", 0));
    CHECK(input_is(&fx, 5, "hold 0 key shift up", 0));
    CHECK(input_is(&fx, 6, "hold 0 key ctrl up", 0));
    CHECK_EQ_INT((int)pg_fake_input_count(fx.fake), 7);
    CHECK(call1(&fx, "key", "{\"window\":\"demo\",\"chord\":\"a\",\"hold\":10,\"repeat\":2}") == PG_E_USAGE);
    /* a press that fails half way lets go of what went down */
    pg_fake_fail(fx.fake, "hold", PG_E_INTERNAL, 0);
    CHECK(call1(&fx, "key", "{\"window\":\"demo\",\"chord\":\"ctrl+a\",\"hold\":10}") == PG_E_INTERNAL);
    pg_fx_fini(&fx);
}

PG_TEST(cursor_answers_points_in_your_own_windows_and_null_elsewhere) {
    FX(fx, NULL);
    uint64_t id = own_window(&fx);
    int64_t other = pg_fx_foreign_pid(&fx);
    REQUIRE(other > 0);
    pg_fake_add_window(fx.fake, "theirs", "Theirs", other, 500, 100, 100, 100, 0x000000ff);
    pg_fake_set_pointer(fx.fake, 130, 140);
    pg_fx_reply r;
    REQUIRE(call(&fx, "cursor", NULL, &r) == PG_OK);
    const cJSON *k = cJSON_GetObjectItem(r.result, "cursor");
    CHECK_EQ_INT(cJSON_GetObjectItem(k, "x")->valueint, 30);
    CHECK_EQ_INT(cJSON_GetObjectItem(k, "y")->valueint, 40);
    CHECK_EQ_INT((double)cJSON_GetObjectItem(cJSON_GetObjectItem(k, "window"), "id")->valuedouble, (double)id);
    pg_fx_reply_fini(&r);
    pg_fake_set_pointer(fx.fake, 550, 150); /* over another user's window */
    REQUIRE(call(&fx, "cursor", NULL, &r) == PG_OK);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(r.result, "cursor")));
    pg_fx_reply_fini(&r);
    pg_fake_set_pointer(fx.fake, 5, 5); /* the desktop */
    REQUIRE(call(&fx, "cursor", NULL, &r) == PG_OK);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(r.result, "cursor")));
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "cursor", "OK"), 3);
    pg_fx_fini(&fx);
}

/* Is anything held on the broker's display now? */
static bool held_now(pg_fx *fx) {
    pthread_mutex_lock(&fx->b.plat_lock);
    bool any = pg_held_any(&fx->b.held);
    pthread_mutex_unlock(&fx->b.plat_lock);
    return any;
}

/* The detail of the last release_held record, or "" (into out[256]). */
static void last_release(pg_fx *fx, char out[256]) {
    out[0] = 0;
    cJSON *all = pg_fx_audit(fx), *rec;
    cJSON_ArrayForEach(rec, all) {
        const cJSON *op = cJSON_GetObjectItem(rec, "op");
        if (!cJSON_IsString(op) || strcmp(op->valuestring, "release_held")) continue;
        const cJSON *d = cJSON_GetObjectItem(cJSON_GetObjectItem(rec, "disposition"), "detail");
        snprintf(out, 256, "%s", cJSON_IsString(d) ? d->valuestring : "");
    }
    cJSON_Delete(all);
}

static const char *short_holds =
    "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"input\":{\"hold_idle_s\":1,\"hold_max_s\":2}}";

PG_TEST(a_hold_kept_alive_without_input_ends_after_the_idle_limit) {
    FX(fx, short_holds);
    own_window(&fx);
    int conn_a;
    fx.conn = (pg_conn *)&conn_a;
    int64_t t0 = pg_mono_us();
    REQUIRE(call1(&fx, "key_down", "{\"window\":\"demo\",\"key\":\"ctrl\"}") == PG_OK);
    /* cursor reads, it sends no input: it does not keep the hold alive; the
     * watcher lets go without anyone asking */
    while (held_now(&fx) && pg_mono_us() - t0 < 30 * 1000000LL) {
        CHECK(call1(&fx, "cursor", NULL) == PG_OK);
        pg_broker_watch_once(&fx.b);
        usleep(20 * 1000);
    }
    CHECK(!held_now(&fx));
    CHECK(pg_mono_us() - t0 >= 1000000LL);
    char why[256];
    last_release(&fx, why);
    CHECK(strstr(why, "ctrl") && strstr(why, "input.hold_idle_s"));
    CHECK(input_is(&fx, pg_fake_input_count(fx.fake) - 1, "hold 0 key ctrl up", 0));
    fx.conn = NULL;
    pg_fx_fini(&fx);
}

PG_TEST(a_hold_whose_holder_keeps_sending_input_ends_at_the_total_limit) {
    FX(fx, short_holds);
    own_window(&fx);
    int conn_a, conn_b;
    fx.conn = (pg_conn *)&conn_a;
    int64_t t0 = pg_mono_us();
    REQUIRE(call1(&fx, "key_down", "{\"window\":\"demo\",\"key\":\"ctrl\"}") == PG_OK);
    int moves = 0;
    while (held_now(&fx) && pg_mono_us() - t0 < 30 * 1000000LL) {
        if (call1(&fx, "move", "{\"window\":\"demo\",\"at\":{\"x\":10,\"y\":10}}") == PG_OK) moves++;
        usleep(100 * 1000); /* well inside the 1 s idle limit */
    }
    CHECK(!held_now(&fx));
    CHECK(pg_mono_us() - t0 >= 2000000LL); /* not before the total limit */
    CHECK(moves > 0);
    char why[256];
    last_release(&fx, why);
    CHECK(strstr(why, "input.hold_max_s") != NULL);
    /* and then the display is free for everyone */
    fx.conn = (pg_conn *)&conn_b;
    CHECK(call1(&fx, "click", "{\"window\":\"demo\",\"at\":{\"x\":10,\"y\":20}}") == PG_OK);
    fx.conn = NULL;
    pg_fx_fini(&fx);
}

PG_TEST(an_approver_ends_another_connections_hold_and_an_agent_cannot) {
    /* boss is not a client: key-up --all is all it is admitted to */
    FX(fx, "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"approvers\":[\"boss\"]}");
    own_window(&fx);
    int conn_a, conn_b;
    fx.conn = (pg_conn *)&conn_a;
    REQUIRE(call1(&fx, "key_down", "{\"window\":\"demo\",\"key\":\"shift\"}") == PG_OK);
    fx.conn = (pg_conn *)&conn_b; /* an agent on another connection: not its hold */
    uint32_t uid = fx.peer.uid;
    fx.peer.uid = 4242; /* not root, whom the broker takes for an approver */
    CHECK(call1(&fx, "key_up", "{\"all\":true}") == PG_E_BUSY);
    CHECK(held_now(&fx));
    fx.peer.uid = uid;
    snprintf(fx.peer.user, sizeof fx.peer.user, "boss");
    CHECK(call1(&fx, "key_up", "{\"key\":\"shift\"}") == PG_E_POLICY);
    CHECK(call1(&fx, "click", "{\"window\":\"demo\",\"at\":{\"x\":10,\"y\":20}}") == PG_E_POLICY);
    CHECK(held_now(&fx));
    pg_fx_reply r;
    REQUIRE(call(&fx, "key_up", "{\"all\":true}", &r) == PG_OK);
    CHECK_STR(cJSON_GetArrayItem(cJSON_GetObjectItem(r.result, "released"), 0)->valuestring, "shift");
    pg_fx_reply_fini(&r);
    CHECK(!held_now(&fx));
    char why[256];
    last_release(&fx, why);
    CHECK(strstr(why, "by boss (an approver)") != NULL);
    fx.conn = NULL;
    pg_fx_fini(&fx);
}
