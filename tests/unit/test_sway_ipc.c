/* SPDX-License-Identifier: MIT */
/* sway's IPC replies (broker/platform/wayland/pg_sway_ipc.h), on trees a
 * real headless sway 1.7 wrote (tests/data/sway_tree_*.json: two tiled GTK 3
 * windows and a floating one; then stacked with a view on a hidden
 * workspace; then one tiled view fullscreen) and on broken ones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_sway_ipc.h"
#include "pg_test.h"

static char *slurp(const char *name, size_t *len) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", PG_TEST_DATA_DIR, name);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *s = malloc(1 << 20);
    *len = s ? fread(s, 1, 1 << 20, f) : 0;
    fclose(f);
    return s;
}

static const pg_window *by_id(const pg_window *w, size_t n, uint64_t id) {
    for (size_t i = 0; i < n; i++)
        if (w[i].id == id) return &w[i];
    return NULL;
}

PG_TEST(header_round_trips_and_rejects_bad_magic_and_huge_lengths) {
    uint8_t h[PG_SWAY_IPC_HEADER_LEN];
    CHECK_EQ_INT(pg_sway_ipc_header(h, PG_SWAY_GET_TREE, 1234), 14);
    CHECK(memcmp(h, "i3-ipc", 6) == 0);
    uint32_t type = 0, len = 0;
    pg_error e = {0};
    CHECK_EQ_INT(pg_sway_ipc_parse_header(h, &type, &len, &e), PG_OK);
    CHECK_EQ_INT(type, PG_SWAY_GET_TREE);
    CHECK_EQ_INT(len, 1234);
    pg_sway_ipc_header(h, PG_SWAY_GET_TREE, PG_SWAY_IPC_MAX_PAYLOAD + 1);
    CHECK_EQ_INT(pg_sway_ipc_parse_header(h, &type, &len, &e), PG_E_INTERNAL);
    CHECK(strstr(e.message, "limit") != NULL);
    pg_sway_ipc_header(h, PG_SWAY_GET_SEATS, 0);
    h[0] = 'I';
    CHECK_EQ_INT(pg_sway_ipc_parse_header(h, &type, &len, &e), PG_E_INTERNAL);
    CHECK(strstr(e.message, "i3-ipc") != NULL);
}

PG_TEST(basic_tree_lists_three_views_with_sways_geometry) {
    size_t len = 0, n = 0;
    char *j = slurp("sway_tree_basic.json", &len);
    REQUIRE(j != NULL);
    pg_window *w = NULL;
    pg_error e = {0};
    REQUIRE(pg_sway_tree_windows(j, len, &w, &n, &e) == PG_OK);
    REQUIRE(n == 3);
    const pg_window *one = by_id(w, n, 5), *fl = by_id(w, n, 7);
    REQUIRE(one && fl);
    CHECK_STR(one->title, "pg-tiled-one");
    CHECK_STR(one->class_name, "win.py"); /* the app_id GTK gave it */
    CHECK_STR(one->instance, "");
    CHECK_EQ_INT(one->pid, 27324);
    CHECK(one->visible && !one->focused && !one->title_cut);
    CHECK_EQ_INT(one->kind, PG_WINDOW_NORMAL);
    /* rect (0,25 640x775), window_rect (2,0 636x773), a 25 px title bar above rect */
    CHECK_EQ_INT(one->x, 2);
    CHECK_EQ_INT(one->y, 25);
    CHECK_EQ_INT(one->width, 636);
    CHECK_EQ_INT(one->height, 773);
    CHECK(one->frame.x == 0 && one->frame.y == 0 && one->frame.w == 640 && one->frame.h == 800);
    CHECK(fl->focused && fl->visible);
    CHECK(fl->x == 480 && fl->y == 300 && fl->width == 320 && fl->height == 200);
    CHECK(fl->frame.x == 478 && fl->frame.y == 275 && fl->frame.w == 324 && fl->frame.h == 227);
    free(w);
    free(j);
}

PG_TEST(floating_views_are_on_top_of_the_tiled_ones) {
    size_t len = 0, n = 0;
    char *j = slurp("sway_tree_basic.json", &len);
    REQUIRE(j != NULL);
    uint64_t *ids = NULL;
    pg_error e = {0};
    REQUIRE(pg_sway_tree_stacking(j, len, &ids, &n, &e) == PG_OK);
    REQUIRE(n == 3);
    CHECK(ids[0] == 5 && ids[1] == 6 && ids[2] == 7);
    free(ids);
    free(j);
}

