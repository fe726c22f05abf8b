/* pg_posix_peer.c - who a POSIX peer is (see pg_posix_peer.h). The Windows
 * twin is broker/os/win/pg_win_peer.c. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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

bool pg_posix_remote(const pg_posix_env *env, int64_t pid, char *why, size_t n) {
    /* An SSH-forwarded Unix socket is connected by the login's sshd process
     * (the kernel names it as the peer), so sshd as peer means a remote driver. */
    char comm[64] = "";
    read_proc(env, pid, "comm", comm, sizeof comm);
    bool remote = strcmp(comm, "sshd") == 0 || strncmp(comm, "sshd-", 5) == 0;
    if (why && n) snprintf(why, n, "%s", remote ? "the peer is sshd" : "local");
    return remote;
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
    struct passwd pw, *res = NULL;
    char buf[1024];
    if (getpwuid_r(cr.uid, &pw, buf, sizeof buf, &res) == 0 && res)
        snprintf(p->user, sizeof p->user, "%s", pw.pw_name);
    else
        snprintf(p->user, sizeof p->user, "%u", (unsigned)cr.uid);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/exe", (int)cr.pid);
    ssize_t n = readlink(path, p->exe, sizeof p->exe - 1); /* readable only for our own uid */
    p->exe[n > 0 ? n : 0] = '\0';
    read_proc(&pg_posix_env_system, cr.pid, "comm", p->comm, sizeof p->comm);
    p->remote = pg_posix_remote(&pg_posix_env_system, cr.pid, p->remote_why, sizeof p->remote_why);
    return PG_OK;
}

void pg_broker_principal(const pg_peer *peer, pg_principal *p, const char **groups, size_t max_groups, char *buf,
                         size_t buflen) {
    uint32_t uid = peer->uid;
    pg_principal_start(p, uid, peer->user, groups);
    struct passwd pw, *pwr = NULL;
    char pwbuf[1024];
    if (getpwuid_r(uid, &pw, pwbuf, sizeof pwbuf, &pwr) != 0 || !pwr) return;
    gid_t gids[64];
    int ng = 64;
    if (getgrouplist(pw.pw_name, pw.pw_gid, gids, &ng) < 0) ng = 64;
    size_t used = 0;
    for (int i = 0; i < ng; i++) {
        struct group gr, *grr = NULL;
        char grbuf[1024];
        if (getgrgid_r(gids[i], &gr, grbuf, sizeof grbuf, &grr) != 0 || !grr) continue;
        if (!pg_principal_add_group(p, max_groups, buf, buflen, &used, gr.gr_name)) break;
    }
}

bool pg_peer_is_remote(const pg_peer *p) { return p->remote; }

bool pg_posix_window_owned(const pg_posix_env *env, uint64_t window_id, int64_t pid, uint32_t uid) {
    (void)window_id;
    if (pid <= 0) return false;
    char path[512], line[256];
    snprintf(path, sizeof path, "%s/%lld/status", env->proc, (long long)pid);
    FILE *f = fopen(path, "re");
    if (!f) return false;
    bool owned = false;
    while (fgets(line, sizeof line, f)) {
        unsigned real;
        if (sscanf(line, "Uid: %u", &real) == 1) {
            owned = real == uid;
            break;
        }
    }
    fclose(f);
    return owned;
}

pg_err pg_broker_input_target(const pg_window *w, const pg_peer *peer, bool *same_owner, pg_error *e) {
    (void)e;
    *same_owner = pg_posix_window_owned(&pg_posix_env_system, w->id, w->pid, peer->uid);
    return PG_OK;
}

pg_err pg_broker_process_owner(int64_t pid, char user[64], bool *admin, pg_error *e) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%lld/status", (long long)pid);
    FILE *f = pid > 0 ? fopen(path, "re") : NULL;
    if (!f) return pg_error_set(e, PG_E_NOTFOUND, NULL, "process %lld cannot be examined", (long long)pid);
    unsigned u[4];
    bool agree = false;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Uid: %u %u %u %u", &u[0], &u[1], &u[2], &u[3]) == 4) {
            agree = u[0] == u[1] && u[1] == u[2] && u[2] == u[3];
            break;
        }
    fclose(f);
    if (!agree) return pg_error_set(e, PG_E_NOTFOUND, NULL, "process %lld has no single owner", (long long)pid);
    struct passwd pw, *res = NULL;
    char buf[1024];
    if (getpwuid_r(u[0], &pw, buf, sizeof buf, &res) == 0 && res) snprintf(user, 64, "%s", pw.pw_name);
    else snprintf(user, 64, "%u", u[0]);
    *admin = u[0] == 0;
    return PG_OK;
}
