/* SPDX-License-Identifier: MIT */
/* pg_url.h - the one grammar for the http(s) endpoint URLs and allowlist
 * origins of a policy. The policy validates with it and the relay dials
 * what it returns (origin + path), so the URL the policy accepts is the URL
 * the relay dials: there is no second parser to disagree with.
 *
 * Accepted: http or https (any case) "://" host [":" port] [path][?query].
 * Host: a name (letters, digits, '-' and '.', labels of 1..63 characters not
 * starting or ending with '-', 1..253 characters, no trailing dot), a strict
 * dotted-quad IPv4 address, or an IPv6 literal in brackets (RFC 4291 text,
 * optionally ending in a dotted quad).
 * Refused, because some other parser in the chain (libcurl, a resolver,
 * inet_aton, a browser) might read it differently: userinfo ('@'), a
 * fragment ('#'), a backslash, spaces, control or non-ASCII bytes,
 * percent-encoding in the host, an IPv6 zone ('%'), a name whose last label
 * is a number or 0x... ("127.1", "2130706433", "0x7f.1"), leading zeros in
 * an IPv4 part (octal to some), port 0 or above 65535, an empty port.
 *
 * Output is canonical: scheme and name in lower case, IPv6 in RFC 5952 text,
 * the port always explicit in the origin, and a path that starts with '/'.
 *
 * Never: resolves a name, classifies an address (public/private is the
 * relay's destination check), percent-decodes, allocates, or keeps a pointer
 * into its input. Pure and thread-safe.
 */
#ifndef PG_URL_H
#define PG_URL_H

#include <stdbool.h>
#include <stdint.h>

#include "pg_error.h"

#define PG_URL_MAX 2047     /* characters of a whole URL */
#define PG_URL_HOST_MAX 253 /* characters of a host name */

typedef enum { PG_URL_NAME, PG_URL_IPV4, PG_URL_IPV6 } pg_url_host_kind;

typedef struct {
    bool https;
    pg_url_host_kind kind;
    char host[PG_URL_HOST_MAX + 1]; /* lower case; IPv6 canonical, without brackets */
    uint8_t addr[16];               /* a literal's address: IPv4 in addr[0..3], IPv6 in all 16 */
    uint16_t port;                  /* explicit, else 80 or 443 */
    char origin[PG_URL_HOST_MAX + 24]; /* "https://[host]:65535": compared as strings */
    char path[PG_URL_MAX + 2];      /* path and query, always starting with '/' ("/" if none) */
} pg_url;

/* Parses s into *u (zeroed first). PG_E_BADINPUT with the reason, written for
 * an administrator, when s is not in the grammar above. */
pg_err pg_url_parse(const char *s, pg_url *u, pg_error *e);

/* The URL is an origin: nothing after host[:port] but an optional "/". */
bool pg_url_is_origin(const pg_url *u);

/* The host names the loopback interface by itself: 127.0.0.0/8, ::1,
 * ::ffff:127.0.0.0/104 or the name "localhost". What a name resolves to is
 * not looked at here. */
bool pg_url_is_loopback(const pg_url *u);

/* "http" or "https". */
const char *pg_url_scheme(const pg_url *u);

#endif
