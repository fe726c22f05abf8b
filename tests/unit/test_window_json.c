/* SPDX-License-Identifier: MIT */
/* pg_window_json.h: the one JSON form of a window, what agents read and what
 * the Windows session helper sends the service; the decoder is strict. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_monitor_json.h"
#include "pg_path_json.h"
#include "pg_test.h"
#include "pg_window_json.h"

static pg_window sample(void) {
    pg_window w = {.id = 4194342, .pid = 22695, .x = -8, .y = 40, .width = 480, .height = 260, .visible = true};
    snprintf(w.title, sizeof w.title, "pixelgate demo \xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e");
    snprintf(w.class_name, sizeof w.class_name, "Pg_demo.tcl");
    snprintf(w.instance, sizeof w.instance, "pg_demo.tcl");
    w.frame = (pg_rect){w.x, w.y, w.width, w.height}; /* no decorations */
    return w;
}

static char *encode(const pg_window *w) {
    cJSON *o = pg_window_json(w);
    char *s = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    return s;
}

static pg_err decode_text(const char *json, pg_window *w, pg_error *e) {
    cJSON *o = cJSON_Parse(json);
    pg_err rc = pg_window_json_decode(o, w, e);
    cJSON_Delete(o);
    return rc;
}

PG_TEST(an_x11_window_has_the_documented_shape_with_no_windows_only_fields) {
    pg_window w = sample();
    char *s = encode(&w);
    REQUIRE(s != NULL);
    CHECK_STR(s, "{\"id\":4194342,\"title\":\"pixelgate demo \xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e\",\"class\":"
                 "\"Pg_demo.tcl\",\"instance\":\"pg_demo.tcl\",\"pid\":22695,\"x\":-8,\"y\":40,\"width\":480,"
                 "\"height\":260,\"visible\":true,\"focused\":false,\"kind\":\"normal\",\"parent\":null}");
    cJSON_free(s);
    w.pid = -1;
    s = encode(&w);
    CHECK(s && strstr(s, "\"pid\":null"));
    cJSON_free(s);
}

PG_TEST(kind_and_parent_are_always_there_a_frame_and_title_cut_only_when_they_say_something) {
    pg_window w = sample();
    char *s = encode(&w);
    REQUIRE(s != NULL);
    CHECK(strstr(s, "\"kind\":\"normal\",\"parent\":null}") != NULL);
    cJSON_free(s);
    w.kind = PG_WINDOW_POPUP;
    w.parent = 4194300;
    w.frame = (pg_rect){-9, 12, 482, 289};
    w.title_cut = true;
    s = encode(&w);
    REQUIRE(s != NULL);
    CHECK(strstr(s, "\"kind\":\"popup\",\"parent\":4194300,\"frame\":{\"x\":-9,\"y\":12,\"width\":482,"
                    "\"height\":289},\"title_cut\":true}") != NULL);
    cJSON_free(s);
}

PG_TEST(a_windows_window_adds_minimized_only_when_true_and_dpi_with_scale) {
    pg_window w = sample();
    w.minimized = true;
    w.visible = false;
    w.dpi = 144;
    char *s = encode(&w);
    REQUIRE(s != NULL);
    CHECK(strstr(s, "\"minimized\":true,\"dpi\":144,\"scale\":1.5,") != NULL);
    cJSON_free(s);
}

PG_TEST(what_is_encoded_decodes_to_the_same_window) {
    pg_window cases[5] = {sample(), sample(), sample(), sample(), sample()};
    cases[1].pid = -1;
    cases[1].focused = true;
    cases[2].minimized = true;
    cases[2].dpi = 120;
    cases[2].id = 0xffffffffu; /* X ids and HWNDs are 32-bit values */
    cases[2].x = cases[2].frame.x = INT32_MIN;
    cases[3].kind = PG_WINDOW_DIALOG; /* a transient dialog inside a WM frame */
    cases[3].parent = 4194300;
    cases[3].frame = (pg_rect){-9, 12, 482, 289};
    cases[3].title_cut = true;
    cases[4].kind = PG_WINDOW_POPUP;
    for (int i = 0; i < 5; i++) {
        char *s = encode(&cases[i]);
        REQUIRE(s != NULL);
        pg_window back;
        pg_error e;
        CHECK_EQ_INT(decode_text(s, &back, &e), PG_OK);
        CHECK(memcmp(&back, &cases[i], sizeof back) == 0 || (fprintf(stderr, "  %s\n", s), 0));
        cJSON_free(s);
    }
}

