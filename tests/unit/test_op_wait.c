/* SPDX-License-Identifier: MIT */
/* wait_stable and wait_for against the fake desktop's frame series. */
#include <unistd.h>

#include "pg_broker_fixture.h"
#include "pg_test.h"

#define FX(fx) \
    pg_fx fx;  \
    REQUIRE(pg_fx_init(&fx, NULL) == 0)

/* Frames of a w x h window: frame k has a black bar at x = 10*k. */
static void animate(pg_fake *f, uint64_t id, uint32_t w, uint32_t h, int frames, bool loop) {
    uint8_t *px = malloc((size_t)w * h * 4);
    for (int k = 1; k < frames; k++) {
        memset(px, 0xff, (size_t)w * h * 4);
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 10u * (uint32_t)k; x < 10u * (uint32_t)k + 8 && x < w; x++) memset(px + (y * w + x) * 4, 0, 3);
        pg_fake_add_frame(f, id, px, loop);
    }
    free(px);
}

PG_TEST(wait_stable_waits_out_an_animation_and_keeps_the_last_frame) {
    FX(fx);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 80, 40, 0xffffffff);
    animate(fx.fake, id, 80, 40, 5, false); /* moves for 4 captures, then stays */
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "wait_stable", "{\"window\":\"demo\",\"interval\":0.01,\"timeout\":5}", NULL, 0, &r) ==
            PG_OK);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r.result, "stable")));
    CHECK(pg_fx_num(&r, "frames_observed") >= 5);
    CHECK(!strncmp(pg_fx_str(&r, "token"), "cap:", 4));
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(wait_stable_times_out_on_an_endless_animation_with_evidence) {
    FX(fx);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 80, 40, 0xffffffff);
    animate(fx.fake, id, 80, 40, 6, true);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "wait_stable", "{\"window\":\"demo\",\"interval\":0.01,\"timeout\":0.3}", NULL, 0, &r),
                 PG_E_TIMEOUT);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(r.details, "stable")));
    CHECK(!strncmp(pg_fx_str(&r, "token"), "cap:", 4));
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

#ifndef _WIN32
#include <sys/socket.h>

PG_TEST(a_wait_stops_when_its_client_hangs_up_and_the_record_says_so) {
    FX(fx);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 80, 40, 0xffffffff);
    animate(fx.fake, id, 80, 40, 6, true); /* never stable */
    int sv[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    pg_error e;
    REQUIRE(pg_conn_from_fd(&fx.conn, sv[0], 1000, &e) == PG_OK);
    CHECK(!pg_conn_peer_gone(fx.conn));
    REQUIRE(write(sv[1], "x", 1) == 1); /* bytes waiting are not a hang-up */
    CHECK(!pg_conn_peer_gone(fx.conn));
    close(sv[1]);
    CHECK(pg_conn_peer_gone(fx.conn)); /* the unread byte does not hide the hang-up either... */
    pg_fx_reply r;
    /* ...so a wait of up to an hour ends after its first poll */
    CHECK_EQ_INT(pg_fx_call(&fx, "wait_stable", "{\"window\":\"demo\",\"interval\":0.01,\"timeout\":3600}", NULL, 0, &r),
                 PG_E_UNREACHABLE);
    CHECK(strstr(r.e.message, "hung up") != NULL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "wait_stable", "BROKER_UNREACHABLE"), 1);
    CHECK_EQ_INT(pg_fx_call(&fx, "wait_for", "{\"window\":\"demo\",\"text\":\"never\",\"interval\":0.01,\"timeout\":3600}",
                            NULL, 0, &r),
                 PG_E_UNREACHABLE);
    pg_fx_reply_fini(&r);
    pg_conn_close(fx.conn);
    fx.conn = NULL;
    pg_fx_fini(&fx);
}
#endif

PG_TEST(wait_for_a_template_finds_it_when_it_appears) {
    FX(fx);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 80, 40, 0xffffffff);
    animate(fx.fake, id, 80, 40, 4, false); /* frame 0 blank; frame 1 a bar at x 10..17 */
    uint64_t t = pg_fake_add_window(fx.fake, "tmpl", "T", getpid(), 200, 0, 16, 40, 0xffffffff);
    pg_fake_fill(fx.fake, t, 4, 0, 8, 40, 0x000000ff); /* the bar with white margins */
    char tmpl[32];
    REQUIRE(pg_fx_snapshot(&fx, t, tmpl) == 0);
    char args[192];
    snprintf(args, sizeof args, "{\"window\":\"^demo$\",\"template\":{\"token\":\"%s\"},\"interval\":0.01,\"timeout\":5}",
             tmpl);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "wait_for", args, NULL, 0, &r) == PG_OK);
    const cJSON *m = cJSON_GetObjectItem(r.result, "match");
    CHECK_EQ_INT(cJSON_GetObjectItem(m, "x")->valueint, 8); /* 6 on the disclosure grid (analyze-only) */
    CHECK(!strncmp(pg_fx_str(&r, "token"), "cap:", 4));
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* Turns the window's title private at its third capture. */
static void turn_private(pg_fake *f, void *ctx) {
    static int n;
    if (++n == 3) pg_fake_set_title(f, *(uint64_t *)ctx, "secret vault");
}

