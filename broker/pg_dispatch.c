/* The operation table: one line per op, the handler and its argument schema.
 * Handlers live in broker/ops/op_*.c. */
#include <grp.h>
#include <pwd.h>
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
    OP("hash", pg_op_hash, pg_op_hash_args, 0),
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
        .principal = {c->peer->uid, c->peer->user, c->peer->pid, c->peer->exe[0] ? c->peer->exe : NULL, c->peer->comm},
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


void pg_broker_open_platform(pg_broker *b) {
    pg_error e;
    pg_error_clear(&e);
    if (b->plat_ops->open(&b->plat, b->display[0] ? b->display : NULL, &e) != PG_OK) {
        b->plat = NULL;
        memcpy(b->plat_error, e.message, sizeof b->plat_error);
        pg_log(PG_LOG_WARN, "display \"%s\" not usable: %s", b->display, e.message);
    } else {
        pg_log(PG_LOG_INFO, "display \"%s\" opened", b->display);
    }
}

pg_err pg_broker_plat_lock(pg_broker *b, pg_error *e) {
    pthread_mutex_lock(&b->plat_lock);
    /* The display may come up after the broker (systemd ordering): retry. */
    if (!b->plat) pg_broker_open_platform(b);
    if (!b->plat) {
        pthread_mutex_unlock(&b->plat_lock);
        return pg_error_set(e, PG_E_UNREACHABLE,
                            "check that the X server runs and admits the broker (xhost +SI:localuser:pixelgate)",
                            "the broker has no display: %s", b->plat_error);
    }
    return PG_OK;
}

void pg_broker_plat_unlock(pg_broker *b) { pthread_mutex_unlock(&b->plat_lock); }

pg_policy *pg_broker_policy(pg_broker *b) {
    pthread_mutex_lock(&b->policy_lock);
    pg_policy *p = pg_policy_ref(b->policy);
    pthread_mutex_unlock(&b->policy_lock);
    return p;
}

pg_err pg_broker_reload_policy(pg_broker *b, pg_error *e) {
    pg_policy *fresh = NULL;
    pg_err rc = pg_policy_load(b->policy_path, &fresh, e);
    if (rc) return rc;
    pthread_mutex_lock(&b->policy_lock);
    pg_policy *old = b->policy;
    b->policy = fresh;
    pthread_mutex_unlock(&b->policy_lock);
    pg_policy_free(old); /* requests still running keep their own reference */
    return PG_OK;
}

void pg_broker_principal(uint32_t uid, const char *user, pg_principal *p, const char **groups, size_t max_groups,
                         char *buf, size_t buflen) {
    memset(p, 0, sizeof *p);
    p->user = user;
    p->uid = uid;
    p->groups = groups;
    struct passwd pw, *pwr = NULL;
    char pwbuf[1024];
    if (getpwuid_r(uid, &pw, pwbuf, sizeof pwbuf, &pwr) != 0 || !pwr) return;
    gid_t gids[64];
    int ng = 64;
    if (getgrouplist(pw.pw_name, pw.pw_gid, gids, &ng) < 0) ng = 64;
    size_t used = 0;
    for (int i = 0; i < ng && p->n_groups < max_groups; i++) {
        struct group gr, *grr = NULL;
        char grbuf[1024];
        if (getgrgid_r(gids[i], &gr, grbuf, sizeof grbuf, &grr) != 0 || !grr) continue;
        size_t len = strlen(gr.gr_name) + 1;
        if (used + len > buflen) break;
        memcpy(buf + used, gr.gr_name, len);
        groups[p->n_groups++] = buf + used;
        used += len;
    }
}

bool pg_peer_is_remote(const pg_peer *p) {
    /* An SSH-forwarded Unix socket is connected by the login's sshd process
     * (the kernel names it as the peer), so sshd as peer means a remote driver. */
    return strcmp(p->comm, "sshd") == 0 || strncmp(p->comm, "sshd-", 5) == 0;
}

bool pg_broker_pid_owned_by(int64_t pid, uint32_t uid) {
    if (pid <= 0) return false;
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%lld/status", (long long)pid);
    FILE *f = fopen(path, "re");
    if (!f) return false;
    bool owned = false;
    while (fgets(line, sizeof line, f)) {
        unsigned real;
        if (sscanf(line, "Uid: %u", &real) == 1) {
            owned = real == uid;
            break;
        }
    }
    fclose(f);
    return owned;
}
