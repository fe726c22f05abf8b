/* SPDX-License-Identifier: MIT */
/* pg_wlr_keys.c - keys through the virtual keyboard: chords, any Unicode
 * text and held keys, checked the way the X11 backend checks its own
 * (chords through pg_keyguard.h, the target focused first, text only while
 * it keeps the focus).
 *
 * Which keymap: the keyboard holds the desktop's layout (pg_wl_layout.h)
 * from its creation on, and every chord and character that layout has is
 * typed on it, on the keycodes applications bound their shortcuts to
 * (GTK does not follow a later keymap for its bindings: pg_wl_layout.h).
 * A run of characters the layout lacks is typed on a keymap made for that
 * run (pg_wl_keymap.h), and the layout is put back before the next key
 * that needs it. A keymap goes to the compositor before its keys on the same
 * connection, and the compositor passes it on to the focused client ahead
 * of them, in order.
 */
/* memfd_create: _GNU_SOURCE, which the build defines */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <wayland-client.h>
#include <xkbcommon/xkbcommon.h>

#include "pg_keyguard.h"
#include "pg_wl_keymap.h"
#include "pg_wl_layout.h"
#include "pg_wlr_private.h"
#include "virtual-keyboard-v1-client.h"

/* One key with the modifiers it is typed with: keycodes on the keymap the
 * keyboard holds when it is sent. */
typedef struct {
    uint32_t key;
    uint32_t mod_keys[4]; /* by PG_KEYMOD_* bit order: shift, ctrl, alt, super */
    unsigned mods;
    uint32_t mask;        /* the depressed-modifier mask of mods */
} stroke;

static pg_err upload(pg_platform *p, const char *text, size_t size, pg_error *e) {
    int fd = memfd_create("pixelgate-keymap", MFD_CLOEXEC);
    if (fd < 0) return pg_error_set(e, PG_E_INTERNAL, NULL, "memfd_create: %s", strerror(errno));
    if (write(fd, text, size) != (ssize_t)size) {
        close(fd);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "writing the keymap: %s", strerror(errno));
    }
    zwp_virtual_keyboard_v1_keymap(p->keyboard, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, (uint32_t)size);
    close(fd);
    return PG_OK;
}

static pg_err hold_layout(pg_platform *p, pg_error *e) {
    if (p->holds_layout) return PG_OK;
    size_t size;
    const char *text = pg_wl_layout_text(p->layout, &size);
    pg_err rc = upload(p, text, size, e);
    p->holds_layout = rc == PG_OK;
    return rc;
}

static pg_err hold_keymap(pg_platform *p, const pg_wl_keymap *k, pg_error *e) {
    p->holds_layout = false;
    return upload(p, k->text, k->size, e);
}

pg_err wlr_keys_start(pg_platform *p, pg_error *e) {
    if (!p->keyboard) return PG_OK;
    pg_err rc = pg_wl_layout_new(&p->layout, e);
    return rc ? rc : hold_layout(p, e);
}

/* keycode is an XKB keycode; the protocol takes evdev's (8 less). */
static void key_event(pg_platform *p, uint32_t keycode, bool down) {
    zwp_virtual_keyboard_v1_key(p->keyboard, wlr_time_ms(), PG_WL_EVDEV(keycode),
                                down ? WL_KEYBOARD_KEY_STATE_PRESSED : WL_KEYBOARD_KEY_STATE_RELEASED);
}

/* The modifiers held down by hold (key-down ctrl), on the layout. */
static uint32_t held_mask(const pg_platform *p) {
    return p->mods_held && p->layout ? pg_wl_layout_mods_mask(p->layout, p->mods_held) : 0;
}

static void send_stroke(pg_platform *p, const stroke *s) {
    for (unsigned i = 0; i < 4; i++)
        if (s->mods & (1u << i)) key_event(p, s->mod_keys[i], true);
    if (s->mods) zwp_virtual_keyboard_v1_modifiers(p->keyboard, s->mask | held_mask(p), 0, 0, 0);
    key_event(p, s->key, true);
    key_event(p, s->key, false);
    for (unsigned i = 4; i-- > 0;)
        if (s->mods & (1u << i)) key_event(p, s->mod_keys[i], false);
    if (s->mods) zwp_virtual_keyboard_v1_modifiers(p->keyboard, held_mask(p), 0, 0, 0);
}

