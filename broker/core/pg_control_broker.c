/* SPDX-License-Identifier: MIT */
/* pg_control_broker.c - the person's controls in the broker: the gate every
 * agent request passes, the watch thread's tick, the indicator, the lease
 * and the answers ping and caps give (pg_broker.h "The person's controls";
 * the state machine itself is pg_control.h). */
#include <stdio.h>
#include <string.h>

#include "audit/pg_audit.h"
#include "pg_broker.h"
#include "pg_call.h"
#include "pg_control.h"
#include "pg_crypto.h"
#include "pg_log.h"
#include "pg_person.h"
#include "pg_time.h"

/* The person's devices reported: wake the watch thread, which releases a
 * hold and ends a lease at once rather than on its next tick. */
static void wake_watch(void *ctx) {
    pg_broker *b = ctx;
    pthread_mutex_lock(&b->watch_lock);
    pthread_cond_broadcast(&b->watch_cond);
    pthread_mutex_unlock(&b->watch_lock);
}

pg_err pg_broker_person_init(pg_broker *b, pg_error *e) {
    pthread_mutex_init(&b->control_lock, NULL);
    b->person = pg_person_new(wake_watch, b);
    if (!b->person) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    snprintf(b->indicator_state, sizeof b->indicator_state, "not drawn yet");
    return PG_OK;
}

void pg_broker_person_fini(pg_broker *b) {
    if (!b->person) return; /* never initialised */
    pg_person_free(b->person); /* after the display handles closed: their threads reported into it */
    b->person = NULL;
    pthread_mutex_destroy(&b->control_lock);
}

void pg_broker_person_forgeable(pg_broker *b, const char *why) {
    pthread_mutex_lock(&b->control_lock);
    snprintf(b->forgeable, sizeof b->forgeable, "%s", why ? why : "");
    pthread_mutex_unlock(&b->control_lock);
    if (why && why[0]) pg_log(PG_LOG_WARN, "person: only root or an approver can re-arm after a stop: %s", why);
}

static void rules_now(pg_broker *b, pg_control_rules *r) {
    pg_policy *p = pg_broker_policy(b);
    r->quiet_ms = pg_policy_settings_get(p)->person_quiet_ms;
    pg_policy_free(p);
    r->key_rearms = b->forgeable[0] == '\0';
}

static void audit_person(pg_broker *b, const char *op, const char *user, uint32_t uid, const char *detail) {
    if (!b->audit) return;
    pg_audit_event ev = {.principal = {.uid = uid, .user = user, .pid = b->self_pid, .comm = "pixelgated"},
                         .op = op,
                         .disposition = {.kind = "person", .detail = detail},
                         .outcome = PG_OK};
    pg_error e;
    if (pg_audit_append(b->audit, &ev, &e)) pg_log(PG_LOG_ERROR, "audit: %s", e.message);
}

/* The sign off (plat_lock held). */
static void hide_indicator_locked(pg_broker *b) {
    if (!b->shown.window || !b->plat || !b->plat_ops->indicate) return;
    pg_indicator off = {0};
    pg_error e;
    if (b->plat_ops->indicate(b->plat, &off, &e)) pg_log(PG_LOG_WARN, "indicator: %s", e.message);
    b->shown = off;
}

/* What a sync changed, acted on outside control_lock: the stop and a
 * person's touch let go of everything held; each change is on record. */
static void act_on(pg_broker *b, unsigned what, const pg_control *snap, const char *lease_why) {
    if (what & PG_CONTROL_STOPPED_NOW) {
        pg_log(PG_LOG_WARN, "person: agents stopped: %s", snap->why);
        audit_person(b, "person.stop", "person", b->self_uid, snap->why);
    }
    if (what & PG_CONTROL_RESUMED_NOW) {
        pg_log(PG_LOG_INFO, "person: agents re-armed by the stop key");
        audit_person(b, "person.resume", "person", b->self_uid, "the person pressed the stop key again");
    }
    if (what & PG_CONTROL_LEASE_ENDED) audit_person(b, "person.lease_end", "person", b->self_uid, lease_why);
    if (!(what & (PG_CONTROL_STOPPED_NOW | PG_CONTROL_HUMAN_NOW))) return;
    /* A person moving the mouse syncs often: take the platform lock (which a
     * long input may hold) only when there is something to let go of. */
    if (!(what & PG_CONTROL_STOPPED_NOW) && atomic_load(&b->held_by) == 0) return;
    pthread_mutex_lock(&b->plat_lock);
    pg_broker_release_held_locked(b, (what & PG_CONTROL_STOPPED_NOW) ? "a person stopped the agents"
                                                                     : "a person used the keyboard or mouse");
    if (what & PG_CONTROL_STOPPED_NOW) hide_indicator_locked(b);
    pg_broker_plat_unlock(b);
}

