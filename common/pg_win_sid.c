/* SPDX-License-Identifier: MIT */
/* pg_win_sid.c - SID parsing and comparison (see pg_win_sid.h).
 *
 * Why canonical "S-1-..." only: the SDDL is assembled as text, so a SID string
 * is checked character by character before the Windows parser sees it (no ')'
 * or ';' can reach the descriptor), and aliases such as "WD" (Everyone) cannot
 * slip past the forbidden-principal check by name (broker/os/win's pipe DACL).
 */
#include <windows.h>

#include <sddl.h>
#include <stdio.h>
#include <string.h>

#include "pg_win_sid.h"

/* Canonical form: "S-1-" then digits and single dashes, no trailing dash. */
static int sid_chars_ok(const char *s) {
    size_t len = strlen(s);
    if (len < 5 || len >= PG_WIN_SID_STR_MAX || strncmp(s, "S-1-", 4) != 0) return 0;
    for (size_t i = 4; i < len; i++) {
        int digit = s[i] >= '0' && s[i] <= '9';
        if (!digit && !(s[i] == '-' && s[i - 1] != '-' && i + 1 < len)) return 0;
    }
    return 1;
}

pg_err pg_win_sid_parse(const char *sid, PSID *out, pg_error *e) {
    *out = NULL;
    if (!sid || !sid_chars_ok(sid))
        return pg_error_set(e, PG_E_BADINPUT, "give a SID as S-1-5-21-...; 'whoami /user' shows yours",
                            "not a SID: \"%.100s\"", sid ? sid : "(null)");
    wchar_t w[PG_WIN_SID_STR_MAX];
    MultiByteToWideChar(CP_UTF8, 0, sid, -1, w, PG_WIN_SID_STR_MAX); /* ASCII, fits: checked above */
    if (!ConvertStringSidToSidW(w, out) || !IsValidSid(*out)) {
        if (*out) LocalFree(*out);
        *out = NULL;
        return pg_error_set(e, PG_E_BADINPUT, "give a SID as S-1-5-21-...; 'whoami /user' shows yours",
                            "not a valid SID: \"%s\" (Windows error %lu)", sid, (unsigned long)GetLastError());
    }
    return PG_OK;
}

pg_err pg_win_sid_check(const char *sid, pg_error *e) {
    PSID p;
    pg_err rc = pg_win_sid_parse(sid, &p, e);
    if (p) LocalFree(p);
    return rc;
}

pg_err pg_win_sid_format(PSID sid, char *out, pg_error *e) {
    wchar_t *w = NULL;
    out[0] = '\0';
    if (!sid || !IsValidSid(sid) || !ConvertSidToStringSidW(sid, &w))
        return pg_error_set(e, PG_E_BADINPUT, NULL, "invalid binary SID");
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, out, PG_WIN_SID_STR_MAX, NULL, NULL);
    LocalFree(w);
    if (n <= 0) return pg_error_set(e, PG_E_INTERNAL, NULL, "SID string too long");
    return PG_OK;
}

int pg_win_sid_equal(PSID a, PSID b) {
    return a && b && IsValidSid(a) && IsValidSid(b) && EqualSid(a, b);
}

/* 1 if sid equals the well-known SID string wk (a constant, always valid). */
static int sid_is(PSID sid, const char *wk) {
    PSID w = NULL;
    if (pg_win_sid_parse(wk, &w, NULL)) return 0;
    int eq = pg_win_sid_equal(sid, w);
    LocalFree(w);
    return eq;
}

int pg_win_sid_str_equal(const char *a, const char *b) {
    PSID pa = NULL;
    if (pg_win_sid_parse(a, &pa, NULL)) return 0;
    int eq = sid_is(pa, b);
    LocalFree(pa);
    return eq;
}

int pg_win_sid_is_trusted_writer(PSID sid) {
    return sid_is(sid, PG_WIN_SID_SYSTEM) || sid_is(sid, PG_WIN_SID_ADMINS) ||
           sid_is(sid, PG_WIN_SID_TRUSTED_INSTALLER);
}

int pg_win_sid_is_admin_or_system(const char *user_sid, const pg_win_group *groups, size_t n) {
    if (user_sid && pg_win_sid_str_equal(user_sid, PG_WIN_SID_SYSTEM)) return 1;
    for (size_t i = 0; groups && i < n; i++) {
        /* A deny-only group (UAC filtered token) grants nothing: skip it. */
        if (!(groups[i].attributes & SE_GROUP_ENABLED) || (groups[i].attributes & SE_GROUP_USE_FOR_DENY_ONLY))
            continue;
        if (pg_win_sid_str_equal(groups[i].sid, PG_WIN_SID_ADMINS) ||
            pg_win_sid_str_equal(groups[i].sid, PG_WIN_SID_SYSTEM))
            return 1;
    }
    return 0;
}
