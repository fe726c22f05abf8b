# SPDX-License-Identifier: MIT
"""Attacks that try to rebuild two 32x32 patches of a window through the
answers pixelgate computes from pixels, as an agent under expose_pixels
analyze-only: run as that agent, with PIXELGATE_SOCKET set.

    oracle_attack.py ATTACK OUTDIR

The attacker knows the window's title and where the patches are (a noise
patch at NOISE, a text patch at TEXT, window coordinates), nothing about
their pixels. Each attack asks adaptively until the broker refuses or its
query cap is reached, then writes its best reconstruction of each patch
(OUTDIR/ATTACK.noise.ppm, OUTDIR/ATTACK.text.ppm) and what happened
(OUTDIR/ATTACK.json: queries, answered, refused, the refusal reasons seen).
tests/security/oracle.sh scores them against the truth, which this script
never sees."""
import hashlib
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pgwire import Broker, png, write_ppm  # noqa: E402

TITLE = "^oracle target$"
P = 32
PATCHES = {"noise": (40, 40), "text": (120, 40)}  # at least 32 px from every edge
CAP = 3000  # queries per attack


class Attack:
    def __init__(self, out, name):
        self.b = Broker()
        self.out, self.name = out, name
        self.stats = {"queries": 0, "answered": 0, "refused": 0, "reasons": []}
        self.token, self.size = self.snapshot()

    def snapshot(self, region=None):
        args = {"window": TITLE, "settle": False}
        if region:
            args["region"] = region
        ok, r, _ = self.b.call("snapshot", args)
        if not ok:
            raise SystemExit("snapshot failed: %s" % r)
        return r["token"], (r["width"], r["height"])

    def ask(self, op, args, atts=()):
        """One query; None when refused (or capped)."""
        if self.stats["queries"] >= CAP:
            return None
        self.stats["queries"] += 1
        ok, r, _ = self.b.call(op, args, atts)
        if ok or r.get("code") == "ASSERTION_FAILED":
            self.stats["answered"] += 1
            return r if ok else r.get("_details", {})
        self.stats["refused"] += 1
        if len(self.stats["reasons"]) < 5 and r["message"] not in self.stats["reasons"]:
            self.stats["reasons"].append(r["message"])
        return None

    def budget_gone(self):
        return any("budget" in m for m in self.stats["reasons"])

    def flat(self, rgb):
        w, h = self.size
        return png(w, h, lambda x, y: (*rgb, 255))

    def finish(self, recon):
        for patch, px in recon.items():
            write_ppm(os.path.join(self.out, "%s.%s.ppm" % (self.name, patch)), P, P, px)
        with open(os.path.join(self.out, self.name + ".json"), "w") as f:
            json.dump(self.stats, f)


def grey(v=128.0):
    return [(v, v, v)] * (P * P)


def region(x, y, w=P, h=P):
    return {"x": x, "y": y, "w": w, "h": h}


# ---- the attacks ----

def hash_region(a):
    """sha256 of 1x1 regions: 2^24 possible inputs, a table inverts them."""
    recon = {}
    for patch, (px, py) in PATCHES.items():
        got = {}
        for y in range(P):
            for x in range(P):
                r = a.ask("hash", {"image": {"token": a.token}, "algo": "sha256",
                                   "region": region(px + x, py + y, 1, 1)})
                if r:
                    got[(x, y)] = r["hash"]
        table = {}
        if got:  # only if the broker answered: invert by brute force
            want = set(got.values())
            for v in range(1 << 24):
                d = hashlib.sha256(bytes((v >> 16, (v >> 8) & 255, v & 255, 255))).hexdigest()
                if d in want:
                    table[d] = (v >> 16, (v >> 8) & 255, v & 255)
        recon[patch] = [table.get(got.get((x, y)), (128, 128, 128)) for y in range(P) for x in range(P)]
    return recon


