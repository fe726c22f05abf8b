/* SPDX-License-Identifier: MIT */
/* pg_broker.c - the broker's lifecycle and shared state, the same for the
 * POSIX daemon (os/posix/pg_posix_main.c) and the Windows service (os/win/pg_win_main.c):
 * policy, tokens, approvals, audit, relay, platform access. See pg_broker.h. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "audit/pg_audit.h"
#include "ocr/pg_ocr.h"
#include "ocr/pg_ocr_cache.h"
#include "pg_broker.h"
#include "pg_disclose.h"
#include "pg_log.h"
#include "pg_refusals.h"
#include "pg_time.h"
#include "relay/pg_relay.h"

static pg_err open_audit(pg_broker *b, const char *state_dir, pg_error *e) {
    const pg_policy_settings *ps = pg_policy_settings_get(b->policy);
    char path[4096];
    if (ps->audit_path) snprintf(path, sizeof path, "%s", ps->audit_path);
    else snprintf(path, sizeof path, "%s/audit.jsonl", state_dir);
    return pg_audit_open(&b->audit, path, ps->audit_rotate_bytes, e);
}

/* audit.journal and audit.flush_ms as the policy p says (at start, and at every reload). */
static pg_err apply_audit_settings(pg_broker *b, const pg_policy *p, pg_error *e) {
    const pg_policy_settings *ps = pg_policy_settings_get(p);
    pg_err rc = pg_audit_set_flush(b->audit, ps->audit_flush_ms, e);
    if (rc) return rc;
    if (ps->audit_flush_ms)
        pg_log(PG_LOG_INFO, "audit: records of intent are synced before their effect, the others within %u ms "
               "(audit.flush_ms)", (unsigned)ps->audit_flush_ms);
    else
        pg_log(PG_LOG_INFO, "audit: every record is synced before the reply (audit.flush_ms 0)");
    rc = pg_audit_set_journal(b->audit, ps->audit_journal, b->journal_socket[0] ? b->journal_socket : NULL,
                                     ps->audit_journal_titles, e);
    if (!rc && ps->audit_journal)
        pg_log(PG_LOG_INFO, "audit records also go to the journal%s", ps->audit_journal_titles ? ", with window titles" : "");
    return rc;
}

/* One precedence, said at start: a limit set both on the command line and in
 * the policy takes the tighter of the two (per-user policy sections tighten
 * further); one set in only one place is that one. */
