/* SPDX-License-Identifier: MIT */
/* pg_posix_session_helper.c - pixelgate-session: the desktop user's helper
 * on Linux. Started by the user's session (the XDG autostart entry
 * pixelgate-session.desktop, or the systemd user unit
 * pixelgate-session.service), it connects to the broker's session socket,
 * registers for its display and session type, and then answers the broker's
 * requests from the backend of that session type (x11: the X11 backend;
 * wayland-wlroots: broker/platform/wayland/pg_wlr.h), only those on the
 * allowlist the broker sent (broker/platform/helper/pg_helper.h). It
 * listens on nothing.
 *
 * Lifecycle: a broker that is not there yet, restarts or closes the
 * connection is waited for and registered with again (250 ms doubling to
 * 5 s between tries); a broker that refuses the registration is final
 * (the reason is printed; exit 3), as is a display it cannot open. A
 * display that goes away (the X server or the compositor ended) ends it
 * (exit 4): the session it served is over. SIGTERM or SIGINT ends it
 * (exit 0).
 * Trust: it is installed set-group-ID pixelgate-session, which is how the
 * broker knows it is the packaged program (pg_posix_session.h); the group
 * owns nothing. It serves only a broker whose socket peer is the broker's
 * account (--broker-user, default pixelgate), and only a local display: an
 * X display ":N", or a Wayland display's name in the user's runtime
 * directory ("wayland-1", never a path).
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "pg_helper.h"
#include "pg_platform.h"
#include "pg_proto.h"
#include "pg_wlr.h"

#define REGISTER_MS 10000u
#define POLL_MS 1000u          /* a request is waited for in slices, to notice SIGTERM */
#define REQUEST_MS 30000u      /* one request, once its first byte arrived */
#define BACKOFF_MIN_MS 250u
#define BACKOFF_MAX_MS 5000u
#define EXIT_REFUSED 3
#define EXIT_DISPLAY_LOST 4 /* the display (X server, compositor) went away */

/* LeakSanitizer (the ASan build) stops the process's threads with ptrace to
 * scan them, which a set-group-ID, hence non-dumpable, process does not
 * allow: it would end the helper with its own fatal error instead of the
 * helper's exit code. It is turned off there; a copy run without the bit,
 * as the tests also do, is still checked. Unused in other builds. */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void) { return prctl(PR_GET_DUMPABLE) != 1; }

static volatile sig_atomic_t stopping;
static void on_stop(int sig) { stopping = sig; }

typedef struct {
    const char *socket_path, *display, *session, *broker_user;
    bool once; /* tests: one registration, no reconnecting */
} options;

