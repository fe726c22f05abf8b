/* SPDX-License-Identifier: MIT */
/* win_input.c - focus, pointer and Unicode text through SendInput.
 *
 * Contract: coordinates are window-relative (client area, physical pixels);
 * a point outside the client area, or off every monitor, is PG_E_BADINPUT.
 * The pointer moves with absolute virtual-desktop coordinates
 * (MOUSEEVENTF_ABSOLUTE|MOUSEEVENTF_VIRTUALDESK), so multi-monitor layouts
 * with negative origins work. A click first asks WindowFromPoint which
 * top-level window would receive it; if that is not the target the click is
 * PG_E_POLICY naming that window (input lands on whatever is on top). focus
 * uses SetForegroundWindow and, when the foreground lock refuses it, joins
 * the foreground thread's input queue (AttachThreadInput) and retries; it
 * waits at most WIN_FOCUS_TIMEOUT_MS for the target to be the foreground.
 * Text goes out as KEYEVENTF_UNICODE UTF-16 units (a surrogate pair is two
 * units), newline and tab as the Return and Tab keys, in chunks of
 * WIN_TYPE_CHUNK events; before each chunk (and before a chord) the target
 * must still be the foreground window, its process at no higher integrity
 * than when the call began (pg_inject.h), else PG_E_POLICY saying how many
 * characters went out: SendInput from the helper is not held back by UIPI
 * when the helper runs above the requester.
 * Hover, scroll (one WHEEL_DELTA event per notch) and drag take the click's
 * checks at every point they touch; a drag checks its whole path before it
 * presses, and releases whatever fails after the press.
 * hold() presses or releases one button (or, through win_keys.c, one key)
 * and leaves it so; the broker lets go when the holder's connection ends.
 * Whose input (pg_win_set_input_token): with a token set, every SendInput
 * runs on a thread impersonating it and reverts at once after; a thread that
 * cannot take it sends nothing (PG_E_INTERNAL). pg_win_input_identity says
 * what the thread token was at the last send.
 * Never: leaves a thread attached to another's input queue, sends a partial
 * batch without saying so (PG_E_POLICY when UIPI blocked events), or leaves
 * a thread impersonating.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_inject.h"
#include "pg_win_sid.h"
#include "win_private.h"

/* Events per SendInput call: big batches are atomic w.r.t. other input but
 * may overrun a slow application's queue. */
#define WIN_SEND_CHUNK 256
/* Events per checked chunk of typed text: the foreground and its integrity
 * are checked before each, so a window that takes the foreground meanwhile
 * gets at most one chunk (16 characters). */
#define WIN_TYPE_CHUNK 32

/* ------------------------------------------------------------ whose input */

/* The session user's impersonation token (pg_win_set_input_token), NULL:
 * the process's own. Process-wide: the session helper has one backend. */
static _Atomic(HANDLE) input_token;
static pthread_mutex_t identity_lock = PTHREAD_MUTEX_INITIALIZER;
static char identity_sid[PG_WIN_SID_STR_MAX];
static int identity_level = -1;

pg_err pg_win_set_input_token(void *token, pg_error *e) {
    HANDLE dup = NULL;
    /* Our own copy, an impersonation token whatever the caller's was (WTSQueryUserToken gives a primary one). */
    if (token && !DuplicateTokenEx(token, TOKEN_IMPERSONATE | TOKEN_QUERY, NULL, SecurityImpersonation,
                                   TokenImpersonation, &dup))
        return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot duplicate the session user's token: error %lu",
                            GetLastError());
    HANDLE old = atomic_exchange(&input_token, dup);
    if (old) CloseHandle(old); /* a send in flight holds it: callers set it before input starts */
    return PG_OK;
}

void pg_win_input_identity(char *sid, size_t cap, int *level) {
    pthread_mutex_lock(&identity_lock);
    snprintf(sid, cap, "%s", identity_sid);
    *level = identity_level;
    pthread_mutex_unlock(&identity_lock);
}

/* What this thread sends as now: its impersonation token if it has one,
 * else the process token. */
