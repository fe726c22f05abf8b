/* SPDX-License-Identifier: MIT */
/* --if-unchanged against the fake desktop: a guarded input goes out only
 * while the region around its target looks as it did in the token and the
 * token's window is on top there; otherwise TARGET_CHANGED and nothing is
 * sent. The verdict is charged whether it passes or not, and an agent that
 * repaints its own window to question an unseen token through it is stopped
 * by the disclosure budget long before it could rebuild the token. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_broker_fixture.h"
#include "pg_disclose.h"
#include "pg_guard.h"
#include "pg_img_codec.h"
#include "pg_test.h"

#define FX(fx, policy) \
    pg_fx fx;          \
    REQUIRE(pg_fx_init(&fx, policy) == 0)

/* A 300x200 window at 100,100 with a green button at 200,50 (40x20), and
 * its snapshot's token into tok. */
static uint64_t demo_with_token(pg_fx *fx, char tok[32]) {
    uint64_t id = pg_fake_add_window(fx->fake, "demo", "Demo", getpid(), 100, 100, 300, 200, 0xf4f4f4ff);
    pg_fake_fill(fx->fake, id, 200, 50, 40, 20, 0x2e7d32ff);
    pg_fake_fill(fx->fake, id, 210, 55, 20, 10, 0xffffffff);
    if (pg_fx_snapshot(fx, id, tok) != 0) return 0;
    return id;
}

/* op with args '"in":TOK,' prefixed and '"if_unchanged":true' appended. */
static pg_err guarded(pg_fx *fx, const char *op, const char *tok, const char *args, pg_fx_reply *r) {
    char json[512];
    snprintf(json, sizeof json, "{\"in\":\"%s\",%s,\"if_unchanged\":true}", tok, args);
    return pg_fx_call(fx, op, json, NULL, 0, r);
}

/* Input line i is exactly the formatted text (the window id put in first). */
static bool input_is(pg_fx *fx, size_t i, const char *fmt, uint64_t id) {
    char want[128];
    snprintf(want, sizeof want, fmt, (unsigned long long)id);
    bool ok = i < pg_fake_input_count(fx->fake) && strcmp(pg_fake_input(fx->fake, i), want) == 0;
    if (!ok)
        fprintf(stderr, "input %zu: want '%s', have '%s'\n", i, want,
                i < pg_fake_input_count(fx->fake) ? pg_fake_input(fx->fake, i) : "(none)");
    return ok;
}

/* The disposition detail of the last audit record of op with outcome. */
static void last_detail(pg_fx *fx, const char *op, const char *outcome, char out[256]) {
    out[0] = 0;
    cJSON *all = pg_fx_audit(fx), *rec;
    cJSON_ArrayForEach(rec, all) {
        const cJSON *o = cJSON_GetObjectItem(rec, "op"), *x = cJSON_GetObjectItem(rec, "outcome");
        if (!cJSON_IsString(o) || strcmp(o->valuestring, op) || !cJSON_IsString(x) || strcmp(x->valuestring, outcome))
            continue;
        const cJSON *d = cJSON_GetObjectItem(cJSON_GetObjectItem(rec, "disposition"), "detail");
        snprintf(out, 256, "%s", cJSON_IsString(d) ? d->valuestring : "");
    }
    cJSON_Delete(all);
}

