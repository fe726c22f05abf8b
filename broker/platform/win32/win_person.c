/* SPDX-License-Identifier: MIT */
/* win_person.c - the person's controls on Windows: the low-level keyboard and
 * mouse hooks that watch the person's own input (watch_person), and the
 * indicator window that shows an agent drives (indicate), both owned by one
 * message-loop thread of the handle.
 *
 * Contract (pg_platform.def, watch_person and indicate):
 *   - The thread starts with the first of the two calls and ends at close()
 *     (WM_QUIT posted, joined within WIN_UI_JOIN_MS). Low-level hooks run on
 *     the thread that installed them and only while it pumps messages, and
 *     the indicator window must belong to a thread that always pumps: the
 *     broker's callers block in other calls for seconds, so neither can live
 *     on their threads. Callers reach the thread with SendMessageTimeout to a
 *     message-only window (never listed, never on screen), bounded.
 *   - watch_person: WH_KEYBOARD_LL and WH_MOUSE_LL; each event goes through
 *     win_person_rules.h: injected input (LLKHF_INJECTED, LLMHF_INJECTED,
 *     the LOWER_IL variants) is ignored, a physical press of the stop key is
 *     pg_person_stop_key, any other physical event pg_person_activity. Every
 *     event is passed on (CallNextHookEx): the hook watches, never swallows.
 *     One handle per process may watch (a hook procedure has no context): a
 *     second is PG_E_BUSY. An unknown stop key name is PG_E_BADINPUT.
 *   - indicate: a WS_POPUP window with WS_EX_LAYERED | WS_EX_TRANSPARENT |
 *     WS_EX_TOPMOST | WS_EX_TOOLWINDOW | WS_EX_NOACTIVATE: click-through (hit
 *     tests pass through a layered transparent window), never activated, not
 *     in the taskbar or alt+Tab. A ring is a window region around the driven
 *     window's frame, moved with it and raised again every WIN_UI_FOLLOW_MS;
 *     a banner is a strip along the top of the primary monitor naming the
 *     user and the stop key. SetWindowDisplayAffinity(WDA_EXCLUDEFROMCAPTURE),
 *     looked up at run time, keeps it out of every capture on Windows 10 2004
 *     and later; where it is refused (older Windows, Wine), the sign shows in
 *     screen captures and BitBlt fallbacks of the region it covers, and
 *     pg_win_indicator_state says so. Window captures by PrintWindow never
 *     contain it (another window). win_is_indicator keeps it out of every
 *     window list and cover check of this backend.
 * Never: blocks in a hook (a mutex held briefly, nothing else), swallows an
 * event, steals the focus, or leaves a hook or window behind after close.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_person.h"
#include "win_person_rules.h"
#include "win_private.h"

/* The rules spell the Windows bits by value: they must be these. */
_Static_assert(WIN_LLKHF_INJECTED == LLKHF_INJECTED && WIN_LLKHF_UP == LLKHF_UP &&
                   WIN_LLKHF_LOWER_IL_INJECTED == LLKHF_LOWER_IL_INJECTED && WIN_LLKHF_EXTENDED == LLKHF_EXTENDED &&
                   WIN_LLKHF_ALTDOWN == LLKHF_ALTDOWN,
               "LLKHF bits");
_Static_assert(WIN_LLMHF_INJECTED == LLMHF_INJECTED && WIN_LLMHF_LOWER_IL_INJECTED == LLMHF_LOWER_IL_INJECTED,
               "LLMHF bits");
_Static_assert(WIN_VK_PAUSE == VK_PAUSE && WIN_VK_SCROLL == VK_SCROLL && WIN_VK_F1 == VK_F1 && WIN_VK_F24 == VK_F24,
               "virtual keys");

#define WIN_UI_START_MS 5000  /* the thread's window and queue ready */
#define WIN_UI_CALL_MS 5000   /* one request to the thread */
#define WIN_UI_JOIN_MS 5000   /* close: the thread gone */
#define WIN_UI_FOLLOW_MS 200  /* the ring follows its window and is raised again */
#define WIN_RING_PX 4         /* the ring's width, outside the window's frame */
#define WIN_BANNER_PX 28
#define WIN_RING_COLOR RGB(255, 96, 0)
#define WIN_WDA_EXCLUDEFROMCAPTURE 0x11u /* winuser.h of Windows 10 2004; older SDKs lack it */
#define WIN_IND_EXSTYLE (WS_EX_LAYERED | WS_EX_TRANSPARENT | WS_EX_TOPMOST | WS_EX_TOOLWINDOW | WS_EX_NOACTIVATE)

