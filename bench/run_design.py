# SPDX-License-Identifier: MIT
"""Driver of bench/run_design.sh (see there). Usage: run_design.py TOOL WORKDIR REPS"""
import json
import os
import statistics
import subprocess
import sys
import time

import cv2
import numpy as np
from skimage.metrics import structural_similarity

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "oracle"))
from oracle_common import save_rgba, ui_screen  # noqa: E402

TOOL, WORK, REPS = sys.argv[1], sys.argv[2], int(sys.argv[3])


def tool(*args):
    return json.loads(subprocess.run([TOOL, *map(str, args)], check=True, capture_output=True, text=True).stdout)


def timed(fn, reps):
    t, out = [], None
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        t.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(t), out


def timed_process(cmd, reps):
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        t.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(t)


def row(label, ours, theirs, other, note=""):
    ratio = f"{theirs / ours:.1f}x" if theirs else "-"
    theirs_s = f"{other} {theirs:.2f}" if theirs else other
    return f"| {label} | {ours:.2f} | {theirs_s} | {ratio} | {note} |"


def main():
    rows = []
    for (w, h, win) in [(768, 432, 7), (1920, 1080, 7), (1920, 1080, 3)]:
        a = ui_screen(w, h, 40 + w)
        b = ui_screen(w, h, 40 + w, shift=1, extra_word="Saved 3 files")
        pa, pb = os.path.join(WORK, f"a{w}.png"), os.path.join(WORK, f"b{w}.png")
        save_rgba(pa, a)
        save_rgba(pb, b)
        ours = tool("ssim", pa, pb, REPS, "--win", win)
        ga, gb = cv2.cvtColor(a, cv2.COLOR_RGB2GRAY), cv2.cvtColor(b, cv2.COLOR_RGB2GRAY)
        sk_ms, want = timed(lambda: structural_similarity(ga, gb, data_range=255, win_size=win), max(3, REPS // 3))
        same = "same value" if abs(ours["ssim"] - want) < 1e-7 else f"DIFFERS {ours['ssim']} vs {want}"
        rows.append(row(f"SSIM {w}x{h}, window {win}, call only", ours["median_ms"], sk_ms,
                        "scikit-image structural_similarity", f"{same} ({want:.6f}); ours includes the grey conversion"))
    # the design comparison of a 1920x1080 pair: a screen and a version with
    # a moved panel, new text and a recoloured accent
    a = ui_screen(1920, 1080, 7)
    b = ui_screen(1920, 1080, 7, extra_word="Saved 3 files")
    b[300:420, 600:900] = a[340:460, 600:900]
    b[(b[..., 2] > 150) & (b[..., 0] < 80)] = (200, 60, 60)
    pa, pb = os.path.join(WORK, "ca.png"), os.path.join(WORK, "cb.png")
    save_rgba(pa, a)
    save_rgba(pb, b)
    call = tool("time-compare", pa, pb, REPS)
    call_nv = tool("time-compare", pa, pb, REPS, "--no-visuals")
    proc = timed_process([TOOL, "compare", pa, pb], max(3, REPS // 3))
    rows.append(row("design compare 1920x1080 pair, call only, with the 4 diagnostic images", call["median_ms"], 0,
                    "(no reference tool)", f"overall {call['overall']}"))
    rows.append(row("design compare 1920x1080 pair, call only, no images", call_nv["median_ms"], 0, "(no reference tool)", ""))
    rows.append(row("design compare 1920x1080 pair, whole process incl. 2 PNG decodes and JSON", proc, 0,
                    "(no reference tool)", ""))
    print(f"Medians in ms, {REPS} repetitions (fewer for scikit-image and whole-process rows); ratio = other / pixelgate.\n")
    print("| work | pixelgate | other tool | ratio | note |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
