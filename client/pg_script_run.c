/* SPDX-License-Identifier: MIT */
/* Script mode's runner (pg_script.h): reads the whole script, then runs its
 * body and its finally block over one broker session, printing one JSON
 * object per step on stdout - a failed step too, with its error and its
 * measurements - and the first failure's error on stderr. --check runs
 * nothing: it parses and builds every step and resolves the windows named. */
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <signal.h>
#endif

#include "pg_cli.h"
#include "pg_script.h"
#include "pg_time.h"

#define MAX_LINES 10000
#define MAX_REPEAT 1000
#define MAX_SLEEP_S 3600

typedef struct {
    char **text; /* every line, without its newline */
    int n;
    int finally_at; /* index of the "finally" line, or -1 */
} script;

typedef struct {
    pg_session sess;
    pg_script_vars vars;
    bool check;          /* --check: build, resolve, run nothing */
    int step;            /* steps started */
    pg_err first_rc;     /* the first failure's code, 0 if none */
    pg_error first_e;    /* ...and its error */
    int first_step, first_line;
    char waited[64][128]; /* --check: windows an earlier step waits to appear */
    int n_waited;
} runner;

/* ---- reading ---- */

static void script_fini(script *s) {
    for (int i = 0; i < s->n; i++) free(s->text[i]);
    free(s->text);
}

/* Reads f into s; PG_E_USAGE for a line too long or too many lines. */
static pg_err script_read(FILE *f, script *s, pg_error *e) {
    memset(s, 0, sizeof *s);
    s->finally_at = -1;
    s->text = calloc(MAX_LINES, sizeof *s->text);
    char *buf = malloc(PG_SCRIPT_MAX_LINE + 2);
    pg_err rc = s->text && buf ? PG_OK : pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    while (!rc && fgets(buf, PG_SCRIPT_MAX_LINE + 2, f)) {
        size_t len = strlen(buf);
        if (len && buf[len - 1] == '\n') buf[--len] = '\0';
        else if (!feof(f)) rc = pg_error_set(e, PG_E_USAGE, NULL, "script line %d over %d bytes", s->n + 1, PG_SCRIPT_MAX_LINE);
        if (!rc && s->n == MAX_LINES) rc = pg_error_set(e, PG_E_USAGE, NULL, "a script has at most %d lines", MAX_LINES);
        if (!rc && !(s->text[s->n++] = strdup(buf))) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    }
    free(buf);
    return rc;
}

/* ---- output ---- */

static cJSON *step_object(runner *r, int line, const char *command) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "step", r->step);
    cJSON_AddNumberToObject(o, "line", line);
    cJSON_AddStringToObject(o, "command", command);
    return o;
}

static cJSON *error_json(const pg_error *e) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "code", pg_err_name(e->code));
    cJSON_AddNumberToObject(o, "exit", e->code);
    cJSON_AddStringToObject(o, "message", e->message);
    return o;
}

/* A failed step: on stdout like the others (error, measurements), and
 * remembered when it is the script's first failure. */
static pg_err failed(runner *r, int line, const char *command, pg_err rc, const pg_error *e, cJSON *details) {
    cJSON *o = step_object(r, line, command);
    cJSON_AddItemToObject(o, "error", error_json(e));
    if (details) cJSON_AddItemToObject(o, "details", cJSON_Duplicate(details, 1));
    pg_cli_print_json(o);
    cJSON_Delete(o);
    if (!r->first_rc) {
        r->first_rc = rc;
        r->first_e = *e;
        r->first_step = r->step, r->first_line = line;
    }
    return rc;
}

/* ---- statements ---- */

/* One client command (words[0..n)), built and (unless checking) sent. */
static pg_err call(runner *r, char **words, int n, cJSON **result, cJSON **details, const char **name, pg_error *e) {
    int used;
    const pg_opdecl *d = n > 0 ? pg_cli_find_op(n, words, &used) : NULL;
    *name = d ? d->cli : n > 0 ? words[0] : "";
    if (!d)
        return pg_error_set(e, PG_E_USAGE, "see 'pixelgate --help' for commands usable in scripts",
                            "\"%s\" is not a command scripts can run", n > 0 ? words[0] : "");
    pg_cli_request req = {0};
    pg_err rc = pg_cli_build(d, n - used, words + used, &req, e);
    if (rc || r->check) {
        pg_cli_request_fini(&req);
        return rc;
    }
    pg_cli_bind_lease(&req); /* a lease the script takes ends with the script */
    return pg_session_call(&r->sess, &req, result, details, e);
}

