/* SPDX-License-Identifier: MIT */
/* pg_win_listener.h - the Windows broker's listener: the named pipe, the
 * kernel's word on who is calling, one bounded worker per connection
 * (Windows only; the POSIX twin is broker/os/posix/pg_posix_listener.h).
 *
 * Contract: creates \\.\pipe\NAME (first instance only, remote clients
 * rejected unless the policy admits them) under a DACL that admits SYSTEM and
 * exactly the accounts and groups the policy names in clients.users,
 * clients.groups and approvers, resolved to SIDs at start ("*" admits
 * Authenticated Users; a name Windows does not know is logged and left out).
 * Each client is identified from its token (pg_win_peer_from_client) and
 * served by pg_server_start_worker; admission proper is still the policy's
 * (pg_dispatch). Returns when stop is signalled, after running requests end
 * (bounded). When reload is signalled the policy is reloaded; the pipe's DACL
 * keeps the principals of the policy the broker started with until restart.
 * Never: reads identity from a request.
 */
#ifndef PG_WIN_LISTENER_H
#define PG_WIN_LISTENER_H

#include <windows.h>

#include "pg_broker.h"

typedef struct {
    const char *pipe_name;   /* full name, "\\\\.\\pipe\\pixelgate" */
    const char *service_sid; /* the service's own SID, or NULL (it runs as SYSTEM) */
    unsigned max_conns;
    uint32_t io_timeout_ms;
} pg_win_listener_opts;

/* on_listening(ctx) (may be NULL) runs once the pipe accepts clients. */
pg_err pg_win_listener_run(pg_broker *b, const pg_win_listener_opts *o, HANDLE stop, HANDLE reload,
                           void (*on_listening)(void *ctx), void *ctx, pg_error *e);

/* The SIDs (canonical strings) the pipe's DACL admits for policy p, into
 * sids[0..*n) (at most max). Unknown names are logged and skipped. */
void pg_win_listener_principals(const pg_policy *p, char (*sids)[192], size_t max, size_t *n);

#endif
