/* SPDX-License-Identifier: MIT */
/* HMAC-SHA256 (RFC 2104) over the platform's SHA-256, declared in pg_crypto.h. */
#include <string.h>

#include "pg_crypto.h"

pg_err pg_hmac_sha256(const uint8_t *key, size_t key_len, const void *msg, size_t n, uint8_t out[PG_SHA256_LEN],
                      pg_error *e) {
    uint8_t k[64] = {0}, pad[64], inner[PG_SHA256_LEN];
    if (key_len > sizeof k) return pg_error_set(e, PG_E_INTERNAL, NULL, "HMAC key over 64 bytes");
    memcpy(k, key, key_len);
    pg_sha256_ctx *c = NULL;
    for (size_t i = 0; i < 64; i++) pad[i] = k[i] ^ 0x36;
    pg_err rc = pg_sha256_new(&c, e);
    if (!rc) rc = pg_sha256_update(c, pad, sizeof pad, e);
    if (!rc) rc = pg_sha256_update(c, msg, n, e);
    if (!rc) rc = pg_sha256_final(c, inner, e);
    else pg_sha256_free(c);
    if (rc) return rc;
    for (size_t i = 0; i < 64; i++) pad[i] = k[i] ^ 0x5c;
    if ((rc = pg_sha256_new(&c, e))) return rc;
    rc = pg_sha256_update(c, pad, sizeof pad, e);
    if (!rc) rc = pg_sha256_update(c, inner, sizeof inner, e);
    if (!rc) return pg_sha256_final(c, out, e);
    pg_sha256_free(c);
    return rc;
}
