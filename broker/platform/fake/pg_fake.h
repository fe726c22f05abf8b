/* SPDX-License-Identifier: MIT */
/* pg_fake.h - an in-memory desktop behind pg_platform_ops, for unit tests of
 * every handler and of the dispatch path without X, Wine or root.
 *
 * What it does
 *   Holds scripted top-level windows (title, class, owner pid, geometry,
 *   visibility, stacking order: later windows are on top; normal windows,
 *   dialogs and popups with the window they belong to, and a frame) each with its own
 *   RGBA pixels, optionally a series of frames that successive captures step
 *   through (an animation), and a virtual screen whose origin may be negative
 *   (a monitor left of or above the primary, as on Windows). Screen captures
 *   compose the visible windows over a grey background in stacking order;
 *   window captures return the window's own pixels (as Composite does).
 *   Input is not delivered anywhere: every focus, click, key and text is
 *   recorded as one line ("click 3 10,20 left x1", "move 3 5,5", "scroll 3 10,20 by 0,3",
 *   "drag 3 10,20 -> 90,20 left 9 points hold 50 step 10", "hold 3 key shift down",
 *   "hold 3 button left down at 5,5", "key_check ctrl+a") that tests read back.
 *   Clicks on a point another window covers are refused like the X11 backend
 *   refuses them. Any operation can be made to fail once or always.
 *
 * What it never does
 *   Decodes images, calls the engine or reads policy (the backend contract);
 *   it is never linked into pixelgated.
 *
 * Threads: like every backend, not thread-safe; the broker serialises calls.
 */
#ifndef PG_FAKE_H
#define PG_FAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_platform.h"

extern const pg_platform_ops pg_fake_ops;

/* The handle pg_fake_ops.open made (the broker's b->plat). */
typedef struct pg_platform pg_fake;

/* The virtual screen: size and the screen coordinates of its top-left pixel. */
void pg_fake_set_screen(pg_fake *f, int32_t origin_x, int32_t origin_y, uint32_t w, uint32_t h);
/* Monitors (at most 4); none added: one, "fake", the whole screen. */
void pg_fake_add_monitor(pg_fake *f, const char *name, int32_t x, int32_t y, uint32_t w, uint32_t h, bool primary);

/* Adds a visible window on top of the others, filled with rgba (0xRRGGBBAA
 * as a number); returns its id (ids count up from 1000, never reused). */
uint64_t pg_fake_add_window(pg_fake *f, const char *title, const char *cls, int64_t pid, int32_t x, int32_t y,
                            uint32_t w, uint32_t h, uint32_t rgba);
/* Adds a dialog or popup on top (kind), belonging to parent (0: not
 * attributed, as an X override-redirect window whose client the backend
 * could not tell), owned by process pid. Popups are listed by list_all only;
 * while shown they are targets by id, like the X11 backend's. */
uint64_t pg_fake_add_owned(pg_fake *f, pg_window_kind kind, uint64_t parent, int64_t pid, const char *title,
                           int32_t x, int32_t y, uint32_t w, uint32_t h, uint32_t rgba);
/* Gives the window decorations (a WM frame: its title bar, borders) this
 * many pixels wide on each side; screen captures paint them in
 * PG_FAKE_FRAME_RGBA (0x3355aaff) and pg_window.frame reports them. */
void pg_fake_set_frame(pg_fake *f, uint64_t id, uint32_t left, uint32_t top, uint32_t right, uint32_t bottom);
/* Who owns selection ("CLIPBOARD" or "PRIMARY"): a window id and its pid
 * (0, 0: nobody), as selection_owner reports it. */
void pg_fake_set_selection(pg_fake *f, const char *selection, uint64_t window, uint32_t pid);
/* list_all stops after max windows, bottom of the stack first, and says the
 * list is incomplete (as the X11 backend at X11_MAX_WINDOWS); 0: no limit. */
void pg_fake_list_limit(pg_fake *f, size_t max);
/* Fills a rectangle of the window's pixels (frame 0) with one colour. */
void pg_fake_fill(pg_fake *f, uint64_t id, int32_t x, int32_t y, uint32_t w, uint32_t h, uint32_t rgba);
/* Replaces the window's pixels with a copy of rgba (tight rows, w*h*4). */
void pg_fake_set_pixels(pg_fake *f, uint64_t id, const uint8_t *rgba);
/* Appends a frame (a copy of rgba): captures step through frames 0..n-1 and
 * stay on the last one, or cycle when loop is set. */
