/* SPDX-License-Identifier: MIT */
/* snapshot against the fake desktop: window and screen captures, regions,
 * max-size, and the redaction of denied windows in the coordinates of the
 * capture's first pixel, failing closed. */
#include <unistd.h>

#include "pg_broker_fixture.h"
#include "pg_disclose.h"
#include "pg_test.h"

#define FX(fx, policy) \
    pg_fx fx;          \
    REQUIRE(pg_fx_init(&fx, policy) == 0)

/* The RGBA of pixel (x, y) of a token, loaded the way handlers load it. */
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

PG_TEST(a_window_snapshot_answers_a_token_and_metadata_never_pixels) {
    FX(fx, NULL);
    uint64_t id = pg_fake_add_window(fx.fake, "pixelgate demo", "Demo", getpid(), 40, 30, 200, 100, 0x2e7d32ff);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "snapshot", "{\"window\":\"^pixelgate demo$\"}", NULL, 0, &r) == PG_OK);
    CHECK(!strncmp(pg_fx_str(&r, "token"), "cap:", 4));
    CHECK_EQ_INT(pg_fx_num(&r, "width"), 200);
    CHECK_EQ_INT(pg_fx_num(&r, "height"), 100);
    CHECK_STR(pg_fx_str(&r, "source"), "window");
    CHECK_EQ_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(r.result, "window"), "id")->valuedouble, (double)id);
    CHECK_EQ_INT(token_px(&fx, pg_fx_str(&r, "token"), 5, 5), 0x2e7d32ff);
    CHECK(r.reply.data == NULL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "snapshot", "OK"), 1);
    pg_fx_fini(&fx);
}

PG_TEST(region_and_max_size_crop_and_downscale) {
    FX(fx, NULL);
    pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 400, 200, 0xffffffff);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "snapshot", "{\"window\":\"demo\",\"region\":{\"x\":-50,\"y\":10,\"w\":150,\"h\":50}}", NULL,
                       0, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "width"), 100); /* clipped at the window's left edge */
    const cJSON *reg = cJSON_GetObjectItem(r.result, "region");
    CHECK_EQ_INT(cJSON_GetObjectItem(reg, "x")->valueint, 0);
    CHECK_EQ_INT(cJSON_GetObjectItem(reg, "y")->valueint, 10);
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fx_call(&fx, "snapshot", "{\"window\":\"demo\",\"max_size\":{\"w\":100,\"h\":100}}", NULL, 0, &r) ==
            PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "width"), 100);
    CHECK_EQ_INT(pg_fx_num(&r, "height"), 50);
    CHECK_EQ_INT(pg_fx_num(&r, "source_width"), 400);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", "{\"window\":\"demo\",\"region\":{\"x\":500,\"y\":0,\"w\":5,\"h\":5}}",
                            NULL, 0, &r),
                 PG_E_BADINPUT);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(ambiguous_missing_and_denied_targets) {
    FX(fx, NULL);
    pg_fake_add_window(fx.fake, "editor one", "Ed", getpid(), 0, 0, 50, 50, 0xffffffff);
    pg_fake_add_window(fx.fake, "editor two", "Ed", getpid(), 60, 0, 50, 50, 0xffffffff);
    uint64_t vault = pg_fake_add_window(fx.fake, "secret vault", "Vault", getpid(), 120, 0, 50, 50, 0xff0000ff);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", "{\"window\":\"editor\"}", NULL, 0, &r), PG_E_USAGE);
    CHECK_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(r.details, "candidates")), 2);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", "{\"window\":\"editor\",\"first\":true}", NULL, 0, &r), PG_OK);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", "{\"window\":\"nothing here\"}", NULL, 0, &r), PG_E_NOTFOUND);
    pg_fx_reply_fini(&r);
    /* a pattern never finds a private window: its title cannot be probed */
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", "{\"window\":\"^secret vault$\"}", NULL, 0, &r), PG_E_NOTFOUND);
    pg_fx_reply_fini(&r);
    char args[64];
    snprintf(args, sizeof args, "{\"id\":%llu}", (unsigned long long)vault);
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", args, NULL, 0, &r), PG_E_POLICY);
    CHECK(strstr(r.e.message, "secret") == NULL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "snapshot", "POLICY_REFUSED"), 1);
    pg_fx_fini(&fx);
}

