#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# examples.sh - run every client command once against a real deployment and
# print "$ command" followed by its stdout, stderr and exit code. docs/agents.md
# quotes this output; regenerate it with:
#   sudo bash docs/examples.sh > /tmp/examples.txt && python3 docs/make_agents.py /tmp/examples.txt
# Needs a build (build/default) and root (it creates users), like the demo.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/tests/integration/lib.sh"
PG_AGENT=agent
PG_OTHER=other
APPROVER=alice
pg_require_root
trap pg_cleanup EXIT
pg_user pixelgate system
for u in "$PG_AGENT" "$PG_OTHER" "$APPROVER"; do pg_user "$u"; done
pg_start_fake_openai
PG_POLICY_JSON=$(cat <<JSON
{"version": 1,
 "clients": {"users": ["$PG_AGENT", "$PG_OTHER"]},
 "approvers": ["$APPROVER"],
 "expose_pixels": "analyze-only",
 "analysis": {"mode": "local-only", "endpoints": {
    "local-vision": {"kind": "openai", "url": "$FAKE/ok/v1/chat/completions", "model": "llava"},
    "local-judge": {"kind": "openai", "url": "$FAKE/judge/v1/chat/completions", "model": "llava"}}},
 "capture": {"deny_windows": ["keepass"]}}
JSON
)
pg_setup_dirs
pg_start_xvfb
pg_start_broker
pg_start_app

ex() { # ex USER ARGS...: one example
    local u=$1; shift
    printf '@@ %s$ pixelgate' "$u"
    local a; for a in "$@"; do case $a in *[!A-Za-z0-9_.,:/+=-]*) printf " '%s'" "$a" ;; *) printf ' %s' "$a" ;; esac; done
    echo
    pg_as "$u" pixelgate "$@" >"$PG_TMP/o" 2>"$PG_TMP/e"; local rc=$?
    sed 's/^/@o /' "$PG_TMP/o"; sed 's/^/@e /' "$PG_TMP/e"; echo "@x $rc"
    LAST=$(cat "$PG_TMP/o")
}
A() { ex "$PG_AGENT" "$@"; }
W='pixelgate demo'
A ping
A caps
# The person's controls: one agent at the keyboard, then a wait for the person to be idle.
A lease --ttl 60
LEASE=$(jq -r .lease <<<"$LAST")
ex "$PG_OTHER" click --window "$W" --at 10,10
A focus --window "$W" --lease "$LEASE"
A lease --release "$LEASE"
A wait-idle --timeout 5
ex "$APPROVER" resume
A windows --match "$W"
A screens
A snapshot --output screen --region 40,40,480,260
# An app with a popup of its own (pg_demo.tcl popup=: an override-redirect window, what menus are).
runuser -u "$PG_AGENT" -- env -i PATH=/usr/bin:/bin DISPLAY="$PG_DISPLAY" LANG=C.UTF-8 \
    wish "$PG_TMP/app/pg_demo.tcl" "$PG_TMP/app/menu.json" 300x200+900+500 "menu owner" popup=120x80+960+540 \
    >"$PG_TMP/menu.out" 2>&1 &
