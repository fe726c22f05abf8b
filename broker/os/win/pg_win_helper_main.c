/* SPDX-License-Identifier: MIT */
/* pg_win_helper_main.c - the helper process on Windows: the Win32 backend
 * served to the service over its private pipe by the portable server
 * (broker/platform/helper/pg_helper.h; see pg_win_helper.h for the contract).
 *
 * Why it follows the input desktop per request: when the user locks the
 * screen or a UAC prompt shows, input goes to another desktop (Winlogon);
 * a helper left on Default would capture a stale desktop and inject into
 * nothing. SetThreadDesktop only works for a thread without windows or
 * hooks, which this one is: the backend creates none.
 * Why it checks its arguments strictly although the service is trusted:
 * the pipe is the helper's only input, and a request it cannot parse means
 * the two ends disagree, which must show rather than half-work.
 */
#include <windows.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_helper.h"
#include "pg_win32.h"
#include "pg_win_helper.h"

#define CONNECT_MS 10000u
#define IDLE_MS UINT32_MAX /* between requests: the pipe closing ends the wait */
/* Everything a capture/input helper needs on the input desktop; never
 * DESKTOP_SWITCHDESKTOP: it follows, it does not switch. */
#define DESKTOP_RIGHTS                                                                                  \
    (DESKTOP_READOBJECTS | DESKTOP_WRITEOBJECTS | DESKTOP_ENUMERATE | DESKTOP_CREATEWINDOW |           \
     DESKTOP_CREATEMENU | DESKTOP_HOOKCONTROL | DESKTOP_JOURNALPLAYBACK)

typedef struct {
    pg_platform *p;
    HDESK desk;          /* the input desktop we opened and set, NULL if none */
    char desktop[128];   /* for caps: where we are and why */
} helper;

/* ------------------------------------------------------------- desktop */

static void desktop_name(HDESK d, char *out, size_t cap) {
    wchar_t w[64] = L"?";
    GetUserObjectInformationW(d, UOI_NAME, w, sizeof w - sizeof *w, NULL);
    if (WideCharToMultiByte(CP_UTF8, 0, w, -1, out, (int)cap, NULL, NULL) <= 0) snprintf(out, cap, "?");
}

/* Moves this thread to the current input desktop; on failure stays where
 * it is and records why. */
static void follow_input_desktop(void *ctx) {
    helper *h = ctx;
    char name[64];
    HDESK d = OpenInputDesktop(0, FALSE, DESKTOP_RIGHTS);
    const char *step = d ? (SetThreadDesktop(d) ? NULL : "SetThreadDesktop") : "OpenInputDesktop";
    if (step) {
        DWORD err = GetLastError();
        if (d) CloseDesktop(d);
        desktop_name(GetThreadDesktop(GetCurrentThreadId()), name, sizeof name);
        snprintf(h->desktop, sizeof h->desktop, "desktop %s, not following the input desktop (%s: error %lu)", name,
                 step, err);
        return;
    }
    if (h->desk) CloseDesktop(h->desk); /* no longer this thread's desktop */
    h->desk = d;
    desktop_name(d, name, sizeof name);
    snprintf(h->desktop, sizeof h->desktop, "input desktop %s", name);
}

static void where(void *ctx, char *out, size_t cap) { snprintf(out, cap, "%s", ((helper *)ctx)->desktop); }

static const char *fallback(void *ctx, bool screen) {
    helper *h = ctx;
    return screen ? pg_win_screen_fallback(h->p) : pg_win_capture_fallback(h->p);
}

/* Only the service's private pipes: PREFIX followed by 32 lower-case hex. */
static bool helper_pipe_name(const char *name) {
    size_t plen = strlen(PG_WIN_HELPER_PIPE_PREFIX);
    if (!name || strlen(name) != plen + 32 || strncmp(name, PG_WIN_HELPER_PIPE_PREFIX, plen) != 0) return false;
    for (const char *c = name + plen; *c; c++)
        if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f'))) return false;
    return true;
}

/* The inherited token handle named by its decimal value: taken (the
 * backend keeps a copy) and closed; false if it is not a token. */
static bool take_input_token(const char *value) {
    char *end = NULL;
    unsigned long long v = value ? strtoull(value, &end, 10) : 0;
    if (!value) return true;
    if (!v || !end || *end) return false;
    HANDLE h = (HANDLE)(uintptr_t)v;
    TOKEN_TYPE type;
    DWORD n;
    pg_error e;
    bool ok = GetTokenInformation(h, TokenType, &type, sizeof type, &n) && pg_win_set_input_token(h, &e) == PG_OK;
    if (ok) CloseHandle(h);
    return ok;
}

int pg_win_helper_main(const char *pipe_name, const char *input_token) {
    if (!helper_pipe_name(pipe_name) || !take_input_token(input_token)) return PG_E_USAGE;
    helper h = {0};
    pg_helper_server s = {.ops = pg_platform_default(), .before = follow_input_desktop, .where = where,
                          .fallback = fallback, .ctx = &h};
    pg_conn *conn;
    pg_error e;
    if (pg_conn_connect(&conn, pipe_name, CONNECT_MS, &e) != PG_OK) return PG_E_UNREACHABLE;
    snprintf(h.desktop, sizeof h.desktop, "desktop not yet followed");
    if (s.ops->open(&s.p, NULL, &s.open_err) != PG_OK) s.p = NULL;
    h.p = s.p;
    pg_err rc;
    do rc = pg_helper_serve_one(&s, conn, IDLE_MS, &e);
    while (rc == PG_OK);
    if (s.p) s.ops->close(s.p);
    pg_conn_close(conn);
    /* h.desk stays open: it is this thread's desktop until the process ends. */
    return rc == PG_E_UNREACHABLE ? 0 : (int)rc;
}