/* A desktop with the agent's window and a denied one, on a virtual screen at origin (ox, oy). */
static void vault_desktop(pg_fx *fx, int32_t ox, int32_t oy) {
    pg_fake_set_screen(fx->fake, ox, oy, 800, 600);
    pg_fake_add_window(fx->fake, "demo", "Demo", getpid(), ox + 10, oy + 10, 200, 200, 0xffffffff);
    pg_fake_add_window(fx->fake, "secret vault", "Vault", getpid(), ox + 400, oy + 300, 200, 150, 0xff0000ff);
}

PG_TEST(screen_capture_blacks_out_denied_windows_with_regions_outside_the_screen) {
    static const char *regions[] = {
        NULL,                                                  /* the whole screen */
        "{\"x\":-20000,\"y\":-20000,\"w\":40000,\"h\":40000}", /* covers it, starting far outside */
        "{\"x\":-200,\"y\":250,\"w\":900,\"h\":300}",          /* straddles the left edge */
    };
    for (size_t i = 0; i < sizeof regions / sizeof *regions; i++) {
        FX(fx, NULL);
        vault_desktop(&fx, 0, 0);
        char args[160];
        snprintf(args, sizeof args, regions[i] ? "{\"screen\":true,\"region\":%s}" : "{\"screen\":true}",
                 regions[i]);
        pg_fx_reply r;
        REQUIRE(pg_fx_call(&fx, "snapshot", args, NULL, 0, &r) == PG_OK);
        CHECK_EQ_INT(pg_fx_num(&r, "redacted_windows"), 1);
        const cJSON *reg = cJSON_GetObjectItem(r.result, "region");
        int ox = reg ? cJSON_GetObjectItem(reg, "x")->valueint : 0, oy = reg ? cJSON_GetObjectItem(reg, "y")->valueint : 0;
        /* the vault's corners and centre, in the token's pixels */
        CHECK_EQ_INT(token_px(&fx, pg_fx_str(&r, "token"), (uint32_t)(400 - ox), (uint32_t)(300 - oy)), 0x000000ff);
        CHECK_EQ_INT(token_px(&fx, pg_fx_str(&r, "token"), (uint32_t)(599 - ox), (uint32_t)(449 - oy)), 0x000000ff);
        CHECK_EQ_INT(token_px(&fx, pg_fx_str(&r, "token"), (uint32_t)(500 - ox), (uint32_t)(375 - oy)), 0x000000ff);
        if (i != 2) CHECK_EQ_INT(token_px(&fx, pg_fx_str(&r, "token"), (uint32_t)(20 - ox), (uint32_t)(20 - oy)), 0xffffffff);
        pg_fx_reply_fini(&r);
        pg_fx_fini(&fx);
    }
}

PG_TEST(a_negative_virtual_screen_origin_moves_no_blackout) {
    /* Windows with a monitor left of and above the primary: the screen's first pixel is at (-1280, -300). */
    FX(fx, NULL);
    vault_desktop(&fx, -1280, -300);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "snapshot", "{\"screen\":true}", NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "redacted_windows"), 1);
    CHECK_EQ_INT(token_px(&fx, pg_fx_str(&r, "token"), 400, 300), 0x000000ff);
    CHECK_EQ_INT(token_px(&fx, pg_fx_str(&r, "token"), 599, 449), 0x000000ff);
    CHECK_EQ_INT(token_px(&fx, pg_fx_str(&r, "token"), 20, 20), 0xffffffff);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* The number of tokens the agent holds. */
static unsigned tokens_held(pg_fx *fx) {
    uint64_t bytes, mem;
    unsigned n;
    pg_tok_usage(fx->b.tokens, &bytes, &mem, &n);
    return n;
}

PG_TEST(a_screen_capture_whose_window_list_fails_is_refused_not_stored) {
    FX(fx, NULL);
    vault_desktop(&fx, 0, 0);
    unsigned before = tokens_held(&fx);
    pg_fake_fail(fx.fake, "list_all", PG_E_TIMEOUT, 1);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", "{\"screen\":true}", NULL, 0, &r), PG_E_INTERNAL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(tokens_held(&fx), before);
    pg_fx_fini(&fx);
}

static void fail_next_list(pg_fake *f, void *ctx) {
    (void)ctx;
    pg_fake_fail(f, "list_all", PG_E_TIMEOUT, 1);
}

