/* Token store and spool; see pg_token.h for the contract. */
#include "pg_token.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pg_crypto.h"
#include "pg_spool_fs.h" /* the file operations, per platform */

typedef struct {
    pg_tok_meta meta;
    uint8_t *mem;  /* pixels in memory, or NULL when spooled */
    char file[40]; /* random spool name, never shown */
    uint64_t bytes;
} entry;

struct pg_tok_store {
    pthread_mutex_t lock;
    pg_spool_dir *dir;
    uint64_t quota, used;          /* memory + spool */
    uint64_t mem_budget, mem_used;
    uint32_t ttl_s;
    entry *v;
    size_t n, cap;
};

static int64_t wall_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

pg_err pg_tok_store_new(pg_tok_store **out, const char *spool_dir, uint64_t quota_bytes, uint64_t memory_budget,
                        uint32_t ttl_s, pg_error *e) {
    pg_tok_store *s = calloc(1, sizeof *s);
    if (!s) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    pg_err rc = pg_spool_dir_open(&s->dir, spool_dir, e);
    if (rc) {
        free(s);
        return rc;
    }
    pthread_mutex_init(&s->lock, NULL);
    s->quota = quota_bytes;
    s->mem_budget = memory_budget;
    s->ttl_s = ttl_s;
    pg_spool_dir_clear(s->dir);
    *out = s;
    return PG_OK;
}

void pg_tok_store_free(pg_tok_store *s) {
    if (!s) return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].mem);
        if (!s->v[i].mem) pg_spool_unlink(s->dir, s->v[i].file);
    }
    pg_spool_dir_close(s->dir);
    pthread_mutex_destroy(&s->lock);
    free(s->v);
    free(s);
}

void pg_tok_redact(const char *token, char out[16]) { snprintf(out, 16, "%.8s...", token ? token : ""); }

/* Drops entry i (file and slot). Caller holds the lock. */
static void drop(pg_tok_store *s, size_t i) {
    if (s->v[i].mem) {
        free(s->v[i].mem);
        s->mem_used -= s->v[i].bytes;
    } else {
        pg_spool_unlink(s->dir, s->v[i].file);
    }
    s->used -= s->v[i].bytes;
    s->v[i] = s->v[--s->n];
}

static unsigned sweep_locked(pg_tok_store *s, int64_t now) {
    unsigned dropped = 0;
    for (size_t i = 0; i < s->n;) {
        if (s->v[i].meta.expires_ms <= now) {
            drop(s, i);
            dropped++;
        } else {
            i++;
        }
    }
    return dropped;
}

void pg_tok_drop(pg_tok_store *s, const char *token) {
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i].meta.token, token)) {
            drop(s, i);
            break;
        }
    pthread_mutex_unlock(&s->lock);
}

unsigned pg_tok_sweep(pg_tok_store *s) {
    pthread_mutex_lock(&s->lock);
    unsigned n = sweep_locked(s, wall_ms());
    pthread_mutex_unlock(&s->lock);
    return n;
}

void pg_tok_usage(pg_tok_store *s, uint64_t *bytes, uint64_t *in_memory, unsigned *count) {
    pthread_mutex_lock(&s->lock);
    *bytes = s->used;
    *in_memory = s->mem_used;
    *count = (unsigned)s->n;
    pthread_mutex_unlock(&s->lock);
}

/* Writes pixels to a new random file; fills name. Nothing is left behind on failure. */
static pg_err spool_write(pg_tok_store *s, const uint8_t *rgba, size_t bytes, char name[40], pg_error *e) {
    uint8_t rnd[16];
    pg_err rc = pg_random_bytes(rnd, sizeof rnd, e);
    if (rc) return rc;
    pg_hex(rnd, sizeof rnd, name);
    return pg_spool_put(s->dir, name, rgba, bytes, e);
}

static pg_err new_token(char out[PG_TOKEN_LEN + 1], pg_error *e) {
    uint8_t rnd[16];
    pg_err rc = pg_random_bytes(rnd, sizeof rnd, e);
    if (rc) return rc;
    memcpy(out, "cap:", 4);
    pg_b64url_encode(rnd, sizeof rnd, out + 4);
    return PG_OK;
}

/* Appends ent under the lock, after the quota check. Caller holds the lock. */
static uint64_t uid_bytes_locked(const pg_tok_store *s, uint32_t uid) {
    uint64_t sum = 0;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].meta.uid == uid) sum += s->v[i].bytes;
    return sum;
}

static pg_err append_locked(pg_tok_store *s, const entry *ent, uint64_t uid_quota, pg_error *e) {
    sweep_locked(s, ent->meta.created_ms);
    if (uid_quota) {
        uint64_t mine = uid_bytes_locked(s, ent->meta.uid);
        if (mine + ent->bytes > uid_quota)
            return pg_error_set(e, PG_E_POLICY, "wait for your older tokens to expire, or snapshot smaller",
                                "your spool quota is reached (%llu of %llu bytes; this capture needs %llu)",
                                (unsigned long long)mine, (unsigned long long)uid_quota,
                                (unsigned long long)ent->bytes);
    }
    if (s->used + ent->bytes > s->quota)
        return pg_error_set(e, PG_E_POLICY, "wait for older tokens to expire, or snapshot a region or with --max-size",
                            "spool quota reached (%llu of %llu bytes in use; this capture needs %llu)",
                            (unsigned long long)s->used, (unsigned long long)s->quota,
                            (unsigned long long)ent->bytes);
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        entry *v = realloc(s->v, cap * sizeof *v);
        if (!v) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = *ent;
    s->used += ent->bytes;
    if (ent->mem) s->mem_used += ent->bytes;
    return PG_OK;
}

