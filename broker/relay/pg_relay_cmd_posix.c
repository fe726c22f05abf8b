/* SPDX-License-Identifier: MIT */
/* pg_relay_cmd_posix.c - admin-listed local commands as analysis endpoints.
 *
 * The command runs without a shell (execve of an absolute argv[0]), in its own
 * process group, in "/", with a clean environment (see docs/analysis.md), all
 * signal dispositions default and no inherited descriptors beyond 0-2. The
 * PNG goes to stdin; stdout is captured up to the cap; the tail of stderr is
 * kept for error messages. On timeout or cap overflow the whole process group
 * is killed; after a normal exit the group is killed too, so a stray
 * grandchild cannot live on holding the image.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pg_relay.h"
#include "pg_relay_int.h"
#include "pg_time.h"

#define ERR_TAIL 1024

/* pipe2(O_CLOEXEC) whose ends are both >= 3, so the child's dup2 onto 0-2
 * never clobbers a pipe end it still needs. */
static int pipe_hi(int p[2]) {
    if (pipe2(p, O_CLOEXEC) != 0) return -1;
    for (int i = 0; i < 2; i++) {
        if (p[i] < 3) {
            int n = fcntl(p[i], F_DUPFD_CLOEXEC, 3);
            if (n < 0) {
                close(p[0]);
                close(p[1]);
                return -1;
            }
            close(p[i]);
            p[i] = n;
        }
    }
    return 0;
}

static void close_fd(int *fd) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

static char *env_entry(const char *name, const char *value) {
    size_t n = strlen(name) + strlen(value) + 2;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s=%s", name, value);
    return s;
}

static bool env_has(char **envp, int n, const char *name) {
    size_t l = strlen(name);
    for (int i = 0; i < n; i++)
        if (strncmp(envp[i], name, l) == 0 && envp[i][l] == '=') return true;
    return false;
}

/* Child side: only async-signal-safe calls from here to execve. */
static void child_exec(char *const *argv, char *const *envp, int in_r, int out_w, int err_w, int errp_w, int maxfd) {
    setpgid(0, 0);
    if (dup2(in_r, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0) goto fail;
    if (dup2(errp_w, 3) < 0 || fcntl(3, F_SETFD, FD_CLOEXEC) < 0) goto fail;
    if (close_range(4, ~0U, 0) != 0)
        for (int fd = 4; fd < maxfd; fd++) close(fd);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; s++) sigaction(s, &sa, NULL); /* SIGKILL/SIGSTOP fail harmlessly */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (chdir("/") != 0) goto fail;
    execve(argv[0], argv, envp);
fail:;
    int err = errno;
    ssize_t w = write(3, &err, sizeof err);
    (void)w;
    _exit(127);
}

