/* SPDX-License-Identifier: MIT */
/* pg_crypto backend for Linux: OpenSSL libcrypto. PLATFORM SHIM (see pg_crypto_win.c). */
#include <stdlib.h>

#include <openssl/evp.h>
#include <openssl/rand.h>

#include "pg_crypto.h"

struct pg_sha256_ctx {
    EVP_MD_CTX *md;
};

pg_err pg_random_bytes(void *buf, size_t n, pg_error *e) {
    if (n > 0x7fffffff || RAND_bytes(buf, (int)n) != 1)
        return pg_error_set(e, PG_E_INTERNAL, NULL, "the OS random generator failed");
    return PG_OK;
}

pg_err pg_sha256_new(pg_sha256_ctx **out, pg_error *e) {
    pg_sha256_ctx *c = calloc(1, sizeof *c);
    if (!c) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    c->md = EVP_MD_CTX_new();
    if (!c->md || EVP_DigestInit_ex(c->md, EVP_sha256(), NULL) != 1) {
        pg_sha256_free(c);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "SHA-256 init failed");
    }
    *out = c;
    return PG_OK;
}

pg_err pg_sha256_update(pg_sha256_ctx *c, const void *data, size_t n, pg_error *e) {
    if (EVP_DigestUpdate(c->md, data, n) != 1)
        return pg_error_set(e, PG_E_INTERNAL, NULL, "SHA-256 update failed");
    return PG_OK;
}

pg_err pg_sha256_final(pg_sha256_ctx *c, uint8_t out[PG_SHA256_LEN], pg_error *e) {
    unsigned len = 0;
    int ok = EVP_DigestFinal_ex(c->md, out, &len) == 1 && len == PG_SHA256_LEN;
    pg_sha256_free(c);
    return ok ? PG_OK : pg_error_set(e, PG_E_INTERNAL, NULL, "SHA-256 final failed");
}

void pg_sha256_free(pg_sha256_ctx *c) {
    if (!c) return;
    EVP_MD_CTX_free(c->md);
    free(c);
}

pg_err pg_sha256(const void *data, size_t n, uint8_t out[PG_SHA256_LEN], pg_error *e) {
    unsigned len = 0;
    if (EVP_Digest(data, n, out, &len, EVP_sha256(), NULL) != 1 || len != PG_SHA256_LEN)
        return pg_error_set(e, PG_E_INTERNAL, NULL, "SHA-256 failed");
    return PG_OK;
}