static void log_limits(pg_broker *b, unsigned per_user) {
    const pg_policy_settings *ps = pg_policy_settings_get(b->policy);
    const pg_policy_view *v = pg_policy_view_for(b->policy, "");
    uint32_t ttl = v->token_ttl_s;
    uint64_t quota = ps->spool_quota_bytes;
    char ttl_from[96] = "the policy", quota_from[96] = "the policy";
    if (b->ttl_cap_s)
        snprintf(ttl_from, sizeof ttl_from, "the tighter of the policy's %u s and --token-ttl %u s", (unsigned)ttl,
                 (unsigned)b->ttl_cap_s);
    if (b->ttl_cap_s && b->ttl_cap_s < ttl) ttl = b->ttl_cap_s;
    if (b->quota_cap_bytes)
        snprintf(quota_from, sizeof quota_from, "the tighter of the policy's %llu MiB and --spool-quota %llu MiB",
                 (unsigned long long)(quota >> 20), (unsigned long long)(b->quota_cap_bytes >> 20));
    if (b->quota_cap_bytes && b->quota_cap_bytes < quota) quota = b->quota_cap_bytes;
    pg_log(PG_LOG_INFO,
           "limits (a limit both the command line and the policy set takes the tighter): token ttl %u s (%s); "
           "spool quota %llu MiB (%s); per user %llu MiB and %u tokens; decoded pixels %llu MiB at once",
           (unsigned)ttl, ttl_from, (unsigned long long)(quota >> 20), quota_from,
           (unsigned long long)(v->spool_quota_bytes >> 20), per_user, (unsigned long long)(b->pixels_budget >> 20));
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
    if (!cfg->handlers) return pg_error_set(e, PG_E_INTERNAL, NULL, "no handler table (pg_broker_config.handlers)");
    b->plat_ops = cfg->plat_ops;
    b->handlers = cfg->handlers;
    b->settle_quiet_ms = 60;
    b->settle_timeout_ms = 1000;
    b->self_uid = cfg->self_uid;
    b->self_pid = cfg->self_pid;
    snprintf(b->display, sizeof b->display, "%s", cfg->display ? cfg->display : "");
    snprintf(b->policy_path, sizeof b->policy_path, "%s", cfg->policy_path);
    snprintf(b->journal_socket, sizeof b->journal_socket, "%s", cfg->journal_socket ? cfg->journal_socket : "");
    b->policy = cfg->policy;
    pthread_mutex_init(&b->plat_lock, NULL);
    pthread_mutex_init(&b->answered_lock, NULL);
    pthread_mutex_init(&b->disp.lock, NULL);
    pthread_mutex_init(&b->watch_lock, NULL);
    pthread_cond_init(&b->watch_cond, NULL);
    b->n_readers = cfg->display_readers < PG_PLAT_READERS_MAX ? cfg->display_readers : PG_PLAT_READERS_MAX;
    for (unsigned i = 0; i < PG_PLAT_READERS_MAX; i++) pthread_mutex_init(&b->readers[i].lock, NULL);
    pthread_mutex_init(&b->policy_lock, NULL);
    pthread_mutex_init(&b->ocr_lock, NULL);
    pthread_cond_init(&b->ocr_cond, NULL);
    b->ocr_max = cfg->ocr_engines ? (cfg->ocr_engines < PG_OCR_ENGINES_MAX ? cfg->ocr_engines : PG_OCR_ENGINES_MAX) : 1;
    log_policy(b->policy);
    b->quota_cap_bytes = cfg->quota_cap_bytes;
    b->ttl_cap_s = cfg->ttl_cap_s;
    pthread_mutex_init(&b->pixels_lock, NULL);
    pthread_cond_init(&b->pixels_cond, NULL);
    b->pixels_budget = cfg->pixel_budget ? cfg->pixel_budget : 1ull << 30;
    b->pixels_wait_ms = 10000;
    uint64_t quota = pg_policy_settings_get(b->policy)->spool_quota_bytes;
    if (cfg->quota_cap_bytes && quota > cfg->quota_cap_bytes) quota = cfg->quota_cap_bytes;
    pg_err rc = pg_tok_store_new(&b->tokens, cfg->spool_dir, quota, cfg->memory_budget, cfg->ttl_s, e);
    if (!rc) {
        pg_tok_store_limits(b->tokens, 0, cfg->ttl_cap_s, cfg->uid_max_tokens);
        log_limits(b, cfg->uid_max_tokens ? cfg->uid_max_tokens : PG_TOK_UID_MAX_DEFAULT);
    }
    if (!rc) rc = pg_approval_new(&b->approvals, e);
    if (!rc) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/baselines", cfg->state_dir);
        rc = pg_baseline_open(&b->baselines, dir, e);
    }
    if (!rc) rc = open_audit(b, cfg->state_dir, e);
    if (!rc) rc = apply_audit_settings(b, b->policy, e); /* asked for and impossible: refuse to start */
    if (!rc) rc = pg_relay_global_init(e);
    if (!rc) rc = pg_judge_cache_new(&b->judge_cache, 1024, e);
    if (!rc && !cfg->no_ocr_cache) rc = pg_ocr_cache_new(&b->ocr_cache, e); /* NULL: every read afresh */
    if (!rc) rc = pg_disclose_new(&b->disclose, e);
    if (!rc) rc = pg_refusals_new(&b->refusals, e);
    if (!rc) rc = pg_broker_person_init(b, e);
    return rc;
}

