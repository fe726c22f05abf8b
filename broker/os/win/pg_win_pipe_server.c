/* SPDX-License-Identifier: MIT */
/* pg_win_pipe_server.c - the broker's named-pipe server and client identity
 * (see pg_win_pipe_server.h for the contract).
 *
 * Why identity comes from the token: the pid and the token are the kernel's
 * record of who opened the pipe; anything in the request is the client's
 * claim. The client opens the pipe with SECURITY_IDENTIFICATION, so the
 * impersonation token lets us read the client's SIDs but never act as it;
 * OpenThreadToken(OpenAsSelf = TRUE) is required for such a token.
 * Never: runs code as the client beyond OpenThreadToken, lets the pipe name go
 * unheld between two clients (a new instance listens before a connected one
 * is handed out).
 */
#include <windows.h>

#include <sddl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "pg_time.h"
#include "pg_win_pipe_server.h"

#define PIPE_PREFIX L"\\\\.\\pipe\\"
#define PIPE_NAME_MAX 256
#define PIPE_BUF_SIZE 65536

struct pg_win_pipe_server {
    wchar_t name[PIPE_NAME_MAX + 1];
    char name_u8[4 * PIPE_NAME_MAX]; /* for messages */
    PSECURITY_DESCRIPTOR sd;         /* LocalAlloc'd, from the SDDL */
    DWORD pipe_mode;
    HANDLE next; /* the instance listening for the next client, or NULL */
    HANDLE ev;   /* manual-reset event of the overlapped ConnectNamedPipe */
    DWORD err;   /* Windows error of the last failed wait, for the message */
};

/* 1 if some instance of the name exists. WaitNamedPipeW does not connect,
 * so a squatter learns nothing about us. Why on top of
 * FILE_FLAG_FIRST_PIPE_INSTANCE: Wine ignores that flag (measured, Wine 8),
 * and this makes the refusal visible there; on Windows the flag is the
 * atomic guard and this check only an early, clearer answer. */
static int name_in_use(const pg_win_pipe_server *s) {
    if (WaitNamedPipeW(s->name, 1)) return 1;
    return GetLastError() != ERROR_FILE_NOT_FOUND;
}

static pg_err name_taken(const pg_win_pipe_server *s, pg_error *e) {
    return pg_error_set(e, PG_E_POLICY,
                        "another process holds this pipe: stop the other broker, or find the squatter with "
                        "Sysinternals 'handle -a pipe'",
                        "pipe name already taken: %s exists (another broker or a squatter); refusing to share it",
                        s->name_u8);
}

/* Creates one instance. first: FILE_FLAG_FIRST_PIPE_INSTANCE, so a name
 * someone else already holds is refused instead of silently shared. */
static pg_err create_instance(pg_win_pipe_server *s, int first, HANDLE *out, pg_error *e) {
    SECURITY_ATTRIBUTES sa = {sizeof sa, s->sd, FALSE};
    DWORD open_mode = PIPE_ACCESS_DUPLEX | FILE_FLAG_OVERLAPPED | (first ? FILE_FLAG_FIRST_PIPE_INSTANCE : 0);
    HANDLE h = CreateNamedPipeW(s->name, open_mode, s->pipe_mode, PIPE_UNLIMITED_INSTANCES, PIPE_BUF_SIZE,
                                PIPE_BUF_SIZE, 0, &sa);
    if (h != INVALID_HANDLE_VALUE) {
        *out = h;
        return PG_OK;
    }
    DWORD err = GetLastError();
    if (first && (err == ERROR_ACCESS_DENIED || err == ERROR_PIPE_BUSY)) return name_taken(s, e);
    if (err == ERROR_INVALID_OWNER)
        return pg_error_set(e, PG_E_INTERNAL, "run the broker as the service (LocalSystem)",
                            "cannot create %s: this account may not make SYSTEM the pipe's owner", s->name_u8);
    return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot create pipe %s: Windows error %lu", s->name_u8,
                        (unsigned long)err);
}

static pg_err set_name(pg_win_pipe_server *s, const char *name, pg_error *e) {
    size_t plen = wcslen(PIPE_PREFIX);
    int n = name ? MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, name, -1, s->name, PIPE_NAME_MAX + 1) : 0;
    if (n <= 0 || wcslen(s->name) <= plen || _wcsnicmp(s->name, PIPE_PREFIX, plen) != 0 ||
        wcschr(s->name + plen, L'\\'))
        return pg_error_set(e, PG_E_USAGE, "name a local pipe, e.g. \\\\.\\pipe\\pixelgate",
                            "not a local pipe name (or longer than %d characters): %.200s", PIPE_NAME_MAX,
                            name ? name : "(null)");
    strncpy(s->name_u8, name, sizeof s->name_u8 - 1);
    return PG_OK;
}

