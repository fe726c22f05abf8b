/* Per-connection workers, the same on every platform; see pg_server.h.
 * The listeners are broker/os/posix/pg_posix_listener.c and
 * broker/os/win/pg_win_listener.c. */
#include "pg_server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pg_log.h"
#include "pg_time.h"

typedef struct {
    pg_broker *b;
    pg_conn *conn;
    pg_peer peer;
    uint32_t io_timeout_ms;
} worker_arg;

static pthread_mutex_t active_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t active_cond = PTHREAD_COND_INITIALIZER;
static unsigned active;

/* att: bytes a check released with its outcome (accept's report page), or NULL. */
static void send_error(pg_conn *conn, uint64_t id, const pg_error *err, cJSON *details, const pg_blob *att) {
    cJSON *resp = pg_proto_response_err(id, err, details);
    pg_error ignored;
    if (resp) pg_proto_write(conn, resp, att, att ? 1 : 0, &ignored);
    cJSON_Delete(resp);
}

/* Serves one request. Returns false when the connection should close. */
static bool serve_one(worker_arg *w, const pg_proto_limits *lim) {
    pg_msg msg;
    pg_error e;
    pg_error_clear(&e);
    pg_err rc = pg_proto_read(w->conn, lim, &msg, &e);
    if (rc) {
        /* EOF between requests is the normal end of a connection. */
        if (rc != PG_E_UNREACHABLE && rc != PG_E_TIMEOUT) send_error(w->conn, 0, &e, NULL, NULL);
        return false;
    }
    int64_t t0 = pg_mono_us();
    pg_request req;
    pg_call call = {.b = w->b, .peer = &w->peer, .req = &req, .msg = &msg, .conn = w->conn,
                    .policy = pg_broker_policy(w->b)};
    rc = pg_proto_parse_request(msg.header, &req, &e);
    if (!rc) rc = pg_dispatch(&call, &e);
    pg_policy_free(call.policy);
    bool keep = true;
    if (rc) {
        pg_log(PG_LOG_INFO, "uid=%u pid=%d op=%s -> %s: %s", (unsigned)w->peer.uid, (int)w->peer.pid,
               req.op[0] ? req.op : "?", pg_err_name(rc), e.message);
        /* A check that said no keeps what it released (the report page of a failed accept). */
        send_error(w->conn, req.id, &e, call.details,
                   PG_ERR_IS_VERDICT(rc) && call.reply_att.data ? &call.reply_att : NULL);
        cJSON_Delete(call.result);
    } else {
        pg_log(PG_LOG_DEBUG, "uid=%u op=%s ok in %lld us", (unsigned)w->peer.uid, req.op,
               (long long)(pg_mono_us() - t0));
        cJSON_Delete(call.details);
        cJSON *resp = pg_proto_response_ok(req.id, call.result);
        keep = resp && pg_proto_write(w->conn, resp, &call.reply_att, call.reply_att.data ? 1 : 0, &e) == PG_OK;
        cJSON_Delete(resp);
    }
    free(call.reply_att.data);
    pg_msg_fini(&msg);
    return keep;
}

static void *worker(void *arg) {
    worker_arg *w = arg;
    pg_proto_limits lim;
    pg_proto_limits_default(&lim);
    while (serve_one(w, &lim)) {
    }
    pg_conn_close(w->conn);
    free(w);
    pthread_mutex_lock(&active_lock);
    active--;
    pthread_cond_broadcast(&active_cond);
    pthread_mutex_unlock(&active_lock);
    return NULL;
}

/* Answers "busy" with a short write deadline, then closes. */
static void refuse_busy(pg_conn *conn) {
    pg_error e;
    pg_conn_set_timeout(conn, 200);
    pg_error_set(&e, PG_E_TIMEOUT, "retry in a moment", "broker busy: too many connections");
    send_error(conn, 0, &e, NULL, NULL);
    pg_conn_close(conn);
}

void pg_server_start_worker(pg_broker *b, pg_conn *conn, const pg_peer *peer, unsigned max_conns) {
    worker_arg *w = calloc(1, sizeof *w);
    if (!w) {
        pg_conn_close(conn);
        return;
    }
    w->b = b;
    w->conn = conn;
    w->peer = *peer;
    pthread_mutex_lock(&active_lock);
    bool full = active >= max_conns;
    if (!full) active++;
    pthread_mutex_unlock(&active_lock);
    if (full) {
        pg_log(PG_LOG_WARN, "busy: refusing uid=%u (%u connections)", (unsigned)w->peer.uid, max_conns);
        refuse_busy(w->conn);
        free(w);
        return;
    }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 512 * 1024);
    pthread_t t;
    if (pthread_create(&t, &attr, worker, w) != 0) {
        pg_conn_close(w->conn);
        free(w);
        pthread_mutex_lock(&active_lock);
        active--;
        pthread_mutex_unlock(&active_lock);
    }
    pthread_attr_destroy(&attr);
}

void pg_server_drain(unsigned wait_ms) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += wait_ms / 1000;
    pthread_mutex_lock(&active_lock);
    while (active > 0 && pthread_cond_timedwait(&active_cond, &active_lock, &until) == 0) {
    }
    unsigned left = active;
    pthread_mutex_unlock(&active_lock);
    if (left) pg_log(PG_LOG_WARN, "%u connections still open at shutdown", left);
}