def snapshot_digest(a):
    """1x1 snapshots: equal digests mean equal pixels; the most common class is the background."""
    recon = {}
    for patch, (px, py) in PATCHES.items():
        digests = {}
        for y in range(P):
            for x in range(P):
                if a.stats["queries"] >= CAP:
                    break
                a.stats["queries"] += 1
                ok, r, _ = a.b.call("snapshot", {"window": TITLE, "settle": False, "region": region(px + x, py + y, 1, 1)})
                a.stats["answered" if ok else "refused"] += 1
                if ok and r.get("digest"):
                    a.stats["digests_seen"] = a.stats.get("digests_seen", 0) + 1
                    digests[(x, y)] = r["digest"]
        classes = {}
        for d in digests.values():
            classes[d] = classes.get(d, 0) + 1
        bg = max(classes, key=classes.get) if classes else None
        recon[patch] = [(255, 255, 255) if digests.get((x, y)) == bg else (40, 40, 40) if (x, y) in digests
                        else (128, 128, 128) for y in range(P) for x in range(P)]
    return recon


def dhash_bits(h):
    return [(int(h, 16) >> (63 - i)) & 1 for i in range(64)]


def dhash_estimate(a, token, acc=None):
    """Sliding 32x32 dhash windows; each bit says which of two neighbouring
    cells of a 9x8 reduction is brighter: votes per pixel."""
    acc = acc or {p: [0.0] * (P * P) for p in PATCHES}
    for dy in range(-P + 1, P, 4):
        for dx in range(-P + 1, P):
            for patch, (px, py) in PATCHES.items():
                r = a.ask("hash", {"image": {"token": token}, "algo": "dhash", "region": region(px + dx, py + dy)})
                if not r:
                    if a.stats["queries"] >= CAP or a.budget_gone():
                        return acc
                    continue
                dhash_vote(acc, patch, dx, dy, r["hash"])
    return acc


def dhash_vote(acc, patch, dx, dy, h):
    """The votes one dHash of the 32x32 region at (dx, dy) from the patch casts on its pixels."""
    bits = dhash_bits(h)
    for row in range(8):
        for col in range(8):
            sign = 1 if bits[row * 8 + col] else -1  # right brighter than left (or the reverse)
            for yy in range(row * 4, row * 4 + 4):
                y = yy + dy
                for side, c in ((-1, col), (1, col + 1)):
                    xa, xb = dx + int(c * P / 9), dx + int((c + 1) * P / 9)
                    for x in range(max(0, xa), min(P, xb)):
                        if 0 <= y < P:
                            acc[patch][y * P + x] += sign * side


def votes_to_image(acc):
    out = {}
    for patch, v in acc.items():
        m = max(1.0, max(abs(t) for t in v))
        out[patch] = [(128 + 60 * t / m,) * 3 for t in v]
    return out


def dhash(a):
    return votes_to_image(dhash_estimate(a, a.token))


def column_counts(a, patch, ref, t, exact):
    """Changed-pixel counts of sliding 32-wide regions (area 1024) against a
    flat reference: their differences are per-column counts."""
    px, py = PATCHES[patch]
    counts = []
    for dx in range(0, P + 1):
        if a.budget_gone():
            return counts
        args = {"a": {"token": a.token}, "b": {"attachment": 0}, "threshold": t, "region": region(px + dx - 1, py)}
        if exact:  # bisect the verdict of assert unchanged, which is computed on exact counts
            lo, hi = 0.0, 100.0
            for _ in range(11):
                mid = (lo + hi) / 2
                r = a.ask("assert_unchanged", dict(args, max_pct=mid), [ref])
                if r is None:
                    return counts
                if r.get("passed"):
                    hi = mid
                else:
                    lo = mid
            counts.append(hi * 1024 / 100)
        else:
            r = a.ask("diff", args, [ref])
            if r is None:
                return counts
            counts.append(r.get("pixels_changed", 0))
    return counts


