/* SPDX-License-Identifier: MIT */
/* x11_keymap.c - from chords and UTF-8 text to XTest key events.
 *
 * Contract: the server's current keymap is read with libxkbcommon-x11 (per
 * call: other clients may change it) and turned into a table keysym ->
 * (keycode, Shift?, Level3?), each entry verified by asking xkbcommon what the
 * key yields with those modifiers plus the currently LOCKED ones (Caps Lock,
 * Num Lock), so text comes out right whatever the lock state.
 * A character that no key yields (e.g. "é€ü" on a US map, emoji) is typed by
 * mapping its keysym (xkb_utf32_to_keysym) onto a spare keycode - one without
 * any symbol - pressing it, and restoring the spare to NoSymbol afterwards.
 * Clients fetch a changed keymap lazily, and Tk even looks keys up when it
 * reads them, ahead of handling the MappingNotify queued before them. So
 * both edges of a remap wait until the client has caught up - proven by its
 * answer to a _NET_WM_PING (clients handle events in order; Tk answers
 * without advertising it), at most X11_PING_TIMEOUT_MS; a client that does
 * not answer gets X11_NO_PING_SETTLE_MS pauses instead: keys are sent only
 * after the client refreshed its keymap, and the restore only after it
 * handled the keys (and never sooner than X11_REMAP_SETTLE_MS after them).
 * Several characters share one remap/restore cycle (one keycode each), so the
 * wait is paid per batch, not per character. The restore runs on every path,
 * error or not.
 * Chords: "mod+mod+key"; modifiers ctrl|control, shift, alt, super|meta
 * (meta = the Super key, as on PC keyboards labelled with a logo); key = an
 * X keysym name (xkb_keysym_from_name, exact, then case-insensitive: "Return",
 * "F4", "a", "plus") or one UTF-8 character ("+", "é").
 * Typing checks before each character that the focus is still inside the
 * target and stops otherwise (PG_E_POLICY: how many characters went out);
 * a chord is checked against pg_keyguard.h first, by the keysym named and
 * by what the keymap yields for its key with the chord's modifiers.
 * Never: leaves a modifier pressed or a spare keycode mapped, or sends a
 * chord pg_keyguard.h refuses.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <xcb/xtest.h>
#include <xkbcommon/xkbcommon-x11.h>

#include "pg_keyguard.h"
#include "x11_private.h"

#define MAX_SPARES 32
#define MAX_BATCH 256

enum { MOD_SHIFT = 1, MOD_LVL3 = 2 };

typedef struct {
    xkb_keysym_t sym;
    uint8_t code;
    uint8_t mods; /* MOD_SHIFT | MOD_LVL3 needed to reach sym */
} key_entry;

struct x11_keymap {
    key_entry *table;
    size_t n;
    uint8_t spare[MAX_SPARES];
    size_t nspare;
    uint8_t per_code; /* keysyms per keycode in the core map */
    uint8_t shift_code, lvl3_code;
    int pings; /* target answered _NET_WM_PING: -1 not yet asked, 0 no, 1 yes */
    struct xkb_keymap *km;       /* what a chord's key yields with its modifiers (pg_keyguard) */
    xkb_mod_mask_t locked;
    xkb_layout_index_t layout;
};

typedef struct {
    uint8_t code, mods;
    uint8_t chars; /* code points of the text it types (2 for CRLF) */
} stroke;

/* Where typing stands: the focus must stay inside target. */
typedef struct {
    xcb_window_t target;
    xcb_window_t focus_ok; /* the focus window last found inside target */
    size_t typed, total;   /* code points sent / in the text */
} typing;

/* ---------------------------------------------------------------- loading */

static void add_entries(x11_keymap *k, struct xkb_keymap *km, struct xkb_state *st,
                        xkb_mod_mask_t depressed, xkb_mod_mask_t locked, xkb_layout_index_t layout,
                        uint8_t mods) {
    xkb_state_update_mask(st, depressed, 0, locked, 0, 0, layout);
    xkb_keycode_t lo = xkb_keymap_min_keycode(km), hi = xkb_keymap_max_keycode(km);
    for (xkb_keycode_t kc = lo < 8 ? 8 : lo; kc <= hi && kc <= 255; kc++) {
        xkb_keysym_t s = xkb_state_key_get_one_sym(st, kc);
        if (s == XKB_KEY_NoSymbol) continue;
        bool known = false;
        for (size_t i = 0; i < k->n && !known; i++) known = k->table[i].sym == s;
        if (!known) k->table[k->n++] = (key_entry){s, (uint8_t)kc, mods};
    }
}

