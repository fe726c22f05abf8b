/* SPDX-License-Identifier: MIT */
/* pg_win_session.h - starting the capture/input helper in the active console
 * session and connecting it to the service over a private pipe (Windows
 * only; used by pg_win_helper_link.c).
 *
 * Contract: pg_win_session_launch
 *  1. creates \\.\pipe\pixelgate-helper-<32 random hex> (pg_random_bytes)
 *     with FILE_FLAG_FIRST_PIPE_INSTANCE, PIPE_REJECT_REMOTE_CLIENTS, one
 *     instance, and a protected DACL admitting only this process's own user
 *     (SYSTEM when run as the service): "O:<me>D:P(D;;GA;;;NU)(A;;GA;;;<me>)";
 *  2. starts `"<exe>" <args> --pipe NAME` (CREATE_NO_WINDOW, no inherited
 *     handles, no standard handles, desktop winsta0\default) in the active
 *     console session: WTSGetActiveConsoleSessionId, our token as a primary
 *     token without privileges (CreateRestrictedToken DISABLE_MAX_PRIVILEGE),
 *     its TokenSessionId set to that session and its integrity lowered to
 *     medium (so UIPI holds the helper's SendInput back from elevated
 *     windows; a level that does not go down fails the launch, except under
 *     Wine, which keeps none), CreateProcessAsUserW. If a step of that fails and we are not in
 *     session 0 (a foreground run, or Wine), it falls back to CreateProcessW
 *     in our own session; in session 0 that would be a helper that sees no
 *     desktop, so the failure is returned instead. how->own_session skips
 *     the console path (a foreground run). `path` says which ran:
 *     "CreateProcessAsUser(session 1, no privileges, medium integrity)"
 *     (under Wine: "..., integrity 0x3000 kept: Wine has no levels)"), "CreateProcess(fallback:
 *     SetTokenInformation: error 1314)" or "CreateProcess(own session, as
 *     asked)";
 *     On the console path the helper also gets the console user's token for
 *     its input: WTSQueryUserToken (LocalSystem's SeTcbPrivilege), made an
 *     inheritable impersonation token, the one handle the child inherits
 *     (PROC_THREAD_ATTRIBUTE_HANDLE_LIST), its value on the command line as
 *     `--input-token N`; the helper's SendInput then runs on a thread
 *     impersonating it (pg_win_set_input_token). No user logged on (or the
 *     query refused): no token, and `path` ends "; input as the helper's own
 *     token (WTSQueryUserToken: error N)", else "; input as the session user";
 *  3. waits at most connect_timeout_ms for the helper to connect (or exit),
 *     and accepts the client only if GetNamedPipeClientProcessId is the
 *     child's pid: anyone else is refused with PG_E_POLICY and the child is
 *     stopped.
 * On failure nothing is left behind (child terminated, handles closed).
 * Errors: UNREACHABLE (no session, start failed, helper exited or did not
 * connect in time), POLICY (wrong client), INTERNAL (random, token, pipe).
 * Threads: no shared state; a child is owned by one caller.
 * Never: lets the helper inherit a handle but that token, names the pipe predictably,
 * accepts a client it did not start.
 */
#ifndef PG_WIN_SESSION_H
#define PG_WIN_SESSION_H

#include <windows.h>

#include <stdbool.h>
#include <stdint.h>

#include "pg_error.h"
#include "pg_transport.h"
#include "pg_win_helper.h"

#define PG_WIN_NO_SESSION 0xFFFFFFFFu

typedef struct {
    pg_conn *conn;     /* the verified connection, timeout call_timeout_ms */
    HANDLE process;    /* the helper process */
    uint32_t pid;
    uint32_t session;  /* console session it was placed in; PG_WIN_NO_SESSION: ours (fallback) */
    char path[256];    /* which launch path ran, and whose token its input uses */
} pg_win_helper_child;

/* how must not be NULL (the proxy fills in defaults). */
pg_err pg_win_session_launch(const pg_win_helper_launch *how, pg_win_helper_child *out, pg_error *e);
/* Closes the pipe, terminates the helper, waits for it (bounded), zeroes c. */
void pg_win_session_stop(pg_win_helper_child *c);
/* true while the helper process has not exited. */
bool pg_win_session_alive(const pg_win_helper_child *c);
/* The active console session, PG_WIN_NO_SESSION if none is attached. */
uint32_t pg_win_session_active(void);

#endif
