/* SPDX-License-Identifier: MIT */
/* Dispatch: admission, the argument check, every operation of
 * common/pg_ops.def run by its handler (the table the shell handed the
 * broker, broker/ops/pg_handlers.h), and the audit record. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "audit/pg_audit.h"
#include "pg_dispatch.h"
#include "pg_log.h"
#include "pg_refusals.h"
#include "pg_untrusted.h"

static bool is_power_of_ten(uint64_t n) {
    while (n >= 10 && n % 10 == 0) n /= 10;
    return n == 1;
}

/* The audit event of this request (strings point into c). */
static void fill_event(pg_call *c, const char *kind, pg_err outcome, const char *reason, pg_audit_window *win,
                       pg_audit_event *ev) {
    pg_call_audit *a = &c->audit;
    *win = (pg_audit_window){a->window_id, a->window_title, a->window_class};
#define OPT(field) (a->field[0] ? a->field : NULL)
    *ev = (pg_audit_event){
        .principal = {c->peer->uid, c->peer->user, c->peer->pid, c->peer->exe[0] ? c->peer->exe : NULL, c->peer->comm,
                      c->peer->sid[0] ? c->peer->sid : NULL},
        .op = c->req->op,
        .window = a->has_window ? win : NULL,
        .image_sha256 = OPT(image_sha256),
        .disposition = {kind, OPT(token), OPT(endpoint), OPT(mode), OPT(request_id), reason, OPT(detail),
                        c->intent[0] ? c->intent : NULL},
        .outcome = outcome,
    };
#undef OPT
}

static pg_err write_audit(pg_call *c, pg_err outcome, const pg_error *why, uint64_t coalesced, pg_error *e) {
    pg_call_audit *a = &c->audit;
    size_t len = strlen(a->detail);
    if (c->bits > 0) /* what its answer disclosed about protected pixels (pg_disclose.h) */
        snprintf(a->detail + len, sizeof a->detail - len, "%sdisclosed %.0f bits", len ? "; " : "", c->bits);
    len = strlen(a->detail);
    if (coalesced)
        snprintf(a->detail + len, sizeof a->detail - len, "%s%llu earlier refusals of this user coalesced",
                 len ? "; " : "", (unsigned long long)coalesced);
    bool refused = outcome == PG_E_POLICY || outcome == PG_E_STOPPED || outcome == PG_E_HUMAN;
    const char *kind = refused ? "refused" : a->kind ? a->kind : c->req->op;
    pg_audit_window win;
    pg_audit_event ev;
    fill_event(c, kind, outcome, outcome != PG_OK ? why->message : NULL, &win, &ev);
    pg_err rc = pg_audit_append(c->b->audit, &ev, e);
    if (!rc) {
        char anchor[PG_AUDIT_ANCHOR_MAX];
        pg_audit_anchor(c->b->audit, anchor);
        pg_log(PG_LOG_INFO, "audit %s uid=%u op=%s -> %s", anchor, (unsigned)c->peer->uid, c->req->op,
               pg_err_name(outcome));
        int err = 0;
        uint64_t lost = pg_audit_journal_failures(c->b->audit, &err);
        if (lost && is_power_of_ten(lost)) /* 1, 10, 100, ...: said, never flooded */
            pg_log(PG_LOG_WARN, "audit: %llu journal copies could not be sent (last: %s); the audit file holds them all",
                   (unsigned long long)lost, strerror(err));
    }
    return rc;
}

