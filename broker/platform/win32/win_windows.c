/* SPDX-License-Identifier: MIT */
/* win_windows.c - top-level window enumeration and id lookup.
 *
 * Contract: list_windows reports what a user would call application
 * windows: visible top-level windows that are not tool windows, not DWM
 * cloaked (where DWM answers; Wine's returns E_NOTIMPL, so nothing counts as
 * cloaked there) and not owned popups (unless WS_EX_APPWINDOW). Titles are
 * UTF-8, x/y/width/height are the client area in screen coordinates
 * (physical pixels: the process is per-monitor DPI aware), visible means
 * shown and not minimized (a minimized window is listed, with visible
 * false), focused means foreground. Lookup accepts exactly the windows the list would report, so
 * a child, the desktop or a vanished HWND is PG_E_NOTFOUND alike.
 * list_all adds every other visible, uncloaked top-level window: owned
 * windows (a dialog when they have a caption, else a popup) attributed to
 * the normal window at the end of their owner chain, and unowned tool and
 * popup windows (menus, tooltips) attributed to the one normal window of
 * their process. Titles are read whole (GetWindowTextLengthW, then
 * InternalGetWindowText); one that does not fit pg_window.title is marked
 * title_cut. More than WIN_MAX_WINDOWS windows: the list says incomplete.
 * Never: sends a message to a window (a hung application cannot block us).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwmapi.h>

#include "win_private.h"

bool win_is_cloaked(HWND h) {
    DWORD cloaked = 0;
    return SUCCEEDED(DwmGetWindowAttribute(h, DWMWA_CLOAKED, &cloaked, sizeof cloaked)) && cloaked;
}

bool win_is_app_window(HWND h) {
    if (!h || !IsWindow(h) || !IsWindowVisible(h)) return false;
    if (GetAncestor(h, GA_ROOT) != h || h == GetDesktopWindow() || win_is_indicator(h)) return false;
    LONG_PTR ex = GetWindowLongPtrW(h, GWL_EXSTYLE);
    if (ex & WS_EX_TOOLWINDOW) return false;
    if (GetWindow(h, GW_OWNER) && !(ex & WS_EX_APPWINDOW)) return false;
    return !win_is_cloaked(h);
}

pg_err win_resolve(uint64_t id, HWND *out, pg_error *e) {
    HWND h = (HWND)(uintptr_t)id;
    *out = NULL;
    if (id == 0 || (uint64_t)(uintptr_t)h != id || !win_is_app_window(h))
        return pg_error_set(e, PG_E_NOTFOUND, "list the windows again: it may have closed",
                            "no application window %llu", (unsigned long long)id);
    *out = h;
    return PG_OK;
}

pg_err win_client_rect(HWND h, RECT *out, pg_error *e) {
    RECT c;
    POINT o = {0, 0};
    if (!GetClientRect(h, &c) || !ClientToScreen(h, &o))
        return pg_error_set(e, PG_E_NOTFOUND, "list the windows again: it may have closed",
                            "window %llu vanished (error %lu)", (unsigned long long)(uintptr_t)h,
                            GetLastError());
    *out = (RECT){o.x, o.y, o.x + c.right, o.y + c.bottom};
    return PG_OK;
}

void win_frame_rect(HWND h, RECT *out, const char **source) {
    /* GetWindowRect includes the invisible resize borders on Windows 10+;
     * the DWM's extended frame bounds are what the user sees. */
    if (SUCCEEDED(DwmGetWindowAttribute(h, DWMWA_EXTENDED_FRAME_BOUNDS, out, sizeof *out))) {
        *source = "dwm";
        return;
    }
    *source = "windowrect";
    if (!GetWindowRect(h, out)) *out = (RECT){0, 0, 0, 0};
}

bool win_shows_pixels(HWND h) {
    /* The indicator shows pixels but belongs to no application, and stays
     * out of captures where the system allows (win_person.c). */
    return h && IsWindow(h) && IsWindowVisible(h) && GetAncestor(h, GA_ROOT) == h && h != GetDesktopWindow() &&
           !win_is_indicator(h) && !win_is_cloaked(h);
}

