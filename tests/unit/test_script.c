/* SPDX-License-Identifier: MIT */
/* Script mode's line splitter and the client's argument parsers. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pg_cli.h"
#include "pg_script.h"
#include "pg_test.h"

/* Splits with $last bound to last (NULL: nothing bound). */
static int split(const char *line, const char *last, pg_script_line *l) {
    pg_error e;
    pg_script_vars vars = {.n = 0};
    if (last) pg_script_bind(&vars, "last", last, &e);
    return pg_script_split(line, last ? &vars : NULL, l, &e);
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
    REQUIRE(pg_parse_point("12,-34", &j, &e) == PG_OK);
    CHECK(cJSON_GetObjectItem(j, "x")->valueint == 12 && cJSON_GetObjectItem(j, "y")->valueint == -34);
    cJSON_Delete(j);
    CHECK_EQ_INT(pg_parse_point("12;34", &j, &e), PG_E_USAGE);
    REQUIRE(pg_parse_size("1280x720", &j, &e) == PG_OK);
    CHECK_EQ_INT(cJSON_GetObjectItem(j, "h")->valueint, 720);
    cJSON_Delete(j);
    CHECK_EQ_INT(pg_parse_size("1280x", &j, &e), PG_E_USAGE);
}

/* argv through the declaration: op found (one or two words), built, checked. */
static pg_err build(const char *const *words, int n, pg_cli_request *r, pg_error *e) {
    int used;
    char *argv[16];
    for (int i = 0; i < n; i++) argv[i] = (char *)words[i];
    const pg_opdecl *d = pg_cli_find_op(n, argv, &used);
    if (!d) return pg_error_set(e, PG_E_USAGE, NULL, "no such command");
    memset(r, 0, sizeof *r);
    return pg_cli_build(d, n - used, argv + used, r, e);
}
#define BUILD(r, e, ...) build((const char *const[]){__VA_ARGS__}, sizeof((const char *const[]){__VA_ARGS__}) / sizeof(char *), r, e)

PG_TEST(builders_reject_bad_command_lines) {
    pg_cli_request r;
    pg_error e;
    CHECK_EQ_INT(BUILD(&r, &e, "snapshot", "--screen", "--window", "x"), PG_E_USAGE);
    pg_cli_request_fini(&r);
    CHECK_EQ_INT(BUILD(&r, &e, "snapshot", "--bogus"), PG_E_USAGE);
    pg_cli_request_fini(&r);
    REQUIRE(BUILD(&r, &e, "snapshot", "--window", "demo", "--region", "1,2,3,4", "--max-size=100x50", "--no-settle") ==
            PG_OK);
    CHECK_STR(r.op, "snapshot");
    CHECK_STR(cJSON_GetObjectItem(r.args, "window")->valuestring, "demo");
    CHECK_EQ_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(r.args, "max_size"), "w")->valueint, 100);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(r.args, "settle")));
    pg_cli_request_fini(&r);
    CHECK_EQ_INT(BUILD(&r, &e, "click", "--window", "demo"), PG_E_USAGE); /* no --at, --text or --template */
    pg_cli_request_fini(&r);
    CHECK_EQ_INT(BUILD(&r, &e, "type", "--id", "7", "hello", "extra"), PG_E_USAGE);
    pg_cli_request_fini(&r);
    CHECK_EQ_INT(BUILD(&r, &e, "judge", "cap:x", "--expect", "y", "--samples", "10"), PG_E_USAGE); /* 1..9 */
    CHECK(strstr(e.message, "--samples") != NULL);
    pg_cli_request_fini(&r);
    REQUIRE(BUILD(&r, &e, "type", "--id", "0x1a00003", "hello") == PG_OK);
    CHECK(cJSON_GetObjectItem(r.args, "id")->valuedouble == 0x1a00003);
    pg_cli_request_fini(&r);
    CHECK_EQ_INT(BUILD(&r, &e, "type", "--id", "-5", "hello"), PG_E_USAGE);
    pg_cli_request_fini(&r);
}

PG_TEST(two_word_commands_and_repeated_options) {
    pg_cli_request r;
    pg_error e;
    REQUIRE(BUILD(&r, &e, "assert", "unchanged", "cap:a", "cap:b", "--mask", "0,0,4,4", "--mask=5,5,2,2",
                  "--max-pct", "2") == PG_OK);
    CHECK_STR(r.op, "assert_unchanged");
    CHECK_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(r.args, "masks")), 2);
    CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(r.args, "a"), "token")->valuestring, "cap:a");
    pg_cli_request_fini(&r);
    CHECK_EQ_INT(BUILD(&r, &e, "assert", "unchanged", "cap:a", "cap:b", "--min-pct", "2"), PG_E_USAGE);
    pg_cli_request_fini(&r);
}

PG_TEST(local_options_stay_in_the_client) {
    pg_cli_request r;
    pg_error e;
    REQUIRE(BUILD(&r, &e, "release", "cap:a", "--png", "/tmp/x.png") == PG_OK);
    CHECK(cJSON_GetObjectItem(r.args, "png") == NULL); /* never sent */
    CHECK_STR(r.out_path, "/tmp/x.png");
    pg_cli_request_fini(&r);
    CHECK_EQ_INT(BUILD(&r, &e, "release", "cap:a"), PG_E_USAGE); /* --png or --base64 */
    pg_cli_request_fini(&r);
    CHECK_EQ_INT(BUILD(&r, &e, "release", "cap:a", "--png", "x", "--base64"), PG_E_USAGE);
    pg_cli_request_fini(&r);
}

