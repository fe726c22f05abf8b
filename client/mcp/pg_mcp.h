/* SPDX-License-Identifier: MIT */
/* pg_mcp.h - `pixelgate mcp`: the Model Context Protocol server on stdio.
 *
 * What it does
 *   Speaks MCP (JSON-RPC 2.0, one message per line on stdin/stdout; see
 *   docs/mcp.md for the revision) and turns every tool call into one broker
 *   request, exactly as the command line does: the same declarations
 *   (common/pg_ops.def) give the tool list, each tool's JSON Schema and the
 *   argument check; the same session code (pg_cli.h) talks to the broker.
 *     initialize, ping, tools/list, tools/call;
 *     notifications/initialized, notifications/cancelled (the broker
 *       connection of that call is aborted and no response is sent);
 *     notifications/progress while a long operation (PG_OPF_LONG) runs, when
 *       the call carried a progressToken: elapsed seconds against its timeout.
 *   Tool results are the JSON the CLI prints, as text content. A failure is
 *   a tool error (isError) whose text is the CLI's error object: code, exit,
 *   message, recovery_tip and the details (a failed check's measurements).
 *   Image content appears only in the answer to `release`, i.e. only when the
 *   broker released those pixels to this user under its policy, downscaled
 *   by the broker (release max_size) to fit max_image on the long side.
 *
 * What it never does
 *   Holds privilege (it runs as the agent and connects to the broker like
 *   the CLI), decodes pixels or links an image library, sends a path to the
 *   broker (an image argument that is not a token is a file this process
 *   reads as its user, sent as bytes), reads a file its user could not, or
 *   writes anything but protocol messages to stdout (diagnostics go to
 *   stderr). Approver operations (approve) are not tools: an approver is a
 *   person at another account, never the agent.
 *
 * Threads
 *   The reader runs on the calling thread; each tools/call runs on a thread
 *   of its own with its own broker connection (at most PG_MCP_MAX_CALLS at
 *   once); one more thread sends progress. Output lines are written whole
 *   under one lock.
 */
#ifndef PG_MCP_H
#define PG_MCP_H

#include <stdint.h>
#include <stdio.h>

#include <cJSON.h>

#include "pg_cli.h"

#define PG_MCP_MAX_CALLS 16
#define PG_MCP_MAX_IMAGE_DEFAULT 1568 /* px, long side: what common MCP hosts accept without resizing */
/* The revisions this server speaks, newest first; the newest is the one the
 * tested SDK (tests/mcp) asks for. */
#define PG_MCP_PROTOCOL_LATEST "2025-11-25"
extern const char *const pg_mcp_protocol_versions[];

/* The profiles' names, for messages and the shell completions (the table
 * in pg_mcp_profile.c holds exactly these). */
#define PG_MCP_PROFILE_WORDS "default observe drive assert accept all"

/* The tools a server offers (pg_mcp_profile.c): one flag per operation. */
typedef struct {
    bool on[PG_OPI_COUNT];
} pg_mcp_toolset;

/* The tools of a profile (NULL: "default"; see docs/mcp.md for what each
 * holds), or exactly the comma-separated names of tools, less those of
 * exclude (NULL: none). PG_E_USAGE naming an unknown profile or tool, or
 * when both profile and tools are given. */
pg_err pg_mcp_toolset_init(pg_mcp_toolset *ts, const char *profile, const char *tools, const char *exclude,
                           pg_error *e);
/* Is d offered? A NULL set offers every tool. */
bool pg_mcp_toolset_has(const pg_mcp_toolset *ts, const pg_opdecl *d);

typedef struct {
    const char *address;  /* broker socket / pipe */
    uint32_t timeout_ms;  /* I/O bound of a broker call, on top of the operation's own timeout */
    uint32_t max_image;   /* long side of released images, px */
    const pg_mcp_toolset *tools; /* what tools/list offers and tools/call accepts; NULL: every tool */
} pg_mcp_config;

/* Serves in (requests) -> out (responses) until in ends; 0, or 1 when out
 * failed (the host went away). */
int pg_mcp_serve(const pg_mcp_config *cfg, FILE *in, FILE *out);

/* ---- the pure parts, for tests (pg_mcp_tools.c) ---- */

/* The protocol revision to answer an initialize that asked for `requested`
 * (NULL: not given): the same when this server speaks it, else the latest. */
const char *pg_mcp_negotiate(const char *requested);
/* tools/list's "tools" array: one tool per operation of ts (NULL: all;
 * approver ops are never tools). */
cJSON *pg_mcp_tool_list(const pg_mcp_toolset *ts);
/* text (a help line or description of d) in MCP terms: every "--flag" as
 * the argument's wire name, every "exit N" as the error code's name.
 * Malloc'd; NULL when out of memory. */
char *pg_mcp_terms(const pg_opdecl *d, const char *text);
/* Is d input to the desktop (click, type, key, ...)? */
bool pg_mcp_is_input(const pg_opdecl *d);
/* The operation a tool name means, or NULL. */
const pg_opdecl *pg_mcp_tool_op(const char *name);
/* A tool call's arguments (an object, or NULL) -> a broker request: image
 * arguments become tokens or the bytes of a file read here, the
 * declaration's check runs with the wire names, release is sized to
 * max_image unless the call writes a file. *out is filled in every case
 * (pg_cli_request_fini it). PG_E_USAGE etc. with e set on failure. */
pg_err pg_mcp_build_request(const pg_opdecl *d, const cJSON *arguments, uint32_t max_image, pg_cli_request *out,
                            pg_error *e);
/* The broker I/O bound of a call: base plus the call's own timeout argument, if any. */
uint32_t pg_mcp_call_timeout_ms(const pg_opdecl *d, const cJSON *arguments, uint32_t base_ms);
/* A CallToolResult: on success the result as text (plus the released PNG
 * as image content when image is non-empty); on failure isError with the
 * error object. Never NULL unless out of memory. */
cJSON *pg_mcp_tool_result(pg_err rc, const pg_error *e, const cJSON *result, const cJSON *details,
                          const pg_blob *image);

#endif