/* sym with mods on the layout: false when the layout has no key for it. */
static bool on_layout(const pg_platform *p, uint32_t sym, unsigned mods, stroke *s) {
    bool shift;
    if (!p->layout || !pg_wl_layout_key(p->layout, sym, &s->key, &shift)) return false;
    s->mods = mods | (shift ? PG_KEYMOD_SHIFT : 0);
    for (unsigned i = 0; i < 4; i++) s->mod_keys[i] = pg_wl_layout_mod_key(p->layout, 1u << i);
    s->mask = pg_wl_layout_mods_mask(p->layout, s->mods);
    return true;
}

static const uint32_t MOD_SYMS[4] = {XKB_KEY_Shift_L, XKB_KEY_Control_L, XKB_KEY_Alt_L, XKB_KEY_Super_L};

static void on_keymap(const pg_wl_keymap *k, uint32_t sym, unsigned mods, stroke *s) {
    s->key = pg_wl_keymap_keycode(k, sym);
    s->mods = mods;
    for (unsigned i = 0; i < 4; i++) s->mod_keys[i] = pg_wl_keymap_keycode(k, MOD_SYMS[i]);
    s->mask = pg_wl_keymap_mods_mask(k, mods);
}

pg_err wlr_key_check(pg_platform *p, const char *chord, pg_error *e) {
    unsigned mods;
    uint32_t sym;
    pg_err rc = wlr_need(p, true, e);
    if (!rc) rc = pg_wl_chord_parse(chord, &mods, &sym, e);
    return rc ? rc : pg_keyguard_check(chord, mods, sym, sym, false, e);
}

/* Focuses id (sway applies it before answering) and checks it took. */
static pg_err focus_for_keys(pg_platform *p, uint64_t id, pg_error *e) {
    pg_err rc = wlr_need(p, true, e);
    if (!rc) rc = wlr_focus(p, id, e);
    pg_window w;
    if (!rc) rc = wlr_view(p, id, &w, e);
    if (!rc && !w.focused)
        rc = pg_error_set(e, PG_E_POLICY, "close what holds the focus (a lock screen, a menu)",
                          "window %llu did not take the focus", (unsigned long long)id);
    return rc;
}

/* One keysym with mods, on the layout when it has it, else on a keymap of
 * its own. */
static pg_err send_sym(pg_platform *p, uint32_t sym, unsigned mods, pg_error *e) {
    stroke s;
    if (on_layout(p, sym, mods, &s)) {
        pg_err rc = hold_layout(p, e);
        if (!rc) send_stroke(p, &s);
        return rc;
    }
    pg_wl_keymap k = {0};
    pg_err rc = pg_wl_keymap_build(&sym, 1, &k, e);
    if (!rc) rc = hold_keymap(p, &k, e);
    if (!rc) on_keymap(&k, sym, mods, &s), send_stroke(p, &s);
    pg_wl_keymap_free(&k);
    return rc;
}

pg_err wlr_key(pg_platform *p, uint64_t id, const char *chord, pg_error *e) {
    unsigned mods;
    uint32_t sym;
    pg_err rc = wlr_key_check(p, chord, e);
    if (!rc) rc = pg_wl_chord_parse(chord, &mods, &sym, e);
    if (!rc) rc = focus_for_keys(p, id, e);
    if (!rc) rc = send_sym(p, sym, mods, e);
    return rc ? rc : wlr_sync(p, e);
}

/* Types syms[from..) that the layout lacks, up to the first it has or
 * the keymap's limit, on one keymap; *end: where it stopped. */
static pg_err type_foreign_run(pg_platform *p, const uint32_t *syms, size_t n, size_t from, size_t *end,
                               pg_error *e) {
    stroke s;
    size_t limit = pg_wl_chunk_end(syms, n, from), to = from;
    while (to < limit && !on_layout(p, syms[to], 0, &s)) to++;
    pg_wl_keymap k = {0};
    pg_err rc = pg_wl_keymap_build(syms + from, to - from, &k, e);
    if (!rc) rc = hold_keymap(p, &k, e);
    for (size_t i = from; i < to && !rc; i++) on_keymap(&k, syms[i], 0, &s), send_stroke(p, &s);
    pg_wl_keymap_free(&k);
    *end = to;
    return rc;
}

/* Types syms[from..) that the layout has, at most PG_WL_KEYMAP_MAX_KEYSYMS
 * (a focus check comes between runs); *end: where it stopped. */
