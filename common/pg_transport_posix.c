/* SPDX-License-Identifier: MIT */
/* pg_transport over a Unix stream socket. PLATFORM SHIM (see pg_transport_win.c).
 * Every read and write that has to wait does so with poll() against one
 * deadline per call (or the caller's, pg_conn_read_until), so a stuck peer
 * costs at most the connection's timeout; one that need not wait (bytes
 * already there, room in the socket) makes no poll at all. */
#include <errno.h>
#include <stdbool.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "pg_time.h"
#include "pg_transport.h"

struct pg_conn {
    int fd;
    uint32_t timeout_ms;
    bool limited;       /* a deadline over several calls is set (pg_conn_limit) */
    pg_deadline limit;
};

const char *pg_transport_default_address(void) { return "/run/pixelgate/broker.sock"; }

void pg_conn_set_timeout(pg_conn *c, uint32_t timeout_ms) { c->timeout_ms = timeout_ms; }

uint32_t pg_conn_timeout(const pg_conn *c) { return c->timeout_ms; }
void pg_conn_limit(pg_conn *c, uint32_t ms) {
    c->limited = ms > 0;
    c->limit = pg_deadline_in_ms(ms);
}

/* The deadline of one call: its own timeout, or the request's if sooner. */
static pg_deadline call_deadline(const pg_conn *c) {
    pg_deadline d = pg_deadline_in_ms(c->timeout_ms);
    return c->limited && c->limit.us < d.us ? c->limit : d;
}

pg_err pg_conn_from_fd(pg_conn **out, int fd, uint32_t timeout_ms, pg_error *e) {
    pg_conn *c = calloc(1, sizeof *c);
    if (!c) {
        close(fd);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    }
    c->fd = fd;
    c->timeout_ms = timeout_ms;
    *out = c;
    return PG_OK;
}

/* Waits until fd is ready for events or the deadline passes. */
static pg_err wait_ready(pg_conn *c, short events, pg_deadline deadline, pg_error *e) {
    for (;;) {
        uint32_t left = pg_deadline_left_ms(deadline);
        if (left == 0)
            return pg_error_set(e, PG_E_TIMEOUT, NULL, "peer did not respond within %u ms%s", c->timeout_ms,
                                c->limited ? " (or its request took longer than allowed in total)" : "");
        struct pollfd p = {.fd = c->fd, .events = events};
        int r = poll(&p, 1, (int)left);
        if (r > 0) return PG_OK;
        if (r < 0 && errno != EINTR) return pg_error_set(e, PG_E_INTERNAL, NULL, "poll: %s", strerror(errno));
    }
}

/* After a recv/send that moved nothing (errno set): wait while the socket
 * would block, go again after a signal, else the peer is gone. */
static pg_err wait_or_fail(pg_conn *c, short events, pg_deadline deadline, const char *what, pg_error *e) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return wait_ready(c, events, deadline, e);
    if (errno == EINTR) return PG_OK;
    return pg_error_set(e, PG_E_UNREACHABLE, NULL, "%s: %s", what, strerror(errno));
}

pg_err pg_conn_read_full(pg_conn *c, void *buf, size_t n, pg_error *e) {
    return pg_conn_read_until(c, buf, n, call_deadline(c), e);
}

/* deadline is the caller's (a whole frame, pg_proto_read); a request's
 * limit (pg_conn_limit) still ends it sooner. */
pg_err pg_conn_read_until(pg_conn *c, void *buf, size_t n, pg_deadline deadline, pg_error *e) {
    if (c->limited && c->limit.us < deadline.us) deadline = c->limit;
    uint8_t *p = buf;
    while (n > 0) {
        /* Bytes that are already there are taken without a poll first (the
         * body after a header, an answer that came while we wrote). */
        ssize_t r = recv(c->fd, p, n, MSG_DONTWAIT);
        if (r == 0) return pg_error_set(e, PG_E_UNREACHABLE, NULL, "peer closed the connection");
        if (r < 0) {
            pg_err rc = wait_or_fail(c, POLLIN, deadline, "read", e);
            if (rc) return rc;
            continue;
        }
        p += r;
        n -= (size_t)r;
    }
    return PG_OK;
}

pg_err pg_conn_write_full(pg_conn *c, const void *buf, size_t n, pg_error *e) {
    pg_deadline deadline = call_deadline(c);
    const uint8_t *p = buf;
    while (n > 0) {
        /* MSG_NOSIGNAL: a vanished peer is an error code, not a SIGPIPE.
         * Sent at once while the socket has room; polled only when full. */
        ssize_t r = send(c->fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (r < 0) {
            pg_err rc = wait_or_fail(c, POLLOUT, deadline, "write", e);
            if (rc) return rc;
            continue;
        }
        p += r;
        n -= (size_t)r;
    }
    return PG_OK;
}

pg_err pg_conn_connect(pg_conn **out, const char *address, uint32_t timeout_ms, pg_error *e) {
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(address) >= sizeof sa.sun_path)
        return pg_error_set(e, PG_E_USAGE, NULL, "socket path too long: %s", address);
    strcpy(sa.sun_path, address);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return pg_error_set(e, PG_E_INTERNAL, NULL, "socket: %s", strerror(errno));
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        int err = errno;
        close(fd);
        pg_error_set(e, PG_E_UNREACHABLE, NULL, "cannot connect to broker at %s: %s", address, strerror(err));
        errno = err; /* the caller tells "not running" from "not allowed" by it */
        return PG_E_UNREACHABLE;
    }
    return pg_conn_from_fd(out, fd, timeout_ms, e);
}

void pg_conn_close(pg_conn *c) {
    if (!c) return;
    close(c->fd);
    free(c);
}

/* shutdown wakes a poll() on the socket in any thread: the read sees EOF,
 * the write EPIPE, both PG_E_UNREACHABLE. */
void pg_conn_abort(pg_conn *c) {
    if (c) shutdown(c->fd, SHUT_RDWR);
}

/* POLLRDHUP: the peer closed (or shut down) its sending side, even with
 * bytes of it still unread; no pixelgate client half-closes and then waits. */
bool pg_conn_peer_gone(pg_conn *c) {
    struct pollfd p = {.fd = c->fd, .events = POLLRDHUP};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

void pg_conn_finish(pg_conn *c, uint32_t drain_ms) {
    if (!c) return;
    shutdown(c->fd, SHUT_WR);
    pg_deadline d = pg_deadline_in_ms(drain_ms);
    char sink[4096];
    for (size_t total = 0; total < ((size_t)1 << 20);) { /* a bounded drain: a flood is cut off */
        uint32_t left = pg_deadline_left_ms(d);
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        if (left == 0 || poll(&p, 1, (int)left) <= 0) break;
        ssize_t r = recv(c->fd, sink, sizeof sink, MSG_DONTWAIT);
        if (r <= 0 && !(r < 0 && (errno == EINTR || errno == EAGAIN))) break;
        if (r > 0) total += (size_t)r;
    }
    pg_conn_close(c);
}