static void audit_self(pg_broker *b, const char *op, pg_err outcome, const char *detail, const char *reason);
static void watch_stop(pg_broker *b);

/* Refusals still only counted when the broker stops: one record per user. */
static void record_coalesced(uint32_t uid, uint64_t n, void *ctx) {
    char detail[128];
    snprintf(detail, sizeof detail, "%llu refusals of uid %u coalesced and not recorded one by one",
             (unsigned long long)n, (unsigned)uid);
    audit_self(ctx, "broker.refusals_coalesced", PG_OK, detail, NULL);
}

void pg_broker_fini(pg_broker *b) {
    watch_stop(b);
    if (b->refusals && b->audit) pg_refusals_drain(b->refusals, record_coalesced, b);
    pg_refusals_free(b->refusals);
    if (b->audit) pg_broker_release_held_locked(b, "the broker stopped"); /* the workers have ended */
    if (b->plat) b->plat_ops->close(b->plat);
    b->plat = NULL;
    for (unsigned i = 0; i < PG_PLAT_READERS_MAX; i++) {
        if (b->readers[i].p) b->plat_ops->close(b->readers[i].p);
        b->readers[i].p = NULL;
        pthread_mutex_destroy(&b->readers[i].lock);
    }
    pg_broker_person_fini(b); /* the handles' threads reported into it until they closed */
    pthread_mutex_destroy(&b->pixels_lock);
    pthread_cond_destroy(&b->pixels_cond);
    pthread_mutex_destroy(&b->disp.lock);
    pthread_mutex_destroy(&b->answered_lock);
    pthread_mutex_destroy(&b->watch_lock);
    pthread_cond_destroy(&b->watch_cond);
    pg_tok_store_free(b->tokens);
    pg_approval_free(b->approvals);
    pg_baseline_close(b->baselines);
    pg_judge_cache_free(b->judge_cache);
    pg_disclose_free(b->disclose);
    for (unsigned i = 0; i < b->n_ocr; i++) pg_ocr_free(b->ocr[i]);
    pg_ocr_cache_free(b->ocr_cache);
    pg_audit_close(b->audit);
    pg_policy_free(b->policy);
    pthread_mutex_destroy(&b->policy_lock);
    pthread_mutex_destroy(&b->ocr_lock);
    pthread_cond_destroy(&b->ocr_cond);
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
    uint64_t quota = pg_policy_settings_get(p)->spool_quota_bytes; /* the new policy's, under the same ceiling */
    if (b->quota_cap_bytes && quota > b->quota_cap_bytes) quota = b->quota_cap_bytes;
    pg_tok_store_limits(b->tokens, quota, b->ttl_cap_s, 0);
    log_policy(p);
    if (apply_audit_settings(b, p, &e) != PG_OK) pg_log(PG_LOG_ERROR, "audit journal copies: %s", e.message);
    char detail[128];
    snprintf(detail, sizeof detail, "sha256 %s", pg_policy_settings_get(p)->sha256);
    audit_self(b, "policy.reload", PG_OK, detail, NULL);
    pg_policy_free(p);
}
/* ---- the display: state, loss, return ---- */

#define BACKOFF_FIRST_MS 250
#define BACKOFF_MAX_MS 2000

static int64_t wall_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void pg_broker_display_lost(pg_broker *b, const char *reason) {
    pthread_mutex_lock(&b->disp.lock);
    if (b->disp.state == PG_DISPLAY_UP) {
        b->disp.state = PG_DISPLAY_LOST;
        snprintf(b->disp.reason, sizeof b->disp.reason, "%s", reason);
        b->disp.tip[0] = '\0';
        b->disp.since_ms = wall_ms();
        b->disp.backoff_ms = BACKOFF_FIRST_MS;
        b->disp.next_try_us = pg_mono_us() + BACKOFF_FIRST_MS * 1000;
        pg_log(PG_LOG_WARN, "display \"%s\" lost: %s; reconnecting with backoff", b->display, reason);
    }
    pthread_mutex_unlock(&b->disp.lock);
}

