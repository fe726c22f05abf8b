/* SPDX-License-Identifier: MIT */
/* pg_relay_http.c - the OpenAI-compatible chat-completions client (libcurl).
 *
 * Every transfer is pinned: the host was resolved and checked by
 * pg_relay_check_destination(), libcurl gets exactly those addresses via
 * CURLOPT_RESOLVE (or the Unix socket path), and the open-socket callback
 * refuses any address/port that is not among them, so nothing libcurl might
 * do on its own (a second lookup, Alt-Svc, a bug) can move the image
 * elsewhere. Redirects are not followed, proxies are off whatever the
 * environment says, only http/https are spoken.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <winsock2.h> /* Winsock: sockets, inet_ntop */
#include <ws2tcpip.h>
#include <windows.h>  /* SecureZeroMemory */
#else
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/un.h>
#endif

#include <cJSON.h>
#include <curl/curl.h>

#include "pg_crypto.h"
#include "pg_relay.h"
#include "pg_relay_int.h"

typedef struct {
    char *p;
    size_t n, cap, limit;
    bool over;
} resp_buf;

static size_t on_write(char *data, size_t size, size_t nmemb, void *ud) {
    resp_buf *b = ud;
    size_t len = size * nmemb;
    if (len > b->limit - b->n) { /* n <= limit always holds */
        b->over = true;
        return 0; /* aborts the transfer: CURLE_WRITE_ERROR */
    }
    if (b->n + len + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 16384;
        while (nc < b->n + len + 1) nc *= 2;
        if (nc > b->limit + 1) nc = b->limit + 1;
        char *np = realloc(b->p, nc);
        if (!np) return 0;
        b->p = np;
        b->cap = nc;
    }
    memcpy(b->p + b->n, data, len);
    b->n += len;
    b->p[b->n] = 0;
    return len;
}

typedef struct {
    const pg_relay_dest *dest;
    const char *unix_path;
    bool refused;
    char refused_addr[64];
} sock_guard;

/* The last line of defence: curl may only open a socket to a checked address
 * (and the URL's port), or to the admin's Unix socket. */
static curl_socket_t on_opensocket(void *ud, curlsocktype purpose, struct curl_sockaddr *a) {
    sock_guard *g = ud;
    bool ok = false;
    if (purpose == CURLSOCKTYPE_IPCXN) {
#ifndef _WIN32 /* Windows never has a Unix-socket destination (pg_relay_dest.c) */
        if (g->unix_path) {
            const struct sockaddr_un *su = (const struct sockaddr_un *)&a->addr;
            ok = a->family == AF_UNIX && strncmp(su->sun_path, g->unix_path, sizeof su->sun_path) == 0;
            if (!ok) snprintf(g->refused_addr, sizeof g->refused_addr, "(family %d)", a->family);
        } else
#endif
        if (a->family == AF_INET || a->family == AF_INET6) {
            uint16_t port = a->family == AF_INET ? ntohs(((const struct sockaddr_in *)&a->addr)->sin_port)
                                                 : ntohs(((const struct sockaddr_in6 *)&a->addr)->sin6_port);
            for (int i = 0; i < g->dest->naddrs && !ok; i++)
                ok = pg_relay_addr_equal(&a->addr, &g->dest->addrs[i]) && port == g->dest->url.port;
            if (!ok) {
                char t[48] = "?";
                const void *src = a->family == AF_INET ? (const void *)&((const struct sockaddr_in *)&a->addr)->sin_addr
                                                       : (const void *)&((const struct sockaddr_in6 *)&a->addr)->sin6_addr;
                inet_ntop(a->family, src, t, sizeof t);
                snprintf(g->refused_addr, sizeof g->refused_addr, "%s port %u", t, (unsigned)port);
            }
        }
    }
    if (!ok) {
        g->refused = true;
        return CURL_SOCKET_BAD;
    }
#ifdef _WIN32
    /* Not inheritable (SOCK_CLOEXEC's counterpart); overlapped, as socket() gives. */
    return WSASocketW(a->family, a->socktype, a->protocol, NULL, 0, WSA_FLAG_OVERLAPPED | WSA_FLAG_NO_HANDLE_INHERIT);
#else
    return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
#endif
}