PG_TEST(a_screen_capture_whose_second_window_list_fails_is_refused_not_stored) {
    FX(fx, NULL);
    vault_desktop(&fx, 0, 0);
    unsigned before = tokens_held(&fx);
    pg_fake_after_capture(fx.fake, fail_next_list, NULL); /* the list after the pixels were read */
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", "{\"screen\":true}", NULL, 0, &r), PG_E_INTERNAL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(tokens_held(&fx), before);
    pg_fx_fini(&fx);
}

static void fail_next_describe(pg_fake *f, void *ctx) {
    (void)ctx;
    pg_fake_fail(f, "describe_window", PG_E_TIMEOUT, 1);
}

PG_TEST(a_window_capture_whose_look_after_the_pixels_fails_is_refused_not_stored) {
    FX(fx, NULL);
    uint64_t id = pg_fake_add_window(fx.fake, "news", "Browser", getpid(), 0, 0, 80, 40, 0xff336699);
    unsigned before = tokens_held(&fx);
    pg_fake_after_capture(fx.fake, fail_next_describe, NULL); /* the window read again after its pixels */
    pg_fx_reply r;
    char args[64];
    snprintf(args, sizeof args, "{\"id\":%llu}", (unsigned long long)id);
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", args, NULL, 0, &r), PG_E_TIMEOUT);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(tokens_held(&fx), before);
    pg_fx_fini(&fx);
}

PG_TEST(a_screen_capture_is_refused_when_the_backend_could_not_list_every_window) {
    /* X11 stops at X11_MAX_WINDOWS, and in a tree walk the topmost windows are the ones left out */
    FX(fx, NULL);
    vault_desktop(&fx, 0, 0);
    pg_fake_list_limit(fx.fake, 1); /* the vault, on top, is not in the list */
    unsigned before = tokens_held(&fx);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", "{\"screen\":true}", NULL, 0, &r), PG_E_INTERNAL);
    CHECK(strstr(r.e.message, "incomplete") != NULL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(tokens_held(&fx), before);
    /* window captures do not depend on seeing every window */
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", "{\"window\":\"^demo$\"}", NULL, 0, &r), PG_OK);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* The vault's popup (a menu below it), its dialog (beside it) and a frame. */
static uint64_t vault_with_owned(pg_fx *fx, uint64_t *popup, uint64_t *dialog) {
    vault_desktop(fx, 0, 0);
    uint64_t vault = 0;
    pg_window *w;
    size_t n;
    bool complete;
    pg_error e;
    if (pg_fake_ops.list_all(fx->fake, &w, &n, &complete, &e) == PG_OK) {
        for (size_t i = 0; i < n; i++)
            if (!strcmp(w[i].title, "secret vault")) vault = w[i].id;
        free(w);
    }
    pg_fake_set_frame(fx->fake, vault, 4, 24, 4, 4); /* a title bar above, borders around */
    *popup = pg_fake_add_owned(fx->fake, PG_WINDOW_POPUP, vault, getpid(), "", 420, 460, 120, 80, 0xff00ffff);
    *dialog = pg_fake_add_owned(fx->fake, PG_WINDOW_DIALOG, vault, getpid(), "Unlock database", 620, 300, 150, 100,
                                0x00ffffff);
    return vault;
}