static pg_err parse_sd(pg_win_pipe_server *s, const char *sddl, pg_error *e) {
    wchar_t *w = NULL;
    int n = sddl ? MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, sddl, -1, NULL, 0) : 0;
    if (n > 0 && (w = malloc((size_t)n * sizeof *w)) != NULL)
        MultiByteToWideChar(CP_UTF8, 0, sddl, -1, w, n);
    BOOL ok = w && ConvertStringSecurityDescriptorToSecurityDescriptorW(w, SDDL_REVISION_1, &s->sd, NULL);
    free(w);
    if (!ok) return pg_error_set(e, PG_E_BADINPUT, "build it with pg_win_pipe_server_sddl", "invalid pipe SDDL");
    return PG_OK;
}

pg_err pg_win_pipe_server_open(pg_win_pipe_server **out, const char *name, const char *sddl, int allow_remote,
                               pg_error *e) {
    *out = NULL;
    pg_win_pipe_server *s = calloc(1, sizeof *s);
    if (!s) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    s->pipe_mode = PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT | (allow_remote ? 0 : PIPE_REJECT_REMOTE_CLIENTS);
    pg_err rc = set_name(s, name, e);
    if (!rc) rc = parse_sd(s, sddl, e);
    if (!rc && !(s->ev = CreateEventW(NULL, TRUE, FALSE, NULL)))
        rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of handles");
    if (!rc && name_in_use(s)) rc = name_taken(s, e);
    if (!rc) rc = create_instance(s, 1, &s->next, e);
    if (rc) {
        pg_win_pipe_server_close(s);
        return rc;
    }
    *out = s;
    return PG_OK;
}

enum wait_result { W_CONNECTED, W_STOPPED, W_TIMEOUT, W_RETRY, W_ERROR };

/* One overlapped ConnectNamedPipe on s->next, bounded by deadline and stop.
 * The operation is always reaped before return (ov lives on this stack). */
static enum wait_result wait_connect(pg_win_pipe_server *s, HANDLE stop, pg_deadline deadline) {
    OVERLAPPED ov = {.hEvent = s->ev};
    ResetEvent(s->ev);
    if (!ConnectNamedPipe(s->next, &ov)) {
        DWORD err = GetLastError();
        if (err == ERROR_PIPE_CONNECTED) return W_CONNECTED; /* came between create and connect */
        if (err == ERROR_NO_DATA) { /* came and already left */
            DisconnectNamedPipe(s->next);
            return W_RETRY;
        }
        if (err != ERROR_IO_PENDING) {
            s->err = err;
            return W_ERROR;
        }
    }
    HANDLE hs[2] = {s->ev, stop};
    DWORD w = WaitForMultipleObjects(stop ? 2 : 1, hs, FALSE, pg_deadline_left_ms(deadline));
    if (w != WAIT_OBJECT_0) CancelIoEx(s->next, &ov);
    DWORD unused;
    BOOL connected = GetOverlappedResult(s->next, &ov, &unused, TRUE);
    if (w == WAIT_OBJECT_0 + 1) {
        if (connected) DisconnectNamedPipe(s->next); /* a client that raced the stop */
        return W_STOPPED;
    }
    if (connected) return W_CONNECTED; /* also when it won the race against the timeout */
    s->err = GetLastError();
    return w == WAIT_TIMEOUT ? W_TIMEOUT : W_ERROR;
}

void *pg_win_token_info(HANDLE tok, TOKEN_INFORMATION_CLASS cls) {
    DWORD n = 0;
    GetTokenInformation(tok, cls, NULL, 0, &n);
    void *buf = n ? malloc(n) : NULL;
    if (buf && !GetTokenInformation(tok, cls, buf, n, &n)) {
        free(buf);
        buf = NULL;
    }
    return buf;
}

/* The client's token, read while impersonating it and with the thread
 * reverted before return, on every path. */
static pg_err client_token(HANDLE pipe, HANDLE *tok, pg_error *e) {
    if (!ImpersonateNamedPipeClient(pipe))
        return pg_error_set(e, PG_E_POLICY, NULL, "cannot identify the pipe client: Windows error %lu",
                            (unsigned long)GetLastError());
    BOOL ok = OpenThreadToken(GetCurrentThread(), TOKEN_QUERY, TRUE, tok);
    DWORD err = GetLastError();
    /* If this failed the thread would go on running as the client: there is
     * no safe way to continue. */
    if (!RevertToSelf()) abort();
    if (ok) return PG_OK;
    if (err == ERROR_CANT_OPEN_ANONYMOUS)
        return pg_error_set(e, PG_E_POLICY, "connect with SECURITY_IDENTIFICATION (pixelgate.exe does)",
                            "the pipe client connected anonymously; refusing an unidentified client");
    return pg_error_set(e, PG_E_POLICY, NULL, "cannot read the pipe client's token: Windows error %lu",
                        (unsigned long)err);
}

