/* SPDX-License-Identifier: MIT */
/* Paste against the fake desktop: ctrl+v, ctrl+shift+v, shift+Insert, the
 * Paste key, a paste chord built from held keys, and the middle button
 * insert a selection, so they are refused unless nobody owns it or its
 * owner is a process of the requester's none of whose windows is denied
 * (input.paste_other_users lifts only the first condition). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pg_broker_fixture.h"
#include "pg_test.h"

#define FX(fx, policy) \
    pg_fx fx;          \
    REQUIRE(pg_fx_init(&fx, policy) == 0)

static uint64_t own_window(pg_fx *fx) {
    return pg_fake_add_window(fx->fake, "demo", "Demo", getpid(), 100, 100, 300, 200, 0xf4f4f4ff);
}

static pg_err call1(pg_fx *fx, const char *op, const char *args) {
    pg_fx_reply r;
    pg_err rc = pg_fx_call(fx, op, args, NULL, 0, &r);
    if (rc == PG_E_POLICY && !strstr(r.e.message, "a paste would insert"))
        fprintf(stderr, "refused for another reason: %s\n", r.e.message);
    pg_fx_reply_fini(&r);
    return rc;
}

static pg_err key(pg_fx *fx, const char *chord) {
    char args[160];
    snprintf(args, sizeof args, "{\"window\":\"demo\",\"chord\":\"%s\"}", chord);
    return call1(fx, "key", args);
}

static pg_err click(pg_fx *fx, const char *button) {
    char args[160];
    snprintf(args, sizeof args, "{\"window\":\"demo\",\"at\":{\"x\":10,\"y\":20},\"button\":\"%s\"}", button);
    return call1(fx, "click", args);
}

static const char *other_users_may_paste =
    "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"capture\":{\"deny_windows\":[\"^secret vault$\"]},"
    "\"input\":{\"paste_other_users\":true}}";

PG_TEST(a_paste_of_nothing_or_of_ones_own_selection_goes_through) {
    FX(fx, NULL);
    uint64_t id = own_window(&fx);
    CHECK(key(&fx, "ctrl+v") == PG_OK); /* nobody owns the clipboard */
    pg_fake_set_selection(fx.fake, "CLIPBOARD", id, (uint32_t)getpid());
    pg_fake_set_selection(fx.fake, "PRIMARY", id, (uint32_t)getpid());
    CHECK(key(&fx, "ctrl+v") == PG_OK);
    CHECK(key(&fx, "shift+Insert") == PG_OK);
    CHECK(click(&fx, "middle") == PG_OK);
    pg_fx_fini(&fx);
}

PG_TEST(every_paste_of_another_users_selection_is_refused_and_sends_nothing) {
    FX(fx, NULL);
    own_window(&fx);
    int64_t other = pg_fx_foreign_pid(&fx);
    REQUIRE(other > 0);
    uint64_t theirs = pg_fake_add_window(fx.fake, "mail", "Mail", other, 500, 100, 100, 100, 0xffffffff);
    pg_fake_set_selection(fx.fake, "CLIPBOARD", theirs, (uint32_t)other);
    pg_fake_set_selection(fx.fake, "PRIMARY", theirs, (uint32_t)other);
    size_t before = pg_fake_input_count(fx.fake);
    CHECK(key(&fx, "ctrl+v") == PG_E_POLICY);
    CHECK(key(&fx, "ctrl+shift+V") == PG_E_POLICY);
    CHECK(key(&fx, "shift+Insert") == PG_E_POLICY);
    CHECK(key(&fx, "XF86Paste") == PG_E_POLICY);
    CHECK(click(&fx, "middle") == PG_E_POLICY);
    CHECK(call1(&fx, "mouse_down", "{\"window\":\"demo\",\"at\":{\"x\":5,\"y\":6},\"button\":\"middle\"}") ==
          PG_E_POLICY);
    CHECK(call1(&fx, "drag", "{\"window\":\"demo\",\"from\":{\"x\":5,\"y\":6},\"to\":{\"x\":50,\"y\":60},"
                             "\"button\":\"middle\"}") == PG_E_POLICY);
    for (size_t i = before; i < pg_fake_input_count(fx.fake); i++) /* questions only: no key, click or hold */
        CHECK(strncmp(pg_fake_input(fx.fake, i), "key_check", 9) == 0);
    /* built from held keys: key-down ctrl, then v as a key or as a second key-down */
    CHECK(call1(&fx, "key_down", "{\"window\":\"demo\",\"key\":\"ctrl\"}") == PG_OK);
    CHECK(key(&fx, "v") == PG_E_POLICY);
    CHECK(call1(&fx, "key_down", "{\"window\":\"demo\",\"key\":\"v\"}") == PG_E_POLICY);
    CHECK(call1(&fx, "key_up", "{\"all\":true}") == PG_OK);
    /* what is not a paste still goes */
    CHECK(key(&fx, "ctrl+c") == PG_OK);
    CHECK(key(&fx, "v") == PG_OK);
    CHECK(click(&fx, "left") == PG_OK);
    CHECK(pg_fx_audit_count(&fx, "key", "POLICY_REFUSED") >= 5);
    CHECK(pg_fx_audit_count(&fx, "click", "POLICY_REFUSED") == 1);
    pg_fx_fini(&fx);
}

PG_TEST(a_denied_programs_selection_is_never_pasted_even_its_owners) {
    FX(fx, other_users_may_paste);
    own_window(&fx);
    /* the caller's own process, but it shows a denied window */
    uint64_t vault = pg_fake_add_window(fx.fake, "secret vault", "Vault", getpid(), 500, 100, 100, 100, 0xffffffff);
    pg_fake_set_selection(fx.fake, "CLIPBOARD", vault, (uint32_t)getpid());
    CHECK(key(&fx, "ctrl+v") == PG_E_POLICY);
    pg_fx_fini(&fx);
}

PG_TEST(an_owner_the_display_cannot_name_counts_as_another_users) {
    FX(fx, NULL);
    own_window(&fx);
    pg_fake_set_selection(fx.fake, "CLIPBOARD", 0x5000001, 0); /* a window, no pid */
    CHECK(key(&fx, "ctrl+v") == PG_E_POLICY);
    pg_fx_fini(&fx);
}

PG_TEST(paste_other_users_lets_another_users_selection_in) {
    FX(fx, other_users_may_paste);
    own_window(&fx);
    int64_t other = pg_fx_foreign_pid(&fx);
    REQUIRE(other > 0);
    uint64_t theirs = pg_fake_add_window(fx.fake, "mail", "Mail", other, 500, 100, 100, 100, 0xffffffff);
    pg_fake_set_selection(fx.fake, "CLIPBOARD", theirs, (uint32_t)other);
    CHECK(key(&fx, "ctrl+v") == PG_OK);
    pg_fx_fini(&fx);
}
