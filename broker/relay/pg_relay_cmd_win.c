/* SPDX-License-Identifier: MIT */
/* pg_relay_cmd_win.c - admin-listed local commands as analysis endpoints, on
 * Windows (pg_relay_cmd_posix.c is the POSIX side; pg_relay.h states the contract).
 *
 * The command runs without a shell: CreateProcessW of an absolute argv[0]
 * (no search path), created suspended and put into a Job object before it
 * runs a single instruction, so it and everything it starts die together:
 * on timeout or cap overflow, and after a normal exit too (a stray grandchild
 * cannot live on holding the image). The job is KILL_ON_JOB_CLOSE, so a
 * broker that dies takes the commands with it. The child inherits exactly its
 * three pipe ends (PROC_THREAD_ATTRIBUTE_HANDLE_LIST), gets no window, runs in
 * the Windows drive's root with a clean environment. Anonymous pipes cannot be
 * polled, so one thread feeds the PNG to stdin and one drains each of stdout
 * (up to the cap) and stderr (its tail); this thread only waits, bounded by
 * the endpoint's timeout.
 */
#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "pg_relay.h"
#include "pg_relay_int.h"
#include "pg_time.h"
#ifdef _WIN32
#include "pg_utf8.h"
#endif

#define ERR_TAIL 1024
#define CMDLINE_MAX 32767 /* CreateProcessW's limit, in UTF-16 units */
#define DRAIN_MS 5000     /* after the job is killed, pipes close at once */

