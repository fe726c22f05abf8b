/* Script mode: the line splitter (a parser: fuzzed) and the runner. */
#include "pg_script.h"

#include <stdlib.h>
#include <string.h>

#include "pg_cli.h"

void pg_script_line_fini(pg_script_line *l) {
    free(l->buf);
    memset(l, 0, sizeof *l);
}

typedef struct {
    const char *in;   /* cursor in the line */
    char *out;        /* cursor in buf */
    char *end;        /* end of buf */
    const char *last; /* $last, may be NULL */
    pg_error *e;
} splitter;

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
static int is_ident(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

static pg_err put(splitter *s, char c) {
    if (s->out >= s->end) return pg_error_set(s->e, PG_E_USAGE, NULL, "script line too long");
    *s->out++ = c;
    return PG_OK;
}

/* Expands $NAME at s->in (which points at '$'). */
static pg_err expand(splitter *s) {
    const char *p = s->in + 1;
    size_t len = 0;
    if (*p == '{') {
        const char *close = strchr(p, '}');
        if (!close) return pg_error_set(s->e, PG_E_USAGE, NULL, "unterminated ${");
        p++;
        len = (size_t)(close - p);
        s->in = close + 1;
    } else {
        while (is_ident(p[len])) len++;
        s->in = p + len;
    }
    if (len == 4 && !strncmp(p, "last", 4)) {
        if (!s->last)
            return pg_error_set(s->e, PG_E_USAGE, "take a snapshot first", "$last used before any snapshot in this script");
        for (const char *q = s->last; *q; q++)
            if (put(s, *q)) return PG_E_USAGE;
        return PG_OK;
    }
    if (len == 0) return put(s, '$'); /* a lone $ is literal */
    return pg_error_set(s->e, PG_E_USAGE, "only $last is defined; write \\$ for a literal dollar",
                        "unknown variable $%.*s", (int)len, p);
}

static pg_err single_quoted(splitter *s) {
    s->in++;
    while (*s->in && *s->in != '\'')
        if (put(s, *s->in++)) return PG_E_USAGE;
    if (*s->in != '\'') return pg_error_set(s->e, PG_E_USAGE, NULL, "unterminated single quote");
    s->in++;
    return PG_OK;
}

static pg_err double_quoted(splitter *s) {
    s->in++;
    while (*s->in && *s->in != '"') {
        pg_err rc;
        if (*s->in == '\\' && (s->in[1] == '"' || s->in[1] == '\\' || s->in[1] == '$')) {
            rc = put(s, s->in[1]);
            s->in += 2;
        } else if (*s->in == '$') {
            rc = expand(s);
        } else {
            rc = put(s, *s->in++);
        }
        if (rc) return rc;
    }
    if (*s->in != '"') return pg_error_set(s->e, PG_E_USAGE, NULL, "unterminated double quote");
    s->in++;
    return PG_OK;
}

/* Reads one word into buf; returns PG_OK with the word NUL-terminated. */
static pg_err word(splitter *s) {
    while (*s->in && !is_blank(*s->in)) {
        pg_err rc;
        char c = *s->in;
        if (c == '\'') rc = single_quoted(s);
        else if (c == '"') rc = double_quoted(s);
        else if (c == '$') rc = expand(s);
        else if (c == '\\') {
            if (!s->in[1]) return pg_error_set(s->e, PG_E_USAGE, NULL, "backslash at end of line");
            rc = put(s, s->in[1]);
            s->in += 2;
        } else {
            rc = put(s, c);
            s->in++;
        }
        if (rc) return rc;
    }
    return put(s, '\0');
}

pg_err pg_script_split(const char *line, const char *last, pg_script_line *out, pg_error *e) {
    memset(out, 0, sizeof *out);
    size_t len = strlen(line);
    if (len > PG_SCRIPT_MAX_LINE) return pg_error_set(e, PG_E_USAGE, NULL, "script line over %d bytes", PG_SCRIPT_MAX_LINE);
    /* Room for the line, NULs, and $last expansions (each at most 26 chars for a 5-char "$last"). */
    size_t cap = len * 6 + 2;
    out->buf = malloc(cap);
    if (!out->buf) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    splitter s = {line, out->buf, out->buf + cap, last, e};
    for (;;) {
        while (is_blank(*s.in)) s.in++;
        if (!*s.in || *s.in == '#') break;
        if (out->n == PG_SCRIPT_MAX_WORDS) {
            pg_script_line_fini(out);
            return pg_error_set(e, PG_E_USAGE, NULL, "more than %d words on a script line", PG_SCRIPT_MAX_WORDS);
        }
        out->words[out->n++] = s.out;
        if (word(&s)) {
            pg_script_line_fini(out);
            return e ? e->code : PG_E_USAGE;
        }
    }
    return PG_OK;
}

/* Runs one split line against the session; prints its step object. */
static pg_err run_step(pg_session *sess, pg_script_line *l, int step, int lineno, char last[64], cJSON **details,
                       pg_error *e) {
    int first = (l->n > 0 && !strcmp(l->words[0], "pixelgate")) ? 1 : 0;
    if (first >= l->n) return pg_error_set(e, PG_E_USAGE, NULL, "empty command");
    int used;
    const pg_opdecl *d = pg_cli_find_op(l->n - first, l->words + first, &used);
    if (!d)
        return pg_error_set(e, PG_E_USAGE, "see 'pixelgate --help' for commands usable in scripts",
                            "\"%s\" is not a command scripts can run", l->words[first]);
    const char *name = d->cli;
    pg_cli_request req = {0};
    pg_err rc = pg_cli_build(d, l->n - first - used, l->words + first + used, &req, e);
    cJSON *result = NULL;
    if (rc) pg_cli_request_fini(&req);
    else rc = pg_session_call(sess, &req, &result, details, e);
    if (rc) return rc;
    const cJSON *tok = cJSON_GetObjectItemCaseSensitive(result, "token");
    if (!strcmp(name, "snapshot") && cJSON_IsString(tok)) snprintf(last, 64, "%s", tok->valuestring);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "step", step);
    cJSON_AddNumberToObject(o, "line", lineno);
    cJSON_AddStringToObject(o, "command", name);
    cJSON_AddItemToObject(o, "result", result);
    pg_cli_print_json(o);
    cJSON_Delete(o);
    return PG_OK;
}

