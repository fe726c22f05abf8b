/* SPDX-License-Identifier: MIT */
/* pg_control.h - the person's controls over the agents: the stop latch,
 * take-over and the lease of the keyboard and mouse (issue "The human stays
 * in charge"; docs/privacy.md "The person's controls").
 *
 * What it does
 *   Pure state, no I/O: the broker feeds it what the person's devices said
 *   (pg_person_seen, broker/platform/pg_person.h) and asks it, per request,
 *   whether an agent may act.
 *   - The stop latch: each physical press of the stop key toggles it (a press
 *     while stopped re-arms only when rules->key_rearms: not where an agent
 *     account could forge a physical key); a tamper with the keyboard stops;
 *     pg_control_resume (root or an approver) re-arms. While stopped every
 *     agent operation but those flagged PG_OPF_WHILE_STOPPED is refused
 *     STOPPED.
 *   - Take-over: within quiet_ms of the person's last physical input, agent
 *     input and captures are refused HUMAN_ACTIVE (not queued).
 *   - The lease: at most one; while held, input that does not present its
 *     id is BUSY naming the holder. It ends on release, its ttl, idle_ms
 *     without input from it, a stop, a take-over, a break by root or an
 *     approver, and with its connection when taken bound to one.
 *
 * Never: reads the clock (callers pass now_us, pg_mono_us), talks to the
 * platform, audits (pg_control_sync says what happened; the broker records
 * it), or locks: the broker holds control_lock around every call.
 */
#ifndef PG_CONTROL_H
#define PG_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"
#include "pg_person.h"

#define PG_LEASE_ID_MAX 40

typedef struct {
    uint32_t quiet_ms;      /* take-over: refused for this long after the last physical input (0: off) */
    bool key_rearms;        /* the stop key re-arms too (false: only root or an approver) */
} pg_control_rules;

typedef struct {
    char id[PG_LEASE_ID_MAX]; /* "" when no lease is held */
    uint32_t uid;
    char user[64];
    const void *conn;         /* bound to this connection (ends with it); NULL: not bound */
    int64_t until_us;         /* ends at the latest */
    int64_t last_us;          /* the holder's last input (or the take) */
    uint32_t idle_ms;         /* ends after this long without input from the holder */
} pg_lease;

typedef struct {
    bool stopped;
    char why[PG_PERSON_WHY_MAX];
    int64_t since_us;          /* pg_mono_us of the stop */
    uint64_t presses_seen;     /* pg_person_seen counts already applied */
    uint64_t tampers_seen;
    int64_t human_seen_us;     /* the last physical input already applied */
    pg_lease lease;
} pg_control;

/* What a sync (or a resume) changed: the broker releases held input, ends
 * the indicator, and audits each. */
enum {
    PG_CONTROL_STOPPED_NOW = 1u,  /* the latch closed */
    PG_CONTROL_RESUMED_NOW = 2u,  /* the person's key opened it again */
    PG_CONTROL_HUMAN_NOW = 4u,    /* physical input arrived since the last sync */
    PG_CONTROL_LEASE_ENDED = 8u   /* the lease ended (stop, take-over, expiry): lease_why says why */
};

/* Applies what the person's devices said since the last sync, and the
 * lease's limits at now_us. lease_why gets why a lease ended. */
unsigned pg_control_sync(pg_control *c, const pg_person_seen *s, const pg_control_rules *r, int64_t now_us,
                         char *lease_why, size_t n);

/* Root or an approver: re-arm. False when it was not stopped; else *was
 * and *stopped_s say what it was and for how long. */
bool pg_control_resume(pg_control *c, int64_t now_us, char *was, size_t n, double *stopped_s);

/* ms left of the take-over quiet period at now_us (0: nobody is using the machine). */
uint32_t pg_control_quiet_left_ms(const pg_person_seen *s, uint32_t quiet_ms, int64_t now_us);

/* The STOPPED refusal, its message saying why and since when. */
pg_err pg_control_refuse_stopped(const pg_control *c, int64_t now_us, pg_error *e);

/* Input from uid presenting lease_id (NULL: none): PG_OK when no lease is
 * held or it is this one (its idle time starts again), BUSY naming the
 * holder otherwise. */
pg_err pg_control_lease_check(pg_control *c, const char *lease_id, int64_t now_us, pg_error *e);

/* Takes the lease (id: a fresh unguessable id the caller made). BUSY when
 * another is held (the same uid's included: two agents may share one). */
pg_err pg_control_lease_take(pg_control *c, const char *id, uint32_t uid, const char *user, const void *conn,
                             uint32_t ttl_ms, uint32_t idle_ms, int64_t now_us, pg_error *e);

/* Gives lease id back: NOT_FOUND when it is not the lease held. */
pg_err pg_control_lease_release(pg_control *c, const char *id, pg_error *e);

/* Ends whatever lease is held (root, approvers; a connection's end when
 * conn is given and the lease is bound to it). Returns whether one ended;
 * holder gets whose it was. */
bool pg_control_lease_end(pg_control *c, const void *conn, char *holder, size_t n);

#endif