PG_TEST(stacked_layout_counts_every_title_bar_and_hidden_workspace_is_not_visible) {
    size_t len = 0, n = 0;
    char *j = slurp("sway_tree_stacked.json", &len);
    REQUIRE(j != NULL);
    pg_window *w = NULL;
    pg_error e = {0};
    REQUIRE(pg_sway_tree_windows(j, len, &w, &n, &e) == PG_OK);
    REQUIRE(n == 4);
    const pg_window *one = by_id(w, n, 5), *two = by_id(w, n, 6), *hidden = by_id(w, n, 10);
    REQUIRE(one && two && hidden);
    CHECK(one->visible && one->focused && !two->visible);
    /* rect y 50: both stack bars (25 px each) are above every child */
    CHECK(one->frame.y == 0 && one->frame.h == 800 && one->y == 50);
    CHECK(!hidden->visible);
    CHECK_STR(hidden->title, "pg-hidden");
    uint64_t *ids = NULL;
    REQUIRE(pg_sway_tree_stacking(j, len, &ids, &n, &e) == PG_OK);
    REQUIRE(n == 3); /* the view on workspace 2 is not in it */
    CHECK(ids[0] == 5 && ids[1] == 6 && ids[2] == 7);
    free(ids);
    free(w);
    free(j);
}

PG_TEST(a_fullscreen_view_is_on_top_of_its_workspace_and_has_no_frame) {
    size_t len = 0, n = 0;
    char *j = slurp("sway_tree_fullscreen.json", &len);
    REQUIRE(j != NULL);
    pg_window *w = NULL;
    pg_error e = {0};
    REQUIRE(pg_sway_tree_windows(j, len, &w, &n, &e) == PG_OK);
    const pg_window *fs = by_id(w, n, 6), *fl = by_id(w, n, 7);
    REQUIRE(fs && fl);
    CHECK(fs->x == 0 && fs->y == 0 && fs->width == 1280 && fs->height == 800);
    CHECK(fs->frame.y == 0 && fs->frame.h == 800);
    CHECK(fs->focused && !fl->visible);
    uint64_t *ids = NULL;
    REQUIRE(pg_sway_tree_stacking(j, len, &ids, &n, &e) == PG_OK);
    REQUIRE(n == 3);
    CHECK(ids[0] == 5 && ids[1] == 7 && ids[2] == 6);
    free(ids);
    free(w);
    free(j);
}

/* A hand-written tree in sway's shape: one output, one workspace, whose
 * views are given as JSON. */
static char *tree_with(const char *tiled, const char *floating) {
    const char *fmt =
        "{\"id\":1,\"type\":\"root\",\"name\":\"root\",\"nodes\":[{\"id\":3,\"type\":\"output\",\"name\":\"HEADLESS-1\","
        "\"active\":true,\"current_workspace\":\"1\",\"nodes\":[{\"id\":4,\"type\":\"workspace\",\"name\":\"1\","
        "\"layout\":\"splith\",\"nodes\":[%s],\"floating_nodes\":[%s]}],\"floating_nodes\":[]}],\"floating_nodes\":[]}";
    size_t cap = strlen(fmt) + strlen(tiled) + strlen(floating) + 1;
    char *s = malloc(cap);
    if (s) snprintf(s, cap, fmt, tiled, floating);
    return s;
}

#define GEOM                                                                                                  \
    "\"rect\":{\"x\":10,\"y\":20,\"width\":100,\"height\":50},\"window_rect\":{\"x\":0,\"y\":0,\"width\":100," \
    "\"height\":50},\"deco_rect\":{\"x\":0,\"y\":0,\"width\":0,\"height\":0}"

static pg_err parse_views(const char *tiled, const char *floating, pg_window **w, size_t *n, pg_error *e) {
    char *t = tree_with(tiled, floating);
    pg_err rc = t ? pg_sway_tree_windows(t, strlen(t), w, n, e) : PG_E_INTERNAL;
    free(t);
    return rc;
}

