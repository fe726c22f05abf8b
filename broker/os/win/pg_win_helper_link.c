/* SPDX-License-Identifier: MIT */
/* pg_win_helper_link.c - where the Windows service's helper proxy gets its
 * connection: a helper it starts in the active console session
 * (pg_win_session.h), restarted when it died, was marked stale, or the
 * console session changed. The proxy itself is portable
 * (broker/platform/helper/pg_helper.h); see pg_win_helper.h for the contract.
 */
#include <windows.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_helper.h"
#include "pg_win_helper.h"
#include "pg_win_session.h"

#define HELPER_TIP "the service restarts its session helper on the next request; if this repeats, check the service log"

typedef struct {
    pg_win_helper_launch how; /* exe/args point to the copies below */
    char *exe, *args;
    bool can_launch;          /* false: a link over a given connection */
    pg_win_helper_child child; /* child.conn NULL: no helper */
    volatile LONG stale;
    unsigned launches;
} link;

static char *dup_or_null(const char *s, bool *oom) {
    char *d = s ? _strdup(s) : NULL;
    if (s && !d) *oom = true;
    return d;
}

static link *link_new(const pg_win_helper_launch *how) {
    link *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    bool oom = false;
    l->exe = dup_or_null(how ? how->exe : NULL, &oom);
    l->args = dup_or_null(how ? how->args : NULL, &oom);
    if (oom) {
        free(l->exe), free(l->args), free(l);
        return NULL;
    }
    l->how.exe = l->exe;
    l->how.args = l->args;
    l->how.connect_timeout_ms = how && how->connect_timeout_ms ? how->connect_timeout_ms : PG_WIN_HELPER_CONNECT_MS;
    l->how.call_timeout_ms = how && how->call_timeout_ms ? how->call_timeout_ms : PG_HELPER_CALL_MS;
    l->how.own_session = how && how->own_session;
    return l;
}

/* Stops the current helper (if any) and starts one. */
static pg_err launch(link *l, pg_error *e) {
    pg_win_session_stop(&l->child);
    pg_err rc = pg_win_session_launch(&l->how, &l->child, e);
    if (!rc) l->launches++;
    return rc;
}

static bool needs_launch(link *l) {
    if (InterlockedExchange(&l->stale, 0)) return true;
    if (!l->child.conn) return true;
    if (l->child.process && !pg_win_session_alive(&l->child)) return true;
    uint32_t active = pg_win_session_active();
    return l->child.session != PG_WIN_NO_SESSION && active != PG_WIN_NO_SESSION && active != l->child.session;
}

/* ------------------------------------------------------ the link's ops */

/* A running, connected helper: the current one, else (once) a new one. */
static pg_err link_ensure(void *ctx, pg_conn **conn, pg_error *e) {
    link *l = ctx;
    pg_err rc = PG_OK;
    if (needs_launch(l)) {
        if (l->can_launch) rc = launch(l, e);
        else {
            pg_win_session_stop(&l->child);
            rc = pg_error_set(e, PG_E_UNREACHABLE, HELPER_TIP, "session helper connection is closed");
        }
    }
    *conn = rc ? NULL : l->child.conn;
    return rc;
}

static void link_stop(void *ctx) { pg_win_session_stop(&((link *)ctx)->child); }

/* The helper this link started is gone (its pipe closed, or its process
 * ended). A link over a given connection (tests) is never lost. */
static bool link_gone(void *ctx, char *why, size_t n) {
    link *l = ctx;
    bool gone = l->launches > 0 && (!l->child.conn || (l->child.process && !pg_win_session_alive(&l->child)));
    if (gone) snprintf(why, n, "the session helper is gone (pid %lu, launch %u)", (unsigned long)l->child.pid, l->launches);
    return gone;
}

static void link_describe(void *ctx, char *out, size_t cap) {
    link *l = ctx;
    snprintf(out, cap, "%s, pid %lu, launch %u", l->child.path, (unsigned long)l->child.pid, l->launches);
}

static void link_free(void *ctx) {
    link *l = ctx;
    pg_win_session_stop(&l->child);
    free(l->exe), free(l->args), free(l);
}

static const pg_helper_link_ops win_link = {
    .ensure = link_ensure, .stop = link_stop, .gone = link_gone, .describe = link_describe,
    .filter = NULL, /* the interactive session is one user's: every window is theirs */
    .free = link_free, .tip = HELPER_TIP};

/* --------------------------------------------------------- the public API */

const pg_platform_ops *pg_win_helper_ops(void) { return pg_helper_ops(); }

pg_err pg_win_helper_proxy_open(pg_platform **out, const pg_win_helper_launch *how, pg_error *e) {
    *out = NULL;
    link *l = link_new(how);
    if (!l) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    l->can_launch = true;
    pg_err rc = launch(l, e);
    if (rc) {
        link_free(l);
        return rc;
    }
    return pg_helper_proxy_new(out, &win_link, l, l->how.call_timeout_ms, e);
}

pg_err pg_win_helper_proxy_from_conn(pg_platform **out, pg_conn *conn, uint32_t call_timeout_ms, pg_error *e) {
    *out = NULL;
    link *l = link_new(NULL);
    if (!l) {
        pg_conn_close(conn);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    }
    l->child.conn = conn;
    l->child.session = PG_WIN_NO_SESSION;
    snprintf(l->child.path, sizeof l->child.path, "given connection");
    return pg_helper_proxy_new(out, &win_link, l, call_timeout_ms, e);
}

/* The portable proxy's open, on Windows: a helper in the console session. */
pg_err pg_helper_link_open(pg_platform **out, const char *display, pg_error *e) {
    *out = NULL;
    if (display && display[0])
        return pg_error_set(e, PG_E_USAGE, "leave the display empty on Windows",
                            "session helper: display \"%s\" given; the helper follows the console session",
                            display);
    return pg_win_helper_proxy_open(out, NULL, e);
}

static pg_err relaunch_locked(void *ctx, void *arg, pg_error *e) {
    (void)arg;
    link *l = ctx;
    return l->can_launch ? launch(l, e)
                         : pg_error_set(e, PG_E_UNSUPPORTED, NULL, "this helper proxy cannot start a helper");
}

pg_err pg_win_helper_relaunch(pg_platform *p, pg_error *e) { return pg_helper_proxy_locked(p, relaunch_locked, NULL, e); }

void pg_win_helper_mark_stale(pg_platform *p) {
    InterlockedExchange(&((link *)pg_helper_proxy_link(p))->stale, 1);
}

static pg_err read_pid(void *ctx, void *arg, pg_error *e) {
    (void)e;
    link *l = ctx;
    *(uint32_t *)arg = l->child.conn ? l->child.pid : 0;
    return PG_OK;
}

uint32_t pg_win_helper_pid(pg_platform *p) {
    uint32_t pid = 0;
    pg_helper_proxy_locked(p, read_pid, &pid, NULL);
    return pid;
}

typedef struct {
    char *out;
    size_t cap;
} text_out;

static pg_err read_path(void *ctx, void *arg, pg_error *e) {
    (void)e;
    text_out *t = arg;
    snprintf(t->out, t->cap, "%s", ((link *)ctx)->child.path);
    return PG_OK;
}

void pg_win_helper_launch_path(pg_platform *p, char *out, size_t cap) {
    text_out t = {out, cap};
    pg_helper_proxy_locked(p, read_path, &t, NULL);
}

void pg_win_helper_capture_fallback(pg_platform *p, char *out, size_t cap) {
    pg_helper_proxy_capture_fallback(p, out, cap);
}