pg_err pg_dispatch_intent(pg_call *c, pg_error *e) {
    if (c->intent[0]) return PG_OK; /* one record of intent per request, before its first effect */
    if (!c->b->audit) {
        snprintf(c->intent, sizeof c->intent, "0:"); /* a broker without a log (never pixelgated) */
        return PG_OK;
    }
    pg_error ae;
    pg_error_clear(&ae);
    /* Room for this record and its outcome first: a full disk refuses here, before anything happened. */
    pg_err rc = pg_audit_reserve(c->b->audit, 2 * PG_AUDIT_RECORD_MAX, &ae);
    if (!rc) {
        pg_audit_window win;
        pg_audit_event ev;
        fill_event(c, c->audit.kind ? c->audit.kind : c->req->op, PG_OK, NULL, &win, &ev);
        ev.intent = true;
        rc = pg_audit_append_at(c->b->audit, &ev, c->intent, &ae);
        if (rc) c->intent[0] = '\0';
    }
    if (rc) {
        c->intent_refused = true;
        pg_log(PG_LOG_ERROR, "refusing %s before acting: %s", c->req->op, ae.message);
        return pg_error_set(e, PG_E_INTERNAL, "the administrator must free space for the audit log; nothing was done",
                            "refused before acting: the record of intent could not be written (%s)", ae.message);
    }
    return PG_OK;
}

/* A handler of an operation with an effect that answered without a record of
 * intent acted unrecorded (or never acted): a broker bug, loud in every test
 * of that operation. Its answer (and any released bytes) is withheld. */
static pg_err effect_unrecorded(pg_call *c, pg_error *e) {
    pg_log(PG_LOG_ERROR, "bug: %s answered without a record of intent (pg_call_intent)", c->req->op);
    cJSON_Delete(c->result);
    c->result = NULL;
    free(c->reply_att.data);
    c->reply_att = (pg_blob){0};
    return pg_error_set(e, PG_E_INTERNAL, "report this broker bug with the broker log",
                        "refused: %s has an effect but wrote no record of intent before it", c->req->op);
}

/* Admission: is the peer one of the policy's clients? Sets c->view.
 * Approvers need not be clients: for their operations pg_policy_may_approve
 * is the gate. */
static pg_err admit_principal(const pg_policy *p, const pg_peer *peer, const pg_policy_view **view, pg_error *e) {
    const char *groups[64];
    char buf[4096];
    pg_principal who;
    pg_identity_principal(peer, &who, groups, 64, buf, sizeof buf);
    who.remote = pg_identity_remote(peer);
    return pg_policy_admit(p, &who, view, e);
}

static pg_err admit(pg_call *c, pg_error *e) {
    if (c->op->flags & PG_OPF_APPROVER) {
        c->view = pg_policy_view_for(c->policy, c->peer->user);
        return PG_OK;
    }
    pg_err rc = admit_principal(c->policy, c->peer, &c->view, e);
    /* key-up and lease are open to root and approvers who are not clients:
     * the handler then takes only key-up --all or lease --break
     * (c->person_only), to end an agent's hold or lease. */
    bool person_op = c->op == &pg_opdecls[PG_OPI_key_up] || c->op == &pg_opdecls[PG_OPI_lease];
    if (rc == PG_E_POLICY && person_op && pg_call_is_approver(c)) {
        pg_error_clear(e);
        c->view = pg_policy_view_for(c->policy, c->peer->user);
        c->person_only = true;
        return PG_OK;
    }
    return rc;
}

bool pg_dispatch_admitted(pg_broker *b, const pg_peer *peer) {
    pg_policy *p = pg_broker_policy(b);
    const pg_policy_view *v = NULL;
    bool ok = admit_principal(p, peer, &v, NULL) == PG_OK;
    pg_policy_free(p);
    return ok;
}

pg_err pg_dispatch_begin(pg_call *c, pg_error *e) {
    c->begun = true;
    c->op = pg_opdecl_find(c->req->op);
    if (!c->op)
        return c->admit_rc = pg_error_set(e, PG_E_USAGE, "upgrade the broker or check the client version",
                                          "unknown operation \"%s\"", c->req->op);
    return c->admit_rc = admit(c, e);
}

/* Checks the arguments into a fresh pg_args_<op> and runs the handler. */
static pg_err run(pg_call *c, pg_error *e) {
    void *args = malloc(c->op->args_size);
    if (!args) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    pg_err rc = pg_opdecl_parse(c->op, c->req->args, args, e);
    c->args = args;
    if (!rc) rc = c->b->handlers[c->op - pg_opdecls](c, args, e);
    c->args = NULL;
    free(args);
    pg_broker_pixels_give(c->b, c->pixels_held); /* the request's decoded pixels are freed by now */
    pg_call_tiles_free(c);
    c->pixels_held = 0;
    return rc;
}

