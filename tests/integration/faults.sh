#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The broker under faults and load, end to end: Xvfb + openbox, the Tk app
# (run by the agent), the broker as `pixelgate` on a state directory that is
# a real tmpfs, the client as the agent. Each part checks an outcome, never
# a duration (retries are bounded, and a wait ends on what it waits for):
#   1. a full state disk: every click that reached the app has its record
#      of intent in the audit log (the counts are equal), and the refusal
#      came before the effect;
#   2. 64 parallel `pixelgate run` scripts: each completes or fails BUSY
#      (exit 12) with its message, none says "malformed" or "Broken pipe";
#      against a broker with 2 workers and a short queue BUSY is seen and is
#      the only failure;
#   3. a frozen app (SIGSTOP): input says "not responding" (exit 6) and
#      nothing arrives; after SIGCONT input works again;
#   4. a short soak: 50 mixed requests/s over 64 wire clients for 30 s
#      (tests/load/pgload.py), tokens dropped after use, under a 16 MiB
#      spool quota: no snapshot refused for quota, no malformed answer;
#   5. Xvfb killed and started again on the same display: ping says the
#      display is lost while it is, and once it is back the first requests
#      succeed, with no broker restart.
# About 3 minutes (tests/integration/CMakeLists.txt gives it 10).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
PG_AGENT=pgf-agent
PG_OTHER=pgf-other

pg_require_root
pg_require_tools Xvfb xauth xhost xdpyinfo xprop wish jq runuser useradd openbox python3 mount
STATE_MNT=
faults_cleanup() {
    [ -n "${APP_PID:-}" ] && kill -CONT "$APP_PID" "$(ps -o ppid= -p "$APP_PID" 2>/dev/null | tr -d ' ')" 2>/dev/null
    pg_stop_broker
    [ -n "$STATE_MNT" ] && umount "$STATE_MNT" 2>/dev/null
    pg_cleanup
}
trap faults_cleanup EXIT
pg_user pixelgate system
pg_user "$PG_AGENT"
pg_user "$PG_OTHER"
pg_setup_dirs
# The state directory (audit log and spool) is a small real tmpfs, owned by the broker.
mount -t tmpfs -o "size=8m,mode=0700,uid=$(id -u pixelgate),gid=$(id -g pixelgate)" pgstate "$PG_TMP/state" ||
    pg_die "cannot mount a tmpfs on $PG_TMP/state"
STATE_MNT=$PG_TMP/state
pg_start_xvfb
XVFB_PID=${PG_PIDS[-1]}
pg_start_wm
pg_start_broker
pg_start_app
W='pixelgate demo'
BX=$(pg_state '.press.x + (.press.w / 2 | floor)')
BY=$(pg_state '.press.y + (.press.h / 2 | floor)')
AUDIT=$PG_TMP/state/audit.jsonl
echo "# display $PG_DISPLAY, state on tmpfs $(df -h --output=size "$STATE_MNT" | tail -1 | tr -d ' ')"

intents() { grep -c '"op":"click".*"outcome":"INTENT"' "$AUDIT"; }
# The app's click count once it stopped changing (it handles events at its own pace).
settled_clicks() {
    local a b i
    a=$(pg_state .clicks)
    for i in $(seq 40); do
        sleep 0.25
        b=$(pg_state .clicks)
        [ "$a" = "$b" ] && break
        a=$b
    done
    echo "$a"
}

# ---- 1. a full state disk: record, then act
out=$(pg_as "$PG_AGENT" pixelgate click --window "$W" --at "$BX,$BY")
check "a click with room on the disk is delivered" test "$(jq .clicked.count <<<"$out")" = 1
c0=$(settled_clicks)
i0=$(intents)
dd if=/dev/zero of="$STATE_MNT/filler" bs=64k status=none 2>/dev/null # until ENOSPC
check "the state filesystem is full" test "$(df --output=avail -B1 "$STATE_MNT" | tail -1 | tr -d ' ')" -lt 65536
# Room reserved ahead lets some clicks through on record; then it refuses. One connection, 900 clicks at most.
for i in $(seq 900); do echo "click --window '$W' --at $BX,$BY"; done >"$PG_TMP/clicks.txt"
chmod 0644 "$PG_TMP/clicks.txt"
pg_as "$PG_AGENT" pixelgate run "$PG_TMP/clicks.txt" >"$PG_TMP/clicks.out" 2>"$PG_TMP/clicks.err"
rc=$?
check "with the disk full the clicks are refused (exit 9)" test "$rc" = 9
check "the refusal came before acting" grep -q "before acting" "$PG_TMP/clicks.err"
c1=$(settled_clicks)
i1=$(intents)
echo "# full disk: $((c1 - c0)) clicks reached the app, $((i1 - i0)) records of intent, then: $(jq -r .error.message "$PG_TMP/clicks.err" | cut -c1-120)"
check "effects equal records of intent ($((c1 - c0)) = $((i1 - i0)))" test "$((c1 - c0))" = "$((i1 - i0))"
rm -f "$STATE_MNT/filler"
out=$(pg_as "$PG_AGENT" pixelgate click --window "$W" --at "$BX,$BY")
check "with room again a click is delivered" test "$(jq .clicked.count <<<"$out")" = 1
check "the audit chain verifies after the full disk" "$PG_TMP/bin/pixelgated" --verify-audit "$AUDIT" >/dev/null