/* May a (re)connection be tried now? Claims the attempt: the next one waits
 * for the doubled backoff. A display never opened yet is tried every time. */
static bool may_try(pg_broker *b) {
    pthread_mutex_lock(&b->disp.lock);
    bool ok = b->disp.state != PG_DISPLAY_LOST || pg_mono_us() >= b->disp.next_try_us;
    if (ok && b->disp.state == PG_DISPLAY_LOST) {
        b->disp.next_try_us = pg_mono_us() + (int64_t)b->disp.backoff_ms * 1000;
        b->disp.backoff_ms = b->disp.backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : b->disp.backoff_ms * 2;
    }
    pthread_mutex_unlock(&b->disp.lock);
    return ok;
}

/* A connection was made: the display is up; returns its generation. */
static uint64_t display_opened(pg_broker *b) {
    pthread_mutex_lock(&b->disp.lock);
    if (b->disp.state != PG_DISPLAY_UP) {
        if (b->disp.state == PG_DISPLAY_LOST) {
            b->disp.reconnects++;
            pg_log(PG_LOG_INFO, "display \"%s\" back after %lld ms (reconnect %u)", b->display,
                   (long long)(wall_ms() - b->disp.since_ms), b->disp.reconnects);
        }
        b->disp.state = PG_DISPLAY_UP;
        b->disp.reason[0] = '\0';
        b->disp.tip[0] = '\0';
        b->disp.since_ms = wall_ms();
        b->disp.gen++;
    }
    uint64_t gen = b->disp.gen;
    pthread_mutex_unlock(&b->disp.lock);
    return gen;
}

/* Why the display could not be opened, and the backend's fix for it (a
 * session helper's differs from an X server's). */
static void display_failed(pg_broker *b, const pg_error *why) {
    pthread_mutex_lock(&b->disp.lock);
    if (b->disp.state != PG_DISPLAY_UP) {
        snprintf(b->disp.reason, sizeof b->disp.reason, "%s", why->message);
        snprintf(b->disp.tip, sizeof b->disp.tip, "%s", why->recovery_tip);
    }
    pthread_mutex_unlock(&b->disp.lock);
}

/* Is a handle opened at gen still of the current connection? */
static bool handle_current(pg_broker *b, uint64_t gen) {
    pthread_mutex_lock(&b->disp.lock);
    bool ok = b->disp.state == PG_DISPLAY_UP && b->disp.gen == gen;
    pthread_mutex_unlock(&b->disp.lock);
    return ok;
}

static bool display_up(pg_broker *b) {
    pthread_mutex_lock(&b->disp.lock);
    bool up = b->disp.state == PG_DISPLAY_UP;
    pthread_mutex_unlock(&b->disp.lock);
    return up;
}

static pg_err open_handle(pg_broker *b, pg_platform **p, uint64_t *gen, pg_error *e) {
    pg_err rc = b->plat_ops->open(p, b->display[0] ? b->display : NULL, e);
    if (rc) {
        *p = NULL;
        display_failed(b, e);
        return rc;
    }
    *gen = display_opened(b);
    if (p == &b->plat) pg_broker_person_opened(b); /* the person's input is watched on the main connection */
    return PG_OK;
}

void pg_broker_open_platform(pg_broker *b) {
    pg_error e;
    pg_error_clear(&e);
    if (open_handle(b, &b->plat, &b->plat_gen, &e) != PG_OK) {
        memcpy(b->plat_error, e.message, sizeof b->plat_error);
        pg_log(PG_LOG_WARN, "display \"%s\" not usable: %s", b->display, e.message);
    } else {
        pg_log(PG_LOG_INFO, "display \"%s\" opened", b->display);
    }
}