/* Syncs the latch with the person's devices; seen and snap get the state
 * the caller decides on. */
static unsigned sync_now(pg_broker *b, int64_t now_us, pg_person_seen *seen, pg_control *snap, uint32_t *quiet_ms) {
    pg_control_rules r;
    rules_now(b, &r);
    char lease_why[96];
    pthread_mutex_lock(&b->control_lock);
    pg_person_read(b->person, seen);
    unsigned what = pg_control_sync(&b->control, seen, &r, now_us, lease_why, sizeof lease_why);
    *snap = b->control;
    pthread_mutex_unlock(&b->control_lock);
    if (quiet_ms) *quiet_ms = r.quiet_ms;
    act_on(b, what, snap, lease_why);
    return what;
}

static bool is_input(const pg_opdecl *op) { return (op->flags & PG_OPF_EFFECT) && (op->flags & PG_OPF_DISPLAY); }

static const char *lease_arg(const pg_call *c) {
    const cJSON *l = c->req->args ? cJSON_GetObjectItemCaseSensitive(c->req->args, "lease") : NULL;
    return cJSON_IsString(l) ? l->valuestring : NULL;
}

pg_err pg_broker_person_gate(pg_call *c, pg_error *e) {
    if ((c->op->flags & PG_OPF_APPROVER) || c->person_only || !c->b->person) return PG_OK; /* a person's own */
    pg_broker *b = c->b;
    int64_t now = pg_mono_us();
    pg_person_seen seen;
    pg_control snap;
    uint32_t quiet_ms = 0;
    sync_now(b, now, &seen, &snap, &quiet_ms);
    if (snap.stopped && !(c->op->flags & PG_OPF_WHILE_STOPPED)) return pg_control_refuse_stopped(&snap, now, e);
    if (is_input(c->op) || (c->op->flags & PG_OPF_CAPTURES)) {
        uint32_t left = pg_control_quiet_left_ms(&seen, quiet_ms, now);
        if (left)
            return pg_error_set(e, PG_E_HUMAN, NULL,
                                "a person is using the machine: agent input and captures are refused for %.1f s "
                                "more after their last input; nothing was done",
                                left / 1000.0);
    }
    if (!is_input(c->op)) return PG_OK;
    pthread_mutex_lock(&b->control_lock);
    pg_err rc = pg_control_lease_check(&b->control, lease_arg(c), now, e);
    pthread_mutex_unlock(&b->control_lock);
    return rc;
}

pg_err pg_broker_person_interrupt(pg_call *c, pg_error *e) {
    if ((c->op && (c->op->flags & PG_OPF_APPROVER)) || c->person_only || !c->b->person) return PG_OK;
    pg_person_seen seen;
    pg_control snap;
    int64_t now = pg_mono_us();
    sync_now(c->b, now, &seen, &snap, NULL);
    return snap.stopped ? pg_control_refuse_stopped(&snap, now, e) : PG_OK;
}

uint32_t pg_broker_person_quiet_left_ms(pg_broker *b) {
    if (!b->person) return 0;
    pg_person_seen seen;
    pg_control snap;
    uint32_t quiet_ms = 0;
    int64_t now = pg_mono_us();
    sync_now(b, now, &seen, &snap, &quiet_ms);
    return pg_control_quiet_left_ms(&seen, quiet_ms, now);
}

/* ---- the indicator ---- */

/* What caps says of the sign; under control_lock, so that ping never waits
 * for an input that holds plat_lock. */
static void indicator_said(pg_broker *b, const char *state) {
    pthread_mutex_lock(&b->control_lock);
    snprintf(b->indicator_state, sizeof b->indicator_state, "%s", state);
    pthread_mutex_unlock(&b->control_lock);
}

