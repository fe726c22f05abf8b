/* SPDX-License-Identifier: MIT */
/* pg_posix_session.c - the session socket, the checks that admit a
 * pixelgate-session helper, and the link the helper proxy uses (see
 * pg_posix_session.h for the contract).
 *
 * Why setgid and not /proc/PID/exe: the broker runs as its own account, and
 * the kernel shows /proc/PID/exe of another account's process only to a
 * tracer-capable caller (ptrace access mode); giving the broker
 * CAP_SYS_PTRACE to read it would be far more power than the question
 * needs. The effective gid in SO_PEERCRED answers the same question with
 * the kernel as witness: only exec of a root-made set-group-ID file grants
 * it, a copy loses the bit, and execve under a tracer does not apply it.
 * The setgid process is also not dumpable, so the user's other processes
 * cannot attach to it afterwards.
 */
#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "pg_audit.h"
#include "pg_helper.h"
#include "pg_log.h"
#include "pg_posix_peer.h"
#include "pg_posix_session.h"
#include "pg_proto.h"
#include "pg_server.h"
#include "pg_time.h"

#define REGISTER_MS 5000u
#define MAX_PENDING 8 /* registrations being read at once */
#define FIX_TIP                                                                                                    \
    "the desktop user's session runs pixelgate-session: log in again, or enable it "                               \
    "(systemctl --user enable --now pixelgate-session, or the autostart entry pixelgate-session.desktop)"

/* One registered helper. The registry holds a reference while it is the
 * display's helper, each link another; the connection closes with the last. */
typedef struct {
    int refs;
    int fd;
    pg_conn *conn;
    bool dead;
    uint32_t uid;
    int64_t pid;
    char user[64];
    char display[128];
    char session[24];
    char since[32];
} slot;

static struct {
    pthread_mutex_t lock;
    pg_broker *b;
    char socket_path[108];
    char helper_exe[4096];
    char display[128];
    gid_t helper_gid;
    bool have_group;
    int listen_fd;
    pthread_t thread;
    bool running;
    volatile int stop;
    int pending;
    slot *cur;           /* the display's helper, NULL: none */
    bool claimed;        /* a root-owned display's first admitted uid */
    uint32_t claimed_uid;
} R = {.lock = PTHREAD_MUTEX_INITIALIZER, .listen_fd = -1};

/* --------------------------------------------------------------- slots */

static void slot_unref_locked(slot *s) {
    if (!s || --s->refs > 0) return;
    pg_conn_close(s->conn);
    free(s);
}

/* The helper's end has closed (a peek reads end of stream)? A reply in
 * flight reads as data, an idle helper as nothing to read: both alive. */
static bool slot_alive_locked(slot *s) {
    if (s->dead) return false;
    char c;
    ssize_t n = recv(s->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) s->dead = true;
    return !s->dead;
}

static void slot_end_locked(slot *s) {
    s->dead = true;
    shutdown(s->fd, SHUT_RDWR); /* the helper sees the end and registers again */
}

/* ---------------------------------------------------------------- link */

typedef struct {
    slot *s;
} plink;

static pg_err gone_error(const slot *s, pg_error *e) {
    return pg_error_set(e, PG_E_UNREACHABLE, FIX_TIP,
                        "the session helper for display %s (user %s, pid %lld) is gone", s->display, s->user,
                        (long long)s->pid);
}

static pg_err link_ensure(void *ctx, pg_conn **conn, pg_error *e) {
    plink *l = ctx;
    pthread_mutex_lock(&R.lock);
    bool alive = slot_alive_locked(l->s) && R.cur == l->s;
    pthread_mutex_unlock(&R.lock);
    *conn = alive ? l->s->conn : NULL;
    return alive ? PG_OK : gone_error(l->s, e);
}

static void link_stop(void *ctx) {
    plink *l = ctx;
    pthread_mutex_lock(&R.lock);
    slot_end_locked(l->s);
    pthread_mutex_unlock(&R.lock);
}

static bool link_gone(void *ctx, char *why, size_t n) {
    plink *l = ctx;
    pthread_mutex_lock(&R.lock);
    bool gone = !slot_alive_locked(l->s) || R.cur != l->s;
    pthread_mutex_unlock(&R.lock);
    if (gone)
        snprintf(why, n, "the session helper for %s (user %s, pid %lld) is gone", l->s->display, l->s->user,
                 (long long)l->s->pid);
    return gone;
}

