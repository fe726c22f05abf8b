# SPDX-License-Identifier: MIT
"""Oracle test: pg_engine's sRGB -> CIELAB and CIEDE2000 against
scikit-image (skimage.color.rgb2lab, deltaE_ciede2000) on random colours
and pairs, including pairs of opposite hues (where the mean-hue rule
branches: turned 1e-4 to 1e-2 rad off exact opposition, since at exact
opposition CIEDE2000 is discontinuous and rounding picks the side; the
exact case is Sharma's pairs 10 and 14, in the unit test) and neutral
colours (chroma 0); must agree within 1e-6.
Usage: oracle_color.py PG_ENGINE_TOOL WORKDIR"""
import subprocess
import sys

import numpy as np

from oracle_common import die

try:
    from skimage.color import deltaE_ciede2000, rgb2lab
except ImportError as exc:
    die(f"scikit-image missing ({exc}): apt-get install python3-skimage")


def tool_lines(tool, lines):
    p = subprocess.run([tool, "colour"], input="\n".join(lines) + "\n", capture_output=True, text=True)
    if p.returncode != 0:
        die(f"pg_engine_tool colour exited {p.returncode}: {p.stderr}")
    return [list(map(float, l.split())) for l in p.stdout.splitlines()]


def main():
    tool = sys.argv[1]
    rng = np.random.default_rng(2005)
    rgb = rng.integers(0, 256, (3000, 3))
    rgb[:8] = [[0, 0, 0], [255, 255, 255], [255, 0, 0], [0, 255, 0], [0, 0, 255], [128, 128, 128], [1, 1, 1], [10, 11, 12]]
    got = np.array(tool_lines(tool, [f"lab {r} {g} {b}" for r, g, b in rgb]))
    want = rgb2lab(rgb.reshape(1, -1, 3).astype(np.float64) / 255.0).reshape(-1, 3)
    lab_err = float(np.abs(got - want).max())
    # CIEDE2000: Lab of random colours, random Lab, opposite hues, neutrals
    l1 = np.concatenate([want[:1000], rng.uniform([0, -100, -100], [100, 100, 100], (1000, 3))])
    l2 = np.concatenate([want[1000:2000], rng.uniform([0, -100, -100], [100, 100, 100], (1000, 3))])
    opp = rng.uniform([0, -60, -60], [100, 60, 60], (200, 3))
    turn = np.pi + rng.choice([-1, 1], 200) * rng.uniform(1e-4, 1e-2, 200)
    scale = rng.uniform(0.2, 3.0, 200)
    c, s = np.cos(turn) * scale, np.sin(turn) * scale
    opp2 = opp.copy()
    opp2[:, 1], opp2[:, 2] = c * opp[:, 1] - s * opp[:, 2], s * opp[:, 1] + c * opp[:, 2]
    neutral = opp.copy()
    neutral[:, 1:] = 0
    a = np.concatenate([l1, opp, neutral])
    b = np.concatenate([l2, opp2, opp2])
    got_de = np.array(tool_lines(tool, [f"de {x[0]!r} {x[1]!r} {x[2]!r} {y[0]!r} {y[1]!r} {y[2]!r}" for x, y in zip(a, b)]))[:, 0]
    want_de = deltaE_ciede2000(a, b)
    de_err = float(np.abs(got_de - want_de).max())
    ok_lab, ok_de = lab_err < 1e-6, de_err < 1e-6
    print(f"{'ok  ' if ok_lab else 'FAIL'} rgb2lab: {len(rgb)} colours, largest difference {lab_err:.2e}")
    print(f"{'ok  ' if ok_de else 'FAIL'} CIEDE2000: {len(a)} pairs, largest difference {de_err:.2e}")
    sys.exit(0 if ok_lab and ok_de else 1)


if __name__ == "__main__":
    main()
