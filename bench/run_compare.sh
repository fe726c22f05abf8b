#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run_compare.sh - how long does a design comparison of a 1920x1080 pair take
# for an agent, as a whole process: `pixelgate compare a.png b.png` (the
# client reads both files, the broker decodes, compares, stores the four
# diagnostic images as tokens and answers), next to the parts:
#   - the same without the images (--no-visuals);
#   - two tokens instead of files (no PNG decoding in the broker);
#   - the engine alone, call only and as a process over the files (pg_engine_tool).
#   sudo bash bench/run_compare.sh [build-dir] [runs]
# The pair is a Tk dashboard (tests/apps/pg_layout.tcl) at 1920x1080 and a
# variant with another accent, larger type and two cards swapped, captured
# through pixelgate itself. Prints a markdown table of medians (hyperfine).
# Not a test: nothing passes or fails on speed.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
PG_BUILD=${1:-$REPO/build/default}
RUNS=${2:-20}
. "$REPO/tests/integration/lib.sh"
PG_AGENT=pgcbench
PG_SCREEN=1920x1080x24
PG_POLICY_JSON='{"version": 1, "clients": {"users": ["pgcbench"]}, "expose_pixels": "allow", "tokens": {"ttl_s": 120}}'
pg_require_root
pg_require_tools hyperfine jq wish
TOOL=$PG_BUILD/tests/oracle/pg_engine_tool
[ -x "$TOOL" ] || pg_die "build first: cmake --build $PG_BUILD --target pixelgate pixelgated pg_engine_tool"
trap pg_cleanup EXIT
pg_user pixelgate system
pg_user "$PG_AGENT"
pg_setup_dirs
install -m 0644 "$REPO/tests/apps/pg_layout.tcl" "$PG_TMP/app/"
install -m 0755 "$TOOL" "$PG_TMP/bin/"
pg_start_xvfb
pg_start_broker --memory-budget 2048 --spool-quota 4096
AS() { pg_as "$PG_AGENT" "$@"; }
shot() { # shot TITLE KEY=VALUE...: a full-screen layout, snapshot, released to $WORK/TITLE.png
    local title=$1 out=$PG_TMP/app.$RANDOM.out
    shift
    runuser -u "$PG_AGENT" -- env -i PATH=/usr/bin:/bin DISPLAY="$PG_DISPLAY" LANG=C.UTF-8 \
        wish "$PG_TMP/app/pg_layout.tcl" "" 1920x1080+0+0 "$title" heading=Dashboard font=20 lines=3 "$@" >"$out" 2>&1 &
    PG_PIDS+=($!)
    local i
    for i in $(seq 100); do grep -q READY "$out" 2>/dev/null && break; sleep 0.1; done
    local tok
    tok=$(AS pixelgate snapshot --window "^$title\$" | jq -r .token)
    AS pixelgate release "$tok" --png "$WORK/$title.png" >/dev/null || pg_die "release failed"
    echo "$tok"
}
WORK=$(runuser -u "$PG_AGENT" -- mktemp -d)
TA=$(shot ref)
TB=$(shot cand font=22 accent=#c62828 order=card2,card1,card3 button_dx=300)
A=$WORK/ref.png B=$WORK/cand.png
hf() { # hf CMD -> median ms
    AS hyperfine -N -w 3 -r "$RUNS" --export-json "$WORK/hf.json" "$1" >"$PG_TMP/hf.out" 2>&1 || { echo "- ($(tail -1 "$PG_TMP/hf.out"))"; return; }
    jq ".results[0].median * 1000 | . * 10 | round / 10" "$WORK/hf.json"
}
whole=$(hf "pixelgate compare $A $B")
whole_nv=$(hf "pixelgate compare $A $B --no-visuals")
tokens=$(hf "pixelgate compare $TA $TB")
engine_proc=$(hf "pg_engine_tool compare $A $B")
engine_call=$(AS pg_engine_tool time-compare "$A" "$B" "$RUNS" | jq .median_ms)
engine_call_nv=$(AS pg_engine_tool time-compare "$A" "$B" "$RUNS" --no-visuals | jq .median_ms)
overall=$(AS pixelgate compare "$A" "$B" | jq .overall)
echo "Medians in ms over $RUNS runs (hyperfine -N), 1920x1080 pair, overall $overall; $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)."
echo
echo "| work | ms |"
echo "|---|---|"
echo "| \`pixelgate compare a.png b.png\`, whole process (client, 2 PNG decodes in the broker, 4 image tokens, JSON) | $whole |"
echo "| the same, \`--no-visuals\` | $whole_nv |"
echo "| \`pixelgate compare TOKEN TOKEN\` (no decoding) | $tokens |"
echo "| \`pg_engine_tool compare a.png b.png\`, whole process, engine only | $engine_proc |"
echo "| the engine call alone (pg_design_compare), with the 4 images | $engine_call |"
echo "| the engine call alone, no images | $engine_call_nv |"