/* Marks the screen text of what the agent will read (pg_untrusted.h): the
 * result, or the details of a failure. A reply that cannot be marked is not
 * sent: its details are dropped, its result turns into the marking's error. */
static pg_err mark_screen_text(pg_call *c, pg_err rc, pg_error *e) {
    pg_error me;
    pg_error_clear(&me);
    if (c->details && pg_untrusted_mark(c->req->op, c->details, &me)) {
        cJSON_Delete(c->details);
        c->details = NULL;
    }
    if (rc || !c->result || pg_untrusted_mark(c->req->op, c->result, &me) == PG_OK) return rc;
    cJSON_Delete(c->result);
    c->result = NULL;
    free(c->reply_att.data);
    c->reply_att = (pg_blob){0};
    *e = me;
    return me.code;
}

pg_err pg_dispatch(pg_call *c, pg_error *e) {
    if (!c->begun) pg_dispatch_begin(c, e);
    if (!c->op) return c->admit_rc; /* e says which operation */
    pg_err rc = c->admit_rc;
    if (!rc) rc = pg_broker_person_gate(c, e); /* a person's stop, take-over, another's lease */
    if (!rc) rc = run(c, e);
    if (!rc) pg_broker_person_drove(c);
    if (!rc && (c->op->flags & PG_OPF_EFFECT) && !c->intent[0]) rc = effect_unrecorded(c, e);
    rc = mark_screen_text(c, rc, e);
    /* Refusals are on record whatever the operation; a flood of them is counted. */
    bool refusal = rc == PG_E_POLICY || rc == PG_E_STOPPED || rc == PG_E_HUMAN;
    if (!c->b->audit || !((c->op->flags & PG_OPF_AUDIT) || refusal)) return rc;
    uint64_t coalesced = 0;
    if (refusal) {
        if (!pg_refusals_admit(c->b->refusals, c->peer->uid, (int64_t)time(NULL), &coalesced)) return rc; /* counted */
    } else {
        coalesced = pg_refusals_take(c->b->refusals, c->peer->uid);
    }
    pg_error ae;
    pg_error_clear(&ae);
    if (write_audit(c, rc, e, coalesced, &ae) == PG_OK) return rc;
    /* Not on record, so it did not happen: undo and refuse. */
    pg_log(PG_LOG_ERROR, "audit write failed, refusing %s: %s", c->req->op, ae.message);
    if (c->created_token[0]) pg_tok_drop(c->b->tokens, c->created_token);
    cJSON_Delete(c->result);
    c->result = NULL;
    free(c->reply_att.data);
    c->reply_att = (pg_blob){0};
    if (c->intent_refused) return rc; /* nothing was done, and the message says why */
    if (c->intent[0] && c->intent[0] != '0') /* the effect may have happened: its intent is what stands */
        return pg_error_set(e, PG_E_INTERNAL, "the administrator must fix the audit log (disk full?)",
                            "the outcome record could not be written (%s); the record of intent %s stands, and "
                            "any bytes the answer carried were withheld", ae.message, c->intent);
    return pg_error_set(e, PG_E_INTERNAL, "the administrator must fix the audit log (disk full?)",
                        "refused: the audit record could not be written (%s)", ae.message);
}

pg_err pg_call_client_gone(const pg_call *c, pg_error *e) {
    /* A person's stop ends every pending wait too. */
    pg_error stop;
    pg_error_clear(&stop);
    if (c->b && pg_broker_person_interrupt((pg_call *)c, &stop) != PG_OK) {
        if (e) *e = stop;
        return stop.code;
    }
    if (!c->conn || !pg_conn_peer_gone(c->conn)) return PG_OK;
    return pg_error_set(e, PG_E_UNREACHABLE, NULL, "the client hung up (the call was cancelled)");
}
