#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""pixelgate's order-entry form in GTK 3 (python3-gi): the GTK part of the
labelled layout/OCR set. Like tests/apps/pg_form.tcl it is its own ground
truth: once drawn it writes every widget's geometry (window-relative, from
GTK's allocations), text, value and state as one JSON object.

    python3 pg_form_gtk.py --truth FILE [--px 13] [--family "DejaVu Sans"] [--variant N]

"READY" goes to stdout when the truth is written.
"""
import argparse
import json
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

NAMES = ["Zoë Ærø", "José Núñez", "Françoise Lefèvre", "Jürgen Müller", "Åsa Öberg", "Ðorđe Šimić",
         "Renée Dubois", "Søren Kierkegård", "Iñés Peña", "Łukasz Żółć", "Gaëlle Noël", "Björn Ångström"]
MAILS = ["zoe@example.com", "jose.nunez@example.org", "f.lefevre@mail.fr", "jm@muller.de", "asa.oberg@post.se",
         "dorde@simic.rs", "renee_d@example.net", "soren.k@dk.example", "ines.pena@correo.es", "lukasz@zolc.pl",
         "gaelle.noel@ex.fr", "bjorn.a@uni.se"]
STREETS = ["Königsallee 12", "Rue de l'Église 7", "Calle Mayor 105", "Øvre Slottsgate 3", "Straße des 17. Juni 41",
           "Hauptstraße 9", "Avenue Foch 28", "Plaza España 2", "Kärntner Ring 5", "Via Roma 77", "Rue Émile Zola 14",
           "Sveavägen 44"]
CITIES = ["Zürich", "Genève", "Kraków", "København", "Málaga", "Tromsø", "Besançon", "Göteborg"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--truth", required=True)
    ap.add_argument("--px", type=int, default=13)
    ap.add_argument("--family", default="DejaVu Sans")
    ap.add_argument("--variant", type=int, default=0)
    a = ap.parse_args()
    v = a.variant
    settings = Gtk.Settings.get_default()
    settings.set_property("gtk-font-name", "%s %d" % (a.family, max(6, round(a.px * 0.75))))
    settings.set_property("gtk-cursor-blink", False)
    vals = {"customer": NAMES[v % 12], "email": MAILS[(v * 5 + 1) % 12], "street": STREETS[(v * 7 + 2) % 12],
            "quantity": str((v * 37 + 3) % 1000), "code": str(v % 10)}
    bits = (v * 2654435761) & 0xffff
    checks = {"express": bits & 1, "gift": (bits >> 1) & 1, "insure": (bits >> 2) & 1}
    ship = ["standard", "priority", "overnight"][v % 3]
    sel = (v * 3) % 4
    discount = (v * 13) % 51

    win = Gtk.Window(title="Order entry (GTK)")
    win.move(0, 0)
    grid = Gtk.Grid(row_spacing=6, column_spacing=8, margin=10)
    win.add(grid)
    items = []  # (kind, widget, extra)
    r = 0
    entries = {}
    for key, text in [("customer", "Customer:"), ("email", "E-mail:"), ("street", "Street:"),
                      ("quantity", "Quantity:"), ("code", "Code:")]:
        lab = Gtk.Label(label=text, xalign=0)
        ent = Gtk.Entry(width_chars=26)
        ent.set_text(vals[key])
        grid.attach(lab, 0, r, 1, 1)
        grid.attach(ent, 1, r, 3, 1)
        items.append(("label", lab, {"text": text}))
        items.append(("entry", ent, {"value": vals[key], "label": text}))
        entries[key] = ent
        r += 1
    for c, (name, text) in enumerate([("express", "Express"), ("gift", "Gift wrap"), ("insure", "Insurance")]):
        cb = Gtk.CheckButton(label=text)
        cb.set_active(bool(checks[name]))
        grid.attach(cb, c, r, 1, 1)
        items.append(("check", cb, {"text": text, "checked": bool(checks[name])}))
    r += 1
    group = None
    for c, (name, text) in enumerate([("standard", "Standard"), ("priority", "Priority"), ("overnight", "Overnight")]):
        rb = Gtk.RadioButton.new_with_label_from_widget(group, text)
        group = group or rb
        grid.attach(rb, c, r, 1, 1)
        items.append(("radio", rb, {"text": text, "name": name}))
    for kind, w, ex in items:
        if kind == "radio":
            w.set_active(ex["name"] == ship)
    r += 1
    lab = Gtk.Label(label="City:", xalign=0, yalign=0)
    grid.attach(lab, 0, r, 1, 1)
    items.append(("label", lab, {"text": "City:"}))
    store = Gtk.ListStore(str)
    for city in CITIES:
        store.append([city])
    tree = Gtk.TreeView(model=store, headers_visible=False)
    tree.append_column(Gtk.TreeViewColumn("city", Gtk.CellRendererText(), text=0))
    tree.get_selection().select_path(Gtk.TreePath(sel))
    scroll = Gtk.ScrolledWindow(min_content_height=96, min_content_width=160)
    scroll.set_shadow_type(Gtk.ShadowType.IN)
    scroll.set_policy(Gtk.PolicyType.NEVER, Gtk.PolicyType.ALWAYS)
    scroll.set_overlay_scrolling(False)
    scroll.add(tree)
    grid.attach(scroll, 1, r, 3, 1)
    r += 1
    lab = Gtk.Label(label="Discount:", xalign=0)
    grid.attach(lab, 0, r, 1, 1)
    items.append(("label", lab, {"text": "Discount:"}))
    scale = Gtk.Scale.new_with_range(Gtk.Orientation.HORIZONTAL, 0, 50, 1)
    scale.set_draw_value(False)
    scale.set_value(discount)
    scale.set_size_request(200, -1)
    grid.attach(scale, 1, r, 3, 1)
    r += 1
    err_text = "Invalid postcode" if v % 2 else "Postcode required"
    err = Gtk.Label(xalign=0)
    err.set_markup('<span foreground="#d32f2f">%s</span>' % GLib.markup_escape_text(err_text))
    grid.attach(err, 0, r, 4, 1)
    r += 1
    sub, can = Gtk.Button(label="Submit"), Gtk.Button(label="Cancel")
    grid.attach(sub, 1, r, 1, 1)
    grid.attach(can, 2, r, 1, 1)
    items.append(("button", sub, {"text": "Submit"}))
    items.append(("button", can, {"text": "Cancel"}))
    win.connect("destroy", Gtk.main_quit)
    win.show_all()
    entries["customer"].grab_focus()
    entries["customer"].set_position(-1)

    def box(w):
        x, y = w.translate_coordinates(win, 0, 0)
        al = w.get_allocation()
        return {"x": x, "y": y, "w": al.width, "h": al.height}

    def write():
        out = []
        for kind, w, ex in items:
            d = {"kind": kind}
            d.update(box(w))
            d.update({k: val for k, val in ex.items() if k != "name"})
            if kind == "radio":
                d["checked"] = w.get_active()
            out.append(d)
        rows = []
        for i, city in enumerate(CITIES):
            rect = tree.get_background_area(Gtk.TreePath(i), None)
            bx, by = tree.convert_bin_window_to_widget_coords(rect.x, rect.y)
            wx, wy = tree.translate_coordinates(win, bx, by)
            rows.append({"index": i, "text": city, "x": wx, "y": wy, "w": rect.width, "h": rect.height,
                         "selected": i == sel})
        lst = {"kind": "list", "label": "City:", "selected": sel, "selected_text": CITIES[sel], "rows": rows}
        lst.update(box(scroll))
        out.append(lst)
        sb = scroll.get_vscrollbar()
        adj = scroll.get_vadjustment()
        span = adj.get_upper() - adj.get_lower() or 1
        d = {"kind": "scrollbar", "orient": "vertical", "first": adj.get_value() / span,
             "last": (adj.get_value() + adj.get_page_size()) / span}
        d.update(box(sb))
        out.append(d)
        d = {"kind": "slider", "label": "Discount:", "from": 0, "to": 50, "value": discount,
             "fraction": discount / 50.0}
        d.update(box(scale))
        out.append(d)
        d = {"kind": "label", "text": err_text, "color": "#d32f2f", "error": True}
        d.update(box(err))
        out.append(d)
        al = win.get_allocation()
        t = {"toolkit": "gtk3", "theme": settings.get_property("gtk-theme-name"), "family": a.family, "px": a.px,
             "variant": v, "width": al.width, "height": al.height, "widgets": out}
        with open(a.truth + ".tmp", "w", encoding="utf-8") as f:
            json.dump(t, f, ensure_ascii=False)
        import os
        os.replace(a.truth + ".tmp", a.truth)
        print("READY", flush=True)
        return False

    GLib.timeout_add(400, write)
    Gtk.main()


if __name__ == "__main__":
    sys.exit(main())
