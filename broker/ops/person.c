/* SPDX-License-Identifier: MIT */
/* resume, lease, wait-for --human-idle: the person's controls as operations
 * (the latch, take-over and the lease are pg_control.h; the gate in front of
 * every request is pg_control_broker.c). */
#include <stdio.h>

#include "pg_call.h"
#include "pg_time.h"

pg_err pg_op_resume(pg_call *c, const pg_args_resume *a, pg_error *e) {
    (void)a;
    if (!pg_call_is_approver(c)) /* an agent can never re-arm what a person stopped */
        return pg_error_set(e, PG_E_POLICY, "ask the person, root or an approver to re-arm",
                            "resume is for root and the policy's approvers, not for agents");
    char was[PG_PERSON_WHY_MAX] = "";
    double stopped_s = 0;
    bool resumed = pg_broker_person_resume(c->b, was, sizeof was, &stopped_s);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddBoolToObject(r, "resumed", resumed);
    if (resumed) {
        cJSON_AddStringToObject(r, "was", was);
        cJSON_AddNumberToObject(r, "stopped_s", (double)(int64_t)(stopped_s * 10) / 10.0);
        snprintf(c->audit.detail, sizeof c->audit.detail, "re-armed after %.1f s: %.200s", stopped_s, was);
    } else {
        cJSON_AddNullToObject(r, "was");
    }
    c->result = r;
    return PG_OK;
}

static pg_err break_lease(pg_call *c, pg_error *e) {
    if (!pg_call_is_approver(c))
        return pg_error_set(e, PG_E_POLICY, "end your own lease with --release ID",
                            "lease --break is for root and the policy's approvers");
    char holder[64] = "";
    bool ended = pg_broker_person_break_lease(c->b, NULL, holder, sizeof holder);
    cJSON *r = cJSON_CreateObject();
    cJSON_AddBoolToObject(r, "released", ended);
    if (ended) {
        cJSON_AddStringToObject(r, "holder", holder);
        snprintf(c->audit.detail, sizeof c->audit.detail, "broke the lease of %s", holder);
    }
    c->result = r;
    return PG_OK;
}

pg_err pg_op_lease(pg_call *c, const pg_args_lease *a, pg_error *e) {
    if (a->has_break_all && a->break_all) return break_lease(c, e);
    if (c->person_only) /* root or an approver who is not a client: --break only */
        return pg_error_set(e, PG_E_POLICY, "use --break to end an agent's lease",
                            "only clients of the policy take leases");
    if (a->has_release) {
        pg_err rc = pg_broker_person_unlease(c->b, a->release, e);
        if (rc) return rc;
        c->result = cJSON_CreateObject();
        cJSON_AddBoolToObject(c->result, "released", 1);
        snprintf(c->audit.detail, sizeof c->audit.detail, "released its lease");
        return PG_OK;
    }
    cJSON *r = cJSON_CreateObject();
    pg_err rc = pg_broker_person_lease(c, a->ttl, a->has_connection && a->connection, r, e);
    if (rc) {
        cJSON_Delete(r);
        return rc;
    }
    snprintf(c->audit.detail, sizeof c->audit.detail, "took the lease for %.0f s%s", a->ttl,
             a->has_connection && a->connection ? ", bound to its connection" : "");
    c->result = r;
    return PG_OK;
}

/* Polls the person's devices (a few ms each round) until the quiet period
 * has passed; a stop or the client hanging up ends the wait. */
pg_err pg_op_wait_idle(pg_call *c, const pg_args_wait_idle *a, pg_error *e) {
    int64_t start = pg_mono_us(), deadline = start + (int64_t)(a->timeout * 1e6);
    for (;;) {
        pg_err rc = pg_call_client_gone(c, e);
        if (rc) return rc;
        uint32_t left_ms = pg_broker_person_quiet_left_ms(c->b);
        bool idle = left_ms == 0;
        int64_t now = pg_mono_us();
        if (idle) {
            c->result = cJSON_CreateObject();
            cJSON_AddBoolToObject(c->result, "idle", 1);
            cJSON_AddNumberToObject(c->result, "waited_s", (double)((now - start) / 10000) / 100.0);
            return PG_OK;
        }
        if (now >= deadline)
            return pg_error_set(e, PG_E_TIMEOUT, "wait longer, or let the person finish",
                                "a person was still using the machine after %.1f s", a->timeout);
        int64_t nap_us = (int64_t)left_ms * 1000;
        if (nap_us > 100000) nap_us = 100000; /* a stop or a hang-up is noticed within 0.1 s */
        if (nap_us > deadline - now) nap_us = deadline - now;
        pg_sleep_ms(nap_us > 1000 ? (double)nap_us / 1000.0 : 1.0);
    }
}
