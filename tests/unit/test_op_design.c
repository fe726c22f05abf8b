/* SPDX-License-Identifier: MIT */
/* compare (design fidelity) through pg_dispatch against the fake desktop:
 * exact answers about the agent's own files and tokens under allow, bounded
 * and charged answers about protected tokens, the options, and an attack
 * that tries to learn a protected token's pixels with references of the
 * agent's choosing. */
#include <math.h>
#include <unistd.h>

#include "pg_broker_fixture.h"
#include "pg_design.h"
#include "pg_disclose.h"
#include "pg_img_codec.h"
#include "pg_test.h"
#include "test_engine_ui.h"

#define ALLOW_POLICY "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"expose_pixels\":\"allow\"}"
/* analyze-only with a small budget, so that an attack runs out of it quickly */
#define SMALL_BUDGET_POLICY                                                                                \
    "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"expose_pixels\":\"analyze-only\","             \
    "\"disclosure\":{\"bits_per_tile_hour\":3000,\"bits_per_user_hour\":6000}}"

#define FX(fx, policy) \
    pg_fx fx;          \
    REQUIRE(pg_fx_init(&fx, policy) == 0)

static pg_blob png_of(const pg_img *img) {
    pg_blob b = {0};
    if (pg_img_encode_png(img, NULL, &b.data, &b.len, NULL)) b = (pg_blob){0};
    return b;
}

/* A window of the agent's own program showing img (768 px wide UIs). */
static uint64_t window_of(pg_fx *fx, const char *title, const pg_img *img) {
    uint64_t id = pg_fake_add_window(fx->fake, title, "Demo", getpid(), 0, 0, img->width, img->height, 0xffffffff);
    pg_fake_set_pixels(fx->fake, id, img->px);
    return id;
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

/* compare with REF and CAND each a token (tok) or the given image as a file. */
static pg_err compare(pg_fx *fx, const char *ref_tok, const pg_img *ref_img, const char *cand_tok,
                      const pg_img *cand_img, const char *extra, pg_fx_reply *r) {
    pg_blob att[2];
    size_t n = 0;
    char a[64], b[64], args[1024];
    if (ref_tok) snprintf(a, sizeof a, "{\"token\":\"%s\"}", ref_tok);
    else att[n] = png_of(ref_img), snprintf(a, sizeof a, "{\"attachment\":%zu}", n), n++;
    if (cand_tok) snprintf(b, sizeof b, "{\"token\":\"%s\"}", cand_tok);
    else att[n] = png_of(cand_img), snprintf(b, sizeof b, "{\"attachment\":%zu}", n), n++;
    snprintf(args, sizeof args, "{\"ref\":%s,\"cand\":%s%s%s}", a, b, extra ? "," : "", extra ? extra : "");
    pg_err rc = pg_fx_call(fx, "compare", args, att, n, r);
    for (size_t i = 0; i < n; i++) free(att[i].data);
    reparse(r);
    return rc;
}

static const cJSON *sub(const pg_fx_reply *r, const char *dim) {
    return cJSON_GetObjectItem(cJSON_GetObjectItem(r->result, "subscores"), dim);
}

static double score_of(const pg_fx_reply *r, const char *dim) {
    const cJSON *s = cJSON_GetObjectItem(sub(r, dim), "score");
    return cJSON_IsNumber(s) ? s->valuedouble : -1;
}

static const cJSON *finding(const pg_fx_reply *r, const char *type) {
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(r->result, "cv_findings")) {
        if (!strcmp(cJSON_GetObjectItem(f, "type")->valuestring, type)) return f;
    }
    return NULL;
}

/* The reference UI and a candidate with the accent recoloured and the third card gone. */
static pg_img *ui_variant(int recolour, unsigned hide) {
    ui_spec s;
    ui_default(&s);
    if (recolour) memcpy(s.accent, (uint8_t[3]){200, 60, 60}, 3);
    s.hide = hide;
    return ui_new(&s);
}

static int hex_channel(const char *h, int i) { return (int)strtol((char[3]){h[1 + 2 * i], h[2 + 2 * i], 0}, NULL, 16); }

static bool hex_near(const char *h, int r, int g, int b, int tol) {
    if (!h || strlen(h) != 7) return false;
    int want[3] = {r, g, b};
    for (int i = 0; i < 3; i++)
        if (abs(hex_channel(h, i) - want[i]) > tol) return false;
    return true;
}