/* Wipes a secret so the compiler cannot drop the stores. */
static void wipe(void *p, size_t n) {
#ifdef _WIN32
    SecureZeroMemory(p, n);
#else
    explicit_bzero(p, n);
#endif
}

static bool add_header(struct curl_slist **l, const char *h) {
    struct curl_slist *n = curl_slist_append(*l, h);
    if (!n) return false;
    *l = n;
    return true;
}

/* Printable-ASCII excerpt of an endpoint's error body, for messages. */
static void excerpt(const char *s, size_t n, char *out, size_t outsz) {
    size_t j = 0;
    for (size_t i = 0; i < n && j + 1 < outsz && j < 200; i++) {
        unsigned char c = (unsigned char)s[i];
        out[j++] = (c >= 0x20 && c < 0x7f) ? (char)c : ' ';
    }
    out[j] = 0;
}

static void error_detail(const resp_buf *b, char *out, size_t outsz) {
    out[0] = 0;
    if (!b->p || !b->n) return;
    cJSON *root = cJSON_ParseWithLength(b->p, b->n);
    const char *msg = NULL;
    if (root) {
        cJSON *err = cJSON_GetObjectItemCaseSensitive(root, "error");
        if (cJSON_IsString(err)) msg = err->valuestring;
        else if (cJSON_IsObject(err)) {
            cJSON *m = cJSON_GetObjectItemCaseSensitive(err, "message");
            if (cJSON_IsString(m)) msg = m->valuestring;
        }
    }
    if (msg) excerpt(msg, strlen(msg), out, outsz);
    else excerpt(b->p, b->n, out, outsz);
    cJSON_Delete(root);
}

/* choices[0].message.content: a string, or an array of parts of which the
 * text parts are joined with newlines. Anything else is not an answer. */
static pg_err extract_answer(const resp_buf *b, const char *nm, char **answer, pg_error *e) {
    cJSON *root = b->p ? cJSON_ParseWithLength(b->p, b->n) : NULL;
    if (!root) return pg_error_set(e, PG_E_BADINPUT, NULL, "endpoint '%s' answered with malformed JSON", nm);
    pg_err rc = PG_OK;
    cJSON *choices = cJSON_GetObjectItemCaseSensitive(root, "choices");
    cJSON *c0 = cJSON_IsArray(choices) ? cJSON_GetArrayItem(choices, 0) : NULL;
    cJSON *msg = cJSON_IsObject(c0) ? cJSON_GetObjectItemCaseSensitive(c0, "message") : NULL;
    cJSON *content = cJSON_IsObject(msg) ? cJSON_GetObjectItemCaseSensitive(msg, "content") : NULL;
    if (cJSON_IsString(content)) {
        *answer = strdup(content->valuestring);
    } else if (cJSON_IsArray(content)) {
        size_t total = 1;
        cJSON *part;
        cJSON_ArrayForEach(part, content) {
            cJSON *t = cJSON_GetObjectItemCaseSensitive(part, "type");
            cJSON *x = cJSON_GetObjectItemCaseSensitive(part, "text");
            if (cJSON_IsString(t) && (!strcmp(t->valuestring, "text") || !strcmp(t->valuestring, "output_text")) &&
                cJSON_IsString(x))
                total += strlen(x->valuestring) + 1;
        }
        char *s = malloc(total);
        if (s) {
            size_t o = 0;
            cJSON_ArrayForEach(part, content) {
                cJSON *t = cJSON_GetObjectItemCaseSensitive(part, "type");
                cJSON *x = cJSON_GetObjectItemCaseSensitive(part, "text");
                if (cJSON_IsString(t) && (!strcmp(t->valuestring, "text") || !strcmp(t->valuestring, "output_text")) &&
                    cJSON_IsString(x)) {
                    if (o) s[o++] = '\n';
                    size_t l = strlen(x->valuestring);
                    memcpy(s + o, x->valuestring, l);
                    o += l;
                }
            }
            s[o] = 0;
            if (o == 0) {
                free(s);
                s = NULL;
                rc = pg_error_set(e, PG_E_BADINPUT, NULL, "endpoint '%s' answered without any text part", nm);
            }
        }
        *answer = s;
        if (!s && rc == PG_OK) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    } else {
        cJSON *refusal = cJSON_IsObject(msg) ? cJSON_GetObjectItemCaseSensitive(msg, "refusal") : NULL;
        char ex[256] = "";
        if (cJSON_IsString(refusal)) excerpt(refusal->valuestring, strlen(refusal->valuestring), ex, sizeof ex);
        rc = pg_error_set(e, PG_E_BADINPUT, NULL, "endpoint '%s' answered without choices[0].message.content text%s%s",
                          nm, ex[0] ? "; refusal: " : "", ex);
    }
    if (rc == PG_OK && !*answer) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    cJSON_Delete(root);
    return rc;
}

