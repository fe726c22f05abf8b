/* SPDX-License-Identifier: MIT */
/* pixelgated.exe - the capture broker as a Windows service.
 *
 *   pixelgated install     register the service (LocalSystem, auto start,
 *                          SCM recovery: restart), make %ProgramData%\pixelgate
 *                          and its spool and audit directories with a
 *                          protected DACL (SYSTEM and Administrators only)
 *   pixelgated uninstall   stop and delete the service (data is kept)
 *   pixelgated service     the SCM entry point (what the service runs)
 *   pixelgated run         the same broker in the foreground, for debugging
 *   pixelgated helper --pipe NAME
 *                          the capture/input helper the service starts in
 *                          the interactive session (pg_win_helper.h)
 *   pixelgated --verify-audit FILE [--anchor SEQ:HASH]
 *
 * The service runs in session 0, which has no view of the user's desktop, so
 * capture and input go through the helper; tokens, pixels, policy and audit
 * stay in the service (docs/windows.md). */
#include <windows.h>

#include <sddl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_utf8.h"
#include "pg_broker.h"
#include "pg_handlers.h"
#include "pg_server.h"
#include "pg_log.h"
#include "pg_win_helper.h"
#include "pg_win_listener.h"
#include "pg_win_svc.h"

#define SERVICE_NAME L"pixelgate"

typedef struct {
    const char *policy_path;
    const char *state_dir;
    const char *pipe_name;
    unsigned max_conns;
    uint32_t io_timeout_ms;
    uint32_t ttl_s;
    uint64_t memory_budget;
    bool in_process; /* run: capture in this process instead of a helper */
    bool debug;
} options;

static options opts;
static char default_root[MAX_PATH * 3];
static char default_policy[MAX_PATH * 3];

static void usage(FILE *f) {
    fprintf(f, "usage: pixelgated install | uninstall | service | run [options] | helper --pipe NAME [--input-token N]\n"
               "       pixelgated --verify-audit FILE [--anchor SEQ:HASH] | --version | --help\n"
               "options (run; the service reads the same from its registered command line):\n"
               "  --policy FILE       the administrator's policy (default %s);\n"
               "                      only SYSTEM and Administrators may be able to write it\n"
               "  --state-dir DIR     spool and audit (default %s)\n"
               "  --pipe NAME         pipe name (default \\\\.\\pipe\\pixelgate)\n"
               "  --in-process        run: capture and input from this process, no helper\n"
               "  --token-ttl S, --memory-budget MIB, --max-conns N, --io-timeout MS, --debug\n",
               default_policy, default_root);
}

static void default_paths(void) {
    wchar_t w[MAX_PATH];
    DWORD n = GetEnvironmentVariableW(L"ProgramData", w, MAX_PATH);
    if (n == 0 || n >= MAX_PATH) wcscpy(w, L"C:\\ProgramData");
    char pd[MAX_PATH * 3];
    WideCharToMultiByte(CP_UTF8, 0, w, -1, pd, sizeof pd, NULL, NULL);
    snprintf(default_root, sizeof default_root, "%s\\pixelgate", pd);
    snprintf(default_policy, sizeof default_policy, "%s\\policy.json", default_root);
}

static bool parse_u64(const char *s, unsigned long long max, unsigned long long *out) {
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || v > max || s[0] == '-') return false;
    *out = v;
    return true;
}