static void note_identity(void) {
    HANDLE tok = NULL;
    int level = -1;
    /* OpenAsSelf: an identification-level token may not open itself. */
    if (OpenThreadToken(GetCurrentThread(), TOKEN_QUERY, TRUE, &tok)) {
        SECURITY_IMPERSONATION_LEVEL l;
        DWORD n;
        if (GetTokenInformation(tok, TokenImpersonationLevel, &l, sizeof l, &n)) level = (int)l;
    } else if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok)) {
        tok = NULL;
    }
    union {
        TOKEN_USER tu;
        BYTE raw[sizeof(TOKEN_USER) + SECURITY_MAX_SID_SIZE];
    } u;
    DWORD n;
    char sid[PG_WIN_SID_STR_MAX] = "";
    pg_error ignore;
    if (tok && GetTokenInformation(tok, TokenUser, &u, sizeof u, &n)) pg_win_sid_format(u.tu.User.Sid, sid, &ignore);
    if (tok) CloseHandle(tok);
    pthread_mutex_lock(&identity_lock);
    snprintf(identity_sid, sizeof identity_sid, "%s", sid);
    identity_level = level;
    pthread_mutex_unlock(&identity_lock);
}

/* SendInput as the session's user when a token is set: false, with *e, when
 * the thread could not take the token (nothing sent). */
static bool send_as_user(UINT n, INPUT *in, UINT *sent, pg_error *e) {
    HANDLE tok = atomic_load(&input_token);
    *sent = 0;
    if (tok && !SetThreadToken(NULL, tok)) {
        pg_error_set(e, PG_E_INTERNAL, "see docs/windows.md, \"Whose input\"",
                     "cannot inject as the session's user: SetThreadToken failed (error %lu); nothing was sent",
                     GetLastError());
        return false;
    }
    note_identity();
    *sent = SendInput(n, in, sizeof *in);
    DWORD err = GetLastError();
    if (tok) RevertToSelf();
    SetLastError(err);
    return true;
}

pg_err win_send(INPUT *in, UINT n, pg_error *e) {
    for (UINT done = 0; done < n;) {
        UINT k = n - done < WIN_SEND_CHUNK ? n - done : WIN_SEND_CHUNK;
        UINT sent;
        if (!send_as_user(k, in + done, &sent, e)) return PG_E_INTERNAL;
        if (sent != k)
            return pg_error_set(e, PG_E_POLICY, "the target may run elevated (UIPI) or the desktop is locked",
                                "SendInput delivered %u of %u events (error %lu)", done + sent, n,
                                GetLastError());
        done += k;
    }
    return PG_OK;
}

/* ------------------------------------------------------------------ focus */

/* Foreground and, if it was minimized, restored. */
static bool wait_foreground(HWND h, uint32_t ms) {
    for (pg_deadline end = pg_deadline_in_ms(ms);; pg_sleep_ms(10)) {
        if (GetForegroundWindow() == h && !IsIconic(h)) return true;
        if (pg_deadline_passed(end)) return false;
    }
}

/* The foreground lock lets a process take the foreground only if it
 * received the last input or shares the foreground thread's input queue. */
static void force_foreground(HWND h) {
    HWND fg = GetForegroundWindow();
    DWORD me = GetCurrentThreadId(), them = fg ? GetWindowThreadProcessId(fg, NULL) : 0;
    bool attached = them && them != me && AttachThreadInput(me, them, TRUE);
    BringWindowToTop(h);
    SetForegroundWindow(h);
    if (attached) AttachThreadInput(me, them, FALSE);
}

pg_err win_focus_hwnd(HWND h, pg_error *e) {
    /* Async: ShowWindow on another process's window waits for it to answer. */
    if (IsIconic(h)) ShowWindowAsync(h, SW_RESTORE);
    if (GetForegroundWindow() == h && !IsIconic(h)) return PG_OK;
    if (!SetForegroundWindow(h) || !wait_foreground(h, 100)) force_foreground(h);
    if (wait_foreground(h, WIN_FOCUS_TIMEOUT_MS)) return PG_OK;
    char who[400];
    win_describe(h, who, sizeof who);
    return pg_error_set(e, PG_E_TIMEOUT, "click the window once (pixelgate click) to activate it",
                        "window %s did not become the foreground window within %d ms", who,
                        WIN_FOCUS_TIMEOUT_MS);
}

