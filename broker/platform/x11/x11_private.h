/* SPDX-License-Identifier: MIT */
/* x11_private.h - internals shared by the files of the X11 backend.
 *
 * Contract: one pg_platform handle owns one XCB connection and everything hung
 * on it (the Composite redirection, the MIT-SHM segment, the xkbcommon
 * context). Nothing here is global or mutable outside a handle (but the
 * time of the last input sent, x11_watch.c, which every handle's settle must
 * see), so separate handles may live on separate threads; one handle is used by one thread at a
 * time (the broker serialises calls).
 * Every wait on the X server goes through x11_wait() and is bounded by
 * X11_REPLY_TIMEOUT_MS; an X error is a reply like any other and is turned
 * into a pg_err by the caller, never into a crash or an exit.
 * Never: prints, exits, decodes images, reads policy.
 */
#ifndef PG_X11_PRIVATE_H
#define PG_X11_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <xcb/shm.h>
#include <xcb/xcb.h>

#include "pg_platform.h"
#include "pg_time.h"

struct xkb_context;

/* Longest we wait for any single reply; a grabbed or hung server gives
 * PG_E_TIMEOUT instead of a hang. */
#define X11_REPLY_TIMEOUT_MS 5000
/* How long input functions wait for the focus to arrive in the target. */
#define X11_FOCUS_TIMEOUT_MS 1500
/* Typing through a temporarily remapped keycode: keys go out only after the
 * client refreshed its keymap, and the restore only after the client looked
 * the keys up (else the character is lost). Proof is the client's answer to
 * a _NET_WM_PING (clients handle events in order), awaited at most
 * X11_PING_TIMEOUT_MS; a client that does not answer gets fixed pauses of
 * X11_NO_PING_SETTLE_MS. The restore never comes sooner than
 * X11_REMAP_SETTLE_MS after the keys. */
#define X11_REMAP_SETTLE_MS 20
#define X11_PING_TIMEOUT_MS 500
#define X11_NO_PING_SETTLE_MS 100
/* Upper bound on windows listed and on tree depth walked. A list that would
 * be longer is reported incomplete, never cut silently. */
#define X11_MAX_WINDOWS 4096
#define X11_MAX_DEPTH 32
/* Text properties (titles): the first request asks for this many 32-bit
 * words; the rest is read while the server says there is more, up to
 * X11_MAX_TEXT_BYTES (a title longer than that is marked cut). */
#define X11_TEXT_FIRST_WORDS 256
#define X11_MAX_TEXT_BYTES 65536

typedef struct {
    xcb_atom_t utf8_string, net_wm_name, wm_name, wm_class, wm_state, net_client_list,
        net_active_window, net_supporting_wm_check, string, wm_protocols, net_wm_ping, net_wm_window_type,
        net_wm_window_type_desktop, net_wm_window_type_dock;
} x11_atoms;

typedef struct {
    bool present;
    uint8_t first_event; /* only meaningful for DAMAGE */
    uint32_t major, minor;
} x11_ext;

struct pg_platform {
    xcb_connection_t *c;
    xcb_screen_t *screen;
    xcb_window_t root;
    x11_atoms atom;
    x11_ext composite, shm, xtest, res, damage, xfixes, xkb;
    bool redirected;   /* CompositeRedirectAutomatic on root's children is active */
    bool shm_fd;       /* MIT-SHM 1.2 attach_fd is usable (not proven failed) */
    struct {           /* memfd-backed segment, grown on demand, kept open */
        xcb_shm_seg_t seg;
        uint8_t *addr;
        size_t size;
    } seg;
    struct xkb_context *xkb_ctx;
    int32_t kbd_device; /* XKB core keyboard device id, -1 if no XKB */
    uint32_t ping_serial; /* tells our _NET_WM_PING answers apart */
    char *display;        /* as opened (NULL: $DISPLAY), for the repaint watcher's connection */
    struct x11_watch *watch; /* started at the first settle; NULL before, or when it cannot run */
    bool watch_failed;    /* it could not start: settle per request */
    struct x11_person *person_watch; /* watch_person's watcher; NULL until it is asked for */
    struct pg_person *polled;        /* person_poll's own counts (pixelgate-session); NULL until polled */
    char polled_key[64];             /* the stop key they are watched for */
    double input_rtt_ms;  /* the round trip measured just before the last pointer input */
    uint32_t unconfirmed; /* inputs sent but not seen delivered in time, since unconfirmed() last read */
    uint16_t pending_mask; /* the buttons of the last unconfirmed input: keys and focus wait for them */
    bool guard_grabbed;   /* guard_begin holds a server grab on c (x11_guard.c) */
    struct x11_indicator *indicator; /* the sign that an agent drives, from its first showing; NULL before */
};

