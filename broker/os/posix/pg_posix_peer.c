/* pg_posix_peer.c - who a POSIX peer is (see pg_posix_peer.h). The Windows
 * twin is broker/os/win/pg_win_peer.c. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pg_log.h"
#include "pg_posix_peer.h"

const pg_posix_env pg_posix_env_system = {"/proc", "/run/systemd/sessions", 0};

/* One line of at most n-1 bytes from env->proc/PID/name, without its newline. */
static bool read_proc(const pg_posix_env *env, int64_t pid, const char *name, char *out, size_t n) {
    char path[512];
    snprintf(path, sizeof path, "%s/%lld/%s", env->proc, (long long)pid, name);
    FILE *f = fopen(path, "re");
    if (!f) return false;
    bool ok = fgets(out, (int)n, f) != NULL;
    fclose(f);
    if (ok) out[strcspn(out, "\n")] = '\0';
    return ok;
}

/* ---- processes as /proc shows them ------------------------------------- */

#define NO_SESSION 4294967295u /* an audit session id that was never set */
#define MAX_DEPTH 64           /* ancestors walked before giving up */

typedef struct {
    int64_t ppid;
    unsigned long long start; /* clock ticks after boot (field 22) */
} proc_stat;

/* /proc/PID/stat after the comm, which may hold spaces and parentheses:
 * the fields start after the last ')'. */
static bool read_stat(const pg_posix_env *env, int64_t pid, proc_stat *st) {
    char buf[1024];
    if (pid <= 0 || !read_proc(env, pid, "stat", buf, sizeof buf)) return false;
    char *p = strrchr(buf, ')');
    if (!p) return false;
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
    char path[512], line[256];
    snprintf(path, sizeof path, "%s/%lld/status", env->proc, (long long)pid);
    FILE *f = pid > 0 ? fopen(path, "re") : NULL;
    if (!f) return false;
    bool ok = false;
    while (!ok && fgets(line, sizeof line, f)) ok = sscanf(line, "Uid: %u %u %u %u", &u[0], &u[1], &u[2], &u[3]) == 4;
    fclose(f);
    return ok;
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
 * called sshd). */
static bool trusted_sshd(const pg_posix_env *env, int64_t pid) {
    char comm[64];
    if (!read_proc(env, pid, "comm", comm, sizeof comm)) return false;
    if (strcmp(comm, "sshd") != 0 && strcmp(comm, "sshd-session") != 0) return false;
    return all_uids(env, pid, env->trusted_uid);
}

/* A root-owned sshd among pid and its ancestors (pid 1 is an init, not a
 * login, whatever it is called). */
static bool under_sshd(const pg_posix_env *env, int64_t pid, int64_t *which) {
    for (int depth = 0; pid > 1 && depth < MAX_DEPTH; depth++) {
        if (trusted_sshd(env, pid)) {
            *which = pid;
            return true;
        }
        proc_stat st;
        if (!read_stat(env, pid, &st) || st.ppid == pid) return false;
        pid = st.ppid;
    }
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
        if (read_sessionid(env, pid) != id || !trusted_sshd(env, pid)) continue;
        proc_stat st;
        if (!read_stat(env, pid, &st) || !trusted_sshd(env, st.ppid) || read_sessionid(env, st.ppid) == id) continue;
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
    if (under_sshd(env, pid, &sshd)) {
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

/* ---- the account databases -------------------------------------------- */

#define DB_BUF_MAX (1u << 20)    /* an entry needing more than 1 MiB is not believed */
#define MAX_USER_GROUPS 65536u   /* groups of one user, as getgrouplist reports them */

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

/* The account name of uid, or the uid in decimal. */
static void user_name(uid_t uid, char out[64]) {
    struct passwd pw;
    char *mem = NULL;
    if (pw_lookup(uid, &pw, &mem)) snprintf(out, 64, "%s", pw.pw_name);
    else snprintf(out, 64, "%u", (unsigned)uid);
    free(mem);
}

/* All groups of a user (primary and supplementary), grown past 64 when it
 * has more; malloc'd, *n set; NULL when there is no memory. */
static gid_t *user_groups(const char *name, gid_t primary, int *n) {
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

void pg_broker_principal(const pg_peer *peer, pg_principal *p, const char **groups, size_t max_groups, char *buf,
                         size_t buflen) {
    pg_principal_start(p, peer->uid, peer->user, groups);
    struct passwd pw;
    char *pwmem = NULL;
    if (!pw_lookup(peer->uid, &pw, &pwmem)) return;
    int ng = 0;
    gid_t *gids = user_groups(pw.pw_name, pw.pw_gid, &ng);
    size_t used = 0;
    for (int i = 0; gids && i < ng; i++) {
        struct group gr;
        char *grmem = NULL;
        if (!gr_lookup(gids[i], &gr, &grmem)) continue;
        bool added = pg_principal_add_group(p, max_groups, buf, buflen, &used, gr.gr_name);
        free(grmem);
        if (!added) break;
    }
    free(gids);
    free(pwmem);
}

bool pg_peer_is_remote(const pg_peer *p) { return p->remote; }

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

pg_err pg_broker_input_target(const pg_window *w, const pg_peer *peer, bool *same_owner, pg_error *e) {
    (void)e;
    *same_owner = pg_posix_window_owned(&pg_posix_env_system, w->id, w->pid, peer->uid);
    return PG_OK;
}

pg_err pg_broker_process_owner(int64_t pid, char user[64], bool *admin, pg_error *e) {
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

int64_t pg_broker_process_started_ms(int64_t pid) {
    unsigned long long ticks;
    long hz = sysconf(_SC_CLK_TCK);
    long long bt = boot_time_s();
    if (pid <= 0 || hz <= 0 || bt < 0 || !start_ticks(pid, &ticks)) return 0;
    return (int64_t)bt * 1000 + (int64_t)(ticks * 1000 / (unsigned long long)hz);
}
