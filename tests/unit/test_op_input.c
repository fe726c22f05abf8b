/* SPDX-License-Identifier: MIT */
/* focus, click, key, type against the fake desktop: input goes only to the
 * agent's own, allowed windows, lands where asked, and is audited. */
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <unistd.h>

#include "pg_broker_fixture.h"
#include "pg_disclose.h"
#include "pg_test.h"

#define FX(fx, policy) \
    pg_fx fx;          \
    REQUIRE(pg_fx_init(&fx, policy) == 0)

static uint64_t own_window(pg_fx *fx) {
    return pg_fake_add_window(fx->fake, "demo", "Demo", getpid(), 100, 100, 300, 200, 0xf4f4f4ff);
}

/* A green "button" at 200,50 (40x20, a white face 20x10 at 210,55) in
 * window id, and the agent's own PNG file of it as a template, in buf. */
static size_t draw_button(pg_fake *f, uint64_t id, uint8_t *buf, size_t cap) {
    pg_fake_fill(f, id, 200, 50, 40, 20, 0x2e7d32ff);
    pg_fake_fill(f, id, 210, 55, 20, 10, 0xffffffff);
    FILE *p = popen("convert -size 40x20 xc:'#2e7d32' -fill white -draw 'rectangle 10,5 29,14' png:-", "r");
    size_t n = p ? fread(buf, 1, cap, p) : 0;
    if (p && pclose(p) != 0) n = 0;
    return n;
}

PG_TEST(click_key_type_focus_reach_the_named_window_and_are_recorded) {
    FX(fx, NULL);
    uint64_t id = own_window(&fx);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "click", "{\"window\":\"demo\",\"at\":{\"x\":10,\"y\":20},\"button\":\"right\",\"count\":2}",
                       NULL, 0, &r) == PG_OK);
    const cJSON *k = cJSON_GetObjectItem(r.result, "clicked");
    CHECK_STR(cJSON_GetObjectItem(k, "button")->valuestring, "right");
    CHECK_EQ_INT(cJSON_GetObjectItem(k, "count")->valueint, 2);
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fx_call(&fx, "key", "{\"window\":\"demo\",\"chord\":\"ctrl+a\"}", NULL, 0, &r) == PG_OK);
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fx_call(&fx, "type", "{\"window\":\"demo\",\"text\":\"héllo ✓\"}", NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "typed_chars"), 7);
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fx_call(&fx, "focus", "{\"window\":\"demo\"}", NULL, 0, &r) == PG_OK);
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fake_input_count(fx.fake) == 4);
    char want[64];
    snprintf(want, sizeof want, "click %llu 10,20 right x2", (unsigned long long)id);
    CHECK_STR(pg_fake_input(fx.fake, 0), want);
    snprintf(want, sizeof want, "key %llu ctrl+a", (unsigned long long)id);
    CHECK_STR(pg_fake_input(fx.fake, 1), want);
    snprintf(want, sizeof want, "type %llu héllo ✓", (unsigned long long)id);
    CHECK_STR(pg_fake_input(fx.fake, 2), want);
    /* every input is audited; typed text by its size only */
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "type", "OK"), 1);
    cJSON *all = pg_fx_audit(&fx);
    char *text = cJSON_PrintUnformatted(all);
    CHECK(strstr(text, "héllo") == NULL);
    CHECK(strstr(text, "type 10 bytes") != NULL);
    free(text);
    cJSON_Delete(all);
    pg_fx_fini(&fx);
}

PG_TEST(input_into_another_users_window_is_refused_and_nothing_is_sent) {
    FX(fx, NULL);
    int64_t other = pg_fx_foreign_pid(&fx);
    REQUIRE(other > 0);
    uint64_t id = pg_fake_add_window(fx.fake, "other user app", "Other", other, 100, 100, 300, 200, 0xffffffff);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "type", "{\"window\":\"other user\",\"text\":\"x\"}", NULL, 0, &r), PG_E_NOTFOUND);
    pg_fx_reply_fini(&r); /* its title is private: no pattern finds it */
    char args[96];
    snprintf(args, sizeof args, "{\"id\":%llu,\"at\":{\"x\":5,\"y\":5}}", (unsigned long long)id);
    CHECK_EQ_INT(pg_fx_call(&fx, "click", args, NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"id\":%llu,\"text\":\"rm -rf ~\"}", (unsigned long long)id);
    CHECK_EQ_INT(pg_fx_call(&fx, "type", args, NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 0);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "type", "POLICY_REFUSED"), 1);
    pg_fx_fini(&fx);
}

/* With input.other_users the agent could type "pixelgate approve rel:..."
 * into an approver's terminal, and the approval would come from the
 * approver's uid. Input into a window whose process runs as an approver (or
 * root, who always may approve) is refused whatever other_users says. */
