#!/bin/bash
# SPDX-License-Identifier: MIT
# socket_activation.sh - pixelgate.socket + Type=notify, and the display
# from logind, without systemd as PID 1 (issue 34). A supervisor
# (supervisor.py) holds the socket and a notify socket and starts pixelgated
# as `pixelgate` with LISTEN_FDS and NOTIFY_SOCKET, as systemd would:
#   READY=1 comes only once the socket answers, the policy is loaded and the
#     display is open (or, with no display, once its absence is recorded);
#     a broker with a bad policy never says READY;
#   restarted under load (4 closed-loop clients), no request fails: the
#     old broker drains what it accepted within a bound, and connections that
#     arrive meanwhile wait in the socket's backlog for the next broker;
#   with no display named, the broker asks logind (python3-dbusmock's logind
#     template on a private system bus) for seat0's active x11 session, and
#     says why not for a Wayland session or none;
#   systemd-analyze verify passes pixelgate.service and pixelgate.socket.
set -u
. "$(dirname "$0")/../integration/lib.sh"
pg_require_root
pg_require_tools Xvfb xauth xdpyinfo jq dbus-daemon systemd-analyze
PY=/usr/bin/python3 # Debian's: python3-dbusmock and python3-dbus live there
"$PY" -c 'import dbusmock, dbus' 2>/dev/null || pg_die "python3-dbusmock is missing (run scripts/deps.sh)"
trap pg_cleanup EXIT

pg_user pixelgate system
pg_user "$PG_AGENT"
pg_setup_dirs
pg_start_xvfb
HERE=$PG_ROOT/tests/systemd
SUP_IN=$PG_TMP/sup.in
SUP_OUT=$PG_TMP/sup.out
mkfifo "$SUP_IN"

# supervise ARGS...: a supervisor holding $PG_SOCK, fed commands through $SUP_IN.
# ENV... are the broker's whole environment (the supervisor adds LISTEN_* and NOTIFY_SOCKET).
supervise() {
    local envs=()
    while [[ "${1:-}" == *=* ]]; do envs+=("$1"); shift; done
    MARK=0
    /usr/bin/env -i "${envs[@]}" "$PY" "$HERE/supervisor.py" "$PG_SOCK" "$PG_TMP/run/notify" pixelgate "$@" \
        <"$SUP_IN" >"$SUP_OUT" 2>&1 &
    SUP_PID=$!
    PG_PIDS+=($SUP_PID)
    exec {SUP_FD}>"$SUP_IN"
    wait_line '^HOLDING' 10 || pg_die "the supervisor did not start: $(cat "$SUP_OUT")"
}
say() { echo "$1" >&"$SUP_FD"; }
# wait_line REGEX SECONDS: true once the supervisor printed a matching line (new since the last mark).
MARK=0
wait_line() {
    local i
    for i in $(seq $(($2 * 10))); do
        tail -n +$((MARK + 1)) "$SUP_OUT" | grep -qE "$1" && return 0
        sleep 0.1
    done
    return 1
}
mark() { MARK=$(wc -l <"$SUP_OUT"); }
last() { tail -n +$((MARK + 1)) "$SUP_OUT" | grep -E "$1" | tail -1; }
unsupervise() {
    say quit
    exec {SUP_FD}>&-
    wait "$SUP_PID" 2>/dev/null
}
BROKER=("$PG_TMP/bin/pixelgated" --foreground --socket "$PG_SOCK" --state-dir "$PG_TMP/state" --policy "$PG_POLICY")

# --- READY=1 only when it is true
supervise PATH=/usr/bin:/bin DISPLAY="$PG_DISPLAY" "${BROKER[@]}"
mark; say start
wait_line '^(READY |NO-READY|EXIT)' 30
check "READY=1 arrives" bash -c '[[ "$1" == READY* ]]' _ "$(last '^(READY |NO-READY|EXIT)')"
check "... and at that moment the socket answers (a ping on it is served)" bash -c '[ "$1" = "READY-PING ok" ]' _ \
    "$(wait_line '^READY-PING' 10; last '^READY-PING')"
caps=$(pg_as "$PG_AGENT" env PIXELGATE_SOCKET="$PG_SOCK" pixelgate caps)
check "... with the policy loaded and the display open (caps: display up)" \
    jq -e '.display_state.state == "up"' <<<"${caps:-null}"

# --- restart under load: no request lost
rm -f "$PG_TMP/stop-load"
pg_as_direct "$PG_AGENT" "$PY" "$HERE/load_ping.py" "$PG_SOCK" "$PG_TMP/stop-load" >"$PG_TMP/load.out" 2>&1 &
LOAD_PID=$!
for i in $(seq 50); do [ -s "$PG_TMP/state/audit.jsonl" ] && break; sleep 0.1; done
sleep 1 # (load runs for a while before the restart: a measured quantity, not a wait for a condition)
mark; say stop
check "the old broker exits after draining, within 10 s" wait_line '^EXIT' 15
drain=$(last '^EXIT' | awk '{print $3}')
check "... (it took ${drain:-?} ms, exit code $(last '^EXIT' | awk '{print $2}'))" bash -c '[ -n "$1" ] && [ "$1" -lt 10000 ]' _ "$drain"
mark; say start
check "the next broker says READY=1" wait_line '^READY ' 30
sleep 1
touch "$PG_TMP/stop-load"
wait "$LOAD_PID"
cat "$PG_TMP/load.out"
check "no request failed across the restart" grep -qE '^CALLS [1-9][0-9]* FAILS 0 ' "$PG_TMP/load.out"
mark; say stop; wait_line '^EXIT' 15
unsupervise

