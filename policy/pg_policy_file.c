/* SPDX-License-Identifier: MIT */
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
 * Windows: the path must be a plain local-drive path; no component may be a
 * reparse point (symbolic link, junction, mount point); the file's and its
 * directory's owner and DACL must let only SYSTEM, Administrators and
 * TrustedInstaller change them (the rule is common/pg_win_acl.h).
 * The file is then opened without following reparse points, sharing no
 * write access, and the ACL rule is applied again to the open handle.
 * Under Wine, which has no ACLs, the ACL rule is skipped and said to be
 * (file_checked false); the path and reparse-point checks still run.
 *
 * pg_policy_file.c holds what both share (parse and label what was read);
 * pg_policy_file_posix.c and pg_policy_file_win.c the checks and the read.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pg_policy_private.h"

/* Prefixes the message of a failed parse with the file's path. */
static pg_err with_path(const char *path, pg_err rc, pg_error *e) {
    if (e && rc != PG_OK) {
        char msg[PG_ERR_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", e->message);
        if (snprintf(e->message, sizeof e->message, "%s: %s", path, msg) < 0) e->message[0] = '\0';
    }
    return rc;
}

pg_err pgp_file_finish_load(const char *path, char *buf, size_t n, bool checked, pg_policy **out, pg_error *e) {
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
