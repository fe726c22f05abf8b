/* SPDX-License-Identifier: MIT */
/* pg_win_session.c - start the helper in the active console session and
 * accept only it on a private pipe (see pg_win_session.h for the contract).
 *
 * Why this way: a service's processes live in session 0, whose window
 * station shows nothing. A process whose primary token carries another
 * TokenSessionId is created in that session, on the desktop named in
 * STARTUPINFO; setting the session id needs SeTcbPrivilege, which
 * LocalSystem holds (the pattern TigerVNC, UltraVNC and RustDesk use).
 * The pipe is created before the child exists, with a random name, one
 * instance and a DACL for our own account only; the pid check then proves
 * the one client is the process we started, not whoever guessed the name.
 */
#include <windows.h>

#include <sddl.h>
#include <stdio.h>
#include <wtsapi32.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "pg_crypto.h"
#include "pg_win_pipe_server.h"
#include "pg_win_sid.h"
#include "pg_win_session.h"
#include "pg_utf8.h"

#define PIPE_BUF_SIZE 65536
#define STOP_WAIT_MS 5000
#define EXE_PATH_MAX 32768 /* the long-path limit */

/* Where the console launch failed, for the path string and messages. */
typedef struct {
    const char *step;
    DWORD err;
} launch_failure;

static bool failed_at(launch_failure *f, const char *step) {
    f->step = step;
    f->err = GetLastError();
    return false;
}

uint32_t pg_win_session_active(void) { return WTSGetActiveConsoleSessionId(); }

bool pg_win_session_alive(const pg_win_helper_child *c) {
    return c->process && WaitForSingleObject(c->process, 0) == WAIT_TIMEOUT;
}

/* ------------------------------------------------------------- the pipe */

/* This process's user SID as a canonical string (SYSTEM as the service). */
static pg_err self_sid(char out[PG_WIN_SID_STR_MAX], pg_error *e) {
    HANDLE tok;
    if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok))
        return pg_error_set(e, PG_E_INTERNAL, NULL, "OpenProcessToken failed: error %lu", GetLastError());
    union {
        TOKEN_USER tu;
        BYTE raw[SECURITY_MAX_SID_SIZE + sizeof(TOKEN_USER)];
    } u;
    DWORD n;
    BOOL ok = GetTokenInformation(tok, TokenUser, &u, sizeof u, &n);
    DWORD err = GetLastError();
    CloseHandle(tok);
    if (!ok) return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot read our token's user: error %lu", err);
    return pg_win_sid_format(u.tu.User.Sid, out, e);
}

/* Owner and only admitted principal: ourselves. NETWORK is denied on top of
 * PIPE_REJECT_REMOTE_CLIENTS. */
static pg_err pipe_security(PSECURITY_DESCRIPTOR *sd, pg_error *e) {
    char me[PG_WIN_SID_STR_MAX];
    pg_err rc = self_sid(me, e);
    if (rc) return rc;
    char sddl[2 * PG_WIN_SID_STR_MAX + 64];
    snprintf(sddl, sizeof sddl, "O:%sD:P(D;;GA;;;NU)(A;;GA;;;%s)", me, me);
    if (!ConvertStringSecurityDescriptorToSecurityDescriptorA(sddl, SDDL_REVISION_1, sd, NULL))
        return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot build the helper pipe's DACL: error %lu",
                            GetLastError());
    return PG_OK;
}

/* \\.\pipe\pixelgate-helper-<32 hex>: 128 random bits nobody can guess. */
static pg_err random_name(wchar_t *out, size_t cap, pg_error *e) {
    uint8_t bits[16];
    char hex[2 * sizeof bits + 1], name[sizeof PG_WIN_HELPER_PIPE_PREFIX + sizeof hex];
    pg_err rc = pg_random_bytes(bits, sizeof bits, e);
    if (rc) return rc;
    pg_hex(bits, sizeof bits, hex);
    snprintf(name, sizeof name, "%s%s", PG_WIN_HELPER_PIPE_PREFIX, hex);
    if (MultiByteToWideChar(CP_UTF8, 0, name, -1, out, (int)cap) <= 0)
        return pg_error_set(e, PG_E_INTERNAL, NULL, "pipe name does not fit");
    return PG_OK;
}

