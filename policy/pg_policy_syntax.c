/* pg_policy_syntax.c - the small languages inside a policy: endpoint URLs,
 * allowlist origins, window patterns. Strict on purpose: anything another
 * parser (libcurl, a resolver, a browser) might read differently is refused
 * rather than guessed at.
 */
#include <stdio.h>
#include <string.h>

#include "pg_policy_private.h"

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static char lower(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c; }
static int hexval(char c) {
    if (is_digit(c)) return c - '0';
    c = lower(c);
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* Strict dotted quad: four decimal parts 0..255, no leading zeros (a resolver
 * might read 010 as octal). */
static bool parse_ipv4(const char *s, size_t len, uint8_t out[4]) {
    size_t i = 0;
    for (int part = 0; part < 4; part++) {
        if (part > 0) {
            if (i >= len || s[i] != '.') return false;
            i++;
        }
        size_t start = i;
        unsigned v = 0;
        while (i < len && is_digit(s[i]) && i - start < 3) v = v * 10 + (unsigned)(s[i++] - '0');
        size_t nd = i - start;
        if (nd == 0 || v > 255 || (nd > 1 && s[start] == '0')) return false;
        if (i < len && is_digit(s[i])) return false;
        out[part] = (uint8_t)v;
    }
    return i == len;
}

/* RFC 4291 text form, optionally ending in a dotted quad. */
static bool parse_ipv6(const char *s, size_t len, uint8_t out[16]) {
    uint16_t words[8] = {0};
    int n = 0, gap = -1;
    size_t i = 0;
    if (len >= 2 && s[0] == ':' && s[1] == ':') {
        gap = 0;
        i = 2;
        if (i == len) goto done;
    } else if (len >= 1 && s[0] == ':') {
        return false;
    }
    for (;;) {
        if (n >= 8) return false;
        size_t start = i;
        unsigned v = 0;
        while (i < len && hexval(s[i]) >= 0 && i - start < 4) v = v * 16 + (unsigned)hexval(s[i++]);
        if (i < len && s[i] == '.') { /* trailing IPv4 */
            if (n > 6) return false;
            uint8_t q[4];
            if (!parse_ipv4(s + start, len - start, q)) return false;
            words[n++] = (uint16_t)(q[0] << 8 | q[1]);
            words[n++] = (uint16_t)(q[2] << 8 | q[3]);
            break;
        }
        if (i == start) return false;
        if (i < len && hexval(s[i]) >= 0) return false; /* more than 4 digits */
        words[n++] = (uint16_t)v;
        if (i == len) break;
        if (s[i] != ':') return false;
        i++;
        if (i < len && s[i] == ':') {
            if (gap >= 0) return false;
            gap = n;
            i++;
            if (i == len) break;
        } else if (i == len) {
            return false; /* trailing single colon */
        }
    }
done:
    if (gap >= 0) {
        if (n >= 8) return false; /* "::" must stand for at least one group */
        int tail = n - gap;
        uint16_t tmp[8] = {0};
        for (int k = 0; k < gap; k++) tmp[k] = words[k];
        for (int k = 0; k < tail; k++) tmp[8 - tail + k] = words[gap + k];
        memcpy(words, tmp, sizeof words);
    } else if (n != 8) {
        return false;
    }
    for (int k = 0; k < 8; k++) {
        out[2 * k] = (uint8_t)(words[k] >> 8);
        out[2 * k + 1] = (uint8_t)words[k];
    }
    return true;
}

/* RFC 5952 canonical text, so that origins compare as strings. */
static void ipv6_canonical(const uint8_t a[16], char *out, size_t n) {
    uint16_t w[8];
    for (int k = 0; k < 8; k++) w[k] = (uint16_t)(a[2 * k] << 8 | a[2 * k + 1]);
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (memcmp(a, mapped, 12) == 0) {
        snprintf(out, n, "::ffff:%u.%u.%u.%u", a[12], a[13], a[14], a[15]);
        return;
    }
    int best = -1, best_len = 0;
    for (int k = 0; k < 8;) {
        if (w[k] != 0) {
            k++;
            continue;
        }
        int j = k;
        while (j < 8 && w[j] == 0) j++;
        if (j - k > best_len) {
            best = k;
            best_len = j - k;
        }
        k = j;
    }
    if (best_len < 2) best = -1;
    size_t o = 0;
    out[0] = '\0';
    for (int k = 0; k < 8; k++) {
        if (k == best) {
            o += (size_t)snprintf(out + o, o < n ? n - o : 0, "::");
            k += best_len - 1;
            continue;
        }
        bool after_gap = best >= 0 && k == best + best_len;
        o += (size_t)snprintf(out + o, o < n ? n - o : 0, "%s%x", (k == 0 || after_gap) ? "" : ":", w[k]);
    }
}

static bool valid_hostname(const char *s, size_t len, char *why, size_t n) {
    if (len == 0 || len > 253) {
        snprintf(why, n, "host name must be 1..253 characters");
        return false;
    }
    size_t label_start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || s[i] == '.') {
            size_t ll = i - label_start;
            if (ll == 0 || ll > 63) {
                snprintf(why, n, "host name has an empty or over-long label (no trailing dot)");
                return false;
            }
            if (s[label_start] == '-' || s[i - 1] == '-') {
                snprintf(why, n, "host name label may not start or end with '-'");
                return false;
            }
            label_start = i + 1;
            continue;
        }
        char c = s[i];
        if (!(is_alpha(c) || is_digit(c) || c == '-')) {
            snprintf(why, n, "host name may only use letters, digits, '-' and '.' (no percent-encoding)");
            return false;
        }
    }
    /* A last label that is numeric (or 0x...) makes resolvers and URL parsers
     * read the whole host as an IPv4 number: "127.1", "0x7f000001". */
    const char *lab = s;
    for (size_t i = 0; i < len; i++)
        if (s[i] == '.') lab = s + i + 1;
    size_t lablen = (size_t)(s + len - lab);
    bool numeric = true;
    for (size_t i = 0; i < lablen; i++)
        if (!is_digit(lab[i])) numeric = false;
    if (numeric || (lablen >= 2 && lab[0] == '0' && lower(lab[1]) == 'x')) {
        snprintf(why, n, "a numeric host must be a full dotted-quad IPv4 address like 127.0.0.1");
        return false;
    }
    return true;
}