static void link_describe(void *ctx, char *out, size_t cap) {
    const slot *s = ((plink *)ctx)->s;
    snprintf(out, cap, "pixelgate-session pid %lld, user %s, %s on %s, since %s", (long long)s->pid, s->user,
             s->session, s->display, s->since);
}

/* Only the helper's user's windows, by the rule input already holds a
 * window to (pg_posix_window_owned: all four uids the user's, not a reused
 * pid): a window of another account, or of no known process, is not this
 * helper's to speak for. */
static void link_filter(void *ctx, pg_window *w, size_t *n) {
    const slot *s = ((plink *)ctx)->s;
    size_t k = 0;
    for (size_t i = 0; i < *n; i++)
        if (pg_posix_window_owned(&pg_posix_env_system, w[i].id, w[i].pid, s->uid)) w[k++] = w[i];
    *n = k;
}

static void link_free(void *ctx) {
    plink *l = ctx;
    pthread_mutex_lock(&R.lock);
    slot_unref_locked(l->s);
    pthread_mutex_unlock(&R.lock);
    free(l);
}

static const pg_helper_link_ops posix_link = {.ensure = link_ensure,
                                              .stop = link_stop,
                                              .gone = link_gone,
                                              .describe = link_describe,
                                              .filter = link_filter,
                                              .free = link_free,
                                              .tip = FIX_TIP};

pg_err pg_helper_link_open(pg_platform **out, const char *display, pg_error *e) {
    *out = NULL;
    plink *l = calloc(1, sizeof *l);
    if (!l) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    pthread_mutex_lock(&R.lock);
    slot *s = R.cur;
    pg_err rc = PG_OK;
    if (!R.running)
        rc = pg_error_set(e, PG_E_UNREACHABLE, "start pixelgated with --display-source session-helper",
                          "the broker does not take session helpers");
    else if (!s)
        rc = pg_error_set(e, PG_E_UNREACHABLE, FIX_TIP, "no session helper is registered for display %s",
                          display && display[0] ? display : R.display);
    else if (!slot_alive_locked(s))
        rc = gone_error(s, e);
    else
        s->refs++, l->s = s;
    pthread_mutex_unlock(&R.lock);
    if (rc) {
        free(l);
        return rc;
    }
    return pg_helper_proxy_new(out, &posix_link, l, 0, e);
}

/* -------------------------------------------------------- registration */

typedef struct {
    int fd;
    pg_conn *conn;
    pg_peer peer; /* the kernel's answer (SO_PEERCRED, passwd, /proc) */
} caller;

/* The installed helper: root's, set-group-ID to the helper group, written by no one else. */
static pg_err check_installed(struct stat *st, pg_error *e) {
    if (!R.have_group)
        return pg_error_set(e, PG_E_POLICY, "install the package (it creates the group)",
                            "the group of the session helper does not exist");
    if (stat(R.helper_exe, st) != 0)
        return pg_error_set(e, PG_E_POLICY, "install the package", "the session helper %s is not installed: %s",
                            R.helper_exe, strerror(errno));
    if (!S_ISREG(st->st_mode) || st->st_uid != 0 || st->st_gid != R.helper_gid || !(st->st_mode & S_ISGID) ||
        (st->st_mode & (S_IWGRP | S_IWOTH)))
        return pg_error_set(e, PG_E_POLICY, "reinstall the package",
                            "the session helper %s is not root-owned, set-group-ID and written by root only "
                            "(mode %04o, owner %u:%u)",
                            R.helper_exe, (unsigned)(st->st_mode & 07777), (unsigned)st->st_uid,
                            (unsigned)st->st_gid);
    return PG_OK;
}

static long tracer_of(pid_t pid) {
    char path[64], line[256];
    long tracer = -1;
    snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    FILE *f = fopen(path, "re");
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "TracerPid: %ld", &tracer) == 1) break;
    if (f) fclose(f);
    return tracer;
}

