/* SPDX-License-Identifier: MIT */
/* pg_url.c - see pg_url.h. Strict on purpose: anything another parser might
 * read differently is refused rather than guessed at. */
#include "pg_url.h"

#include <stdio.h>
#include <string.h>

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static char lower(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c; }
static int hexval(char c) {
    if (is_digit(c)) return c - '0';
    c = lower(c);
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

static pg_err refuse(pg_error *e, const char *why) { return pg_error_set(e, PG_E_BADINPUT, NULL, "%s", why); }

/* ------------------------------------------------------------ addresses */

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

/* Expands the words of an address written with "::" at word index gap. */
static bool expand_gap(uint16_t words[8], int n, int gap) {
    if (gap < 0) return n == 8;
    if (n >= 8) return false; /* "::" must stand for at least one group */
    int tail = n - gap;
    uint16_t tmp[8] = {0};
    for (int k = 0; k < gap; k++) tmp[k] = words[k];
    for (int k = 0; k < tail; k++) tmp[8 - tail + k] = words[gap + k];
    memcpy(words, tmp, sizeof tmp);
    return true;
}

/* RFC 4291 text form, optionally ending in a dotted quad. */
static bool parse_ipv6(const char *s, size_t len, uint8_t out[16]) {
    uint16_t words[8] = {0};
    int n = 0, gap = -1;
    size_t i = 0;
    if (len >= 2 && s[0] == ':' && s[1] == ':') {
        gap = 0;
        i = 2;
    } else if (len >= 1 && s[0] == ':') {
        return false;
    }
    while (i < len || (n == 0 && gap < 0)) {
        if (n >= 8) return false;
        size_t start = i;
        unsigned v = 0;
        while (i < len && hexval(s[i]) >= 0 && i - start < 4) v = v * 16 + (unsigned)hexval(s[i++]);
        if (i < len && s[i] == '.') { /* trailing IPv4 */
            uint8_t q[4];
            if (n > 6 || !parse_ipv4(s + start, len - start, q)) return false;
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
        } else if (i == len) {
            return false; /* trailing single colon */
        }
    }
    if (!expand_gap(words, n, gap)) return false;
    for (int k = 0; k < 8; k++) {
        out[2 * k] = (uint8_t)(words[k] >> 8);
        out[2 * k + 1] = (uint8_t)words[k];
    }
    return true;
}

static const uint8_t V4_MAPPED[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

/* The longest run of two or more zero words (the first of equals), or -1. */
static int zero_run(const uint16_t w[8], int *run_len) {
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
    *run_len = best_len;
    return best_len >= 2 ? best : -1;
}

/* RFC 5952 canonical text, so that origins compare as strings. */
static void ipv6_canonical(const uint8_t a[16], char *out, size_t n) {
    if (memcmp(a, V4_MAPPED, 12) == 0) {
        snprintf(out, n, "::ffff:%u.%u.%u.%u", a[12], a[13], a[14], a[15]);
        return;
    }
    uint16_t w[8];
    for (int k = 0; k < 8; k++) w[k] = (uint16_t)(a[2 * k] << 8 | a[2 * k + 1]);
    int run_len, best = zero_run(w, &run_len);
    size_t o = 0;
    out[0] = '\0';
    for (int k = 0; k < 8; k++) {
        if (k == best) {
            o += (size_t)snprintf(out + o, o < n ? n - o : 0, "::");
            k += run_len - 1;
            continue;
        }
        bool after_gap = best >= 0 && k == best + run_len;
        o += (size_t)snprintf(out + o, o < n ? n - o : 0, "%s%x", (k == 0 || after_gap) ? "" : ":", w[k]);
    }
}

/* ---------------------------------------------------------------- hosts */

/* A last label that is numeric (or 0x...) makes resolvers and URL parsers
 * read the whole host as an IPv4 number: "127.1", "0x7f000001". */
static bool ends_in_number(const char *s, size_t len) {
    const char *lab = s;
    for (size_t i = 0; i < len; i++)
        if (s[i] == '.') lab = s + i + 1;
    size_t lablen = (size_t)(s + len - lab);
    bool numeric = true;
    for (size_t i = 0; i < lablen; i++)
        if (!is_digit(lab[i])) numeric = false;
    return numeric || (lablen >= 2 && lab[0] == '0' && lower(lab[1]) == 'x');
}

static pg_err check_hostname(const char *s, size_t len, pg_error *e) {
    if (len == 0 || len > PG_URL_HOST_MAX) return refuse(e, "host name must be 1..253 characters");
    size_t label_start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || s[i] == '.') {
            size_t ll = i - label_start;
            if (ll == 0 || ll > 63) return refuse(e, "host name has an empty or over-long label (no trailing dot)");
            if (s[label_start] == '-' || s[i - 1] == '-')
                return refuse(e, "host name label may not start or end with '-'");
            label_start = i + 1;
            continue;
        }
        char c = s[i];
        if (!(is_alpha(c) || is_digit(c) || c == '-'))
            return refuse(e, "host name may only use letters, digits, '-' and '.' (no percent-encoding)");
    }
    if (ends_in_number(s, len))
        return refuse(e, "a numeric host must be a full dotted-quad IPv4 address like 127.0.0.1");
    return PG_OK;
}

