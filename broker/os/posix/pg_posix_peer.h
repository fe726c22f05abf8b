/* pg_posix_peer.h - who a POSIX peer is: SO_PEERCRED, the passwd and group
 * databases, /proc/PID/comm. The Windows twin is pg_win_peer.h. This file
 * also implements pg_broker.h's per-platform principal and input-target
 * questions.
 * Never: takes a name, uid or pid from the request.
 */
#ifndef PG_POSIX_PEER_H
#define PG_POSIX_PEER_H

#include "pg_broker.h"

/* Fills p from the connected socket (SO_PEERCRED, passwd, /proc/PID/comm). */
pg_err pg_posix_peer_from_socket(int fd, pg_peer *p, pg_error *e);

#endif