pg_err win_focus(pg_platform *p, uint64_t id, pg_error *e) {
    HWND h;
    pg_err rc = p ? win_resolve(id, &h, e) : pg_error_set(e, PG_E_INTERNAL, NULL, "no handle");
    return rc == PG_OK ? win_focus_hwnd(h, e) : rc;
}

/* ---------------------------------------------------------------- pointer */

/* Screen point of window-relative (x, y), checked to lie in the client area. */
static pg_err target_point(uint64_t id, int32_t x, int32_t y, HWND *h, POINT *pt, pg_error *e) {
    RECT c;
    pg_err rc = win_resolve(id, h, e);
    if (rc == PG_OK && IsIconic(*h))
        rc = pg_error_set(e, PG_E_BADINPUT, "restore the window first (pixelgate focus)",
                          "window %llu is minimized", (unsigned long long)id);
    if (rc == PG_OK) rc = win_client_rect(*h, &c, e);
    if (rc != PG_OK) return rc;
    if (x < 0 || y < 0 || x >= c.right - c.left || y >= c.bottom - c.top)
        return pg_error_set(e, PG_E_BADINPUT, "use coordinates inside the window's content",
                            "point %d,%d is outside the %ldx%ld window", x, y, c.right - c.left,
                            c.bottom - c.top);
    *pt = (POINT){c.left + x, c.top + y};
    if (!MonitorFromPoint(*pt, MONITOR_DEFAULTTONULL))
        return pg_error_set(e, PG_E_BADINPUT, "move the window onto a screen",
                            "point %d,%d of the window is off every monitor", x, y);
    return PG_OK;
}

/* Absolute move to pt: 0..65535 spans the virtual desktop. The rounding up
 * makes Windows' (and Wine's) dx * width / 65536 land on pt exactly. */
static INPUT mouse_at(POINT pt, DWORD flags) {
    int64_t vx = GetSystemMetrics(SM_XVIRTUALSCREEN), vy = GetSystemMetrics(SM_YVIRTUALSCREEN);
    int64_t vw = GetSystemMetrics(SM_CXVIRTUALSCREEN), vh = GetSystemMetrics(SM_CYVIRTUALSCREEN);
    INPUT in = {0};
    in.type = INPUT_MOUSE;
    in.mi.dx = pg_abs_norm(pt.x, vx, vw);
    in.mi.dy = pg_abs_norm(pt.y, vy, vh);
    in.mi.dwFlags = flags | MOUSEEVENTF_MOVE | MOUSEEVENTF_ABSOLUTE | MOUSEEVENTF_VIRTUALDESK;
    return in;
}

/* PG_OK when a click at pt would reach top-level window h. */
static pg_err check_cover(HWND h, POINT pt, pg_error *e) {
    HWND hit = WindowFromPoint(pt);
    HWND top = hit ? GetAncestor(hit, GA_ROOT) : NULL;
    if (top == h) return PG_OK;
    char who[400] = "no window";
    if (top) win_describe(top, who, sizeof who);
    return pg_error_set(e, PG_E_POLICY, "bring the window to the front (pixelgate focus) and retry",
                        "the point %ld,%ld is covered by window %s; the click would land there",
                        pt.x, pt.y, who);
}

typedef struct {
    pg_monitor *m;
    size_t n, cap;
} monitor_list;