void pg_fake_add_frame(pg_fake *f, uint64_t id, const uint8_t *rgba, bool loop);
/* A title longer than pg_window.title holds is cut and marked title_cut. */
void pg_fake_set_title(pg_fake *f, uint64_t id, const char *title);
void pg_fake_set_visible(pg_fake *f, uint64_t id, bool visible);
/* The size the window is listed with, its pixels unchanged (0: a window
 * that is not laid out yet). Capture it only at the size it was added. */
void pg_fake_set_listed_size(pg_fake *f, uint64_t id, uint32_t w, uint32_t h);
/* Minimized as Windows lists it: minimized true, visible false. */
void pg_fake_set_minimized(pg_fake *f, uint64_t id, bool minimized);
/* A surface of the desktop (X: an EWMH DESKTOP or DOCK window). */
void pg_fake_set_shared(pg_fake *f, uint64_t id, bool shared);
void pg_fake_move(pg_fake *f, uint64_t id, int32_t x, int32_t y);
void pg_fake_remove(pg_fake *f, uint64_t id);
/* Called before every capture (window or screen): a test changes the desktop
 * mid-operation (a title turns private, a window closes). */
void pg_fake_on_capture(pg_fake *f, void (*fn)(pg_fake *f, void *ctx), void *ctx);
/* Called right after the pixels of a capture were read: the desktop changes
 * between the capture and whatever the caller lists next. */
void pg_fake_after_capture(pg_fake *f, void (*fn)(pg_fake *f, void *ctx), void *ctx);
/* Called before every list_windows: windows come and go between polls. */
void pg_fake_on_list(pg_fake *f, void (*fn)(pg_fake *f, void *ctx), void *ctx);

/* Failure injection: the next `times` calls (0 = every call) of the named
 * operation ("list_windows", "list_all", "capture_window", "capture_screen", "click",
 * "move", "scroll", "drag", "key", "type_text", "focus", "settle") fail with code. */
void pg_fake_fail(pg_fake *f, const char *op, pg_err code, unsigned times);
/* The indicator as the broker last drew it (window 0: hidden), and how many
 * times indicate was called (calls may be NULL). */
const pg_indicator *pg_fake_indicated(pg_fake *f, unsigned *calls);

/* The display goes away: every later call on this handle fails
 * BROKER_UNREACHABLE with why, and lost() says so. While down (for every
 * handle of the process), opening fails: the display has not come back. */
void pg_fake_lose_display(pg_fake *f, const char *why);
/* The window's program stops answering (responding() says NO) or answers
 * again; without a window manager responding() says UNKNOWN. */
void pg_fake_freeze(pg_fake *f, uint64_t id, bool frozen);
void pg_fake_set_wm(pg_fake *f, bool running);
/* The window's program never promised to answer pings (Tk): frozen, it is
 * SILENT rather than NO. */
void pg_fake_set_silent(pg_fake *f, uint64_t id, bool silent);
/* Another process owns the window now (an app restarted under the same id). */
void pg_fake_set_pid(pg_fake *f, uint64_t id, int64_t pid);
void pg_fake_display_down(bool down);

/* key_check refuses exactly this chord, as a keyguard would ("" none):
 * tests see which chord the broker asks about. */
void pg_fake_refuse_chord(pg_fake *f, const char *chord);
/* Puts the pointer at a screen point (the user moved it). */
void pg_fake_set_pointer(pg_fake *f, int32_t x, int32_t y);

/* The next `times` inputs recorded are sent but their delivery is not
 * confirmed (an X server that kept a grabbed click queued past the wait):
 * they succeed, and unconfirmed() counts them. */
void pg_fake_unconfirm(pg_fake *f, unsigned times);

/* The input recorded so far, one line per event. */
size_t pg_fake_input_count(const pg_fake *f);
/* The pg_person person_poll (the helper's side of watch_person) reads: a
 * test reports presses and activity into it. NULL until the first poll. */
pg_person *pg_fake_polled_person(pg_fake *f);
const char *pg_fake_input(const pg_fake *f, size_t i);
/* How many captures (window and screen) ran. */
unsigned pg_fake_captures(const pg_fake *f);

#endif
