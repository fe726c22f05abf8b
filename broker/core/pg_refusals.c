/* SPDX-License-Identifier: MIT */
/* The per-user refusal coalescer of pg_refusals.h. */
#include "pg_refusals.h"

#include <pthread.h>
#include <stdlib.h>

#define SLOTS 1024 /* users tracked at once; a full table writes every refusal (fails open to the log, not closed) */

typedef struct {
    bool used;
    uint32_t uid;
    int64_t window; /* start of the current window */
    unsigned written;
    uint64_t pending;
} entry;

struct pg_refusals {
    pthread_mutex_t lock;
    entry slot[SLOTS];
};

pg_err pg_refusals_new(pg_refusals **out, pg_error *e) {
    pg_refusals *r = calloc(1, sizeof *r);
    if (!r) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    pthread_mutex_init(&r->lock, NULL);
    *out = r;
    return PG_OK;
}

void pg_refusals_free(pg_refusals *r) {
    if (!r) return;
    pthread_mutex_destroy(&r->lock);
    free(r);
}

static entry *find(pg_refusals *r, uint32_t uid, bool make) {
    for (unsigned i = 0; i < SLOTS; i++) {
        entry *s = &r->slot[(uid * 2654435761u + i) % SLOTS];
        if (s->used && s->uid == uid) return s;
        if (!s->used) {
            if (!make) return NULL;
            *s = (entry){.used = true, .uid = uid};
            return s;
        }
    }
    return NULL;
}

bool pg_refusals_admit(pg_refusals *r, uint32_t uid, int64_t now, uint64_t *coalesced) {
    pthread_mutex_lock(&r->lock);
    entry *s = find(r, uid, true);
    bool write = true;
    *coalesced = 0;
    if (s) {
        if (now - s->window >= PG_REFUSALS_WINDOW_S) s->window = now, s->written = 0;
        write = s->written < PG_REFUSALS_PER_WINDOW;
        if (write) {
            s->written++;
            *coalesced = s->pending;
            s->pending = 0;
        } else {
            s->pending++;
        }
    }
    pthread_mutex_unlock(&r->lock);
    return write;
}

uint64_t pg_refusals_take(pg_refusals *r, uint32_t uid) {
    pthread_mutex_lock(&r->lock);
    entry *s = find(r, uid, false);
    uint64_t n = s ? s->pending : 0;
    if (s) s->pending = 0;
    pthread_mutex_unlock(&r->lock);
    return n;
}

void pg_refusals_drain(pg_refusals *r, void (*fn)(uint32_t uid, uint64_t n, void *ctx), void *ctx) {
    pthread_mutex_lock(&r->lock);
    for (unsigned i = 0; i < SLOTS; i++)
        if (r->slot[i].used && r->slot[i].pending) {
            fn(r->slot[i].uid, r->slot[i].pending, ctx);
            r->slot[i].pending = 0;
        }
    pthread_mutex_unlock(&r->lock);
}
