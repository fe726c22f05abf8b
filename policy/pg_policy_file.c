/* pg_policy_file.c - reading the policy file, after checking that only the
 * administrator can change it (like sshd's StrictModes).
 *
 * POSIX: every directory from / down to the file's directory, and the file
 * itself, is checked with lstat: no symlinks (a link can be re-pointed by
 * whoever owns the directory it lives in), everything owned by root, nothing
 * group- or other-writable (an ancestor directory that is root-owned and
 * sticky, like /tmp, is tolerated: others cannot rename or remove what root
 * put in it). The file is then opened with O_NOFOLLOW and owner and mode are
 * checked again on the open descriptor, so what is read is what was checked.
 *
 * Windows: the ACL check is issue 5. Until then the file is read and parsed,
 * and pg_policy_settings()->file_checked stays false so the broker can say so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_policy_private.h"

#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#define INSTALL_TIP "install one: install -D -m 0644 -o root -g root installer/linux/policy.json " PG_POLICY_DEFAULT_PATH

/* Prefixes the message of a failed parse with the file's path. */
static pg_err with_path(const char *path, pg_err rc, pg_error *e) {
    if (e && rc != PG_OK) {
        char msg[PG_ERR_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", e->message);
        if (snprintf(e->message, sizeof e->message, "%s: %s", path, msg) < 0) e->message[0] = '\0';
    }
    return rc;
}

static pg_err finish_load(const char *path, char *buf, size_t n, bool checked, pg_policy **out, pg_error *e) {
    pg_err rc = pg_policy_parse(buf, n, out, e);
    free(buf);
    if (rc != PG_OK) return with_path(path, rc, e);
    pg_policy *p = *out;
    const char *src = pgp_strdup(p, path);
    if (!src) {
        pg_policy_free(p);
        *out = NULL;
        return pg_error_set(e, PG_E_INTERNAL, NULL, "policy: out of memory");
    }
    p->settings.source = src;
    p->settings.file_checked = checked;
    return PG_OK;
}

#ifndef _WIN32

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
            return pg_error_set(e, PG_E_BADINPUT, "chmod 0644 the file (or 0640 with group pixelgate)",
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
    return finish_load(path, buf, n, true, out, e);
}

#else /* _WIN32 */

pg_err pg_policy_check_file(const char *path, pg_error *e) {
    /* The Windows ACL check (owner Administrators/SYSTEM, no write ACE for
     * anyone else) is issue 5; settings.file_checked reports that it did not run. */
    (void)path;
    (void)e;
    return PG_OK;
}

pg_err pg_policy_load(const char *path, pg_policy **out, pg_error *e) {
    if (!out) return pg_error_set(e, PG_E_INTERNAL, NULL, "pg_policy_load: out is NULL");
    *out = NULL;
    if (!path || !path[0]) return pg_error_set(e, PG_E_BADINPUT, NULL, "policy file: empty path");
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT) return pg_error_set(e, PG_E_NOTFOUND, NULL, "policy file: %s does not exist", path);
        return pg_error_set(e, PG_E_BADINPUT, NULL, "policy file: cannot open %s: %s", path, strerror(errno));
    }
    char *buf = malloc(PG_POLICY_MAX_BYTES + 1);
    if (!buf) {
        fclose(f);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "policy: out of memory");
    }
    size_t n = fread(buf, 1, PG_POLICY_MAX_BYTES + 1, f);
    bool err = ferror(f) != 0;
    fclose(f);
    if (err) {
        free(buf);
        return pg_error_set(e, PG_E_BADINPUT, NULL, "policy file: cannot read %s", path);
    }
    if (n > PG_POLICY_MAX_BYTES) {
        free(buf);
        return pg_error_set(e, PG_E_BADINPUT, NULL, "policy file: %s is larger than %u bytes", path,
                            (unsigned)PG_POLICY_MAX_BYTES);
    }
    return finish_load(path, buf, n, false, out, e);
}

#endif
