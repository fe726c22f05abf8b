/* SPDX-License-Identifier: MIT */
/* layout, assert control, color, click/type --control, assert text
 * --normalize, --lang and caps' perception, through pg_dispatch against the
 * fake desktop. The windows are captures of tests/apps/pg_form.tcl with the
 * truth that app wrote about itself (tests/data/form_*_v1.{png,json}). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_broker_fixture.h"
#include "pg_disclose.h"
#include "pg_img_codec.h"
#include "pg_test.h"

#define FX(fx, policy) \
    pg_fx fx;          \
    REQUIRE(pg_fx_init(&fx, policy) == 0)

#define ALLOW_POLICY "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"expose_pixels\":\"allow\"}"

static char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    char *b = malloc((size_t)len + 1);
    if (b && fread(b, 1, (size_t)len, f) != (size_t)len) free(b), b = NULL;
    fclose(f);
    if (b) b[len] = 0, *n = (size_t)len;
    return b;
}

/* A window showing a PNG from tests/data; its size into *w, *h. */
static uint64_t png_window(pg_fx *fx, const char *name, uint32_t *w, uint32_t *h) {
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/%s", PG_SOURCE_DIR, name);
    size_t n = 0;
    char *b = slurp(path, &n);
    if (!b) return 0;
    pg_img *img = NULL;
    pg_error e;
    pg_img_limits lim = pg_img_limits_default();
    uint64_t id = 0;
    if (pg_img_decode((uint8_t *)b, n, &lim, &img, &e) == PG_OK && img->stride == (size_t)img->width * 4) {
        id = pg_fake_add_window(fx->fake, "Order entry", "Pg_form.tcl", getpid(), 10, 10, img->width, img->height,
                                0xffffffff);
        pg_fake_set_pixels(fx->fake, id, img->px);
        if (w) *w = img->width;
        if (h) *h = img->height;
    }
    pg_img_free(img);
    free(b);
    return id;
}

static const cJSON *control_labelled(const cJSON *controls, const char *kind, const char *label) {
    const cJSON *c;
    cJSON_ArrayForEach(c, controls) {
        const cJSON *k = cJSON_GetObjectItem(c, "kind"), *l = cJSON_GetObjectItem(c, "label");
        if (cJSON_IsString(k) && !strcmp(k->valuestring, kind) && cJSON_IsString(l) && !strcmp(l->valuestring, label))
            return c;
    }
    return NULL;
}

static const cJSON *control_kind(const cJSON *controls, const char *kind, int nth) {
    const cJSON *c;
    cJSON_ArrayForEach(c, controls) {
        const cJSON *k = cJSON_GetObjectItem(c, "kind");
        if (cJSON_IsString(k) && !strcmp(k->valuestring, kind) && nth-- == 0) return c;
    }
    return NULL;
}

