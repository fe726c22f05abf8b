/* SPDX-License-Identifier: MIT */
/* pg_keyguard.c - see pg_keyguard.h. */
#include "pg_keyguard.h"

/* X keysyms by value (X11/keysymdef.h, X11/XF86keysym.h): this file is
 * built for Windows too, where those headers do not exist. */
#define KS_BACKSPACE 0xff08u
#define KS_TAB 0xff09u
#define KS_ISO_LEFT_TAB 0xfe20u
#define KS_ESCAPE 0xff1bu
#define KS_SYS_REQ 0xff15u
#define KS_PRINT 0xff61u
#define KS_DELETE 0xffffu
#define KS_KP_DELETE 0xff9fu
#define KS_F1 0xffbeu
#define KS_F12 0xffc9u
#define KS_META_L 0xffe7u /* then Meta_R, Alt_L, Alt_R, Super_L, Super_R, Hyper_L */
#define KS_ALT_L 0xffe9u
#define KS_ALT_R 0xffeau
#define KS_HYPER_R 0xffeeu
#define KS_TERMINATE_SERVER 0xfed5u
#define KS_XF86_SERVER_FIRST 0x1008fe00u /* XF86Switch_VT_1.., XF86Ungrab, XF86ClearGrab, ... */
#define KS_XF86_SERVER_LAST 0x1008feffu
#define KS_XF86_KEYS_FIRST 0x1008ff00u /* launch, media and power keys */
#define KS_XF86_KEYS_LAST 0x1008ffffu

/* Power and session keys inside the XF86 key block. */
static const uint32_t SESSION_KEYS[] = {
    0x1008ff10u, /* XF86Standby */
    0x1008ff21u, /* XF86PowerDown */
    0x1008ff2au, /* XF86PowerOff */
    0x1008ff2bu, /* XF86WakeUp */
    0x1008ff2du, /* XF86ScreenSaver */
    0x1008ff2fu, /* XF86Sleep */
    0x1008ff61u, /* XF86LogOff */
    0x1008ffa7u, /* XF86Suspend */
    0x1008ffa8u, /* XF86Hibernate */
};

/* Refused whatever the policy says: the keysym acts on the server or the session. */
static const char *server_keysym(uint32_t k) {
    if (k >= KS_XF86_SERVER_FIRST && k <= KS_XF86_SERVER_LAST)
        return "it is an X server action (switch virtual terminal, break grabs, change video mode)";
    if (k == KS_TERMINATE_SERVER) return "it ends the X server";
    if (k == KS_SYS_REQ) return "it is the system request key (magic SysRq)";
    for (size_t i = 0; i < sizeof SESSION_KEYS / sizeof *SESSION_KEYS; i++)
        if (k == SESSION_KEYS[i]) return "it powers off, suspends, locks or ends the session";
    return NULL;
}

/* Meta, Super and Hyper as keys (Alt, between them, is an ordinary modifier). */
static bool is_logo(uint32_t k) { return k >= KS_META_L && k <= KS_HYPER_R && k != KS_ALT_L && k != KS_ALT_R; }

static const char *server_chord(unsigned mods, uint32_t key) {
    bool ctrl_alt = (mods & (PG_KEYMOD_CTRL | PG_KEYMOD_ALT)) == (PG_KEYMOD_CTRL | PG_KEYMOD_ALT);
    if (!ctrl_alt) return NULL;
    if (key >= KS_F1 && key <= KS_F12) return "ctrl+alt+F1..F12 switch virtual terminals";
    if (key == KS_BACKSPACE) return "ctrl+alt+BackSpace ends the X server";
    if (key == KS_DELETE || key == KS_KP_DELETE) return "ctrl+alt+Delete is the session's secure attention chord";
    return NULL;
}

/* Refused unless the policy allows desktop hotkeys. */
static const char *hotkey(unsigned mods, uint32_t key) {
    if (mods & PG_KEYMOD_SUPER) return "super (meta, win) chords are desktop hotkeys";
    if (is_logo(key)) return "the Super, Hyper and Meta keys are desktop hotkeys";
    if (key == KS_PRINT) return "Print takes screenshots outside the broker";
    if (key >= KS_XF86_KEYS_FIRST && key <= KS_XF86_KEYS_LAST) return "XF86 launch and media keys are desktop hotkeys";
    if ((mods & (PG_KEYMOD_CTRL | PG_KEYMOD_ALT)) == (PG_KEYMOD_CTRL | PG_KEYMOD_ALT))
        return "ctrl+alt chords are desktop hotkeys (terminals, lock, workspaces)";
    if ((mods & PG_KEYMOD_ALT) && (key == KS_TAB || key == KS_ISO_LEFT_TAB || key == KS_ESCAPE))
        return "alt+Tab and alt+Escape switch windows";
    if ((mods & PG_KEYMOD_CTRL) && key == KS_ESCAPE) return "ctrl+Escape opens the desktop's menu";
    return NULL;
}

const char *pg_keyguard_refusal(unsigned mods, uint32_t key, uint32_t yields, bool allow_hotkeys) {
    const uint32_t keys[2] = {key, yields};
    for (int i = 0; i < 2; i++) {
        if (!keys[i]) continue;
        const char *why = server_keysym(keys[i]);
        if (!why) why = server_chord(mods, keys[i]);
        if (why) return why;
    }
    for (int i = 0; i < 2 && !allow_hotkeys; i++) {
        const char *why = keys[i] ? hotkey(mods, keys[i]) : NULL;
        if (why) return why;
    }
    return NULL;
}

pg_err pg_keyguard_check(const char *chord, unsigned mods, uint32_t key, uint32_t yields, bool allow_hotkeys,
                         pg_error *e) {
    const char *why = pg_keyguard_refusal(mods, key, yields, allow_hotkeys);
    if (!why) return PG_OK;
    return pg_error_set(e, PG_E_POLICY, "input drives the target window only; use the application's own keys",
                        "chord \"%.120s\" refused: %s", chord, why);
}