/* keysym -> key table, preferring no modifier, then Shift, Level3, both. */
static pg_err build_table(x11_keymap *k, struct xkb_keymap *km, struct xkb_state *dev,
                          pg_error *e) {
    k->table = calloc(4 * 256, sizeof *k->table);
    struct xkb_state *st = xkb_state_new(km);
    if (!k->table || !st) {
        xkb_state_unref(st);
        return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    }
    xkb_layout_index_t layout = xkb_state_serialize_layout(dev, XKB_STATE_LAYOUT_EFFECTIVE);
    xkb_mod_mask_t locked = xkb_state_serialize_mods(dev, XKB_STATE_MODS_LOCKED);
    xkb_mod_index_t si = xkb_keymap_mod_get_index(km, XKB_MOD_NAME_SHIFT);
    xkb_mod_index_t li = xkb_keymap_mod_get_index(km, "Mod5"); /* where LevelThree lives */
    xkb_mod_mask_t shift = si == XKB_MOD_INVALID ? 0 : 1u << si;
    xkb_mod_mask_t lvl3 = li == XKB_MOD_INVALID ? 0 : 1u << li;
    add_entries(k, km, st, 0, locked, layout, 0);
    for (size_t i = 0; i < k->n; i++) {
        if (k->table[i].sym == XKB_KEY_Shift_L && !k->shift_code) k->shift_code = k->table[i].code;
        if (k->table[i].sym == XKB_KEY_ISO_Level3_Shift && !k->lvl3_code) k->lvl3_code = k->table[i].code;
    }
    if (shift && k->shift_code) add_entries(k, km, st, shift, locked, layout, MOD_SHIFT);
    if (lvl3 && k->lvl3_code) add_entries(k, km, st, lvl3, locked, layout, MOD_LVL3);
    if (shift && lvl3 && k->shift_code && k->lvl3_code)
        add_entries(k, km, st, shift | lvl3, locked, layout, MOD_SHIFT | MOD_LVL3);
    xkb_state_unref(st);
    k->locked = locked;
    k->layout = layout;
    return PG_OK;
}

/* Keycodes without any symbol in the core map: safe to borrow. */
static pg_err find_spares(pg_platform *p, x11_keymap *k, pg_error *e) {
    const xcb_setup_t *s = xcb_get_setup(p->c);
    uint8_t lo = s->min_keycode, hi = s->max_keycode;
    pg_err rc = PG_OK;
    xcb_get_keyboard_mapping_reply_t *r = x11_take(
        p, xcb_get_keyboard_mapping(p->c, lo, (uint8_t)(hi - lo + 1)).sequence, &rc, e);
    if (!r) return rc != PG_OK ? rc : pg_error_set(e, PG_E_INTERNAL, NULL, "GetKeyboardMapping failed");
    k->per_code = r->keysyms_per_keycode;
    const xcb_keysym_t *syms = xcb_get_keyboard_mapping_keysyms(r);
    int total = xcb_get_keyboard_mapping_keysyms_length(r);
    /* From the top: high keycodes are the ones keyboards do not have. */
    for (int kc = hi; kc >= lo && k->nspare < MAX_SPARES; kc--) {
        int base = (kc - lo) * k->per_code;
        bool empty = base + k->per_code <= total;
        for (int i = 0; empty && i < k->per_code; i++) empty = syms[base + i] == 0;
        if (empty) k->spare[k->nspare++] = (uint8_t)kc;
    }
    free(r);
    return PG_OK;
}