enum { WIN_UI_WATCH = WM_APP + 1, WIN_UI_INDICATE };
static const wchar_t CTL_CLASS[] = L"pixelgate-ui";
static const wchar_t IND_CLASS[] = L"pixelgate-indicator";

struct win_ui {
    HANDLE thread, ready;
    DWORD tid;
    HWND ctl;                /* message-only: requests arrive here */
    HWND ind;                /* the indicator, NULL until first shown */
    /* Written by the thread, read by anyone (pg_win_person_stats). */
    _Atomic uint64_t keys_injected, keys_physical, mouse_injected, mouse_physical, stops;
    _Atomic uint32_t last_vk, last_flags;
    /* The thread's own. */
    pg_person *person;
    win_person_rules rules;
    char stop_name[32];
    HHOOK kb, mouse;
    pg_indicator how;        /* what the indicator shows now */
    char affinity[160];      /* what SetWindowDisplayAffinity answered */
};

/* The one handle whose hooks are installed (hook procedures get no context),
 * and the indicator's class atom (win_is_indicator). */
static _Atomic(win_ui *) hooked;
static _Atomic uint16_t indicator_atom;

/* Of our class and of this process: window class atoms are shared by the
 * window station, so another process may register the same name, but it
 * cannot put its window in our process and hide it from the lists. */
bool win_is_indicator(HWND h) {
    DWORD pid = 0;
    ATOM mine = atomic_load(&indicator_atom);
    return h && mine && (ATOM)GetClassLongPtrW(h, GCW_ATOM) == mine && GetWindowThreadProcessId(h, &pid) &&
           pid == GetCurrentProcessId();
}

/* ------------------------------------------------------------- the hooks */

static void seen(win_ui *u, win_person_event ev, bool key) {
    if (ev == WIN_PERSON_IGNORE) {
        atomic_fetch_add(key ? &u->keys_injected : &u->mouse_injected, 1);
        return;
    }
    atomic_fetch_add(key ? &u->keys_physical : &u->mouse_physical, 1);
    if (ev == WIN_PERSON_STOP) {
        atomic_fetch_add(&u->stops, 1);
        pg_person_stop_key(u->person, pg_mono_us());
    } else {
        pg_person_activity(u->person, pg_mono_us());
    }
}

static LRESULT CALLBACK keyboard_hook(int code, WPARAM wp, LPARAM lp) {
    win_ui *u = atomic_load(&hooked);
    if (code == HC_ACTION && u) {
        const KBDLLHOOKSTRUCT *k = (const KBDLLHOOKSTRUCT *)lp;
        atomic_store(&u->last_vk, (uint32_t)k->vkCode);
        atomic_store(&u->last_flags, (uint32_t)k->flags);
        seen(u, win_person_key(&u->rules, (uint32_t)k->vkCode, (uint32_t)k->flags), true);
    }
    return CallNextHookEx(NULL, code, wp, lp);
}

static LRESULT CALLBACK mouse_hook(int code, WPARAM wp, LPARAM lp) {
    win_ui *u = atomic_load(&hooked);
    if (code == HC_ACTION && u) seen(u, win_person_mouse((uint32_t)((const MSLLHOOKSTRUCT *)lp)->flags), false);
    return CallNextHookEx(NULL, code, wp, lp);
}

typedef struct {
    pg_person *person;
    const char *stop_key;
    const pg_indicator *how;
    pg_error *e;
    pg_err rc;
} ui_request;

