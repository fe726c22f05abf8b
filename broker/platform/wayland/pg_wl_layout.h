/* SPDX-License-Identifier: MIT */
/* pg_wl_layout.h - the keyboard layout a virtual keyboard types chords and
 * ordinary text with, so that keys land on the keycodes applications expect.
 *
 * Why not one made-up keymap per call (pg_wl_keymap.h) for everything:
 * measured with GTK 3 on sway 1.7, a client maps its key bindings
 * (BackSpace, the arrows, ctrl+a) to keycodes once and does not follow a
 * later keymap, so a BackSpace sent on any other keycode arrives with the
 * right keysym and does nothing (wtype's keys fail the same way). Text is
 * committed from the keysym and works under any keymap; bindings need the
 * layout's own keycodes. So the virtual keyboard holds this layout from its
 * creation on, chords and every character the layout has are typed on it,
 * and only characters it lacks go through a keymap made for them.
 * The layout is xkbcommon's default for the environment (XKB_DEFAULT_RULES,
 * _MODEL, _LAYOUT, _VARIANT, _OPTIONS; else evdev, pc105, us), compiled from
 * the system's xkeyboard-config data.
 * Levels: a keysym is typed at level 1 of group 1, or at level 2 with Shift
 * where the key's type makes level 2 Shift's (TWO_LEVEL, ALPHABETIC, the
 * keypad's); no other levels (AltGr) are used.
 * Never: talks to a compositor; keeps state beyond the compiled keymap.
 */
#ifndef PG_WL_LAYOUT_H
#define PG_WL_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"

typedef struct pg_wl_layout pg_wl_layout;

pg_err pg_wl_layout_new(pg_wl_layout **out, pg_error *e);
void pg_wl_layout_free(pg_wl_layout *l);
/* The keymap as text (XKB_KEYMAP_FORMAT_TEXT_V1) and its size with the NUL. */
const char *pg_wl_layout_text(const pg_wl_layout *l, size_t *size);
/* The key typing sym: its XKB keycode and whether it takes Shift. false:
 * the layout has no such key (at level 1 or 2). */
bool pg_wl_layout_key(const pg_wl_layout *l, uint32_t sym, uint32_t *keycode, bool *shift);
/* The depressed-modifier mask of PG_KEYMOD_* bits on this layout. */
uint32_t pg_wl_layout_mods_mask(const pg_wl_layout *l, unsigned mods);
/* The keycode of the left modifier key of one PG_KEYMOD_* bit (0: none). */
uint32_t pg_wl_layout_mod_key(const pg_wl_layout *l, unsigned mod);

#endif
