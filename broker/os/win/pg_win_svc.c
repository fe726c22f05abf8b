/* SPDX-License-Identifier: MIT */
/* pg_win_svc.c - service registration and directories; see pg_win_svc.h. */
#include "pg_win_svc.h"

#include <windows.h>

#include <aclapi.h>
#include <sddl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pg_win_sid.h"

#define DIR_SDDL_BASE L"D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)"
#define POLICY_SDDL L"D:P(A;;FA;;;SY)(A;;FA;;;BA)(A;;FR;;;BU)"

static bool to_wide(const char *s, wchar_t *out, int cap) {
    return MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, out, cap) > 0;
}

/* SID string of this process's user, "" if unreadable. */
static void own_sid(char out[PG_WIN_SID_STR_MAX]) {
    out[0] = '\0';
    HANDLE tok;
    if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok)) return;
    BYTE buf[512];
    DWORD len;
    pg_error e;
    if (GetTokenInformation(tok, TokenUser, buf, sizeof buf, &len))
        pg_win_sid_format(((TOKEN_USER *)buf)->User.Sid, out, &e);
    CloseHandle(tok);
}

/* Sets a protected DACL from SDDL on path (file or directory), and makes
 * Administrators the owner where this account may (an administrator or
 * SYSTEM may; a plain user running "run" keeps its own ownership): the
 * owner can rewrite the DACL, so the policy check demands an admin owner. */
static pg_err set_dacl(const wchar_t *path, const wchar_t *sddl, const char *shown, pg_error *e) {
    PSECURITY_DESCRIPTOR sd = NULL;
    if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl, SDDL_REVISION_1, &sd, NULL))
        return pg_error_set(e, PG_E_INTERNAL, NULL, "bad SDDL for %s: error %lu", shown, (unsigned long)GetLastError());
    BOOL present = FALSE, defaulted = FALSE;
    PACL dacl = NULL;
    GetSecurityDescriptorDacl(sd, &present, &dacl, &defaulted);
    PSID admins = NULL;
    pg_error ignored;
    pg_win_sid_parse(PG_WIN_SID_ADMINS, &admins, &ignored);
    DWORD dacl_info = DACL_SECURITY_INFORMATION | PROTECTED_DACL_SECURITY_INFORMATION;
    DWORD err = admins ? SetNamedSecurityInfoW((wchar_t *)path, SE_FILE_OBJECT, dacl_info | OWNER_SECURITY_INFORMATION,
                                               admins, NULL, dacl, NULL)
                       : ERROR_INVALID_SID;
    if (err != ERROR_SUCCESS)
        err = SetNamedSecurityInfoW((wchar_t *)path, SE_FILE_OBJECT, dacl_info, NULL, NULL, dacl, NULL);
    LocalFree(admins);
    LocalFree(sd);
    if (err != ERROR_SUCCESS)
        return pg_error_set(e, PG_E_BADINPUT, "run as an administrator", "cannot set the ACL of %s: Windows error %lu",
                            shown, (unsigned long)err);
    return PG_OK;
}

static pg_err make_dir(const char *path, const wchar_t *sddl, pg_error *e) {
    wchar_t w[MAX_PATH];
    if (!to_wide(path, w, MAX_PATH)) return pg_error_set(e, PG_E_BADINPUT, NULL, "bad path %s", path);
    if (!CreateDirectoryW(w, NULL) && GetLastError() != ERROR_ALREADY_EXISTS)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "cannot create %s: Windows error %lu", path,
                            (unsigned long)GetLastError());
    DWORD attr = GetFileAttributesW(w);
    if (attr == INVALID_FILE_ATTRIBUTES || !(attr & FILE_ATTRIBUTE_DIRECTORY) || (attr & FILE_ATTRIBUTE_REPARSE_POINT))
        return pg_error_set(e, PG_E_BADINPUT, "remove it; the broker makes its own directory",
                            "%s is not a plain directory (a link or a file)", path);
    return set_dacl(w, sddl, path, e);
}