static pg_err make_pipe(wchar_t *name, size_t cap, HANDLE *pipe, pg_error *e) {
    PSECURITY_DESCRIPTOR sd = NULL;
    pg_err rc = random_name(name, cap, e);
    if (!rc) rc = pipe_security(&sd, e);
    if (rc) return rc;
    SECURITY_ATTRIBUTES sa = {sizeof sa, sd, FALSE};
    *pipe = CreateNamedPipeW(name, PIPE_ACCESS_DUPLEX | FILE_FLAG_OVERLAPPED | FILE_FLAG_FIRST_PIPE_INSTANCE,
                             PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS, 1,
                             PIPE_BUF_SIZE, PIPE_BUF_SIZE, 0, &sa);
    DWORD err = GetLastError();
    LocalFree(sd);
    if (*pipe == INVALID_HANDLE_VALUE)
        return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot create the helper pipe: error %lu", err);
    return PG_OK;
}

/* ---------------------------------------------------------- the process */

/* exe (wide, malloc'd) and the whole mutable command line; with the
 * inherited input token's handle value after the pipe's name. */
static pg_err command_line(const pg_win_helper_launch *how, const wchar_t *pipe, HANDLE token, wchar_t **exe,
                           wchar_t **cmd, pg_error *e) {
    wchar_t *args = pg_utf8_to_wide(how->args ? how->args : "helper", 0, NULL);
    if (how->exe) {
        *exe = pg_utf8_to_wide(how->exe, 0, NULL);
    } else if ((*exe = malloc(EXE_PATH_MAX * sizeof **exe)) != NULL) {
        DWORD n = GetModuleFileNameW(NULL, *exe, EXE_PATH_MAX);
        if (n == 0 || n >= EXE_PATH_MAX) (*exe)[0] = L'\0';
    }
    size_t len = (*exe ? wcslen(*exe) : 0) + (args ? wcslen(args) : 0) + wcslen(pipe) + 64;
    *cmd = *exe && (*exe)[0] && args ? malloc(len * sizeof **cmd) : NULL;
    if (*cmd && token)
        swprintf(*cmd, len, L"\"%ls\" %ls --pipe %ls --input-token %llu", *exe, args, pipe,
                 (unsigned long long)(uintptr_t)token);
    else if (*cmd)
        swprintf(*cmd, len, L"\"%ls\" %ls --pipe %ls", *exe, args, pipe);
    free(args);
    if (*cmd) return PG_OK;
    free(*exe);
    *exe = NULL;
    return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot build the helper's command line (bad UTF-8 or out of memory)");
}

static bool under_wine(void) {
    HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
    return ntdll && GetProcAddress(ntdll, "wine_get_version") != NULL;
}

/* Medium integrity (S-1-16-8192), the level of an ordinary user program: the
 * helper's SendInput is then held to UIPI, so input it injects can never
 * reach an elevated window, whatever a check missed. Lowering needs no
 * privilege. Wine keeps no integrity levels (it leaves the token as it
 * was): *kept says what the token has when it did not go down. */
static bool lower_integrity(HANDLE tok, uint32_t *kept, launch_failure *f) {
    SID_IDENTIFIER_AUTHORITY label = SECURITY_MANDATORY_LABEL_AUTHORITY;
    PSID sid = NULL;
    *kept = 0;
    if (!AllocateAndInitializeSid(&label, 1, SECURITY_MANDATORY_MEDIUM_RID, 0, 0, 0, 0, 0, 0, 0, &sid))
        return failed_at(f, "AllocateAndInitializeSid");
    TOKEN_MANDATORY_LABEL tml = {{sid, SE_GROUP_INTEGRITY}};
    bool ok = SetTokenInformation(tok, TokenIntegrityLevel, &tml, (DWORD)(sizeof tml + GetLengthSid(sid))) ||
              failed_at(f, "SetTokenInformation(TokenIntegrityLevel)");
    FreeSid(sid);
    uint32_t now = ok ? pg_win_token_integrity(tok) : 0;
    if (ok && now != SECURITY_MANDATORY_MEDIUM_RID) {
        if (!under_wine()) {
            SetLastError(ERROR_INVALID_PARAMETER);
            return failed_at(f, "lowering the helper's integrity to medium (it did not change)");
        }
        *kept = now;
    }
    return ok;
}

/* Our token without its privileges (the helper captures and injects, and
 * needs none), as a primary token placed in session, at medium integrity. */