PG_TEST(xwayland_views_take_the_x_class_and_a_transient_floating_one_is_a_dialog) {
    const char *main_view = "{\"id\":20,\"type\":\"con\",\"name\":\"xterm\",\"pid\":400,\"focused\":false,"
                            "\"visible\":true,\"shell\":\"xwayland\",\"window\":4194305,\"window_properties\":{"
                            "\"class\":\"XTerm\",\"instance\":\"xterm\",\"transient_for\":null}," GEOM "}";
    const char *dlg = "{\"id\":21,\"type\":\"floating_con\",\"name\":\"Save\",\"pid\":400,\"focused\":true,"
                      "\"visible\":true,\"shell\":\"xwayland\",\"window\":4194320,\"window_properties\":{"
                      "\"class\":\"XTerm\",\"instance\":\"dlg\",\"transient_for\":4194305}," GEOM "}";
    pg_window *w = NULL;
    size_t n = 0;
    pg_error e = {0};
    REQUIRE(parse_views(main_view, dlg, &w, &n, &e) == PG_OK);
    REQUIRE(n == 2);
    CHECK_STR(w[0].class_name, "XTerm");
    CHECK_STR(w[0].instance, "xterm");
    CHECK_EQ_INT(w[0].kind, PG_WINDOW_NORMAL);
    CHECK_EQ_INT(w[1].kind, PG_WINDOW_DIALOG);
    CHECK_EQ_INT(w[1].parent, 20);
    CHECK(w[1].frame.x == 10 && w[1].frame.h == 50); /* no title bar: the frame is the container */
    free(w);
}

PG_TEST(a_long_title_is_cut_on_a_character_boundary_and_marked) {
    char title[700] = "";
    for (int i = 0; i < 300; i++) strcat(title, "\xc3\xa9"); /* 600 bytes of é */
    char view[1200];
    snprintf(view, sizeof view,
             "{\"id\":20,\"type\":\"con\",\"name\":\"%s\",\"app_id\":\"a\",\"pid\":1,\"focused\":false,"
             "\"visible\":true," GEOM "}",
             title);
    pg_window *w = NULL;
    size_t n = 0;
    pg_error e = {0};
    REQUIRE(parse_views(view, "", &w, &n, &e) == PG_OK);
    REQUIRE(n == 1);
    CHECK(w[0].title_cut);
    CHECK_EQ_INT(strlen(w[0].title), 510); /* 511 would split an é */
    free(w);
}

static void expect_bad(int *pg_failed_, const char *tiled, const char *what) {
    pg_window *w = NULL;
    size_t n = 0;
    pg_error e = {0};
    pg_err rc = parse_views(tiled, "", &w, &n, &e);
    if (rc != PG_E_INTERNAL || !strstr(e.message, what) || w || n)
        fprintf(stderr, "for %s: rc %d, message \"%s\", wanted \"%s\"\n", tiled, rc, e.message, what);
    CHECK_EQ_INT(rc, PG_E_INTERNAL);
    CHECK(strstr(e.message, what) != NULL);
    CHECK(w == NULL && n == 0);
}

PG_TEST(wrong_types_missing_fields_and_huge_numbers_are_errors) {
    expect_bad(pg_failed_, "{\"id\":\"20\",\"type\":\"con\",\"pid\":1,\"focused\":false,\"visible\":true," GEOM "}",
               "\"id\" is not a number");
    expect_bad(pg_failed_, "{\"id\":20,\"type\":\"con\",\"pid\":1,\"visible\":true," GEOM "}", "\"focused\" is missing");
    expect_bad(pg_failed_, "{\"id\":20,\"type\":\"con\",\"pid\":1e300,\"focused\":false,\"visible\":true," GEOM "}",
               "\"pid\" is out of range");
    expect_bad(pg_failed_, "{\"id\":20.5,\"type\":\"con\",\"pid\":1,\"focused\":false,\"visible\":true," GEOM "}",
               "\"id\" is out of range");
    expect_bad(pg_failed_,
               "{\"id\":20,\"type\":\"con\",\"pid\":1,\"focused\":false,\"visible\":true,\"rect\":{\"x\":1e12,\"y\":0,"
               "\"width\":1,\"height\":1},\"window_rect\":{\"x\":0,\"y\":0,\"width\":1,\"height\":1},\"deco_rect\":{"
               "\"x\":0,\"y\":0,\"width\":0,\"height\":0}}",
               "\"x\" is out of range");
    expect_bad(pg_failed_, "{\"id\":20,\"type\":\"con\",\"pid\":1,\"focused\":false,\"visible\":true}", "\"rect\" is missing");
    expect_bad(pg_failed_, "{\"id\":20,\"type\":\"con\",\"name\":7,\"pid\":1,\"focused\":false,\"visible\":true," GEOM "}",
               "\"name\" is not a string");
    expect_bad(pg_failed_, "{\"id\":20,\"type\":\"con\",\"nodes\":{}}", "\"nodes\" is not an array");
    expect_bad(pg_failed_, "{\"id\":20,\"nodes\":[]}", "\"type\" is missing");
    expect_bad(pg_failed_, "42", "not an object");
    expect_bad(pg_failed_,
               "{\"id\":20,\"type\":\"con\",\"pid\":1,\"focused\":false,\"visible\":true,\"window_properties\":[]," GEOM "}",
               "\"window_properties\" is not an object");
}