/* A hex colour with each channel rounded to the nearest multiple of 17 (0x11). */
static void nibble_of(const char *h, char out[8]) {
    int v[3];
    for (int i = 0; i < 3; i++) v[i] = (hex_channel(h, i) + 8) / 17 * 17;
    snprintf(out, 8, "#%02x%02x%02x", v[0], v[1], v[2]);
}

static bool is_nibble_hex(const char *h) { /* #rrggbb with each channel 00, 11, .. ff */
    return h && strlen(h) == 7 && h[1] == h[2] && h[3] == h[4] && h[5] == h[6];
}

PG_TEST(compare_of_two_files_is_exact_and_a_design_equals_itself) {
    FX(fx, NULL); /* analyze-only: files are the agent's own all the same */
    pg_img *a = ui_variant(0, 0);
    REQUIRE(a);
    pg_fx_reply r;
    REQUIRE(compare(&fx, NULL, a, NULL, a, NULL, &r) == PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "overall"), 100);
    CHECK_EQ_INT(score_of(&r, "layout"), 100);
    CHECK_EQ_INT(score_of(&r, "color"), 100);
    CHECK(pg_fx_str(&r, "resolution") == NULL); /* exact */
    const cJSON *v = cJSON_GetObjectItem(r.result, "visuals");
    static const char *const names[] = {"overlay", "heatmap", "regions", "side_by_side"};
    for (int i = 0; i < 4; i++) {
        const cJSON *t = cJSON_GetObjectItem(v, names[i]);
        CHECK(cJSON_IsString(t) && !strncmp(t->valuestring, "cap:", 4)); /* images are tokens, not pixels */
    }
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "compare", "OK"), 1);
    pg_img_free(a);
    pg_fx_fini(&fx);
}

PG_TEST(compare_names_the_recoloured_hex_and_the_missing_block_box_exactly_for_files) {
    FX(fx, NULL);
    pg_img *a = ui_variant(0, 0), *b = ui_variant(1, UI_CARD3);
    REQUIRE(a && b);
    pg_fx_reply r;
    REQUIRE(compare(&fx, NULL, a, NULL, b, NULL, &r) == PG_OK);
    CHECK(pg_fx_num(&r, "overall") < 90);
    const cJSON *shift = finding(&r, "color_shift");
    REQUIRE(shift != NULL);
    /* the cluster means: the accent colours, a little mixed with the text on them */
    CHECK(hex_near(cJSON_GetObjectItem(shift, "candidate_hex")->valuestring, 200, 60, 60, 6));
    CHECK(hex_near(cJSON_GetObjectItem(shift, "reference_hex")->valuestring, 40, 120, 220, 6));
    const cJSON *miss = finding(&r, "missing_region");
    REQUIRE(miss != NULL);
    const cJSON *box = cJSON_GetObjectItem(miss, "box");
    CHECK_EQ_INT(cJSON_GetArrayItem(box, 0)->valueint, 392); /* the third card: 392,240 344x140 */
    CHECK_EQ_INT(cJSON_GetArrayItem(box, 1)->valueint, 240);
    pg_fx_reply_fini(&r);
    pg_img_free(a);
    pg_img_free(b);
    pg_fx_fini(&fx);
}

PG_TEST(compare_of_a_token_under_allow_is_exactly_the_files_answer) {
    FX(fx, ALLOW_POLICY);
    pg_img *a = ui_variant(0, 0), *b = ui_variant(1, UI_CARD3);
    REQUIRE(a && b);
    char tok[32];
    REQUIRE(pg_fx_snapshot(&fx, window_of(&fx, "cand", b), tok) == 0);
    pg_fx_reply rt, rf;
    REQUIRE(compare(&fx, NULL, a, tok, NULL, NULL, &rt) == PG_OK);
    REQUIRE(compare(&fx, NULL, a, NULL, b, NULL, &rf) == PG_OK);
    cJSON *st = cJSON_GetObjectItem(rt.result, "subscores"), *sf = cJSON_GetObjectItem(rf.result, "subscores");
    char *jt = cJSON_PrintUnformatted(st), *jf = cJSON_PrintUnformatted(sf);
    CHECK_STR(jt, jf);
    CHECK(pg_fx_str(&rt, "resolution") == NULL);
    free(jt), free(jf);
    pg_fx_reply_fini(&rt);
    pg_fx_reply_fini(&rf);
    pg_img_free(a);
    pg_img_free(b);
    pg_fx_fini(&fx);
}

