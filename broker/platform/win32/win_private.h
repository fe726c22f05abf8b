/* SPDX-License-Identifier: MIT */
/* win_private.h - internals shared by the files of the Win32 backend.
 *
 * Contract: one pg_platform handle holds what open() learnt about the
 * process (how DPI awareness was set, which optional user32 entry points
 * exist); Win32 window and input state is global to the desktop, so the
 * handle owns no window or DC between calls. A handle is used by one thread
 * at a time (the broker serialises calls). Every wait is bounded
 * (WIN_FOCUS_TIMEOUT_MS, the caller's settle timeout); we never send a
 * message to another process's window without a timeout.
 * Never: prints, exits, decodes images, reads policy.
 */
#ifndef PG_WIN_PRIVATE_H
#define PG_WIN_PRIVATE_H

#include <windows.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_platform.h"
#include "pg_time.h"
#include "pg_win32.h"

/* How long focus() waits for the foreground to arrive in the target. */
#define WIN_FOCUS_TIMEOUT_MS 1500
/* How long a window may take to answer WM_NULL before we skip PrintWindow
 * (which would wait for it forever). */
#define WIN_PRINT_PROBE_MS 250
/* Upper bound on top-level windows enumerated; a longer list is reported
 * incomplete (list_all), never cut silently. */
#define WIN_MAX_WINDOWS 4096
/* The longest title read (UTF-16 units); longer ones are marked title_cut. */
#define WIN_MAX_TITLE 65536

/* Optional user32 entry points, resolved at open(): linking them directly
 * would stop the broker from loading on Windows versions that lack them. */
typedef BOOL(WINAPI *win_set_dpi_ctx_fn)(DPI_AWARENESS_CONTEXT);
typedef UINT(WINAPI *win_dpi_for_window_fn)(HWND);

typedef struct win_dxgi win_dxgi;
typedef struct win_ui win_ui;

struct pg_platform {
    char dpi_mode[64];                  /* how DPI awareness was obtained */
    bool per_monitor_v2;                /* the process is per-monitor aware v2 */
    win_dpi_for_window_fn dpi_for_window; /* NULL before Windows 10 1607 */
    char wine[32];                      /* Wine version, "" on Windows */
    char fallback[96];                  /* pg_win_capture_fallback() */
    char screen_fallback[96];           /* pg_win_screen_fallback() */
    win_dxgi *dxgi;                     /* Desktop Duplication state, NULL until used */
    win_ui *ui;                         /* win_person.c's thread: hooks, indicator; NULL until used */
    pg_person *polled;                  /* person_poll's own pg_person (in the session helper) */
    char polled_key[64];                /* the stop key it watches for */
};

/* ---- win_conn.c: helpers ---- */
/* UTF-16 -> UTF-8 into out (cap bytes), truncated on a code point boundary;
 * false when it had to be truncated (or could not be converted). */
bool win_to_utf8(const wchar_t *w, char *out, size_t cap);
/* "4660": how errors name a window, by the decimal id list_windows reports
 * (never its title or class: it may be another user's). */
void win_describe(HWND h, char *out, size_t cap);

/* ---- win_windows.c: enumeration and lookup ---- */
/* Whether h is a window list_windows reports: visible top-level, not a tool
 * window, not cloaked, not owned (unless WS_EX_APPWINDOW). */
bool win_is_app_window(HWND h);
/* id -> HWND, PG_E_NOTFOUND unless it is a window list_windows reports. */
pg_err win_resolve(uint64_t id, HWND *out, pg_error *e);
/* Client area in screen coordinates (physical pixels). */
pg_err win_client_rect(HWND h, RECT *out, pg_error *e);
/* Frame bounds: DWM extended frame bounds, else GetWindowRect. *source
 * names which. */
void win_frame_rect(HWND h, RECT *out, const char **source);
/* pg_platform_ops.window_frame: win_frame_rect against the client area. */
pg_err win_window_frame(pg_platform *p, uint64_t id, uint32_t *left, uint32_t *right, uint32_t *top,
                        uint32_t *bottom, pg_error *e);
pg_err win_selection_owner(pg_platform *p, const char *selection, uint64_t *window, uint32_t *pid, pg_error *e);
bool win_is_cloaked(HWND h);
/* A visible, uncloaked top-level window other than the desktop. */
bool win_shows_pixels(HWND h);
pg_err win_list_windows(pg_platform *p, pg_window **out, size_t *n, pg_error *e);
/* The application windows plus the owned, tool and popup windows
 * list_windows leaves out, with kinds and parents (pg_platform.h). */
pg_err win_list_all(pg_platform *p, pg_window **out, size_t *n, bool *complete, pg_error *e);
/* A visible top-level window's kind and, from its owner chain, the normal
 * application window it belongs to (0: none found). */
