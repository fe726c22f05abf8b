/* SPDX-License-Identifier: MIT */
/* win_keys.c - key chords ("ctrl+shift+z", "Return", "alt+F4", "ctrl++")
 * as virtual-key events.
 *
 * Contract: a chord is modifiers joined by '+' and one key last. Modifiers:
 * ctrl/control, shift, alt, win/super. Keys: the X keysym-style names the
 * X11 backend takes for special keys (Return/Enter, Tab, Escape, BackSpace,
 * Delete, Insert, Home, End, Left, Right, Up, Down, Prior/Page_Up,
 * Next/Page_Down, space, F1..F24, ...), punctuation names (plus, minus,
 * slash, ...), or any single character: the active keyboard layout maps it
 * to a virtual key and the shift/ctrl/alt it needs (VkKeyScanW). A single
 * character the layout lacks is typed as Unicode when no modifier is asked
 * for. Anything else is PG_E_BADINPUT naming the part that was not
 * understood. Names are case-insensitive except single letters ("A" is
 * shift+a, as a keysym would be). The target is focused first; modifiers go
 * down, the key goes down and up, modifiers come up in reverse, in one
 * SendInput batch so no other input interleaves.
 * Chords pg_keyguard.h refuses (desktop hotkeys: win, Print, alt+Tab,
 * ctrl+alt+...; session chords: ctrl+alt+Delete) are PG_E_POLICY before
 * anything is focused; the chord goes out only while the target is the
 * foreground window (pg_inject.h).
 * A held key (pg_hold) is one virtual key down or up, left so; the broker
 * lets go of it when the connection that holds it ends.
 * Never: leaves a modifier pressed, except one held on purpose (the batch
 * of a chord always carries the releases).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_keyguard.h"
#include "win_private.h"

typedef struct {
    const char *name;
    WORD vk;
} named_vk;

static const named_vk MODIFIERS[] = {{"ctrl", VK_CONTROL}, {"control", VK_CONTROL},
                                     {"shift", VK_SHIFT},  {"alt", VK_MENU},
                                     {"win", VK_LWIN},     {"super", VK_LWIN}};

static const named_vk KEYS[] = {
    {"Return", VK_RETURN},  {"Enter", VK_RETURN},   {"Tab", VK_TAB},        {"Escape", VK_ESCAPE},
    {"Esc", VK_ESCAPE},     {"BackSpace", VK_BACK}, {"Delete", VK_DELETE},  {"Insert", VK_INSERT},
    {"Home", VK_HOME},      {"End", VK_END},        {"Left", VK_LEFT},      {"Right", VK_RIGHT},
    {"Up", VK_UP},          {"Down", VK_DOWN},      {"Prior", VK_PRIOR},    {"Page_Up", VK_PRIOR},
    {"PageUp", VK_PRIOR},   {"Next", VK_NEXT},      {"Page_Down", VK_NEXT}, {"PageDown", VK_NEXT},
    {"space", VK_SPACE},    {"Menu", VK_APPS},      {"Print", VK_SNAPSHOT}, {"Pause", VK_PAUSE},
    {"Caps_Lock", VK_CAPITAL}};

/* Keysym names of punctuation -> the character. */
static const struct {
    const char *name;
    wchar_t ch;
} PUNCT[] = {{"plus", L'+'},        {"minus", L'-'},       {"equal", L'='},       {"comma", L','},
             {"period", L'.'},      {"slash", L'/'},       {"backslash", L'\\'},  {"semicolon", L';'},
             {"colon", L':'},       {"apostrophe", L'\''}, {"quotedbl", L'"'},    {"grave", L'`'},
             {"asciitilde", L'~'},  {"underscore", L'_'},  {"exclam", L'!'},      {"at", L'@'},
             {"numbersign", L'#'},  {"dollar", L'$'},      {"percent", L'%'},     {"asciicircum", L'^'},
             {"ampersand", L'&'},   {"asterisk", L'*'},    {"parenleft", L'('},   {"parenright", L')'},
             {"bracketleft", L'['}, {"bracketright", L']'}, {"braceleft", L'{'},  {"braceright", L'}'},
             {"less", L'<'},        {"greater", L'>'},     {"question", L'?'},    {"bar", L'|'}};