/* On the thread. */
static pg_err install_hooks(win_ui *u, ui_request *r) {
    win_person_rules rules = {0};
    char name[sizeof u->stop_name];
    if (!win_person_stop_key(r->stop_key, &rules.stop_vk, name, sizeof name))
        return pg_error_set(r->e, PG_E_BADINPUT, "use Pause, Scroll_Lock or F1..F24",
                            "stop key \"%s\" is not one the Windows hook knows", r->stop_key ? r->stop_key : "");
    win_ui *none = NULL;
    if (!atomic_compare_exchange_strong(&hooked, &none, u) && none != u)
        return pg_error_set(r->e, PG_E_BUSY, NULL, "another handle of this process watches the person already");
    u->person = r->person;
    u->rules = rules;
    snprintf(u->stop_name, sizeof u->stop_name, "%s", name);
    HINSTANCE self = GetModuleHandleW(NULL);
    if (!u->kb) u->kb = SetWindowsHookExW(WH_KEYBOARD_LL, keyboard_hook, self, 0);
    if (!u->mouse) u->mouse = SetWindowsHookExW(WH_MOUSE_LL, mouse_hook, self, 0);
    if (u->kb && u->mouse) {
        pg_person_set_watching(u->person, true, name, NULL);
        return PG_OK;
    }
    DWORD err = GetLastError();
    if (u->kb) UnhookWindowsHookEx(u->kb);
    if (u->mouse) UnhookWindowsHookEx(u->mouse);
    u->kb = u->mouse = NULL;
    atomic_store(&hooked, NULL);
    char why[PG_PERSON_WHY_MAX];
    snprintf(why, sizeof why, "SetWindowsHookEx(low-level) failed: error %lu", err);
    pg_person_set_watching(u->person, false, name, why);
    return pg_error_set(r->e, PG_E_UNSUPPORTED, NULL, "%s", why);
}

static void remove_hooks(win_ui *u) {
    if (u->kb) UnhookWindowsHookEx(u->kb);
    if (u->mouse) UnhookWindowsHookEx(u->mouse);
    if ((u->kb || u->mouse) && u->person)
        pg_person_set_watching(u->person, false, u->stop_name, "the Win32 backend was closed");
    u->kb = u->mouse = NULL;
    win_ui *me = u;
    atomic_compare_exchange_strong(&hooked, &me, NULL);
}

/* --------------------------------------------------------- the indicator */

static void paint(HWND h, const win_ui *u) {
    PAINTSTRUCT ps;
    HDC dc = BeginPaint(h, &ps);
    RECT r;
    GetClientRect(h, &r);
    HBRUSH b = CreateSolidBrush(WIN_RING_COLOR);
    FillRect(dc, &r, b);
    DeleteObject(b);
    if (u && u->how.mode == PG_INDICATOR_BANNER) {
        char utf8[256];
        wchar_t text[256];
        snprintf(utf8, sizeof utf8, "pixelgate: %s is driving this computer. Press %s to stop.", u->how.user,
                 u->stop_name[0] ? u->stop_name : "the stop key");
        if (MultiByteToWideChar(CP_UTF8, 0, utf8, -1, text, (int)(sizeof text / sizeof *text)) <= 0) text[0] = 0;
        SetBkMode(dc, TRANSPARENT);
        SetTextColor(dc, RGB(0, 0, 0));
        DrawTextW(dc, text, -1, &r, DT_CENTER | DT_VCENTER | DT_SINGLELINE | DT_END_ELLIPSIS);
    }
    EndPaint(h, &ps);
}

static LRESULT CALLBACK indicator_proc(HWND h, UINT msg, WPARAM wp, LPARAM lp) {
    win_ui *u = (win_ui *)GetWindowLongPtrW(h, GWLP_USERDATA);
    switch (msg) {
    case WM_NCHITTEST: return HTTRANSPARENT; /* click-through even where layering is not */
    case WM_MOUSEACTIVATE: return MA_NOACTIVATE;
    case WM_PAINT: paint(h, u); return 0;
    default: return DefWindowProcW(h, msg, wp, lp);
    }
}

/* Looked up at run time: Windows before 7 has no SetWindowDisplayAffinity,
 * and before 10 2004 it refuses WDA_EXCLUDEFROMCAPTURE (ERROR_INVALID_PARAMETER);
 * WDA_MONITOR is not a fallback: it would paint the ring black into captures. */