cJSON *pg_broker_display_json(pg_broker *b) {
    static const char *const names[] = {"none", "up", "lost"};
    pthread_mutex_lock(&b->disp.lock);
    pg_display_state state = b->disp.state;
    int64_t since_ms = b->disp.since_ms;
    unsigned reconnects = b->disp.reconnects;
    char reason[PG_ERR_MSG_MAX];
    memcpy(reason, b->disp.reason, sizeof reason);
    pthread_mutex_unlock(&b->disp.lock);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "state", names[state]);
    cJSON_AddStringToObject(o, "name", b->display);
    if (since_ms) {
        char since[40];
        time_t s = (time_t)(since_ms / 1000);
        struct tm tm;
#ifdef _WIN32
        gmtime_s(&tm, &s);
#else
        gmtime_r(&s, &tm);
#endif
        strftime(since, sizeof since, "%Y-%m-%dT%H:%M:%SZ", &tm);
        cJSON_AddStringToObject(o, "since", since);
    }
    if (state != PG_DISPLAY_UP) cJSON_AddStringToObject(o, "reason", reason[0] ? reason : "not opened yet");
    cJSON_AddNumberToObject(o, "reconnects", reconnects);
    return o;
}

static pg_err no_display(pg_broker *b, pg_error *e) {
    pthread_mutex_lock(&b->disp.lock);
    pg_display_state state = b->disp.state;
    char reason[PG_ERR_MSG_MAX], tip[PG_ERR_TIP_MAX];
    memcpy(reason, b->disp.reason, sizeof reason);
    memcpy(tip, b->disp.tip, sizeof tip);
    pthread_mutex_unlock(&b->disp.lock);
    if (state == PG_DISPLAY_LOST)
        return pg_error_set(e, PG_E_UNREACHABLE,
                            tip[0] ? tip
                                   : "the broker reconnects by itself when the display is back; 'pixelgate ping' "
                                     "shows its state",
                            "the display was lost (%s); reconnecting", reason);
    return pg_error_set(e, PG_E_UNREACHABLE,
                        tip[0] ? tip : "check that the X server runs and admits the broker (xhost +SI:localuser:pixelgate)",
                        "the broker has no display: %s", reason[0] ? reason : b->plat_error);
}

/* After a call on *p: a connection that went away is closed (*p = NULL)
 * and the display marked lost; one of an older connection is closed too. */
static void check_lost(pg_broker *b, pg_platform **p, uint64_t gen) {
    char why[PG_ERR_MSG_MAX];
    if (!*p) return;
    bool lost = b->plat_ops->lost && b->plat_ops->lost(*p, why, sizeof why);
    if (!lost && handle_current(b, gen)) return;
    b->plat_ops->close(*p);
    *p = NULL;
    if (lost) pg_broker_display_lost(b, why);
}

pg_err pg_broker_plat_lock(pg_broker *b, pg_error *e) {
    pthread_mutex_lock(&b->plat_lock);
    check_lost(b, &b->plat, b->plat_gen); /* lost meanwhile, seen by a reader or the watcher */
    /* The display may come up after the broker (systemd ordering), or come back: retry. */
    if (!b->plat && may_try(b)) pg_broker_open_platform(b);
    if (!b->plat) {
        pthread_mutex_unlock(&b->plat_lock);
        return no_display(b, e);
    }
    return PG_OK;
}