MENU_PID=$!
for _ in $(seq 100); do grep -q READY "$PG_TMP/menu.out" 2>/dev/null && break; sleep 0.1; done
sleep 0.3
A windows --all --match '^menu owner$'
A click --window '^menu owner$' --at 100,80
A snapshot --window '^menu owner$' --with-popups
pkill -P "$MENU_PID" 2>/dev/null; kill "$MENU_PID" 2>/dev/null
A snapshot --window "$W"
T1=$(jq -r .token <<<"$LAST")
A snapshot --window "$W" --max-size 320x200
A info "$T1"
ex "$PG_OTHER" info "$T1"
A snapshot --window "$W" --max-size 160x100
A drop "$(jq -r .token <<<"$LAST")" cap:AAAAAAAAAAAAAAAAAAAAAA
A ocr "$T1" --region 0,0,480,120
# --if-unchanged: an empty corner still looks as in T1 (sent); after the press the status line does not (refused)
A click --in "$T1" --at 20,230 --if-unchanged
A click --window "$W" --text 'Press me'
A wait-stable --window "$W" --interval 0.2
A click --in "$T1" --at 240,63 --if-unchanged
A snapshot --window "$W"
T2=$(jq -r .token <<<"$LAST")
A assert changed "$T1" "$T2" --min-pct 0.05
A assert unchanged "$T1" "$T2" --max-pct 0.01
A assert text "$T2" --expect 'Clicked 1'
A assert text "$T2" --expect 'Clicked 7'
read -r BX BY BW BH < <(jq -r '"\(.press.x) \(.press.y) \(.press.w) \(.press.h)"' "$PG_STATE_FILE")
A snapshot --window "$W" --region "$BX,$BY,$BW,$BH"
BTN=$(jq -r .token <<<"$LAST")
A assert template "$T2" --template "$BTN"
A click --window "$W" --template "$BTN"
A wait-for --window "$W" --text 'Clicked 2' --timeout 5
A wait-for --window "$W" --appear
A wait-for --window '^Confirm order$' --gone --timeout 2
A wait-stable --window "$W" --exact --interval 0.2
A hash "$T2"
A diff "$T1" "$T2"
A compare "$T1" "$T2"
A focus --window "$W"
read -r EX EY < <(jq -r '"\(.entry_box.x + 10) \(.entry_box.y + (.entry_box.h/2|floor))"' "$PG_STATE_FILE")
A click --window "$W" --at "$EX,$EY"
A type --window "$W" 'Hello from pixelgate! é€ü'
A key --window "$W" Return
# The order-entry form (tests/apps/pg_form.tcl): layout, controls, colours.
install -m 0644 "$REPO/tests/apps/pg_form.tcl" "$PG_TMP/app/"
runuser -u "$PG_AGENT" -- env -i PATH=/usr/bin:/bin DISPLAY="$PG_DISPLAY" LANG=C.UTF-8 \
    wish "$PG_TMP/app/pg_form.tcl" -truth "$PG_TMP/app/form.json" -empty 1 -caret 0 -geometry +560+40 \
    -theme clam -px 14 >"$PG_TMP/form.out" 2>&1 &
