#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Held input ends (issue 27, finding N4 of the 2026-12-07 review), as found:
# an agent holds ctrl with key-down inside one `pixelgate run` script and
# keeps the connection alive with `cursor` (which reads, it sends no input).
# Before the limits every other user's input was BUSY for as long as the
# script lived and the person's keystrokes arrived with ctrl down. Now the
# broker lets go after input.hold_idle_s without input from the holder,
# after input.hold_max_s whatever it sends, and when an approver says
# key-up --all; each release is audited with why, and the X server's
# modifier state shows ctrl up again. Real broker as system user
# `pixelgate`, real Xvfb and Tk apps of two users.
set -uo pipefail
. "$(dirname "$0")/../integration/lib.sh"
PGH=${PGH_USERS:-pgh}
PG_AGENT=$PGH-agent
PG_OTHER=$PGH-other
APPROVER=$PGH-approver
IDLE_S=2
MAX_S=6
pg_require_root
pg_require_tools Xvfb xauth xhost xdpyinfo wish jq runuser useradd python3
trap pg_cleanup EXIT
pg_user pixelgate system
for u in "$PG_AGENT" "$PG_OTHER" "$APPROVER"; do pg_user "$u"; done
PG_POLICY_JSON=$(cat <<JSON
{"version": 1,
 "clients": {"users": ["$PG_AGENT", "$PG_OTHER"]},
 "approvers": ["$APPROVER"],
 "expose_pixels": "analyze-only",
 "input": {"hold_idle_s": $IDLE_S, "hold_max_s": $MAX_S}}
JSON
)
pg_setup_dirs
pg_start_xvfb
DISPLAY=$PG_DISPLAY xhost +SI:localuser:"$PG_OTHER" >/dev/null
pg_start_broker
pg_start_app
pg_launch_app "$PG_OTHER" "$PG_TMP/app/other.json" 300x200+600+40 "other user app"
AUDIT=$PG_TMP/state/audit.jsonl
audited() { jq -s -e "$1" "$AUDIT" >/dev/null; }

# The X server's modifier state (XQueryPointer's mask), read as root with the
# test's own cookie: 4 is ControlMask.
x_mask() {
    DISPLAY=$PG_DISPLAY XAUTHORITY=$XAUTHORITY python3 - <<'PY'
import ctypes, ctypes.util
x = ctypes.CDLL(ctypes.util.find_library("X11"))
x.XOpenDisplay.restype = ctypes.c_void_p
x.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
x.XDefaultRootWindow.restype = ctypes.c_ulong
d = x.XOpenDisplay(None)
if not d:
    raise SystemExit("cannot open the display")
root = x.XDefaultRootWindow(d)
w1, w2 = ctypes.c_ulong(), ctypes.c_ulong()
i = [ctypes.c_int() for _ in range(4)]
m = ctypes.c_uint()
x.XQueryPointer.argtypes = [ctypes.c_void_p, ctypes.c_ulong] + [ctypes.c_void_p] * 7
x.XQueryPointer(d, root, ctypes.byref(w1), ctypes.byref(w2), *[ctypes.byref(v) for v in i], ctypes.byref(m))
print(m.value)
PY
}
ctrl_down() { [ $(($(x_mask) & 4)) != 0 ]; }

# The other user's key press: 0 when it went through, 12 (BUSY) while held.
other_key() { pg_as "$PG_OTHER" pixelgate key --window '^other user app$' shift >/dev/null 2>&1; }

# wait_until SECONDS CMD...: polls CMD until it succeeds; 1 when the bound passed.
wait_until() {
    local bound=$1 t0=$SECONDS; shift
    until "$@"; do
        [ $((SECONDS - t0)) -ge "$bound" ] && return 1
        sleep 0.1
    done
}

# start_hold NAME STEPS...: a `pixelgate run` script of the agent's that
# holds ctrl, then runs STEPS; waits until ctrl is down on the display.
start_hold() {
    local name=$1; shift
    { echo "key-down --window '^pixelgate demo\$' ctrl"; printf '%s\n' "$@"; } >"$PG_TMP/$name.txt"
    chmod 0644 "$PG_TMP/$name.txt"
    pg_as "$PG_AGENT" pixelgate run "$PG_TMP/$name.txt" >"$PG_TMP/$name.out" 2>&1 &
    HOLDER=$!
    wait_until 30 ctrl_down
}
still_running() { kill -0 "$HOLDER" 2>/dev/null; }

# --- kept alive with reads only: let go after the idle limit
keepalive=()
for _ in $(seq 30); do keepalive+=("sleep 1" "cursor"); done
check "setup: the agent's script holds ctrl down on the display" start_hold idle "${keepalive[@]}"
other_key
check "while it is held, the other user's input is refused BUSY (exit 12)" test $? = 12
t0=$SECONDS
check "the hold ends by itself although the script keeps its connection alive with cursor" wait_until 30 other_key
check "...within the idle limit and the watcher's half second (bound: 15 s)" test $((SECONDS - t0)) -le 15
check "...while the holder's script still runs" still_running
check "...and the X server shows ctrl up again" wait_until 10 eval '! ctrl_down'
check "...and the release is audited as the holder's, saying why" \
    audited "map(select(.op==\"release_held\" and .principal.user==\"$PG_AGENT\" and (.disposition.detail | test(\"ctrl.*hold_idle_s\")))) | length == 1"
kill "$HOLDER" 2>/dev/null; wait "$HOLDER" 2>/dev/null

# --- kept alive with input: let go at the total limit, whatever it sends
busy=()
for _ in $(seq 60); do busy+=("sleep 0.5" "move --window '^pixelgate demo\$' --at 20,20"); done
check "setup: the agent's script holds ctrl and keeps sending input" start_hold busy "${busy[@]}"
t0=$SECONDS
check "the hold ends at the total limit although the holder sends input every half second" wait_until 40 other_key
check "...not before it ($MAX_S s from the first press)" test $((SECONDS - t0)) -ge $((MAX_S - 2))
check "...while the holder's script still runs" still_running
check "...and the X server shows ctrl up again" wait_until 10 eval '! ctrl_down'
check "...and the release is audited, naming the total limit" \
    audited 'map(select(.op=="release_held" and (.disposition.detail | test("hold_max_s")))) | length == 1'
kill "$HOLDER" 2>/dev/null; wait "$HOLDER" 2>/dev/null

# --- a person ends it: an approver's key-up --all; the other agent cannot
check "setup: the agent's script holds ctrl again" start_hold approver "${busy[@]}"
pg_as "$PG_OTHER" pixelgate key-up --all >/dev/null 2>&1
check "another agent's key-up --all is refused BUSY (exit 12)" test $? = 12
check "...and ctrl stays down" ctrl_down
out=$(pg_as "$APPROVER" pixelgate key-up --all 2>&1)
check "an approver's key-up --all ends it at once" test "$(jq -r '.released | join(",")' <<<"$out")" = ctrl
check "...the X server shows ctrl up" wait_until 10 eval '! ctrl_down'
check "...the other user's input goes through again" other_key
check "...and the release is audited naming the approver" \
    audited "map(select(.op==\"release_held\" and (.disposition.detail | test(\"by $APPROVER\")))) | length == 1"
kill "$HOLDER" 2>/dev/null; wait "$HOLDER" 2>/dev/null

pg_summary
