/* SPDX-License-Identifier: MIT */
/* win_conn.c - the Win32 backend's handle: open/close, DPI awareness,
 * capabilities, small helpers, and the ops table.
 *
 * Contract: open() makes the process per-monitor DPI aware (v2) when the
 * system offers it (SetProcessDpiAwarenessContext, resolved at run time),
 * else per-monitor v1 (shcore SetProcessDpiAwareness), else system aware
 * (SetProcessDPIAware), so every coordinate the backend reports or takes is
 * in physical pixels; "already set" (by a manifest or an earlier handle) is
 * accepted and the mode actually in force is reported by caps(). display
 * must be NULL or "" (there is one interactive desktop per session).
 * Never: prints, exits, or changes anything but the process DPI awareness.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwmapi.h>

#include "pg_person.h"
#include "pg_win_sid.h"
#include "win_private.h"

bool win_to_utf8(const wchar_t *w, char *out, size_t cap) {
    if (!cap) return false;
    out[0] = 0;
    int need = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
    if (need <= 0) return w[0] == 0;
    char *tmp = malloc((size_t)need);
    if (!tmp) return false;
    WideCharToMultiByte(CP_UTF8, 0, w, -1, tmp, need, NULL, NULL);
    size_t n = strlen(tmp);
    bool fit = n < cap;
    if (!fit) {
        n = cap - 1;
        while (n > 0 && ((unsigned char)tmp[n] & 0xc0) == 0x80) n--; /* never split a sequence */
    }
    memcpy(out, tmp, n);
    out[n] = 0;
    free(tmp);
    return fit;
}

void win_describe(HWND h, char *out, size_t cap) {
    /* The decimal id `windows` lists; never the title or class: the window
     * may be another user's, and those are private. */
    snprintf(out, cap, "%llu", (unsigned long long)(uintptr_t)h);
}

/* ---------------------------------------------------------------- DPI */

/* shcore's SetProcessDpiAwareness (Windows 8.1); declared here so we need
 * neither shellscalingapi.h nor an import of shcore.dll. */
typedef HRESULT(WINAPI *win_set_dpi_awareness_fn)(int);
#define WIN_PROCESS_PER_MONITOR_DPI_AWARE 2

static void set_dpi_awareness(pg_platform *p) {
    HMODULE user32 = GetModuleHandleW(L"user32.dll");
    FARPROC f = user32 ? GetProcAddress(user32, "SetProcessDpiAwarenessContext") : NULL;
    win_set_dpi_ctx_fn set_ctx;
    memcpy(&set_ctx, &f, sizeof f); /* FARPROC -> typed pointer without a cast warning */
    char why[40] = " (no v2 API)";
    if (set_ctx) {
        BOOL ok = set_ctx(DPI_AWARENESS_CONTEXT_PER_MONITOR_AWARE_V2);
        DWORD err = ok ? 0 : GetLastError();
        /* ERROR_ACCESS_DENIED: already set (manifest or earlier call): fine. */
        p->per_monitor_v2 = ok || err == ERROR_ACCESS_DENIED;
        if (p->per_monitor_v2) {
            snprintf(p->dpi_mode, sizeof p->dpi_mode, "%s", ok ? "per-monitor-v2" : "per-monitor-v2 (preset)");
            return;
        }
        snprintf(why, sizeof why, " (v2 refused: error %lu)", err); /* Wine 8: 87 */
    }
    HMODULE shcore = LoadLibraryW(L"shcore.dll");
    f = shcore ? GetProcAddress(shcore, "SetProcessDpiAwareness") : NULL;
    win_set_dpi_awareness_fn set_pm;
    memcpy(&set_pm, &f, sizeof f);
    if (set_pm) {
        HRESULT hr = set_pm(WIN_PROCESS_PER_MONITOR_DPI_AWARE);
        if (SUCCEEDED(hr) || hr == E_ACCESSDENIED) {
            snprintf(p->dpi_mode, sizeof p->dpi_mode, "per-monitor-v1%s", why);
            return; /* shcore stays loaded: the awareness does not depend on it */
        }
    }
    snprintf(p->dpi_mode, sizeof p->dpi_mode, "%s%s",
             SetProcessDPIAware() ? "system-aware" : "unaware", why);
}

/* Wine exports wine_get_version from ntdll; Windows does not. */
static void detect_wine(pg_platform *p) {
    typedef const char *(*version_fn)(void);
    HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
    FARPROC f = ntdll ? GetProcAddress(ntdll, "wine_get_version") : NULL;
    version_fn v;
    memcpy(&v, &f, sizeof f);
    p->wine[0] = 0;
    if (v) snprintf(p->wine, sizeof p->wine, "%s", v());
}

static pg_err win_open(pg_platform **out, const char *display, pg_error *e) {
    *out = NULL;
    if (display && display[0])
        return pg_error_set(e, PG_E_USAGE, "leave the display empty on Windows",
                            "win32 backend: display \"%s\" given; there is only the session's desktop",
                            display);
    pg_platform *p = calloc(1, sizeof *p);
    if (!p) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    set_dpi_awareness(p);
    HMODULE user32 = GetModuleHandleW(L"user32.dll");
    FARPROC f = user32 ? GetProcAddress(user32, "GetDpiForWindow") : NULL;
    memcpy(&p->dpi_for_window, &f, sizeof f);
    detect_wine(p);
    /* A service's hidden window station has no windows to see: say so now
     * rather than return empty lists later. */
    HDC dc = GetDC(NULL);
    if (!dc) {
        free(p);
        return pg_error_set(e, PG_E_UNREACHABLE, "run the broker's helper in the interactive session",
                            "no screen DC (error %lu): not on an interactive desktop?", GetLastError());
    }
    ReleaseDC(NULL, dc);
    *out = p;
    return PG_OK;
}

