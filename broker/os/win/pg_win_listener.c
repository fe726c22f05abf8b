/* SPDX-License-Identifier: MIT */
/* pg_win_listener.c - the named-pipe listener; see pg_win_listener.h. */
#include "pg_win_listener.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pg_log.h"
#include "pg_server.h"
#include "pg_win_peer.h"
#include "pg_win_pipe_server.h"
#include "pg_win_sid.h"

#define SID_AUTHENTICATED_USERS "S-1-5-11"

static bool resolve_name(const char *name, char sid_out[192]) {
    wchar_t w[512];
    if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, name, -1, w, 512) <= 0) return false;
    BYTE sid[SECURITY_MAX_SID_SIZE];
    DWORD sl = sizeof sid, dl = 256;
    wchar_t dom[256];
    SID_NAME_USE use;
    pg_error e;
    if (!LookupAccountNameW(NULL, w, sid, &sl, dom, &dl, &use)) return false;
    return pg_win_sid_format(sid, sid_out, &e) == PG_OK;
}

static void add_names(const char *const *names, size_t n, char (*sids)[192], size_t max, size_t *count) {
    for (size_t i = 0; i < n && *count < max; i++) {
        char sid[PG_WIN_SID_STR_MAX];
        if (!strcmp(names[i], "*")) snprintf(sid, sizeof sid, "%s", SID_AUTHENTICATED_USERS);
        else if (!resolve_name(names[i], sid)) {
            pg_log(PG_LOG_WARN, "policy names \"%s\", which Windows does not know: left out of the pipe's DACL",
                   names[i]);
            continue;
        }
        bool dup = false;
        for (size_t k = 0; k < *count && !dup; k++) dup = pg_win_sid_str_equal(sids[k], sid) != 0;
        if (!dup) snprintf(sids[(*count)++], PG_WIN_SID_STR_MAX, "%s", sid);
    }
}

void pg_win_listener_principals(const pg_policy *p, char (*sids)[192], size_t max, size_t *n) {
    pg_policy_principals pp;
    pg_policy_principals_get(p, &pp);
    *n = 0;
    add_names(pp.users, pp.n_users, sids, max, n);
    add_names(pp.groups, pp.n_groups, sids, max, n);
    add_names(pp.approvers, pp.n_approvers, sids, max, n);
}

static pg_err open_pipe(pg_broker *b, const pg_win_listener_opts *o, pg_win_pipe_server **srv, pg_error *e) {
    char sids[PG_WIN_PIPE_MAX_PRINCIPALS][PG_WIN_SID_STR_MAX];
    const char *ptrs[PG_WIN_PIPE_MAX_PRINCIPALS];
    size_t n = 0;
    pg_policy *p = pg_broker_policy(b);
    pg_win_listener_principals(p, sids, PG_WIN_PIPE_MAX_PRINCIPALS, &n);
    bool remote = pg_policy_settings_get(p)->remote_clients;
    pg_policy_free(p);
    for (size_t i = 0; i < n; i++) ptrs[i] = sids[i];
    char sddl[PG_WIN_PIPE_MAX_PRINCIPALS * 220 + 256];
    pg_err rc = pg_win_pipe_server_sddl(o->service_sid, ptrs, n, sddl, sizeof sddl, e);
    if (rc) return rc;
    pg_log(PG_LOG_INFO, "pipe %s DACL %s%s", o->pipe_name, sddl, remote ? " (remote clients admitted)" : "");
    return pg_win_pipe_server_open(srv, o->pipe_name, sddl, remote, e);
}

static void serve_client(pg_broker *b, const pg_win_listener_opts *o, pg_conn *conn, pg_win_client_id *id) {
    pg_peer peer;
    pg_error e;
    pg_error_clear(&e);
    if (pg_win_peer_from_client(id, &peer, &e)) {
        pg_log(PG_LOG_WARN, "dropping pipe client pid %u: %s", (unsigned)id->pid, e.message);
        pg_conn_close(conn);
        return;
    }
    pg_server_start_worker(b, conn, &peer, o->max_conns);
}

pg_err pg_win_listener_run(pg_broker *b, const pg_win_listener_opts *o, HANDLE stop, HANDLE reload,
                           void (*on_listening)(void *ctx), void *ctx, pg_error *e) {
    pg_win_pipe_server *srv = NULL;
    pg_err rc = open_pipe(b, o, &srv, e);
    if (rc) return rc;
    pg_log(PG_LOG_INFO, "listening on %s (at most %u connections)", o->pipe_name, o->max_conns);
    if (on_listening) on_listening(ctx);
    time_t last_sweep = time(NULL);
    while (WaitForSingleObject(stop, 0) != WAIT_OBJECT_0) {
        pg_conn *conn = NULL;
        pg_win_client_id id = {0};
        pg_error ae;
        pg_error_clear(&ae);
        pg_err arc = pg_win_pipe_server_accept(srv, stop, 250, o->io_timeout_ms, &conn, &id, &ae);
        if (reload && WaitForSingleObject(reload, 0) == WAIT_OBJECT_0) pg_broker_reload(b);
        if (time(NULL) - last_sweep >= 10) {
            pg_tok_sweep(b->tokens);
            last_sweep = time(NULL);
        }
        if (arc == PG_OK && conn) serve_client(b, o, conn, &id);
        else if (arc != PG_OK && arc != PG_E_TIMEOUT) pg_log(PG_LOG_WARN, "pipe: %s", ae.message);
        pg_win_client_id_free(&id);
    }
    pg_win_pipe_server_close(srv);
    pg_server_drain(5000);
    return PG_OK;
}
