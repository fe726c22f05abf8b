#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An agent drives the "Order desk" Tk app (tests/apps/pg_order.tcl) only
# through `pixelgate run` scripts: it scrolls the 60-row list to Item 47 and
# picks it by OCR, drags the priority slider, replaces fields, opens the Edit
# menu by pointer and chooses "Clear notes" in its popup, compares before and
# after in the same script, submits, waits for the confirmation dialog,
# reads it, closes it with OK and waits for it to go; a `finally` block
# resets the form (File > New order) however the script ended. The app logs
# every effect it saw and which widget every button press reached; the test
# holds the log to exactly the expected effects, nothing more. Also: a
# script that fails midway still runs its finally; Cancel in the
# confirmation and Help > About's dialog, closed by OCR; clicks through a
# --max-size 320x200 token land on the same widgets as through the full
# window; click --expect-change on empty space is exit 1 and on Submit
# answers a box on the status line. PG_WM=openbox runs it under a window
# manager.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
PG_AGENT=pgo-agent
pg_require_root
pg_require_tools Xvfb xauth xhost xdpyinfo wish jq runuser useradd
trap pg_cleanup EXIT
pg_user pixelgate system
pg_user "$PG_AGENT"
pg_setup_dirs
install -m 0644 "$PG_ROOT/tests/apps/pg_order.tcl" "$PG_TMP/app/"
pg_start_xvfb
[ "${PG_WM:-}" = openbox ] && { pg_require_tools openbox xprop; pg_start_wm; }
pg_start_broker
LOG=$PG_TMP/app/order.log
TRUTH=$PG_TMP/app/order.json
runuser -u "$PG_AGENT" -- touch "$LOG" # the app's own file, empty: nothing happened yet
runuser -u "$PG_AGENT" -- env -i PATH=/usr/bin:/bin DISPLAY="$PG_DISPLAY" LANG=C.UTF-8 \
    wish "$PG_TMP/app/pg_order.tcl" -truth "$TRUTH" -log "$LOG" -geometry +40+40 >"$PG_TMP/order.out" 2>&1 &
PG_PIDS+=($!)
for _ in $(seq 100); do grep -q READY "$PG_TMP/order.out" 2>/dev/null && break; sleep 0.1; done
grep -q READY "$PG_TMP/order.out" || pg_die "the Order desk did not start: $(cat "$PG_TMP/order.out")"

