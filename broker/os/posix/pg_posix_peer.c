/* SPDX-License-Identifier: MIT */
/* pg_posix_peer.c - who a POSIX peer is (see pg_posix_peer.h). The Windows
 * twin is broker/os/win/pg_win_peer.c. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pg_log.h"
#include "pg_posix_accounts.h"
#include "pg_posix_peer.h"
#include "pg_time.h"

/* ---- processes known to have no sshd at or above them ------------------ */

/* Walking a peer's ancestors costs one /proc read each (7-10 us; eight of
 * them under a terminal's shell), on every connection. A process found with
 * no trusted sshd at or above it keeps that verdict while it lives: its
 * ancestors can only leave (an orphan is adopted by init or by a subreaper,
 * which was already above it), never join, and only root's own code turns
 * a root process into an sshd. So (pid, start time) pairs found local are
 * remembered for ANCESTRY_TTL_MS, a bound kept anyway; a walk stops at the
 * first one. The start time is what tells a reused pid from the process. */
#define ANCESTRY_SLOTS 64
#define ANCESTRY_TTL_MS 30000u

struct pg_posix_ancestry {
    pthread_mutex_t lock;
    struct {
        bool used;
        int64_t pid;
        unsigned long long start;
        uint64_t at_ms;
    } known[ANCESTRY_SLOTS];
};

static pg_posix_ancestry system_ancestry = {.lock = PTHREAD_MUTEX_INITIALIZER};
const pg_posix_env pg_posix_env_system = {"/proc", "/run/systemd/sessions", 0, &system_ancestry};

pg_posix_ancestry *pg_posix_ancestry_new(void) {
    pg_posix_ancestry *a = calloc(1, sizeof *a);
    if (a) pthread_mutex_init(&a->lock, NULL);
    return a;
}

void pg_posix_ancestry_free(pg_posix_ancestry *a) {
    if (!a) return;
    pthread_mutex_destroy(&a->lock);
    free(a);
}

static bool known_local(pg_posix_ancestry *a, int64_t pid, unsigned long long start) {
    if (!a) return false;
    uint64_t now = (uint64_t)(pg_mono_us() / 1000);
    bool hit = false;
    pthread_mutex_lock(&a->lock);
    for (int i = 0; i < ANCESTRY_SLOTS && !hit; i++)
        hit = a->known[i].used && a->known[i].pid == pid && a->known[i].start == start &&
              now - a->known[i].at_ms < ANCESTRY_TTL_MS;
    pthread_mutex_unlock(&a->lock);
    return hit;
}

typedef struct {
    int64_t pid;
    unsigned long long start;
} proc_id;

/* Remembers n processes just walked and found local (a pid's own slot,
 * else a free one, else the oldest). */
static void remember_local(pg_posix_ancestry *a, const proc_id *ids, size_t n) {
    if (!a) return;
    uint64_t now = (uint64_t)(pg_mono_us() / 1000);
    pthread_mutex_lock(&a->lock);
    for (size_t k = 0; k < n; k++) {
        int slot = 0;
        for (int i = 0; i < ANCESTRY_SLOTS; i++) {
            if (a->known[i].used && a->known[i].pid == ids[k].pid) {
                slot = i;
                break;
            }
            if (!a->known[i].used ? a->known[slot].used : (a->known[slot].used && a->known[i].at_ms < a->known[slot].at_ms))
                slot = i;
        }
        a->known[slot].used = true;
        a->known[slot].pid = ids[k].pid;
        a->known[slot].start = ids[k].start;
        a->known[slot].at_ms = now;
    }
    pthread_mutex_unlock(&a->lock);
}

/* The start of env->proc/PID/name, at most n-1 bytes, NUL-terminated. One
 * open, one read, one close: /proc files are
 * generated whole on the first read, and stdio's fstat and buffer would
 * double the system calls of a walk up a peer's ancestors. */
