/* SPDX-License-Identifier: MIT */
/* pg_win_helper.h - the Windows service's capture/input helper in the
 * interactive session, and the proxy through which the service uses it
 * (Windows only).
 *
 * Why: the service runs in session 0, which cannot see or drive the user's
 * desktop. It starts a helper process in the active console session (see
 * pg_win_session.h for how); the helper runs the real Win32 backend and
 * answers requests over a private named pipe. Policy, tokens, pixels kept as
 * tokens and the audit log stay in the service: the helper only captures and
 * injects, one request at a time, and forgets.
 *
 * The protocol, the proxy (pg_win_helper_ops() is the portable
 * pg_helper_ops()) and the server are broker/platform/helper/pg_helper.h,
 * shared with Linux's pixelgate-session; this header is what is Windows's
 * own: how the service starts the helper and gets its connection
 * (pg_win_helper_link.c). A call finds the helper gone or dead: it gives
 * PG_E_UNREACHABLE, and the next call starts a new helper first (once per
 * call: if that fails, the call fails with the launch's error), as it does
 * when the helper exited between calls, pg_win_helper_mark_stale was called,
 * or the active console session is no longer the one the helper was started
 * in. caps() reports backend "win32" and, first in detail, how the helper
 * was started and its pid. The proxy handle is only ever used through
 * pg_win_helper_ops() and the functions below: the pg_win32.h extras do not
 * apply to it.
 *
 * Helper (interactive session): pg_win_helper_main (pg_win_helper_main.c) connects as a client to
 * the pipe named on its command line (only a \\.\pipe\pixelgate-helper-<32
 * hex> name; anything else is refused), opens the Win32 backend, and before
 * each request switches to the current input desktop (OpenInputDesktop +
 * SetThreadDesktop, so it follows the lock screen / UAC secure desktop where
 * allowed; if that fails it stays on its desktop and caps' detail says why).
 * It serves until the pipe closes, then returns.
 *
 * Errors: the pg_err table. Launch failures: PG_E_UNREACHABLE (helper did
 * not start or connect in time), PG_E_POLICY (a process other than the
 * helper connected to the private pipe), PG_E_INTERNAL (pipe, token).
 * Threads: a proxy handle may be used from several threads: a lock
 * serialises calls (so a slow settle delays the others). mark_stale is
 * lock-free and safe from a service control handler; relaunch waits for a
 * call in flight; close must come after every other call has returned.
 * The helper is single-threaded.
 * Never: the helper writes no file, talks to no other pipe, keeps no pixels
 * between requests; the proxy never trusts a length, size or string it was
 * sent, and never leaves a helper running after close.
 */
#ifndef PG_WIN_HELPER_H
#define PG_WIN_HELPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"
#include "pg_helper.h"
#include "pg_platform.h"
#include "pg_transport.h"

#define PG_WIN_HELPER_PIPE_PREFIX "\\\\.\\pipe\\pixelgate-helper-"
#define PG_WIN_HELPER_CONNECT_MS 10000u /* default: launch until connected */
/* How to start the helper. Every field may be 0/NULL for the default. */
typedef struct {
    /* UTF-8 path of the program; NULL = this process's own executable
     * (pixelgated.exe, whose main sends "helper" to pg_win_helper_main). */
    const char *exe;
    /* Words put before "--pipe NAME" on its command line; NULL = "helper". */
    const char *args;
    uint32_t connect_timeout_ms; /* 0 = PG_WIN_HELPER_CONNECT_MS */
    uint32_t call_timeout_ms;    /* 0 = PG_HELPER_CALL_MS */
    /* true: skip the console-session path and start the helper in our own
     * session with CreateProcess (a foreground run already is there). */
    bool own_session;
} pg_win_helper_launch;

/* The proxy's table. Its open(out, display, e) takes no display (USAGE if
 * one is given) and launches with the defaults. */
const pg_platform_ops *pg_win_helper_ops(void);

/* Launches the helper as `how` says (NULL = defaults) and returns a handle
 * for pg_win_helper_ops(); close it with pg_win_helper_ops()->close, which
 * also stops the helper. */
pg_err pg_win_helper_proxy_open(pg_platform **out, const pg_win_helper_launch *how, pg_error *e);

/* A proxy over an already connected pipe, with no process behind it that it
 * could restart (tests, or a helper started by other means). Takes conn,
 * also on failure. */
pg_err pg_win_helper_proxy_from_conn(pg_platform **out, pg_conn *conn, uint32_t call_timeout_ms, pg_error *e);

/* Stops the helper and starts a new one in the now active console session,
 * waiting until it connects. For SERVICE_CONTROL_SESSIONCHANGE: from the
 * control handler itself, which must return at once, prefer mark_stale.
 * UNSUPPORTED on a proxy made by pg_win_helper_proxy_from_conn. */
pg_err pg_win_helper_relaunch(pg_platform *p, pg_error *e);
/* The next call starts a new helper first. Never blocks. */
void pg_win_helper_mark_stale(pg_platform *p);

/* The helper's process id, 0 when none is running. */
uint32_t pg_win_helper_pid(pg_platform *p);
/* How the current helper was started, e.g. "CreateProcessAsUser(session 1)"
 * or "CreateProcess(fallback: SetTokenInformation: error 1314)". */
void pg_win_helper_launch_path(pg_platform *p, char *out, size_t cap);
/* Why the last capture fell back ("" if it did not), as the helper's
 * backend reported it: for a window, from PrintWindow to BitBlt
 * (pg_win_capture_fallback); for the screen, from DXGI to BitBlt
 * (pg_win_screen_fallback). */
void pg_win_helper_capture_fallback(pg_platform *p, char *out, size_t cap);

/* The helper process: serves the service on pipe_name until it closes.
 * input_token (NULL: none): the decimal value of the inherited handle of the
 * session user's token, which every SendInput then impersonates
 * (pg_win_set_input_token); one that is not a token handle is USAGE, so a
 * helper told to inject as the user never injects as itself.
 * Returns 0 when the pipe closed, else the pg_err that ended it (USAGE for
 * a pipe name that is not a helper pipe or a bad token, UNREACHABLE if it
 * cannot connect, INTERNAL for a broken frame). For main(): argv "helper
 * --pipe NAME [--input-token N]". */
int pg_win_helper_main(const char *pipe_name, const char *input_token);

#endif
