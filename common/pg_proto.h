/* SPDX-License-Identifier: MIT */
/* pg_proto.h - the wire protocol (docs/protocol.md is the contract).
 *
 * A frame is:
 *   "PGF1" | u32be header_len | u32be n_attachments | header (JSON, UTF-8)
 *   | n_attachments x (u32be len | len bytes)
 * Requests:  {"v":1, "id":N, "op":"name", "args":{...}}
 * Responses: {"v":1, "id":N, "ok":true, "result":{...}}
 *            {"v":1, "id":N, "ok":false, "error":{"code":"NOT_FOUND","exit":4,
 *                                                 "message":"...","recovery_tip":"..."}}
 * Every size is checked against pg_proto_limits BEFORE anything is allocated;
 * unknown top-level fields, unknown ops (at dispatch) and wrong types are errors.
 * Never: trusts a length, reads past a buffer, or takes identity from a frame.
 */
#ifndef PG_PROTO_H
#define PG_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "pg_error.h"
#include "pg_transport.h"

/* The protocol's version is MAJOR.MINOR. A request's "v" is the integer
 * MAJOR (minor 0, what every client of version 1 sends) or the string
 * "MAJOR.MINOR". The broker serves every minor of its major: a minor adds,
 * never changes. Another major is refused (BAD_INPUT, naming both). Responses
 * carry "v": MAJOR. */
#define PG_PROTO_VERSION 1 /* the major */
#define PG_PROTO_MINOR 1   /* 1.1: duplicate keys anywhere in a request are BAD_INPUT */
#define PG_PROTO_MAX_ATTACH 4
#define PG_PROTO_OP_MAX 32

typedef struct {
    uint32_t max_header;           /* bytes of JSON header */
    uint32_t max_attachments;      /* <= PG_PROTO_MAX_ATTACH */
    uint64_t max_attachment_bytes; /* each */
    uint64_t max_total_bytes;      /* all attachments together */
} pg_proto_limits;

typedef struct {
    uint8_t *data;
    size_t len;
} pg_blob;

typedef struct {
    cJSON *header;                     /* owned */
    pg_blob att[PG_PROTO_MAX_ATTACH];  /* owned */
    size_t n_att;
} pg_msg;

/* Defaults: 1 MiB header, 4 attachments of <= 64 MiB, 128 MiB in total. */
void pg_proto_limits_default(pg_proto_limits *l);

/* Reads exactly the bytes asked for or fails; ctx is the source. */
typedef pg_err (*pg_read_fn)(void *ctx, void *buf, size_t n, pg_error *e);

/* Reads one frame from any source. On failure *out is left empty. */
pg_err pg_proto_read_from(pg_read_fn rd, void *ctx, const pg_proto_limits *l, pg_msg *out, pg_error *e);
/* The whole frame, header and attachments, must arrive within the
 * connection's timeout counted from this call: one deadline for every read
 * of the frame, not one per read (PG_E_TIMEOUT otherwise). */
pg_err pg_proto_read(pg_conn *c, const pg_proto_limits *l, pg_msg *out, pg_error *e);
/* The same frame read in steps, so the broker can admit a request before it
 * accepts any attachment, and bound the whole frame by one deadline once its
 * first bytes arrived: the 12-byte prefix (sizes checked against l, the
 * attachment count only against PG_PROTO_MAX_ATTACH), then the header, then
 * the attachments under limits chosen after the header was seen (their count
 * is checked then). After a failed step the connection is out of step: close
 * it. On failure of the header or attachment step *out is left for
 * pg_msg_fini. */
typedef struct {
    uint32_t header_len;
    uint32_t n_att; /* announced */
} pg_frame_head;
pg_err pg_proto_read_prefix(pg_conn *c, const pg_proto_limits *l, pg_frame_head *h, pg_error *e);
pg_err pg_proto_read_header(pg_conn *c, const pg_frame_head *h, pg_msg *out, pg_error *e);
pg_err pg_proto_read_attachments(pg_conn *c, const pg_frame_head *h, const pg_proto_limits *l, pg_msg *out,
                                 pg_error *e);
/* Parses one whole frame held in memory (fuzz entry point); trailing bytes are an error. */
pg_err pg_proto_decode(const uint8_t *buf, size_t len, const pg_proto_limits *l, pg_msg *out, pg_error *e);

/* Serialises header + attachments into one malloc'd buffer (for tests, fuzz corpus). */
pg_err pg_proto_encode(const cJSON *header, const pg_blob *att, size_t n_att, uint8_t **out,
                       size_t *out_len, pg_error *e);
pg_err pg_proto_write(pg_conn *c, const cJSON *header, const pg_blob *att, size_t n_att, pg_error *e);
void pg_msg_fini(pg_msg *m);

/* A validated request; args and op point into the message header. */
typedef struct {
    uint64_t id;
    char op[PG_PROTO_OP_MAX];
    const cJSON *args; /* always an object (empty if absent) */
} pg_request;

/* The request's shape: v (see PG_PROTO_VERSION), id, op, args and nothing
 * else; no object anywhere in it may name a key twice (BAD_INPUT). */
pg_err pg_proto_parse_request(const cJSON *header, pg_request *out, pg_error *e);
cJSON *pg_proto_request_new(uint64_t id, const char *op, cJSON *args /* owned, may be NULL */);

/* Response builders; result is owned by the returned object. NULL on OOM. */
cJSON *pg_proto_response_ok(uint64_t id, cJSON *result);
cJSON *pg_proto_response_err(uint64_t id, const pg_error *err, cJSON *details /* owned, may be NULL */);

/* Client side: checks shape and id. On ok, *result points into header.
 * On an error response returns its code and fills e (and *details if any). */
pg_err pg_proto_parse_response(const cJSON *header, uint64_t expect_id, const cJSON **result,
                               const cJSON **details, pg_error *e);

/* ---- argument checking (strict: unknown fields and wrong types are errors) ---- */
typedef enum { PG_ARG_STRING, PG_ARG_INT, PG_ARG_NUMBER, PG_ARG_BOOL, PG_ARG_OBJECT, PG_ARG_ARRAY } pg_arg_type;
typedef struct {
    const char *name;
    pg_arg_type type;
    bool required;
} pg_arg_spec;

pg_err pg_args_check(const cJSON *args, const pg_arg_spec *spec, size_t n_spec, pg_error *e);
/* Typed getters for checked args; return def when absent. */
const char *pg_args_str(const cJSON *args, const char *name, const char *def);
int64_t pg_args_int(const cJSON *args, const char *name, int64_t def);
double pg_args_num(const cJSON *args, const char *name, double def);
bool pg_args_bool(const cJSON *args, const char *name, bool def);

#endif
