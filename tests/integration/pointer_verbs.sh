#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The pointer vocabulary on a real Tk form (tests/apps/pg_form.tcl), through
# the client only: scroll the city list with the wheel, drag the discount
# slider, hover Submit, replace a field's contents with a triple click and
# typing, and the refusals (a drag that leaves the window, a scroll over a
# covering window). The app's own truth and log say what arrived; the audit
# log holds every verb. PG_WM=openbox runs it under a window manager.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
PG_AGENT=pgp-agent
pg_require_root
pg_require_tools Xvfb xauth xhost xdpyinfo wish jq runuser useradd
trap pg_cleanup EXIT
pg_user pixelgate system
pg_user "$PG_AGENT"
pg_setup_dirs
install -m 0644 "$PG_ROOT/tests/apps/pg_form.tcl" "$PG_ROOT/tests/apps/pg_demo.tcl" "$PG_TMP/app/"
pg_start_xvfb
[ "${PG_WM:-}" = openbox ] && { pg_require_tools openbox xprop; pg_start_wm; }
pg_start_broker
LOG=$PG_TMP/app/form.log
TRUTH=$PG_TMP/app/form.json
runuser -u "$PG_AGENT" -- env -i PATH=/usr/bin:/bin DISPLAY="$PG_DISPLAY" LANG=C.UTF-8 \
    wish "$PG_TMP/app/pg_form.tcl" -truth "$TRUTH" -log "$LOG" -caret 0 -geometry +30+30 >"$PG_TMP/form.out" 2>&1 &
PG_PIDS+=($!)
for _ in $(seq 100); do grep -q READY "$PG_TMP/form.out" 2>/dev/null && break; sleep 0.1; done
grep -q READY "$PG_TMP/form.out" || pg_die "the form did not start: $(cat "$PG_TMP/form.out")"
AS() { pg_as "$PG_AGENT" pixelgate "$@"; }
W='^Order entry$'
widget() { jq -c --arg k "$1" '[.widgets[] | select(.widget | endswith($k))][0]' "$TRUTH"; }
centre() { jq -r '"\(.x + (.w / 2 | floor)),\(.y + (.h / 2 | floor))"' <<<"$1"; }
first() { jq -r '[.widgets[] | select(.kind == "scrollbar")][0].first' "$TRUTH"; }
# Polls the truth or the log (the app writes them when its event loop runs):
# the condition is a string, evaluated afresh each time.
until_true() { local i; for i in $(seq 50); do "$@" && return 0; sleep 0.1; done; return 1; }

# --- scroll: the wheel over the list scrolls it, and back
CITY=$(widget .city)
check "the form lists 12 cities, 4 at a time (first row at 0)" test "$(first)" = 0
out=$(AS scroll --window "$W" down --notches 2 --at "$(centre "$CITY")")
check "scroll down answers what it did" test "$(jq -r '"\(.scrolled.direction) \(.scrolled.notches)"' <<<"$out")" = "down 2"
check "the list scrolled down (the scroll bar left the top)" until_true eval '[ "$(first)" != 0 ]'
AS scroll --window "$W" up --notches 5 --at "$(centre "$CITY")" >/dev/null
check "scroll up brings it back to the top" until_true eval '[ "$(first)" = 0 ]'

# --- drag: the slider's handle from the left end to the right end
DISC=$(widget .disc)
read -r DX DY DW DH < <(jq -r '"\(.x) \(.y) \(.w) \(.h)"' <<<"$DISC")
VAL0=$(jq -r '[.widgets[] | select(.kind == "slider")][0].value' "$TRUTH")
# Tk's classic scale: a 30-pixel handle at the value's place; grab its middle.
FROM_X=$((DX + 2 + 15 + (DW - 34) * VAL0 / 50)); MID_Y=$((DY + DH / 2))
out=$(AS drag --window "$W" --from "$FROM_X,$MID_Y" --to "$((DX + DW - 3)),$MID_Y" --steps 12)
check "drag answers its path and button" \
    test "$(jq -r '"\(.dragged.to.x) \(.dragged.button) \(.dragged.steps)"' <<<"$out")" = "$((DX + DW - 3)) left 12"
