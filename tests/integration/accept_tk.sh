#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Visual acceptance for real: Xvfb, a Tk app run by the agent
# (tests/apps/pg_accept.tcl), the broker as `pixelgate`, an approver user.
# Prepare from a snapshot, approve as the approver (the agent's own approve
# refused), accept passes; recolour a widget, move one by 3 px, change a
# label: accept fails with regions inside exactly that widget; a focused
# entry with a blinking caret is accepted, not unstable; the same baseline on
# a 16-bit screen is blocked. The HTML report opens in headless Chromium
# (no network: unshare -n) and the overlay slider changes the page's pixels.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
PG_AGENT=pga-agent
PG_OTHER=pga-other
APPROVER=pga-approver

pg_require_root
pg_require_tools Xvfb xauth xhost xdpyinfo wish jq runuser useradd chromium unshare compare identify
trap pg_cleanup EXIT
pg_user pixelgate system
for u in "$PG_AGENT" "$PG_OTHER" "$APPROVER"; do pg_user "$u"; done
PG_CREATED_USERS+=() # (pg_user remembered them)
policy() { # policy EXPOSE
    cat <<JSON
{"version": 1, "clients": {"users": ["$PG_AGENT", "$PG_OTHER"]}, "approvers": ["$APPROVER"],
 "expose_pixels": "$1"}
JSON
}
PG_POLICY_JSON=$(policy analyze-only)
pg_setup_dirs
install -m 0644 "$PG_ROOT/tests/apps/pg_accept.tcl" "$PG_TMP/app/"
CONTROL=$PG_TMP/app/control
APP_STATE=$PG_TMP/app/accept.json
OUT=$PG_TMP/out
mkdir -p "$OUT" && chmod 0777 "$OUT"
W='pixelgate accept'

start_desktop() { # start_desktop DEPTH: Xvfb, broker, app
    PG_SCREEN=1024x768x$1 pg_start_xvfb
    XVFB_PID=${PG_PIDS[-1]}
    pg_start_broker
    local out=$PG_TMP/accept_app.out
    echo base >"$CONTROL"
    chmod 0644 "$CONTROL"
    rm -f "$APP_STATE"
    runuser -u "$PG_AGENT" -- env -i PATH=/usr/bin:/bin DISPLAY="$PG_DISPLAY" LANG=C.UTF-8 \
        wish "$PG_TMP/app/pg_accept.tcl" "$CONTROL" "$APP_STATE" >"$out" 2>&1 &
    PG_PIDS+=($!)
    local i
    for i in $(seq 100); do [ "$(jq -r .applied "$APP_STATE" 2>/dev/null)" = base ] && return 0; sleep 0.1; done
    pg_die "the accept app did not start: $(cat "$out")"
}
stop_desktop() {
    pg_stop_broker
    pkill -u "$PG_AGENT" wish 2>/dev/null || true
    kill "$XVFB_PID" 2>/dev/null; wait "$XVFB_PID" 2>/dev/null || true
}
mode() { # mode WORD: the app shows it
    echo "$1" >"$CONTROL"
    local i
    for i in $(seq 100); do [ "$(jq -r .applied "$APP_STATE" 2>/dev/null)" = "$1" ] && return 0; sleep 0.1; done
    pg_die "the app did not apply $1"
}
A() { pg_as "$PG_AGENT" pixelgate "$@"; }
R() { pg_as "$APPROVER" pixelgate "$@"; }
# inside BOX WIDGET: the result's bounds lie inside the widget's box (grown by 1 px of antialiasing)
inside() {
    jq -e --argjson g "$(jq ".$2" "$APP_STATE")" \
        '.bounds as $b | $b != null and $b.x >= $g.x - 1 and $b.y >= $g.y - 1 and
         $b.x + $b.w <= $g.x + $g.w + 1 and $b.y + $b.h <= $g.y + $g.h + 1' <<<"$1" >/dev/null
}

start_desktop 24
echo "# display $PG_DISPLAY (24 bit)"