static bool session_token(DWORD session, HANDLE *out, uint32_t *kept, launch_failure *f) {
    HANDLE self;
    DWORD want = TOKEN_DUPLICATE | TOKEN_QUERY | TOKEN_ASSIGN_PRIMARY | TOKEN_ADJUST_DEFAULT | TOKEN_ADJUST_SESSIONID;
    if (!OpenProcessToken(GetCurrentProcess(), want, &self)) return failed_at(f, "OpenProcessToken");
    /* DISABLE_MAX_PRIVILEGE: every privilege but SeChangeNotify is deleted. */
    bool ok = CreateRestrictedToken(self, DISABLE_MAX_PRIVILEGE, 0, NULL, 0, NULL, 0, NULL, out) ||
              failed_at(f, "CreateRestrictedToken");
    CloseHandle(self);
    if (ok && !SetTokenInformation(*out, TokenSessionId, &session, sizeof session))
        ok = failed_at(f, "SetTokenInformation"); /* 1314 unless we hold SeTcbPrivilege */
    if (ok) ok = lower_integrity(*out, kept, f);
    if (!ok && *out) CloseHandle(*out);
    return ok;
}

/* The console user's token for the helper's input: an inheritable
 * impersonation token (the helper has no privilege to ask for it itself),
 * NULL with *err when no one is logged on or the query is refused. */
static HANDLE input_token(DWORD session, DWORD *err) {
    HANDLE primary = NULL, imp = NULL;
    SECURITY_ATTRIBUTES inherit = {sizeof inherit, NULL, TRUE};
    *err = 0;
    if (!WTSQueryUserToken(session, &primary)) {
        *err = GetLastError();
        return NULL;
    }
    if (!DuplicateTokenEx(primary, TOKEN_IMPERSONATE | TOKEN_QUERY | TOKEN_DUPLICATE, &inherit, SecurityImpersonation,
                          TokenImpersonation, &imp))
        *err = GetLastError(), imp = NULL;
    CloseHandle(primary);
    return imp;
}

/* CreateProcessAsUserW letting the child inherit `token` and nothing else:
 * an explicit handle list, so no other inheritable handle of the service
 * leaks into the user's session. */
static bool create_with_token(HANDLE user, const wchar_t *exe, wchar_t *cmd, STARTUPINFOW *si,
                              PROCESS_INFORMATION *pi, HANDLE token, launch_failure *f) {
    if (!token)
        return CreateProcessAsUserW(user, exe, cmd, NULL, NULL, FALSE, CREATE_NO_WINDOW, NULL, NULL, si, pi) ||
               failed_at(f, "CreateProcessAsUser");
    SIZE_T size = 0;
    InitializeProcThreadAttributeList(NULL, 1, 0, &size);
    STARTUPINFOEXW sx = {.StartupInfo = *si};
    sx.StartupInfo.cb = sizeof sx;
    sx.lpAttributeList = malloc(size);
    bool ok = sx.lpAttributeList && InitializeProcThreadAttributeList(sx.lpAttributeList, 1, 0, &size);
    if (!ok) {
        free(sx.lpAttributeList);
        return failed_at(f, "InitializeProcThreadAttributeList");
    }
    ok = (UpdateProcThreadAttribute(sx.lpAttributeList, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, &token, sizeof token,
                                    NULL, NULL) ||
          failed_at(f, "UpdateProcThreadAttribute(HANDLE_LIST)")) &&
         (CreateProcessAsUserW(user, exe, cmd, NULL, NULL, TRUE, CREATE_NO_WINDOW | EXTENDED_STARTUPINFO_PRESENT,
                               NULL, NULL, &sx.StartupInfo, pi) ||
          failed_at(f, "CreateProcessAsUser"));
    DeleteProcThreadAttributeList(sx.lpAttributeList);
    free(sx.lpAttributeList);
    return ok;
}

static bool start_in_console(const wchar_t *exe, wchar_t *cmd, STARTUPINFOW *si, PROCESS_INFORMATION *pi,
                             DWORD session, HANDLE input, uint32_t *kept, launch_failure *f) {
    if (session == PG_WIN_NO_SESSION) {
        SetLastError(0);
        return failed_at(f, "WTSGetActiveConsoleSessionId (no console session)");
    }
    HANDLE tok = NULL;
    if (!session_token(session, &tok, kept, f)) return false;
    bool ok = create_with_token(tok, exe, cmd, si, pi, input, f);
    CloseHandle(tok);
    return ok;
}

