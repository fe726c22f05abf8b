/* SPDX-License-Identifier: MIT */
/* pg_win32.h - what the Win32 backend knows beyond pg_platform.h.
 *
 * Contract: extras for callers that know they run on the Win32 backend (the
 * Windows broker, tests): a window's frame bounds and where they came from,
 * its DPI (scale = dpi / 96), minimized/cloaked state and display affinity,
 * and why the last capture fell back from PrintWindow or DXGI to BitBlt. All ids are the HWNDs
 * list_windows reports. pg_platform.h's contract holds for everything else.
 * Never: changes state; the strings returned live as long as the handle.
 */
#ifndef PG_WIN32_H
#define PG_WIN32_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_platform.h"

typedef struct {
    pg_rect frame;          /* outer bounds in screen coordinates (physical pixels) */
    char frame_source[16];  /* "dwm" (extended frame bounds) or "windowrect" */
    uint32_t dpi;           /* the window's DPI; scale = dpi / 96.0 */
    bool minimized;
    bool cloaked;           /* DWM cloaked (other virtual desktop, UWP); false if unknown */
    uint32_t affinity;      /* GetWindowDisplayAffinity: 0 = WDA_NONE */
} pg_win_info;

/* PG_E_NOTFOUND unless id is a window list_windows reports. */
pg_err pg_win_window_info(pg_platform *p, uint64_t id, pg_win_info *out, pg_error *e);

/* Why the last successful capture_window did not use PrintWindow: "" when
 * it did; e.g. "printwindow returned an all-black image" when the black
 * result was detected and BitBlt ran instead. */
const char *pg_win_capture_fallback(const pg_platform *p);

/* Why the last successful capture_screen used BitBlt rather than DXGI
 * Desktop Duplication ("" when it used DXGI), e.g. under Wine
 * "dxgi duplication unavailable (0x80004001 E_NOTIMPL)". */
const char *pg_win_screen_fallback(const pg_platform *p);

/* What the low-level hooks of watch_person saw (tests, diagnostics): events
 * ignored as injected and taken as the person's, stop presses, and the last
 * keyboard event's virtual key and KBDLLHOOKSTRUCT flags. All 0 before
 * watch_person. */
typedef struct {
    bool watching;               /* this handle's hooks are installed */
    uint64_t keys_injected, keys_physical;
    uint64_t mouse_injected, mouse_physical;
    uint64_t stops;
    uint32_t last_vk, last_flags;
} pg_win_person_counts;
void pg_win_person_read_counts(pg_platform *p, pg_win_person_counts *out);

/* Input as the session's user: from here on every SendInput of this process
 * runs on a thread impersonating token (a token of the interactive user,
 * e.g. WTSQueryUserToken's; duplicated, the caller keeps its own), so the
 * injecting thread's token is the user's, not the process's; NULL: the
 * process's own again. Process-wide (the session helper has one backend);
 * set it before input starts. A thread that cannot take the token sends
 * nothing. */
pg_err pg_win_set_input_token(void *token, pg_error *e);
/* Who the last SendInput ran as: the thread's token's user SID
 * ("S-1-5-21-..."; "" before any input) and its impersonation level
 * (SECURITY_IMPERSONATION_LEVEL: 1 identification, 2 impersonation; -1: no
 * thread token, the process's own). */
void pg_win_input_identity(char *sid, size_t cap, int *level);

/* The indicator window (an HWND; 0 before indicate showed one) and what
 * SetWindowDisplayAffinity(WDA_EXCLUDEFROMCAPTURE) answered for it. */
uint64_t pg_win_indicator_window(pg_platform *p, char *affinity, size_t cap);

#endif