PG_TEST(compare_of_a_protected_token_is_quantised_and_charged_and_the_agents_file_stays_exact) {
    FX(fx, NULL);
    pg_img *a = ui_variant(0, 0), *b = ui_variant(1, UI_CARD3);
    REQUIRE(a && b);
    char tok[32];
    REQUIRE(pg_fx_snapshot(&fx, window_of(&fx, "cand", b), tok) == 0);
    pg_fx_reply x; /* the same comparison of the agent's own files: exact */
    REQUIRE(compare(&fx, NULL, a, NULL, b, NULL, &x) == PG_OK);
    double before = pg_disclose_used(fx.b.disclose, fx.peer.uid);
    pg_fx_reply r;
    REQUIRE(compare(&fx, NULL, a, tok, NULL, NULL, &r) == PG_OK);
    CHECK(pg_fx_str(&r, "resolution") != NULL);
    CHECK(pg_fx_num(&r, "overall") > 50 && pg_fx_num(&r, "overall") < 100); /* from the whole-point scores */
    double wsum = 0;
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(r.result, "effective_weights")) wsum += w->valuedouble;
    CHECK(fabs(wsum - 1) < 1e-3);
    for (int d = 0; d < PG_DESIGN_NDIM; d++) {
        double s = score_of(&r, pg_design_dim_name((pg_design_dim_id)d));
        CHECK(s == -1 || s == floor(s)); /* whole points */
    }
    const cJSON *m = cJSON_GetObjectItem(sub(&r, "color"), "measurements");
    const cJSON *mx = cJSON_GetObjectItem(sub(&x, "color"), "measurements");
    const cJSON *cp = cJSON_GetObjectItem(m, "candidate_palette"), *cpx = cJSON_GetObjectItem(mx, "candidate_palette");
    REQUIRE(cJSON_GetArraySize(cp) == cJSON_GetArraySize(cpx) && cJSON_GetArraySize(cp) > 0);
    for (int i = 0; i < cJSON_GetArraySize(cp); i++) { /* protected: 4 bits a channel */
        char want[8];
        nibble_of(cJSON_GetObjectItem(cJSON_GetArrayItem(cpx, i), "hex")->valuestring, want);
        CHECK_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(cp, i), "hex")->valuestring, want);
    }
    char *rp = cJSON_PrintUnformatted(cJSON_GetObjectItem(m, "reference_palette"));
    char *rpx = cJSON_PrintUnformatted(cJSON_GetObjectItem(mx, "reference_palette"));
    CHECK_STR(rp, rpx); /* the agent's own file: exact */
    free(rp), free(rpx);
    const cJSON *shift = finding(&r, "color_shift"), *shiftx = finding(&x, "color_shift");
    REQUIRE(shift && shiftx);
    char want[8];
    nibble_of(cJSON_GetObjectItem(shiftx, "candidate_hex")->valuestring, want);
    CHECK_STR(cJSON_GetObjectItem(shift, "candidate_hex")->valuestring, want);
    CHECK_STR(cJSON_GetObjectItem(shift, "reference_hex")->valuestring,
              cJSON_GetObjectItem(shiftx, "reference_hex")->valuestring);
    const char *exact_cand = cJSON_GetObjectItem(shiftx, "candidate_hex")->valuestring;
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(r.result, "cv_findings")) {
        const cJSON *box = cJSON_GetObjectItem(f, "box");
        const char *type = cJSON_GetObjectItem(f, "type")->valuestring;
        if (!box || !strcmp(type, "missing_region")) continue; /* a reference block: the agent's file */
        for (int i = 0; i < 2; i++) CHECK_EQ_INT(cJSON_GetArrayItem(box, i)->valueint % 8, 0);
    }
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(r.result, "cv_findings")) <= 6);
    double told = pg_fx_num(&r, "disclosed_bits");
    double charged = pg_disclose_used(fx.b.disclose, fx.peer.uid) - before;
    CHECK(told > 50 && told < 1500);
    /* the answer's bits, plus one per diagnostic token (its keyed digest) */
    CHECK(fabs(charged - told - cJSON_GetArraySize(cJSON_GetObjectItem(r.result, "visuals"))) < 0.1);
    char *text = cJSON_PrintUnformatted(r.result);
    CHECK(is_nibble_hex(exact_cand) || strstr(text, exact_cand + 1) == NULL); /* the exact colour appears nowhere */
    free(text);
    pg_fx_reply_fini(&r);
    pg_fx_reply_fini(&x);
    pg_img_free(a);
    pg_img_free(b);
    pg_fx_fini(&fx);
}

