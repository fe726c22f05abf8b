/* SPDX-License-Identifier: MIT */
/* pg_cli.h - the client's command model.
 *
 * Every operation's command line comes from its declaration
 * (common/pg_ops.def): pg_cli_build turns argv into one broker request (op +
 * JSON args + attachments) and checks it with the broker's own check of the
 * declaration, with the command line's spellings in messages. That step is
 * pure, so the same builder serves the command line, script mode
 * (`pixelgate run`) and tests. pg_session_call sends the request and returns
 * the broker's result; printing and exit codes are in one place (pg_cli.c),
 * so every command answers the same way: one JSON object on stdout, errors
 * as JSON on stderr, exit code = pg_err.
 * Never: decodes pixels (the client links no image library) or sends a path
 * for the broker to open: files are read here and sent as bytes.
 */
#ifndef PG_CLI_H
#define PG_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include <cJSON.h>

#include "pg_opdecl.h"
#include "pg_proto.h"

typedef struct {
    const char *op; /* wire op name (static) */
    cJSON *args;    /* owned */
    cJSON *local;   /* owned: the arguments only the client uses (PG_AF_LOCAL), or NULL */
    pg_blob att[PG_PROTO_MAX_ATTACH];
    size_t n_att;
    /* What to do with bytes the broker releases (attachment 0), if any:
     * write them to out_path as the client's own user, or put them in the
     * result as base64. Pixels reach the client only this way. */
    const char *out_path; /* points into local */
    bool out_base64;
    pg_blob *out_bytes;   /* when set, the bytes are moved here (the caller frees .data): MCP */
    const char *report_dir; /* --report DIR (points into local): report.json/.md/.html go there */
    const char *last_file;  /* the last image file read (argv), for ops that check its name */
} pg_cli_request;

/* The operation argv names: "assert changed" takes two words, "snapshot" one;
 * *used says how many. NULL when none. */
const pg_opdecl *pg_cli_find_op(int argc, char **argv, int *used);
/* True when word is the first word of two-word commands ("assert"). */
bool pg_cli_is_group(const char *word);
/* argv (the words after the command) -> *out, reading the files it names. */
pg_err pg_cli_build(const pg_opdecl *d, int argc, char **argv, pg_cli_request *out, pg_error *e);

/* Inside one long connection (run scripts, pixelgate mcp) a lease that is
 * taken belongs to that connection: it ends when the script or the session
 * does, not at its ttl (the broker's lease --connection). Adds
 * "connection": true to a lease request that takes one. */
void pg_cli_bind_lease(pg_cli_request *req);

/* Help text from the declaration: the usage line, one argument's spelling
 * ("--window REGEX"), and the whole `pixelgate help CMD` page. */
void pg_cli_synopsis(const pg_opdecl *d, char *out, size_t n);
void pg_cli_arg_spelling(const pg_argdecl *a, char *out, size_t n);
void pg_cli_print_help(FILE *f, const pg_opdecl *d);

/* What the client does besides the operations (run, mcp, help) and its
 * global options, for `pixelgate --help` and the man page (tools/pg_gendoc). */
typedef struct {
    const char *synopsis, *help;
} pg_cli_extra;
extern const char pg_cli_tagline[];
extern const pg_cli_extra pg_cli_extras[];
extern const size_t pg_cli_n_extras;
extern const pg_cli_extra pg_cli_globals[];
extern const size_t pg_cli_n_globals;

/* ---- session: one connection, reused by script mode ---- */
typedef struct {
    const char *address;
    pg_conn *conn;
    uint64_t next_id;
    uint32_t timeout_ms;
} pg_session;

/* Connects now (pg_session_call otherwise connects on first use), so that
 * another thread may pg_conn_abort s->conn while the call waits. */
pg_err pg_session_connect(pg_session *s, pg_error *e);
/* Sends req (consumed) and waits for the answer. On success *result is an
 * owned copy of the result object; on a broker error, e is filled and
 * *details may hold an owned copy of error.details. */
pg_err pg_session_call(pg_session *s, pg_cli_request *req, cJSON **result, cJSON **details, pg_error *e);
void pg_session_close(pg_session *s);
void pg_cli_request_fini(pg_cli_request *r);

/* --report DIR: writes report.json and report.md from body (the answer, or
 * a check's measurements) and report.html from html (the page the broker
 * released, or NULL); names the files in body.report.files. */
pg_err pg_cli_report(const char *dir, cJSON *body, const pg_blob *html, pg_error *e);

/* Prints {"error":{code,exit,message,recovery_tip[,details][,step,line]}} to stderr. */
void pg_cli_print_error(const pg_error *e, const cJSON *details, int step, int line);
/* Prints obj as one compact JSON line on stdout. */
void pg_cli_print_json(const cJSON *obj);

/* ---- value parsers (pg_cmdline.c) ---- */
/* "X,Y,W,H" -> {"x","y","w","h"}; "X,Y" -> {"x","y"}; "WxH" -> {"w","h"}. */
pg_err pg_parse_region(const char *s, cJSON **out, pg_error *e);
pg_err pg_parse_point(const char *s, cJSON **out, pg_error *e);
pg_err pg_parse_size(const char *s, cJSON **out, pg_error *e);
/* An IMAGE argument: "cap:..." becomes {"token": ...}; anything else is a
 * local file that the client reads itself and attaches (the broker never
 * opens a client's path): {"attachment": N}. */
pg_err pg_cli_image_arg(pg_cli_request *req, const char *name, const char *value, pg_error *e);

#endif
