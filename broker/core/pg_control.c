/* SPDX-License-Identifier: MIT */
/* pg_control.c - the stop latch, take-over and the lease (pg_control.h). */
#include <stdio.h>
#include <string.h>

#include "pg_control.h"

static void stop(pg_control *c, const char *why, int64_t now_us) {
    if (c->stopped) return; /* the first reason stands: it is the one the person acted on */
    c->stopped = true;
    snprintf(c->why, sizeof c->why, "%s", why);
    c->since_us = now_us;
}

/* Each new press toggles; a press that would re-arm where the key may not
 * re-arm leaves the latch closed (only root or an approver opens it then). */
static unsigned apply_presses(pg_control *c, const pg_person_seen *s, const pg_control_rules *r, int64_t now_us) {
    unsigned what = 0;
    for (; c->presses_seen < s->stop_presses; c->presses_seen++) {
        if (!c->stopped) {
            char why[PG_PERSON_WHY_MAX];
            snprintf(why, sizeof why, "the person pressed %s", s->stop_key[0] ? s->stop_key : "the stop key");
            stop(c, why, now_us);
            what |= PG_CONTROL_STOPPED_NOW;
        } else if (r->key_rearms) {
            c->stopped = false;
            c->why[0] = '\0';
            what |= PG_CONTROL_RESUMED_NOW;
        }
    }
    return what;
}

static bool lease_outlived(const pg_lease *l, int64_t now_us, char *why, size_t n) {
    if (now_us >= l->until_us) {
        snprintf(why, n, "its time ran out");
        return true;
    }
    if (l->idle_ms && now_us - l->last_us >= (int64_t)l->idle_ms * 1000) {
        snprintf(why, n, "%u s without input from its holder", (unsigned)(l->idle_ms / 1000));
        return true;
    }
    return false;
}

unsigned pg_control_sync(pg_control *c, const pg_person_seen *s, const pg_control_rules *r, int64_t now_us,
                         char *lease_why, size_t n) {
    unsigned what = apply_presses(c, s, r, now_us);
    if (c->tampers_seen < s->tampers) {
        c->tampers_seen = s->tampers;
        bool was = c->stopped;
        stop(c, s->tamper_why, now_us);
        if (!was) what |= PG_CONTROL_STOPPED_NOW;
        what &= ~(unsigned)PG_CONTROL_RESUMED_NOW; /* a tamper after a re-arm leaves it stopped */
    }
    if (s->last_human_us > c->human_seen_us) {
        c->human_seen_us = s->last_human_us;
        what |= PG_CONTROL_HUMAN_NOW;
    }
    if (lease_why && n) lease_why[0] = '\0';
    if (!c->lease.id[0]) return what;
    char why[96] = "";
    if (c->stopped) snprintf(why, sizeof why, "a person stopped the agents");
    else if ((what & PG_CONTROL_HUMAN_NOW) && r->quiet_ms) snprintf(why, sizeof why, "a person took over");
    else lease_outlived(&c->lease, now_us, why, sizeof why);
    if (why[0]) {
        if (lease_why) snprintf(lease_why, n, "%s", why);
        c->lease = (pg_lease){0};
        what |= PG_CONTROL_LEASE_ENDED;
    }
    return what;
}

bool pg_control_resume(pg_control *c, int64_t now_us, char *was, size_t n, double *stopped_s) {
    if (!c->stopped) return false;
    snprintf(was, n, "%s", c->why);
    *stopped_s = (double)(now_us - c->since_us) / 1e6;
    c->stopped = false;
    c->why[0] = '\0';
    return true;
}

uint32_t pg_control_quiet_left_ms(const pg_person_seen *s, uint32_t quiet_ms, int64_t now_us) {
    if (!quiet_ms || !s->last_human_us) return 0;
    int64_t left_us = s->last_human_us + (int64_t)quiet_ms * 1000 - now_us;
    return left_us > 0 ? (uint32_t)((left_us + 999) / 1000) : 0;
}

pg_err pg_control_refuse_stopped(const pg_control *c, int64_t now_us, pg_error *e) {
    return pg_error_set(e, PG_E_STOPPED, NULL, "stopped by a person %.0f s ago (%s): nothing was done",
                        (double)(now_us - c->since_us) / 1e6, c->why);
}

pg_err pg_control_lease_check(pg_control *c, const char *lease_id, int64_t now_us, pg_error *e) {
    if (!c->lease.id[0]) return PG_OK;
    if (lease_id && strcmp(lease_id, c->lease.id) == 0) {
        c->lease.last_us = now_us;
        return PG_OK;
    }
    return pg_error_set(e, PG_E_BUSY, "wait for the lease to end, or take it yourself when it has ('pixelgate lease')",
                        "the keyboard and mouse are leased to %s for up to %.0f s more%s: nothing was sent",
                        c->lease.user, (double)(c->lease.until_us - now_us) / 1e6,
                        lease_id ? " (the lease you gave is not the one held)" : "");
}

pg_err pg_control_lease_take(pg_control *c, const char *id, uint32_t uid, const char *user, const void *conn,
                             uint32_t ttl_ms, uint32_t idle_ms, int64_t now_us, pg_error *e) {
    if (c->lease.id[0])
        return pg_error_set(e, PG_E_BUSY, "retry when it has ended; 'pixelgate caps' shows for how long",
                            "the keyboard and mouse are leased to %s already", c->lease.user);
    pg_lease *l = &c->lease;
    *l = (pg_lease){.uid = uid, .conn = conn, .until_us = now_us + (int64_t)ttl_ms * 1000, .last_us = now_us,
                    .idle_ms = idle_ms};
    snprintf(l->id, sizeof l->id, "%s", id);
    snprintf(l->user, sizeof l->user, "%s", user);
    return PG_OK;
}

pg_err pg_control_lease_release(pg_control *c, const char *id, pg_error *e) {
    if (!c->lease.id[0] || strcmp(id, c->lease.id) != 0)
        return pg_error_set(e, PG_E_NOTFOUND, NULL, "that lease is not held (it ended, or was never given)");
    c->lease = (pg_lease){0};
    return PG_OK;
}

bool pg_control_lease_end(pg_control *c, const void *conn, char *holder, size_t n) {
    if (!c->lease.id[0] || (conn && c->lease.conn != conn)) return false;
    if (holder) snprintf(holder, n, "%s", c->lease.user);
    c->lease = (pg_lease){0};
    return true;
}
