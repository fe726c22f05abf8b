#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# wine-run.sh - ctest's emulator for the mingw build (cmake/mingw-w64.cmake):
#   wine-run.sh WINE PROGRAM.exe [ARGS...]
# Runs the test program under Wine and passes its output and exit code on.
# A run that failed without printing a single byte is Wine not starting the
# program: every unit test prints a line per test case, and CI once saw a
# test end in 0.01 s with no output where a run takes 0.03 s, and pass in
# 135 runs after. Such a run is tried once more, and the retry is said on
# stderr. A program that printed anything and failed is never run again.
set -u
wine=$1
shift
out=$(mktemp) || exit 125
trap 'rm -f "$out"' EXIT
"$wine" "$@" >"$out" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && [ ! -s "$out" ]; then
    echo "wine-run: $1 exited $rc before printing anything (Wine did not start it); running it once more" >&2
    "$wine" "$@" >"$out" 2>&1
    rc=$?
fi
cat "$out"
exit "$rc"