PG_TEST(layout_reads_entries_states_the_selected_row_and_the_slider_of_a_tk_form) {
    FX(fx, NULL);
    uint64_t id = png_window(&fx, "form_tk_v1.png", NULL, NULL);
    REQUIRE(id);
    char tok[32], args[160];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    snprintf(args, sizeof args, "{\"token\":\"%s\"}", tok);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "layout", args, NULL, 0, &r) == PG_OK);
    const cJSON *ctl = cJSON_GetObjectItem(r.result, "controls");
    const cJSON *cust = control_labelled(ctl, "entry", "Customer:");
    REQUIRE(cust != NULL);
    CHECK_STR(cJSON_GetObjectItem(cust, "text")->valuestring, "José Núñez"); /* caret removed, accents read */
    const cJSON *mail = control_labelled(ctl, "entry", "E-mail:");
    REQUIRE(mail != NULL);
    CHECK_STR(cJSON_GetObjectItem(mail, "text")->valuestring, "renee_d@example.net");
    const cJSON *code = control_labelled(ctl, "entry", "Code:");
    REQUIRE(code != NULL);
    CHECK_STR(cJSON_GetObjectItem(code, "text")->valuestring, "1"); /* a lone digit is not dropped */
    const cJSON *ex = control_labelled(ctl, "check", "Express"), *gift = control_labelled(ctl, "check", "Gift wrap");
    REQUIRE(ex != NULL && gift != NULL);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(ex, "checked")));
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(gift, "checked")));
    const cJSON *prio = control_labelled(ctl, "radio", "Priority"), *std = control_labelled(ctl, "radio", "Standard");
    if (!prio || !std) {
        char *txt = cJSON_Print(ctl);
        fprintf(stderr, "%s\n", txt);
        free(txt);
    }
    REQUIRE(prio != NULL && std != NULL);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(prio, "checked")));
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(std, "checked")));
    const cJSON *list = control_kind(ctl, "list", 0);
    REQUIRE(list != NULL);
    CHECK_STR(cJSON_GetObjectItem(list, "selected_text")->valuestring, "København");
    CHECK_EQ_INT(cJSON_GetObjectItem(list, "selected")->valueint, 3);
    const cJSON *sl = control_kind(ctl, "slider", 0);
    REQUIRE(sl != NULL);
    double pos = cJSON_GetObjectItem(sl, "position")->valuedouble;
    CHECK(fabs(pos - 13.0 / 50.0) < 0.05); /* the app's discount: 13 of 0..50 */
    const cJSON *sub = control_kind(ctl, "button", 0);
    REQUIRE(sub != NULL);
    CHECK_STR(cJSON_GetObjectItem(sub, "text")->valuestring, "Submit");
    /* Protected pixels: boxes on the 8-pixel grid, and the answer is charged. */
    const cJSON *box = cJSON_GetObjectItem(cust, "box");
    CHECK_EQ_INT(cJSON_GetObjectItem(box, "x")->valueint % 8, 0);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r.result, "quantized")));
    CHECK(pg_disclose_used(fx.b.disclose, fx.peer.uid) > 100);
    pg_fx_reply_fini(&r);
    CHECK_EQ_INT(pg_fx_audit_count(&fx, "layout", "OK"), 1);
    pg_fx_fini(&fx);
}

