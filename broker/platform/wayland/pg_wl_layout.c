/* SPDX-License-Identifier: MIT */
/* pg_wl_layout.c - the layout keymap a virtual keyboard holds (pg_wl_layout.h). */
#include "pg_wl_layout.h"

#include <stdlib.h>
#include <string.h>

#include <xkbcommon/xkbcommon.h>

#include "pg_keyguard.h"

struct pg_wl_layout {
    struct xkb_context *ctx;
    struct xkb_keymap *km;
    char *text;
    size_t size;
};

static const struct {
    unsigned bit;
    const char *mod;
    uint32_t sym;
} MODS[] = {{PG_KEYMOD_SHIFT, XKB_MOD_NAME_SHIFT, XKB_KEY_Shift_L},
            {PG_KEYMOD_CTRL, XKB_MOD_NAME_CTRL, XKB_KEY_Control_L},
            {PG_KEYMOD_ALT, XKB_MOD_NAME_ALT, XKB_KEY_Alt_L},
            {PG_KEYMOD_SUPER, XKB_MOD_NAME_LOGO, XKB_KEY_Super_L}};

pg_err pg_wl_layout_new(pg_wl_layout **out, pg_error *e) {
    pg_wl_layout *l = calloc(1, sizeof *l);
    if (l) l->ctx = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
    if (l && l->ctx) l->km = xkb_keymap_new_from_names(l->ctx, NULL, XKB_KEYMAP_COMPILE_NO_FLAGS);
    if (l && l->km) l->text = xkb_keymap_get_as_string(l->km, XKB_KEYMAP_FORMAT_TEXT_V1);
    if (!l || !l->text) {
        pg_wl_layout_free(l);
        return pg_error_set(e, PG_E_UNSUPPORTED, "install xkb-data (xkeyboard-config)",
                            "the default keyboard layout could not be compiled (XKB_DEFAULT_*, xkeyboard-config)");
    }
    l->size = strlen(l->text) + 1;
    *out = l;
    return PG_OK;
}

void pg_wl_layout_free(pg_wl_layout *l) {
    if (!l) return;
    free(l->text);
    xkb_keymap_unref(l->km);
    xkb_context_unref(l->ctx);
    free(l);
}

const char *pg_wl_layout_text(const pg_wl_layout *l, size_t *size) {
    *size = l->size;
    return l->text;
}

/* Level 2 is Shift's on this key (its type maps Shift alone to level 2). */
static bool level2_is_shift(struct xkb_keymap *km, xkb_keycode_t kc) {
    /* xkbcommon has no query for a key's type: ask a state with Shift held
     * which level the key is at. */
    struct xkb_state *st = xkb_state_new(km);
    if (!st) return false;
    xkb_mod_index_t shift = xkb_keymap_mod_get_index(km, XKB_MOD_NAME_SHIFT);
    xkb_state_update_mask(st, 1u << shift, 0, 0, 0, 0, 0);
    bool ok = xkb_state_key_get_level(st, kc, 0) == 1;
    xkb_state_unref(st);
    return ok;
}

static bool level_has(struct xkb_keymap *km, xkb_keycode_t kc, xkb_level_index_t level, uint32_t sym) {
    const xkb_keysym_t *syms;
    int n = xkb_keymap_key_get_syms_by_level(km, kc, 0, level, &syms);
    return n == 1 && syms[0] == sym;
}

bool pg_wl_layout_key(const pg_wl_layout *l, uint32_t sym, uint32_t *keycode, bool *shift) {
    xkb_keycode_t lo = xkb_keymap_min_keycode(l->km), hi = xkb_keymap_max_keycode(l->km);
    for (xkb_level_index_t level = 0; level < 2; level++)
        for (xkb_keycode_t kc = lo; kc <= hi && kc <= 255; kc++) {
            if (!level_has(l->km, kc, level, sym)) continue;
            if (level == 1 && !level2_is_shift(l->km, kc)) continue;
            *keycode = kc;
            *shift = level == 1;
            return true;
        }
    return false;
}

uint32_t pg_wl_layout_mods_mask(const pg_wl_layout *l, unsigned mods) {
    uint32_t mask = 0;
    for (size_t i = 0; i < sizeof MODS / sizeof *MODS; i++) {
        xkb_mod_index_t idx = xkb_keymap_mod_get_index(l->km, MODS[i].mod);
        if ((mods & MODS[i].bit) && idx != XKB_MOD_INVALID && idx < 32) mask |= 1u << idx;
    }
    return mask;
}

uint32_t pg_wl_layout_mod_key(const pg_wl_layout *l, unsigned mod) {
    for (size_t i = 0; i < sizeof MODS / sizeof *MODS; i++) {
        uint32_t kc;
        bool shift;
        if (MODS[i].bit == mod && pg_wl_layout_key(l, MODS[i].sym, &kc, &shift) && !shift) return kc;
    }
    return 0;
}
