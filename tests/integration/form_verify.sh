#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An agent fills the order-entry form (tests/apps/pg_form.tcl) and verifies
# its own input with what the shipped policy gives it - analyze-only, no
# vision endpoint, no release - i.e. layout, assert text --normalize, assert
# control and color only: accented names, an e-mail with a non-ASCII letter,
# a lone digit, check and radio states, the selected list row, and the red
# of the error label. The app's own log must agree with every reading.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
PG_AGENT=pgf-agent
PG_OTHER=pgf-other
pg_require_root
pg_require_tools Xvfb xauth xhost xdpyinfo wish jq runuser useradd
trap pg_cleanup EXIT
pg_user pixelgate system
pg_user "$PG_AGENT"
pg_user "$PG_OTHER"
pg_setup_dirs
install -m 0644 "$PG_ROOT/tests/apps/pg_form.tcl" "$PG_TMP/app/"
pg_start_xvfb
pg_start_broker
LOG=$PG_TMP/app/form.log
TRUTH=$PG_TMP/app/form.json
runuser -u "$PG_AGENT" -- env -i PATH=/usr/bin:/bin DISPLAY="$PG_DISPLAY" LANG=C.UTF-8 \
    wish "$PG_TMP/app/pg_form.tcl" -truth "$TRUTH" -log "$LOG" -empty 1 -caret 0 -geometry +30+30 \
    -theme clam -px 14 >"$PG_TMP/form.out" 2>&1 &
PG_PIDS+=($!)
for _ in $(seq 100); do grep -q READY "$PG_TMP/form.out" 2>/dev/null && break; sleep 0.1; done
grep -q READY "$PG_TMP/form.out" || pg_die "the form did not start: $(cat "$PG_TMP/form.out")"
AS() { pg_as "$PG_AGENT" pixelgate "$@"; }
Q() { AS "$@" >/dev/null 2>&1; } # a check's verdict is its exit code
W='^Order entry$'

out=$(AS caps)
check "caps says the agent perceives through OCR only" test "$(jq -r .perception <<<"$out")" = ocr-only

# --- what the form holds, from its pixels
L=$(AS layout --window "$W")
check "layout of the window exits 0" test $? = 0
TOK=$(jq -r .token <<<"$L")
n_of() { jq -r --arg k "$1" --arg l "$2" '[.controls[] | select(.kind == $k and .label == $l)][0].n // empty' <<<"$L"; }
CUST=$(n_of entry "Customer:"); MAIL=$(n_of entry "E-mail:"); QTY=$(n_of entry "Quantity:")
EXPR=$(n_of check Express); PRIO=$(n_of radio Priority)
check "layout finds the labelled entries, the Express check box and the Priority radio button" \
    test -n "$CUST" -a -n "$MAIL" -a -n "$QTY" -a -n "$EXPR" -a -n "$PRIO"
check "layout reads Express as off before the agent acts" \
    test "$(jq --argjson n "${EXPR:-0}" '.controls[$n].checked' <<<"$L")" = false
check "layout's controls carry confidences and boxes on the 8-pixel grid (protected pixels)" \
    test "$(jq '(.controls | length) as $n | [.controls[] | select(.conf > 0 and .box.x % 8 == 0)] | length == $n' <<<"$L")" = true

