/* SPDX-License-Identifier: MIT */
/* pg_posix_accounts.c - who a uid is, remembered briefly (see
 * pg_posix_accounts.h). */
#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pg_posix_accounts.h"
#include "pg_time.h"

/* ---- the cache ---------------------------------------------------------- */

typedef struct {
    bool used;
    uint32_t uid;
    uint64_t at_ms;
    pg_accounts_stamp stamp;
    pg_account account;
} slot;

struct pg_account_cache {
    pthread_mutex_t lock;
    slot slots[PG_ACCOUNTS_SLOTS];
};

pg_account_cache *pg_account_cache_new(void) {
    pg_account_cache *c = calloc(1, sizeof *c);
    if (c) pthread_mutex_init(&c->lock, NULL);
    return c;
}

void pg_account_free(pg_account *a) {
    free(a->groups);
    a->groups = NULL;
    a->n_groups = a->groups_len = 0;
}

void pg_account_cache_free(pg_account_cache *c) {
    if (!c) return;
    for (unsigned i = 0; i < PG_ACCOUNTS_SLOTS; i++) pg_account_free(&c->slots[i].account);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static bool copy_account(pg_account *to, const pg_account *from) {
    *to = *from;
    to->groups = NULL;
    if (!from->groups_len) return true;
    to->groups = malloc(from->groups_len);
    if (!to->groups) return false;
    memcpy(to->groups, from->groups, from->groups_len);
    return true;
}

static bool fresh(const slot *s, uint32_t uid, const pg_accounts_stamp *stamp, uint64_t now_ms) {
    return s->used && s->uid == uid && !memcmp(&s->stamp, stamp, sizeof *stamp) && now_ms >= s->at_ms &&
           now_ms - s->at_ms < PG_ACCOUNTS_TTL_MS;
}

bool pg_account_cache_get(pg_account_cache *c, uint32_t uid, const pg_accounts_stamp *stamp, uint64_t now_ms,
                          pg_account *out) {
    bool hit = false;
    pthread_mutex_lock(&c->lock);
    for (unsigned i = 0; i < PG_ACCOUNTS_SLOTS && !hit; i++)
        if (fresh(&c->slots[i], uid, stamp, now_ms)) hit = copy_account(out, &c->slots[i].account);
    pthread_mutex_unlock(&c->lock);
    return hit;
}

void pg_account_cache_put(pg_account_cache *c, uint32_t uid, const pg_accounts_stamp *stamp, uint64_t now_ms,
                          const pg_account *a) {
    pg_account copy;
    if (!copy_account(&copy, a)) return; /* not remembered: the next lookup asks again */
    pthread_mutex_lock(&c->lock);
    slot *s = &c->slots[0];
    for (unsigned i = 0; i < PG_ACCOUNTS_SLOTS; i++) {
        slot *t = &c->slots[i];
        if (t->used && t->uid == uid) {
            s = t;
            break;
        }
        if (!t->used ? s->used : (s->used && t->at_ms < s->at_ms)) s = t; /* a free slot, else the oldest */
    }
    pg_account_free(&s->account);
    *s = (slot){true, uid, now_ms, *stamp, copy};
    pthread_mutex_unlock(&c->lock);
}

/* ---- the databases ------------------------------------------------------ */

#define DB_BUF_MAX (1u << 20)  /* an entry needing more than 1 MiB is not believed */
#define MAX_USER_GROUPS 65536u /* groups of one user, as getgrouplist reports them */

/* getpwuid_r and getgrgid_r into a buffer that grows on ERANGE (a group
 * with many members, a long GECOS field), instead of failing closed on a
 * fixed one. *mem is the malloc'd buffer the entry points into. */
static bool pw_lookup(uid_t uid, struct passwd *pw, char **mem) {
    for (size_t cap = 1024; cap <= DB_BUF_MAX; cap *= 2) {
        char *b = malloc(cap);
        if (!b) return false;
        struct passwd *res = NULL;
        int rc = getpwuid_r(uid, pw, b, cap, &res);
        if (rc == 0 && res) {
            *mem = b;
            return true;
        }
        free(b);
        if (rc != ERANGE) return false;
    }
    return false;
}

static bool gr_lookup(gid_t gid, struct group *gr, char **mem) {
    for (size_t cap = 1024; cap <= DB_BUF_MAX; cap *= 2) {
        char *b = malloc(cap);
        if (!b) return false;
        struct group *res = NULL;
        int rc = getgrgid_r(gid, gr, b, cap, &res);
        if (rc == 0 && res) {
            *mem = b;
            return true;
        }
        free(b);
        if (rc != ERANGE) return false;
    }
    return false;
}

/* All groups of a user (primary and supplementary), grown past 64 when it
 * has more; malloc'd, *n set; NULL when there is no memory. */
static gid_t *user_gids(const char *name, gid_t primary, int *n) {
    int cap = 64;
    for (;;) {
        gid_t *g = malloc((size_t)cap * sizeof *g);
        if (!g) return NULL;
        int ng = cap;
        if (getgrouplist(name, primary, g, &ng) >= 0) {
            *n = ng;
            return g;
        }
        free(g);
        if (ng <= cap || (unsigned)ng > MAX_USER_GROUPS) return NULL;
        cap = ng;
    }
}

static bool append_name(pg_account *a, const char *name) {
    size_t len = strlen(name) + 1;
    char *g = realloc(a->groups, a->groups_len + len);
    if (!g) return false;
    memcpy(g + a->groups_len, name, len);
    a->groups = g;
    a->groups_len += len;
    a->n_groups++;
    return true;
}

/* The names of all of a's groups; a gid without a name is left out (it
 * cannot match a policy's group name). */
static bool lookup_groups(pg_account *a) {
    int ng = 0;
    gid_t *gids = user_gids(a->name, a->gid, &ng);
    if (!gids) return false;
    bool ok = true;
    for (int i = 0; ok && i < ng; i++) {
        struct group gr;
        char *mem = NULL;
        if (!gr_lookup(gids[i], &gr, &mem)) continue;
        ok = append_name(a, gr.gr_name);
        free(mem);
    }
    free(gids);
    return ok;
}

static bool lookup_account(uint32_t uid, pg_account *a) {
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "%u", (unsigned)uid);
    struct passwd pw;
    char *mem = NULL;
    if (!pw_lookup(uid, &pw, &mem)) return true; /* unknown: no groups either */
    a->known = true;
    a->gid = pw.pw_gid;
    snprintf(a->name, sizeof a->name, "%s", pw.pw_name);
    free(mem);
    if (lookup_groups(a)) return true;
    pg_account_free(a);
    return false;
}

