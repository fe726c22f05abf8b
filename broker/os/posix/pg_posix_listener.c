/* SPDX-License-Identifier: MIT */
/* The POSIX listener: a Unix socket whose peers the kernel names
 * (SO_PEERCRED, pg_posix_peer.c). See pg_posix_listener.h. */
#include "pg_posix_listener.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "pg_log.h"
#include "pg_posix_peer.h"
#include "pg_server.h"

static pg_err bind_socket(const pg_posix_listener_opts *o, int *out, pg_error *e) {
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
    if (rc != 0 || listen(fd, 512) != 0) {
        int err = errno;
        close(fd);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot listen on %s: %s", o->socket_path, strerror(err));
    }
    *out = fd;
    return PG_OK;
}

/* ---- acceptors: threads that accept and serve (leader and followers) ----
 *
 * One acceptor at a time (the leader) waits on the socket; the others wait
 * to lead. The leader that accepts a connection hands the lead to a
 * follower (starting one when none waits) and serves the connection itself,
 * so a request is answered by the thread that the connection woke: no
 * hand-off to a new thread, whose wake-up on an idle core cost ~0.1-0.2 ms
 * of every ping on the 2-core machines bench/h2h measures. After serving it
 * goes back to following, or ends when enough others already wait. */
#define FOLLOWERS_KEPT 2 /* acceptors idle at most; the rest end after serving */

typedef struct {
    pg_broker *b;
    const pg_posix_listener_opts *o;
    int lfd;
    volatile sig_atomic_t *stop;
    pthread_mutex_t lock;
    pthread_cond_t changed; /* the lead is free, an acceptor ended, or stop */
    bool leading;           /* someone waits on the socket */
    unsigned following;     /* acceptors waiting to lead */
    unsigned threads;       /* acceptors alive */
} acceptors;

static void serve_fd(acceptors *a, int fd) {
    pg_peer peer;
    pg_conn *conn = NULL;
    pg_error pe;
    if (pg_posix_peer_from_socket(fd, &peer, &pe) || pg_conn_from_fd(&conn, fd, a->o->io_timeout_ms, &pe)) {
        if (!conn) close(fd);
        pg_log(PG_LOG_WARN, "dropping a connection: %s", pe.message);
        return;
    }
    pg_server_serve_here(a->b, conn, &peer, a->o->max_conns);
}

/* The next connection, or -1 after a quarter second without one (or stop). */
static int next_connection(acceptors *a) {
    struct pollfd p = {.fd = a->lfd, .events = POLLIN};
    if (poll(&p, 1, 250) <= 0 || *a->stop) return -1;
    return accept4(a->lfd, NULL, NULL, SOCK_CLOEXEC); /* the socket is non-blocking: -1 if another took it */
}

static void *acceptor(void *arg);

static bool start_acceptor(acceptors *a) { return pg_server_start_thread(acceptor, a); }

static void *acceptor(void *arg) {
    acceptors *a = arg;
    pthread_mutex_lock(&a->lock);
    while (!*a->stop) {
        if (a->leading) {
            a->following++;
            pthread_cond_wait(&a->changed, &a->lock);
            a->following--;
            continue;
        }
        a->leading = true;
        pthread_mutex_unlock(&a->lock);
        int fd = next_connection(a);
        pthread_mutex_lock(&a->lock);
        a->leading = false;
        if (fd < 0) continue;
        bool spawn = a->following == 0;
        if (spawn) a->threads++;
        else pthread_cond_signal(&a->changed);
        pthread_mutex_unlock(&a->lock);
        if (spawn && !start_acceptor(a)) { /* no one accepts until this connection is done */
            pthread_mutex_lock(&a->lock);
            a->threads--;
            pthread_mutex_unlock(&a->lock);
        }
        serve_fd(a, fd);
        pthread_mutex_lock(&a->lock);
        if (a->following >= FOLLOWERS_KEPT) break;
    }
    a->threads--;
    pthread_cond_broadcast(&a->changed);
    pthread_mutex_unlock(&a->lock);
    return NULL;
}

/* Waits (at most wait_ms, rounded up to whole seconds and one more) until
 * done(a); true when it came. */
static bool wait_for(acceptors *a, bool (*done)(const acceptors *), unsigned wait_ms) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += wait_ms / 1000 + 1;
    pthread_mutex_lock(&a->lock);
    pthread_cond_broadcast(&a->changed);
    while (!done(a) && pthread_cond_timedwait(&a->changed, &a->lock, &until) == 0) {
    }
    bool came = done(a);
    pthread_mutex_unlock(&a->lock);
    return came;
}

/* Stop: every acceptor leaves the socket alone before it is closed (one in
 * poll sees the flag within its quarter second); those serving finish their
 * connection first (pg_server_drain bounds that). */
static bool off_the_socket(const acceptors *a) { return !a->leading && !a->following; }
static bool all_gone(const acceptors *a) { return a->threads == 0; }

pg_err pg_posix_listener_run(pg_broker *b, const pg_posix_listener_opts *o, volatile sig_atomic_t *stop,
                             volatile sig_atomic_t *hup, void (*on_hup)(pg_broker *b), void (*on_listening)(void),
                             pg_error *e) {
    int lfd = o->inherited_fd;
    pg_err rc = lfd >= 0 ? PG_OK : bind_socket(o, &lfd, e);
    if (rc) return rc;
    bool ours = o->inherited_fd < 0; /* only a socket we bound is ours to unlink */
    static acceptors a; /* outlives this frame for any acceptor the bounded waits below leave running */
    a = (acceptors){.b = b, .o = o, .lfd = lfd, .stop = stop, .threads = 1};
    pthread_mutex_init(&a.lock, NULL);
    pthread_cond_init(&a.changed, NULL);
    if (fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK) != 0 || !start_acceptor(&a)) {
        close(lfd);
        if (ours) unlink(o->socket_path);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot start the listener thread: %s", strerror(errno));
    }
    if (ours)
        pg_log(PG_LOG_INFO, "listening on %s (mode %04o, at most %u connections)", o->socket_path, o->socket_mode,
               o->max_conns);
    else
        pg_log(PG_LOG_INFO, "listening on the socket the service manager passed (fd %d; at most %u connections)", lfd,
               o->max_conns);
    if (on_listening) on_listening();
    while (!*stop) {
        (void)poll(NULL, 0, 250); /* signals interrupt it; the flags are looked at every quarter second */
        if (*hup) {
            *hup = 0;
            if (on_hup) on_hup(b);
        }
    }
    (void)wait_for(&a, off_the_socket, 1000);
    close(lfd);
    if (ours) unlink(o->socket_path);
    pg_server_drain(5000);
    if (!wait_for(&a, all_gone, 1000)) {
        pthread_mutex_lock(&a.lock);
        unsigned left = a.threads;
        pthread_mutex_unlock(&a.lock);
        pg_log(PG_LOG_WARN, "%u listener threads still running at shutdown", left);
    }
    return PG_OK;
}