static DWORD current_session(void) {
    DWORD s = PG_WIN_NO_SESSION;
    return ProcessIdToSessionId(GetCurrentProcessId(), &s) ? s : PG_WIN_NO_SESSION;
}

/* The console path, else (outside session 0 only) plain CreateProcess
 * (without the input token: such a helper runs as whoever runs us). */
static pg_err start_helper(const pg_win_helper_launch *how, const wchar_t *exe, wchar_t *cmd, const wchar_t *plain,
                           DWORD session, HANDLE input, PROCESS_INFORMATION *pi, pg_win_helper_child *out,
                           pg_error *e) {
    wchar_t desktop[] = L"winsta0\\default";
    /* No standard handles: the helper prints nothing and must not hold the
     * service's (or a test runner's) output pipes open. */
    STARTUPINFOW si = {.cb = sizeof si, .lpDesktop = desktop, .dwFlags = STARTF_USESTDHANDLES};
    launch_failure f = {"console path skipped", 0};
    uint32_t kept = 0;
    if (!how->own_session && start_in_console(exe, cmd, &si, pi, session, input, &kept, &f)) {
        out->session = session;
        if (kept) /* Wine: no integrity levels, no UIPI */
            snprintf(out->path, sizeof out->path,
                     "CreateProcessAsUser(session %lu, no privileges, integrity 0x%x kept: Wine has no levels)", session,
                     (unsigned)kept);
        else
            snprintf(out->path, sizeof out->path, "CreateProcessAsUser(session %lu, no privileges, medium integrity)",
                     session);
        return PG_OK;
    }
    if (current_session() == 0 && !how->own_session)
        return pg_error_set(e, PG_E_UNREACHABLE,
                            "run the service as LocalSystem: placing the helper in the user's session needs "
                            "SeTcbPrivilege",
                            "cannot start the helper in the console session: %s: error %lu", f.step, f.err);
    wchar_t *own = _wcsdup(plain);
    BOOL started = own && CreateProcessW(exe, own, NULL, NULL, FALSE, CREATE_NO_WINDOW, NULL, NULL, &si, pi);
    free(own);
    if (!started)
        return pg_error_set(e, PG_E_UNREACHABLE, "check that the broker's executable is intact",
                            "cannot start the helper: %s: error %lu, then CreateProcess: error %lu", f.step, f.err,
                            GetLastError());
    out->session = PG_WIN_NO_SESSION;
    if (how->own_session) snprintf(out->path, sizeof out->path, "CreateProcess(own session, as asked)");
    else snprintf(out->path, sizeof out->path, "CreateProcess(fallback: %s: error %lu)", f.step, f.err);
    return PG_OK;
}

/* ------------------------------------------------------ the connection */

static pg_err not_connected(DWORD waited, DWORD err, const PROCESS_INFORMATION *pi, uint32_t timeout_ms,
                            pg_error *e) {
    DWORD code = 0;
    if (waited == WAIT_OBJECT_0 + 1 && GetExitCodeProcess(pi->hProcess, &code))
        return pg_error_set(e, PG_E_UNREACHABLE, "run '<broker> helper --pipe NAME' by hand to see why",
                            "the helper (pid %lu) exited with code %lu before connecting", pi->dwProcessId, code);
    if (waited == WAIT_TIMEOUT)
        return pg_error_set(e, PG_E_UNREACHABLE, NULL, "the helper (pid %lu) did not connect within %u ms",
                            pi->dwProcessId, timeout_ms);
    return pg_error_set(e, PG_E_UNREACHABLE, NULL, "waiting for the helper to connect failed: error %lu", err);
}

/* Overlapped ConnectNamedPipe, bounded, also ended by the child's exit;
 * the operation is reaped before return (ov lives on this stack). */
