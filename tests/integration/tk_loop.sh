#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole loop for real: Xvfb, the Tk app (run by the agent), the broker as
# system user `pixelgate`, the client as the unprivileged agent. Proves that
# input arrives (the app reports its own state), that snapshot output holds a
# token and no path or pixels, that tokens are bound to their user, and that
# the agent cannot read the spool.
#   tk_loop.sh none|openbox
set -uo pipefail
. "$(dirname "$0")/lib.sh"
WM=${1:-none}
PG_AGENT=pgt-agent
PG_OTHER=pgt-other

pg_require_root
pg_require_tools Xvfb xauth xhost xdpyinfo xprop wish jq runuser useradd openbox
trap pg_cleanup EXIT
pg_user pixelgate system
pg_user "$PG_AGENT"
pg_user "$PG_OTHER"
pg_setup_dirs
pg_start_xvfb
[ "$WM" = openbox ] && pg_start_wm
# Without a WM the captures stay in the broker's memory; with openbox every
# capture is spilled to the spool (--memory-budget 0), so both paths run.
if [ "$WM" = openbox ]; then pg_start_broker --memory-budget 0; else pg_start_broker; fi
pg_start_app
echo "# display $PG_DISPLAY, window manager: $WM"

# --- ping: the broker sees the agent's real uid from the kernel
out=$(pg_as "$PG_AGENT" pixelgate ping)
check "ping answers with the agent as peer" test "$(jq -r .peer.user <<<"$out")" = "$PG_AGENT"

# --- windows: match the app, with its pid from the server side
out=$(pg_as "$PG_AGENT" pixelgate windows --match '^pixelgate demo$')
check "windows matches exactly one window" test "$(jq .count <<<"$out")" = 1
APP_PID=$(pg_state .pid)
check "window pid is the Tk app's ($APP_PID)" test "$(jq .windows[0].pid <<<"$out")" = "$APP_PID"
[ "$(jq .windows[0].pid <<<"$out")" = "$APP_PID" ] || echo "# windows: $out"
check "window has geometry" test "$(jq '.windows[0].width > 100 and .windows[0].height > 100' <<<"$out")" = true
WID=$(jq .windows[0].id <<<"$out")

# --- snapshot: a token, and nothing else that could leak
snap=$(pg_as "$PG_AGENT" pixelgate snapshot --window 'pixelgate demo')
rc=$?
check "snapshot exits 0" test $rc = 0
TOKEN=$(jq -r .token <<<"$snap")
check "token is cap: + 22 base64url chars" grep -qE '^cap:[A-Za-z0-9_-]{22}$' <<<"$TOKEN"
check "snapshot output names no path" bash -c '! grep -qE "/(tmp|var|run|home)|spool|\\.raw" <<<"$1"' _ "$snap"
check "snapshot output holds no long blob (no pixels)" bash -c '! grep -qE "[A-Za-z0-9+/=]{200}" <<<"$1"' _ "$snap"
check "snapshot size is the window's" test "$(jq .width <<<"$snap")x$(jq .height <<<"$snap")" = "$(jq -r '"\(.windows[0].width)x\(.windows[0].height)"' <<<"$out")"
check "snapshot says which capture path ran" test -n "$(jq -r .method <<<"$snap")"
SHA1=$(jq -r .digest <<<"$snap")

# --- tokens belong to their user
info=$(pg_as "$PG_AGENT" pixelgate info "$TOKEN")
check "info works for the owner" test "$(jq -r .token <<<"$info")" = "$TOKEN"
pg_as "$PG_OTHER" pixelgate info "$TOKEN" >/dev/null 2>"$PG_TMP/other.err"
check "another user's info on the token exits 4" test $? = 4
check "...and says NOT_FOUND" test "$(jq -r .error.code "$PG_TMP/other.err")" = NOT_FOUND
pg_as "$PG_AGENT" pixelgate info cap:AAAAAAAAAAAAAAAAAAAAAA >/dev/null 2>&1
check "an unknown token exits 4" test $? = 4

# --- the spool is the broker's alone
err=$(pg_as "$PG_AGENT" ls "$PG_TMP/state/spool" 2>&1)
check "agent cannot list the spool (EACCES)" grep -q "Permission denied" <<<"$err"
if [ "$WM" = openbox ]; then
    check "with no memory budget the capture is spooled" test "$(find "$PG_TMP/state/spool" -type f | wc -l)" -ge 1
    SPOOL_FILE=$(find "$PG_TMP/state/spool" -type f | head -1)
    err=$(pg_as "$PG_AGENT" cat "$SPOOL_FILE" 2>&1 >/dev/null)
    check "agent cannot read a spool file by path (EACCES)" grep -q "Permission denied" <<<"$err"
    check "spool file names are random, not the token" bash -c '! ls "$1" | grep -qF "${2#cap:}"' _ "$PG_TMP/state/spool" "$TOKEN"