PG_TEST(input_into_an_approvers_window_is_refused_even_with_other_users) {
    pg_fx probe;
    REQUIRE(pg_fx_init(&probe, NULL) == 0);
    int64_t other = pg_fx_foreign_pid(&probe);
    REQUIRE(other > 0);
    char path[64], line[256];
    unsigned uid = 0;
    bool found = false;
    snprintf(path, sizeof path, "/proc/%lld/status", (long long)other);
    FILE *f = fopen(path, "re");
    REQUIRE(f != NULL);
    while (!found && fgets(line, sizeof line, f)) found = sscanf(line, "Uid: %u", &uid) == 1;
    fclose(f);
    REQUIRE(found);
    struct passwd *pw = getpwuid(uid);
    REQUIRE(pw != NULL);
    char policy[512];
    snprintf(policy, sizeof policy,
             "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"approvers\":[\"%s\"],\"input\":{\"other_users\":true}}",
             pw->pw_name);
    FX(fx, policy);
    uint64_t id = pg_fake_add_window(fx.fake, "approver terminal", "XTerm", other, 100, 100, 300, 200, 0x000000ff);
    char args[128];
    pg_fx_reply r;
    snprintf(args, sizeof args, "{\"id\":%llu,\"text\":\"pixelgate approve rel:x\\n\"}", (unsigned long long)id);
    CHECK_EQ_INT(pg_fx_call(&fx, "type", args, NULL, 0, &r), PG_E_POLICY);
    CHECK(strstr(r.e.message, "approver") != NULL);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"id\":%llu,\"at\":{\"x\":5,\"y\":5}}", (unsigned long long)id);
    CHECK_EQ_INT(pg_fx_call(&fx, "click", args, NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 0);
    uint64_t own = own_window(&fx); /* the agent's own window still takes input */
    snprintf(args, sizeof args, "{\"id\":%llu,\"text\":\"ok\"}", (unsigned long long)own);
    CHECK_EQ_INT(pg_fx_call(&fx, "type", args, NULL, 0, &r), PG_OK);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
    pg_fx_fini(&probe);
}

PG_TEST(input_into_a_denied_or_unlisted_window_is_refused) {
    FX(fx, "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"capture\":{\"deny_windows\":[\"^secret vault$\"]},"
           "\"input\":{\"allow_windows\":[\"^demo$\"]}}");
    own_window(&fx);
    uint64_t vault = pg_fake_add_window(fx.fake, "secret vault", "Vault", getpid(), 500, 100, 100, 100, 0xffffffff);
    pg_fake_add_window(fx.fake, "terminal", "XTerm", getpid(), 700, 100, 100, 100, 0x000000ff);
    pg_fx_reply r;
    char args[64];
    snprintf(args, sizeof args, "{\"id\":%llu,\"chord\":\"Return\"}", (unsigned long long)vault);
    CHECK_EQ_INT(pg_fx_call(&fx, "key", args, NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "type", "{\"window\":\"terminal\",\"text\":\"id\"}", NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "type", "{\"window\":\"^demo$\",\"text\":\"ok\"}", NULL, 0, &r), PG_OK);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 1);
    pg_fx_fini(&fx);
}

PG_TEST(points_outside_or_covered_are_refused_with_their_codes) {
    FX(fx, NULL);
    own_window(&fx);
    pg_fake_add_window(fx.fake, "popup", "Pop", getpid(), 150, 150, 50, 50, 0xffffffff); /* on top of demo */
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "click", "{\"window\":\"^demo$\",\"at\":{\"x\":300,\"y\":5}}", NULL, 0, &r),
                 PG_E_BADINPUT);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "click", "{\"window\":\"^demo$\",\"at\":{\"x\":-1,\"y\":5}}", NULL, 0, &r),
                 PG_E_BADINPUT);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "click", "{\"window\":\"^demo$\",\"at\":{\"x\":60,\"y\":60}}", NULL, 0, &r),
                 PG_E_POLICY); /* the popup covers demo's (60,60) */
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "click", "{\"window\":\"^demo$\",\"at\":{\"x\":5,\"y\":5}}", NULL, 0, &r), PG_OK);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 1);
    pg_fx_fini(&fx);
}

PG_TEST(click_on_a_template_clicks_its_centre_plus_offset) {
    FX(fx, NULL);
    uint64_t id = own_window(&fx);
    uint8_t buf[4096];
    size_t n = draw_button(fx.fake, id, buf, sizeof buf);
    REQUIRE(n > 0);
    pg_blob att = {buf, n};
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "click", "{\"window\":\"demo\",\"template\":{\"attachment\":0},\"offset\":{\"x\":-5,\"y\":2}}",
                       &att, 1, &r) == PG_OK);
    char want[64]; /* the click lands exactly at the centre plus the offset */
    snprintf(want, sizeof want, "click %llu %d,%d left x1", (unsigned long long)id, 200 + 20 - 5, 50 + 10 + 2);
    CHECK_STR(pg_fake_input(fx.fake, 0), want);
    /* but where it was found is told on the disclosure grid: the pixels are not the agent's (analyze-only) */
    const cJSON *k = cJSON_GetObjectItem(r.result, "clicked");
    CHECK_EQ_INT(cJSON_GetObjectItem(k, "x")->valueint, 216);
    CHECK_EQ_INT(cJSON_GetObjectItem(k, "y")->valueint, 64);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "click", "{\"window\":\"demo\",\"at\":{\"x\":1,\"y\":1},\"offset\":{\"x\":1,\"y\":1}}",
                            NULL, 0, &r),
                 PG_E_USAGE);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* The review's N5: a far --offset made the error print the exact match
 * position, and a negative one wrapped through unsigned arithmetic. */
