#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""h2h_time.py - time pairs of commands whole process, interleaved A B A B.

Usage: h2h_time.py RUNS WARMUP NAME CMD_A CMD_B [NAME CMD_A CMD_B]...
Each CMD is a shell command line (run by /bin/sh -c, so both sides pay the
same shell); a row's two commands alternate RUNS times after WARMUP rounds.
Prints one JSON object per row: medians, quartiles and the floor (a bare
`/bin/true` through the same path) in ms. $H2H_BETWEEN, when set, is a
command run (untimed) before each row: bench/h2h empties the token store with
it, so captures one row kept do not push the next row's past the broker's
memory budget into the spool. $H2H_EACH, when set, is a command run (untimed)
before every run of either side, warm-ups included: bench/run_ocr_cache.sh
changes a field of the window with it. A command that fails is an error,
never a timing. Not a test: nothing here passes or fails on speed.
"""
import json
import os
import statistics
import subprocess
import sys
import time


def once(cmd):
    if cmd is not None and os.environ.get("H2H_EACH"):
        once_untimed(os.environ["H2H_EACH"])
    return timed(cmd if cmd is not None else "/bin/true")


def once_untimed(cmd):
    timed(cmd)


def timed(cmd):
    t0 = time.perf_counter()
    r = subprocess.run(["/bin/sh", "-c", cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    took = (time.perf_counter() - t0) * 1000.0
    if r.returncode != 0:
        sys.exit(f"h2h: '{cmd}' failed ({r.returncode}): {r.stderr.decode(errors='replace')[:400]}")
    return took


def quartiles(xs):
    q = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
    return q[0], statistics.median(xs), q[2]


def main(argv):
    runs, warmup = int(argv[1]), int(argv[2])
    rows = argv[3:]
    if len(rows) % 3:
        sys.exit("h2h: NAME CMD_A CMD_B triples expected")
    floor = [once(None) for _ in range(runs)]
    for i in range(0, len(rows), 3):
        name, a, b = rows[i:i + 3]
        if os.environ.get("H2H_BETWEEN"):
            once_untimed(os.environ["H2H_BETWEEN"])
        for _ in range(warmup):
            once(a), once(b)
        ta, tb = [], []
        for _ in range(runs):
            ta.append(once(a))
            tb.append(once(b))
        qa, qb = quartiles(ta), quartiles(tb)
        print(json.dumps({"name": name, "a_ms": qa[1], "b_ms": qb[1], "a_q1": qa[0], "a_q3": qa[2],
                          "b_q1": qb[0], "b_q3": qb[2], "ratio": qb[1] / qa[1],
                          "floor_ms": statistics.median(floor), "runs": runs}), flush=True)


if __name__ == "__main__":
    main(sys.argv)