PG_TEST(an_unchanged_target_gets_the_click_and_the_check_is_reported_charged_and_audited) {
    FX(fx, NULL);
    char tok[32];
    uint64_t id = demo_with_token(&fx, tok);
    REQUIRE(id != 0);
    /* antialiasing, a caret: a few pixels a little off pass */
    pg_fake_fill(fx.fake, id, 214, 58, 4, 4, 0xfcfcfcff);
    double before = pg_disclose_used(fx.b.disclose, fx.peer.uid);
    pg_fx_reply r;
    REQUIRE(guarded(&fx, "click", tok, "\"at\":{\"x\":220,\"y\":60}", &r) == PG_OK);
    const cJSON *u = cJSON_GetObjectItem(r.result, "unchanged");
    REQUIRE(u != NULL);
    const cJSON *g = cJSON_GetObjectItem(u, "region");
    CHECK_EQ_INT(cJSON_GetObjectItem(g, "x")->valueint, 204);
    CHECK_EQ_INT(cJSON_GetObjectItem(g, "y")->valueint, 44);
    CHECK_EQ_INT(cJSON_GetObjectItem(g, "w")->valueint, PG_GUARD_BOX);
    CHECK_EQ_INT(cJSON_GetObjectItem(g, "h")->valueint, PG_GUARD_BOX);
    CHECK(cJSON_GetObjectItem(u, "difference")->valuedouble == 0); /* 16 px of 1024, 3 levels off: rounds to 0 */
    CHECK(cJSON_GetObjectItem(u, "tolerance")->valuedouble == PG_GUARD_TOLERANCE);
    pg_fx_reply_fini(&r);
    /* checked at the screen point, then the click, then the display let go */
    REQUIRE(pg_fake_input_count(fx.fake) == 3);
    CHECK(input_is(&fx, 0, "guard %llu 320,160", id));
    CHECK(input_is(&fx, 1, "click %llu 220,60 left x1", id));
    CHECK(input_is(&fx, 2, "unguard", 0));
    CHECK(pg_disclose_used(fx.b.disclose, fx.peer.uid) - before >= pg_guard_bits() - 1e-9);
    char detail[256];
    last_detail(&fx, "click", "OK", detail);
    CHECK(strstr(detail, "if-unchanged passed") != NULL);
    pg_fx_fini(&fx);
}

PG_TEST(a_swapped_button_in_the_box_is_target_changed_with_nothing_sent_and_still_charged) {
    FX(fx, NULL);
    char tok[32];
    uint64_t id = demo_with_token(&fx, tok);
    REQUIRE(id != 0);
    pg_fake_fill(fx.fake, id, 200, 50, 40, 20, 0xc62828ff); /* "OK" became "Delete" */
    double before = pg_disclose_used(fx.b.disclose, fx.peer.uid);
    pg_fx_reply r;
    CHECK_EQ_INT(guarded(&fx, "click", tok, "\"at\":{\"x\":220,\"y\":60}", &r), PG_E_TARGET_CHANGED);
    char want[96];
    snprintf(want, sizeof want, "the target changed since %.8s...: ", tok); /* redacted, as tokens are in messages */
    CHECK(strstr(r.e.message, want) != NULL);
    CHECK(strstr(r.e.message, "differs") != NULL);
    CHECK(r.result == NULL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 0);
    CHECK(pg_disclose_used(fx.b.disclose, fx.peer.uid) - before >= pg_guard_bits() - 1e-9);
    char detail[256];
    last_detail(&fx, "click", "TARGET_CHANGED", detail);
    CHECK(strstr(detail, "if-unchanged refused") != NULL);
    /* a change outside the box does not matter */
    pg_fake_fill(fx.fake, id, 200, 50, 40, 20, 0x2e7d32ff);
    pg_fake_fill(fx.fake, id, 210, 55, 20, 10, 0xffffffff);
    pg_fake_fill(fx.fake, id, 0, 150, 100, 50, 0x000000ff);
    CHECK_EQ_INT(guarded(&fx, "click", tok, "\"at\":{\"x\":220,\"y\":60}", &r), PG_OK);
    pg_fx_reply_fini(&r);
    CHECK(input_is(&fx, 1, "click %llu 220,60 left x1", id));
    pg_fx_fini(&fx);
}

PG_TEST(a_window_raised_over_the_point_is_target_changed_with_nothing_sent) {
    FX(fx, NULL);
    char tok[32];
    uint64_t id = demo_with_token(&fx, tok);
    REQUIRE(id != 0);
    /* a dialog of the same colours raised under the pointer: the pixels match, the window does not */
    uint64_t dialog = pg_fake_add_window(fx.fake, "confirm", "Demo", getpid(), 300, 140, 60, 60, 0xf4f4f4ff);
    pg_fake_fill(fx.fake, dialog, 0, 10, 40, 20, 0x2e7d32ff);
    pg_fake_fill(fx.fake, dialog, 10, 15, 20, 10, 0xffffffff);
    pg_fx_reply r;
    CHECK_EQ_INT(guarded(&fx, "click", tok, "\"at\":{\"x\":220,\"y\":60}", &r), PG_E_TARGET_CHANGED);
    CHECK(strstr(r.e.message, "another window is on top at 220,60") != NULL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(guarded(&fx, "mouse_down", tok, "\"at\":{\"x\":220,\"y\":60}", &r), PG_E_TARGET_CHANGED);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 0);
    pg_fake_remove(fx.fake, dialog);
    CHECK_EQ_INT(guarded(&fx, "click", tok, "\"at\":{\"x\":220,\"y\":60}", &r), PG_OK);
    pg_fx_reply_fini(&r);
    CHECK(input_is(&fx, 1, "click %llu 220,60 left x1", id));
    pg_fx_fini(&fx);
}