else
    check "within the memory budget nothing touches the disk" test "$(find "$PG_TMP/state/spool" -type f | wc -l)" = 0
fi

# --- click the button: the app counts it
read -r BX BY < <(jq -r '"\(.press.x + (.press.w/2|floor)) \(.press.y + (.press.h/2|floor))"' "$PG_STATE_FILE")
out=$(pg_as "$PG_AGENT" pixelgate click --window 'pixelgate demo' --at "$BX,$BY")
check "click exits 0" test $? = 0
check "the click reached the app (clicks == 1)" pg_state_is .clicks 1

# --- type into the entry: exact text, including characters not on the keymap
read -r EX EY < <(jq -r '"\(.entry_box.x + 10) \(.entry_box.y + (.entry_box.h/2|floor))"' "$PG_STATE_FILE")
pg_as "$PG_AGENT" pixelgate click --id "$WID" --at "$EX,$EY" >/dev/null
TEXT='Hello, World! 123 é€ü'
out=$(pg_as "$PG_AGENT" pixelgate type --window 'pixelgate demo' "$TEXT")
check "type exits 0" test $? = 0
check "type reports 21 characters" test "$(jq .typed_chars <<<"$out")" = 21
check "typed text arrived exactly" pg_state_is .entry "$TEXT"
pg_as "$PG_AGENT" pixelgate key --window 'pixelgate demo' BackSpace >/dev/null
pg_as "$PG_AGENT" pixelgate key --window 'pixelgate demo' shift+exclam >/dev/null
check "key chords arrive (BackSpace, shift+exclam)" pg_state_is .entry 'Hello, World! 123 é€!'
pg_as "$PG_AGENT" pixelgate key --window 'pixelgate demo' 'ctrl+nosuchkey' >/dev/null 2>&1
check "an unknown key name exits 8" test $? = 8

# --- snapshot again: the pixels changed
snap2=$(pg_as "$PG_AGENT" pixelgate snapshot --window 'pixelgate demo')
check "second snapshot has a new token and new pixels" test "$(jq -r .token <<<"$snap2")" != "$TOKEN" -a "$(jq -r .digest <<<"$snap2")" != "$SHA1"
small=$(pg_as "$PG_AGENT" pixelgate snapshot --window 'pixelgate demo' --max-size 120x120)
check "--max-size downscales keeping the aspect ratio" test "$(jq '.width <= 120 and .height <= 120 and .source_width > 120' <<<"$small")" = true
reg=$(pg_as "$PG_AGENT" pixelgate snapshot --window 'pixelgate demo' --region 10,10,50,40)
check "--region captures the region" test "$(jq -r '"\(.width)x\(.height)"' <<<"$reg")" = 50x40
scr=$(pg_as "$PG_AGENT" pixelgate snapshot --screen)
check "--screen captures the whole screen" test "$(jq -r '"\(.width)x\(.height)"' <<<"$scr")" = 1280x800

# --- errors carry the documented codes
pg_as "$PG_AGENT" pixelgate snapshot --window 'no such window at all' >/dev/null 2>"$PG_TMP/e1"
check "no matching window exits 4" test $? = 4
check "...with a recovery tip" test -n "$(jq -r .error.recovery_tip "$PG_TMP/e1")"
pg_as "$PG_AGENT" pixelgate snapshot --window '.' >/dev/null 2>"$PG_TMP/e2"
rc=$?
if [ "$(pg_as "$PG_AGENT" pixelgate windows | jq '[.windows[] | select(.visible)] | length')" -gt 1 ]; then
    check "an ambiguous pattern exits 2 and lists candidates" test $rc = 2 -a "$(jq '.error.details.candidates | length' "$PG_TMP/e2")" -gt 1
    check "--first picks one" pg_as "$PG_AGENT" pixelgate snapshot --window '.' --first
else
    check "a pattern matching the only window works" test $rc = 0
fi
pg_as "$PG_AGENT" pixelgate click --window 'pixelgate demo' --at 9999,5 >/dev/null 2>&1
check "a click outside the window exits 8" test $? = 8
pg_as "$PG_AGENT" pixelgate click --window 'pixelgate demo' --at -3,5 >/dev/null 2>&1
check "...and so does a point left of it (exit 8)" test $? = 8
pg_as "$PG_AGENT" pixelgate snapshot >/dev/null 2>&1
check "snapshot without a target exits 2" test $? = 2
pg_as "$PG_AGENT" pixelgate --socket "$PG_TMP/run/nope.sock" ping >/dev/null 2>"$PG_TMP/e3"
check "a dead broker exits 5" test $? = 5
check "...saying BROKER_UNREACHABLE" test "$(jq -r .error.code "$PG_TMP/e3")" = BROKER_UNREACHABLE

