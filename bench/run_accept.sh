#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run_accept.sh - acceptance of a 1920x1080 screen against its approved
# baseline, whole process, next to the same check as a user scripts it with
# seed 000's stack (capture to PNG, then pixelmatch 7.2 through node + pngjs).
#   sudo bash bench/run_accept.sh [build-dir]
# Xvfb 1920x1080x24 with a 1920x1080 Tk window; medians of hyperfine runs:
#   - pixelgate accept --window (two captures until identical, compare, tokens)
#   - pixelgate snapshot --window + pixelgate accept TOKEN (one capture, no stability check)
#   - ImageMagick import to PNG + node pixelmatch 7.2 (one capture, no stability check)
#   - the same with two captures, as seed 000's stability rule asks
# Prints a markdown table with ratios. Not a test: nothing here passes or fails on speed.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
PG_BUILD=${1:-$REPO/build/default}
. "$REPO/tests/integration/lib.sh"
PG_AGENT=pgbench
PG_SCREEN=1920x1080x24
PG_APP_GEOMETRY=1920x1080+0+0
# Many comparisons of the same window: a disclosure budget to match.
PG_POLICY_JSON='{"version": 1, "clients": {"users": ["pgbench"]}, "tokens": {"ttl_s": 120, "spool_quota_mb": 16384},
 "disclosure": {"bits_per_tile_hour": 100000000, "bits_per_user_hour": 100000000}}'
pg_require_root
pg_require_tools hyperfine import node jq
[ -x "$PG_BUILD/bench/bench_broker" ] || pg_die "build first: cmake --build $PG_BUILD --target bench_broker pixelgated pixelgate"
MODULES=$(sh "$REPO/tests/oracle/setup.sh") || pg_die "tests/oracle/setup.sh failed (npm)"
trap pg_cleanup EXIT
pg_user pixelgate system
pg_user "$PG_AGENT"
pg_setup_dirs
install -m 0644 "$REPO/bench/pixelmatch_accept.mjs" "$PG_TMP/app/"
install -m 0755 "$PG_BUILD/bench/bench_broker" "$PG_TMP/bin/"
mkdir -p "$PG_TMP/node_modules" # the cache is root's: a copy the agent can read
cp -r "$MODULES/pngjs" "$MODULES/pixelmatch7" "$PG_TMP/node_modules/"
chmod -R a+rX "$PG_TMP/node_modules"
MODULES=$PG_TMP/node_modules
pg_start_xvfb
pg_start_broker --spool-quota 8192 --memory-budget 6144 --token-ttl 300
pg_start_app
W='^pixelgate demo$'
as_agent() { pg_as "$PG_AGENT" env DISPLAY="$PG_DISPLAY" "$@"; }
# The baseline: prepared by the agent, approved by root (an approver, not the preparer).
CAND=$(as_agent pixelgate baseline prepare --case screen --window "$W" | jq -r .candidate)
DIG=$(pg_as root pixelgate baseline show "$CAND" | jq -r .digest)
pg_as root pixelgate baseline approve "$CAND" --digest "$DIG" --note bench >/dev/null || pg_die "approve failed"
as_agent pixelgate accept --case screen --window "$W" --interval 0.01 >/dev/null || pg_die "accept does not pass"
BASE=$PG_TMP/app/baseline.png
as_agent import -window root "$BASE"
chmod 0644 "$BASE"
as_agent node "$PG_TMP/app/pixelmatch_accept.mjs" "$MODULES" "$BASE" "$BASE" >/dev/null || pg_die "node check fails"
RUNS=${RUNS:-20}

hf() { # hf CMD -> median ms of the whole process; the check must pass first
    as_agent bash -c "$1" >"$PG_TMP/hf.out" 2>&1 || pg_die "does not pass: $1: $(tail -c 600 "$PG_TMP/hf.out")"
    as_agent hyperfine --warmup 2 --runs "$RUNS" --export-json "/tmp/hf.$$.json" "$1" >/dev/null 2>&1 ||
        pg_die "hyperfine failed: $1"
    jq '.results[0].median * 1000' "/tmp/hf.$$.json"
    rm -f "/tmp/hf.$$.json"
}
WID=$(as_agent pixelgate windows --match "$W" | jq .windows[0].id)
rt() { as_agent bench_broker "$PG_SOCK" "$RUNS" "$@" | jq .median_ms; }
rt_acc=$(rt accept "{\"case_id\":\"screen\",\"id\":$WID,\"interval\":0.01}")
rt_snap=$(rt snapshot "{\"id\":$WID,\"settle\":false}")
CAP=/tmp/pgbench.$$.png
NODE="node $PG_TMP/app/pixelmatch_accept.mjs $MODULES $BASE"
pg_win=$(hf "pixelgate accept --case screen --window '$W' --interval 0.01")
pg_tok=$(hf "pixelgate accept --case screen \$(pixelgate snapshot --window '$W' --no-settle | jq -r .token)")
seed1=$(hf "import -window root $CAP && $NODE $CAP")
seed2=$(hf "import -window root $CAP.1.png && import -window root $CAP && $NODE $CAP.1.png $CAP")
rm -f "$CAP" "$CAP.1.png"

r() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1fx", a/b}'; }
f() { awk -v a="$1" 'BEGIN{printf "%.1f", a}'; }
echo "Acceptance benchmark, $(date -u +%F), $(nproc) cores, Xvfb 1920x1080x24, Tk window 1920x1080, $RUNS runs (medians, ms, whole process)"
echo
echo "| what | ms | seed 000's stack / this |"
echo "|---|---|---|"
echo "| \`pixelgate accept --window\` (captures until two are identical, compare, a capture token) | $(f "$pg_win") | $(r "$seed2" "$pg_win") (vs two captures) |"
echo "| \`pixelgate snapshot --window\` + \`pixelgate accept TOKEN\` (one capture; a subshell and jq between them) | $(f "$pg_tok") | $(r "$seed1" "$pg_tok") (vs one capture) |"
echo "| broker round trip of accept (one connection, no process start) | $(f "$rt_acc") | |"
echo "| broker round trip of one snapshot, for scale | $(f "$rt_snap") | |"
echo "| seed 000's stack: \`import\` to PNG + node pixelmatch 7.2 (one capture) | $(f "$seed1") | |"
echo "| seed 000's stack with its stability rule: two \`import\`s, node: identical?, then pixelmatch 7.2 | $(f "$seed2") | |"
