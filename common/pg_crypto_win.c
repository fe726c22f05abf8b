/* SPDX-License-Identifier: MIT */
/* pg_crypto backend for Windows: BCrypt (CNG). PLATFORM SHIM (see pg_crypto_posix.c).
 *
 * Contract: implements pg_crypto.h. Random bytes come from the system-preferred
 * RNG (BCryptGenRandom with BCRYPT_USE_SYSTEM_PREFERRED_RNG); any failure is
 * PG_E_INTERNAL, never weaker bytes. SHA-256 uses one SHA-256 algorithm
 * provider opened once per process (thread-safe, INIT_ONCE) and never closed;
 * each hash is its own BCrypt hash object. mingw-w64 10 headers lack the
 * BCRYPT_SHA256_ALG_HANDLE pseudo-handle, hence the explicit provider.
 * Never: seeds from time, falls back to rand(), keeps data between calls.
 */
#include <windows.h>

#include <bcrypt.h>
#include <limits.h>
#include <stdlib.h>

#include "pg_crypto.h"

/* BCrypt takes ULONG lengths; larger buffers go in pieces of this size. */
#define PG_BCRYPT_CHUNK ((size_t)1 << 30)

struct pg_sha256_ctx {
    BCRYPT_HASH_HANDLE h;
};

static INIT_ONCE sha_once = INIT_ONCE_STATIC_INIT;
static BCRYPT_ALG_HANDLE sha_alg;

static BOOL CALLBACK open_sha_alg(PINIT_ONCE once, PVOID param, PVOID *ctx) {
    return BCRYPT_SUCCESS(BCryptOpenAlgorithmProvider(&sha_alg, BCRYPT_SHA256_ALGORITHM, NULL, 0));
}

/* The process-wide SHA-256 provider, or NULL if CNG refused to open it. */
static BCRYPT_ALG_HANDLE sha_provider(void) {
    return InitOnceExecuteOnce(&sha_once, open_sha_alg, NULL, NULL) ? sha_alg : NULL;
}

pg_err pg_random_bytes(void *buf, size_t n, pg_error *e) {
    UCHAR *p = buf;
    while (n > 0) {
        size_t k = n < PG_BCRYPT_CHUNK ? n : PG_BCRYPT_CHUNK;
        NTSTATUS s = BCryptGenRandom(NULL, p, (ULONG)k, BCRYPT_USE_SYSTEM_PREFERRED_RNG);
        if (!BCRYPT_SUCCESS(s))
            return pg_error_set(e, PG_E_INTERNAL, NULL, "the OS random generator failed (NTSTATUS 0x%08lx)",
                                (unsigned long)s);
        p += k;
        n -= k;
    }
    return PG_OK;
}

pg_err pg_sha256_new(pg_sha256_ctx **out, pg_error *e) {
    BCRYPT_ALG_HANDLE alg = sha_provider();
    if (!alg) return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot open the BCrypt SHA-256 provider");
    pg_sha256_ctx *c = calloc(1, sizeof *c);
    if (!c) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    NTSTATUS s = BCryptCreateHash(alg, &c->h, NULL, 0, NULL, 0, 0);
    if (!BCRYPT_SUCCESS(s)) {
        free(c);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "SHA-256 init failed (NTSTATUS 0x%08lx)", (unsigned long)s);
    }
    *out = c;
    return PG_OK;
}

pg_err pg_sha256_update(pg_sha256_ctx *c, const void *data, size_t n, pg_error *e) {
    const UCHAR *p = data;
    while (n > 0) {
        size_t k = n < PG_BCRYPT_CHUNK ? n : PG_BCRYPT_CHUNK;
        /* BCryptHashData does not write the input; the cast drops const only. */
        NTSTATUS s = BCryptHashData(c->h, (PUCHAR)(uintptr_t)p, (ULONG)k, 0);
        if (!BCRYPT_SUCCESS(s))
            return pg_error_set(e, PG_E_INTERNAL, NULL, "SHA-256 update failed (NTSTATUS 0x%08lx)",
                                (unsigned long)s);
        p += k;
        n -= k;
    }
    return PG_OK;
}

pg_err pg_sha256_final(pg_sha256_ctx *c, uint8_t out[PG_SHA256_LEN], pg_error *e) {
    NTSTATUS s = BCryptFinishHash(c->h, out, PG_SHA256_LEN, 0);
    pg_sha256_free(c);
    if (!BCRYPT_SUCCESS(s))
        return pg_error_set(e, PG_E_INTERNAL, NULL, "SHA-256 final failed (NTSTATUS 0x%08lx)", (unsigned long)s);
    return PG_OK;
}

void pg_sha256_free(pg_sha256_ctx *c) {
    if (!c) return;
    if (c->h) BCryptDestroyHash(c->h);
    free(c);
}

pg_err pg_sha256(const void *data, size_t n, uint8_t out[PG_SHA256_LEN], pg_error *e) {
    pg_sha256_ctx *c;
    pg_err rc = pg_sha256_new(&c, e);
    if (rc) return rc;
    rc = pg_sha256_update(c, data, n, e);
    if (rc) {
        pg_sha256_free(c);
        return rc;
    }
    return pg_sha256_final(c, out, e);
}
