/* SPDX-License-Identifier: MIT */
/* pixelgated - the capture broker. Runs as its own account (system user
 * `pixelgate`), owns the display connection, the token spool and every
 * capture; clients reach it only through the socket. See docs/architecture.md. */
#include <systemd/sd-daemon.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "ocr/pg_ocr.h"
#include "pg_broker.h"
#include "pg_handlers.h"
#include "pg_log.h"
#include "pg_helper.h"
#include "pg_posix_listener.h"
#include "pg_posix_logind.h"
#include "pg_posix_session.h"
#include "pg_server.h"

typedef struct {
    const char *socket_path;
    const char *state_dir;
    const char *display;
    bool foreground;
    bool allow_root;
    unsigned socket_mode;
    unsigned max_conns;
    unsigned queue_max;       /* 0: twice max_conns */
    uint32_t queue_wait_ms;
    uint32_t ttl_s;
    bool ttl_given, quota_given; /* ceilings over the policy only when given */
    uint64_t quota_bytes;
    uint64_t memory_budget;
    uint64_t pixel_budget;
    unsigned tokens_per_user;
    unsigned display_readers, ocr_engines;
    bool no_ocr_cache;
    uint32_t io_timeout_ms;
    bool debug;
    const char *policy_path;
    const char *verify_audit; /* --verify-audit FILE: check and exit */
    const char *journal_socket;
    const char *anchor;
    bool via_helper;          /* --display-source session-helper */
    const char *session_socket, *session_helper, *session_group;
} options;

static volatile sig_atomic_t stop_flag, hup_flag;
static void on_signal(int sig) { stop_flag = sig; }
static void on_hup(int sig) { hup_flag = sig; }

static void usage(FILE *f) {
    fprintf(f,
            "usage: pixelgated [options]\n"
            "  --socket PATH        listen here (default /run/pixelgate/broker.sock)\n"
            "  --state-dir DIR      spool and state (default /var/lib/pixelgate); must not be\n"
            "                       writable by group or others\n"
            "  --display NAME       X display (default $DISPLAY; without it, auto: the display of seat0's\n"
            "                       active x11 session, asked of logind each time the display is opened)\n"
            "  --display-source x11|session-helper\n"
            "                       x11 (default): open the display directly (the desktop user grants\n"
            "                       it: xhost +SI:localuser:pixelgate); session-helper: reach it through\n"
            "                       pixelgate-session, run by the desktop user's session\n"
            "  --session-socket PATH  where pixelgate-session registers (default " PG_SESSION_SOCKET_DEFAULT ")\n"
            "  --session-helper PATH  the packaged helper, root-owned and setgid\n"
            "                       (default " PG_SESSION_HELPER_DEFAULT ")\n"
            "  --session-group NAME   its group (default " PG_SESSION_GROUP_DEFAULT ")\n"
            "  --policy FILE        the administrator's policy (default " PG_POLICY_DEFAULT_PATH ");\n"
            "                       must be owned by root and writable by nobody else; SIGHUP reloads it\n"
            "  --foreground         stay in the foreground (systemd); otherwise detach once listening\n"
            "  --socket-mode OCTAL  socket permissions (default 0666; admission is policy's job)\n"
            "  --token-ttl SECONDS  a ceiling on token lifetimes (the policy's tokens.ttl_s, default 3600)\n"
            "  --spool-quota MIB    a ceiling on all held captures, memory + spool (the policy's, default 1024)\n"
            "                       A limit set both here and in the policy takes the tighter; logged at start.\n"
            "  --tokens-per-user N  tokens one user may hold at once (default 10000)\n"
            "  --memory-budget MIB  captures kept in memory before spilling to the spool (default 256)\n"
            "  --pixel-budget MIB   decoded pixels of all requests at once: images sent, tokens loaded (default 1024)\n"
            "  --display-readers N  extra display connections that capture and list beside input (default 2)\n"
            "  --ocr-engines N      OCR engines reading at once, ~20 MB each (default 2)\n"
            "  --no-ocr-cache       read every OCR afresh: keep no results per user (at most 32 MiB)\n"
            "  --max-conns N        connections served at once, each by a thread, idle ones too (default 128)\n"
            "  --queue N            connections that wait for a worker when all are busy (default 2 x max-conns)\n"
            "  --queue-wait MS      how long one waits before it is answered BUSY (default 15000)\n"
            "  --io-timeout MS      the wait for a request, and for the whole of one request (default 30000)\n"
            "  --debug              log every request\n"
            "  --journal-socket PATH  where audit copies go under the policy's audit.journal\n"
            "                       (default /run/systemd/journal/socket)\n"
            "  --verify-audit FILE  check the audit log's hash chain (and rotated files), report, exit\n"
            "  --anchor SEQ:HASH    with --verify-audit: also check the log still reaches this record\n"
            "  --allow-root         permit running as root (testing only)\n"
            "  --version, --help\n");
}

