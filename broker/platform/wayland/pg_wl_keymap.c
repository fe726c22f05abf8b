/* SPDX-License-Identifier: MIT */
/* pg_wl_keymap.c - see pg_wl_keymap.h. */
#include "pg_wl_keymap.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <xkbcommon/xkbcommon.h>

#include "pg_keyguard.h"

/* The modifier keys, in keycode order from PG_WL_KEYCODE_SHIFT. */
static const struct {
    const char *key;  /* its key name */
    xkb_keysym_t sym;
    const char *real; /* the real modifier it is mapped to */
    const char *name; /* xkbcommon's name for the mask */
    unsigned bit;     /* pg_keyguard's */
} MODS[4] = {
    {"LFSH", XKB_KEY_Shift_L, "Shift", XKB_MOD_NAME_SHIFT, PG_KEYMOD_SHIFT},
    {"LCTL", XKB_KEY_Control_L, "Control", XKB_MOD_NAME_CTRL, PG_KEYMOD_CTRL},
    {"LALT", XKB_KEY_Alt_L, "Mod1", XKB_MOD_NAME_ALT, PG_KEYMOD_ALT},
    {"LWIN", XKB_KEY_Super_L, "Mod4", XKB_MOD_NAME_LOGO, PG_KEYMOD_SUPER},
};

/* ---------------------------------------------------------------- text */

typedef struct {
    char *s;
    size_t len, cap;
} buf;

static void put(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(buf *b, const char *fmt, ...) {
    if (!b->s) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= b->cap - b->len) { /* sized for the worst case: cannot happen */
        free(b->s);
        b->s = NULL;
        return;
    }
    b->len += (size_t)w;
}

/* Keysyms by number ("0x1001f600"): every keysym has one, names not all. */
static char *keymap_text(const uint32_t *syms, size_t n) {
    buf b = {malloc(2048 + n * 96), 0, 2048 + n * 96};
    put(&b, "xkb_keymap {\nxkb_keycodes \"pixelgate\" {\n  minimum = 8;\n  maximum = 255;\n");
    for (unsigned i = 0; i < 4; i++) put(&b, "  <%s> = %u;\n", MODS[i].key, PG_WL_KEYCODE_SHIFT + i);
    for (size_t i = 0; i < n; i++) put(&b, "  <I%03u> = %u;\n", (unsigned)(PG_WL_KEYCODE_FIRST + i), (unsigned)(PG_WL_KEYCODE_FIRST + i));
    put(&b, "};\nxkb_types \"pixelgate\" { include \"complete\" };\n"
            "xkb_compatibility \"pixelgate\" { include \"complete\" };\nxkb_symbols \"pixelgate\" {\n");
    for (unsigned i = 0; i < 4; i++) {
        put(&b, "  key <%s> { [ 0x%08x ] };\n", MODS[i].key, (unsigned)MODS[i].sym);
        put(&b, "  modifier_map %s { <%s> };\n", MODS[i].real, MODS[i].key);
    }
    for (size_t i = 0; i < n; i++) put(&b, "  key <I%03u> { [ 0x%08x ] };\n", (unsigned)(PG_WL_KEYCODE_FIRST + i), (unsigned)syms[i]);
    put(&b, "};\n};\n");
    return b.s;
}

/* ---------------------------------------------------------------- build */

static bool is_mod_sym(uint32_t s) {
    for (unsigned i = 0; i < 4; i++)
        if (MODS[i].sym == s) return true;
    return false;
}

/* The distinct keysyms, first seen first, the modifiers left out. */
static pg_err distinct(const uint32_t *in, size_t n, pg_wl_keymap *k, pg_error *e) {
    for (size_t i = 0; i < n; i++) {
        if (in[i] == XKB_KEY_NoSymbol || in[i] > 0x1fffffff) /* XKB_KEYSYM_MAX: what keysyms are */
            return pg_error_set(e, PG_E_BADINPUT, NULL, "keymap: keysym %zu (0x%x) is not a keysym", i, (unsigned)in[i]);
        if (is_mod_sym(in[i]) || pg_wl_keymap_keycode(k, in[i])) continue;
        if (k->n == PG_WL_KEYMAP_MAX_KEYSYMS)
            return pg_error_set(e, PG_E_BADINPUT, "split the text with pg_wl_chunk_end",
                                "keymap: more than %d distinct keysyms", PG_WL_KEYMAP_MAX_KEYSYMS);
        k->keysyms[k->n++] = in[i];
    }
    return PG_OK;
}