pg_err pg_win_svc_prepare_dirs(const char *root, char *spool, char *audit, size_t cap, pg_error *e) {
    char me[PG_WIN_SID_STR_MAX];
    own_sid(me);
    wchar_t sddl[512];
    bool privileged = !me[0] || !strcmp(me, PG_WIN_SID_SYSTEM);
    if (privileged) swprintf(sddl, 512, L"%ls", DIR_SDDL_BASE);
    else swprintf(sddl, 512, L"%ls(A;OICI;FA;;;%hs)", DIR_SDDL_BASE, me);
    snprintf(spool, cap, "%s\\spool", root);
    snprintf(audit, cap, "%s\\audit", root);
    pg_err rc = make_dir(root, sddl, e);
    if (!rc) rc = make_dir(spool, sddl, e);
    if (!rc) rc = make_dir(audit, sddl, e);
    return rc;
}

static bool set_recovery(SC_HANDLE svc) {
    SC_ACTION actions[3] = {{SC_ACTION_RESTART, 5000}, {SC_ACTION_RESTART, 10000}, {SC_ACTION_RESTART, 60000}};
    SERVICE_FAILURE_ACTIONSW fa = {.dwResetPeriod = 86400, .cActions = 3, .lpsaActions = actions};
    SERVICE_FAILURE_ACTIONS_FLAG flag = {.fFailureActionsOnNonCrashFailures = TRUE};
    BOOL ok = ChangeServiceConfig2W(svc, SERVICE_CONFIG_FAILURE_ACTIONS, &fa);
    /* The flag makes an exit with an error code (e.g. a bad policy) count too. */
    if (ok && !ChangeServiceConfig2W(svc, SERVICE_CONFIG_FAILURE_ACTIONS_FLAG, &flag))
        printf("note: SERVICE_CONFIG_FAILURE_ACTIONS_FLAG not accepted (error %lu): only crashes restart\n",
               (unsigned long)GetLastError());
    return ok;
}

/* Prints the recovery actions as the SCM now reports them (not as asked). */
static void print_recovery(SC_HANDLE svc) {
    BYTE buf[1024];
    DWORD need = 0;
    SERVICE_FAILURE_ACTIONSW *fa = (SERVICE_FAILURE_ACTIONSW *)buf;
    if (!QueryServiceConfig2W(svc, SERVICE_CONFIG_FAILURE_ACTIONS, buf, sizeof buf, &need)) {
        printf("warning: cannot read back the recovery actions (error %lu)\n", (unsigned long)GetLastError());
        return;
    }
    if (fa->cActions == 0 || !fa->lpsaActions) {
        printf("warning: the service manager kept no recovery actions\n");
        return;
    }
    printf("recovery (read back):");
    for (DWORD i = 0; i < fa->cActions; i++)
        printf("%s %s after %lu ms", i ? "," : "", fa->lpsaActions[i].Type == SC_ACTION_RESTART ? "restart" : "other",
               (unsigned long)fa->lpsaActions[i].Delay);
    printf("; reset after %lu s\n", (unsigned long)fa->dwResetPeriod);
}

static int fail(const char *what) {
    DWORD err = GetLastError();
    fprintf(stderr, "pixelgated: %s: Windows error %lu%s\n", what, (unsigned long)err,
            err == ERROR_ACCESS_DENIED ? " (run as an administrator)" : "");
    return err == ERROR_ACCESS_DENIED ? PG_E_POLICY : PG_E_INTERNAL;
}

static int register_service(const wchar_t *name, const wchar_t *cmdline) {
    SC_HANDLE scm = OpenSCManagerW(NULL, NULL, SC_MANAGER_CREATE_SERVICE | SC_MANAGER_CONNECT);
    if (!scm) return fail("cannot open the service manager");
    SC_HANDLE svc = CreateServiceW(scm, name, L"pixelgate capture broker", SERVICE_ALL_ACCESS,
                                   SERVICE_WIN32_OWN_PROCESS, SERVICE_AUTO_START, SERVICE_ERROR_NORMAL, cmdline, NULL,
                                   NULL, NULL, NULL, NULL);
    bool existed = !svc && GetLastError() == ERROR_SERVICE_EXISTS;
    if (existed) {
        svc = OpenServiceW(scm, name, SERVICE_ALL_ACCESS);
        if (svc && !ChangeServiceConfigW(svc, SERVICE_WIN32_OWN_PROCESS, SERVICE_AUTO_START, SERVICE_ERROR_NORMAL,
                                         cmdline, NULL, NULL, NULL, NULL, NULL, NULL)) {
            int rc = fail("cannot update the service");
            CloseServiceHandle(svc);
            CloseServiceHandle(scm);
            return rc;
        }
    }
    if (!svc) {
        int rc = fail("cannot create the service");
        CloseServiceHandle(scm);
        return rc;
    }
    SERVICE_DESCRIPTIONW d = {L"Captures windows and injects input for AI agents under the administrator's "
                              L"pixel-release policy (pixelgate)."};
    ChangeServiceConfig2W(svc, SERVICE_CONFIG_DESCRIPTION, &d);
    int rc = 0;
    if (!set_recovery(svc)) rc = fail("cannot set the recovery actions");
    printf("%s service %ls: %ls\n", existed ? "updated" : "created", name, cmdline);
    if (!rc) print_recovery(svc);
    CloseServiceHandle(svc);
    CloseServiceHandle(scm);
    return rc;
}

