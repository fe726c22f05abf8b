#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# service_test.sh - the Windows broker end to end under Wine: install and
# start the service through the SCM, drive tests/apps/win32_testapp.exe with
# pixelgate.exe (list, match, snapshot, click, Unicode typing checked by the
# app's own log, assert changed, assert text, a refused release, the audit
# trail), then stop and uninstall.
#
# Usage: tests/windows/service_test.sh [BUILD_DIR]   (default build/mingw)
# Runs inside the Wine environment of scripts/test-mingw.sh (ctest test
# windows.service) or, standalone, brings one up itself (scripts/wine-env.sh).
# Output: "ok   ..." / "FAIL ..." per check and "N passed, N failed"; exit 1 on
# any failure. Never skips: a missing piece fails.
# Never: pipes Wine's output (its services inherit the pipe); reads stdin.
set -euo pipefail
exec </dev/null

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$(cd "${1:-$REPO/build/mingw}" && pwd)
PG_PASS=0 PG_FAIL=0
ok() { PG_PASS=$((PG_PASS + 1)); echo "ok   $*"; }
not_ok() { PG_FAIL=$((PG_FAIL + 1)); echo "FAIL $*"; }
# On failure the last Windows command's output is shown.
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; show; fi; }
die() { echo "FATAL: $*" >&2; exit 1; }

# --- Wine ------------------------------------------------------------------
OWN_WINE=0
if [ -z "${PG_WINE:-}" ] || [ -z "${WINEPREFIX:-}" ]; then
    # shellcheck source=../../scripts/wine-env.sh
    . "$REPO/scripts/wine-env.sh"
    PG_WINE_NO_TRAP=1 pg_wine_up || die "Wine did not come up"
    OWN_WINE=1 # cleanup() below takes it down (its trap replaces this one)
    trap pg_wine_down EXIT
fi
LOGS=$(mktemp -d /tmp/pg-wine-svc.XXXXXX)
C=$WINEPREFIX/drive_c
APPDIR=$C/pixelgate-test
PD=$C/ProgramData/pixelgate

# Runs a Windows program with stdout/stderr in files; sets RC, OUT, ERR.
RUN_N=0
w() {
    RUN_N=$((RUN_N + 1))
    OUT=$LOGS/$RUN_N.out ERR=$LOGS/$RUN_N.err
    RC=0
    timeout 120 "$PG_WINE" "$@" >"$OUT" 2>"$ERR" 8>&- || RC=$?
    printf '%s\n' "\$ $* -> $RC" >>"$LOGS/commands.log"
}
pg() { w "C:\\pixelgate-test\\pixelgate.exe" "$@"; }
jqo() { jq -r "$1" "$OUT"; }
# True only when the last command succeeded AND its stdout satisfies FILTER
# (jq -e alone is true on empty input).
jqe() { [ "$RC" = 0 ] && [ -s "$OUT" ] && jq -e "$1" "$OUT" >/dev/null; }
show() { [ -f "${OUT:-}" ] || return 0; echo "  stdout: $(head -c 600 "$OUT")"; echo "  stderr: $(head -c 600 "$ERR")"; }

for f in broker/pixelgated.exe client/pixelgate.exe tests/unit/win32_testapp.exe; do
    [ -f "$BUILD/$f" ] || die "$BUILD/$f missing: build with cmake --preset mingw first"
done
command -v jq >/dev/null || die "jq missing (scripts/mingw-deps.sh installs it)"
TESSDATA=/usr/share/tesseract-ocr/5/tessdata/eng.traineddata
[ -f "$TESSDATA" ] || die "$TESSDATA missing (Debian tesseract-ocr-eng; scripts/mingw-tesseract.sh installs it)"
rm -rf "$APPDIR" && mkdir -p "$APPDIR/tessdata"
cp "$BUILD/broker/pixelgated.exe" "$BUILD/client/pixelgate.exe" "$BUILD/tests/unit/win32_testapp.exe" "$APPDIR/"
# The broker reads language data from the tessdata folder beside it (the installer's layout).
cp "$TESSDATA" "$APPDIR/tessdata/"

# From here on a failed check is counted, not fatal: the summary decides.
set +e

cleanup() {
    local rc=$?
    w sc stop pixelgate || true
    w "C:\\pixelgate-test\\pixelgated.exe" uninstall || true
    [ -n "${APP_PID:-}" ] && kill "$APP_PID" 2>/dev/null || true
    [ "$OWN_WINE" = 1 ] && pg_wine_down
    echo "logs: $LOGS"
    exit $rc
}
trap cleanup EXIT

