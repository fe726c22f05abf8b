/* Listener and per-connection workers; see pg_server.h. */
#include "pg_server.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "pg_log.h"

typedef struct {
    pg_broker *b;
    pg_conn *conn;
    pg_peer peer;
    uint32_t io_timeout_ms;
} worker_arg;

static pthread_mutex_t active_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t active_cond = PTHREAD_COND_INITIALIZER;
static unsigned active;

pg_err pg_peer_from_socket(int fd, pg_peer *p, pg_error *e) {
    struct ucred cr;
    socklen_t len = sizeof cr;
    memset(p, 0, sizeof *p);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0)
        return pg_error_set(e, PG_E_INTERNAL, NULL, "SO_PEERCRED: %s", strerror(errno));
    p->uid = cr.uid;
    p->gid = cr.gid;
    p->pid = cr.pid;
    struct passwd pw, *res = NULL;
    char buf[1024];
    if (getpwuid_r(cr.uid, &pw, buf, sizeof buf, &res) == 0 && res)
        snprintf(p->user, sizeof p->user, "%s", pw.pw_name);
    else
        snprintf(p->user, sizeof p->user, "%u", (unsigned)cr.uid);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/exe", (int)cr.pid);
    ssize_t n = readlink(path, p->exe, sizeof p->exe - 1); /* readable only for our own uid */
    p->exe[n > 0 ? n : 0] = '\0';
    snprintf(path, sizeof path, "/proc/%d/comm", (int)cr.pid);
    FILE *f = fopen(path, "re");
    if (f) {
        if (fgets(p->comm, sizeof p->comm, f)) p->comm[strcspn(p->comm, "\n")] = '\0';
        fclose(f);
    }
    return PG_OK;
}

static void send_error(pg_conn *conn, uint64_t id, const pg_error *err, cJSON *details) {
    cJSON *resp = pg_proto_response_err(id, err, details);
    pg_error ignored;
    if (resp) pg_proto_write(conn, resp, NULL, 0, &ignored);
    cJSON_Delete(resp);
}

static int64_t mono_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Serves one request. Returns false when the connection should close. */
static bool serve_one(worker_arg *w, const pg_proto_limits *lim) {
    pg_msg msg;
    pg_error e;
    pg_error_clear(&e);
    pg_err rc = pg_proto_read(w->conn, lim, &msg, &e);
    if (rc) {
        /* EOF between requests is the normal end of a connection. */
        if (rc != PG_E_UNREACHABLE && rc != PG_E_TIMEOUT) send_error(w->conn, 0, &e, NULL);
        return false;
    }
    int64_t t0 = mono_us();
    pg_request req;
    pg_call call = {.b = w->b, .peer = &w->peer, .req = &req, .msg = &msg, .policy = pg_broker_policy(w->b)};
    rc = pg_proto_parse_request(msg.header, &req, &e);
    if (!rc) rc = pg_dispatch(&call, &e);
    pg_policy_free(call.policy);
    bool keep = true;
    if (rc) {
        pg_log(PG_LOG_INFO, "uid=%u pid=%d op=%s -> %s: %s", (unsigned)w->peer.uid, (int)w->peer.pid,
               req.op[0] ? req.op : "?", pg_err_name(rc), e.message);
        send_error(w->conn, req.id, &e, call.details);
        cJSON_Delete(call.result);
    } else {
        pg_log(PG_LOG_DEBUG, "uid=%u op=%s ok in %lld us", (unsigned)w->peer.uid, req.op,
               (long long)(mono_us() - t0));
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

static pg_err bind_socket(const pg_server_opts *o, int *out, pg_error *e) {
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(o->socket_path) >= sizeof sa.sun_path)
        return pg_error_set(e, PG_E_USAGE, NULL, "socket path too long: %s", o->socket_path);
    strcpy(sa.sun_path, o->socket_path);
    struct stat st;
    /* Replace a stale socket of ours, never another kind of file. */
    if (lstat(o->socket_path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode))
            return pg_error_set(e, PG_E_BADINPUT, NULL, "%s exists and is not a socket", o->socket_path);
        unlink(o->socket_path);
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return pg_error_set(e, PG_E_INTERNAL, NULL, "socket: %s", strerror(errno));
    /* The socket is born with its final mode: no window where it is wider. */
    mode_t old = umask(0777 & ~o->socket_mode);
    int rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
    umask(old);
    if (rc != 0 || listen(fd, 64) != 0) {
        int err = errno;
        close(fd);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot listen on %s: %s", o->socket_path, strerror(err));
    }
    *out = fd;
    return PG_OK;
}

/* Answers "busy" with a short write deadline, then closes. */
static void refuse_busy(pg_conn *conn) {
    pg_error e;
    pg_conn_set_timeout(conn, 200);
    pg_error_set(&e, PG_E_TIMEOUT, "retry in a moment", "broker busy: too many connections");
    send_error(conn, 0, &e, NULL);
    pg_conn_close(conn);
}

static void start_worker(pg_broker *b, int fd, const pg_server_opts *o) {
    worker_arg *w = calloc(1, sizeof *w);
    pg_error e;
    if (!w || pg_peer_from_socket(fd, &w->peer, &e) || pg_conn_from_fd(&w->conn, fd, o->io_timeout_ms, &e)) {
        if (w && !w->conn) close(fd);
        free(w);
        return;
    }
    w->b = b;
    pthread_mutex_lock(&active_lock);
    bool full = active >= o->max_conns;
    if (!full) active++;
    pthread_mutex_unlock(&active_lock);
    if (full) {
        pg_log(PG_LOG_WARN, "busy: refusing uid=%u (%u connections)", (unsigned)w->peer.uid, o->max_conns);
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

static void drain(unsigned wait_ms) {
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

pg_err pg_server_run(pg_broker *b, const pg_server_opts *o, volatile sig_atomic_t *stop, volatile sig_atomic_t *hup,
                     void (*on_hup)(pg_broker *b), void (*on_listening)(void), pg_error *e) {
    int lfd;
    pg_err rc = bind_socket(o, &lfd, e);
    if (rc) return rc;
    pg_log(PG_LOG_INFO, "listening on %s (mode %04o, at most %u connections)", o->socket_path, o->socket_mode,
           o->max_conns);
    if (on_listening) on_listening();
    time_t last_sweep = time(NULL);
    while (!*stop) {
        struct pollfd p = {.fd = lfd, .events = POLLIN};
        int r = poll(&p, 1, 250);
        if (*hup) {
            *hup = 0;
            if (on_hup) on_hup(b);
        }
        if (time(NULL) - last_sweep >= 10) {
            pg_tok_sweep(b->tokens);
            last_sweep = time(NULL);
        }
        if (r <= 0) continue;
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) continue;
        start_worker(b, fd, o);
    }
    close(lfd);
    unlink(o->socket_path);
    drain(5000);
    return PG_OK;
}
