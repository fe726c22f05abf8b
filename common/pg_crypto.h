/* SPDX-License-Identifier: MIT */
/* pg_crypto.h - hashing and randomness (OpenSSL libcrypto on Linux, BCrypt on
 * Windows; the only platform shims in common/ besides pg_transport).
 *
 * Contract: pg_random_bytes() draws from the OS CSPRNG and fails loudly rather
 * than returning weak bytes. SHA-256 is one-shot or incremental.
 * Never: seeds from time, falls back to rand().
 */
#ifndef PG_CRYPTO_H
#define PG_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"

#define PG_SHA256_LEN 32

pg_err pg_random_bytes(void *buf, size_t n, pg_error *e);

/* One-shot SHA-256. Returns PG_E_INTERNAL only if the crypto library fails. */
pg_err pg_sha256(const void *data, size_t n, uint8_t out[PG_SHA256_LEN], pg_error *e);

/* Incremental SHA-256 for data that arrives in pieces (e.g. image rows). */
typedef struct pg_sha256_ctx pg_sha256_ctx;
pg_err pg_sha256_new(pg_sha256_ctx **out, pg_error *e);
pg_err pg_sha256_update(pg_sha256_ctx *c, const void *data, size_t n, pg_error *e);
/* Writes the digest and frees c. */
pg_err pg_sha256_final(pg_sha256_ctx *c, uint8_t out[PG_SHA256_LEN], pg_error *e);
void pg_sha256_free(pg_sha256_ctx *c); /* for abandoning without final */

/* HMAC-SHA256 (RFC 2104); key at most 64 bytes. */
pg_err pg_hmac_sha256(const uint8_t *key, size_t key_len, const void *msg, size_t n, uint8_t out[PG_SHA256_LEN],
                      pg_error *e);

/* Lower-case hex of n bytes into out (2n+1 bytes). */
void pg_hex(const uint8_t *in, size_t n, char *out);

/* URL-safe base64 without padding (RFC 4648 sec. 5). out needs
 * pg_b64url_len(n)+1 bytes. */
size_t pg_b64url_len(size_t n);
void pg_b64url_encode(const uint8_t *in, size_t n, char *out);

/* Standard base64 with padding (for data: URLs and --base64 release). */
size_t pg_b64_len(size_t n);
void pg_b64_encode(const uint8_t *in, size_t n, char *out);

#endif