bool pgp_url_parse(const char *s, bool origin_only, pgp_url *u, char *why, size_t n) {
    memset(u, 0, sizeof *u);
    size_t len = strlen(s);
    if (len == 0 || len > PGP_MAX_URL) {
        snprintf(why, n, "URL must be 1..%d characters", PGP_MAX_URL);
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= 0x20 || c >= 0x7f) {
            snprintf(why, n, "URL may only contain printable ASCII without spaces (percent-encode the rest)");
            return false;
        }
        if (c == '\\') {
            snprintf(why, n, "URL may not contain a backslash");
            return false;
        }
        if (c == '#') {
            snprintf(why, n, "URL may not contain a fragment ('#')");
            return false;
        }
    }
    const char *sep = strstr(s, "://");
    size_t sl = sep ? (size_t)(sep - s) : 0;
    if (!sep || sl == 0 || sl > 5) {
        snprintf(why, n, "expected scheme://host[:port][/path] with scheme http or https");
        return false;
    }
    for (size_t i = 0; i < sl; i++) u->scheme[i] = lower(s[i]);
    u->scheme[sl] = '\0';
    uint16_t defport;
    if (strcmp(u->scheme, "http") == 0) {
        defport = 80;
    } else if (strcmp(u->scheme, "https") == 0) {
        defport = 443;
    } else {
        snprintf(why, n, "scheme must be http or https, not \"%s\"", u->scheme);
        return false;
    }
    const char *auth = sep + 3;
    size_t al = strcspn(auth, "/?");
    const char *rest = auth + al;
    if (memchr(auth, '@', al)) {
        snprintf(why, n, "URL with userinfo (user@ or user:password@) is refused; use api_key_file for credentials");
        return false;
    }
    if (al == 0) {
        snprintf(why, n, "URL has no host");
        return false;
    }
    const char *host = auth, *portp = NULL;
    size_t hl;
    if (auth[0] == '[') {
        const char *close = memchr(auth, ']', al);
        if (!close) {
            snprintf(why, n, "unterminated IPv6 literal ('[' without ']')");
            return false;
        }
        host = auth + 1;
        hl = (size_t)(close - host);
        const char *after = close + 1;
        if (after < auth + al) {
            if (*after != ':') {
                snprintf(why, n, "unexpected characters after the IPv6 literal");
                return false;
            }
            portp = after + 1;
        }
        uint8_t a[16];
        if (memchr(host, '%', hl)) {
            snprintf(why, n, "IPv6 zone identifiers ('%%') are not allowed");
            return false;
        }
        if (!parse_ipv6(host, hl, a)) {
            snprintf(why, n, "invalid IPv6 literal");
            return false;
        }
        ipv6_canonical(a, u->host, sizeof u->host);
        u->ipv6 = true;
        static const uint8_t lo6[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
        static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        u->loopback = memcmp(a, lo6, 16) == 0 || (memcmp(a, mapped, 12) == 0 && a[12] == 127);
    } else {
        const char *colon = memchr(auth, ':', al);
        hl = colon ? (size_t)(colon - auth) : al;
        if (colon) portp = colon + 1;
        if (hl == 0) {
            snprintf(why, n, "URL has no host");
            return false;
        }
        uint8_t q[4];
        if (parse_ipv4(host, hl, q)) {
            snprintf(u->host, sizeof u->host, "%u.%u.%u.%u", q[0], q[1], q[2], q[3]);
            u->loopback = q[0] == 127;
        } else {
            if (!valid_hostname(host, hl, why, n)) return false;
            for (size_t i = 0; i < hl; i++) u->host[i] = lower(host[i]);
            u->host[hl] = '\0';
            u->loopback = strcmp(u->host, "localhost") == 0;
        }
    }
    u->port = defport;
    if (portp) {
        size_t pl = (size_t)(auth + al - portp);
        if (pl == 0 || pl > 5) {
            snprintf(why, n, "port must be a number 1..65535");
            return false;
        }
        unsigned long v = 0;
        for (size_t i = 0; i < pl; i++) {
            if (!is_digit(portp[i])) {
                snprintf(why, n, "port must be a number 1..65535");
                return false;
            }
            v = v * 10 + (unsigned long)(portp[i] - '0');
        }
        if (v == 0 || v > 65535) {
            snprintf(why, n, "port must be a number 1..65535");
            return false;
        }
        u->port = (uint16_t)v;
    }
    snprintf(u->origin, sizeof u->origin, "%s://%s%s%s:%u", u->scheme, u->ipv6 ? "[" : "", u->host,
             u->ipv6 ? "]" : "", u->port);
    u->rest = rest;
    if (origin_only && !(rest[0] == '\0' || strcmp(rest, "/") == 0)) {
        snprintf(why, n, "an allowlist entry is an origin, scheme://host[:port], without a path or query");
        return false;
    }
    return true;
}

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