def counts_to_image(a, exact):
    """Column profiles of 'far from the reference' at several thresholds
    against white and black references, averaged into a brightness guess."""
    est = {p: [[] for _ in range(P)] for p in PATCHES}
    for ref_rgb, sign in (((255, 255, 255), 1), ((0, 0, 0), -1)):
        ref = a.flat(ref_rgb)
        for t in (0.1, 0.2, 0.3, 0.45, 0.6, 0.8):
            for patch in PATCHES:
                counts = column_counts(a, patch, ref, t, exact)
                if len(counts) < 2:
                    continue
                mean = counts[0] / 1024
                for dx in range(1, len(counts)):
                    j = dx - 1
                    if j < P:  # count(dx) - count(dx-1) = changed(new column) - changed(dropped column)
                        far = min(1, max(0, mean + (counts[dx] - counts[dx - 1]) / 32))
                        est[patch][j].append(255 * (1 - far) if sign > 0 else 255 * far)
                if a.budget_gone():
                    break
    recon = {}
    for patch, cols in est.items():
        col = [sum(v) / len(v) if v else 128 for v in cols]
        recon[patch] = [(col[x],) * 3 for y in range(P) for x in range(P)]
    return recon


def diff_threshold(a):
    return counts_to_image(a, exact=False)


def assert_bisect(a):
    return counts_to_image(a, exact=True)


def probe_template(k, shade):
    """A 4x4 template: pixel k one colour, the rest its complement."""
    return png(4, 4, lambda x, y: (shade, 255 - shade, shade, 255) if y * 4 + x == k
               else (255 - shade, shade, 255 - shade, 255))


def credit(recon, patch, bx, by, score, k, shade):
    """Moves the patch's estimate under a match at (bx, by) toward the
    template, in proportion to its score."""
    for y in range(4):
        for x in range(4):
            if 0 <= bx + x < P and 0 <= by + y < P:
                v = (shade, 255 - shade, shade) if y * 4 + x == k else (255 - shade, shade, 255 - shade)
                cell = recon[patch][(by + y) * P + bx + x]
                cell[:] = [c + max(0, score) * (vc - c) / 8 for c, vc in zip(cell, v)]


def template(a):
    """4x4 templates (the agent's own files) searched in each patch: where each
    one matches best, and how well."""
    recon = {p: [list((128.0, 128.0, 128.0)) for _ in range(P * P)] for p in PATCHES}
    import random
    rnd = random.Random(7)
    for n in range(CAP):
        if a.budget_gone():
            break
        k = n % 16
        shade = rnd.randrange(256)
        for patch, (px, py) in PATCHES.items():
            r = a.ask("assert_template", {"image": {"token": a.token}, "template": {"attachment": 0},
                                          "region": region(px, py), "threshold": 1.0}, [probe_template(k, shade)])
            if not r:
                continue
            best = r.get("best", {})
            credit(recon, patch, best.get("x", 0) - px, best.get("y", 0) - py, best.get("score", 0), k, shade)
    return {p: [tuple(c) for c in v] for p, v in recon.items()}


def pointer_template(a):
    """The template attack through the pointer verbs: move --template over the
    live window (no region: the whole window is searched) answers where the
    pointer went, and a miss (NOT_FOUND) carries the best match in its details.
    Each answer is credited to the patch that holds the match."""
    recon = {p: [list((128.0, 128.0, 128.0)) for _ in range(P * P)] for p in PATCHES}
    import random
    rnd = random.Random(11)
    for n in range(CAP):
        if a.budget_gone() or a.stats["queries"] >= CAP:
            break
        k = n % 16
        shade = rnd.randrange(256)
        a.stats["queries"] += 1
        args = {"window": TITLE, "template": {"attachment": 0}}
        if n % 2 == 0:
            args["direction"] = "down"
        ok, r, _ = a.b.call("scroll" if n % 2 == 0 else "move", args, [probe_template(k, shade)])
        found = r.get("found") if ok else r.get("_details", {}) if r.get("code") == "NOT_FOUND" else None
        if found is None:
            a.stats["refused"] += 1
            if len(a.stats["reasons"]) < 5 and r.get("message") not in a.stats["reasons"]:
                a.stats["reasons"].append(r.get("message"))
            continue
        a.stats["answered"] += 1
        best = found.get("best", {})
        for patch, (px, py) in PATCHES.items():
            credit(recon, patch, best.get("x", -99) - px, best.get("y", -99) - py, best.get("score", 0), k, shade)
    return {p: [tuple(c) for c in v] for p, v in recon.items()}