/* Checks (1)-(3): the caller is the packaged helper, untraced. */
static pg_err check_integrity(const caller *c, pg_error *e) {
    struct stat st;
    pg_err rc = check_installed(&st, e);
    if (rc) return rc;
    long tracer = tracer_of(c->peer.pid);
    if (tracer != 0)
        return pg_error_set(e, PG_E_POLICY, "run pixelgate-session without a debugger or tracer",
                            tracer > 0 ? "the session helper (pid %ld) is being traced by pid %ld: refused"
                                       : "the session helper (pid %ld) has no readable status (%ld): refused",
                            (long)c->peer.pid, tracer);
    if (c->peer.gid != R.helper_gid)
        return pg_error_set(e, PG_E_POLICY, "start the installed pixelgate-session, not a copy",
                            "pid %ld is not the packaged session helper: its effective gid is %u, not %u "
                            "(a copy of the binary, or one started under a tracer)",
                            (long)c->peer.pid, (unsigned)c->peer.gid, (unsigned)R.helper_gid);
    char path[64];
    struct stat ex;
    snprintf(path, sizeof path, "/proc/%ld/exe", (long)c->peer.pid);
    if (stat(path, &ex) == 0 && (ex.st_dev != st.st_dev || ex.st_ino != st.st_ino))
        return pg_error_set(e, PG_E_POLICY, "start the installed pixelgate-session",
                            "pid %ld runs another program than %s", (long)c->peer.pid, R.helper_exe);
    return PG_OK;
}

/* The uid that owns a display: a Wayland NAME@USER's user; an X display's
 * socket's owner. -1 when root's or unknown. */
static long display_owner(const char *display) {
    unsigned n;
    char path[64];
    struct stat st;
    const char *at = strrchr(display, '@');
    if (at) {
        struct passwd pw, *res = NULL;
        char buf[2048];
        return getpwnam_r(at + 1, &pw, buf, sizeof buf, &res) == 0 && res && pw.pw_uid ? (long)pw.pw_uid : -1;
    }
    if (sscanf(display, ":%u", &n) != 1) return -1;
    snprintf(path, sizeof path, "/tmp/.X11-unix/X%u", n);
    if (stat(path, &st) != 0 || st.st_uid == 0) return -1;
    return (long)st.st_uid;
}

/* The display a registration claims, as the broker names it: an X display
 * is ":N" (one per machine); a Wayland display's name is only the user's
 * own (every user's runtime directory has its wayland-0), so the broker
 * names it NAME@USER, USER being the caller's account from SO_PEERCRED. */
static void claimed_display(const caller *c, const char *display, const char *session, char *out, size_t n) {
    if (!strcmp(session, "x11")) snprintf(out, n, "%s", display);
    else snprintf(out, n, "%s@%s", display, c->peer.user);
}

static bool session_served(const char *session) {
    return !strcmp(session, "x11") || !strcmp(session, "wayland-wlroots");
}

/* Checks (4)-(7), under the registry lock; display is claimed_display's. */
static pg_err check_claim_locked(const caller *c, const char *display, const char *session, pg_error *e) {
    if (!session_served(session))
        return pg_error_set(e, PG_E_UNSUPPORTED, "use an X11 or a wlroots (sway) session for now",
                            "session type \"%s\" is not served by this broker yet (x11 and wayland-wlroots are)",
                            session);
    if (strcmp(display, R.display) != 0)
        return pg_error_set(e, PG_E_POLICY, "start pixelgate-session in the desktop session of the broker's display",
                            "this broker serves display %s, not %s", R.display, display);
    long owner = display_owner(display);
    if (owner >= 0 && (uint32_t)owner != c->peer.uid)
        return pg_error_set(e, PG_E_POLICY, NULL, "display %s belongs to uid %ld, not to %s (uid %u)", display, owner,
                            c->peer.user, (unsigned)c->peer.uid);
    if (owner < 0 && R.claimed && R.claimed_uid != c->peer.uid)
        return pg_error_set(e, PG_E_POLICY, NULL,
                            "display %s was first claimed by uid %u since the broker started, not by %s (uid %u)",
                            display, (unsigned)R.claimed_uid, c->peer.user, (unsigned)c->peer.uid);
    if (R.cur && slot_alive_locked(R.cur))
        return pg_error_set(e, PG_E_POLICY, "one helper per display: the running one serves it",
                            "a session helper (pid %lld) is already registered for display %s",
                            (long long)R.cur->pid, display);
    return PG_OK;
}

static void audit_register(const caller *c, const char *display, const char *session, pg_err outcome,
                           const char *reason) {
    char detail[160];
    snprintf(detail, sizeof detail, "display %s, session %s", display, session);
    pg_audit_event ev = {.principal = {.uid = c->peer.uid, .user = c->peer.user, .pid = c->peer.pid,
                                       .comm = c->peer.comm},
                         .op = "session.register",
                         .disposition = {.kind = "session", .detail = detail, .reason = reason},
                         .outcome = outcome};
    pg_error e;
    if (pg_audit_append(R.b->audit, &ev, &e)) pg_log(PG_LOG_ERROR, "audit: %s", e.message);
}

