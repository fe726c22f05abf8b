/* pg_platform.h - the one interface every platform backend implements.
 *
 * Contract: a backend is a table of functions (pg_platform_ops) over an opaque
 * handle. It enumerates top-level windows, captures pixels (window, region,
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

typedef struct {
    const char *name;
    /* display: backend-specific (X display name, NULL = $DISPLAY). */
    pg_err (*open)(pg_platform **out, const char *display, pg_error *e);
    void (*close)(pg_platform *p);
    pg_err (*caps)(pg_platform *p, pg_caps *out, pg_error *e);
    /* *out is malloc'd array of *n windows; caller frees. Only top-level,
     * application windows (not WM frames): normal windows and dialogs, the
     * windows input and capture may target. */
    pg_err (*list_windows)(pg_platform *p, pg_window **out, size_t *n, pg_error *e);
    /* Everything that shows pixels on the screen and belongs to an
     * application: what list_windows reports plus popups, dialogs and
     * owned windows it leaves out, each with its kind and parent. Used to
     * black out all of a denied application. *complete is false when the
     * backend stopped at its limit (windows were left out): a caller that
     * must see every window (screen redaction) then refuses. */
    pg_err (*list_all)(pg_platform *p, pg_window **out, size_t *n, bool *complete, pg_error *e);
    /* One window as list_windows would describe it now, read without listing
     * the others (a few round trips instead of a listing's many), for the
     * look after the pixels of a window the caller resolved moments ago:
     * it does not decide again that id is an application window, and parent
     * is 0 (whose a dialog is takes the whole list: a caller that gets kind
     * != PG_WINDOW_NORMAL lists). PG_E_NOTFOUND when the window is gone.
     * Optional: NULL means list. */
    pg_err (*describe_window)(pg_platform *p, uint64_t id, pg_window *out, pg_error *e);
    /* region NULL = whole window; region is window-relative and is clipped;
     * an empty intersection is PG_E_BADINPUT. Unknown/vanished id: PG_E_NOTFOUND.
     * Only the window's own pixels: a backend that would copy the screen
     * where another window covers it refuses (PG_E_POLICY, the cover named
     * by decimal id). */
    pg_err (*capture_window)(pg_platform *p, uint64_t id, const pg_rect *region, pg_capture *out,
                             pg_error *e);
    /* region NULL = whole screen; region in screen coordinates, clipped to the
     * screen (Windows: the virtual screen, whose origin may be negative);
     * out->origin_x/y say where the clipped capture starts. */
    pg_err (*capture_screen)(pg_platform *p, const pg_rect *region, pg_capture *out, pg_error *e);
    pg_err (*focus)(pg_platform *p, uint64_t id, pg_error *e);
    /* Move the pointer to window-relative (x,y) (hover). Checked like a
     * click: inside the window, and not covered (the hover would reach the
     * cover). */
    pg_err (*pointer_move)(pg_platform *p, uint64_t id, int32_t x, int32_t y, pg_error *e);
    /* Click at window-relative (x,y). A point outside the window is
     * PG_E_BADINPUT. When another top-level window is on top at that point the
     * click is refused with PG_E_POLICY and the message names the covering
     * window by its decimal id (a click lands on whatever is on top; never by
     * title: it may be another user's). count: 1, 2 = double, 3 = triple. */
    pg_err (*click)(pg_platform *p, uint64_t id, int32_t x, int32_t y, pg_button b, int count,
                    pg_error *e);
    /* Scroll at window-relative (x,y), checked like a click: dy notches down
     * (> 0) or up (< 0), dx right (> 0) or left (< 0); |dx|, |dy| <= PG_SCROLL_MAX.
     * The pointer moves to the point first (X11 and Windows scroll what is
     * under the pointer). */
    pg_err (*scroll)(pg_platform *p, uint64_t id, int32_t x, int32_t y, int32_t dx, int32_t dy, pg_error *e);
    /* Press button b at path[0], move through path[1..n-1] (step_ms between
     * moves, hold_ms after the press), release at path[n-1], its shape as
     * pg_drag_shape_ok allows. Every point is checked like a click's before
     * anything is sent, and the release is sent whatever fails after the
     * press: a drag never leaves a button down. */
    pg_err (*drag)(pg_platform *p, uint64_t id, const pg_point *path, size_t n, pg_button b, uint32_t hold_ms,
                   uint32_t step_ms, pg_error *e);
    /* The monitors (X11: RandR 1.5 monitors; Win32: EnumDisplayMonitors),
     * *out malloc'd, at least one (the whole screen when none is known). */
    pg_err (*monitors)(pg_platform *p, pg_monitor **out, size_t *n, pg_error *e);
    /* The listed window (a client, a popup) on top at screen point (x,y):
     * what a click there would reach. *id 0: none (the desktop). */
    pg_err (*top_at)(pg_platform *p, int32_t x, int32_t y, uint64_t *id, pg_error *e);
    /* Presses or releases one key or button (pg_hold) and leaves it so. A
     * press is checked like key() (the key alone: the broker checks the
     * chord it makes with what is held through key_check) or like a click
     * (at the point, or where the pointer is); a release with id 0 is
     * never refused. A key that is a modifier but not by its chord name
     * (Control_L, ISO_Level3_Shift, Caps_Lock) is PG_E_BADINPUT: held
     * modifiers are what the broker's chord rule reads. */
    pg_err (*hold)(pg_platform *p, const pg_hold *h, pg_error *e);
    /* Would key() send chord? The keyguard with the keymap's view of it
     * (what the key yields with the modifiers), nothing sent. */
    pg_err (*key_check)(pg_platform *p, const char *chord, pg_error *e);
    /* Where the pointer is, in screen coordinates. */
    pg_err (*pointer_at)(pg_platform *p, int32_t *x, int32_t *y, pg_error *e);
    /* chord: "ctrl+a", "Return", "shift+Tab", "alt+F4", "a". Focuses first. */
    pg_err (*key)(pg_platform *p, uint64_t id, const char *chord, pg_error *e);
    /* UTF-8 text, any Unicode; focuses first. */
    pg_err (*type_text)(pg_platform *p, uint64_t id, const char *utf8, pg_error *e);
    /* Wait until the window has had no repaint for quiet_ms, at most timeout_ms.
     * PG_E_TIMEOUT if it never went quiet. */
    pg_err (*settle)(pg_platform *p, uint64_t id, uint32_t quiet_ms, uint32_t timeout_ms,
                     pg_error *e);
    /* Has the connection to the display (X server, session helper) been lost
     * for good? Never blocks: it looks at what the connection already knows
     * (reading what waits on it without waiting). true: why says so (a
     * sentence), and the handle is only good for close(); the broker opens a
     * new one when the display is back. NULL: never lost. */
    bool (*lost)(pg_platform *p, char *why, size_t n);
    /* Does window id's program answer? X11: where a window manager runs, a
     * _NET_WM_PING answered within max_ms (YES), else NO or SILENT by whether
     * the client lists _NET_WM_PING in WM_PROTOCOLS; without a window manager
     * UNKNOWN (nothing pings there, so no program is expected to answer).
     * Win32: IsHungAppWindow (YES or NO). Unknown id: PG_E_NOTFOUND. NULL:
     * always UNKNOWN. Stateless: remembering who answered is the broker's. */
    pg_err (*responding)(pg_platform *p, uint64_t id, uint32_t max_ms, pg_responding *out, pg_error *e);
} pg_platform_ops;

/* The backend compiled in for this build (X11 on Linux, Win32 on Windows). */
const pg_platform_ops *pg_platform_default(void);

#endif