static bool read_proc_file(const pg_posix_env *env, int64_t pid, const char *name, char *out, size_t n) {
    char path[512];
    snprintf(path, sizeof path, "%s/%lld/%s", env->proc, (long long)pid, name);
    int fd = pid > 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    if (fd < 0) return false;
    ssize_t got;
    do got = read(fd, out, n - 1);
    while (got < 0 && errno == EINTR);
    close(fd);
    if (got < 0) return false;
    out[got] = '\0';
    return true;
}

/* One line of at most n-1 bytes from env->proc/PID/name, without its newline. */
static bool read_proc(const pg_posix_env *env, int64_t pid, const char *name, char *out, size_t n) {
    if (!read_proc_file(env, pid, name, out, n)) return false;
    out[strcspn(out, "\n")] = '\0';
    return true;
}

/* ---- processes as /proc shows them ------------------------------------- */

#define NO_SESSION 4294967295u /* an audit session id that was never set */
#define MAX_DEPTH 64           /* ancestors walked before giving up */

typedef struct {
    char comm[64];            /* field 2, the same name as /proc/PID/comm */
    int64_t ppid;
    unsigned long long start; /* clock ticks after boot (field 22) */
} proc_stat;

/* /proc/PID/stat: the comm is between the first '(' and the last ')' (it
 * may hold spaces and parentheses itself); the other fields follow. */
static bool read_stat(const pg_posix_env *env, int64_t pid, proc_stat *st) {
    char buf[1024];
    if (!read_proc_file(env, pid, "stat", buf, sizeof buf)) return false;
    char *open_paren = strchr(buf, '('), *p = strrchr(buf, ')');
    if (!open_paren || !p || p < open_paren) return false;
    snprintf(st->comm, sizeof st->comm, "%.*s", (int)(p - open_paren - 1), open_paren + 1);
    p++;
    int field = 2; /* the comm was field 2 */
    bool have_ppid = false, have_start = false;
    for (char *save = NULL, *tok = strtok_r(p, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        field++;
        if (field == 4) have_ppid = sscanf(tok, "%" SCNd64, &st->ppid) == 1;
        if (field == 22) {
            have_start = sscanf(tok, "%llu", &st->start) == 1;
            break;
        }
    }
    return have_ppid && have_start;
}

/* The real, effective, saved and filesystem uids of /proc/PID/status. */
static bool read_uids(const pg_posix_env *env, int64_t pid, unsigned u[4]) {
    char buf[4096];
    if (!read_proc_file(env, pid, "status", buf, sizeof buf)) return false;
    const char *line = strstr(buf, "\nUid:");
    return line && sscanf(line + 1, "Uid: %u %u %u %u", &u[0], &u[1], &u[2], &u[3]) == 4;
}

static bool all_uids(const pg_posix_env *env, int64_t pid, uint32_t uid) {
    unsigned u[4];
    return read_uids(env, pid, u) && u[0] == uid && u[1] == uid && u[2] == uid && u[3] == uid;
}

/* The audit login session (pam_loginuid gives a login a fresh one, which
 * its processes inherit and cannot change); NO_SESSION when unset. */
static unsigned read_sessionid(const pg_posix_env *env, int64_t pid) {
    char buf[32];
    unsigned id;
    if (!read_proc(env, pid, "sessionid", buf, sizeof buf) || sscanf(buf, "%u", &id) != 1) return NO_SESSION;
    return id;
}

/* ---- remote or local --------------------------------------------------- */

/* OpenSSH names its processes sshd, and since 9.8 the per-connection one
 * sshd-session. A name counts only on a process whose four uids are root's
 * (env->trusted_uid): only root's code names a root process, while anyone
 * can name their own process anything (prctl PR_SET_NAME, an executable
 * called sshd). st is pid's stat, read once for the name and the parent. */
static bool trusted_sshd(const pg_posix_env *env, int64_t pid, const proc_stat *st) {
    if (strcmp(st->comm, "sshd") != 0 && strcmp(st->comm, "sshd-session") != 0) return false;
    return all_uids(env, pid, env->trusted_uid);
}

static bool trusted_sshd_pid(const pg_posix_env *env, int64_t pid) {
    proc_stat st;
    return read_stat(env, pid, &st) && trusted_sshd(env, pid, &st);
}

/* A root-owned sshd among pid (whose stat is st) and its ancestors (pid 1 is
 * an init, not a login, whatever it is called). A walk that reaches the top,
 * or a process remembered as local, remembers what it walked. */
static bool under_sshd(const pg_posix_env *env, int64_t pid, proc_stat st, int64_t *which) {
    proc_id walked[MAX_DEPTH];
    size_t n = 0;
    for (int depth = 0; pid > 1 && depth < MAX_DEPTH; depth++) {
        if (known_local(env->ancestry, pid, st.start)) break;
        if (trusted_sshd(env, pid, &st)) {
            *which = pid;
            return true;
        }
        walked[n++] = (proc_id){pid, st.start};
        if (st.ppid == pid || st.ppid <= 1) break;
        pid = st.ppid;
        if (!read_stat(env, pid, &st)) return false; /* it exited meanwhile: local, not remembered */
        if (depth + 1 == MAX_DEPTH) return false;   /* too deep to tell: local, not remembered */
    }
    remember_local(env->ancestry, walked, n);
    return false;
}

/* systemd-logind's record of session id (what sd_session_is_remote reads):
 * 1 remote (REMOTE=1, or opened by sshd), 0 local, -1 no record to believe
 * (absent, not a root-owned regular file, or writable by others). */
static int logind_remote(const pg_posix_env *env, unsigned id) {
    char path[512], line[256];
    snprintf(path, sizeof path, "%s/%u", env->sessions, id);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return -1;
    struct stat st;
    FILE *f = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != env->trusted_uid || (st.st_mode & 022) ||
        !(f = fdopen(fd, "r"))) {
        close(fd);
        return -1;
    }
    int remote = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (!strcmp(line, "REMOTE=1") || !strcmp(line, "SERVICE=sshd")) remote = 1;
    }
    fclose(f);
    return remote;
}

