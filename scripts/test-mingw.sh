#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test-mingw.sh - cross-build pixelgate for Windows x86_64 with mingw-w64
# (broker service, client, installer) and run, under Wine on Xvfb, the unit
# tests, the end-to-end service test (tests/windows/service_test.sh, a ctest)
# and the installer test (tests/windows/installer_test.sh).
#
# Usage: scripts/test-mingw.sh [extra ctest args, e.g. -R transport]
# Environment: PG_CACHE (cache dir outside the repo; default
# /var/cache/pixelgate-build, or ~/.cache/pixelgate-build for non-root),
# PG_WINEPREFIX (override the prefix), PG_WINE_TIMEOUT.
#
# Contract: installs what is missing (scripts/mingw-deps.sh, needs root or
# sudo the first time), configures with `cmake --preset mingw`, builds, runs
# `ctest --preset mingw` (test .exe files run through the toolchain's Wine
# emulator), prints ctest's summary and exits non-zero on any failure. Wine
# and Xvfb are torn down on every exit path. Works as root, with CI=true and
# no stdin, from a clean clone.
# Never: reads stdin, pipes Wine's output, leaves Xvfb or wineserver running.
set -euo pipefail
exec </dev/null

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
T0=$(date +%s)
phase() { printf '\n== test-mingw: %s (+%ss)\n' "$*" "$(($(date +%s) - T0))"; }

phase "dependencies (scripts/mingw-deps.sh)"
SYSROOT=$("$REPO/scripts/mingw-deps.sh")
echo "sysroot: $SYSROOT"
phase "Tesseract for mingw (scripts/mingw-tesseract.sh; about 6 minutes the first time)"
TESSERACT=$("$REPO/scripts/mingw-tesseract.sh" "$SYSROOT")
echo "tesseract: $TESSERACT"

phase "Wine on Xvfb"
# shellcheck source=wine-env.sh
. "$REPO/scripts/wine-env.sh"
pg_wine_up

phase "configure (cmake --preset mingw)"
cmake --preset mingw -DPG_MINGW_SYSROOT="$SYSROOT" -DPG_TESSERACT_PREFIX="$TESSERACT"

phase "build"
cmake --build --preset mingw

phase "test (ctest --preset mingw, under Wine)"
rc=0
ctest --preset mingw --timeout 300 "$@" || rc=$?

phase "teardown"
pg_wine_down
trap - EXIT

# The installer test uses its own Wine prefix (the service it registers must
# not linger in the shared one), so it runs after the shared prefix is down.
phase "installer (tests/windows/installer_test.sh, own Wine prefix)"
irc=0
bash "$REPO/tests/windows/installer_test.sh" "$REPO/build/mingw" || irc=$?
# Every SIMD kernel of the static Tesseract under Wine (own prefix too).
phase "Tesseract smoke test (tests/windows/tess_smoke.sh, own Wine prefix)"
trc=0
bash "$REPO/tests/windows/tess_smoke.sh" || trc=$?
phase "done: ctest exit code $rc, installer test exit code $irc, tesseract smoke exit code $trc"
[ "$rc" = 0 ] || exit "$rc"
[ "$irc" = 0 ] || exit "$irc"
exit "$trc"