/* Parses options from argv[first..]; 0 ok, else PG_E_USAGE. */
static int parse_options(int argc, char **argv, int first) {
    for (int i = first; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned long long n = 0;
        bool num = !strcmp(a, "--token-ttl") || !strcmp(a, "--memory-budget") || !strcmp(a, "--max-conns") ||
                   !strcmp(a, "--io-timeout");
        bool str = !strcmp(a, "--policy") || !strcmp(a, "--state-dir") || !strcmp(a, "--pipe");
        if ((num || str) && !v) {
            fprintf(stderr, "pixelgated: %s needs a value\n", a);
            return PG_E_USAGE;
        }
        if (num && !parse_u64(v, 1ull << 32, &n)) {
            fprintf(stderr, "pixelgated: bad value for %s: %s\n", a, v);
            return PG_E_USAGE;
        }
        if (num || str) i++;
        if (!strcmp(a, "--policy")) opts.policy_path = v;
        else if (!strcmp(a, "--state-dir")) opts.state_dir = v;
        else if (!strcmp(a, "--pipe")) opts.pipe_name = v;
        else if (!strcmp(a, "--token-ttl")) opts.ttl_s = (uint32_t)n;
        else if (!strcmp(a, "--memory-budget")) opts.memory_budget = (uint64_t)n << 20;
        else if (!strcmp(a, "--max-conns")) opts.max_conns = (unsigned)n;
        else if (!strcmp(a, "--io-timeout")) opts.io_timeout_ms = (uint32_t)n;
        else if (!strcmp(a, "--in-process")) opts.in_process = true;
        else if (!strcmp(a, "--debug")) opts.debug = true;
        else {
            fprintf(stderr, "pixelgated: unknown option %s\n", a);
            usage(stderr);
            return PG_E_USAGE;
        }
    }
    if (opts.max_conns == 0 || opts.ttl_s == 0) {
        fprintf(stderr, "pixelgated: --max-conns and --token-ttl must be above zero\n");
        return PG_E_USAGE;
    }
    return 0;
}

/* ---- the broker, shared by "run" and "service" ------------------------- */

typedef struct {
    pg_broker b;
    HANDLE stop, reload;
    void (*on_listening)(void *ctx);
} broker_run;

static pg_err load_policy(pg_policy **policy, pg_error *e) {
    pg_err rc = pg_policy_load(opts.policy_path, policy, e);
    if (rc) pg_log(PG_LOG_ERROR, "policy %s: %s%s%s", opts.policy_path, e->message, e->recovery_tip[0] ? "; " : "",
                   e->recovery_tip);
    return rc;
}

/* Tesseract's language data: $TESSDATA_PREFIX when set (Tesseract reads it
 * itself), else the tessdata folder beside pixelgated.exe, where the
 * installer puts it: the default compiled into a cross-built Tesseract is a
 * path on the build machine. */
static void ocr_datapath(char *out, size_t cap) {
    out[0] = '\0';
    if (GetEnvironmentVariableW(L"TESSDATA_PREFIX", NULL, 0) > 0) return;
    wchar_t exe[MAX_PATH];
    DWORD n = GetModuleFileNameW(NULL, exe, MAX_PATH);
    if (n == 0 || n >= MAX_PATH) return;
    wchar_t *slash = wcsrchr(exe, L'\\');
    if (!slash) return;
    wcscpy(slash + 1, L"tessdata");
    if (WideCharToMultiByte(CP_UTF8, 0, exe, -1, out, (int)cap, NULL, NULL) <= 0) out[0] = '\0';
}

static pg_err broker_start(broker_run *r, pg_error *e) {
    pg_policy *policy = NULL;
    pg_err rc = load_policy(&policy, e);
    if (rc) return rc;
    char spool[MAX_PATH * 3], audit_dir[MAX_PATH * 3];
    rc = pg_win_svc_prepare_dirs(opts.state_dir, spool, audit_dir, sizeof spool, e);
    if (rc) {
        pg_policy_free(policy);
        return rc;
    }
    pg_broker_config bc = {.policy = policy, .policy_path = opts.policy_path, .state_dir = audit_dir,
                           .spool_dir = spool, .display = NULL,
                           .plat_ops = opts.in_process ? pg_platform_default() : pg_win_helper_ops(),
                           .handlers = pg_op_handlers,
                           .quota_cap_bytes = 0, .memory_budget = opts.memory_budget, .ttl_s = opts.ttl_s,
                           .self_uid = 0, .self_pid = (int64_t)GetCurrentProcessId()};
    rc = pg_broker_init(&r->b, &bc, e);
    if (rc) {
        pg_log(PG_LOG_ERROR, "%s", e->message);
        pg_broker_fini(&r->b);
        return rc;
    }
    ocr_datapath(r->b.ocr_datapath, sizeof r->b.ocr_datapath);
    pg_broker_watch_start(&r->b); /* a helper that died is noticed, and a new one started with backoff */
    pg_server_limits sl;
    pg_server_limits_default(&sl, opts.max_conns);
    sl.io_timeout_ms = opts.io_timeout_ms;
    pg_server_configure(&sl);
    pg_log(PG_LOG_INFO, "pixelgated %s pid=%lu backend=%s state=%s", PG_VERSION, (unsigned long)GetCurrentProcessId(),
           r->b.plat_ops->name, opts.state_dir);
    return PG_OK;
}