slider() { jq -r '[.widgets[] | select(.kind == "slider")][0].value' "$TRUTH"; }
check "the slider went from $VAL0 to the top of its range (45 or more)" until_true eval '[ "$(slider)" -ge 45 ]'

# --- hover: the pointer over Submit, no click
SUBMIT=$(widget .submit)
out=$(AS move --window "$W" --at "$(centre "$SUBMIT")")
check "move answers where the pointer is" test "$(jq -r '"\(.moved.x),\(.moved.y)"' <<<"$out")" = "$(centre "$SUBMIT")"
check "the app saw the hover on Submit" until_true grep -q '"event": "hover"' "$LOG"
check "a hover is not a click: nothing was submitted" test "$(grep -c '"event": "submit"' "$LOG")" = 0

# --- replace a field: a triple click selects the line, typing replaces it
CUST=$(widget .e_customer)
AS click --window "$W" --at "$(centre "$CUST")" --count 3 >/dev/null
AS type --window "$W" "Bob" >/dev/null
customer() { tail -n 1 "$LOG" | jq -r .customer; }
check "triple click + type replaced the customer's name with 'Bob'" until_true eval '[ "$(customer)" = Bob ]'
out=$(AS type --window "$W" --replace "Alice Ærø")
check "type --replace answers replaced: true" test "$(jq .replaced <<<"$out")" = true
check "type --replace put 'Alice Ærø' where 'Bob' was (End, shift+Home, Delete on Tk)" \
    until_true eval '[ "$(customer)" = "Alice Ærø" ]'

# --- receipts: --expect-change says what an input changed, or that it changed nothing
EXPRESS=$(widget .c_express)
out=$(AS click --window "$W" --at "$(centre "$EXPRESS")" --expect-change)
check "a click on Express with --expect-change exits 0 with its effect" test $? = 0 -a "$(jq .effect.changed <<<"$out")" = true
overlaps() { # box JSON $1 and $2 intersect
    jq -n --argjson a "$1" --argjson b "$2" '$a.x < $b.x + $b.w and $b.x < $a.x + $a.w and $a.y < $b.y + $b.h and $b.y < $a.y + $a.h' | grep -q true
}
check "...and the changed box is where the check box is ($(jq -c .effect.box <<<"$out"))" overlaps "$(jq -c .effect.box <<<"$out")" "$EXPRESS"
check "...with a token of the after-frame" test "$(jq -r '.effect.token[0:4]' <<<"$out")" = "cap:"
check "the app logged the change" until_true grep -q '"express": 1' "$LOG"
EMPTY=$(jq -r '"\(.width - 3),\(.height - 3)"' "$TRUTH")
AS move --window "$W" --at "$EMPTY" >/dev/null # leaving Express un-highlights it: a change of its own
sleep 0.5
out=$(AS click --window "$W" --at "$EMPTY" --expect-change --timeout 0.5 2>"$PG_TMP/nofx.err")
rc=$?
check "a click on empty space with --expect-change is exit 1, no visible effect ($(jq -r .error.message "$PG_TMP/nofx.err" 2>/dev/null))" \
    test $rc = 1 -a "$(jq .effect.changed <<<"$out")" = false

# --- the coordinate contract: a point seen in a downscaled snapshot lands on the same widget
small=$(AS snapshot --window "$W" --max-size 320x200)
SW=$(jq .width <<<"$small"); SRC=$(jq .source_width <<<"$small")
INSURE=$(widget .c_insure)
AT=$(jq -r --argjson sw "$SW" --argjson src "$SRC" '"\((.x + .w / 2) * $sw / $src | floor),\((.y + .h / 2) * $sw / $src | floor)"' <<<"$INSURE")
insure() { tail -n 1 "$LOG" | jq -r .insure; }
before_insure=$(insure)
out=$(AS click --in "$(jq -r .token <<<"$small")" --at "$AT")
check "click --in a ${SW}-wide token at $AT answers how it mapped (scale $(jq .in.scale <<<"$out"))" \
    test "$(jq -r '.in.token[0:4]' <<<"$out")" = "cap:"