static void account_name(PSID sid, char *out, size_t cap) {
    wchar_t name[256], dom[256];
    DWORD nn = 256, dn = 256;
    SID_NAME_USE use;
    char nm[256 * 3], dm[256 * 3];
    out[0] = '\0';
    if (!LookupAccountSidW(NULL, sid, name, &nn, dom, &dn, &use)) return;
    if (WideCharToMultiByte(CP_UTF8, 0, name, -1, nm, sizeof nm, NULL, NULL) <= 0 ||
        WideCharToMultiByte(CP_UTF8, 0, dom, -1, dm, sizeof dm, NULL, NULL) <= 0)
        return;
    snprintf(out, cap, "%s%s%s", dm, dm[0] ? "\\" : "", nm);
}

static pg_err read_groups(HANDLE tok, pg_win_client_id *id, pg_error *e) {
    TOKEN_GROUPS *tg = pg_win_token_info(tok, TokenGroups);
    if (!tg) return pg_error_set(e, PG_E_POLICY, NULL, "cannot read the pipe client's groups");
    id->groups = calloc(tg->GroupCount ? tg->GroupCount : 1, sizeof *id->groups);
    pg_err rc = id->groups ? PG_OK : pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    for (DWORD i = 0; !rc && i < tg->GroupCount; i++) {
        rc = pg_win_sid_format(tg->Groups[i].Sid, id->groups[i].sid, e);
        id->groups[i].attributes = tg->Groups[i].Attributes;
        id->n_groups = i + 1;
    }
    free(tg);
    return rc;
}

uint32_t pg_win_token_integrity(HANDLE tok) {
    TOKEN_MANDATORY_LABEL *ml = pg_win_token_info(tok, TokenIntegrityLevel);
    uint32_t rid = 0;
    if (ml && IsValidSid(ml->Label.Sid) && *GetSidSubAuthorityCount(ml->Label.Sid) > 0)
        rid = *GetSidSubAuthority(ml->Label.Sid, *GetSidSubAuthorityCount(ml->Label.Sid) - 1u);
    free(ml);
    return rid;
}

static pg_err read_token(HANDLE tok, pg_win_client_id *id, pg_error *e) {
    TOKEN_USER *tu = pg_win_token_info(tok, TokenUser);
    if (!tu) return pg_error_set(e, PG_E_POLICY, NULL, "cannot read the pipe client's user SID");
    pg_err rc = pg_win_sid_format(tu->User.Sid, id->user_sid, e);
    if (!rc) account_name(tu->User.Sid, id->account, sizeof id->account);
    free(tu);
    if (!rc) rc = read_groups(tok, id, e);
    id->integrity_rid = pg_win_token_integrity(tok);
    return rc;
}

static pg_err identify(HANDLE pipe, pg_win_client_id *id, pg_error *e) {
    ULONG pid = 0;
    if (!GetNamedPipeClientProcessId(pipe, &pid))
        return pg_error_set(e, PG_E_POLICY, NULL, "cannot get the pipe client's process id: Windows error %lu",
                            (unsigned long)GetLastError());
    id->pid = pid;
    HANDLE tok;
    pg_err rc = client_token(pipe, &tok, e);
    if (rc) return rc;
    rc = read_token(tok, id, e);
    CloseHandle(tok);
    return rc;
}

/* Hands out the connected s->next after a new instance takes over the name. */
static pg_err hand_out(pg_win_pipe_server *s, uint32_t io_timeout_ms, pg_conn **conn, pg_error *e) {
    HANDLE h = s->next;
    s->next = NULL;
    /* Failure is not fatal: h still holds the name; the next accept retries. */
    if (create_instance(s, 0, &s->next, NULL)) s->next = NULL;
    return pg_conn_from_handle(conn, h, io_timeout_ms, e);
}