static void usage(FILE *f) {
    fprintf(f, "usage: pixelgate-session [--socket PATH] [--display NAME] [--session x11|wayland-gnome|wayland-wlroots]\n"
               "                         [--broker-user NAME] [--once]\n"
               "  --socket PATH       the broker's session socket ($PIXELGATE_SESSION_SOCKET, default /run/pixelgate/session.sock)\n"
               "  --display NAME      the local display to serve (default $DISPLAY; Wayland: $WAYLAND_DISPLAY)\n"
               "  --session TYPE      the session type (default from $XDG_SESSION_TYPE and $XDG_CURRENT_DESKTOP)\n"
               "  --broker-user NAME  the broker's account; any other peer is not served (default pixelgate)\n"
               "  --once              register once; end when the broker closes the connection\n");
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("pixelgate-session: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static bool is_wayland(const char *session) { return strncmp(session, "wayland-", 8) == 0; }

/* X: ":N" or ":N.S", a display on this machine, never a host's. Wayland: a
 * socket name in the runtime directory ("wayland-1"), never a path. */
static bool local_display(const char *d, const char *session) {
    unsigned n, scr;
    char extra;
    if (!d || !d[0]) return false;
    if (is_wayland(session)) return strlen(d) < 64 && strspn(d, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == strlen(d) && d[0] != '.';
    return sscanf(d, ":%u%c", &n, &extra) == 1 || sscanf(d, ":%u.%u%c", &n, &scr, &extra) == 2;
}

static const char *session_from_env(void) {
    const char *type = getenv("XDG_SESSION_TYPE"), *desk = getenv("XDG_CURRENT_DESKTOP");
    if (!type || strcmp(type, "wayland") != 0) return "x11";
    if (desk && strstr(desk, "GNOME")) return "wayland-gnome";
    return "wayland-wlroots";
}

static int parse_args(int argc, char **argv, options *o) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        const char **dst = !strcmp(a, "--socket")      ? &o->socket_path
                           : !strcmp(a, "--display")     ? &o->display
                           : !strcmp(a, "--session")     ? &o->session
                           : !strcmp(a, "--broker-user") ? &o->broker_user
                                                         : NULL;
        if (dst && v) *dst = v, i++;
        else if (!strcmp(a, "--once")) o->once = true;
        else if (!strcmp(a, "--help")) return usage(stdout), 1;
        else return usage(stderr), 2;
    }
    if (strcmp(o->session, "x11") && strcmp(o->session, "wayland-gnome") && strcmp(o->session, "wayland-wlroots")) {
        say("unknown session type \"%s\"", o->session);
        return 2;
    }
    if (!o->display) o->display = getenv(is_wayland(o->session) ? "WAYLAND_DISPLAY" : "DISPLAY");
    if (!local_display(o->display, o->session)) {
        say("the display must be a local one (%s), not \"%s\"",
            is_wayland(o->session) ? "a name such as wayland-1" : "\":N\"",
            o->display ? o->display : is_wayland(o->session) ? "(none: set WAYLAND_DISPLAY)" : "(none: set DISPLAY)");
        return 2;
    }
    return 0;
}

/* The backend that serves a session type; NULL: none in this version. */
static const pg_platform_ops *backend_for(const char *session) {
    if (!strcmp(session, "x11")) return pg_platform_default();
    if (!strcmp(session, "wayland-wlroots")) return pg_platform_wlroots();
    return NULL;
}

static void nap_ms(uint32_t ms) {
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (!stopping && nanosleep(&t, &t) != 0 && errno == EINTR) {}
}

/* The peer of fd is the broker's account? */
static bool peer_is_broker(int fd, const char *broker_user) {
    struct ucred cred;
    socklen_t len = sizeof cred;
    struct passwd pw, *res = NULL;
    char buf[2048];
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return false;
    if (getpwnam_r(broker_user, &pw, buf, sizeof buf, &res) != 0 || !res) return false;
    return cred.uid == pw.pw_uid;
}

/* The allowlist the broker sent, kept for the server. */
typedef struct {
    char **ops;
    size_t n;
} allowlist;

static void allowlist_free(allowlist *a) {
    for (size_t i = 0; i < a->n; i++) free(a->ops[i]);
    free(a->ops);
    *a = (allowlist){0};
}

/* Only primitives this helper knows; anything else in the list is ignored. */
static pg_err allowlist_read(const cJSON *result, allowlist *a, pg_error *e) {
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(result, "allow");
    if (!cJSON_IsArray(arr)) return pg_error_set(e, PG_E_INTERNAL, NULL, "the broker's reply has no allowlist");
    size_t n = (size_t)cJSON_GetArraySize(arr);
    a->ops = calloc(n ? n : 1, sizeof *a->ops);
    if (!a->ops) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    for (const cJSON *o = arr->child; o; o = o->next)
        if (cJSON_IsString(o) && pg_helper_op_known(o->valuestring) && (a->ops[a->n] = strdup(o->valuestring)))
            a->n++;
    return PG_OK;
}

/* A connection to the broker's account at path; *fd stays ours to poll. */
static pg_err connect_broker(const options *o, pg_conn **conn, int *fd, pg_error *e) {
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(o->socket_path) >= sizeof a.sun_path)
        return pg_error_set(e, PG_E_USAGE, NULL, "socket path too long: %s", o->socket_path);
    snprintf(a.sun_path, sizeof a.sun_path, "%s", o->socket_path);
    *fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (*fd < 0) return pg_error_set(e, PG_E_INTERNAL, NULL, "socket: %s", strerror(errno));
    if (connect(*fd, (struct sockaddr *)&a, sizeof a) != 0) {
        int err = errno;
        close(*fd);
        return pg_error_set(e, PG_E_UNREACHABLE, NULL, "%s: %s", o->socket_path, strerror(err));
    }
    if (!peer_is_broker(*fd, o->broker_user)) {
        close(*fd);
        return pg_error_set(e, PG_E_POLICY, "check --socket and --broker-user",
                            "%s is not served by the broker's account %s", o->socket_path, o->broker_user);
    }
    return pg_conn_from_fd(conn, *fd, REGISTER_MS, e);
}

/* Connects and registers. PG_OK: conn is the broker's, with its allowlist.
 * PG_E_POLICY/USAGE/UNSUPPORTED: refused for good; others: try again. */
