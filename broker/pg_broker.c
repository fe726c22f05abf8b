/* pg_broker.c - the broker's lifecycle and shared state, the same for the
 * POSIX daemon (os/posix/pg_posix_main.c) and the Windows service (os/win/pg_win_main.c):
 * policy, tokens, approvals, audit, relay, platform access. See pg_broker.h. */
#include <stdio.h>
#include <string.h>

#include "audit/pg_audit.h"
#include "ocr/pg_ocr.h"
#include "pg_broker.h"
#include "pg_disclose.h"
#include "pg_log.h"
#include "pg_refusals.h"
#include "relay/pg_relay.h"

static pg_err open_audit(pg_broker *b, const char *state_dir, pg_error *e) {
    const pg_policy_settings *ps = pg_policy_settings_get(b->policy);
    char path[4096];
    if (ps->audit_path) snprintf(path, sizeof path, "%s", ps->audit_path);
    else snprintf(path, sizeof path, "%s/audit.jsonl", state_dir);
    return pg_audit_open(&b->audit, path, ps->audit_rotate_bytes, e);
}

/* audit.journal as the policy p says (at start, and at every reload). */
static pg_err apply_journal(pg_broker *b, const pg_policy *p, pg_error *e) {
    const pg_policy_settings *ps = pg_policy_settings_get(p);
    pg_err rc = pg_audit_set_journal(b->audit, ps->audit_journal, b->journal_socket[0] ? b->journal_socket : NULL,
                                     ps->audit_journal_titles, e);
    if (!rc && ps->audit_journal)
        pg_log(PG_LOG_INFO, "audit records also go to the journal%s", ps->audit_journal_titles ? ", with window titles" : "");
    return rc;
}

static void log_policy(const pg_policy *p) {
    const pg_policy_settings *ps = pg_policy_settings_get(p);
    pg_log(PG_LOG_INFO, "policy %s sha256=%.16s...%s", ps->source, ps->sha256,
           ps->file_checked ? "" : " (file permissions NOT checked)");
    for (size_t i = 0; i < pg_policy_warning_count(p); i++)
        pg_log(PG_LOG_WARN, "policy: %s", pg_policy_warning(p, i));
}

pg_err pg_broker_init(pg_broker *b, const pg_broker_config *cfg, pg_error *e) {
    memset(b, 0, sizeof *b);
    b->plat_ops = cfg->plat_ops;
    b->settle_quiet_ms = 60;
    b->settle_timeout_ms = 1000;
    b->self_uid = cfg->self_uid;
    b->self_pid = cfg->self_pid;
    snprintf(b->display, sizeof b->display, "%s", cfg->display ? cfg->display : "");
    snprintf(b->policy_path, sizeof b->policy_path, "%s", cfg->policy_path);
    snprintf(b->journal_socket, sizeof b->journal_socket, "%s", cfg->journal_socket ? cfg->journal_socket : "");
    b->policy = cfg->policy;
    pthread_mutex_init(&b->plat_lock, NULL);
    pthread_mutex_init(&b->policy_lock, NULL);
    pthread_mutex_init(&b->ocr_lock, NULL);
    log_policy(b->policy);
    uint64_t quota = pg_policy_settings_get(b->policy)->spool_quota_bytes;
    if (cfg->quota_cap_bytes && quota > cfg->quota_cap_bytes) quota = cfg->quota_cap_bytes;
    pg_err rc = pg_tok_store_new(&b->tokens, cfg->spool_dir, quota, cfg->memory_budget, cfg->ttl_s, e);
    if (!rc) rc = pg_approval_new(&b->approvals, e);
    if (!rc) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/baselines", cfg->state_dir);
        rc = pg_baseline_open(&b->baselines, dir, e);
    }
    if (!rc) rc = open_audit(b, cfg->state_dir, e);
    if (!rc) rc = apply_journal(b, b->policy, e); /* asked for and impossible: refuse to start */
    if (!rc) rc = pg_relay_global_init(e);
    if (!rc) rc = pg_judge_cache_new(&b->judge_cache, 1024, e);
    if (!rc) rc = pg_disclose_new(&b->disclose, e);
    if (!rc) rc = pg_refusals_new(&b->refusals, e);
    return rc;
}

static void audit_self(pg_broker *b, const char *op, pg_err outcome, const char *detail, const char *reason);

/* Refusals still only counted when the broker stops: one record per user. */
static void record_coalesced(uint32_t uid, uint64_t n, void *ctx) {
    char detail[128];
    snprintf(detail, sizeof detail, "%llu refusals of uid %u coalesced and not recorded one by one",
             (unsigned long long)n, (unsigned)uid);
    audit_self(ctx, "broker.refusals_coalesced", PG_OK, detail, NULL);
}

void pg_broker_fini(pg_broker *b) {
    if (b->refusals && b->audit) pg_refusals_drain(b->refusals, record_coalesced, b);
    pg_refusals_free(b->refusals);
    if (b->plat) b->plat_ops->close(b->plat);
    b->plat = NULL;
    pg_tok_store_free(b->tokens);
    pg_approval_free(b->approvals);
    pg_baseline_close(b->baselines);
    pg_judge_cache_free(b->judge_cache);
    pg_disclose_free(b->disclose);
    pg_ocr_free(b->ocr);
    pg_audit_close(b->audit);
    pg_policy_free(b->policy);
    pthread_mutex_destroy(&b->policy_lock);
    pthread_mutex_destroy(&b->ocr_lock);
    pthread_mutex_destroy(&b->plat_lock);
    memset(b, 0, sizeof *b);
}

/* The broker's own records (not a client's request), e.g. a policy reload. */
static void audit_self(pg_broker *b, const char *op, pg_err outcome, const char *detail, const char *reason) {
    pg_audit_event ev = {.principal = {.uid = b->self_uid, .user = "pixelgate", .pid = b->self_pid,
                                       .comm = "pixelgated"},
                         .op = op,
                         .disposition = {.kind = "policy", .detail = detail, .reason = reason},
                         .outcome = outcome};
    pg_error e;
    if (pg_audit_append(b->audit, &ev, &e)) pg_log(PG_LOG_ERROR, "audit: %s", e.message);
}

void pg_broker_reload(pg_broker *b) {
    pg_error e;
    pg_error_clear(&e);
    if (pg_broker_reload_policy(b, &e) != PG_OK) {
        pg_log(PG_LOG_ERROR, "policy reload refused, keeping the old policy: %s", e.message);
        audit_self(b, "policy.reload", e.code, NULL, e.message);
        return;
    }
    pg_judge_cache_clear(b->judge_cache); /* endpoints may have changed */
    pg_policy *p = pg_broker_policy(b);
    log_policy(p);
    if (apply_journal(b, p, &e) != PG_OK) pg_log(PG_LOG_ERROR, "audit journal copies: %s", e.message);
    char detail[128];
    snprintf(detail, sizeof detail, "sha256 %s", pg_policy_settings_get(p)->sha256);
    audit_self(b, "policy.reload", PG_OK, detail, NULL);
    pg_policy_free(p);
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


int pg_broker_verify_audit(const char *path, const char *anchor) {
    pg_audit_report r;
    pg_error e;
    pg_error_clear(&e);
    pg_audit_verify_opts vo = {.anchor = anchor};
    pg_err rc = pg_audit_verify(path, &vo, &r, &e);
    char text[2048];
    pg_audit_report_format(&r, rc, text, sizeof text);
    printf("%s\n", text);
    if (rc && rc != PG_E_ASSERT) fprintf(stderr, "pixelgated: %s\n", e.message);
    return rc;
}
