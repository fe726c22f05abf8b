/* SPDX-License-Identifier: MIT */
/* frames and motion through pg_dispatch against the fake desktop: a frame
 * series is one token and one audited capture under the deny rules of every
 * frame; motion tells a moving series from a static one and the same motion
 * at another phase, exactly for the agent's own pixels and on a logarithmic
 * scale, charged, for protected ones; an attack with references of the
 * agent's choosing learns nothing more and stops at the budget. */
#include <math.h>
#include <unistd.h>

#include "pg_broker_fixture.h"
#include "pg_disclose.h"
#include "pg_img_codec.h"
#include "pg_test.h"
#include "test_engine_util.h"

#define ALLOW_POLICY "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"expose_pixels\":\"allow\"}"
#define SMALL_BUDGET_POLICY                                                                                \
    "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"expose_pixels\":\"analyze-only\","             \
    "\"disclosure\":{\"bits_per_tile_hour\":1000,\"bits_per_user_hour\":4000}}"

#define FX(fx, policy) \
    pg_fx fx;          \
    REQUIRE(pg_fx_init(&fx, policy) == 0)

enum { FW = 64, FH = 48, LOOP = 10, PG_MOTION_SIG = 32 };
/* A square that speeds up and slows down: a signature with a temporal profile. */
static const int pos[LOOP] = {0, 2, 6, 12, 20, 30, 20, 12, 6, 2};

static void draw(pg_img *img, int x) {
    tu_fill(img, 240, 240, 240, 255);
    tu_rect(img, (uint32_t)(4 + x), 18, 12, 12, 30, 90, 200);
}

/* A window of the agent's that animates (a loop of LOOP frames) or not. */
static uint64_t window(pg_fx *fx, const char *title, bool animated) {
    uint64_t id = pg_fake_add_window(fx->fake, title, "Demo", getpid(), 10, 10, FW, FH, 0xffffffff);
    pg_img *img;
    if (pg_img_new(&img, FW, FH, NULL)) return 0;
    draw(img, pos[0]);
    pg_fake_set_pixels(fx->fake, id, img->px);
    for (int k = 1; animated && k < LOOP; k++) {
        draw(img, pos[k]);
        pg_fake_add_frame(fx->fake, id, img->px, true);
    }
    pg_img_free(img);
    return id;
}

static pg_err frames(pg_fx *fx, uint64_t id, int count, const char *extra, char tok[32], pg_fx_reply *keep) {
    char args[256];
    snprintf(args, sizeof args, "{\"id\":%llu,\"count\":%d,\"interval\":0%s%s}", (unsigned long long)id, count,
             extra ? "," : "", extra ? extra : "");
    pg_fx_reply r;
    pg_err rc = pg_fx_call(fx, "frames", args, NULL, 0, &r);
    if (!rc && tok) snprintf(tok, 32, "%s", pg_fx_str(&r, "token"));
    if (keep) *keep = r;
    else pg_fx_reply_fini(&r);
    return rc;
}

/* The reply as the client reads it: printed and parsed again (the engine
 * writes fixed-decimal numbers as raw JSON text). */
static void reparse(pg_fx_reply *r) {
    cJSON **j = r->result ? &r->result : &r->details;
    if (!*j) return;
    char *t = cJSON_PrintUnformatted(*j);
    cJSON_Delete(*j);
    *j = cJSON_Parse(t);
    free(t);
}

/* motion; a NULL token side sends the strip as a file with --file-frames n. */
static pg_err motion(pg_fx *fx, const char *ref, const char *cand, const pg_img *strip, int n, pg_fx_reply *r) {
    pg_blob att = {0};
    char a[64], b[64], args[256];
    if (ref) snprintf(a, sizeof a, "{\"token\":\"%s\"}", ref);
    else snprintf(a, sizeof a, "{\"attachment\":0}");
    if (cand) snprintf(b, sizeof b, "{\"token\":\"%s\"}", cand);
    else snprintf(b, sizeof b, "{\"attachment\":0}");
    if (strip && pg_img_encode_png(strip, NULL, &att.data, &att.len, NULL)) return PG_E_INTERNAL;
    snprintf(args, sizeof args, "{\"ref\":%s,\"cand\":%s%s}", a, b, strip ? ",\"file_frames\":" : "");
    if (strip) snprintf(args + strlen(args) - 1, sizeof args - strlen(args) + 1, "%d}", n);
    pg_err rc = pg_fx_call(fx, "motion", args, &att, strip ? 1 : 0, r);
    free(att.data);
    reparse(r);
    return rc;
}