PG_TEST(layout_of_a_window_captures_it_and_returns_the_token_controls_refer_to) {
    FX(fx, ALLOW_POLICY);
    uint64_t id = png_window(&fx, "form_default_v1.png", NULL, NULL);
    REQUIRE(id);
    char args[96];
    snprintf(args, sizeof args, "{\"id\":%llu}", (unsigned long long)id);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "layout", args, NULL, 0, &r) == PG_OK);
    const char *tok = pg_fx_str(&r, "token");
    REQUIRE(tok && !strncmp(tok, "cap:", 4));
    const cJSON *ctl = cJSON_GetObjectItem(r.result, "controls");
    const cJSON *ex = control_labelled(ctl, "check", "Express");
    REQUIRE(ex != NULL);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(ex, "checked"))); /* the default theme: a filled square */
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(r.result, "quantized")));
    char info[96];
    snprintf(info, sizeof info, "{\"token\":\"%s\"}", tok);
    pg_fx_reply i;
    CHECK_EQ_INT(pg_fx_call(&fx, "info", info, NULL, 0, &i), PG_OK); /* the capture is the caller's token */
    pg_fx_reply_fini(&i);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(click_and_type_control_act_on_the_control_of_the_tokens_window) {
    FX(fx, ALLOW_POLICY);
    uint64_t id = png_window(&fx, "form_tk_v1.png", NULL, NULL);
    REQUIRE(id);
    char tok[32], args[200];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    snprintf(args, sizeof args, "{\"token\":\"%s\"}", tok);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "layout", args, NULL, 0, &r) == PG_OK);
    const cJSON *ctl = cJSON_GetObjectItem(r.result, "controls");
    const cJSON *gift = control_labelled(ctl, "check", "Gift wrap"), *mail = control_labelled(ctl, "entry", "E-mail:");
    REQUIRE(gift && mail);
    int gn = cJSON_GetObjectItem(gift, "n")->valueint, mn = cJSON_GetObjectItem(mail, "n")->valueint;
    const cJSON *gb = cJSON_GetObjectItem(gift, "box");
    int gx = cJSON_GetObjectItem(gb, "x")->valueint + cJSON_GetObjectItem(gb, "w")->valueint / 2;
    int gy = cJSON_GetObjectItem(gb, "y")->valueint + cJSON_GetObjectItem(gb, "h")->valueint / 2;
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"in\":\"%s\",\"control\":%d}", tok, gn);
    REQUIRE(pg_fx_call(&fx, "click", args, NULL, 0, &r) == PG_OK);
    pg_fx_reply_fini(&r);
    char want[96];
    snprintf(want, sizeof want, "click %llu %d,%d left x1", (unsigned long long)id, gx, gy);
    CHECK_STR(pg_fake_input(fx.fake, pg_fake_input_count(fx.fake) - 1), want);
    snprintf(args, sizeof args, "{\"in\":\"%s\",\"control\":%d,\"text\":\"zoe@example.com\"}", tok, mn);
    REQUIRE(pg_fx_call(&fx, "type", args, NULL, 0, &r) == PG_OK);
    pg_fx_reply_fini(&r);
    size_t n = pg_fake_input_count(fx.fake);
    CHECK(!strncmp(pg_fake_input(fx.fake, n - 2), "click", 5)); /* focus the entry first */
    CHECK(strstr(pg_fake_input(fx.fake, n - 1), "zoe@example.com") != NULL);
    /* A control the layout does not have, and --control without --in. */
    snprintf(args, sizeof args, "{\"in\":\"%s\",\"control\":400}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "click", args, NULL, 0, &r), PG_E_NOTFOUND);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"id\":%llu,\"control\":1}", (unsigned long long)id);
    CHECK_EQ_INT(pg_fx_call(&fx, "click", args, NULL, 0, &r), PG_E_USAGE);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(assert_control_checks_states_values_and_the_selected_row_and_says_what_it_saw) {
    FX(fx, NULL);
    uint64_t id = png_window(&fx, "form_tk_v1.png", NULL, NULL);
    REQUIRE(id);
    char tok[32], args[200];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    pg_fx_reply r;
    snprintf(args, sizeof args, "{\"in\":\"%s\",\"label\":\"Express\",\"checked\":true}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "assert_control", args, NULL, 0, &r), PG_OK);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"in\":\"%s\",\"label\":\"Gift wrap\",\"checked\":true}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "assert_control", args, NULL, 0, &r), PG_E_ASSERT);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(r.details, "control"), "checked")));
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"in\":\"%s\",\"label\":\"customer\",\"value\":\"JOSÉ NÚÑEZ\"}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "assert_control", args, NULL, 0, &r), PG_OK); /* NFKC + case folding */
    CHECK_EQ_INT(pg_fx_num(&r, "edit_distance"), 0);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"in\":\"%s\",\"label\":\"Customer\",\"value\":\"Jose Nunez\"}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "assert_control", args, NULL, 0, &r), PG_E_ASSERT);
    CHECK_EQ_INT(pg_fx_num(&r, "edit_distance"), 3); /* a near miss is measured: é, ú, ñ */
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"in\":\"%s\",\"label\":\"City\",\"selected\":\"københavn\"}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "assert_control", args, NULL, 0, &r), PG_OK);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"in\":\"%s\",\"label\":\"Nowhere\",\"checked\":true}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "assert_control", args, NULL, 0, &r), PG_E_ASSERT);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(r.details, "labels_seen")) > 5);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(color_names_the_error_labels_red_and_quantises_protected_pixels) {
    FX(fx, NULL);
    uint64_t id = png_window(&fx, "form_tk_v1.png", NULL, NULL);
    REQUIRE(id);
    char tok[32], args[200];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    pg_fx_reply r;
    /* The error label as the app placed it (form_tk_v1.json): 10,321 127x21. */
    snprintf(args, sizeof args, "{\"token\":\"%s\",\"region\":{\"x\":10,\"y\":321,\"w\":127,\"h\":21},\"max\":3}", tok);
    REQUIRE(pg_fx_call(&fx, "color", args, NULL, 0, &r) == PG_OK);
    const cJSON *cols = cJSON_GetObjectItem(r.result, "colors");
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(cols, 0), "name")->valuestring, "light gray"); /* the window */
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(cols, 1), "name")->valuestring, "red");        /* the text */
    const char *hex = cJSON_GetObjectItem(cJSON_GetArrayItem(cols, 1), "hex")->valuestring;
    CHECK(hex[1] == hex[2] && hex[3] == hex[4] && hex[5] == hex[6]); /* 4 bits a channel */
    double f0 = cJSON_GetObjectItem(cJSON_GetArrayItem(cols, 0), "fraction")->valuedouble;
    CHECK(fabs(f0 * 256 - round(f0 * 256)) < 0.02); /* 1/256 steps */
    pg_fx_reply_fini(&r);
    /* --at is a neighbourhood of at least min_area pixels. */
    snprintf(args, sizeof args, "{\"token\":\"%s\",\"at\":{\"x\":40,\"y\":330}}", tok);
    REQUIRE(pg_fx_call(&fx, "color", args, NULL, 0, &r) == PG_OK);
    const cJSON *reg = cJSON_GetObjectItem(r.result, "region");
    CHECK(cJSON_GetObjectItem(reg, "w")->valueint * cJSON_GetObjectItem(reg, "h")->valueint >= 1024);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(assert_text_normalize_folds_case_and_compatibility_forms_and_reports_the_distance) {
    FX(fx, NULL);
    uint64_t id = png_window(&fx, "form_tk_v1.png", NULL, NULL);
    REQUIRE(id);
    char tok[32], args[300];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    pg_fx_reply r;
    /* The customer entry's inside (app: 97,13 214x23, frame 2 px). */
    snprintf(args, sizeof args,
             "{\"image\":{\"token\":\"%s\"},\"region\":{\"x\":99,\"y\":15,\"w\":210,\"h\":19},\"field\":true,"
             "\"normalize\":true,\"expect\":\"JOSÉ NÚÑEZ\"}",
             tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "assert_text", args, NULL, 0, &r), PG_OK);
    CHECK_EQ_INT(pg_fx_num(&r, "edit_distance"), 0);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args,
             "{\"image\":{\"token\":\"%s\"},\"region\":{\"x\":99,\"y\":15,\"w\":210,\"h\":19},\"field\":true,"
             "\"normalize\":true,\"expect\":\"José Nuñes\"}",
             tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "assert_text", args, NULL, 0, &r), PG_E_ASSERT);
    CHECK_EQ_INT(pg_fx_num(&r, "edit_distance"), 2);
    if (!strstr(pg_fx_str(&r, "closest"), "núñez")) fprintf(stderr, "closest: %s\n", pg_fx_str(&r, "closest"));
    CHECK(strstr(pg_fx_str(&r, "closest"), "núñez") != NULL);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args,
             "{\"image\":{\"token\":\"%s\"},\"region\":{\"x\":99,\"y\":15,\"w\":210,\"h\":19},\"field\":true,"
             "\"normalize\":true,\"max_distance\":2,\"expect\":\"José Nuñes\"}",
             tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "assert_text", args, NULL, 0, &r), PG_OK);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

