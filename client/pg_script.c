/* SPDX-License-Identifier: MIT */
/* Script mode's line splitter and its variables (a parser: fuzzed). The
 * runner is pg_script_run.c. */
#include "pg_script.h"

#include <stdio.h>
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
    const pg_script_vars *vars; /* may be NULL */
    bool bare;                  /* no quote, escape or $ in the current word so far */
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
    if (len == 0) return put(s, '$'); /* a lone $ is literal */
    const char *v = pg_script_lookup(s->vars, p, len);
    if (v) {
        for (; *v; v++)
            if (put(s, *v)) return PG_E_USAGE;
        return PG_OK;
    }
    if (len == 4 && !strncmp(p, "last", 4))
        return pg_error_set(s->e, PG_E_USAGE, "take a snapshot first",
                            "$last used before any step of this script returned a token");
    return pg_error_set(s->e, PG_E_USAGE, "bind it first: COMMAND ... as NAME; write \\$ for a literal dollar",
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
    s->bare = true;
    while (*s->in && !is_blank(*s->in)) {
        pg_err rc;
        char c = *s->in;
        if (c == '\'' || c == '"' || c == '$' || c == '\\') s->bare = false;
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

pg_err pg_script_split(const char *line, const pg_script_vars *vars, pg_script_line *out, pg_error *e) {
    memset(out, 0, sizeof *out);
    size_t len = strlen(line);
    if (len > PG_SCRIPT_MAX_LINE) return pg_error_set(e, PG_E_USAGE, NULL, "script line over %d bytes", PG_SCRIPT_MAX_LINE);
    /* Room for the line, NULs, and expansions: the shortest reference
     * ("$a", 2 bytes) grows to at most PG_SCRIPT_MAX_VALUE - 1 bytes. */
    size_t cap = len * (PG_SCRIPT_MAX_VALUE / 2) + 2;
    out->buf = malloc(cap);
    if (!out->buf) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    splitter s = {line, out->buf, out->buf + cap, vars, true, e};
    for (;;) {
        while (is_blank(*s.in)) s.in++;
        if (!*s.in || *s.in == '#') break;
        if (out->n == PG_SCRIPT_MAX_WORDS) {
            pg_script_line_fini(out);
            return pg_error_set(e, PG_E_USAGE, NULL, "more than %d words on a script line", PG_SCRIPT_MAX_WORDS);
        }
        out->words[out->n] = s.out;
        if (word(&s)) {
            pg_script_line_fini(out);
            return e ? e->code : PG_E_USAGE;
        }
        out->bare[out->n++] = s.bare;
    }
    return PG_OK;
}


static bool valid_name(const char *name) {
    size_t n = strlen(name);
    if (n == 0 || n >= PG_SCRIPT_MAX_NAME || (name[0] >= '0' && name[0] <= '9')) return false;
    for (size_t i = 0; i < n; i++)
        if (!is_ident(name[i])) return false;
    return true;
}

const char *pg_script_lookup(const pg_script_vars *vars, const char *name, size_t len) {
    for (int i = 0; vars && i < vars->n; i++)
        if (strlen(vars->v[i].name) == len && !strncmp(vars->v[i].name, name, len)) return vars->v[i].value;
    return NULL;
}

pg_err pg_script_bind(pg_script_vars *vars, const char *name, const char *value, pg_error *e) {
    if (!valid_name(name))
        return pg_error_set(e, PG_E_USAGE, "a name is letters, digits and _, at most 31, not starting with a digit",
                            "bad variable name \"%.40s\"", name);
    if (strlen(value) >= PG_SCRIPT_MAX_VALUE)
        return pg_error_set(e, PG_E_USAGE, NULL, "value for $%s is too long", name);
    int i = 0;
    while (i < vars->n && strcmp(vars->v[i].name, name)) i++;
    if (i == vars->n) {
        if (vars->n == PG_SCRIPT_MAX_VARS)
            return pg_error_set(e, PG_E_USAGE, "reuse names", "more than %d variables in a script", PG_SCRIPT_MAX_VARS);
        vars->n++;
    }
    snprintf(vars->v[i].name, sizeof vars->v[i].name, "%s", name);
    snprintf(vars->v[i].value, sizeof vars->v[i].value, "%s", value);
    return PG_OK;
}
