#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""pixelgate's demo app in GTK 3 (python3-gi), for native Wayland (and X11)
sessions: the GTK twin of tests/apps/pg_demo.tcl, with the same state file.

    python3 pg_demo_gtk.py STATE_FILE [TITLE]

A title, a status line, a "Press me" button, an entry and a line echoing the
entry. Every change rewrites STATE_FILE (one JSON object, written to a temp
file and renamed): the pid, the click count, the entry's exact text, its
selection ([start, end] in characters, or null), the last keys pressed in the
window as chords ("ctrl+a", "Return"; at most 20), and where the button and
the entry are in the window ({x,y,w,h}, window-relative, from GTK's
allocations). "READY" goes to stdout once the window has drawn.
"""
import json
import os
import sys

import gi

gi.require_version("Gdk", "3.0")
gi.require_version("Gtk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

STATE = sys.argv[1]
TITLE = sys.argv[2] if len(sys.argv) > 2 else "pixelgate demo"

css = Gtk.CssProvider()
css.load_from_data(b"""
window { background: #f4f4f4; }
label, entry, button { font: 14px "DejaVu Sans"; }
#title { font: bold 20px "DejaVu Sans"; }
#status { color: #1a4d8f; }
""")
screen = Gdk.Screen.get_default()
if screen is None:  # no display reached: say which, rather than a TypeError
    sys.exit(f"pg_demo_gtk: cannot open a display (WAYLAND_DISPLAY={os.environ.get('WAYLAND_DISPLAY')}, "
             f"DISPLAY={os.environ.get('DISPLAY')}, GDK_BACKEND={os.environ.get('GDK_BACKEND')})")
Gtk.StyleContext.add_provider_for_screen(screen, css, Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION)

win = Gtk.Window(title=TITLE)
win.set_default_size(480, 260)
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8, margin=12)
title = Gtk.Label(label=TITLE, name="title")
status = Gtk.Label(label="Status: idle", name="status")
press = Gtk.Button(label="Press me")
entry = Gtk.Entry(width_chars=28)
echo = Gtk.Label(label="")
for w in (title, status, press, entry, echo):
    box.pack_start(w, False, False, 0)
win.add(box)
clicks = 0
keys = []


def geom(w):
    a = w.get_allocation()
    x, y = w.translate_coordinates(win, 0, 0)
    return {"x": x, "y": y, "w": a.width, "h": a.height}


def write_state(*_):
    sel = entry.get_selection_bounds()
    state = {"pid": os.getpid(), "clicks": clicks, "entry": entry.get_text(), "selection": list(sel) if sel else None,
             "keys": keys[-20:], "press": geom(press), "entry_box": geom(entry)}
    tmp = STATE + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(state, f, ensure_ascii=False)
    os.rename(tmp, STATE)


def on_press(_):
    global clicks
    clicks += 1
    status.set_text(f"Status: pressed {clicks}")
    write_state()


def on_changed(_):
    echo.set_text(entry.get_text())
    write_state()


MODS = ((Gdk.ModifierType.CONTROL_MASK, "ctrl"), (Gdk.ModifierType.SHIFT_MASK, "shift"),
        (Gdk.ModifierType.MOD1_MASK, "alt"), (Gdk.ModifierType.SUPER_MASK, "super"))


def on_key(_, event):
    # Seen before the focused widget handles it; the state is written once
    # GTK is idle again, so it shows the key's effect (a selection).
    mods = [name for mask, name in MODS if event.state & mask]
    keys.append("+".join(mods + [Gdk.keyval_name(event.keyval) or "?"]))
    GLib.idle_add(lambda: (write_state(), False)[-1])
    return False


def on_painted(clock):
    # The first frame GTK painted: the window has its size and its widgets
    # their places. (The "draw" signal would need python3-gi-cairo.)
    clock.disconnect_by_func(on_painted)
    GLib.idle_add(lambda: (write_state(), print("READY", flush=True), False)[-1])


def on_realize(_):
    win.get_frame_clock().connect("after-paint", on_painted)


press.connect("clicked", on_press)
entry.connect("changed", on_changed)
win.connect("key-press-event", on_key)
win.connect("realize", on_realize)
win.connect("destroy", Gtk.main_quit)
win.show_all()
Gtk.main()
