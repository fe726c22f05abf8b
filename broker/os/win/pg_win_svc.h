/* SPDX-License-Identifier: MIT */
/* pg_win_svc.h - the Windows service's registration and its directories
 * (Windows only).
 *
 * Contract:
 *   pg_win_svc_prepare_dirs makes <root>, <root>\spool and <root>\audit and
 *   gives each a protected DACL (nothing inherited) admitting only SYSTEM,
 *   Administrators and, when the caller is neither (a foreground "run" as a
 *   plain user), the caller's own account. It is applied at every start, so
 *   a loosened ACL is tightened again rather than trusted.
 *   pg_win_svc_install registers (or re-registers) the service: own process,
 *   LocalSystem, auto start, command line "<this exe>" service --policy P
 *   --state-dir D, description, and SCM recovery (restart after 5 s, 10 s,
 *   60 s; counter reset after a day; also after a non-crash failure exit).
 *   It prepares the directories and tightens an existing policy file's DACL
 *   (SYSTEM and Administrators full control, Users read). It prints what it
 *   did; returns a pg_err exit code.
 *   pg_win_svc_uninstall stops the service (bounded wait) and deletes it;
 *   data (policy, audit log) is kept. Not installed is success.
 * Never: writes a policy file; deletes the audit log.
 */
#ifndef PG_WIN_SVC_H
#define PG_WIN_SVC_H

#include <stddef.h>
#include <wchar.h>

#include "pg_error.h"

pg_err pg_win_svc_prepare_dirs(const char *root, char *spool, char *audit, size_t cap, pg_error *e);
int pg_win_svc_install(const wchar_t *name, const char *state_dir, const char *policy_path);
int pg_win_svc_uninstall(const wchar_t *name);

#endif