PG_TEST(move_scroll_drag_and_mouse_down_are_checked_at_their_point) {
    FX(fx, NULL);
    char tok[32];
    uint64_t id = demo_with_token(&fx, tok);
    REQUIRE(id != 0);
    pg_fx_reply r;
    REQUIRE(guarded(&fx, "move", tok, "\"at\":{\"x\":220,\"y\":60}", &r) == PG_OK);
    pg_fx_reply_fini(&r);
    REQUIRE(guarded(&fx, "scroll", tok, "\"at\":{\"x\":10,\"y\":30},\"direction\":\"down\"", &r) == PG_OK);
    CHECK_EQ_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(r.result, "unchanged"), "region"), "x")
                     ->valueint,
                 0); /* clipped to the token */
    pg_fx_reply_fini(&r);
    REQUIRE(guarded(&fx, "drag", tok, "\"from\":{\"x\":210,\"y\":60},\"to\":{\"x\":50,\"y\":60}", &r) == PG_OK);
    pg_fx_reply_fini(&r);
    REQUIRE(guarded(&fx, "mouse_down", tok, "\"at\":{\"x\":220,\"y\":60}", &r) == PG_OK);
    pg_fx_reply_fini(&r);
    CHECK(input_is(&fx, 0, "guard %llu 320,160", id));
    CHECK(input_is(&fx, 3, "guard %llu 110,130", id));
    CHECK(input_is(&fx, 6, "guard %llu 310,160", id)); /* the drag: its press point */
    CHECK(input_is(&fx, 9, "guard %llu 320,160", id));
    CHECK(input_is(&fx, 11, "unguard", 0));
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 12);
    pg_fx_fini(&fx);
}

PG_TEST(if_unchanged_without_in_is_usage_for_every_guarded_op) {
    FX(fx, NULL);
    char tok[32];
    REQUIRE(demo_with_token(&fx, tok) != 0);
    static const char *const calls[][2] = {
        {"click", "{\"window\":\"demo\",\"at\":{\"x\":5,\"y\":5},\"if_unchanged\":true}"},
        {"move", "{\"window\":\"demo\",\"at\":{\"x\":5,\"y\":5},\"if_unchanged\":true}"},
        {"scroll", "{\"window\":\"demo\",\"direction\":\"down\",\"if_unchanged\":true}"},
        {"drag", "{\"window\":\"demo\",\"from\":{\"x\":5,\"y\":5},\"to\":{\"x\":9,\"y\":9},\"if_unchanged\":true}"},
        {"mouse_down", "{\"window\":\"demo\",\"at\":{\"x\":5,\"y\":5},\"if_unchanged\":true}"},
        {"type", "{\"window\":\"demo\",\"text\":\"x\",\"if_unchanged\":true}"},
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        pg_fx_reply r;
        CHECK_EQ_INT(pg_fx_call(&fx, calls[i][0], calls[i][1], NULL, 0, &r), PG_E_USAGE);
        CHECK(strstr(r.e.message, "--if-unchanged needs --in TOKEN") != NULL);
        pg_fx_reply_fini(&r);
    }
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 0);
    pg_fx_fini(&fx);
}

