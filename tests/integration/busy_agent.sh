#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 27 (b): budgets bound reconstruction, not work. A busy honest agent
# under the shipped policy (expose_pixels analyze-only, the default
# disclosure budgets): every 2 s one snapshot of an 800x600 window, one diff
# against the previous snapshot and one OCR, while the harness changes the
# window by at least 10 % of its 16x16 tiles per step (five characters typed
# into a note, a long list scrolled one row: tests/apps/pg_busy.tcl). For 3
# minutes at real speed: never refused, and the budget's balance (caps,
# policy.disclosure_balance_bits) steady after the first minute. Each step
# waits for the app to say it applied the change, never a fixed sleep; only
# the 2 s cadence is a sleep. Real broker as system user `pixelgate`.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
PG_AGENT=pgb-agent
PG_OTHER=pgb-other
PY=/usr/bin/python3
SECONDS_RUN=${PG_BUSY_SECONDS:-180}
CADENCE=2
pg_require_root
pg_require_tools Xvfb xauth xhost xdpyinfo wish jq runuser useradd xwd convert "$PY"
"$PY" -c 'import numpy' || pg_die "python3 numpy is needed (scripts/deps.sh)"
trap pg_cleanup EXIT
pg_user pixelgate system
for u in "$PG_AGENT" "$PG_OTHER"; do pg_user "$u"; done
pg_setup_dirs # the lib's default policy: analyze-only, no disclosure section (the shipped budgets)
pg_start_xvfb
pg_start_broker

install -m 0644 "$PG_ROOT/tests/apps/pg_busy.tcl" "$PG_TMP/app/"
CMD=$PG_TMP/app/busy.cmd STATE=$PG_TMP/app/busy.state out=$PG_TMP/app/busy.out
echo 0 >"$CMD" && chmod 0644 "$CMD"
runuser -u "$PG_AGENT" -- env -i PATH=/usr/bin:/bin DISPLAY="$PG_DISPLAY" LANG=C.UTF-8 \
    wish "$PG_TMP/app/pg_busy.tcl" "$CMD" "$STATE" >"$out" 2>&1 &
PG_PIDS+=($!)
for i in $(seq 100); do grep -q READY "$out" 2>/dev/null && break; sleep 0.1; done
grep -q READY "$out" || pg_die "the busy desk did not start: $(cat "$out")"
WID=$(pg_as "$PG_AGENT" pixelgate windows --match '^busy desk$' | jq -r '.windows[0].id')
[ -n "$WID" ] && [ "$WID" != null ] || pg_die "the busy desk is not listed"
check "the shipped policy protects the window (analyze-only)" \
    test "$(pg_as "$PG_AGENT" pixelgate caps | jq -r .policy.expose_pixels)" = analyze-only