int pg_win_svc_install(const wchar_t *name, const char *state_dir, const char *policy_path) {
    pg_error e;
    pg_error_clear(&e);
    char spool[MAX_PATH * 3], audit[MAX_PATH * 3];
    if (pg_win_svc_prepare_dirs(state_dir, spool, audit, sizeof spool, &e)) {
        fprintf(stderr, "pixelgated: %s%s%s\n", e.message, e.recovery_tip[0] ? "; " : "", e.recovery_tip);
        return e.code;
    }
    printf("directories %s, %s, %s: SYSTEM and Administrators only\n", state_dir, spool, audit);
    wchar_t wp[MAX_PATH];
    if (!to_wide(policy_path, wp, MAX_PATH)) return PG_E_USAGE;
    if (GetFileAttributesW(wp) == INVALID_FILE_ATTRIBUTES) {
        printf("note: no policy at %s yet: the service will not start until one exists (docs/policy.md)\n",
               policy_path);
    } else if (set_dacl(wp, POLICY_SDDL, policy_path, &e)) {
        fprintf(stderr, "pixelgated: %s\n", e.message);
        return e.code;
    } else {
        printf("policy %s: writable by SYSTEM and Administrators only\n", policy_path);
    }
    wchar_t exe[MAX_PATH], cmd[MAX_PATH * 4], ws[MAX_PATH];
    if (!GetModuleFileNameW(NULL, exe, MAX_PATH) || !to_wide(state_dir, ws, MAX_PATH)) return fail("own path");
    swprintf(cmd, MAX_PATH * 4, L"\"%ls\" service --policy \"%ls\" --state-dir \"%ls\"", exe, wp, ws);
    return register_service(name, cmd);
}

/* Asks a running service to stop and waits (at most 30 s) until it has. */
static bool stop_and_wait(SC_HANDLE svc) {
    SERVICE_STATUS st;
    if (!QueryServiceStatus(svc, &st)) return false;
    if (st.dwCurrentState != SERVICE_STOPPED) ControlService(svc, SERVICE_CONTROL_STOP, &st);
    for (int i = 0; i < 300 && QueryServiceStatus(svc, &st) && st.dwCurrentState != SERVICE_STOPPED; i++) Sleep(100);
    return st.dwCurrentState == SERVICE_STOPPED;
}

int pg_win_svc_uninstall(const wchar_t *name) {
    SC_HANDLE scm = OpenSCManagerW(NULL, NULL, SC_MANAGER_CONNECT);
    if (!scm) return fail("cannot open the service manager");
    SC_HANDLE svc = OpenServiceW(scm, name, SERVICE_STOP | SERVICE_QUERY_STATUS | DELETE);
    if (!svc) {
        DWORD err = GetLastError();
        CloseServiceHandle(scm);
        if (err == ERROR_SERVICE_DOES_NOT_EXIST) {
            printf("service %ls is not installed\n", name);
            return 0;
        }
        SetLastError(err);
        return fail("cannot open the service");
    }
    if (!stop_and_wait(svc)) printf("warning: service %ls did not stop within 30 s; deleting it anyway\n", name);
    int rc = DeleteService(svc) ? 0 : fail("cannot delete the service");
    if (!rc) printf("deleted service %ls (policy and audit log kept)\n", name);
    CloseServiceHandle(svc);
    CloseServiceHandle(scm);
    return rc;
}
