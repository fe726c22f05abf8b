/* SPDX-License-Identifier: MIT */
/* pg_relay_dest.c - the destination check (see pg_relay.h); the URL grammar is common/pg_url.h. */
#include <stdio.h>
#include <string.h>

#ifdef _WIN32
#include <winsock2.h> /* getaddrinfo, inet_pton: Winsock */
#include <ws2tcpip.h>
#else
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/un.h>
#endif

#include "pg_relay.h"
#include "pg_relay_int.h"

static const char *const TIP_URL = "fix the endpoint URL in the policy (http/https, no user:password@, no fragment)";
static const char *const TIP_DEST = "only administrator-approved destinations are reachable; see docs/analysis.md";

/* ---- address classes --------------------------------------------------------- */

typedef enum { C_PUBLIC, C_LOOPBACK, C_PRIVATE, C_FORBIDDEN } addr_class;

static const char *class_name(addr_class c) {
    switch (c) {
    case C_PUBLIC: return "public";
    case C_LOOPBACK: return "loopback";
    case C_PRIVATE: return "private";
    default: return "unspecified/link-local/multicast/reserved";
    }
}

static addr_class class_v4(uint32_t a) { /* host order */
    uint8_t b0 = (uint8_t)(a >> 24), b1 = (uint8_t)(a >> 16);
    if (b0 == 127) return C_LOOPBACK;
    if (b0 == 0) return C_FORBIDDEN;                       /* "this network", 0.0.0.0 */
    if (b0 == 169 && b1 == 254) return C_FORBIDDEN;        /* link-local, cloud metadata */
    if (b0 >= 224) return C_FORBIDDEN;                     /* multicast, reserved, broadcast */
    if (b0 == 10) return C_PRIVATE;
    if (b0 == 172 && (b1 & 0xf0) == 16) return C_PRIVATE;
    if (b0 == 192 && b1 == 168) return C_PRIVATE;
    if (b0 == 100 && (b1 & 0xc0) == 64) return C_PRIVATE;  /* CGNAT 100.64/10 */
    if (b0 == 198 && (b1 & 0xfe) == 18) return C_PRIVATE;  /* benchmarking 198.18/15 */
    if (b0 == 192 && b1 == 0 && (uint8_t)(a >> 8) == 0) return C_PRIVATE; /* 192.0.0/24 IETF */
    return C_PUBLIC;
}

static uint32_t v4_at(const uint8_t *b) {
    return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3];
}

static addr_class classify(const struct sockaddr_storage *ss) {
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
        return class_v4(ntohl(s4->sin_addr.s_addr));
    }
    if (ss->ss_family != AF_INET6) return C_FORBIDDEN;
    const uint8_t *b = ((const struct sockaddr_in6 *)ss)->sin6_addr.s6_addr;
    static const uint8_t zero12[12] = {0};
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    static const uint8_t nat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
    static const uint8_t nat64_local[6] = {0, 0x64, 0xff, 0x9b, 0, 0x01};
    static const uint8_t siit[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0};
    if (memcmp(b, mapped, 12) == 0) return class_v4(v4_at(b + 12)); /* the kernel sends it as IPv4 */
    if (memcmp(b, zero12, 12) == 0) {
        uint32_t low = v4_at(b + 12);
        if (low == 1) return C_LOOPBACK;                   /* ::1 */
        return C_FORBIDDEN;                                /* :: and deprecated ::a.b.c.d */
    }
    if (b[0] == 0xff) return C_FORBIDDEN;                  /* multicast */
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return C_FORBIDDEN; /* fe80::/10 link-local */
    if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) return C_PRIVATE;   /* fec0::/10 site-local */
    if ((b[0] & 0xfe) == 0xfc) return C_PRIVATE;           /* fc00::/7 ULA */
    /* IPv4 embedded by translation: NAT64 64:ff9b::/96, local-use NAT64
     * 64:ff9b:1::/48 (RFC 8215; the /96 form, the IPv4 in the last 32 bits),
     * SIIT ::ffff:0:0/96 and 6to4 2002::/16. A non-public embedded address is
     * a way around the IPv4 rules: refuse. */
    if (memcmp(b, nat64, 12) == 0 || memcmp(b, nat64_local, 6) == 0 || memcmp(b, siit, 12) == 0)
        return class_v4(v4_at(b + 12)) == C_PUBLIC ? C_PUBLIC : C_FORBIDDEN;
    if (b[0] == 0x20 && b[1] == 0x02) return class_v4(v4_at(b + 2)) == C_PUBLIC ? C_PUBLIC : C_FORBIDDEN;
    return C_PUBLIC;
}