static bool parse_uint(const char *s, unsigned base, unsigned long long max, unsigned long long *out) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, (int)base);
    if (errno || !*s || *end || v > max || s[0] == '-') return false;
    *out = v;
    return true;
}

/* Returns 0 ok, 2 usage error, 1 when --help/--version was answered. */
static int parse_args(int argc, char **argv, options *o) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned long long n;
#define NEED_VALUE()                                                       \
    do {                                                                   \
        if (!v) {                                                          \
            fprintf(stderr, "pixelgated: %s needs a value\n", a);          \
            return 2;                                                      \
        }                                                                  \
        i++;                                                               \
    } while (0)
#define NUMBER(base, max, dst)                                             \
    do {                                                                   \
        NEED_VALUE();                                                      \
        if (!parse_uint(v, base, max, &n)) {                               \
            fprintf(stderr, "pixelgated: bad value for %s: %s\n", a, v);   \
            return 2;                                                      \
        }                                                                  \
        dst = n;                                                           \
    } while (0)
        if (!strcmp(a, "--socket")) { NEED_VALUE(); o->socket_path = v; }
        else if (!strcmp(a, "--state-dir")) { NEED_VALUE(); o->state_dir = v; }
        else if (!strcmp(a, "--display")) { NEED_VALUE(); o->display = v; }
        else if (!strcmp(a, "--policy")) { NEED_VALUE(); o->policy_path = v; }
        else if (!strcmp(a, "--foreground")) o->foreground = true;
        else if (!strcmp(a, "--allow-root")) o->allow_root = true;
        else if (!strcmp(a, "--debug")) o->debug = true;
        else if (!strcmp(a, "--socket-mode")) NUMBER(8, 0777, o->socket_mode);
        else if (!strcmp(a, "--token-ttl")) { NUMBER(10, 30 * 86400, o->ttl_s); o->ttl_given = true; }
        else if (!strcmp(a, "--spool-quota")) { NUMBER(10, 1 << 20, o->quota_bytes); o->quota_bytes <<= 20; o->quota_given = true; }
        else if (!strcmp(a, "--tokens-per-user")) NUMBER(10, 10000000, o->tokens_per_user);
        else if (!strcmp(a, "--display-readers")) NUMBER(10, PG_PLAT_READERS_MAX, o->display_readers);
        else if (!strcmp(a, "--ocr-engines")) NUMBER(10, PG_OCR_ENGINES_MAX, o->ocr_engines);
        else if (!strcmp(a, "--no-ocr-cache")) o->no_ocr_cache = true;
        else if (!strcmp(a, "--pixel-budget")) { NUMBER(10, 1 << 20, o->pixel_budget); o->pixel_budget <<= 20; }
        else if (!strcmp(a, "--memory-budget")) { NUMBER(10, 1 << 20, o->memory_budget); o->memory_budget <<= 20; }
        else if (!strcmp(a, "--max-conns")) NUMBER(10, 4096, o->max_conns);
        else if (!strcmp(a, "--queue")) NUMBER(10, 65536, o->queue_max);
        else if (!strcmp(a, "--queue-wait")) NUMBER(10, 3600000, o->queue_wait_ms);
        else if (!strcmp(a, "--io-timeout")) NUMBER(10, 3600000, o->io_timeout_ms);
        else if (!strcmp(a, "--verify-audit")) { NEED_VALUE(); o->verify_audit = v; }
        else if (!strcmp(a, "--journal-socket")) { NEED_VALUE(); o->journal_socket = v; }
        else if (!strcmp(a, "--anchor")) { NEED_VALUE(); o->anchor = v; }
        else if (!strcmp(a, "--display-source")) {
            NEED_VALUE();
            if (strcmp(v, "x11") && strcmp(v, "session-helper")) {
                fprintf(stderr, "pixelgated: --display-source is x11 or session-helper, not %s\n", v);
                return 2;
            }
            o->via_helper = !strcmp(v, "session-helper");
        }
        else if (!strcmp(a, "--session-socket")) { NEED_VALUE(); o->session_socket = v; }
        else if (!strcmp(a, "--session-helper")) { NEED_VALUE(); o->session_helper = v; }
        else if (!strcmp(a, "--session-group")) { NEED_VALUE(); o->session_group = v; }
        else if (!strcmp(a, "--version")) { printf("pixelgated %s\n", PG_VERSION); return 1; }
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 1; }
        else {
            fprintf(stderr, "pixelgated: unknown option %s\n", a);
            usage(stderr);
            return 2;
        }
