/* SPDX-License-Identifier: MIT */
/* pg_wlr_private.h - internals shared by the files of the wlroots backend
 * (pg_wlr.h): one Wayland connection, the sway IPC socket beside it, and
 * the virtual pointer and keyboard made on that connection.
 *
 * Contract: a handle owns its wl_display and every object bound on it;
 * nothing is global, so separate handles may live on separate threads, and
 * one handle is used by one thread at a time (the helper serves one request
 * at a time). Every wait on the compositor goes through wlr_pump() or
 * wlr_ipc() and is bounded by WLR_REPLY_MS: a compositor that stops
 * answering gives PG_E_TIMEOUT, one that goes away marks the handle lost.
 * Never: prints, exits, decodes images, reads policy.
 */
#ifndef PG_WLR_PRIVATE_H
#define PG_WLR_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_platform.h"

struct wl_display;
struct wl_registry;
struct wl_shm;
struct wl_seat;
struct wl_output;
struct zwlr_screencopy_manager_v1;
struct zwlr_virtual_pointer_manager_v1;
struct zwlr_virtual_pointer_v1;
struct zwp_virtual_keyboard_manager_v1;
struct zwp_virtual_keyboard_v1;
struct pg_wl_layout;

#define WLR_REPLY_MS 5000u   /* the longest one compositor round trip or IPC reply may take */
#define WLR_MAX_OUTPUTS 16
#define PG_WLR_MAX_DIM 16384u /* a capture's width and height */
#define WLR_IPC_MAX (64u << 20) /* bytes of one sway IPC reply */

/* One wl_output, in the layout's logical coordinates (what sway's tree and
 * the virtual pointer use). */
typedef struct {
    struct wl_output *o;
    uint32_t global;
    int32_t x, y;          /* wl_output.geometry: its place in the layout */
    int32_t mode_w, mode_h; /* the current mode, in pixels */
    int32_t scale;
    int32_t transform;
} wlr_output;

/* The last picture settle saw (pg_wlr_capture.c). */
typedef struct {
    uint64_t id;
    pg_rect r;
    uint64_t hash;
    double since; /* when it was first seen (pg_mono_ms) */
} wlr_seen;

struct pg_platform {
    struct wl_display *dpy;
    struct wl_registry *reg;
    struct wl_shm *shm;
    struct wl_seat *seat;
    struct zwlr_screencopy_manager_v1 *copier;
    struct zwlr_virtual_pointer_manager_v1 *pointer_mgr;
    struct zwp_virtual_keyboard_manager_v1 *keyboard_mgr;
    struct zwlr_virtual_pointer_v1 *pointer;
    struct zwp_virtual_keyboard_v1 *keyboard;
    struct pg_wl_layout *layout; /* the keyboard layout it holds by default (pg_wl_layout.h); NULL: none */
    bool holds_layout;           /* the keyboard's keymap is layout's now (else a made-up one) */
    unsigned mods_held;          /* PG_KEYMOD_* held down by hold */
    char layout_why[160];        /* why there is no layout (caps says it) */
    wlr_output out[WLR_MAX_OUTPUTS];
    size_t n_out;
    char display[64];      /* the WAYLAND_DISPLAY it connected to */
    char ipc_path[108];    /* sway's IPC socket ($SWAYSOCK); "" when there is none */
    bool pointer_known;    /* the pointer is where pixelgate last put it */
    int32_t pointer_x, pointer_y;
    uint32_t buttons_held; /* bit b-1: button b is down (hold) */
    char lost_why[256];    /* non-empty: the connection is gone for good */
    wlr_seen seen;
};

/* An input event's timestamp: milliseconds of the monotonic clock. */
uint32_t wlr_time_ms(void);
/* PG_OK when the virtual keyboard (or pointer) exists, else UNSUPPORTED. */
pg_err wlr_need(pg_platform *p, bool keyboard, pg_error *e);

/* Layout coordinates: the bounding box of every output ({0} when none). */
pg_rect wlr_layout_box(const pg_platform *p);

/* Flushes and dispatches until *done or the compositor has not answered for
 * timeout_ms (PG_E_TIMEOUT); a broken connection marks the handle lost
 * (PG_E_UNREACHABLE). */
pg_err wlr_pump(pg_platform *p, const bool *done, uint32_t timeout_ms, pg_error *e);
/* One round trip: everything sent before it has been handled. */
pg_err wlr_sync(pg_platform *p, pg_error *e);

/* One sway IPC message of type with payload; *reply is malloc'd and NUL-
 * terminated. PG_E_UNSUPPORTED when the compositor has no IPC socket. */
