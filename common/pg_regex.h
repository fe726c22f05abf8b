/* SPDX-License-Identifier: MIT */
/* pg_regex.h - platform shim: one POSIX-style regex API on Linux and Windows.
 *
 * What it does
 *   Linux: the C library's POSIX <regex.h>. Windows (mingw-w64 has no
 *   <regex.h>): PCRE2's POSIX wrapper <pcre2posix.h>, linked statically
 *   (CMake target pg_dep_regex, built by scripts/mingw-deps.sh). Callers use
 *   regex_t, regerror, regfree and the two helpers below, never regcomp or
 *   regexec directly, so both platforms compile and match the same way
 *   (subjects and patterns are bytes, as glibc treats them in the C locale):
 *     - flags: extended syntax, case-insensitive, no submatches; on Windows
 *       also REG_DOTALL, because a POSIX '.' matches a newline and PCRE2's
 *       does not by default (a deny pattern "Bank.*Login" must still match a
 *       title with a line break in it);
 *     - cost: PCRE2 backtracks, so on Windows every pattern is compiled with
 *       match and heap limits (PG_REGEX_LIMITS in front); a subject that
 *       would exceed them makes pg_regex_match answer -1 instead of spinning;
 *     - errors: pg_regex_match tells "no match" (0) from "could not decide"
 *       (-1), so a deny list can fail closed.
 *   The two engines still differ in syntax beyond POSIX EREs (Perl escapes,
 *   "(?", lazy quantifiers): the policy refuses those in pgp_pattern_check so
 *   that a policy means the same on both platforms.
 *
 * What it never does
 *   No global state, no locale changes. Many threads may match one compiled
 *   regex_t at once (an immutable policy is shared by request threads).
 *
 * Ownership
 *   pg_regex_compile fills *re; on success the caller releases it with
 *   regfree(re). On failure nothing is to be freed, but regerror(rc, re, ...)
 *   may still be called to describe rc.
 */
#ifndef PG_REGEX_H
#define PG_REGEX_H

#include <stddef.h>

#ifdef _WIN32
/* PCRE2 is linked statically: no __declspec(dllimport) on its symbols. */
#ifndef PCRE2_STATIC
#define PCRE2_STATIC 1
#endif
#define PCRE2_CODE_UNIT_WIDTH 8
#include <stdlib.h>
#include <string.h>

#include <pcre2.h>
#include <pcre2posix.h> /* pcre2_regcomp etc., with regcomp etc. as macros */
#define PG_REGEX_FLAGS (REG_EXTENDED | REG_ICASE | REG_NOSUB | REG_DOTALL)
/* In front of every pattern: at most 1e6 matcher calls per match (about 10 ms;
 * PCRE2's default is 10 million) and 16 MiB of backtracking frames. A pattern
 * can only lower these, and the policy refuses "(*" anyway. */
#define PG_REGEX_LIMITS "(*LIMIT_MATCH=1000000)(*LIMIT_HEAP=16384)"
#else
#include <regex.h>
#define PG_REGEX_FLAGS (REG_EXTENDED | REG_ICASE | REG_NOSUB)
#endif

/* Compiles src with PG_REGEX_FLAGS. Returns 0 or a REG_* error code. */
static inline int pg_regex_compile(regex_t *re, const char *src) {
#ifdef _WIN32
    static const char limits[] = PG_REGEX_LIMITS;
    size_t n = strlen(src), k = sizeof limits - 1;
    char *full = malloc(k + n + 1);
    if (!full) return REG_ESPACE;
    memcpy(full, limits, k);
    memcpy(full + k, src, n + 1);
    int rc = regcomp(re, full, PG_REGEX_FLAGS);
    free(full);
    /* Error offsets count from the caller's pattern, not from the limits. */
    if (rc != 0 && re->re_erroffset != (size_t)-1 && re->re_erroffset >= k) re->re_erroffset -= k;
    return rc;
#else
    return regcomp(re, src, PG_REGEX_FLAGS);
#endif
}

/* 1: re matches somewhere in subject (NULL is ""); 0: it does not; -1: the
 * engine could not decide (a limit was hit, out of memory).
 * Windows: PCRE2's regexec keeps its match data (and, since 10.41, its
 * backtracking frames) inside the regex_t, so two threads matching one shared
 * pattern would race; this matches the compiled code directly with match data
 * of its own. */
static inline int pg_regex_match(const regex_t *re, const char *subject) {
    if (!subject) subject = "";
#ifdef _WIN32
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    if (!md) return -1;
    int rc = pcre2_match((const pcre2_code *)re->re_pcre2_code, (PCRE2_SPTR)subject, PCRE2_ZERO_TERMINATED, 0, 0,
                         md, NULL);
    pcre2_match_data_free(md);
    if (rc >= 0) return 1; /* 0 only says the ovector was small: still a match */
    return rc == PCRE2_ERROR_NOMATCH ? 0 : -1;
#else
    int rc = regexec(re, subject, 0, NULL, 0);
    if (rc == 0) return 1;
    return rc == REG_NOMATCH ? 0 : -1;
#endif
}

#endif