def ocr(a):
    """Read each patch, then draw what was read the way a UI draws text."""
    recon = {}
    for patch, (px, py) in PATCHES.items():
        r = a.ask("ocr", {"token": a.token, "region": region(px, py)})
        text = (r or {}).get("text", "").strip()
        if not text:
            recon[patch] = grey(200)
            continue
        rgb = subprocess.run(["convert", "-size", "32x32", "xc:white", "-font", "DejaVu-Sans", "-pointsize", "20",
                              "-fill", "black", "-gravity", "center", "-annotate", "+0+0", text, "-depth", "8",
                              "rgb:-"], capture_output=True).stdout
        recon[patch] = [tuple(rgb[i * 3:i * 3 + 3]) for i in range(P * P)] if len(rgb) == 3 * P * P else grey(200)
    return recon


def screen_layout(a):
    """What the attacker knows of the screen: the window (white, from `windows`) on a black desktop,
    the patches unknown. Returns the known luma minus 128 (0 where unknown), a patch-id map, the window."""
    import numpy as np
    ok, r, _ = a.b.call("windows", {"match": TITLE})
    win = r["windows"][0]
    ok, s, _ = a.b.call("snapshot", {"screen": True, "settle": False})
    if not ok:
        raise SystemExit("screen snapshot failed: %s" % s)
    W, H = s["width"], s["height"]
    known = np.full((H, W), -128.0)
    known[win["y"]:win["y"] + win["height"], win["x"]:win["x"] + win["width"]] = 127.0
    owner = np.zeros((H, W), dtype=np.int32)
    for i, (px, py) in enumerate(PATCHES.values(), 1):
        known[win["y"] + py:win["y"] + py + P, win["x"] + px:win["x"] + px + P] = 0.0
        owner[win["y"] + py:win["y"] + py + P, win["x"] + px:win["x"] + px + P] = i
    return s["token"], known, owner, win


def slide_predicate(a, token, rect):
    """One OCR of rect: True when the reply says the region is dark. Before issue 27's fix
    `inverted` said it exactly (mean luma < 128); without it the best the reply still gives
    is whether anything was read (the text, or words, or a confidence)."""
    r = a.ask("ocr", {"token": token, "region": region(*rect)})
    if r is None:
        return None
    if "inverted" in r:
        a.stats["signal"] = "inverted"
        return bool(r["inverted"])
    a.stats["signal"] = "text read"
    return bool(r.get("text", "").strip() or r.get("words") or r.get("mean_conf"))