PG_TEST(compare_weights_override_the_preset_and_bad_weights_are_usage_errors) {
    FX(fx, NULL);
    pg_img *a = ui_variant(0, 0), *b = ui_variant(1, 0);
    REQUIRE(a && b);
    pg_fx_reply r;
    REQUIRE(compare(&fx, NULL, a, NULL, b, "\"preset\":\"dark-ui\",\"weights\":[\"layout=1,color=0\",\"spacing=2\"]",
                    &r) == PG_OK);
    const cJSON *w = cJSON_GetObjectItem(r.result, "weights");
    CHECK_EQ_INT(cJSON_GetObjectItem(w, "layout")->valuedouble * 100, 100);
    CHECK_EQ_INT(cJSON_GetObjectItem(w, "color")->valuedouble * 100, 0);
    CHECK_EQ_INT(cJSON_GetObjectItem(w, "spacing")->valuedouble * 100, 200);
    CHECK_EQ_INT(cJSON_GetObjectItem(w, "typography")->valuedouble * 100, 30); /* dark-ui's */
    CHECK_STR(pg_fx_str(&r, "preset"), "dark-ui");
    pg_fx_reply_fini(&r);
    static const char *const bad[] = {"\"weights\":[\"layout=abc\"]", "\"weights\":[\"bogus=1\"]",
                                      "\"weights\":[\"layout=101\"]", "\"weights\":[\"layout=0.5,\"]",
                                      "\"weights\":[\"layout\"]", "\"mode\":\"page\""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK_EQ_INT(compare(&fx, NULL, a, NULL, b, bad[i], &r), PG_E_USAGE);
        pg_fx_reply_fini(&r);
    }
    pg_img_free(a);
    pg_img_free(b);
    pg_fx_fini(&fx);
}

PG_TEST(compare_ignores_rectangles_and_refuses_one_outside_the_reference) {
    FX(fx, NULL);
    pg_img *a = ui_variant(0, 0), *b = ui_variant(0, UI_CARD3);
    REQUIRE(a && b);
    pg_fx_reply r;
    REQUIRE(compare(&fx, NULL, a, NULL, b, "\"ignore\":[{\"x\":380,\"y\":230,\"w\":370,\"h\":160}]", &r) == PG_OK);
    CHECK(finding(&r, "missing_region") == NULL); /* the removed card is inside the ignored area */
    CHECK(pg_fx_num(&r, "overall") > 95);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(compare(&fx, NULL, a, NULL, b, "\"ignore\":[{\"x\":700,\"y\":0,\"w\":100,\"h\":10}]", &r), PG_E_USAGE);
    pg_fx_reply_fini(&r);
    pg_img_free(a);
    pg_img_free(b);
    pg_fx_fini(&fx);
}

