/* pg_cli.h - the client's command model.
 *
 * Each command (client/cmd_*.c) turns its argv into one broker request (op +
 * JSON args + optional attachments). That step is pure, so the same builders
 * serve the command line and script mode (`pixelgate run`). pg_cli_call sends
 * the request and returns the broker's result; printing and exit codes are in
 * one place (pg_cli.c), so every command answers the same way: one JSON
 * object on stdout, errors as JSON on stderr, exit code = pg_err.
 * Never: decodes pixels (the client links no image library) or sends a path
 * for the broker to open: files are read here and sent as bytes.
 */
#ifndef PG_CLI_H
#define PG_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include <cJSON.h>

#include "pg_proto.h"

typedef struct {
    const char *op; /* wire op name (static) */
    cJSON *args;    /* owned */
    pg_blob att[PG_PROTO_MAX_ATTACH];
    size_t n_att;
    /* What to do with bytes the broker releases (attachment 0), if any:
     * write them to out_path as the client's own user, or put them in the
     * result as base64. Pixels reach the client only this way. */
    const char *out_path;
    bool out_base64;
} pg_cli_request;

typedef pg_err (*pg_cmd_build_fn)(int argc, char **argv, pg_cli_request *out, pg_error *e);

typedef struct {
    const char *name;
    pg_cmd_build_fn build; /* NULL for commands run by the client itself (run, help) */
    const char *synopsis;
    const char *help;      /* what it does and what it prints */
} pg_cmd;

const pg_cmd *pg_cmd_find(const char *name);
const pg_cmd *pg_cmd_list(size_t *n);

/* ---- session: one connection, reused by script mode ---- */
typedef struct {
    const char *address;
    pg_conn *conn;
    uint64_t next_id;
    uint32_t timeout_ms;
} pg_session;

/* Sends req (consumed) and waits for the answer. On success *result is an
 * owned copy of the result object; on a broker error, e is filled and
 * *details may hold an owned copy of error.details. */
pg_err pg_session_call(pg_session *s, pg_cli_request *req, cJSON **result, cJSON **details, pg_error *e);
void pg_session_close(pg_session *s);
void pg_cli_request_fini(pg_cli_request *r);

/* Prints {"error":{code,exit,message,recovery_tip[,details][,step,line]}} to stderr. */
void pg_cli_print_error(const pg_error *e, const cJSON *details, int step, int line);
/* Prints obj as one compact JSON line on stdout. */
void pg_cli_print_json(const cJSON *obj);

/* ---- argument helpers shared by cmd_*.c ---- */
typedef struct {
    const char *name;  /* "--window" */
    bool takes_value;
    const char *value; /* filled: last value given */
    bool seen;
} pg_opt;

/* Parses argv[0..argc) (argv[0] is the first argument after the command
 * name). Positional arguments go to pos (at most max_pos). */
pg_err pg_opts_parse(int argc, char **argv, pg_opt *opts, size_t n_opts, char **pos, size_t max_pos,
                     size_t *n_pos, pg_error *e);
const pg_opt *pg_opt_get(const pg_opt *opts, size_t n, const char *name);
/* "X,Y,W,H" -> {"x","y","w","h"}; "X,Y" -> x, y; "WxH" -> w, h; id decimal or 0x hex. */
pg_err pg_parse_region(const char *s, cJSON **out, pg_error *e);
pg_err pg_parse_point(const char *s, long *x, long *y, pg_error *e);
pg_err pg_parse_size(const char *s, cJSON **out, pg_error *e);
pg_err pg_parse_window_id(const char *s, double *out, pg_error *e);
/* An IMAGE argument: "cap:..." becomes {"token": ...}; anything else is a
 * local file that the client reads itself and attaches (the broker never
 * opens a client's path): {"attachment": N}. */
pg_err pg_cli_image_arg(pg_cli_request *req, const char *name, const char *value, pg_error *e);
/* Adds window/id/first to args from --window/--id/--first. */
pg_err pg_add_target(const pg_opt *opts, size_t n, cJSON *args, bool required, pg_error *e);

#define PG_TARGET_OPTS {"--window", true, NULL, false}, {"--id", true, NULL, false}, {"--first", false, NULL, false}

#endif
