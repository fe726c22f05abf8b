/* The operation table: one line per op, the handler and its argument schema.
 * Handlers live in broker/ops/op_*.c. */
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "audit/pg_audit.h"
#include "ops/pg_ops.h"
#include "pg_log.h"
#include "pg_broker.h"

#define OP(name, fn, spec, flags) {name, fn, spec, sizeof(spec) / sizeof(spec[0]), flags}
#define OP_NOARGS(name, fn) {name, fn, NULL, 0, 0}

static const pg_op ops_table[] = {
    OP_NOARGS("ping", pg_op_ping),
    OP_NOARGS("caps", pg_op_caps),
    OP("windows", pg_op_windows, pg_op_windows_args, 0),
    OP("snapshot", pg_op_snapshot, pg_op_snapshot_args, PG_OP_AUDIT),
    OP("info", pg_op_info, pg_op_info_args, 0),
    OP("focus", pg_op_focus, pg_op_target_args, PG_OP_AUDIT),
    OP("click", pg_op_click, pg_op_click_args, PG_OP_AUDIT),
    OP("key", pg_op_key, pg_op_key_args, PG_OP_AUDIT),
    OP("type", pg_op_type, pg_op_type_args, PG_OP_AUDIT),
    OP("release", pg_op_release, pg_op_release_args, PG_OP_AUDIT),
    OP("approve", pg_op_approve, pg_op_approve_args, PG_OP_AUDIT),
    OP("analyze", pg_op_analyze, pg_op_analyze_args, PG_OP_AUDIT),
    OP("judge", pg_op_judge, pg_op_judge_args, PG_OP_AUDIT),
    OP("ocr", pg_op_ocr, pg_op_ocr_args, PG_OP_AUDIT),
    OP("hash", pg_op_hash, pg_op_hash_args, PG_OP_AUDIT),
    OP("diff", pg_op_diff, pg_op_diff_args, PG_OP_AUDIT),
    OP("assert", pg_op_assert, pg_op_assert_args, PG_OP_AUDIT),
    OP("wait_stable", pg_op_wait_stable, pg_op_wait_stable_args, PG_OP_AUDIT),
    OP("wait_for", pg_op_wait_for, pg_op_wait_for_args, PG_OP_AUDIT),
};

const pg_op *pg_ops_list(size_t *n) {
    *n = sizeof ops_table / sizeof ops_table[0];
    return ops_table;
}

const pg_op *pg_ops_find(const char *name) {
    for (size_t i = 0; i < sizeof ops_table / sizeof ops_table[0]; i++)
        if (!strcmp(ops_table[i].name, name)) return &ops_table[i];
    return NULL;
}

static pg_err write_audit(pg_call *c, pg_err outcome, const pg_error *why, pg_error *e) {
    const pg_call_audit *a = &c->audit;
    pg_audit_window win = {a->window_id, a->window_title, a->window_class};
    const char *kind = outcome == PG_E_POLICY ? "refused" : a->kind ? a->kind : c->req->op;
#define OPT(field) (a->field[0] ? a->field : NULL)
    pg_audit_event ev = {
        .principal = {c->peer->uid, c->peer->user, c->peer->pid, c->peer->exe[0] ? c->peer->exe : NULL, c->peer->comm,
                      c->peer->sid[0] ? c->peer->sid : NULL},
        .op = c->req->op,
        .window = a->has_window ? &win : NULL,
        .image_sha256 = OPT(image_sha256),
        .disposition = {kind, OPT(token), OPT(endpoint), OPT(mode), OPT(request_id),
                        outcome != PG_OK ? why->message : NULL, OPT(detail)},
        .outcome = outcome,
    };
#undef OPT
    pg_err rc = pg_audit_append(c->b->audit, &ev, e);
    if (!rc) {
        char anchor[PG_AUDIT_ANCHOR_MAX];
        pg_audit_anchor(c->b->audit, anchor);
        pg_log(PG_LOG_INFO, "audit %s uid=%u op=%s -> %s", anchor, (unsigned)c->peer->uid, c->req->op,
               pg_err_name(outcome));
    }
    return rc;
}

/* Admission: is the peer one of the policy's clients? Sets c->view.
 * Approvers need not be clients: for "approve" pg_policy_may_approve is the gate. */
static pg_err admit(pg_call *c, pg_error *e) {
    if (!strcmp(c->req->op, "approve")) {
        c->view = pg_policy_view_for(c->policy, c->peer->user);
        return PG_OK;
    }
    const char *groups[64];
    char buf[4096];
    pg_principal who;
    pg_broker_principal(c->peer->uid, c->peer->user, &who, groups, 64, buf, sizeof buf);
    who.remote = pg_peer_is_remote(c->peer);
    return pg_policy_admit(c->policy, &who, &c->view, e);
}

pg_err pg_dispatch(pg_call *c, pg_error *e) {
    const pg_op *op = pg_ops_find(c->req->op);
    if (!op)
        return pg_error_set(e, PG_E_USAGE, "upgrade the broker or check the client version", "unknown operation \"%s\"",
                            c->req->op);
    pg_err rc = admit(c, e);
    if (!rc) rc = pg_args_check(c->req->args, op->args, op->n_args, e);
    if (!rc) rc = op->fn(c, e);
    if (!c->b->audit || !((op->flags & PG_OP_AUDIT) || rc == PG_E_POLICY)) return rc;
    pg_error ae;
    pg_error_clear(&ae);
    if (write_audit(c, rc, e, &ae) == PG_OK) return rc;
    /* Not on record, so it did not happen: undo and refuse. */
    pg_log(PG_LOG_ERROR, "audit write failed, refusing %s: %s", c->req->op, ae.message);
    if (c->created_token[0]) pg_tok_drop(c->b->tokens, c->created_token);
    cJSON_Delete(c->result);
    c->result = NULL;
    free(c->reply_att.data);
    c->reply_att = (pg_blob){0};
    return pg_error_set(e, PG_E_INTERNAL, "the administrator must fix the audit log (disk full?)",
                        "refused: the audit record could not be written (%s)", ae.message);
}


void pg_principal_start(pg_principal *p, uint32_t uid, const char *user, const char **groups) {
    memset(p, 0, sizeof *p);
    p->user = user;
    p->uid = uid;
    p->groups = groups;
}

bool pg_principal_add_group(pg_principal *p, size_t max_groups, char *buf, size_t buflen, size_t *used,
                            const char *name) {
    size_t len = strlen(name) + 1;
    if (p->n_groups >= max_groups || *used + len > buflen) return false;
    memcpy(buf + *used, name, len);
    ((const char **)p->groups)[p->n_groups++] = buf + *used;
    *used += len;
    return true;
}
