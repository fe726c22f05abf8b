/* SPDX-License-Identifier: MIT */
/* pg_policy_file_posix.c - the policy file on POSIX: StrictModes-style
 * checks from / down, then a read of what was checked (see
 * pg_policy_file.c for the rule on both platforms). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pg_policy_private.h"

#define INSTALL_TIP "install one: installer/linux/install.sh (or install -D -m 0640 -o root -g pixelgate installer/linux/policy.json " PG_POLICY_DEFAULT_PATH ")"

/* One directory or the file: what must hold, with a message and a fix. */
static pg_err check_one(const char *p, const struct stat *st, bool is_file, bool ancestor, pg_error *e) {
    char tip[PG_ERR_TIP_MAX];
    if (S_ISLNK(st->st_mode)) {
        snprintf(tip, sizeof tip, "name the real location instead (e.g. --policy \"$(realpath %.180s)\")", p);
        return pg_error_set(e, PG_E_BADINPUT, tip,
                            "%s is a symbolic link: the policy path may not go through links, which whoever owns "
                            "the link's directory could re-point",
                            p);
    }
    if (is_file && !S_ISREG(st->st_mode))
        return pg_error_set(e, PG_E_BADINPUT, "point --policy at the policy file itself",
                            "%s is not a regular file", p);
    if (!is_file && !S_ISDIR(st->st_mode))
        return pg_error_set(e, PG_E_BADINPUT, NULL, "%s is not a directory", p);
    unsigned mode = (unsigned)(st->st_mode & 07777);
    bool sticky_ok = ancestor && (st->st_mode & S_ISVTX) && st->st_uid == 0;
    if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !sticky_ok) {
        snprintf(tip, sizeof tip, "chmod go-w %.200s", p);
        return pg_error_set(e, PG_E_BADINPUT, tip,
                            "%s is writable by %s%s%s (mode %04o): only root may be able to change the policy%s", p,
                            (st->st_mode & S_IWGRP) ? "its group" : "",
                            (st->st_mode & S_IWGRP) && (st->st_mode & S_IWOTH) ? " and " : "",
                            (st->st_mode & S_IWOTH) ? "everyone" : "", mode,
                            is_file ? "" : " (a writable directory lets others replace the file)");
    }
    if (st->st_uid != 0) {
        snprintf(tip, sizeof tip, "chown root:root %.200s", p);
        return pg_error_set(e, PG_E_BADINPUT, tip,
                            "%s is owned by uid %lu, not root: its owner could change the policy", p,
                            (unsigned long)st->st_uid);
    }
    return PG_OK;
}

static pg_err stat_err(const char *p, pg_error *e) {
    if (errno == ENOENT || errno == ENOTDIR)
        return pg_error_set(e, PG_E_NOTFOUND, INSTALL_TIP, "policy file: %s does not exist", p);
    return pg_error_set(e, PG_E_BADINPUT, NULL, "policy file: cannot examine %s: %s", p, strerror(errno));
}

