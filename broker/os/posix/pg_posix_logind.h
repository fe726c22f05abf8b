/* SPDX-License-Identifier: MIT */
/* pg_posix_logind.h - which X display to serve when the administrator named
 * none: the display of seat0's active graphical session, asked of logind
 * (org.freedesktop.login1 on the system bus, $DBUS_SYSTEM_BUS_ADDRESS when
 * set), and pixelgated's "auto" display: the x11 backend opened on what
 * logind says each time the display is opened, so a broker started at boot
 * serves the session that logs in later, and the next one after a logout.
 *
 * Contract: pg_posix_logind_display fills out with the active session's
 * Display (":0") when seat0 has an active session of Type "x11" with a
 * display; otherwise PG_E_UNREACHABLE saying what logind answered (no
 * active session, a Wayland session: use the session helper, no display).
 * The auto table is pg_platform_default() with its open replaced.
 * Never: guesses a display logind did not name.
 */
#ifndef PG_POSIX_LOGIND_H
#define PG_POSIX_LOGIND_H

#include <stddef.h>

#include "pg_error.h"
#include "pg_platform.h"

#define PG_DISPLAY_AUTO "auto"

pg_err pg_posix_logind_display(char *out, size_t cap, pg_error *e);
const pg_platform_ops *pg_posix_logind_auto_ops(void);

#endif
