#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The oracle suite: tries, through every operation that answers from pixels,
# to rebuild two 32x32 patches (uniform noise, and the text "Ab") of a window
# the agent may not release (expose_pixels analyze-only), adaptively, with
# the default disclosure budget (docs/threat-model.md). Each attack runs
# against a freshly started broker (a full budget of its own) as the agent,
# never sees the truth, and is scored here: every attempt must be refused,
# or its reconstruction must gain under 1 dB of PSNR over the best guess made
# with no queries (a flat image of the patch's own mean colour). OCR of the
# text patch is the text release analysis.ocr grants: its gain is reported,
# and with analysis.ocr false the attack is refused. Real broker as system
# user `pixelgate`, real Xvfb and Tk.
set -uo pipefail
. "$(dirname "$0")/../integration/lib.sh"
PG_AGENT=pgo-agent
PG_OTHER=pgo-other
PY=/usr/bin/python3
MAX_GAIN_DB=1.0
pg_require_root
pg_require_tools Xvfb xauth xhost xdpyinfo wish jq runuser useradd convert "$PY"
"$PY" -c 'import numpy, cv2' || pg_die "python3-opencv and numpy are needed (scripts/deps.sh)"
trap pg_cleanup EXIT
pg_user pixelgate system
for u in "$PG_AGENT" "$PG_OTHER"; do pg_user "$u"; done
PG_POLICY_JSON=$(cat <<JSON
{"version": 1,
 "clients": {"users": ["$PG_AGENT"]},
 "expose_pixels": "analyze-only"}
JSON
)
pg_setup_dirs
pg_start_xvfb

# The truth, which only this harness reads (root-only directory).
TRUTH=$PG_TMP/truth
mkdir -m 0700 "$TRUTH"
"$PY" - "$TRUTH" <<'PY'
import random, sys, cv2, numpy as np
rng = np.random.default_rng(20261202)
cv2.imwrite(sys.argv[1] + "/noise.png", rng.integers(0, 256, (32, 32, 3), dtype=np.uint8))
PY
convert -size 32x32 xc:white -font DejaVu-Sans -pointsize 20 -fill black -gravity center -annotate +0+0 Ab \
    -depth 8 -type TrueColor "$TRUTH/text.png"
APPDIR=$PG_TMP/app/patch
mkdir -p "$APPDIR" && cp "$TRUTH"/noise.png "$TRUTH"/text.png "$PG_ROOT/tests/apps/pg_patch.tcl" "$APPDIR/"
chmod -R a+rX "$APPDIR"
out=$PG_TMP/app/patch.out
runuser -u "$PG_AGENT" -- env -i PATH=/usr/bin:/bin DISPLAY="$PG_DISPLAY" wish "$APPDIR/pg_patch.tcl" \
    "$APPDIR/noise.png" "$APPDIR/text.png" >"$out" 2>&1 &