/* Keys that live on the extended (E0) half of the keyboard. */
static bool extended_vk(WORD vk) {
    switch (vk) {
    case VK_INSERT: case VK_DELETE: case VK_HOME: case VK_END: case VK_PRIOR: case VK_NEXT:
    case VK_LEFT: case VK_RIGHT: case VK_UP: case VK_DOWN: case VK_LWIN: case VK_RWIN:
    case VK_APPS: case VK_SNAPSHOT:
        return true;
    default:
        return false;
    }
}

/* What the last part of a chord resolved to. */
typedef struct {
    WORD vk;          /* 0: type `unicode` instead */
    BYTE shift_state; /* VkKeyScanW's: 1 shift, 2 ctrl, 4 alt */
    wchar_t unicode;
} key_target;

static bool find_named(const named_vk *t, size_t n, const char *s, size_t len, WORD *vk) {
    for (size_t i = 0; i < n; i++)
        if (strlen(t[i].name) == len && _strnicmp(t[i].name, s, len) == 0) return (*vk = t[i].vk), true;
    return false;
}

/* One character: through the layout, else as Unicode. */
static bool char_key(wchar_t ch, key_target *k) {
    SHORT r = VkKeyScanW(ch);
    if (r == -1) {
        k->vk = 0, k->unicode = ch;
        return true;
    }
    k->vk = (WORD)(r & 0xff), k->shift_state = (BYTE)((r >> 8) & 0xff);
    return true;
}

static bool parse_key(const char *s, key_target *k) {
    size_t len = strlen(s);
    memset(k, 0, sizeof *k);
    if (len == 0) return false;
    if (find_named(KEYS, sizeof KEYS / sizeof KEYS[0], s, len, &k->vk)) return true;
    if (find_named(MODIFIERS, sizeof MODIFIERS / sizeof MODIFIERS[0], s, len, &k->vk)) return true; /* "ctrl" alone */
    if ((s[0] == 'F' || s[0] == 'f') && len >= 2 && len <= 3 && strspn(s + 1, "0123456789") == len - 1) {
        int f = atoi(s + 1);
        if (f < 1 || f > 24) return false;
        k->vk = (WORD)(VK_F1 + f - 1);
        return true;
    }
    for (size_t i = 0; i < sizeof PUNCT / sizeof PUNCT[0]; i++)
        if (_stricmp(PUNCT[i].name, s) == 0) return char_key(PUNCT[i].ch, k);
    wchar_t w[3];
    int nw = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, (int)len, w, 3);
    return nw == 1 && char_key(w[0], k); /* exactly one BMP character */
}

static pg_err bad(pg_error *e, const char *chord, const char *what, const char *part) {
    return pg_error_set(e, PG_E_BADINPUT,
                        "modifiers ctrl, shift, alt, win; keys like Return, Tab, F5, a, plus",
                        "chord \"%s\": %s \"%s\"", chord, what, part);
}

typedef struct {
    WORD mods[8];
    size_t n_mods;
    key_target key;
} chord;

/* Split at '+'; the last part is the key, and a lone '+' there is a key too. */
static pg_err parse_chord(const char *text, chord *c, pg_error *e) {
    memset(c, 0, sizeof *c);
    const char *s = text;
    for (const char *plus; s[0] && (plus = strchr(s + 1, '+')) != NULL; s = plus + 1) {
        char part[32];
        size_t len = (size_t)(plus - s);
        snprintf(part, sizeof part, "%.*s", (int)(len < 31 ? len : 31), s);
        WORD vk;
        if (!find_named(MODIFIERS, sizeof MODIFIERS / sizeof MODIFIERS[0], s, len, &vk))
            return bad(e, text, "unknown modifier", part);
        if (c->n_mods == sizeof c->mods / sizeof c->mods[0]) return bad(e, text, "too many modifiers", part);
        c->mods[c->n_mods++] = vk;
    }
    if (!s[0]) return bad(e, text, "missing key after", text);
    if (!parse_key(s, &c->key)) return bad(e, text, "unknown key", s);
    if (!c->key.vk && c->n_mods)
        return bad(e, text, "no key on this keyboard layout for", s);
    return PG_OK;
}