PG_TEST(ocr_languages_come_from_the_policy_and_a_user_may_only_narrow_them) {
    FX(fx, "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"analysis\":{\"ocr_languages\":[\"eng\",\"Latin\"]},"
           "\"users\":{\"agent\":{\"analysis\":{\"ocr_languages\":[\"eng\"]}}}}");
    uint64_t id = png_window(&fx, "form_tk_v1.png", NULL, NULL);
    REQUIRE(id);
    char tok[32], args[160];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    pg_fx_reply r;
    snprintf(args, sizeof args, "{\"token\":\"%s\"}", tok);
    REQUIRE(pg_fx_call(&fx, "ocr", args, NULL, 0, &r) == PG_OK);
    CHECK_STR(pg_fx_str(&r, "lang"), "eng"); /* the user's first */
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"token\":\"%s\",\"lang\":\"Latin\"}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "ocr", args, NULL, 0, &r), PG_E_POLICY);
    CHECK(strstr(r.e.message, "allowed: eng") != NULL);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"token\":\"%s\",\"lang\":\"../../x\"}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "ocr", args, NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
    pg_policy *p = NULL;
    pg_error e;
    const char *loosen = "{\"version\":1,\"analysis\":{\"ocr_languages\":[\"eng\"]},"
                         "\"users\":{\"a\":{\"analysis\":{\"ocr_languages\":[\"deu\"]}}}}";
    CHECK_EQ_INT(pg_policy_parse(loosen, strlen(loosen), &p, &e), PG_E_BADINPUT);
    CHECK(strstr(e.message, "ocr_languages") != NULL);
}

