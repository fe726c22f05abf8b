/* SPDX-License-Identifier: MIT */
/* pg_sway_ipc.h - sway's IPC (the i3 IPC protocol) as pure functions: the
 * frame header both ways, and the replies of GET_TREE and GET_OUTPUTS read
 * into pg_window and pg_monitor lists.
 *
 * What it does: a message is the 6 bytes "i3-ipc", the payload length and
 * the message type (two uint32 in the host's byte order: the socket never
 * leaves the machine), then that many bytes of JSON. The tree reader lists
 * every view, i.e. every node of type "con" or "floating_con" with a
 * non-null "pid" (a leaf that holds an application's surface), and says in
 * which order they are stacked on screen.
 * Geometry, as sway writes it (sway-ipc(7), checked against a real headless
 * sway, tests/data/sway_tree_*.json): a view's "rect" is its container in
 * layout coordinates WITHOUT its title bar, "window_rect" the surface
 * relative to "rect" (the borders are what lies between them), "deco_rect"
 * its title bar relative to the parent (zero when the border is not
 * "normal" or the view is fullscreen). The title bar sits right above
 * "rect": sway moves "rect" down by the title bar height, and in a
 * "stacked" parent by that height times the number of siblings, since all
 * the stack's bars are above every child. So:
 *   content = (rect.x + window_rect.x, rect.y + window_rect.y,
 *              window_rect.width, window_rect.height)
 *   frame   = (rect.x, rect.y - bars, rect.width, rect.height + bars),
 *             bars = deco_rect.height * (parent "stacked" ? siblings : 1).
 * A view is visible when sway says "visible" AND its workspace is the
 * current one of an active output (the scratchpad, "__i3", never is).
 * Stacking, bottom to top, per output in the tree's order, for the current
 * workspace only: the tiled views (tree order), then the floating ones
 * (floating_nodes array order: sway draws the last on top), then the view
 * fullscreen on that workspace (fullscreen_mode 1); a view fullscreen on
 * the whole session (fullscreen_mode 2) goes above everything.
 * Kinds: NORMAL, except a floating XWayland view ("shell" "xwayland") with
 * window_properties.transient_for set: DIALOG, whose parent is the view
 * whose X "window" id that is (0 when not listed). class_name is "app_id",
 * else window_properties.class (XWayland); instance window_properties
 * .instance or "". shared is always false, dpi 0 (sway's coordinates are
 * logical: the output's scale is the caller's business).
 * Limits (the compositor's reply is read like untrusted input): at most
 * PG_SWAY_MAX_NODES nodes in the tree, PG_SWAY_MAX_VIEWS views,
 * PG_SWAY_MAX_DEPTH levels, PG_SWAY_MAX_OUTPUTS outputs; numbers must be
 * integers that fit their field; a title longer than pg_window.title is cut
 * at a character boundary and marked title_cut; an app_id, class or
 * instance longer than its field is cut the same way. Anything else that
 * is not what the protocol says (wrong type, missing field, bad JSON) is
 * PG_E_INTERNAL naming the node and field, never a crash.
 * Never: opens a socket, reads the environment or keeps state.
 * Ownership: *out is malloc'd for the caller to free (NULL when *n is 0);
 * on error *out is NULL and *n 0.
 */
#ifndef PG_SWAY_IPC_H
#define PG_SWAY_IPC_H

#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"
#include "pg_platform.h"

#define PG_SWAY_IPC_HEADER_LEN 14
#define PG_SWAY_IPC_MAX_PAYLOAD (64u << 20) /* 64 MiB: a tree of PG_SWAY_MAX_NODES fits many times over */
#define PG_SWAY_MAX_NODES 16384u
#define PG_SWAY_MAX_VIEWS 4096u /* = PG_HELPER_MAX_WINDOWS: what the helper's list carries */
#define PG_SWAY_MAX_DEPTH 64u
#define PG_SWAY_MAX_OUTPUTS 64u

enum {
    PG_SWAY_RUN_COMMAND = 0,
    PG_SWAY_GET_OUTPUTS = 3,
    PG_SWAY_GET_TREE = 4,
    PG_SWAY_GET_SEATS = 101,
};

/* Writes the 14-byte header of a message of type carrying len bytes of
 * payload into out; returns PG_SWAY_IPC_HEADER_LEN. */
size_t pg_sway_ipc_header(uint8_t out[PG_SWAY_IPC_HEADER_LEN], uint32_t type, uint32_t len);

/* Reads a reply's header: PG_OK with *type and *len, or PG_E_INTERNAL when
 * the magic is not "i3-ipc" or len is over PG_SWAY_IPC_MAX_PAYLOAD. */
pg_err pg_sway_ipc_parse_header(const uint8_t in[PG_SWAY_IPC_HEADER_LEN], uint32_t *type, uint32_t *len,
                                pg_error *e);

/* The views of a GET_TREE reply (json, len bytes, need not end in NUL), in
 * the tree's depth-first order (tiled before floating, per workspace). */
pg_err pg_sway_tree_windows(const char *json, size_t len, pg_window **out, size_t *n, pg_error *e);

/* The con ids of the views on a visible workspace, bottom to top. */
pg_err pg_sway_tree_stacking(const char *json, size_t len, uint64_t **out, size_t *n, pg_error *e);

/* The active outputs of a GET_OUTPUTS reply: name, rect (logical
 * coordinates), primary = the focused one. */
pg_err pg_sway_outputs(const char *json, size_t len, pg_monitor **out, size_t *n, pg_error *e);

#endif
