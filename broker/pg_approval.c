/* Pending and approved one-off releases; see pg_approval.h. */
#include "pg_approval.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pg_crypto.h"
#include "pg_token.h"

typedef struct {
    char id[PG_APPROVAL_ID_LEN + 1];
    char token[PG_TOKEN_LEN + 1];
    uint32_t uid;
    char user[64];
    time_t expires;
    bool approved;
} request;

#define MAX_REQUESTS 256

struct pg_approvals {
    pthread_mutex_t lock;
    request v[MAX_REQUESTS];
    size_t n;
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
    free(a);
}

static void expire_locked(pg_approvals *a, time_t now) {
    for (size_t i = 0; i < a->n;)
        if (a->v[i].expires <= now) a->v[i] = a->v[--a->n];
        else i++;
}

static void remove_locked(pg_approvals *a, size_t i) { a->v[i] = a->v[--a->n]; }

static pg_err add_locked(pg_approvals *a, const char *token, uint32_t uid, const char *user, time_t now,
                         char id_out[PG_APPROVAL_ID_LEN + 1], pg_error *e) {
    if (a->n == MAX_REQUESTS)
        return pg_error_set(e, PG_E_POLICY, "wait for pending requests to be approved or to expire",
                            "too many pending release requests (%d)", MAX_REQUESTS);
    uint8_t rnd[8];
    pg_err rc = pg_random_bytes(rnd, sizeof rnd, e);
    if (rc) return rc;
    request *r = &a->v[a->n++];
    memset(r, 0, sizeof *r);
    memcpy(r->id, "rel:", 4);
    pg_b64url_encode(rnd, sizeof rnd, r->id + 4);
    snprintf(r->token, sizeof r->token, "%s", token);
    snprintf(r->user, sizeof r->user, "%s", user);
    r->uid = uid;
    r->expires = now + PG_APPROVAL_TTL_S;
    memcpy(id_out, r->id, sizeof r->id);
    return PG_OK;
}

pg_err pg_approval_check(pg_approvals *a, const char *token, uint32_t uid, const char *user,
                         char id_out[PG_APPROVAL_ID_LEN + 1], bool *approved, pg_error *e) {
    time_t now = time(NULL);
    *approved = false;
    pthread_mutex_lock(&a->lock);
    expire_locked(a, now);
    pg_err rc = PG_OK;
    size_t i = 0;
    while (i < a->n && !(a->v[i].uid == uid && !strcmp(a->v[i].token, token))) i++;
    if (i < a->n && a->v[i].approved) {
        *approved = true; /* one-off: consumed by this release */
        memcpy(id_out, a->v[i].id, sizeof a->v[i].id);
        remove_locked(a, i);
    } else if (i < a->n) {
        memcpy(id_out, a->v[i].id, sizeof a->v[i].id);
    } else {
        rc = add_locked(a, token, uid, user, now, id_out, e);
    }
    pthread_mutex_unlock(&a->lock);
    return rc;
}

pg_err pg_approval_requester(pg_approvals *a, const char *id, uint32_t *uid, char user[64], pg_error *e) {
    pthread_mutex_lock(&a->lock);
    expire_locked(a, time(NULL));
    size_t i = 0;
    while (i < a->n && strcmp(a->v[i].id, id) != 0) i++;
    bool found = i < a->n;
    if (found) {
        *uid = a->v[i].uid;
        memcpy(user, a->v[i].user, 64);
    }
    pthread_mutex_unlock(&a->lock);
    return found ? PG_OK
                 : pg_error_set(e, PG_E_NOTFOUND, "the agent's release attempt prints the current request id",
                                "no pending release request %.20s (unknown or expired)", id);
}

pg_err pg_approval_approve(pg_approvals *a, const char *id, uint32_t approver_uid, char requester[64],
                           char token_redacted[16], pg_error *e) {
    pthread_mutex_lock(&a->lock);
    expire_locked(a, time(NULL));
    size_t i = 0;
    while (i < a->n && strcmp(a->v[i].id, id) != 0) i++;
    pg_err rc = PG_OK;
    if (i == a->n) {
        rc = pg_error_set(e, PG_E_NOTFOUND, "the agent's release attempt prints the current request id",
                          "no pending release request %.20s (unknown or expired)", id);
    } else if (a->v[i].uid == approver_uid) {
        rc = pg_error_set(e, PG_E_POLICY, "another approver must approve it",
                          "you asked for this release yourself: the requester can never approve it");
    } else {
        a->v[i].approved = true;
        memcpy(requester, a->v[i].user, 64);
        pg_tok_redact(a->v[i].token, token_redacted);
    }
    pthread_mutex_unlock(&a->lock);
    return rc;
}
