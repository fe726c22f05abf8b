/* Script mode's line splitter and the client's argument parsers. */
#include "pg_cli.h"
#include "pg_script.h"
#include "pg_test.h"

static int split(const char *line, const char *last, pg_script_line *l) {
    pg_error e;
    return pg_script_split(line, last, l, &e);
}

PG_TEST(split_quotes_escapes_comments) {
    pg_script_line l;
    REQUIRE(split("type --window 'pixelgate demo' \"a \\\"b\\\" \\$c\" d\\ e # tail", NULL, &l) == PG_OK);
    CHECK_EQ_INT(l.n, 5);
    CHECK_STR(l.words[0], "type");
    CHECK_STR(l.words[2], "pixelgate demo");
    CHECK_STR(l.words[3], "a \"b\" $c");
    CHECK_STR(l.words[4], "d e");
    pg_script_line_fini(&l);
    REQUIRE(split("   # just a comment", NULL, &l) == PG_OK);
    CHECK_EQ_INT(l.n, 0);
    pg_script_line_fini(&l);
    REQUIRE(split("", NULL, &l) == PG_OK);
    CHECK_EQ_INT(l.n, 0);
    pg_script_line_fini(&l);
}

PG_TEST(split_expands_only_last) {
    pg_script_line l;
    const char *tok = "cap:AAAAAAAAAAAAAAAAAAAAAA";
    REQUIRE(split("info $last \"${last}x\" '$last'", tok, &l) == PG_OK);
    CHECK_EQ_INT(l.n, 4);
    CHECK_STR(l.words[1], tok);
    CHECK_STR(l.words[2], "cap:AAAAAAAAAAAAAAAAAAAAAAx");
    CHECK_STR(l.words[3], "$last");
    pg_script_line_fini(&l);
    CHECK_EQ_INT(split("info $last", NULL, &l), PG_E_USAGE);
    CHECK_EQ_INT(split("info $HOME", tok, &l), PG_E_USAGE);
    CHECK_EQ_INT(split("type 'open", tok, &l), PG_E_USAGE);
    CHECK_EQ_INT(split("type \"open", tok, &l), PG_E_USAGE);
    CHECK_EQ_INT(split("type x\\", tok, &l), PG_E_USAGE);
    CHECK_EQ_INT(split("info ${last", tok, &l), PG_E_USAGE);
}

PG_TEST(split_worst_case_expansion_fits) {
    char line[5 * 1000 + 1];
    for (int i = 0; i < 1000; i++) memcpy(line + 5 * i, "$last", 5);
    line[5000] = 0;
    pg_script_line l;
    REQUIRE(split(line, "cap:AAAAAAAAAAAAAAAAAAAAAA", &l) == PG_OK);
    CHECK_EQ_INT(l.n, 1);
    CHECK_EQ_INT(strlen(l.words[0]), 26 * 1000);
    pg_script_line_fini(&l);
}

PG_TEST(region_point_size_id_parsers) {
    cJSON *j;
    pg_error e;
    REQUIRE(pg_parse_region("1,-2,30,40", &j, &e) == PG_OK);
    CHECK_EQ_INT(cJSON_GetObjectItem(j, "y")->valueint, -2);
    cJSON_Delete(j);
    CHECK_EQ_INT(pg_parse_region("1,2,0,4", &j, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_parse_region("1,2,3", &j, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_parse_region("1,2,3,4,5", &j, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_parse_region("a,b,c,d", &j, &e), PG_E_USAGE);
    long x, y;
    REQUIRE(pg_parse_point("12,34", &x, &y, &e) == PG_OK);
    CHECK(x == 12 && y == 34);
    CHECK_EQ_INT(pg_parse_point("12;34", &x, &y, &e), PG_E_USAGE);
    REQUIRE(pg_parse_size("1280x720", &j, &e) == PG_OK);
    CHECK_EQ_INT(cJSON_GetObjectItem(j, "h")->valueint, 720);
    cJSON_Delete(j);
    CHECK_EQ_INT(pg_parse_size("1280x", &j, &e), PG_E_USAGE);
    double id;
    REQUIRE(pg_parse_window_id("0x1a00003", &id, &e) == PG_OK);
    CHECK(id == 0x1a00003);
    CHECK_EQ_INT(pg_parse_window_id("-5", &id, &e), PG_E_USAGE);
    CHECK_EQ_INT(pg_parse_window_id("12abc", &id, &e), PG_E_USAGE);
}

PG_TEST(builders_reject_bad_command_lines) {
    const pg_cmd *snap = pg_cmd_find("snapshot");
    REQUIRE(snap && snap->build);
    pg_cli_request r = {0};
    pg_error e;
    char *a1[] = {"--screen", "--window", "x"};
    CHECK_EQ_INT(snap->build(3, a1, &r, &e), PG_E_USAGE);
    pg_cli_request_fini(&r);
    char *a2[] = {"--bogus"};
    CHECK_EQ_INT(snap->build(1, a2, &r, &e), PG_E_USAGE);
    pg_cli_request_fini(&r);
    char *a3[] = {"--window", "demo", "--region", "1,2,3,4", "--max-size=100x50"};
    REQUIRE(snap->build(5, a3, &r, &e) == PG_OK);
    CHECK_STR(cJSON_GetObjectItem(r.args, "window")->valuestring, "demo");
    CHECK_EQ_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(r.args, "max_size"), "w")->valueint, 100);
    pg_cli_request_fini(&r);
    const pg_cmd *click = pg_cmd_find("click");
    char *a4[] = {"--window", "demo"};
    CHECK_EQ_INT(click->build(2, a4, &r, &e), PG_E_USAGE); /* no --at */
    pg_cli_request_fini(&r);
    const pg_cmd *type = pg_cmd_find("type");
    char *a5[] = {"--id", "7", "hello", "extra"};
    CHECK_EQ_INT(type->build(4, a5, &r, &e), PG_E_USAGE);
    pg_cli_request_fini(&r);
}
