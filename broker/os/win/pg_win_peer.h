/* SPDX-License-Identifier: MIT */
/* pg_win_peer.h - who a Windows client is, in the broker's terms (Windows only).
 *
 * Contract: the broker core binds tokens and approvals to a 32-bit "uid".
 * On Windows a principal is a SID, so this module keeps a table from user
 * SID to a number (0x10000 + slot), assigned on first sight and stable while
 * the broker runs (tokens do not outlive the broker either). Nothing else is
 * kept per account: each connection's peer carries what its own token says
 * (account name, usable group names, whether it is an administrator, its
 * integrity level), and the policy principal (pg_identity_principal) is built
 * from that peer alone, so a filtered process of an administrator is never
 * judged by an elevated one of the same SID, or the other way round.
 *   Names as the policy sees them: "name" when the account's domain is this
 *   machine, BUILTIN or NT AUTHORITY; "DOMAIN\name" otherwise, so a domain
 *   account never matches a local name by accident.
 * It also implements the core's per-platform questions about processes
 * (pg_identity.h: pg_identity_input_target and the rest) from the
 * target process's token: owner SID and integrity level.
 * Wine gives every process the same SID and integrity, so there the owner
 * check always holds; the rule itself is pg_win_integrity_allows (pure).
 * Never: takes identity from the request; trusts a pid the client names.
 * Threads: every function is safe to call from many threads.
 */
#ifndef PG_WIN_PEER_H
#define PG_WIN_PEER_H

#include <stdbool.h>
#include <stdint.h>

#include "pg_identity.h"
#include "pg_win_pipe_server.h"

/* Fills *p from the kernel's view of a pipe client (pg_win_pipe_server_accept).
 * PG_E_INTERNAL when the principal table is full (4096 distinct SIDs). */
pg_err pg_win_peer_from_client(const pg_win_client_id *id, pg_peer *p, pg_error *e);

/* The policy's form of "DOMAIN\name" (see above) into out. */
void pg_win_policy_name(const char *account, const char *computer, char *out, size_t cap);

/* May a requester at integrity requester_rid drive a process at target_rid?
 * True when target <= requester; an unknown target (0) is refused unless the
 * requester is also unknown (0, as on Wine for some processes). */
bool pg_win_integrity_allows(uint32_t requester_rid, uint32_t target_rid);

/* The user SID and integrity RID of process pid (PROCESS_QUERY_LIMITED_INFORMATION).
 * PG_E_NOTFOUND if the process is gone, PG_E_POLICY if its token is unreadable. */
pg_err pg_win_process_identity(int64_t pid, char sid[192], uint32_t *integrity_rid, pg_error *e);

#endif