/* The N of a ".../session-N.scope" cgroup of pid: logind's session, which
 * a user cannot leave (the scope is root's), only start processes outside
 * of through other services (systemd --user, cron). */
static bool cgroup_session(const pg_posix_env *env, int64_t pid, unsigned *id) {
    char path[512], line[1024];
    snprintf(path, sizeof path, "%s/%lld/cgroup", env->proc, (long long)pid);
    FILE *f = fopen(path, "re");
    if (!f) return false;
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        char *s = strstr(line, "/session-");
        unsigned n;
        char tail[8];
        found = s && sscanf(s, "/session-%u.scop%1[e]", &n, tail) == 2;
        if (found) *id = n;
    }
    fclose(f);
    return found;
}

/* Was login session id opened by sshd? A root-owned sshd holds it whose
 * parent is a root-owned sshd in another session: the listener forked it
 * and pam_loginuid gave it the new session. (A listener started by hand
 * from a login shell shares that shell's session; its children being
 * authenticated still do: neither counts.) */
static bool sshd_holds_session(const pg_posix_env *env, unsigned id, int64_t *which) {
    DIR *d = opendir(env->proc);
    if (!d) return false;
    bool found = false;
    struct dirent *de;
    while (!found && (de = readdir(d))) {
        char *end;
        long long pid = strtoll(de->d_name, &end, 10);
        if (*end || pid <= 1) continue;
        proc_stat st;
        if (read_sessionid(env, pid) != id || !read_stat(env, pid, &st) || !trusted_sshd(env, pid, &st)) continue;
        if (!trusted_sshd_pid(env, st.ppid) || read_sessionid(env, st.ppid) == id) continue;
        *which = pid;
        found = true;
    }
    closedir(d);
    return found;
}

