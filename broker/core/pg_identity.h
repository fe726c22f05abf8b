/* SPDX-License-Identifier: MIT */
/* pg_identity.h - who a caller is, and who owns a window's process: the
 * interface the core defines and each process shell implements, as libuv's
 * src/unix and src/win implement uv.h.
 *
 * Contract: the kernel names every caller (Linux: SO_PEERCRED, the passwd
 * and group databases, /proc; Windows: the pipe client's token and
 * GetNamedPipeClientProcessId), never the request. The core asks only the
 * questions below; broker/os/posix/pg_posix_peer.c and
 * broker/os/win/pg_win_peer.c answer them (the library pg_identity), and
 * broker/core/pg_identity.c holds the portable part both share.
 * Never: this interface reaches up into the core, or takes a name, uid or
 * pid from a request.
 */
#ifndef PG_IDENTITY_H
#define PG_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"
#include "pg_platform.h"
#include "pg_policy.h"

#define PG_PEER_MAX_GROUPS 64

/* Who is on the other end of a connection, as the kernel says.
 * Linux: SO_PEERCRED, passwd, /proc. Windows: the pipe client's token
 * (ImpersonateNamedPipeClient) and GetNamedPipeClientProcessId. */
typedef struct {
    uint32_t uid;    /* POSIX uid. Windows: the broker's number for the user SID
                        (pg_win_principals; stable while the broker runs), so
                        tokens and approvals bind to a SID exactly as to a uid */
    uint32_t gid;    /* POSIX primary gid; 0 on Windows */
    int64_t pid;
    char user[64];   /* passwd name, or the uid in decimal. Windows: account name,
                        "DOMAIN\\name" unless the domain is this machine */
    char comm[64];   /* /proc/PID/comm; Windows: image file name */
    char exe[256];   /* /proc/PID/exe when readable (same uid), else empty;
                        Windows: full image path */
    char sid[192];   /* Windows: user SID ("S-1-5-21-..."); empty on POSIX */
    uint32_t integrity_rid; /* Windows: SECURITY_MANDATORY_*_RID; 0 on POSIX */
    bool admin;      /* Windows: enabled Administrators/SYSTEM; POSIX: uid 0 */
    /* Windows: this connection's own usable groups (enabled, not deny-only),
     * named as the policy spells them, from its own token: never another
     * process's of the same account. POSIX: unused (the group database is
     * asked, pg_identity_principal). */
    char groups[PG_PEER_MAX_GROUPS][64];
    uint32_t n_groups;
    bool remote;          /* POSIX: decided once, at accept (pg_identity_remote) */
    char remote_why[128]; /* why, for the log */
} pg_peer;

/* Fills the policy principal of a connected peer; group names live in buf.
 * POSIX: uid and name from the peer, groups from the group database.
 * Windows: administrator and groups from the connection's own token (the
 * peer's groups), never from another connection of the same SID. */
void pg_identity_principal(const pg_peer *peer, pg_principal *p, const char **groups, size_t max_groups, char *buf,
                           size_t buflen);
/* Portable (broker/core/pg_identity.c), shared by the shells: a principal holding only uid and user, and one more
 * group name copied into buf (false when buf or the array is full). */
void pg_principal_start(pg_principal *p, uint32_t uid, const char *user, const char **groups);
bool pg_principal_add_group(pg_principal *p, size_t max_groups, char *buf, size_t buflen, size_t *used,
                            const char *name);
/* Did the peer come through a remote transport (an SSH-forwarded socket)? */
bool pg_identity_remote(const pg_peer *p);
/* What input into window w (owned by process w->pid) must know, from one
 * look at the process: *same_owner - it runs as the peer (Linux: /proc;
 * Windows: its token's user SID); false when unknown. The result: Windows refuses
 * (PG_E_POLICY) a process at a higher integrity level than the requester
 * (UIPI's rule, kept by the broker too) or one whose token cannot be read,
 * whatever the policy says, and a vanished one is PG_E_NOTFOUND. Linux: PG_OK
 * (X11 has no integrity levels; ownership and the policy decide). */
pg_err pg_identity_input_target(const pg_window *w, const pg_peer *peer, bool *same_owner, pg_error *e);

/* The account process pid runs as, for rules that name accounts (input into
 * an approver's window is refused): its name as the policy spells it into
 * user, and whether it is the administrator (Linux: uid 0; Windows: its token
 * is elevated, integrity High or System). Linux counts an owner only when the
 * process's real, effective, saved and filesystem uids agree. PG_E_NOTFOUND
 * when the process or its owner cannot be told. */
pg_err pg_identity_process_owner(int64_t pid, char user[64], bool *admin, pg_error *e);
/* The account window w belongs to, by the test input uses (Linux: the
 * pid the display server names, all four of its uids, and a start no later
 * than the broker first saw the window with that pid; Windows: its
 * process's token), as the policy spells names, into user. PG_E_NOTFOUND
 * when it cannot be established: such a window is nobody's to show. */
pg_err pg_identity_window_owner(const pg_window *w, char user[64], pg_error *e);
/* When process pid started, in ms since 1970 (Linux: /proc/PID/stat and the
 * boot time; Windows: GetProcessTimes); 0 when unknown. A window's
 * generation: an id the server reuses for a new process's window gets
 * another one. */
int64_t pg_identity_process_started_ms(int64_t pid);

#endif
