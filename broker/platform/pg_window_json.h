/* SPDX-License-Identifier: MIT */
/* pg_window_json.h - the one JSON form of a pg_window (pg_platform.h): the
 * objects of the "windows" list and of every "window" in a result, and what
 * the Windows session helper sends the service for each window it lists.
 * One encoder and one decoder, so the two sides cannot drift apart.
 *
 * Shape: "id", "title", "class", "instance", "pid" (null when the owner is
 * not known), "x", "y", "width", "height", "visible", "focused"; then
 * "minimized": true only for a minimized window (Windows lists those with
 * visible false), and "dpi" with "scale" (dpi / 96) only when the backend
 * knows the window's DPI (Windows; X11 coordinates are physical pixels);
 * "kind" ("normal", "dialog" or "popup") and "parent" (the decimal id of the
 * normal window a dialog or popup belongs to, null when none or not known);
 * "frame" {x, y, width, height} only when the outer bounds differ from the
 * content (a WM frame, a title bar, a border); "title_cut": true only when
 * the title had to be cut (pg_platform.h: it then matches every deny rule).
 *
 * Decoding is strict, for a peer that may be broken or hostile: exactly the
 * fields above, each once and of its type, optional ones only as the encoder
 * writes them (minimized and title_cut only true; dpi 1..9600 with scale
 * equal to dpi/96; a frame only when it differs from the content);
 * id 1..2^53-1 (the largest integer JSON carries exactly), pid null or
 * 0..2^32-1, x and y 32-bit, width and height 0..2^31-1, all integral;
 * strings valid UTF-8 that fit their pg_window fields. Anything else is
 * PG_E_BADINPUT naming the field; *w is then unspecified.
 *
 * Window ids are 32-bit values on both platforms (X ids, HWNDs); cJSON
 * prints numbers with 15 significant digits, so an id beyond 10^15 would not
 * survive encoding exactly even though the decoder accepts it.
 * Never: truncates a string, rounds a number, or keeps a pointer into o.
 */
#ifndef PG_WINDOW_JSON_H
#define PG_WINDOW_JSON_H

#include <cJSON.h>

#include "pg_platform.h"

/* A new object (the caller owns it), or NULL when out of memory. */
cJSON *pg_window_json(const pg_window *w);

/* "normal", "dialog" or "popup". */
const char *pg_window_kind_name(pg_window_kind k);

/* Reads what pg_window_json wrote back into *w (a frame it left out is the
 * content rectangle). */
pg_err pg_window_json_decode(const cJSON *o, pg_window *w, pg_error *e);

#endif
