#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_layers.py - holds every #include of the C code to tools/layers.txt.

    check_layers.py ROOT             check; exit 1 naming every break
    check_layers.py ROOT --write     also rewrite the generated table in
                                     docs/architecture.md
    check_layers.py ROOT --inject FILE:HEADER ...
                                     self-test: as if FILE also included
                                     HEADER; exit 0 only when every injected
                                     include is reported as a break and
                                     nothing else is

A quoted include is resolved the way the build resolves it: beside the
including file first, then as a path under a module (#include "ocr/pg_ocr.h"),
then by its file name among the modules' headers; a name two modules both
have is an error, so no include goes unjudged. System includes (<...>) are
not the project's and are not read. Tests, benches and build trees are not
modules: they may include anything.
"""
import os
import re
import sys

SOURCE_EXT = (".c", ".h", ".def")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
BEGIN = "<!-- BEGIN generated:layers (tools/check_layers.py) -->"
END = "<!-- END generated:layers -->"


def parse_rules(path):
    layers, never, only = [], [], []
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].split()
            if not line:
                continue
            word, rest = line[0], line[1:]
            if word == "layer" and rest:
                layers.append(rest)
            elif word == "never" and len(rest) == 2:
                never.append((rest[0], rest[1]))
            elif word == "only" and len(rest) >= 3 and rest[1].endswith(":"):
                only.append((rest[0], rest[1][:-1], set(rest[2:])))
            else:
                sys.exit(f"{path}:{n}: cannot read '{raw.strip()}'")
    return layers, never, only


def module_of(path, modules):
    """The longest listed module path is under, or None."""
    best = None
    for m in modules:
        if path == m or path.startswith(m + "/"):
            if best is None or len(m) > len(best):
                best = m
    return best


def source_files(root, modules):
    out = []
    for m in modules:
        for d, subdirs, files in os.walk(os.path.join(root, m)):
            subdirs[:] = sorted(s for s in subdirs if s not in ("build", "node_modules"))
            for f in sorted(files):
                if f.endswith(SOURCE_EXT):
                    rel = os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/")
                    if module_of(rel, modules) == m:
                        out.append(rel)
    return out


def resolve(root, src, name, by_name, files):
    here = os.path.normpath(os.path.join(os.path.dirname(src), name)).replace(os.sep, "/")
    if here in files:
        return here, None
    # A Wayland protocol's client header, generated at build time by
    # wayland-scanner from the module's own protocols/NAME.xml: the module's.
    if name.endswith("-client.h"):
        xml = os.path.join(root, os.path.dirname(src), "protocols", name[: -len("-client.h")] + ".xml")
        if os.path.isfile(xml):
            return src, None
    under = [f for f in files if f.endswith("/" + name)] if "/" in name else []
    if len(under) == 1:
        return under[0], None
    cands = by_name.get(os.path.basename(name), [])
    if len(cands) == 1:
        return cands[0], None
    if not cands:
        return None, f'{src}: #include "{name}" names no header of any module'
    return None, f'{src}: #include "{name}" is ambiguous: {", ".join(cands)}'


def check(root, rules_path, injected=()):
    layers, never, only = parse_rules(rules_path)
    level = {m: i for i, row in enumerate(layers) for m in row}
    modules = list(level)
    files = source_files(root, modules)
    fileset = set(files)
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), []).append(f)
    errors, edges, caught = [], {}, set()
    for src in files:
        with open(os.path.join(root, src), encoding="utf-8", errors="replace") as fh:
            names = INCLUDE.findall(fh.read())
        names += [h for f, h in injected if f == src]
        a = module_of(src, modules)
        for name in names:
            dst, err = resolve(root, src, name, by_name, fileset)
            if err:
                errors.append(err)
                continue
            b = module_of(dst, modules)
            if a == b:
                continue
            edges.setdefault(a, set()).add(b)
            why = judge(src, dst, a, b, level, never, only)
            if why:
                errors.append(f'{src}: #include "{name}" ({dst}): {why}')
                if (src, name) in injected:
                    caught.add((src, name))
    return layers, edges, errors, caught


def judge(src, dst, a, b, level, never, only):
    if level[b] > level[a]:
        return f"{a} (layer {level[a]}) includes upward into {b} (layer {level[b]})"
    if level[b] == level[a]:
        return f"{a} and {b} are siblings on layer {level[a]}: neither includes the other"
    for x, y in never:
        if a == x and b == y:
            return f"never: {x} includes nothing of {y}"
    for x, y, allowed in only:
        if (src == x or src.startswith(x + "/")) and b == y and os.path.basename(dst) not in allowed:
            return f"only: from {y}, {x} includes only {' '.join(sorted(allowed))}"
    return None


def table(layers, edges):
    rows = ["| layer | module | includes headers of |", "|---:|---|---|"]
    for i in range(len(layers) - 1, -1, -1):
        for m in layers[i]:
            deps = sorted(edges.get(m, ()), key=lambda d: (-[d in row for row in layers].index(True), d))
            rows.append(f"| {i} | `{m}/` | {', '.join(f'`{d}/`' for d in deps) or '-'} |")
    return "\n".join(rows)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    root, args = sys.argv[1], sys.argv[2:]
    write = "--write" in args
    injected = [tuple(args[i + 1].split(":", 1)) for i, a in enumerate(args) if a == "--inject" and i + 1 < len(args)]
    layers, edges, errors, caught = check(root, os.path.join(root, "tools", "layers.txt"), injected)
    doc = os.path.join(root, "docs", "architecture.md")
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    want = f"{BEGIN}\n{table(layers, edges)}\n{END}"
    m = re.search(re.escape(BEGIN) + ".*?" + re.escape(END), text, re.S)
    if injected:
        pass  # the self-test's injected includes are not the code's: the table is not judged
    elif not m:
        errors.append(f"docs/architecture.md: no {BEGIN} ... {END} section")
    elif m.group(0) != want:
        if write:
            with open(doc, "w", encoding="utf-8") as f:
                f.write(text[: m.start()] + want + text[m.end():])
        else:
            errors.append("docs/architecture.md: the layers table differs from the includes "
                          "(run: python3 tools/check_layers.py . --write)")
    for e in errors:
        print("layers:", e)
    n_edges = sum(len(v) for v in edges.values())
    print(f"layers: {len(layers)} layers, {sum(map(len, layers))} modules, {n_edges} module dependencies, "
          f"{len(errors)} breaks")
    if injected:
        missed = [f"{f}:{h}" for f, h in injected if (f, h) not in caught]
        for m in missed:
            print("layers: self-test: the injected include", m, "was not reported")
        ok = not missed and len(errors) == len(caught)
        print("layers: self-test", "passed" if ok else "FAILED")
        return 0 if ok else 1
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