static pg_err broker_serve(broker_run *r, void *ctx, pg_error *e) {
    pg_win_listener_opts lo = {opts.pipe_name, NULL, opts.max_conns, opts.io_timeout_ms};
    pg_err rc = pg_win_listener_run(&r->b, &lo, r->stop, r->reload, r->on_listening, ctx, e);
    if (rc) pg_log(PG_LOG_ERROR, "%s", e->message);
    else pg_log(PG_LOG_INFO, "stopped");
    pg_broker_fini(&r->b);
    return rc;
}

/* ---- run (foreground) --------------------------------------------------- */

static HANDLE console_stop;
static BOOL WINAPI on_console(DWORD type) {
    (void)type;
    SetEvent(console_stop);
    return TRUE;
}

static int cmd_run(void) {
    broker_run r = {0};
    r.stop = console_stop = CreateEventW(NULL, TRUE, FALSE, NULL);
    r.reload = CreateEventW(NULL, FALSE, FALSE, NULL);
    SetConsoleCtrlHandler(on_console, TRUE);
    pg_error e;
    pg_error_clear(&e);
    pg_err rc = broker_start(&r, &e);
    if (!rc) rc = broker_serve(&r, NULL, &e);
    if (rc) fprintf(stderr, "pixelgated: %s%s%s\n", e.message, e.recovery_tip[0] ? "; " : "", e.recovery_tip);
    return rc;
}

/* ---- service ------------------------------------------------------------ */

static SERVICE_STATUS_HANDLE svc_handle;
static SERVICE_STATUS svc_status;
static broker_run svc_run;

static void svc_report(DWORD state, DWORD win32_exit, DWORD specific, DWORD wait_ms) {
    static DWORD checkpoint = 1;
    svc_status.dwServiceType = SERVICE_WIN32_OWN_PROCESS;
    svc_status.dwCurrentState = state;
    svc_status.dwWin32ExitCode = win32_exit;
    svc_status.dwServiceSpecificExitCode = specific;
    svc_status.dwWaitHint = wait_ms;
    svc_status.dwControlsAccepted = state == SERVICE_RUNNING ? SERVICE_ACCEPT_STOP | SERVICE_ACCEPT_SHUTDOWN |
                                                                   SERVICE_ACCEPT_PARAMCHANGE |
                                                                   SERVICE_ACCEPT_SESSIONCHANGE
                                                             : 0;
    svc_status.dwCheckPoint = (state == SERVICE_RUNNING || state == SERVICE_STOPPED) ? 0 : checkpoint++;
    SetServiceStatus(svc_handle, &svc_status);
}

static DWORD WINAPI svc_control(DWORD ctl, DWORD type, void *data, void *ctx) {
    (void)type;
    (void)data;
    (void)ctx;
    switch (ctl) {
    case SERVICE_CONTROL_STOP:
    case SERVICE_CONTROL_SHUTDOWN:
        svc_report(SERVICE_STOP_PENDING, NO_ERROR, 0, 10000);
        SetEvent(svc_run.stop);
        return NO_ERROR;
    case SERVICE_CONTROL_PARAMCHANGE: /* "sc control pixelgate paramchange": reload the policy */
        SetEvent(svc_run.reload);
        return NO_ERROR;
    case SERVICE_CONTROL_SESSIONCHANGE:
        /* Another session may now own the console: the next capture or input
         * starts a helper there (the handler must return at once). */
        if (!opts.in_process && svc_run.b.plat) pg_win_helper_mark_stale(svc_run.b.plat);
        return NO_ERROR;
    case SERVICE_CONTROL_INTERROGATE:
        return NO_ERROR;
    default:
        return ERROR_CALL_NOT_IMPLEMENTED;
    }
}

static void svc_listening(void *ctx) {
    (void)ctx;
    svc_report(SERVICE_RUNNING, NO_ERROR, 0, 0);
}

/* A service has no console: its log goes to <state-dir>\pixelgated.log
 * (unbuffered, one line per write, so a crash loses nothing logged). */