PG_TEST(an_offset_never_tells_where_the_match_is) {
    FX(fx, NULL);
    uint64_t id = own_window(&fx);
    uint8_t buf[4096];
    size_t n = draw_button(fx.fake, id, buf, sizeof buf);
    REQUIRE(n > 0);
    pg_blob att = {buf, n};
    static const char *far[] = {"{\"x\":60000,\"y\":0}", "{\"x\":0,\"y\":-60000}", "{\"x\":300,\"y\":0}",
                                "{\"x\":-300,\"y\":199}"};
    for (size_t i = 0; i < sizeof far / sizeof *far; i++) { /* refused before anything is located */
        char args[160];
        snprintf(args, sizeof args, "{\"window\":\"demo\",\"template\":{\"attachment\":0},\"offset\":%s}", far[i]);
        pg_fx_reply r;
        CHECK_EQ_INT(pg_fx_call(&fx, "move", args, &att, 1, &r), PG_E_BADINPUT);
        CHECK(strstr(r.e.message, "as large as the") != NULL);
        CHECK(r.details == NULL); /* no "found" either */
        pg_fx_reply_fini(&r);
    }
    /* within the window's size but off its edge from where the match is:
     * refused with no coordinate (the centre is 220,60) */
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "move", "{\"window\":\"demo\",\"template\":{\"attachment\":0},\"offset\":{\"x\":90,\"y\":-70}}",
                            &att, 1, &r),
                 PG_E_BADINPUT);
    CHECK(strstr(r.e.message, "falls outside") != NULL);
    CHECK(strstr(r.e.message, "310") == NULL && strstr(r.e.message, "-10") == NULL && strstr(r.e.message, "429") == NULL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT((int)pg_fake_input_count(fx.fake), 0);
    pg_fx_fini(&fx);
}

PG_TEST(a_window_that_vanished_is_not_found) {
    FX(fx, NULL);
    uint64_t id = own_window(&fx);
    pg_fake_remove(fx.fake, id);
    char args[64];
    snprintf(args, sizeof args, "{\"id\":%llu,\"chord\":\"a\"}", (unsigned long long)id);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "key", args, NULL, 0, &r), PG_E_NOTFOUND);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(typed_text_is_capped_at_4096_bytes_and_longer_text_is_not_typed_at_all) {
    /* Typing takes time, and everything typed after the focus moves lands
     * elsewhere: a bound keeps one call short. */
    FX(fx, NULL);
    own_window(&fx);
    char *text = malloc(4098), *args = malloc(4200);
    REQUIRE(text && args);
    memset(text, 'a', 4097);
    text[4097] = 0;
    snprintf(args, 4200, "{\"window\":\"demo\",\"text\":\"%s\"}", text);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "type", args, NULL, 0, &r), PG_E_USAGE);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 0);
    text[4096] = 0;
    snprintf(args, 4200, "{\"window\":\"demo\",\"text\":\"%s\"}", text);
    CHECK_EQ_INT(pg_fx_call(&fx, "type", args, NULL, 0, &r), PG_OK);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 1);
    free(text), free(args);
    pg_fx_fini(&fx);
}

PG_TEST(a_denied_applications_dialog_is_private_and_takes_no_input) {
    FX(fx, NULL);
    uint64_t vault = pg_fake_add_window(fx.fake, "secret vault", "Vault", getpid(), 100, 100, 300, 200, 0xffffffff);
    uint64_t dlg = pg_fake_add_owned(fx.fake, PG_WINDOW_DIALOG, vault, getpid(), "Unlock database", 150, 150, 120, 60,
                                     0xffffffff);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "windows", NULL, NULL, 0, &r) == PG_OK);
    char *text = cJSON_PrintUnformatted(r.result);
    CHECK(strstr(text, "Unlock database") == NULL); /* its title is as private as its parent's */
    free(text);
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(r.result, "windows")) CHECK(cJSON_IsTrue(cJSON_GetObjectItem(w, "capture_denied")));
    pg_fx_reply_fini(&r);
    char args[96];
    snprintf(args, sizeof args, "{\"id\":%llu,\"text\":\"hunter2\"}", (unsigned long long)dlg);
    CHECK_EQ_INT(pg_fx_call(&fx, "type", args, NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 0);
    pg_fx_fini(&fx);
}

PG_TEST(input_to_a_frozen_program_says_so_and_nothing_is_sent) {
    FX(fx, NULL);
    uint64_t id = own_window(&fx);
    pg_fake_freeze(fx.fake, id, true);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "click", "{\"window\":\"demo\",\"at\":{\"x\":1,\"y\":1}}", NULL, 0, &r), PG_E_TIMEOUT);
    CHECK(strstr(r.e.message, "not responding") != NULL);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(r.details, "responding")));
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "type", "{\"window\":\"demo\",\"text\":\"x\"}", NULL, 0, &r), PG_E_TIMEOUT);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 0);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "click", "INTENT"), 0); /* refused before the intent */
    pg_fake_freeze(fx.fake, id, false);
    REQUIRE(pg_fx_call(&fx, "click", "{\"window\":\"demo\",\"at\":{\"x\":1,\"y\":1}}", NULL, 0, &r) == PG_OK);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r.result, "responding")));
    pg_fx_reply_fini(&r);
    pg_fake_set_wm(fx.fake, false); /* nobody can ask: unknown, and the input goes */
    pg_fake_freeze(fx.fake, id, true);
    REQUIRE(pg_fx_call(&fx, "key", "{\"window\":\"demo\",\"chord\":\"a\"}", NULL, 0, &r) == PG_OK);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(r.result, "responding")));
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 2);
    pg_fx_fini(&fx);
}