/* ---- x11_conn.c: replies, errors, atoms ---- */

/* Wait at most X11_REPLY_TIMEOUT_MS for the reply to request seq.
 * PG_OK: *reply is set (caller frees), or *reply is NULL and *xerr is set (an
 * X error answered the request; caller frees). Otherwise PG_E_TIMEOUT or
 * PG_E_UNREACHABLE with e filled. */
pg_err x11_wait(pg_platform *p, unsigned int seq, void **reply, xcb_generic_error_t **xerr,
                pg_error *e);
/* Round trip: returns once the server processed every earlier request. */
pg_err x11_sync(pg_platform *p, pg_error *e);

/* A thread that reads a connection of its own (x11_watch.c, x11_person.c,
 * x11_indicator.c) is woken or ended by a client message to a window of
 * that connection's: sent with an empty event mask, it goes to the window's
 * creator alone. x11_self_window makes such a window (InputOnly, 1x1, under
 * root); x11_self_message sends what (data32[0]) to win and flushes;
 * x11_is_self_message says whether ev is one to win. */
xcb_window_t x11_self_window(xcb_connection_t *c, xcb_window_t root);
void x11_self_message(xcb_connection_t *c, xcb_window_t win, uint32_t what);
bool x11_is_self_message(const xcb_generic_event_t *ev, xcb_window_t win);
/* Check a *_checked void request without an unbounded wait. PG_OK with
 * *xerr set (caller frees) when the server refused it. */
pg_err x11_check(pg_platform *p, xcb_void_cookie_t ck, xcb_generic_error_t **xerr, pg_error *e);
/* Collect the reply to seq (NULL on an X error) unless *rc already failed,
 * in which case the reply is discarded unread; a failed wait sets *rc. */
void *x11_take(pg_platform *p, unsigned int seq, pg_err *rc, pg_error *e);
/* Connection alive? Also discards queued events and stray async errors. */
pg_err x11_alive(pg_platform *p, pg_error *e);
/* Name of an X error code, e.g. "BadWindow". */
const char *x11_error_name(uint8_t code);
/* The window manager's name if one runs (EWMH check window valid), else
 * false. name may be NULL. */
bool x11_wm_running(pg_platform *p, char *name, size_t cap, pg_error *e);
/* The same in two halves, so the first request can travel with others: the
 * ask sends root's _NET_SUPPORTING_WM_CHECK, the take reads its reply (and,
 * when it names a window, asks that window in one more round trip). */
xcb_get_property_cookie_t x11_wm_check_ask(pg_platform *p);
bool x11_wm_check_take(pg_platform *p, xcb_get_property_cookie_t root_check, char *name, size_t cap, pg_error *e);
/* Decode one UTF-8 sequence of at most n bytes: its length, or 0 if invalid
 * (overlong, surrogate, > U+10FFFF, truncated). */
size_t x11_utf8_decode(const uint8_t *s, size_t n, uint32_t *cp);

/* ---- x11_windows.c: enumeration and window lookup ---- */

/* Everything the backend needs to know about one client window. */
typedef struct {
    xcb_window_t id;       /* the client window (what list_windows reports) */
    xcb_window_t toplevel; /* its ancestor that is a child of root (frame, or id) */
    int32_t root_x, root_y;/* content origin in root coordinates */
    uint32_t width, height;/* content size */
    int32_t off_x, off_y;  /* content origin inside the toplevel's pixmap (incl. border) */
    uint32_t top_w, top_h; /* toplevel size including its border */
    xcb_visualid_t top_visual;
    uint8_t top_depth;
    bool viewable;
} x11_win;