bool pg_posix_remote(const pg_posix_env *env, int64_t pid, char *why, size_t n) {
    char sink[8];
    if (!why || !n) why = sink, n = sizeof sink;
    proc_stat st;
    if (!read_stat(env, pid, &st)) {
        snprintf(why, n, "process %lld cannot be examined (counted as remote)", (long long)pid);
        return true;
    }
    int64_t sshd = 0;
    if (under_sshd(env, pid, st, &sshd)) {
        snprintf(why, n, "under sshd (pid %lld)", (long long)sshd);
        return true;
    }
    unsigned sid = read_sessionid(env, pid), scope = NO_SESSION;
    if (sid != NO_SESSION && logind_remote(env, sid) == 1) {
        snprintf(why, n, "logind session %u is remote", sid);
        return true;
    }
    if (cgroup_session(env, pid, &scope) && scope != sid && logind_remote(env, scope) == 1) {
        snprintf(why, n, "logind session %u (its cgroup) is remote", scope);
        return true;
    }
    if (sid != NO_SESSION && sshd_holds_session(env, sid, &sshd)) {
        snprintf(why, n, "login session %u was opened by sshd (pid %lld)", sid, (long long)sshd);
        return true;
    }
    if (sid != NO_SESSION) snprintf(why, n, "local: no sshd above it or holding its login session %u", sid);
    else snprintf(why, n, "local: no sshd above it, no login session");
    return false;
}

/* ---- the account databases (pg_posix_accounts.c) -------------------- */

/* The account name of uid, or the uid in decimal. */
static void user_name(uid_t uid, char out[64]) {
    pg_account a;
    pg_posix_account(uid, &a);
    snprintf(out, 64, "%s", a.name);
    pg_account_free(&a);
}

pg_err pg_posix_peer_from_socket(int fd, pg_peer *p, pg_error *e) {
    struct ucred cr;
    socklen_t len = sizeof cr;
    memset(p, 0, sizeof *p);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0)
        return pg_error_set(e, PG_E_INTERNAL, NULL, "SO_PEERCRED: %s", strerror(errno));
    p->uid = cr.uid;
    p->gid = cr.gid;
    p->pid = cr.pid;
    p->admin = cr.uid == 0;
    user_name(cr.uid, p->user);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/exe", (int)cr.pid);
    ssize_t n = readlink(path, p->exe, sizeof p->exe - 1); /* readable only for our own uid */
    p->exe[n > 0 ? n : 0] = '\0';
    read_proc(&pg_posix_env_system, cr.pid, "comm", p->comm, sizeof p->comm);
    p->remote = pg_posix_remote(&pg_posix_env_system, cr.pid, p->remote_why, sizeof p->remote_why);
    if (p->remote) pg_log(PG_LOG_INFO, "peer uid=%u pid=%d is remote: %s", (unsigned)cr.uid, (int)cr.pid, p->remote_why);
    return PG_OK;
}

void pg_identity_principal(const pg_peer *peer, pg_principal *p, const char **groups, size_t max_groups, char *buf,
                         size_t buflen) {
    pg_principal_start(p, peer->uid, peer->user, groups);
    pg_account a;
    if (!pg_posix_account(peer->uid, &a) || !a.known) return;
    size_t used = 0;
    const char *name = a.groups;
    for (size_t i = 0; i < a.n_groups; i++, name += strlen(name) + 1)
        if (!pg_principal_add_group(p, max_groups, buf, buflen, &used, name)) break;
    pg_account_free(&a);
}

bool pg_identity_remote(const pg_peer *p) { return p->remote; }

/* ---- whose window is it ------------------------------------------------- */

/* When the broker first saw each window together with the pid the display
 * server names for it, on the clock of /proc/PID/stat's start time (clock
 * ticks since boot). 512 sets of 8; when a set is full its oldest sighting
 * makes room (that window is then seen afresh, so the pid-reuse rule holds
 * only from then on). */
#define SEEN_SETS 512
#define SEEN_WAYS 8

typedef struct {
    uint64_t window;
    int64_t pid;
    unsigned long long ticks; /* 0: free */
} sighting;

static sighting seen[SEEN_SETS][SEEN_WAYS];
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned long long boot_ticks(void) {
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    unsigned long long hz = (unsigned long long)sysconf(_SC_CLK_TCK);
    return (unsigned long long)ts.tv_sec * hz + (unsigned long long)ts.tv_nsec * hz / 1000000000ull;
}

/* The first sighting of (window, pid), recording now if there is none. A
 * different pid for the same window (an app restarted, the server reusing
 * its ids) replaces the old sighting. */
