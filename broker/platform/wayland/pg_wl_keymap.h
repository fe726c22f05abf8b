/* SPDX-License-Identifier: MIT */
/* pg_wl_keymap.h - the XKB keymap a virtual keyboard (zwp_virtual_keyboard_v1)
 * types with, and the chords and text it types, as pure functions.
 *
 * What it does: a virtual keyboard sends raw keycodes under a keymap it
 * hands the compositor itself, so no character needs the desktop's layout:
 * pg_wl_keymap_build makes a keymap with one key per distinct keysym asked
 * for (each on level 1, no modifier needed) plus Shift_L, Control_L, Alt_L
 * and Super_L keys mapped to Shift, Control, Mod1 and Mod4, compiles it
 * with libxkbcommon and checks that every key yields its keysym before it
 * returns it. Keycodes are XKB keycodes: the modifiers are 9..12, the
 * keysyms from PG_WL_KEYCODE_FIRST in the order given; the protocol's key
 * request takes the evdev code, keycode - 8 (PG_WL_EVDEV).
 * Text: pg_wl_text_keysyms turns UTF-8 into keysyms (xkb_utf32_to_keysym;
 * "\n" and "\r\n" are Return, "\t" Tab); pg_wl_chunk_end cuts a keysym
 * sequence into runs of at most PG_WL_KEYMAP_MAX_KEYSYMS distinct ones, so
 * text of any length is typed with one keymap per run.
 * Chords: the syntax of the X11 backend exactly (x11_keymap.c): modifiers
 * joined by '+', the key last; modifiers ctrl|control, shift, alt,
 * super|meta, any case; the key an X keysym name (exact, then one UTF-8
 * character, then case-insensitive, then a modifier's chord name alone:
 * "ctrl"); "ctrl++" is ctrl and plus; at most 8 modifiers, 127 bytes.
 * Modifiers come back as pg_keyguard.h's PG_KEYMOD_* bits, for its check.
 * Limits: PG_WL_KEYMAP_MAX_KEYSYMS distinct keysyms per keymap, so every
 * keycode stays <= 255 (what XKB's text format and X clients hold).
 * Never: talks to a compositor, sends a key, or takes the environment's
 * default layout (XKB_DEFAULT_*: the keymap is ours alone; only the
 * include "complete" of types and compatibility comes from the system's
 * xkeyboard-config data).
 * Ownership: pg_wl_keymap's text is malloc'd: pg_wl_keymap_free; the
 * keysym array of pg_wl_text_keysyms is the caller's to free.
 */
#ifndef PG_WL_KEYMAP_H
#define PG_WL_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"

#define PG_WL_KEYMAP_MAX_KEYSYMS 240
#define PG_WL_KEYCODE_SHIFT 9
#define PG_WL_KEYCODE_CTRL 10
#define PG_WL_KEYCODE_ALT 11
#define PG_WL_KEYCODE_SUPER 12
#define PG_WL_KEYCODE_FIRST 13 /* the first keysym's key; the last is 13 + 239 = 252 */
#define PG_WL_EVDEV(keycode) ((keycode) - 8u)

typedef struct {
    char *text;  /* the keymap, XKB_KEYMAP_FORMAT_TEXT_V1, NUL-terminated (malloc'd) */
    size_t size; /* strlen(text) + 1: the size the protocol's keymap request is given */
    uint32_t keysyms[PG_WL_KEYMAP_MAX_KEYSYMS]; /* keysyms[i] is on keycode PG_WL_KEYCODE_FIRST + i */
    size_t n;
    /* Depressed-modifier masks for the protocol's modifiers request. */
    uint32_t mask_shift, mask_ctrl, mask_alt, mask_super;
} pg_wl_keymap;

/* A keymap for the distinct keysyms of keysyms[0..n) (repeats share a key;
 * the four modifier keysyms are the modifier keys). PG_E_BADINPUT for
 * NoSymbol, a value past 0x1fffffff, or more than PG_WL_KEYMAP_MAX_KEYSYMS distinct keysyms;
 * PG_E_INTERNAL when xkbcommon rejects the keymap or a key does not yield
 * its keysym. On error *out holds nothing to free. */
pg_err pg_wl_keymap_build(const uint32_t *keysyms, size_t n, pg_wl_keymap *out, pg_error *e);
void pg_wl_keymap_free(pg_wl_keymap *k);

/* The XKB keycode typing keysym on k, 0 when k has none. */
uint32_t pg_wl_keymap_keycode(const pg_wl_keymap *k, uint32_t keysym);

/* The depressed mask for a set of PG_KEYMOD_* bits. */
uint32_t pg_wl_keymap_mods_mask(const pg_wl_keymap *k, unsigned mods);

/* The keysyms typing utf8 (len bytes), in order: *syms malloc'd (NULL when
 * *n is 0). PG_E_BADINPUT naming the byte offset for invalid UTF-8, or for
 * a character without a keysym (NUL, other control characters). */
pg_err pg_wl_text_keysyms(const char *utf8, size_t len, uint32_t **syms, size_t *n, pg_error *e);

/* The end of the run starting at from: the largest end <= n such that
 * syms[from..end) has at most PG_WL_KEYMAP_MAX_KEYSYMS distinct keysyms
 * (end > from whenever from < n). */
size_t pg_wl_chunk_end(const uint32_t *syms, size_t n, size_t from);

/* A chord ("ctrl+a", "shift+Tab", "Return", "alt+F4", "super+l"): its
 * modifiers (PG_KEYMOD_* bits) and its key's keysym. PG_E_BADINPUT naming
 * the part that is not a modifier or not a key. */
pg_err pg_wl_chord_parse(const char *chord, unsigned *mods, uint32_t *keysym, pg_error *e);

#endif
