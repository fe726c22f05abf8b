/* pg_script.h - script mode (`pixelgate run FILE|-`).
 *
 * A script is one subcommand per line, in the same syntax as the command
 * line. Words split on blanks; 'single quotes' are literal; "double quotes"
 * honour \" \\ \$; a backslash outside quotes escapes the next character; a
 * word starting with # begins a comment; a leading "pixelgate" is allowed.
 * $last expands to the token of the last successful snapshot; any other $NAME
 * is an error (no silent empty expansions). Lines up to 64 KiB.
 * Never: runs a shell or expands anything else.
 */
#ifndef PG_SCRIPT_H
#define PG_SCRIPT_H

#include <stdio.h>

#include "pg_error.h"

#define PG_SCRIPT_MAX_LINE 65536
#define PG_SCRIPT_MAX_WORDS 256

typedef struct {
    char *words[PG_SCRIPT_MAX_WORDS]; /* point into buf */
    int n;
    char *buf;                        /* owned */
} pg_script_line;

/* Splits one line. last may be NULL (then $last is an error). n == 0 for blank/comment lines. */
pg_err pg_script_split(const char *line, const char *last, pg_script_line *out, pg_error *e);
void pg_script_line_fini(pg_script_line *l);

/* Runs a whole script from f; returns the exit code of the first failing
 * step, or 0. One JSON object per step on stdout. */
int pg_script_run(FILE *f, const char *address);

#endif