static unsigned long long first_seen(uint64_t window, int64_t pid) {
    unsigned long long now = boot_ticks();
    sighting *set = seen[(window * 0x9E3779B97F4A7C15ull >> 40) % SEEN_SETS];
    pthread_mutex_lock(&seen_lock);
    sighting *slot = &set[0];
    for (int i = 0; i < SEEN_WAYS; i++) {
        if (set[i].ticks && set[i].window == window) {
            slot = &set[i];
            break;
        }
        if (set[i].ticks < slot->ticks) slot = &set[i]; /* the free or the oldest */
    }
    if (!(slot->ticks && slot->window == window && slot->pid == pid)) *slot = (sighting){window, pid, now};
    unsigned long long t = slot->ticks;
    pthread_mutex_unlock(&seen_lock);
    return t;
}

bool pg_posix_window_owned(const pg_posix_env *env, uint64_t window_id, int64_t pid, uint32_t uid) {
    if (pid <= 0 || !all_uids(env, pid, uid)) return false; /* L3: not a setuid program's */
    proc_stat st;
    if (!read_stat(env, pid, &st)) return false;
    /* A process that started after the window was first seen with this pid
     * is not the one that made it: the pid was reused. */
    return st.start <= first_seen(window_id, pid);
}

pg_err pg_identity_input_target(const pg_window *w, const pg_peer *peer, bool *same_owner, pg_error *e) {
    (void)e;
    *same_owner = pg_posix_window_owned(&pg_posix_env_system, w->id, w->pid, peer->uid);
    return PG_OK;
}

pg_err pg_identity_window_owner(const pg_window *w, char user[64], pg_error *e) {
    unsigned u[4];
    /* The input rule's test with the uid the process claims in all four
     * places: a setuid program, or a pid reused since the window was first
     * seen, has no owner here. */
    if (w->pid <= 0 || !read_uids(&pg_posix_env_system, w->pid, u) ||
        !pg_posix_window_owned(&pg_posix_env_system, w->id, w->pid, u[0]))
        return pg_error_set(e, PG_E_NOTFOUND, NULL, "the owner of window %llu is unknown", (unsigned long long)w->id);
    user_name(u[0], user);
    return PG_OK;
}

pg_err pg_identity_process_owner(int64_t pid, char user[64], bool *admin, pg_error *e) {
    unsigned u[4];
    if (!read_uids(&pg_posix_env_system, pid, u))
        return pg_error_set(e, PG_E_NOTFOUND, NULL, "process %lld cannot be examined", (long long)pid);
    if (!(u[0] == u[1] && u[1] == u[2] && u[2] == u[3]))
        return pg_error_set(e, PG_E_NOTFOUND, NULL, "process %lld has no single owner", (long long)pid);
    user_name(u[0], user);
    *admin = u[0] == 0;
    return PG_OK;
}

/* Clock ticks since boot at which the process started (field 22 of
 * /proc/PID/stat, after the parenthesised comm, which may hold spaces). */
static bool start_ticks(int64_t pid, unsigned long long *ticks) {
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%lld/stat", (long long)pid);
    FILE *f = fopen(path, "re");
    if (!f) return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p) return false;
    /* after ") ": state is field 3; starttime is field 22, 19 further on */
    return sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", ticks) == 1;
}

static long long boot_time_s(void) {
    FILE *f = fopen("/proc/stat", "re");
    if (!f) return -1;
    char line[256];
    long long bt = -1;
    while (bt < 0 && fgets(line, sizeof line, f))
        if (sscanf(line, "btime %lld", &bt) != 1) bt = -1;
    fclose(f);
    return bt;
}

int64_t pg_identity_process_started_ms(int64_t pid) {
    unsigned long long ticks;
    long hz = sysconf(_SC_CLK_TCK);
    long long bt = boot_time_s();
    if (pid <= 0 || hz <= 0 || bt < 0 || !start_ticks(pid, &ticks)) return 0;
    return (int64_t)bt * 1000 + (int64_t)(ticks * 1000 / (unsigned long long)hz);
}
