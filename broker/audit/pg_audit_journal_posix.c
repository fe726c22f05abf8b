/* SPDX-License-Identifier: MIT */
/* Sending a journal copy: one AF_UNIX datagram to journald's socket, never
 * blocking (see pg_audit_journal.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "pg_audit_journal.h"

struct pg_journal {
    int fd;
    struct sockaddr_un sa;
};

pg_err pg_journal_new(pg_journal **out, const char *socket_path, pg_error *e) {
    pg_journal *j = calloc(1, sizeof *j);
    if (!j) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    j->sa.sun_family = AF_UNIX;
    if (strlen(socket_path) >= sizeof j->sa.sun_path) {
        free(j);
        return pg_error_set(e, PG_E_USAGE, NULL, "journal socket path too long: %s", socket_path);
    }
    strcpy(j->sa.sun_path, socket_path);
    j->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (j->fd < 0) {
        int err = errno;
        free(j);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "journal socket: %s", strerror(err));
    }
    *out = j;
    return PG_OK;
}

/* sendto by path every time: a restarted journald has a new socket. */
int pg_journal_send(pg_journal *j, const char *data, size_t len) {
    ssize_t r = sendto(j->fd, data, len, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&j->sa, sizeof j->sa);
    if (r < 0) return errno;
    return (size_t)r == len ? 0 : EMSGSIZE;
}

void pg_journal_free(pg_journal *j) {
    if (!j) return;
    close(j->fd);
    free(j);
}