check "...and the app says Insurance got it (the widget seen in the small image)" \
    until_true eval '[ "$(insure)" != "$before_insure" ]'

# --- refusals: nothing sent, the exit codes documented
AS drag --window "$W" --from "$FROM_X,$MID_Y" --to "$((DX + DW + 4000)),$MID_Y" >/dev/null 2>&1
check "a drag that leaves the window is BAD_INPUT (exit 8)" test $? = 8
runuser -u "$PG_AGENT" -- env -i PATH=/usr/bin:/bin DISPLAY="$PG_DISPLAY" LANG=C.UTF-8 \
    wish "$PG_TMP/app/pg_demo.tcl" "$PG_TMP/app/cover.json" 300x200+40+60 "cover" >"$PG_TMP/cover.out" 2>&1 &
COVER=$!
PG_PIDS+=("$COVER")
for _ in $(seq 100); do grep -q READY "$PG_TMP/cover.out" 2>/dev/null && break; sleep 0.1; done
sleep 0.3
before=$(first)
AS scroll --window "$W" down --at "$(centre "$CITY")" >/dev/null 2>&1
rc=$?
if [ "$(jq '.x + .w > 10 and .y + .h > 30' <<<"$CITY")" = true ]; then
    check "a scroll over a point another window covers is refused (exit 3)" test $rc = 3
fi
check "and the list did not move" test "$(first)" = "$before"
pkill -P "$COVER" 2>/dev/null; kill "$COVER" 2>/dev/null # runuser's child is the app
for _ in $(seq 50); do AS windows --match '^cover$' | jq -e '.count == 0' >/dev/null && break; sleep 0.1; done

# --- the same verbs in a script: named results, expect-fail, repeat, a
# failing wait, and a finally block that resets the form however it ended
CANCEL=$(centre "$(widget .cancel)")
script="snapshot --window '$W' as before
scroll --window '$W' down --notches 2 --at $(centre "$CITY")
snapshot --window '$W' as after
assert changed \$before \$after --min-pct 0.01
expect-fail assert unchanged \$before \$after
repeat 2 scroll --window '$W' up --at $(centre "$CITY")
wait-for --window '^Confirm order$' --appear --timeout 0.3 --interval 0.1
snapshot --window '$W'
finally
click --window '$W' --at $CANCEL"
out=$(AS run --check - <<<"$script")
check "run --check passes the script without running it" test $? = 0 -a "$(jq -r .check <<<"$out")" = ok
check "...and nothing was sent (no cancel in the app's log)" test "$(grep -c '"event": "cancel"' "$LOG")" = 0
out=$(AS run - <<<"$script" 2>"$PG_TMP/run.err")
rc=$?
check "the script fails at the wait with its code (exit 6)" test $rc = 6
check "...naming step 8 (repeat ran two), line 7 on stderr" test "$(jq -c '[.error.step, .error.line]' "$PG_TMP/run.err")" = "[8,7]"
check "\$before and \$after are two different tokens" \
    test "$(jq -rs '[.[] | select(.as) | .result.token] | unique | length' <<<"$out")" = 2
check "assert changed \$before \$after passed, expect-fail on unchanged passed" \
    test "$(jq -rs '[.[] | select(.command == "assert changed") | .result.passed][0], [.[] | select(.command == "assert unchanged") | .expected_failure.code][0]' <<<"$out" | tr '\n' ' ')" = "true ASSERTION_FAILED "