/* Every key yields its keysym on level 1, with no modifier held. */
static pg_err verify(const pg_wl_keymap *k, struct xkb_keymap *km, pg_error *e) {
    struct xkb_state *st = xkb_state_new(km);
    if (!st) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    pg_err rc = PG_OK;
    for (size_t i = 0; i < k->n + 4 && rc == PG_OK; i++) {
        uint32_t code = i < 4 ? PG_WL_KEYCODE_SHIFT + (uint32_t)i : PG_WL_KEYCODE_FIRST + (uint32_t)(i - 4);
        xkb_keysym_t want = i < 4 ? MODS[i].sym : k->keysyms[i - 4];
        xkb_keysym_t got = xkb_state_key_get_one_sym(st, code);
        if (got != want)
            rc = pg_error_set(e, PG_E_INTERNAL, NULL, "keymap: keycode %u yields 0x%x, not 0x%x", code,
                              (unsigned)got, (unsigned)want);
    }
    xkb_state_unref(st);
    return rc;
}

static pg_err masks(pg_wl_keymap *k, struct xkb_keymap *km, pg_error *e) {
    uint32_t *m[4] = {&k->mask_shift, &k->mask_ctrl, &k->mask_alt, &k->mask_super};
    for (unsigned i = 0; i < 4; i++) {
        xkb_mod_index_t idx = xkb_keymap_mod_get_index(km, MODS[i].name);
        if (idx == XKB_MOD_INVALID || idx >= 32)
            return pg_error_set(e, PG_E_INTERNAL, NULL, "keymap: no modifier %s", MODS[i].name);
        *m[i] = 1u << idx;
    }
    return PG_OK;
}

pg_err pg_wl_keymap_build(const uint32_t *keysyms, size_t n, pg_wl_keymap *out, pg_error *e) {
    memset(out, 0, sizeof *out);
    pg_err rc = distinct(keysyms, n, out, e);
    if (rc != PG_OK) return rc;
    out->text = keymap_text(out->keysyms, out->n);
    struct xkb_context *ctx = out->text ? xkb_context_new(XKB_CONTEXT_NO_ENVIRONMENT_NAMES) : NULL;
    struct xkb_keymap *km =
        ctx ? xkb_keymap_new_from_string(ctx, out->text, XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS) : NULL;
    if (!out->text)
        rc = pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    else if (!km)
        rc = pg_error_set(e, PG_E_INTERNAL, "is xkb-data (xkeyboard-config) installed?",
                          "keymap: xkbcommon does not compile the keymap of %zu keysyms", out->n);
    if (rc == PG_OK) rc = verify(out, km, e);
    if (rc == PG_OK) rc = masks(out, km, e);
    xkb_keymap_unref(km);
    xkb_context_unref(ctx);
    if (rc == PG_OK) {
        out->size = strlen(out->text) + 1;
        return PG_OK;
    }
    pg_wl_keymap_free(out);
    return rc;
}

void pg_wl_keymap_free(pg_wl_keymap *k) {
    free(k->text);
    memset(k, 0, sizeof *k);
}

uint32_t pg_wl_keymap_keycode(const pg_wl_keymap *k, uint32_t keysym) {
    for (unsigned i = 0; i < 4; i++)
        if (MODS[i].sym == keysym) return PG_WL_KEYCODE_SHIFT + i;
    for (size_t i = 0; i < k->n; i++)
        if (k->keysyms[i] == keysym) return PG_WL_KEYCODE_FIRST + (uint32_t)i;
    return 0;
}

uint32_t pg_wl_keymap_mods_mask(const pg_wl_keymap *k, unsigned mods) {
    return ((mods & PG_KEYMOD_SHIFT) ? k->mask_shift : 0) | ((mods & PG_KEYMOD_CTRL) ? k->mask_ctrl : 0) |
           ((mods & PG_KEYMOD_ALT) ? k->mask_alt : 0) | ((mods & PG_KEYMOD_SUPER) ? k->mask_super : 0);
}

/* ---------------------------------------------------------------- text */

/* One code point from s[0..n): its length, 0 when not valid UTF-8
 * (overlong forms, surrogates and values past U+10FFFF included). */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp) {
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    size_t len = s[0] < 0x80 ? 1 : (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (len == 0 || len > n) return 0;
    uint32_t c = len == 1 ? s[0] : s[0] & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        c = (c << 6) | (s[i] & 0x3F);
    }
    if (c < min[len] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
    *cp = c;
    return len;
}

static xkb_keysym_t sym_for(uint32_t cp) {
    if (cp == '\n' || cp == '\r') return XKB_KEY_Return;
    if (cp == '\t') return XKB_KEY_Tab;
    if (cp < 0x20 || cp == 0x7F) return XKB_KEY_NoSymbol; /* control characters: no key types them */
    return xkb_utf32_to_keysym(cp);
}

pg_err pg_wl_text_keysyms(const char *utf8, size_t len, uint32_t **syms, size_t *n, pg_error *e) {
    *syms = NULL;
    *n = 0;
    uint32_t *out = len ? malloc(len * sizeof *out) : NULL; /* at most one keysym per byte */
    if (len && !out) return pg_error_set(e, PG_E_INTERNAL, NULL, "out of memory");
    const unsigned char *s = (const unsigned char *)utf8;
    size_t m = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp = 0;
        size_t l = utf8_decode(s + i, len - i, &cp);
        xkb_keysym_t sym = l ? sym_for(cp) : XKB_KEY_NoSymbol;
        if (sym == XKB_KEY_NoSymbol) {
            free(out);
            return l ? pg_error_set(e, PG_E_BADINPUT, NULL, "cannot type U+%04X (no keysym) at byte %zu", cp, i)
                     : pg_error_set(e, PG_E_BADINPUT, "send the text as UTF-8", "invalid UTF-8 at byte %zu", i);
        }
        i += l;
        if (cp == '\r' && i < len && s[i] == '\n') i++; /* CRLF is one Return */
        out[m++] = sym;
    }
    if (m == 0) free(out);
    *syms = m ? out : NULL;
    *n = m;
    return PG_OK;
}