# --- prepare from a snapshot, approve as the approver
T=$(A snapshot --window "$W" | jq -r .token)
out=$(A baseline prepare --case settings "$T")
check "prepare from a snapshot makes a candidate (exit 0)" test $? = 0 -a "$(jq -r .candidate <<<"$out" | cut -c1-5)" = cand:
CAND=$(jq -r .candidate <<<"$out")
check "...whose digest the agent sees only keyed (analyze-only)" test "$(jq -r .digest_kind <<<"$out")" = keyed
check "...recording the screen depth (24)" test "$(jq .environment.depth <<<"$out")" = 24
A baseline show "$CAND" --png "$OUT/agent.png" >/dev/null 2>&1
check "the agent cannot see the candidate's image (exit 3)" test $? = 3 -a ! -e "$OUT/agent.png"
out=$(R baseline show "$CAND" --png "$OUT/cand.png")
check "the approver gets the candidate's PNG, written by their own client" test $? = 0 -a "$(identify -format %w "$OUT/cand.png" 2>/dev/null)" = 360
DIGEST=$(jq -r .digest <<<"$out")
R baseline show "$CAND" --report "$OUT/review" >/dev/null
check "the approver's review page is written (report.html, .json, .md)" test -s "$OUT/review/report.html" -a -s "$OUT/review/report.md" -a -s "$OUT/review/report.json"
A baseline approve "$CAND" --digest "$DIGEST" --note "mine" >/dev/null 2>&1
check "the agent's own approve is refused (exit 3)" test $? = 3
R baseline approve "$CAND" --digest 0000000000000000000000000000000000000000000000000000000000000000 --note x >/dev/null 2>&1
check "an approve with another digest is refused (exit 3)" test $? = 3
out=$(R baseline approve "$CAND" --digest "$DIGEST" --note "the settings page as designed")
check "the approver approves by digest (exit 0)" test $? = 0 -a "$(jq -r .case <<<"$out")" = settings

STORE=$PG_TMP/state/baselines
pg_as "$PG_AGENT" ls "$STORE" >/dev/null 2>&1
check "the agent cannot list the baseline store" test $? != 0
check "the store is the broker's: a 0700 dir of 0600 files" \
    test "$(stat -c %a:%U "$STORE")" = 700:pixelgate -a -z "$(find "$STORE" -type f ! -perm 0600)"

# --- accept: passes; JSON and Markdown always, the HTML page withheld from the agent
out=$(A accept --case settings --window "$W" --report "$OUT/r0")
rc=$?
ENVKEY=$(jq -r .environment.key <<<"$out") # the approved baseline this screen is judged by
check "accept passes on the approved screen (exit 0, outcome passed)" test $rc = 0 -a "$(jq -r .outcome <<<"$out")" = passed
check "...after a stability check" test "$(jq .stability.checked <<<"$out")" = true
check "...writing report.json and report.md but not the HTML page (analyze-only)" \
    test -s "$OUT/r0/report.json" -a -s "$OUT/r0/report.md" -a ! -e "$OUT/r0/report.html" -a "$(jq -r .report.html <<<"$out")" = withheld
A accept --case settings --window "$W" --threshold 0.9 >/dev/null 2>&1
check "the agent cannot loosen the rules on the command line (exit 2)" test $? = 2
mode recolour
out=$(A accept --case settings --window "$W" 2>/dev/null)
check "a recoloured button fails (exit 1) with coarse measurements (analyze-only)" test $? = 1 -a "$(jq -r .resolution <<<"$out" | cut -c1-6)" = coarse