/* "[v6]" or "[v6]:port"; *port_s is set when a port follows. */
static pg_err parse_ipv6_host(const char *auth, size_t al, pg_url *u, const char **port_s, pg_error *e) {
    const char *close = memchr(auth, ']', al);
    if (!close) return refuse(e, "unterminated IPv6 literal ('[' without ']')");
    const char *host = auth + 1;
    size_t hl = (size_t)(close - host);
    const char *after = close + 1;
    if (after < auth + al) {
        if (*after != ':') return refuse(e, "unexpected characters after the IPv6 literal");
        *port_s = after + 1;
    }
    if (memchr(host, '%', hl)) return refuse(e, "IPv6 zone identifiers ('%') are not allowed");
    if (!parse_ipv6(host, hl, u->addr)) return refuse(e, "invalid IPv6 literal");
    ipv6_canonical(u->addr, u->host, sizeof u->host);
    u->kind = PG_URL_IPV6;
    return PG_OK;
}

/* "name", "a.b.c.d", either with ":port". */
static pg_err parse_plain_host(const char *auth, size_t al, pg_url *u, const char **port_s, pg_error *e) {
    const char *colon = memchr(auth, ':', al);
    size_t hl = colon ? (size_t)(colon - auth) : al;
    if (colon) *port_s = colon + 1;
    if (hl == 0) return refuse(e, "URL has no host");
    if (parse_ipv4(auth, hl, u->addr)) {
        snprintf(u->host, sizeof u->host, "%u.%u.%u.%u", u->addr[0], u->addr[1], u->addr[2], u->addr[3]);
        u->kind = PG_URL_IPV4;
        return PG_OK;
    }
    pg_err rc = check_hostname(auth, hl, e);
    if (rc != PG_OK) return rc;
    for (size_t i = 0; i < hl; i++) u->host[i] = lower(auth[i]);
    u->host[hl] = '\0';
    u->kind = PG_URL_NAME;
    return PG_OK;
}

/* ------------------------------------------------------------- the rest */

static pg_err check_chars(const char *s, size_t len, pg_error *e) {
    if (len == 0 || len > PG_URL_MAX) return pg_error_set(e, PG_E_BADINPUT, NULL, "URL must be 1..%d characters", PG_URL_MAX);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= 0x20 || c >= 0x7f)
            return refuse(e, "URL may only contain printable ASCII without spaces (percent-encode the rest)");
        if (c == '\\') return refuse(e, "URL may not contain a backslash");
        if (c == '#') return refuse(e, "URL may not contain a fragment ('#')");
    }
    return PG_OK;
}

/* "http://" or "https://" in any case; *auth is what follows. */
static pg_err parse_scheme(const char *s, pg_url *u, const char **auth, pg_error *e) {
    const char *sep = strstr(s, "://");
    size_t sl = sep ? (size_t)(sep - s) : 0;
    if (!sep || sl == 0 || sl > 5) return refuse(e, "expected scheme://host[:port][/path] with scheme http or https");
    char scheme[6];
    for (size_t i = 0; i < sl; i++) scheme[i] = lower(s[i]);
    scheme[sl] = '\0';
    if (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "scheme must be http or https, not \"%s\"", scheme);
    u->https = sl == 5;
    *auth = sep + 3;
    return PG_OK;
}

static pg_err parse_port(const char *p, size_t pl, uint16_t *port, pg_error *e) {
    if (pl == 0 || pl > 5) return refuse(e, "port must be a number 1..65535");
    unsigned long v = 0;
    for (size_t i = 0; i < pl; i++) {
        if (!is_digit(p[i])) return refuse(e, "port must be a number 1..65535");
        v = v * 10 + (unsigned long)(p[i] - '0');
    }
    if (v == 0 || v > 65535) return refuse(e, "port must be a number 1..65535");
    *port = (uint16_t)v;
    return PG_OK;
}

pg_err pg_url_parse(const char *s, pg_url *u, pg_error *e) {
    memset(u, 0, sizeof *u);
    const char *auth = NULL;
    size_t len = strlen(s);
    pg_err rc = check_chars(s, len, e);
    if (rc == PG_OK) rc = parse_scheme(s, u, &auth, e);
    if (rc != PG_OK) return rc;
    size_t al = strcspn(auth, "/?");
    const char *rest = auth + al, *port_s = NULL;
    if (memchr(auth, '@', al))
        return refuse(e, "URL with userinfo (user@ or user:password@) is refused; use api_key_file for credentials");
    if (al == 0) return refuse(e, "URL has no host");
    rc = auth[0] == '[' ? parse_ipv6_host(auth, al, u, &port_s, e) : parse_plain_host(auth, al, u, &port_s, e);
    if (rc != PG_OK) return rc;
    u->port = u->https ? 443 : 80;
    if (port_s && (rc = parse_port(port_s, (size_t)(auth + al - port_s), &u->port, e)) != PG_OK) return rc;
    bool v6 = u->kind == PG_URL_IPV6;
    snprintf(u->origin, sizeof u->origin, "%s://%s%s%s:%u", pg_url_scheme(u), v6 ? "[" : "", u->host, v6 ? "]" : "",
             (unsigned)u->port);
    snprintf(u->path, sizeof u->path, "%s%s", rest[0] == '/' ? "" : "/", rest);
    return PG_OK;
}

bool pg_url_is_origin(const pg_url *u) { return strcmp(u->path, "/") == 0; }

bool pg_url_is_loopback(const pg_url *u) {
    static const uint8_t lo6[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    switch (u->kind) {
    case PG_URL_IPV4: return u->addr[0] == 127;
    case PG_URL_IPV6: return memcmp(u->addr, lo6, 16) == 0 || (memcmp(u->addr, V4_MAPPED, 12) == 0 && u->addr[12] == 127);
    default: return strcmp(u->host, "localhost") == 0;
    }
}

const char *pg_url_scheme(const pg_url *u) { return u->https ? "https" : "http"; }