PG_TEST(a_window_id_reused_by_a_new_program_is_not_found_under_its_old_generation) {
    FX(fx, "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"input\":{\"other_users\":true}}");
    uint64_t id = own_window(&fx);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "windows", NULL, NULL, 0, &r) == PG_OK);
    const cJSON *w = cJSON_GetArrayItem(cJSON_GetObjectItem(r.result, "windows"), 0);
    const cJSON *gen = cJSON_GetObjectItem(w, "generation");
    REQUIRE(cJSON_IsNumber(gen));
    int64_t g = (int64_t)gen->valuedouble;
    CHECK_EQ_INT(g, pg_identity_process_started_ms(getpid())); /* the owner's start time */
    pg_fx_reply_fini(&r);
    char args[160];
    snprintf(args, sizeof args, "{\"id\":%llu,\"generation\":%lld,\"chord\":\"a\"}", (unsigned long long)id, (long long)g);
    REQUIRE(pg_fx_call(&fx, "key", args, NULL, 0, &r) == PG_OK);
    pg_fx_reply_fini(&r);
    int64_t other = pg_fx_foreign_pid(&fx); /* the app restarted: another process, the same id */
    REQUIRE(other > 0);
    pg_fake_set_pid(fx.fake, id, other);
    CHECK_EQ_INT(pg_fx_call(&fx, "key", args, NULL, 0, &r), PG_E_NOTFOUND);
    CHECK(strstr(r.e.message, "generation") != NULL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 1);
    pg_fx_fini(&fx);
}

PG_TEST(a_program_that_answered_before_and_stops_is_not_responding_though_it_never_promised) {
    FX(fx, NULL);
    uint64_t id = own_window(&fx);
    pg_fake_set_silent(fx.fake, id, true); /* like Tk: answers pings, never lists _NET_WM_PING */
    pg_fake_freeze(fx.fake, id, true);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "key", "{\"window\":\"demo\",\"chord\":\"a\"}", NULL, 0, &r) == PG_OK);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(r.result, "responding"))); /* never heard: unknown, input goes */
    pg_fx_reply_fini(&r);
    pg_fake_freeze(fx.fake, id, false);
    REQUIRE(pg_fx_call(&fx, "key", "{\"window\":\"demo\",\"chord\":\"a\"}", NULL, 0, &r) == PG_OK);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r.result, "responding")));
    pg_fx_reply_fini(&r);
    pg_fake_freeze(fx.fake, id, true); /* it answered before: silence now means frozen */
    CHECK_EQ_INT(pg_fx_call(&fx, "key", "{\"window\":\"demo\",\"chord\":\"a\"}", NULL, 0, &r), PG_E_TIMEOUT);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 2);
    pg_fx_fini(&fx);
}

/* move, scroll and drag land where asked, are recorded and audited with
 * what they did, and answer what they did. */