static bool is_drive_path(const char *p) {
    return ((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':' &&
           (p[2] == '\\' || p[2] == '/');
}

/* ---- command line and environment ---------------------------------------- */

/* Appends one argument quoted so that CommandLineToArgvW and the C runtime
 * give it back unchanged (backslashes double only before a quote). */
static wchar_t *quote_arg(wchar_t *o, const wchar_t *a) {
    if (*a && !wcspbrk(a, L" \t\n\v\"")) {
        size_t n = wcslen(a);
        wmemcpy(o, a, n);
        return o + n;
    }
    *o++ = L'"';
    for (;;) {
        size_t bs = 0;
        while (*a == L'\\') a++, bs++;
        if (!*a) {
            for (size_t i = 0; i < 2 * bs; i++) *o++ = L'\\';
            break;
        }
        size_t k = *a == L'"' ? 2 * bs + 1 : bs;
        for (size_t i = 0; i < k; i++) *o++ = L'\\';
        *o++ = *a++;
    }
    *o++ = L'"';
    return o;
}

/* The whole command line from wide argv (malloc'd); NULL if over the limit. */
static wchar_t *command_line(wchar_t *const *wargv, int n) {
    size_t need = 1;
    for (int i = 0; i < n; i++) need += 2 * wcslen(wargv[i]) + 3;
    if (need > CMDLINE_MAX) return NULL;
    wchar_t *cl = malloc(need * sizeof *cl), *o = cl;
    if (!cl) return NULL;
    for (int i = 0; i < n; i++) {
        if (i) *o++ = L' ';
        o = quote_arg(o, wargv[i]);
    }
    *o = 0;
    return cl;
}

/* Orders "NAME=value" strings by name, case-insensitively, as Windows keeps
 * its environment blocks. */
static int env_cmp(const void *pa, const void *pb) {
    const wchar_t *a = *(wchar_t *const *)pa, *b = *(wchar_t *const *)pb;
    for (;; a++, b++) {
        wint_t ca = *a == L'=' ? 0 : towupper(*a), cb = *b == L'=' ? 0 : towupper(*b);
        if (ca != cb || !ca) return (int)ca - (int)cb;
    }
}

/* One UTF-16 environment block from the entries (malloc'd). */
static wchar_t *env_block(wchar_t **ents, int n) {
    qsort(ents, (size_t)n, sizeof *ents, env_cmp);
    size_t need = 2;
    for (int i = 0; i < n; i++) need += wcslen(ents[i]) + 1;
    wchar_t *b = malloc(need * sizeof *b), *o = b;
    if (!b) return NULL;
    for (int i = 0; i < n; i++) {
        size_t l = wcslen(ents[i]) + 1;
        wmemcpy(o, ents[i], l);
        o += l;
    }
    *o++ = 0;
    if (n == 0) *o = 0;
    return b;
}

static bool env_has(const char *const *env, int n, const char *name) {
    size_t l = strlen(name);
    for (int i = 0; i < n; i++)
        if (_strnicmp(env[i], name, l) == 0 && env[i][l] == '=') return true;
    return false;
}

/* "NAME=value" as UTF-16 (malloc'd); NULL on invalid UTF-8 or no memory. */
static wchar_t *env_entry(const char *name, const char *value) {
    size_t n = strlen(name) + strlen(value) + 2;
    char *s = malloc(n);
    if (!s) return NULL;
    snprintf(s, n, "%s=%s", name, value);
    wchar_t *w = pg_utf8_to_wide(s, 0, NULL);
    free(s);
    return w;
}

/* ---- the pipe threads ------------------------------------------------------ */

typedef struct {
    HANDLE h;      /* our end of the pipe (closed by the thread when done) */
    HANDLE job;    /* killed when stdout overflows */
    const uint8_t *src; /* stdin: the PNG */
    size_t len;
    char *buf;     /* stdout: cap bytes; stderr: the tail */
    size_t n, cap;
    bool tail, over;
} pipe_io;

static DWORD WINAPI feed_stdin(void *arg) {
    pipe_io *p = arg;
    size_t off = 0;
    while (off < p->len) {
        DWORD chunk = p->len - off > 65536 ? 65536 : (DWORD)(p->len - off), w = 0;
        if (!WriteFile(p->h, p->src + off, chunk, &w, NULL)) break; /* the command stopped reading */
        off += w;
    }
    CloseHandle(p->h);
    p->h = NULL;
    return 0;
}

static void keep_tail(pipe_io *p, const char *d, DWORD r) {
    for (DWORD k = 0; k < r; k++) {
        if (p->n == p->cap) {
            memmove(p->buf, p->buf + p->cap / 2, p->cap / 2);
            p->n = p->cap / 2;
        }
        p->buf[p->n++] = d[k];
    }
}

static DWORD WINAPI drain(void *arg) {
    pipe_io *p = arg;
    char tmp[16384];
    DWORD r;
    while (ReadFile(p->h, tmp, sizeof tmp, &r, NULL) && r > 0) {
        if (p->tail) {
            keep_tail(p, tmp, r);
        } else if (r > p->cap - p->n) {
            p->over = true;
            TerminateJobObject(p->job, 1); /* kill the group now, like the POSIX side */
            break;
        } else {
            memcpy(p->buf + p->n, tmp, r);
            p->n += r;
        }
    }
    CloseHandle(p->h);
    p->h = NULL;
    return 0;
}

/* ---- the process ------------------------------------------------------------- */

typedef struct {
    HANDLE in_r, in_w, out_r, out_w, err_r, err_w;
    HANDLE job, proc;
    HANDLE thr[3];
    int nthr;
    LPPROC_THREAD_ATTRIBUTE_LIST attrs;
} child_res;

/* A pipe whose child end is inheritable and whose parent end is not. */
static bool make_pipe(HANDLE *rd, HANDLE *wr, bool child_reads) {
    SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, TRUE};
    if (!CreatePipe(rd, wr, &sa, 0)) return false;
    return SetHandleInformation(child_reads ? *wr : *rd, HANDLE_FLAG_INHERIT, 0);
}

static void close_h(HANDLE *h) {
    if (*h && *h != INVALID_HANDLE_VALUE) CloseHandle(*h);
    *h = NULL;
}

/* The job every command runs in: all its processes die with the handle. */
static HANDLE make_job(void) {
    HANDLE job = CreateJobObjectW(NULL, NULL);
    if (!job) return NULL;
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION li;
    memset(&li, 0, sizeof li);
    li.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
    if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &li, sizeof li)) {
        CloseHandle(job);
        return NULL;
    }
    return job;
}

