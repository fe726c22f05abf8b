/* SPDX-License-Identifier: MIT */
/* pg_win_peer.c - Windows principals for the broker core; see pg_win_peer.h. */
#include "pg_win_peer.h"

#include <windows.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_win_sid.h"

#define MAX_PRINCIPALS 4096
#define UID_BASE 0x10000u

/* SID -> slot: the uid tokens and approvals bind to. Nothing else about an
 * account is kept here: groups and administrator rights belong to each
 * connection's own token (pg_peer). */
typedef struct {
    char sid[PG_WIN_SID_STR_MAX];
} principal;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static principal *table; /* grows as accounts appear */
static size_t table_n, table_cap;

static void computer_name(char *out, size_t cap) {
    wchar_t w[MAX_COMPUTERNAME_LENGTH + 1];
    DWORD n = MAX_COMPUTERNAME_LENGTH + 1;
    out[0] = '\0';
    if (GetComputerNameW(w, &n)) WideCharToMultiByte(CP_UTF8, 0, w, -1, out, (int)cap, NULL, NULL);
}

void pg_win_policy_name(const char *account, const char *computer, char *out, size_t cap) {
    const char *bs = strchr(account, '\\');
    if (!bs) {
        snprintf(out, cap, "%s", account);
        return;
    }
    size_t dl = (size_t)(bs - account);
    bool local = (computer[0] && dl == strlen(computer) && !_strnicmp(account, computer, dl)) ||
                 (dl == 7 && !_strnicmp(account, "BUILTIN", 7)) || (dl == 12 && !_strnicmp(account, "NT AUTHORITY", 12));
    snprintf(out, cap, "%s", local ? bs + 1 : account);
}

static void sid_to_policy_name(const char *sid_str, const char *computer, char *out, size_t cap) {
    PSID sid = NULL;
    pg_error e;
    out[0] = '\0';
    if (pg_win_sid_parse(sid_str, &sid, &e)) return;
    wchar_t name[256], dom[256];
    DWORD nn = 256, dn = 256;
    SID_NAME_USE use;
    char nm[768], dm[768], account[1600];
    if (LookupAccountSidW(NULL, sid, name, &nn, dom, &dn, &use) &&
        WideCharToMultiByte(CP_UTF8, 0, name, -1, nm, sizeof nm, NULL, NULL) > 0 &&
        WideCharToMultiByte(CP_UTF8, 0, dom, -1, dm, sizeof dm, NULL, NULL) > 0) {
        snprintf(account, sizeof account, "%s%s%s", dm, dm[0] ? "\\" : "", nm);
        pg_win_policy_name(account, computer, out, cap);
    }
    LocalFree(sid);
}

/* Usable groups only: enabled and not deny-only (a UAC-filtered admin's
 * Administrators membership must not admit it as an administrator). */
static void fill_groups(const pg_win_client_id *id, const char *computer, pg_peer *p) {
    p->n_groups = 0;
    for (size_t i = 0; i < id->n_groups && p->n_groups < PG_PEER_MAX_GROUPS; i++) {
        uint32_t a = id->groups[i].attributes;
        if (!(a & SE_GROUP_ENABLED) || (a & SE_GROUP_USE_FOR_DENY_ONLY) || (a & SE_GROUP_LOGON_ID)) continue;
        sid_to_policy_name(id->groups[i].sid, computer, p->groups[p->n_groups], sizeof p->groups[0]);
        if (p->groups[p->n_groups][0]) p->n_groups++;
    }
}

static pg_err table_slot(const char *sid, size_t *slot, pg_error *e) {
    for (size_t i = 0; i < table_n; i++)
        if (!strcmp(table[i].sid, sid)) {
            *slot = i;
            return PG_OK;
        }
    if (table_n == MAX_PRINCIPALS)
        return pg_error_set(e, PG_E_INTERNAL, "restart the service", "too many distinct client accounts (%u)",
                            MAX_PRINCIPALS);
    if (table_n == table_cap) {
        size_t cap = table_cap ? table_cap * 2 : 16;
        principal *t = realloc(table, cap * sizeof *t);
        if (!t) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
        table = t;
        table_cap = cap;
    }
    memset(&table[table_n], 0, sizeof *table);
    snprintf(table[table_n].sid, sizeof table[0].sid, "%s", sid);
    *slot = table_n++;
    return PG_OK;
}

static void image_names(int64_t pid, pg_peer *p) {
    HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)pid);
    if (!h) return;
    wchar_t w[MAX_PATH];
    DWORD n = MAX_PATH;
    if (QueryFullProcessImageNameW(h, 0, w, &n) &&
        WideCharToMultiByte(CP_UTF8, 0, w, -1, p->exe, sizeof p->exe, NULL, NULL) > 0) {
        const char *base = strrchr(p->exe, '\\');
        snprintf(p->comm, sizeof p->comm, "%s", base ? base + 1 : p->exe);
    }
    CloseHandle(h);
}

pg_err pg_win_peer_from_client(const pg_win_client_id *id, pg_peer *p, pg_error *e) {
    memset(p, 0, sizeof *p);
    char computer[64];
    computer_name(computer, sizeof computer);
    pthread_mutex_lock(&table_lock);
    size_t slot = 0;
    pg_err rc = table_slot(id->user_sid, &slot, e);
    pthread_mutex_unlock(&table_lock);
    if (rc) return rc;
    p->uid = UID_BASE + (uint32_t)slot;
    p->pid = id->pid;
    p->admin = pg_win_sid_is_admin_or_system(id->user_sid, id->groups, id->n_groups) != 0;
    p->integrity_rid = id->integrity_rid;
    pg_win_policy_name(id->account[0] ? id->account : id->user_sid, computer, p->user, sizeof p->user);
    snprintf(p->sid, sizeof p->sid, "%s", id->user_sid);
    fill_groups(id, computer, p);
    image_names(id->pid, p);
    return PG_OK;
}