/* The animation as a strip of n frames starting at phase k0 (the agent's own file). */
static pg_img *strip_of(int n, int k0) {
    pg_img *s, *f;
    if (pg_img_new(&s, FW, (uint32_t)(FH * n), NULL) || pg_img_new(&f, FW, FH, NULL)) return NULL;
    for (int i = 0; i < n; i++) {
        draw(f, pos[(k0 + i) % LOOP]);
        memcpy(pg_img_row(s, (uint32_t)(i * FH)), f->px, (size_t)FW * FH * 4);
    }
    pg_img_free(f);
    return s;
}

PG_TEST(frames_stacks_the_series_into_one_token_and_audits_one_capture) {
    FX(fx, NULL);
    uint64_t id = window(&fx, "anim", true);
    unsigned before = pg_fake_captures(fx.fake);
    pg_fx_reply r;
    REQUIRE(frames(&fx, id, 6, NULL, NULL, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "frames"), 6);
    CHECK_EQ_INT(pg_fx_num(&r, "frame_width"), FW);
    CHECK_EQ_INT(pg_fx_num(&r, "frame_height"), FH);
    CHECK_EQ_INT(pg_fx_num(&r, "height"), 6 * FH);
    CHECK(!strncmp(pg_fx_str(&r, "token"), "cap:", 4));
    CHECK_STR(pg_fx_str(&r, "digest_kind"), "keyed");
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fake_captures(fx.fake) - before, 6);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "frames", "OK"), 1); /* one series, one record */
    pg_fx_fini(&fx);
}

struct turn {
    uint64_t id;
    unsigned at, seen;
};
static void turn_private(pg_fake *f, void *ctx) {
    struct turn *t = ctx;
    if (++t->seen == t->at) pg_fake_set_title(f, t->id, "secret vault");
}

PG_TEST(frames_checks_the_deny_rules_on_every_frame_and_keeps_nothing_when_one_fails) {
    FX(fx, NULL); /* the fixture denies "^secret vault$" */
    uint64_t id = window(&fx, "anim", true);
    struct turn t = {id, 3, 0};
    pg_fake_on_capture(fx.fake, turn_private, &t);
    char tok[32] = "";
    CHECK_EQ_INT(frames(&fx, id, 5, NULL, tok, NULL), PG_E_POLICY);
    pg_fake_on_capture(fx.fake, NULL, NULL);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "frames", "POLICY_REFUSED"), 1);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "frames", "OK"), 0);
    uint64_t bytes = 0, mem = 0;
    unsigned count = 0;
    pg_tok_usage(fx.b.tokens, &bytes, &mem, &count);
    CHECK_EQ_INT(count, 0); /* no token of the frames before */
    pg_fx_fini(&fx);
}

PG_TEST(frames_of_the_screen_black_out_denied_windows_in_every_frame) {
    FX(fx, "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"expose_pixels\":\"allow\","
           "\"capture\":{\"deny_windows\":[\"^secret vault$\"]}}");
    pg_fake_set_screen(fx.fake, 0, 0, 160, 120);
    window(&fx, "anim", true);
    pg_fake_add_window(fx.fake, "secret vault", "Vault", getpid(), 90, 60, 40, 30, 0xff0000ff);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "frames", "{\"screen\":true,\"count\":3,\"interval\":0}", NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "redacted_windows"), 1);
    char tok[32];
    snprintf(tok, sizeof tok, "%s", pg_fx_str(&r, "token"));
    pg_fx_reply_fini(&r);
    char args[64];
    snprintf(args, sizeof args, "{\"token\":\"%s\"}", tok);
    REQUIRE(pg_fx_call(&fx, "release", args, NULL, 0, &r) == PG_OK);
    pg_img *img = NULL;
    REQUIRE(pg_img_decode(r.reply.data, r.reply.len, NULL, &img, NULL) == PG_OK);
    CHECK_EQ_INT(img->height, 3 * 120);
    for (uint32_t f = 0; f < 3; f++) { /* the vault's pixels are black in each frame, never red */
        const uint8_t *p = pg_img_row(img, f * 120 + 70) + 4 * 100;
        CHECK(p[0] == 0 && p[1] == 0 && p[2] == 0);
    }
    pg_img_free(img);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(frames_refuses_a_long_series_and_one_over_the_image_limit) {
    FX(fx, "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"images\":{\"max_pixels\":20000}}");
    uint64_t id = window(&fx, "anim", true);
    char args[96];
    snprintf(args, sizeof args, "{\"id\":%llu,\"count\":100,\"interval\":1000}", (unsigned long long)id);
    pg_fx_reply r;
    CHECK_EQ_INT(pg_fx_call(&fx, "frames", args, NULL, 0, &r), PG_E_USAGE); /* 100 s */
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(frames(&fx, id, 8, NULL, NULL, NULL), PG_E_BADINPUT); /* 8 x 64 x 48 > 20000 pixels */
    CHECK_EQ_INT(frames(&fx, id, 6, "\"region\":{\"x\":0,\"y\":0,\"w\":32,\"h\":32}", NULL, NULL), PG_OK);
    pg_fx_fini(&fx);
}