pg_err pg_relay_cmd_analyze(const pg_endpoint *ep, const uint8_t *png, size_t png_len, const char *prompt,
                            const char *expect, char **answer_text, pg_relay_fail *fail, pg_error *e) {
    const char *nm = ep->name ? ep->name : "?";
    if (fail) *fail = PG_RF_CONFIG;
    if (!ep->argv || !ep->argv[0] || ep->argv[0][0] != '/')
        return pg_error_set(e, PG_E_BADINPUT, "give the command as an absolute path in the policy",
                            "endpoint '%s': command argv[0] must be an absolute path", nm);

    /* The environment: the admin's entries, then defaults they did not set,
     * then the request. PIXELGATE_* is reserved for the request. */
    int nenv = 0, nargv = 0;
    if (ep->env)
        for (; ep->env[nenv]; nenv++) {
            const char *eq = strchr(ep->env[nenv], '=');
            if (!eq || eq == ep->env[nenv] || strncmp(ep->env[nenv], "PIXELGATE_", 10) == 0)
                return pg_error_set(e, PG_E_BADINPUT, NULL,
                                    "endpoint '%s': environment entry %d must be NAME=value and not PIXELGATE_*", nm, nenv);
        }
    for (; ep->argv[nargv]; nargv++) {}
    if (expect && strlen(expect) > PG_JUDGE_MAX_EXPECT)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "expectation too long");

    char **envp = calloc((size_t)nenv + 8, sizeof *envp);
    char **argv = calloc((size_t)nargv + 1, sizeof *argv);
    pg_err rc = PG_OK;
    pg_relay_fail fk = PG_RF_CONFIG;
    int in_p[2] = {-1, -1}, out_p[2] = {-1, -1}, err_p[2] = {-1, -1}, x_p[2] = {-1, -1};
    char *out = NULL;
    size_t out_n = 0, cap = pg_relay_max_response(ep);
    char err_tail[ERR_TAIL];
    size_t err_n = 0;
    pid_t pid = -1;
    bool sigpipe_blocked_here = false;
    sigset_t pipeset, oldmask;
    int ne = 0;
    char *owned[3] = {NULL, NULL, NULL};
    if (!envp || !argv) {
        rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
        goto done;
    }
    for (int i = 0; i < nargv; i++) argv[i] = (char *)ep->argv[i];
    for (int i = 0; i < nenv; i++) envp[ne++] = (char *)ep->env[i];
    int admin_env = ne;
    if (!env_has(envp, admin_env, "PATH")) envp[ne++] = (char *)"PATH=/usr/local/bin:/usr/bin:/bin";
    if (!env_has(envp, admin_env, "LC_ALL")) envp[ne++] = (char *)"LC_ALL=C.UTF-8";
    owned[0] = env_entry("PIXELGATE_ENDPOINT", nm);
    owned[1] = env_entry("PIXELGATE_PROMPT", prompt);
    if (expect) owned[2] = env_entry("PIXELGATE_EXPECT", expect);
    for (int i = 0; i < 3; i++) {
        if (i < 2 || expect) envp[ne++] = owned[i];
        if ((i < 2 || expect) && !owned[i]) {
            rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
            goto done;
        }
    }
    out = malloc(cap + 1);
    if (!out) {
        rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
        goto done;
    }
    if (pipe_hi(in_p) || pipe_hi(out_p) || pipe_hi(err_p) || pipe_hi(x_p)) {
        rc = pg_error_set(e, PG_E_INTERNAL, NULL, "pipe: %s", strerror(errno));
        goto done;
    }
    struct rlimit rl;
    int maxfd = 65536;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 65536)
        maxfd = (int)rl.rlim_cur;

    /* Writing to a child that stopped reading must not kill the broker:
     * block SIGPIPE in this thread and swallow one we caused. */
    sigemptyset(&pipeset);
    sigaddset(&pipeset, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipeset, &oldmask);
    sigpipe_blocked_here = !sigismember(&oldmask, SIGPIPE);

    pg_deadline deadline = pg_deadline_in_ms((double)pg_relay_timeout_s(ep) * 1000);
    pid = fork();
    if (pid < 0) {
        rc = pg_error_set(e, PG_E_INTERNAL, NULL, "fork: %s", strerror(errno));
        goto done;
    }
    if (pid == 0) child_exec(argv, envp, in_p[0], out_p[1], err_p[1], x_p[1], maxfd);
    setpgid(pid, pid); /* also in the parent: no race with kill(-pid) */
    close_fd(&in_p[0]);
    close_fd(&out_p[1]);
    close_fd(&err_p[1]);
    close_fd(&x_p[1]);

    int child_errno = 0;
    ssize_t xr;
    do xr = read(x_p[0], &child_errno, sizeof child_errno);
    while (xr < 0 && errno == EINTR);
    close_fd(&x_p[0]);
    if (xr == (ssize_t)sizeof child_errno) {
        kill(-pid, SIGKILL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
        pid = -1;
        fk = PG_RF_MISSING;
        rc = pg_error_set(e, PG_E_BADINPUT, "check the command path and permissions in the policy",
                          "endpoint '%s': cannot execute %s: %s", nm, argv[0], strerror(child_errno));
        goto done;
    }

    fcntl(in_p[1], F_SETFL, O_NONBLOCK);
    size_t in_off = 0;
    bool timed_out = false, over = false;
    if (png_len == 0) close_fd(&in_p[1]);
    while (out_p[0] >= 0 || err_p[0] >= 0) {
        uint32_t left = pg_deadline_left_ms(deadline);
        if (left == 0) {
            timed_out = true;
            break;
        }
        struct pollfd pf[3];
        int np = 0, i_in = -1, i_out = -1, i_err = -1;
        if (in_p[1] >= 0) { pf[np] = (struct pollfd){.fd = in_p[1], .events = POLLOUT}; i_in = np++; }
        if (out_p[0] >= 0) { pf[np] = (struct pollfd){.fd = out_p[0], .events = POLLIN}; i_out = np++; }
        if (err_p[0] >= 0) { pf[np] = (struct pollfd){.fd = err_p[0], .events = POLLIN}; i_err = np++; }
        int pr = poll(pf, (nfds_t)np, left > 1000 ? 1000 : (int)left);
        if (pr < 0) {
            if (errno == EINTR) continue;
            rc = pg_error_set(e, PG_E_INTERNAL, NULL, "poll: %s", strerror(errno));
            break;
        }
        if (i_in >= 0 && pf[i_in].revents) {
            ssize_t w = write(in_p[1], png + in_off, png_len - in_off);
            if (w > 0) in_off += (size_t)w;
            if ((w < 0 && errno != EAGAIN && errno != EINTR) || in_off == png_len) close_fd(&in_p[1]);
        }
        if (i_out >= 0 && pf[i_out].revents) {
            char tmp[16384];
            ssize_t r = read(out_p[0], tmp, sizeof tmp);
            if (r > 0) {
                if ((size_t)r > cap - out_n) {
                    over = true;
                    break;
                }
                memcpy(out + out_n, tmp, (size_t)r);
                out_n += (size_t)r;
            } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
                close_fd(&out_p[0]);
            }
        }
        if (i_err >= 0 && pf[i_err].revents) {
            char tmp[4096];
            ssize_t r = read(err_p[0], tmp, sizeof tmp);
            if (r > 0) {
                for (ssize_t k = 0; k < r; k++) { /* keep the tail */
                    if (err_n == ERR_TAIL) {
                        memmove(err_tail, err_tail + ERR_TAIL / 2, ERR_TAIL / 2);
                        err_n = ERR_TAIL / 2;
                    }
                    err_tail[err_n++] = tmp[k];
                }
            } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
                close_fd(&err_p[0]);
            }
        }
    }
    close_fd(&in_p[1]);

    /* Wait for the exit (without reaping, so the group id stays ours), then
     * kill whatever is left of the group, then reap. */
    int status = 0;
    if (rc == PG_OK && !timed_out && !over) {
        for (;;) {
            siginfo_t si;
            memset(&si, 0, sizeof si);
            if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid) break;
            if (pg_deadline_passed(deadline)) {
                timed_out = true;
                break;
            }
            pg_sleep_ms(5);
        }
    }
    kill(-pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    pid = -1;
    if (rc != PG_OK) goto done;

    char tail[256];
    pg_relay_tail_text(err_tail, err_n, tail, sizeof tail);
    if (timed_out) {
        fk = PG_RF_TIMEOUT;
        rc = pg_error_set(e, PG_E_TIMEOUT, "raise the endpoint's timeout_s in the policy, or fix the command",
                          "endpoint '%s': command did not finish within %u s; its process group was killed", nm,
                          (unsigned)pg_relay_timeout_s(ep));
        goto done;
    }
    if (over) {
        fk = PG_RF_OUTPUT;
        rc = pg_error_set(e, PG_E_BADINPUT, "raise max_response_bytes in the policy if the output is legitimately long",
                          "endpoint '%s': command output exceeds the %zu-byte cap; its process group was killed", nm,
                          cap);
        goto done;
    }
    fk = PG_RF_COMMAND;
    if (WIFSIGNALED(status)) {
        rc = pg_error_set(e, PG_E_UNREACHABLE, NULL, "endpoint '%s': command killed by signal %d%s%s", nm,
                          WTERMSIG(status), tail[0] ? "; stderr: " : "", tail);
        goto done;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        rc = pg_error_set(e, PG_E_UNREACHABLE, NULL, "endpoint '%s': command exited with status %d%s%s", nm,
                          WIFEXITED(status) ? WEXITSTATUS(status) : -1, tail[0] ? "; stderr: " : "", tail);
        goto done;
    }
    fk = PG_RF_OUTPUT;
    out[out_n] = 0;
    if (memchr(out, 0, out_n)) { /* a NUL would silently cut the answer */
        for (size_t k = 0; k < out_n; k++)
            if (!out[k]) out[k] = ' ';
    }
    char *line = pg_relay_last_line(out, out_n);
    if (!line) {
        rc = pg_error_set(e, PG_E_BADINPUT, NULL, "endpoint '%s': command printed no answer line", nm);
        goto done;
    }
    *answer_text = strdup(line);
    if (!*answer_text) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");

done:
    if (pid > 0) {
        kill(-pid, SIGKILL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
    }
    if (sigpipe_blocked_here) {
        sigset_t pend;
        sigpending(&pend);
        if (sigismember(&pend, SIGPIPE)) {
            struct timespec zero = {0, 0};
            sigtimedwait(&pipeset, NULL, &zero);
        }
        pthread_sigmask(SIG_SETMASK, &oldmask, NULL);
    }
    close_fd(&in_p[0]);
    close_fd(&in_p[1]);
    close_fd(&out_p[0]);
    close_fd(&out_p[1]);
    close_fd(&err_p[0]);
    close_fd(&err_p[1]);
    close_fd(&x_p[0]);
    close_fd(&x_p[1]);
    for (int i = 0; i < 3; i++) free(owned[i]);
    free(envp);
    free(argv);
    free(out);
    if (fail) *fail = rc == PG_OK ? PG_RF_NONE : fk;
    return rc;
}