static char *build_body(const pg_endpoint *ep, const uint8_t *png, size_t png_len, const char *prompt) {
    static const char prefix[] = "data:image/png;base64,";
    size_t b64 = pg_b64_len(png_len);
    char *durl = malloc(sizeof prefix + b64);
    if (!durl) return NULL;
    memcpy(durl, prefix, sizeof prefix - 1);
    pg_b64_encode(png, png_len, durl + sizeof prefix - 1);

    char *out = NULL;
    cJSON *root = cJSON_CreateObject();
    cJSON *messages = cJSON_AddArrayToObject(root, "messages");
    cJSON *m = cJSON_CreateObject();
    cJSON_AddItemToArray(messages, m);
    cJSON_AddStringToObject(m, "role", "user");
    cJSON *content = cJSON_AddArrayToObject(m, "content");
    cJSON *t = cJSON_CreateObject();
    cJSON_AddItemToArray(content, t);
    cJSON_AddStringToObject(t, "type", "text");
    cJSON_AddStringToObject(t, "text", prompt);
    cJSON *im = cJSON_CreateObject();
    cJSON_AddItemToArray(content, im);
    cJSON_AddStringToObject(im, "type", "image_url");
    cJSON *iu = cJSON_AddObjectToObject(im, "image_url");
    cJSON_AddItemToObject(iu, "url", cJSON_CreateStringReference(durl));
    cJSON_AddStringToObject(root, "model", ep->model);
    cJSON_AddNumberToObject(root, "max_tokens", ep->max_tokens ? ep->max_tokens : PG_RELAY_DEFAULT_MAX_TOKENS);
    cJSON_AddBoolToObject(root, "stream", 0);
    /* cJSON's Add* return NULL on allocation failure; then the print fails too
     * or the object is incomplete - check the one thing that matters. */
    if (cJSON_GetArraySize(content) == 2 && cJSON_GetObjectItemCaseSensitive(root, "model"))
        out = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    free(durl);
    return out;
}