PG_TEST(move_scroll_and_drag_reach_the_window_and_say_what_they_did) {
    FX(fx, NULL);
    uint64_t id = own_window(&fx);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "move", "{\"window\":\"demo\",\"at\":{\"x\":30,\"y\":40}}", NULL, 0, &r) == PG_OK);
    const cJSON *m = cJSON_GetObjectItem(r.result, "moved");
    CHECK_EQ_INT(cJSON_GetObjectItem(m, "x")->valueint, 30);
    CHECK_EQ_INT(cJSON_GetObjectItem(m, "y")->valueint, 40);
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fx_call(&fx, "scroll", "{\"window\":\"demo\",\"direction\":\"down\",\"notches\":5,\"at\":{\"x\":7,\"y\":9}}",
                       NULL, 0, &r) == PG_OK);
    const cJSON *s = cJSON_GetObjectItem(r.result, "scrolled");
    CHECK_STR(cJSON_GetObjectItem(s, "direction")->valuestring, "down");
    CHECK_EQ_INT(cJSON_GetObjectItem(s, "notches")->valueint, 5);
    pg_fx_reply_fini(&r);
    /* no point: the window's centre; up and left are negative */
    REQUIRE(pg_fx_call(&fx, "scroll", "{\"window\":\"demo\",\"direction\":\"up\"}", NULL, 0, &r) == PG_OK);
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fx_call(&fx, "scroll", "{\"window\":\"demo\",\"direction\":\"left\",\"notches\":2}", NULL, 0, &r) == PG_OK);
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fx_call(&fx, "drag",
                       "{\"window\":\"demo\",\"from\":{\"x\":10,\"y\":20},\"to\":{\"x\":90,\"y\":25},\"steps\":8,"
                       "\"hold_ms\":0,\"step_ms\":0}",
                       NULL, 0, &r) == PG_OK);
    const cJSON *d = cJSON_GetObjectItem(r.result, "dragged");
    CHECK_EQ_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(d, "to"), "x")->valueint, 90);
    CHECK_EQ_INT(cJSON_GetObjectItem(d, "steps")->valueint, 8);
    CHECK_STR(cJSON_GetObjectItem(d, "button")->valuestring, "left");
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fake_input_count(fx.fake) == 5);
    char want[5][96];
    snprintf(want[0], sizeof want[0], "move %llu 30,40", (unsigned long long)id);
    snprintf(want[1], sizeof want[1], "scroll %llu 7,9 by 0,5", (unsigned long long)id);
    snprintf(want[2], sizeof want[2], "scroll %llu 150,100 by 0,-3", (unsigned long long)id);
    snprintf(want[3], sizeof want[3], "scroll %llu 150,100 by -2,0", (unsigned long long)id);
    snprintf(want[4], sizeof want[4], "drag %llu 10,20 -> 90,25 left 9 points hold 0 step 0", (unsigned long long)id);
    for (int i = 0; i < 5; i++) CHECK_STR(pg_fake_input(fx.fake, (size_t)i), want[i]);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "move", "OK"), 1);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "scroll", "OK"), 3);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "drag", "OK"), 1);
    cJSON *all = pg_fx_audit(&fx);
    char *text = cJSON_PrintUnformatted(all);
    CHECK(strstr(text, "drag 10,20 -> 90,25 left in 8 steps") != NULL);
    CHECK(strstr(text, "scroll up 3 at 150,100, the window's centre") != NULL);
    free(text);
    cJSON_Delete(all);
    pg_fx_fini(&fx);
}

/* The click's refusals hold for every point a pointer verb touches: a drag
 * whose path crosses a cover sends nothing at all, not half a drag. */
PG_TEST(pointer_verbs_refuse_covered_and_outside_points_and_send_nothing) {
    FX(fx, NULL);
    own_window(&fx);
    pg_fake_add_window(fx.fake, "popup", "Pop", getpid(), 150, 150, 50, 50, 0xffffffff); /* demo's 50..99 */
    pg_fx_reply r;
    static const char *const refused[][2] = {
        {"move", "{\"window\":\"^demo$\",\"at\":{\"x\":60,\"y\":60}}"},
        {"scroll", "{\"window\":\"^demo$\",\"direction\":\"down\",\"at\":{\"x\":60,\"y\":60}}"},
        {"drag", "{\"window\":\"^demo$\",\"from\":{\"x\":10,\"y\":75},\"to\":{\"x\":200,\"y\":75},\"hold_ms\":0,"
                 "\"step_ms\":0}"},
    };
    for (size_t i = 0; i < 3; i++) {
        CHECK_EQ_INT(pg_fx_call(&fx, refused[i][0], refused[i][1], NULL, 0, &r), PG_E_POLICY);
        pg_fx_reply_fini(&r);
    }
    static const char *const outside[][2] = {
        {"move", "{\"window\":\"^demo$\",\"at\":{\"x\":300,\"y\":5}}"},
        {"scroll", "{\"window\":\"^demo$\",\"direction\":\"up\",\"at\":{\"x\":-1,\"y\":5}}"},
        {"drag", "{\"window\":\"^demo$\",\"from\":{\"x\":10,\"y\":10},\"to\":{\"x\":10,\"y\":200}}"},
    };
    for (size_t i = 0; i < 3; i++) {
        CHECK_EQ_INT(pg_fx_call(&fx, outside[i][0], outside[i][1], NULL, 0, &r), PG_E_BADINPUT);
        pg_fx_reply_fini(&r);
    }
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 0);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "drag", "POLICY_REFUSED"), 1);
    pg_fx_fini(&fx);
}

/* Usage: scroll takes at most one point; --offset only with text or a
 * template; a drag longer than 10 s is refused before anything is sent. */
PG_TEST(pointer_verbs_reject_contradictory_or_overlong_requests) {
    FX(fx, NULL);
    own_window(&fx);
    pg_fx_reply r;
    static const char *const usage[][2] = {
        {"scroll", "{\"window\":\"demo\",\"direction\":\"down\",\"at\":{\"x\":1,\"y\":1},\"text\":\"OK\"}"},
        {"scroll", "{\"window\":\"demo\",\"direction\":\"down\",\"offset\":{\"x\":1,\"y\":1}}"},
        {"move", "{\"window\":\"demo\",\"at\":{\"x\":1,\"y\":1},\"offset\":{\"x\":1,\"y\":1}}"},
        {"drag", "{\"window\":\"demo\",\"from\":{\"x\":1,\"y\":1},\"to\":{\"x\":2,\"y\":2},\"steps\":199,"
                 "\"step_ms\":500}"},
        {"scroll", "{\"window\":\"demo\",\"direction\":\"sideways\"}"},
        {"drag", "{\"window\":\"demo\",\"from\":{\"x\":1,\"y\":1}}"},
    };
    for (size_t i = 0; i < sizeof usage / sizeof usage[0]; i++) {
        CHECK_EQ_INT(pg_fx_call(&fx, usage[i][0], usage[i][1], NULL, 0, &r), PG_E_USAGE);
        pg_fx_reply_fini(&r);
    }
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 0);
    pg_fx_fini(&fx);
}