static BOOL CALLBACK one_monitor(HMONITOR h, HDC dc, LPRECT r, LPARAM lp) {
    (void)dc, (void)r;
    monitor_list *l = (monitor_list *)lp;
    MONITORINFOEXW mi = {0};
    mi.cbSize = sizeof mi;
    if (l->n == l->cap || !GetMonitorInfoW(h, (MONITORINFO *)&mi)) return TRUE;
    pg_monitor *m = &l->m[l->n++];
    WideCharToMultiByte(CP_UTF8, 0, mi.szDevice, -1, m->name, (int)sizeof m->name, NULL, NULL);
    m->name[sizeof m->name - 1] = 0;
    m->r = (pg_rect){mi.rcMonitor.left, mi.rcMonitor.top, (uint32_t)(mi.rcMonitor.right - mi.rcMonitor.left),
                     (uint32_t)(mi.rcMonitor.bottom - mi.rcMonitor.top)};
    m->primary = (mi.dwFlags & MONITORINFOF_PRIMARY) != 0;
    return TRUE;
}

pg_err win_monitors(pg_platform *p, pg_monitor **out, size_t *n, pg_error *e) {
    monitor_list l = {calloc(16, sizeof *l.m), 0, 16};
    if (!l.m) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    EnumDisplayMonitors(NULL, NULL, one_monitor, (LPARAM)&l);
    if (l.n == 0) { /* none reported: the virtual screen is the one */
        snprintf(l.m[0].name, sizeof l.m[0].name, "screen");
        l.m[0].r = (pg_rect){GetSystemMetrics(SM_XVIRTUALSCREEN), GetSystemMetrics(SM_YVIRTUALSCREEN),
                             (uint32_t)GetSystemMetrics(SM_CXVIRTUALSCREEN), (uint32_t)GetSystemMetrics(SM_CYVIRTUALSCREEN)};
        l.m[0].primary = true;
        l.n = 1;
    }
    *out = l.m;
    *n = l.n;
    return PG_OK;
}

pg_err win_top_at(pg_platform *p, int32_t x, int32_t y, uint64_t *id, pg_error *e) {
    POINT pt = {x, y};
    HWND hit = WindowFromPoint(pt);
    HWND top = hit ? GetAncestor(hit, GA_ROOT) : NULL;
    *id = (uint64_t)(uintptr_t)top;
    return PG_OK;
}

/* What every pointer action checks first: inside the client area, on a
 * monitor, and the target on top there. */
static pg_err aim(uint64_t id, int32_t x, int32_t y, HWND *h, POINT *pt, pg_error *e) {
    pg_err rc = target_point(id, x, y, h, pt, e);
    return rc == PG_OK ? check_cover(*h, *pt, e) : rc;
}

static const DWORD button_down[] = {0, MOUSEEVENTF_LEFTDOWN, MOUSEEVENTF_MIDDLEDOWN, MOUSEEVENTF_RIGHTDOWN};
static const DWORD button_up[] = {0, MOUSEEVENTF_LEFTUP, MOUSEEVENTF_MIDDLEUP, MOUSEEVENTF_RIGHTUP};

/* The system applies injected moves as it reads its input queue (Wine:
 * through the X server), so GetCursorPos can lag SendInput: wait, bounded,
 * until the pointer is where it was sent, so that what comes next (a
 * release where the pointer is, pointer_at) sees it there. */
#define WIN_MOVE_WAIT_MS 250
static void wait_cursor(POINT pt) {
    POINT now;
    for (pg_deadline end = pg_deadline_in_ms(WIN_MOVE_WAIT_MS); !pg_deadline_passed(end); pg_sleep_ms(2))
        if (GetCursorPos(&now) && now.x == pt.x && now.y == pt.y) return;
}

/* One pointer event at pt (a move, with a button's flag), returning once
 * the cursor is there. */
static pg_err send_at(POINT pt, DWORD flag, pg_error *e) {
    INPUT in = mouse_at(pt, flag);
    pg_err rc = win_send(&in, 1, e);
    if (rc == PG_OK) wait_cursor(pt);
    return rc;
}

pg_err win_pointer_move(pg_platform *p, uint64_t id, int32_t x, int32_t y, pg_error *e) {
    HWND h;
    POINT pt;
    pg_err rc = aim(id, x, y, &h, &pt, e);
    return rc == PG_OK ? send_at(pt, 0, e) : rc;
}