pg_err x11_keymap_load(pg_platform *p, x11_keymap **out, pg_error *e) {
    *out = NULL;
    if (!p->xkb.present)
        return pg_error_set(e, PG_E_UNSUPPORTED, NULL, "the X server has no XKB extension");
    /* xkbcommon-x11 waits without a deadline: only ask a server that answers. */
    pg_err rc = x11_sync(p, e);
    if (rc != PG_OK) return rc;
    x11_keymap *k = calloc(1, sizeof *k);
    if (k) k->pings = -1;
    struct xkb_keymap *km = xkb_x11_keymap_new_from_device(p->xkb_ctx, p->c, p->kbd_device,
                                                           XKB_KEYMAP_COMPILE_NO_FLAGS);
    struct xkb_state *dev = km ? xkb_x11_state_new_from_device(km, p->c, p->kbd_device) : NULL;
    if (!k || !dev) rc = pg_error_set(e, PG_E_INTERNAL, NULL, "cannot read the X keymap");
    if (rc == PG_OK) rc = build_table(k, km, dev, e);
    if (rc == PG_OK) rc = find_spares(p, k, e);
    if (rc == PG_OK) k->km = xkb_keymap_ref(km);
    xkb_state_unref(dev);
    xkb_keymap_unref(km);
    if (rc != PG_OK) {
        x11_keymap_free(k);
        return rc;
    }
    *out = k;
    return PG_OK;
}

void x11_keymap_free(x11_keymap *k) {
    if (!k) return;
    xkb_keymap_unref(k->km);
    free(k->table);
    free(k);
}

static const key_entry *lookup(const x11_keymap *k, xkb_keysym_t sym) {
    for (size_t i = 0; i < k->n; i++)
        if (k->table[i].sym == sym) return &k->table[i];
    return NULL;
}

/* ---------------------------------------------------------------- pressing */

static void press_stroke(pg_platform *p, const x11_keymap *k, stroke s) {
    if (s.mods & MOD_SHIFT) x11_fake_key(p, k->shift_code, true);
    if (s.mods & MOD_LVL3) x11_fake_key(p, k->lvl3_code, true);
    x11_fake_key(p, s.code, true);
    x11_fake_key(p, s.code, false);
    if (s.mods & MOD_LVL3) x11_fake_key(p, k->lvl3_code, false);
    if (s.mods & MOD_SHIFT) x11_fake_key(p, k->shift_code, false);
}

/* Map each spare code[i] to syms[i], or back to NoSymbol. The keysym goes on
 * both levels of the first group only (as xdotool does), so Shift or Caps
 * Lock cannot change it and the key gets no extra XKB groups. */
static void set_spares(pg_platform *p, const x11_keymap *k, const uint8_t *code,
                       const xkb_keysym_t *syms, size_t n) {
    xcb_keysym_t col[16] = {0};
    uint8_t per = syms ? 2 : (k->per_code < 16 ? k->per_code : 16);
    for (size_t i = 0; i < n; i++) {
        col[0] = col[1] = syms ? syms[i] : 0;
        xcb_change_keyboard_mapping(p->c, 1, code[i], per, col);
    }
}

/* Wait until the client has handled every event sent so far: its answer to
 * a ping or, for a client that did not answer on this call, a fixed pause. */
static pg_err catch_up(pg_platform *p, x11_keymap *k, xcb_window_t target, pg_error *e) {
    if (k->pings == 0) {
        pg_sleep_ms(X11_NO_PING_SETTLE_MS);
        return PG_OK;
    }
    bool answered = false;
    pg_err rc = x11_wait_client(p, target, X11_PING_TIMEOUT_MS, &answered, e);
    k->pings = answered ? 1 : 0;
    return rc;
}

/* Give the borrowed keycodes back once the client has read the keys. */
static pg_err restore_spares(pg_platform *p, x11_keymap *k, xcb_window_t target, size_t n,
                             pg_err rc, pg_error *e) {
    double t0 = pg_mono_ms();
    pg_error ignored;
    if (rc == PG_OK) rc = catch_up(p, k, target, e);
    double spent = pg_mono_ms() - t0;
    if (spent < X11_REMAP_SETTLE_MS) pg_sleep_ms(X11_REMAP_SETTLE_MS - spent);
    set_spares(p, k, k->spare, NULL, n);
    pg_err r2 = x11_sync(p, rc == PG_OK ? e : &ignored);
    return rc == PG_OK ? r2 : rc;
}

