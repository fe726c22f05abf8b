/* SPDX-License-Identifier: MIT */
/* pg_policy_private.h - the policy's internals, shared by the files of policy/
 * only. Nothing outside policy/ includes this.
 */
#ifndef PG_POLICY_PRIVATE_H
#define PG_POLICY_PRIVATE_H

#include <stdatomic.h>

#include "pg_policy.h"
#include "pg_regex.h"

/* Limits on the policy text itself (beyond PG_POLICY_MAX_BYTES). */
#define PGP_MAX_MEMBERS 10000   /* members of one object / elements of one array */
#define PGP_MAX_ENDPOINTS 256
#define PGP_MAX_PATTERN 1024    /* bytes of one window pattern */
#define PGP_MAX_PATTERN_COST 10000
#define PGP_MAX_NAME 256        /* user / group name bytes */
#define PGP_MAX_EP_NAME 64
#define PGP_MAX_PATH 4095
#define PGP_MAX_ARGV 64
#define PGP_MAX_ARG 4096

struct pg_policy_patset {
    size_t n;
    const char **src;
    regex_t *re;
    size_t n_compiled; /* how many of re[] regfree must release */
    struct pg_policy_patset *next_all; /* every patset of a policy, for freeing */
};

typedef struct {
    const char *name;
    pg_policy_view view;
} pgp_user_view;

struct pg_policy {
    atomic_size_t refs;
    cJSON *tree;   /* the parsed text: names, URLs and patterns point into it */
    void **allocs; /* every allocation below, freed together */
    size_t n_allocs, cap_allocs;
    pg_policy_patset *patsets;

    pg_policy_settings settings;
    pg_policy_view global;
    pgp_user_view *users;
    size_t n_users;

    const pg_policy_endpoint **eps; /* global endpoints in file order */
    size_t n_eps;
    const char **allowlist;         /* normalised origins */
    size_t n_allowlist;
    bool allowlist_present;

    bool clients_all;               /* clients.users contains "*" */
    const char **client_users;
    size_t n_client_users;
    const char **client_groups;
    size_t n_client_groups;
    const char **approvers;
    size_t n_approvers;
    /* baselines.shared_cases: case names and, for each, the accounts that
     * own it together (pg_policy_case_owners) */
    const char **shared_cases;
    const char *const **shared_owners;
    size_t *n_shared_owners;
    size_t n_shared_cases;

    const char **warnings;
    size_t n_warnings;
};

/* Memory owned by p (zeroed); NULL on failure. */
void *pgp_alloc(pg_policy *p, size_t n);
char *pgp_strdup(pg_policy *p, const char *s);
char *pgp_strndup(pg_policy *p, const char *s, size_t n);
/* Frees every allocation and compiled pattern (refcount ignored). */
void pgp_destroy(pg_policy *p);
/* pg_policy_file.c: parses the n bytes read from path (buf is freed), names
 * path in a parse error, and records path and whether its permissions were
 * checked in the policy's settings. */
pg_err pgp_file_finish_load(const char *path, char *buf, size_t n, bool checked, pg_policy **out, pg_error *e);

/* Names: case-sensitive on POSIX, ASCII case-insensitive on Windows. */
bool pgp_name_eq(const char *a, const char *b);
int pgp_name_cmp(const char *a, const char *b);

/* A window pattern: checks size, complexity, back-references and syntax that
 * POSIX and PCRE2 read differently (the caller then compiles it with
 * pg_regex_compile). */
bool pgp_pattern_check(const char *src, char *why, size_t n);

#endif