static void exclude_from_capture(win_ui *u) {
    typedef BOOL(WINAPI * set_affinity_fn)(HWND, DWORD);
    FARPROC f = GetProcAddress(GetModuleHandleW(L"user32.dll"), "SetWindowDisplayAffinity");
    set_affinity_fn set;
    memcpy(&set, &f, sizeof f);
    DWORD got = 0;
    if (!set)
        snprintf(u->affinity, sizeof u->affinity, "no SetWindowDisplayAffinity: the sign shows in screen captures");
    else if (!set(u->ind, WIN_WDA_EXCLUDEFROMCAPTURE))
        snprintf(u->affinity, sizeof u->affinity,
                 "WDA_EXCLUDEFROMCAPTURE refused (error %lu): the sign shows in screen captures", GetLastError());
    else if (GetWindowDisplayAffinity(u->ind, &got) && got != WIN_WDA_EXCLUDEFROMCAPTURE)
        snprintf(u->affinity, sizeof u->affinity,
                 "WDA_EXCLUDEFROMCAPTURE accepted but affinity reads %lu: the sign may show in screen captures", got);
    else
        snprintf(u->affinity, sizeof u->affinity, "excluded from capture (WDA_EXCLUDEFROMCAPTURE)");
}

static pg_err make_indicator(win_ui *u, pg_error *e) {
    if (u->ind) return PG_OK;
    u->ind = CreateWindowExW(WIN_IND_EXSTYLE, IND_CLASS, L"pixelgate", WS_POPUP, 0, 0, 1, 1, NULL, NULL,
                             GetModuleHandleW(NULL), NULL);
    if (!u->ind)
        return pg_error_set(e, PG_E_INTERNAL, NULL, "cannot create the indicator window: error %lu", GetLastError());
    SetWindowLongPtrW(u->ind, GWLP_USERDATA, (LONG_PTR)u);
    SetLayeredWindowAttributes(u->ind, 0, 230, LWA_ALPHA);
    exclude_from_capture(u);
    return PG_OK;
}

static void primary_top(RECT *r) {
    POINT origin = {0, 0};
    MONITORINFO mi = {.cbSize = sizeof mi};
    if (!GetMonitorInfoW(MonitorFromPoint(origin, MONITOR_DEFAULTTOPRIMARY), &mi))
        SetRect(&mi.rcMonitor, 0, 0, GetSystemMetrics(SM_CXSCREEN), GetSystemMetrics(SM_CYSCREEN));
    *r = mi.rcMonitor;
    r->bottom = r->top + WIN_BANNER_PX;
}

/* Where the sign goes now and its shape; false: nothing to show (the window
 * is gone or minimized). */
static bool layout(const win_ui *u, RECT *where, HRGN *shape) {
    *shape = NULL;
    if (u->how.mode == PG_INDICATOR_BANNER) {
        primary_top(where);
        return true;
    }
    HWND target = (HWND)(uintptr_t)u->how.window;
    if (!IsWindow(target) || !IsWindowVisible(target) || IsIconic(target)) return false;
    const char *src;
    win_frame_rect(target, where, &src);
    InflateRect(where, WIN_RING_PX, WIN_RING_PX);
    int w = where->right - where->left, h = where->bottom - where->top;
    /* The ring: the rectangle less its inside, so the window shows through. */
    *shape = CreateRectRgn(0, 0, w, h);
    HRGN inside = CreateRectRgn(WIN_RING_PX, WIN_RING_PX, w - WIN_RING_PX, h - WIN_RING_PX);
    CombineRgn(*shape, *shape, inside, RGN_DIFF);
    DeleteObject(inside);
    return true;
}

/* Placed, shaped, on top, never activated. */
static void place(win_ui *u) {
    RECT r;
    HRGN shape;
    if (!u->ind || !u->how.window || !layout(u, &r, &shape)) {
        if (u->ind) ShowWindow(u->ind, SW_HIDE);
        return;
    }
    SetWindowRgn(u->ind, shape, FALSE); /* the system owns shape now; NULL: no region */
    SetWindowPos(u->ind, HWND_TOPMOST, r.left, r.top, r.right - r.left, r.bottom - r.top,
                 SWP_NOACTIVATE | SWP_SHOWWINDOW);
    InvalidateRect(u->ind, NULL, TRUE);
}

static pg_err show(win_ui *u, ui_request *r) {
    const pg_indicator *how = r->how;
    if (how->window) {
        HWND h;
        pg_err rc = win_resolve(how->window, &h, r->e);
        if (!rc) rc = make_indicator(u, r->e);
        if (rc) return rc;
    }
    u->how = *how;
    u->how.user[sizeof u->how.user - 1] = 0;
    place(u);
    return PG_OK;
}

