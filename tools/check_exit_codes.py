#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_exit_codes.py - every exit code is documented where users read them.

Usage:
  check_exit_codes.py SRC_ROOT PIXELGATE_1            check
  check_exit_codes.py SRC_ROOT PIXELGATE_1 --selftest drop code 12 from a copy
                                                      of each document in turn;
                                                      pass only if each is caught

The codes are read from the source, independently of the generator that
writes the documents: the enum of common/pg_error.h (PG_... = N) and the
names of common/pg_error.c's table ([PG_...] = {"NAME", ...). Each code must
appear with its name in pixelgate(1)'s EXIT STATUS section (the roff that
tools/pg_gendoc_man.c writes) and as a row of docs/agents.md's exit code table.
"""
import os
import re
import shutil
import sys
import tempfile


def codes(root):
    h = open(os.path.join(root, "common/pg_error.h"), encoding="utf-8").read()
    c = open(os.path.join(root, "common/pg_error.c"), encoding="utf-8").read()
    enum = {m.group(1): int(m.group(2)) for m in re.finditer(r"\b(PG_(?:OK|E_\w+))\s*=\s*(\d+)", h)}
    names = {m.group(1): m.group(2) for m in re.finditer(r"\[(PG_(?:OK|E_\w+))\]\s*=\s*\{\s*\"(\w+)\"", c)}
    out = {}
    for sym, n in enum.items():
        if sym not in names:
            raise SystemExit(f"check_exit_codes: {sym} ({n}) has no row in common/pg_error.c")
        out[n] = names[sym]
    if sorted(out) != list(range(len(out))):
        raise SystemExit(f"check_exit_codes: the codes are not 0..N: {sorted(out)}")
    return out


def man_section(man):
    m = re.search(r'^\.SH "EXIT STATUS"\n(.*?)(?=^\.SH )', man, re.S | re.M)
    return m.group(1) if m else ""


def check(table, man_path, agents_path):
    bad = []
    sec = man_section(open(man_path, encoding="utf-8").read())
    agents = open(agents_path, encoding="utf-8").read()
    for n, name in sorted(table.items()):
        if not re.search(r"^\.B %d\n\\fB%s\\fR" % (n, re.escape(name)), sec, re.M):
            bad.append(f"{man_path}: EXIT STATUS has no {n} {name}")
        if not re.search(r"^\| %d \| %s \|" % (n, re.escape(name)), agents, re.M):
            bad.append(f"{agents_path}: the exit code table has no row {n} {name}")
    for b in bad:
        print(b, file=sys.stderr)
    return bad


def selftest(table, root, man_path):
    agents_path = os.path.join(root, "docs/agents.md")
    last = max(table)
    with tempfile.TemporaryDirectory() as t:
        man2 = os.path.join(t, "pixelgate.1")
        agents2 = os.path.join(t, "agents.md")
        man = open(man_path, encoding="utf-8").read()
        cut = re.sub(r"^\.TP\n\.B %d\n.*\n" % last, "", man, flags=re.M)
        open(man2, "w", encoding="utf-8").write(cut)
        shutil.copy(agents_path, agents2)
        if cut == man or not check(table, man2, agents2):
            print(f"selftest: a man page without code {last} was not caught", file=sys.stderr)
            return 1
        shutil.copy(man_path, man2)
        agents = open(agents_path, encoding="utf-8").read()
        cut = re.sub(r"^\| %d \|.*\n" % last, "", agents, flags=re.M)
        open(agents2, "w", encoding="utf-8").write(cut)
        if cut == agents or not check(table, man2, agents2):
            print(f"selftest: docs/agents.md without code {last} was not caught", file=sys.stderr)
            return 1
    print(f"selftest: code {last} missing from the man page, then from docs/agents.md, was caught each time")
    return 0


def main(argv):
    if len(argv) not in (3, 4) or (len(argv) == 4 and argv[3] != "--selftest"):
        print(__doc__, file=sys.stderr)
        return 2
    root, man = argv[1], argv[2]
    table = codes(root)
    if len(argv) == 4:
        return selftest(table, root, man)
    if check(table, man, os.path.join(root, "docs/agents.md")):
        return 1
    print(f"check_exit_codes: codes 0-{max(table)} are in pixelgate(1) and docs/agents.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