/* A normal window: an application window nobody owns. */
static bool is_normal(HWND h) { return win_is_app_window(h) && !GetWindow(h, GW_OWNER); }

pg_window_kind win_kind_of(HWND h, uint64_t *parent) {
    *parent = 0;
    if (is_normal(h)) return PG_WINDOW_NORMAL;
    LONG_PTR st = GetWindowLongPtrW(h, GWL_STYLE);
    HWND o = GetWindow(h, GW_OWNER);
    for (int hop = 0; o && hop < 16; hop++, o = GetWindow(o, GW_OWNER)) /* dialogs of dialogs */
        if (is_normal(o)) {
            *parent = (uint64_t)(uintptr_t)o;
            break;
        }
    /* A caption makes an owned window a dialog (message boxes, property sheets);
     * without one it is a menu, a tooltip, a dropdown, a splash. */
    return (st & WS_CAPTION) == WS_CAPTION ? PG_WINDOW_DIALOG : PG_WINDOW_POPUP;
}

typedef struct {
    HWND *h;
    size_t n, cap;
    bool all; /* every top-level window that shows pixels, not only application windows */
    bool cut; /* stopped at WIN_MAX_WINDOWS (or out of memory) */
} hwnd_list;

static BOOL CALLBACK collect(HWND h, LPARAM lp) {
    hwnd_list *l = (hwnd_list *)lp;
    if (!(l->all ? win_shows_pixels(h) : win_is_app_window(h))) return TRUE;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        HWND *g = cap <= WIN_MAX_WINDOWS ? realloc(l->h, cap * sizeof *g) : NULL;
        if (!g) {
            l->cut = true;
            return FALSE;
        }
        l->h = g, l->cap = cap;
    }
    l->h[l->n++] = h;
    return TRUE;
}

/* The whole title: GetWindowTextLengthW says how long it is (for another
 * process's window it reads the stored text, no message is sent), one unit
 * more shows a title that grew meanwhile. Cut when it does not fit
 * pg_window.title, is longer than WIN_MAX_TITLE, or changed while read. */
static void read_title(HWND h, pg_window *w) {
    int len = GetWindowTextLengthW(h);
    size_t cap = (size_t)(len > 0 ? len : 0) + 2;
    if (cap > WIN_MAX_TITLE + 1) cap = WIN_MAX_TITLE + 1;
    wchar_t *buf = malloc(cap * sizeof *buf);
    if (!buf) {
        w->title_cut = true; /* unread: it matches every deny rule */
        return;
    }
    buf[0] = 0;
    int got = InternalGetWindowText(h, buf, (int)cap); /* GetWindowTextW's text, without WM_GETTEXT */
    bool full = got >= (int)cap - 1;
    w->title_cut = !win_to_utf8(buf, w->title, sizeof w->title) || full;
    free(buf);
}

static void describe_window(const pg_platform *p, HWND h, HWND fg, pg_window *w) {
    memset(w, 0, sizeof *w);
    w->id = (uint64_t)(uintptr_t)h;
    read_title(h, w);
    wchar_t buf[256];
    buf[0] = 0;
    GetClassNameW(h, buf, 256);
    win_to_utf8(buf, w->class_name, sizeof w->class_name);
    DWORD pid = 0;
    w->pid = GetWindowThreadProcessId(h, &pid) ? (int64_t)pid : -1;
    RECT c;
    if (win_client_rect(h, &c, NULL) == PG_OK) {
        w->x = c.left, w->y = c.top;
        w->width = (uint32_t)(c.right - c.left), w->height = (uint32_t)(c.bottom - c.top);
    }
    RECT f;
    const char *src;
    win_frame_rect(h, &f, &src);
    w->frame = f.right > f.left && f.bottom > f.top
                   ? (pg_rect){f.left, f.top, (uint32_t)(f.right - f.left), (uint32_t)(f.bottom - f.top)}
                   : (pg_rect){w->x, w->y, w->width, w->height};
    w->minimized = IsIconic(h) != 0;
    w->visible = IsWindowVisible(h) && !w->minimized;
    w->focused = h == fg;
    w->kind = win_kind_of(h, &w->parent);
    /* Coordinates are physical pixels (per-monitor aware); the scale tells the
     * agent how the app itself sizes things on mixed-DPI machines. */
    w->dpi = p->dpi_for_window ? p->dpi_for_window(h) : 0;
}

