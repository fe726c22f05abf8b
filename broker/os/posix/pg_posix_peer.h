/* SPDX-License-Identifier: MIT */
/* pg_posix_peer.h - who a POSIX peer is: SO_PEERCRED, the passwd and group
 * databases, /proc. The Windows twin is pg_win_peer.h. pg_posix_peer.c also
 * answers the core's identity questions (broker/core/pg_identity.h):
 * principal, remoteness, input target, process owner and start.
 * Never: takes a name, uid or pid from the request.
 */
#ifndef PG_POSIX_PEER_H
#define PG_POSIX_PEER_H

#include "pg_identity.h"

/* Processes found with no trusted sshd at or above them, remembered by pid
 * and start time (pg_posix_peer.c says why that verdict keeps). */
typedef struct pg_posix_ancestry pg_posix_ancestry;
pg_posix_ancestry *pg_posix_ancestry_new(void);
void pg_posix_ancestry_free(pg_posix_ancestry *a);

/* Where facts about processes and login sessions are read, and whose they
 * must be to be believed. The broker uses pg_posix_env_system; the unit
 * tests point it at a fake tree. */
typedef struct {
    const char *proc;     /* "/proc" */
    const char *sessions; /* "/run/systemd/sessions": systemd-logind's session records */
    uint32_t trusted_uid; /* 0: the owner of logind's records and of an sshd that counts */
    pg_posix_ancestry *ancestry; /* NULL: every ancestor is read on every question */
} pg_posix_env;
extern const pg_posix_env pg_posix_env_system;

/* Fills p from the connected socket (SO_PEERCRED, passwd, /proc), including
 * whether the peer is remote (pg_posix_remote). */
pg_err pg_posix_peer_from_socket(int fd, pg_peer *p, pg_error *e);

/* Is process pid a remote driver? why (may be NULL) gets the reason. */
bool pg_posix_remote(const pg_posix_env *env, int64_t pid, char *why, size_t n);

/* Is window window_id, owned by process pid as the display server says
 * (X-Resource), the peer uid's? Only when the process's real, effective,
 * saved and filesystem uids are all uid (a setuid program the agent started
 * is not its to drive), and the process started no later than the broker
 * first saw the window with that pid (a pid the agent's process got after
 * the window's maker exited is not the maker). Unknown is false. */
bool pg_posix_window_owned(const pg_posix_env *env, uint64_t window_id, int64_t pid, uint32_t uid);

#endif