pg_err win_click(pg_platform *p, uint64_t id, int32_t x, int32_t y, pg_button b, int count,
                 pg_error *e) {
    if (b < PG_BTN_LEFT || b > PG_BTN_RIGHT || count < 1 || count > 3)
        return pg_error_set(e, PG_E_BADINPUT, "button 1-3, count 1 to 3",
                            "bad click: button %d, count %d", (int)b, count);
    HWND h;
    POINT pt;
    pg_err rc = aim(id, x, y, &h, &pt, e);
    if (rc != PG_OK) return rc;
    INPUT in[7];
    UINT n = 0;
    in[n++] = mouse_at(pt, 0);
    for (int i = 0; i < count; i++) { /* one batch: within the double-click time, one double or triple click */
        in[n++] = mouse_at(pt, button_down[b]);
        in[n++] = mouse_at(pt, button_up[b]);
    }
    return win_send(in, n, e);
}

/* One wheel event per notch (WHEEL_DELTA each): an application that counts
 * events and one that sums deltas see the same scroll. Positive mouseData
 * is up (vertical) or right (horizontal). */
pg_err win_scroll(pg_platform *p, uint64_t id, int32_t x, int32_t y, int32_t dx, int32_t dy, pg_error *e) {
    if (dx < -PG_SCROLL_MAX || dx > PG_SCROLL_MAX || dy < -PG_SCROLL_MAX || dy > PG_SCROLL_MAX)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "scroll of %d,%d notches: at most %d each way", dx, dy,
                            PG_SCROLL_MAX);
    HWND h;
    POINT pt;
    pg_err rc = aim(id, x, y, &h, &pt, e);
    if (rc != PG_OK) return rc;
    INPUT in[1 + 2 * PG_SCROLL_MAX];
    UINT n = 0;
    in[n++] = mouse_at(pt, 0);
    for (int32_t i = 0; i < abs(dy); i++) {
        in[n] = mouse_at(pt, MOUSEEVENTF_WHEEL);
        in[n++].mi.mouseData = (DWORD)(dy > 0 ? -WHEEL_DELTA : WHEEL_DELTA);
    }
    for (int32_t i = 0; i < abs(dx); i++) {
        in[n] = mouse_at(pt, MOUSEEVENTF_HWHEEL);
        in[n++].mi.mouseData = (DWORD)(dx > 0 ? WHEEL_DELTA : -WHEEL_DELTA);
    }
    return win_send(in, n, e);
}

pg_err win_drag(pg_platform *p, uint64_t id, const pg_point *path, size_t n, pg_button b, uint32_t hold_ms,
                uint32_t step_ms, pg_error *e) {
    if (b < PG_BTN_LEFT || b > PG_BTN_RIGHT)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "unknown button %d", (int)b);
    if (!pg_drag_shape_ok(n, hold_ms, step_ms))
        return pg_error_set(e, PG_E_BADINPUT, NULL, "a drag has 2 to %d points and takes at most %d ms",
                            PG_DRAG_MAX_POINTS, PG_DRAG_MAX_MS);
    POINT *pts = malloc(n * sizeof *pts);
    if (!pts) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    HWND h;
    pg_err rc = PG_OK;
    for (size_t i = 0; i < n && rc == PG_OK; i++) /* every point checked before anything is sent */
        rc = aim(id, path[i].x, path[i].y, &h, &pts[i], e);
    if (rc == PG_OK) {
        INPUT press[2] = {mouse_at(pts[0], 0), mouse_at(pts[0], button_down[b])};
        rc = win_send(press, 2, e);
        if (rc == PG_OK) Sleep(hold_ms);
        for (size_t i = 1; i < n && rc == PG_OK; i++) {
            INPUT move = mouse_at(pts[i], 0);
            rc = win_send(&move, 1, e);
            if (rc == PG_OK && i + 1 < n) Sleep(step_ms);
        }
        INPUT release = mouse_at(pts[n - 1], button_up[b]); /* whatever failed: never left pressed */
        pg_error ignore;
        pg_err done = win_send(&release, 1, rc == PG_OK ? e : &ignore);
        if (rc == PG_OK) rc = done;
    }
    free(pts);
    return rc;
}