def ocr_slide(a):
    """The sliding-region OCR attack of issue 27: for each suffix rectangle [x,32)x[y,32) of a
    patch, a screen region that holds it and known white and black pixels around it; the
    bottom and right edges chosen so the known part's sum K sets a threshold, a binary search
    over thresholds gives the suffix sum S (dark <=> S + K < 0), block sums by difference."""
    import numpy as np
    token, known, owner, win = screen_layout(a)
    H, W = known.shape
    ps = np.zeros((H + 1, W + 1))
    ps[1:, 1:] = known.cumsum(0).cumsum(1)
    foreign = np.zeros((H + 1, W + 1))
    recon = {}
    for i, (patch, (px, py)) in enumerate(PATCHES.items(), 1):
        fo = (owner != 0) & (owner != i)
        foreign[1:, 1:] = fo.cumsum(0).cumsum(1)
        X0, Y0 = win["x"] + px, win["y"] + py
        b = 4 if patch == "text" else 8
        steps = list(range(0, P, b))
        S = {}
        rx = np.arange(X0 + P, min(W, X0 + P + 160) + 1)
        ry = np.arange(Y0 + P, min(H, Y0 + P + 240) + 1)
        RX, RY = np.meshgrid(rx, ry)
        for y in steps:
            for x in steps:
                x0, y0 = X0 + x, Y0 + y
                K = ps[RY, RX] - ps[y0, RX] - ps[RY, x0] + ps[y0, x0]
                bad = foreign[RY, RX] - foreign[y0, RX] - foreign[RY, x0] + foreign[y0, x0]
                area = (RX - x0) * (RY - y0)
                okm = (bad == 0) & (area >= 1024)
                Ks, ax, ay = K[okm], RX[okm], RY[okm]
                order = np.argsort(Ks)
                Ks, ax, ay = Ks[order], ax[order], ay[order]
                n = (P - x) * (P - y)
                lo, hi = -128.0 * n, 127.0 * n  # S in [lo, hi]
                while True:
                    # S < -K is the answer "dark": pick the threshold nearest the middle
                    j = int(np.searchsorted(Ks, -(lo + hi) / 2))
                    cands = [k for k in (j - 1, j) if 0 <= k < len(Ks) and lo < -Ks[k] <= hi]
                    if not cands:
                        break
                    k = min(cands, key=lambda k: abs(-Ks[k] - (lo + hi) / 2))
                    dark = slide_predicate(a, token, (int(x0), int(y0), int(ax[k] - x0), int(ay[k] - y0)))
                    if dark is None:
                        break
                    if dark:
                        hi = -Ks[k] - 1
                    else:
                        lo = -Ks[k]
                S[(x, y)] = (lo + hi) / 2
        est = np.zeros((P, P))
        for y in steps:
            for x in steps:
                s = S[(x, y)] - S.get((x + b, y), 0) - S.get((x, y + b), 0) + S.get((x + b, y + b), 0)
                est[y:y + b, x:x + b] = 128 + s / (b * b)
        recon[patch] = [(v, v, v) for v in est.reshape(-1)]
    return recon


def derived(a):
    """The diff heatmap of the patch against white is a token of its own: ask about it instead."""
    ok, r, _ = a.b.call("diff", {"a": {"token": a.token}, "b": {"attachment": 0}}, [a.flat((255, 255, 255))])
    heat = r.get("diff_token") if ok else None
    if not heat:
        a.stats["refused"] += 1
        return {p: grey() for p in PATCHES}
    return votes_to_image(dhash_estimate(a, heat))


def fresh_snapshots(a):
    """Spend the budget, then carry on over fresh snapshots of the unchanged window."""
    acc = dhash_estimate(a, a.token)
    before = a.stats["refused"]
    for _ in range(3):
        token, _ = a.snapshot()
        acc = dhash_estimate(a, token, acc)
    a.stats["refused_after_fresh_snapshots"] = a.stats["refused"] - before
    return votes_to_image(acc)


def recapture(a):
    """The re-capture attack (issue 27): the window's caret blinks, so fresh snapshots of it are
    new content in a few tiles. Spend the budget on one snapshot with sliding dHash windows, then
    take fresh snapshots while the caret blinks and ask each of them the questions refused
    before (the caret is inside some of those regions), hoping new content renews the budget."""
    import time
    acc = {p: [0.0] * (P * P) for p in PATCHES}
    plan = [(patch, dx, dy) for dy in range(-P + 1, P, 4) for dx in range(-P + 1, P) for patch in PATCHES]

    def ask(token, q):
        patch, dx, dy = q
        px, py = PATCHES[patch]
        return a.ask("hash", {"image": {"token": token}, "algo": "dhash", "region": region(px + dx, py + dy)})

    refused = []
    for q in plan:
        r = ask(a.token, q)
        if r:
            dhash_vote(acc, *q, r["hash"])
        elif a.budget_gone():
            refused.append(q)
            if len(refused) >= 60:
                break
    digests, renewed = set(), 0
    for _ in range(10):
        time.sleep(0.35)  # about two thirds of a blink
        ok, s, _ = a.b.call("snapshot", {"window": TITLE, "settle": False})
        if not ok:
            break
        digests.add(s.get("digest"))
        for q in refused:
            r = ask(s["token"], q)
            if r:
                renewed += 1
                dhash_vote(acc, *q, r["hash"])
    a.stats["fresh_captures"] = len(digests)
    a.stats["refused_first"] = len(refused)
    a.stats["renewed"] = renewed
    return votes_to_image(acc)


