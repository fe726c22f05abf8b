/* SPDX-License-Identifier: MIT */
/* pg_keyguard.h - the one rule for which key chords input never sends.
 *
 * What it does: says whether a chord (modifiers held, one key pressed) may
 * go to a window, and why not. Two classes:
 *   - server and session actions, refused always: switching virtual
 *     terminals (ctrl+alt+F1..F12, XF86Switch_VT_*), killing the X server
 *     (Terminate_Server, ctrl+alt+BackSpace), breaking grabs and the other
 *     XFree86 server keysyms (XF86Ungrab, XF86ClearGrab, XF86LogGrabInfo,
 *     ... the whole 0x1008FE00 block), ctrl+alt+Delete, Sys_Req (magic
 *     SysRq), and the power and session keys (XF86PowerOff, XF86Sleep,
 *     XF86Suspend, XF86Hibernate, XF86LogOff, XF86Standby, XF86PowerDown,
 *     XF86WakeUp, XF86ScreenSaver);
 *   - global desktop hotkeys, refused unless allow_hotkeys: anything with
 *     super (meta, win), the Super/Hyper/Meta keys themselves, Print in any
 *     combination, the XF86 launch and media keys (the 0x1008FF00 block),
 *     alt+Tab, alt+Escape, ctrl+Escape and every ctrl+alt chord (desktops
 *     bind terminals, lock and workspaces there). They run with the desktop
 *     session's authority (a terminal, a screenshot into ~/Pictures) or move
 *     the focus between calls.
 * Keys are X keysyms by value (X11/keysymdef.h, XF86keysym.h); the Win32
 * backend maps its virtual keys to them. A chord is judged twice: by the
 * key as named, and by what the keymap makes of that key with the
 * modifiers held (yields), so a refused keysym built from several keys
 * (ctrl+alt+F1 is XF86Switch_VT_1 in the standard maps) is caught however
 * it is spelt.
 * Never: reads policy (the caller passes allow_hotkeys), or keeps state.
 */
#ifndef PG_KEYGUARD_H
#define PG_KEYGUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pg_error.h"

enum { PG_KEYMOD_SHIFT = 1, PG_KEYMOD_CTRL = 2, PG_KEYMOD_ALT = 4, PG_KEYMOD_SUPER = 8 };

/* Why mods+key must not be sent, or NULL when it may. yields: the keysym
 * the keymap produces for the key with mods held (0: not known). */
const char *pg_keyguard_refusal(unsigned mods, uint32_t key, uint32_t yields, bool allow_hotkeys);

/* PG_OK, or PG_E_POLICY naming the chord (as the agent wrote it) and why. */
pg_err pg_keyguard_check(const char *chord, unsigned mods, uint32_t key, uint32_t yields, bool allow_hotkeys,
                         pg_error *e);

#endif