pg_window_kind win_kind_of(HWND h, uint64_t *parent);

/* ---- win_capture.c ---- */
pg_err win_capture_window(pg_platform *p, uint64_t id, const pg_rect *region, pg_capture *out,
                          pg_error *e);
pg_err win_capture_screen(pg_platform *p, const pg_rect *region, pg_capture *out, pg_error *e);
/* The top-level window above h (in z-order) that overlaps r, or NULL. */
HWND win_covering(HWND h, const RECT *r);

/* ---- win_dxgi.c: Desktop Duplication ---- */
/* Copy want (virtual-screen coordinates) into bgra (rows of stride bytes)
 * from the duplicators, creating them on first use (*d). false: not done,
 * why says why (left as it was while a retry is pending). */
bool win_dxgi_capture(win_dxgi **d, const RECT *want, uint8_t *bgra, size_t stride, char *why,
                      size_t cap);
void win_dxgi_free(win_dxgi *d);

/* ---- win_input.c ---- */
pg_err win_focus(pg_platform *p, uint64_t id, pg_error *e);
pg_err win_pointer_move(pg_platform *p, uint64_t id, int32_t x, int32_t y, pg_error *e);
pg_err win_monitors(pg_platform *p, pg_monitor **out, size_t *n, pg_error *e);
pg_err win_top_at(pg_platform *p, int32_t x, int32_t y, uint64_t *id, pg_error *e);
pg_err win_scroll(pg_platform *p, uint64_t id, int32_t x, int32_t y, int32_t dx, int32_t dy, pg_error *e);
pg_err win_drag(pg_platform *p, uint64_t id, const pg_point *path, size_t n, pg_button b, uint32_t hold_ms,
                uint32_t step_ms, pg_error *e);
pg_err win_click(pg_platform *p, uint64_t id, int32_t x, int32_t y, pg_button b, int count,
                 pg_error *e);
/* Make h the foreground window (restoring it if minimized); bounded. */
pg_err win_focus_hwnd(HWND h, pg_error *e);
/* One INPUT_KEYBOARD event. */
INPUT win_key_event(WORD vk, WORD scan, DWORD flags);
pg_err win_type_text(pg_platform *p, uint64_t id, const char *utf8, pg_error *e);
/* Send n events in one SendInput call; PG_E_POLICY if the system blocked
 * some (UIPI: the target runs at a higher integrity level). */
pg_err win_send(INPUT *in, UINT n, pg_error *e);
/* The integrity RID of the process that owns h (0: unknown). */
uint32_t win_window_integrity(HWND h);
/* pg_inject_send over SendInput: units of in (start[], as pg_inject.h) in
 * chunks of at most max_events, each sent only while h is the foreground
 * window at no higher integrity than `integrity`. */
pg_err win_send_checked(HWND h, uint32_t integrity, INPUT *in, const size_t *start, size_t n_units,
                        size_t max_events, pg_error *e);

/* ---- win_keys.c: chords ---- */
pg_err win_key(pg_platform *p, uint64_t id, const char *chord, pg_error *e);
pg_err win_key_check(pg_platform *p, const char *chord, pg_error *e);
/* One key of pg_hold down or up (win_hold's key half). */
pg_err win_hold_key(const pg_hold *h, pg_error *e);
/* ---- win_input.c: held buttons, the pointer ---- */
pg_err win_hold(pg_platform *p, const pg_hold *h, pg_error *e);
pg_err win_pointer_at(pg_platform *p, int32_t *x, int32_t *y, pg_error *e);

/* ---- win_person.c: the person's input and the indicator, on their own thread ---- */
pg_err win_watch_person(pg_platform *p, pg_person *person, const char *stop_key, pg_error *e);
pg_err win_indicate(pg_platform *p, const pg_indicator *how, pg_error *e);
/* watch_person into the handle's own pg_person, read back as counts. */
pg_err win_person_poll(pg_platform *p, const char *stop_key, uint32_t *watching, uint32_t *stop_presses,
                       uint32_t *tampers, uint32_t *human_events, uint32_t *idle_ms, pg_error *e);
/* close(): unhooks, destroys the indicator, ends and joins the thread. */
void win_ui_stop(pg_platform *p);
/* Is h this process's indicator window? Window lists and cover checks skip it. */
bool win_is_indicator(HWND h);

/* ---- win_settle.c ---- */
pg_err win_settle(pg_platform *p, uint64_t id, uint32_t quiet_ms, uint32_t timeout_ms,
                  pg_error *e);
/* pg_platform_ops.responding: IsHungAppWindow (no message handled for 5 s). */
pg_err win_responding(pg_platform *p, uint64_t id, uint32_t max_ms, pg_responding *out, pg_error *e);

#endif