# --- the account Wine gives us, and the policy -------------------------------
w cmd /c echo %USERNAME%
WUSER=$(tr -d '\r\n' <"$OUT")
[ -n "$WUSER" ] || die "cannot read the Wine user name"
# A clean state dir: the audit checks count this run's records only.
rm -rf "$PD"
mkdir -p "$PD"
cat >"$PD/policy.json" <<EOF
{ "version": 1,
  "clients": { "users": ["$WUSER"] },
  "expose_pixels": "analyze-only",
  "capture": { "deny_windows": ["KeePass"] },
  "analysis": { "ocr": true } }
EOF

# --- install and start through the SCM ---------------------------------------
w "C:\\pixelgate-test\\pixelgated.exe" install
check "pixelgated install exits 0" [ "$RC" = 0 ]
check "install registered the service" grep -q 'created service pixelgate\|updated service pixelgate' "$OUT"
# Wine's service manager accepts SERVICE_CONFIG_FAILURE_ACTIONS but cannot
# return it (QueryServiceConfig2W: ERROR_INVALID_LEVEL, 124); Windows can.
if grep -q '^recovery (read back): restart after 5000 ms' "$OUT"; then
    ok "install set SCM recovery actions (read back from the SCM)"
elif grep -q 'cannot read back the recovery actions (error 124)' "$OUT"; then
    ok "install requested SCM recovery actions (Wine's SCM cannot read them back: error 124; verify on Windows)"
else
    not_ok "install set SCM recovery actions"; show
fi
w reg query 'HKLM\System\CurrentControlSet\Services\pixelgate'
check "service key in the registry" grep -qi 'ImagePath.*pixelgated.exe" service' "$OUT"
w sc start pixelgate
check "sc start pixelgate exits 0" [ "$RC" = 0 ]
ready=0
for _ in $(seq 60); do
    pg ping
    [ "$RC" = 0 ] && { ready=1; break; }
    sleep 0.5
done
check "the service answers ping through \\\\.\\pipe\\pixelgate" [ "$ready" = 1 ]
[ "$ready" = 1 ] || tail -n 20 "$PD/pixelgated.log" 2>/dev/null || true
w sc query pixelgate
check "sc query says RUNNING" grep -q 'RUNNING' "$OUT"

# --- the test app ------------------------------------------------------------
STATE=$APPDIR/state.txt
rm -f "$STATE"
timeout 300 "$PG_WINE" "C:\\pixelgate-test\\win32_testapp.exe" 'C:\pixelgate-test\state.txt' \
    >"$LOGS/app.out" 2>"$LOGS/app.err" 8>&- &
APP_PID=$!
for _ in $(seq 100); do grep -q '^ready' "$STATE" 2>/dev/null && break; sleep 0.1; done
check "win32_testapp is ready" grep -q '^ready' "$STATE"
# "ready pid=P button=X,Y,W,H edit=X,Y,W,H"
read -r BX BY BW BH < <(sed -n 's/^ready .*button=\([0-9]*\),\([0-9]*\),\([0-9]*\),\([0-9]*\).*/\1 \2 \3 \4/p' "$STATE" | tr -d '\r')
read -r EX EY EW EH < <(sed -n 's/^ready .*edit=\([0-9]*\),\([0-9]*\),\([0-9]*\),\([0-9]*\).*/\1 \2 \3 \4/p' "$STATE" | tr -d '\r')

pg caps
check "caps: backend win32 through the session helper" jqe '.backend == "win32"'
echo "  caps detail: $(jqo .detail)"
pg windows --match 'pixelgate win32 test'
check "windows --match finds the test app" jqe '.count == 1 and .windows[0].class == "pgwin32test"'
check "the window reports the app's pid" jqe '.windows[0].pid > 0'
check "the window reports its DPI and scale (96 DPI under Wine)" jqe '.windows[0].dpi == 96 and .windows[0].scale == 1'

pg snapshot --window 'pixelgate win32 test'
check "snapshot -> opaque token" jqe '(.token | test("^cap:[A-Za-z0-9_-]{22}$")) and .width == 420 and .height == 240'
T1=$(jqo .token)
echo "  method: $(jqo .method)"
check "the token names no path" bash -c "! grep -q 'ProgramData\|spool\|\\\\\\\\' '$OUT'"

pg click --window 'pixelgate win32 test' --at "$((BX + BW / 2)),$((BY + BH / 2))"
check "click on the button" [ "$RC" = 0 ]
pg click --window 'pixelgate win32 test' --at "$((EX + 5)),$((EY + EH / 2))"
TEXT='héllo wörld ✓ 𝄞'
pg type --window 'pixelgate win32 test' "$TEXT"
check "type Unicode text" [ "$RC" = 0 ]
sleep 0.5
LAST=$(grep '^state' "$STATE" | tail -n1 | tr -d '\r')
check "the app counted the click (its own log)" grep -q '^state clicks=1 ' <<<"$LAST"
check "the app's edit holds the exact Unicode text (its own log)" [ "$LAST" = "state clicks=1 edit=$TEXT" ]
echo "  app's last state: $LAST"

