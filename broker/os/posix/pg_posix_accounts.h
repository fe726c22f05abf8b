/* SPDX-License-Identifier: MIT */
/* pg_posix_accounts.h - who a uid is in the account databases: its name,
 * primary group and the names of all its groups (passwd and group through
 * NSS), remembered for a short while.
 *
 * Why a cache: a connection's principal costs 0.3-0.5 ms of NSS lookups on
 * Debian 12 (getpwuid, getgrouplist through nss-systemd's userdb probes, one
 * getgrgid per group), paid on every connection and every request: more than
 * the rest of a ping. An entry is used only while
 *   - /etc/passwd, /etc/group and /etc/nsswitch.conf are the files they were
 *     when it was looked up (device, inode, size, mtime, ctime: useradd,
 *     usermod, gpasswd and vipw all change them), so a change to the files
 *     databases applies to the very next connection; and
 *   - it is younger than PG_ACCOUNTS_TTL_MS, the bound for sources NSS reads
 *     elsewhere (systemd-userdb, LDAP through sssd), whose changes the broker
 *     cannot see.
 * docs/privacy.md (the admission row) states the rule for administrators.
 *
 * The cache underneath takes the stamp and the clock as arguments so the
 * unit tests can drive both (tests/unit/test_posix_peer.c).
 * Never: takes a uid from a request; only from SO_PEERCRED or /proc.
 */
#ifndef PG_POSIX_ACCOUNTS_H
#define PG_POSIX_ACCOUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PG_ACCOUNTS_TTL_MS 30000u
#define PG_ACCOUNTS_SLOTS 32u

typedef struct {
    bool known;       /* the passwd database has an entry for the uid */
    char name[64];    /* its name, or the uid in decimal when unknown */
    uint32_t gid;     /* its primary group (0 when unknown) */
    size_t n_groups;  /* names in groups */
    char *groups;     /* n_groups NUL-terminated names back to back; malloc'd (NULL when none) */
    size_t groups_len; /* bytes of groups */
} pg_account;

/* What the files databases were when an entry was looked up. */
typedef struct {
    uint64_t v[3 * 6];
} pg_accounts_stamp;

/* The account of uid, from the cache or looked up afresh (and remembered).
 * Always fills out (an unknown uid gets its decimal name); false only when
 * memory ran out. Free with pg_account_free. Thread-safe. */
bool pg_posix_account(uint32_t uid, pg_account *out);
void pg_account_free(pg_account *a);

/* ---- the cache itself (pure: no files, no clock) ---- */
typedef struct pg_account_cache pg_account_cache;
pg_account_cache *pg_account_cache_new(void);
void pg_account_cache_free(pg_account_cache *c);
/* A copy of uid's entry when one was put with the same stamp less than
 * PG_ACCOUNTS_TTL_MS before now_ms; false otherwise (or out of memory). */
bool pg_account_cache_get(pg_account_cache *c, uint32_t uid, const pg_accounts_stamp *stamp, uint64_t now_ms,
                          pg_account *out);
/* Remembers a copy of a (replacing uid's entry, else the oldest when all
 * PG_ACCOUNTS_SLOTS are taken). */
void pg_account_cache_put(pg_account_cache *c, uint32_t uid, const pg_accounts_stamp *stamp, uint64_t now_ms,
                          const pg_account *a);

#endif