check "repeat ran its step twice" test "$(jq -s '[.[] | select(.iteration)] | length' <<<"$out")" = 2
check "the failed wait is on stdout with its measurements (appeared: false)" \
    test "$(jq -rs '.[] | select(.command == "wait-for") | "\(.error.code) \(.details.appeared)"' <<<"$out")" = "TIMEOUT false"
check "the step after the failure did not run; finally did (the Cancel click)" \
    test "$(jq -s '[.[] | select(.line == 8)] | length' <<<"$out") $(jq -rs '.[-1].command' <<<"$out")" = "0 click"
check "the app saw the reset" until_true grep -q '"event": "cancel"' "$LOG"
check "the list is back at the top" until_true eval '[ "$(first)" = 0 ]'
out=$(AS run --check - <<<"snapshot --window '^Confirm order\$'" 2>/dev/null)
check "run --check refuses a script whose window is not there (exit 4)" test $? = 4
out=$(AS run --check - <<<"wait-for --window '^Confirm order\$' --appear
click --window '^Confirm order\$' --at 1,1")
check "...unless an earlier step waits for it to appear" test $? = 0

# --- popups: listed with --all, targets by id, and a click under the app's own popup goes into it
runuser -u "$PG_AGENT" -- env -i PATH=/usr/bin:/bin DISPLAY="$PG_DISPLAY" LANG=C.UTF-8 \
    wish "$PG_TMP/app/pg_demo.tcl" "$PG_TMP/app/menu.json" 300x200+700+100 "menu owner" popup=120x80+760+140 \
    >"$PG_TMP/menu.out" 2>&1 &
PG_PIDS+=($!)
for _ in $(seq 100); do grep -q READY "$PG_TMP/menu.out" 2>/dev/null && break; sleep 0.1; done
sleep 0.6 # the app raises its popup again 300 ms after READY (a WM stacks the owner's frame first)
all=$(AS windows --all)
OWNER=$(jq '[.windows[] | select(.title == "menu owner")][0].id' <<<"$all")
POPUP=$(jq --argjson o "$OWNER" '[.windows[] | select(.kind == "popup" and .parent == $o)][0].id // empty' <<<"$all")
check "windows --all lists the app's popup, attributed to its window" test -n "$POPUP"
check "windows without --all does not" test "$(AS windows | jq --argjson p "${POPUP:-0}" '[.windows[] | select(.id == $p)] | length')" = 0
out=$(AS snapshot --id "$POPUP")
check "snapshot --id POPUP captures the popup ($(jq -r '"\(.width)x\(.height)"' <<<"$out"))" \
    test "$(jq -r '"\(.width)x\(.height)"' <<<"$out")" = 120x80
check "...and it is the magenta popup" \
    test "$(AS color "$(jq -r .token <<<"$out")" | jq -r '.colors[0].name')" = magenta
out=$(AS click --window '^menu owner$' --at 100,80)
# where 100,80 of the owner is in the popup's own pixels (a WM frame moves the owner's content)
IN=$(jq -r --argjson o "$OWNER" --argjson p "$POPUP" '([.windows[] | select(.id == $o)][0]) as $a |
    ([.windows[] | select(.id == $p)][0]) as $b | "\($a.x + 100 - $b.x),\($a.y + 80 - $b.y)"' <<<"$all")
check "a click on the owner under its own popup goes into the popup (at $IN of it)" \
    test "$(jq -r '"\(.into.id) \(.into.kind) \(.clicked.x),\(.clicked.y)"' <<<"$out")" = "$POPUP popup $IN"

out=$(AS snapshot --window '^menu owner$' --with-popups)
check "snapshot --with-popups holds the owner and its popup (popups: $(jq -c '[.popups[].id]' <<<"$out"))" \
    test "$(jq '[.popups[].id] == [$p]' --argjson p "$POPUP" <<<"$out")" = true
PX=$(jq -r '"\(.popups[0].x + 60),\(.popups[0].y + 40)"' <<<"$out")
check "...with the popup's pixels where it says (magenta at $PX)" \
    test "$(AS color "$(jq -r .token <<<"$out")" --at "$PX" | jq -r '.colors[0].name')" = magenta

# --- on record
AUDIT=$PG_TMP/state/audit.jsonl
n_op() { jq -s --arg op "$1" --arg o "$2" '[.[] | select(.op == $op and .outcome == $o)] | length' "$AUDIT"; }
check "every verb is on record: 5 scrolls, a drag, 2 moves (OK)" \
    test "$(n_op scroll OK) $(n_op drag OK) $(n_op move OK)" = "5 1 2"
check "the refusals are on record too" test "$(n_op drag BAD_INPUT) $(n_op scroll POLICY_REFUSED)" = "1 1"

# --- held input: a slider dragged by parts in one script, shift let go of
# when the script that held it ends, and everyone else's input BUSY meanwhile
VAL=$(slider)
HX=$((DX + 2 + 15 + (DW - 34) * VAL / 50)); HALF=$(((HX + DX) / 2))
out=$(AS run - <<<"mouse-down --window '$W' --at $HX,$MID_Y
move --window '$W' --at $HALF,$MID_Y
cursor
move --window '$W' --at $((DX + 3)),$MID_Y
mouse-up --window '$W' --at $((DX + 3)),$MID_Y")
check "run: mouse-down, two moves and mouse-up drag the slider from $VAL to the bottom (5 or less)" \
    until_true eval '[ "$(slider)" -le 5 ]'
check "cursor in the script: the pointer at $HALF, the left button held" \
    test "$(jq -rs '.[] | select(.command == "cursor") | "\(.result.cursor.x) \(.result.held[0])"' <<<"$out")" = "$HALF left button"
AS run - <<<"click --window '$W' --at $(centre "$CUST") --count 3
key-down --window '$W' shift" >/dev/null
check "a script may end holding shift (exit 0)" test $? = 0
AS type --window "$W" q >/dev/null
check "the broker let go of shift as that script's connection ended: typing gives 'q', not 'Q'" \
    until_true eval '[ "$(customer)" = q ]'
check "...and recorded the release as the agent's input" \
    test "$(jq -s '[.[] | select(.op == "release_held" and (.disposition.detail | test("connection"))) | .principal.user] | unique | join(",")' -r "$AUDIT")" = "$PG_AGENT"
AS run - <<<"key-down --window '$W' shift
sleep 2
key-up shift" >"$PG_TMP/hold.out" 2>&1 &
HOLDER=$!
until_true grep -q key-down "$PG_TMP/hold.out"
AS click --window "$W" --at "$EMPTY" >/dev/null 2>"$PG_TMP/busy.err"
check "while another connection holds shift, a click is refused BUSY (exit 12): $(jq -r .error.message "$PG_TMP/busy.err" 2>/dev/null)" \
    test "$(jq -r .error.exit "$PG_TMP/busy.err" 2>/dev/null)" = 12
wait "$HOLDER"
check "...the holding script itself went on and let go (exit 0)" test $? = 0
AS click --window "$W" --at "$EMPTY" >/dev/null
check "...and then the click goes through" test $? = 0

# --- a script whose reader goes away stops before its next input, and still cleans up
cancels() { grep -c '"event": "cancel"' "$LOG"; }
C0=$(cancels)
pg_as_direct "$PG_AGENT" pixelgate run - <<<"snapshot --window '$W'
sleep 0.3
scroll --window '$W' down --notches 5 --at $(centre "$CITY")
finally
click --window '$W' --at $CANCEL" 2>"$PG_TMP/closed.err" | head -c 1 >/dev/null
check "a script whose stdout closed stops with exit 9 ($(jq -r .error.message "$PG_TMP/closed.err" 2>/dev/null))" \
    test "${PIPESTATUS[0]}" = 9
check "...before its next input (the list did not scroll)" test "$(first)" = 0
check "...and its finally block ran (the Cancel click)" until_true eval '[ "$(cancels)" -gt "$C0" ]'
pg_summary