PG_TEST(a_downscaled_token_and_a_backend_without_the_check_are_refused_before_anything_is_sent) {
    FX(fx, NULL);
    char tok[32];
    uint64_t id = demo_with_token(&fx, tok);
    REQUIRE(id != 0);
    char args[128];
    snprintf(args, sizeof args, "{\"id\":%llu,\"max_size\":{\"w\":150,\"h\":100}}", (unsigned long long)id);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "snapshot", args, NULL, 0, &r) == PG_OK);
    char small[32];
    snprintf(small, sizeof small, "%s", pg_fx_str(&r, "token"));
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(guarded(&fx, "click", small, "\"at\":{\"x\":110,\"y\":30}", &r), PG_E_USAGE);
    CHECK(strstr(r.e.message, "downscaled") != NULL);
    pg_fx_reply_fini(&r);
    pg_platform_ops without = *fx.b.plat_ops;
    without.guard_begin = NULL;
    without.guard_end = NULL;
    const pg_platform_ops *had = fx.b.plat_ops;
    fx.b.plat_ops = &without;
    CHECK_EQ_INT(guarded(&fx, "click", tok, "\"at\":{\"x\":220,\"y\":60}", &r), PG_E_UNSUPPORTED);
    pg_fx_reply_fini(&r);
    fx.b.plat_ops = had;
    /* the backend failing its check (not a verdict) passes through, nothing sent */
    pg_fake_fail(fx.fake, "guard_begin", PG_E_TIMEOUT, 1);
    CHECK_EQ_INT(guarded(&fx, "click", tok, "\"at\":{\"x\":220,\"y\":60}", &r), PG_E_TIMEOUT);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), 0);
    pg_fx_fini(&fx);
}

/* The order form of tests/data as a window of this process (its pixels from the PNG). */
static uint64_t form_window(pg_fx *fx) {
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/form_tk_v1.png", PG_SOURCE_DIR);
    FILE *f = fopen(path, "rb");
    static uint8_t buf[1 << 20];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f) fclose(f);
    pg_img *img = NULL;
    pg_error e;
    pg_img_limits lim = pg_img_limits_default();
    uint64_t id = 0;
    if (n && pg_img_decode(buf, n, &lim, &img, &e) == PG_OK && img->stride == (size_t)img->width * 4) {
        id = pg_fake_add_window(fx->fake, "Order entry", "Pg_form.tcl", getpid(), 10, 10, img->width, img->height,
                                0xffffffff);
        pg_fake_set_pixels(fx->fake, id, img->px);
    }
    pg_img_free(img);
    return id;
}

/* type --control N --in TOKEN --if-unchanged checks the click that focuses
 * the control: a dialog raised over the entry stops the text before any
 * of it goes out. */
PG_TEST(type_checks_the_click_on_its_control_and_types_nothing_when_it_changed) {
    FX(fx, "{\"version\":1,\"clients\":{\"users\":[\"*\"]},\"expose_pixels\":\"allow\"}");
    uint64_t id = form_window(&fx);
    REQUIRE(id != 0);
    char tok[32], args[200];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    snprintf(args, sizeof args, "{\"token\":\"%s\"}", tok);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "layout", args, NULL, 0, &r) == PG_OK);
    const cJSON *ctl, *entry = NULL;
    cJSON_ArrayForEach(ctl, cJSON_GetObjectItem(r.result, "controls")) {
        const cJSON *k = cJSON_GetObjectItem(ctl, "kind");
        if (!entry && cJSON_IsString(k) && !strcmp(k->valuestring, "entry")) entry = ctl;
    }
    REQUIRE(entry != NULL);
    int n = cJSON_GetObjectItem(entry, "n")->valueint;
    const cJSON *b = cJSON_GetObjectItem(entry, "box");
    int ex = cJSON_GetObjectItem(b, "x")->valueint + cJSON_GetObjectItem(b, "w")->valueint / 2;
    int ey = cJSON_GetObjectItem(b, "y")->valueint + cJSON_GetObjectItem(b, "h")->valueint / 2;
    pg_fx_reply_fini(&r);
    size_t before = pg_fake_input_count(fx.fake);
    snprintf(args, sizeof args, "{\"in\":\"%s\",\"control\":%d,\"text\":\"zoe\",\"if_unchanged\":true}", tok, n);
    REQUIRE(pg_fx_call(&fx, "type", args, NULL, 0, &r) == PG_OK);
    CHECK(cJSON_GetObjectItem(r.result, "unchanged") != NULL);
    pg_fx_reply_fini(&r);
    REQUIRE(pg_fake_input_count(fx.fake) == before + 4);
    char want[96];
    snprintf(want, sizeof want, "click %llu %d,%d left x1", (unsigned long long)id, ex, ey);
    CHECK(!strncmp(pg_fake_input(fx.fake, before), "guard", 5));
    CHECK_STR(pg_fake_input(fx.fake, before + 1), want);
    CHECK(input_is(&fx, before + 2, "unguard", 0));
    CHECK(strstr(pg_fake_input(fx.fake, before + 3), "zoe") != NULL);
    /* a dialog over the entry */
    pg_fake_add_window(fx.fake, "Confirm", "Pg_form.tcl", getpid(), 10 + ex - 20, 10 + ey - 10, 60, 30, 0xffffffff);
    CHECK_EQ_INT(pg_fx_call(&fx, "type", args, NULL, 0, &r), PG_E_TARGET_CHANGED);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fake_input_count(fx.fake), before + 4);
    pg_fx_fini(&fx);
}