/* Borrow spares for syms and wait until the client has refreshed its keymap:
 * toolkits such as Tk look keys up as soon as they read them, before they
 * handle the MappingNotify queued ahead, so keys must not arrive earlier. */
static pg_err borrow_spares(pg_platform *p, x11_keymap *k, xcb_window_t target,
                            const xkb_keysym_t *syms, size_t n, pg_error *e) {
    set_spares(p, k, k->spare, syms, n);
    pg_err rc = x11_sync(p, e);
    return rc == PG_OK ? catch_up(p, k, target, e) : rc;
}

/* PG_OK while the focus is inside the target. One round trip when the focus
 * window is the one last found inside; the round trip also comes after
 * every key sent so far, so the server has delivered them by its answer:
 * a focus that moved meanwhile took at most the last character. */
static pg_err still_focused(pg_platform *p, typing *t, pg_error *e) {
    pg_err rc = PG_OK;
    xcb_get_input_focus_reply_t *f = x11_take(p, xcb_get_input_focus(p->c).sequence, &rc, e);
    xcb_window_t w = f ? f->focus : XCB_NONE;
    free(f);
    if (rc != PG_OK) return rc;
    if (w > 1 && w == t->focus_ok) return PG_OK;
    if (x11_is_inside(p, w, t->target, &rc, e)) {
        t->focus_ok = w;
        return PG_OK;
    }
    if (rc != PG_OK) return rc;
    return pg_error_set(e, PG_E_POLICY, "focus the window again and type the rest",
                        "typing stopped: the focus left window %u after %zu of %zu characters (the last of "
                        "them may have reached the window that took it); nothing more was typed",
                        (unsigned)t->target, t->typed, t->total);
}

/* One remap/type/restore cycle, the focus checked before each key. The
 * restore runs whatever happened. */
static pg_err run_batch(pg_platform *p, x11_keymap *k, typing *t, const stroke *s, size_t ns,
                        const xkb_keysym_t *remap, size_t nremap, pg_error *e) {
    pg_err rc = nremap ? borrow_spares(p, k, t->target, remap, nremap, e) : PG_OK;
    for (size_t i = 0; rc == PG_OK && i < ns; i++) {
        rc = still_focused(p, t, e);
        if (rc != PG_OK) break;
        press_stroke(p, k, s[i]);
        t->typed += s[i].chars;
    }
    if (rc == PG_OK) rc = x11_sync(p, e);
    return nremap ? restore_spares(p, k, t->target, nremap, rc, e) : rc;
}

/* ---------------------------------------------------------------- text */

typedef struct {
    stroke s[MAX_BATCH];
    size_t ns;
    xkb_keysym_t remap[MAX_SPARES];
    size_t nremap;
} batch;

static xkb_keysym_t sym_for(uint32_t cp) {
    if (cp == '\n' || cp == '\r') return XKB_KEY_Return;
    if (cp == '\t') return XKB_KEY_Tab;
    return xkb_utf32_to_keysym(cp);
}

/* Queue one keysym standing for chars code points; flushes the batch when
 * it is full. */
static pg_err queue_sym(pg_platform *p, x11_keymap *k, typing *t, batch *b, xkb_keysym_t sym, uint8_t chars,
                        pg_error *e) {
    pg_err rc = PG_OK;
    const key_entry *ke = lookup(k, sym);
    size_t slot = 0;
    if (!ke) {
        while (slot < b->nremap && b->remap[slot] != sym) slot++;
        if (slot == b->nremap && b->nremap == k->nspare) {
            if ((rc = run_batch(p, k, t, b->s, b->ns, b->remap, b->nremap, e)) != PG_OK) return rc;
            b->ns = b->nremap = 0;
            slot = 0;
        }
        if (slot == b->nremap) b->remap[b->nremap++] = sym;
    }
    b->s[b->ns++] = ke ? (stroke){ke->code, ke->mods, chars} : (stroke){k->spare[slot], 0, chars};
    if (b->ns == MAX_BATCH) {
        rc = run_batch(p, k, t, b->s, b->ns, b->remap, b->nremap, e);
        b->ns = b->nremap = 0;
    }
    return rc;
}