/* ------------------------------------------------------------------- held */

pg_err win_pointer_at(pg_platform *p, int32_t *x, int32_t *y, pg_error *e) {
    POINT pt = {0, 0};
    *x = *y = 0;
    if (!GetCursorPos(&pt))
        return pg_error_set(e, PG_E_INTERNAL, NULL, "GetCursorPos failed (error %lu)", GetLastError());
    *x = pt.x, *y = pt.y;
    return PG_OK;
}

/* A button down or up: at the point (moved there first) or where the
 * pointer is, either checked like a click; a release without a window goes
 * out wherever the pointer is. */
static pg_err hold_button(const pg_hold *hd, pg_error *e) {
    if (hd->button < PG_BTN_LEFT || hd->button > PG_BTN_RIGHT)
        return pg_error_set(e, PG_E_BADINPUT, NULL, "unknown button %d", (int)hd->button);
    DWORD flag = hd->down ? button_down[hd->button] : button_up[hd->button];
    if (hd->id == 0) {
        if (hd->down) return pg_error_set(e, PG_E_BADINPUT, NULL, "a button goes down in a window");
        INPUT in = {0};
        in.type = INPUT_MOUSE;
        in.mi.dwFlags = flag; /* no move: where the pointer is */
        return win_send(&in, 1, e);
    }
    HWND h;
    POINT pt;
    int32_t x = hd->x, y = hd->y;
    pg_err rc = PG_OK;
    if (!hd->at) { /* where the pointer is, as a point of the window */
        RECT c;
        int32_t sx = 0, sy = 0;
        rc = win_resolve(hd->id, &h, e);
        if (rc == PG_OK) rc = win_client_rect(h, &c, e);
        if (rc == PG_OK) rc = win_pointer_at(NULL, &sx, &sy, e);
        if (rc == PG_OK) x = sx - c.left, y = sy - c.top;
    }
    if (rc == PG_OK) rc = aim(hd->id, x, y, &h, &pt, e);
    return rc == PG_OK ? send_at(pt, flag, e) : rc;
}

pg_err win_hold(pg_platform *p, const pg_hold *h, pg_error *e) {
    return h->is_key ? win_hold_key(h, e) : hold_button(h, e);
}

/* ------------------------------------------------------------------- text */

INPUT win_key_event(WORD vk, WORD scan, DWORD flags) {
    INPUT in = {0};
    in.type = INPUT_KEYBOARD;
    in.ki.wVk = vk;
    in.ki.wScan = scan;
    in.ki.dwFlags = flags;
    return in;
}

/* ---------------------------------------------------------- checked sends */

uint32_t win_window_integrity(HWND h) {
    DWORD pid = 0;
    if (!h || !GetWindowThreadProcessId(h, &pid) || !pid) return 0;
    HANDLE proc = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
    HANDLE tok = NULL;
    uint32_t rid = 0;
    if (proc && OpenProcessToken(proc, TOKEN_QUERY, &tok)) {
        union {
            TOKEN_MANDATORY_LABEL label;
            BYTE raw[sizeof(TOKEN_MANDATORY_LABEL) + SECURITY_MAX_SID_SIZE];
        } u;
        DWORD n = 0;
        if (GetTokenInformation(tok, TokenIntegrityLevel, &u, sizeof u, &n) && IsValidSid(u.label.Label.Sid)) {
            UCHAR count = *GetSidSubAuthorityCount(u.label.Label.Sid);
            if (count) rid = *GetSidSubAuthority(u.label.Label.Sid, count - 1u);
        }
        CloseHandle(tok);
    }
    if (proc) CloseHandle(proc);
    return rid;
}

typedef struct {
    INPUT *in;
    pg_inject_target target; /* the window and its integrity when the call began */
} checked_send;