static void win_close(pg_platform *p) {
    if (!p) return;
    win_ui_stop(p);
    pg_person_free(p->polled); /* after the thread that reported into it */
    win_dxgi_free(p->dxgi);
    free(p);
}

/* ---------------------------------------------------------------- caps */

static unsigned system_dpi(void) {
    HDC dc = GetDC(NULL);
    unsigned dpi = dc ? (unsigned)GetDeviceCaps(dc, LOGPIXELSX) : 96u;
    if (dc) ReleaseDC(NULL, dc);
    return dpi;
}

static bool dwm_composition(void) {
    BOOL on = FALSE;
    return SUCCEEDED(DwmIsCompositionEnabled(&on)) && on;
}

static pg_err win_caps(pg_platform *p, pg_caps *out, pg_error *e) {
    memset(out, 0, sizeof *out);
    if (!p) return pg_error_set(e, PG_E_INTERNAL, NULL, "win32 backend: no handle");
    bool dwm = dwm_composition();
    out->list_windows = true;
    out->capture_window = true;
    /* PrintWindow renders covered windows on Windows, but whether it does
     * for a given window is only known per capture (Wine: never, black);
     * a covered window whose PrintWindow is black is refused, so we do not
     * promise covered capture. */
    out->capture_covered = false;
    out->capture_screen = true;
    out->input_pointer = true;
    out->input_keys = true;
    out->input_text_unicode = true;
    out->settle = true; /* by comparing captures: Windows has no DAMAGE */
    /* The shell's window manager is the DWM; without composition (Wine) no
     * one decorates or stacks windows for us. */
    out->window_manager = dwm;
    snprintf(out->backend, sizeof out->backend, "win32");
    /* Whose token the last SendInput ran with (pg_win_set_input_token). */
    char sid[PG_WIN_SID_STR_MAX], who[PG_WIN_SID_STR_MAX + 48] = "";
    int level;
    pg_win_input_identity(sid, sizeof sid, &level);
    if (sid[0] && level >= 0) snprintf(who, sizeof who, "; last input sent as %s (impersonating, level %d)", sid, level);
    else if (sid[0]) snprintf(who, sizeof who, "; last input sent as %s (the process token)", sid);
    snprintf(out->detail, sizeof out->detail,
             "dpi: %s, system %u; virtual screen %dx%d at %d,%d; dwm: %s; screen capture: dxgi "
             "duplication, else bitblt; window capture: printwindow, bitblt if black%s%s%s",
             p->dpi_mode, system_dpi(),
             GetSystemMetrics(SM_CXVIRTUALSCREEN), GetSystemMetrics(SM_CYVIRTUALSCREEN),
             GetSystemMetrics(SM_XVIRTUALSCREEN), GetSystemMetrics(SM_YVIRTUALSCREEN),
             dwm ? "composition on" : "off", p->wine[0] ? "; wine " : "", p->wine, who);
    return PG_OK;
}

/* --------------------------------------------------------- win32 extras */

pg_err pg_win_window_info(pg_platform *p, uint64_t id, pg_win_info *out, pg_error *e) {
    memset(out, 0, sizeof *out);
    HWND h;
    pg_err rc = win_resolve(id, &h, e);
    if (rc != PG_OK) return rc;
    RECT r;
    const char *src;
    win_frame_rect(h, &r, &src);
    out->frame = (pg_rect){r.left, r.top, (uint32_t)(r.right - r.left), (uint32_t)(r.bottom - r.top)};
    snprintf(out->frame_source, sizeof out->frame_source, "%s", src);
    out->dpi = p->dpi_for_window ? p->dpi_for_window(h) : 0;
    if (!out->dpi) out->dpi = system_dpi(); /* before Windows 10 1607 */
    out->minimized = IsIconic(h);
    out->cloaked = win_is_cloaked(h);
    DWORD aff = 0;
    if (GetWindowDisplayAffinity(h, &aff)) out->affinity = aff;
    return PG_OK;
}

const char *pg_win_capture_fallback(const pg_platform *p) { return p ? p->fallback : ""; }

const char *pg_win_screen_fallback(const pg_platform *p) { return p ? p->screen_fallback : ""; }

static const pg_platform_ops win_ops = {
    .name = "win32",
    .open = win_open,
    .close = win_close,
    .caps = win_caps,
    .list_windows = win_list_windows,
    .list_all = win_list_all,
    .window_frame = win_window_frame,
    .selection_owner = win_selection_owner,
    .capture_window = win_capture_window,
    .capture_screen = win_capture_screen,
    .focus = win_focus,
    .pointer_move = win_pointer_move,
    .scroll = win_scroll,
    .drag = win_drag,
    .top_at = win_top_at,
    .hold = win_hold,
    .key_check = win_key_check,
    .pointer_at = win_pointer_at,
    .monitors = win_monitors,
    .click = win_click,
    .key = win_key,
    .type_text = win_type_text,
    .settle = win_settle,
    .responding = win_responding,
    .watch_person = win_watch_person,
    .indicate = win_indicate,
    .person_poll = win_person_poll,
};

const pg_platform_ops *pg_platform_default(void) { return &win_ops; }