PG_PIDS+=($!)
for i in $(seq 100); do grep -q READY "$out" 2>/dev/null && break; sleep 0.1; done
grep -q READY "$out" || pg_die "the patch app did not start: $(cat "$out")"
rm -f "$APPDIR"/*.png # the agent's copies: the attacker must not read them

WORK=$(runuser -u "$PG_AGENT" -- mktemp -d)
install -m 0644 "$PG_ROOT/tests/security/pgwire.py" "$PG_ROOT/tests/security/oracle_attack.py" "$PG_TMP/bin/"
AUDIT=$PG_TMP/state/audit.jsonl

run_attack() { # run_attack NAME: a fresh broker (a fresh budget), the attack as the agent, its score
    pg_stop_broker
    pg_start_broker
    pg_as "$PG_AGENT" "$PY" "$PG_TMP/bin/oracle_attack.py" "$1" "$WORK" >"$PG_TMP/attack.out" 2>&1 ||
        { not_ok "attack $1 ran ($(tail -3 "$PG_TMP/attack.out"))"; return; }
    "$PY" "$PG_ROOT/tests/security/oracle_score.py" "$TRUTH" "$WORK" "$1" >"$PG_TMP/score.$1"
    local stats; stats=$(cat "$WORK/$1.json")
    echo "# $1: $(jq -c '{queries, answered, refused}' <<<"$stats") $(jq -c -s 'map({(.patch): .gain_db}) | add' "$PG_TMP/score.$1")"
    jq -r '.reasons[]' <<<"$stats" | head -2 | sed 's/^/#   refused: /'
}

gain() { jq -r --arg p "$2" 'select(.patch == $p) | .gain_db' "$PG_TMP/score.$1"; }
small() { awk -v g="$1" -v m="$MAX_GAIN_DB" 'BEGIN { exit !(g < m) }'; }
refused() { jq -e '.reasons | map(test("budget")) | any' "$WORK/$1.json" >/dev/null; }
both_small() { # both_small NAME: each patch gains under MAX_GAIN_DB
    check "$1: the noise patch gains under $MAX_GAIN_DB dB ($(gain "$1" noise) dB)" small "$(gain "$1" noise)"
    check "$1: the text patch gains under $MAX_GAIN_DB dB ($(gain "$1" text) dB)" small "$(gain "$1" text)"
}

# PG_ORACLE_ONLY="ocr_slide ...": only those attacks, scored (to measure one
# attack before and after a change without the whole suite).
if [ -n "${PG_ORACLE_ONLY:-}" ]; then
    for attack in $PG_ORACLE_ONLY; do run_attack "$attack"; both_small "$attack"; done
    rm -rf "$WORK"
    pg_summary
    exit
fi

for attack in hash_region snapshot_digest dhash diff_threshold assert_bisect template pointer_template derived fresh_snapshots; do
    run_attack "$attack"
    check "$attack: the noise patch gains under $MAX_GAIN_DB dB over a guess with no queries ($(gain "$attack" noise) dB)" \
        small "$(gain "$attack" noise)"
    check "$attack: the text patch gains under $MAX_GAIN_DB dB ($(gain "$attack" text) dB)" small "$(gain "$attack" text)"
done
check "hash_region: every 1x1 sha256 was refused" test "$(jq .answered "$WORK/hash_region.json")" = 0
check "snapshot_digest: 1x1 captures are made but show no digest (withheld)" \
    test "$(jq '.answered' "$WORK/snapshot_digest.json")" -gt 0 -a "$(jq '.digests_seen // 0' "$WORK/snapshot_digest.json")" = 0
for attack in dhash diff_threshold assert_bisect template pointer_template derived fresh_snapshots; do
    check "$attack: the disclosure budget refused it before its query cap" refused "$attack"
done

# accept with chosen baselines: the agent proposes flat references with zones
# on the patches, a careless approver (root here) approves every one, then
# the agent's accepts of the token answer each zone's changed ratio.
pg_as "$PG_AGENT" "$PY" "$PG_TMP/bin/oracle_attack.py" accept_zones_prepare "$WORK" >"$PG_TMP/attack.out" 2>&1 ||
    not_ok "accept_zones_prepare ran ($(tail -3 "$PG_TMP/attack.out"))"
while read -r cand; do
    dig=$(pg_as root pixelgate baseline show "$cand" | jq -r .digest)
    pg_as root pixelgate baseline approve "$cand" --digest "$dig" --note careless >/dev/null
done <"$WORK/accept_zones.candidates"
check "accept_zones: every chosen baseline was approved" \
    test "$(pg_as root pixelgate baseline list | jq '.baselines | length')" = "$(wc -l <"$WORK/accept_zones.candidates")"
run_attack accept_zones
check "accept_zones: the noise patch gains under $MAX_GAIN_DB dB ($(gain accept_zones noise) dB)" \
    small "$(gain accept_zones noise)"
check "accept_zones: the text patch gains under $MAX_GAIN_DB dB ($(gain accept_zones text) dB)" \
    small "$(gain accept_zones text)"
check "accept_zones: the disclosure budget refused it before its query cap" refused accept_zones
check "fresh_snapshots: fresh snapshots of the unchanged window did not renew the budget" \
    test "$(jq .refused_after_fresh_snapshots "$WORK/fresh_snapshots.json")" -gt 0
check "budget refusals are on record" \
    jq -s -e 'map(select(.outcome == "POLICY_REFUSED" and (.disposition.reason // "" | test("budget")))) | length > 0' "$AUDIT"

# Re-capture (issue 27): the caret blinks, so fresh snapshots are new content
# in two tiles; asking them the questions refused before must not renew the
# budget of the unchanged patches.
run_attack recapture
both_small recapture
check "recapture: the caret blinked between the fresh captures ($(jq .fresh_captures "$WORK/recapture.json") distinct)" \
    test "$(jq .fresh_captures "$WORK/recapture.json")" -ge 2
check "recapture: the budget refused the first sweep ($(jq .refused_first "$WORK/recapture.json") questions)" refused recapture
# The ledger refills continuously (128 bits an hour per tile content), so a
# question refused in the first sweep may be answered later by refill alone,
# the more so in a slow (sanitizer) run: how many were is reported, and what
# they told is in the gain checked above.
echo "# recapture: $(jq .renewed "$WORK/recapture.json") of the refused questions were answered again later"

# OCR's own choices (issue 27): the polarity decision was "mean luma < 128" of
# the region, shown as `inverted`; sliding a screen region's edges over the
# known desktop and window turned it into block sums of the patches. Whatever
# signal the reply still gives is used (oracle_attack.py ocr_slide).
run_attack ocr_slide
echo "# ocr_slide: signal used: $(jq -r '.signal // "none"' "$WORK/ocr_slide.json")"
both_small ocr_slide

# OCR: the text is the release analysis.ocr grants; with it off the attack is refused.
run_attack ocr
check "ocr: the noise patch gains under $MAX_GAIN_DB dB ($(gain ocr noise) dB)" small "$(gain ocr noise)"
echo "# ocr: the text patch's gain with analysis.ocr on is $(gain ocr text) dB (its text is released by policy)"
pg_write_policy "$(jq '.analysis = {"ocr": false}' "$PG_POLICY")"
run_attack ocr
check "ocr under analysis.ocr false: refused, nothing gained on the text patch ($(gain ocr text) dB)" \
    test "$(jq .answered "$WORK/ocr.json")" = 0

# The control: the same attacks where the pixels ARE the agent's (expose_pixels
# allow: exact answers, no budget) must rebuild what they can, or the test
# above proves nothing about the attacks.
pg_write_policy "$(jq '.expose_pixels = "allow"' <<<"$PG_POLICY_JSON")"
for attack in hash_region snapshot_digest dhash assert_bisect accept_zones; do run_attack "$attack"; done
check "control under allow: hash_region rebuilds the noise patch ($(gain hash_region noise) dB over no queries)" \
    awk -v g="$(gain hash_region noise)" 'BEGIN { exit !(g > 30) }'
check "control under allow: snapshot_digest's equal digests draw the text ($(gain snapshot_digest text) dB)" \
    awk -v g="$(gain snapshot_digest text)" 'BEGIN { exit !(g > 3) }'
echo "# control under allow: dhash $(gain dhash text) dB and assert_bisect $(gain assert_bisect text) dB on the text patch"
echo "# control under allow: accept_zones $(gain accept_zones text) dB on the text patch, $(gain accept_zones noise) dB on the noise patch"

# Script mode: the same oracle through one `pixelgate run` connection.
pg_write_policy "$PG_POLICY_JSON"
pg_stop_broker
pg_start_broker
printf 'snapshot --window "^oracle target$"\nhash $last --region 40,40,1,1\nhash $last --region 41,40,1,1\n' |
    pg_as "$PG_AGENT" pixelgate run - >"$PG_TMP/run.out" 2>"$PG_TMP/run.err"
check "script mode: a 1x1 sha256 in a script is refused (exit 3) and the script stops there" \
    test $? = 3 -a "$(grep -c '"result"' "$PG_TMP/run.out")" = 1 -a "$(grep -c '"POLICY_REFUSED"' "$PG_TMP/run.out")" = 1

rm -rf "$WORK"
pg_summary