static pg_indicator_mode indicator_mode(pg_policy_indicator p) {
    return p == PG_INDICATE_BANNER ? PG_INDICATOR_BANNER : PG_INDICATOR_RING;
}

void pg_broker_person_drove(pg_call *c) {
    pg_broker *b = c->b;
    if (!is_input(c->op) || !c->audit.has_window || !c->audit.window_id) return;
    pg_policy *p = pg_broker_policy(b);
    pg_policy_indicator want = pg_policy_settings_get(p)->person_indicator;
    pg_policy_free(p);
    pthread_mutex_lock(&b->plat_lock);
    b->last_drive_us = pg_mono_us();
    if (want == PG_INDICATE_OFF) {
        indicator_said(b, "off (the administrator's policy)");
    } else if (b->plat && b->plat_ops->indicate &&
               (b->shown.window != c->audit.window_id || b->shown.mode != indicator_mode(want) ||
                strcmp(b->shown.user, c->peer->user) != 0)) { /* drawn again when any of them changed */
        pg_indicator how = {.window = c->audit.window_id, .mode = indicator_mode(want)};
        snprintf(how.user, sizeof how.user, "%s", c->peer->user);
        pg_error e;
        pg_error_clear(&e);
        if (b->plat_ops->indicate(b->plat, &how, &e) == PG_OK) {
            b->shown = how;
            indicator_said(b, how.mode == PG_INDICATOR_BANNER ? "banner" : "ring");
        } else {
            char said[PG_ERR_MSG_MAX + 16];
            snprintf(said, sizeof said, "not drawn: %s", e.message);
            indicator_said(b, said);
        }
    } else if (!b->plat_ops->indicate) {
        indicator_said(b, "not drawn: this backend has no indicator");
    }
    pg_broker_plat_unlock(b);
}

/* The watch thread's tick: the latch follows the person's devices even when
 * no agent asks, and the sign goes linger_ms after the agent's last input. */
void pg_broker_person_tick(pg_broker *b) {
    if (!b->person) return;
    pg_person_seen seen;
    pg_control snap;
    sync_now(b, pg_mono_us(), &seen, &snap, NULL);
    pg_policy *p = pg_broker_policy(b);
    uint32_t linger_ms = pg_policy_settings_get(p)->person_indicator_linger_ms;
    pg_policy_free(p);
    if (pthread_mutex_trylock(&b->plat_lock) != 0) return; /* busy: the next tick */
    if (b->shown.window && pg_mono_us() - b->last_drive_us >= (int64_t)linger_ms * 1000) hide_indicator_locked(b);
    pg_broker_plat_unlock(b);
}

/* The main display connection opened (plat_lock held or single-threaded). */
void pg_broker_person_opened(pg_broker *b) {
    b->shown = (pg_indicator){0};
    if (!b->person) return;
    pg_policy *p = pg_broker_policy(b);
    char key[64];
    snprintf(key, sizeof key, "%s", pg_policy_settings_get(p)->person_stop_key);
    pg_policy_free(p);
    if (!b->plat_ops->watch_person) {
        pg_person_set_watching(b->person, false, key, "this backend cannot tell a person's input from an agent's");
        return;
    }
    pg_error e;
    pg_error_clear(&e);
    if (b->plat_ops->watch_person(b->plat, b->person, key, &e) != PG_OK) {
        pg_person_set_watching(b->person, false, key, e.message);
        pg_log(PG_LOG_WARN, "person: the stop key and take-over are not watched: %s", e.message);
    }
}

/* ---- the lease ---- */

