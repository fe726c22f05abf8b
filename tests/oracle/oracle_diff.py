"""Oracle test: pg_engine's diff against the npm package pixelmatch 7.2 on
generated pairs (antialiased text, shifted shapes, alpha, JPEG noise, masks,
regions, tiny images, thresholds, includeAA, checkerboard). Every case must
give the same changed-pixel count, the same compared-pixel total, and - where
a diff image is written - the same diff image byte for byte.
Usage: oracle_diff.py PG_ENGINE_TOOL WORKDIR"""
import json
import os
import sys

import cv2
import numpy as np

from oracle_common import die, node_modules, run_json_lines, run_tool, save_rgba, ui_screen

HERE = os.path.dirname(os.path.abspath(__file__))


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


def cases(work):
    """Yields (name, A, B, options) with A, B as RGB(A) arrays."""
    base = ui_screen(320, 200, 1)
    yield "text_shift_1px", base, ui_screen(320, 200, 1, shift=1), {}
    yield "text_shift_1px_include_aa", base, ui_screen(320, 200, 1, shift=1), {"includeAA": True}
    yield "new_word", base, ui_screen(320, 200, 1, extra_word="Changed!"), {}
    yield "new_word_t0", base, ui_screen(320, 200, 1, extra_word="Changed!"), {"threshold": 0.0}
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
    shapes_a = np.full((240, 300, 3), 250, np.uint8)
    shapes_b = shapes_a.copy()
    for i in range(12):
        c = (20 + 23 * i, 40 + (i * 37) % 150)
        cv2.circle(shapes_a, c, 9 + i, (30, 80, 160), 2, cv2.LINE_AA)
        cv2.circle(shapes_b, (c[0] + (i % 3), c[1] + (i % 2)), 9 + i, (30, 80, 160), 2, cv2.LINE_AA)
        cv2.line(shapes_a, (0, 7 * i), (299, 5 + 9 * i), (200, 30, 30), 1, cv2.LINE_AA)
        cv2.line(shapes_b, (0, 7 * i + 1), (299, 5 + 9 * i), (200, 30, 30), 1, cv2.LINE_AA)
    yield "shapes_shifted", shapes_a[..., ::-1].copy(), shapes_b[..., ::-1].copy(), {}
    al_a = with_alpha(base, 11)
    al_b = with_alpha(ui_screen(320, 200, 1, shift=1), 12)
    yield "alpha_white", al_a, al_b, {}
    yield "alpha_checkerboard", al_a, al_b, {"checkerboard": True}
    al_c = al_a.copy()
    al_c[..., 3] = np.clip(al_c[..., 3].astype(int) - 40, 0, 255).astype(np.uint8)
    yield "alpha_only_change", al_a, al_c, {}
    yield "alpha_only_change_checkerboard", al_a, al_c, {"checkerboard": True}
    transp = np.zeros((50, 60, 4), np.uint8)
    transp2 = transp.copy()
    transp2[..., :3] = 200  # colour under alpha 0 differs: invisible
    transp2[10:20, 10:20, 3] = 128
    yield "transparent", transp, transp2, {}
    changed = ui_screen(320, 200, 1, extra_word="Changed!")
    yield "masks", base, changed, {"masks": [[90, 80, 60, 30], [0, 0, 320, 10], [300, 190, 100, 100]]}
    yield "region", base, changed, {"region": [40, 30, 200, 150]}
    yield "region_and_masks", base, changed, {"region": [40, 30, 200, 150], "masks": [[100, 85, 40, 20], [0, 0, 50, 50]]}
    one_a = np.array([[[10, 20, 30]]], np.uint8)
    one_b = np.array([[[200, 20, 30]]], np.uint8)
    yield "one_pixel", one_a, one_b, {}
    tiny_a = np.array([[[0, 0, 0], [255, 255, 255]], [[255, 255, 255], [0, 0, 0]]], np.uint8)
    tiny_b = tiny_a.copy()
    tiny_b[0, 0] = [128, 128, 128]
    yield "two_by_two", tiny_a, tiny_b, {}
    grad = np.tile(np.arange(256, dtype=np.uint8)[None, :, None], (64, 1, 3))
    grad2 = grad.copy()
    grad2[20:40, 100:180] = np.clip(grad2[20:40, 100:180].astype(int) + 40, 0, 255)
    yield "gradient_patch", grad, grad2, {}
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
        if s % 3 == 0:
            a = with_alpha(a, s) if h > 12 and w > 12 else a
            b = with_alpha(b, s + 1) if h > 12 and w > 12 else b
        opt = {"threshold": float(r.choice([0.0, 0.05, 0.1, 0.2])), "includeAA": bool(s % 4 == 1),
               "checkerboard": bool(s % 5 == 2)}
        if a.shape[2] != b.shape[2]:
            continue
        yield f"scene_{s}", a, b, opt
    for s in range(4):
        r = np.random.default_rng(100 + s)
        a = r.integers(0, 256, (37 + s, 53, 3), dtype=np.uint8)
        b = a.copy()
        sel = r.random(a.shape[:2]) < 0.3
        b[sel] = r.integers(0, 256, (int(sel.sum()), 3), dtype=np.uint8)
        yield f"random_{s}", a, b, {"threshold": [0.0, 0.1, 0.2, 0.5][s]}


