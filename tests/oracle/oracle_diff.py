# SPDX-License-Identifier: MIT
"""Oracle test: pg_engine's diff against both generations of the npm package
pixelmatch - 7.2.0 (--metric yiq) and 8.0.0 (--metric oklab) - on generated
pairs: antialiased text, shifted shapes, JPEG noise, masks, regions,
thresholds, includeAA, and transparency (semi-transparent, fully
transparent and opaque pixels, antialiased edges next to transparency,
alpha-only changes, checkerboard and white), at 1x1, odd widths and 4K.
Every case, in both generations, must give the same changed-pixel count, the
same compared-pixel total, the same windowSize answer where asked and -
where a diff image is written - the same diff image byte for byte.
Also checks the two pieces of node arithmetic the OKLab code carries: its
sRGB table (regenerated and compared with pg_oklab.c) and V8's cube root.
Usage: oracle_diff.py PG_ENGINE_TOOL WORKDIR"""
import json
import os
import re
import subprocess
import sys

import cv2
import numpy as np

from oracle_common import die, node_modules, run_json_lines, run_tool, save_rgba, sprite, ui_screen

HERE = os.path.dirname(os.path.abspath(__file__))
OKLAB_C = os.path.join(HERE, "..", "..", "broker", "engine", "pg_oklab.c")
GENERATIONS = {7: "yiq", 8: "oklab"}


def jpeg_noise(rgb, q):
    ok, enc = cv2.imencode(".jpg", rgb[..., ::-1], [cv2.IMWRITE_JPEG_QUALITY, q])
    return cv2.imdecode(enc, cv2.IMREAD_COLOR)[..., ::-1].copy()


