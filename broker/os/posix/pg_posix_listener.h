/* SPDX-License-Identifier: MIT */
/* pg_posix_listener.h - the POSIX broker's listener: a Unix socket whose
 * peers the kernel names (SO_PEERCRED, pg_posix_peer.h); each connection goes
 * to a worker of pg_server.h. The Windows twin is pg_win_listener.h.
 *
 * Contract: at most max_conns connections are served at once (pg_server.h);
 * pg_posix_listener_run returns when *stop becomes non-zero, after the
 * running requests finish (bounded wait).
 * Never: reads identity from the request.
 */
#ifndef PG_POSIX_LISTENER_H
#define PG_POSIX_LISTENER_H

#include <signal.h>

#include "pg_broker.h"

typedef struct {
    const char *socket_path;
    unsigned socket_mode;     /* e.g. 0666: admission is the policy's job */
    unsigned max_conns;
    uint32_t io_timeout_ms;
    /* A listening socket handed over by the service manager (socket
     * activation, sd_listen_fds), or -1 to bind socket_path. An inherited
     * socket is never unlinked or closed for others: connections that wait
     * in its backlog when the broker stops are served by the next one. */
    int inherited_fd;
} pg_posix_listener_opts;

/* on_listening (may be NULL) is called once the socket accepts connections.
 * When *hup becomes non-zero it is cleared and on_hup(b) runs on the listener
 * thread (policy reload). */
pg_err pg_posix_listener_run(pg_broker *b, const pg_posix_listener_opts *o, volatile sig_atomic_t *stop,
                             volatile sig_atomic_t *hup, void (*on_hup)(pg_broker *b), void (*on_listening)(void),
                             pg_error *e);

#endif