#define BASE "\"id\":1,\"title\":\"t\",\"class\":\"c\",\"instance\":\"\",\"pid\":1,\"x\":0,\"y\":0,\"width\":1,\"height\":1,\"visible\":true,\"focused\":false,\"kind\":\"normal\",\"parent\":null"

PG_TEST(the_decoder_refuses_anything_the_encoder_would_not_write) {
    static const struct {
        const char *json, *why;
    } cases[] = {
        {"[]", "not an object"},
        {"{" BASE ",\"extra\":1}", "unknown window field \"extra\""},
        {"{" BASE ",\"x\":0}", "\"x\" given twice"},
        {"{\"id\":1}", "is missing"},
        {"{" BASE ",\"title_cut\":false}", "\"title_cut\" has the wrong type"},
        {"{" BASE ",\"frame\":{\"x\":0,\"y\":0,\"width\":1,\"height\":1}}", "equals the content"},
        {"{" BASE ",\"frame\":{\"x\":0,\"y\":0,\"width\":2,\"height\":1,\"z\":0}}", "\"frame\""},
        {"{" BASE ",\"frame\":{\"x\":0,\"y\":0,\"width\":0,\"height\":1}}", "\"frame\""},
        {"{" BASE ",\"frame\":[0,0,2,1]}", "\"frame\" has the wrong type"},
        {"{" BASE ",\"minimized\":false}", "\"minimized\" has the wrong type"},
        {"{" BASE ",\"dpi\":96}", "dpi and scale go together"},
        {"{" BASE ",\"scale\":1}", "dpi and scale go together"},
        {"{" BASE ",\"dpi\":96,\"scale\":2}", "\"scale\" is not dpi/96"},
        {"{" BASE ",\"dpi\":0,\"scale\":0}", "\"dpi\""},
        {"{" BASE ",\"dpi\":9601,\"scale\":100.01041666666667}", "\"dpi\""},
        {"{\"id\":0,\"title\":\"t\",\"class\":\"c\",\"instance\":\"\",\"pid\":1,\"x\":0,\"y\":0,\"width\":1,"
         "\"height\":1,\"visible\":true,\"focused\":false,\"kind\":\"normal\",\"parent\":null}", "\"id\""},
        {"{\"id\":9007199254740992,\"title\":\"t\",\"class\":\"c\",\"instance\":\"\",\"pid\":1,\"x\":0,\"y\":0,"
         "\"width\":1,\"height\":1,\"visible\":true,\"focused\":false,\"kind\":\"normal\",\"parent\":null}", "\"id\""},
        {"{\"id\":1.5,\"title\":\"t\",\"class\":\"c\",\"instance\":\"\",\"pid\":1,\"x\":0,\"y\":0,\"width\":1,"
         "\"height\":1,\"visible\":true,\"focused\":false,\"kind\":\"normal\",\"parent\":null}", "\"id\""},
        {"{\"id\":1,\"title\":\"t\",\"class\":\"c\",\"instance\":\"\",\"pid\":-1,\"x\":0,\"y\":0,\"width\":1,"
         "\"height\":1,\"visible\":true,\"focused\":false,\"kind\":\"normal\",\"parent\":null}", "\"pid\""},
        {"{\"id\":1,\"title\":\"t\",\"class\":\"c\",\"instance\":\"\",\"pid\":\"1\",\"x\":0,\"y\":0,\"width\":1,"
         "\"height\":1,\"visible\":true,\"focused\":false,\"kind\":\"normal\",\"parent\":null}", "\"pid\" has the wrong type"},
        {"{\"id\":1,\"title\":\"t\",\"class\":\"c\",\"instance\":\"\",\"pid\":1,\"x\":2147483648,\"y\":0,"
         "\"width\":1,\"height\":1,\"visible\":true,\"focused\":false,\"kind\":\"normal\",\"parent\":null}", "\"x/y\""},
        {"{\"id\":1,\"title\":\"t\",\"class\":\"c\",\"instance\":\"\",\"pid\":1,\"x\":0,\"y\":0,\"width\":-1,"
         "\"height\":1,\"visible\":true,\"focused\":false,\"kind\":\"normal\",\"parent\":null}", "\"width/height\""},
        {"{\"id\":1,\"title\":\"\xc0\xaf\",\"class\":\"c\",\"instance\":\"\",\"pid\":1,\"x\":0,\"y\":0,"
         "\"width\":1,\"height\":1,\"visible\":true,\"focused\":false,\"kind\":\"normal\",\"parent\":null}", "\"title\" is too long or not UTF-8"},
        {"{\"id\":1,\"title\":\"\xed\xa0\x80\",\"class\":\"c\",\"instance\":\"\",\"pid\":1,\"x\":0,\"y\":0,"
         "\"width\":1,\"height\":1,\"visible\":true,\"focused\":false,\"kind\":\"normal\",\"parent\":null}", "\"title\" is too long or not UTF-8"},
        {"{\"id\":1,\"title\":\"t\",\"class\":\"c\",\"instance\":\"\xf4\x90\x80\x80\",\"pid\":1,\"x\":0,\"y\":0,"
         "\"width\":1,\"height\":1,\"visible\":true,\"focused\":false,\"kind\":\"normal\",\"parent\":null}", "\"instance\" is too long or not UTF-8"},
    };
    static const struct {
        const char *kind_parent, *why;
    } owners[] = {
        {"\"kind\":\"menu\",\"parent\":null", "\"kind\" is not normal, dialog or popup"},
        {"\"kind\":1,\"parent\":null", "\"kind\" has the wrong type"},
        {"\"kind\":\"popup\",\"parent\":0", "\"parent\""},
        {"\"kind\":\"popup\",\"parent\":1.5", "\"parent\""},
        {"\"kind\":\"popup\"", "\"parent\" is missing"},
        {"\"parent\":7", "\"kind\" is missing"},
    };
    for (size_t i = 0; i < sizeof owners / sizeof owners[0]; i++) {
        char json[400];
        snprintf(json, sizeof json, "{\"id\":1,\"title\":\"t\",\"class\":\"c\",\"instance\":\"\",\"pid\":1,\"x\":0,"
                 "\"y\":0,\"width\":1,\"height\":1,\"visible\":true,\"focused\":false,%s}", owners[i].kind_parent);
        pg_window w;
        pg_error e = {0};
        pg_err rc = decode_text(json, &w, &e);
        bool ok = rc == PG_E_BADINPUT && strstr(e.message, owners[i].why) != NULL;
        if (!ok) fprintf(stderr, "  owner case %zu: %d \"%s\", expected \"%s\"\n", i, (int)rc, e.message, owners[i].why);
        CHECK(ok);
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pg_window w;
        pg_error e = {0};
        pg_err rc = decode_text(cases[i].json, &w, &e);
        bool ok = rc == PG_E_BADINPUT && strstr(e.message, cases[i].why) != NULL;
        if (!ok) fprintf(stderr, "  case %zu: %d \"%s\", expected \"%s\"\n", i, (int)rc, e.message, cases[i].why);
        CHECK(ok);
    }
}