# accept with chosen baselines: the agent imports flat references and
# proposes zones (each a sliding 32-wide region of a patch, the smallest
# area the policy answers about, with its own threshold) that a careless
# approver approves; then every accept of the token answers each zone's
# changed ratio, a column count like diff_threshold's.
ZONE_REFS = (((255, 255, 255), 1), ((0, 0, 0), -1))
ZONE_THRESHOLDS = (0.1, 0.2, 0.3, 0.45, 0.6, 0.8)


def zone_cases():
    """(case, ref colour, sign, threshold, patch, [dx...]) for 16 zones a case."""
    cases = []
    for ri, (rgb, sign) in enumerate(ZONE_REFS):
        for ti, t in enumerate(ZONE_THRESHOLDS):
            for patch in PATCHES:
                dxs = list(range(0, P + 1))
                for ci in range(0, len(dxs), 16):
                    cases.append(("z%d-%d-%s-%d" % (ri, ti, patch, ci // 16), rgb, sign, t, patch, dxs[ci:ci + 16]))
    return cases


def accept_zones_prepare(a):
    """Phase one (before the approver): a candidate per case; their ids go to OUTDIR."""
    ids = []
    for case, rgb, _, t, patch, dxs in zone_cases():
        px, py = PATCHES[patch]
        zones = ["%d,%d,%d,%d:%g:1" % (px + dx - 1, py, P, P, t) for dx in dxs]
        ok, r, _ = a.b.call("baseline_prepare", {"case_id": case, "import": {"attachment": 0}, "zones": zones},
                            [a.flat(rgb)])
        if not ok:
            raise SystemExit("prepare failed: %s" % r)
        ids.append(r["candidate"])
    with open(os.path.join(a.out, "accept_zones.candidates"), "w") as f:
        f.write("\n".join(ids) + "\n")
    return {}


def accept_zones(a):
    est = {p: [[] for _ in range(P)] for p in PATCHES}
    counts = {}
    for case, _, sign, t, patch, dxs in zone_cases():
        if a.budget_gone():
            break
        r = a.ask("accept", {"case_id": case, "token": a.token})
        if not r:
            continue
        for dx, z in zip(dxs, r.get("zones", [])):
            counts[(sign, t, patch, dx)] = z.get("diff_ratio", 0) * P * P
    for (sign, t, patch, dx), c in counts.items():
        prev, first = counts.get((sign, t, patch, dx - 1)), counts.get((sign, t, patch, 0))
        if dx == 0 or prev is None or first is None or dx - 1 >= P:
            continue
        far = min(1, max(0, first / (P * P) + (c - prev) / P))
        est[patch][dx - 1].append(255 * (1 - far) if sign > 0 else 255 * far)
    recon = {}
    for patch, cols in est.items():
        col = [sum(v) / len(v) if v else 128 for v in cols]
        recon[patch] = [(col[x],) * 3 for y in range(P) for x in range(P)]
    return recon


ATTACKS = {f.__name__: f for f in (hash_region, snapshot_digest, dhash, diff_threshold, assert_bisect, template,
                                   pointer_template, ocr, ocr_slide, derived, fresh_snapshots, recapture, accept_zones_prepare,
                                   accept_zones)}

if __name__ == "__main__":
    name, out = sys.argv[1], sys.argv[2]
    a = Attack(out, name)
    recon = ATTACKS[name](a)
    if recon:
        a.finish(recon)