/* Only the three pipe ends may be inherited, whatever else is inheritable. */
static bool handle_list(child_res *c, HANDLE list[3]) {
    SIZE_T size = 0;
    InitializeProcThreadAttributeList(NULL, 1, 0, &size);
    c->attrs = malloc(size);
    if (!c->attrs || !InitializeProcThreadAttributeList(c->attrs, 1, 0, &size)) {
        free(c->attrs);
        c->attrs = NULL;
        return false;
    }
    return UpdateProcThreadAttribute(c->attrs, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, list, 3 * sizeof(HANDLE), NULL,
                                     NULL);
}

static void windows_message(DWORD err, char *out, size_t n) {
    wchar_t w[256];
    DWORD k = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, err, 0, w, 256, NULL);
    while (k > 0 && (w[k - 1] == L'\r' || w[k - 1] == L'\n' || w[k - 1] == L'.')) w[--k] = 0;
    if (k == 0 || WideCharToMultiByte(CP_UTF8, 0, w, -1, out, (int)n, NULL, NULL) <= 0)
        snprintf(out, n, "Windows error %lu", (unsigned long)err);
}

/* Starts the command suspended, puts it in the job, lets it run. On failure
 * *fk says whether the command could not be executed or we failed. */
static pg_err spawn(child_res *c, const wchar_t *app, wchar_t *cmdline, wchar_t *envb, const char *nm,
                    const char *argv0, pg_relay_fail *fk, pg_error *e) {
    wchar_t cwd[MAX_PATH];
    UINT wl = GetSystemWindowsDirectoryW(cwd, MAX_PATH);
    if (wl < 3 || wl >= MAX_PATH) wcscpy(cwd, L"C:\\");
    cwd[3] = 0; /* the drive root: nothing depends on the broker's directory */
    HANDLE list[3] = {c->in_r, c->out_w, c->err_w};
    c->job = make_job();
    if (!c->job || !handle_list(c, list))
        return pg_error_set(e, PG_E_INTERNAL, NULL, "endpoint '%s': cannot set up a job for the command", nm);
    STARTUPINFOEXW si;
    memset(&si, 0, sizeof si);
    si.StartupInfo.cb = sizeof si;
    si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
    si.StartupInfo.hStdInput = c->in_r;
    si.StartupInfo.hStdOutput = c->out_w;
    si.StartupInfo.hStdError = c->err_w;
    si.lpAttributeList = c->attrs;
    PROCESS_INFORMATION pi;
    DWORD flags = CREATE_SUSPENDED | CREATE_NO_WINDOW | CREATE_UNICODE_ENVIRONMENT | EXTENDED_STARTUPINFO_PRESENT;
    if (!CreateProcessW(app, cmdline, NULL, NULL, TRUE, flags, envb, cwd, &si.StartupInfo, &pi)) {
        char msg[300];
        windows_message(GetLastError(), msg, sizeof msg);
        *fk = PG_RF_MISSING;
        return pg_error_set(e, PG_E_BADINPUT, "check the command path and permissions in the policy",
                            "endpoint '%s': cannot execute %s: %s", nm, argv0, msg);
    }
    c->proc = pi.hProcess;
    if (!AssignProcessToJobObject(c->job, pi.hProcess)) {
        TerminateProcess(pi.hProcess, 1);
        CloseHandle(pi.hThread);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "endpoint '%s': cannot put the command into its job", nm);
    }
    ResumeThread(pi.hThread);
    CloseHandle(pi.hThread);
    return PG_OK;
}

static bool start_thread(child_res *c, LPTHREAD_START_ROUTINE fn, pipe_io *p) {
    HANDLE t = CreateThread(NULL, 0, fn, p, 0, NULL);
    if (!t) return false;
    c->thr[c->nthr++] = t;
    return true;
}

