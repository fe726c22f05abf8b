#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The client's command line without a broker (unit.client_cli).

Usage: client_cli.py PIXELGATE

1. `pixelgate CMD --help` prints exactly what `pixelgate help CMD` prints, on
   stdout, exit 0, nothing on stderr: for every command `pixelgate --help`
   lists, each group (assert, baseline), and with --help after other words.
   A literal --help after "--" is an argument, not a request for help.
2. Every failure of the client prints one JSON error object on stderr (one
   line: error.code, error.exit equal to the exit status, a message and a
   recovery tip) and nothing on stdout: bad global options, no command, an
   unknown one, bad arguments, a file it cannot read, no broker.
"""
import atexit
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

PG = sys.argv[1]
_SOCKDIR = tempfile.mkdtemp(prefix="pg-cli-")
atexit.register(shutil.rmtree, _SOCKDIR, True)
NOSOCK = os.path.join(_SOCKDIR, "no-broker.sock")
failures = 0


def run(args):
    env = dict(os.environ, PIXELGATE_SOCKET=NOSOCK)
    p = subprocess.run([PG] + args, capture_output=True, text=True, timeout=30, env=env, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


def ok(cond, what):
    global failures
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        failures += 1


def commands():
    rc, out, _ = run(["--help"])
    names = []
    for line in out.splitlines():
        m = re.match(r"^  pixelgate (\S+)(?: ([a-z][a-z-]*)(?=\s|$))?", line)
        if m:
            names.append(m.group(1) + (" " + m.group(2) if m.group(2) else ""))
    return names


names = commands()
ok(len(names) > 40 and "snapshot" in names and "assert changed" in names and "run" in names,
   f"pixelgate --help lists the commands ({len(names)})")
for name in names + ["assert", "baseline"]:
    words = name.split()
    h = run(["help"] + words)
    f = run(words + ["--help"])
    ok(h[0] == 0 and h[1] and not h[2], f"pixelgate help {name}: exit 0, text on stdout only")
    ok(f == h, f"pixelgate {name} --help is pixelgate help {name}")
# --help among other words, and after "--" (a value, so no help)
ok(run(["snapshot", "--window", "x", "--help"]) == run(["help", "snapshot"]),
   "pixelgate snapshot --window x --help is pixelgate help snapshot")
rc, out, err = run(["type", "--window", "x", "--", "--help"])
ok(rc == 5 and not out, f"pixelgate type --window x -- --help types it (no broker: exit 5, got {rc})")

with tempfile.TemporaryDirectory() as t:
    bad_png = os.path.join(t, "bad.png")
    with open(bad_png, "wb") as fh:
        fh.write(b"not a png")
    cases = [
        ([], 2), (["--timeout", "0", "ping"], 2), (["--timeout", "-1", "ping"], 2),
        (["--timeout", "abc", "ping"], 2), (["--timeout", "1e9", "ping"], 2), (["--timeout"], 2),
        (["--socket"], 2), (["--bogus", "ping"], 2), (["nosuch"], 2), (["help", "nosuch"], 2),
        (["nosuch", "--help"], 2), (["assert"], 2), (["snapshot", "--bogus"], 2), (["snapshot"], 2),
        (["click", "--window", "x", "--at", "1,2,3"], 2), (["info"], 2),
        (["run", os.path.join(t, "missing.txt")], 4), (["run"], 2), (["mcp", "--bogus"], 2),
        (["hash", os.path.join(t, "missing.png")], None), (["hash", bad_png], None),
        (["ping"], 5), (["--socket", NOSOCK, "windows"], 5),
    ]
    for args, want in cases:
        rc, out, err = run(args)
        lines = err.strip().splitlines()
        try:
            e = json.loads(lines[0])["error"] if len(lines) == 1 else None
        except (ValueError, KeyError, TypeError):
            e = None
        shown = " ".join(args) or "(nothing)"
        good = (e is not None and rc != 0 and e.get("exit") == rc and isinstance(e.get("code"), str)
                and e.get("message") and e.get("recovery_tip") and not out and (want is None or rc == want))
        ok(good, f"pixelgate {shown}: exit {rc}{'' if want is None else f' (want {want})'}, "
                 f"one JSON error on stderr, stdout empty" + ("" if good else f"; stderr: {err!r}"))

print(f"{failures} failed" if failures else "all passed")
sys.exit(1 if failures else 0)