def with_alpha(rgb, seed):
    rng = np.random.default_rng(seed)
    h, w = rgb.shape[:2]
    a = np.full((h, w), 255, np.uint8)
    for _ in range(6):
        x, y = int(rng.integers(0, w - 10)), int(rng.integers(0, h - 10))
        a[y:y + int(rng.integers(5, h // 2)), x:x + int(rng.integers(5, w // 2))] = int(rng.integers(0, 255))
    return np.dstack([rgb, a])


def mixed_alpha(rgb, seed):
    """Opaque, fully transparent and semi-transparent pixels side by side."""
    rng = np.random.default_rng(seed)
    h, w = rgb.shape[:2]
    kind = rng.integers(0, 3, (h, w))
    a = np.where(kind == 0, 255, np.where(kind == 1, 0, rng.integers(1, 255, (h, w)))).astype(np.uint8)
    return np.dstack([rgb, a])


def yiq_cases():
    """The pairs of the YIQ-era oracle, now run in both generations."""
    base = ui_screen(320, 200, 1)
    shifted = ui_screen(320, 200, 1, shift=1)
    yield "text_shift_1px", base, shifted, {}
    yield "text_shift_1px_include_aa", base, shifted, {"includeAA": True}
    changed = ui_screen(320, 200, 1, extra_word="Changed!")
    yield "new_word", base, changed, {}
    yield "new_word_t0", base, changed, {"threshold": 0.0}
    yield "identical", base, base.copy(), {}
    big = ui_screen(640, 400, 7)
    yield "jpeg_q70", big, jpeg_noise(big, 70), {}
    yield "jpeg_q40_t005", big, jpeg_noise(big, 40), {"threshold": 0.05}
    yield "jpeg_q40_t03", big, jpeg_noise(big, 40), {"threshold": 0.3}
    rng = np.random.default_rng(3)
    noisy = np.clip(big.astype(int) + rng.integers(-12, 13, big.shape), 0, 255).astype(np.uint8)
    yield "noise_pm12", big, noisy, {}
    yield "noise_pm12_include_aa", big, noisy, {"includeAA": True}
    loud = np.clip(big.astype(int) + rng.integers(-60, 61, big.shape), 0, 255).astype(np.uint8)
    yield "noise_pm60", big, loud, {}
    yield "noise_pm60_t0", big, loud, {"threshold": 0.0}
    yield "noise_pm60_t1", big, loud, {"threshold": 1.0}
    shapes_a = np.full((240, 300, 3), 250, np.uint8)
    shapes_b = shapes_a.copy()
    for i in range(12):
        c = (20 + 23 * i, 40 + (i * 37) % 150)
        cv2.circle(shapes_a, c, 9 + i, (30, 80, 160), 2, cv2.LINE_AA)
        cv2.circle(shapes_b, (c[0] + (i % 3), c[1] + (i % 2)), 9 + i, (30, 80, 160), 2, cv2.LINE_AA)
        cv2.line(shapes_a, (0, 7 * i), (299, 5 + 9 * i), (200, 30, 30), 1, cv2.LINE_AA)
        cv2.line(shapes_b, (0, 7 * i + 1), (299, 5 + 9 * i), (200, 30, 30), 1, cv2.LINE_AA)
    yield "shapes_shifted", shapes_a[..., ::-1].copy(), shapes_b[..., ::-1].copy(), {}
    yield "shapes_shifted_window7", shapes_a[..., ::-1].copy(), shapes_b[..., ::-1].copy(), {"windowSize": 7}
    yield "masks", base, changed, {"masks": [[90, 80, 60, 30], [0, 0, 320, 10], [300, 190, 100, 100]]}
    yield "masks_window20", base, changed, {"masks": [[90, 80, 30, 30]], "windowSize": 20}
    yield "region", base, changed, {"region": [40, 30, 200, 150]}
    yield "region_and_masks", base, changed, {"region": [40, 30, 200, 150], "masks": [[100, 85, 40, 20], [0, 0, 50, 50]]}
    yield "one_pixel", np.array([[[10, 20, 30]]], np.uint8), np.array([[[200, 20, 30]]], np.uint8), {"windowSize": 5}
    tiny_a = np.array([[[0, 0, 0], [255, 255, 255]], [[255, 255, 255], [0, 0, 0]]], np.uint8)
    tiny_b = tiny_a.copy()
    tiny_b[0, 0] = [128, 128, 128]
    yield "two_by_two", tiny_a, tiny_b, {}
    grad = np.tile(np.arange(256, dtype=np.uint8)[None, :, None], (64, 1, 3))
    grad2 = grad.copy()
    grad2[20:40, 100:180] = np.clip(grad2[20:40, 100:180].astype(int) + 40, 0, 255)
    yield "gradient_patch", grad, grad2, {"windowSize": 16}
    dark = np.tile(np.arange(0, 32, dtype=np.uint8)[None, :, None], (24, 3, 3))  # near black: exact cube roots
    dark2 = np.clip(dark.astype(int) + np.random.default_rng(9).integers(-3, 4, dark.shape), 0, 255).astype(np.uint8)
    yield "near_black", dark, dark2, {"threshold": 0.01}
    for s in range(40):  # small random scenes: many antialiased edges, ties, alpha
        r = np.random.default_rng(500 + s)
        h, w = int(r.integers(8, 70)), int(r.integers(8, 90))
        a = np.full((h, w, 3), int(r.integers(0, 256)), np.uint8)
        for _ in range(int(r.integers(1, 6))):
            p1 = (int(r.integers(0, w)), int(r.integers(0, h)))
            p2 = (int(r.integers(0, w)), int(r.integers(0, h)))
            col = tuple(int(c) for c in r.integers(0, 256, 3))
            cv2.line(a, p1, p2, col, int(r.integers(1, 3)), cv2.LINE_AA)
        cv2.putText(a, "Ag", (int(r.integers(0, w // 2 + 1)), h - 2), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 1,
                    cv2.LINE_AA)
        b = np.roll(a, int(r.integers(-1, 2)), axis=int(r.integers(0, 2))).copy()
        if s % 3 == 0 and h > 12 and w > 12:
            a, b = with_alpha(a, s), with_alpha(b, s + 1)
        opt = {"threshold": float(r.choice([0.0, 0.05, 0.1, 0.2])), "includeAA": bool(s % 4 == 1),
               "checkerboard": bool(s % 5 != 2)}
        if s % 6 == 5:
            opt["windowSize"] = int(r.integers(1, 12))
        yield f"scene_{s}", a, b, opt
    for s in range(4):
        r = np.random.default_rng(100 + s)
        a = r.integers(0, 256, (37 + s, 53, 3), dtype=np.uint8)
        b = a.copy()
        sel = r.random(a.shape[:2]) < 0.3
        b[sel] = r.integers(0, 256, (int(sel.sum()), 3), dtype=np.uint8)
        yield f"random_{s}", a, b, {"threshold": [0.0, 0.1, 0.2, 0.5][s]}


def transparency_cases():
    base = ui_screen(320, 200, 1)
    al_a = with_alpha(base, 11)
    al_b = with_alpha(ui_screen(320, 200, 1, shift=1), 12)
    yield "alpha_defaults", al_a, al_b, {}
    yield "alpha_white", al_a, al_b, {"checkerboard": False}
    al_c = al_a.copy()
    al_c[..., 3] = np.clip(al_c[..., 3].astype(int) - 40, 0, 255).astype(np.uint8)
    yield "alpha_only_change", al_a, al_c, {}
    yield "alpha_only_change_white", al_a, al_c, {"checkerboard": False}
    semi = np.dstack([np.full((60, 90, 3), 255, np.uint8), np.full((60, 90), 128, np.uint8)])
    semi2 = semi.copy()
    semi2[..., 3] = 100  # white at 128 vs 100: the same over white, not over the checkerboard
    yield "semi_white_alpha_step", semi, semi2, {}
    yield "semi_white_alpha_step_white", semi, semi2, {"checkerboard": False}
    transp = np.zeros((50, 60, 4), np.uint8)
    transp2 = transp.copy()
    transp2[..., :3] = 200  # colour under alpha 0 differs: invisible
    transp2[10:20, 10:20, 3] = 128
    yield "transparent", transp, transp2, {}
    yield "transparent_white", transp, transp2, {"checkerboard": False}
    sp_a, sp_b = sprite(240, 160, 21), sprite(240, 160, 21, shift=1, under=(255, 255, 255))
    yield "sprite_shift_aa_edges", sp_a, sp_b, {}
    yield "sprite_shift_aa_edges_white", sp_a, sp_b, {"checkerboard": False}
    yield "sprite_shift_include_aa", sp_a, sp_b, {"includeAA": True}
    yield "sprite_shift_t0_window9", sp_a, sp_b, {"threshold": 0.0, "windowSize": 9}
    # White ink on white-under transparency: over white the detector sees no
    # luma step at all, only alpha steps (pixelmatch 8 follows them).
    w_a = sprite(240, 160, 31, under=(255, 255, 255), ink=(255, 255, 255))
    w_b = sprite(240, 160, 31, shift=1, under=(255, 255, 255), ink=(255, 255, 255))
    yield "white_ink_shift", w_a, w_b, {}
    yield "white_ink_shift_t005", w_a, w_b, {"threshold": 0.05}
    yield "sprite_under_colour_only", sp_a, sprite(240, 160, 21, under=(255, 0, 255)), {}
    ui = ui_screen(200, 120, 4)
    yield "mixed_alpha", mixed_alpha(ui, 1), mixed_alpha(ui_screen(200, 120, 4, shift=1), 1), {}
    yield "mixed_alpha_vs_opaque", mixed_alpha(ui, 2), np.dstack([ui, np.full(ui.shape[:2], 255, np.uint8)]), {}
    yield "mixed_alpha_white_t02", mixed_alpha(ui, 3), mixed_alpha(ui, 4), {"checkerboard": False, "threshold": 0.2}
    yield "mixed_alpha_region_masks", mixed_alpha(ui, 5), mixed_alpha(ui, 6), {
        "region": [13, 7, 151, 97], "masks": [[20, 20, 30, 30]], "windowSize": 12}
    for (w, h) in [(1, 1), (1, 7), (7, 1), (3, 5), (17, 9), (333, 77)]:  # 1x1 and odd widths
        r = np.random.default_rng(w * 1000 + h)
        a = r.integers(0, 256, (h, w, 4), dtype=np.uint8)
        a[..., 3] = r.choice([0, 255, 37, 128, 200], (h, w))
        b = a.copy()
        sel = r.random((h, w)) < 0.5
        b[sel] = r.integers(0, 256, (int(sel.sum()), 4), dtype=np.uint8)
        yield f"odd_{w}x{h}", a, b, {"windowSize": 3}
        yield f"odd_{w}x{h}_white", a, b, {"checkerboard": False}
    one_t = np.array([[[255, 255, 255, 255]]], np.uint8)
    yield "one_pixel_opaque_vs_clear", one_t, np.array([[[255, 255, 255, 0]]], np.uint8), {}
    yield "one_pixel_half", np.array([[[0, 0, 0, 128]]], np.uint8), np.array([[[0, 0, 0, 127]]], np.uint8), {"threshold": 0}
    # 4K: a transparent asset sheet and its next revision.
    k_a = sprite(3840, 2160, 77)
    k_b = k_a.copy()
    k_b[700:1500, 1200:2600] = sprite(1400, 800, 78, shift=2)
    k_b[100:300, 100:3000, 3] = (k_b[100:300, 100:3000, 3].astype(int) * 3 // 4).astype(np.uint8)
    yield "4k_transparent", k_a, k_b, {"windowSize": 997}


def tool_args(metric, opt, pa, pb, out):
    args = ["diff", pa, pb, "--metric", metric, "--out", out]
    if "threshold" in opt:
        args += ["--threshold", repr(opt["threshold"])]
    if opt.get("includeAA"):
        args.append("--include-aa")
    if opt.get("checkerboard") is False:
        args.append("--no-checkerboard")
    if opt.get("windowSize"):
        args += ["--window-size", str(opt["windowSize"])]
    if opt.get("region"):
        args += ["--region", ",".join(map(str, opt["region"]))]
    for m in opt.get("masks", []):
        args += ["--mask", ",".join(map(str, m))]
    return args


def check_lin_table():
    """The sRGB table in pg_oklab.c is node's; regenerate it and compare."""
    p = subprocess.run(["node", os.path.join(HERE, "gen_oklab_lin.mjs")], capture_output=True, text=True)
    if p.returncode != 0:
        die(f"gen_oklab_lin.mjs failed: {p.stderr}")
    src = open(OKLAB_C).read()
    m = re.search(r"/\* lin table begin \*/\n(.*?)\s*/\* lin table end \*/", src, re.S)
    if not m:
        die("pg_oklab.c has no lin table markers")
    same = m.group(1).split() == p.stdout.split()
    print(f"{'ok  ' if same else 'FAIL'} pg_oklab.c sRGB table equals node's")
    return same


def check_cbrt(tool):
    gen = subprocess.run(["node", os.path.join(HERE, "cbrt_values.mjs"), "2000000"], capture_output=True, text=True)
    if gen.returncode != 0:
        die(f"cbrt_values.mjs failed: {gen.stderr}")
    p = subprocess.run([tool, "cbrt"], input=gen.stdout, capture_output=True, text=True)
    r = json.loads(p.stdout)
    same = p.returncode == 0 and r["mismatches"] == 0 and r["values"] == 2000000
    print(f"{'ok  ' if same else 'FAIL'} pg_oklab_cbrt equals node's Math.cbrt on {r['values']} values "
          f"({r['mismatches']} differ) {p.stderr.strip()}")
    return same


def compare_images(work, name):
    pm = cv2.imread(os.path.join(work, name + "_pm.png"), cv2.IMREAD_UNCHANGED)
    pg = cv2.imread(os.path.join(work, name + "_pg.png"), cv2.IMREAD_UNCHANGED)
    if pm is not None and pg is not None and pm.shape == pg.shape and np.array_equal(pm, pg):
        return True
    n = -1 if pm is None or pg is None or pm.shape != pg.shape else int((pm != pg).any(axis=2).sum())
    print(f"  {name}: diff image differs from pixelmatch's in {n} pixels")
    return False


def main():
    tool, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    mods = node_modules()
    bad = 0 if check_lin_table() else 1
    bad += 0 if check_cbrt(tool) else 1
    plan, ours = [], {}
    for name, a, b, opt in list(yiq_cases()) + list(transparency_cases()):
        pa, pb = os.path.join(work, name + "_a.png"), os.path.join(work, name + "_b.png")
        save_rgba(pa, a)
        save_rgba(pb, b)
        for version, metric in GENERATIONS.items():
            n = f"{name}@{version}"
            c = {"name": n, "a": pa, "b": pb, "version": version, "region": opt.get("region"),
                 "masks": opt.get("masks", []), "out": os.path.join(work, n + "_pm.png")}
            for k in ("threshold", "includeAA", "checkerboard", "windowSize"):
                if k in opt:
                    c[k] = opt[k]
            plan.append(c)
            ours[n] = run_tool(tool, tool_args(metric, opt, pa, pb, os.path.join(work, n + "_pg.png")))
    with open(os.path.join(work, "cases.json"), "w") as f:
        json.dump(plan, f)
    theirs = {r["name"]: r for r in run_json_lines(["node", os.path.join(HERE, "pixelmatch_runner.mjs"), mods,
                                                    os.path.join(work, "cases.json")])}
    for c in plan:
        n, o, t = c["name"], ours[c["name"]], theirs[c["name"]]
        same = o["pixels_changed"] == t["changed"] and o["total_pixels"] == t["total"]
        if c["version"] == 8 and c["masks"]:
            same = same and t["pixelmatch"] == t["changed"]  # pixelmatch 8's ignoreMask agrees with our masks
        note = ""
        if c.get("windowSize"):
            same = same and o["max_window_changed"] == t["window"]
            note = f", window {o['window_size']}: {o['max_window_changed']} vs {t['window']}"
        if not c["masks"]:
            same = compare_images(work, n) and same
        print(f"{'ok  ' if same else 'FAIL'} {n}: pixelgate {o['pixels_changed']}/{o['total_pixels']} "
              f"(aa {o['pixels_aa']}), pixelmatch {t['changed']}/{t['total']} (raw {t['pixelmatch']}){note}")
        bad += not same
    print(f"{len(plan) + 2 - bad} of {len(plan) + 2} checks agree with pixelmatch 7.2.0 / 8.0.0 and node")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