static void addr_to_text(const struct sockaddr_storage *ss, char out[48]) {
    out[0] = 0;
    if (ss->ss_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, out, 48);
    else if (ss->ss_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, out, 48);
    else
        snprintf(out, 48, "(family %d)", (int)ss->ss_family);
}

bool pg_relay_addr_equal(const struct sockaddr *a, const struct sockaddr_storage *b) {
    if (a->sa_family != b->ss_family) return false;
    if (a->sa_family == AF_INET)
        return memcmp(&((const struct sockaddr_in *)a)->sin_addr, &((const struct sockaddr_in *)b)->sin_addr,
                      sizeof(struct in_addr)) == 0;
    if (a->sa_family == AF_INET6)
        return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr, &((const struct sockaddr_in6 *)b)->sin6_addr,
                      sizeof(struct in6_addr)) == 0;
    return false;
}

/* Every address the resolver returns for host. Returns the count, -1 when the
 * name does not resolve, -2 when there are more than we can check. */
typedef struct {
    struct sockaddr_storage a[64];
    int n;
} addr_list;

static int resolve_all(const pg_dest_policy *pol, const char *host, addr_list *out) {
    out->n = 0;
    if (pol->resolver) {
        int n = pol->resolver(pol->resolver_ctx, host, out->a, 64);
        if (n <= 0) return -1;
        if (n > 64) return -2;
        out->n = n;
        return out->n;
    }
#ifdef _WIN32
    /* Winsock answers nothing before WSAStartup, which libcurl's global init
     * does; a failed init leaves the name unresolved (refused). */
    if (pg_relay_global_init(NULL) != PG_OK) return -1;
#endif
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, NULL, &hints, &res) != 0 || !res) return -1;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        if (out->n == 64) {
            /* More than we can track: refuse rather than check a subset. */
            freeaddrinfo(res);
            return -2;
        }
        if (ai->ai_addrlen > sizeof(struct sockaddr_storage)) continue;
        memset(&out->a[out->n], 0, sizeof out->a[0]);
        memcpy(&out->a[out->n], ai->ai_addr, ai->ai_addrlen);
        out->n++;
    }
    freeaddrinfo(res);
    return out->n;
}

/* The literal's address as the parser read it: no second reading of the text. */
static void literal_addr(const pg_url *u, struct sockaddr_storage *ss) {
    memset(ss, 0, sizeof *ss);
    if (u->kind == PG_URL_IPV6) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
        s6->sin6_family = AF_INET6;
        memcpy(&s6->sin6_addr, u->addr, 16);
        return;
    }
    struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
    s4->sin_family = AF_INET;
    memcpy(&s4->sin_addr, u->addr, 4);
}

static bool is_literal(const pg_url *u) { return u->kind != PG_URL_NAME; }

/* The endpoint's URL, refused as the policy would refuse it. */
static pg_err parse_endpoint_url(const char *url, const char *nm, pg_url *u, pg_error *e) {
    pg_error ue;
    if (!url) return pg_error_set(e, PG_E_POLICY, TIP_URL, "endpoint '%s' refused: it has no URL", nm);
    if (pg_url_parse(url, u, &ue) != PG_OK)
        return pg_error_set(e, PG_E_POLICY, TIP_URL, "endpoint '%s' refused: %s", nm, ue.message);
    return PG_OK;
}

