#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run_load.sh - latency under load: open-loop and closed-loop figures from
# the protocol-level load generator (tests/load/pgload.py), for
# docs/performance.md. Not a test: nothing here passes or fails on speed.
#   sudo bash bench/run_load.sh [build-dir]        (about 6 minutes)
# Xvfb 1280x800, the 480x260 Tk demo, the broker as `pixelgate`; the mix is
# snapshot (then drop) 30 %, windows 15 %, ping 10 %, caps 5 %, click 15 %,
# type 10 %, OCR of a fresh capture 5 %. Figures:
#   - unloaded: one client, 40 window snapshots in a row (settle on, as agents call it)
#   - open loop: 50 requests/s spread over 64 clients for 60 s, latency from the scheduled time
#   - the same open loop against a broker with no reader connections and one OCR engine
#     (every display call on one connection: the shape before parallel captures)
#   - closed loop: 8, 32 and 64 clients back to back for 30 s each
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
PG_BUILD=${1:-$REPO/build/default}
. "$REPO/tests/integration/lib.sh"
PG_AGENT=pgload
PG_POLICY_JSON='{"version": 1, "clients": {"users": ["pgload"]}, "tokens": {"spool_quota_mb": 256}}'
SECONDS_OPEN=${SECONDS_OPEN:-60}
SECONDS_CLOSED=${SECONDS_CLOSED:-30}
pg_require_root
pg_require_tools Xvfb wish jq python3
trap pg_cleanup EXIT
pg_user pixelgate system
pg_user "$PG_AGENT"
pg_setup_dirs
install -m 0755 "$REPO/tests/load/pgload.py" "$PG_TMP/bin/"
mkdir -p "$PG_TMP/security" && cp "$REPO/tests/security/pgwire.py" "$PG_TMP/security/" && chmod -R a+rX "$PG_TMP/security"
pg_start_xvfb
pg_start_wm
pg_start_app
pg_launch_app "$PG_AGENT" "$PG_TMP/app/input.json" 480x260+560+40 "pixelgate input" # click and type go here
load() { pg_as "$PG_AGENT" python3 "$PG_TMP/bin/pgload.py" --socket "$PG_SOCK" --window-id "$WID" --input-window-id "$IID" "$@"; }
row() { # row LABEL JSON: snapshot p50/p99, all ops' p50, throughput, errors
    jq -r --arg l "$1" '
      def ok(o): (o.outcomes.OK // 0);
      def bad: [.ops[] | (.count - ok(.))] | add;
      "| \($l) | \(.ops.snapshot.p50_ms) | \(.ops.snapshot.p99_ms) | \(.ops.click.p50_ms // "-") | \(.ops.windows.p50_ms) | \(.ops.ping.p50_ms) | \(.throughput_per_s // ((.requests / .seconds) | floor)) | \(bad) | \(.malformed) |"' <<<"$2"
}
broker() { pg_stop_broker; pg_start_broker "$@"; WID=$(pg_as "$PG_AGENT" pixelgate windows --match '^pixelgate demo$' | jq .windows[0].id)
IID=$(pg_as "$PG_AGENT" pixelgate windows --match '^pixelgate input$' | jq .windows[0].id); }

broker
alone=$(load --mode alone --count 40)
open=$(load --mode open --rate 50 --clients 64 --seconds "$SECONDS_OPEN")
c8=$(load --mode closed --clients 8 --seconds "$SECONDS_CLOSED")
c32=$(load --mode closed --clients 32 --seconds "$SECONDS_CLOSED")
c64=$(load --mode closed --clients 64 --seconds "$SECONDS_CLOSED")
broker --display-readers 0 --ocr-engines 1
serial=$(load --mode open --rate 50 --clients 64 --seconds "$SECONDS_OPEN")

echo "| run | snapshot p50 ms | snapshot p99 ms | click p50 ms | windows p50 ms | ping p50 ms | requests/s | not OK | malformed |"
echo "|---|---|---|---|---|---|---|---|---|"
echo "| unloaded (1 client) | $(jq .ops.snapshot.p50_ms <<<"$alone") | $(jq .ops.snapshot.p99_ms <<<"$alone") | - | - | - | - | 0 | 0 |"
row "open loop 50/s, 64 clients" "$open"
row "open loop 50/s, 64 clients, no readers (one display connection)" "$serial"
row "closed loop, 8 clients" "$c8"
row "closed loop, 32 clients" "$c32"
row "closed loop, 64 clients" "$c64"
ratio=$(jq -n --argjson a "$(jq .ops.snapshot.p50_ms <<<"$alone")" --argjson b "$(jq .ops.snapshot.p50_ms <<<"$open")" '($b / $a * 100 | floor) / 100')
echo
echo "window snapshot p50 under the open-loop load / unloaded: ${ratio}x"
echo "not-OK outcomes (open loop): $(jq -c '[.ops | to_entries[] | {(.key): (.value.outcomes | del(.OK))}] | add' <<<"$open")"
