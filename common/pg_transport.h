/* SPDX-License-Identifier: MIT */
/* pg_transport.h - a connected byte stream between client and broker
 * (Unix socket on Linux, named pipe on Windows; platform shim in common/).
 *
 * Contract: pg_conn_read_full/pg_conn_write_full move exactly n bytes or fail
 * with PG_E_TIMEOUT (deadline passed), PG_E_UNREACHABLE (peer gone / EOF) or
 * PG_E_INTERNAL. Every call is bounded by the connection's timeout;
 * pg_conn_read_until by a deadline the caller gives, so that several reads
 * (the parts of one frame, pg_proto_read) share one bound however the peer
 * paces its bytes.
 * Never: interprets the bytes (that is pg_proto's job).
 */
#ifndef PG_TRANSPORT_H
#define PG_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"
#include "pg_time.h"

typedef struct pg_conn pg_conn;

/* Client side: connect to the broker at address (socket path / pipe name).
 * On POSIX, when connect() itself fails (PG_E_UNREACHABLE), errno is its
 * errno: ENOENT/ECONNREFUSED (no broker) and EACCES/EPERM (not allowed) call
 * for different fixes. On Windows, GetLastError() is ERROR_ACCESS_DENIED when
 * the pipe's ACL refused the caller (the error then carries its own tip). */
pg_err pg_conn_connect(pg_conn **out, const char *address, uint32_t timeout_ms, pg_error *e);
void pg_conn_set_timeout(pg_conn *c, uint32_t timeout_ms);
uint32_t pg_conn_timeout(const pg_conn *c);
pg_err pg_conn_read_full(pg_conn *c, void *buf, size_t n, pg_error *e);
/* pg_conn_read_full bounded by until instead of by a fresh timeout. */
pg_err pg_conn_read_until(pg_conn *c, void *buf, size_t n, pg_deadline until, pg_error *e);
pg_err pg_conn_write_full(pg_conn *c, const void *buf, size_t n, pg_error *e);
void pg_conn_close(pg_conn *c);
/* From another thread: makes a read or write that waits on c, and every
 * later one, fail at once with PG_E_UNREACHABLE (a cancelled call). The
 * connection must still be closed by its owner, after the waiting call
 * returned. */
void pg_conn_abort(pg_conn *c);
/* The broker's question during a long operation: has the client hung up?
 * True once the peer closed its end (or shut down its sending side), even
 * if bytes it sent are still unread (Windows: once those are read, since a
 * pipe reports the break only then); bytes waiting alone are not a hang-up.
 * Never blocks. */
bool pg_conn_peer_gone(pg_conn *c);
/* One deadline over several calls (a whole request frame): until cleared
 * with 0, every read and write also ends by ms from now, whatever the
 * per-call timeout leaves. */
void pg_conn_limit(pg_conn *c, uint32_t ms);
/* The clean end of a connection whose peer may still be sending (a refusal
 * before its request was read): stops sending (the peer reads every byte
 * written so far, then end of stream), reads and drops what the peer still
 * sends for at most drain_ms, then closes (c is freed). Without it, closing
 * with unread bytes resets the connection and the peer sees "broken pipe"
 * instead of the answer. */
void pg_conn_finish(pg_conn *c, uint32_t drain_ms);

#ifndef _WIN32
/* Broker side: wrap an accepted socket. Takes ownership of fd. */
pg_err pg_conn_from_fd(pg_conn **out, int fd, uint32_t timeout_ms, pg_error *e);
#endif

#ifdef _WIN32
/* Broker side: wrap a connected server end of a named pipe (a HANDLE opened
 * with FILE_FLAG_OVERLAPPED). Takes ownership of pipe, also on failure. */
pg_err pg_conn_from_handle(pg_conn **out, void *pipe, uint32_t timeout_ms, pg_error *e);
#endif

/* The default broker address for this platform. */
const char *pg_transport_default_address(void);

#endif
