/* SPDX-License-Identifier: MIT */
/* pg_win_pipe_server.h - the broker's end of the named pipe, and who is on
 * the other end (Windows only).
 *
 * Contract: pg_win_pipe_server_open creates \\.\pipe\NAME with
 * FILE_FLAG_FIRST_PIPE_INSTANCE (if anyone already holds the name - a
 * squatter or a second broker - it fails with PG_E_POLICY "pipe name already
 * taken"), the given SDDL (pg_win_pipe_server_sddl), byte mode, overlapped I/O and
 * PIPE_REJECT_REMOTE_CLIENTS unless allow_remote. accept waits for one client
 * at most timeout_ms (TIMEOUT) or until stop is signalled (PG_OK with
 * *conn == NULL); then it identifies the client from the kernel, never from
 * the request: GetNamedPipeClientProcessId, and the token obtained by
 * ImpersonateNamedPipeClient + OpenThreadToken (user SID, account name,
 * groups with attributes, integrity RID), reverting to self before anything
 * else is done. A client that cannot be identified is disconnected and the
 * call fails (POLICY). The server always keeps one instance listening or
 * connected so the name cannot be taken between clients. One thread calls
 * accept at a time. Wine runs all of this but enforces no DACL, ignores the
 * client's SQOS level and gives every process the same SID.
 * pg_win_pipe_server_sddl builds the pipe's protected DACL: NETWORK denied
 * first, then SYSTEM and the service SID with read/write plus
 * FILE_CREATE_PIPE_INSTANCE (they create the server's further instances),
 * then each admitted principal with read/write only (0x12019b:
 * FILE_GENERIC_READ|FILE_GENERIC_WRITE minus FILE_CREATE_PIPE_INSTANCE, so a
 * client can never add a rogue server instance). Everyone, Anonymous and
 * NETWORK can never be admitted. It is pure (tested under Wine, which does
 * not enforce the DACL it describes).
 * Never: leaves the thread impersonating (aborts the process if RevertToSelf
 * fails), trusts a pid or name sent in the request.
 */
#ifndef PG_WIN_PIPE_SERVER_H
#define PG_WIN_PIPE_SERVER_H

#include <windows.h>

#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"
#include "pg_transport.h"
#include "pg_win_sid.h"

#define PG_WIN_PIPE_MAX_PRINCIPALS 64
/* Rights of an admitted client on the pipe: FILE_GENERIC_READ|FILE_GENERIC_WRITE
 * without FILE_CREATE_PIPE_INSTANCE (== FILE_APPEND_DATA, 0x4). */
#define PG_WIN_PIPE_CLIENT_RIGHTS 0x12019bu
/* Rights of the server principals: the same plus FILE_CREATE_PIPE_INSTANCE. */
#define PG_WIN_PIPE_SERVER_RIGHTS 0x12019fu

typedef struct pg_win_pipe_server pg_win_pipe_server;

/* The kernel's view of a connected client. groups is malloc'd. */
typedef struct {
    uint32_t pid;
    char user_sid[PG_WIN_SID_STR_MAX];
    char account[512]; /* "DOMAIN\user" (UTF-8), "" if the SID has no name */
    pg_win_group *groups;
    size_t n_groups;
    uint32_t integrity_rid; /* SECURITY_MANDATORY_*_RID, 0 if unknown */
} pg_win_client_id;

/* name is the full UTF-8 pipe name ("\\.\pipe\pixelgate"); sddl from
 * pg_win_pipe_server_sddl. */
pg_err pg_win_pipe_server_open(pg_win_pipe_server **out, const char *name, const char *sddl, int allow_remote,
                               pg_error *e);
/* Waits for and identifies one client. On PG_OK with *conn != NULL, *conn
 * (timeout io_timeout_ms) and *id are the caller's: pg_conn_close and
 * pg_win_client_id_free them. stop may be NULL. */
pg_err pg_win_pipe_server_accept(pg_win_pipe_server *s, HANDLE stop, uint32_t timeout_ms, uint32_t io_timeout_ms,
                                 pg_conn **conn, pg_win_client_id *id, pg_error *e);
void pg_win_pipe_server_close(pg_win_pipe_server *s);
void pg_win_client_id_free(pg_win_client_id *id);

/* Builds the pipe's SDDL into out (cap bytes). service_sid may be NULL (no
 * service principal: foreground "run"); principals[0..n) are users/groups.
 * BADINPUT for an invalid or forbidden SID, INTERNAL if cap is too small. */
pg_err pg_win_pipe_server_sddl(const char *service_sid, const char *const *principals, size_t n, char *out, size_t cap,
                               pg_error *e);

/* Token helpers (also used for other processes' tokens, pg_win_peer.c):
 * GetTokenInformation into a malloc'd buffer (NULL on failure), and the
 * integrity level's RID (SECURITY_MANDATORY_*_RID; 0 if unreadable). */
void *pg_win_token_info(HANDLE tok, TOKEN_INFORMATION_CLASS cls);
uint32_t pg_win_token_integrity(HANDLE tok);

#endif
