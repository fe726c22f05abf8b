/* SPDX-License-Identifier: MIT */
/* Windows has no systemd journal: the setting is refused (the Event Log is
 * not this protocol). See pg_audit_journal.h. */
#include <stdlib.h>

#include "pg_audit_journal.h"

struct pg_journal {
    int unused;
};

pg_err pg_journal_new(pg_journal **out, const char *socket_path, pg_error *e) {
    (void)socket_path;
    *out = NULL;
    return pg_error_set(e, PG_E_UNSUPPORTED, "set audit.journal to false in the policy",
                        "audit.journal: there is no systemd journal on Windows");
}

int pg_journal_send(pg_journal *j, const char *data, size_t len) {
    (void)j;
    (void)data;
    (void)len;
    return 38; /* ENOSYS */
}

void pg_journal_free(pg_journal *j) { free(j); }