PG_TEST(motion_of_an_animated_window_against_a_static_one_scores_0_and_has_no_correlation) {
    FX(fx, ALLOW_POLICY);
    char moving[32], still[32];
    REQUIRE(frames(&fx, window(&fx, "anim", true), 12, NULL, moving, NULL) == PG_OK);
    REQUIRE(frames(&fx, window(&fx, "still", false), 12, NULL, still, NULL) == PG_OK);
    pg_fx_reply r;
    REQUIRE(motion(&fx, moving, still, NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "motion_score"), 0);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r.result, "ref_moving")));
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(r.result, "cand_moving")));
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(r.result, "temporal_corr")));
    CHECK(pg_fx_str(&r, "temporal_corr_note") != NULL);
    CHECK(!strncmp(pg_fx_str(&r, "plot_token"), "cap:", 4));
    CHECK(pg_fx_str(&r, "resolution") == NULL); /* allow: exact */
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "motion", "OK"), 1);
    pg_fx_fini(&fx);
}

PG_TEST(motion_of_the_same_animation_at_another_phase_scores_high) {
    FX(fx, ALLOW_POLICY);
    uint64_t id = window(&fx, "anim", true);
    char a[32], b[32];
    REQUIRE(frames(&fx, id, 12, NULL, a, NULL) == PG_OK); /* phases 0..11 */
    REQUIRE(frames(&fx, id, 12, NULL, b, NULL) == PG_OK); /* phases 2..13: the loop goes on */
    pg_fx_reply r;
    REQUIRE(motion(&fx, a, b, NULL, 0, &r) == PG_OK);
    CHECK(pg_fx_num(&r, "motion_score") > 80);
    const cJSON *tc = cJSON_GetObjectItem(r.result, "temporal_corr");
    CHECK(cJSON_IsNumber(tc) && tc->valuedouble < 0.99); /* phase-sensitive: not the same curve */
    pg_fx_reply_fini(&r);
    REQUIRE(motion(&fx, a, a, NULL, 0, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "motion_score"), 100);
    CHECK(fabs(pg_fx_num(&r, "temporal_corr") - 1) < 1e-9);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(motion_of_files_needs_their_frame_count_and_equal_frames) {
    FX(fx, NULL);
    pg_img *s = strip_of(10, 0);
    REQUIRE(s);
    pg_fx_reply r;
    REQUIRE(motion(&fx, NULL, NULL, s, 10, &r) == PG_OK); /* the agent's own file against itself: exact */
    CHECK_EQ_INT(pg_fx_num(&r, "motion_score"), 100);
    CHECK(pg_fx_str(&r, "resolution") == NULL);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(motion(&fx, NULL, NULL, s, 7, &r), PG_E_BADINPUT); /* 480 rows are not 7 equal frames */
    pg_fx_reply_fini(&r);
    char one[32];
    REQUIRE(pg_fx_snapshot(&fx, window(&fx, "still", false), one) == 0);
    CHECK_EQ_INT(motion(&fx, one, one, NULL, 0, &r), PG_E_USAGE); /* a snapshot is not a series */
    pg_fx_reply_fini(&r);
    pg_img_free(s);
    pg_fx_fini(&fx);
}

/* 8 * log2(v / 1e-4) is a whole number for a value on the disclosure scale. */
static bool on_log_scale(double v) {
    if (v == 0) return true;
    double k = 8 * log2(v / PG_DISCLOSE_LOG_FLOOR);
    return fabs(k - floor(k + 0.5)) < 0.02;
}

PG_TEST(motion_of_a_protected_series_is_on_the_log_scale_and_charged_per_value) {
    FX(fx, NULL);
    char tok[32];
    REQUIRE(frames(&fx, window(&fx, "anim", true), 12, NULL, tok, NULL) == PG_OK);
    pg_img *s = strip_of(12, 3);
    REQUIRE(s);
    double before = pg_disclose_used(fx.b.disclose, fx.peer.uid);
    pg_fx_reply r;
    REQUIRE(motion(&fx, NULL, tok, s, 12, &r) == PG_OK); /* REF: the agent's file; CAND: protected */
    CHECK(pg_fx_str(&r, "resolution") != NULL);
    const cJSON *v;
    cJSON_ArrayForEach(v, cJSON_GetObjectItem(r.result, "cand_signature")) {
        if (v->valuedouble >= 1e-3) CHECK(on_log_scale(v->valuedouble));
    }
    double want = 11 * log2(109.0); /* eleven protected values, none of the agent's */
    CHECK(fabs(pg_fx_num(&r, "disclosed_bits") - want) < 0.1);
    double plot = pg_fx_str(&r, "plot_token") ? 1 : 0; /* the plot token's keyed digest */
    CHECK(fabs(pg_disclose_used(fx.b.disclose, fx.peer.uid) - before - want - plot) < 1e-6);
    CHECK(pg_fx_num(&r, "motion_score") > 80); /* still useful */
    pg_fx_reply_fini(&r);
    pg_img_free(s);
    pg_fx_fini(&fx);
}

PG_TEST(motion_about_frames_smaller_than_min_area_is_refused) {
    FX(fx, NULL);
    char tok[32];
    REQUIRE(frames(&fx, window(&fx, "anim", true), 6, "\"region\":{\"x\":4,\"y\":18,\"w\":20,\"h\":12}", tok, NULL) ==
            PG_OK);
    pg_fx_reply r;
    CHECK_EQ_INT(motion(&fx, tok, tok, NULL, 0, &r), PG_E_POLICY); /* 240-pixel frames */
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "motion", "POLICY_REFUSED"), 1);
    pg_fx_fini(&fx);
}

