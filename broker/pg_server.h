/* pg_server.h - the portable half of serving: one bounded worker thread
 * per connection. Each OS's listener (broker/os/posix/pg_posix_listener.h: a
 * Unix socket; broker/os/win/pg_win_listener.h: the named pipe) accepts,
 * asks the kernel who is calling, and hands the connection here.
 *
 * Contract: at most max_conns connections are served at once; one more is
 * answered with a "busy" error and closed, never queued without bound. Each
 * request frame, header and attachments, must arrive whole within the
 * connection's timeout after the previous reply (one deadline per frame,
 * pg_proto_read), so a stuck or slow-drip client holds only its own thread,
 * and that for at most the timeout per request.
 * Never: reads identity from the request.
 */
#ifndef PG_SERVER_H
#define PG_SERVER_H

#include "pg_broker.h"

/* Serves conn (owned from here on) on a new detached worker thread, one
 * request at a time until the client closes; when max_conns workers already
 * run, answers "busy" and closes instead. */
void pg_server_start_worker(pg_broker *b, pg_conn *conn, const pg_peer *peer, unsigned max_conns);
/* Waits at most wait_ms for the running workers to finish. */
void pg_server_drain(unsigned wait_ms);

#endif