def main():
    tool, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    mods = node_modules()
    plan, ours = [], {}
    for name, a, b, opt in cases(work):
        pa, pb = os.path.join(work, name + "_a.png"), os.path.join(work, name + "_b.png")
        save_rgba(pa, a)
        save_rgba(pb, b)
        c = {"name": name, "a": pa, "b": pb, "threshold": opt.get("threshold", 0.1),
             "includeAA": opt.get("includeAA", False), "checkerboard": opt.get("checkerboard", False),
             "region": opt.get("region"), "masks": opt.get("masks", []),
             "out": os.path.join(work, name + "_pm.png")}
        plan.append(c)
        args = ["diff", pa, pb, "--threshold", str(c["threshold"]), "--out", os.path.join(work, name + "_pg.png")]
        if c["includeAA"]:
            args.append("--include-aa")
        if c["checkerboard"]:
            args.append("--checkerboard")
        if c["region"]:
            args += ["--region", ",".join(map(str, c["region"]))]
        for m in c["masks"]:
            args += ["--mask", ",".join(map(str, m))]
        ours[name] = run_tool(tool, args)
    with open(os.path.join(work, "cases.json"), "w") as f:
        json.dump(plan, f)
    theirs = {r["name"]: r for r in run_json_lines(["node", os.path.join(HERE, "pixelmatch_runner.mjs"), mods,
                                                    os.path.join(work, "cases.json")])}
    bad = 0
    for c in plan:
        n, o, t = c["name"], ours[c["name"]], theirs[c["name"]]
        same = o["pixels_changed"] == t["changed"] and o["total_pixels"] == t["total"]
        if not c["masks"]:
            pm = cv2.imread(c["out"], cv2.IMREAD_UNCHANGED)
            pg = cv2.imread(os.path.join(work, n + "_pg.png"), cv2.IMREAD_UNCHANGED)
            img_same = pm is not None and pg is not None and pm.shape == pg.shape and np.array_equal(pm, pg)
            if not img_same:
                diffpx = -1 if pm is None or pg is None or pm.shape != pg.shape else int((pm != pg).any(axis=2).sum())
                print(f"  {n}: diff image differs from pixelmatch's in {diffpx} pixels")
            same = same and img_same
        print(f"{'ok  ' if same else 'FAIL'} {n}: pixelgate {o['pixels_changed']}/{o['total_pixels']} "
              f"(aa {o['pixels_aa']}), pixelmatch {t['changed']}/{t['total']} (raw {t['pixelmatch']})")
        bad += not same
    print(f"{len(plan) - bad} of {len(plan)} cases agree with pixelmatch")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
