/* SPDX-License-Identifier: MIT */
/* pg_script.h - script mode (`pixelgate run [--check] FILE|-`).
 *
 * A script is one statement per line, in the command line's syntax. Words
 * split on blanks; 'single quotes' are literal; "double quotes" honour \"
 * \\ \$; a backslash outside quotes escapes the next character; a word
 * starting with # begins a comment; a leading "pixelgate" is allowed.
 *
 * Statements (docs/agents.md "run" has the reference):
 *   COMMAND ARGS... [as NAME]   a client command; "as NAME" (two bare words
 *                               at the end) binds the token it returned
 *   sleep SECONDS               waits in the client (0 < S <= 3600)
 *   repeat N COMMAND ARGS...    the command N times (1..1000), stopping at
 *                               the first failure
 *   expect-fail [--exit N] COMMAND ARGS...
 *                               passes when the command fails with exit N,
 *                               or (no --exit) with a verdict about the
 *                               screen: 1, 3, 4, 6, 8, 10 or 11
 *   finally                     the lines after it run however the script
 *                               ended, once; the first failure's exit code
 *                               is kept
 * Variables: $last is the token of the last step that returned one; $NAME
 * one bound with "as NAME" (letters, digits, _; not "last"). Any other $NAME
 * is an error (no silent empty expansions). Lines up to 64 KiB.
 * Never: runs a shell or expands anything else.
 */
#ifndef PG_SCRIPT_H
#define PG_SCRIPT_H

#include <stdbool.h>
#include <stdio.h>

#include "pg_error.h"

#define PG_SCRIPT_MAX_LINE 65536
#define PG_SCRIPT_MAX_WORDS 256
#define PG_SCRIPT_MAX_VARS 64
#define PG_SCRIPT_MAX_NAME 32
#define PG_SCRIPT_MAX_VALUE 64 /* a token ("cap:" and 22 characters) with room */

typedef struct {
    char name[PG_SCRIPT_MAX_NAME];
    char value[PG_SCRIPT_MAX_VALUE];
} pg_script_var;

typedef struct {
    pg_script_var v[PG_SCRIPT_MAX_VARS];
    int n;
} pg_script_vars;

typedef struct {
    char *words[PG_SCRIPT_MAX_WORDS]; /* point into buf */
    bool bare[PG_SCRIPT_MAX_WORDS];   /* the word had no quote, escape or $ in it */
    int n;
    char *buf;                        /* owned */
} pg_script_line;

/* Splits one line, expanding the variables vars holds (NULL: none). n == 0
 * for blank and comment lines. */
pg_err pg_script_split(const char *line, const pg_script_vars *vars, pg_script_line *out, pg_error *e);
void pg_script_line_fini(pg_script_line *l);

/* Binds name to value (a new name, or a new value for it); PG_E_USAGE for a
 * bad name or a full table. */
pg_err pg_script_bind(pg_script_vars *vars, const char *name, const char *value, pg_error *e);
/* The value of name, or NULL. */
const char *pg_script_lookup(const pg_script_vars *vars, const char *name, size_t len);

/* Runs a whole script from f: one JSON object per step on stdout (failed
 * steps too), the first failure's error on stderr; returns its exit code,
 * or 0. check: parse every line, build every command and ask the broker
 * for every --window a step names (unless an earlier step waits for it to
 * appear), and run nothing. */
int pg_script_run(FILE *f, const char *address, bool check);

#endif