/* The token a result carries at its top level, if any. */
static const char *token_of(const cJSON *result) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(result, "token");
    return cJSON_IsString(t) && !strncmp(t->valuestring, "cap:", 4) ? t->valuestring : NULL;
}

/* Which exits expect-fail accepts without --exit: verdicts about the
 * screen. USAGE, UNREACHABLE, UNSUPPORTED, INTERNAL and BUSY are the
 * script's or the system's, never what the app did. */
static bool screen_verdict(pg_err rc) {
    return rc == PG_E_ASSERT || rc == PG_E_POLICY || rc == PG_E_NOTFOUND || rc == PG_E_TIMEOUT ||
           rc == PG_E_BADINPUT || rc == PG_E_BLOCKED || rc == PG_E_NEEDS_APPROVAL;
}

static bool parse_count(const char *s, long lo, long hi, long *v) {
    char *end = NULL;
    *v = strtol(s, &end, 10);
    return end && end != s && !*end && *v >= lo && *v <= hi;
}

/* COMMAND ... [as NAME] [expect-fail [--exit N]]: one run of it. */
typedef struct {
    char **words;
    int n;
    const char *bind;  /* NAME, or NULL */
    bool expect_fail;
    long expect_exit;  /* 0: any screen verdict */
    int iteration;     /* repeat's 1..N, 0 when not repeated */
} command;

static pg_err run_command(runner *r, int line, const command *cmd, pg_error *e) {
    cJSON *result = NULL, *details = NULL;
    const char *name;
    r->step++;
    pg_err rc = call(r, cmd->words, cmd->n, &result, &details, &name, e);
    if (r->check) return rc ? failed(r, line, name, rc, e, NULL) : PG_OK; /* built, not sent */
    if (cmd->expect_fail) {
        bool as_expected = rc && (cmd->expect_exit ? (long)rc == cmd->expect_exit : screen_verdict(rc));
        if (as_expected) {
            cJSON *o = step_object(r, line, name);
            cJSON_AddItemToObject(o, "expected_failure", error_json(e));
            if (details) cJSON_AddItemToObject(o, "details", details), details = NULL;
            pg_cli_print_json(o);
            cJSON_Delete(o);
            return PG_OK;
        }
        if (!rc) {
            cJSON_Delete(details);
            details = result, result = NULL; /* what it answered is the evidence */
            rc = pg_error_set(e, PG_E_ASSERT, "the step did what expect-fail said it would not",
                              "expect-fail: %s succeeded", name);
        }
    }
    if (rc) {
        failed(r, line, name, rc, e, details);
        cJSON_Delete(details);
        cJSON_Delete(result);
        return rc;
    }
    const char *tok = token_of(result);
    if (tok) pg_script_bind(&r->vars, "last", tok, e);
    if (cmd->bind && (rc = tok ? pg_script_bind(&r->vars, cmd->bind, tok, e)
                               : pg_error_set(e, PG_E_USAGE, "bind only steps that answer a token",
                                              "%s returned no token to bind as $%s", name, cmd->bind))) {
        failed(r, line, name, rc, e, NULL);
        cJSON_Delete(result);
        return rc;
    }
    cJSON *o = step_object(r, line, name);
    if (cmd->iteration) cJSON_AddNumberToObject(o, "iteration", cmd->iteration);
    if (cmd->bind) cJSON_AddStringToObject(o, "as", cmd->bind);
    cJSON_AddItemToObject(o, "result", result);
    pg_cli_print_json(o);
    cJSON_Delete(o);
    return PG_OK;
}

static pg_err run_sleep(runner *r, int line, char **words, int n, pg_error *e) {
    char *end = NULL;
    double s = n == 2 ? strtod(words[1], &end) : 0;
    r->step++;
    if (n != 2 || !end || *end || !(s > 0 && s <= MAX_SLEEP_S)) {
        pg_error_set(e, PG_E_USAGE, "sleep SECONDS, e.g. sleep 0.5", "sleep takes seconds in (0, %d]", MAX_SLEEP_S);
        return failed(r, line, "sleep", PG_E_USAGE, e, NULL);
    }
    if (r->check) return PG_OK;
    pg_sleep_ms(s * 1000);
    cJSON *o = step_object(r, line, "sleep");
    cJSON_AddNumberToObject(o, "slept_s", s);
    pg_cli_print_json(o);
    cJSON_Delete(o);
    return PG_OK;
}