/* Waits for both output pipes to close, then for the exit, until deadline.
 * True if the command finished in time. */
static bool wait_done(child_res *c, HANDLE t_out, HANDLE t_err, pg_deadline deadline) {
    HANDLE hs[2] = {t_out, t_err};
    DWORD left = pg_deadline_left_ms(deadline);
    if (left == 0 || WaitForMultipleObjects(2, hs, TRUE, left) != WAIT_OBJECT_0) return false;
    left = pg_deadline_left_ms(deadline);
    return left > 0 && WaitForSingleObject(c->proc, left) == WAIT_OBJECT_0;
}

/* Kills what is left in the job and collects the pipe threads. */
static void reap(child_res *c) {
    if (c->job) TerminateJobObject(c->job, 1);
    if (c->nthr && WaitForMultipleObjects((DWORD)c->nthr, c->thr, TRUE, DRAIN_MS) == WAIT_TIMEOUT) {
        for (int i = 0; i < c->nthr; i++) CancelSynchronousIo(c->thr[i]);
        WaitForMultipleObjects((DWORD)c->nthr, c->thr, TRUE, INFINITE);
    }
    for (int i = 0; i < c->nthr; i++) CloseHandle(c->thr[i]);
    c->nthr = 0;
}

static void release(child_res *c) {
    HANDLE *hs[] = {&c->in_r, &c->in_w, &c->out_r, &c->out_w, &c->err_r, &c->err_w, &c->proc, &c->job};
    for (size_t i = 0; i < sizeof hs / sizeof hs[0]; i++) close_h(hs[i]);
    if (c->attrs) DeleteProcThreadAttributeList(c->attrs);
    free(c->attrs);
    c->attrs = NULL;
}

/* ---- entry ---------------------------------------------------------------------- */

/* argv and environment in UTF-16: the admin's entries, then defaults they did
 * not set, then the request (PIXELGATE_* is reserved for it). */
typedef struct {
    wchar_t **argv, **env;
    int nargv, nenv;
} wide_args;

static void free_wide(wide_args *w) {
    for (int i = 0; w->argv && i < w->nargv; i++) free(w->argv[i]);
    for (int i = 0; w->env && i < w->nenv; i++) free(w->env[i]);
    free(w->argv);
    free(w->env);
}

static pg_err build_wide(const pg_endpoint *ep, int nargv, int nenv, const char *prompt, const char *expect,
                         wide_args *w, pg_error *e) {
    const char *nm = ep->name ? ep->name : "?";
    memset(w, 0, sizeof *w);
    w->argv = calloc((size_t)nargv + 1, sizeof *w->argv);
    w->env = calloc((size_t)nenv + 6, sizeof *w->env);
    if (!w->argv || !w->env) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    for (; w->nargv < nargv; w->nargv++)
        if (!(w->argv[w->nargv] = pg_utf8_to_wide(ep->argv[w->nargv], 0, NULL)))
            return pg_error_set(e, PG_E_BADINPUT, NULL, "endpoint '%s': argv[%d] is not UTF-8", nm, w->nargv);
    for (; w->nenv < nenv; w->nenv++)
        if (!(w->env[w->nenv] = pg_utf8_to_wide(ep->env[w->nenv], 0, NULL)))
            return pg_error_set(e, PG_E_BADINPUT, NULL, "endpoint '%s': environment entry %d is not UTF-8", nm,
                                w->nenv);
    char windir[MAX_PATH], path[2 * MAX_PATH + 16];
    UINT wl = GetSystemWindowsDirectoryA(windir, sizeof windir);
    if (wl == 0 || wl >= sizeof windir) snprintf(windir, sizeof windir, "C:\\Windows");
    snprintf(path, sizeof path, "%s\\System32;%s", windir, windir);
    const char *const *adm = ep->env;
    struct {
        const char *name, *value;
        bool on;
    } add[] = {{"SystemRoot", windir, !env_has(adm, nenv, "SystemRoot")},
               {"PATH", path, !env_has(adm, nenv, "PATH")},
               {"PIXELGATE_ENDPOINT", nm, true},
               {"PIXELGATE_PROMPT", prompt, true},
               {"PIXELGATE_EXPECT", expect ? expect : "", expect != NULL}};
    for (size_t i = 0; i < sizeof add / sizeof add[0]; i++) {
        if (!add[i].on) continue;
        if (!(w->env[w->nenv] = env_entry(add[i].name, add[i].value)))
            return pg_error_set(e, PG_E_BADINPUT, NULL, "endpoint '%s': %s is not valid UTF-8", nm, add[i].name);
        w->nenv++;
    }
    return PG_OK;
}

