/* SPDX-License-Identifier: MIT */
/* pg_posix_session.h - the broker's side of pixelgate-session on Linux: the
 * session socket where the desktop user's helper registers, the checks that
 * admit it, and the link through which the helper proxy
 * (broker/platform/helper/pg_helper.h) uses it as the display's backend.
 *
 * Why the helper connects to us: what the broker's account cannot reach
 * (the user's Wayland compositor and PipeWire, the accessibility bus, an X
 * display it was never granted) the user's own session can; so a program of
 * the package, started by that session, connects here, registers, and from
 * then on answers the broker's requests. It listens on nothing.
 *
 * Contract
 *   - pg_posix_session_start listens on opts->socket_path (0666: any local
 *     account may try; the checks below decide) and admits registrations on
 *     its own thread, each read within 5 s. A registration is the request
 *     {"op":"register","args":{"display":D,"session":S,"version":V}} and is
 *     answered {"ok":true,"result":{"allow":[OPS...],"uid":U}} or an error.
 *   - Admitted only when all hold, checked in this order, each refusal with
 *     its own message: (1) the installed helper (opts->helper_exe) is a
 *     root-owned regular file, setgid to opts->helper_group and writable by
 *     no one else; (2) the caller is not traced (/proc/PID/status TracerPid
 *     0); (3) SO_PEERCRED's effective gid is that group: the kernel gives it
 *     only to a process exec'd from such a file, and not under a tracer
 *     (execve ignores set-group-ID when traced) — a copy of the binary runs
 *     with the user's own gid; when /proc/PID/exe is readable (it is not
 *     across accounts: ptrace access rules) it must be that very file;
 *     (4) the session type is one this build serves ("x11"); (5) the display
 *     is the broker's; (6) the display belongs to the caller: the owner of
 *     its socket (/tmp/.X11-unix/XN) when that is not root, else the first
 *     uid admitted since the broker started; (7) no live helper is
 *     registered for it (a dead one is replaced).
 *   - Every registration, admitted or refused, is in the audit log
 *     ("session.register", the caller's uid and pid, the reason) before it
 *     is answered.
 *   - The allowlist sent is the primitives the proxy uses for the session
 *     type; the helper refuses anything else.
 *   - pg_helper_link_open(display) gives a proxy over the registered helper;
 *     none registered, or a dead one: PG_E_UNREACHABLE whose tip names the
 *     fix (log in again; enable pixelgate-session). Its list_windows keeps
 *     only the helper's user's windows, by pg_posix_window_owned (the
 *     rule input holds windows to); list_all keeps every window, so that a
 *     screen capture blacks out another account's (capture.other_users). Its gone() is true
 *     once the helper's connection closed or it was replaced, so the
 *     broker's watcher reopens through the next registration.
 * Threads: the registry has one lock; links and the registration threads
 * take it briefly. Never: reads identity from the registration, trusts a
 * helper for another uid's windows, opens a path a helper names.
 */
#ifndef PG_POSIX_SESSION_H
#define PG_POSIX_SESSION_H

#include "pg_broker.h"
#include "pg_error.h"

typedef struct {
    const char *socket_path;  /* where helpers connect */
    const char *helper_exe;   /* the packaged binary, root-owned and setgid */
    const char *helper_group; /* its group */
    const char *display;      /* the display this broker serves */
} pg_posix_session_opts;

#define PG_SESSION_SOCKET_DEFAULT "/run/pixelgate/session.sock"
#define PG_SESSION_HELPER_DEFAULT "/usr/lib/pixelgate/pixelgate-session"
#define PG_SESSION_GROUP_DEFAULT "pixelgate-session"

pg_err pg_posix_session_start(pg_broker *b, const pg_posix_session_opts *o, pg_error *e);
/* Stops listening and ends the registered helper's connection. */
void pg_posix_session_stop(void);

#endif
