/* SPDX-License-Identifier: MIT */
/* The audit log's file operations on POSIX; see pg_audit_fs.h. */
#include "pg_audit_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

struct pg_audit_fs_dir {
    int fd;
};

int pg_audit_fs_dir_open(const char *path, bool nofollow, pg_audit_fs_dir **out) {
    pg_audit_fs_dir *d = malloc(sizeof *d);
    if (!d) return ENOMEM;
    d->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
    if (d->fd < 0) {
        int err = errno;
        free(d);
        return err;
    }
    *out = d;
    return 0;
}

void pg_audit_fs_dir_close(pg_audit_fs_dir *d) {
    if (!d) return;
    close(d->fd);
    free(d);
}

const char *pg_audit_fs_dir_unsafe(pg_audit_fs_dir *d, char *buf, size_t n) {
    struct stat st;
    if (fstat(d->fd, &st) != 0) {
        snprintf(buf, n, "cannot stat it: %s", strerror(errno));
        return buf;
    }
    if (st.st_uid == geteuid() && !(st.st_mode & 022)) return NULL;
    snprintf(buf, n, "owner %u, mode %04o", (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
    return buf;
}

void pg_audit_fs_dir_sync(pg_audit_fs_dir *d) { (void)fsync(d->fd); }

bool pg_audit_fs_exists(pg_audit_fs_dir *d, const char *name) {
    struct stat st;
    return fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

int pg_audit_fs_unlink(pg_audit_fs_dir *d, const char *name) { return unlinkat(d->fd, name, 0) == 0 ? 0 : errno; }

int pg_audit_fs_rename(pg_audit_fs_dir *d, const char *from, const char *to) {
    return renameat(d->fd, from, d->fd, to) == 0 ? 0 : errno;
}

int pg_audit_fs_open(pg_audit_fs_dir *d, const char *name, pg_audit_fs_mode mode, pg_audit_fs_file *out) {
    static const int flags[] = {
        [PG_AUDIT_FS_READ] = O_RDONLY | O_NONBLOCK, /* a FIFO is refused below, not waited on */
        [PG_AUDIT_FS_LIVE] = O_RDWR | O_APPEND | O_CREAT,
        [PG_AUDIT_FS_LIVE_NEW] = O_RDWR | O_APPEND | O_CREAT | O_EXCL,
        [PG_AUDIT_FS_NEW] = O_WRONLY | O_CREAT | O_EXCL,
    };
    *out = PG_AUDIT_FS_CLOSED;
    int fd = openat(d->fd, name, flags[mode] | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return errno;
    struct stat st;
    if (mode == PG_AUDIT_FS_READ && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        return EINVAL;
    }
    out->h = fd;
    return 0;
}

void pg_audit_fs_close(pg_audit_fs_file *f) {
    if (f->h >= 0) close((int)f->h);
    f->h = -1;
}

const char *pg_audit_fs_file_unsafe(pg_audit_fs_file f) {
    struct stat st;
    if (fstat((int)f.h, &st) != 0) return "cannot be examined";
    if (!S_ISREG(st.st_mode)) return "is not a regular file";
    if (st.st_uid != geteuid()) return "is not owned by the broker's user";
    if (st.st_mode & 077) return "is readable or writable by group or others (chmod 0600 it)";
    return NULL;
}

int pg_audit_fs_lock(pg_audit_fs_file f) { return flock((int)f.h, LOCK_EX | LOCK_NB) == 0 ? 0 : errno; }

int pg_audit_fs_size(pg_audit_fs_file f, uint64_t *size) {
    struct stat st;
    if (fstat((int)f.h, &st) != 0) return errno;
    *size = (uint64_t)st.st_size;
    return 0;
}

int pg_audit_fs_pread(pg_audit_fs_file f, void *buf, size_t n, uint64_t off) {
    uint8_t *p = buf;
    while (n) {
        ssize_t r = pread((int)f.h, p, n, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return r < 0 ? errno : EIO;
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

int pg_audit_fs_append(pg_audit_fs_file f, const void *buf, size_t n, size_t *done) {
    ssize_t w;
    do w = write((int)f.h, buf, n);
    while (w < 0 && errno == EINTR);
    *done = w > 0 ? (size_t)w : 0;
    return w < 0 ? errno : 0;
}

int pg_audit_fs_read(pg_audit_fs_file f, void *buf, size_t n, size_t *got) {
    ssize_t r;
    do r = read((int)f.h, buf, n);
    while (r < 0 && errno == EINTR);
    *got = r > 0 ? (size_t)r : 0;
    return r < 0 ? errno : 0;
}

int pg_audit_fs_sync(pg_audit_fs_file f) { return fdatasync((int)f.h) == 0 ? 0 : errno; }

int pg_audit_fs_truncate(pg_audit_fs_file f, uint64_t size) {
    return ftruncate((int)f.h, (off_t)size) == 0 ? 0 : errno;
}

int pg_audit_fs_reserve(pg_audit_fs_file f, uint64_t size, uint64_t len) {
    /* A file size limit (RLIMIT_FSIZE) fails writes past it whatever the disk has. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && size + len > (uint64_t)rl.rlim_cur)
        return EFBIG;
    if (fallocate((int)f.h, FALLOC_FL_KEEP_SIZE, (off_t)size, (off_t)len) == 0) return 0;
    int err = errno;
    if (err != EOPNOTSUPP && err != ENOSYS) return err;
    /* The filesystem cannot reserve: at least the room must be there now. */
    struct statvfs v;
    if (fstatvfs((int)f.h, &v) == 0 && (uint64_t)v.f_bavail * v.f_frsize < len) return ENOSPC;
    return 0;
}

void pg_audit_fs_self_get(pg_audit_fs_self *s) {
    s->uid = geteuid();
    s->pid = getpid();
    s->sid[0] = 0;
    struct passwd pw, *res = NULL;
    char buf[4096];
    if (getpwuid_r(s->uid, &pw, buf, sizeof buf, &res) == 0 && res)
        snprintf(s->user, sizeof s->user, "%s", pw.pw_name);
    else
        snprintf(s->user, sizeof s->user, "%u", (unsigned)s->uid);
    ssize_t n = readlink("/proc/self/exe", s->exe, sizeof s->exe - 1);
    s->exe[n > 0 ? n : 0] = 0;
    if (n <= 0) snprintf(s->exe, sizeof s->exe, "pixelgated");
}