static pg_err type_layout_run(pg_platform *p, const uint32_t *syms, size_t n, size_t from, size_t *end,
                              pg_error *e) {
    stroke s;
    pg_err rc = hold_layout(p, e);
    size_t i = from;
    for (; !rc && i < n && i - from < PG_WL_KEYMAP_MAX_KEYSYMS && on_layout(p, syms[i], 0, &s); i++) send_stroke(p, &s);
    *end = i;
    return rc;
}

/* The keys typed so far went to id, which still has the focus? */
static pg_err still_focused(pg_platform *p, uint64_t id, size_t typed, size_t total, pg_error *e) {
    pg_window w;
    pg_err rc = wlr_view(p, id, &w, e);
    if (!rc && !w.focused)
        rc = pg_error_set(e, PG_E_POLICY, "focus the window and type the rest",
                          "window %llu lost the focus after %zu of %zu characters", (unsigned long long)id, typed,
                          total);
    return rc;
}

pg_err wlr_type_text(pg_platform *p, uint64_t id, const char *utf8, pg_error *e) {
    uint32_t *syms = NULL;
    size_t n = 0;
    pg_err rc = pg_wl_text_keysyms(utf8, strlen(utf8), &syms, &n, e);
    if (!rc) rc = focus_for_keys(p, id, e);
    for (size_t at = 0; at < n && !rc;) {
        stroke s;
        size_t end = at;
        if (at > 0) rc = still_focused(p, id, at, n, e);
        if (!rc && on_layout(p, syms[at], 0, &s)) rc = type_layout_run(p, syms, n, at, &end, e);
        else if (!rc) rc = type_foreign_run(p, syms, n, at, &end, e);
        if (!rc) rc = wlr_sync(p, e);
        at = end;
    }
    free(syms);
    return rc;
}

static const char *const MOD_NAMES[4] = {"shift", "ctrl", "alt", "super"};

/* Keys the compositor treats as modifiers or locks: held only by their
 * chord names, which is what the broker's chord rule reads. */
static bool is_modifier_sym(uint32_t sym) {
    return (sym >= XKB_KEY_Shift_L && sym <= XKB_KEY_Hyper_R) || sym == XKB_KEY_ISO_Level3_Shift ||
           sym == XKB_KEY_ISO_Level5_Shift || sym == XKB_KEY_Mode_switch || sym == XKB_KEY_Num_Lock;
}

/* The one key of a hold: a modifier by its chord name, else one key. */
static pg_err hold_sym(const pg_hold *h, uint32_t *sym, unsigned *mod, pg_error *e) {
    *mod = 0;
    for (unsigned i = 0; i < 4; i++)
        if (!strcmp(h->key, MOD_NAMES[i])) return *mod = 1u << i, *sym = MOD_SYMS[i], PG_OK;
    unsigned mods;
    pg_err rc = pg_wl_chord_parse(h->key, &mods, sym, e);
    if (!rc && mods) rc = pg_error_set(e, PG_E_BADINPUT, NULL, "hold one key, not the chord \"%s\"", h->key);
    if (!rc && is_modifier_sym(*sym))
        rc = pg_error_set(e, PG_E_BADINPUT, "hold a modifier by its chord name: ctrl, shift, alt, super",
                          "\"%s\" is a modifier key", h->key);
    return rc;
}

/* A held key stays on the layout (a made-up keymap would be replaced by the
 * next call's, under the held key). */
pg_err wlr_hold_key(pg_platform *p, const pg_hold *h, pg_error *e) {
    uint32_t sym;
    unsigned mod;
    stroke s;
    pg_err rc = hold_sym(h, &sym, &mod, e);
    if (!rc && h->down) rc = pg_keyguard_check(h->key, 0, sym, sym, false, e);
    if (!rc && h->down) rc = focus_for_keys(p, h->id, e);
    if (!rc && !on_layout(p, sym, 0, &s))
        rc = pg_error_set(e, PG_E_UNSUPPORTED, "type the character instead of holding it",
                          "the keyboard layout has no key \"%s\" to hold", h->key);
    if (!rc) rc = hold_layout(p, e);
    if (rc) return rc;
    key_event(p, s.key, h->down);
    if (mod) {
        p->mods_held = h->down ? p->mods_held | mod : p->mods_held & ~mod;
        zwp_virtual_keyboard_v1_modifiers(p->keyboard, held_mask(p), 0, 0, 0);
    }
    return wlr_sync(p, e);
}
