/* SPDX-License-Identifier: MIT */
/* pg_server.h - the portable half of serving: bounded workers, a bounded
 * wait queue, and honest refusals. Each OS's listener
 * (broker/os/posix/pg_posix_listener.h: a Unix socket;
 * broker/os/win/pg_win_listener.h: the named pipe) accepts, asks the kernel
 * who is calling, and hands the connection here.
 *
 * Contract
 *   - At most max_conns connections are served at once, each by one worker
 *     thread, one request at a time until the client closes.
 *   - Capacity for admitted users: peers the policy does not admit (checked
 *     when they connect, against the policy of that moment) share at most
 *     outsider_max workers, never wait, and their connection is closed after
 *     a request refused at admission. One uid holds at most uid_served_max
 *     workers and uid_max connections served or waiting.
 *   - A connection of an admitted user that finds every worker busy waits in
 *     a FIFO queue of at most queue_max, for at most queue_wait_ms; a worker
 *     that finishes takes the oldest waiter its uid limit allows.
 *   - Every refusal is BUSY (PG_E_BUSY) with a message saying which limit
 *     and a retry tip, answered with the request's own id after the request
 *     was read (bounded: 500 ms), then the connection is shut down cleanly
 *     (pg_conn_finish), so the client reads the refusal, never a reset.
 *   - The wait for a request is the connection's timeout; once its first
 *     bytes arrived the whole request (header and attachments) must arrive
 *     within io_timeout_ms. Attachments are read only after admission, only
 *     as many as the operation has image arguments, each within the caller's
 *     images.max_input_bytes.
 * Never: reads identity from the request, queues without bound, or closes a
 * connection with its request unread (that would reset it).
 */
#ifndef PG_SERVER_H
#define PG_SERVER_H

#include "pg_broker.h"
#include "pg_identity.h"

typedef struct {
    unsigned max_conns;      /* workers: connections served at once */
    unsigned queue_max;      /* connections of admitted users waiting for a worker */
    uint32_t queue_wait_ms;  /* how long one waits before it is answered BUSY */
    unsigned uid_served_max; /* workers one uid may hold */
    unsigned uid_max;        /* connections (served and waiting) of one uid */
    unsigned outsider_max;   /* workers that peers the policy does not admit hold together */
    uint32_t io_timeout_ms;  /* one request, from its first byte to its last */
} pg_server_limits;

/* The defaults for max_conns workers: a queue of 2 x max_conns waiting 15 s,
 * a quarter of the workers kept from any one uid, an eighth (at least one)
 * for outsiders, 30 s per request. */
void pg_server_limits_default(pg_server_limits *l, unsigned max_conns);
/* Sets the limits (before the first connection; otherwise the defaults for
 * the max_conns of pg_server_start_worker apply). */
void pg_server_configure(const pg_server_limits *l);

/* Serves conn (owned from here on) on a worker, or queues it, or refuses it
 * BUSY (on the server's own thread, never the caller's). */
void pg_server_start_worker(pg_broker *b, pg_conn *conn, const pg_peer *peer, unsigned max_conns);
/* The same, served on the caller's thread when it is admitted to a worker
 * now (returning when the connection and any waiters it then takes are
 * done); queued or refused as above otherwise, returning at once. A
 * listener whose threads accept and serve (pg_posix_listener.c) saves the
 * hand-off to a new thread: one wake-up fewer per connection. */
void pg_server_serve_here(pg_broker *b, pg_conn *conn, const pg_peer *peer, unsigned max_conns);
/* A detached thread with a worker's stack (512 KiB); false when none. */
bool pg_server_start_thread(void *(*fn)(void *), void *arg);
/* Waits at most wait_ms for the running workers to finish; waiting
 * connections are refused. */
void pg_server_drain(unsigned wait_ms);

/* What the server holds now (for tests and the log). */
typedef struct {
    unsigned served, waiting, outsiders, refusing;
    uint64_t refused_busy; /* since start */
} pg_server_stats;
void pg_server_get_stats(pg_server_stats *s);

#endif
