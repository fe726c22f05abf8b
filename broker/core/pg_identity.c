/* SPDX-License-Identifier: MIT */
/* The portable part of identity (pg_identity.h) that both process shells'
 * answers are built from: a principal's uid and name, and its group names
 * copied into the caller's buffer. */
#include <string.h>

#include "pg_identity.h"

void pg_principal_start(pg_principal *p, uint32_t uid, const char *user, const char **groups) {
    memset(p, 0, sizeof *p);
    p->user = user;
    p->uid = uid;
    p->groups = groups;
}

bool pg_principal_add_group(pg_principal *p, size_t max_groups, char *buf, size_t buflen, size_t *used,
                            const char *name) {
    size_t len = strlen(name) + 1;
    if (p->n_groups >= max_groups || *used + len > buflen) return false;
    memcpy(buf + *used, name, len);
    ((const char **)p->groups)[p->n_groups++] = buf + *used;
    *used += len;
    return true;
}
