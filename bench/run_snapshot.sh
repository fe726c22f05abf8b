#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run_snapshot.sh - how fast is a snapshot, next to what a user would run instead?
#   sudo bash bench/run_snapshot.sh [build-dir]
# One run, side by side, on a 1920x1080 Xvfb with an 800x600 Tk window:
#   - broker round trips over one connection (ping; snapshot of window / screen)
#   - the raw XShmGetImage floor and XGetImage (bench_xshm)
#   - whole process, as the agent runs it: pixelgate snapshot vs xwd vs ImageMagick import
# Prints a markdown table with ratios. Not a test: nothing here passes or fails on speed.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
PG_BUILD=${1:-$REPO/build/default}
. "$REPO/tests/integration/lib.sh"
PG_AGENT=pgbench
PG_SCREEN=1920x1080x24
PG_APP_GEOMETRY=800x600+0+0
# Hundreds of full-screen captures: a spool quota to match, short-lived tokens.
PG_POLICY_JSON='{"version": 1, "clients": {"users": ["pgbench"]}, "tokens": {"ttl_s": 120, "spool_quota_mb": 16384}}'
pg_require_root
pg_require_tools hyperfine xwd import jq
[ -x "$PG_BUILD/bench/bench_broker" ] || pg_die "build first: cmake --build $PG_BUILD --target bench_broker bench_xshm"
trap pg_cleanup EXIT
pg_user pixelgate system
pg_user "$PG_AGENT"
pg_setup_dirs
install -m 0755 "$PG_BUILD/bench/bench_broker" "$PG_BUILD/bench/bench_xshm" "$PG_TMP/bin/"
pg_start_xvfb
pg_start_broker --spool-quota 8192 --memory-budget 6144 --token-ttl 300
pg_start_app
WID=$(pg_as "$PG_AGENT" pixelgate windows --match '^pixelgate demo$' | jq .windows[0].id)
N=${N:-200}

as_agent() { pg_as "$PG_AGENT" env DISPLAY="$PG_DISPLAY" "$@"; }
rt() { as_agent bench_broker "$PG_SOCK" "$N" "$@" | jq .median_ms; }
ping_ms=$(rt ping)
snapw_ms=$(rt snapshot "{\"id\":$WID,\"settle\":false}")
snaps_ms=$(rt snapshot '{"screen":true}')
read -r shmw_ms getw_ms < <(as_agent bench_xshm "$N" "$WID" | jq -r '"\(.shm_median_ms) \(.getimage_median_ms)"')
read -r shms_ms gets_ms < <(as_agent bench_xshm "$N" | jq -r '"\(.shm_median_ms) \(.getimage_median_ms)"')

hf() { # hf NAME CMD -> median ms of the whole process
    as_agent hyperfine -N --warmup 3 --runs 30 --export-json "/tmp/hf.$$.json" "$2" >/dev/null 2>&1 ||
        as_agent hyperfine --warmup 3 --runs 30 --export-json "/tmp/hf.$$.json" "$2" >/dev/null 2>&1
    jq '.results[0].median * 1000' "/tmp/hf.$$.json"
    rm -f "/tmp/hf.$$.json"
}
pgw=$(hf pg "pixelgate snapshot --id $WID --no-settle")
pgs=$(hf pg "pixelgate snapshot --screen")
xwdw=$(hf xwd "xwd -id $WID -silent -out /dev/null")
xwds=$(hf xwd "xwd -root -silent -out /dev/null")
impw=$(hf import "import -window $WID /tmp/pgbench.$$.png")
imps=$(hf import "import -window root /tmp/pgbench.$$.png")
rm -f /tmp/pgbench.$$.png

r() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1fx", a/b}'; }
f() { awk -v a="$1" 'BEGIN{printf "%.2f", a}'; }
echo "Snapshot benchmark, $(date -u +%F), $(nproc) cores, Xvfb 1920x1080x24, Tk window 800x600, N=$N (medians, ms)"
echo
echo "| what | 800x600 window | 1920x1080 screen |"
echo "|---|---|---|"
echo "| broker ping round trip (one connection) | $(f "$ping_ms") | |"
echo "| broker snapshot round trip (capture + convert + sha256, kept in memory) | $(f "$snapw_ms") | $(f "$snaps_ms") |"
echo "| floor: XShmGetImage, no conversion | $(f "$shmw_ms") | $(f "$shms_ms") |"
echo "| XGetImage, no conversion | $(f "$getw_ms") | $(f "$gets_ms") |"
echo "| whole process: \`pixelgate snapshot\` | $(f "$pgw") | $(f "$pgs") |"
echo "| whole process: \`xwd\` to /dev/null | $(f "$xwdw") ($(r "$xwdw" "$pgw") pixelgate) | $(f "$xwds") ($(r "$xwds" "$pgs") pixelgate) |"
echo "| whole process: ImageMagick \`import\` to PNG | $(f "$impw") ($(r "$impw" "$pgw") pixelgate) | $(f "$imps") ($(r "$imps" "$pgs") pixelgate) |"