static void svc_log_to_file(void) {
    char path[MAX_PATH * 3];
    snprintf(path, sizeof path, "%s\\pixelgated.log", opts.state_dir);
    FILE *f = pg_fopen_utf8(path, "ab");
    if (!f) return;
    setvbuf(f, NULL, _IONBF, 0);
    pg_log_set_file(f);
}

static void WINAPI svc_main(DWORD argc, wchar_t **argv) {
    (void)argc;
    (void)argv;
    svc_handle = RegisterServiceCtrlHandlerExW(SERVICE_NAME, svc_control, NULL);
    if (!svc_handle) return;
    svc_report(SERVICE_START_PENDING, NO_ERROR, 0, 30000);
    svc_run.stop = CreateEventW(NULL, TRUE, FALSE, NULL);
    svc_run.reload = CreateEventW(NULL, FALSE, FALSE, NULL);
    svc_run.on_listening = svc_listening;
    pg_error e;
    pg_error_clear(&e);
    pg_err rc = broker_start(&svc_run, &e);
    if (!rc) rc = broker_serve(&svc_run, NULL, &e);
    /* A refusal (bad policy ACL, bad policy) is the service's own exit code,
     * so "sc query pixelgate" shows the documented number. */
    svc_report(SERVICE_STOPPED, rc ? ERROR_SERVICE_SPECIFIC_ERROR : NO_ERROR, (DWORD)rc, 0);
}

static int cmd_service(void) {
    svc_log_to_file();
    SERVICE_TABLE_ENTRYW table[] = {{(wchar_t *)SERVICE_NAME, svc_main}, {NULL, NULL}};
    if (!StartServiceCtrlDispatcherW(table)) {
        DWORD err = GetLastError();
        pg_log(PG_LOG_ERROR, "not started by the service manager (error %lu); use \"pixelgated run\"",
               (unsigned long)err);
        fprintf(stderr, "pixelgated: not started by the service manager (error %lu); use \"pixelgated run\"\n",
                (unsigned long)err);
        return PG_E_USAGE;
    }
    return 0;
}

/* ---- main --------------------------------------------------------------- */

static int verify_audit(int argc, char **argv) {
    const char *path = argv[2], *anchor = NULL;
    if (argc == 5 && !strcmp(argv[3], "--anchor")) anchor = argv[4];
    else if (argc != 3) {
        usage(stderr);
        return PG_E_USAGE;
    }
    return pg_broker_verify_audit(path, anchor);
}

int main(int argc, char **argv) {
    if (pg_args_utf8(&argc, &argv) != 0) {
        fprintf(stderr, "pixelgated: cannot read the command line as UTF-8\n");
        return PG_E_INTERNAL;
    }
    default_paths();
    opts = (options){.policy_path = default_policy, .state_dir = default_root, .pipe_name = "\\\\.\\pipe\\pixelgate",
                     .max_conns = 32, .io_timeout_ms = 30000, .ttl_s = 3600, .memory_budget = 256ull << 20};
    if (argc < 2) {
        usage(stderr);
        return PG_E_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("pixelgated %s (windows)\n", PG_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "--verify-audit") && argc >= 3) return verify_audit(argc, argv);
    if (!strcmp(cmd, "helper")) {
        bool token = argc == 6 && !strcmp(argv[4], "--input-token");
        if ((argc != 4 && !token) || strcmp(argv[2], "--pipe")) {
            usage(stderr);
            return PG_E_USAGE;
        }
        return pg_win_helper_main(argv[3], token ? argv[5] : NULL);
    }
    int rc = parse_options(argc, argv, 2);
    if (rc) return rc;
    pg_log_set_level(opts.debug ? PG_LOG_DEBUG : PG_LOG_INFO);
    if (!strcmp(cmd, "install")) return pg_win_svc_install(SERVICE_NAME, opts.state_dir, opts.policy_path);
    if (!strcmp(cmd, "uninstall")) return pg_win_svc_uninstall(SERVICE_NAME);
    if (!strcmp(cmd, "run")) return cmd_run();
    if (!strcmp(cmd, "service")) return cmd_service();
    fprintf(stderr, "pixelgated: unknown command %s\n", cmd);
    usage(stderr);
    return PG_E_USAGE;
}