PG_TEST(a_window_whose_title_turns_denied_mid_wait_stops_being_captured) {
    FX(fx);
    uint64_t id = pg_fake_add_window(fx.fake, "news", "Browser", getpid(), 0, 0, 80, 40, 0xffffffff);
    animate(fx.fake, id, 80, 40, 6, true); /* never stable: the wait would go on */
    pg_fake_on_capture(fx.fake, turn_private, &id);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "wait_stable", "{\"window\":\"news\",\"interval\":0.01,\"timeout\":5}", NULL, 0, &r),
                 PG_E_POLICY);
    CHECK(r.details == NULL || !cJSON_GetObjectItem(r.details, "token")); /* no frame of the private window kept */
    pg_fx_reply_fini(&r);
    CHECK(pg_fake_captures(fx.fake) == 3); /* the capture that saw the change was discarded, and nothing after */
    pg_fx_fini(&fx);
}

static void turn_private_now(pg_fake *f, void *ctx) { pg_fake_set_title(f, *(uint64_t *)ctx, "secret vault"); }

PG_TEST(a_snapshot_of_a_window_that_turned_denied_while_captured_is_discarded) {
    FX(fx);
    uint64_t id = pg_fake_add_window(fx.fake, "news", "Browser", getpid(), 0, 0, 80, 40, 0xffffffff);
    pg_fake_on_capture(fx.fake, turn_private_now, &id);
    uint64_t bytes, mem;
    unsigned before, after;
    pg_tok_usage(fx.b.tokens, &bytes, &mem, &before);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "snapshot", "{\"window\":\"news\"}", NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    pg_tok_usage(fx.b.tokens, &bytes, &mem, &after);
    CHECK_EQ_INT(after, before);
    pg_fx_fini(&fx);
}

/* A dialog that opens at the third look and closes at the sixth. */
typedef struct {
    int looks;
    uint64_t id;
} comes_and_goes;

static void dialog_comes_and_goes(pg_fake *f, void *ctx) {
    comes_and_goes *d = ctx;
    if (++d->looks == 3) {
        d->id = pg_fake_add_window(f, "Confirm order", "Dlg", getpid(), 20, 20, 120, 60, 0xffffffff);
        pg_fake_fill(f, d->id, 50, 0, 8, 60, 0x000000ff); /* a black bar across it */
    }
    if (d->looks == 6 && d->id) pg_fake_remove(f, d->id);
}

PG_TEST(wait_for_appear_and_gone_follow_a_dialog_without_capturing_it) {
    FX(fx);
    comes_and_goes d = {0, 0};
    pg_fake_on_list(fx.fake, dialog_comes_and_goes, &d);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "wait_for", "{\"window\":\"^Confirm\",\"appear\":true,\"interval\":0.01,\"timeout\":5}",
                       NULL, 0, &r) == PG_OK);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r.result, "appeared")));
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(r.result, "window"), "title")->valuestring, "Confirm order");
    CHECK(cJSON_GetObjectItem(r.result, "token") == NULL); /* nothing captured */
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(d.looks, 3);
    REQUIRE(pg_fx_call(&fx, "wait_for", "{\"window\":\"^Confirm\",\"gone\":true,\"interval\":0.01,\"timeout\":5}",
                       NULL, 0, &r) == PG_OK);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r.result, "gone")));
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(d.looks, 6);
    /* gone already: at once; appear never: exit 6 saying so, with how long it waited */
    REQUIRE(pg_fx_call(&fx, "wait_for", "{\"window\":\"^Confirm\",\"gone\":true,\"interval\":0.01,\"timeout\":5}",
                       NULL, 0, &r) == PG_OK);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "wait_for", "{\"window\":\"^Confirm\",\"appear\":true,\"interval\":0.01,\"timeout\":0.2}",
                            NULL, 0, &r),
                 PG_E_TIMEOUT);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(r.details, "appeared")));
    CHECK(cJSON_GetObjectItem(r.details, "elapsed_s") != NULL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "wait_for", "OK"), 3);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "wait_for", "TIMEOUT"), 1);
    pg_fx_fini(&fx);
}

/* Two windows match: neither has closed, so --gone keeps waiting. */
PG_TEST(wait_for_gone_waits_while_any_matching_window_is_there) {
    FX(fx);
    pg_fake_add_window(fx.fake, "Confirm one", "Dlg", getpid(), 20, 20, 120, 60, 0xe0e0e0ff);
    pg_fake_add_window(fx.fake, "Confirm two", "Dlg", getpid(), 220, 20, 120, 60, 0xe0e0e0ff);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "wait_for", "{\"window\":\"^Confirm\",\"gone\":true,\"interval\":0.01,\"timeout\":0.1}",
                            NULL, 0, &r),
                 PG_E_TIMEOUT);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(r.details, "gone")));
    CHECK(cJSON_GetObjectItem(r.details, "candidates") == NULL);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* wait_for --text on a dialog that is not there yet waits for it, then reads it. */
