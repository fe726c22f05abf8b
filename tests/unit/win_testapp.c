/* SPDX-License-Identifier: MIT */
/* win_testapp.c - see win_testapp.h. */
#include "win_testapp.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "pg_time.h"

static char *read_file(const wchar_t *path) {
    FILE *f = _wfopen(path, L"rb");
    if (!f) return NULL;
    char *buf = calloc(1, 1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (buf) buf[n] = 0;
    return buf;
}

bool pg_testapp_read(const pg_testapp *a, pg_testapp_state *s) {
    char *buf = read_file(a->state), *last = NULL;
    for (char *l = buf; l && (l = strstr(l, "state clicks=")) != NULL; l++)
        if (strchr(l, '\n')) last = l; /* complete lines only: the app may be writing */
    if (last) {
        s->clicks = atoi(last + 13);
        const char *t = strstr(last, " edit=");
        size_t n = t ? strcspn(t + 6, "\n") : 0;
        snprintf(s->edit, sizeof s->edit, "%.*s", (int)n, t ? t + 6 : "");
    }
    free(buf);
    return last != NULL;
}

bool pg_testapp_read_pointer(const pg_testapp *a, pg_testapp_pointer *p) {
    char *buf = read_file(a->state), *last = NULL;
    for (char *l = buf; l && (l = strstr(l, "pointer wheel=")) != NULL; l++)
        if (strchr(l, '\n')) last = l;
    bool ok = last && sscanf(last, "pointer wheel=%d hwheel=%d down=%ld,%ld up=%ld,%ld held_moves=%d", &p->wheel,
                             &p->hwheel, &p->down_x, &p->down_y, &p->up_x, &p->up_y, &p->held_moves) == 7;
    free(buf);
    return ok;
}

/* The controls' rectangles from a complete "ready" line. */
static bool parse_ready(pg_testapp *a) {
    char *buf = read_file(a->state);
    const char *r = buf ? strstr(buf, "ready pid=") : NULL;
    const char *bt = r && strchr(r, '\n') ? strstr(r, "button=") : NULL;
    long b[4], e[4];
    bool ok = bt && sscanf(bt, "button=%ld,%ld,%ld,%ld edit=%ld,%ld,%ld,%ld", &b[0], &b[1], &b[2], &b[3], &e[0],
                           &e[1], &e[2], &e[3]) == 8;
    free(buf);
    if (ok) {
        a->button = (RECT){b[0], b[1], b[0] + b[2], b[1] + b[3]};
        a->edit = (RECT){e[0], e[1], e[0] + e[2], e[1] + e[3]};
    }
    return ok;
}

bool pg_testapp_start(pg_testapp *a, const wchar_t *tag, char *why, size_t n) {
    memset(a, 0, sizeof *a);
    wchar_t exe[MAX_PATH], tmp[MAX_PATH], cmd[3 * MAX_PATH];
    DWORD len = GetModuleFileNameW(NULL, exe, MAX_PATH);
    wchar_t *slash = len ? wcsrchr(exe, L'\\') : NULL;
    if (!slash) return snprintf(why, n, "GetModuleFileNameW failed (%lu)", GetLastError()), false;
    wcscpy(slash + 1, L"win32_testapp.exe");
    GetTempPathW(MAX_PATH, tmp);
    swprintf(a->state, MAX_PATH, L"%lspg-%ls-state-%lu.txt", tmp, tag, GetCurrentProcessId());
    DeleteFileW(a->state);
    swprintf(cmd, 3 * MAX_PATH, L"\"%ls\" \"%ls\"", exe, a->state);
    STARTUPINFOW si = {.cb = sizeof si};
    if (!CreateProcessW(exe, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &a->pi))
        return snprintf(why, n, "cannot start win32_testapp.exe next to the test (error %lu): build it",
                        GetLastError()),
               false;
    for (double t0 = pg_mono_ms(); pg_mono_ms() - t0 < 15000; Sleep(50)) {
        if (parse_ready(a)) return true;
        if (WaitForSingleObject(a->pi.hProcess, 0) == WAIT_OBJECT_0)
            return snprintf(why, n, "win32_testapp exited before it was ready"), false;
    }
    return snprintf(why, n, "win32_testapp wrote no ready line within 15 s"), false;
}

void pg_testapp_stop(pg_testapp *a, uint64_t hwnd) {
    if (a->pi.hProcess) {
        if (hwnd) PostMessageW((HWND)(uintptr_t)hwnd, WM_CLOSE, 0, 0);
        if (WaitForSingleObject(a->pi.hProcess, 3000) != WAIT_OBJECT_0) TerminateProcess(a->pi.hProcess, 1);
        CloseHandle(a->pi.hProcess);
        CloseHandle(a->pi.hThread);
    }
    if (a->state[0]) DeleteFileW(a->state);
    memset(a, 0, sizeof *a);
}

/* ---------------------------------------------------------------- fixture */

static pg_testapp_fixture *the_fixture; /* for atexit */

static void fixture_cleanup(void) {
    pg_testapp_fixture *f = the_fixture;
    if (f->p) f->ops->close(f->p);
    f->p = NULL;
    pg_testapp_stop(&f->ta, f->app);
}

static bool fixture_fail(pg_testapp_fixture *f, const char *fmt, ...) __attribute__((format(gnu_printf, 2, 3)));
static bool fixture_fail(pg_testapp_fixture *f, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->why, sizeof f->why, fmt, ap);
    va_end(ap);
    f->broken = true;
    return false;
}

const pg_window *pg_testapp_find(const pg_window *w, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(w[i].title, PG_TESTAPP_TITLE) == 0) return &w[i];
    return NULL;
}

/* Waits until the backend lists the app's window, visible. */
static bool find_app(pg_testapp_fixture *f) {
    pg_error e;
    for (double t0 = pg_mono_ms(); pg_mono_ms() - t0 < 10000; Sleep(50)) {
        pg_window *w;
        size_t n;
        if (f->ops->list_windows(f->p, &w, &n, &e) != PG_OK) return fixture_fail(f, "list: %s", e.message);
        const pg_window *a = pg_testapp_find(w, n);
        f->app = a && a->visible ? a->id : 0;
        free(w);
        if (f->app) return true;
    }
    return fixture_fail(f, "the app window never appeared in the backend's list");
}

bool pg_testapp_fixture_setup(pg_testapp_fixture *f, const wchar_t *tag, pg_testapp_open_fn open) {
    if (f->ready || f->broken) return f->ready;
    the_fixture = f;
    atexit(fixture_cleanup);
    HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
    f->wine = ntdll && GetProcAddress(ntdll, "wine_get_version");
    pg_error e;
    char why[300];
    if (!pg_testapp_start(&f->ta, tag, why, sizeof why)) return fixture_fail(f, "%s", why);
    if (open(&f->ops, &f->p, &e) != PG_OK) return fixture_fail(f, "open: %s", e.message);
    if (!find_app(f)) return false;
    SetCursorPos(5, 5); /* the pointer must not rest on the button (hover state) */
    f->ready = true;
    return true;
}
