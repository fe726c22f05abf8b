/* The POSIX listener: a Unix socket whose peers the kernel names
 * (SO_PEERCRED, pg_posix_peer.c). See pg_posix_listener.h. */
#include "pg_posix_listener.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
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

pg_err pg_posix_listener_run(pg_broker *b, const pg_posix_listener_opts *o, volatile sig_atomic_t *stop,
                             volatile sig_atomic_t *hup, void (*on_hup)(pg_broker *b), void (*on_listening)(void),
                             pg_error *e) {
    int lfd = -1;
    pg_err rc = bind_socket(o, &lfd, e);
    if (rc) return rc;
    pg_log(PG_LOG_INFO, "listening on %s (mode %04o, at most %u connections)", o->socket_path, o->socket_mode,
           o->max_conns);
    if (on_listening) on_listening();
    while (!*stop) {
        struct pollfd p = {.fd = lfd, .events = POLLIN};
        int r = poll(&p, 1, 250);
        if (*hup) {
            *hup = 0;
            if (on_hup) on_hup(b);
        }
        if (r <= 0) continue;
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) continue;
        pg_peer peer;
        pg_conn *conn = NULL;
        pg_error pe;
        if (pg_posix_peer_from_socket(fd, &peer, &pe) || pg_conn_from_fd(&conn, fd, o->io_timeout_ms, &pe)) {
            if (!conn) close(fd);
            pg_log(PG_LOG_WARN, "dropping a connection: %s", pe.message);
            continue;
        }
        pg_server_start_worker(b, conn, &peer, o->max_conns);
    }
    close(lfd);
    unlink(o->socket_path);
    pg_server_drain(5000);
    return PG_OK;
}