/* The outcome once the command is done or killed (mirrors pg_relay_cmd_posix.c). */
static pg_err outcome(const pg_endpoint *ep, child_res *c, bool timed_out, pipe_io *out, pipe_io *err,
                      char **answer_text, pg_relay_fail *fk, pg_error *e) {
    const char *nm = ep->name ? ep->name : "?";
    char tail[256];
    pg_relay_tail_text(err->buf, err->n, tail, sizeof tail);
    if (timed_out) {
        *fk = PG_RF_TIMEOUT;
        return pg_error_set(e, PG_E_TIMEOUT, "raise the endpoint's timeout_s in the policy, or fix the command",
                            "endpoint '%s': command did not finish within %u s; its job was killed", nm,
                            (unsigned)pg_relay_timeout_s(ep));
    }
    if (out->over) {
        *fk = PG_RF_OUTPUT;
        return pg_error_set(e, PG_E_BADINPUT,
                            "raise max_response_bytes in the policy if the output is legitimately long",
                            "endpoint '%s': command output exceeds the %zu-byte cap; its job was killed", nm, out->cap);
    }
    DWORD code = 1;
    GetExitCodeProcess(c->proc, &code);
    *fk = PG_RF_COMMAND;
    if (code >= 0xC0000000u) /* an NTSTATUS: the process died of an exception */
        return pg_error_set(e, PG_E_UNREACHABLE, NULL, "endpoint '%s': command died with exception 0x%08lx%s%s", nm,
                            (unsigned long)code, tail[0] ? "; stderr: " : "", tail);
    if (code != 0)
        return pg_error_set(e, PG_E_UNREACHABLE, NULL, "endpoint '%s': command exited with status %lu%s%s", nm,
                            (unsigned long)code, tail[0] ? "; stderr: " : "", tail);
    *fk = PG_RF_OUTPUT;
    for (size_t k = 0; k < out->n; k++) /* a NUL would silently cut the answer */
        if (!out->buf[k]) out->buf[k] = ' ';
    out->buf[out->n] = 0;
    char *line = pg_relay_last_line(out->buf, out->n);
    if (!line) return pg_error_set(e, PG_E_BADINPUT, NULL, "endpoint '%s': command printed no answer line", nm);
    *answer_text = strdup(line);
    return *answer_text ? PG_OK : pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
}

/* Validates the description the way pg_relay_cmd_posix.c does; counts argv/env. */
static pg_err check_ep(const pg_endpoint *ep, const char *expect, int *nargv, int *nenv, pg_error *e) {
    const char *nm = ep->name ? ep->name : "?";
    if (!ep->argv || !ep->argv[0] || !is_drive_path(ep->argv[0]))
        return pg_error_set(e, PG_E_BADINPUT, "give the command as an absolute path (C:\\...) in the policy",
                            "endpoint '%s': command argv[0] must be an absolute path", nm);
    *nenv = 0;
    if (ep->env)
        for (; ep->env[*nenv]; (*nenv)++) {
            const char *s = ep->env[*nenv], *eq = strchr(s, '=');
            if (!eq || eq == s || _strnicmp(s, "PIXELGATE_", 10) == 0)
                return pg_error_set(e, PG_E_BADINPUT, NULL,
                                    "endpoint '%s': environment entry %d must be NAME=value and not PIXELGATE_*", nm,
                                    *nenv);
        }
    for (*nargv = 0; ep->argv[*nargv]; (*nargv)++) {}
    if (expect && strlen(expect) > PG_JUDGE_MAX_EXPECT)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "expectation too long");
    return PG_OK;
}