/* The ids list_windows would return, in stacking-independent order.
 * *ids malloc'd, caller frees. *cut (may be NULL) when there were more than
 * X11_MAX_WINDOWS. *at_root (may be NULL; malloc'd, may come back NULL):
 * which ids are children of root themselves, by the same look at the tree. */
pg_err x11_client_ids(pg_platform *p, xcb_window_t **ids, size_t *n, bool *cut, bool **at_root, pg_error *e);
/* Look up id: PG_E_NOTFOUND unless it is one of x11_client_ids (so a frame,
 * child or root id is refused the same way as a vanished one). */
pg_err x11_resolve(pg_platform *p, uint64_t id, x11_win *w, pg_error *e);
/* UTF-8 title of a window (_NET_WM_NAME, else WM_NAME), the whole property
 * read; "" if none. True when it did not fit into out (cut). */
bool x11_title(pg_platform *p, xcb_window_t w, char *out, size_t cap);
/* The client (WM_STATE carrier) inside toplevel, or toplevel itself. */
xcb_window_t x11_client_of(pg_platform *p, xcb_window_t toplevel);
pg_err x11_list_windows(pg_platform *p, pg_window **out, size_t *n, pg_error *e);
/* list_windows plus the mapped override-redirect children of root (popups),
 * with kinds and parents (pg_platform.h). */
pg_err x11_list_all(pg_platform *p, pg_window **out, size_t *n, bool *complete, pg_error *e);
/* One window as list_windows describes it, without the listing (pg_platform.h). */
pg_err x11_describe_window(pg_platform *p, uint64_t id, pg_window *out, pg_error *e);
/* pg_platform_ops.window_frame: _NET_FRAME_EXTENTS of the client window. */
pg_err x11_window_frame(pg_platform *p, uint64_t id, uint32_t *left, uint32_t *right, uint32_t *top,
                        uint32_t *bottom, pg_error *e);
pg_err x11_selection_owner(pg_platform *p, const char *selection, uint64_t *window, uint32_t *pid, pg_error *e);

/* ---- x11_capture.c ---- */
pg_err x11_capture_window(pg_platform *p, uint64_t id, const pg_rect *region, pg_capture *out,
                          pg_error *e);
pg_err x11_capture_screen(pg_platform *p, const pg_rect *region, pg_capture *out, pg_error *e);
void x11_shm_release(pg_platform *p);

/* ---- x11_convert.c: server pixels -> RGBA8 ---- */
typedef struct {
    uint32_t red_mask, green_mask, blue_mask;
    uint8_t bpp;      /* bits per pixel of the ZPixmap format for the depth */
    uint8_t pad;      /* scanline pad in bits */
    bool msb_first;   /* image byte order */
} x11_pixfmt;

/* Format of a drawable of depth with visual (masks come from the visual:
 * GetImage on a pixmap reports none). PG_E_UNSUPPORTED for non-TrueColor. */
pg_err x11_pixfmt_for(pg_platform *p, xcb_visualid_t visual, uint8_t depth, x11_pixfmt *f,
                      pg_error *e);
/* Bytes per source row for w pixels. */
size_t x11_src_stride(const x11_pixfmt *f, uint32_t w);
/* Convert w*h pixels at src (rows of src_stride) into a new RGBA8 buffer. */
pg_err x11_to_rgba(const x11_pixfmt *f, const uint8_t *src, size_t src_stride, uint32_t w,
                   uint32_t h, pg_capture *out, pg_error *e);

/* ---- x11_input.c ---- */
pg_err x11_focus(pg_platform *p, uint64_t id, pg_error *e);
pg_err x11_pointer_move(pg_platform *p, uint64_t id, int32_t x, int32_t y, pg_error *e);
pg_err x11_click(pg_platform *p, uint64_t id, int32_t x, int32_t y, pg_button b, int count,
                 pg_error *e);
