/* SPDX-License-Identifier: MIT */
/* Other users' windows (docs/privacy.md, issue 27 item 2) against the fake
 * desktop: pg_call_window_json hides the title of another user's window and
 * of a denied one in every reply (windows, wait-for, snapshot, frames), a
 * window capture of another user's window is refused by --id as by pattern,
 * a screen capture blacks it out, and capture.other_users opens a named
 * account's windows. The foreign window is a real process of another uid
 * (pg_fx_foreign_pid), judged by the same /proc test input uses. */
#include <string.h>
#include <unistd.h>

#include "pg_broker_fixture.h"
#include "pg_test.h"

#define TITLE "Inbox (3) - salary review - Mail"

typedef struct {
    pg_fx probe; /* holds the foreign process for the test's length */
    pg_fx fx;
    int64_t other;
    uint64_t own, theirs;
} desk;

/* The agent's window at 10,10 and another user's at 300,200 (blue); policy
 * NULL: the fixture's default, with no capture.other_users. */
static int desk_init(desk *d, const char *policy) {
    if (pg_fx_init(&d->probe, NULL)) return -1;
    d->other = pg_fx_foreign_pid(&d->probe);
    if (d->other <= 0 || pg_fx_init(&d->fx, policy)) return -1;
    pg_fake_set_screen(d->fx.fake, 0, 0, 800, 600);
    d->own = pg_fake_add_window(d->fx.fake, "demo", "Demo", getpid(), 10, 10, 200, 150, 0xffffffff);
    d->theirs = pg_fake_add_window(d->fx.fake, TITLE, "Mail", d->other, 300, 200, 240, 160, 0x0000ffff);
    return 0;
}

static void desk_fini(desk *d) {
    pg_fx_fini(&d->fx);
    pg_fx_fini(&d->probe);
}

/* No title of the foreign window anywhere in a reply's result or details. */
static bool names_no_title(const pg_fx_reply *r) {
    char *a = r->result ? cJSON_PrintUnformatted(r->result) : NULL;
    char *b = r->details ? cJSON_PrintUnformatted(r->details) : NULL;
    bool clean = !(a && strstr(a, "salary")) && !(b && strstr(b, "salary")) && !strstr(r->e.message, "salary");
    cJSON_free(a), cJSON_free(b);
    return clean;
}

static uint32_t token_px(pg_fx *fx, const char *tok, uint32_t x, uint32_t y) {
    pg_tok_meta m;
    uint8_t *px = NULL;
    pg_error e;
    if (pg_tok_load(fx->b.tokens, tok, fx->peer.uid, &m, &px, &e)) return 0xdeadbeef;
    const uint8_t *p = px + ((size_t)y * m.width + x) * 4;
    uint32_t v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    free(px);
    return v;
}

static const cJSON *listed(const pg_fx_reply *r, uint64_t id) {
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(r->result, "windows"))
        if ((uint64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(w, "id")) == id) return w;
    return NULL;
}

PG_TEST(another_users_window_is_listed_private_and_never_captured) {
    desk d;
    REQUIRE(desk_init(&d, NULL) == 0);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&d.fx, "windows", NULL, NULL, 0, &r) == PG_OK);
    const cJSON *t = listed(&r, d.theirs), *o = listed(&r, d.own);
    REQUIRE(t && o);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(t, "title")) && cJSON_IsNull(cJSON_GetObjectItem(t, "class")));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(t, "private")) && cJSON_IsTrue(cJSON_GetObjectItem(t, "other_user")));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(t, "capture_denied"))); /* said up front */
    CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(o, "title")), "demo"));
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(o, "capture_denied")));
    CHECK(names_no_title(&r));
    pg_fx_reply_fini(&r);
    char args[160];
    static const char *const tries[][2] = {
        {"snapshot", "{\"id\":%llu}"},
        {"frames", "{\"id\":%llu,\"count\":2,\"interval\":0}"},
        {"wait_stable", "{\"id\":%llu,\"timeout\":1}"},
        {"layout", "{\"id\":%llu}"},
        {"snapshot", "{\"window\":\"^Inbox\"}"}, /* a pattern does not even find it */
    };
    for (size_t i = 0; i < sizeof tries / sizeof *tries; i++) {
        snprintf(args, sizeof args, tries[i][1], (unsigned long long)d.theirs);
        pg_err rc = pg_fx_call(&d.fx, tries[i][0], args, NULL, 0, &r);
        CHECK(rc == (i == 4 ? PG_E_NOTFOUND : PG_E_POLICY));
        if (rc != (i == 4 ? PG_E_NOTFOUND : PG_E_POLICY)) fprintf(stderr, "  %s %s: %s\n", tries[i][0], args, r.e.message);
        CHECK(!r.result || !cJSON_GetObjectItem(r.result, "token")); /* no token made */
        CHECK(names_no_title(&r));
        pg_fx_reply_fini(&r);
    }
    CHECK_EQ_INT(pg_fx_audit_count(&d.fx, "snapshot", "POLICY_REFUSED"), 1);
    char tok[32];
    CHECK(pg_fx_snapshot(&d.fx, d.own, tok) == 0); /* the agent's own window still captures */
    desk_fini(&d);
}

/* The finding as it was made: wait-for --id --appear printed the title of a
 * denied window and of another user's window. */