/* Reserves memory budget for bytes; false when it does not fit. */
static bool reserve_memory(pg_tok_store *s, uint64_t bytes) {
    pthread_mutex_lock(&s->lock);
    bool fits = s->mem_used + bytes <= s->mem_budget;
    if (fits) s->mem_used += bytes; /* released again by append or by the caller */
    pthread_mutex_unlock(&s->lock);
    return fits;
}

pg_err pg_tok_put(pg_tok_store *s, pg_tok_meta *meta, uint8_t *rgba, uint32_t ttl_s, uint64_t uid_quota, pg_error *e) {
    uint64_t bytes = (uint64_t)meta->width * meta->height * 4;
    uint8_t digest[PG_SHA256_LEN];
    pg_err rc = pg_sha256(rgba, bytes, digest, e);
    if (!rc) rc = new_token(meta->token, e);
    if (rc) {
        free(rgba);
        return rc;
    }
    pg_hex(digest, sizeof digest, meta->sha256);
    meta->created_ms = wall_ms();
    meta->expires_ms = meta->created_ms + (int64_t)(ttl_s ? ttl_s : s->ttl_s) * 1000;

    entry ent = {.meta = *meta, .bytes = bytes};
    bool in_memory = reserve_memory(s, bytes);
    if (in_memory) {
        ent.mem = rgba; /* the fast path: the capture buffer itself is kept */
    } else {
        /* Spill: written outside the lock (it can take milliseconds). */
        rc = spool_write(s, rgba, bytes, ent.file, e);
        free(rgba);
        if (rc) return rc;
    }
    pthread_mutex_lock(&s->lock);
    if (in_memory) s->mem_used -= bytes; /* append_locked accounts it for good */
    rc = append_locked(s, &ent, uid_quota, e);
    pthread_mutex_unlock(&s->lock);
    if (rc) {
        if (in_memory) free(ent.mem);
        else pg_spool_unlink(s->dir, ent.file);
    }
    return rc;
}

/* Constant-time compare: a token is a secret bearer capability. */
static int token_eq(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    unsigned diff = (unsigned)(la ^ lb);
    for (size_t i = 0; i < la && i < lb; i++) diff |= (unsigned)(a[i] ^ b[i]);
    return diff == 0;
}

static pg_err not_found(const char *token, pg_error *e) {
    char red[16];
    pg_tok_redact(token, red);
    return pg_error_set(e, PG_E_NOTFOUND, "take a fresh snapshot: tokens expire and belong to the user who made them",
                        "no such token %s (unknown, expired, or not yours)", red);
}

/* Finds a live token of uid; returns its index or -1. Caller holds the lock. */
static long find_locked(pg_tok_store *s, const char *token, uint32_t uid) {
    int64_t now = wall_ms();
    for (size_t i = 0; i < s->n; i++)
        if (token_eq(s->v[i].meta.token, token))
            return (s->v[i].meta.uid == uid && s->v[i].meta.expires_ms > now) ? (long)i : -1;
    return -1;
}

pg_err pg_tok_get(pg_tok_store *s, const char *token, uint32_t uid, pg_tok_meta *out, pg_error *e) {
    pthread_mutex_lock(&s->lock);
    long i = find_locked(s, token, uid);
    if (i >= 0) *out = s->v[i].meta;
    pthread_mutex_unlock(&s->lock);
    return i >= 0 ? PG_OK : not_found(token, e);
}

pg_err pg_tok_load(pg_tok_store *s, const char *token, uint32_t uid, pg_tok_meta *meta, uint8_t **rgba,
                   pg_error *e) {
    pthread_mutex_lock(&s->lock);
    long i = find_locked(s, token, uid);
    pg_spool_file *f = NULL;
    pg_err frc = PG_OK;
    pg_error ferr;
    entry ent;
    uint8_t *copy = NULL;
    if (i >= 0) {
        ent = s->v[i];
        if (ent.mem) {
            /* Copy under the lock so a concurrent sweep cannot free it first. */
            copy = malloc(ent.bytes);
            if (copy) memcpy(copy, ent.mem, ent.bytes);
        } else {
            /* Open under the lock so a concurrent sweep cannot unlink it first. */
            frc = pg_spool_open(s->dir, ent.file, &f, &ferr);
        }
    }
    pthread_mutex_unlock(&s->lock);
    if (i < 0) return not_found(token, e);
    if (ent.mem) {
        if (!copy) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
        *meta = ent.meta;
        *rgba = copy;
        return PG_OK;
    }
    if (frc) {
        if (e) *e = ferr;
        return frc;
    }
    uint8_t *buf = malloc(ent.bytes ? ent.bytes : 1);
    pg_err rc = buf ? pg_spool_read(f, buf, ent.bytes, e) : pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    pg_spool_close(f);
    if (rc) {
        free(buf);
        return rc;
    }
    *meta = ent.meta;
    *rgba = buf;
    return PG_OK;
}