/* --check: the windows a step names must be there now, unless an earlier
 * step waits for them to appear. */
static pg_err check_window(runner *r, int line, const char *name, char **words, int n, pg_error *e) {
    const char *pattern = NULL;
    bool first = false, appear = false;
    for (int i = 0; i < n; i++) {
        if (!strcmp(words[i], "--window") && i + 1 < n) pattern = words[i + 1];
        first |= !strcmp(words[i], "--first");
        appear |= !strcmp(words[i], "--appear");
    }
    if (!pattern) return PG_OK;
    for (int i = 0; i < r->n_waited; i++)
        if (!strcmp(r->waited[i], pattern)) return PG_OK;
    if (appear && r->n_waited < 64) {
        snprintf(r->waited[r->n_waited++], sizeof r->waited[0], "%s", pattern);
        return PG_OK;
    }
    char *argv[] = {"windows", "--match", (char *)pattern};
    pg_cli_request req = {0};
    cJSON *result = NULL, *details = NULL;
    pg_err rc = pg_cli_build(pg_cli_find_op(1, argv, &(int){0}), 2, argv + 1, &req, e);
    if (!rc) rc = pg_session_call(&r->sess, &req, &result, &details, e);
    else pg_cli_request_fini(&req);
    cJSON_Delete(details);
    int visible = 0;
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(result, "windows")) visible += cJSON_IsTrue(cJSON_GetObjectItem(w, "visible"));
    cJSON_Delete(result);
    if (!rc && visible == 0)
        rc = pg_error_set(e, PG_E_NOTFOUND, "start the app first, or wait for it with wait-for --window R --appear",
                          "no visible window matches \"%s\"", pattern);
    else if (!rc && visible > 1 && !first)
        rc = pg_error_set(e, PG_E_USAGE, "narrow the pattern, use --id, or add --first",
                          "%d windows match \"%s\"", visible, pattern);
    return rc ? failed(r, line, name, rc, e, NULL) : PG_OK;
}

/* One line: blank, sleep, repeat, expect-fail or a command. */
static pg_err run_line(runner *r, int line, const char *text, pg_error *e) {
    pg_script_line l;
    pg_err rc = pg_script_split(text, &r->vars, &l, e);
    if (rc) {
        r->step++;
        return failed(r, line, "", rc, e, NULL);
    }
    char **w = l.words;
    bool *bare = l.bare;
    int n = l.n;
    if (n > 0 && !strcmp(w[0], "pixelgate")) w++, bare++, n--;
    command cmd = {w, n, NULL, false, 0, 0};
    long times = 1;
    if (n == 0) {
        rc = l.n ? (r->step++, failed(r, line, "pixelgate", pg_error_set(e, PG_E_USAGE, NULL, "empty command"), e, NULL))
                 : PG_OK;
    } else if (!strcmp(w[0], "sleep") && bare[0]) {
        rc = run_sleep(r, line, w, n, e);
        n = 0;
    } else {
        if (!strcmp(w[0], "repeat") && bare[0]) {
            if (n < 3 || !parse_count(w[1], 1, MAX_REPEAT, &times)) {
                r->step++;
                rc = failed(r, line, "repeat", pg_error_set(e, PG_E_USAGE, "repeat N COMMAND ...", "repeat takes a count "
                            "1..%d and a command", MAX_REPEAT), e, NULL);
            }
            cmd.words += 2, cmd.n -= 2, bare += 2;
        } else if (!strcmp(w[0], "expect-fail") && bare[0]) {
            cmd.expect_fail = true;
            cmd.words++, cmd.n--, bare++;
            if (cmd.n >= 2 && !strcmp(cmd.words[0], "--exit")) {
                if (!parse_count(cmd.words[1], 1, PG_ERR_LAST, &cmd.expect_exit)) {
                    r->step++;
                    rc = failed(r, line, "expect-fail", pg_error_set(e, PG_E_USAGE, NULL, "--exit takes an exit code "
                                "1..%d", PG_ERR_LAST), e, NULL);
                }
                cmd.words += 2, cmd.n -= 2, bare += 2;
            }
        }
        if (!rc && cmd.n >= 3 && !strcmp(cmd.words[cmd.n - 2], "as") && bare[cmd.n - 2] && bare[cmd.n - 1]) {
            cmd.bind = cmd.words[cmd.n - 1];
            cmd.n -= 2;
            pg_script_var probe;
            if (strlen(cmd.bind) >= sizeof probe.name || !strcmp(cmd.bind, "last")) {
                r->step++;
                rc = failed(r, line, "as", pg_error_set(e, PG_E_USAGE, "pick another name",
                            "cannot bind $%.40s", cmd.bind), e, NULL);
            }
        }
    }
    if (!rc && n > 0 && r->check) {
        rc = run_command(r, line, &cmd, e);
        /* what the step would bind: a stand-in, so later lines split as they will */
        if (!rc && cmd.bind) rc = pg_script_bind(&r->vars, cmd.bind, "cap:CHECKCHECKCHECKCHECKCH", e);
        if (!rc) rc = pg_script_bind(&r->vars, "last", "cap:CHECKCHECKCHECKCHECKCH", e);
        if (!rc) rc = check_window(r, line, cmd.words[0], cmd.words, cmd.n, e);
    } else if (!rc && n > 0) {
        for (long i = 1; i <= times && !rc; i++) {
            cmd.iteration = times > 1 ? (int)i : 0;
            rc = run_command(r, line, &cmd, e);
        }
    }
    pg_script_line_fini(&l);
    return rc;
}