void pg_identity_principal(const pg_peer *peer, pg_principal *p, const char **groups, size_t max_groups, char *buf,
                         size_t buflen) {
    pg_principal_start(p, peer->uid, peer->user, groups);
    p->admin = peer->admin;
    size_t used = 0;
    for (size_t i = 0; i < peer->n_groups; i++)
        if (!pg_principal_add_group(p, max_groups, buf, buflen, &used, peer->groups[i])) break;
}

bool pg_identity_remote(const pg_peer *p) {
    /* The pipe is created with PIPE_REJECT_REMOTE_CLIENTS unless the policy
     * admits remote clients, so a connected peer is local or allowed. */
    (void)p;
    return false;
}

pg_err pg_win_process_identity(int64_t pid, char sid[192], uint32_t *integrity_rid, pg_error *e) {
    sid[0] = '\0';
    *integrity_rid = 0;
    if (pid <= 0 || pid > 0xffffffffLL) return pg_error_set(e, PG_E_NOTFOUND, NULL, "no process %lld", (long long)pid);
    HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)pid);
    if (!h) {
        DWORD err = GetLastError();
        return pg_error_set(e, err == ERROR_INVALID_PARAMETER ? PG_E_NOTFOUND : PG_E_POLICY, NULL,
                            "cannot open process %lld: Windows error %lu", (long long)pid, (unsigned long)err);
    }
    HANDLE tok = NULL;
    BOOL ok = OpenProcessToken(h, TOKEN_QUERY, &tok);
    CloseHandle(h);
    if (!ok)
        return pg_error_set(e, PG_E_POLICY, NULL, "cannot read the token of process %lld: Windows error %lu",
                            (long long)pid, (unsigned long)GetLastError());
    pg_err rc = PG_OK;
    TOKEN_USER *tu = pg_win_token_info(tok, TokenUser);
    if (!tu) rc = pg_error_set(e, PG_E_POLICY, NULL, "cannot read the user of process %lld", (long long)pid);
    else rc = pg_win_sid_format(tu->User.Sid, sid, e);
    free(tu);
    if (!rc) *integrity_rid = pg_win_token_integrity(tok);
    CloseHandle(tok);
    return rc;
}

bool pg_win_integrity_allows(uint32_t requester_rid, uint32_t target_rid) {
    if (target_rid == 0) return requester_rid == 0;
    return target_rid <= requester_rid;
}

pg_err pg_identity_input_target(const pg_window *w, const pg_peer *peer, bool *same_owner, pg_error *e) {
    int64_t pid = w->pid;
    char sid[PG_WIN_SID_STR_MAX];
    uint32_t rid;
    *same_owner = false;
    pg_err rc = pg_win_process_identity(pid, sid, &rid, e);
    if (rc) return rc == PG_E_NOTFOUND ? rc : pg_error_set(e, PG_E_POLICY, NULL, "input refused: %s", e->message);
    *same_owner = peer->sid[0] && pg_win_sid_str_equal(sid, peer->sid);
    if (!pg_win_integrity_allows(peer->integrity_rid, rid))
        return pg_error_set(e, PG_E_POLICY, "run the agent at the same integrity level as the target program",
                            "input refused: the window's process runs at integrity level 0x%x, above the "
                            "requester's 0x%x",
                            (unsigned)rid, (unsigned)peer->integrity_rid);
    return PG_OK;
}

pg_err pg_identity_process_owner(int64_t pid, char user[64], bool *admin, pg_error *e) {
    char sid[PG_WIN_SID_STR_MAX], computer[64];
    uint32_t rid = 0;
    pg_err rc = pg_win_process_identity(pid, sid, &rid, e);
    if (rc) return pg_error_set(e, PG_E_NOTFOUND, NULL, "the owner of process %lld is unknown: %s", (long long)pid,
                                e->message);
    computer_name(computer, sizeof computer);
    sid_to_policy_name(sid, computer, user, 64);
    if (!user[0]) return pg_error_set(e, PG_E_NOTFOUND, NULL, "the account of process %lld has no name", (long long)pid);
    /* An enabled Administrators group comes with an elevated token, and an
     * elevated token runs at High integrity (System for SYSTEM). */
    *admin = rid >= SECURITY_MANDATORY_HIGH_RID;
    return PG_OK;
}

pg_err pg_identity_window_owner(const pg_window *w, char user[64], pg_error *e) {
    bool admin; /* the window's process is named by the system for as long as the window lives */
    return pg_identity_process_owner(w->pid, user, &admin, e);
}

int64_t pg_identity_process_started_ms(int64_t pid) {
    if (pid <= 0) return 0;
    HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)pid);
    if (!h) return 0;
    FILETIME created, exited, kernel, user;
    BOOL ok = GetProcessTimes(h, &created, &exited, &kernel, &user);
    CloseHandle(h);
    if (!ok) return 0;
    ULARGE_INTEGER t = {.LowPart = created.dwLowDateTime, .HighPart = created.dwHighDateTime};
    return (int64_t)(t.QuadPart / 10000ULL) - 11644473600000LL; /* 100 ns since 1601 -> ms since 1970 */
}