PG_TEST(deep_nesting_too_many_nodes_and_non_json_are_errors) {
    size_t depth = 200, cap = depth * 40 + 64;
    char *deep = malloc(cap), *p = deep;
    REQUIRE(deep != NULL);
    for (size_t i = 0; i < depth; i++) p += sprintf(p, "{\"id\":%zu,\"type\":\"con\",\"nodes\":[", i + 100);
    p += sprintf(p, "{\"id\":1,\"type\":\"con\"}");
    for (size_t i = 0; i < depth; i++) p += sprintf(p, "]}");
    expect_bad(pg_failed_, deep, "deeper than");
    free(deep);

    size_t many = PG_SWAY_MAX_NODES + 1;
    char *wide = malloc(many * 32 + 8);
    REQUIRE(wide != NULL);
    p = wide;
    for (size_t i = 0; i < many; i++) p += sprintf(p, "%s{\"id\":%zu,\"type\":\"con\"}", i ? "," : "", i + 100);
    expect_bad(pg_failed_, wide, "more than");
    free(wide);

    pg_window *w = (pg_window *)1;
    size_t n = 9;
    pg_error e = {0};
    CHECK_EQ_INT(pg_sway_tree_windows("{\"id\":", 6, &w, &n, &e), PG_E_INTERNAL);
    CHECK(w == NULL && n == 0);
    CHECK(strstr(e.message, "not JSON") != NULL);
}

PG_TEST(outputs_lists_the_active_ones_and_the_focused_is_primary) {
    size_t len = 0, n = 0;
    char *j = slurp("sway_outputs_basic.json", &len);
    REQUIRE(j != NULL);
    pg_monitor *m = NULL;
    pg_error e = {0};
    REQUIRE(pg_sway_outputs(j, len, &m, &n, &e) == PG_OK);
    REQUIRE(n == 1);
    CHECK_STR(m[0].name, "HEADLESS-1");
    CHECK(m[0].r.x == 0 && m[0].r.y == 0 && m[0].r.w == 1280 && m[0].r.h == 800 && m[0].primary);
    free(m);
    free(j);
    const char *two = "[{\"name\":\"DP-1\",\"active\":true,\"focused\":false,\"rect\":{\"x\":-1920,\"y\":0,\"width\":"
                      "1920,\"height\":1080}},{\"name\":\"DP-2\",\"active\":false,\"rect\":{\"x\":0,\"y\":0,\"width\":0,"
                      "\"height\":0}}]";
    REQUIRE(pg_sway_outputs(two, strlen(two), &m, &n, &e) == PG_OK);
    REQUIRE(n == 1);
    CHECK(m[0].r.x == -1920 && !m[0].primary);
    free(m);
    const char *bad[] = {"{}", "[1]", "[{\"active\":true}]", "[{\"name\":\"x\",\"active\":1,\"rect\":{}}]",
                         "[{\"name\":\"x\",\"rect\":{\"x\":0,\"y\":0,\"width\":-1,\"height\":1}}]"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        m = (pg_monitor *)1;
        CHECK_EQ_INT(pg_sway_outputs(bad[i], strlen(bad[i]), &m, &n, &e), PG_E_INTERNAL);
        CHECK(m == NULL && n == 0);
    }
}
