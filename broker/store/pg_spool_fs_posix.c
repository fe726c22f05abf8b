/* SPDX-License-Identifier: MIT */
/* The token spool on POSIX: openat/unlinkat on a directory fd; see pg_spool_fs.h. */
#include "pg_spool_fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pg_spool_dir {
    int fd;
};

struct pg_spool_file {
    int fd;
};

pg_err pg_spool_dir_open(pg_spool_dir **out, const char *path, pg_error *e) {
    pg_spool_dir *d = malloc(sizeof *d);
    if (!d) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    d->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (d->fd < 0) {
        int err = errno;
        free(d);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot open spool directory: %s", strerror(err));
    }
    *out = d;
    return PG_OK;
}

void pg_spool_dir_close(pg_spool_dir *d) {
    if (!d) return;
    close(d->fd);
    free(d);
}

void pg_spool_dir_clear(pg_spool_dir *d) {
    int fd = dup(d->fd); /* fdopendir takes the fd; ours stays open */
    DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
    if (!dir) {
        if (fd >= 0) close(fd);
        return;
    }
    struct dirent *de;
    while ((de = readdir(dir)))
        if (de->d_name[0] != '.') unlinkat(d->fd, de->d_name, 0);
    closedir(dir);
}

static pg_err write_all(int fd, const uint8_t *p, size_t n, pg_error *e) {
    while (n) {
        ssize_t w = write(fd, p, n > (1u << 30) ? (1u << 30) : n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            int err = w < 0 ? errno : ENOSPC;
            return pg_error_set(e, PG_E_INTERNAL, "free space in the broker's state directory or lower --max-size",
                                "cannot write capture to the spool: %s", strerror(err));
        }
        p += w;
        n -= (size_t)w;
    }
    return PG_OK;
}

pg_err pg_spool_put(pg_spool_dir *d, const char *name, const uint8_t *p, size_t n, pg_error *e) {
    int fd = openat(d->fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot create spool file: %s", strerror(errno));
    pg_err rc = write_all(fd, p, n, e);
    if (close(fd) != 0 && !rc) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "spool write failed: %s", strerror(errno));
    if (rc) unlinkat(d->fd, name, 0);
    return rc;
}

pg_err pg_spool_open(pg_spool_dir *d, const char *name, pg_spool_file **out, pg_error *e) {
    pg_spool_file *f = malloc(sizeof *f);
    if (!f) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    f->fd = openat(d->fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (f->fd < 0) {
        int err = errno;
        free(f);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "spool file vanished: %s", strerror(err));
    }
    *out = f;
    return PG_OK;
}

pg_err pg_spool_read(pg_spool_file *f, uint8_t *p, size_t n, pg_error *e) {
    while (n) {
        ssize_t r = read(f->fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return pg_error_set(e, PG_E_INTERNAL, NULL, "spool file is short or unreadable");
        p += r;
        n -= (size_t)r;
    }
    return PG_OK;
}

void pg_spool_close(pg_spool_file *f) {
    if (!f) return;
    close(f->fd);
    free(f);
}

void pg_spool_unlink(pg_spool_dir *d, const char *name) { unlinkat(d->fd, name, 0); }
