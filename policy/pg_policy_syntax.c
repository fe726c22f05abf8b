/* SPDX-License-Identifier: MIT */
/* pg_policy_syntax.c - the small languages inside a policy that are the
 * policy's own: window patterns. (Endpoint URLs and allowlist origins use
 * the one URL grammar the relay dials with, common/pg_url.h.) Strict on
 * purpose: anything another engine might read differently is refused
 * rather than guessed at.
 */
#include <stdio.h>
#include <string.h>

#include "pg_policy_private.h"

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* An escape that glibc's EREs and PCRE2 read alike: \w \W \s \S \b \B, a
 * punctuation character taken literally, or a digit (left to the
 * back-reference check). Not \d (a 'd' to glibc), \< \> \` \' (anchors to
 * glibc, plain characters to PCRE2), nor PCRE2's other letters (\Q, \x, ...). */
static bool portable_escape(char c) {
    if (is_digit(c) && c != '0') return true;
    if (c == 'w' || c == 'W' || c == 's' || c == 'S' || c == 'b' || c == 'B') return true;
    return !(is_alpha(c) || is_digit(c) || c == '<' || c == '>' || c == '`' || c == '\'');
}

/* A bracket expression starting at src[i] == '['; returns false with why set
 * if it holds something only one engine understands, else stores its last
 * index (or len) in *end. */
static bool portable_bracket(const char *src, size_t len, size_t i, size_t *end, char *why, size_t n) {
    size_t j = i + 1;
    if (j < len && src[j] == '^') j++;
    if (j < len && src[j] == ']') j++;
    for (; j < len && src[j] != ']'; j++) {
        if (src[j] == '\\') {
            snprintf(why, n, "a backslash inside [...] is a plain character to POSIX but an escape to PCRE2 "
                             "(Windows); match a backslash with \\\\ outside the brackets");
            return false;
        }
        if (src[j] == '[' && j + 1 < len && (src[j + 1] == '.' || src[j + 1] == '=')) {
            snprintf(why, n, "collating elements [.x.] and equivalence classes [=x=] are not supported");
            return false;
        }
        if (src[j] == '[' && j + 1 < len && src[j + 1] == ':') {
            const char *close = strstr(src + j + 2, ":]");
            if (close) j = (size_t)(close - src) + 1;
        }
    }
    *end = j;
    return true;
}

/* Patterns are POSIX extended regular expressions, compiled by glibc on Linux
 * and by PCRE2 on Windows (common/pg_regex.h). What the two read differently,
 * or only one of them has, is refused, so that a policy means the same on
 * both: Perl groups and verbs "(?" "(*", non-portable escapes, backslashes in
 * brackets, collating elements, and "{,n}" (0..n to glibc, literal to PCRE2). */
static bool portable_pattern(const char *src, size_t len, char *why, size_t n) {
    for (size_t i = 0; i < len; i++) {
        char c = src[i];
        if (c == '\\' && i + 1 < len) {
            if (!portable_escape(src[i + 1])) {
                snprintf(why, n, "\"\\%c\" means different things to POSIX (Linux) and PCRE2 (Windows) engines; "
                                 "use a bracket expression such as [[:digit:]] or [[:space:]], or \\w \\s \\b",
                         src[i + 1]);
                return false;
            }
            i++;
        } else if (c == '(' && i + 1 < len && (src[i + 1] == '?' || src[i + 1] == '*')) {
            snprintf(why, n, "\"(%c\" is Perl/PCRE2 syntax; window patterns are POSIX extended regular expressions",
                     src[i + 1]);
            return false;
        } else if (c == '{' && i + 1 < len && src[i + 1] == ',') {
            snprintf(why, n, "write {0,n} instead of {,n} (POSIX and PCRE2 engines read {,n} differently)");
            return false;
        } else if (c == '[' && !portable_bracket(src, len, i, &i, why, n)) {
            return false;
        }
    }
    return true;
}

/* Window patterns are matched against titles other users' programs choose,
 * so matching must stay cheap: no back-references (exponential in glibc), and
 * a bound on how far interval repetitions ({m,n}) can blow up the automaton.
 * Stacked repetitions ("a**", "a+?") are refused too: exponential in glibc,
 * lazy or possessive in PCRE2. */