# --- the agent's input, aimed at controls of that layout
AS type --control "$CUST" --in "$TOK" "Zoë Ærø" >/dev/null
AS type --control "$MAIL" --in "$TOK" "ü@example.com" >/dev/null
AS type --control "$QTY" --in "$TOK" "3" >/dev/null
AS click --control "$EXPR" --in "$TOK" >/dev/null
AS click --control "$PRIO" --in "$TOK" >/dev/null
# Nothing is selected yet: the list reads as a text area until it shows a selected band.
ROW=$(jq -c '[.controls[] | select(.kind == "list" or .kind == "textarea")][0].rows[] | select(.text == "Kraków") | .box' <<<"$L")
check "layout lists the list's rows with boxes (Kraków among them)" test -n "$ROW"
AS click --window "$W" --at "$(jq -r '"\(.x + .w / 2 | floor),\(.y + .h / 2 | floor)"' <<<"${ROW:-{\"x\":0,\"y\":0,\"w\":0,\"h\":0\}}")" >/dev/null
sleep 0.3
AS wait-stable --window "$W" --interval 0.2 --timeout 10 >/dev/null

# --- verification without pixels
L2=$(AS layout --window "$W")
T2=$(jq -r .token <<<"$L2")
out=$(AS assert control --in "$T2" --label Customer --value "Zoë Ærø")
check "assert control: the customer entry reads 'Zoë Ærø' (edit distance $(jq .edit_distance <<<"$out"))" test $? = 0
out=$(AS assert control --in "$T2" --label E-mail --value "ü@example.com")
check "assert control: the e-mail entry reads 'ü@example.com'" test $? = 0
out=$(AS assert control --in "$T2" --label Quantity --value 3)
check "assert control: the lone '3' in the quantity entry is read" test $? = 0
BOX=$(jq -c --arg l "Customer:" '[.controls[] | select(.kind == "entry" and .label == $l)][0].box' <<<"$L2")
R=$(jq -r '"\(.x + 2),\(.y + 2),\(.w - 4),\(.h - 4)"' <<<"$BOX")
out=$(AS assert text "$T2" --region "$R" --field --normalize --expect "ZOË ÆRØ")
check "assert text --normalize --field: case-folded 'ZOË ÆRØ' matches the entry (distance $(jq .edit_distance <<<"$out"))" \
    test $? = 0 -a "$(jq .edit_distance <<<"$out")" = 0
out=$(AS assert text "$T2" --region "$R" --field --normalize --expect "Zoe Aero" 2>/dev/null)
check "assert text --normalize: 'Zoe Aero' is a measured near miss (exit 1, edit distance >= 2)" \
    test $? = 1 -a "$(jq '.edit_distance >= 2' <<<"$out")" = true
check "assert control: Express is checked" Q assert control --in "$T2" --label Express --checked
check "assert control: Gift wrap is unchecked" Q assert control --in "$T2" --label "Gift wrap" --unchecked
check "assert control: the Priority radio button is on" Q assert control --in "$T2" --label Priority --checked --kind radio
check "assert control: Standard is off" Q assert control --in "$T2" --label Standard --unchecked
check "assert control: the selected city is Kraków" Q assert control --in "$T2" --label City --selected "Kraków"
AS assert control --in "$T2" --label Insurance --checked >/dev/null 2>&1
check "assert control says no (exit 1) for an unchecked Insurance" test $? = 1
ERR=$(jq -c '[.lines[] | select(.text | test("Postcode"))][0].box' <<<"$L2")
check "layout reads the error label's text" test -n "$ERR" -a "$ERR" != null
# The label's box grown to the policy's minimum area (1024 px), as an agent would.
ER=$(jq -r '"\(.x),\([.y - 8, 0] | max),\([.w, 96] | max),\(.h + 16)"' <<<"$ERR")
out=$(AS color "$T2" --region "$ER")
check "color: the error label's text is red ($(jq -c '[.colors[] | .name]' <<<"$out"))" \
    test "$(jq '[.colors[] | select(.name == "red")] | length' <<<"$out")" = 1
check "color answers protected pixels quantised" test "$(jq .quantized <<<"$out")" = true

# --- the app agrees, and no pixel left the broker
last=$(tail -n 1 "$LOG")
echo "app log: $last"
check "the app's log: customer 'Zoë Ærø'" test "$(jq -r .customer <<<"$last")" = "Zoë Ærø"
check "the app's log: e-mail 'ü@example.com'" test "$(jq -r .email <<<"$last")" = "ü@example.com"
check "the app's log: quantity '3'" test "$(jq -r .quantity <<<"$last")" = 3
check "the app's log: Express on, Priority shipping, Kraków" \
    test "$(jq -r '"\(.express) \(.ship) \(.city)"' <<<"$last")" = "1 priority Kraków"
AUDIT=$PG_TMP/state/audit.jsonl
check "the audit log has no release and no analyze" \
    test "$(jq -s '[.[] | select(.op == "release" or .op == "analyze" or .op == "judge")] | length' "$AUDIT")" = 0
check "every layout, assert and color is on record" \
    test "$(jq -s '[.[] | select(.op == "layout" or .op == "assert_control" or .op == "color" or .op == "assert_text")] | length >= 14' "$AUDIT")" = true
pg_summary
