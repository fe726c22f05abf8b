/* SPDX-License-Identifier: MIT */
/* pg_platform.h - the one interface every platform backend implements.
 *
 * Contract: a backend is a table of functions (pg_platform_ops) over an opaque
 * handle. The functions, the primitives, are declared once in pg_platform.def
 * (their parameters, which backends have them, what caps() promises of them);
 * the struct below is generated from it, and tests/unit/test_platform_decl.c
 * fails when a backend's table or caps() disagrees (pg_platform_decl.h). It enumerates top-level windows, captures pixels (window, region,
 * screen) into a malloc'd RGBA8 buffer, and injects input. Coordinates given to
 * input functions are relative to the window's content origin (0,0 = the
 * window's top-left inside any frame). Every result says which method ran
 * (e.g. "composite+shm", "shm", "getimage") - no silent fallbacks.
 * An operation the backend cannot do returns PG_E_UNSUPPORTED; it never hangs:
 * every wait is bounded.
 * Never: decodes or encodes images, calls the engine, reads policy, or takes
 * identity from anywhere but the OS.
 * Threading: a handle is NOT thread-safe; the broker serialises calls on it.
 */
#ifndef PG_PLATFORM_H
#define PG_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"
#include "pg_geom.h"

/* What a window is to the user. Only normal windows and dialogs are targets;
 * popups are listed (list_all) so that whatever an application shows is
 * attributed to it. */
typedef enum {
    PG_WINDOW_NORMAL = 0, /* a top-level application window */
    PG_WINDOW_DIALOG,     /* transient for another window (X: WM_TRANSIENT_FOR; Win32: owned, with a caption) */
    PG_WINDOW_POPUP,      /* menus, tooltips, dropdowns (X: override-redirect; Win32: owned or WS_POPUP
                             without a caption, tool windows) */
} pg_window_kind;

typedef struct {
    uint64_t id;            /* X window id / HWND */
    char title[512];        /* UTF-8, the whole title when it fits */
    bool title_cut;         /* the title was longer than title[] holds: it matches every deny rule */
    pg_window_kind kind;
    uint64_t parent;        /* the normal window (an id this list reports) a dialog or popup belongs to:
                               X: WM_TRANSIENT_FOR, else the one toplevel of the same X client
                               (X-Resource); Win32: the root owner, else the one application window of
                               the same process. 0: none, or not known for sure */
    pg_rect frame;          /* outer bounds on screen: the content plus the WM frame, title bar and
                               border (X: the toplevel child of root; Win32: DWM frame bounds) */
    char class_name[256];   /* WM_CLASS class (X) / window class (Win32) */
    char instance[256];     /* WM_CLASS instance (X); empty on Win32 */
    int64_t pid;            /* owning process, -1 if unknown (X: via X-Resource) */
    int32_t x, y;           /* content origin in root/screen coordinates */
    uint32_t width, height; /* content size */
    bool visible;           /* mapped / IsWindowVisible */
    bool focused;           /* has input focus / is foreground */
    bool minimized;         /* Win32: IsIconic (listed, with visible false); X11: false */
    uint32_t dpi;           /* Win32: GetDpiForWindow (96 = 100 %); 0 = not known (X11:
                               coordinates are physical pixels, no per-window scale) */
    bool shared;            /* a surface of the desktop itself, everyone's to see: X: EWMH
                               _NET_WM_WINDOW_TYPE_DESKTOP or _DOCK (the background, panels);
                               Win32: false */
} pg_window;

/* Captured pixels: RGBA8, row-major, alpha 255. Owned by the caller: free(rgba). */
typedef struct {
    uint8_t *rgba;
    uint32_t width, height;
    size_t stride;       /* bytes per row, >= width*4 */
    int32_t origin_x;    /* screen coordinates of pixel (0,0): every blackout and every */
    int32_t origin_y;    /* mapping back to the screen starts from these, never from the request */
    char method[32];     /* which path produced it: "composite+shm", "composite+getimage", "shm", "getimage" */
    bool has_sha256;     /* sha256 holds the SHA-256 of the rows (width*4 bytes each) as they are now, */
    uint8_t sha256[32];  /* computed on the way by the backend; whoever changes a pixel clears has_sha256 */
} pg_capture;

typedef enum { PG_BTN_LEFT = 1, PG_BTN_MIDDLE = 2, PG_BTN_RIGHT = 3 } pg_button;

#define PG_SCROLL_MAX 100      /* notches in one scroll call, per axis */
#define PG_DRAG_MAX_POINTS 201 /* the press, up to 199 steps, the release */
#define PG_DRAG_MAX_MS 10000   /* a drag's hold plus its steps' waits */

/* 2 <= n <= PG_DRAG_MAX_POINTS and hold_ms + (n - 2) * step_ms <= PG_DRAG_MAX_MS. */
static inline bool pg_drag_shape_ok(size_t n, uint32_t hold_ms, uint32_t step_ms) {
    return n >= 2 && n <= PG_DRAG_MAX_POINTS && (uint64_t)hold_ms + (uint64_t)(n - 2) * step_ms <= PG_DRAG_MAX_MS;
}

/* One key or button pressed or released and left so: held input
 * (key-down, mouse-down), which the broker releases when the connection
 * that holds it ends. */
typedef struct {
    uint64_t id;      /* the target window: a press focuses it (a key) or is aimed in it (a button);
                         0 only on a release, which goes out whatever is where */
    bool down;        /* press (true) or release */
    bool is_key;
    char key[64];     /* is_key: one key, as the last part of a chord ("shift", "a", "Down");
                         the modifiers by their chord names only (ctrl, shift, alt, super) */
    pg_button button; /* !is_key */
    bool at;          /* !is_key: move to window-relative (x,y) first, checked like a click */
    int32_t x, y;
} pg_hold;