static size_t code_points(const char *s) {
    size_t n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

pg_err x11_keymap_type(pg_platform *p, x11_keymap *k, xcb_window_t target, const char *utf8,
                       pg_error *e) {
    batch *b = calloc(1, sizeof *b);
    if (!b) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    typing t = {target, XCB_NONE, 0, code_points(utf8)};
    const uint8_t *s = (const uint8_t *)utf8;
    size_t n = strlen(utf8);
    pg_err rc = PG_OK;
    for (size_t i = 0; i < n && rc == PG_OK;) {
        uint32_t cp = 0;
        size_t len = x11_utf8_decode(s + i, n - i, &cp);
        i += len ? len : 1;
        uint8_t chars = 1;
        if (cp == '\r' && i < n && s[i] == '\n') i++, chars = 2; /* CRLF is one Return */
        xkb_keysym_t sym = sym_for(cp);
        if (sym == XKB_KEY_NoSymbol)
            rc = pg_error_set(e, PG_E_BADINPUT, NULL, "cannot type U+%04X (no keysym)", cp);
        else if (!lookup(k, sym) && k->nspare == 0)
            rc = pg_error_set(e, PG_E_UNSUPPORTED, NULL,
                              "U+%04X is not on the keymap and no spare keycode is free", cp);
        else
            rc = queue_sym(p, k, &t, b, sym, chars, e);
    }
    if (rc == PG_OK && b->ns) rc = run_batch(p, k, &t, b->s, b->ns, b->remap, b->nremap, e);
    free(b);
    return rc;
}

/* ---------------------------------------------------------------- chords */

static void trim(char *s) {
    size_t n = strlen(s), i = 0;
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = 0;
    while (isspace((unsigned char)s[i])) i++;
    memmove(s, s + i, n - i + 1);
}

static xkb_keysym_t modifier_sym(const char *name) {
    static const struct {
        const char *name;
        xkb_keysym_t sym;
    } mods[] = {{"ctrl", XKB_KEY_Control_L}, {"control", XKB_KEY_Control_L},
                {"shift", XKB_KEY_Shift_L},  {"alt", XKB_KEY_Alt_L},
                {"super", XKB_KEY_Super_L},  {"meta", XKB_KEY_Super_L}};
    for (size_t i = 0; i < sizeof mods / sizeof mods[0]; i++)
        if (strcasecmp(name, mods[i].name) == 0) return mods[i].sym;
    return XKB_KEY_NoSymbol;
}

static xkb_keysym_t key_sym(const char *name) {
    xkb_keysym_t s = xkb_keysym_from_name(name, XKB_KEYSYM_NO_FLAGS);
    uint32_t cp;
    size_t n = strlen(name);
    if (s == XKB_KEY_NoSymbol && x11_utf8_decode((const uint8_t *)name, n, &cp) == n)
        s = xkb_utf32_to_keysym(cp);
    if (s == XKB_KEY_NoSymbol) s = xkb_keysym_from_name(name, XKB_KEYSYM_CASE_INSENSITIVE);
    if (s == XKB_KEY_NoSymbol) s = modifier_sym(name); /* "ctrl" alone */
    return s;
}

typedef struct {
    xkb_keysym_t mods[8];
    size_t nmods;
    xkb_keysym_t key;
} chord;

static pg_err parse_chord(const char *text, chord *c, pg_error *e) {
    char buf[128];
    memset(c, 0, sizeof *c);
    if (!text || !*text || strlen(text) >= sizeof buf)
        return pg_error_set(e, PG_E_BADINPUT, "e.g. \"ctrl+a\", \"Return\", \"shift+Tab\"",
                            "empty or overlong key chord");
    snprintf(buf, sizeof buf, "%s", text);
    size_t n = strlen(buf);
    char *key = buf;
    /* A trailing "+" after a separator is the plus key itself: "ctrl++". */
    char *sep = (n >= 2 && buf[n - 1] == '+' && buf[n - 2] == '+') ? &buf[n - 2] : strrchr(buf, '+');
    if (n == 1) sep = NULL;
    if (sep) {
        *sep = 0;
        key = sep + 1;
        for (char *save = NULL, *m = strtok_r(buf, "+", &save); m; m = strtok_r(NULL, "+", &save)) {
            trim(m);
            xkb_keysym_t ms = modifier_sym(m);
            if (ms == XKB_KEY_NoSymbol || c->nmods == 8)
                return pg_error_set(e, PG_E_BADINPUT, "modifiers: ctrl, shift, alt, super",
                                    "unknown modifier '%s' in chord '%s'", m, text);
            c->mods[c->nmods++] = ms;
        }
    }
    trim(key);
    c->key = *key ? key_sym(key) : XKB_KEY_NoSymbol;
    if (c->key == XKB_KEY_NoSymbol)
        return pg_error_set(e, PG_E_BADINPUT, "key names are X keysym names: Return, Tab, F4, a",
                            "unknown key '%s' in chord '%s'", key, text);
    return PG_OK;
}

/* Press modifiers, the key, release in reverse. */
static pg_err press_chord(pg_platform *p, const x11_keymap *k, const chord *c, stroke key,
                          const uint8_t *modcode, pg_error *e) {
    for (size_t i = 0; i < c->nmods; i++) x11_fake_key(p, modcode[i], true);
    press_stroke(p, k, key);
    for (size_t i = c->nmods; i-- > 0;) x11_fake_key(p, modcode[i], false);
    return x11_sync(p, e);
}

/* The chord's modifiers as pg_keyguard bits. */
static unsigned guard_mods(const chord *c) {
    unsigned m = 0;
    for (size_t i = 0; i < c->nmods; i++)
        m |= c->mods[i] == XKB_KEY_Control_L ? PG_KEYMOD_CTRL
             : c->mods[i] == XKB_KEY_Shift_L ? PG_KEYMOD_SHIFT
             : c->mods[i] == XKB_KEY_Alt_L   ? PG_KEYMOD_ALT
                                             : PG_KEYMOD_SUPER;
    return m;
}

/* What the keymap makes of the chord's key with its modifiers held (the
 * key's own Shift/Level3 included); the key itself when it is not on the
 * keymap (it goes out on a spare keycode, which carries it on every level). */
static xkb_keysym_t yields(const x11_keymap *k, const chord *c) {
    const key_entry *ke = lookup(k, c->key);
    struct xkb_state *st = ke && k->km ? xkb_state_new(k->km) : NULL;
    if (!st) return c->key;
    static const struct {
        xkb_keysym_t sym;
        const char *mod;
    } names[] = {{XKB_KEY_Control_L, XKB_MOD_NAME_CTRL}, {XKB_KEY_Shift_L, XKB_MOD_NAME_SHIFT},
                 {XKB_KEY_Alt_L, XKB_MOD_NAME_ALT},      {XKB_KEY_Super_L, XKB_MOD_NAME_LOGO}};
    xkb_mod_mask_t down = 0;
    for (size_t i = 0; i < c->nmods; i++)
        for (size_t j = 0; j < sizeof names / sizeof *names; j++) {
            xkb_mod_index_t m = names[j].sym == c->mods[i] ? xkb_keymap_mod_get_index(k->km, names[j].mod) : XKB_MOD_INVALID;
            if (m != XKB_MOD_INVALID) down |= 1u << m;
        }
    xkb_mod_index_t shift = xkb_keymap_mod_get_index(k->km, XKB_MOD_NAME_SHIFT), lvl3 = xkb_keymap_mod_get_index(k->km, "Mod5");
    if ((ke->mods & MOD_SHIFT) && shift != XKB_MOD_INVALID) down |= 1u << shift;
    if ((ke->mods & MOD_LVL3) && lvl3 != XKB_MOD_INVALID) down |= 1u << lvl3;
    xkb_state_update_mask(st, down, 0, k->locked, 0, 0, k->layout);
    xkb_keysym_t sym = xkb_state_key_get_one_sym(st, ke->code);
    xkb_state_unref(st);
    return sym;
}

/* Modifier and lock keysyms (Shift_L..Hyper_R, ISO_Lock..ISO_Level5_Lock,
 * Mode_switch, Num_Lock): held, they change what every other key means. */
static bool is_modifier_sym(xkb_keysym_t s) {
    return (s >= XKB_KEY_Shift_L && s <= XKB_KEY_Hyper_R) || (s >= XKB_KEY_ISO_Lock && s <= XKB_KEY_ISO_Level5_Lock) ||
           s == XKB_KEY_Mode_switch || s == XKB_KEY_Num_Lock;
}

pg_err x11_keymap_hold_code(const x11_keymap *k, const char *name, uint8_t *code, pg_error *e) {
    xkb_keysym_t sym = modifier_sym(name);
    bool by_chord_name = sym != XKB_KEY_NoSymbol;
    if (!by_chord_name) sym = key_sym(name);
    if (sym == XKB_KEY_NoSymbol)
        return pg_error_set(e, PG_E_BADINPUT, "key names are X keysym names: Down, a, space; modifiers ctrl, shift, "
                            "alt, super", "unknown key '%s'", name);
    if (!by_chord_name && is_modifier_sym(sym))
        return pg_error_set(e, PG_E_BADINPUT, "hold a modifier by its chord name: ctrl, shift, alt, super",
                            "'%s' is a modifier or lock key: hold it as ctrl, shift, alt or super, or not at all", name);
    const key_entry *ke = lookup(k, sym);
    if (!ke)
        return pg_error_set(e, PG_E_UNSUPPORTED, "hold a key the keyboard map has", "key '%s' is not on the keymap",
                            name);
    if (ke->mods)
        return pg_error_set(e, PG_E_BADINPUT, "hold shift as well: key-down shift, then the key",
                            "'%s' needs shift or AltGr on this keymap: hold the key and its modifier apart", name);
    *code = ke->code;
    return PG_OK;
}

pg_err x11_keymap_check(const x11_keymap *k, const char *text, pg_error *e) {
    chord c;
    pg_err rc = parse_chord(text, &c, e);
    return rc ? rc : pg_keyguard_check(text, guard_mods(&c), c.key, yields(k, &c), false, e);
}

pg_err x11_keymap_chord(pg_platform *p, x11_keymap *k, xcb_window_t target, const char *text,
                        pg_error *e) {
    chord c;
    pg_err rc = parse_chord(text, &c, e);
    if (rc == PG_OK) rc = x11_keymap_check(k, text, e); /* whoever calls: never a refused chord */
    if (rc != PG_OK) return rc;
    typing t = {target, XCB_NONE, 0, 1};
    uint8_t modcode[8];
    bool has_shift = false;
    for (size_t i = 0; i < c.nmods; i++) {
        const key_entry *m = lookup(k, c.mods[i]);
        if (!m || m->mods)
            return pg_error_set(e, PG_E_UNSUPPORTED, NULL, "no key for %s on the current keymap",
                                c.mods[i] == XKB_KEY_Control_L ? "Control"
                                : c.mods[i] == XKB_KEY_Shift_L ? "Shift"
                                : c.mods[i] == XKB_KEY_Alt_L   ? "Alt"
                                                               : "Super");
        modcode[i] = m->code;
        has_shift |= c.mods[i] == XKB_KEY_Shift_L;
    }
    const key_entry *ke = lookup(k, c.key);
    if (ke) {
        /* "ctrl+A" means ctrl+shift+a; a shift asked for explicitly is pressed once. */
        stroke s = {ke->code, (uint8_t)(has_shift ? ke->mods & ~MOD_SHIFT : ke->mods), 1};
        rc = still_focused(p, &t, e);
        return rc == PG_OK ? press_chord(p, k, &c, s, modcode, e) : rc;
    }
    if (k->nspare == 0)
        return pg_error_set(e, PG_E_UNSUPPORTED, NULL,
                            "key '%s' is not on the keymap and no spare keycode is free", text);
    /* Not on the keymap: borrow a spare for the chord, always give it back.
     * The borrow waits for the client: the focus is checked after it. */
    rc = borrow_spares(p, k, target, &c.key, 1, e);
    if (rc == PG_OK) rc = still_focused(p, &t, e);
    if (rc == PG_OK) rc = press_chord(p, k, &c, (stroke){k->spare[0], 0, 1}, modcode, e);
    return restore_spares(p, k, target, 1, rc, e);
}