/* ---- attack: questioning an unseen token through the verdict ---- */

/* The agent's own window shows seeded noise it may not see (analyze-only);
 * it has a token of it. Its program can paint, so it paints a grey patch
 * (one of 8 levels) over each 8x8 cell of the box around 32,32 in turn and
 * asks a guarded move there: a pass says the patch is close enough to what
 * the token has under it. Its guess of each cell is the mean of the levels
 * that passed. Every verdict is charged to the token's tiles in the box and
 * the live ones, so the tiles' cap ends it; what it learned is nothing
 * like the pixels. */
PG_TEST(the_verdict_cannot_rebuild_an_unseen_token_and_stops_at_the_budget) {
    FX(fx, NULL);
    uint8_t *truth = NULL;
    const uint32_t W = 64, H = 64;
    uint64_t id = pg_fx_noise_window(&fx, W, H, &truth);
    char tok[32];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    double guess_sum[16] = {0};
    int passes[16] = {0}, answered = 0;
    bool refused = false;
    for (int round = 0; round < 64 && !refused; round++)
        for (int cell = 0; cell < 16 && !refused; cell++)
            for (int level = 0; level < 8 && !refused; level++) {
                pg_fake_set_pixels(fx.fake, id, truth); /* the program repaints, then paints the patch */
                uint8_t v = (uint8_t)(level * 32 + (round % 32));
                uint32_t grey = ((uint32_t)v << 24) | ((uint32_t)v << 16) | ((uint32_t)v << 8) | 0xffu;
                pg_fake_fill(fx.fake, id, 16 + (cell % 4) * 8, 16 + (cell / 4) * 8, 8, 8, grey);
                pg_fx_reply r;
                pg_err rc = guarded(&fx, "move", tok, "\"at\":{\"x\":32,\"y\":32}", &r);
                refused = rc == PG_E_POLICY;
                if (rc == PG_OK) passes[cell]++, guess_sum[cell] += v;
                if (rc == PG_OK || rc == PG_E_TARGET_CHANGED) answered++;
                pg_fx_reply_fini(&r);
            }
    CHECK(refused);
    CHECK(answered > 10);
    /* no tile of the token's box was charged past its cap */
    pg_disclose_tile *tiles = NULL;
    size_t n = 0, cap = 0;
    pg_img_rect box = {16, 16, 32, 32};
    pg_error e;
    REQUIRE(pg_disclose_tiles(fx.b.disclose, truth, W, H, (size_t)W * 4, &box, NULL, &tiles, &n, &cap, &e) == PG_OK);
    REQUIRE(n == 4);
    const pg_policy_view *view = pg_policy_view_for(fx.b.policy, "agent");
    for (size_t i = 0; view && i < n; i++) {
        double booked = pg_disclose_tile_booked(fx.b.disclose, view, fx.peer.uid, &tiles[i]);
        CHECK(booked > 0);
        CHECK(booked <= view->bits_per_tile_hour + 1e-6);
    }
    free(tiles);
    double err = 0;
    for (uint32_t y = 16; y < 48; y++)
        for (uint32_t x = 16; x < 48; x++) {
            int cell = (int)((y - 16) / 8 * 4 + (x - 16) / 8);
            double g = passes[cell] ? guess_sum[cell] / passes[cell] : 128;
            for (int k = 0; k < 3; k++) err += fabs(g - truth[((size_t)y * W + x) * 4 + k]);
        }
    err /= 32.0 * 32 * 3;
    fprintf(stderr, "if-unchanged attack: %d verdicts before the refusal, %.0f bits charged, mean error %.1f levels\n",
            answered, pg_disclose_used(fx.b.disclose, fx.peer.uid), err);
    CHECK(err > 50); /* noise: a pass says next to nothing about any pixel */
    CHECK(pg_fx_audit_count(&fx, "move", "POLICY_REFUSED") >= 1);
    free(truth);
    pg_fx_fini(&fx);
}