PG_TEST(a_denied_apps_popups_dialogs_and_frame_are_blacked_out_of_a_screen_capture) {
    FX(fx, NULL);
    uint64_t popup, dialog;
    REQUIRE(vault_with_owned(&fx, &popup, &dialog) != 0);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "snapshot", "{\"screen\":true}", NULL, 0, &r) == PG_OK);
    const char *tok = pg_fx_str(&r, "token");
    CHECK_EQ_INT(pg_fx_num(&r, "redacted_windows"), 3);
    CHECK_EQ_INT(token_px(&fx, tok, 480, 500), 0x000000ff); /* the popup, below the vault */
    CHECK_EQ_INT(token_px(&fx, tok, 539, 539), 0x000000ff);
    CHECK_EQ_INT(token_px(&fx, tok, 700, 350), 0x000000ff); /* the dialog, beside it */
    CHECK_EQ_INT(token_px(&fx, tok, 500, 285), 0x000000ff); /* the vault's title bar */
    CHECK_EQ_INT(token_px(&fx, tok, 397, 400), 0x000000ff); /* and its left border */
    CHECK_EQ_INT(token_px(&fx, tok, 380, 400), 0x404040ff); /* the desktop next to it is not black */
    CHECK_EQ_INT(token_px(&fx, tok, 20, 20), 0xffffffff);   /* nor is the agent's window */
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(a_popup_nobody_could_be_named_for_is_blacked_out_where_it_overlaps_or_shares_a_denied_process) {
    /* The popups' owner is an account the policy opens (capture.other_users),
     * so only the deny rules' attribution decides here. */
    pg_fx probe;
    REQUIRE(pg_fx_init(&probe, NULL) == 0);
    int64_t other = pg_fx_foreign_pid(&probe);
    REQUIRE(other > 0);
    char owner[64], policy[512];
    REQUIRE(pg_fx_pid_user(other, owner));
    snprintf(policy, sizeof policy,
             "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"capture\":{\"deny_windows\":[\"^secret vault$\"],"
             "\"other_users\":[\"%s\"]}}",
             owner);
    FX(fx, policy);
    vault_desktop(&fx, 0, 0); /* the vault is at 400,300 200x150, pid getpid() */
    /* parent 0: a popup the backend could not attribute */
    pg_fake_add_owned(fx.fake, PG_WINDOW_POPUP, 0, other, "", 560, 420, 100, 60, 0xff00ffff); /* overlaps the vault */
    pg_fake_add_owned(fx.fake, PG_WINDOW_POPUP, 0, getpid(), "", 650, 100, 60, 40, 0x00ff00ff); /* the vault's process */
    pg_fake_add_owned(fx.fake, PG_WINDOW_POPUP, 0, other, "", 700, 500, 50, 50, 0x0000ffff);   /* neither */
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "snapshot", "{\"screen\":true}", NULL, 0, &r) == PG_OK);
    const char *tok = pg_fx_str(&r, "token");
    CHECK_EQ_INT(pg_fx_num(&r, "redacted_windows"), 3);
    CHECK_EQ_INT(token_px(&fx, tok, 650, 470), 0x000000ff); /* the overlapping popup, outside the vault too */
    CHECK_EQ_INT(token_px(&fx, tok, 680, 120), 0x000000ff); /* the popup of the vault's process */
    CHECK_EQ_INT(token_px(&fx, tok, 725, 525), 0x0000ffff); /* someone else's popup elsewhere stays */
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
    pg_fx_fini(&probe);
}

static void move_vault_away(pg_fake *f, void *ctx) {
    pg_fake_move(f, *(uint64_t *)ctx, 20, 400); /* right after the pixels were read */
}

static void open_second_vault(pg_fake *f, void *ctx) {
    (void)ctx;
    pg_fake_add_window(f, "secret vault", "Vault", getpid(), 100, 450, 150, 100, 0xff0000ff);
}