/* Reads one line (without its newline) into buf; -1 at EOF, -2 when too long. */
static int read_line(FILE *f, char *buf, size_t cap) {
    if (!fgets(buf, (int)cap, f)) return -1;
    size_t n = strlen(buf);
    if (n && buf[n - 1] == '\n') {
        buf[n - 1] = '\0';
        return 0;
    }
    if (!feof(f)) return -2;
    return 0;
}

int pg_script_run(FILE *f, const char *address) {
    pg_session sess = {.address = address, .timeout_ms = 120000};
    char *buf = malloc(PG_SCRIPT_MAX_LINE + 2);
    char last[64] = "";
    int lineno = 0, step = 0, rc = 0;
    pg_error e;
    pg_error_clear(&e);
    cJSON *details = NULL;
    while (buf && rc == 0) {
        int r = read_line(f, buf, PG_SCRIPT_MAX_LINE + 2);
        if (r == -1) break;
        lineno++;
        pg_script_line l;
        if (r == -2) rc = pg_error_set(&e, PG_E_USAGE, NULL, "script line %d over %d bytes", lineno, PG_SCRIPT_MAX_LINE);
        else rc = pg_script_split(buf, last[0] ? last : NULL, &l, &e);
        if (rc) break;
        if (l.n > 0) rc = run_step(&sess, &l, ++step, lineno, last, &details, &e);
        pg_script_line_fini(&l);
    }
    if (!buf) rc = pg_error_set(&e, PG_E_INTERNAL, NULL, "out of memory");
    if (PG_ERR_IS_VERDICT(rc) && details) pg_cli_print_json(details); /* the measurements, on stdout */
    if (rc) pg_cli_print_error(&e, details, step > 0 ? step : 1, lineno);
    cJSON_Delete(details);
    free(buf);
    pg_session_close(&sess);
    return rc;
}
