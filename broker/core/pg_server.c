/* SPDX-License-Identifier: MIT */
/* Workers, the wait queue and refusals, the same on every platform; see
 * pg_server.h. The listeners are broker/os/posix/pg_posix_listener.c and
 * broker/os/win/pg_win_listener.c. */
#include "pg_dispatch.h"
#include "pg_server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pg_log.h"
#include "pg_time.h"

#define REFUSE_MS 500      /* reading a refused request, and draining after the answer */
#define REFUSALS_MAX 64    /* refusals waiting for the keeper; beyond, a connection is just closed */

typedef struct conn_item {
    pg_broker *b;
    pg_conn *conn;
    pg_peer peer;
    bool admitted;          /* a client of the policy when it connected */
    pg_deadline deadline;   /* while waiting */
    pg_err why;             /* refusing: PG_E_BUSY */
    char message[160];      /* refusing: which limit */
    struct conn_item *next;
} conn_item;

typedef struct {
    uint32_t uid;
    unsigned served, waiting;
} uid_count;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    bool configured, keeper_started, stopping;
    pg_server_limits lim;
    unsigned served, outsiders, waiting, refusing;
    uint64_t refused_busy;
    conn_item *wait_head, *wait_tail; /* FIFO of admitted connections waiting for a worker */
    conn_item *refuse_head, *refuse_tail;
    uid_count *uids;                  /* one per uid with a connection; n_uids in use */
    size_t n_uids, cap_uids;
} S = {.lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER};

void pg_server_limits_default(pg_server_limits *l, unsigned max_conns) {
    if (max_conns == 0) max_conns = 1;
    l->max_conns = max_conns;
    l->queue_max = 2 * max_conns;
    l->queue_wait_ms = 15000;
    l->uid_served_max = max_conns - max_conns / 4;
    l->uid_max = l->uid_served_max + l->queue_max - l->queue_max / 4;
    l->outsider_max = max_conns / 8 ? max_conns / 8 : 1;
    l->io_timeout_ms = 30000;
}

void pg_server_configure(const pg_server_limits *l) {
    pthread_mutex_lock(&S.lock);
    S.lim = *l;
    S.configured = true;
    pthread_mutex_unlock(&S.lock);
}

void pg_server_get_stats(pg_server_stats *s) {
    pthread_mutex_lock(&S.lock);
    *s = (pg_server_stats){S.served, S.waiting, S.outsiders, S.refusing, S.refused_busy};
    pthread_mutex_unlock(&S.lock);
}

/* ---- per-uid counts (lock held) ---- */

static uid_count *uid_of(uint32_t uid) {
    for (size_t i = 0; i < S.n_uids; i++)
        if (S.uids[i].uid == uid) return &S.uids[i];
    if (S.n_uids == S.cap_uids) {
        size_t cap = S.cap_uids ? 2 * S.cap_uids : 16;
        uid_count *v = realloc(S.uids, cap * sizeof *v);
        if (!v) return NULL;
        S.uids = v;
        S.cap_uids = cap;
    }
    S.uids[S.n_uids] = (uid_count){.uid = uid};
    return &S.uids[S.n_uids++];
}

static void uid_forget_if_idle(uint32_t uid) {
    for (size_t i = 0; i < S.n_uids; i++)
        if (S.uids[i].uid == uid && S.uids[i].served == 0 && S.uids[i].waiting == 0) {
            S.uids[i] = S.uids[--S.n_uids];
            return;
        }
}

/* ---- answering ---- */

/* att: bytes a check released with its outcome (accept's report page), or NULL. */
static void send_error(pg_conn *conn, uint64_t id, const pg_error *err, cJSON *details, const pg_blob *att) {
    cJSON *resp = pg_proto_response_err(id, err, details);
    pg_error ignored;
    if (resp) pg_proto_write(conn, resp, att, att ? 1 : 0, &ignored);
    cJSON_Delete(resp);
}

/* Reads the refused request (so its id is answered and the client's write
 * completes), answers BUSY, and shuts the connection down cleanly. */