# ---- 2. 64 parallel scripts: busy is busy
parallel_scripts() { # $1: label; leaves rc.N, err.N in $PG_TMP/par
    rm -rf "$PG_TMP/par"
    mkdir -p "$PG_TMP/par"
    chmod 0777 "$PG_TMP/par"
    printf '%s\n' "snapshot --window '$W' --max-size 200x120" 'info $last' "windows --match '$W'" 'drop $last' \
        >"$PG_TMP/par/script.txt"
    chmod 0644 "$PG_TMP/par/script.txt"
    local i pids=()
    for i in $(seq 64); do
        (pg_as "$PG_AGENT" pixelgate run "$PG_TMP/par/script.txt" >"$PG_TMP/par/out.$i" 2>"$PG_TMP/par/err.$i"
         echo $? >"$PG_TMP/par/rc.$i") &
        pids+=($!)
    done
    wait "${pids[@]}" # these only: Xvfb and the app run in the background too
    local ok=0 busy=0 other=0
    for i in $(seq 64); do
        case "$(cat "$PG_TMP/par/rc.$i")" in
        0) ok=$((ok + 1)) ;;
        12) grep -q '"code":"BUSY"' "$PG_TMP/par/err.$i" && busy=$((busy + 1)) || other=$((other + 1)) ;;
        *) other=$((other + 1)); echo "# $1 script $i: exit $(cat "$PG_TMP/par/rc.$i"): $(head -c 300 "$PG_TMP/par/err.$i")" ;;
        esac
    done
    echo "# $1: $ok completed, $busy BUSY, $other otherwise"
    PAR_OK=$ok PAR_BUSY=$busy PAR_OTHER=$other
}
parallel_scripts "64 scripts, default limits"
check "64 parallel scripts: each completes or is BUSY" test "$PAR_OTHER" = 0
check "none reports a malformed response or a broken pipe" \
    sh -c "! grep -l -e 'malformed' -e 'Broken pipe' '$PG_TMP'/par/err.* >/dev/null 2>&1"
pg_stop_broker
pg_start_broker --max-conns 2 --queue 2 --queue-wait 300
parallel_scripts "64 scripts, 2 workers and a queue of 2"
check "with 2 workers BUSY is answered" test "$PAR_BUSY" -gt 0
check "and every failure is BUSY with its message" test "$PAR_OTHER" = 0
check "none reports a malformed response or a broken pipe" \
    sh -c "! grep -l -e 'malformed' -e 'Broken pipe' '$PG_TMP'/par/err.* >/dev/null 2>&1"
check "the busy message says what to do" grep -q 'retry' "$(grep -l BUSY "$PG_TMP"/par/err.* | head -1)"
pg_stop_broker
pg_start_broker

# ---- 3. a frozen app (Tk answers _NET_WM_PING without listing it: the broker knows it once it answered)
APP_PID=$(pg_state .pid)
out=$(pg_as "$PG_AGENT" pixelgate click --window "$W" --at "$BX,$BY")
check "a click before the freeze finds the app responding" test "$(jq .responding <<<"$out")" = true
c0=$(settled_clicks)
kill -STOP "$APP_PID"
pg_as "$PG_AGENT" pixelgate click --window "$W" --at "$BX,$BY" >/dev/null 2>"$PG_TMP/frozen.err"
rc=$?
check "a click into a frozen app exits 6" test "$rc" = 6
check "and says the window is not responding" grep -q "not responding" "$PG_TMP/frozen.err"
out=$(pg_as "$PG_AGENT" pixelgate wait-stable --window "$W" --interval 0.1 --timeout 5)
check "wait-stable on a frozen app says it is not responding" test "$(jq .responding <<<"$out")" = false
kill -CONT "$APP_PID"
# runuser stops itself when its child stops (as su does for job control): wake it too, or it never reaps the app.
kill -CONT "$(ps -o ppid= -p "$APP_PID" | tr -d ' ')" 2>/dev/null
check "nothing reached the frozen app" test "$(settled_clicks)" = "$c0"
out=$(pg_as "$PG_AGENT" pixelgate click --window "$W" --at "$BX,$BY")
check "after SIGCONT a click is delivered, and responding" test "$(jq .responding <<<"$out")" = true
check "the app counted it" test "$(settled_clicks)" = "$((c0 + 1))"

# ---- 4. a short soak: drop after use keeps the quota free
pg_write_policy "$(cat <<JSON
{"version": 1,
 "clients": {"users": ["$PG_AGENT", "$PG_OTHER"]},
 "expose_pixels": "analyze-only",
 "tokens": {"spool_quota_mb": 16},
 "capture": {"deny_windows": ["^secret vault\$"]}}
