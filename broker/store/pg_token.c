/* SPDX-License-Identifier: MIT */
/* Token store and spool; see pg_token.h for the contract.
 *
 * Every lookup is O(1) under the store lock: tokens are indexed by a keyed
 * hash (HMAC-SHA-256 with a random key made at start, so nobody can choose
 * tokens that share a chain), each user's bytes and count are kept beside,
 * and expiry is a min-heap by expiry time, so a sweep touches only what
 * expired. */
#include "pg_token.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pg_crypto.h"
#include "pg_spool_fs.h" /* the file operations, per platform */

typedef struct entry {
    pg_tok_meta meta;
    uint8_t *mem;  /* pixels in memory, or NULL when spooled */
    char file[40]; /* random spool name, never shown */
    uint64_t bytes;  /* pixels */
    uint64_t charge; /* what it counts against the quotas: pixels + PG_TOK_OVERHEAD */
    uint64_t hash;
    struct entry *next; /* in its hash chain */
    size_t heap_i;      /* its place in the expiry heap */
} entry;

typedef struct uid_use {
    uint32_t uid;
    uint64_t bytes; /* charged */
    unsigned count;
    struct uid_use *next;
} uid_use;

#define UID_BUCKETS 64

struct pg_tok_store {
    pthread_mutex_t lock;
    pg_spool_dir *dir;
    uint64_t quota, used;          /* charged bytes: memory + spool + overhead */
    uint64_t mem_budget, mem_used; /* pixel bytes kept in memory */
    uint32_t ttl_s, ttl_cap_s;
    unsigned uid_max_tokens;
    uint8_t key[32];
    entry **bucket;                /* nbucket chains, a power of two */
    size_t nbucket;
    entry **heap;                  /* every entry, earliest expiry first */
    size_t n, cap;
    uid_use *uid[UID_BUCKETS];
};

static int64_t wall_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint64_t token_hash(const pg_tok_store *s, const char *token) {
    uint8_t d[PG_SHA256_LEN];
    if (pg_hmac_sha256(s->key, sizeof s->key, token, strlen(token), d, NULL) != PG_OK) memset(d, 0, sizeof d);
    uint64_t h = 0;
    for (int i = 0; i < 8; i++) h = h << 8 | d[i];
    return h;
}

pg_err pg_tok_store_new(pg_tok_store **out, const char *spool_dir, uint64_t quota_bytes, uint64_t memory_budget,
                        uint32_t ttl_s, pg_error *e) {
    pg_tok_store *s = calloc(1, sizeof *s);
    if (!s) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    s->nbucket = 256;
    s->bucket = calloc(s->nbucket, sizeof *s->bucket);
    pg_err rc = s->bucket ? pg_random_bytes(s->key, sizeof s->key, e) : pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    if (!rc) rc = pg_spool_dir_open(&s->dir, spool_dir, e);
    if (rc) {
        free(s->bucket);
        free(s);
        return rc;
    }
    pthread_mutex_init(&s->lock, NULL);
    s->quota = quota_bytes;
    s->mem_budget = memory_budget;
    s->ttl_s = ttl_s;
    s->uid_max_tokens = PG_TOK_UID_MAX_DEFAULT;
    pg_spool_dir_clear(s->dir);
    *out = s;
    return PG_OK;
}

void pg_tok_store_limits(pg_tok_store *s, uint64_t quota_bytes, uint32_t ttl_cap_s, unsigned uid_max_tokens) {
    pthread_mutex_lock(&s->lock);
    if (quota_bytes) s->quota = quota_bytes;
    s->ttl_cap_s = ttl_cap_s;
    if (uid_max_tokens) s->uid_max_tokens = uid_max_tokens;
    pthread_mutex_unlock(&s->lock);
}