/* Energies, their ratio and the correlation are what the printed signatures
 * give (to their printing precision): nothing in the answer is finer. */
static bool follows_from_signatures(const pg_fx_reply *r) {
    double a[PG_MOTION_SIG], b[PG_MOTION_SIG];
    size_t na = 0, nb = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, cJSON_GetObjectItem(r->result, "ref_signature")) if (na < PG_MOTION_SIG) a[na++] = v->valuedouble;
    cJSON_ArrayForEach(v, cJSON_GetObjectItem(r->result, "cand_signature")) if (nb < PG_MOTION_SIG) b[nb++] = v->valuedouble;
    double ma = 0, mb = 0;
    for (size_t i = 0; i < na; i++) ma += a[i] / (double)na;
    for (size_t i = 0; i < nb; i++) mb += b[i] / (double)nb;
    if (fabs(ma - pg_fx_num(r, "ref_energy")) > 2e-6 || fabs(mb - pg_fx_num(r, "cand_energy")) > 2e-6) return false;
    size_t n = na < nb ? na : nb;
    double sab = 0, saa = 0, sbb = 0, ca = 0, cb = 0;
    for (size_t i = 0; i < n; i++) ca += a[i] / (double)n, cb += b[i] / (double)n;
    for (size_t i = 0; i < n; i++) sab += (a[i] - ca) * (b[i] - cb), saa += (a[i] - ca) * (a[i] - ca), sbb += (b[i] - cb) * (b[i] - cb);
    const cJSON *tc = cJSON_GetObjectItem(r->result, "temporal_corr");
    return cJSON_IsNumber(tc) && saa > 0 && sbb > 0 && fabs(sab / sqrt(saa * sbb) - tc->valuedouble) < 2e-3;
}

/* The attack: the agent wants the protected frames and tries references of
 * its own making (other phases, other speeds) against them. The protected
 * side is reported the same whatever the reference - only its own signature
 * on the log scale, from which every other number follows - so a reference
 * probes nothing; each answer is charged, and the budget ends the attempt. */
PG_TEST(attack_agent_references_against_a_protected_series_learn_only_its_coarse_signature_and_stop_at_the_budget) {
    FX(fx, SMALL_BUDGET_POLICY);
    char tok[32];
    REQUIRE(frames(&fx, window(&fx, "anim", true), 12, NULL, tok, NULL) == PG_OK);
    char *first = NULL;
    int answered = 0, refused = 0, differ = 0;
    double told = 0;
    for (int q = 0; q < 100 && !refused; q++) {
        pg_img *s = strip_of(12, q % LOOP);
        REQUIRE(s);
        pg_fx_reply r;
        pg_err rc = motion(&fx, NULL, tok, s, 12, &r);
        pg_img_free(s);
        if (rc == PG_E_POLICY) {
            refused = 1;
        } else {
            REQUIRE(rc == PG_OK);
            answered++;
            told += pg_fx_num(&r, "disclosed_bits");
            CHECK(follows_from_signatures(&r));
            char *sig = cJSON_PrintUnformatted(cJSON_GetObjectItem(r.result, "cand_signature"));
            if (!first) first = sig;
            else differ += strcmp(first, sig) != 0, free(sig);
        }
        pg_fx_reply_fini(&r);
    }
    CHECK(refused);
    CHECK(answered > 1);
    CHECK_EQ_INT(differ, 0); /* the reference never changes what is told about the protected series */
    /* What was charged stays within the user's budget; what was told may be
     * more: a flat frame's tiles hold only their colour, and once 25 bits are
     * booked on one, answers about it cost nothing more (pg_disclose.h). */
    CHECK(pg_disclose_used(fx.b.disclose, fx.peer.uid) <= 4000);
    CHECK(told > 0);
    CHECK(pg_fx_audit_count(&fx, "motion", "POLICY_REFUSED") >= 1);
    free(first);
    pg_fx_fini(&fx);
}