static void refuse_now(conn_item *it) {
    pg_conn_set_timeout(it->conn, REFUSE_MS);
    pg_conn_limit(it->conn, REFUSE_MS);
    pg_proto_limits lim;
    pg_proto_limits_default(&lim);
    pg_frame_head h;
    pg_msg m = {0};
    pg_error ie;
    uint64_t id = 0;
    if (pg_proto_read_prefix(it->conn, &lim, &h, &ie) == PG_OK && pg_proto_read_header(it->conn, &h, &m, &ie) == PG_OK) {
        pg_request req;
        if (pg_proto_parse_request(m.header, &req, &ie) == PG_OK) id = req.id;
    }
    pg_msg_fini(&m);
    pg_error e;
    pg_error_set(&e, it->why, NULL, "%s", it->message);
    pg_conn_limit(it->conn, 0);
    send_error(it->conn, id, &e, NULL, NULL);
    pg_conn_finish(it->conn, REFUSE_MS);
    it->conn = NULL;
}

/* Hands it to the keeper for a refusal (lock held). */
static void refuse_later(conn_item *it, const char *message) {
    it->why = PG_E_BUSY;
    snprintf(it->message, sizeof it->message, "%s", message);
    S.refused_busy++;
    pg_log(PG_LOG_WARN, "busy: uid=%u: %s", (unsigned)it->peer.uid, it->message);
    if (S.refusing >= REFUSALS_MAX) { /* a flood: no more answers, just the door */
        pg_conn_close(it->conn);
        free(it);
        return;
    }
    it->next = NULL;
    if (S.refuse_tail) S.refuse_tail->next = it;
    else S.refuse_head = it;
    S.refuse_tail = it;
    S.refusing++;
    pthread_cond_broadcast(&S.changed);
}

/* ---- serving ---- */

/* How many attachments the operation can use: one per image argument. */
static uint32_t image_args(const pg_opdecl *d) {
    uint32_t n = 0;
    for (size_t i = 0; d && i < d->n_args; i++) n += d->args[i].type == PG_T_IMAGE;
    return n < PG_PROTO_MAX_ATTACH ? n : PG_PROTO_MAX_ATTACH;
}

/* Reads the attachments the admitted operation may have. */
static pg_err read_attachments(pg_call *c, pg_conn *conn, const pg_frame_head *h, pg_msg *msg, pg_error *e) {
    pg_proto_limits lim;
    pg_proto_limits_default(&lim);
    lim.max_attachments = image_args(c->op);
    if (c->view && c->view->max_input_bytes && c->view->max_input_bytes < lim.max_attachment_bytes)
        lim.max_attachment_bytes = c->view->max_input_bytes;
    return pg_proto_read_attachments(conn, h, &lim, msg, e);
}

/* Serves one request. Returns false when the connection should close;
 * *finish says it must be shut down cleanly (bytes of the request unread). */
static bool serve_one(conn_item *w, bool *finish) {
    pg_proto_limits lim;
    pg_proto_limits_default(&lim);
    pg_frame_head h;
    pg_msg msg = {0};
    pg_error e;
    pg_error_clear(&e);
    pg_err rc = pg_proto_read_prefix(w->conn, &lim, &h, &e);
    if (rc) {
        /* EOF between requests is the normal end of a connection. */
        if (rc != PG_E_UNREACHABLE && rc != PG_E_TIMEOUT) send_error(w->conn, 0, &e, NULL, NULL), *finish = true;
        return false;
    }
    pg_conn_limit(w->conn, S.lim.io_timeout_ms); /* the rest of this request, in one deadline */
    rc = pg_proto_read_header(w->conn, &h, &msg, &e);
    if (rc) {
        if (rc != PG_E_UNREACHABLE && rc != PG_E_TIMEOUT) send_error(w->conn, 0, &e, NULL, NULL), *finish = true;
        pg_msg_fini(&msg);
        return false;
    }
    int64_t t0 = pg_mono_us();
    pg_request req;
    memset(&req, 0, sizeof req);
    pg_call call = {.b = w->b, .peer = &w->peer, .req = &req, .msg = &msg, .conn = w->conn,
                    .policy = pg_broker_policy(w->b)};
    bool keep = true;
    rc = pg_proto_parse_request(msg.header, &req, &e);
    if (!rc && pg_dispatch_begin(&call, &e) == PG_OK) {
        pg_err arc = read_attachments(&call, w->conn, &h, &msg, &e);
        if (arc) { /* the stream is out of step now: answer, then close */
            rc = arc;
            keep = false;
        }
    } else if (!rc) {
        keep = false; /* refused at admission: answered, then closed (its attachments unread) */
    } else {
        keep = false;
    }
    if (!rc) rc = pg_dispatch(&call, &e);
    pg_policy_free(call.policy);
    pg_conn_limit(w->conn, 0);
    if (rc) {
        pg_log(PG_LOG_INFO, "uid=%u pid=%d op=%s -> %s: %s", (unsigned)w->peer.uid, (int)w->peer.pid,
               req.op[0] ? req.op : "?", pg_err_name(rc), e.message);
        /* A check that said no keeps what it released (the report page of a failed accept). */
        send_error(w->conn, req.id, &e, call.details,
                   PG_ERR_IS_VERDICT(rc) && call.reply_att.data ? &call.reply_att : NULL);
        cJSON_Delete(call.result);
        if (!keep) *finish = true;
    } else {
        pg_log(PG_LOG_DEBUG, "uid=%u op=%s ok in %lld us", (unsigned)w->peer.uid, req.op,
               (long long)(pg_mono_us() - t0));
        cJSON_Delete(call.details);
        cJSON *resp = pg_proto_response_ok(req.id, call.result);
        keep = keep && resp &&
               pg_proto_write(w->conn, resp, &call.reply_att, call.reply_att.data ? 1 : 0, &e) == PG_OK;
        cJSON_Delete(resp);
    }
    free(call.reply_att.data);
    pg_msg_fini(&msg);
    return keep;
}