pg_err pg_relay_http_analyze(const pg_endpoint *ep, const pg_dest_policy *pol, const uint8_t *png, size_t png_len,
                             const char *prompt, char **answer_text, pg_relay_fail *fail, pg_error *e) {
    const char *nm = ep->name ? ep->name : "?";
    pg_relay_fail fk = PG_RF_CONFIG;
    if (!ep->url || !*ep->url) return pg_error_set(e, PG_E_BADINPUT, NULL, "endpoint '%s' has no URL", nm);
    if (!ep->model || !*ep->model) return pg_error_set(e, PG_E_BADINPUT, NULL, "endpoint '%s' has no model", nm);
    if (ep->api_key && strpbrk(ep->api_key, "\r\n"))
        return pg_error_set(e, PG_E_BADINPUT, NULL, "endpoint '%s': api_key contains a line break", nm);
    pg_err rc = pg_relay_global_init(e);
    if (rc != PG_OK) return rc;

    pg_relay_dest dest;
    rc = pg_relay_check_destination(ep, pol, &dest, e);
    if (rc != PG_OK) { /* refused before any connection */
        if (fail) *fail = rc == PG_E_POLICY ? PG_RF_REFUSED : rc == PG_E_UNREACHABLE ? PG_RF_ENDPOINT : PG_RF_CONFIG;
        return rc;
    }
    fk = PG_RF_ENDPOINT;

    char *body = build_body(ep, png, png_len, prompt);
    if (!body) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory building the request");

    CURL *h = curl_easy_init();
    struct curl_slist *headers = NULL, *resolve = NULL;
    char *auth = NULL;
    size_t auth_len = 0;
    resp_buf rb = {.limit = pg_relay_max_response(ep)};
    sock_guard guard = {.dest = &dest, .unix_path = dest.unix_socket ? ep->unix_socket : NULL};
    char errbuf[CURL_ERROR_SIZE] = "";
    char url[sizeof dest.url.origin + sizeof dest.url.path];
    if (!h) {
        rc = pg_error_set(e, PG_E_INTERNAL, NULL, "curl_easy_init failed");
        goto out;
    }
    /* The URL we send is rebuilt from what we parsed and checked. */
    snprintf(url, sizeof url, "%s%s", dest.url.origin, dest.url.path);

    if (!dest.unix_socket && dest.url.kind == PG_URL_NAME) {
        char entry[sizeof dest.url.host + 16 + PG_RELAY_MAX_ADDRS * 52];
        int o = snprintf(entry, sizeof entry, "%s:%u:", dest.url.host, (unsigned)dest.url.port);
        for (int i = 0; i < dest.naddrs; i++)
            o += snprintf(entry + o, sizeof entry - (size_t)o, "%s%s%s%s", i ? "," : "",
                          dest.addrs[i].ss_family == AF_INET6 ? "[" : "", dest.addr_text[i],
                          dest.addrs[i].ss_family == AF_INET6 ? "]" : "");
        resolve = curl_slist_append(NULL, entry);
        if (!resolve) {
            rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
            goto out;
        }
    }
    bool hdr_ok = add_header(&headers, "Content-Type: application/json") &&
                  add_header(&headers, "Accept: application/json") &&
                  add_header(&headers, "Expect:"); /* no 100-continue round trip */
    if (hdr_ok && ep->api_key && *ep->api_key) {
        auth_len = strlen(ep->api_key) + 32;
        auth = malloc(auth_len);
        if (auth) snprintf(auth, auth_len, "Authorization: Bearer %s", ep->api_key);
        hdr_ok = auth && add_header(&headers, auth);
    }
    if (!hdr_ok) {
        rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
        goto out;
    }

    CURLcode sc = CURLE_OK;
#define SETOPT(opt, val)                                                                     \
    do {                                                                                     \
        if (sc == CURLE_OK) sc = curl_easy_setopt(h, opt, val);                              \
    } while (0)
    SETOPT(CURLOPT_URL, url);
    SETOPT(CURLOPT_PROTOCOLS_STR, "http,https");
    SETOPT(CURLOPT_FOLLOWLOCATION, 0L);
    SETOPT(CURLOPT_MAXREDIRS, 0L);
    SETOPT(CURLOPT_PROXY, "");      /* "" = no proxy, whatever the environment says */
    SETOPT(CURLOPT_NOPROXY, "*");
    SETOPT(CURLOPT_NETRC, (long)CURL_NETRC_IGNORED);
    SETOPT(CURLOPT_NOSIGNAL, 1L);
    SETOPT(CURLOPT_CONNECTTIMEOUT_MS, (long)pg_relay_connect_timeout_s(ep) * 1000L);
    SETOPT(CURLOPT_TIMEOUT_MS, (long)pg_relay_timeout_s(ep) * 1000L);
    SETOPT(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)rb.limit);
    SETOPT(CURLOPT_WRITEFUNCTION, on_write);
    SETOPT(CURLOPT_WRITEDATA, &rb);
    SETOPT(CURLOPT_OPENSOCKETFUNCTION, on_opensocket);
    SETOPT(CURLOPT_OPENSOCKETDATA, &guard);
    SETOPT(CURLOPT_HTTPHEADER, headers);
    SETOPT(CURLOPT_POST, 1L);
    SETOPT(CURLOPT_POSTFIELDS, body);
    SETOPT(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
    SETOPT(CURLOPT_USERAGENT, "pixelgate-relay");
    SETOPT(CURLOPT_ERRORBUFFER, errbuf);
    if (resolve) SETOPT(CURLOPT_RESOLVE, resolve);
#ifndef _WIN32
    if (dest.unix_socket) SETOPT(CURLOPT_UNIX_SOCKET_PATH, ep->unix_socket);
#endif
#undef SETOPT
    if (sc != CURLE_OK) {
        rc = pg_error_set(e, PG_E_INTERNAL, "libcurl is too old (needs 7.85)", "libcurl option refused: %s",
                          curl_easy_strerror(sc));
        goto out;
    }

    CURLcode cc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    const char *where = dest.unix_socket ? ep->unix_socket : dest.url.origin;
    if (guard.refused) {
        fk = PG_RF_REFUSED;
        rc = pg_error_set(e, PG_E_POLICY, NULL, "endpoint '%s': connection to %s refused: not a checked address", nm,
                          guard.refused_addr);
        goto out;
    }
    if (rb.over || cc == CURLE_FILESIZE_EXCEEDED) {
        fk = PG_RF_OUTPUT;
        rc = pg_error_set(e, PG_E_BADINPUT, "raise max_response_bytes in the policy if the answers are legitimately long",
                          "endpoint '%s': response exceeds the %zu-byte cap; transfer aborted", nm, rb.limit);
        goto out;
    }
    if (cc == CURLE_OPERATION_TIMEDOUT) {
        fk = PG_RF_TIMEOUT;
        rc = pg_error_set(e, PG_E_TIMEOUT, NULL, "endpoint '%s' (%s) did not answer within %u s (%s)", nm, where,
                          (unsigned)pg_relay_timeout_s(ep), errbuf[0] ? errbuf : "timeout");
        goto out;
    }
    if (cc != CURLE_OK) {
        rc = pg_error_set(e, cc == CURLE_OUT_OF_MEMORY ? PG_E_INTERNAL : PG_E_UNREACHABLE, NULL,
                          "endpoint '%s' (%s): %s", nm, where, errbuf[0] ? errbuf : curl_easy_strerror(cc));
        goto out;
    }
    if (status >= 300 && status < 400) {
        fk = PG_RF_REFUSED;
        rc = pg_error_set(e, PG_E_POLICY, "point the policy at the final URL; redirects are never followed",
                          "endpoint '%s' answered HTTP %ld (a redirect); not followed", nm, status);
        goto out;
    }
    if (status < 200 || status >= 300) {
        char det[256];
        error_detail(&rb, det, sizeof det);
        rc = pg_error_set(e, PG_E_UNREACHABLE, NULL, "endpoint '%s' answered HTTP %ld%s%s", nm, status,
                          det[0] ? ": " : "", det);
        goto out;
    }
    fk = PG_RF_OUTPUT;
    rc = extract_answer(&rb, nm, answer_text, e);

out:
    if (h) curl_easy_cleanup(h);
    curl_slist_free_all(headers);
    curl_slist_free_all(resolve);
    if (auth) wipe(auth, auth_len);
    free(auth);
    free(body);
    free(rb.p);
    if (fail) *fail = rc == PG_OK ? PG_RF_NONE : fk;
    return rc;
}