/* scroll --template scrolls over what it found, told on the grid like a
 * click's point under analyze-only. */
PG_TEST(scroll_and_move_over_a_template_aim_at_its_centre) {
    FX(fx, NULL);
    uint64_t id = own_window(&fx);
    uint8_t buf[4096];
    size_t n = draw_button(fx.fake, id, buf, sizeof buf);
    REQUIRE(n > 0);
    pg_blob att = {buf, n};
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "scroll", "{\"window\":\"demo\",\"direction\":\"right\",\"template\":{\"attachment\":0}}",
                       &att, 1, &r) == PG_OK);
    CHECK(cJSON_GetObjectItem(r.result, "found") != NULL);
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fx_call(&fx, "move", "{\"window\":\"demo\",\"template\":{\"attachment\":0},\"offset\":{\"x\":3,\"y\":0}}",
                       &att, 1, &r) == PG_OK);
    const cJSON *m = cJSON_GetObjectItem(r.result, "moved");
    CHECK_EQ_INT(cJSON_GetObjectItem(m, "x")->valueint, 224); /* 223, told on the disclosure grid */
    pg_fx_reply_fini(&r);
    char want[64];
    snprintf(want, sizeof want, "scroll %llu 220,60 by 3,0", (unsigned long long)id);
    CHECK_STR(pg_fake_input(fx.fake, 0), want);
    snprintf(want, sizeof want, "move %llu 223,60", (unsigned long long)id);
    CHECK_STR(pg_fake_input(fx.fake, 1), want);
    pg_fx_fini(&fx);
}

/* The window in an input's answer is read after the input: focus said
 * "focused": false of the window it had just focused. */
PG_TEST(the_window_in_an_inputs_answer_is_as_it_is_after_the_input) {
    FX(fx, NULL);
    own_window(&fx);
    pg_fake_add_window(fx.fake, "other", "Other", getpid(), 500, 500, 50, 50, 0xffffffff);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "focus", "{\"window\":\"^other$\"}", NULL, 0, &r) == PG_OK);
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fx_call(&fx, "focus", "{\"window\":\"^demo$\"}", NULL, 0, &r) == PG_OK);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(r.result, "window"), "focused")));
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* key --repeat presses N times; type --replace selects the line and
 * deletes it first, then types; both are one record of intent. */
PG_TEST(key_repeat_and_type_replace_send_what_they_say) {
    FX(fx, NULL);
    uint64_t id = own_window(&fx);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "key", "{\"window\":\"demo\",\"chord\":\"Down\",\"repeat\":3}", NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "repeat"), 3);
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fx_call(&fx, "type", "{\"window\":\"demo\",\"text\":\"Alice\",\"replace\":true}", NULL, 0, &r) == PG_OK);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r.result, "replaced")));
    pg_fx_reply_fini(&r);
    static const char *const want[] = {"key %llu Down", "key %llu Down", "key %llu Down", "key %llu End",
                                       "key %llu shift+Home", "key %llu Delete", "type %llu Alice"};
    REQUIRE(pg_fake_input_count(fx.fake) == 7);
    for (size_t i = 0; i < 7; i++) {
        char line[64];
        snprintf(line, sizeof line, want[i], (unsigned long long)id);
        CHECK_STR(pg_fake_input(fx.fake, i), line);
    }
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "key", "INTENT"), 1);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "type", "INTENT"), 1);
    pg_fake_fail(fx.fake, "key", PG_E_TIMEOUT, 0); /* every press fails: the message says none went */
    CHECK_EQ_INT(pg_fx_call(&fx, "key", "{\"window\":\"demo\",\"chord\":\"Down\",\"repeat\":3}", NULL, 0, &r), PG_E_TIMEOUT);
    CHECK(strstr(r.e.message, "presses") == NULL);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* Frames of an 80x40 window after the first: a black bar at x = 10*k. */
static void bar_frames(pg_fake *f, uint64_t id, int frames) {
    uint8_t *px = malloc(80 * 40 * 4);
    for (int k = 1; k < frames; k++) {
        memset(px, 0xff, 80 * 40 * 4);
        for (uint32_t y = 0; y < 40; y++)
            for (uint32_t x = 10u * (uint32_t)k; x < 10u * (uint32_t)k + 8; x++) memset(px + (y * 80 + x) * 4, 0, 3);
        pg_fake_add_frame(f, id, px, false);
    }
    free(px);
}

/* --expect-change: the click's effect is the box of what changed between
 * the frame before and the settled frame after, with a token of it. */