pg_err pg_policy_check_file(const char *path, pg_error *e) {
    if (!path || !path[0]) return pg_error_set(e, PG_E_BADINPUT, NULL, "policy file: empty path");
    char abs[PGP_MAX_PATH + 1];
    if (path[0] == '/') {
        if (strlen(path) > PGP_MAX_PATH) return pg_error_set(e, PG_E_BADINPUT, NULL, "policy file: path too long");
        snprintf(abs, sizeof abs, "%s", path);
    } else {
        char cwd[PGP_MAX_PATH + 1];
        if (!getcwd(cwd, sizeof cwd))
            return pg_error_set(e, PG_E_BADINPUT, "give an absolute --policy path",
                                "policy file: cannot resolve relative path %s: %s", path, strerror(errno));
        if (strlen(cwd) + 1 + strlen(path) > PGP_MAX_PATH)
            return pg_error_set(e, PG_E_BADINPUT, NULL, "policy file: path too long");
        if (snprintf(abs, sizeof abs, "%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "", path) < 0) abs[0] = '\0';
    }
    size_t len = 0; /* collapse "//" so that the last '/' separates directory and file */
    for (size_t i = 0; abs[i]; i++)
        if (!(abs[i] == '/' && len > 0 && abs[len - 1] == '/')) abs[len++] = abs[i];
    abs[len] = '\0';
    if (abs[len - 1] == '/')
        return pg_error_set(e, PG_E_BADINPUT, "point --policy at the policy file itself",
                            "policy file: %s names a directory", abs);
    size_t last = len;
    while (last > 0 && abs[last - 1] != '/') last--; /* abs[last..] is the file name */
    struct stat st;
    /* "/", then each directory down to the file's own (strict), then the file. */
    for (size_t i = 0; i < last; i++) {
        if (abs[i] != '/') continue;
        size_t cut = i == 0 ? 1 : i;
        char keep = abs[cut];
        abs[cut] = '\0';
        pg_err rc = lstat(abs, &st) == 0 ? PG_OK : stat_err(abs, e);
        if (rc == PG_OK) rc = check_one(abs, &st, false, i + 1 != last, e);
        abs[cut] = keep;
        if (rc != PG_OK) return rc;
    }
    if (lstat(abs, &st) != 0) return stat_err(abs, e);
    return check_one(abs, &st, true, false, e);
}

pg_err pg_policy_load(const char *path, pg_policy **out, pg_error *e) {
    if (!out) return pg_error_set(e, PG_E_INTERNAL, NULL, "pg_policy_load: out is NULL");
    *out = NULL;
    pg_err rc = pg_policy_check_file(path, e);
    if (rc != PG_OK) return rc;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        if (errno == ENOENT) return stat_err(path, e);
        if (errno == EACCES)
            return pg_error_set(e, PG_E_BADINPUT, "give it to the broker's group: chgrp pixelgate FILE; chmod 0640 FILE",
                                "policy file: cannot read %s: %s (the broker runs as its own user)", path,
                                strerror(errno));
        return pg_error_set(e, PG_E_BADINPUT, NULL, "policy file: cannot open %s: %s", path, strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int err = errno;
        close(fd);
        return pg_error_set(e, PG_E_BADINPUT, NULL, "policy file: cannot examine %s: %s", path, strerror(err));
    }
    if ((rc = check_one(path, &st, true, false, e)) != PG_OK) {
        close(fd);
        return rc;
    }
    if ((uint64_t)st.st_size > PG_POLICY_MAX_BYTES) {
        close(fd);
        return pg_error_set(e, PG_E_BADINPUT, NULL, "policy file: %s is larger than %u bytes", path,
                            (unsigned)PG_POLICY_MAX_BYTES);
    }
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        close(fd);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "policy: out of memory");
    }
    for (;;) {
        if (n == cap) {
            if (cap > PG_POLICY_MAX_BYTES) {
                free(buf);
                close(fd);
                return pg_error_set(e, PG_E_BADINPUT, NULL, "policy file: %s is larger than %u bytes", path,
                                    (unsigned)PG_POLICY_MAX_BYTES);
            }
            size_t nc = cap * 2 > PG_POLICY_MAX_BYTES + 1 ? PG_POLICY_MAX_BYTES + 1 : cap * 2;
            char *nb = realloc(buf, nc);
            if (!nb) {
                free(buf);
                close(fd);
                return pg_error_set(e, PG_E_INTERNAL, NULL, "policy: out of memory");
            }
            buf = nb;
            cap = nc;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int err = errno;
            free(buf);
            close(fd);
            return pg_error_set(e, PG_E_BADINPUT, NULL, "policy file: cannot read %s: %s", path, strerror(err));
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    close(fd);
    return pgp_file_finish_load(path, buf, n, true, out, e);
}
