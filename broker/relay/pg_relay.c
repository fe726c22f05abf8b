/* SPDX-License-Identifier: MIT */
/* pg_relay.c - shared checks and the analyze entry point (see pg_relay.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "pg_relay.h"
#include "pg_relay_int.h"

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static CURLcode g_init_rc = CURLE_FAILED_INIT;

static void global_init_once(void) {
    g_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

pg_err pg_relay_global_init(pg_error *e) {
    pthread_once(&g_once, global_init_once);
    if (g_init_rc != CURLE_OK)
        return pg_error_set(e, PG_E_INTERNAL, NULL, "libcurl initialisation failed: %s", curl_easy_strerror(g_init_rc));
    return PG_OK;
}

uint32_t pg_relay_timeout_s(const pg_endpoint *ep) {
    return ep->timeout_s ? ep->timeout_s : PG_RELAY_DEFAULT_TIMEOUT_S;
}

uint32_t pg_relay_connect_timeout_s(const pg_endpoint *ep) {
    uint32_t t = pg_relay_timeout_s(ep);
    uint32_t c = ep->connect_timeout_s ? ep->connect_timeout_s : 10u;
    return c < t ? c : t;
}

size_t pg_relay_max_response(const pg_endpoint *ep) {
    return ep->max_response_bytes ? ep->max_response_bytes : PG_RELAY_DEFAULT_MAX_RESPONSE;
}

static uint32_t be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

pg_err pg_relay_check_png(const uint8_t *png, size_t len, pg_error *e) {
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (!png || len < 8 + 8 + 13 + 4 || memcmp(png, sig, 8) != 0)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "the image to analyse is not a PNG");
    if (be32(png + 8) != 13 || memcmp(png + 12, "IHDR", 4) != 0)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "the image to analyse has no IHDR chunk first");
    if (be32(png + 16) == 0 || be32(png + 20) == 0)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "the image to analyse has zero width or height");
    return PG_OK;
}

char *pg_relay_last_line(char *s, size_t n) {
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = 0;
    if (n == 0) return NULL;
    char *p = s + n;
    while (p > s && p[-1] != '\n') p--;
    while (*p == ' ' || *p == '\t') p++;
    return p;
}

void pg_relay_tail_text(const char *buf, size_t n, char *out, size_t outsz) {
    size_t start = n > 200 ? n - 200 : 0, j = 0;
    for (size_t i = start; i < n && j + 1 < outsz; i++) {
        unsigned char c = (unsigned char)buf[i];
        out[j++] = (c >= 0x20 && c < 0x7f) ? (char)c : ' ';
    }
    while (j > 0 && out[j - 1] == ' ') j--;
    out[j] = 0;
}

static void set_fail(pg_relay_fail *f, pg_relay_fail v) {
    if (f) *f = v;
}

/* Decodes one UTF-8 sequence at s; returns its length (0 = invalid) and the
 * code point. Rejects overlongs, surrogates and values above U+10FFFF. */
static size_t utf8_seq(const unsigned char *s, uint32_t *cp) {
    unsigned char c = s[0];
    size_t n;
    uint32_t v, min;
    if (c < 0x80) { *cp = c; return 1; }
    if ((c & 0xe0) == 0xc0) { n = 2; v = c & 0x1f; min = 0x80; }
    else if ((c & 0xf0) == 0xe0) { n = 3; v = c & 0x0f; min = 0x800; }
    else if ((c & 0xf8) == 0xf0) { n = 4; v = c & 0x07; min = 0x10000; }
    else return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0; /* also stops at the NUL */
        v = (v << 6) | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
    *cp = v;
    return n;
}

void pg_relay_sanitize_text(char *s) {
    unsigned char *r = (unsigned char *)s, *w = (unsigned char *)s;
    while (*r) {
        uint32_t cp;
        size_t n = utf8_seq(r, &cp);
        if (n == 0) {
            *w++ = '?';
            r++;
        } else if (cp == '\r' && r[1] == '\n') {
            r++;
        } else if ((cp < 0x20 && cp != '\n' && cp != '\t') || (cp >= 0x7f && cp < 0xa0)) {
            *w++ = ' ';
            r += n;
        } else {
            memmove(w, r, n);
            w += n;
            r += n;
        }
    }
    *w = 0;
}

pg_err pg_relay_analyze_ex(const pg_endpoint *ep, const pg_dest_policy *pol, const uint8_t *png, size_t png_len,
                           const char *prompt, const char *expect, char **answer_text, pg_relay_fail *fail,
                           pg_error *e) {
    set_fail(fail, PG_RF_CONFIG);
    if (answer_text) *answer_text = NULL;
    if (!ep || !answer_text) return pg_error_set(e, PG_E_BADINPUT, NULL, "no endpoint or answer pointer");
    if (!prompt || !*prompt) return pg_error_set(e, PG_E_USAGE, "give a prompt", "the prompt is empty");
    if (strlen(prompt) > PG_RELAY_MAX_PROMPT)
        return pg_error_set(e, PG_E_BADINPUT, "shorten the prompt", "the prompt is longer than %u bytes",
                            (unsigned)PG_RELAY_MAX_PROMPT);
    pg_err rc = pg_relay_check_png(png, png_len, e);
    if (rc != PG_OK) return rc;
    switch (ep->kind) {
    case PG_EP_OPENAI:
        if (!pol) return pg_error_set(e, PG_E_BADINPUT, NULL, "no destination policy");
        rc = pg_relay_http_analyze(ep, pol, png, png_len, prompt, answer_text, fail, e);
        break;
    case PG_EP_COMMAND:
        rc = pg_relay_cmd_analyze(ep, png, png_len, prompt, expect, answer_text, fail, e);
        break;
    default:
        return pg_error_set(e, PG_E_BADINPUT, NULL, "endpoint '%s' has an unknown kind %d", ep->name ? ep->name : "?",
                            (int)ep->kind);
    }
    if (rc == PG_OK) {
        set_fail(fail, PG_RF_NONE);
        pg_relay_sanitize_text(*answer_text);
    } else {
        free(*answer_text);
        *answer_text = NULL;
    }
    return rc;
}

pg_err pg_relay_analyze(const pg_endpoint *ep, const pg_dest_policy *pol, const uint8_t *png, size_t png_len,
                        const char *prompt, char **answer_text, pg_error *e) {
    return pg_relay_analyze_ex(ep, pol, png, png_len, prompt, NULL, answer_text, NULL, e);
}