/* Nobody reads stdout any more (the reader exited: a closed pipe): the
 * body stops, as at a failure, so that no more input goes out unseen; the
 * finally block still runs. */
static pg_err stdout_gone(runner *r, int line) {
    if (!r->first_rc) {
        r->first_rc = PG_E_INTERNAL;
        pg_error_set(&r->first_e, PG_E_INTERNAL, "keep reading the script's output until it ends",
                     "stdout was closed: the script stopped after this step, and its finally block ran");
        r->first_step = r->step, r->first_line = line;
    }
    return PG_E_INTERNAL;
}

/* Lines [from, to): stops at the first failure; the body (not cleanup)
 * also when stdout was closed. */
static pg_err run_block(runner *r, const script *s, int from, int to, bool cleanup) {
    pg_error e;
    for (int i = from; i < to; i++) {
        pg_err rc = run_line(r, i + 1, s->text[i], &e);
        if (rc) return rc;
        if (!cleanup && ferror(stdout)) return stdout_gone(r, i + 1);
    }
    return PG_OK;
}

/* The "finally" line: one, alone on its line. */
static pg_err find_finally(script *s, pg_error *e) {
    for (int i = 0; i < s->n; i++) {
        pg_script_line l;
        if (pg_script_split(s->text[i], NULL, &l, NULL) != PG_OK) continue; /* reported when it runs */
        bool is = l.n == 1 && l.bare[0] && !strcmp(l.words[0], "finally");
        pg_script_line_fini(&l);
        if (!is) continue;
        if (s->finally_at >= 0)
            return pg_error_set(e, PG_E_USAGE, "one finally block per script",
                                "a second \"finally\" on line %d (the first is on line %d)", i + 1, s->finally_at + 1);
        s->finally_at = i;
    }
    return PG_OK;
}

int pg_script_run(FILE *f, const char *address, bool check) {
    runner *r = calloc(1, sizeof *r);
    script s = {NULL, 0, -1};
    pg_error e;
    pg_error_clear(&e);
    pg_err rc = r ? script_read(f, &s, &e) : pg_error_set(&e, PG_E_INTERNAL, NULL, "out of memory");
    if (!rc) rc = find_finally(&s, &e);
    if (rc) {
        pg_cli_print_error(&e, NULL, 0, 0);
        script_fini(&s);
        free(r);
        return rc;
    }
    r->sess = (pg_session){.address = address, .timeout_ms = 120000};
    r->check = check;
    int body_end = s.finally_at >= 0 ? s.finally_at : s.n;
#ifndef _WIN32
    signal(SIGPIPE, SIG_IGN); /* a closed stdout ends the body, never the finally block (stdout_gone) */
#endif
    run_block(r, &s, 0, body_end, false);
    if (s.finally_at >= 0) run_block(r, &s, s.finally_at + 1, s.n, true); /* however the body ended */
    rc = r->first_rc;
    if (rc) pg_cli_print_error(&r->first_e, NULL, r->first_step, r->first_line);
    else if (check) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "check", "ok");
        cJSON_AddNumberToObject(o, "steps", r->step);
        pg_cli_print_json(o);
        cJSON_Delete(o);
    }
    pg_session_close(&r->sess);
    script_fini(&s);
    free(r);
    return rc;
}