PG_PIDS+=($!)
for _ in $(seq 100); do grep -q READY "$PG_TMP/form.out" 2>/dev/null && break; sleep 0.1; done
F='^Order entry$'
A layout --window "$F"
TF=$(jq -r .token <<<"$LAST")
CN=$(jq -r '[.controls[] | select(.label == "Customer:")][0].n' <<<"$LAST")
XN=$(jq -r '[.controls[] | select(.label == "Express")][0].n' <<<"$LAST")
A type --control "$CN" --in "$TF" 'Zoë Ærø'
A click --control "$XN" --in "$TF"
A snapshot --window "$F"
TF2=$(jq -r .token <<<"$LAST")
A assert control --in "$TF2" --label Express --checked
A assert control --in "$TF2" --label Customer --value 'Zoë Ærø'
A assert control --in "$TF2" --label 'Gift wrap' --checked
read -r RX RY RW RH < <(jq -r '.widgets[] | select(.widget == ".f.e_customer") | "\(.x + 2) \(.y + 2) \(.w - 4) \(.h - 4)"' "$PG_TMP/app/form.json")
A assert text "$TF2" --region "$RX,$RY,$RW,$RH" --field --normalize --expect 'ZOË ÆRØ'
A assert text "$TF2" --region "$RX,$RY,$RW,$RH" --field --normalize --expect 'Zoe Aero'
A ocr "$TF2" --region "$RX,$RY,$RW,$RH" --field --lang Latin
read -r EX2 EY2 < <(jq -r '.widgets[] | select(.error == true) | "\(.x) \(.y - 6)"' "$PG_TMP/app/form.json")
A color "$TF2" --region "$EX2,$EY2,128,32"
A color "$TF2" --at 20,170
# The pointer vocabulary on the same form: the wheel over the city list, the
# discount slider dragged, a hover over Submit, a triple click that selects
# a field's text so that typing replaces it.
box() { jq -r --arg w "$1" '.widgets[] | select(.widget == $w) | "\(.x) \(.y) \(.w) \(.h)"' "$PG_TMP/app/form.json"; }
read -r LX LY LW LH < <(box .f.city)
A scroll --window "$F" down --notches 2 --at "$((LX + LW / 2)),$((LY + LH / 2))"
read -r SX SY SW SH < <(box .f.disc)
A drag --window "$F" --from "$((SX + 6)),$((SY + SH / 2))" --to "$((SX + SW - 6)),$((SY + SH / 2))" --steps 12
read -r BX2 BY2 BW2 BH2 < <(box .f.submit)
A move --window "$F" --at "$((BX2 + BW2 / 2)),$((BY2 + BH2 / 2))"
A click --window "$F" --at "$((RX + 20)),$((RY + RH / 2))" --count 3
A type --window "$F" 'Bob'
A type --window "$F" --replace 'Alice'
A key --window "$F" Tab --repeat 2
A key --window "$F" shift+Tab --hold 200
# Held keys and buttons live as long as the connection: alone, each call lets go as it returns.
A key-down --window "$F" shift
A key-up shift
A mouse-down --window "$F" --at "$((SX + 6)),$((SY + SH / 2))"
A mouse-up
A cursor
read -r GX GY GW GH < <(box .f.c_gift)
A click --window "$F" --at "$((GX + GW / 2)),$((GY + GH / 2))" --expect-change
A snapshot --window "$F" --max-size 173x200
SMALL=$(jq -r .token <<<"$LAST")
A click --in "$SMALL" --at "$(( (GX + GW / 2) / 2 )),$(( (GY + GH / 2) / 2 ))"
A move --window "$F" --at 340,395 >/dev/null
A click --window "$F" --at 340,395 --expect-change --timeout 0.5
A drag --window "$F" --from "$((SX + 6)),$((SY + SH / 2))" --to 5000,5000
A analyze "$T2" --endpoint local-vision --prompt 'What colour dominates this window?'
A analyze "$T2" --endpoint "$FAKE/ok/v1/chat/completions" --prompt x
A judge "$T2" --endpoint local-judge --expect 'a mostly white window' --samples 3
A judge "$T2" --endpoint local-judge --expect 'a mostly red window' --samples 3
A judge "$T2" --endpoint local-judge --expect 'a mostly red window' --samples 3 --blocking
A release "$T2" --png /tmp/shot.png
REQ=$(jq -r '.error.details.request_id' "$PG_TMP/e")
A approve "$REQ"
ex "$APPROVER" approve "$REQ" --show
ex "$APPROVER" approve "$REQ"
RD=$(runuser -u "$PG_AGENT" -- mktemp -d)
A release "$T2" --png "$RD/shot.png"
runuser -u "$PG_AGENT" -- convert "$RD/shot.png" -fuzz 8% -fill '#c62828' -opaque '#2e7d32' -opaque '#1b5e20' "$RD/recoloured.png"
A compare "$RD/shot.png" "$RD/recoloured.png" --no-visuals
A compare "$RD/shot.png" "$T2" --weights layout=0.5,color=0.5 --no-visuals
# an animated widget (a bar sliding on a sine of the clock) beside the demo app
install -m 0644 "$REPO/tests/apps/pg_layout.tcl" "$PG_TMP/app/"
runuser -u "$PG_AGENT" -- env -i PATH=/usr/bin:/bin DISPLAY="$PG_DISPLAY" LANG=C.UTF-8 \
    wish "$PG_TMP/app/pg_layout.tcl" "" 480x380+560+40 "loading bar" anim=1 >"$PG_TMP/anim.out" 2>&1 &