/* Pipes, the command, the pipe threads; then waits and collects. */
static pg_err run(const pg_endpoint *ep, wide_args *w, const uint8_t *png, size_t png_len, char **answer_text,
                  pg_relay_fail *fk, pg_error *e) {
    const char *nm = ep->name ? ep->name : "?";
    child_res c;
    memset(&c, 0, sizeof c);
    size_t cap = pg_relay_max_response(ep);
    pipe_io in = {.src = png, .len = png_len}, out = {.cap = cap}, err = {.cap = ERR_TAIL, .tail = true};
    wchar_t *cmdline = command_line(w->argv, w->nargv), *envb = env_block(w->env, w->nenv);
    out.buf = malloc(cap + 1);
    err.buf = malloc(ERR_TAIL);
    pg_err rc = PG_OK;
    if (!cmdline || !envb || !out.buf || !err.buf) {
        rc = pg_error_set(e, cmdline ? PG_E_INTERNAL : PG_E_BADINPUT, NULL,
                          "endpoint '%s': out of memory, or a command line over %d characters", nm, CMDLINE_MAX);
        goto done;
    }
    if (!make_pipe(&c.in_r, &c.in_w, true) || !make_pipe(&c.out_r, &c.out_w, false) ||
        !make_pipe(&c.err_r, &c.err_w, false)) {
        rc = pg_error_set(e, PG_E_INTERNAL, NULL, "endpoint '%s': cannot create pipes", nm);
        goto done;
    }
    pg_deadline deadline = pg_deadline_in_ms((double)pg_relay_timeout_s(ep) * 1000);
    rc = spawn(&c, w->argv[0], cmdline, envb, nm, ep->argv[0], fk, e);
    close_h(&c.in_r); /* the child holds its own copies now */
    close_h(&c.out_w);
    close_h(&c.err_w);
    if (rc != PG_OK) goto done;
    out.job = c.job;
    in.h = c.in_w; /* the threads own these from here on */
    out.h = c.out_r;
    err.h = c.err_r;
    c.in_w = c.out_r = c.err_r = NULL;
    bool started = start_thread(&c, drain, &out) && start_thread(&c, drain, &err);
    if (started && png_len) started = start_thread(&c, feed_stdin, &in);
    else close_h(&in.h);
    if (!started) {
        reap(&c);
        rc = pg_error_set(e, PG_E_INTERNAL, NULL, "endpoint '%s': cannot start I/O threads", nm);
        goto done;
    }
    bool in_time = wait_done(&c, c.thr[0], c.thr[1], deadline);
    reap(&c);
    rc = outcome(ep, &c, !in_time && !out.over, &out, &err, answer_text, fk, e);
done:
    if (c.nthr) reap(&c);
    close_h(&in.h); /* only set if its thread never started */
    close_h(&out.h);
    close_h(&err.h);
    release(&c);
    free(cmdline);
    free(envb);
    free(out.buf);
    free(err.buf);
    return rc;
}

pg_err pg_relay_cmd_analyze(const pg_endpoint *ep, const uint8_t *png, size_t png_len, const char *prompt,
                            const char *expect, char **answer_text, pg_relay_fail *fail, pg_error *e) {
    pg_relay_fail fk = PG_RF_CONFIG;
    int nargv = 0, nenv = 0;
    wide_args w;
    memset(&w, 0, sizeof w);
    pg_err rc = check_ep(ep, expect, &nargv, &nenv, e);
    if (rc == PG_OK) rc = build_wide(ep, nargv, nenv, prompt, expect, &w, e);
    if (rc == PG_OK) rc = run(ep, &w, png, png_len, answer_text, &fk, e);
    free_wide(&w);
    if (fail) *fail = rc == PG_OK ? PG_RF_NONE : fk;
    return rc;
}