PG_TEST(caps_reports_what_the_agent_can_perceive) {
    const char *pol[][2] = {
        {"{\"version\":1,\"clients\":{\"users\":[\"agent\"]}}", "ocr-only"},
        {ALLOW_POLICY, "pixels"},
        {"{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"analysis\":{\"endpoints\":{\"v\":{\"kind\":\"command\","
         "\"argv\":[\"/bin/true\"]}}}}",
         "ocr+vision"},
        {"{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"analysis\":{\"ocr\":false}}", "none"},
    };
    for (size_t i = 0; i < sizeof pol / sizeof *pol; i++) {
        FX(fx, pol[i][0]);
        pg_fx_reply r;
        REQUIRE(pg_fx_call(&fx, "caps", NULL, NULL, 0, &r) == PG_OK);
        CHECK_STR(pg_fx_str(&r, "perception"), pol[i][1]);
        const cJSON *no = cJSON_GetObjectItem(r.result, "cannot"); /* what an agent cannot do here, said */
        CHECK(cJSON_IsArray(no) && cJSON_GetArraySize(no) >= 3 && cJSON_IsString(cJSON_GetArrayItem(no, 0)));
        pg_fx_reply_fini(&r);
        pg_fx_fini(&fx);
    }
}

PG_TEST(layout_and_color_are_refused_when_ocr_is_off_or_the_region_is_too_small) {
    FX(fx, "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"analysis\":{\"ocr\":false}}");
    uint64_t id = png_window(&fx, "form_tk_v1.png", NULL, NULL);
    REQUIRE(id);
    char tok[32], args[200];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    pg_fx_reply r;
    snprintf(args, sizeof args, "{\"token\":\"%s\"}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "layout", args, NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"token\":\"%s\",\"region\":{\"x\":10,\"y\":10,\"w\":10,\"h\":10}}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "color", args, NULL, 0, &r), PG_E_POLICY); /* 100 px < min_area */
    pg_fx_reply_fini(&r);
    snprintf(args, sizeof args, "{\"token\":\"%s\",\"region\":{\"x\":10,\"y\":10,\"w\":10,\"h\":10},\"at\":{\"x\":1,\"y\":1}}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "color", args, NULL, 0, &r), PG_E_USAGE); /* one of --region / --at */
    pg_fx_reply_fini(&r);
    CHECK(pg_fx_audit_count(&fx, "color", "POLICY_REFUSED") >= 1);
    pg_fx_fini(&fx);
}

/* ---- attacks: rebuilding a protected token through color and layout ---- */

PG_TEST(color_cannot_rebuild_a_noise_token_and_stops_at_the_budget) {
    FX(fx, NULL);
    uint8_t *truth = NULL;
    uint32_t W = 128, H = 128;
    uint64_t id = pg_fx_noise_window(&fx, W, H, &truth);
    char tok[32], args[160];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    /* The attacker's best guess per pixel: the dominant colour of the
     * smallest neighbourhood answered around it (every 2 px, as often as the
     * broker answers). */
    double *guess = calloc((size_t)W * H * 3, sizeof *guess);
    int answered = 0, refused = 0;
    for (uint32_t y = 0; y < H && !refused; y += 2)
        for (uint32_t x = 0; x < W && !refused; x += 2) {
            snprintf(args, sizeof args, "{\"token\":\"%s\",\"at\":{\"x\":%u,\"y\":%u},\"max\":4}", tok, x, y);
            pg_fx_reply r;
            pg_err rc = pg_fx_call(&fx, "color", args, NULL, 0, &r);
            if (rc == PG_E_POLICY) {
                refused = 1;
            } else if (rc == PG_OK) {
                answered++;
                const char *hex = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(r.result, "colors"), 0), "hex")->valuestring;
                unsigned rr, gg, bb;
                sscanf(hex, "#%02x%02x%02x", &rr, &gg, &bb);
                for (uint32_t dy = 0; dy < 2; dy++)
                    for (uint32_t dx = 0; dx < 2; dx++) {
                        size_t i = ((size_t)(y + dy) * W + x + dx) * 3;
                        guess[i] = rr, guess[i + 1] = gg, guess[i + 2] = bb;
                    }
            }
            pg_fx_reply_fini(&r);
        }
    CHECK(refused); /* the per-source budget ends it long before every point is asked */
    CHECK(pg_disclose_used(fx.b.disclose, fx.peer.uid) <= 8192.0 + 1e-6);
    double err = 0;
    for (size_t i = 0; i < (size_t)W * H; i++)
        for (int k = 0; k < 3; k++) err += fabs(guess[3 * i + k] - truth[4 * i + k]);
    err /= (double)W * H * 3;
    CHECK(err > 50); /* noise: what came back says next to nothing about any pixel */
    CHECK(answered > 10);
    free(guess);
    free(truth);
    pg_fx_fini(&fx);
}