/* ---- the files that decide whether an entry still holds ---------------- */

static void stamp_file(const char *path, uint64_t *v) {
    struct stat st;
    if (stat(path, &st) != 0) {
        memset(v, 0xff, 6 * sizeof *v); /* absent: a stamp of its own */
        return;
    }
    v[0] = (uint64_t)st.st_dev;
    v[1] = (uint64_t)st.st_ino;
    v[2] = (uint64_t)st.st_size;
    v[3] = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
    v[4] = (uint64_t)st.st_ctim.tv_sec * 1000000000u + (uint64_t)st.st_ctim.tv_nsec;
    v[5] = (uint64_t)st.st_mode;
}

static void stamp_now(pg_accounts_stamp *s) {
    static const char *const files[3] = {"/etc/passwd", "/etc/group", "/etc/nsswitch.conf"};
    for (int i = 0; i < 3; i++) stamp_file(files[i], &s->v[i * 6]);
}

static pg_account_cache *the_cache;
static pthread_once_t the_cache_once = PTHREAD_ONCE_INIT;
static void make_the_cache(void) { the_cache = pg_account_cache_new(); }

bool pg_posix_account(uint32_t uid, pg_account *out) {
    pthread_once(&the_cache_once, make_the_cache);
    pg_accounts_stamp stamp;
    stamp_now(&stamp);
    uint64_t now = (uint64_t)(pg_mono_us() / 1000);
    if (the_cache && pg_account_cache_get(the_cache, uid, &stamp, now, out)) return true;
    if (!lookup_account(uid, out)) {
        memset(out, 0, sizeof *out);
        snprintf(out->name, sizeof out->name, "%u", (unsigned)uid);
        return false;
    }
    if (the_cache) pg_account_cache_put(the_cache, uid, &stamp, now, out);
    return true;
}