bool pgp_pattern_check(const char *src, char *why, size_t n) {
    size_t len = strlen(src);
    if (len == 0) {
        snprintf(why, n, "empty pattern (it would match every window)");
        return false;
    }
    if (len > PGP_MAX_PATTERN) {
        snprintf(why, n, "pattern longer than %d bytes", PGP_MAX_PATTERN);
        return false;
    }
    if (!portable_pattern(src, len, why, n)) return false;
    /* cost[d] = size of the current group at depth d; last = cost of the
     * previous atom at this depth (what a following {m,n} repeats). */
    enum { MAXD = 64 };
    double cost[MAXD + 1], last[MAXD + 1];
    int d = 0;
    cost[0] = 0;
    last[0] = 0;
    bool after_rep = false; /* the previous token was a repetition operator */
    for (size_t i = 0; i < len; i++) {
        char c = src[i];
        bool rep = c == '*' || c == '+' || c == '?' || (c == '{' && i + 1 < len && is_digit(src[i + 1]));
        if (rep && after_rep) {
            /* "a++", "a*{2}": undefined in POSIX EREs, and glibc copies the
             * operand once per operator, which grows exponentially. */
            snprintf(why, n, "stacked repetition operators (like \"++\" or \"*{2}\") are not allowed; use a group");
            return false;
        }
        after_rep = rep;
        if (c == '+') { /* glibc expands x+ to xx* */
            cost[d] += last[d];
            last[d] *= 2;
        } else if (c == '*' || c == '?') {
            /* no copy */
        } else if (c == '\\') {
            if (i + 1 < len && is_digit(src[i + 1]) && src[i + 1] != '0') {
                snprintf(why, n, "back-references (\\%c) are not allowed in window patterns", src[i + 1]);
                return false;
            }
            i++;
            last[d] = 1;
            cost[d] += 1;
        } else if (c == '[') {
            size_t j = i + 1;
            if (j < len && src[j] == '^') j++;
            if (j < len && src[j] == ']') j++;
            while (j < len && src[j] != ']') {
                if (src[j] == '[' && j + 1 < len && (src[j + 1] == ':' || src[j + 1] == '.' || src[j + 1] == '=')) {
                    char t = src[j + 1];
                    const char *end = NULL;
                    for (size_t k = j + 2; k + 1 < len; k++)
                        if (src[k] == t && src[k + 1] == ']') {
                            end = src + k;
                            break;
                        }
                    if (!end) break;
                    j = (size_t)(end - src) + 2;
                } else {
                    j++;
                }
            }
            i = j < len ? j : len; /* an unterminated bracket is left to regcomp */
            last[d] = 1;
            cost[d] += 1;
        } else if (c == '(') {
            if (d >= MAXD) {
                snprintf(why, n, "pattern nests groups deeper than %d", MAXD);
                return false;
            }
            d++;
            cost[d] = 0;
            last[d] = 0;
        } else if (c == ')') {
            if (d == 0) {
                last[0] = 1;
                cost[0] += 1;
                continue;
            }
            double g = cost[d] + 1;
            d--;
            last[d] = g;
            cost[d] += g;
        } else if (c == '{' && i + 1 < len && is_digit(src[i + 1])) {
            size_t j = i + 1;
            double lo = 0, hi;
            while (j < len && is_digit(src[j])) lo = lo * 10 + (src[j++] - '0');
            hi = lo;
            if (j < len && src[j] == ',') {
                j++;
                if (j < len && is_digit(src[j])) {
                    hi = 0;
                    while (j < len && is_digit(src[j])) hi = hi * 10 + (src[j++] - '0');
                } else {
                    hi = lo + 1;
                }
            }
            if (lo > 255 || hi > 255) {
                snprintf(why, n, "repetition counts above 255 are not allowed");
                return false;
            }
            double times = (hi > lo ? hi : lo) + 1;
            cost[d] += last[d] * (times - 1);
            last[d] *= times;
            i = j < len ? j : len;
        } else {
            last[d] = 1;
            cost[d] += 1;
        }
        if (cost[d] > PGP_MAX_PATTERN_COST || last[d] > PGP_MAX_PATTERN_COST) {
            snprintf(why, n, "pattern too complex (its repetitions expand beyond %d states)", PGP_MAX_PATTERN_COST);
            return false;
        }
    }
    double total = cost[0];
    for (int k = 1; k <= d; k++) total += cost[k];
    if (total > PGP_MAX_PATTERN_COST) {
        snprintf(why, n, "pattern too complex (its repetitions expand beyond %d states)", PGP_MAX_PATTERN_COST);
        return false;
    }
    return true;
}