PG_TEST(layout_of_protected_pixels_is_charged_and_refused_over_the_budget) {
    FX(fx, "{\"version\":1,\"clients\":{\"users\":[\"agent\"]},\"disclosure\":{\"bits_per_user_hour\":300}}");
    uint64_t id = png_window(&fx, "form_tk_v1.png", NULL, NULL);
    REQUIRE(id);
    char tok[32], args[96];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    snprintf(args, sizeof args, "{\"token\":\"%s\"}", tok);
    pg_fx_reply r;
    /* A form's 16 controls cost more than 300 bits: refused, and charged nothing. */
    CHECK_EQ_INT(pg_fx_call(&fx, "layout", args, NULL, 0, &r), PG_E_POLICY);
    pg_fx_reply_fini(&r);
    CHECK(pg_disclose_used(fx.b.disclose, fx.peer.uid) <= 1.0 + 1e-6); /* the snapshot's digest bit */
    /* assert control answers one control: within the budget. */
    snprintf(args, sizeof args, "{\"in\":\"%s\",\"label\":\"Express\",\"checked\":true}", tok);
    CHECK_EQ_INT(pg_fx_call(&fx, "assert_control", args, NULL, 0, &r), PG_OK);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}

/* Is every box in arr (each item's "box") on the disclosure grid of a w x h image? */
static bool boxes_on_grid(const cJSON *arr, uint32_t w, uint32_t h, int *seen) {
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        const cJSON *b = cJSON_GetObjectItem(it, "box");
        if (!b) continue;
        int x = cJSON_GetObjectItem(b, "x")->valueint, y = cJSON_GetObjectItem(b, "y")->valueint;
        int r = x + cJSON_GetObjectItem(b, "w")->valueint, btm = y + cJSON_GetObjectItem(b, "h")->valueint;
        (*seen)++;
        if (x % PG_DISCLOSE_GRID || y % PG_DISCLOSE_GRID) return false;
        if ((r % PG_DISCLOSE_GRID && r != (int)w) || (btm % PG_DISCLOSE_GRID && btm != (int)h)) return false;
    }
    return true;
}

/* The boxes of text lines and of list rows are computed from the pixels, not
 * from the text: about protected pixels they are on the grid, like ocr's word
 * boxes, and paid for (issue 27: they were exact and free). */
PG_TEST(layout_of_protected_pixels_shows_line_and_row_boxes_on_the_grid_and_charges_them) {
    FX(fx, NULL);
    uint32_t w = 0, h = 0;
    uint64_t id = png_window(&fx, "form_tk_v1.png", &w, &h);
    REQUIRE(id);
    char tok[32], args[96];
    REQUIRE(pg_fx_snapshot(&fx, id, tok) == 0);
    snprintf(args, sizeof args, "{\"token\":\"%s\"}", tok);
    double before = pg_disclose_used(fx.b.disclose, fx.peer.uid);
    pg_fx_reply r;
    REQUIRE(pg_fx_call(&fx, "layout", args, NULL, 0, &r) == PG_OK);
    int lines = 0, rows = 0;
    CHECK(boxes_on_grid(cJSON_GetObjectItem(r.result, "lines"), w, h, &lines));
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(r.result, "controls")) {
        CHECK(boxes_on_grid(cJSON_GetObjectItem(c, "rows"), w, h, &rows));
    }
    CHECK(lines > 0 && rows > 0);
    /* each control costs about 30 bits; the lines and rows add a box each */
    size_t n_ctl = (size_t)cJSON_GetArraySize(cJSON_GetObjectItem(r.result, "controls"));
    double charged = pg_disclose_used(fx.b.disclose, fx.peer.uid) - before;
    CHECK(charged > (double)n_ctl * 20 + (double)(lines + rows) * 8);
    pg_fx_reply_fini(&r);
    pg_fx_fini(&fx);
}