JSON
)"
kill -HUP "$PG_BROKER_PID"
for i in $(seq 40); do grep -q 'policy.reload' "$AUDIT" && break; sleep 0.1; done
install -m 0755 "$PG_ROOT/tests/load/pgload.py" "$PG_TMP/bin/"
mkdir -p "$PG_TMP/security" && cp "$PG_ROOT/tests/security/pgwire.py" "$PG_TMP/security/" && chmod -R a+rX "$PG_TMP/security"
pg_launch_app "$PG_AGENT" "$PG_TMP/app/input.json" 480x260+560+40 "pixelgate input" # input goes here: it repaints
WID=$(pg_as "$PG_AGENT" pixelgate windows --match "^$W\$" | jq '.windows[0].id')
IID=$(pg_as "$PG_AGENT" pixelgate windows --match '^pixelgate input$' | jq '.windows[0].id')
rss0=$(awk '/VmRSS/ {print $2}' "/proc/$PG_BROKER_PID/status")
pg_as "$PG_AGENT" python3 "$PG_TMP/bin/pgload.py" --socket "$PG_SOCK" --window-id "$WID" --input-window-id "$IID" \
    --mode open --rate 50 --clients 64 --seconds 30 --strict >"$PG_TMP/soak.json"
rc=$?
rss1=$(awk '/VmRSS/ {print $2}' "/proc/$PG_BROKER_PID/status")
echo "# soak: $(jq -c '{requests, malformed, snapshot: .ops.snapshot | {count, outcomes, p50_ms, p99_ms}}' "$PG_TMP/soak.json"); broker RSS ${rss0} -> ${rss1} kB"
check "soak: no malformed answer, no snapshot refused for quota" test "$rc" = 0
check "soak: snapshots were answered" test "$(jq '.ops.snapshot.outcomes.OK // 0' "$PG_TMP/soak.json")" -gt 100
check "soak: nothing was malformed" test "$(jq .malformed "$PG_TMP/soak.json")" = 0

# ---- 5. the display killed and started again
BROKER0=$PG_BROKER_PID
kill -KILL "$XVFB_PID"
wait "$XVFB_PID" 2>/dev/null
state=
for i in $(seq 40); do
    state=$(pg_as "$PG_AGENT" pixelgate ping | jq -r .display.state)
    [ "$state" = lost ] && break
    sleep 0.25
done
check "ping reports the display lost while it is" test "$state" = lost
pg_as "$PG_AGENT" pixelgate windows >/dev/null 2>"$PG_TMP/lost.err"
rc=$?
check "a request meanwhile is BROKER_UNREACHABLE (exit 5)" test "$rc" = 5
check "with the reason" grep -q -e 'display was lost' -e 'X connection lost' "$PG_TMP/lost.err"
rm -f "/tmp/.X11-unix/X${PG_DISPLAY#:}" "/tmp/.X${PG_DISPLAY#:}-lock"
Xvfb "$PG_DISPLAY" -screen 0 "${PG_SCREEN:-1280x800x24}" -nolisten tcp -noreset -auth "$XAUTHORITY" \
    >"$PG_TMP/xvfb2.log" 2>&1 &
PG_PIDS+=($!)
for i in $(seq 100); do DISPLAY=$PG_DISPLAY xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
DISPLAY=$PG_DISPLAY xhost +SI:localuser:pixelgate >/dev/null
DISPLAY=$PG_DISPLAY xhost +SI:localuser:"$PG_AGENT" >/dev/null
pg_start_app
n=0
for i in $(seq 60); do # bounded retries: the broker reconnects with backoff (at most 2 s apart)
    out=$(pg_as "$PG_AGENT" pixelgate windows --match "^$W\$" 2>/dev/null) && [ "$(jq .count <<<"$out")" = 1 ] && break
    n=$i
    sleep 0.25
done
echo "# display back: the broker answered after $n retries"
check "after the display's return the window is listed" test "$(jq .count <<<"$out")" = 1
out=$(pg_as "$PG_AGENT" pixelgate snapshot --window "$W")
check "the next snapshot succeeds" test "$(jq -r .token <<<"$out" | cut -c1-4)" = "cap:"
BX=$(pg_state '.press.x + (.press.w / 2 | floor)')
BY=$(pg_state '.press.y + (.press.h / 2 | floor)')
out=$(pg_as "$PG_AGENT" pixelgate click --window "$W" --at "$BX,$BY")
check "and a click succeeds" test "$(jq .clicked.count <<<"$out")" = 1
check "the new app counted it" test "$(settled_clicks)" = 1
out=$(pg_as "$PG_AGENT" pixelgate ping)
check "ping reports the display up again" test "$(jq -r .display.state <<<"$out")" = up
check "and one reconnect at least" test "$(jq .display.reconnects <<<"$out")" -ge 1
check "no broker restart (pid $BROKER0)" test "$(pgrep -u pixelgate -f "pixelgated --socket $PG_SOCK" | head -1)" = "$BROKER0"

pg_summary
