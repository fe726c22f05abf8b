# SPDX-License-Identifier: MIT
"""Shared helpers of the oracle tests: locating the tools (failing loudly when
one is missing - an oracle test never skips) and drawing deterministic test
images with OpenCV (antialiased text and shapes, opaque screens and
transparent assets)."""
import json
import os
import shutil
import subprocess
import sys

try:
    import cv2
    import numpy as np
except ImportError as exc:  # run_oracle.sh picks a python that has them
    sys.exit(f"ORACLE FAILURE: python3-opencv/numpy not importable ({exc}); apt-get install python3-opencv")


def die(msg):
    print(f"ORACLE FAILURE: {msg}", file=sys.stderr)
    sys.exit(1)


def node_modules():
    cache = os.environ.get("PG_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "pixelgate"))
    mods = os.path.join(cache, "npm", "node_modules")
    if not shutil.which("node"):
        die("node not found (apt-get install nodejs)")
    need = [os.path.join(mods, "pixelmatch7", "index.js"), os.path.join(mods, "pixelmatch8", "index.js"),
            os.path.join(mods, "pngjs", "package.json")]
    if not all(os.path.isfile(p) for p in need):
        die(f"pixelmatch7/pixelmatch8/pngjs missing under {mods}: run tests/oracle/setup.sh first")
    return mods


def run_json_lines(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        die(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[:2000]}")
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


def run_tool(tool, args, ok_codes=(0,)):
    p = subprocess.run([tool] + args, capture_output=True, text=True)
    if p.returncode not in ok_codes:
        die(f"pg_engine_tool {' '.join(args)} exited {p.returncode}: {p.stdout} {p.stderr}")
    return json.loads(p.stdout)


def save_rgba(path, rgba):
    """rgba: HxWx4 (or HxWx3) uint8 in RGB(A) order."""
    if rgba.shape[2] == 4:
        cv2.imwrite(path, rgba[..., [2, 1, 0, 3]])
    else:
        cv2.imwrite(path, rgba[..., ::-1])


WORDS = ["Save", "Cancel", "File", "Edit", "View", "Settings", "OK", "Apply", "pixelgate", "Window 12",
         "Total: 42.50", "Search...", "Open Recent", "Help", "About"]


def ui_screen(w, h, seed, shift=0, extra_word=None):
    """A synthetic desktop: panels, buttons, antialiased text and shapes."""
    rng = np.random.default_rng(seed)
    img = np.full((h, w, 3), 236, np.uint8)
    cv2.rectangle(img, (0, 0), (w, max(8, h // 20)), (60, 64, 72), -1)  # title bar
    for i in range(max(2, (w * h) // 60000)):
        x, y = int(rng.integers(0, max(1, w - 120))), int(rng.integers(h // 20, max(h // 20 + 1, h - 60)))
        bw, bh = int(rng.integers(40, 240)), int(rng.integers(16, 80))
        col = tuple(int(c) for c in rng.integers(150, 255, 3))
        cv2.rectangle(img, (x, y), (x + bw, y + bh), col, -1)
        cv2.rectangle(img, (x, y), (x + bw, y + bh), (90, 90, 90), 1, cv2.LINE_AA)
    for i in range(max(3, (w * h) // 15000)):
        word = WORDS[int(rng.integers(0, len(WORDS)))]
        x, y = int(rng.integers(0, max(1, w - 100))), int(rng.integers(12, max(13, h - 4)))
        scale = float(rng.choice([0.35, 0.45, 0.6, 0.8]))
        col = tuple(int(c) for c in rng.integers(0, 120, 3))
        cv2.putText(img, word, (x + shift, y), cv2.FONT_HERSHEY_SIMPLEX, scale, col, 1, cv2.LINE_AA)
    for i in range(max(1, (w * h) // 80000)):
        c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
        cv2.circle(img, (c[0] + shift, c[1]), int(rng.integers(4, 30)), (40, 120, 200), 1, cv2.LINE_AA)
    if extra_word:
        cv2.putText(img, extra_word, (w // 3, h // 2), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (20, 20, 20), 1, cv2.LINE_AA)
    return img[..., ::-1].copy()  # RGB


def sprite(w, h, seed, shift=0, under=(0, 0, 0), ink=None):
    """A UI asset as design tools export it: a transparent canvas, shapes and
    text whose antialiased edges live in the alpha channel (coverage), a
    half-transparent panel, and `under` as the colour of invisible pixels;
    `ink` gives every shape that one colour."""
    rng = np.random.default_rng(seed)
    cov = np.zeros((h, w), np.uint8)
    rgb = np.zeros((h, w, 3), np.uint8)
    rgb[:] = under
    for i in range(max(2, min(80, (w * h) // 9000))):
        col = ink if ink else tuple(int(c) for c in rng.integers(0, 256, 3))
        layer = np.zeros((h, w), np.uint8)
        c = (int(rng.integers(0, w)) + shift, int(rng.integers(0, h)))
        if i % 3 == 0:
            cv2.circle(layer, c, int(rng.integers(3, max(4, min(w, h) // 3))), 255, -1, cv2.LINE_AA)
        elif i % 3 == 1:
            cv2.putText(layer, "Save", c, cv2.FONT_HERSHEY_SIMPLEX, float(rng.choice([0.4, 0.7, 1.2])), 255, 1,
                        cv2.LINE_AA)
        else:
            cv2.line(layer, c, (int(rng.integers(0, w)), int(rng.integers(0, h))), 255, int(rng.integers(1, 4)),
                     cv2.LINE_AA)
        on = layer > 0
        rgb[on] = col
        cov = np.maximum(cov, layer)
    y0, x0 = h // 3, w // 4
    panel = (slice(y0, y0 + max(1, h // 4)), slice(x0, x0 + max(1, w // 3)))
    cov[panel] = np.maximum(cov[panel], 128)
    rgb[panel][cov[panel] == 128] = (40, 90, 200)
    return np.dstack([rgb, cov])