PG_TEST(named_variables_expand_and_bare_words_are_told_from_quoted_ones) {
    pg_script_vars vars = {.n = 0};
    pg_error e;
    REQUIRE(pg_script_bind(&vars, "before", "cap:BBBBBBBBBBBBBBBBBBBBBB", &e) == PG_OK);
    REQUIRE(pg_script_bind(&vars, "last", "cap:LLLLLLLLLLLLLLLLLLLLLL", &e) == PG_OK);
    REQUIRE(pg_script_bind(&vars, "before", "cap:CCCCCCCCCCCCCCCCCCCCCC", &e) == PG_OK); /* rebinding replaces */
    CHECK_EQ_INT(vars.n, 2);
    pg_script_line l;
    REQUIRE(pg_script_split("diff $before ${last} as 'as' x", &vars, &l, &e) == PG_OK);
    CHECK_EQ_INT(l.n, 6);
    CHECK_STR(l.words[1], "cap:CCCCCCCCCCCCCCCCCCCCCC");
    CHECK(!l.bare[1]); /* expanded */
    CHECK(l.bare[0] && l.bare[3] && !l.bare[4] && l.bare[5]);
    CHECK_STR(l.words[4], "as");
    pg_script_line_fini(&l);
    CHECK_EQ_INT(pg_script_split("info $after", &vars, &l, &e), PG_E_USAGE);
    CHECK(strstr(e.message, "$after") != NULL);
    static const char *const bad[] = {"", "9lives", "has-dash", "a_name_that_is_much_too_long_for_it"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) CHECK_EQ_INT(pg_script_bind(&vars, bad[i], "x", &e), PG_E_USAGE);
    for (int i = vars.n; i < PG_SCRIPT_MAX_VARS; i++) {
        char name[16];
        snprintf(name, sizeof name, "v%d", i);
        REQUIRE(pg_script_bind(&vars, name, "x", &e) == PG_OK);
    }
    CHECK_EQ_INT(pg_script_bind(&vars, "one_more", "x", &e), PG_E_USAGE);
}

/* Runs a script against no broker; what it printed on stdout is in out. */
static int run_script(const char *text, bool check, char *out, size_t cap) {
    FILE *in = tmpfile(), *capture = tmpfile();
    if (!in || !capture) return -1;
    fputs(text, in);
    rewind(in);
    fflush(stdout);
    int saved = dup(fileno(stdout));
    dup2(fileno(capture), fileno(stdout));
#ifdef _WIN32
    int rc = pg_script_run(in, "\\\\.\\pipe\\pixelgate-script-test-nobody", check);
#else
    int rc = pg_script_run(in, "/nonexistent/pixelgate.sock", check);
#endif
    fflush(stdout);
    dup2(saved, fileno(stdout));
    close(saved);
    rewind(capture);
    size_t n = fread(out, 1, cap - 1, capture);
    out[n] = 0;
    fclose(in);
    fclose(capture);
    return rc;
}

/* --check builds every line and sends nothing: a script without windows
 * checks without a broker, and a bad line anywhere fails it up front. */
PG_TEST(check_builds_every_line_and_reports_the_bad_ones_as_steps) {
    static char out[1 << 16];
    CHECK_EQ_INT(run_script("sleep 0.01\nping as p\ninfo $p\nrepeat 3 ping\nexpect-fail --exit 4 info $last\nfinally\nping\n",
                            true, out, sizeof out),
                 0);
    CHECK(strstr(out, "\"check\":\"ok\"") != NULL);
    CHECK(strstr(out, "\"steps\":6") != NULL);
    CHECK_EQ_INT(run_script("ping\nclick --at 1,1 --window x --button sideways\nping\n", true, out, sizeof out), PG_E_USAGE);
    CHECK(strstr(out, "\"line\":2") != NULL && strstr(out, "\"error\"") != NULL);
    CHECK_EQ_INT(run_script("info $nobody\n", true, out, sizeof out), PG_E_USAGE);
    CHECK_EQ_INT(run_script("sleep forever\n", true, out, sizeof out), PG_E_USAGE);
    CHECK_EQ_INT(run_script("repeat 0 ping\n", true, out, sizeof out), PG_E_USAGE);
    CHECK_EQ_INT(run_script("ping\nfinally\nping\nfinally\n", true, out, sizeof out), PG_E_USAGE);
}

/* Without a broker every command fails UNREACHABLE: the body stops at its
 * first failure, the finally block still runs, the first code is kept, and
 * every step is on stdout, failed ones with their error. expect-fail does
 * not swallow an unreachable broker. */
PG_TEST(a_failed_body_still_runs_finally_and_keeps_the_first_code) {
    static char out[1 << 16];
    int rc = run_script("sleep 0.01\nping\nping\nfinally\nsleep 0.01\nexpect-fail ping\n", false, out, sizeof out);
    CHECK_EQ_INT(rc, PG_E_UNREACHABLE);
    int steps = 0;
    for (const char *p = out; (p = strstr(p, "\"step\":")) != NULL; p++) steps++;
    CHECK_EQ_INT(steps, 4); /* sleep, the first ping (failed), sleep, expect-fail ping (failed) */
    CHECK(strstr(out, "\"line\":3") == NULL); /* the body stopped at line 2 */
    CHECK(strstr(out, "\"line\":5,\"command\":\"sleep\"") != NULL);
    CHECK(strstr(out, "\"code\":\"BROKER_UNREACHABLE\"") != NULL);
}
