/* SPDX-License-Identifier: MIT */
/* Usage lines and `pixelgate help`, written from the declarations
 * (common/pg_ops.def): what the command line accepts is what help says. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pg_cli.h"

const char pg_cli_tagline[] = "see and drive GUIs through the pixelgate broker, without the pixels";

const pg_cli_extra pg_cli_extras[] = {
    {"pixelgate run [--check] FILE|-",
     "Script mode: one command per line, same syntax as above, over one connection. # starts a comment.\n"
     "  COMMAND ... as NAME      binds the token the step returned to $NAME ($last: the last step's token)\n"
     "  sleep SECONDS            waits (0 < SECONDS <= 3600)\n"
     "  repeat N COMMAND ...     N times (1..1000), stopping at the first failure\n"
     "  expect-fail [--exit N] COMMAND ...\n"
     "                           passes when the command fails with exit N, or without --exit with a verdict\n"
     "                           about the screen (1, 3, 4, 6, 8, 10, 11); a success fails the step (exit 1)\n"
     "  finally                  the lines after it run however the script ended\n"
     "Stops at the first failure (then runs the finally block) and exits with that failure's code.\n"
     "--check: parses and builds every step and checks that each --window it names is there now (unless an\n"
     "earlier step waits for it to appear), runs nothing, prints {\"check\":\"ok\",\"steps\":N}.\n"
     "Prints: one {\"step\":N,\"line\":N,\"command\":\"...\",\"result\":{...}} per step; a failed step as\n"
     "{\"step\":N,...,\"error\":{\"code\":...,\"exit\":N,\"message\":...},\"details\":{...}}, an expected\n"
     "failure with \"expected_failure\" instead; the first failure's error also on stderr."},
    {"pixelgate mcp [--max-image PX] [--profile P | --tools A,B,...] [--exclude-tools A,B,...]",
     "An MCP server on stdin/stdout (docs/mcp.md): one tool per command above (approve is not one), the same\n"
     "arguments as JSON, the same JSON answers; errors as tool errors with code, message and recovery_tip.\n"
     "It offers the tools of a profile (default, observe, drive, assert, accept, all; default when none is\n"
     "given), or exactly those --tools names, less those --exclude-tools names.\n"
     "Released pixels come back as image content, downscaled by the broker to fit PX on the long side\n"
     "(default 1568). Register it with an MCP host as the command: pixelgate mcp."},
    {"pixelgate help [COMMAND]", "Describes a command, its arguments and its output."},
};
const size_t pg_cli_n_extras = sizeof pg_cli_extras / sizeof pg_cli_extras[0];

const pg_cli_extra pg_cli_globals[] = {
    {"--socket PATH", "the broker's socket (Windows: its pipe); else $PIXELGATE_SOCKET, else the platform's default"},
    {"--timeout SECONDS", "how long to wait for the broker's answer (default 120; 0 < SECONDS <= 86400)"},
    {"--help, -h", "the list of commands"},
    {"--version", "the client's version"},
};
const size_t pg_cli_n_globals = sizeof pg_cli_globals / sizeof pg_cli_globals[0];

/* Appends printf-style text to out[n] at *len, never past its end. */
static void add(char *out, size_t n, size_t *len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void add(char *out, size_t n, size_t *len, const char *fmt, ...) {
    if (*len >= n) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(out + *len, n - *len, fmt, ap);
    va_end(ap);
    if (w > 0) *len += (size_t)w < n - *len ? (size_t)w : n - *len - 1;
}

/* "--window REGEX", "--first", "A", "--mask X,Y,W,H", "TOKEN..." (a positional list) */
void pg_cli_arg_spelling(const pg_argdecl *a, char *out, size_t n) {
    if (!a->cli) snprintf(out, n, "%s%s", a->meta, a->type == PG_T_STRINGS || a->type == PG_T_RECTS ? "..." : "");
    else if (a->type == PG_T_BOOL) snprintf(out, n, "%s", a->cli);
    else if (a->type == PG_T_ENUM) {
        char vals[128];
        snprintf(vals, sizeof vals, "%s", a->values);
        snprintf(out, n, "%s %s", a->cli, vals);
    } else snprintf(out, n, "%s %s", a->cli, a->meta ? a->meta : "VALUE");
}

static bool group_required(const pg_opdecl *d, char g) {
    (void)d;
    return g != 0; /* every one_of group takes exactly one */
}

void pg_cli_synopsis(const pg_opdecl *d, char *out, size_t n) {
    size_t len = 0;
    out[0] = '\0';
    add(out, n, &len, "pixelgate %s", d->cli);
    for (size_t i = 0; i < d->n_args; i++) {
        const pg_argdecl *a = &d->args[i];
        char sp[160];
        if (a->one_of) {
            bool first = true;
            for (size_t j = 0; j < i; j++) first &= d->args[j].one_of != a->one_of;
            if (!first) continue;
            add(out, n, &len, " %s", group_required(d, a->one_of) ? "(" : "[");
            for (size_t j = i; j < d->n_args; j++) {
                if (d->args[j].one_of != a->one_of) continue;
                pg_cli_arg_spelling(&d->args[j], sp, sizeof sp);
                add(out, n, &len, "%s%s", j == i ? "" : " | ", sp);
            }
            add(out, n, &len, "%s", group_required(d, a->one_of) ? ")" : "]");
            continue;
        }
        pg_cli_arg_spelling(a, sp, sizeof sp);
        bool list = a->type == PG_T_RECTS || a->type == PG_T_STRINGS;
        if (a->flags & PG_AF_REQUIRED) add(out, n, &len, " %s", sp);
        else add(out, n, &len, " [%s]%s", sp, list ? "..." : "");
    }
}

/* "(0..1, default 0.1)" for an argument's help line; "" when it has neither. */
static void bounds_text(const pg_argdecl *a, char *out, size_t n) {
    char range[96] = "", def[64] = "";
    bool r = pg_arg_range_text(a, range, sizeof range) && a->type != PG_T_ENUM && a->type != PG_T_STRING;
    bool d = pg_arg_default_text(a, def, sizeof def);
    if (a->type == PG_T_RECTS || a->type == PG_T_STRINGS) snprintf(range, sizeof range, "at most %.0f", a->max);
    if (r && d) snprintf(out, n, " (%s, default %s)", range, def);
    else if (r) snprintf(out, n, " (%s)", range);
    else if (d) snprintf(out, n, " (default %s)", def);
    else out[0] = '\0';
}

void pg_cli_print_help(FILE *f, const pg_opdecl *d) {
    char syn[1024];
    pg_cli_synopsis(d, syn, sizeof syn);
    fprintf(f, "usage: %s\n\n%s\n%s\n", syn, d->summary, d->description);
    if (d->n_args) fprintf(f, "\narguments:\n");
    for (size_t i = 0; i < d->n_args; i++) {
        const pg_argdecl *a = &d->args[i];
        char sp[160], b[160];
        pg_cli_arg_spelling(a, sp, sizeof sp);
        bounds_text(a, b, sizeof b);
        fprintf(f, "  %-24s %s%s\n", sp, a->help, b);
    }
    fprintf(f, "\nprints: %s\n", d->prints);
}