PG_TEST(a_denied_window_that_moves_or_appears_while_the_screen_is_read_is_blacked_out_where_the_pixels_show_it) {
    FX(fx, NULL);
    uint64_t popup, dialog;
    uint64_t vault = vault_with_owned(&fx, &popup, &dialog);
    REQUIRE(vault != 0);
    pg_fake_after_capture(fx.fake, move_vault_away, &vault);
    pg_fake_on_capture(fx.fake, open_second_vault, NULL); /* appears just before the pixels are read */
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "snapshot", "{\"screen\":true}", NULL, 0, &r) == PG_OK);
    const char *tok = pg_fx_str(&r, "token");
    CHECK_EQ_INT(token_px(&fx, tok, 500, 375), 0x000000ff); /* where the vault was when read */
    CHECK_EQ_INT(token_px(&fx, tok, 150, 500), 0x000000ff); /* the vault that opened meanwhile */
    CHECK_EQ_INT(token_px(&fx, tok, 480, 500), 0x000000ff); /* its popup */
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(a_tiny_protected_capture_shows_no_digest_and_cannot_be_hashed) {
    FX(fx, NULL); /* analyze-only */
    pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 100, 100, 0x808080ff);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "snapshot", "{\"window\":\"demo\",\"region\":{\"x\":5,\"y\":5,\"w\":1,\"h\":1}}", NULL, 0, &r) ==
            PG_OK);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(r.result, "digest"))); /* a 1x1 digest would be an equality oracle */
    CHECK_STR(pg_fx_str(&r, "digest_kind"), "withheld");
    CHECK(pg_fx_str(&r, "sha256") == NULL);
    char args[96];
    snprintf(args, sizeof args, "{\"image\":{\"token\":\"%s\"}}", pg_fx_str(&r, "token"));
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "hash", args, NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(a_600_byte_title_ending_in_a_denied_suffix_is_refused_not_captured) {
    /* The deny rule is anchored at the end; pg_window.title holds 511 bytes,
     * so the suffix is cut off and only title_cut can still deny it. */
    FX(fx, "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"expose_pixels\":\"analyze-only\",\"capture\":{\"deny_windows\":[\" - Private Browsing$\"]}}");
    char title[601];
    memset(title, 'a', 600);
    memcpy(title + 600 - 19, " - Private Browsing", 19);
    title[600] = 0;
    uint64_t id = pg_fake_add_window(fx.fake, "placeholder", "Browser", getpid(), 0, 0, 100, 100, 0xffffffff);
    pg_fake_set_title(fx.fake, id, title);
    char args[64];
    snprintf(args, sizeof args, "{\"id\":%llu}", (unsigned long long)id);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", args, NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    /* and on a screen capture it is blacked out like any denied window */
    REQUIRE(pg_fx_call(&fx, "snapshot", "{\"screen\":true}", NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "redacted_windows"), 1);
    CHECK_EQ_INT(token_px(&fx, pg_fx_str(&r, "token"), 50, 50), 0x000000ff);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(a_dialog_of_a_denied_window_is_never_captured_on_its_own) {
    /* "Unlock database" matches no deny rule; its owner does. */
    FX(fx, NULL);
    uint64_t popup, dialog;
    REQUIRE(vault_with_owned(&fx, &popup, &dialog) != 0);
    char args[64];
    snprintf(args, sizeof args, "{\"id\":%llu}", (unsigned long long)dialog);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", args, NULL, 0, &r), PG_E_POLICY);
    CHECK(strstr(r.e.message, "Unlock") == NULL && strstr(r.e.message, "vault") == NULL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(tokens_held(&fx), 0);
    pg_fx_fini(&fx);
}

/* Capture health: an all-black window, a minimized one and one with no
 * area are errors with a reason, never a silent token. */
PG_TEST(black_minimized_and_empty_windows_are_errors_with_a_reason_not_tokens) {
    FX(fx, NULL);
    uint64_t black = pg_fake_add_window(fx.fake, "black", "B", getpid(), 0, 0, 40, 30, 0x000000ff);
    uint64_t mini = pg_fake_add_window(fx.fake, "mini", "M", getpid(), 100, 0, 40, 30, 0x808080ff);
    uint64_t flat = pg_fake_add_window(fx.fake, "flat", "F", getpid(), 200, 0, 10, 30, 0x808080ff);
    pg_fake_set_listed_size(fx.fake, flat, 0, 30); /* not laid out yet */
    pg_fake_set_minimized(fx.fake, mini, true);
    static const struct {
        const char *args;
        pg_err code;
        const char *reason;
    } cases[] = {
        {"{\"window\":\"^black$\",\"settle\":false}", PG_E_BLOCKED, "BLACK_FRAME"},
        {"{\"id\":%llu,\"settle\":false}", PG_E_BADINPUT, "WINDOW_MINIMIZED"},
        {"{\"id\":%llu,\"settle\":false}", PG_E_BADINPUT, "ZERO_SIZE"},
    };
    for (size_t i = 0; i < 3; i++) {
        char args[128];
        snprintf(args, sizeof args, cases[i].args, (unsigned long long)(i == 1 ? mini : flat));
        pg_fx_reply r;
        CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", args, NULL, 0, &r), cases[i].code);
        const cJSON *why = cJSON_GetObjectItem(r.details, "reason");
        CHECK(cJSON_IsString(why) && !strcmp(why->valuestring, cases[i].reason));
        pg_fx_reply_fini(&r);
    }
    pg_fake_fill(fx.fake, black, 3, 3, 1, 1, 0x010000ff); /* one pixel not black: a real picture */
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "snapshot", "{\"window\":\"^black$\",\"settle\":false}", NULL, 0, &r) == PG_OK);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* BLACK_FRAME says "every pixel black": one bit about protected pixels,
 * charged like any other (issue 27: it was free). */
PG_TEST(a_black_frame_refusal_is_charged_its_bit) {
    FX(fx, NULL);
    pg_fake_add_window(fx.fake, "black", "B", getpid(), 0, 0, 40, 30, 0x000000ff);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", "{\"window\":\"^black$\",\"settle\":false}", NULL, 0, &r), PG_E_BLOCKED);
    CHECK_STR(pg_fx_str(&r, "reason"), "BLACK_FRAME");
    pg_fx_reply_fini(&r);
    CHECK(pg_disclose_used(fx.b.disclose, fx.peer.uid) >= 1);
    pg_fx_fini(&fx);
}