pg_err pg_win_pipe_server_accept(pg_win_pipe_server *s, HANDLE stop, uint32_t timeout_ms, uint32_t io_timeout_ms,
                                 pg_conn **conn, pg_win_client_id *id, pg_error *e) {
    *conn = NULL;
    memset(id, 0, sizeof *id);
    pg_deadline deadline = pg_deadline_in_ms(timeout_ms);
    enum wait_result w = W_RETRY;
    while (w == W_RETRY) {
        pg_err rc = s->next ? PG_OK : create_instance(s, 0, &s->next, e);
        if (rc) return rc;
        w = wait_connect(s, stop, deadline);
    }
    if (w == W_STOPPED) return PG_OK;
    if (w == W_TIMEOUT) return pg_error_set(e, PG_E_TIMEOUT, NULL, "no client within %u ms", timeout_ms);
    if (w == W_ERROR)
        return pg_error_set(e, PG_E_INTERNAL, NULL, "waiting for a client on %s failed: Windows error %lu", s->name_u8,
                            (unsigned long)s->err);
    pg_err rc = identify(s->next, id, e);
    if (!rc) rc = hand_out(s, io_timeout_ms, conn, e);
    if (rc) {
        if (s->next) DisconnectNamedPipe(s->next); /* unidentified: drop it, keep the instance */
        pg_win_client_id_free(id);
    }
    return rc;
}

void pg_win_pipe_server_close(pg_win_pipe_server *s) {
    if (!s) return;
    if (s->next) CloseHandle(s->next);
    if (s->ev) CloseHandle(s->ev);
    if (s->sd) LocalFree(s->sd);
    free(s);
}

void pg_win_client_id_free(pg_win_client_id *id) {
    if (!id) return;
    free(id->groups);
    memset(id, 0, sizeof *id);
}

/* ------------------------------------------------------ the pipe's DACL */

/* Parses sid, refuses principals that may never reach the broker, and writes
 * its canonical form to canon. */
static pg_err admitted_sid(const char *sid, char *canon, pg_error *e) {
    static const char *const forbidden[][2] = {
        {"S-1-1-0", "Everyone"}, {"S-1-5-7", "Anonymous"}, {"S-1-5-2", "NETWORK"}, {"S-1-0-0", "Nobody"}};
    PSID p;
    pg_err rc = pg_win_sid_parse(sid, &p, e);
    if (rc) return rc;
    for (size_t i = 0; i < sizeof forbidden / sizeof forbidden[0]; i++) {
        if (pg_win_sid_str_equal(sid, forbidden[i][0])) {
            LocalFree(p);
            return pg_error_set(e, PG_E_BADINPUT, "admit specific users or groups, never a catch-all",
                                "%s (%s) may not be admitted to the broker's pipe", forbidden[i][1], sid);
        }
    }
    rc = pg_win_sid_format(p, canon, e);
    LocalFree(p);
    return rc;
}

/* Appends one allow ACE; 0 when out is full. */
static int append_ace(char *out, size_t cap, size_t *len, unsigned rights, const char *sid) {
    int n = snprintf(out + *len, cap - *len, "(A;;0x%x;;;%s)", rights, sid);
    if (n < 0 || (size_t)n >= cap - *len) return 0;
    *len += (size_t)n;
    return 1;
}

pg_err pg_win_pipe_server_sddl(const char *service_sid, const char *const *principals, size_t n, char *out, size_t cap,
                        pg_error *e) {
    if (!out || cap == 0) return pg_error_set(e, PG_E_INTERNAL, NULL, "no room for the pipe's SDDL");
    out[0] = '\0';
    if (n > PG_WIN_PIPE_MAX_PRINCIPALS || (n && !principals))
        return pg_error_set(e, PG_E_BADINPUT, NULL, "at most %d principals may be admitted", PG_WIN_PIPE_MAX_PRINCIPALS);
    /* Owner SYSTEM; protected DACL (P): nothing inherited from the pipe root;
     * NETWORK denied first so a network logon is refused even if it is also a
     * member of an admitted group. */
    int head = snprintf(out, cap, "O:SYD:P(D;;GA;;;NU)");
    size_t len = head > 0 ? (size_t)head : cap;
    int ok = len < cap && append_ace(out, cap, &len, PG_WIN_PIPE_SERVER_RIGHTS, "SY");
    char canon[PG_WIN_SID_STR_MAX];
    pg_err rc;
    if (ok && service_sid) {
        if ((rc = admitted_sid(service_sid, canon, e))) {
            out[0] = '\0';
            return rc;
        }
        ok = append_ace(out, cap, &len, PG_WIN_PIPE_SERVER_RIGHTS, canon);
    }
    for (size_t i = 0; ok && i < n; i++) {
        if ((rc = admitted_sid(principals[i], canon, e))) {
            out[0] = '\0';
            return rc;
        }
        ok = append_ace(out, cap, &len, PG_WIN_PIPE_CLIENT_RIGHTS, canon);
    }
    if (!ok) {
        out[0] = '\0';
        return pg_error_set(e, PG_E_INTERNAL, NULL, "pipe SDDL does not fit in %zu bytes", cap);
    }
    return PG_OK;
}