static pg_err register_with(const options *o, pg_conn **conn, int *fd, allowlist *allow, pg_error *e) {
    pg_err rc = connect_broker(o, conn, fd, e);
    if (rc) return rc;
    cJSON *args = cJSON_CreateObject();
    cJSON_AddStringToObject(args, "display", o->display);
    cJSON_AddStringToObject(args, "session", o->session);
    cJSON_AddStringToObject(args, "version", PG_VERSION);
    cJSON *req = pg_proto_request_new(1, "register", args);
    rc = req ? pg_proto_write(*conn, req, NULL, 0, e) : pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    cJSON_Delete(req);
    pg_proto_limits lim;
    pg_proto_limits_default(&lim);
    lim.max_attachments = 0;
    pg_msg m = {0};
    if (!rc) rc = pg_proto_read(*conn, &lim, &m, e);
    const cJSON *result = NULL;
    if (!rc) rc = pg_proto_parse_response(m.header, 1, &result, NULL, e);
    if (!rc) rc = allowlist_read(result, allow, e);
    pg_msg_fini(&m);
    if (rc) {
        pg_conn_close(*conn);
        *conn = NULL;
    }
    return rc;
}

static bool final_refusal(pg_err rc) { return rc == PG_E_POLICY || rc == PG_E_USAGE || rc == PG_E_UNSUPPORTED; }

/* The display (X server, compositor) has gone for good? Then the helper
 * has nothing left to serve: it says why and ends, and the broker, seeing
 * its connection close, reports the helper gone with the fix. */
static bool display_lost(pg_helper_server *s) {
    char why[256];
    if (!s->ops->lost || !s->ops->lost(s->p, why, sizeof why)) return false;
    say("%s", why);
    return true;
}

/* Serves one registered connection until the broker closes it or the
 * display goes away (*lost). */
static void serve(pg_helper_server *s, pg_conn *conn, int fd, bool *lost) {
    pg_error e;
    while (!stopping && !(*lost = display_lost(s))) {
        struct pollfd p = {fd, POLLIN, 0};
        int n = poll(&p, 1, (int)POLL_MS);
        if (n == 0 || (n < 0 && errno == EINTR)) continue;
        if (n < 0 || pg_helper_serve_one(s, conn, REQUEST_MS, &e) != PG_OK) return;
    }
}

int main(int argc, char **argv) {
    const char *env_socket = getenv("PIXELGATE_SESSION_SOCKET");
    options o = {.socket_path = env_socket && env_socket[0] ? env_socket : "/run/pixelgate/session.sock",
                 .session = session_from_env(), .broker_user = "pixelgate"};
    int pr = parse_args(argc, argv, &o);
    if (pr) return pr == 1 ? 0 : 2;
    const pg_platform_ops *backend = backend_for(o.session);
    if (!backend) {
        say("session type %s is not served by this version (x11 and wayland-wlroots are)", o.session);
        return EXIT_REFUSED;
    }
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = {.sa_handler = on_stop};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    pg_helper_server s = {.ops = backend};
    pg_error e;
    if (s.ops->open(&s.p, o.display, &e) != PG_OK) {
        say("cannot open display %s: %s", o.display, e.message);
        return EXIT_REFUSED;
    }
    uint32_t backoff = BACKOFF_MIN_MS;
    int status = 0;
    while (!stopping) {
        pg_conn *conn = NULL;
        int fd = -1;
        allowlist allow = {0};
        pg_err rc = register_with(&o, &conn, &fd, &allow, &e);
        if (final_refusal(rc)) {
            say("the broker refused the registration: %s%s%s", e.message, e.recovery_tip[0] ? " (" : "",
                e.recovery_tip[0] ? e.recovery_tip : "");
            if (e.recovery_tip[0]) fputs(")\n", stderr);
            status = EXIT_REFUSED;
            break;
        }
        if (rc) {
            if (o.once) {
                say("no broker at %s: %s", o.socket_path, e.message);
                status = 1;
                break;
            }
            nap_ms(backoff);
            backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
            continue;
        }
        backoff = BACKOFF_MIN_MS;
        say("registered for %s (%s) at %s; %zu operations allowed", o.display, o.session, o.socket_path, allow.n);
        s.allow = (const char *const *)allow.ops;
        s.n_allow = allow.n;
        bool lost = false;
        serve(&s, conn, fd, &lost);
        pg_conn_close(conn);
        allowlist_free(&allow);
        if (lost) {
            status = EXIT_DISPLAY_LOST;
            break;
        }
        if (o.once) break;
        if (!stopping) say("the broker closed the connection; registering again");
    }
    s.ops->close(s.p);
    return status;
}
