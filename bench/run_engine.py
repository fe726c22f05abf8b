# SPDX-License-Identifier: MIT
"""Driver of bench/run_engine.sh (see there). Usage: run_engine.py TOOL NODE_MODULES WORKDIR REPS"""
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "oracle"))
from oracle_common import save_rgba, sprite, ui_screen  # noqa: E402

TOOL, MODS, WORK, REPS = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
ONLY = os.environ.get("PG_BENCH_ONLY")  # "diff": the diff rows alone
cv2.setNumThreads(2)


def tool(*args):
    return json.loads(subprocess.run([TOOL, *map(str, args)], check=True, capture_output=True, text=True).stdout)


def timed_process(cmd, reps, ok=(0,)):
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True)
        t.append((time.perf_counter() - t0) * 1e3)
        if p.returncode not in ok:
            sys.exit(f"{cmd} failed: {p.stderr}")
    return statistics.median(t), p


def timed(fn, reps):
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        t.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(t), out


def pair(w, h, seed):
    """A screen and the same screen after an action: new text, a panel moved
    by 2 px, a changed label - the typical capture-act-capture delta."""
    a = ui_screen(w, h, seed)
    b = ui_screen(w, h, seed, extra_word="Saved 3 files")
    y0, x0 = h // 4, w // 3
    b[y0:y0 + h // 8, x0:x0 + w // 6] = a[y0 + 2:y0 + 2 + h // 8, x0:x0 + w // 6]
    cv2.putText(b, "Status: done", (w // 10, h - 20), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (10, 10, 10), 1, cv2.LINE_AA)
    return a, b


def transparent_pair(w, h, seed):
    """A transparent asset sheet (antialiased edges in alpha, a half-clear
    panel) and its next revision: a block redrawn 2 px over, a faded band."""
    a = sprite(w, h, seed)
    b = a.copy()
    y0, x0, bh, bw = h // 3, w // 3, h // 3, w // 3
    b[y0:y0 + bh, x0:x0 + bw] = sprite(bw, bh, seed + 1, shift=2)
    b[h // 20:h // 20 + h // 10, :, 3] = (b[h // 20:h // 20 + h // 10, :, 3].astype(int) * 3 // 4).astype(np.uint8)
    return a, b


def pm_run(plan_cases, name):
    """pixelmatch_runner.mjs over the cases; its JSON lines by case name."""
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        json.dump(plan_cases, f)
    out = subprocess.run(["node", os.path.join(HERE, "..", "tests", "oracle", "pixelmatch_runner.mjs"), MODS, path],
                         check=True, capture_output=True, text=True).stdout
    return {r["name"]: r for r in map(json.loads, out.splitlines())}


def busiest(img, h, w):
    """Top-left of the h x w window with the most contrast (coarse grid): a
    template worth searching for, never a flat patch."""
    best, pos = -1, (0, 0)
    for y in range(0, img.shape[0] - h, 37):
        for x in range(0, img.shape[1] - w, 41):
            s = float(img[y:y + h, x:x + w].std())
            if s > best:
                best, pos = s, (y, x)
    return pos


def cut(img, h, w):
    y, x = busiest(img, h, w)
    return np.ascontiguousarray(img[y:y + h, x:x + w])


def row(label, ours, theirs, tool_name, note=""):
    ratio = theirs / ours if ours > 0 else float("inf")
    return f"| {label} | {ours:.2f} | {tool_name} {theirs:.2f} | {ratio:.1f}x | {note} |"


def main():
    rows = []
    paths = {}
    for (w, h) in [(1280, 720), (1920, 1080), (3840, 2160)]:
        a, b = pair(w, h, 40 + w)
        pa, pb = os.path.join(WORK, f"a{w}.png"), os.path.join(WORK, f"b{w}.png")
        save_rgba(pa, a)
        save_rgba(pb, b)
        paths[w] = (pa, pb, a)
    rng = np.random.default_rng(5)
    a1080 = paths[1920][2]
    noisy = np.clip(a1080.astype(int) + rng.integers(-40, 41, a1080.shape), 0, 255).astype(np.uint8)
    pn = os.path.join(WORK, "noise1920.png")
    save_rgba(pn, noisy)
    # --- diff ---
    cases = [(f"{w}x{h}", *paths[w][:2]) for (w, h) in [(1280, 720), (1920, 1080), (3840, 2160)]]
    cases.append(("1920x1080 worst case: noise on every pixel", paths[1920][0], pn))
    plan = [{"name": n, "a": a, "b": b, "version": 7, "region": None, "masks": [], "out": None, "reps": REPS}
            for n, a, b in cases]
    pm = pm_run(plan, "plan.json")
    for n, a, b in cases:
        ours = tool("time-diff", a, b, REPS)
        same = "same count" if ours["pixels_changed"] == pm[n]["pixelmatch"] else f"COUNTS DIFFER {ours['pixels_changed']} vs {pm[n]['pixelmatch']}"
        rows.append(row(f"diff {n}, call only ({ours['pixels_changed']} px changed)", ours["median_ms"], pm[n]["median_ms"],
                        "pixelmatch 7.2.0", same))
    # Transparent 1080p pair, both generations (defaults: checkerboard on).
    ta, tb = transparent_pair(1920, 1080, 60)
    pta, ptb = os.path.join(WORK, "ta1920.png"), os.path.join(WORK, "tb1920.png")
    save_rgba(pta, ta)
    save_rgba(ptb, tb)
    gens = [(7, "yiq", "pixelmatch 7.2.0"), (8, "oklab", "pixelmatch 8.0.0")]
    tplan = [{"name": f"t{v}", "a": pta, "b": ptb, "version": v, "region": None, "masks": [], "out": None, "reps": REPS}
             for v, _, _ in gens] + [{"name": "o8", "a": paths[1920][0], "b": paths[1920][1], "version": 8,
                                      "region": None, "masks": [], "out": None, "reps": REPS}]
    tpm = pm_run(tplan, "tplan.json")
    for v, metric, label in gens:
        ours = tool("time-diff", pta, ptb, REPS, "--metric", metric)
        r = tpm[f"t{v}"]
        same = "same count" if ours["pixels_changed"] == r["pixelmatch"] else f"COUNTS DIFFER {ours['pixels_changed']} vs {r['pixelmatch']}"
        rows.append(row(f"diff 1920x1080 transparent pair, --metric {metric}, call only ({ours['pixels_changed']} px changed)",
                        ours["median_ms"], r["median_ms"], label, same))
    ours = tool("time-diff", paths[1920][0], paths[1920][1], REPS, "--metric", "oklab")
    same = "same count" if ours["pixels_changed"] == tpm["o8"]["pixelmatch"] else f"COUNTS DIFFER {ours['pixels_changed']} vs {tpm['o8']['pixelmatch']}"
    rows.append(row(f"diff 1920x1080, --metric oklab, call only ({ours['pixels_changed']} px changed)", ours["median_ms"],
                    tpm["o8"]["median_ms"], "pixelmatch 8.0.0", same))
    for n, a, b in cases[:3]:
        ours_p, _ = timed_process([TOOL, "diff", a, b], max(3, REPS // 3))
        im_p, p = timed_process(["compare", "-metric", "AE", a, b, "null:"], max(3, REPS // 3), ok=(0, 1))
        rows.append(row(f"diff {n}, whole process incl. PNG decode", ours_p, im_p, "compare -metric AE",
                        f"AE counts any changed pixel: {p.stderr.strip()}"))
    if ONLY == "diff":
        return print_table(rows)
    # --- template ---
    # Haystack: the "after" screen; needles around its one-off label "Saved 3
    # files" (unique, so the best location is well defined), and a busy patch
    # of a different screen (absent: the search must still find its best).
    big = cv2.cvtColor(cv2.imread(paths[1920][1], cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    g = cv2.cvtColor(big, cv2.COLOR_RGB2GRAY)
    other = ui_screen(1920, 1080, 99)
    cy, cx = 1080 // 2, 1920 // 3
    for (name, t) in [("64x64", np.ascontiguousarray(big[cy - 40:cy + 24, cx:cx + 64])),
                      ("200x120", np.ascontiguousarray(big[cy - 70:cy + 50, cx - 20:cx + 180])),
                      ("64x64 absent (from another screen)", cut(other, 64, 64))]:
        pt = os.path.join(WORK, f"t{name.split()[0]}{len(name)}.png")
        save_rgba(pt, np.ascontiguousarray(t))
        ours = tool("time-template", paths[1920][1], pt, max(5, REPS // 2))
        tg = cv2.cvtColor(np.ascontiguousarray(t), cv2.COLOR_RGB2GRAY)
        cv_ms, res = timed(lambda: cv2.matchTemplate(g, tg, cv2.TM_CCOEFF_NORMED), max(5, REPS // 2))
        _, mx, _, loc = cv2.minMaxLoc(res)
        same = "same location" if (ours["x"], ours["y"]) == loc and abs(ours["score"] - mx) < 1e-3 else f"DIFFERS {ours} vs {loc} {mx}"
        rows.append(row(f"template {name} in 1920x1080", ours["median_ms"], cv_ms, "OpenCV matchTemplate (2 threads)",
                        f"{same}; one thread; ours includes grey conversion"))
        rows.append(row(f"template {name}, reused pg_template_ws (polling)", ours["median_ws_ms"], cv_ms,
                        "OpenCV matchTemplate (2 threads)", "no fresh pages per call"))
    # --- fingerprints, PNG ---
    for w in (1920, 3840):
        img = paths[w][2]
        ours = tool("time-hash", paths[w][0], REPS)
        rgba = np.dstack([img, np.full(img.shape[:2], 255, np.uint8)]).tobytes()
        sha_ms, _ = timed(lambda: hashlib.sha256(rgba).hexdigest(), REPS)

        def cv_dhash():
            small = cv2.resize(cv2.cvtColor(img, cv2.COLOR_RGB2GRAY), (9, 8), interpolation=cv2.INTER_AREA)
            return (small[:, 1:] > small[:, :-1]).flatten()
        dh_ms, _ = timed(cv_dhash, REPS)
        label = f"{img.shape[1]}x{img.shape[0]}"
        rows.append(row(f"SHA-256 of raw RGBA {label}", ours["sha256_ms"], sha_ms, "Python hashlib", "same library (OpenSSL)"))
        rows.append(row(f"dHash 9x8 of {label}", ours["dhash_ms"], dh_ms, "OpenCV grey + resize INTER_AREA", ""))
        png = tool("time-png", paths[w][0], max(3, REPS // 3))
        bgr = img[..., ::-1].copy()
        cv_png_ms, enc = timed(lambda: cv2.imencode(".png", bgr), max(3, REPS // 3))
        rows.append(row(f"PNG encode {label} (level 1, SUB, RLE)", png["encode_fast_ms"], cv_png_ms, "cv2.imencode",
                        f"{png['fast_bytes']} vs {len(enc[1])} bytes; libpng level 6 all filters: {png['encode_l6_ms']:.1f} ms, {png['l6_bytes']} bytes; decode {png['decode_fast_ms']:.1f} ms"))
    print_table(rows)


def print_table(rows):
    print(f"Medians in ms, {REPS} repetitions (fewer for whole-process and template rows); ratio = other / pixelgate.\n")
    print("| work | pixelgate | other tool | ratio | note |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
