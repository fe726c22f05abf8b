/* SPDX-License-Identifier: MIT */
/* pg_win_sid.h - Windows security identifiers: parse, format, compare, and
 * the two rules built on them that the policy and the broker share (who may
 * write the policy file, who counts as an administrator). Windows only.
 *
 * Contract: SID strings are UTF-8 in the canonical numeric form "S-1-...";
 * each one is validated with ConvertStringSidToSidW and anything else (SDDL
 * aliases like "WD", junk, empty) is PG_E_BADINPUT. These functions are pure
 * (no I/O, no privileges), so they are fully tested under Wine.
 * Never: emits a SID that did not round-trip through the Windows parser.
 */
#ifndef PG_WIN_SID_H
#define PG_WIN_SID_H

#include <windows.h>

#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"

#define PG_WIN_SID_SYSTEM "S-1-5-18"
#define PG_WIN_SID_ADMINS "S-1-5-32-544"
#define PG_WIN_SID_TRUSTED_INSTALLER "S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464"
#define PG_WIN_SID_STR_MAX 192 /* "S-1-" + 48-bit authority + 15 sub-authorities */

/* One group of a token: canonical SID string and its SE_GROUP_* attributes. */
typedef struct {
    char sid[PG_WIN_SID_STR_MAX];
    uint32_t attributes;
} pg_win_group;

/* PG_OK if sid is a canonical, valid SID string; else PG_E_BADINPUT. */
pg_err pg_win_sid_check(const char *sid, pg_error *e);
/* Parses a canonical SID string. *out is LocalAlloc'd: LocalFree it. */
pg_err pg_win_sid_parse(const char *sid, PSID *out, pg_error *e);
/* Canonical string of a binary SID into out (PG_WIN_SID_STR_MAX bytes). */
pg_err pg_win_sid_format(PSID sid, char *out, pg_error *e);
/* 1 if both are valid and EqualSid, else 0. */
int pg_win_sid_equal(PSID a, PSID b);
/* 1 if both strings are valid SIDs naming the same principal, else 0. */
int pg_win_sid_str_equal(const char *a, const char *b);
/* 1 if sid is SYSTEM, Administrators or TrustedInstaller (who may write the
 * policy file), else 0. */
int pg_win_sid_is_trusted_writer(PSID sid);
/* 1 if the user is SYSTEM, or an enabled group (SE_GROUP_ENABLED and not
 * SE_GROUP_USE_FOR_DENY_ONLY, as in a UAC-filtered token) is Administrators
 * or SYSTEM; else 0. Pure over the list (from a token's TokenGroups). */
int pg_win_sid_is_admin_or_system(const char *user_sid, const pg_win_group *groups, size_t n);

#endif