void pg_broker_release_held_locked(pg_broker *b, const char *why) {
    pg_held *h = &b->held;
    if (!pg_held_any(h)) return;
    char what[160], detail[256];
    pg_held_describe(h, what, sizeof what);
    snprintf(detail, sizeof detail, "released %.160s: %.80s", what, why);
    pg_error e;
    for (unsigned btn = 3; btn >= 1 && b->plat; btn--)
        if (h->buttons & (1u << btn)) {
            pg_hold up = {.button = (pg_button)btn};
            if (b->plat_ops->hold(b->plat, &up, &e)) pg_log(PG_LOG_WARN, "releasing a held button: %s", e.message);
        }
    for (size_t i = h->n_keys; i-- > 0 && b->plat;) {
        pg_hold up = {.is_key = true};
        snprintf(up.key, sizeof up.key, "%s", h->keys[i]);
        if (b->plat_ops->hold(b->plat, &up, &e)) pg_log(PG_LOG_WARN, "releasing held key %s: %s", h->keys[i], e.message);
    }
    pg_audit_window win = {h->window, NULL, NULL};
    pg_audit_event ev = {.principal = {.uid = h->uid, .user = h->user, .pid = h->pid},
                         .op = "release_held",
                         .window = &win,
                         .disposition = {.kind = "input", .detail = detail},
                         .outcome = PG_OK};
    if (pg_audit_append(b->audit, &ev, &e)) pg_log(PG_LOG_ERROR, "audit: %s", e.message);
    *h = (pg_held){0};
}

/* What held_by says about b->held (plat_lock held). */
static void publish_held(pg_broker *b) {
    atomic_store(&b->held_by, pg_held_any(&b->held) ? (uintptr_t)b->held.holder | 1u : 0u);
}

void pg_broker_expire_held_locked(pg_broker *b) {
    char why[128];
    if (!pg_held_expired(&b->held, pg_mono_us(), why, sizeof why)) return;
    pg_broker_release_held_locked(b, why);
    publish_held(b);
}

void pg_broker_release_held(pg_broker *b, const void *conn) {
    /* Only conn's own worker can make it a holder, and it is here: a
     * connection that held nothing goes without the lock (a 10 s drag of
     * another connection holds it that long). */
    if (atomic_load(&b->held_by) != ((uintptr_t)conn | 1u)) return;
    pthread_mutex_lock(&b->plat_lock);
    if (pg_held_any(&b->held) && b->held.holder == conn) pg_broker_release_held_locked(b, "the connection that held them ended");
    publish_held(b);
    pthread_mutex_unlock(&b->plat_lock);
}

void pg_broker_plat_unlock(pg_broker *b) {
    publish_held(b);
    check_lost(b, &b->plat, b->plat_gen);
    pthread_mutex_unlock(&b->plat_lock);
}

/* A locked reader made ready on the current connection; false when the
 * display is not up (the main connection then says why). */
static bool reader_ready(pg_broker *b, pg_plat_reader *r) {
    check_lost(b, &r->p, r->gen);
    if (!r->p && display_up(b)) {
        pg_error ignored;
        open_handle(b, &r->p, &r->gen, &ignored);
    }
    return r->p != NULL;
}

pg_err pg_broker_plat_read(pg_broker *b, pg_platform **p, int *slot, pg_error *e) {
    *slot = -1;
    if (b->n_readers && display_up(b)) {
        int got = -1;
        for (unsigned i = 0; i < b->n_readers && got < 0; i++) /* a free one first */
            if (pthread_mutex_trylock(&b->readers[i].lock) == 0) got = (int)i;
        if (got < 0) { /* all busy: wait for one, in turn */
            pthread_mutex_lock(&b->disp.lock);
            got = (int)(b->next_reader++ % b->n_readers);
            pthread_mutex_unlock(&b->disp.lock);
            pthread_mutex_lock(&b->readers[got].lock);
        }
        pg_plat_reader *r = &b->readers[got];
        if (reader_ready(b, r)) {
            *p = r->p;
            *slot = got;
            return PG_OK;
        }
        pthread_mutex_unlock(&r->lock);
    }
    pg_err rc = pg_broker_plat_lock(b, e);
    if (!rc) *p = b->plat;
    return rc;
}

void pg_broker_plat_release(pg_broker *b, int slot) {
    if (slot < 0) {
        pg_broker_plat_unlock(b);
        return;
    }
    pg_plat_reader *r = &b->readers[slot];
    check_lost(b, &r->p, r->gen);
    pthread_mutex_unlock(&r->lock);
}

/* ---- the watcher ---- */

