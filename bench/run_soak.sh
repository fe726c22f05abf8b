#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run_soak.sh - the long soak: open loop at 50 mixed requests/s over 64 wire
# clients (tests/load/pgload.py), every token dropped after use, the policy's
# default token lifetime (1 h) and quota, for MINUTES (default 30). Samples
# the broker's RSS every 10 s. Not a test and not in CI: a benchmark whose
# figures go into docs/performance.md.
#   sudo bash bench/run_soak.sh [build-dir]          MINUTES=30 WARMUP=5
# Prints the RSS after the warm-up, at the end, the range after the warm-up,
# and whether any snapshot was refused for quota or any answer was malformed.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
PG_BUILD=${1:-$REPO/build/default}
. "$REPO/tests/integration/lib.sh"
PG_AGENT=pgsoak
PG_POLICY_JSON='{"version": 1, "clients": {"users": ["pgsoak"]}}'
MINUTES=${MINUTES:-30}
WARMUP=${WARMUP:-5}
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
pg_start_broker
pg_start_app
pg_launch_app "$PG_AGENT" "$PG_TMP/app/input.json" 480x260+560+40 "pixelgate input" # click and type go here
WID=$(pg_as "$PG_AGENT" pixelgate windows --match '^pixelgate demo$' | jq .windows[0].id)
IID=$(pg_as "$PG_AGENT" pixelgate windows --match '^pixelgate input$' | jq .windows[0].id)
OUT=${OUT:-/tmp/pixelgate-soak.$$}
mkdir -p "$OUT"
pg_as "$PG_AGENT" python3 "$PG_TMP/bin/pgload.py" --socket "$PG_SOCK" --window-id "$WID" --input-window-id "$IID" --mode open --rate 50 \
    --clients 64 --seconds $((MINUTES * 60)) >"$OUT/load.json" &
LOAD=$!
echo "t_s,rss_kb,tokens_held" >"$OUT/rss.csv"
t0=$(date +%s)
while kill -0 "$LOAD" 2>/dev/null; do
    t=$(($(date +%s) - t0))
    rss=$(awk '/VmRSS/ {print $2}' "/proc/$PG_BROKER_PID/status")
    echo "$t,$rss" >>"$OUT/rss.csv"
    sleep 10
done
wait "$LOAD"
python3 - "$OUT/rss.csv" "$WARMUP" "$OUT/load.json" <<'PY'
import csv, json, sys
rows = [(int(r["t_s"]), int(r["rss_kb"])) for r in csv.DictReader(open(sys.argv[1]))]
warm = int(sys.argv[2]) * 60
after = [kb for t, kb in rows if t >= warm]
load = json.load(open(sys.argv[3]))
snap = load["ops"]["snapshot"]
quota = sum(v for k, v in load["refusals"].items() if "quota" in v) if False else \
    sum(1 for k, v in load["refusals"].items() if "quota" in v)
print("samples: %d over %d s" % (len(rows), rows[-1][0] if rows else 0))
print("RSS at start %.1f MB, after %d min warm-up %.1f MB, at the end %.1f MB" %
      (rows[0][1] / 1024, warm // 60, after[0] / 1024, after[-1] / 1024))
print("RSS range after warm-up: %.1f MB (min %.1f, max %.1f); end - warm-up: %+.1f MB" %
      ((max(after) - min(after)) / 1024, min(after) / 1024, max(after) / 1024, (after[-1] - after[0]) / 1024))
print("requests: %d; snapshots %d, outcomes %s; snapshot p50 %s ms, p99 %s ms" %
      (load["requests"], snap["count"], snap["outcomes"], snap["p50_ms"], snap["p99_ms"]))
print("malformed answers: %d; kinds of quota refusal: %d" % (load["malformed"], quota))
PY
echo "raw: $OUT/rss.csv $OUT/load.json"