pg_err x11_monitors(pg_platform *p, pg_monitor **out, size_t *n, pg_error *e);
pg_err x11_top_at(pg_platform *p, int32_t x, int32_t y, uint64_t *id, pg_error *e);
pg_err x11_scroll(pg_platform *p, uint64_t id, int32_t x, int32_t y, int32_t dx, int32_t dy, pg_error *e);
pg_err x11_drag(pg_platform *p, uint64_t id, const pg_point *path, size_t n, pg_button b, uint32_t hold_ms,
                uint32_t step_ms, pg_error *e);
pg_err x11_key(pg_platform *p, uint64_t id, const char *chord, pg_error *e);
pg_err x11_hold(pg_platform *p, const pg_hold *h, pg_error *e);
pg_err x11_key_check(pg_platform *p, const char *chord, pg_error *e);
pg_err x11_pointer_at(pg_platform *p, int32_t *x, int32_t *y, pg_error *e);
pg_err x11_type_text(pg_platform *p, uint64_t id, const char *utf8, pg_error *e);
pg_err x11_unconfirmed(pg_platform *p, uint32_t *n, pg_error *e);
/* Fake one key press or release on keycode. */
void x11_fake_key(pg_platform *p, uint8_t keycode, bool press);
/* Whether w is id or inside it (one round trip per level up). */
bool x11_is_inside(pg_platform *p, xcb_window_t w, xcb_window_t id, pg_err *rc, pg_error *e);

/* ---- x11_keymap.c: keysyms -> keycodes, chords, spare-keycode remapping ---- */
typedef struct x11_keymap x11_keymap;
/* Snapshot of the current server keymap (reloaded per call: other clients may
 * change it). PG_E_UNSUPPORTED without XKB. */
pg_err x11_keymap_load(pg_platform *p, x11_keymap **out, pg_error *e);
void x11_keymap_free(x11_keymap *k);
/* PG_E_POLICY when the chord is one pg_keyguard.h refuses, judged by the
 * keysym named and by what this keymap makes of its key with the chord's
 * modifiers held; PG_E_BADINPUT for a chord that does not parse. */
pg_err x11_keymap_check(const x11_keymap *k, const char *chord, pg_error *e);
/* The keycode of one key to hold down (pg_hold): on the keymap without
 * shift or AltGr, and a modifier only by its chord name (ctrl, shift, alt,
 * super). */
pg_err x11_keymap_hold_code(const x11_keymap *k, const char *name, uint8_t *code, pg_error *e);
/* Press the chord ("ctrl+shift+z") and release it again. target: the
 * focused client, asked to confirm it read the keys before a restore; the
 * focus is checked once more right before the keys go out. */
pg_err x11_keymap_chord(pg_platform *p, x11_keymap *k, xcb_window_t target, const char *chord,
                        pg_error *e);
/* Type UTF-8 text; restores every remapped keycode before returning.
 * Before each character the focus must still be inside target, else
 * PG_E_POLICY saying how many characters (code points) were typed. */
pg_err x11_keymap_type(pg_platform *p, x11_keymap *k, xcb_window_t target, const char *utf8,
                       pg_error *e);

/* ---- x11_person.c: the person's own input (watch_person) ---- */
typedef struct x11_person x11_person;
/* pg_platform_ops.watch_person: a watcher on its own connection and thread
 * (x11_person.c says what it reports). Called again: the same person and key
 * keep the running watcher, another key replaces it. */
pg_err x11_watch_person(pg_platform *p, pg_person *person, const char *stop_key, pg_error *e);
/* pg_platform_ops.person_poll: watch_person into a pg_person of the handle's
 * own, answered as counts (the session helper serves the broker this way). */
pg_err x11_person_poll(pg_platform *p, const char *stop_key, uint32_t *watching, uint32_t *stop_presses,
                       uint32_t *tampers, uint32_t *human_events, uint32_t *idle_ms, pg_error *e);
/* Ends the watcher's thread and closes its connection (NULL: nothing). */
void x11_person_stop(x11_person *w);

/* ---- x11_watch.c: repaint history kept between requests ---- */
typedef struct x11_watch x11_watch;
/* A watcher on its own connection to display (NULL: $DISPLAY) and its own
 * thread; NULL when the display or its DAMAGE cannot be reached. */