void pg_broker_watch_once(pg_broker *b) {
    if (pthread_mutex_trylock(&b->plat_lock) == 0) { /* busy: its user will notice a loss */
        check_lost(b, &b->plat, b->plat_gen);
        if (!b->plat && may_try(b)) {
            pg_error e;
            pg_error_clear(&e);
            open_handle(b, &b->plat, &b->plat_gen, &e);
        }
        pg_broker_expire_held_locked(b); /* nobody else may ask: a hold ends on time all the same */
        pthread_mutex_unlock(&b->plat_lock);
    }
    pg_broker_person_tick(b);
    for (unsigned i = 0; i < b->n_readers; i++) {
        pg_plat_reader *r = &b->readers[i];
        if (pthread_mutex_trylock(&r->lock) != 0) continue;
        check_lost(b, &r->p, r->gen);
        pthread_mutex_unlock(&r->lock);
    }
}

static void *watch_main(void *arg) {
    pg_broker *b = arg;
    int64_t last_sweep = pg_mono_us();
    pthread_mutex_lock(&b->watch_lock);
    while (!b->watch_stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 500 * 1000000L;
        if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&b->watch_cond, &b->watch_lock, &until);
        if (b->watch_stop) break;
        pthread_mutex_unlock(&b->watch_lock);
        pg_broker_watch_once(b);
        if (pg_mono_us() - last_sweep >= 10 * 1000000LL) {
            pg_tok_sweep(b->tokens);
            last_sweep = pg_mono_us();
#ifdef __GLIBC__
            malloc_trim(0); /* hands freed heap pages back: RSS follows what is held */
#endif
        }
        pthread_mutex_lock(&b->watch_lock);
    }
    pthread_mutex_unlock(&b->watch_lock);
    return NULL;
}

void pg_broker_watch_start(pg_broker *b) {
    if (b->watching) return;
    b->watch_stop = false;
    b->watching = pthread_create(&b->watch, NULL, watch_main, b) == 0;
}

static void watch_stop(pg_broker *b) {
    if (!b->watching) return;
    pthread_mutex_lock(&b->watch_lock);
    b->watch_stop = true;
    pthread_cond_broadcast(&b->watch_cond);
    pthread_mutex_unlock(&b->watch_lock);
    pthread_join(b->watch, NULL);
    b->watching = false;
}

pg_err pg_broker_pixels_take(pg_broker *b, uint64_t bytes, uint32_t wait_ms, const char *what, pg_error *e) {
    if (bytes > b->pixels_budget)
        return pg_error_set(e, PG_E_BADINPUT, "send a smaller image (or downscale it first)",
                            "%s needs %llu MiB of decoded pixels, more than the broker's whole budget of %llu MiB",
                            what, (unsigned long long)(bytes >> 20), (unsigned long long)(b->pixels_budget >> 20));
    pg_deadline until = pg_deadline_in_ms(wait_ms);
    pthread_mutex_lock(&b->pixels_lock);
    while (b->pixels_used + bytes > b->pixels_budget && !pg_deadline_passed(until)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint32_t left = pg_deadline_left_ms(until);
        uint32_t step = left < 100 ? left : 100; /* short steps: the wait is on the monotonic deadline */
        ts.tv_nsec += (long)step * 1000000L;
        if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&b->pixels_cond, &b->pixels_lock, &ts);
    }
    bool ok = b->pixels_used + bytes <= b->pixels_budget;
    uint64_t used = b->pixels_used;
    if (ok) b->pixels_used += bytes;
    pthread_mutex_unlock(&b->pixels_lock);
    if (ok) return PG_OK;
    return pg_error_set(e, PG_E_BUSY, "retry in a few seconds, or send smaller images",
                        "broker busy: other requests hold %llu of the %llu MiB of decoded pixels it allows at once; "
                        "%s needs %llu MiB", (unsigned long long)(used >> 20),
                        (unsigned long long)(b->pixels_budget >> 20), what, (unsigned long long)((bytes + 0xfffff) >> 20));
}