# The harness's own look at the window (root, never the agent): the share
# of 16x16 tiles that differ from the previous step.
grab() { xwd -display "$PG_DISPLAY" -id "$WID" -silent | convert xwd:- -depth 8 rgb:"$1"; }
tiles_changed() {
    "$PY" - "$1" "$2" <<'PY'
import sys, numpy as np
a, b = (np.fromfile(p, np.uint8).reshape(600, 800, 3).astype(np.int16) for p in sys.argv[1:3])
d = np.abs(a - b).sum(2).reshape(600 // 8, 8, 800 // 16, 16)  # 600 is not a multiple of 16: rows of 8, paired
d = d.any(axis=(1, 3))
t = d[0::2] | np.vstack([d[1::2], np.zeros((d.shape[0] % 2, d.shape[1]), bool)])
print("%.3f" % t.mean())
PY
}

wait_applied() { # the condition: the app says it applied step $1 (5 s at most)
    local i
    for i in $(seq 100); do [ "$(cat "$STATE" 2>/dev/null)" = "$1" ] && return 0; sleep 0.05; done
    return 1
}

LOG=$PG_TMP/busy.log
: >"$LOG"
refused=0 failed=0 slow=0 small=0 prev="" step=0
start=$(date +%s.%N)
grab "$PG_TMP/prev.rgb"
while :; do
    now=$(date +%s.%N)
    el=$(awk -v a="$start" -v b="$now" 'BEGIN { printf "%.1f", b - a }')
    awk -v e="$el" -v s="$SECONDS_RUN" 'BEGIN { exit !(e < s) }' || break
    step=$((step + 1))
    echo "$step" >"$CMD"
    wait_applied "$step" || { not_ok "step $step: the app did not apply it"; failed=$((failed + 1)); break; }
    grab "$PG_TMP/cur.rgb"
    share=$(tiles_changed "$PG_TMP/prev.rgb" "$PG_TMP/cur.rgb")
    mv "$PG_TMP/cur.rgb" "$PG_TMP/prev.rgb"
    awk -v s="$share" 'BEGIN { exit !(s >= 0.10) }' || small=$((small + 1))
    rcs=""
    tok=$(pg_as "$PG_AGENT" pixelgate snapshot --id "$WID" 2>"$PG_TMP/err" | jq -r .token)
    rc=$?; [ -n "$tok" ] && [ "$tok" != null ] || rc=3
    rcs+="snapshot=$rc "
    if [ -n "$prev" ]; then
        pg_as "$PG_AGENT" pixelgate diff "$prev" "$tok" >/dev/null 2>>"$PG_TMP/err"
        rc=$?; rcs+="diff=$rc "
    fi
    pg_as "$PG_AGENT" pixelgate ocr "$tok" >"$PG_TMP/ocr.out" 2>>"$PG_TMP/err"
    rc=$?; rcs+="ocr=$rc"
    prev=$tok
    case $rcs in *=3*) refused=$((refused + 1)); echo "# step $step refused: $(head -c 300 "$PG_TMP/err")" ;; esac
    case $rcs in *=[12456789]*) failed=$((failed + 1)); echo "# step $step failed: $rcs $(head -c 300 "$PG_TMP/err")" ;; esac
    bal=$(pg_as "$PG_AGENT" pixelgate caps | jq -r '.policy.disclosure_balance_bits')
    t=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    echo "$step $t $share $bal $rcs" >>"$LOG"
    # the cadence: the next step 2 s after this one began (at once when late)
    next=$(awk -v a="$now" -v c="$CADENCE" 'BEGIN { printf "%.3f", a + c }')
    left=$(awk -v n="$next" -v t="$(date +%s.%N)" 'BEGIN { d = n - t; printf "%.3f", (d > 0 ? d : 0) }')
    [ "$left" = 0.000 ] && slow=$((slow + 1))
    sleep "$left"
done

cap=$(pg_as "$PG_AGENT" pixelgate caps | jq -r .policy.disclosure_bits_per_user_hour)
echo "# $step steps in ${SECONDS_RUN} s ($slow ran late), budget $cap bits per hour"
echo "# balance (bits) at t s: $(awk '{ if ($2 >= m) { printf "%d:%s ", $2, $4; m += 30 } }' m=0 "$LOG")"
bits=$(jq -s '[.[] | (.disposition.detail // "") | capture("disclosed (?<b>[0-9]+) bits") | .b | tonumber] | add // 0' \
    "$PG_TMP/state/audit.jsonl" 2>/dev/null)
echo "# bits charged in all (audit records): $bits"
check "the loop ran for 3 minutes at a 2 s cadence ($step steps)" test "$step" -ge $((SECONDS_RUN / CADENCE * 2 / 3))
check "every step changed at least 10 % of the window's tiles ($small did not)" test "$small" = 0
check "no snapshot, diff or OCR was refused ($refused steps refused)" test "$refused" = 0
check "nothing failed otherwise ($failed)" test "$failed" = 0
# Steady: after the first minute the balance stays within 10 % of the budget
# of where it was at one minute, and does not end lower than that by more.
check "the balance is steady after the first minute" awk -v cap="$cap" '
    $2 >= 60 && !set { ref = $4; set = 1 }
    set { if ($4 < ref - cap / 10 || $4 > ref + cap / 10) bad = 1 }
    END { exit !(set && !bad) }' "$LOG"
[ -n "${PG_BUSY_LOG:-}" ] && cp "$LOG" "$PG_BUSY_LOG" && cp "$PG_TMP/state/audit.jsonl" "$PG_BUSY_LOG.audit"
pg_summary