static pg_err wait_connect(HANDLE pipe, const PROCESS_INFORMATION *pi, uint32_t timeout_ms, pg_error *e) {
    HANDLE ev = CreateEventW(NULL, TRUE, FALSE, NULL);
    if (!ev) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of handles");
    OVERLAPPED ov = {.hEvent = ev};
    BOOL connected = ConnectNamedPipe(pipe, &ov);
    DWORD err = connected ? 0 : GetLastError(), waited = WAIT_OBJECT_0;
    if (err == ERROR_PIPE_CONNECTED) {
        connected = TRUE; /* it came between create and connect */
    } else if (err == ERROR_IO_PENDING) {
        HANDLE hs[2] = {ev, pi->hProcess};
        waited = WaitForMultipleObjects(2, hs, FALSE, timeout_ms);
        if (waited != WAIT_OBJECT_0) CancelIoEx(pipe, &ov);
        DWORD unused;
        connected = GetOverlappedResult(pipe, &ov, &unused, TRUE);
        err = connected ? 0 : GetLastError();
    }
    CloseHandle(ev);
    return connected ? PG_OK : not_connected(waited, err, pi, timeout_ms, e);
}

/* The kernel's word on who connected, never the client's. */
static pg_err check_client(HANDLE pipe, DWORD child, pg_error *e) {
    ULONG pid = 0;
    if (!GetNamedPipeClientProcessId(pipe, &pid))
        return pg_error_set(e, PG_E_POLICY, NULL, "cannot get the helper pipe client's pid: error %lu",
                            GetLastError());
    if (pid != child)
        return pg_error_set(e, PG_E_POLICY, "look for a process that watches for new processes' command lines",
                            "refusing the helper pipe's client: it is pid %lu, not the helper we started "
                            "(pid %lu)",
                            (unsigned long)pid, child);
    return PG_OK;
}

static void end_process(HANDLE process) {
    TerminateProcess(process, 1);
    WaitForSingleObject(process, STOP_WAIT_MS);
    CloseHandle(process);
}

/* How the helper's input runs, after the launch path. */
static void note_input(pg_win_helper_child *out, HANDLE input, DWORD err) {
    size_t n = strlen(out->path);
    if (out->session == PG_WIN_NO_SESSION) return; /* CreateProcess: as whoever runs us */
    if (input) snprintf(out->path + n, sizeof out->path - n, "; input as the session user");
    else
        snprintf(out->path + n, sizeof out->path - n,
                 "; input as the helper's own token (WTSQueryUserToken: error %lu)", err);
}

pg_err pg_win_session_launch(const pg_win_helper_launch *how, pg_win_helper_child *out, pg_error *e) {
    memset(out, 0, sizeof *out);
    wchar_t name[128], *exe = NULL, *cmd = NULL, *plain = NULL, *unused = NULL;
    HANDLE pipe = INVALID_HANDLE_VALUE, input = NULL;
    PROCESS_INFORMATION pi = {0};
    DWORD session = how->own_session ? PG_WIN_NO_SESSION : pg_win_session_active(), err = 0;
    if (session != PG_WIN_NO_SESSION) input = input_token(session, &err);
    pg_err rc = make_pipe(name, sizeof name / sizeof *name, &pipe, e);
    if (!rc) rc = command_line(how, name, input, &exe, &cmd, e);
    if (!rc) rc = command_line(how, name, NULL, &unused, &plain, e);
    if (!rc) rc = start_helper(how, exe, cmd, plain, session, input, &pi, out, e);
    if (!rc) note_input(out, input, err);
    if (input) CloseHandle(input); /* the child has its own, inherited */
    free(exe);
    free(cmd);
    free(unused);
    free(plain);
    if (pi.hThread) CloseHandle(pi.hThread);
    if (!rc) rc = wait_connect(pipe, &pi, how->connect_timeout_ms, e);
    if (!rc) rc = check_client(pipe, pi.dwProcessId, e);
    if (!rc) {
        HANDLE h = pipe;
        pipe = INVALID_HANDLE_VALUE; /* pg_conn_from_handle owns it, also on failure */
        rc = pg_conn_from_handle(&out->conn, h, how->call_timeout_ms, e);
    }
    if (pipe != INVALID_HANDLE_VALUE) CloseHandle(pipe);
    if (rc) {
        if (pi.hProcess) end_process(pi.hProcess);
        memset(out, 0, sizeof *out);
        return rc;
    }
    out->process = pi.hProcess;
    out->pid = pi.dwProcessId;
    return PG_OK;
}

void pg_win_session_stop(pg_win_helper_child *c) {
    pg_conn_close(c->conn); /* the helper sees the pipe close and returns */
    if (c->process) end_process(c->process);
    memset(c, 0, sizeof *c);
}