void pg_broker_pixels_give(pg_broker *b, uint64_t bytes) {
    if (!bytes) return;
    pthread_mutex_lock(&b->pixels_lock);
    b->pixels_used -= bytes < b->pixels_used ? bytes : b->pixels_used;
    pthread_cond_broadcast(&b->pixels_cond);
    pthread_mutex_unlock(&b->pixels_lock);
}

/* An idle engine of lang, else a new one while fewer than ocr_max exist,
 * else an idle engine of another language remade for lang, else a wait. */
pg_err pg_broker_ocr_take(pg_broker *b, const char *lang, struct pg_ocr **out, pg_error *e) {
    *out = NULL;
    pthread_mutex_lock(&b->ocr_lock);
    unsigned slot;
    for (;;) {
        unsigned other = b->n_ocr;
        for (unsigned i = 0; i < b->n_ocr; i++) {
            if (b->ocr_busy[i]) continue;
            if (!strcmp(b->ocr_lang[i], lang)) {
                b->ocr_busy[i] = true;
                *out = b->ocr[i];
                pthread_mutex_unlock(&b->ocr_lock);
                return PG_OK;
            }
            other = i;
        }
        if (b->n_ocr < b->ocr_max) {
            slot = b->n_ocr++;
            break;
        }
        if (other < b->n_ocr) {
            slot = other;
            pg_ocr_free(b->ocr[slot]);
            break;
        }
        pthread_cond_wait(&b->ocr_cond, &b->ocr_lock);
    }
    /* A new engine (0.1-0.3 s, once per engine and language), made under the lock: simple and rare. */
    b->ocr[slot] = NULL;
    b->ocr_busy[slot] = true;
    b->ocr_lang[slot][0] = 0;
    pg_err rc = pg_ocr_new(&b->ocr[slot], lang, b->ocr_datapath[0] ? b->ocr_datapath : NULL, e);
    if (!rc) {
        snprintf(b->ocr_lang[slot], sizeof b->ocr_lang[slot], "%s", lang);
        *out = b->ocr[slot];
    } else {
        b->ocr_busy[slot] = false; /* an empty slot, remade on its next use */
    }
    pthread_cond_broadcast(&b->ocr_cond);
    pthread_mutex_unlock(&b->ocr_lock);
    return rc;
}

void pg_broker_ocr_give(pg_broker *b, struct pg_ocr *o) {
    if (!o) return;
    pthread_mutex_lock(&b->ocr_lock);
    for (unsigned i = 0; i < b->n_ocr; i++)
        if (b->ocr[i] == o) b->ocr_busy[i] = false;
    pthread_cond_broadcast(&b->ocr_cond);
    pthread_mutex_unlock(&b->ocr_lock);
}

pg_err pg_broker_responding(pg_broker *b, pg_platform *p, const pg_window *w, uint32_t max_ms, pg_responding *out,
                            pg_error *e) {
    *out = PG_RESPONDING_UNKNOWN;
    if (!b->plat_ops->responding) return PG_OK;
    pg_err rc = b->plat_ops->responding(p, w->id, max_ms, out, e);
    if (rc || (*out != PG_RESPONDING_YES && *out != PG_RESPONDING_SILENT)) return rc;
    const size_t n = sizeof b->answered / sizeof b->answered[0];
    pthread_mutex_lock(&b->answered_lock);
    bool known = false;
    for (size_t i = 0; i < n && !known; i++) known = b->answered[i].id == w->id && b->answered[i].pid == w->pid;
    if (*out == PG_RESPONDING_YES && !known) { /* remembered in a ring: the oldest is forgotten */
        b->answered[b->answered_next % n].id = w->id;
        b->answered[b->answered_next % n].pid = w->pid;
        b->answered_next++;
    }
    pthread_mutex_unlock(&b->answered_lock);
    if (*out == PG_RESPONDING_SILENT) *out = known ? PG_RESPONDING_NO : PG_RESPONDING_UNKNOWN;
    return PG_OK;
}

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