uint32_t pg_tok_effective_ttl(pg_tok_store *s, uint32_t ttl_s) {
    pthread_mutex_lock(&s->lock);
    uint32_t t = ttl_s ? ttl_s : s->ttl_s;
    if (s->ttl_cap_s && t > s->ttl_cap_s) t = s->ttl_cap_s;
    pthread_mutex_unlock(&s->lock);
    return t;
}

static void free_entry(pg_tok_store *s, entry *x) {
    if (x->mem) free(x->mem);
    else pg_spool_unlink(s->dir, x->file);
    free(x);
}

void pg_tok_store_free(pg_tok_store *s) {
    if (!s) return;
    for (size_t i = 0; i < s->n; i++) free_entry(s, s->heap[i]);
    for (size_t i = 0; i < UID_BUCKETS; i++)
        for (uid_use *u = s->uid[i], *next; u; u = next) next = u->next, free(u);
    pg_spool_dir_close(s->dir);
    pthread_mutex_destroy(&s->lock);
    free(s->heap);
    free(s->bucket);
    free(s);
}

void pg_tok_redact(const char *token, char out[16]) { snprintf(out, 16, "%.8s...", token ? token : ""); }

/* ---- per-user use (lock held) ---- */

static uid_use *uid_find(pg_tok_store *s, uint32_t uid, bool create) {
    uid_use **p = &s->uid[uid % UID_BUCKETS];
    for (uid_use *u = *p; u; u = u->next)
        if (u->uid == uid) return u;
    if (!create) return NULL;
    uid_use *u = calloc(1, sizeof *u);
    if (!u) return NULL;
    u->uid = uid;
    u->next = *p;
    *p = u;
    return u;
}

static void uid_sub(pg_tok_store *s, uint32_t uid, uint64_t charge) {
    uid_use **p = &s->uid[uid % UID_BUCKETS];
    for (; *p; p = &(*p)->next)
        if ((*p)->uid == uid) {
            uid_use *u = *p;
            u->bytes -= charge;
            if (--u->count == 0) { /* a user without tokens costs nothing */
                *p = u->next;
                free(u);
            }
            return;
        }
}

/* ---- the expiry heap (lock held) ---- */

static bool earlier(const entry *a, const entry *b) { return a->meta.expires_ms < b->meta.expires_ms; }

static void heap_set(pg_tok_store *s, size_t i, entry *x) {
    s->heap[i] = x;
    x->heap_i = i;
}

