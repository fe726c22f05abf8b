/* SPDX-License-Identifier: MIT */
/* Pending and approved one-off releases; see pg_approval.h. */
#include "pg_approval.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pg_crypto.h"

struct pg_approvals {
    pthread_mutex_t lock;
    pg_approval_info *v; /* grows up to PG_APPROVAL_MAX */
    size_t n, cap;
};

pg_err pg_approval_new(pg_approvals **out, pg_error *e) {
    pg_approvals *a = calloc(1, sizeof *a);
    if (!a) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    pthread_mutex_init(&a->lock, NULL);
    *out = a;
    return PG_OK;
}

void pg_approval_free(pg_approvals *a) {
    if (!a) return;
    pthread_mutex_destroy(&a->lock);
    free(a->v);
    free(a);
}

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void expire_locked(pg_approvals *a, int64_t now) {
    for (size_t i = 0; i < a->n;)
        if (a->v[i].requested_ms + PG_APPROVAL_TTL_S * 1000LL <= now) a->v[i] = a->v[--a->n];
        else i++;
}

static void remove_locked(pg_approvals *a, size_t i) { a->v[i] = a->v[--a->n]; }

static size_t pending_of_locked(const pg_approvals *a, uint32_t uid) {
    size_t k = 0;
    for (size_t i = 0; i < a->n; i++) k += a->v[i].uid == uid;
    return k;
}

static pg_err add_locked(pg_approvals *a, const pg_tok_meta *m, uint32_t uid, const char *user, int64_t now,
                         char id_out[PG_APPROVAL_ID_LEN + 1], pg_error *e) {
    if (pending_of_locked(a, uid) >= PG_APPROVAL_MAX_PER_UID)
        return pg_error_set(e, PG_E_POLICY, "wait for an approver, or for your requests to expire (15 minutes)",
                            "you have %d pending release requests, the most one user may have", PG_APPROVAL_MAX_PER_UID);
    if (a->n == PG_APPROVAL_MAX)
        return pg_error_set(e, PG_E_POLICY, "wait for pending requests to be approved or to expire",
                            "too many pending release requests (%d)", PG_APPROVAL_MAX);
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 16;
        pg_approval_info *v = realloc(a->v, cap * sizeof *v);
        if (!v) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
        a->v = v;
        a->cap = cap;
    }
    uint8_t rnd[8];
    pg_err rc = pg_random_bytes(rnd, sizeof rnd, e);
    if (rc) return rc;
    pg_approval_info *r = &a->v[a->n++];
    memset(r, 0, sizeof *r);
    memcpy(r->id, "rel:", 4);
    pg_b64url_encode(rnd, sizeof rnd, r->id + 4);
    r->subject = *m;
    snprintf(r->user, sizeof r->user, "%s", user);
    r->uid = uid;
    r->requested_ms = now;
    memcpy(id_out, r->id, sizeof r->id);
    return PG_OK;
}

pg_err pg_approval_check(pg_approvals *a, const pg_tok_meta *m, uint32_t uid, const char *user,
                         char id_out[PG_APPROVAL_ID_LEN + 1], bool *approved, pg_error *e) {
    int64_t now = now_ms();
    *approved = false;
    pthread_mutex_lock(&a->lock);
    expire_locked(a, now);
    pg_err rc = PG_OK;
    size_t i = 0;
    while (i < a->n && !(a->v[i].uid == uid && !strcmp(a->v[i].subject.token, m->token))) i++;
    if (i < a->n && a->v[i].approved) {
        *approved = true; /* one-off: consumed by this release */
        memcpy(id_out, a->v[i].id, sizeof a->v[i].id);
        remove_locked(a, i);
    } else if (i < a->n) {
        memcpy(id_out, a->v[i].id, sizeof a->v[i].id);
    } else {
        rc = add_locked(a, m, uid, user, now, id_out, e);
    }
    pthread_mutex_unlock(&a->lock);
    return rc;
}

static size_t find_locked(pg_approvals *a, const char *id) {
    expire_locked(a, now_ms());
    size_t i = 0;
    while (i < a->n && strcmp(a->v[i].id, id) != 0) i++;
    return i;
}

static pg_err unknown(const char *id, pg_error *e) {
    return pg_error_set(e, PG_E_NOTFOUND, "the agent's release attempt prints the current request id",
                        "no pending release request %.20s (unknown or expired)", id);
}

pg_err pg_approval_get(pg_approvals *a, const char *id, pg_approval_info *out, pg_error *e) {
    pthread_mutex_lock(&a->lock);
    size_t i = find_locked(a, id);
    bool found = i < a->n;
    if (found) *out = a->v[i];
    pthread_mutex_unlock(&a->lock);
    return found ? PG_OK : unknown(id, e);
}

pg_err pg_approval_approve(pg_approvals *a, const char *id, uint32_t approver_uid, pg_approval_info *out,
                           pg_error *e) {
    pthread_mutex_lock(&a->lock);
    size_t i = find_locked(a, id);
    pg_err rc = PG_OK;
    if (i == a->n) {
        rc = unknown(id, e);
    } else if (a->v[i].uid == approver_uid) {
        rc = pg_error_set(e, PG_E_POLICY, "another approver must approve it",
                          "you asked for this release yourself: the requester can never approve it");
    } else {
        a->v[i].approved = true;
        *out = a->v[i];
    }
    pthread_mutex_unlock(&a->lock);
    return rc;
}