/* ------------------------------------------------------------ the thread */

static LRESULT CALLBACK control_proc(HWND h, UINT msg, WPARAM wp, LPARAM lp) {
    win_ui *u = (win_ui *)GetWindowLongPtrW(h, GWLP_USERDATA);
    ui_request *r = (ui_request *)lp;
    switch (msg) {
    case WIN_UI_WATCH: r->rc = install_hooks(u, r); return 1;
    case WIN_UI_INDICATE: r->rc = show(u, r); return 1;
    case WM_TIMER: place(u); return 0;
    default: return DefWindowProcW(h, msg, wp, lp);
    }
}

static bool register_classes(void) {
    HINSTANCE self = GetModuleHandleW(NULL);
    WNDCLASSEXW c = {.cbSize = sizeof c, .lpfnWndProc = control_proc, .hInstance = self, .lpszClassName = CTL_CLASS};
    WNDCLASSEXW i = {.cbSize = sizeof i, .lpfnWndProc = indicator_proc, .hInstance = self,
                     .hCursor = LoadCursorW(NULL, (LPCWSTR)IDC_ARROW), .lpszClassName = IND_CLASS};
    /* Already registered by an earlier handle of this process: fine. */
    bool ok = RegisterClassExW(&c) || GetLastError() == ERROR_CLASS_ALREADY_EXISTS;
    ATOM ind = RegisterClassExW(&i);
    if (!ind) ind = (ATOM)GetClassInfoExW(self, IND_CLASS, &i);
    if (ind) atomic_store(&indicator_atom, ind);
    return ok && ind;
}

/* The session helper's main thread follows the input desktop; this one
 * starts there too (a new thread starts on the process's desktop). It cannot
 * follow later: a thread with windows or hooks cannot change desktops, so
 * on the secure desktop (UAC, lock screen) the hooks see nothing, as the
 * person cannot drive the agent's desktop then either. Best effort: Wine
 * refuses SetThreadDesktop (error 5) and keeps Default. */
static void join_input_desktop(void) {
    HDESK d = OpenInputDesktop(0, FALSE, DESKTOP_READOBJECTS | DESKTOP_WRITEOBJECTS | DESKTOP_CREATEWINDOW |
                                             DESKTOP_HOOKCONTROL | DESKTOP_ENUMERATE);
    if (d && !SetThreadDesktop(d)) CloseDesktop(d);
}

static DWORD WINAPI ui_main(void *arg) {
    win_ui *u = arg;
    join_input_desktop();
    MSG m;
    PeekMessageW(&m, NULL, WM_USER, WM_USER, PM_NOREMOVE); /* the queue, before anyone posts */
    if (register_classes())
        u->ctl = CreateWindowExW(0, CTL_CLASS, L"", 0, 0, 0, 0, 0, HWND_MESSAGE, NULL, GetModuleHandleW(NULL), NULL);
    if (u->ctl) {
        SetWindowLongPtrW(u->ctl, GWLP_USERDATA, (LONG_PTR)u);
        SetTimer(u->ctl, 1, WIN_UI_FOLLOW_MS, NULL);
    }
    SetEvent(u->ready);
    while (u->ctl && GetMessageW(&m, NULL, 0, 0) > 0) {
        TranslateMessage(&m);
        DispatchMessageW(&m);
    }
    remove_hooks(u);
    if (u->ind) DestroyWindow(u->ind);
    if (u->ctl) DestroyWindow(u->ctl);
    return 0;
}

static pg_err start(pg_platform *p, pg_error *e) {
    if (p->ui) return PG_OK;
    win_ui *u = calloc(1, sizeof *u);
    if (!u || !(u->ready = CreateEventW(NULL, TRUE, FALSE, NULL))) {
        free(u);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory or events");
    }
    u->thread = CreateThread(NULL, 0, ui_main, u, 0, &u->tid);
    bool up = u->thread && WaitForSingleObject(u->ready, WIN_UI_START_MS) == WAIT_OBJECT_0 && u->ctl;
    p->ui = u; /* even when it failed: win_ui_stop ends and frees what there is */
    if (up) return PG_OK;
    win_ui_stop(p);
    return pg_error_set(e, PG_E_INTERNAL, NULL, "the Win32 backend's window thread did not start");
}