size_t pg_wl_chunk_end(const uint32_t *syms, size_t n, size_t from) {
    uint32_t seen[PG_WL_KEYMAP_MAX_KEYSYMS];
    size_t nseen = 0, i = from;
    for (; i < n; i++) {
        bool known = is_mod_sym(syms[i]); /* on the modifier keys: no key of their own */
        for (size_t j = 0; j < nseen && !known; j++) known = seen[j] == syms[i];
        if (known) continue;
        if (nseen == PG_WL_KEYMAP_MAX_KEYSYMS) break;
        seen[nseen++] = syms[i];
    }
    return i;
}

/* ---------------------------------------------------------------- chords */

static void trim(char *s) {
    size_t n = strlen(s), i = 0;
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = 0;
    while (isspace((unsigned char)s[i])) i++;
    memmove(s, s + i, n - i + 1);
}

/* A modifier's chord name: its pg_keyguard bit and the key's keysym. */
static unsigned modifier(const char *name, xkb_keysym_t *sym) {
    static const struct {
        const char *name;
        unsigned mod;
    } names[] = {{"ctrl", 1}, {"control", 1}, {"shift", 0}, {"alt", 2}, {"super", 3}, {"meta", 3}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(name, names[i].name) == 0) {
            if (sym) *sym = MODS[names[i].mod].sym;
            return MODS[names[i].mod].bit;
        }
    return 0;
}

/* Exact name, one character, any-case name, a modifier alone: the X11
 * backend's order, so a chord means the same key on both. */
static xkb_keysym_t key_sym(const char *name) {
    xkb_keysym_t s = xkb_keysym_from_name(name, XKB_KEYSYM_NO_FLAGS);
    uint32_t cp;
    size_t n = strlen(name);
    if (s == XKB_KEY_NoSymbol && n && utf8_decode((const unsigned char *)name, n, &cp) == n) s = xkb_utf32_to_keysym(cp);
    if (s == XKB_KEY_NoSymbol) s = xkb_keysym_from_name(name, XKB_KEYSYM_CASE_INSENSITIVE);
    if (s == XKB_KEY_NoSymbol) modifier(name, &s); /* "ctrl" alone */
    return s;
}

static pg_err parse_mods(char *part, const char *text, unsigned *mods, pg_error *e) {
    size_t count = 0;
    for (char *save = NULL, *m = strtok_r(part, "+", &save); m; m = strtok_r(NULL, "+", &save)) {
        trim(m);
        unsigned bit = modifier(m, NULL);
        if (!bit || count++ == 8)
            return pg_error_set(e, PG_E_BADINPUT, "modifiers: ctrl, shift, alt, super",
                                "unknown modifier '%s' in chord '%s'", m, text);
        *mods |= bit;
    }
    return PG_OK;
}

pg_err pg_wl_chord_parse(const char *text, unsigned *mods, uint32_t *keysym, pg_error *e) {
    char b[128];
    *mods = 0;
    *keysym = XKB_KEY_NoSymbol;
    if (!text || !*text || strlen(text) >= sizeof b)
        return pg_error_set(e, PG_E_BADINPUT, "e.g. \"ctrl+a\", \"Return\", \"shift+Tab\"",
                            "empty or overlong key chord");
    snprintf(b, sizeof b, "%s", text);
    size_t n = strlen(b);
    char *key = b;
    /* A trailing "+" after a separator is the plus key itself: "ctrl++". */
    char *sep = (n >= 2 && b[n - 1] == '+' && b[n - 2] == '+') ? &b[n - 2] : strrchr(b, '+');
    if (n == 1) sep = NULL;
    if (sep) {
        *sep = 0;
        key = sep + 1;
        pg_err rc = parse_mods(b, text, mods, e);
        if (rc != PG_OK) return rc;
    }
    trim(key);
    xkb_keysym_t s = *key ? key_sym(key) : XKB_KEY_NoSymbol;
    if (s == XKB_KEY_NoSymbol)
        return pg_error_set(e, PG_E_BADINPUT, "key names are X keysym names: Return, Tab, F4, a",
                            "unknown key '%s' in chord '%s'", key, text);
    *keysym = s;
    return PG_OK;
}