/* What an x11 helper may be asked: every primitive the protocol carries. */
static cJSON *allowlist(void) {
    const char *const *ops;
    size_t n = pg_helper_ops_carried(&ops);
    return cJSON_CreateStringArray(ops, (int)n);
}

/* Reads and judges one registration; on success the connection becomes the
 * display's helper. */
static void register_one(caller *c) {
    static const pg_arg_spec spec[] = {
        {"display", PG_ARG_STRING, true}, {"session", PG_ARG_STRING, true}, {"version", PG_ARG_STRING, false}};
    pg_proto_limits lim;
    pg_proto_limits_default(&lim);
    lim.max_header = 4096;
    lim.max_attachments = 0;
    pg_msg m;
    pg_request req = {0};
    pg_error e;
    pg_error_clear(&e);
    pg_conn_set_timeout(c->conn, REGISTER_MS);
    pg_err rc = pg_proto_read(c->conn, &lim, &m, &e);
    if (rc) {
        pg_log(PG_LOG_INFO, "session socket: pid %ld sent no registration: %s", (long)c->peer.pid, e.message);
        return;
    }
    rc = pg_proto_parse_request(m.header, &req, &e);
    if (!rc && strcmp(req.op, "register") != 0)
        rc = pg_error_set(&e, PG_E_USAGE, NULL, "the session socket takes \"register\" only, not \"%s\"", req.op);
    if (!rc) rc = pg_args_check(req.args, spec, 3, &e);
    char display[128] = "?", session[24] = "?";
    if (!rc) {
        snprintf(session, sizeof session, "%s", pg_args_str(req.args, "session", ""));
        claimed_display(c, pg_args_str(req.args, "display", ""), session, display, sizeof display);
        rc = check_integrity(c, &e);
    }
    slot *s = NULL;
    if (!rc) {
        pthread_mutex_lock(&R.lock);
        rc = check_claim_locked(c, display, session, &e);
        if (!rc && (s = calloc(1, sizeof *s)) == NULL) rc = pg_error_set(&e, PG_E_INTERNAL, NULL, "out of memory");
        if (!rc) {
            *s = (slot){.refs = 1, .fd = c->fd, .conn = c->conn, .uid = c->peer.uid, .pid = c->peer.pid};
            snprintf(s->user, sizeof s->user, "%s", c->peer.user);
            snprintf(s->display, sizeof s->display, "%s", display);
            snprintf(s->session, sizeof s->session, "%s", session);
            time_t now = time(NULL);
            struct tm tm;
            strftime(s->since, sizeof s->since, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
        }
        pthread_mutex_unlock(&R.lock);
    }
    audit_register(c, display, session, rc, rc ? e.message : NULL);
    cJSON *reply;
    if (rc) {
        pg_log(PG_LOG_WARN, "session helper refused: %s", e.message);
        reply = pg_proto_response_err(req.id, &e, NULL);
    } else {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddItemToObject(r, "allow", allowlist());
        cJSON_AddNumberToObject(r, "uid", c->peer.uid);
        reply = pg_proto_response_ok(req.id, r);
    }
    pg_msg_fini(&m);
    pg_conn_set_timeout(c->conn, REGISTER_MS);
    pg_err wrc = reply ? pg_proto_write(c->conn, reply, NULL, 0, &e) : PG_E_INTERNAL;
    cJSON_Delete(reply);
    if (rc) return;
    pthread_mutex_lock(&R.lock);
    if (wrc) { /* it did not hear us: it is not the display's helper */
        s->refs = 0;
        free(s);
    } else {
        slot *old = R.cur;
        R.cur = s;
        if (old) slot_end_locked(old), slot_unref_locked(old);
        if (display_owner(display) < 0) R.claimed = true, R.claimed_uid = c->peer.uid;
        c->conn = NULL; /* the slot's now */
        pg_log(PG_LOG_INFO, "session helper registered: pid %lld, user %s, %s on %s", (long long)s->pid, s->user,
               s->session, s->display);
    }
    pthread_mutex_unlock(&R.lock);
}

static void pending_add(int d) {
    pthread_mutex_lock(&R.lock);
    R.pending += d;
    pthread_mutex_unlock(&R.lock);
}

/* Who is calling, then the registration itself: off the accept loop, which
 * a slow or silent caller must not hold up. */
static void *registration_thread(void *arg) {
    caller *c = arg;
    pg_error e;
    if (pg_posix_peer_from_socket(c->fd, &c->peer, &e) == PG_OK) register_one(c);
    else pg_log(PG_LOG_WARN, "session socket: %s", e.message);
    if (c->conn) pg_conn_close(c->conn);
    free(c);
    pending_add(-1);
    return NULL;
}

static void accept_one(void) {
    int fd = accept4(R.listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0) return;
    caller *c = calloc(1, sizeof *c);
    pg_error e;
    pthread_mutex_lock(&R.lock);
    bool ok = c && R.pending < MAX_PENDING;
    if (ok) R.pending++;
    pthread_mutex_unlock(&R.lock);
    if (!ok || pg_conn_from_fd(&c->conn, fd, REGISTER_MS, &e) != PG_OK) {
        if (ok) pending_add(-1);
        close(fd);
        free(c);
        return;
    }
    c->fd = fd;
    if (!pg_server_start_thread(registration_thread, c)) {
        pg_conn_close(c->conn);
        free(c);
        pending_add(-1);
    }
}

static void *listen_thread(void *arg) {
    (void)arg;
    while (!R.stop) {
        struct pollfd p = {R.listen_fd, POLLIN, 0};
        if (poll(&p, 1, 250) > 0) accept_one();
    }
    return NULL;
}

pg_err pg_posix_session_start(pg_broker *b, const pg_posix_session_opts *o, pg_error *e) {
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(o->socket_path) >= sizeof a.sun_path)
        return pg_error_set(e, PG_E_USAGE, NULL, "session socket path too long: %s", o->socket_path);
    if (!o->display || !o->display[0])
        return pg_error_set(e, PG_E_USAGE, "give --display", "a session helper serves a display: none given");
    snprintf(a.sun_path, sizeof a.sun_path, "%s", o->socket_path);
    struct group gr, *res = NULL;
    char buf[4096];
    R.have_group = getgrnam_r(o->helper_group, &gr, buf, sizeof buf, &res) == 0 && res;
    if (R.have_group) R.helper_gid = gr.gr_gid;
    else pg_log(PG_LOG_WARN, "group %s does not exist: every session helper will be refused", o->helper_group);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return pg_error_set(e, PG_E_INTERNAL, NULL, "session socket: %s", strerror(errno));
    unlink(a.sun_path);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || chmod(a.sun_path, 0666) != 0 || listen(fd, 16) != 0) {
        int err = errno;
        close(fd);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "session socket %s: %s", o->socket_path, strerror(err));
    }
    R.b = b;
    R.listen_fd = fd;
    snprintf(R.socket_path, sizeof R.socket_path, "%s", o->socket_path);
    snprintf(R.helper_exe, sizeof R.helper_exe, "%s", o->helper_exe);
    snprintf(R.display, sizeof R.display, "%s", o->display);
    R.stop = 0;
    if (pthread_create(&R.thread, NULL, listen_thread, NULL) != 0) {
        close(fd);
        R.listen_fd = -1;
        return pg_error_set(e, PG_E_INTERNAL, NULL, "session socket: no thread");
    }
    R.running = true;
    pg_log(PG_LOG_INFO, "session helpers: listening on %s for display %s (helper %s, group %s)", o->socket_path,
           o->display, o->helper_exe, o->helper_group);
    return PG_OK;
}

void pg_posix_session_stop(void) {
    if (!R.running) return;
    R.stop = 1;
    pthread_join(R.thread, NULL);
    close(R.listen_fd);
    unlink(R.socket_path);
    /* A registration still being read would audit into a broker being torn
     * down: wait for those (each is bounded by REGISTER_MS). */
    for (int waited = 0; waited < (int)REGISTER_MS + 1000; waited += 10) {
        pthread_mutex_lock(&R.lock);
        int pending = R.pending;
        pthread_mutex_unlock(&R.lock);
        if (!pending) break;
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    pthread_mutex_lock(&R.lock);
    R.running = false;
    if (R.cur) slot_end_locked(R.cur), slot_unref_locked(R.cur), R.cur = NULL;
    pthread_mutex_unlock(&R.lock);
}