/* The chord as pg_keyguard judges it: the modifiers asked for (not the
 * ones a layout adds to reach a character: AltGr is ctrl+alt) and the key
 * as an X keysym. */
static unsigned guard_mods(const chord *c) {
    unsigned m = 0;
    for (size_t i = 0; i < c->n_mods; i++)
        m |= c->mods[i] == VK_CONTROL ? PG_KEYMOD_CTRL
             : c->mods[i] == VK_SHIFT ? PG_KEYMOD_SHIFT
             : c->mods[i] == VK_MENU  ? PG_KEYMOD_ALT
                                      : PG_KEYMOD_SUPER;
    return m;
}

static uint32_t guard_keysym(const key_target *k, const char *name) {
    static const struct {
        WORD vk;
        uint32_t sym;
    } SYMS[] = {{VK_BACK, 0xff08},    {VK_TAB, 0xff09},     {VK_RETURN, 0xff0d},  {VK_PAUSE, 0xff13},
                {VK_ESCAPE, 0xff1b},  {VK_HOME, 0xff50},    {VK_LEFT, 0xff51},    {VK_UP, 0xff52},
                {VK_RIGHT, 0xff53},   {VK_DOWN, 0xff54},    {VK_PRIOR, 0xff55},   {VK_NEXT, 0xff56},
                {VK_END, 0xff57},     {VK_SNAPSHOT, 0xff61}, {VK_INSERT, 0xff63}, {VK_APPS, 0xff67},
                {VK_CAPITAL, 0xffe5}, {VK_DELETE, 0xffff},  {VK_SPACE, 0x20},     {VK_LWIN, 0xffeb},
                {VK_RWIN, 0xffec},    {VK_CONTROL, 0xffe3}, {VK_SHIFT, 0xffe1},   {VK_MENU, 0xffe9}};
    if (!k->vk) return k->unicode < 0x100 ? k->unicode : 0x1000000u + k->unicode;
    if (k->vk >= VK_F1 && k->vk <= VK_F24) return 0xffbeu + (k->vk - VK_F1);
    for (size_t i = 0; i < sizeof SYMS / sizeof *SYMS; i++)
        if (SYMS[i].vk == k->vk) return SYMS[i].sym;
    /* A character key: the character named, lower case as a keysym is. */
    unsigned char c = (unsigned char)name[0];
    if (name[0] && !name[1]) return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
    return (k->vk >= 'A' && k->vk <= 'Z') ? k->vk - 'A' + 'a' : k->vk;
}

static void add_vk(INPUT *in, UINT *n, WORD vk, bool up) {
    DWORD flags = (up ? KEYEVENTF_KEYUP : 0) | (extended_vk(vk) ? KEYEVENTF_EXTENDEDKEY : 0);
    in[(*n)++] = win_key_event(vk, (WORD)MapVirtualKeyW(vk, MAPVK_VK_TO_VSC), flags);
}

/* The chord's events: layout-implied modifiers join the asked ones. */
static UINT chord_events(chord *c, INPUT *in) {
    static const struct { BYTE bit; WORD vk; } implied[] = {{1, VK_SHIFT}, {2, VK_CONTROL}, {4, VK_MENU}};
    for (size_t i = 0; i < 3; i++) {
        bool have = false;
        for (size_t j = 0; j < c->n_mods; j++) have |= c->mods[j] == implied[i].vk;
        if ((c->key.shift_state & implied[i].bit) && !have) c->mods[c->n_mods++] = implied[i].vk;
    }
    UINT n = 0;
    if (!c->key.vk) {
        in[n++] = win_key_event(0, c->key.unicode, KEYEVENTF_UNICODE);
        in[n++] = win_key_event(0, c->key.unicode, KEYEVENTF_UNICODE | KEYEVENTF_KEYUP);
        return n;
    }
    for (size_t i = 0; i < c->n_mods; i++) add_vk(in, &n, c->mods[i], false);
    add_vk(in, &n, c->key.vk, false);
    add_vk(in, &n, c->key.vk, true);
    for (size_t i = c->n_mods; i-- > 0;) add_vk(in, &n, c->mods[i], true);
    return n;
}