pg_err pg_broker_person_lease(pg_call *c, double ttl_s, bool bound, cJSON *out, pg_error *e) {
    pg_broker *b = c->b;
    uint8_t raw[16];
    pg_err rc = pg_random_bytes(raw, sizeof raw, e);
    if (rc) return rc;
    char id[PG_LEASE_ID_MAX] = "lease:";
    pg_b64url_encode(raw, sizeof raw, id + 6);
    pg_policy *p = pg_broker_policy(b);
    const pg_policy_settings *s = pg_policy_settings_get(p);
    double max_s = s->lease_max_s;
    uint32_t idle_ms = s->lease_idle_s * 1000u;
    pg_policy_free(p);
    if (ttl_s > max_s) ttl_s = max_s;
    pthread_mutex_lock(&b->control_lock);
    rc = pg_control_lease_take(&b->control, id, c->peer->uid, c->peer->user, bound ? c->conn : NULL,
                               (uint32_t)(ttl_s * 1000), idle_ms, pg_mono_us(), e);
    pthread_mutex_unlock(&b->control_lock);
    if (rc) return rc;
    cJSON_AddStringToObject(out, "lease", id);
    cJSON_AddNumberToObject(out, "expires_in_s", ttl_s);
    cJSON_AddNumberToObject(out, "idle_s", idle_ms / 1000);
    return PG_OK;
}

pg_err pg_broker_person_unlease(pg_broker *b, const char *id, pg_error *e) {
    pthread_mutex_lock(&b->control_lock);
    pg_err rc = pg_control_lease_release(&b->control, id, e);
    pthread_mutex_unlock(&b->control_lock);
    return rc;
}

bool pg_broker_person_break_lease(pg_broker *b, const void *conn, char *holder, size_t n) {
    pthread_mutex_lock(&b->control_lock);
    bool ended = pg_control_lease_end(&b->control, conn, holder, n);
    pthread_mutex_unlock(&b->control_lock);
    return ended;
}

void pg_broker_person_conn_gone(pg_broker *b, const void *conn) {
    char holder[64];
    if (!b->person || !pg_broker_person_break_lease(b, conn, holder, sizeof holder)) return;
    char detail[160];
    snprintf(detail, sizeof detail, "the lease of %s ended with its connection", holder);
    audit_person(b, "person.lease_end", holder, b->self_uid, detail);
}

bool pg_broker_person_resume(pg_broker *b, char *was, size_t n, double *stopped_s) {
    pthread_mutex_lock(&b->control_lock);
    bool resumed = pg_control_resume(&b->control, pg_mono_us(), was, n, stopped_s);
    pthread_mutex_unlock(&b->control_lock);
    return resumed;
}

/* ---- what ping and caps say ---- */

cJSON *pg_broker_person_json(pg_broker *b) {
    cJSON *o = cJSON_CreateObject();
    if (!b->person) return o;
    pg_person_seen seen;
    pg_control snap;
    uint32_t quiet_ms = 0;
    int64_t now = pg_mono_us();
    sync_now(b, now, &seen, &snap, &quiet_ms);
    cJSON_AddBoolToObject(o, "stopped", snap.stopped);
    if (snap.stopped) {
        cJSON_AddStringToObject(o, "why", snap.why);
        cJSON_AddNumberToObject(o, "stopped_s", (double)((now - snap.since_us) / 100000) / 10.0);
    }
    pthread_mutex_lock(&b->control_lock);
    cJSON_AddStringToObject(o, "rearm", b->forgeable[0] ? "admin" : "key");
    if (b->forgeable[0]) cJSON_AddStringToObject(o, "rearm_why", b->forgeable);
    pthread_mutex_unlock(&b->control_lock);
    cJSON_AddStringToObject(o, "stop_key", seen.stop_key);
    cJSON_AddBoolToObject(o, "watching", seen.watching);
    if (!seen.watching) cJSON_AddStringToObject(o, "why_not", seen.why_not);
    uint32_t left = pg_control_quiet_left_ms(&seen, quiet_ms, now);
    cJSON_AddBoolToObject(o, "human_active", left > 0);
    cJSON_AddNumberToObject(o, "quiet_ms_left", left);
    pthread_mutex_lock(&b->control_lock);
    cJSON_AddStringToObject(o, "indicator", b->indicator_state);
    pthread_mutex_unlock(&b->control_lock);
    if (snap.lease.id[0]) {
        cJSON *l = cJSON_AddObjectToObject(o, "lease");
        cJSON_AddStringToObject(l, "user", snap.lease.user);
        cJSON_AddNumberToObject(l, "expires_in_s", (double)((snap.lease.until_us - now) / 100000) / 10.0);
    } else {
        cJSON_AddNullToObject(o, "lease");
    }
    return o;
}
