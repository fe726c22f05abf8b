#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# xsession_xhost.sh - the package's display grant at login, against a real X
# server (ctest unit.xsession_xhost, label x11):
#   installer/linux/40pixelgate_xhost (-> /etc/X11/Xsession.d/), sourced the
#   way Xsession(5) sources it (sh, set -e), leaves `xhost` listing
#   SI:localuser:pixelgate, and without xhost on PATH it does nothing and
#   does not end the session;
#   installer/linux/pixelgate-xhost.desktop (-> /etc/xdg/autostart/) is a
#   valid desktop entry whose Exec line grants the same.
# Its own Xvfb (the server picks a free display). The X server refuses an
# SI:localuser entry for an account that does not exist, so the account
# pixelgate must: if it is missing, as root the test makes it the way the
# package does (a system account, left in place: another test or the package
# may use it by then); as another user it runs the files with the account's
# name replaced by the caller's own and says so, after checking that the
# files name pixelgate.
# Output: "ok - ..." / "not ok - ..." per check, then "N passed, N failed".
set -uo pipefail
exec </dev/null
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SNIPPET=$ROOT/installer/linux/40pixelgate_xhost
DESKTOP=$ROOT/installer/linux/pixelgate-xhost.desktop
PASS=0
FAIL=0
check() {
    local d=$1
    shift
    if "$@"; then PASS=$((PASS + 1)); echo "ok - $d"; else FAIL=$((FAIL + 1)); echo "not ok - $d"; fi
}
for t in Xvfb xhost desktop-file-validate; do
    command -v "$t" >/dev/null || { echo "FATAL: $t missing (scripts/deps.sh installs it)" >&2; exit 1; }
done
WORK=$(mktemp -d /tmp/pg-xsession.XXXXXX)
ACCOUNT=pixelgate
if ! getent passwd pixelgate >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
        useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin pixelgate ||
            { echo "FATAL: cannot create the account pixelgate" >&2; exit 1; }
        echo "# made the system account pixelgate (as the package's postinst does); it stays"
    else
        ACCOUNT=$(id -un)
        echo "# no account pixelgate and not root: granting $ACCOUNT instead, in copies of the files"
    fi
fi
XPID=
cleanup() {
    [ -n "$XPID" ] && kill "$XPID" 2>/dev/null && wait "$XPID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
exec 5>"$WORK/display"
# -noreset: an X server resets its access list when its last client goes; in a
# session the desktop's clients stay connected, here each xhost is the only one.
Xvfb -displayfd 5 -screen 0 320x240x24 -nolisten tcp -noreset >"$WORK/xvfb.log" 2>&1 &
XPID=$!
# Wait (bounded) until the server says which display it took, then until it answers.
for _ in $(seq 200); do [ -s "$WORK/display" ] && break; sleep 0.05; done
[ -s "$WORK/display" ] || { cat "$WORK/xvfb.log" >&2; echo "FATAL: Xvfb did not start" >&2; exit 1; }
export DISPLAY=:$(head -1 "$WORK/display")
for _ in $(seq 200); do xhost >/dev/null 2>&1 && break; sleep 0.05; done

check "the snippet grants SI:localuser:pixelgate" grep -q '^ *xhost +SI:localuser:pixelgate ' "$SNIPPET"
check "the autostart entry grants SI:localuser:pixelgate" grep -qx 'Exec=xhost +SI:localuser:pixelgate' "$DESKTOP"
if [ "$ACCOUNT" != pixelgate ]; then
    sed "s/localuser:pixelgate/localuser:$ACCOUNT/g" "$SNIPPET" >"$WORK/snippet"
    sed "s/localuser:pixelgate/localuser:$ACCOUNT/g" "$DESKTOP" >"$WORK/pixelgate-xhost.desktop"
    SNIPPET=$WORK/snippet
    DESKTOP=$WORK/pixelgate-xhost.desktop
fi
# (xhost's list is read whole first: under pipefail an early grep -q exit could fail the pipe)
granted() { local l; l=$(xhost 2>/dev/null); grep -qx "SI:localuser:$ACCOUNT" <<<"$l"; }
not_granted() { ! granted; }

check "a fresh X server does not list SI:localuser:$ACCOUNT" not_granted
# Xsession runs its snippets with set -e: a failing line would end the login.
check "the Xsession.d snippet, sourced under sh -e, returns 0" sh -ec ". '$SNIPPET'"
check "after it, xhost lists SI:localuser:$ACCOUNT" granted
check "sourced again (a second login on the same server), it still returns 0" sh -ec ". '$SNIPPET'"
xhost "-SI:localuser:$ACCOUNT" >/dev/null 2>&1
check "xhost -SI:localuser:$ACCOUNT takes it back (README.Debian)" not_granted
mkdir -p "$WORK/bin"
ln -s "$(command -v sh)" "$WORK/bin/sh"
check "without xhost on PATH the snippet returns 0 (the login goes on)" \
    env PATH="$WORK/bin" sh -ec ". '$SNIPPET'"
check "... and grants nothing" not_granted

check "the autostart entry is a valid desktop entry" desktop-file-validate "$DESKTOP"
EXEC=$(sed -n 's/^Exec=//p' "$DESKTOP")
TRYEXEC=$(sed -n 's/^TryExec=//p' "$DESKTOP")
check "its TryExec is xhost (skipped where xhost is missing)" test "$TRYEXEC" = xhost
# shellcheck disable=SC2086 # the Exec line is words, as a desktop's launcher splits it
check "its Exec line exits 0" $EXEC
check "after it, xhost lists SI:localuser:$ACCOUNT" granted

echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