PG_TEST(a_string_that_does_not_fit_its_field_is_refused_not_cut) {
    char json[1400], title[600];
    memset(title, 'a', 512);
    title[512] = '\0'; /* pg_window.title holds 511 bytes and the NUL */
    snprintf(json, sizeof json, "{\"id\":1,\"title\":\"%s\",\"class\":\"c\",\"instance\":\"\",\"pid\":null,\"x\":0,"
             "\"y\":0,\"width\":1,\"height\":1,\"visible\":true,\"focused\":false,\"kind\":\"normal\",\"parent\":null}", title);
    pg_window w;
    pg_error e;
    CHECK_EQ_INT(decode_text(json, &w, &e), PG_E_BADINPUT);
    title[511] = '\0';
    snprintf(json, sizeof json, "{\"id\":1,\"title\":\"%s\",\"class\":\"c\",\"instance\":\"\",\"pid\":null,\"x\":0,"
             "\"y\":0,\"width\":1,\"height\":1,\"visible\":true,\"focused\":false,\"kind\":\"normal\",\"parent\":null}", title);
    CHECK_EQ_INT(decode_text(json, &w, &e), PG_OK);
    CHECK_EQ_INT(strlen(w.title), 511);
    CHECK_EQ_INT(w.pid, -1);
}

/* The drag path the Windows service sends its helper: [[x, y], ...] both
 * ways, strict on the way in. */