PG_TEST(expect_change_answers_the_box_that_changed_and_a_token_of_the_after_frame) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, "{\"version\":1,\"clients\":{\"users\":[\"*\"]},\"expose_pixels\":\"allow\"}") == 0);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 80, 40, 0xffffffff);
    bar_frames(fx.fake, id, 3); /* before: white; then the bar at 10, then at 20, where it stays */
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "click", "{\"window\":\"demo\",\"at\":{\"x\":5,\"y\":5},\"expect_change\":true}", NULL, 0,
                       &r) == PG_OK);
    const cJSON *fx_ = cJSON_GetObjectItem(r.result, "effect");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(fx_, "changed")));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(fx_, "settled")));
    const cJSON *box = cJSON_GetObjectItem(fx_, "box");
    CHECK_EQ_INT(cJSON_GetObjectItem(box, "x")->valueint, 20);
    CHECK_EQ_INT(cJSON_GetObjectItem(box, "w")->valueint, 8);
    CHECK_EQ_INT(cJSON_GetObjectItem(box, "h")->valueint, 40);
    CHECK_EQ_INT(cJSON_GetObjectItem(fx_, "changed_pixels")->valueint, 8 * 40);
    CHECK(!strncmp(cJSON_GetObjectItem(fx_, "token")->valuestring, "cap:", 4));
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(expect_change_on_an_input_with_no_effect_is_exit_1_no_visible_effect) {
    FX(fx, NULL);
    own_window(&fx);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "click", "{\"window\":\"demo\",\"at\":{\"x\":5,\"y\":5},\"expect_change\":true,"
                                          "\"timeout\":0.2}", NULL, 0, &r),
                 PG_E_ASSERT);
    CHECK(strstr(r.e.message, "no visible effect") != NULL);
    const cJSON *fx_ = cJSON_GetObjectItem(r.details, "effect");
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(fx_, "changed")));
    CHECK(cJSON_GetObjectItem(fx_, "token") != NULL);
    CHECK(cJSON_GetObjectItem(r.details, "window") != NULL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 1); /* the click itself went */
    CHECK_EQ_INT(pg_fx_call(&fx, "key", "{\"window\":\"demo\",\"chord\":\"a\",\"region\":{\"x\":0,\"y\":0,\"w\":9,\"h\":9}}",
                            NULL, 0, &r),
                 PG_E_USAGE); /* --region shapes --expect-change only */
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 1);
    pg_fx_fini(&fx);
}

/* About protected pixels the box is on the disclosure grid and the count
 * coarse, and a region smaller than min_area is refused before the input. */
PG_TEST(expect_change_about_protected_pixels_is_coarse_and_min_area_holds) {
    FX(fx, NULL);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 80, 40, 0xffffffff);
    bar_frames(fx.fake, id, 3);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "click", "{\"window\":\"demo\",\"at\":{\"x\":5,\"y\":5},\"expect_change\":true}", NULL, 0,
                       &r) == PG_OK);
    const cJSON *box = cJSON_GetObjectItem(cJSON_GetObjectItem(r.result, "effect"), "box");
    CHECK_EQ_INT(cJSON_GetObjectItem(box, "x")->valueint % 8, 0);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "click", "{\"window\":\"demo\",\"at\":{\"x\":5,\"y\":5},\"expect_change\":true,"
                                          "\"region\":{\"x\":0,\"y\":0,\"w\":4,\"h\":4}}", NULL, 0, &r),
                 PG_E_POLICY);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 1); /* the refused one sent nothing */
    pg_fx_fini(&fx);
}

/* Every number of an effect about protected pixels is coarse and paid for:
 * the box and the count, and also whether it settled and when (a timing the
 * agent steers; issue 27: settled and elapsed_s to the millisecond were free). */
PG_TEST(expect_change_charges_when_it_settled_and_shows_it_in_steps) {
    FX(fx, NULL);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 80, 40, 0xffffffff);
    bar_frames(fx.fake, id, 3);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "click", "{\"window\":\"demo\",\"at\":{\"x\":5,\"y\":5},\"expect_change\":true}", NULL, 0,
                       &r) == PG_OK);
    const cJSON *fxj = cJSON_GetObjectItem(r.result, "effect");
    double s = cJSON_GetObjectItem(fxj, "elapsed_s")->valuedouble;
    CHECK(fabs(s * 10 - round(s * 10)) < 1e-9); /* in 0.1 s steps */
    /* changed, box, count, settled, the time, and the after-frame token's digest */
    double want = 1;
    pg_disclose_box((pg_img_rect){0, 0, 1, 1}, 80, 40, &want);
    pg_disclose_count(1, 80 * 40, &want);
    pg_disclose_flag(&want);
    pg_disclose_step(0, 0, 3, 0.1, &want);
    pg_disclose_flag(&want);
    double used = pg_disclose_used(fx.b.disclose, fx.peer.uid);
    CHECK(fabs(used - want) < 1e-6);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* A click on the owner's point that its own popup covers lands in the
 * popup (a menu it opened), said in "into"; another program's window on
 * top is still refused. windows --all lists the popup, --id targets it. */