W='^Order desk$'
D='^Confirm order$'
AS() { pg_as "$PG_AGENT" pixelgate "$@"; }
# run_script NAME < SCRIPT: the script through `pixelgate run -` as the agent;
# OUT (its stdout, one object per step), ERR, RC.
run_script() {
    OUT=$PG_TMP/$1.out ERR=$PG_TMP/$1.err
    AS run - >"$OUT" 2>"$ERR"
    RC=$?
}
# step LINE [FILTER [JQ_ARGS...]]: the step(s) of script line LINE through
# FILTER (raw strings, compact objects).
step() {
    local l=$1 f=${2:-.}
    shift; [ $# -gt 0 ] && shift
    jq -rc --argjson l "$l" "$@" "select(.line == \$l) | $f" "$OUT"
}
until_true() { local i; for i in $(seq 50); do "$@" && return 0; sleep 0.1; done; return 1; }

# ---- the app's truth: where things are (window-relative), from Tk itself
widget() { jq -c --arg w "$1" '[.widgets[] | select(.widget == $w)][0]' "$TRUTH"; }
centre() { jq -r '"\(.x + (.w / 2 | floor)),\(.y + (.h / 2 | floor))"' <<<"$1"; }
bar() { jq -c --arg m "$1" '[.menus[] | select(.label == $m)][0] | del(.menu)' "$TRUTH"; }
menu_item() { jq -c --arg m "$1" --arg i "$2" '[.menus[] | select(.label == $m) | .menu.entries[] | select(.label == $i)][0]' "$TRUTH"; }
region() { jq -r '"\(.x),\(.y),\(.w),\(.h)"' <<<"$1"; }
inside() { # point "X,Y" $1 inside box JSON $2
    jq -n --argjson b "$2" --arg p "$1" '($p | split(",") | map(tonumber)) as [$x, $y] |
        $x >= $b.x and $x < $b.x + $b.w and $y >= $b.y and $y < $b.y + $b.h' | grep -q true
}
overlaps() { # boxes JSON $1 and $2 intersect
    jq -n --argjson a "$1" --argjson b "$2" '$a.x < $b.x + $b.w and $b.x < $a.x + $a.w and $a.y < $b.y + $b.h and $b.y < $a.y + $a.h' | grep -q true
}

# ---- the app's log: effects (everything but press/enter) and presses since a mark
mark() { wc -l <"$LOG"; }
effects_since() { tail -n +"$(($1 + 1))" "$LOG" | jq -c 'select(.event != "press" and .event != "enter")'; }
presses_since() { tail -n +"$(($1 + 1))" "$LOG" | jq -r 'select(.event == "press") | "\(.widget) \(.button)"'; }
reset_logged() { effects_since "$1" | grep -q '"event":"reset"'; }
# The reset's line: the form as New order leaves it.
RESET='{"event":"reset","customer":"Bob Stone","quantity":"1","notes":"Leave at the door","express":0,"delivery":"pickup","priority":0,"selected":-1,"first":0}'
# typed FIELD OLD_WAS_NONEMPTY TEXT: the entry lines `type --replace TEXT`
# makes: the old line deleted, then one line per character.
typed() {
    jq -nc --arg f "$1" --arg t "$3" --argjson o "$2" '($t | explode) as $c |
        (if $o then {event: "entry", field: $f, value: ""} else empty end),
        (range(1; ($c | length) + 1) | {event: "entry", field: $f, value: ($c[0:.] | implode)})'
}
# same_text DESC EXPECTED ACTUAL: the same lines, exactly; the difference
# is shown when not. same_json: one JSON object a line (key order as the
# app writes them), spacing aside.
same_text() {
    if [ "$2" = "$3" ]; then ok "$1"; else
        not_ok "$1"
        diff <(echo "$2") <(echo "$3") | sed 's/^/     /'
    fi
}
same_json() { same_text "$1" "$(jq -c . <<<"$2")" "$(jq -c . <<<"$3")"; }
# same_effects DESC EXPECTED: the effects logged since $M are EXPECTED; all
# of them are kept for the last check (whatever came late is caught there).
ALL_EFFECTS=
same_effects() {
    same_json "$1" "$2" "$(effects_since "$M")"
    ALL_EFFECTS+="$2"$'\n'
}

T0=$(date +%s%N)
check "the Order desk is up, its log empty, its list at the top" \
    test "$(jq -r '"\(.title) \([.widgets[] | select(.kind == "list")][0] | "\(.size) \(.first)")"' "$TRUTH") $(mark)" = "Order desk 60 0 0"
run_script listing <<<"windows --match '$W'"
WINDOW=$(jq -c '.result.windows[0]' "$OUT")
MAIN_ID=$(jq .id <<<"$WINDOW")
check "the broker's window is the app's, menu bar included ($(jq -r '"\(.width)x\(.height)"' <<<"$WINDOW"))" \
    test "$(jq -r '"\(.width)x\(.height)"' <<<"$WINDOW")" = "$(jq -r '"\(.width)x\(.height)"' "$TRUTH")"

# ---- where the script will aim, from the truth before anything moves
LIST=$(widget .f.items)
ROWS_PER_NOTCH=5 # a Tk 8.6 listbox scrolls 5 rows a wheel notch (Button-4/5)
NOTCHES=8        # rows 40..47 at the top: Item 47 (index 46) is the 7th row
ROW47=$(jq -c --argjson r $((46 - NOTCHES * ROWS_PER_NOTCH)) '.rows[] | select(.index == $r)' <<<"$LIST")
read -r S_NOW S_AT0 S_AT100 S_Y < <(jq -r '[.widgets[] | select(.kind == "slider")][0] | "\(.now.x) \(.at0.x) \(.at100.x) \(.now.y)"' "$TRUTH")
TARGET=70
S_TO=$((S_AT0 + (S_AT100 - S_AT0) * TARGET / 100))
EDIT=$(centre "$(bar Edit)") CLEAR=$(centre "$(menu_item Edit 'Clear notes')")
FILE=$(centre "$(bar File)") NEW=$(centre "$(menu_item File 'New order')")
OK_AT=$(centre "$(jq -c '.confirm_layout.ok' "$TRUTH")")
SUBMIT=$(centre "$(widget .f.submit)")
STATUS=$(widget .f.status)
NOTES=$(widget .f.notes)
# the label column: nothing there changes whatever the agent does
LABELS=$(jq -c '[.widgets[] | select(.widget | startswith(".f.l_"))] | {x: (map(.x) | min), y: (map(.y) | min),
    w: ((map(.x + .w) | max) - (map(.x) | min)), h: ((map(.y + .h) | max) - (map(.y) | min))}' "$TRUTH")
FINALLY="finally
key --window '$W' Escape
click --window '$W' --at $FILE --expect-change
click --window '$W' --at $NEW"

# ---- 1. the whole order in one script
MAIN="snapshot --window '$W' as before
expect-fail assert text \$before --expect 'Item 47' --region $(region "$LIST")
scroll --window '$W' down --notches $NOTCHES --at $(centre "$LIST") --expect-change --region $(region "$LIST")
snapshot --window '$W' --region $(region "$LIST") as list
assert text \$list --expect 'Item 47'
click --window '$W' --text 'Item 47'
drag --window '$W' --from $S_NOW,$S_Y --to $S_TO,$S_Y --steps 12
click --window '$W' --at $(centre "$(widget .f.customer)")
type --window '$W' --replace 'Alice Ærø'
click --window '$W' --at $(centre "$(widget .f.quantity)")
type --window '$W' --replace 3
click --window '$W' --at $(centre "$(widget .f.express)")
click --window '$W' --at $(centre "$(widget .f.courier)")
click --window '$W' --at $EDIT --expect-change
windows --all --match '$W'
click --window '$W' --at $CLEAR
snapshot --window '$W' as after
assert changed \$before \$after --min-pct 1
expect-fail assert unchanged \$before \$after
assert changed \$before \$after --region $(region "$NOTES") --min-pct 1
assert unchanged \$before \$after --region $(region "$LABELS") --max-pct 0
diff \$before \$after
click --window '$W' --at $SUBMIT
wait-for --window '$D' --appear --timeout 5
wait-for --window '$D' --text 'Item 47' --timeout 5 --interval 0.1
assert text \$last --expect 'Order 3 x Item 47 for Alice'
ocr \$last
click --window '$D' --at $OK_AT
wait-for --window '$D' --gone --timeout 5
$FINALLY"
# L[name]: the line of MAIN that starts with the command named, for reading its step
declare -A L
line_of() { grep -n -m1 -F -- "$2" <<<"$MAIN" | cut -d: -f1; }
for k in "assert_before expect-fail assert text" "list_ocr assert text \$list" "click47 click --window '$W' --text 'Item 47'" \
    "popups windows --all" "clear click --window '$W' --at $CLEAR" "changed assert changed \$before \$after --min-pct" \
    "unchanged expect-fail assert unchanged" "notes assert changed \$before \$after --region" \
    "labels assert unchanged \$before \$after --region" "diff diff " "appear wait-for --window '$D' --appear" \
    "dialog_text assert text \$last" "ocr ocr \$last" "gone wait-for --window '$D' --gone"; do
    L[${k%% *}]=$(line_of "${k%% *}" "${k#* }")
    [ -n "${L[${k%% *}]}" ] || pg_die "no line '${k#* }' in the order script"
done
M=$(mark)
out=$(AS run --check - <<<"$MAIN")
check "run --check passes the order script ($(jq -r .steps <<<"$out") steps; the dialog is waited for first)" \
    test "$(jq -r .check <<<"$out")" = ok
check "...and sends nothing (the log did not grow)" test "$(mark)" = "$M"
run_script main <<<"$MAIN"
check "the order script passes (exit $RC$( [ -s "$ERR" ] && echo ": $(cat "$ERR")"))" test "$RC" = 0
check "every line ran once, finally's three too: $(grep -vc '^finally$' <<<"$MAIN") steps" \
    test "$(jq -s 'length' "$OUT")" = "$(grep -vc '^finally$' <<<"$MAIN")"
check "Item 47 was not in the list before (expect-fail on the first rows)" \
    test "$(step "${L[assert_before]}" .expected_failure.code)" = ASSERTION_FAILED
check "after $NOTCHES notches the list shows Item 47 (OCR of the list's region)" test "$(step "${L[list_ocr]}" .result.passed)" = true
CLICK47=$(step "${L[click47]}" '"\(.result.clicked.x),\(.result.clicked.y)"')
check "click --text 'Item 47' clicked at $CLICK47, inside the row the truth predicted ($(jq -c '[.x,.y,.w,.h]' <<<"$ROW47"))" \
    inside "$CLICK47" "$ROW47"
POPUP=$(step "${L[popups]}" '[.result.windows[] | select(.kind == "popup" and .parent == $m)]' --argjson m "$MAIN_ID")
check "windows --all, with the Edit menu open, lists one popup of the app's window" test "$(jq length <<<"$POPUP")" = 1
POPUP=$(jq -c '.[0]' <<<"$POPUP")
MAIN_AT=$(step "${L[popups]}" '.result.windows[] | select(.id == $m)' --argjson m "$MAIN_ID")
check "...where the app says Tk drops the Edit menu ($(jq -c --argjson w "$MAIN_AT" '[.x - $w.x, .y - $w.y, .width, .height]' <<<"$POPUP") in the window)" \
    test "$(jq -c --argjson w "$MAIN_AT" '[.x - $w.x, .y - $w.y, .width, .height]' <<<"$POPUP")" = \
    "$(jq -c '[.menus[] | select(.label == "Edit")][0].menu | [.x, .y, .w, .h]' "$TRUTH")"
check "the click on 'Clear notes' went into that popup" \
    test "$(step "${L[clear]}" '"\(.result.into.kind) \(.result.into.id)"')" = "popup $(jq .id <<<"$POPUP")"
check "assert changed \$before \$after: the window changed ($(step "${L[changed]}" .result.changed_pct | cut -c1-5)%)" \
    test "$(step "${L[changed]}" .result.passed)" = true
check "expect-fail assert unchanged on the same pair passed (it said no)" \
    test "$(step "${L[unchanged]}" .expected_failure.code)" = ASSERTION_FAILED
check "the Notes field changed ($(step "${L[notes]}" .result.changed_pct | cut -c1-5)%), the label column not at all" \
    test "$(step "${L[notes]}" .result.passed) $(step "${L[labels]}" .result.passed) $(step "${L[labels]}" .result.pixels_changed)" = "true true 0"
DIFF_BOUNDS=$(step "${L[diff]}" .result.bounds)
bounds_all() { local b; for b in "$LIST" "$NOTES" "$(widget .f.priority)"; do overlaps "$DIFF_BOUNDS" "$b" || return 1; done; }
check "diff \$before \$after bounds the list, the Notes field and the slider ($DIFF_BOUNDS)" bounds_all
check "wait-for --appear saw the dialog: a dialog of the app's window" \
    test "$(step "${L[appear]}" '"\(.result.appeared) \(.result.window.kind) \(.result.window.parent)"')" = "true dialog $MAIN_ID"
check "assert text read the order in the dialog" test "$(step "${L[dialog_text]}" .result.passed)" = true
DIALOG_TEXT=$(step "${L[ocr]}" .result.text)
dialog_says() { [[ $DIALOG_TEXT == *"Courier, express, priority"* && $DIALOG_TEXT == *OK*Cancel* ]]; }
check "ocr of the dialog reads the order's second line and both buttons: $(tr '\n' '|' <<<"$DIALOG_TEXT")" dialog_says
check "the dialog went after OK (wait-for --gone)" test "$(step "${L[gone]}" .result.gone)" = true
check "finally ran: Escape, File, New order (into the File popup)" \
    test "$(jq -sc '[.[-3:][] | .command]' "$OUT") $(jq -sr '.[-1].result.into.kind' "$OUT")" = '["key","click","click"] popup'
check "the app saw the reset" until_true reset_logged "$M"
V=$(effects_since "$M" | jq -r 'select(.event == "scale") | .value')
near_target() { [ -n "$V" ] && [ "$V" -ge $((TARGET - 2)) ] && [ "$V" -le $((TARGET + 2)) ]; }
check "the slider was dragged to $TARGET and the app logged ${V:-nothing} (within 2)" near_target
V=${V:-0}
EXPECTED="{\"event\":\"select\",\"index\":46,\"text\":\"Item 47\"}
{\"event\":\"scale\",\"name\":\"priority\",\"value\":$V}
$(typed customer true 'Alice Ærø')
$(typed quantity true 3)
{\"event\":\"check\",\"name\":\"express\",\"value\":1}
{\"event\":\"radio\",\"name\":\"delivery\",\"value\":\"courier\"}
{\"event\":\"menu-open\",\"menu\":\"Edit\"}
{\"event\":\"menu\",\"menu\":\"Edit\",\"item\":\"Clear notes\",\"via\":\"menu\"}
{\"event\":\"entry\",\"field\":\"notes\",\"value\":\"\"}
{\"event\":\"dialog\",\"name\":\"confirm\",\"state\":\"opened\"}
{\"event\":\"order\",\"state\":\"submitted\",\"number\":1,\"customer\":\"Alice Ærø\",\"quantity\":3,\"index\":46,\"item\":\"Item 47\",\"express\":1,\"delivery\":\"courier\",\"priority\":$V}
{\"event\":\"dialog\",\"name\":\"confirm\",\"state\":\"closed\"}
{\"event\":\"menu-open\",\"menu\":\"File\"}
{\"event\":\"menu\",\"menu\":\"File\",\"item\":\"New order\",\"via\":\"menu\"}
$RESET"
same_effects "the app's log holds every effect of the script, in order, and nothing more ($(wc -l <<<"$EXPECTED") lines)" \
    "$EXPECTED"
same_text "every press reached the widget aimed at: $NOTCHES wheel notches on the list, then each click" \
    "$(for _ in $(seq $NOTCHES); do echo ".f.items 5"; done; printf '%s 1\n' .f.items .f.priority .f.customer .f.quantity \
        .f.express .f.courier .#mb .#mb.#mb#edit .f.submit .confirm.ok .#mb .#mb.#mb#file)" \
    "$(presses_since "$M")"
form_reset() { [ "$(jq -c '[.orders, ([.widgets[] | select(.kind == "list")][0] | .selected, .first), .posted, .confirm]' "$TRUTH")" = '[1,-1,0,[],null]' ]; }
check "the form is back as it started (truth: no selection, top row 0, no menu, no dialog; 1 order placed)" until_true form_reset

# ---- 2. a script that fails midway still runs its finally
M=$(mark)
run_script failing <<EOF
click --window '$W' --at $(centre "$(widget .f.express)")
click --window '$W' --at $(centre "$(widget .f.quantity)")
type --window '$W' --replace 'many'
click --window '$W' --at $SUBMIT
wait-for --window '$W' --text 'positive whole number' --timeout 5 --interval 0.1
wait-for --window '$D' --appear --timeout 1 --interval 0.1
click --window '$W' --at $(centre "$(widget .f.post)")
finally
key --window '$W' Escape
key --window '$W' ctrl+n
EOF
check "the script fails at the wait for a dialog that never comes: exit 6 (TIMEOUT)" test "$RC" = 6
check "...naming step 6, line 6 on stderr" test "$(jq -c '[.error.code, .error.step, .error.line]' "$ERR" 2>/dev/null)" = '["TIMEOUT",6,6]'
check "the status said why (wait-for --text 'positive whole number' passed)" test "$(step 5 .result.found)" = true
check "the line after the failure did not run; finally's two did" \
    test "$(jq -sc '[.[] | .line]' "$OUT")" = "[1,2,3,4,5,6,9,10]"
check "the app saw the reset" until_true reset_logged "$M"
same_effects "its log: the check box, the field, the refused submit, the reset, and nothing else (no Post)" \
    "{\"event\":\"check\",\"name\":\"express\",\"value\":1}
$(typed quantity true many)
{\"event\":\"invalid\",\"field\":\"quantity\",\"value\":\"many\"}
{\"event\":\"menu\",\"menu\":\"File\",\"item\":\"New order\",\"via\":\"key\"}
$RESET"

# ---- 2b. Cancel in the confirmation, Help > About and its Close, found by OCR
ROW3=$(jq -c '.rows[] | select(.index == 2)' <<<"$LIST")
M=$(mark)
run_script cancel <<EOF
click --window '$W' --at $(centre "$ROW3")
click --window '$W' --at $SUBMIT
wait-for --window '$D' --text 'Item 03' --timeout 5 --interval 0.1
click --window '$D' --text Cancel
wait-for --window '$D' --gone --timeout 5
click --window '$W' --at $(centre "$(bar Help)") --expect-change
click --window '$W' --at $(centre "$(menu_item Help About)")
wait-for --window '^About Order desk$' --text Close --timeout 5 --interval 0.1
click --window '^About Order desk$' --text Close
wait-for --window '^About Order desk$' --gone --timeout 5
finally
key --window '$W' Escape
key --window '$W' ctrl+n
EOF
check "the cancel/About script passes (exit $RC$( [ -s "$ERR" ] && echo ": $(cat "$ERR")"))" test "$RC" = 0
offers_item3() { [[ "$(step 3 .result.text_read)" == *"Order 1 x Item 03 for Bob Stone"* ]]; }
check "the dialog offered Item 03 at quantity 1 ($(step 3 .result.text_read | tr '\n' '|'))" offers_item3
check "the About dialog is a dialog of the app's window, gone after Close" \
    test "$(step 8 '"\(.result.window.kind) \(.result.window.parent)"') $(step 10 .result.gone)" = "dialog $MAIN_ID true"
check "the app saw the reset" until_true reset_logged "$M"
same_effects "its log: the row, the dialog cancelled, About opened and closed, the reset" \
    "{\"event\":\"select\",\"index\":2,\"text\":\"Item 03\"}
{\"event\":\"dialog\",\"name\":\"confirm\",\"state\":\"opened\"}
{\"event\":\"order\",\"state\":\"cancelled\"}
{\"event\":\"dialog\",\"name\":\"confirm\",\"state\":\"closed\"}
{\"event\":\"menu-open\",\"menu\":\"Help\"}
{\"event\":\"menu\",\"menu\":\"Help\",\"item\":\"About\",\"via\":\"menu\"}
{\"event\":\"dialog\",\"name\":\"about\",\"state\":\"opened\"}
{\"event\":\"dialog\",\"name\":\"about\",\"state\":\"closed\"}
{\"event\":\"menu\",\"menu\":\"File\",\"item\":\"New order\",\"via\":\"key\"}
$RESET"
same_text "the presses: the row, Submit, Cancel, Help, About, Close" \
    "$(printf '%s 1\n' .f.items .f.submit .confirm.cancel .#mb .#mb.#mb#help .about.close)" "$(presses_since "$M")"

# ---- 3. through a 320x200 snapshot: the same widgets as through the window
run_script probe <<<"snapshot --window '$W' --max-size 320x200"
read -r SW SH SRC SRCH < <(jq -r '.result | "\(.width) \(.height) \(.source_width) \(.source_height)"' "$OUT")
fits() { # inside 320x200, smaller than the window, the aspect kept to 1%
    local d=$((SW * SRCH - SH * SRC))
    [ "$SW" -le 320 ] && [ "$SH" -le 200 ] && [ "$SRC" -gt "$SW" ] && [ $((${d#-} * 100)) -lt $((SW * SRCH)) ]
}
check "a --max-size 320x200 snapshot is ${SW}x$SH of ${SRC}x$SRCH (fits, keeps the aspect)" fits
small_at() { jq -r --argjson sw "$SW" --argjson src "$SRC" '"\((.x + .w / 2) * $sw / $src | floor),\((.y + .h / 2) * $sw / $src | floor)"' <<<"$1"; }
PROBES=(.f.express .f.l_notes .f.post)
script="snapshot --window '$W' --max-size 320x200 as small"
for p in "${PROBES[@]}"; do script+=$'\n'"click --in \$small --at $(small_at "$(widget "$p")")"; done
for p in "${PROBES[@]}"; do script+=$'\n'"click --window '$W' --at $(centre "$(widget "$p")")"; done
script+=$'\n'"finally"$'\n'"key --window '$W' ctrl+n"
M=$(mark)
run_script small <<<"$script"
check "the token script passes (exit $RC)" test "$RC" = 0
scale_ok() { jq -n --argjson s "$(step 2 .result.in.scale)" --argjson r "$SRC" --argjson w "$SW" '($s - $r / $w) | fabs < 0.01' | grep -q true; }
check "click --in maps the token's pixels at its scale ($(step 2 .result.in.scale), ${SRC}/${SW})" scale_ok
i=2
for p in "${PROBES[@]}"; do
    at=$(step $i '"\(.result.clicked.x),\(.result.clicked.y)"')
    check "the token's click on $p landed at $at of the window, inside $p" inside "$at" "$(widget "$p")"
    i=$((i + 1))
done
check "the app saw the reset" until_true reset_logged "$M"
same_text "the press log names the same widgets through the token and through the window" \
    "$(printf '%s 1\n' "${PROBES[@]}" "${PROBES[@]}")" "$(presses_since "$M")"
same_effects "...and the effects are those of the same widget twice (Express on, off; Post chosen twice)" \
    "{\"event\":\"check\",\"name\":\"express\",\"value\":1}
{\"event\":\"radio\",\"name\":\"delivery\",\"value\":\"post\"}
{\"event\":\"check\",\"name\":\"express\",\"value\":0}
{\"event\":\"radio\",\"name\":\"delivery\",\"value\":\"post\"}
{\"event\":\"menu\",\"menu\":\"File\",\"item\":\"New order\",\"via\":\"key\"}
$RESET"

# ---- 4. receipts: --expect-change on nothing is exit 1, on Submit a box on the status line
EMPTY=$(jq -r '.empty | "\(.x),\(.y)"' "$TRUTH")
check "the empty point $EMPTY is inside the window and in no widget of the truth" test "$(jq --arg p "$EMPTY" '($p | split(",") | map(tonumber)) as [$x, $y] |
    ($x < .width and $y < .height), ([.widgets[] | select($x >= .x and $x < .x + .w and $y >= .y and $y < .y + .h)] | length)' "$TRUTH" | tr '\n' ' ')" = "true 0 "
M=$(mark)
run_script nothing <<EOF
move --window '$W' --at $EMPTY
wait-stable --window '$W' --interval 0.2
click --window '$W' --at $EMPTY --expect-change --timeout 0.5
finally
key --window '$W' ctrl+n
EOF
check "a click on empty space with --expect-change fails the script with exit 1" test "$RC" = 1
check "...ASSERTION_FAILED at step 3: no visible effect ($(jq -r .error.message "$ERR" 2>/dev/null))" \
    test "$(jq -c '[.error.code, .error.step]' "$ERR" 2>/dev/null) $(step 3 .details.effect.changed)" = '["ASSERTION_FAILED",3] false'
pressed_frame() { [ "$(presses_since "$M")" = ".f 1" ]; }
check "the click did land: on the frame (.f), which does nothing" until_true pressed_frame
check "the app saw the reset" until_true reset_logged "$M"
same_effects "its log: nothing from the click, then finally's reset" \
    "{\"event\":\"menu\",\"menu\":\"File\",\"item\":\"New order\",\"via\":\"key\"}
$RESET"
M=$(mark)
run_script receipt <<EOF
move --window '$W' --at $EMPTY
wait-stable --window '$W' --interval 0.2
expect-fail --exit 1 click --window '$W' --at $EMPTY --expect-change --timeout 0.5
move --window '$W' --at $SUBMIT
wait-stable --window '$W' --interval 0.2
click --window '$W' --at $SUBMIT --expect-change
finally
key --window '$W' ctrl+n
EOF
check "the receipt script passes (exit $RC), the empty click as expect-fail --exit 1" \
    test "$RC $(step 3 .expected_failure.exit)" = "0 1"
BOX=$(step 6 .result.effect.box)
check "Submit with no item selected changed the window: the status line ($BOX)" \
    test "$(step 6 .result.effect.changed)" = true
check "...the box overlaps the status label's geometry ($(jq -c '[.x,.y,.w,.h]' <<<"$STATUS"))" overlaps "$BOX" "$STATUS"
# the changed box is reported on a coarse grid: 8 pixels of slack around the label
on_status() {
    jq -n --argjson a "$BOX" --argjson b "$STATUS" \
        '$a.x >= $b.x - 8 and $a.y >= $b.y - 8 and $a.x + $a.w <= $b.x + $b.w + 8 and $a.y + $a.h <= $b.y + $b.h + 8' | grep -q true
}
check "...and lies on it (8 pixels of slack), not on Submit above" on_status
check "the app saw the reset" until_true reset_logged "$M"
same_effects "its log: only the refused submit (no item), then the reset" \
    "{\"event\":\"invalid\",\"field\":\"item\",\"value\":\"\"}
{\"event\":\"menu\",\"menu\":\"File\",\"item\":\"New order\",\"via\":\"key\"}
$RESET"
same_text "the presses: the frame (the empty click), then Submit" ".f 1
.f.submit 1" "$(presses_since "$M")"

# ---- 5. clicks land in order after a keymap change: under openbox a
# `type` that borrows a keycode makes openbox re-grab its bindings, and its
# click-to-focus grab then froze the next click's press in the server's
# queue while the keys after it went ahead (so "3" reached Customer, and the
# click after that landed at the next one's point). A click now returns only
# once the server reads its button as up again (x11_input.c, landed).
M=$(mark)
run_script race <<EOF
click --window '$W' --at $(centre "$(widget .f.customer)")
type --window '$W' --replace 'Ærø'
click --window '$W' --at $(centre "$(widget .f.quantity)")
type --window '$W' --replace 3
click --window '$W' --at $(centre "$(widget .f.express)")
click --window '$W' --at $(centre "$(widget .f.courier)")
finally
key --window '$W' ctrl+n
EOF
check "the race script passes (exit $RC)" test "$RC" = 0
check "the app saw the reset" until_true reset_logged "$M"
same_effects "after a type through a borrowed keycode, the next click comes before the next keys, and each click where it aimed" \
    "$(typed customer true 'Ærø')
$(typed quantity true 3)
{\"event\":\"check\",\"name\":\"express\",\"value\":1}
{\"event\":\"radio\",\"name\":\"delivery\",\"value\":\"courier\"}
{\"event\":\"menu\",\"menu\":\"File\",\"item\":\"New order\",\"via\":\"key\"}
$RESET"
same_text "...and the presses reached Customer, Quantity, Express, Courier" \
    "$(printf '%s 1\n' .f.customer .f.quantity .f.express .f.courier)" "$(presses_since "$M")"

# ---- the whole log, once the window is still: every section's effects in
# order and nothing else, late arrivals included
run_script still <<<"wait-stable --window '$W' --interval 0.2"
same_json "the whole log: every script's effects, nothing more, nothing late ($(grep -c . <<<"$ALL_EFFECTS") lines)" \
    "$ALL_EFFECTS" "$(effects_since 0)"

echo "# $((($(date +%s%N) - T0) / 1000000)) ms from the first check${PG_WM:+ (under $PG_WM)}"
pg_summary