/* The next waiter a free worker may take (lock held): the oldest whose uid
 * is below its served limit. */
static conn_item *take_waiter(void) {
    for (conn_item **p = &S.wait_head, *prev = NULL; *p; prev = *p, p = &(*p)->next) {
        conn_item *it = *p;
        uid_count *u = uid_of(it->peer.uid);
        if (u && u->served >= S.lim.uid_served_max) continue;
        *p = it->next;
        if (S.wait_tail == it) S.wait_tail = prev;
        S.waiting--;
        if (u) u->waiting--, u->served++;
        S.served++;
        return it;
    }
    return NULL;
}

static void *worker(void *arg) {
    conn_item *w = arg;
    while (w) {
        bool finish = false;
        while (serve_one(w, &finish)) {
        }
        pg_broker_release_held(w->b, w->conn); /* nothing stays pressed after its connection */
        pg_broker_person_conn_gone(w->b, w->conn); /* nor a lease taken for it (lease --connection) */
        if (finish) pg_conn_finish(w->conn, REFUSE_MS);
        else pg_conn_close(w->conn);
        pthread_mutex_lock(&S.lock);
        S.served--;
        if (!w->admitted) S.outsiders--;
        uid_count *u = uid_of(w->peer.uid);
        if (u) u->served--;
        uid_forget_if_idle(w->peer.uid);
        free(w);
        w = S.stopping ? NULL : take_waiter(); /* the thread lives on with the next waiter */
        /* Only the drain waits for a connection to end (the keeper waits for
         * refusals and deadlines): waking the keeper after every connection
         * cost each ping two context switches. */
        if (S.stopping) pthread_cond_broadcast(&S.changed);
        pthread_mutex_unlock(&S.lock);
    }
    return NULL;
}

bool pg_server_start_thread(void *(*fn)(void *), void *arg) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 512 * 1024);
    pthread_t t;
    bool ok = pthread_create(&t, &attr, fn, arg) == 0;
    pthread_attr_destroy(&attr);
    return ok;
}

/* The keeper: answers refusals and expires waiters, off the listener's thread. */
static void *keeper(void *arg) {
    (void)arg;
    pthread_mutex_lock(&S.lock);
    for (;;) {
        conn_item *r = S.refuse_head;
        if (r) {
            S.refuse_head = r->next;
            if (!S.refuse_head) S.refuse_tail = NULL;
            pthread_mutex_unlock(&S.lock);
            refuse_now(r);
            pthread_mutex_lock(&S.lock);
            S.refusing--;
            uid_forget_if_idle(r->peer.uid);
            free(r);
            pthread_cond_broadcast(&S.changed);
            continue;
        }
        /* Waiters past their deadline are refused; the rest wait on. */
        uint32_t next_ms = 1000;
        for (conn_item **p = &S.wait_head, *prev = NULL; *p;) {
            conn_item *it = *p;
            uint32_t left = pg_deadline_left_ms(it->deadline);
            if (left > 0 && !S.stopping) {
                if (left < next_ms) next_ms = left;
                prev = it, p = &it->next;
                continue;
            }
            *p = it->next;
            if (S.wait_tail == it) S.wait_tail = prev;
            S.waiting--;
            uid_count *u = uid_of(it->peer.uid);
            if (u) u->waiting--;
            char why[160];
            snprintf(why, sizeof why, "broker busy: every worker stayed busy for the %u ms a connection may wait",
                     (unsigned)S.lim.queue_wait_ms);
            refuse_later(it, S.stopping ? "broker stopping: not served (it waited for a worker)" : why);
        }
        if (S.refuse_head) continue;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += next_ms / 1000;
        until.tv_nsec += (long)(next_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&S.changed, &S.lock, &until);
    }
    return NULL;
}