# --- exact measurements where the pixels are the agent's
pg_write_policy "$(policy allow)"
kill -HUP "$PG_BROKER_PID"; sleep 0.6
for m in recolour:ok move:ok label:label; do
    mode "${m%%:*}"
    out=$(A accept --case settings --window "$W" --report "$OUT/${m%%:*}" 2>/dev/null)
    rc=$?
    check "${m%%:*}: accept fails (exit 1, outcome failed)" test $rc = 1 -a "$(jq -r .outcome <<<"$out")" = failed
    inside "$out" "${m#*:}"
    check "${m%%:*}: its changed regions lie inside the $(sed 's/ok/button/' <<<"${m#*:}")" test $? = 0
    [ -n "${PG_VERBOSE:-}" ] && jq -c '{bounds, region_count, metrics}' <<<"$out"
done
check "the failing report holds report.html (expose_pixels allow)" test -s "$OUT/recolour/report.html"
mode caret
out=$(A accept --case settings --window "$W" --interval 0.3)
check "a focused entry with a blinking caret is accepted, not unstable (exit 0)" test $? = 0 -a "$(jq -r .outcome <<<"$out")" = passed
echo "# caret: $(jq -c .stability <<<"$out")"
# A baseline of the focused entry itself: the caret's on and off frames both pass.
T=$(A snapshot --window "$W" | jq -r .token)
CAND=$(A baseline prepare --case focused --window "$W" | jq -r .candidate)
DIGEST=$(R baseline show "$CAND" | jq -r .digest)
R baseline approve "$CAND" --digest "$DIGEST" --note focused >/dev/null
ok_all=0
for i in 1 2 3; do A accept --case focused --window "$W" --interval 0.3 >/dev/null && ok_all=$((ok_all + 1)); done
check "accept of the focused entry passes 3 times out of 3" test "$ok_all" = 3

# --- the HTML report in headless Chromium, offline, from a file:// URL
HTML=$OUT/recolour/report.html
check "the page fetches nothing (no http:// or https:// in it)" bash -c "! grep -qE 'https?://' '$HTML'"
shot() { # shot URL PNG
    unshare -n chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,1500 \
        --screenshot="$2" "$1" >/dev/null 2>&1
}
shot "file://$HTML#opacity=0" "$OUT/shot0.png"
shot "file://$HTML#opacity=100" "$OUT/shot100.png"
check "chromium renders the page (two screenshots)" test -s "$OUT/shot0.png" -a -s "$OUT/shot100.png"
dom=$(unshare -n chromium --headless=new --no-sandbox --disable-gpu --dump-dom "file://$HTML" 2>/dev/null)
has() { grep -q -- "$1" <<<"$dom"; }
check "the page has the side-by-side images" has 'id="left0"'
check "...both of them" has 'id="right0"'
check "the page has the regions table" has '<table class="regions">'
check "...with the regions in it" has '<tr><td>1</td><td>'
check "the page has the status filter" has 'id="filter"'
check "the page has the overlay slider" has 'class="opacity"' 
diffpx=$(compare -metric AE "$OUT/shot0.png" "$OUT/shot100.png" null: 2>&1 | cut -d' ' -f1)
# The slider's own label changes a few dozen pixels; the overlaid button (90x30) thousands.
check "moving the overlay slider changes the overlay's pixels ($diffpx pixels)" test "${diffpx%.*}" -gt 2000
cp "$OUT/shot0.png" "$OUT/shot100.png" "${PG_SHOTS:-/tmp}/" 2>/dev/null || true

# --- a baseline changed behind the broker's back blocks, and the message names
# the entry inside the store, never the broker's state path (issue 27)
PNG=$STORE/owners/u$(id -u "$PG_AGENT")/settings/default/$ENVKEY.png # the agent prepared it: its case
cp -p "$PNG" "$PG_TMP/baseline.keep"
printf 'x' >>"$PNG"
out=$(A accept --case settings --window "$W" 2>&1)
rc=$?
check "a tampered baseline blocks accept (exit 10)" test $rc = 10
check "...naming the entry in the store ($(grep -o 'baseline integrity: [^"]*' <<<"$out" | head -1))" \
    grep -q 'baseline integrity: owners/u[0-9]*/settings/' <<<"$out"
check "...and not the broker's state path" eval '! grep -qF "$PG_TMP" <<<"$out"'
cp -p "$PG_TMP/baseline.keep" "$PNG"

# --- another screen depth: the baseline is not used, the outcome is blocked
stop_desktop
start_desktop 16
echo "# display $PG_DISPLAY (16 bit)"
out=$(A accept --case settings --window "$W" 2>/dev/null)
rc=$?
check "on a 16-bit screen the 24-bit baseline blocks (exit 10, ENVIRONMENT_MISMATCH)" \
    test $rc = 10 -a "$(jq -r .reason_code <<<"$out")" = ENVIRONMENT_MISMATCH
msg=$(jq -r .message <<<"$out")
check "...saying which: the depth ($msg)" grep -q 'screen depth 24, here 16' <<<"$msg"
check "every prepare, approve and accept is audited" \
    test "$(jq -s '[.[] | select(.op == "baseline_prepare" or .op == "baseline_approve" or .op == "accept")] | length' "$PG_TMP/state/audit.jsonl")" -ge 12
pg_summary