# --- script mode: one connection, $last, stops at the first failure
script=$(cat <<'SCRIPT'
# a scripted session
windows --match 'pixelgate demo'
snapshot --window 'pixelgate demo'
info $last
click --window 'pixelgate demo' --at BXY
snapshot --window 'pixelgate demo'
SCRIPT
)
script=${script/BXY/$BX,$BY}
out=$(pg_as "$PG_AGENT" pixelgate run - <<<"$script")
check "script runs every step" test "$(wc -l <<<"$out")" = 5
check "script \$last is the snapshot's token" test "$(sed -n 3p <<<"$out" | jq -r .result.token)" = "$(sed -n 2p <<<"$out" | jq -r .result.token)"
check "script click arrived (clicks == 2)" pg_state_is .clicks 2
out=$(printf 'ping\nsnapshot --window "no such window"\nping\n' | pg_as "$PG_AGENT" pixelgate run - 2>"$PG_TMP/e4")
check "script stops at the first failure with its code" test $? = 4 -a "$(wc -l <<<"$out")" = 2
check "...and names the failing step and line" test "$(jq -c '[.error.step, .error.line]' "$PG_TMP/e4")" = "[2,2]"
check "...and prints the failed step on stdout like the others" \
    test "$(sed -n 2p <<<"$out" | jq -c '[.step, .line, .command, .error.code]')" = '[2,2,"snapshot","NOT_FOUND"]'

# --- the broker refuses a state dir that others could write
mkdir -p "$PG_TMP/badstate" && chown pixelgate: "$PG_TMP/badstate" && chmod 0777 "$PG_TMP/badstate"
runuser -u pixelgate -- "$PG_TMP/bin/pixelgated" --foreground --socket "$PG_TMP/run/bad.sock" \
    --state-dir "$PG_TMP/badstate" --policy "$PG_POLICY" --display "$PG_DISPLAY" 2>"$PG_TMP/bad.err"
check "a world-writable state dir is refused (exit 8)" test $? = 8
check "...with a message that says why" grep -q "writable by group or others" "$PG_TMP/bad.err"
check "the broker refuses to run as root" \
    bash -c '"$1" --socket "$2" --state-dir "$3" 2>&1 | grep -q "refusing to run as root"' _ "$PG_TMP/bin/pixelgated" "$PG_TMP/run/r2.sock" "$PG_TMP/state"

# --- every capture and input is on record, in a chain only the broker writes
AUDIT=$PG_TMP/state/audit.jsonl
check "audit log records the snapshots" test "$(jq -s '[.[] | select(.op=="snapshot" and .outcome=="OK")] | length' "$AUDIT")" -ge 5
check "audit log records the input (type without its text)" \
    test "$(jq -s -r '[.[] | select(.op=="type")][0].disposition.detail' "$AUDIT")" = "type 25 bytes"
check "audit log holds no whole token" bash -c '! grep -qF "$1" "$2"' _ "$TOKEN" "$AUDIT"
REC_SHA=$(jq -s -r --arg p "${TOKEN:0:8}" '[.[] | select(.op=="snapshot" and .disposition.token_prefix==$p)][0].image_sha256' "$AUDIT")
check "audit records carry the snapshot's real image sha256 (64 hex)" grep -qE '^[0-9a-f]{64}$' <<<"$REC_SHA"
check "...which the agent never saw: it got a keyed digest (analyze-only)" test "$REC_SHA" != "$SHA1"
err=$(pg_as "$PG_AGENT" cat "$AUDIT" 2>&1 >/dev/null)
check "agent cannot read the audit log (EACCES)" grep -q "Permission denied" <<<"$err"
out=$("$PG_TMP/bin/pixelgated" --verify-audit "$AUDIT")
check "the audit chain verifies" test $? = 0
cp "$AUDIT" "$PG_TMP/edited.jsonl"
sed -i '3s/"op":"[a-z]*"/"op":"ping"/' "$PG_TMP/edited.jsonl"
out=$("$PG_TMP/bin/pixelgated" --verify-audit "$PG_TMP/edited.jsonl")
check "an edited record fails verification (exit 1) at line 3" test $? = 1 -a -n "$(grep -E 'line 3\b' <<<"$out")"

# --- clean shutdown
pg_stop_broker
check "broker removed its socket on SIGTERM" test ! -e "$PG_SOCK"
check "broker logged a clean stop" grep -q "stopped" "$PG_TMP/broker.log"

pg_summary