# Held input through the service in one script (one connection): shift held
# over a key, a button held over a move; the app's own log says what arrived.
cat >"$APPDIR/held.pgs" <<'PGS'
key-down --window 'pixelgate win32 test' shift
key --window 'pixelgate win32 test' q
key-up shift
key --window 'pixelgate win32 test' q
mouse-down --window 'pixelgate win32 test' --at 300,200
move --window 'pixelgate win32 test' --at 340,215
cursor
mouse-up
PGS
pg run 'C:\pixelgate-test\held.pgs'
check "a script holds shift over a key and a button over a move (exit $RC)" [ "$RC" = 0 ]
cursor_held() { jq -se '[.[] | select(.command == "cursor")][0].result | .cursor.x == 340 and .cursor.y == 215 and .held == ["left button"]' "$OUT" >/dev/null; }
check "...cursor says where the pointer is in the window, the button held" cursor_held
sleep 0.5
LAST=$(grep '^state' "$STATE" | tail -n1 | tr -d '\r')
check "the edit got Q then q: shift held for the first only (its own log)" [ "$LAST" = "state clicks=1 edit=${TEXT}Qq" ]
PTR=$(grep '^pointer' "$STATE" | tail -n1 | tr -d '\r')
check "the app saw the press at 300,200 and the release at 340,215 (its own log: $PTR)" \
    grep -q 'down=300,200 up=340,215' <<<"$PTR"

pg snapshot --window 'pixelgate win32 test'
T2=$(jqo .token)
pg assert changed "$T1" "$T2" --min-pct 0.05
check "assert changed between the two snapshots" [ "$RC" = 0 ]
pg assert unchanged "$T1" "$T2" --max-pct 0.01
check "assert unchanged fails with exit 1" [ "$RC" = 1 ]
pg assert text "$T2" --expect 'Press me'
check "assert text finds the button label" [ "$RC" = 0 ]

pg release "$T2" --png 'C:\pixelgate-test\leak.png'
check "release refused under analyze-only (exit 3)" [ "$RC" = 3 ]
check "nothing was written" [ ! -e "$APPDIR/leak.png" ]
pg info 'cap:AAAAAAAAAAAAAAAAAAAAAA'
check "an unknown token is NOT_FOUND (exit 4)" [ "$RC" = 4 ]

# --- audit trail ---------------------------------------------------------------
AUDIT=$PD/audit/audit.jsonl
check "audit log exists" [ -s "$AUDIT" ]
check "audit: the snapshot is on record with the user" \
    jq -se --arg u "$WUSER" 'map(select(.op == "snapshot" and .principal.user == $u)) | length >= 2' "$AUDIT"
check "audit: the refused release is on record" jq -se 'map(select(.op == "release" and .outcome != "OK")) | length == 1' "$AUDIT"
check "audit: typed text recorded by size only" bash -c "! grep -q 'wörld' '$AUDIT'"
w "C:\\pixelgate-test\\pixelgated.exe" --verify-audit 'C:\ProgramData\pixelgate\audit\audit.jsonl'
check "pixelgated --verify-audit: the chain is whole" [ "$RC" = 0 ]

# --- a broken policy: the service refuses to start, with the documented code ----
w sc stop pixelgate
stopped=0
for _ in $(seq 60); do
    w sc query pixelgate
    grep -q STOPPED "$OUT" && { stopped=1; break; }
    sleep 0.5
done
check "sc stop: the service stops" [ "$stopped" = 1 ]
pg ping
check "a stopped broker is UNREACHABLE (exit 5)" [ "$RC" = 5 ]
cp "$PD/policy.json" "$LOGS/policy.good"
echo '{ "version": 1, "clients": { "users": ["x"] }, "unknown_key": 1 }' >"$PD/policy.json"
w sc start pixelgate
sleep 2
w sc query pixelgate
check "a service with a bad policy does not stay running" grep -q 'STOPPED' "$OUT"
check "its log names the bad key" grep -q 'unknown_key' "$PD/pixelgated.log"
cp "$LOGS/policy.good" "$PD/policy.json"

# --- uninstall --------------------------------------------------------------------
w "C:\\pixelgate-test\\pixelgated.exe" uninstall
check "pixelgated uninstall exits 0" [ "$RC" = 0 ]
w reg query 'HKLM\System\CurrentControlSet\Services\pixelgate'
check "the service key is gone" [ "$RC" != 0 ]
check "the audit log is kept" [ -s "$AUDIT" ]

echo "$PG_PASS passed, $PG_FAIL failed"
[ "$PG_FAIL" = 0 ] && [ "$PG_PASS" -gt 0 ]
