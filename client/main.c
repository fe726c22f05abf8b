/* SPDX-License-Identifier: MIT */
/* pixelgate - the agent's client: one piped call per operation.
 * Global options, command lookup, one request, one JSON answer, one exit code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_cli.h"
#include "pg_mcp.h"
#include "pg_script.h"
#include "pg_utf8.h"

static void print_usage(FILE *f) {
    fprintf(f,
            "pixelgate %s - %s\n\n"
            "usage: pixelgate [--socket PATH] [--timeout SECONDS] COMMAND [ARGS]\n\n"
            "commands:\n",
            PG_VERSION, pg_cli_tagline);
    char syn[1024];
    for (size_t i = 0; i < PG_OPI_COUNT; i++) {
        pg_cli_synopsis(&pg_opdecls[i], syn, sizeof syn);
        fprintf(f, "  %s\n", syn);
    }
    for (size_t i = 0; i < pg_cli_n_extras; i++) fprintf(f, "  %s\n", pg_cli_extras[i].synopsis);
    fprintf(f, "\nglobal options:\n");
    for (size_t i = 0; i < pg_cli_n_globals; i++)
        fprintf(f, "  %-20s %s\n", pg_cli_globals[i].synopsis, pg_cli_globals[i].help);
    fprintf(f,
            "\nThe socket is --socket, else $PIXELGATE_SOCKET, else %s.\n"
            "Output: one JSON object on stdout; errors as JSON on stderr.\n"
            "Exit codes (pixelgate(1), EXIT STATUS):",
            pg_transport_default_address());
    for (int c = PG_OK; c <= PG_ERR_LAST; c++) fprintf(f, "%s %d %s", c ? "," : "", c, pg_err_name((pg_err)c));
    fprintf(f, ".\n'pixelgate help COMMAND' (or 'pixelgate COMMAND --help') describes a command and its output.\n");
}

/* Every failure of the command line itself: one JSON error on stderr, exit 2. */
static int usage_error(const char *tip, const char *what, const char *arg) {
    pg_error e;
    pg_error_set(&e, PG_E_USAGE, tip, *arg ? "%s\"%s\"" : "%s%s", what, arg);
    pg_cli_print_error(&e, NULL, 0, 0);
    return PG_E_USAGE;
}

/* help, help CMD, help assert (every "assert ..." command), help run. */
static int cmd_help(int argc, char **argv) {
    if (argc == 0) {
        print_usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < pg_cli_n_extras; i++)
        if (!strncmp(pg_cli_extras[i].synopsis + 10, argv[0], strlen(argv[0])) &&
            pg_cli_extras[i].synopsis[10 + strlen(argv[0])] == ' ') {
            printf("usage: %s\n\n%s\n", pg_cli_extras[i].synopsis, pg_cli_extras[i].help);
            return 0;
        }
    int used;
    const pg_opdecl *d = pg_cli_find_op(argc, argv, &used);
    if (d) {
        pg_cli_print_help(stdout, d);
        return 0;
    }
    if (pg_cli_is_group(argv[0])) {
        size_t n = strlen(argv[0]);
        for (size_t i = 0, shown = 0; i < PG_OPI_COUNT; i++)
            if (!strncmp(pg_opdecls[i].cli, argv[0], n) && pg_opdecls[i].cli[n] == ' ') {
                if (shown++) printf("\n");
                pg_cli_print_help(stdout, &pg_opdecls[i]);
            }
        return 0;
    }
    return usage_error("run 'pixelgate --help' for the list", "no command ", argv[0]);
}

/* How many words of argv name the command: an operation's one or two
 * ("assert changed"), else one (a group, run, mcp, or an unknown word). */
static int command_words(int argc, char **argv) {
    int used;
    return pg_cli_find_op(argc, argv, &used) ? used : 1;
}

/* "pixelgate CMD ... --help" before any "--": the same as "pixelgate help CMD".
 * (A value that is literally --help goes after "--".) */
static bool wants_help(int argc, char **argv) {
    for (int k = 1; k < argc && strcmp(argv[k], "--"); k++)
        if (!strcmp(argv[k], "--help")) return true;
    return false;
}

static int cmd_run(int argc, char **argv, const char *address) {
    pg_error e;
    bool check = argc == 2 && !strcmp(argv[0], "--check");
    if (check) argc--, argv++;
    if (argc != 1) {
        pg_error_set(&e, PG_E_USAGE, "pixelgate run [--check] script.txt, or pixelgate run - < script.txt",
                     "run takes one FILE or -, after --check if given");
        pg_cli_print_error(&e, NULL, 0, 0);
        return PG_E_USAGE;
    }
    /* The client reads its own script file, as the invoking user. */
    FILE *f = strcmp(argv[0], "-") ? pg_fopen_utf8(argv[0], "r") : stdin;
    if (!f) {
        pg_error_set(&e, PG_E_NOTFOUND, NULL, "cannot open script %s", argv[0]);
        pg_cli_print_error(&e, NULL, 0, 0);
        return PG_E_NOTFOUND;
    }
    int rc = pg_script_run(f, address, check);
    if (f != stdin) fclose(f);
    return rc;
}

