/* SPDX-License-Identifier: MIT */
/* pg_wlr.h - the wlroots backend: a pg_platform_ops over a Wayland
 * compositor built on wlroots (sway), for the session helper
 * (pixelgate-session) running as the desktop user in that session.
 *
 * What it uses: wlr-screencopy (pixels: a region of an output, cursor never
 * drawn), wlr-virtual-pointer and virtual-keyboard (input, any Unicode text
 * through a keymap made for each chunk of it), and sway's IPC ($SWAYSOCK:
 * the views with their geometry, process, focus and stacking; focus). The
 * display given to open is a WAYLAND_DISPLAY name ("wayland-1"; NULL:
 * $WAYLAND_DISPLAY), resolved in $XDG_RUNTIME_DIR by libwayland.
 *
 * Rules it keeps, as the X11 backend does: a window's pixels only where no
 * other view covers them (else PG_E_POLICY naming the cover); input only
 * inside the target's content and where it is on top; chords through
 * pg_keyguard.h; text only while the target keeps the focus, checked
 * between chunks; every call bounded (WLR_REPLY_MS per round trip).
 * What it cannot do, and says so: list or place windows without sway's IPC
 * (screen capture still works); say who owns the clipboard
 * (selection_owner is PG_E_UNSUPPORTED); say whether a program answers
 * (UNKNOWN); outputs scaled or transformed (PG_E_UNSUPPORTED); popups
 * (xdg_popup) are part of their view's pixels, not listed.
 * Never: prints, exits, decodes images, reads policy.
 */
#ifndef PG_WLR_H
#define PG_WLR_H

#include "pg_platform.h"

const pg_platform_ops *pg_platform_wlroots(void);

#endif
