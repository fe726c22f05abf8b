#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_spdx.py - every source file we wrote says its licence.

Usage:
  check_spdx.py ROOT            fail (exit 1) naming each source file under ROOT
                                without an "SPDX-License-Identifier: MIT" line
                                in its first HEAD_LINES lines
  check_spdx.py ROOT --write    add the line where it is missing (after a
                                shebang), in the comment syntax of the file
  check_spdx.py --selftest      build a small tree, one file without the line,
                                and pass only if the check names exactly that one

What is a source file: C, headers and X-macro lists (.c .h .def), CMake
(CMakeLists.txt, .cmake), shell (.sh), Python (.py), Tcl (.tcl), JavaScript
(.js .mjs), the NSIS script (.nsi), and any other file that starts with a
shebang (.ci/run, bench/h2h, debian/rules, the maintainer scripts). Not:
data (tests/data, fuzz corpora), documentation, JSON, build trees, .git.
"""
import os
import sys
import tempfile

LINE = "SPDX-License-Identifier: MIT"
HEAD_LINES = 5

COMMENT = {
    ".c": ("/* ", " */"), ".h": ("/* ", " */"), ".def": ("/* ", " */"),
    ".cmake": ("# ", ""), ".sh": ("# ", ""), ".py": ("# ", ""), ".tcl": ("# ", ""),
    ".js": ("// ", ""), ".mjs": ("// ", ""), ".nsi": ("; ", ""),
}
NAMES = {"CMakeLists.txt": ("# ", "")}
# Directories that hold no source of ours: build trees, VCS, data and corpora.
SKIP_DIRS = {".git", "build", "node_modules"}
SKIP_PREFIXES = ("tests/fuzz/corpus/",)


def comment_of(rel, first_line):
    """The (open, close) comment pair of a source file, or None if not source."""
    base = os.path.basename(rel)
    if base in NAMES:
        return NAMES[base]
    ext = os.path.splitext(base)[1]
    if ext in COMMENT:
        return COMMENT[ext]
    if first_line.startswith("#!"):
        return ("# ", "")
    return None


def sources(root):
    for d, dirs, files in os.walk(root):
        rel_d = os.path.relpath(d, root)
        dirs[:] = sorted(x for x in dirs
                         if x not in SKIP_DIRS and not x.startswith("build-")
                         and not (rel_d == "." and x.startswith(".") and x not in (".ci",)))
        for f in sorted(files):
            rel = os.path.normpath(os.path.join(rel_d, f))
            if rel.startswith(SKIP_PREFIXES):
                continue
            path = os.path.join(d, f)
            try:
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
            except (UnicodeDecodeError, OSError):
                continue  # binary data (images, fonts): not source
            first = text.split("\n", 1)[0]
            c = comment_of(rel, first)
            if c is not None:
                yield rel, path, text, c


def has_line(text):
    return any(LINE in l for l in text.split("\n")[:HEAD_LINES])


def check(root):
    missing = [rel for rel, _, text, _ in sources(root) if not has_line(text)]
    for rel in missing:
        print(f"{rel}: no '{LINE}' in its first {HEAD_LINES} lines", file=sys.stderr)
    return missing


def write(root):
    n = 0
    for rel, path, text, (op, cl) in sources(root):
        if has_line(text):
            continue
        tag = f"{op}{LINE}{cl}\n"
        if text.startswith("#!"):
            nl = text.index("\n") + 1 if "\n" in text else len(text)
            text = text[:nl] + tag + text[nl:]
        else:
            text = tag + text
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        n += 1
        print(f"added: {rel}")
    return n


def selftest():
    with tempfile.TemporaryDirectory() as t:
        files = {
            "a.c": "/* SPDX-License-Identifier: MIT */\nint a;\n",
            "CMakeLists.txt": "# SPDX-License-Identifier: MIT\nproject(x)\n",
            "s/run": "#!/bin/sh\n# SPDX-License-Identifier: MIT\necho\n",
            "docs/x.md": "no licence line needed\n",
            "tests/fuzz/corpus/fuzz_x/seed": "#!/bin/sh\n",
            "build/gen.c": "int generated;\n",
            "b.h": "#ifndef B_H\n#define B_H\n#endif\n",  # the one without it
        }
        for rel, body in files.items():
            p = os.path.join(t, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as fh:
                fh.write(body)
        missing = check(t)
        if missing != ["b.h"]:
            print(f"selftest: expected ['b.h'] reported, got {missing}", file=sys.stderr)
            return 1
        write(t)
        if check(t):
            print("selftest: --write left a file without the line", file=sys.stderr)
            return 1
        print("selftest: the missing line was reported, and --write fixed it")
        return 0


def main(argv):
    if argv[1:] == ["--selftest"]:
        return selftest()
    if len(argv) not in (2, 3) or (len(argv) == 3 and argv[2] != "--write"):
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1]
    if len(argv) == 3:
        write(root)
        return 0
    missing = check(root)
    if missing:
        print(f"check_spdx: {len(missing)} source file(s) without the licence line "
              f"(fix: python3 tools/check_spdx.py . --write)", file=sys.stderr)
        return 1
    print("check_spdx: every source file carries " + LINE)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
