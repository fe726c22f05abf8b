/* SPDX-License-Identifier: MIT */
/* pg_dispatch.h - the request path's front door, for the server
 * (broker/core/pg_server.c) and the tests: one parsed request in, its
 * declaration found, its peer admitted, its arguments checked, its handler
 * run and its audit record written before the reply.
 * Never: a reply leaves before its audit record is on disk.
 */
#ifndef PG_DISPATCH_H
#define PG_DISPATCH_H

#include "pg_call.h"

/* Dispatch one parsed request: look up its declaration, admit the peer,
 * check the arguments against the declaration into a typed struct, run the
 * handler, then write the audit record (when the op is audited, or was
 * refused) before the caller replies. A failed audit write turns the outcome
 * into PG_E_INTERNAL and undoes a created token: nothing happens that is not
 * on record. */
pg_err pg_dispatch(pg_call *c, pg_error *e);
/* The first half of pg_dispatch, for a server that reads a request's
 * attachments only once it is admitted: finds the declaration (c->op) and
 * admits the peer (c->view). Its outcome is kept for pg_dispatch, which then
 * answers (and audits) a refusal without running anything; e must be left
 * as it is in between. */
pg_err pg_dispatch_begin(pg_call *c, pg_error *e);
/* Record, then act: writes the request's record of intent (who, what: the
 * op and c->audit's detail so far, where: its window) after reserving room
 * for it and its outcome; a handler of a PG_OPF_EFFECT operation calls it
 * (as pg_call_intent) right before the platform or relay call. PG_E_INTERNAL
 * when it cannot be written: the handler must not act. Once per request.
 * pg_dispatch refuses the answer of an effect operation that returns PG_OK
 * without one. */
pg_err pg_dispatch_intent(pg_call *c, pg_error *e);
/* Is the peer one of the current policy's clients? No audit record: the
 * server's question when a connection arrives. */
bool pg_dispatch_admitted(pg_broker *b, const pg_peer *peer);

#endif
