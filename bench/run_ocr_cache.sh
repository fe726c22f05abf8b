#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run_ocr_cache.sh - text-anchored steps with the OCR cache against without it.
#   sudo bash bench/run_ocr_cache.sh [build-dir]     (RUNS=21 WARMUP=3 by default)
# Two brokers of the same build on one Xvfb (1280x800x24, no window manager)
# and one Tk order form (tests/apps/pg_order.tcl, the Customer entry focused,
# a caret that does not blink; 410x472 with its menu bar on these machines, the
# issue's "415x601 form", whose size it prints): A keeps OCR
# results per user (the default), B is started with --no-ocr-cache and reads
# every time as the broker did before the cache. Whole process, as the
# unprivileged user pgbench from one shell of that user, pairs interleaved
# A B A B (bench/h2h_time.py: medians with quartiles), for `click --text`,
# `wait-for --text` and `layout`:
#   - unchanged: the window as it was at the last read;
#   - one entry changed: before every run (untimed, bench/h2h_time.py's
#     H2H_EACH) the Customer entry gets a value never shown before
#     (`pixelgate type --replace 'Order NNNN'`, ~4 % of the window's rows), then
#     0.3 s for the repaint and the broker's settle interval.
# Setup through tests/integration/lib.sh, as bench/h2h does. Not a test:
# nothing here passes or fails on speed; docs/performance.md shows the table.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
PG_BUILD=${1:-$REPO/build/default}
RUNS=${RUNS:-21}
WARMUP=${WARMUP:-3}
. "$REPO/tests/integration/lib.sh"
PG_AGENT=pgbench
PG_POLICY_JSON='{"version": 1, "clients": {"users": ["pgbench"]}, "tokens": {"ttl_s": 300, "spool_quota_mb": 4096}}'
pg_require_root
pg_require_tools wish jq python3 xdpyinfo
BROKER_B=
# pg_cleanup stops the broker of PG_BROKER_PID (A); B is stopped here first.
stop_all() { [ -n "$BROKER_B" ] && PG_BROKER_PID=$BROKER_B pg_stop_broker; PG_BROKER_PID=${BROKER_A:-${PG_BROKER_PID:-}} pg_cleanup; }
trap stop_all EXIT
pg_user pixelgate system
pg_user "$PG_AGENT"
pg_setup_dirs
install -m 0755 "$REPO/bench/h2h_time.py" "$PG_TMP/bin/"
install -m 0644 "$REPO/tests/apps/pg_order.tcl" "$PG_TMP/app/"
pg_start_xvfb
pg_start_broker
SOCK_A=$PG_SOCK BROKER_A=$PG_BROKER_PID
# B: the same binary without the cache, its own socket and state.
mkdir -p "$PG_TMP/state-b" && chown pixelgate: "$PG_TMP/state-b" && chmod 0700 "$PG_TMP/state-b"
PG_SOCK=$PG_TMP/run/nocache.sock
pg_start_broker --state-dir "$PG_TMP/state-b" --no-ocr-cache
SOCK_B=$PG_SOCK BROKER_B=$PG_BROKER_PID
PG_SOCK=$SOCK_A PG_BROKER_PID=$BROKER_A
as_agent() { pg_as "$PG_AGENT" env DISPLAY="$PG_DISPLAY" HOME="$PG_TMP/home" "$@"; }
mkdir -p "$PG_TMP/home" && chown "$PG_AGENT" "$PG_TMP/home"
as_agent wish "$PG_TMP/app/pg_order.tcl" -geometry +40+40 >/dev/null 2>&1 &
PG_PIDS+=($!)
for _ in $(seq 100); do
    FORM=$(as_agent pixelgate windows --match '^Order desk$' 2>/dev/null | jq -r '.windows[0].id // empty')
    [ -n "$FORM" ] && break
    sleep 0.1
done
[ -n "$FORM" ] || pg_die "the order form did not appear"
SIZE=$(as_agent pixelgate windows --match '^Order desk$' | jq -r '.windows[0] | "\(.width)x\(.height)"')
W=$PG_TMP/home
# The hook: a value of the Customer entry never shown before, through broker A
# (input is the X server's, both brokers see it), then time to repaint.
cat >"$W/change.sh" <<EOF
n=\$(( \$(cat $W/n 2>/dev/null || echo 0) + 1 )); echo \$n >$W/n
pixelgate type --id $FORM --replace "\$(printf 'Order %04d' \$n)" >/dev/null && sleep 0.3
EOF
chown -R "$PG_AGENT" "$W"
B="env PIXELGATE_SOCKET=$SOCK_B pixelgate"
cmds=("click --text:click --id $FORM --text Customer:"
    "wait-for --text:wait-for --id $FORM --text Customer: --timeout 5"
    "layout:layout --id $FORM")
rows_for() { # rows_for LABEL: the h2h_time.py triples
    local c
    for c in "${cmds[@]}"; do
        printf '%s\0%s\0%s\0' "${c%%:*}, $1" "pixelgate ${c#*:}" "$B ${c#*:}"
    done
}
mapfile -d '' unchanged < <(rows_for "window unchanged since the last read")
mapfile -d '' changed < <(rows_for "one entry's text changed before each run")
out=$(as_agent h2h_time.py "$RUNS" "$WARMUP" "${unchanged[@]}") || pg_die "h2h_time.py failed"
out+=$'\n'$(as_agent env H2H_EACH="sh $W/change.sh" h2h_time.py "$RUNS" "$WARMUP" "${changed[@]}") ||
    pg_die "h2h_time.py failed"
f() { awk -v a="$1" 'BEGIN{printf "%.1f", a}'; }
echo "run_ocr_cache, $(date -u +%F), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "the order form: $SIZE; $RUNS interleaved pairs after $WARMUP warm-up rounds, medians (quartiles) in ms"
echo "pixelgate: $(as_agent pixelgate --version 2>&1 | head -1) ($PG_BUILD); B = pixelgated --no-ocr-cache"
echo "command lines, A (cache) / B (no cache):"
for c in "${cmds[@]}"; do echo "  pixelgate ${c#*:} / PIXELGATE_SOCKET=B pixelgate ${c#*:}"; done
echo
echo "| step | with the cache | without (today) | cache / today |"
echo "|---|---|---|---|"
while read -r row; do
    echo "| $(jq -r .name <<<"$row") | $(f "$(jq .a_ms <<<"$row")") ($(f "$(jq .a_q1 <<<"$row")")-$(f "$(jq .a_q3 <<<"$row")")) | $(f "$(jq .b_ms <<<"$row")") ($(f "$(jq .b_q1 <<<"$row")")-$(f "$(jq .b_q3 <<<"$row")")) | $(awk -v r="$(jq .ratio <<<"$row")" 'BEGIN{printf "%.2fx", 1 / r}') |"
done <<<"$out"