/* A popup by the id windows --all gives: captured when it is the caller's,
 * under its owner's deny rules when the owner is denied. */
PG_TEST(a_popup_is_captured_by_id_under_its_owners_deny_rules) {
    FX(fx, "{\"version\":1,\"clients\":{\"users\":[\"*\"]},\"capture\":{\"deny_windows\":[\"vault\"]}}");
    uint64_t app = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 200, 100, 0xffffffff);
    uint64_t vault = pg_fake_add_window(fx.fake, "vault", "Vault", getpid(), 300, 0, 200, 100, 0xffffffff);
    uint64_t menu = pg_fake_add_owned(fx.fake, PG_WINDOW_POPUP, app, getpid(), "", 20, 20, 60, 40, 0xddddddff);
    uint64_t vmenu = pg_fake_add_owned(fx.fake, PG_WINDOW_POPUP, vault, getpid(), "", 320, 20, 60, 40, 0xddddddff);
    char args[96];
    pg_fx_reply r;
    snprintf(args, sizeof args, "{\"id\":%llu,\"settle\":false}", (unsigned long long)menu);
    REQUIRE(pg_fx_call(&fx, "snapshot", args, NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "width"), 60);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"id\":%llu,\"settle\":false}", (unsigned long long)vmenu);
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", args, NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* --with-popups: the window and its program's own popups in one image, in
 * stacking order, black between them (never another window's pixels), each
 * popup's place in the image answered; another program's popup is not in it,
 * and such a token aims nothing (--in refuses it). */
PG_TEST(with_popups_paints_the_window_and_its_own_popups_and_nothing_else) {
    FX(fx, NULL);
    int64_t other = pg_fx_foreign_pid(&fx);
    REQUIRE(other > 0);
    uint64_t app = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 100, 100, 300, 200, 0xcc0000ff);
    pg_fake_add_window(fx.fake, "theirs", "Theirs", other, 420, 100, 200, 300, 0x00cc00ff); /* in the union's gap */
    uint64_t menu = pg_fake_add_owned(fx.fake, PG_WINDOW_POPUP, app, getpid(), "", 350, 250, 100, 80, 0x0000ccff);
    pg_fake_add_owned(fx.fake, PG_WINDOW_POPUP, app, other, "", 120, 120, 20, 20, 0xffff00ff); /* not its program's */
    char args[96];
    pg_fx_reply r;
    snprintf(args, sizeof args, "{\"id\":%llu,\"with_popups\":true,\"settle\":false}", (unsigned long long)app);
    REQUIRE(pg_fx_call(&fx, "snapshot", args, NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "width"), 350); /* 100..450 */
    CHECK_EQ_INT(pg_fx_num(&r, "height"), 230); /* 100..330 */
    const cJSON *pops = cJSON_GetObjectItem(r.result, "popups");
    REQUIRE(cJSON_GetArraySize(pops) == 1);
    const cJSON *p0 = cJSON_GetArrayItem(pops, 0);
    CHECK_EQ_INT((double)cJSON_GetObjectItem(p0, "id")->valuedouble, (double)menu);
    CHECK_EQ_INT(cJSON_GetObjectItem(p0, "x")->valueint, 250);
    CHECK_EQ_INT(cJSON_GetObjectItem(p0, "y")->valueint, 150);
    CHECK_STR(cJSON_GetObjectItem(p0, "kind")->valuestring, "popup");
    CHECK_EQ_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(r.result, "origin"), "x")->valueint, 0);
    CHECK(strstr(pg_fx_str(&r, "method"), "+popups") != NULL);
    char tok[64];
    snprintf(tok, sizeof tok, "%s", pg_fx_str(&r, "token"));
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(token_px(&fx, tok, 10, 10), 0xcc0000ff);   /* the window */
    CHECK_EQ_INT(token_px(&fx, tok, 300, 200), 0x0000ccff); /* its popup, over it and beyond it */
    CHECK_EQ_INT(token_px(&fx, tok, 330, 20), 0x000000ff);  /* the gap: black, not the other window */
    CHECK_EQ_INT(token_px(&fx, tok, 25, 25), 0xcc0000ff);   /* the other program's popup is not painted */
    snprintf(args, sizeof args, "{\"in\":\"%s\",\"at\":{\"x\":10,\"y\":10}}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "click", args, NULL, 0, &r), PG_E_USAGE);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"id\":%llu,\"with_popups\":true,\"region\":{\"x\":0,\"y\":0,\"w\":9,\"h\":9}}",
             (unsigned long long)app);
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", args, NULL, 0, &r), PG_E_USAGE);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", "{\"screen\":true,\"with_popups\":true}", NULL, 0, &r), PG_E_USAGE);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* A denied application's popups stay out even when another window asks
 * for its popups: only the window's own program's count, and a denied
 * window is refused with them. */