PG_TEST(wait_for_a_template_in_a_window_that_opens_later_waits_for_the_window_first) {
    FX(fx);
    comes_and_goes d = {0, 0};
    uint64_t t = pg_fake_add_window(fx.fake, "tmpl", "T", getpid(), 300, 0, 16, 40, 0xffffffff);
    pg_fake_fill(fx.fake, t, 4, 0, 8, 40, 0x000000ff); /* the dialog's bar with white margins */
    char tmpl[32];
    REQUIRE(pg_fx_snapshot(&fx, t, tmpl) == 0);
    pg_fake_remove(fx.fake, t);
    pg_fake_on_list(fx.fake, dialog_comes_and_goes, &d);
    char args[192];
    snprintf(args, sizeof args, "{\"window\":\"^Confirm\",\"template\":{\"token\":\"%s\"},\"interval\":0.01,\"timeout\":5}",
             tmpl);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "wait_for", args, NULL, 0, &r) == PG_OK);
    CHECK(!strncmp(pg_fx_str(&r, "token"), "cap:", 4));
    pg_fx_reply_fini(&r);
    CHECK(d.looks >= 3);
    pg_fx_fini(&fx);
}

/* --exact: a one-pixel flicker the dHash tolerates is not stable. */
PG_TEST(wait_stable_exact_sees_a_one_pixel_change_the_dhash_tolerates) {
    FX(fx);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 80, 40, 0xffffffff);
    uint8_t *px = malloc(80 * 40 * 4);
    REQUIRE(px != NULL);
    memset(px, 0xff, 80 * 40 * 4);
    px[(20 * 80 + 40) * 4] = 0xf0; /* one pixel, one channel, a little darker */
    pg_fake_add_frame(fx.fake, id, px, true); /* white, dotted, white, dotted, ... */
    free(px);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "wait_stable", "{\"window\":\"demo\",\"interval\":0.01,\"timeout\":2}", NULL, 0, &r) == PG_OK);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r.result, "stable"))); /* the dHash cannot see one pixel */
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_call(&fx, "wait_stable", "{\"window\":\"demo\",\"exact\":true,\"interval\":0.01,\"timeout\":0.3}",
                            NULL, 0, &r),
                 PG_E_TIMEOUT);
    CHECK(cJSON_GetObjectItem(r.details, "last_hash") == NULL);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

#define ALLOW_POLICY "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"expose_pixels\":\"allow\"}"

/* hash's answer about a token (default dhash, or algo). */
static void hash_of(pg_fx *fx, const char *tok, const char *algo, char out[65]) {
    char args[160];
    snprintf(args, sizeof args, "{\"image\":{\"token\":\"%s\"},\"algo\":\"%s\"}", tok, algo);
    pg_fx_reply h;
    out[0] = 0;
    if (pg_fx_call(fx, "hash", args, NULL, 0, &h) == PG_OK) snprintf(out, 65, "%s", pg_fx_str(&h, "hash"));
    pg_fx_reply_fini(&h);
}

PG_TEST(wait_stable_gives_final_hash_to_a_caller_who_may_have_the_pixels) {
    pg_fx fx;
    REQUIRE(pg_fx_init(&fx, ALLOW_POLICY) == 0);
    uint64_t id = pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 80, 40, 0xffffffff);
    animate(fx.fake, id, 80, 40, 3, false);
    pg_fx_reply r;
    char want[65];
    REQUIRE(pg_fx_call(&fx, "wait_stable", "{\"window\":\"demo\",\"interval\":0.01,\"timeout\":5}", NULL, 0, &r) ==
            PG_OK);
    hash_of(&fx, pg_fx_str(&r, "token"), "dhash", want);
    CHECK(pg_fx_str(&r, "final_hash") != NULL);
    CHECK_STR(pg_fx_str(&r, "final_hash"), want); /* the last frame's dHash, as hash says */
    CHECK_STR(pg_fx_str(&r, "algorithm"), "dhash");
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fx_call(&fx, "wait_stable", "{\"window\":\"demo\",\"exact\":true,\"interval\":0.01,\"timeout\":5}", NULL,
                       0, &r) == PG_OK);
    hash_of(&fx, pg_fx_str(&r, "token"), "sha256", want);
    CHECK(pg_fx_str(&r, "final_hash") != NULL);
    CHECK_STR(pg_fx_str(&r, "final_hash"), want); /* --exact: no dHash, the SHA-256 */
    CHECK_STR(pg_fx_str(&r, "algorithm"), "sha256");
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(wait_stable_keeps_the_hash_of_pixels_the_caller_may_not_have) {
    FX(fx); /* analyze-only */
    pg_fake_add_window(fx.fake, "demo", "Demo", getpid(), 0, 0, 80, 40, 0xffffffff);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "wait_stable", "{\"window\":\"demo\",\"interval\":0.01,\"timeout\":5}", NULL, 0, &r) ==
            PG_OK);
    CHECK(pg_fx_str(&r, "final_hash") == NULL);
    CHECK(pg_fx_str(&r, "algorithm") == NULL);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}