PG_TEST(a_click_under_the_programs_own_popup_goes_into_the_popup) {
    FX(fx, NULL);
    uint64_t id = own_window(&fx); /* 100,100 300x200 */
    uint64_t menu = pg_fake_add_owned(fx.fake, PG_WINDOW_POPUP, id, getpid(), "", 150, 150, 60, 40, 0xddddddff);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "click", "{\"window\":\"^demo$\",\"at\":{\"x\":60,\"y\":60}}", NULL, 0, &r) == PG_OK);
    const cJSON *into = cJSON_GetObjectItem(r.result, "into");
    CHECK_EQ_INT((long long)cJSON_GetObjectItem(into, "id")->valuedouble, (long long)menu);
    CHECK_STR(cJSON_GetObjectItem(into, "kind")->valuestring, "popup");
    pg_fx_reply_fini(&r);
    char want[64];
    snprintf(want, sizeof want, "click %llu 10,10 left x1", (unsigned long long)menu); /* in the popup's own pixels */
    CHECK_STR(pg_fake_input(fx.fake, 0), want);
    REQUIRE(pg_fx_call(&fx, "windows", "{\"all\":true}", NULL, 0, &r) == PG_OK);
    bool listed = false;
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(r.result, "windows"))
        listed |= (uint64_t)cJSON_GetObjectItem(w, "id")->valuedouble == menu &&
                  !strcmp(cJSON_GetObjectItem(w, "kind")->valuestring, "popup") &&
                  (uint64_t)cJSON_GetObjectItem(w, "parent")->valuedouble == id;
    CHECK(listed);
    pg_fx_reply_fini(&r);
    char args[96];
    snprintf(args, sizeof args, "{\"id\":%llu,\"at\":{\"x\":5,\"y\":5}}", (unsigned long long)menu);
    REQUIRE(pg_fx_call(&fx, "click", args, NULL, 0, &r) == PG_OK); /* by its id */
    pg_fx_reply_fini(&r);
    int64_t other = pg_fx_foreign_pid(&fx);
    pg_fake_add_owned(fx.fake, PG_WINDOW_POPUP, id, other, "", 300, 250, 50, 30, 0xff0000ff); /* not the program's */
    CHECK_EQ_INT(pg_fx_call(&fx, "click", "{\"window\":\"^demo$\",\"at\":{\"x\":210,\"y\":160}}", NULL, 0, &r),
                 PG_E_POLICY);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* --in TOKEN --at X,Y: the point is in the token's pixels; a 2x downscale
 * of a region maps back to the window, and a resized window or a screen
 * token is refused before anything is sent. */
PG_TEST(points_in_a_downscaled_cropped_token_land_where_they_were_seen) {
    FX(fx, NULL);
    uint64_t id = own_window(&fx); /* 300x200 */
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "snapshot", "{\"window\":\"^demo$\",\"settle\":false,\"region\":{\"x\":100,\"y\":50,"
                                        "\"w\":200,\"h\":100},\"max_size\":{\"w\":100,\"h\":50}}",
                       NULL, 0, &r) == PG_OK);
    char tok[64], args[256];
    snprintf(tok, sizeof tok, "%s", pg_fx_str(&r, "token"));
    CHECK_EQ_INT(pg_fx_num(&r, "width"), 100);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"in\":\"%s\",\"at\":{\"x\":10,\"y\":20}}", tok);
    REQUIRE(pg_fx_call(&fx, "click", args, NULL, 0, &r) == PG_OK);
    CHECK(cJSON_GetObjectItem(r.result, "in") != NULL);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"in\":\"%s\",\"from\":{\"x\":0,\"y\":0},\"to\":{\"x\":99,\"y\":49},\"hold_ms\":0,"
                                "\"step_ms\":0,\"steps\":2}", tok);
    REQUIRE(pg_fx_call(&fx, "drag", args, NULL, 0, &r) == PG_OK);
    pg_fx_reply_fini(&r);
    char want[96];
    snprintf(want, sizeof want, "click %llu 121,91 left x1", (unsigned long long)id); /* 100 + 2*10 + 1, 50 + 2*20 + 1 */
    CHECK_STR(pg_fake_input(fx.fake, 0), want);
    snprintf(want, sizeof want, "drag %llu 101,51 -> 299,149 left 3 points hold 0 step 0", (unsigned long long)id);
    CHECK_STR(pg_fake_input(fx.fake, 1), want);
    snprintf(args, sizeof args, "{\"in\":\"%s\",\"at\":{\"x\":100,\"y\":0}}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "move", args, NULL, 0, &r), PG_E_BADINPUT); /* outside the token's 100x50 */
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"in\":\"%s\",\"direction\":\"down\"}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "scroll", args, NULL, 0, &r), PG_E_USAGE); /* --in needs --at */
    pg_fx_reply_fini(&r);
    pg_fake_set_listed_size(fx.fake, id, 150, 200); /* narrower than the crop's right edge */
    snprintf(args, sizeof args, "{\"in\":\"%s\",\"at\":{\"x\":10,\"y\":20}}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "click", args, NULL, 0, &r), PG_E_BADINPUT);
    CHECK(strstr(r.e.message, "resized") != NULL);
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fx_call(&fx, "snapshot", "{\"screen\":true}", NULL, 0, &r) == PG_OK);
    snprintf(args, sizeof args, "{\"in\":\"%s\",\"at\":{\"x\":1,\"y\":1}}", pg_fx_str(&r, "token"));
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "click", args, NULL, 0, &r), PG_E_USAGE); /* a screen token maps to no window */
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 2);
    pg_fx_fini(&fx);
}