x11_watch *x11_watch_start(const char *display);
/* Ends the thread, closes the connection (the server drops our damage objects). */
void x11_watch_stop(x11_watch *w);
/* PG_OK once win has had no repaint for quiet_ms: at once when the watcher
 * has seen none for that long; a window first seen waits quiet_ms.
 * PG_E_TIMEOUT after timeout_ms of repaints, PG_E_NOTFOUND when the window
 * went away, PG_E_UNREACHABLE when the watcher's connection broke.
 * *waited: it had to wait (false: the window was quiet already). */
pg_err x11_watch_settle(x11_watch *w, xcb_window_t win, uint32_t quiet_ms, uint32_t timeout_ms, bool *waited,
                        pg_error *e);
/* True when win is watched already (a settle asked for it before) and has
 * had no repaint for quiet_ms: no request to the server, no waiting. */
bool x11_watch_quiet(x11_watch *w, xcb_window_t win, uint32_t quiet_ms);
/* Input went out (any handle of this process): every window counts as active
 * from now, its repaint still to come. */
void x11_watch_input_sent(void);

/* ---- x11_guard.c: --if-unchanged under a server grab ---- */
pg_err x11_guard_begin(pg_platform *p, pg_guard *g, pg_error *e);
void x11_guard_end(pg_platform *p);
/* Ends guard_begin's grab, if one is held (else nothing): the input code
 * calls it once the injected events were processed, before any wait that
 * other clients must make progress for. */
void x11_guard_release(pg_platform *p);
/* ---- x11_indicator.c: the sign that an agent drives ---- */
#define X11_MAX_INDICATORS 16 /* signs one process may have at once (one per handle) */
typedef struct x11_indicator x11_indicator;
/* pg_platform_ops.indicate: shows the sign on its own connection and
 * thread (started here the first time), or hides it (how->window 0).
 * PG_E_UNSUPPORTED without Composite or SHAPE 1.1. */
pg_err x11_indicate(pg_platform *p, const pg_indicator *how, pg_error *e);
/* Ends the sign's thread and connection (its window goes with it); NULL is fine. */
void x11_indicator_stop(x11_indicator *ind);
/* Whether w is a window of a sign of this process (any handle, any
 * thread): never listed, never a cover, never a target. */
bool x11_indicator_is_own(xcb_window_t w);
/* Screen captures compose without the signs: aside grabs the server on p's
 * connection (only when this process has a sign) and unmaps every sign of
 * this process that is mapped and meets r, with a round trip after; back
 * maps and raises them again and ungrabs. back is always called after
 * aside, whatever aside returned. */
typedef struct {
    xcb_window_t win[X11_MAX_INDICATORS]; /* the signs unmapped */
    size_t n;
    bool grabbed;
} x11_aside;
pg_err x11_indicator_aside(pg_platform *p, const pg_rect *r, x11_aside *out, pg_error *e);
/* The same for a caller that holds the server grabbed on p's connection
 * already (a second GrabServer would be a no-op, but back's ungrab would
 * end the caller's grab): no grab here, and back then leaves it held. */
pg_err x11_indicator_aside_held(pg_platform *p, const pg_rect *r, x11_aside *out, pg_error *e);
void x11_indicator_back(pg_platform *p, x11_aside *a);

/* ---- x11_settle.c ---- */
pg_err x11_settle(pg_platform *p, uint64_t id, uint32_t quiet_ms, uint32_t timeout_ms,
                  pg_error *e);
/* Send client w a _NET_WM_PING and wait at most max_ms for its answer: when
 * it comes, w has handled every event sent to it before. *answered says
 * whether it came (many toolkits answer even without advertising it). */
pg_err x11_wait_client(pg_platform *p, xcb_window_t w, uint32_t max_ms, bool *answered,
                       pg_error *e);
/* pg_platform_ops.responding. */
pg_err x11_responding(pg_platform *p, uint64_t id, uint32_t max_ms, pg_responding *out, pg_error *e);

#endif