static void heap_up(pg_tok_store *s, size_t i) {
    entry *x = s->heap[i];
    while (i > 0 && earlier(x, s->heap[(i - 1) / 2])) {
        heap_set(s, i, s->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    heap_set(s, i, x);
}

static void heap_down(pg_tok_store *s, size_t i) {
    entry *x = s->heap[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= s->n) break;
        if (c + 1 < s->n && earlier(s->heap[c + 1], s->heap[c])) c++;
        if (!earlier(s->heap[c], x)) break;
        heap_set(s, i, s->heap[c]);
        i = c;
    }
    heap_set(s, i, x);
}

/* ---- the index (lock held) ---- */

static void index_insert(pg_tok_store *s, entry *x) {
    size_t b = x->hash & (s->nbucket - 1);
    x->next = s->bucket[b];
    s->bucket[b] = x;
}

static void index_remove(pg_tok_store *s, entry *x) {
    for (entry **p = &s->bucket[x->hash & (s->nbucket - 1)]; *p; p = &(*p)->next)
        if (*p == x) {
            *p = x->next;
            return;
        }
}

/* Doubles the chains when they grow long; a failed allocation keeps the old ones. */
static void index_grow(pg_tok_store *s) {
    if (s->n < 2 * s->nbucket) return;
    size_t nb = s->nbucket * 2;
    entry **v = calloc(nb, sizeof *v);
    if (!v) return;
    for (size_t i = 0; i < s->nbucket; i++)
        for (entry *x = s->bucket[i], *next; x; x = next) {
            next = x->next;
            x->next = v[x->hash & (nb - 1)];
            v[x->hash & (nb - 1)] = x;
        }
    free(s->bucket);
    s->bucket = v;
    s->nbucket = nb;
}

/* Constant-time compare: a token is a secret bearer capability. */
static int token_eq(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    unsigned diff = (unsigned)(la ^ lb);
    for (size_t i = 0; i < la && i < lb; i++) diff |= (unsigned)(a[i] ^ b[i]);
    return diff == 0;
}

static entry *index_find(pg_tok_store *s, const char *token, uint64_t h) {
    for (entry *x = s->bucket[h & (s->nbucket - 1)]; x; x = x->next)
        if (x->hash == h && token_eq(x->meta.token, token)) return x;
    return NULL;
}

/* ---- entries (lock held) ---- */

/* Unlinks x everywhere and accounts its release; the caller frees it. */
static void unlink_entry(pg_tok_store *s, entry *x) {
    index_remove(s, x);
    size_t i = x->heap_i;
    entry *last = s->heap[--s->n];
    if (i < s->n) {
        heap_set(s, i, last);
        heap_down(s, i);
        heap_up(s, last->heap_i);
    }
    if (x->mem) s->mem_used -= x->bytes;
    s->used -= x->charge;
    uid_sub(s, x->meta.uid, x->charge);
}

/* Expired entries come off the heap's top; they are freed after the lock
 * (*gone, a list through next). */
static unsigned sweep_locked(pg_tok_store *s, int64_t now, entry **gone) {
    unsigned dropped = 0;
    while (s->n > 0 && s->heap[0]->meta.expires_ms <= now) {
        entry *x = s->heap[0];
        unlink_entry(s, x);
        x->next = *gone;
        *gone = x;
        dropped++;
    }
    return dropped;
}

static void free_list(pg_tok_store *s, entry *list) {
    for (entry *x = list, *next; x; x = next) {
        next = x->next;
        free_entry(s, x);
    }
}

void pg_tok_drop(pg_tok_store *s, const char *token) {
    uint64_t h = token_hash(s, token);
    pthread_mutex_lock(&s->lock);
    entry *x = index_find(s, token, h);
    if (x) unlink_entry(s, x);
    pthread_mutex_unlock(&s->lock);
    if (x) free_entry(s, x);
}

bool pg_tok_drop_mine(pg_tok_store *s, const char *token, uint32_t uid, uint64_t *freed) {
    uint64_t h = token_hash(s, token);
    int64_t now = wall_ms();
    pthread_mutex_lock(&s->lock);
    entry *x = index_find(s, token, h);
    if (x && (x->meta.uid != uid || x->meta.expires_ms <= now)) x = NULL; /* not yours, or gone: the same */
    if (x) unlink_entry(s, x);
    pthread_mutex_unlock(&s->lock);
    if (!x) return false;
    if (freed) *freed += x->charge;
    free_entry(s, x);
    return true;
}

unsigned pg_tok_drop_all(pg_tok_store *s, uint32_t uid, uint64_t *freed) {
    entry *gone = NULL;
    unsigned n = 0;
    pthread_mutex_lock(&s->lock);
    uid_use *u = uid_find(s, uid, false);
    entry **mine = u ? malloc(u->count * sizeof *mine) : NULL;
    for (size_t i = 0; mine && i < s->n; i++) /* first find them: unlinking reorders the heap */
        if (s->heap[i]->meta.uid == uid) mine[n++] = s->heap[i];
    for (unsigned k = 0; k < n; k++) {
        unlink_entry(s, mine[k]);
        if (freed) *freed += mine[k]->charge;
        mine[k]->next = gone;
        gone = mine[k];
    }
    pthread_mutex_unlock(&s->lock);
    free(mine);
    free_list(s, gone);
    return n;
}

unsigned pg_tok_sweep(pg_tok_store *s) {
    entry *gone = NULL;
    pthread_mutex_lock(&s->lock);
    unsigned n = sweep_locked(s, wall_ms(), &gone);
    pthread_mutex_unlock(&s->lock);
    free_list(s, gone);
    return n;
}

void pg_tok_usage(pg_tok_store *s, uint64_t *bytes, uint64_t *in_memory, unsigned *count) {
    pthread_mutex_lock(&s->lock);
    *bytes = s->used;
    *in_memory = s->mem_used;
    *count = (unsigned)s->n;
    pthread_mutex_unlock(&s->lock);
}

void pg_tok_uid_usage(pg_tok_store *s, uint32_t uid, uint64_t *bytes, unsigned *count) {
    pthread_mutex_lock(&s->lock);
    uid_use *u = uid_find(s, uid, false);
    *bytes = u ? u->bytes : 0;
    *count = u ? u->count : 0;
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

#define MIB(x) ((double)(x) / (1024.0 * 1024.0))
#define FREE_TIP "free tokens you no longer need: 'pixelgate drop TOKEN...' or 'pixelgate drop --all' (they also expire)"

/* The quota and count checks, after expired tokens went (lock held). */
static pg_err admit_locked(pg_tok_store *s, const entry *ent, uint64_t uid_quota, pg_error *e) {
    uid_use *u = uid_find(s, ent->meta.uid, false);
    uint64_t mine = u ? u->bytes : 0;
    unsigned count = u ? u->count : 0;
    if (count >= s->uid_max_tokens)
        return pg_error_set(e, PG_E_POLICY, FREE_TIP,
                            "you hold %u tokens, the most one user may hold (%.1f MiB); this capture needs one more",
                            count, MIB(mine));
    if (uid_quota && mine + ent->charge > uid_quota)
        return pg_error_set(e, PG_E_POLICY, FREE_TIP,
                            "your spool quota is reached: you hold %u tokens, %.1f of %.1f MiB; this capture needs "
                            "%.1f MiB",
                            count, MIB(mine), MIB(uid_quota), MIB(ent->charge));
    if (s->used + ent->charge > s->quota)
        return pg_error_set(e, PG_E_POLICY, FREE_TIP,
                            "the broker's spool quota is reached: %.1f of %.1f MiB held by all users, %.1f MiB (%u "
                            "tokens) of it yours; this capture needs %.1f MiB",
                            MIB(s->used), MIB(s->quota), MIB(mine), count, MIB(ent->charge));
    return PG_OK;
}

/* Inserts ent (copied to the heap) under the lock, after the quota checks. */
static pg_err insert_locked(pg_tok_store *s, const entry *ent, uint64_t uid_quota, pg_error *e) {
    pg_err rc = admit_locked(s, ent, uid_quota, e);
    if (rc) return rc;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        entry **v = realloc(s->heap, cap * sizeof *v);
        if (!v) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
        s->heap = v;
        s->cap = cap;
    }
    uid_use *u = uid_find(s, ent->meta.uid, true);
    entry *x = malloc(sizeof *x);
    if (!x || !u) {
        free(x);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    }
    *x = *ent;
    heap_set(s, s->n++, x);
    heap_up(s, s->n - 1);
    index_insert(s, x);
    index_grow(s);
    u->bytes += x->charge;
    u->count++;
    s->used += x->charge;
    if (x->mem) s->mem_used += x->bytes;
    return PG_OK;
}

/* Reserves memory budget for bytes; false when it does not fit. */
static bool reserve_memory(pg_tok_store *s, uint64_t bytes) {
    pthread_mutex_lock(&s->lock);
    bool fits = s->mem_used + bytes <= s->mem_budget;
    if (fits) s->mem_used += bytes; /* released again by insert or by the caller */
    pthread_mutex_unlock(&s->lock);
    return fits;
}

pg_err pg_tok_put(pg_tok_store *s, pg_tok_meta *meta, uint8_t *rgba, uint32_t ttl_s, uint64_t uid_quota, pg_error *e) {
    return pg_tok_put_hashed(s, meta, rgba, NULL, ttl_s, uid_quota, e);
}

pg_err pg_tok_put_hashed(pg_tok_store *s, pg_tok_meta *meta, uint8_t *rgba, const uint8_t *sha256, uint32_t ttl_s,
                         uint64_t uid_quota, pg_error *e) {
    uint64_t bytes = (uint64_t)meta->width * meta->height * 4;
    uint8_t digest[PG_SHA256_LEN];
    pg_err rc = PG_OK;
    if (sha256) memcpy(digest, sha256, sizeof digest);
    else rc = pg_sha256(rgba, bytes, digest, e);
    if (!rc) rc = new_token(meta->token, e);
    if (rc) {
        free(rgba);
        return rc;
    }
    pg_hex(digest, sizeof digest, meta->sha256);
    meta->created_ms = wall_ms();
    meta->expires_ms = meta->created_ms + (int64_t)pg_tok_effective_ttl(s, ttl_s) * 1000;

    entry ent = {.meta = *meta, .bytes = bytes, .charge = bytes + PG_TOK_OVERHEAD, .hash = token_hash(s, meta->token)};
    /* Expired tokens go before anything is refused for room. */
    entry *gone = NULL;
    pthread_mutex_lock(&s->lock);
    sweep_locked(s, meta->created_ms, &gone);
    rc = admit_locked(s, &ent, uid_quota, e); /* refuse before a spool write that would be undone */
    pthread_mutex_unlock(&s->lock);
    free_list(s, gone);
    if (rc) {
        free(rgba);
        return rc;
    }
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
    if (in_memory) s->mem_used -= bytes; /* insert_locked accounts it for good */
    rc = insert_locked(s, &ent, uid_quota, e);
    pthread_mutex_unlock(&s->lock);
    if (rc) {
        if (in_memory) free(ent.mem);
        else pg_spool_unlink(s->dir, ent.file);
    }
    return rc;
}

static pg_err not_found(const char *token, pg_error *e) {
    char red[16];
    pg_tok_redact(token, red);
    return pg_error_set(e, PG_E_NOTFOUND, "take a fresh snapshot: tokens expire and belong to the user who made them",
                        "no such token %s (unknown, expired, or not yours)", red);
}

/* A live token of uid, or NULL (lock held). */
static entry *find_locked(pg_tok_store *s, const char *token, uint64_t h, uint32_t uid) {
    entry *x = index_find(s, token, h);
    return x && x->meta.uid == uid && x->meta.expires_ms > wall_ms() ? x : NULL;
}

pg_err pg_tok_get(pg_tok_store *s, const char *token, uint32_t uid, pg_tok_meta *out, pg_error *e) {
    uint64_t h = token_hash(s, token);
    pthread_mutex_lock(&s->lock);
    entry *x = find_locked(s, token, h, uid);
    if (x) *out = x->meta;
    pthread_mutex_unlock(&s->lock);
    return x ? PG_OK : not_found(token, e);
}

pg_err pg_tok_load(pg_tok_store *s, const char *token, uint32_t uid, pg_tok_meta *meta, uint8_t **rgba,
                   pg_error *e) {
    uint64_t h = token_hash(s, token);
    pthread_mutex_lock(&s->lock);
    entry *x = find_locked(s, token, h, uid);
    pg_spool_file *f = NULL;
    pg_err frc = PG_OK;
    pg_error ferr;
    entry ent;
    uint8_t *copy = NULL;
    if (x) {
        ent = *x;
        if (ent.mem) {
            /* Copy under the lock so a concurrent sweep cannot free it first. */
            copy = malloc(ent.bytes ? ent.bytes : 1);
            if (copy) memcpy(copy, ent.mem, ent.bytes);
        } else {
            /* Open under the lock so a concurrent sweep cannot unlink it first. */
            frc = pg_spool_open(s->dir, ent.file, &f, &ferr);
        }
    }
    pthread_mutex_unlock(&s->lock);
    if (!x) return not_found(token, e);
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
