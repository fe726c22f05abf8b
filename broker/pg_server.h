/* pg_server.h - the listener: a Unix socket (Linux) or the named pipe
 * (Windows, broker/win/pg_win_listener.h), the kernel's word on who is
 * calling, and one bounded worker thread per connection.
 *
 * Contract: at most max_conns connections are served at once; one more is
 * answered with a "busy" error and closed, never queued without bound. Each
 * request must arrive within io_timeout_ms, so a stuck client holds only its
 * own thread. pg_server_run returns when *stop becomes non-zero, after the
 * running requests finish (bounded wait).
 * Never: reads identity from the request.
 */
#ifndef PG_SERVER_H
#define PG_SERVER_H

#include <signal.h>

#include "pg_broker.h"

typedef struct {
    const char *socket_path;
    unsigned socket_mode;     /* e.g. 0666: admission is the policy's job */
    unsigned max_conns;
    uint32_t io_timeout_ms;
} pg_server_opts;

/* on_listening (may be NULL) is called once the socket accepts connections. */
/* When *hup becomes non-zero it is cleared and on_hup(b) runs on the listener
 * thread (policy reload). */
pg_err pg_server_run(pg_broker *b, const pg_server_opts *o, volatile sig_atomic_t *stop, volatile sig_atomic_t *hup,
                     void (*on_hup)(pg_broker *b), void (*on_listening)(void), pg_error *e);

#ifndef _WIN32
/* Fills p from the connected socket (SO_PEERCRED, passwd, /proc/PID/comm). */
pg_err pg_peer_from_socket(int fd, pg_peer *p, pg_error *e);
#endif

/* The portable half (pg_server.c), used by each platform's listener: */
/* Serves conn (owned from here on) on a new detached worker thread, one
 * request at a time until the client closes; when max_conns workers already
 * run, answers "busy" and closes instead. */
void pg_server_start_worker(pg_broker *b, pg_conn *conn, const pg_peer *peer, unsigned max_conns);
/* Waits at most wait_ms for the running workers to finish. */
void pg_server_drain(unsigned wait_ms);

#endif