PG_TEST(a_pointer_path_round_trips_and_anything_else_is_badinput_naming_the_point) {
    pg_point path[3] = {{-5, INT32_MIN}, {INT32_MAX, 0}, {1, 1}}, back[3];
    cJSON *j = pg_path_json(path, 3);
    REQUIRE(j != NULL);
    char *text = cJSON_PrintUnformatted(j);
    CHECK_STR(text, "[[-5,-2147483648],[2147483647,0],[1,1]]");
    free(text);
    size_t n = 0;
    pg_error e;
    REQUIRE(pg_path_json_decode(j, back, 3, &n, &e) == PG_OK);
    CHECK_EQ_INT((int)n, 3);
    CHECK(memcmp(path, back, sizeof path) == 0);
    CHECK_EQ_INT(pg_path_json_decode(j, back, 2, &n, &e), PG_E_BADINPUT); /* more than the room given */
    CHECK(strstr(e.message, "more than 2") != NULL);
    cJSON_Delete(j);
    static const char *const bad[] = {"[[1,2]]", "[[1.5,2],[3,4]]", "[[1,2,3],[4,5]]", "[[1,2],[3]]",
                                      "[[1,2],[3,2147483648]]", "[[1,2],\"3,4\"]", "{\"x\":1}", "[]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *b = cJSON_Parse(bad[i]);
        REQUIRE(b != NULL);
        CHECK_EQ_INT(pg_path_json_decode(b, back, 3, &n, &e), PG_E_BADINPUT);
        CHECK(n == 0 && e.message[0]);
        cJSON_Delete(b);
    }
}

/* ---- the monitors (pg_monitor_json.h) ---- */

static pg_err decode_monitors(const char *text, pg_monitor **m, size_t *n) {
    cJSON *a = cJSON_Parse(text);
    pg_error e;
    pg_err rc = pg_monitor_json_decode(a, m, n, &e);
    cJSON_Delete(a);
    return rc;
}

PG_TEST(monitors_left_of_and_above_the_primary_round_trip) {
    pg_monitor in[2] = {{"\\\\.\\DISPLAY2", {-2560, -1440, 2560, 1440}, false}, {"DP-1", {0, 0, 1920, 1080}, true}};
    cJSON *a = pg_monitor_json(in, 2);
    REQUIRE(a != NULL);
    char *text = cJSON_PrintUnformatted(a);
    cJSON_Delete(a);
    REQUIRE(text != NULL);
    CHECK(strstr(text, "\"width\":2560") != NULL && strstr(text, "\"x\":-2560") != NULL);
    pg_monitor *out = NULL;
    size_t n = 0;
    REQUIRE(decode_monitors(text, &out, &n) == PG_OK);
    free(text);
    CHECK_EQ_INT((int)n, 2);
    CHECK_STR(out[0].name, in[0].name);
    CHECK(out[0].r.x == -2560 && out[0].r.y == -1440 && out[0].r.w == 2560 && !out[0].primary);
    CHECK(out[1].primary && out[1].r.w == 1920);
    free(out);
}

PG_TEST(monitors_that_are_not_exactly_the_form_are_refused_whole) {
    static const char *const bad[] = {
        "[]",                                                                               /* none */
        "{}",                                                                               /* not an array */
        "[{\"name\":\"A\",\"x\":0,\"y\":0,\"width\":1,\"height\":1}]",                        /* no primary */
        "[{\"name\":\"A\",\"x\":0,\"y\":0,\"width\":1,\"height\":1,\"primary\":1}]",          /* not a bool */
        "[{\"name\":\"A\",\"x\":0.5,\"y\":0,\"width\":1,\"height\":1,\"primary\":true}]",     /* not integral */
        "[{\"name\":\"A\",\"x\":2147483648,\"y\":0,\"width\":1,\"height\":1,\"primary\":true}]", /* past int32 */
        "[{\"name\":\"A\",\"x\":0,\"y\":0,\"width\":-1,\"height\":1,\"primary\":true}]",      /* negative size */
        "[{\"name\":\"A\",\"x\":0,\"y\":0,\"width\":1,\"height\":1,\"primary\":true,\"w\":1}]", /* unknown field */
        ("[{\"name\":\"0123456789012345678901234567890123456789012345678901234567890123\",\"x\":0,\"y\":0,"
         "\"width\":1,\"height\":1,\"primary\":true}]"), /* a 64-byte name */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        pg_monitor *m = (pg_monitor *)1;
        size_t n = 9;
        pg_err rc = decode_monitors(bad[i], &m, &n);
        if (rc != PG_E_BADINPUT) fprintf(stderr, "accepted: %s\n", bad[i]);
        CHECK_EQ_INT(rc, PG_E_BADINPUT);
        CHECK(m == NULL && n == 0);
    }
}