#define PG_HOLD_MAX_MS 10000 /* key --hold: the longest one call holds */

/* Does a window's program handle its events? */
typedef enum {
    PG_RESPONDING_UNKNOWN = 0, /* cannot be asked: no window manager */
    PG_RESPONDING_YES,         /* it answered */
    PG_RESPONDING_NO,          /* it promised to answer (X11: _NET_WM_PING in WM_PROTOCOLS) and did not
                                  within the time given: frozen or hung */
    PG_RESPONDING_SILENT       /* asked, no answer, but it never promised one (many toolkits answer
                                  anyway, some never do): the broker decides from earlier answers */
} pg_responding;

typedef struct {
    bool list_windows;
    bool capture_window;
    bool capture_covered;  /* a covered window still captures its own pixels */
    bool capture_screen;
    bool input_pointer;
    bool input_keys;
    bool input_text_unicode;
    bool settle;           /* can wait for repaint quiet */
    bool window_manager;   /* a WM is running */
    char backend[32];      /* "x11", "win32" */
    char detail[512];      /* free text: extensions found, WM name, screen size */
} pg_caps;

/* A monitor: its name, where it is on the (virtual) screen, whether it is
 * the primary one. */
typedef struct {
    char name[64];
    pg_rect r;
    bool primary;
} pg_monitor;

typedef struct pg_platform pg_platform;
typedef struct pg_person pg_person; /* pg_person.h */

/* The sign that an agent drives (indicate). */
typedef enum { PG_INDICATOR_RING = 0, PG_INDICATOR_BANNER } pg_indicator_mode;
typedef struct {
    uint64_t window;        /* the driven window; 0: hide the sign */
    pg_indicator_mode mode;
    char user[64];          /* who drives, as the sign names them */
} pg_indicator;

/* --if-unchanged (guard_begin): what the target looked like. */
typedef struct {
    uint64_t window;        /* the target window: it must be the one on top at point */
    pg_point point;         /* the input's target, screen coordinates */
    pg_rect rect;           /* the region checked, screen coordinates */
    const uint8_t *ref;     /* rect.w x rect.h RGBA8, tightly packed: the token's pixels there */
    double tolerance;       /* largest mean absolute difference per channel, 0..255 */
    double difference;      /* out: the mean absolute difference measured (when compared) */
} pg_guard;

/* ---- the primitives: declared once in pg_platform.def ---- */

/* Which backends fill a primitive in (pg_platform.def's BACKENDS column). */
#define PG_BK_X11 0x1u
#define PG_BK_WIN32 0x2u
#define PG_BK_FAKE 0x4u   /* fake/pg_fake.h, the unit tests' desktop */
#define PG_BK_HELPER 0x8u /* broker/platform/helper/pg_helper.h: the proxy to a session helper (both OSes) */
#define PG_BK_WLR 0x10u   /* broker/platform/wayland/pg_wlr.h: wlroots (sway), in the Linux session helper */
#define PG_BK_ALL (PG_BK_X11 | PG_BK_WIN32 | PG_BK_FAKE | PG_BK_HELPER | PG_BK_WLR)

/* The C type of each parameter KIND in pg_platform.def. */
#define PG_T_SELF pg_platform *
#define PG_T_NEW pg_platform **
#define PG_T_DISPLAY const char *
#define PG_T_ERR pg_error *
#define PG_T_ID uint64_t
#define PG_T_I32 int32_t
#define PG_T_U32 uint32_t
#define PG_T_WAIT_MS uint32_t /* a wait the callee may take whole: the helper's call gets it on top */
#define PG_T_PING_MS uint32_t /* the same, at most 60 s */
#define PG_T_BUTTON pg_button
#define PG_T_COUNT int
#define PG_T_TEXT const char *
#define PG_T_REGION const pg_rect *
#define PG_T_PATH const pg_point *
#define PG_T_NPOINTS size_t
#define PG_T_HOLD const pg_hold *
#define PG_T_WHY char *
#define PG_T_WHY_LEN size_t
#define PG_T_CAPS pg_caps *
#define PG_T_WINDOWS pg_window **
#define PG_T_NWINDOWS size_t *
#define PG_T_COMPLETE bool *
#define PG_T_WINDOW pg_window *
#define PG_T_CAPTURE pg_capture *
#define PG_T_MONITORS pg_monitor **
#define PG_T_NMONITORS size_t *
#define PG_T_OUT_ID uint64_t *
#define PG_T_OUT_I32 int32_t *
#define PG_T_OUT_U32 uint32_t *
#define PG_T_RESPONDING pg_responding *
#define PG_T_PERSON pg_person *
#define PG_T_INDICATOR const pg_indicator *
#define PG_T_GUARD pg_guard *

/* PG_PARAMS(name): a primitive's parameter list, "pg_platform *p, uint64_t id, ...". */
#define PG_PARAM_DECL_(kind, pname) , PG_T_##kind pname
#define PG_TAIL_(first, ...) __VA_ARGS__
#define PG_TAIL(...) PG_TAIL_(__VA_ARGS__)
#define PG_PARAMS(name) PG_TAIL(PG_ARGS_##name(PG_PARAM_DECL_))

/* A backend: a name and one function per primitive, NULL where
 * pg_platform.def says the backend does not have it. What each one does, its
 * arguments and its errors are written above its lines in pg_platform.def. */
typedef struct {
    const char *name;
#define PG_PRIM(name, ret, ...) ret (*name)(PG_PARAMS(name));
#include "pg_platform.def"
#undef PG_PRIM
} pg_platform_ops;

/* The backend compiled in for this build (X11 on Linux, Win32 on Windows). */
const pg_platform_ops *pg_platform_default(void);

#endif
