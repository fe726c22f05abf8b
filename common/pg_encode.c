/* SPDX-License-Identifier: MIT */
/* Portable encodings declared in pg_crypto.h: hex, base64, base64url. */
#include "pg_crypto.h"

static const char hexdig[] = "0123456789abcdef";

void pg_hex(const uint8_t *in, size_t n, char *out) {
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hexdig[in[i] >> 4];
        out[2 * i + 1] = hexdig[in[i] & 15];
    }
    out[2 * n] = '\0';
}

static const char b64std[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char b64url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* Encodes n bytes; pads with '=' when pad is set. Returns chars written. */
static size_t b64_encode(const char *alphabet, int pad, const uint8_t *in, size_t n, char *out) {
    size_t o = 0, i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        out[o++] = alphabet[v >> 18];
        out[o++] = alphabet[(v >> 12) & 63];
        out[o++] = alphabet[(v >> 6) & 63];
        out[o++] = alphabet[v & 63];
    }
    size_t rest = n - i;
    if (rest) {
        uint32_t v = (uint32_t)in[i] << 16 | (rest == 2 ? (uint32_t)in[i + 1] << 8 : 0);
        out[o++] = alphabet[v >> 18];
        out[o++] = alphabet[(v >> 12) & 63];
        if (rest == 2) out[o++] = alphabet[(v >> 6) & 63];
        else if (pad) out[o++] = '=';
        if (pad) out[o++] = '=';
    }
    out[o] = '\0';
    return o;
}

size_t pg_b64url_len(size_t n) { return n / 3 * 4 + (n % 3 ? n % 3 + 1 : 0); }
void pg_b64url_encode(const uint8_t *in, size_t n, char *out) { b64_encode(b64url, 0, in, n, out); }
size_t pg_b64_len(size_t n) { return (n + 2) / 3 * 4; }
void pg_b64_encode(const uint8_t *in, size_t n, char *out) { b64_encode(b64std, 1, in, n, out); }