PG_PIDS+=($!)
for _ in $(seq 100); do grep -q READY "$PG_TMP/anim.out" 2>/dev/null && break; sleep 0.1; done
A frames --window 'loading bar' --count 12 --interval 80
F1=$(jq -r .token <<<"$LAST")
A frames --window 'loading bar' --count 12 --interval 80 --region 16,324,448,48
F2=$(jq -r .token <<<"$LAST")
A frames --window 'loading bar' --count 12 --interval 80
F3=$(jq -r .token <<<"$LAST")
A frames --window "$W" --count 12 --interval 80
F4=$(jq -r .token <<<"$LAST")
A motion "$F1" "$F4"
A motion "$F1" "$F3"
A baseline prepare --case demo-home --window "$W" --mask 0,0,480,40
CAND=$(jq -r .candidate <<<"$LAST")
A baseline approve "$CAND" --digest "$(jq -r .digest <<<"$LAST")" --note 'mine'
ex "$APPROVER" baseline show "$CAND"
DIG=$(jq -r .digest <<<"$LAST")
ex "$APPROVER" baseline approve "$CAND" --digest "$DIG" --note 'the demo window as designed'
A baseline list --case demo-home
A accept --case demo-home --window "$W"
A click --window "$W" --text 'Press me'
A accept --case demo-home --window "$W" --report "$RD/accept"
A accept --case demo-settings --window "$W"
A spec "$RD/shot.png" --format png --width 480 --height 260 --transparency opaque
A spec "$RD/shot.png" --format jpeg --dpi 72 --file-size ..10000
A spec "$T2" --width 480 --aspect-ratio 1.5..2
A snapshot --window "$W" --region 2000,2000,10,10
A snapshot --window 'no such window'
# run SCRIPT [--check]: a script as the agent types it, and what it printed.
run() {
    printf '@@ %s$ pixelgate run %s- <<END\n' "$PG_AGENT" "${2:+$2 }"
    sed 's/^/@s /' <<<"$1"
    pg_as "$PG_AGENT" pixelgate run ${2:-} - <<<"$1" >"$PG_TMP/o" 2>"$PG_TMP/e"; rc=$?
    sed 's/^/@o /' "$PG_TMP/o"; sed 's/^/@e /' "$PG_TMP/e"; echo "@x $rc"
}
run "snapshot --window '$W'
info \$last
assert text \$last --expect 'Entered'"
script="focus --window '$W'
snapshot --window '$W' as before
click --window '$W' --text 'Press me'
wait-stable --window '$W' --interval 0.2
snapshot --window '$W' as after
assert changed \$before \$after --min-pct 0.05
expect-fail assert unchanged \$before \$after
repeat 2 key --window '$W' Tab
sleep 0.2
finally
drop \$before \$after"
run "$script" --check
run "$script"
run "snapshot --window '$W' as before
expect-fail assert changed \$before \$before
assert text \$before --expect 'Clicked 99'
finally
drop \$before"
# Held input in one script: the slider dragged by parts, the pointer asked
# where it is meanwhile, and shift held over a click.
run "mouse-down --window '$F' --at $((SX + SW - 6)),$((SY + SH / 2))
move --window '$F' --at $((SX + SW / 2)),$((SY + SH / 2))
cursor
mouse-up --window '$F' --at $((SX + SW / 2)),$((SY + SH / 2))
key-down --window '$F' shift
click --window '$F' --at $((LX + LW / 2)),$((LY + 8))
key-up --all"
printf '@@ root# pixelgated --verify-audit /var/lib/pixelgate/audit.jsonl\n'
"$PG_TMP/bin/pixelgated" --verify-audit "$PG_TMP/state/audit.jsonl" | sed 's/^/@o /'
echo "@x $?"
printf '@@ root# tail -n 2 /var/lib/pixelgate/audit.jsonl\n'
tail -n 2 "$PG_TMP/state/audit.jsonl" | sed 's/^/@o /'
echo "@x 0"
