# SPDX-License-Identifier: MIT
"""Oracle test: pg_engine's SSIM against scikit-image's structural_similarity
(uniform window, sample covariance, K1 0.01, K2 0.03) on the OpenCV grey of
generated pairs, with the default 7x7 window and with the odd windows the
design comparison uses on small images (min(7, h, w) made odd); must agree
within 1e-7.
Usage: oracle_ssim.py PG_ENGINE_TOOL WORKDIR"""
import os
import sys

import cv2
import numpy as np

from oracle_common import die, run_tool, save_rgba, ui_screen

try:
    from skimage.metrics import structural_similarity
except ImportError as exc:
    die(f"scikit-image missing ({exc}): apt-get install python3-skimage")


def cases():
    a = ui_screen(768, 432, 3)
    yield "text_shift", a, ui_screen(768, 432, 3, shift=1), 7
    ok, enc = cv2.imencode(".jpg", a[..., ::-1], [cv2.IMWRITE_JPEG_QUALITY, 40])
    yield "jpeg_q40", a, cv2.imdecode(enc, cv2.IMREAD_COLOR)[..., ::-1].copy(), 7
    rng = np.random.default_rng(8)
    noisy = np.clip(a.astype(int) + rng.integers(-30, 31, a.shape), 0, 255).astype(np.uint8)
    yield "noise", a, noisy, 7
    yield "noise_win3", a, noisy, 3
    yield "identical", a, a.copy(), 7
    yield "tiny_7x9", a[100:107, 200:209], a[101:108, 200:209], 7
    # small and thin images, where the window shrinks to fit (odd sizes
    # only): crops of the noisy pair, so no case is trivially identical
    for (h, w, win) in [(5, 40, 5), (3, 17, 3), (6, 6, 5), (9, 4, 3), (64, 48, 3), (64, 48, 5), (33, 21, 5)]:
        yield f"win{win}_{w}x{h}", a[200:200 + h, 300:300 + w], noisy[200:200 + h, 300:300 + w], win


def main():
    tool, work = sys.argv[1], sys.argv[2]
    bad = n = 0
    for name, a, b, win in cases():
        n += 1
        pa, pb = os.path.join(work, name + "_a.png"), os.path.join(work, name + "_b.png")
        save_rgba(pa, np.ascontiguousarray(a))
        save_rgba(pb, np.ascontiguousarray(b))
        ga = cv2.cvtColor(np.ascontiguousarray(a), cv2.COLOR_RGB2GRAY)
        gb = cv2.cvtColor(np.ascontiguousarray(b), cv2.COLOR_RGB2GRAY)
        want = structural_similarity(ga, gb, data_range=255, win_size=win)
        got = run_tool(tool, ["ssim", pa, pb, "--win", str(win)])["ssim"]
        ok = abs(got - want) < 1e-7
        bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: pixelgate {got:.10f}, scikit-image {want:.10f}")
    print(f"{n - bad} of {n} cases agree with scikit-image")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