/* A dialog or popup its owner chain did not attribute (menus and tooltips
 * often have no owner) belongs to the one normal window of its process;
 * two such windows are no answer (parent stays 0). */
static void attribute_by_process(pg_window *w, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (w[i].kind == PG_WINDOW_NORMAL || w[i].parent || w[i].pid < 0) continue;
        uint64_t only = 0;
        bool several = false;
        for (size_t j = 0; j < n && !several; j++)
            if (w[j].kind == PG_WINDOW_NORMAL && w[j].pid == w[i].pid) several = only != 0, only = w[j].id;
        if (!several) w[i].parent = only;
    }
}

static pg_err list(pg_platform *p, bool all, pg_window **out, size_t *n, bool *complete, pg_error *e) {
    *out = NULL;
    *n = 0;
    *complete = false;
    if (!p) return pg_error_set(e, PG_E_INTERNAL, NULL, "win32 backend: no handle");
    hwnd_list l = {.all = all};
    /* EnumWindows is z-ordered, top first; FALSE from us means we stopped. */
    EnumWindows(collect, (LPARAM)&l);
    pg_window *w = calloc(l.n ? l.n : 1, sizeof *w);
    if (!w) {
        free(l.h);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory listing %zu windows", l.n);
    }
    HWND fg = GetForegroundWindow();
    size_t k = 0;
    for (size_t i = 0; i < l.n; i++)
        if (IsWindow(l.h[i])) describe_window(p, l.h[i], fg, &w[k++]); /* may close meanwhile */
    free(l.h);
    if (all) attribute_by_process(w, k);
    *out = w;
    *n = k;
    *complete = !l.cut;
    return PG_OK;
}

pg_err win_list_windows(pg_platform *p, pg_window **out, size_t *n, pg_error *e) {
    bool complete;
    return list(p, false, out, n, &complete, e);
}

pg_err win_list_all(pg_platform *p, pg_window **out, size_t *n, bool *complete, pg_error *e) {
    return list(p, true, out, n, complete, e);
}

/* How far a outer edge lies beyond the inner one, 0 when it does not (a
 * frame bounds call that failed, or a window without decorations). */
static uint32_t beyond(LONG outer, LONG inner) { return outer > inner ? (uint32_t)(outer - inner) : 0; }

/* The frame as the user sees it: the DWM's extended frame bounds (without
 * the invisible resize borders GetWindowRect includes), else the window
 * rect, each side against the client area in screen coordinates. */
pg_err win_window_frame(pg_platform *p, uint64_t id, uint32_t *left, uint32_t *right, uint32_t *top,
                        uint32_t *bottom, pg_error *e) {
    (void)p;
    *left = *right = *top = *bottom = 0;
    HWND h;
    RECT c, f;
    const char *source;
    pg_err rc = win_resolve(id, &h, e);
    if (!rc) rc = win_client_rect(h, &c, e);
    if (rc) return rc;
    win_frame_rect(h, &f, &source);
    *left = beyond(c.left, f.left), *top = beyond(c.top, f.top);
    *right = beyond(f.right, c.right), *bottom = beyond(f.bottom, c.bottom);
    return PG_OK;
}

/* The clipboard's owner window and its process; Windows has no PRIMARY
 * selection, so nobody owns it. */
pg_err win_selection_owner(pg_platform *p, const char *selection, uint64_t *window, uint32_t *pid, pg_error *e) {
    (void)p;
    *window = 0, *pid = 0;
    if (!strcmp(selection, "PRIMARY")) return PG_OK;
    if (strcmp(selection, "CLIPBOARD"))
        return pg_error_set(e, PG_E_BADINPUT, NULL, "no selection \"%.32s\" (CLIPBOARD or PRIMARY)", selection);
    HWND h = GetClipboardOwner();
    if (!h) return PG_OK;
    DWORD owner = 0;
    GetWindowThreadProcessId(h, &owner);
    *window = (uint64_t)(uintptr_t)h;
    *pid = owner;
    return PG_OK;
}
