/* SPDX-License-Identifier: MIT */
/* pg_jsonrpc.h - JSON-RPC 2.0 messages as MCP's stdio transport carries them.
 *
 * What it does
 *   pg_rpc_parse takes one line (one message, no newline inside: the stdio
 *   transport's framing) and says what it is: a request (method + id), a
 *   notification (method, no id) or a response (id + result or error), with
 *   its params. It checks the envelope strictly: valid UTF-8, no NUL byte,
 *   one JSON object (a batch array is refused: the MCP revisions since
 *   2025-06-18 have none), "jsonrpc" exactly "2.0", an id that is a string or
 *   an integer (MCP forbids null), a non-empty method, params an object (or
 *   absent), a response with exactly one of result and error, no member
 *   twice, no member JSON-RPC does not define. When it fails it returns the
 *   JSON-RPC error code to answer with and, when the id could still be read,
 *   leaves it in out->id so the error can echo it.
 *   pg_rpc_line_* build the lines the server writes.
 *
 * What it never does
 *   No I/O, no knowledge of MCP methods, no globals; safe from any thread.
 *
 * Ownership
 *   out->root owns the parsed message; id, method, params, result and error
 *   point into it and live until pg_rpc_msg_fini. The pg_rpc_line_* functions
 *   take ownership of the cJSON they are given and return a malloc'd line
 *   (with its "\n") the caller frees, or NULL when out of memory.
 */
#ifndef PG_JSONRPC_H
#define PG_JSONRPC_H

#include <stdbool.h>
#include <stddef.h>

#include <cJSON.h>

#define PG_RPC_PARSE_ERROR (-32700)
#define PG_RPC_INVALID_REQUEST (-32600)
#define PG_RPC_METHOD_NOT_FOUND (-32601)
#define PG_RPC_INVALID_PARAMS (-32602)
#define PG_RPC_INTERNAL_ERROR (-32603)

#define PG_RPC_LINE_MAX ((size_t)4 << 20) /* longest message read; a longer line is a parse error */

typedef enum { PG_RPC_REQUEST, PG_RPC_NOTIFICATION, PG_RPC_RESPONSE } pg_rpc_kind;

typedef struct {
    pg_rpc_kind kind;
    cJSON *root;           /* owned */
    const cJSON *id;       /* request, response: a string or integer number; else NULL */
    const char *method;    /* request, notification */
    const cJSON *params;   /* an object, or NULL when absent */
    const cJSON *result;   /* response */
    const cJSON *error;    /* response */
} pg_rpc_msg;

/* Parses line[0..len). 0 and *out filled, or a PG_RPC_* error code with why
 * (for the error's message) and, if readable, out->id. Call pg_rpc_msg_fini
 * in both cases. */
int pg_rpc_parse(const char *line, size_t len, pg_rpc_msg *out, char *why, size_t why_len);
void pg_rpc_msg_fini(pg_rpc_msg *m);

/* Two ids are the same request: same type and value. */
bool pg_rpc_id_equal(const cJSON *a, const cJSON *b);

/* {"jsonrpc":"2.0","id":id,"result":result}\n (id copied, result consumed). */
char *pg_rpc_line_result(const cJSON *id, cJSON *result);
/* {"jsonrpc":"2.0","id":id|null,"error":{code,message[,data]}}\n (data consumed, may be NULL). */
char *pg_rpc_line_error(const cJSON *id, int code, const char *message, cJSON *data);
/* {"jsonrpc":"2.0","method":method[,"params":params]}\n (params consumed, may be NULL). */
char *pg_rpc_line_notification(const char *method, cJSON *params);

#endif