/* Admission into the counts: the item to serve now (S.served counts it),
 * or NULL when the connection was queued, refused or closed. */
static conn_item *admit(pg_broker *b, pg_conn *conn, const pg_peer *peer, unsigned max_conns) {
    conn_item *it = calloc(1, sizeof *it);
    if (!it) {
        pg_conn_close(conn);
        return NULL;
    }
    it->b = b;
    it->conn = conn;
    it->peer = *peer;
    it->admitted = pg_dispatch_admitted(b, peer); /* outside the lock: it reads the user databases */
    pthread_mutex_lock(&S.lock);
    if (!S.configured) {
        pg_server_limits_default(&S.lim, max_conns);
        S.configured = true;
    }
    if (!S.keeper_started) S.keeper_started = pg_server_start_thread(keeper, NULL);
    const pg_server_limits *L = &S.lim;
    uid_count *u = uid_of(peer->uid);
    bool serve = false;
    if (!u || !S.keeper_started) {
        pthread_mutex_unlock(&S.lock);
        pg_conn_close(conn);
        free(it);
        return NULL;
    }
    char why[160] = "";
    /* A connection accepted while the broker stops is still served when a
     * worker is free: it left the socket's backlog, where (under socket
     * activation) the next broker would have served it. Only one that
     * would have to wait is refused. */
    if (!it->admitted) {
        if (S.outsiders >= L->outsider_max || S.served >= L->max_conns)
            snprintf(why, sizeof why,
                     "broker busy: connections of users the policy does not admit are limited to %u at once",
                     L->outsider_max);
        else
            serve = true, S.outsiders++;
    } else if (u->served + u->waiting >= L->uid_max) {
        snprintf(why, sizeof why, "broker busy: your user already has %u connections served or waiting (the limit "
                 "per user)", L->uid_max);
    } else if (S.served < L->max_conns && u->served < L->uid_served_max) {
        serve = true;
    } else if (S.stopping) {
        snprintf(why, sizeof why, "broker stopping: not served");
    } else if (S.waiting >= L->queue_max) {
        snprintf(why, sizeof why, "broker busy: every worker is busy and %u connections already wait", L->queue_max);
    } else {
        it->deadline = pg_deadline_in_ms(L->queue_wait_ms);
        if (S.wait_tail) S.wait_tail->next = it;
        else S.wait_head = it;
        S.wait_tail = it;
        S.waiting++;
        u->waiting++;
        pthread_cond_broadcast(&S.changed);
    }
    if (why[0]) refuse_later(it, why);
    if (serve) {
        S.served++;
        u->served++;
    }
    pthread_mutex_unlock(&S.lock);
    return serve ? it : NULL;
}

void pg_server_serve_here(pg_broker *b, pg_conn *conn, const pg_peer *peer, unsigned max_conns) {
    conn_item *it = admit(b, conn, peer, max_conns);
    if (it) worker(it);
}

void pg_server_start_worker(pg_broker *b, pg_conn *conn, const pg_peer *peer, unsigned max_conns) {
    conn_item *it = admit(b, conn, peer, max_conns);
    if (it && !pg_server_start_thread(worker, it)) {
        pthread_mutex_lock(&S.lock);
        S.served--;
        uid_count *u = uid_of(peer->uid);
        if (u) u->served--;
        if (!it->admitted) S.outsiders--;
        refuse_later(it, "broker busy: no thread for this connection");
        pthread_mutex_unlock(&S.lock);
    }
}

void pg_server_drain(unsigned wait_ms) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += wait_ms / 1000;
    pthread_mutex_lock(&S.lock);
    S.stopping = true;
    pthread_cond_broadcast(&S.changed);
    while ((S.served > 0 || S.waiting > 0 || S.refusing > 0) &&
           pthread_cond_timedwait(&S.changed, &S.lock, &until) == 0) {
    }
    unsigned left = S.served;
    pthread_mutex_unlock(&S.lock);
    if (left) pg_log(PG_LOG_WARN, "%u connections still open at shutdown", left);
}