pg_err wlr_ipc(pg_platform *p, uint32_t type, const char *payload, char **reply, size_t *len, pg_error *e);

/* sway's tree read once: the views (pg_sway_tree_windows) and the ids of
 * those on visible workspaces, bottom to top (pg_sway_tree_stacking). */
typedef struct {
    pg_window *w;
    size_t n;
    uint64_t *order;
    size_t n_order;
} wlr_tree;

pg_err wlr_tree_read(pg_platform *p, wlr_tree *t, pg_error *e);
void wlr_tree_free(wlr_tree *t);
/* The view id in t, or PG_E_NOTFOUND. */
pg_err wlr_tree_find(const wlr_tree *t, uint64_t id, const pg_window **w, pg_error *e);
/* PG_OK when nothing above id covers r (layout coordinates), else
 * PG_E_POLICY naming the cover by decimal id; PG_E_NOTFOUND when id is not
 * on a visible workspace. */
pg_err wlr_tree_uncovered(const wlr_tree *t, uint64_t id, pg_rect r, pg_error *e);
/* The view on top at a layout point (0: none). */
uint64_t wlr_tree_top_at(const wlr_tree *t, int32_t x, int32_t y);
/* One view, read on its own tree (a call that needs only it). */
pg_err wlr_view(pg_platform *p, uint64_t id, pg_window *out, pg_error *e);

/* The rectangle a and b share; false when they share no pixel. */
bool wlr_intersect(pg_rect a, pg_rect b, pg_rect *out);

/* RGBA pixels of r (layout coordinates) through screencopy, composed from
 * every output r meets (black where no output is). */
pg_err wlr_grab(pg_platform *p, pg_rect r, pg_capture *out, pg_error *e);

/* The ops, by file. */
pg_err wlr_caps(pg_platform *p, pg_caps *out, pg_error *e);
pg_err wlr_list_windows(pg_platform *p, pg_window **out, size_t *n, pg_error *e);
pg_err wlr_list_all(pg_platform *p, pg_window **out, size_t *n, bool *complete, pg_error *e);
pg_err wlr_window_frame(pg_platform *p, uint64_t id, uint32_t *l, uint32_t *r, uint32_t *t, uint32_t *b,
                        pg_error *e);
pg_err wlr_top_at(pg_platform *p, int32_t x, int32_t y, uint64_t *id, pg_error *e);
pg_err wlr_monitors(pg_platform *p, pg_monitor **out, size_t *n, pg_error *e);
pg_err wlr_focus(pg_platform *p, uint64_t id, pg_error *e);
pg_err wlr_responding(pg_platform *p, uint64_t id, uint32_t max_ms, pg_responding *out, pg_error *e);
pg_err wlr_selection_owner(pg_platform *p, const char *selection, uint64_t *window, uint32_t *pid, pg_error *e);

pg_err wlr_capture_window(pg_platform *p, uint64_t id, const pg_rect *region, pg_capture *out, pg_error *e);
pg_err wlr_capture_screen(pg_platform *p, const pg_rect *region, pg_capture *out, pg_error *e);
pg_err wlr_settle(pg_platform *p, uint64_t id, uint32_t quiet_ms, uint32_t timeout_ms, pg_error *e);

pg_err wlr_pointer_move(pg_platform *p, uint64_t id, int32_t x, int32_t y, pg_error *e);
pg_err wlr_click(pg_platform *p, uint64_t id, int32_t x, int32_t y, pg_button b, int count, pg_error *e);
pg_err wlr_scroll(pg_platform *p, uint64_t id, int32_t x, int32_t y, int32_t dx, int32_t dy, pg_error *e);
pg_err wlr_drag(pg_platform *p, uint64_t id, const pg_point *path, size_t n, pg_button b, uint32_t hold_ms,
                uint32_t step_ms, pg_error *e);
pg_err wlr_pointer_at(pg_platform *p, int32_t *x, int32_t *y, pg_error *e);
pg_err wlr_hold(pg_platform *p, const pg_hold *h, pg_error *e);
pg_err wlr_hold_key(pg_platform *p, const pg_hold *h, pg_error *e);
/* Makes the keyboard hold the layout (open: from its creation on). */
pg_err wlr_keys_start(pg_platform *p, pg_error *e);
pg_err wlr_key_check(pg_platform *p, const char *chord, pg_error *e);
pg_err wlr_key(pg_platform *p, uint64_t id, const char *chord, pg_error *e);
pg_err wlr_type_text(pg_platform *p, uint64_t id, const char *utf8, pg_error *e);
/* Releases whatever hold left down (close). */
void wlr_release_all(pg_platform *p);

#endif