# --- a bad policy: never READY
printf '{"version": 1, "clients": 7}\n' >"$PG_TMP/etc/bad.json"
chmod 0644 "$PG_TMP/etc/bad.json"
supervise PATH=/usr/bin:/bin DISPLAY="$PG_DISPLAY" "$PG_TMP/bin/pixelgated" --foreground --socket "$PG_SOCK" \
    --state-dir "$PG_TMP/state" --policy "$PG_TMP/etc/bad.json"
mark; say start
wait_line '^(READY |NO-READY|EXIT)' 30
check "a broker with a bad policy exits without READY=1" bash -c '[[ "$1" == EXIT* ]]' _ "$(last '^(READY |NO-READY|EXIT)')"
unsupervise

# --- the display from logind (python3-dbusmock's logind template, private system bus)
cat >"$PG_TMP/sysbus.conf" <<XML
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$PG_TMP/run/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/>
  </policy>
</busconfig>
XML
dbus-daemon --config-file="$PG_TMP/sysbus.conf" --nofork --nopidfile >"$PG_TMP/sysbus.log" 2>&1 &
PG_PIDS+=($!)
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$PG_TMP/run/system_bus_socket
for i in $(seq 50); do [ -S "$PG_TMP/run/system_bus_socket" ] && break; sleep 0.1; done
chmod 0666 "$PG_TMP/run/system_bus_socket"
DISPLAY=$PG_DISPLAY "$PY" -m dbusmock --system --template logind >"$PG_TMP/mock.log" 2>&1 &
PG_PIDS+=($!)
mock() { "$PY" "$HERE/logind_mock.py" "$@"; }
for i in $(seq 100); do mock ping 2>/dev/null && break; sleep 0.1; done
mock seat # seat0, as on every machine with a screen, with no one logged in yet
AUTO_BROKER=(PATH=/usr/bin:/bin DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" "${BROKER[@]}")
auto_caps() {
    supervise "${AUTO_BROKER[@]}"
    mark; say start; wait_line '^(READY |NO-READY|EXIT)' 30
    pg_as "$PG_AGENT" env PIXELGATE_SOCKET="$PG_SOCK" pixelgate caps 2>&1
    say stop; wait_line '^EXIT' 15; unsupervise
}
out=$(auto_caps)
check "no active session: the broker says so (and is READY without a display)" \
    grep -q 'seat0 has no active session' <<<"$out"
mock session x11 "$PG_DISPLAY"
out=$(auto_caps)
check "an active x11 session: the broker serves its display, found through logind" \
    jq -e --arg d "$PG_DISPLAY" '.display_state.state == "up"' <<<"$(grep '^{' <<<"$out" | head -1)"
check "... and logged which display logind named" grep -q "display auto: logind's active session is on $PG_DISPLAY" "$SUP_OUT"
mock session wayland ""
out=$(auto_caps)
check "an active Wayland session: the error says so and points at pixelgate-session" \
    bash -c 'grep -qF "of type \\\"wayland\\\"" <<<"$1" && grep -q "pixelgate-session" <<<"$1"' _ "$out"

# --- the units, as shipped (paths pointed at the build's broker, man pages at the build's)
UNITS=$PG_TMP/units
mkdir -p "$UNITS"
sed "s|/usr/sbin/pixelgated|$PG_TMP/bin/pixelgated|" "$PG_ROOT/installer/linux/pixelgate.service" >"$UNITS/pixelgate.service"
cp "$PG_ROOT/installer/linux/pixelgate.socket" "$UNITS/"
mkdir -p "$UNITS/man/man8" "$UNITS/man/man5"
cp "$PG_BUILD"/man/*.8 "$UNITS/man/man8/"
cp "$PG_BUILD"/man/*.5 "$UNITS/man/man5/"
out=$(cd "$UNITS" && MANPATH=$UNITS/man systemd-analyze verify pixelgate.socket pixelgate.service 2>&1); rc=$?
[ -z "$out" ] || echo "$out"
check "systemd-analyze verify passes pixelgate.service and pixelgate.socket" bash -c '[ "$1" = 0 ]' _ "$rc"
check "the service is Type=notify and needs the socket" \
    bash -c 'grep -qx "Type=notify" "$1" && grep -qx "Requires=pixelgate.socket" "$1" && ! grep -q "^Environment=DISPLAY" "$1"' _ \
    "$PG_ROOT/installer/linux/pixelgate.service"

pg_summary