static pg_err call(pg_platform *p, UINT msg, ui_request *r) {
    pg_err rc = start(p, r->e);
    if (rc) return rc;
    DWORD_PTR done = 0;
    r->rc = PG_E_INTERNAL;
    if (!SendMessageTimeoutW(p->ui->ctl, msg, 0, (LPARAM)r, SMTO_NORMAL, WIN_UI_CALL_MS, &done) || !done)
        return pg_error_set(r->e, PG_E_TIMEOUT, NULL, "the Win32 backend's window thread did not answer in %d ms",
                            WIN_UI_CALL_MS);
    return r->rc;
}

void win_ui_stop(pg_platform *p) {
    win_ui *u = p->ui;
    if (!u) return;
    p->ui = NULL;
    if (u->thread) {
        PostThreadMessageW(u->tid, WM_QUIT, 0, 0);
        if (WaitForSingleObject(u->thread, WIN_UI_JOIN_MS) != WAIT_OBJECT_0) return; /* wedged: leak, never free under it */
        CloseHandle(u->thread);
    }
    CloseHandle(u->ready);
    free(u);
}

pg_err win_watch_person(pg_platform *p, pg_person *person, const char *stop_key, pg_error *e) {
    ui_request r = {.person = person, .stop_key = stop_key, .e = e};
    return call(p, WIN_UI_WATCH, &r);
}

pg_err win_indicate(pg_platform *p, const pg_indicator *how, pg_error *e) {
    if (!how->window && !p->ui) return PG_OK; /* nothing shown: nothing to hide */
    ui_request r = {.how = how, .e = e};
    return call(p, WIN_UI_INDICATE, &r);
}

pg_err win_person_poll(pg_platform *p, const char *stop_key, uint32_t *watching, uint32_t *stop_presses,
                       uint32_t *tampers, uint32_t *human_events, uint32_t *idle_ms, pg_error *e) {
    *watching = *stop_presses = *tampers = *human_events = 0;
    *idle_ms = UINT32_MAX;
    if (!p->polled && !(p->polled = pg_person_new(NULL, NULL)))
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    if (strcmp(p->polled_key, stop_key ? stop_key : "") != 0 || !p->polled_key[0]) {
        pg_err rc = win_watch_person(p, p->polled, stop_key, e);
        if (rc) return rc;
        snprintf(p->polled_key, sizeof p->polled_key, "%s", stop_key);
    }
    pg_person_seen s;
    pg_person_read(p->polled, &s);
    *watching = s.watching;
    /* Counters wrap: the proxy takes differences modulo 2^32. */
    *stop_presses = (uint32_t)s.stop_presses;
    *tampers = (uint32_t)s.tampers;
    *human_events = (uint32_t)s.human_events;
    if (s.last_human_us) {
        int64_t ms = (pg_mono_us() - s.last_human_us) / 1000;
        *idle_ms = ms < 0 ? 0 : ms >= UINT32_MAX ? UINT32_MAX - 1 : (uint32_t)ms;
    }
    return PG_OK;
}

void pg_win_person_read_counts(pg_platform *p, pg_win_person_counts *out) {
    memset(out, 0, sizeof *out);
    win_ui *u = p ? p->ui : NULL;
    if (!u) return;
    out->watching = atomic_load(&hooked) == u;
    out->keys_injected = atomic_load(&u->keys_injected);
    out->keys_physical = atomic_load(&u->keys_physical);
    out->mouse_injected = atomic_load(&u->mouse_injected);
    out->mouse_physical = atomic_load(&u->mouse_physical);
    out->stops = atomic_load(&u->stops);
    out->last_vk = atomic_load(&u->last_vk);
    out->last_flags = atomic_load(&u->last_flags);
}

uint64_t pg_win_indicator_window(pg_platform *p, char *affinity, size_t cap) {
    win_ui *u = p ? p->ui : NULL;
    if (affinity && cap) snprintf(affinity, cap, "%s", u ? u->affinity : "");
    return u ? (uint64_t)(uintptr_t)u->ind : 0;
}
