# SPDX-License-Identifier: MIT
"""Scores an oracle attack's reconstructions (tests/security/oracle_attack.py)
against the truth. Generous to the attacker: the reconstruction is first
fitted to the truth by the best affine map per channel (truth ~ a*recon + b,
least squares), so only the structure it found counts, not its guess of the
brightness; the gain is the PSNR of that fit over the best guess made with
no queries at all, a flat image of the patch's own mean colour (which is the
fit of a reconstruction that found nothing: the gain is never negative).

    oracle_score.py TRUTH_DIR OUT_DIR ATTACK  ->  one JSON line per patch"""
import json
import math
import sys

import cv2
import numpy as np


def psnr(a, b):
    mse = float(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2))
    return 99.0 if mse < 1e-6 else min(99.0, 10 * math.log10(255.0 ** 2 / mse))


def main():
    truth_dir, out_dir, attack = sys.argv[1:4]
    for patch in ("noise", "text"):
        truth = cv2.imread("%s/%s.png" % (truth_dir, patch), cv2.IMREAD_COLOR)[..., ::-1]
        recon = cv2.imread("%s/%s.%s.ppm" % (out_dir, attack, patch), cv2.IMREAD_COLOR)[..., ::-1]
        t = truth.reshape(-1, 3).astype(np.float64)
        r = recon.reshape(-1, 3).astype(np.float64)
        fit = np.empty_like(t)
        for ch in range(3):
            A = np.stack([r[:, ch], np.ones(len(r))], axis=1)
            coef, *_ = np.linalg.lstsq(A, t[:, ch], rcond=None)
            fit[:, ch] = A @ coef
        mean = np.broadcast_to(t.mean(axis=0), t.shape)
        got, base = psnr(fit, t), psnr(mean, t)
        print(json.dumps({"attack": attack, "patch": patch, "psnr": round(got, 2), "no_query_psnr": round(base, 2),
                          "gain_db": round(got - base, 2)}))


main()
