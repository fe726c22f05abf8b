#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# person_physical.sh BUILD - the Win32 stop hook against input that is not
# injected, under Wine on Xvfb (ctest windows.person_physical).
#
# Contract: runs BUILD/tests/unit/person_physical.exe (tests/windows/
# person_physical.c), which watches for Pause, checks that its own injected
# Pause counts as nothing, shows a window and prints "ready"; then presses
# Pause and moves the pointer through the X server with xdotool (XTEST),
# which Wine delivers as hardware input, so the low-level hooks see it
# without LLKHF_INJECTED/LLMHF_INJECTED, as Windows shows the person's own
# keyboard and mouse. Passes only if the program saw exactly one stop press
# and physical motion (its exit 0). Anything missing (the program, xdotool,
# Wine, the window) fails, saying what.
# Environment: the caller's Wine (PG_WINE, WINEPREFIX, DISPLAY: sourced
# scripts/wine-env.sh), else it brings its own up and down.
# Never: waits without a deadline, leaves the program running.
set -euo pipefail
exec </dev/null

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$(cd "${1:-$REPO/build/mingw}" && pwd)
EXE=$BUILD/tests/unit/person_physical.exe
TITLE="pixelgate person physical"
die() { echo "FAIL $*"; exit 1; }

[ -f "$EXE" ] || die "$EXE missing: build with cmake --preset mingw first"
command -v xdotool >/dev/null || die "xdotool missing (scripts/mingw-deps.sh installs it)"
OWN_WINE=0
if [ -z "${PG_WINE:-}" ] || [ -z "${WINEPREFIX:-}" ]; then
    # shellcheck source=../../scripts/wine-env.sh
    . "$REPO/scripts/wine-env.sh"
    PG_WINE_NO_TRAP=1 pg_wine_up || die "Wine did not come up"
    OWN_WINE=1
fi
OUT=$(mktemp /tmp/pg-person-physical.XXXXXX)
"$PG_WINE" "$EXE" >"$OUT" 2>"$OUT.err" 8>&- &
PID=$!
cleanup() {
    kill "$PID" 2>/dev/null || true
    rm -f "$OUT" "$OUT.err"
    if [ "$OWN_WINE" = 1 ]; then pg_wine_down; fi
}
trap cleanup EXIT

deadline=$((SECONDS + 30))
until grep -q '^ready' "$OUT"; do
    kill -0 "$PID" 2>/dev/null || die "the program ended before it was ready: $(cat "$OUT")"
    [ "$SECONDS" -lt "$deadline" ] || die "the program was not ready within 30 s: $(cat "$OUT")"
    sleep 0.1
done
echo "ok   an injected Pause reached the hook and counted as nothing"
W=$(timeout 10 xdotool search --sync --name "$TITLE" | head -n1) || die "no X window \"$TITLE\""
xdotool windowfocus --sync "$W"
xdotool mousemove --window "$W" 40 40 mousemove --window "$W" 90 90
xdotool key Pause # XTEST, to the focused window: the keyboard as Wine sees it
rc=0
timeout 60 tail --pid="$PID" -f /dev/null || die "the program did not end within 60 s"
wait "$PID" || rc=$?
echo "     $(tail -n1 "$OUT")"
[ "$rc" = 0 ] || die "exit $rc: a physical Pause was not one stop press, or no physical motion was seen"
echo "ok   a physical Pause was one stop press, physical motion was the person's activity"