/* Parsed and judged by the keyguard: what key() sends and key_check asks. */
static pg_err checked_chord(const char *text, chord *c, pg_error *e) {
    pg_err rc = parse_chord(text ? text : "", c, e);
    if (rc == PG_OK) {
        const char *last = strrchr(text, '+');
        const char *name = last && last[1] ? last + 1 : text; /* the key part, for a character key */
        rc = pg_keyguard_check(text, guard_mods(c), guard_keysym(&c->key, name), 0, false, e);
    }
    return rc;
}

pg_err win_key_check(pg_platform *p, const char *chord_text, pg_error *e) {
    chord c;
    return checked_chord(chord_text, &c, e);
}

/* The virtual key of one key to hold: no layout-implied modifier, no
 * Unicode-only character, and a modifier or lock only by its chord name. */
static pg_err hold_vk(const char *name, WORD *vk, pg_error *e) {
    key_target k;
    size_t len = strlen(name);
    if (find_named(MODIFIERS, sizeof MODIFIERS / sizeof MODIFIERS[0], name, len, vk)) return PG_OK;
    if (!parse_key(name, &k)) return bad(e, name, "unknown key", name);
    if (k.vk == VK_CAPITAL || k.vk == VK_NUMLOCK || k.vk == VK_SCROLL)
        return pg_error_set(e, PG_E_BADINPUT, "hold a modifier by its chord name: ctrl, shift, alt, super",
                            "'%s' is a lock key: it is not held", name);
    if (!k.vk)
        return pg_error_set(e, PG_E_UNSUPPORTED, "hold a key the keyboard layout has",
                            "'%s' is not on this keyboard layout", name);
    if (k.shift_state)
        return pg_error_set(e, PG_E_BADINPUT, "hold shift as well: key-down shift, then the key",
                            "'%s' needs shift, ctrl or alt on this layout: hold the key and its modifier apart", name);
    *vk = k.vk;
    return PG_OK;
}

pg_err win_hold_key(const pg_hold *hd, pg_error *e) {
    WORD vk = 0;
    chord c;
    pg_err rc = hold_vk(hd->key, &vk, e);
    if (rc == PG_OK && hd->down) rc = checked_chord(hd->key, &c, e);
    if (rc != PG_OK) return rc;
    INPUT in[1];
    UINT n = 0;
    add_vk(in, &n, vk, !hd->down);
    if (!hd->down) return win_send(in, n, e); /* a release goes out wherever the focus is */
    HWND h;
    rc = win_resolve(hd->id, &h, e);
    uint32_t integrity = rc == PG_OK ? win_window_integrity(h) : 0;
    if (rc == PG_OK) rc = win_focus_hwnd(h, e);
    size_t start[2] = {0, n};
    return rc == PG_OK ? win_send_checked(h, integrity, in, start, 1, n, e) : rc;
}

pg_err win_key(pg_platform *p, uint64_t id, const char *text, pg_error *e) {
    HWND h;
    chord c;
    pg_err rc = win_resolve(id, &h, e);
    if (rc == PG_OK) rc = checked_chord(text, &c, e);
    uint32_t integrity = rc == PG_OK ? win_window_integrity(h) : 0;
    if (rc == PG_OK) rc = win_focus_hwnd(h, e);
    if (rc != PG_OK) return rc;
    INPUT in[2 * (8 + 3) + 2];
    size_t start[2] = {0, chord_events(&c, in)}; /* one unit: one SendInput, after one check */
    return win_send_checked(h, integrity, in, start, 1, start[1], e);
}