PG_TEST(wait_for_appear_by_id_prints_no_private_title) {
    desk d;
    REQUIRE(desk_init(&d, NULL) == 0);
    uint64_t vault = pg_fake_add_window(d.fx.fake, "secret vault", "Vault", getpid(), 20, 400, 100, 80, 0xff0000ff);
    uint64_t ids[] = {d.theirs, vault};
    for (size_t i = 0; i < 2; i++) {
        char args[96];
        pg_fx_reply r;
        snprintf(args, sizeof args, "{\"id\":%llu,\"appear\":true,\"timeout\":1}", (unsigned long long)ids[i]);
        REQUIRE(pg_fx_call(&d.fx, "wait_for", args, NULL, 0, &r) == PG_OK);
        const cJSON *w = cJSON_GetObjectItem(r.result, "window");
        REQUIRE(w != NULL);
        CHECK(cJSON_IsNull(cJSON_GetObjectItem(w, "title")) && cJSON_IsNull(cJSON_GetObjectItem(w, "instance")));
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(w, "private")));
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(w, "other_user")) == (i == 0));
        char *text = cJSON_PrintUnformatted(r.result);
        CHECK(!strstr(text, "salary") && !strstr(text, "vault") && !strstr(text, "Vault"));
        cJSON_free(text);
        pg_fx_reply_fini(&r);
    }
    desk_fini(&d);
}

PG_TEST(a_screen_capture_blacks_out_another_users_window_like_a_denied_one) {
    desk d;
    REQUIRE(desk_init(&d, NULL) == 0);
    /* its popup, unattributed (parent 0) and away from it: another user's too */
    pg_fake_add_owned(d.fx.fake, PG_WINDOW_POPUP, 0, d.other, "", 600, 60, 80, 40, 0x00ff00ff);
    /* a window nobody can be named for (no pid): counts as another user's */
    pg_fake_add_window(d.fx.fake, "who knows", "X", -1, 20, 400, 100, 80, 0xff00ffff);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&d.fx, "snapshot", "{\"screen\":true}", NULL, 0, &r) == PG_OK);
    const char *tok = pg_fx_str(&r, "token");
    CHECK_EQ_INT(pg_fx_num(&r, "redacted_windows"), 3);
    CHECK_EQ_INT(token_px(&d.fx, tok, 400, 280), 0x000000ff); /* the other user's window */
    CHECK_EQ_INT(token_px(&d.fx, tok, 640, 80), 0x000000ff);  /* its popup */
    CHECK_EQ_INT(token_px(&d.fx, tok, 60, 440), 0x000000ff);  /* the ownerless one */
    CHECK_EQ_INT(token_px(&d.fx, tok, 100, 100), 0xffffffff); /* the agent's own is not */
    pg_fx_reply_fini(&r);
    desk_fini(&d);
}

/* A panel or the desktop background of another account (EWMH DOCK/DESKTOP)
 * is everyone's: titled and left in screen captures. */
PG_TEST(a_shared_desktop_surface_of_another_user_stays_visible) {
    desk d;
    REQUIRE(desk_init(&d, NULL) == 0);
    uint64_t panel = pg_fake_add_window(d.fx.fake, "panel", "Dock", d.other, 0, 570, 800, 30, 0x888888ff);
    pg_fake_set_shared(d.fx.fake, panel, true);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&d.fx, "windows", NULL, NULL, 0, &r) == PG_OK);
    const cJSON *p = listed(&r, panel);
    REQUIRE(p != NULL);
    CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(p, "title")), "panel"));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(p, "shared")));
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fx_call(&d.fx, "snapshot", "{\"screen\":true}", NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "redacted_windows"), 1); /* the other user's mail window only */
    CHECK_EQ_INT(token_px(&d.fx, pg_fx_str(&r, "token"), 100, 585), 0x888888ff);
    pg_fx_reply_fini(&r);
    desk_fini(&d);
}

/* capture.other_users names the owner: its windows are seen and captured
 * (deny rules still apply); input stays input.other_users' business. */
PG_TEST(capture_other_users_opens_a_named_accounts_windows) {
    pg_fx probe;
    REQUIRE(pg_fx_init(&probe, NULL) == 0);
    char owner[64], policy[400];
    REQUIRE(pg_fx_foreign_pid(&probe) > 0 && pg_fx_pid_user(pg_fx_foreign_pid(&probe), owner));
    snprintf(policy, sizeof policy,
             "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"capture\":{\"deny_windows\":[\"^secret vault$\"],"
             "\"other_users\":[\"%s\"]}}",
             owner);
    desk d;
    REQUIRE(desk_init(&d, policy) == 0);
    char args[96];
    pg_fx_reply r;
    snprintf(args, sizeof args, "{\"id\":%llu}", (unsigned long long)d.theirs);
    REQUIRE(pg_fx_call(&d.fx, "snapshot", args, NULL, 0, &r) == PG_OK);
    const cJSON *w = cJSON_GetObjectItem(r.result, "window");
    CHECK(w && !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(w, "title")), TITLE));
    CHECK(!cJSON_GetObjectItem(w, "private"));
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fx_call(&d.fx, "snapshot", "{\"screen\":true}", NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "redacted_windows"), 0);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"id\":%llu,\"at\":{\"x\":5,\"y\":5}}", (unsigned long long)d.theirs);
    CHECK_EQ_INT(pg_fx_call(&d.fx, "click", args, NULL, 0, &r), PG_E_POLICY); /* seeing is not typing */
    pg_fx_reply_fini(&r);
    desk_fini(&d);
    pg_fx_fini(&probe);
}