#undef NUMBER
#undef NEED_VALUE
    }
    if (o->max_conns == 0 || o->ttl_s == 0) {
        fprintf(stderr, "pixelgated: --max-conns and --token-ttl must be above zero\n");
        return 2;
    }
    return 0;
}

/* The state dir must be ours and closed to others: it holds the spool. */
static pg_err check_state_dir(const char *dir, pg_error *e) {
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "cannot create state dir %s: %s", dir, strerror(errno));
    struct stat st;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return pg_error_set(e, PG_E_BADINPUT, NULL, "state dir %s is not a directory", dir);
    if (st.st_uid != geteuid())
        return pg_error_set(e, PG_E_BADINPUT, "chown it to the broker's user", "state dir %s is owned by uid %u, not by the broker (uid %u)",
                            dir, (unsigned)st.st_uid, (unsigned)geteuid());
    if (st.st_mode & 022)
        return pg_error_set(e, PG_E_BADINPUT, "chmod 0700 it", "state dir %s is writable by group or others (mode %04o)", dir,
                            (unsigned)(st.st_mode & 07777));
    return PG_OK;
}

static pg_err make_spool(const char *state_dir, char *spool, size_t len, pg_error *e) {
    snprintf(spool, len, "%s/spool", state_dir);
    if (mkdir(spool, 0700) != 0 && errno != EEXIST)
        return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot create %s: %s", spool, strerror(errno));
    struct stat st;
    if (lstat(spool, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
        return pg_error_set(e, PG_E_BADINPUT, NULL, "%s is not a directory owned by the broker", spool);
    if ((st.st_mode & 0777) != 0700 && chmod(spool, 0700) != 0)
        return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot chmod 0700 %s", spool);
    return PG_OK;
}

/* Detach after the socket is listening: the parent exits 0 only once the
 * broker is ready, so scripts need no polling. */
static int ready_pipe[2] = {-1, -1};

static int daemonize(void) {
    if (pipe(ready_pipe) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid > 0) {
        close(ready_pipe[1]);
        char c;
        ssize_t r = read(ready_pipe[0], &c, 1);
        _exit(r == 1 ? 0 : 1);
    }
    close(ready_pipe[0]);
    setsid();
    return 0;
}

/* Ready: the socket listens, the policy is loaded and the display was
 * opened or its absence recorded. The service manager hears it first
 * (Type=notify; nothing happens without $NOTIFY_SOCKET), then a parent
 * waiting in daemonize. */
static void signal_ready(void) {
    sd_notify(0, "READY=1\nSTATUS=serving");
    if (ready_pipe[1] < 0) return;
    (void)!write(ready_pipe[1], "R", 1);
    close(ready_pipe[1]);
    ready_pipe[1] = -1;
    int fd = open("/dev/null", O_RDWR);
    if (fd >= 0) {
        dup2(fd, 0);
        dup2(fd, 1);
        if (fd > 1) close(fd);
    }
}

/* Captures are large, short-lived buffers made by many threads. glibc's
 * malloc would keep them in per-thread arenas (8 per core) and raise its
 * mmap threshold after the first big free, so freed captures stayed in the
 * process (RSS grew under token churn). A fixed threshold serves every
 * buffer of 128 KiB or more from its own mapping, given back at free; few
 * arenas keep the rest compact. The watcher trims what is left
 * (pg_broker.c). */
static void memory_returns(void) {
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    mallopt(M_ARENA_MAX, 4);
#endif
}

/* Could an account other than root make a "physical" key? /dev/uinput lets
 * whoever opens it create an input device the X server takes for a real
 * keyboard, so the person's stop key could be forged by an agent account.
 * Conservative on purpose: any access beyond root's (other bits, a group
 * other than root, an ACL such as udev's uaccess grants) means only root or
 * an approver may re-arm after a stop. A later module load is seen at the
 * next start or SIGHUP. */
static void uinput_forgeable(const char *path, char *why, size_t n) {
    struct stat st;
    why[0] = '\0';
    if (stat(path, &st) != 0) return; /* no uinput: nothing to forge with */
    if (st.st_mode & (S_IROTH | S_IWOTH)) snprintf(why, n, "%s is open to every account", path);
    else if (st.st_gid != 0 && (st.st_mode & (S_IRGRP | S_IWGRP)))
        snprintf(why, n, "%s is open to group %u", path, (unsigned)st.st_gid);
    else if (st.st_uid != 0) snprintf(why, n, "%s is owned by uid %u", path, (unsigned)st.st_uid);
    else if (getxattr(path, "system.posix_acl_access", NULL, 0) > 0)
        snprintf(why, n, "%s has an access list that may admit other accounts", path);
}

static void check_forgeable(pg_broker *b) {
    char why[256];
    uinput_forgeable("/dev/uinput", why, sizeof why);
    pg_broker_person_forgeable(b, why);
}

static void reload_all(pg_broker *b) {
    pg_broker_reload(b);
    check_forgeable(b);
}

int main(int argc, char **argv) {
    options o = {.socket_path = "/run/pixelgate/broker.sock", .state_dir = "/var/lib/pixelgate",
                 .display = getenv("DISPLAY"), .socket_mode = 0666, .max_conns = 128, .queue_wait_ms = 15000, .ttl_s = 3600, .display_readers = 2, .ocr_engines = 2,
                 .quota_bytes = 1024ull << 20, .memory_budget = 256ull << 20, .io_timeout_ms = 30000,
                 .session_socket = PG_SESSION_SOCKET_DEFAULT, .session_helper = PG_SESSION_HELPER_DEFAULT,
                 .session_group = PG_SESSION_GROUP_DEFAULT};
    int pr = parse_args(argc, argv, &o);
    if (pr) return pr == 1 ? 0 : PG_E_USAGE;
    if (!o.display || !o.display[0]) o.display = PG_DISPLAY_AUTO;
    if (o.verify_audit) return pg_broker_verify_audit(o.verify_audit, o.anchor);
    /* Tesseract must run single-threaded (OMP_THREAD_LIMIT=1, read at load):
     * re-exec with it set when it is not (a no-op otherwise). */
    pg_error oe;
    if (pg_ocr_ensure_single_thread(argv, &oe) != PG_OK) fprintf(stderr, "pixelgated: warning: %s\n", oe.message);
    setlocale(LC_ALL, "C.UTF-8"); /* regexes over UTF-8 titles */
    int listen_fd = -1; /* socket activation (pixelgate.socket): after the re-exec above, whose pid it names */
    int n_fds = sd_listen_fds(1);
    if (n_fds > 1 || (n_fds == 1 && sd_is_socket_unix(SD_LISTEN_FDS_START, SOCK_STREAM, 1, NULL, 0) <= 0)) {
        fprintf(stderr, "pixelgated: the service manager passed %d sockets; expected one listening Unix stream socket\n",
                n_fds);
        return PG_E_USAGE;
    }
    if (n_fds == 1) listen_fd = SD_LISTEN_FDS_START;
    memory_returns();
    umask(0077);
    pg_log_set_level(o.debug ? PG_LOG_DEBUG : PG_LOG_INFO);
    if (geteuid() == 0 && !o.allow_root) {
        fprintf(stderr, "pixelgated: refusing to run as root; run as the 'pixelgate' system user "
                        "(systemd User=pixelgate, or: runuser -u pixelgate -- pixelgated ...)\n");
        return PG_E_USAGE;
    }
    pg_error e;
    pg_error_clear(&e);
    /* The administrator's policy first: a broker with a bad policy does nothing. */
    pg_policy *policy = NULL;
    const char *policy_path = o.policy_path ? o.policy_path : PG_POLICY_DEFAULT_PATH;
    if (pg_policy_load(policy_path, &policy, &e)) {
        fprintf(stderr, "pixelgated: policy %s: %s%s%s\n", policy_path, e.message, e.recovery_tip[0] ? "; " : "",
                e.recovery_tip);
        return e.code;
    }
    char spool[4096];
    if (check_state_dir(o.state_dir, &e) || make_spool(o.state_dir, spool, sizeof spool, &e)) {
        fprintf(stderr, "pixelgated: %s%s%s\n", e.message, e.recovery_tip[0] ? ": " : "", e.recovery_tip);
        pg_policy_free(policy);
        return e.code;
    }
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = {.sa_handler = on_signal}, sh = {.sa_handler = on_hup};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sh, NULL);
    if (!o.foreground && daemonize() != 0) {
        perror("pixelgated: fork");
        pg_policy_free(policy);
        return PG_E_INTERNAL;
    }

    pg_broker b;
    pg_broker_config bc = {.policy = policy, .policy_path = policy_path, .state_dir = o.state_dir,
                           .spool_dir = spool, .display = o.display, .journal_socket = o.journal_socket,
                           .plat_ops = o.via_helper                            ? pg_helper_ops()
                                       : !strcmp(o.display, PG_DISPLAY_AUTO) ? pg_posix_logind_auto_ops()
                                                                             : pg_platform_default(),
                           .handlers = pg_op_handlers,
                           .quota_cap_bytes = o.quota_given ? o.quota_bytes : 0, .memory_budget = o.memory_budget,
                           .ttl_s = o.ttl_s, .ttl_cap_s = o.ttl_given ? o.ttl_s : 0,
                           .uid_max_tokens = o.tokens_per_user, .pixel_budget = o.pixel_budget,
                           /* one helper, one connection: no second reader over it */
                           .display_readers = o.via_helper ? 0 : o.display_readers, .ocr_engines = o.ocr_engines,
                           .no_ocr_cache = o.no_ocr_cache, .self_uid = (uint32_t)geteuid(), .self_pid = getpid()};
    if (pg_broker_init(&b, &bc, &e)) {
        fprintf(stderr, "pixelgated: %s\n", e.message);
        pg_broker_fini(&b);
        return e.code;
    }
    if (o.via_helper && !strcmp(o.display, PG_DISPLAY_AUTO)) {
        fprintf(stderr, "pixelgated: --display-source session-helper serves one display: give it with --display\n");
        pg_broker_fini(&b);
        return PG_E_USAGE;
    }
    pg_posix_session_opts sess = {o.session_socket, o.session_helper, o.session_group, o.display};
    if (o.via_helper && pg_posix_session_start(&b, &sess, &e)) {
        fprintf(stderr, "pixelgated: %s\n", e.message);
        pg_broker_fini(&b);
        return e.code;
    }
    check_forgeable(&b);
    pg_broker_open_platform(&b);
    pg_broker_watch_start(&b); /* a lost display is noticed and brought back; expired tokens go */
    pg_server_limits sl;
    pg_server_limits_default(&sl, o.max_conns);
    if (o.queue_max) sl.queue_max = o.queue_max, sl.uid_max = sl.uid_served_max + o.queue_max - o.queue_max / 4;
    sl.queue_wait_ms = o.queue_wait_ms;
    sl.io_timeout_ms = o.io_timeout_ms;
    pg_server_configure(&sl);
    pg_log(PG_LOG_INFO, "serving %u connections at once (%u per user), %u waiting at most %u ms; %u for users the "
           "policy does not admit", sl.max_conns, sl.uid_served_max, sl.queue_max, (unsigned)sl.queue_wait_ms,
           sl.outsider_max);
    pg_posix_listener_opts so = {o.socket_path, o.socket_mode, o.max_conns, o.io_timeout_ms, listen_fd};
    pg_log(PG_LOG_INFO, "pixelgated %s uid=%u display=%s backend=%s state=%s", PG_VERSION, (unsigned)geteuid(),
           b.display, b.plat_ops->name, o.state_dir);
    pg_err rc = pg_posix_listener_run(&b, &so, &stop_flag, &hup_flag, reload_all, signal_ready, &e);
    if (rc) fprintf(stderr, "pixelgated: %s\n", e.message);
    else pg_log(PG_LOG_INFO, "stopped (signal %d)", (int)stop_flag);
    sd_notify(0, "STOPPING=1");
    pg_posix_session_stop();
    pg_broker_fini(&b);
    return rc;
}