PG_TEST(with_popups_of_a_denied_window_is_refused) {
    FX(fx, "{\"version\":1,\"clients\":{\"users\":[\"*\"]},\"capture\":{\"deny_windows\":[\"vault\"]}}");
    uint64_t vault = pg_fake_add_window(fx.fake, "vault", "Vault", getpid(), 300, 0, 200, 100, 0xffffffff);
    pg_fake_add_owned(fx.fake, PG_WINDOW_POPUP, vault, getpid(), "", 320, 20, 60, 40, 0xddddddff);
    char args[96];
    pg_fx_reply r;
    snprintf(args, sizeof args, "{\"id\":%llu,\"with_popups\":true}", (unsigned long long)vault);
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", args, NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* screens lists the monitors; snapshot --output captures one, --region then
 * relative to it; an unknown name says which there are. */
PG_TEST(screens_lists_monitors_and_output_captures_one) {
    FX(fx, NULL);
    pg_fake_set_screen(fx.fake, 0, 0, 400, 100);
    pg_fake_add_monitor(fx.fake, "LEFT", 0, 0, 200, 100, true);
    pg_fake_add_monitor(fx.fake, "RIGHT", 200, 0, 200, 100, false);
    pg_fake_add_window(fx.fake, "right app", "R", getpid(), 250, 10, 100, 50, 0x2e7d32ff);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "screens", NULL, NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "count"), 2);
    const cJSON *second = cJSON_GetArrayItem(cJSON_GetObjectItem(r.result, "screens"), 1);
    CHECK_STR(cJSON_GetObjectItem(second, "name")->valuestring, "RIGHT");
    CHECK_EQ_INT(cJSON_GetObjectItem(second, "x")->valueint, 200);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(second, "primary")));
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fx_call(&fx, "snapshot", "{\"output\":\"RIGHT\"}", NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "width"), 200);
    char tok[64];
    snprintf(tok, sizeof tok, "%s", pg_fx_str(&r, "token"));
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(token_px(&fx, tok, 60, 20), 0x2e7d32ff); /* the app at 250,10 is at 50,10 of RIGHT */
    CHECK(token_px(&fx, tok, 10, 5) != 0x2e7d32ff);
    REQUIRE(pg_fx_call(&fx, "snapshot", "{\"output\":\"RIGHT\",\"region\":{\"x\":50,\"y\":10,\"w\":100,\"h\":50}}", NULL,
                       0, &r) == PG_OK);
    snprintf(tok, sizeof tok, "%s", pg_fx_str(&r, "token"));
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(token_px(&fx, tok, 0, 0), 0x2e7d32ff);
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", "{\"output\":\"RIGHT\",\"region\":{\"x\":150,\"y\":0,\"w\":100,\"h\":10}}",
                            NULL, 0, &r),
                 PG_E_BADINPUT);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", "{\"output\":\"MIDDLE\"}", NULL, 0, &r), PG_E_NOTFOUND);
    CHECK(strstr(r.e.message, "LEFT, RIGHT") != NULL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", "{\"output\":\"LEFT\",\"screen\":true}", NULL, 0, &r), PG_E_USAGE);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}