static int mcp_usage(pg_error *e) {
    if (!e->message[0])
        pg_error_set(e, PG_E_USAGE, "pixelgate help mcp",
                     "mcp takes --max-image PX (16..65535), --profile NAME, --tools A,B,... and --exclude-tools A,B,...");
    pg_cli_print_error(e, NULL, 0, 0);
    return PG_E_USAGE;
}

static int cmd_mcp(int argc, char **argv, const char *address, uint32_t timeout_ms) {
    static pg_mcp_toolset tools; /* the server's for its whole life */
    pg_mcp_config cfg = {.address = address, .timeout_ms = timeout_ms, .max_image = PG_MCP_MAX_IMAGE_DEFAULT,
                         .tools = &tools};
    const char *profile = NULL, *names = NULL, *exclude = NULL;
    pg_error e;
    pg_error_clear(&e);
    for (int i = 0; i < argc; i += 2) { /* every option takes a value */
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        long px = v ? strtol(v, &end, 10) : 0;
        if (!strcmp(argv[i], "--max-image") && end && !*end && px >= 16 && px <= 65535) cfg.max_image = (uint32_t)px;
        else if (!strcmp(argv[i], "--profile") && v) profile = v;
        else if (!strcmp(argv[i], "--tools") && v) names = v;
        else if (!strcmp(argv[i], "--exclude-tools") && v) exclude = v;
        else return mcp_usage(&e);
    }
    if (pg_mcp_toolset_init(&tools, profile, names, exclude, &e)) return mcp_usage(&e);
    return pg_mcp_serve(&cfg, stdin, stdout);
}

static int run_one(const pg_opdecl *d, int argc, char **argv, const char *address, uint32_t timeout_ms) {
    pg_cli_request req = {0};
    pg_error e;
    pg_error_clear(&e);
    cJSON *result = NULL, *details = NULL;
    pg_err rc = pg_cli_build(d, argc, argv, &req, &e);
    if (rc) {
        pg_cli_request_fini(&req);
    } else {
        pg_session s = {.address = address, .timeout_ms = timeout_ms};
        rc = pg_session_call(&s, &req, &result, &details, &e);
        pg_session_close(&s);
    }
    /* A failed assertion, and a wait that ran out (its last frame, how long
     * it waited), still print their measurements on stdout. */
    if ((PG_ERR_IS_VERDICT(rc) || rc == PG_E_TIMEOUT) && details) pg_cli_print_json(details);
    if (rc) pg_cli_print_error(&e, details, 0, 0);
    else pg_cli_print_json(result);
    cJSON_Delete(result);
    cJSON_Delete(details);
    return rc;
}

int main(int argc, char **argv) {
    if (pg_args_utf8(&argc, &argv) != 0) {
        pg_error e;
        pg_error_set(&e, PG_E_INTERNAL, NULL, "cannot read the command line as UTF-8");
        pg_cli_print_error(&e, NULL, 0, 0);
        return PG_E_INTERNAL;
    }
    const char *address = getenv("PIXELGATE_SOCKET");
    if (!address || !*address) address = pg_transport_default_address();
    uint32_t timeout_ms = 120000;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if ((!strcmp(argv[i], "--socket") || !strcmp(argv[i], "--timeout")) && i + 1 >= argc)
            return usage_error("run 'pixelgate --help'", "a value is missing after ", argv[i]);
        if (!strcmp(argv[i], "--socket")) address = argv[++i];
        else if (!strcmp(argv[i], "--timeout")) {
            char *end = NULL;
            const char *v = argv[++i];
            double t = strtod(v, &end);
            if (end == v || *end || !(t > 0 && t <= 86400))
                return usage_error("give --timeout a number of seconds, e.g. --timeout 30",
                                   "--timeout wants seconds, more than 0 and at most 86400; got ", v);
            timeout_ms = (uint32_t)(t * 1000);
            if (!timeout_ms) timeout_ms = 1; /* under a millisecond: the least wait, not none */
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            print_usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--version")) {
            printf("pixelgate %s\n", PG_VERSION);
            return 0;
        } else return usage_error("run 'pixelgate --help'", "unknown global option ", argv[i]);
    }
    if (i >= argc) return usage_error("run 'pixelgate --help' for the list of commands", "no command given", "");
    const char *name = argv[i];
    if (!strcmp(name, "help")) /* "help --help" is "help help" */
        return i + 1 < argc && !strcmp(argv[i + 1], "--help") ? cmd_help(1, argv + i)
                                                              : cmd_help(argc - i - 1, argv + i + 1);
    if (wants_help(argc - i, argv + i)) return cmd_help(command_words(argc - i, argv + i), argv + i);
    if (!strcmp(name, "run")) return cmd_run(argc - i - 1, argv + i + 1, address);
    if (!strcmp(name, "mcp")) return cmd_mcp(argc - i - 1, argv + i + 1, address, timeout_ms);
    int used;
    const pg_opdecl *d = pg_cli_find_op(argc - i, argv + i, &used);
    if (!d) {
        if (!pg_cli_is_group(name))
            return usage_error("run 'pixelgate --help' for the list", "unknown command ", name);
        pg_error e;
        pg_error_set(&e, PG_E_USAGE, NULL, "%s needs a kind: see 'pixelgate help %s'", name, name);
        pg_cli_print_error(&e, NULL, 0, 0);
        return PG_E_USAGE;
    }
    return run_one(d, argc - i - used, argv + i + used, address, timeout_ms);
}