pg_err pg_relay_check_destination(const pg_endpoint *ep, const pg_dest_policy *pol, pg_relay_dest *out,
                                  pg_error *e) {
    memset(out, 0, sizeof *out);
    if (!ep || !pol) return pg_error_set(e, PG_E_BADINPUT, NULL, "no endpoint or destination policy");
    if (ep->kind != PG_EP_OPENAI)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "endpoint '%s' is not a URL endpoint", ep->name ? ep->name : "?");
    if (pol->mode != PG_DEST_LOCAL_ONLY && pol->mode != PG_DEST_ALLOWLIST)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "unknown destination mode %d", (int)pol->mode);
    const char *nm = ep->name ? ep->name : "?";
    pg_err rc = parse_endpoint_url(ep->url, nm, &out->url, e);
    if (rc != PG_OK) return rc;
    if (ep->unix_socket) {
#ifdef _WIN32
        /* AF_UNIX exists on Windows 10, but the broker's libcurl is built
         * without it and a socket file's ACL is not checked here: refuse. */
        return pg_error_set(e, PG_E_UNSUPPORTED, "give the endpoint an http://127.0.0.1:PORT URL instead",
                            "endpoint '%s': unix_socket endpoints are not supported on Windows", nm);
#else
        /* A Unix socket is local by construction; the admin named its path. */
        if (ep->unix_socket[0] != '/' || strlen(ep->unix_socket) >= sizeof(((struct sockaddr_un *)0)->sun_path))
            return pg_error_set(e, PG_E_BADINPUT, NULL, "endpoint '%s': unix_socket must be an absolute path shorter than 108 bytes", nm);
        out->unix_socket = true;
        return PG_OK;
#endif
    }

    bool listed_literal = false;
    if (pol->mode == PG_DEST_ALLOWLIST) {
        bool found = false;
        for (size_t i = 0; i < pol->n_allow_origins; i++) {
            pg_url o;
            pg_error oe;
            const char *s = pol->allow_origins[i];
            if (!s || pg_url_parse(s, &o, &oe) != PG_OK)
                return pg_error_set(e, PG_E_BADINPUT, "fix analysis.allowlist in the policy",
                                    "allowlisted origin '%s' is malformed: %s", s ? s : "(null)", s ? oe.message : "null");
            if (!pg_url_is_origin(&o))
                return pg_error_set(e, PG_E_BADINPUT, "fix analysis.allowlist in the policy",
                                    "allowlisted origin '%s' has a path or query (write scheme://host:port)", s);
            if (strcmp(o.origin, out->url.origin) == 0) found = true;
        }
        if (!found)
            return pg_error_set(e, PG_E_POLICY, TIP_DEST, "endpoint '%s' refused: origin %s is not on the allowlist", nm,
                                out->url.origin);
        listed_literal = is_literal(&out->url);
    }

    addr_list al;
    if (is_literal(&out->url)) {
        literal_addr(&out->url, &al.a[0]);
        al.n = 1;
    } else {
        int n = resolve_all(pol, out->url.host, &al);
        if (n == -2)
            return pg_error_set(e, PG_E_POLICY, TIP_DEST, "endpoint '%s' refused: %s resolves to too many addresses", nm,
                                out->url.host);
        if (n <= 0)
            return pg_error_set(e, PG_E_UNREACHABLE, "check the host name in the policy",
                                "endpoint '%s': host %s does not resolve", nm, out->url.host);
    }
    for (int i = 0; i < al.n; i++) {
        char txt[48];
        addr_to_text(&al.a[i], txt);
        addr_class c = classify(&al.a[i]);
        bool ok;
        if (pol->mode == PG_DEST_LOCAL_ONLY) ok = (c == C_LOOPBACK);
        else ok = (c == C_PUBLIC) || ((c == C_LOOPBACK || c == C_PRIVATE) && listed_literal);
        if (!ok) {
            if (pol->mode == PG_DEST_LOCAL_ONLY)
                return pg_error_set(e, PG_E_POLICY, TIP_DEST,
                                    "endpoint '%s' refused: %s%s%s is %s, and analysis is local-only (loopback only)", nm,
                                    is_literal(&out->url) ? "" : out->url.host,
                                    is_literal(&out->url) ? "" : " resolves to ", txt, class_name(c));
            return pg_error_set(e, PG_E_POLICY, TIP_DEST,
                                "endpoint '%s' refused: %s%s%s is a %s address%s", nm,
                                is_literal(&out->url) ? "" : out->url.host,
                                is_literal(&out->url) ? "" : " resolves to ", txt, class_name(c),
                                c == C_FORBIDDEN ? " (never allowed)"
                                                 : " (allowed only when the allowlist names the address literally)");
        }
        /* keep (deduplicated) */
        bool dup = false;
        for (int j = 0; j < out->naddrs; j++)
            if (pg_relay_addr_equal((const struct sockaddr *)&al.a[i], &out->addrs[j])) dup = true;
        if (!dup && out->naddrs < PG_RELAY_MAX_ADDRS) {
            out->addrs[out->naddrs] = al.a[i];
            snprintf(out->addr_text[out->naddrs], sizeof out->addr_text[0], "%s", txt);
            out->naddrs++;
        }
    }
    if (out->naddrs == 0)
        return pg_error_set(e, PG_E_UNREACHABLE, NULL, "endpoint '%s': no usable address", nm);
    return PG_OK;
}
