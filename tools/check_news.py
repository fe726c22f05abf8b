#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_news.py ROOT [VERSION] - NEWS has a section for the project's version.

The version is CMakeLists.txt's project(pixelgate VERSION x.y.z) unless
given (unit.news_catches_a_missing_version gives one NEWS lacks). A section
is a line "pixelgate x.y.z" (optionally followed by a date or "(not yet
released)") underlined with "=", with at least one "* " entry before the
next section. Exit 1 naming what is missing.
"""
import os
import re
import sys


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1]
    if len(argv) == 3:
        version = argv[2]
    else:
        cm = open(os.path.join(root, "CMakeLists.txt"), encoding="utf-8").read()
        m = re.search(r"project\(pixelgate VERSION ([0-9.]+)", cm)
        if not m:
            print("check_news: no project(pixelgate VERSION ...) in CMakeLists.txt", file=sys.stderr)
            return 1
        version = m.group(1)
    news = open(os.path.join(root, "NEWS"), encoding="utf-8").read()
    m = re.search(r"^pixelgate %s\b.*\n=+\n(.*?)(?=^pixelgate \d|\Z)" % re.escape(version), news, re.S | re.M)
    if not m:
        print(f"check_news: NEWS has no section 'pixelgate {version}' (underlined with =): "
              f"say what this version changes for its users", file=sys.stderr)
        return 1
    if not re.search(r"^\* ", m.group(1), re.M):
        print(f"check_news: NEWS's section for {version} has no '* ' entry", file=sys.stderr)
        return 1
    print(f"check_news: NEWS says what {version} changes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