PG_TEST(compare_about_fewer_protected_pixels_than_min_area_is_refused) {
    FX(fx, NULL);
    pg_img *a = ui_variant(0, 0);
    REQUIRE(a);
    char tok[32];
    REQUIRE(pg_fx_snapshot(&fx, window_of(&fx, "cand", a), tok) == 0);
    pg_fx_reply r;
    /* ignore everything but a 16x16 corner of the protected candidate */
    CHECK_EQ_INT(compare(&fx, NULL, a, tok, NULL,
                         "\"ignore\":[{\"x\":16,\"y\":0,\"w\":752,\"h\":600},{\"x\":0,\"y\":16,\"w\":16,\"h\":584}]", &r),
                 PG_E_POLICY);
    pg_fx_reply_fini(&r);
    /* a protected token of 16x16 pixels */
    uint64_t tiny = pg_fake_add_window(fx.fake, "tiny", "Demo", getpid(), 0, 0, 16, 16, 0x336699ff);
    REQUIRE(pg_fx_snapshot(&fx, tiny, tok) == 0);
    CHECK_EQ_INT(compare(&fx, NULL, a, tok, NULL, NULL, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    CHECK(pg_fx_audit_count(&fx, "compare", "POLICY_REFUSED") >= 1);
    pg_img_free(a);
    pg_fx_fini(&fx);
}

PG_TEST(compare_refuses_a_frame_set_as_one_image) {
    FX(fx, NULL);
    uint64_t id = pg_fake_add_window(fx.fake, "anim", "Demo", getpid(), 0, 0, 64, 64, 0x808080ff);
    pg_fx_reply r;
    char args[96];
    snprintf(args, sizeof args, "{\"id\":%llu,\"count\":2,\"interval\":0}", (unsigned long long)id);
    REQUIRE(pg_fx_call(&fx, "frames", args, NULL, 0, &r) == PG_OK);
    char tok[32];
    snprintf(tok, sizeof tok, "%s", pg_fx_str(&r, "token"));
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(compare(&fx, tok, NULL, tok, NULL, NULL, &r), PG_E_USAGE);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* The attack: the secret is a protected window in one colour the agent wants
 * to learn exactly. It compares the token with references of its own making,
 * moving each guess toward what the answers say (hill climbing on the colour
 * score and the colour pairs, as an agent rebuilding a UI would). What it
 * gets: colours on the 4-bit grid, distances to 0.5, and charges up to what
 * the window holds: a window of one colour is flat tiles of one content,
 * whose colour is all they can tell (25 bits booked, then answers about it
 * cost nothing more: pg_disclose.h), so the climb is never told the exact
 * colour in an answer and pays at most those 25 bits. */
/* The ledger's clock stands still for the climb: what is checked is what the
 * answers were charged, not what refilled while a slow (sanitizer) run went on. */
static double frozen_now(void *ctx) { return *(const double *)ctx; }

PG_TEST(attack_hill_climbing_a_protected_colour_through_compare_is_coarse_and_charged_what_the_colour_holds) {
    FX(fx, SMALL_BUDGET_POLICY);
    static double t0 = 1000.0;
    pg_disclose_set_clock(fx.b.disclose, frozen_now, &t0);
    const uint8_t secret[3] = {0x3a, 0x7b, 0xd5}; /* off the 4-bit grid */
    pg_img *s;
    REQUIRE(pg_img_new(&s, 96, 64, NULL) == PG_OK);
    tu_fill(s, secret[0], secret[1], secret[2], 255);
    char tok[32];
    REQUIRE(pg_fx_snapshot(&fx, window_of(&fx, "secret", s), tok) == 0);
    int guess[3] = {128, 128, 128}, answered = 0, refused = 0;
    double told = 0;
    for (int q = 0; q < 200 && !refused; q++) {
        pg_img *g;
        REQUIRE(pg_img_new(&g, 96, 64, NULL) == PG_OK);
        tu_fill(g, (uint8_t)guess[0], (uint8_t)guess[1], (uint8_t)guess[2], 255);
        pg_fx_reply r;
        pg_err rc = compare(&fx, NULL, g, tok, NULL, "\"visuals\":false", &r);
        pg_img_free(g);
        if (rc == PG_E_POLICY) {
            refused = 1;
            pg_fx_reply_fini(&r);
            break;
        }
        REQUIRE(rc == PG_OK);
        answered++;
        told += pg_fx_num(&r, "disclosed_bits");
        char *text = cJSON_PrintUnformatted(r.result);
        CHECK(strstr(text, "3a7bd5") == NULL);
        free(text);
        /* move toward the colour the answer names (the candidate's palette) */
        const cJSON *p = cJSON_GetArrayItem(
            cJSON_GetObjectItem(cJSON_GetObjectItem(sub(&r, "color"), "measurements"), "candidate_palette"), 0);
        const char *hex = p ? cJSON_GetObjectItem(p, "hex")->valuestring : NULL;
        CHECK(is_nibble_hex(hex));
        for (int i = 0; hex && i < 3; i++) {
            int target = (int)strtol((char[3]){hex[1 + 2 * i], hex[2 + 2 * i], 0}, NULL, 16);
            guess[i] += target > guess[i] ? 1 : target < guess[i] ? -1 : (q % 2 ? 1 : -1);
        }
        pg_fx_reply_fini(&r);
    }
    CHECK(!refused && answered == 200);
    /* the snapshot's bit and the compares together: the flat content's 25
     * bits at most (the raw capture and the stored token may key apart: +4) */
    CHECK(pg_disclose_used(fx.b.disclose, fx.peer.uid) <= PG_DISCLOSE_FLAT_BITS + 4);
    CHECK(told > PG_DISCLOSE_FLAT_BITS); /* more was said, none of it new about the colour */
    pg_img_free(s);
    pg_fx_fini(&fx);
}