/* Before each chunk: the target still holds the foreground, at no higher
 * integrity (pg_inject_may_send); SendInput itself cannot tell. */
static pg_err chunk_check(void *ctx, size_t done, size_t total, pg_error *e) {
    const checked_send *c = ctx;
    HWND fg = GetForegroundWindow();
    pg_inject_now now = {(uint64_t)(uintptr_t)fg, fg ? win_window_integrity(fg) : 0};
    return pg_inject_may_send(&c->target, &now, done, total, e);
}

static size_t chunk_send(void *ctx, size_t from, size_t n) {
    const checked_send *c = ctx;
    UINT sent;
    pg_error ignore; /* a thread that cannot take the token sends nothing: counted as none sent */
    send_as_user((UINT)n, c->in + from, &sent, &ignore);
    return sent;
}

pg_err win_send_checked(HWND h, uint32_t integrity, INPUT *in, const size_t *start, size_t n_units,
                        size_t max_events, pg_error *e) {
    checked_send c = {in, {(uint64_t)(uintptr_t)h, integrity}};
    pg_inject_io io = {chunk_check, chunk_send, &c};
    size_t done;
    return pg_inject_send(&io, start, n_units, max_events, &done, e);
}

/* Append down/up for one UTF-16 unit (Return/Tab as keys) to in[*n]. */
static void text_unit(wchar_t u, INPUT *in, UINT *n) {
    if (u == L'\n' || u == L'\t') {
        WORD vk = u == L'\n' ? VK_RETURN : VK_TAB;
        WORD scan = (WORD)MapVirtualKeyW(vk, MAPVK_VK_TO_VSC);
        in[(*n)++] = win_key_event(vk, scan, 0);
        in[(*n)++] = win_key_event(vk, scan, KEYEVENTF_KEYUP);
        return;
    }
    in[(*n)++] = win_key_event(0, (WORD)u, KEYEVENTF_UNICODE);
    in[(*n)++] = win_key_event(0, (WORD)u, KEYEVENTF_UNICODE | KEYEVENTF_KEYUP);
}

/* The events for w[0..nw), one unit per code point (start[u]..start[u+1]):
 * a surrogate pair is one unit of four events, the CR of a CRLF a unit of
 * none (the LF types the Return), so units count what typed_chars counts. */
static size_t text_events(const wchar_t *w, int nw, INPUT *in, size_t *start) {
    size_t units = 0;
    UINT n = 0;
    for (int i = 0; i < nw; i++) {
        start[units++] = n;
        if (w[i] == L'\r' && i + 1 < nw && w[i + 1] == L'\n') continue;
        text_unit(w[i], in, &n);
        if (IS_HIGH_SURROGATE(w[i]) && i + 1 < nw && IS_LOW_SURROGATE(w[i + 1])) text_unit(w[++i], in, &n);
    }
    start[units] = n;
    return units;
}

pg_err win_type_text(pg_platform *p, uint64_t id, const char *utf8, pg_error *e) {
    HWND h;
    pg_err rc = win_resolve(id, &h, e);
    if (rc != PG_OK) return rc;
    int len = (int)strlen(utf8);
    if (len == 0) return PG_OK;
    int nw = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, len, NULL, 0);
    if (nw <= 0)
        return pg_error_set(e, PG_E_BADINPUT, "send valid UTF-8", "text is not valid UTF-8");
    wchar_t *w = malloc((size_t)nw * sizeof *w);
    INPUT *in = malloc((size_t)nw * 2 * sizeof *in);
    size_t *start = malloc(((size_t)nw + 1) * sizeof *start);
    if (!w || !in || !start) {
        free(w), free(in), free(start);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    }
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, len, w, nw);
    size_t units = text_events(w, nw, in, start);
    uint32_t integrity = win_window_integrity(h); /* before the focus: what the broker checked */
    rc = win_focus_hwnd(h, e);
    if (rc == PG_OK) rc = win_send_checked(h, integrity, in, start, units, WIN_TYPE_CHUNK, e);
    free(w), free(in), free(start);
    return rc;
}
