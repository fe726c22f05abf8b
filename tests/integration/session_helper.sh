#!/bin/bash
# SPDX-License-Identifier: MIT
# session_helper.sh - pixelgate-session, the desktop user's helper (issue 29),
# as a user's session runs it. A desktop user (pgdesk) owns an Xvfb display
# with its own cookie and grants the broker nothing; the broker
# (--display-source session-helper) reaches the display only through the
# helper, which the test starts by running the Exec= line of the shipped
# autostart entry under dbus-run-session as pgdesk. Then:
#   before the helper: the agent's call says which fix (log in again / enable it);
#   registration: the agent lists, captures and clicks pgdesk's app, with
#     via: session-helper, and sees no window of another account;
#   refused and audited: a copy of the binary, a traced helper, a second helper
#     for the display, a helper of another uid claiming the display;
#   the broker restarts: the same helper registers again by itself;
#   a request outside the allowlist: a fake broker (as the broker's account)
#     asks for what it did not allow, and the helper refuses;
#   the helper dies: the agent's call names the fix;
#   the systemd user unit passes systemd-analyze verify --user.
set -u
. "$(dirname "$0")/lib.sh"
pg_require_root
pg_require_tools Xvfb xauth xdpyinfo wish jq dbus-run-session strace python3 systemd-analyze mcookie

PG_DESK=pgdesk

finish() {
    pkill -u "$PG_DESK" 2>/dev/null || true
    pg_cleanup
    pg_session_group_remove
}
trap finish EXIT

pg_user pixelgate system
pg_user "$PG_AGENT"
pg_user "$PG_OTHER"
pg_user "$PG_DESK"
pg_session_group
PG_POLICY_JSON=$(cat <<JSON
{"version": 1,
 "clients": {"users": ["$PG_AGENT"]},
 "expose_pixels": "analyze-only",
 "capture": {"other_users": ["$PG_DESK"]},
 "input": {"other_users": true}}
JSON
)
pg_setup_dirs
pg_install_session_helper

# --- the desktop user's own X display: their cookie, no grant for anyone
for n in $(seq 150 199); do [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] || break; done
PG_DISPLAY=":$n"
DESK_HOME=$(getent passwd "$PG_DESK" | cut -d: -f6)
DESK_AUTH=$DESK_HOME/.Xauthority
runuser -u "$PG_DESK" -- sh -c "umask 077; : >'$DESK_AUTH'; xauth -f '$DESK_AUTH' -q add '$PG_DISPLAY' . $(mcookie)"
runuser -u "$PG_DESK" -- Xvfb "$PG_DISPLAY" -screen 0 1024x768x24 -nolisten tcp -noreset -auth "$DESK_AUTH" \
    >"$PG_TMP/xvfb.log" 2>&1 &
PG_PIDS+=($!)
# (ASAN_OPTIONS: in the ASan build LeakSanitizer cannot stop the threads of a
# set-group-ID, hence non-dumpable, process, nor of a traced one, and would
# end it with its own exit code; the broker's side is what is under test.)
as_desk() { runuser -u "$PG_DESK" -- env -i PATH=/usr/bin:/bin DISPLAY="$PG_DISPLAY" XAUTHORITY="$DESK_AUTH" LANG=C.UTF-8 \
    PIXELGATE_SESSION_SOCKET="$SESSION_SOCK" ASAN_OPTIONS=detect_leaks=0 "$@"; }
for i in $(seq 100); do as_desk xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
as_desk xdpyinfo >/dev/null 2>&1 || pg_die "the desktop user's Xvfb did not start: $(cat "$PG_TMP/xvfb.log")"
[ "$(stat -c %U "/tmp/.X11-unix/X$n")" = "$PG_DESK" ] || pg_die "the display's socket is not $PG_DESK's"

# The desktop user's app, and one of another account on the same display.
out=$PG_TMP/app.out
as_desk wish "$PG_TMP/app/pg_demo.tcl" "$PG_STATE_FILE" 480x260+40+40 "desk form" >"$out" 2>&1 &
PG_PIDS+=($!)
for i in $(seq 100); do grep -q READY "$out" 2>/dev/null && break; sleep 0.1; done
grep -q READY "$out" || pg_die "the desktop user's app did not start: $(cat "$out")"
XAUTHORITY=$DESK_AUTH DISPLAY=$PG_DISPLAY wish "$PG_TMP/app/pg_demo.tcl" "$PG_TMP/app/root.json" 200x100+600+40 \
    "root window" >"$PG_TMP/root-app.out" 2>&1 &
PG_PIDS+=($!)
for i in $(seq 100); do grep -q READY "$PG_TMP/root-app.out" 2>/dev/null && break; sleep 0.1; done

start_broker() {
    pg_start_broker --display-source session-helper --session-socket "$SESSION_SOCK" --session-helper "$HELPER"
}
start_broker
agent() { pg_as "$PG_AGENT" pixelgate "$@"; }

# --- no helper yet: the broker's own error, with the fix
out=$(agent windows 2>&1); rc=$?
check "no helper: BROKER_UNREACHABLE (exit 5) naming the fix" \
    bash -c '[ '$rc' = 5 ] && grep -q "no session helper" <<<"$1" && grep -q "pixelgate-session" <<<"$1"' _ "$out"

# --- the helper, started as the session starts it: the autostart entry's Exec= line
EXEC=$(sed -n 's/^Exec=//p' "$PG_ROOT/installer/linux/pixelgate-session.desktop")
[ "$EXEC" = /usr/lib/pixelgate/pixelgate-session ] || pg_die "unexpected Exec= line: $EXEC"
EXEC=${EXEC/\/usr\/lib\/pixelgate/$PG_TMP/bin}
as_desk dbus-run-session -- $EXEC >"$PG_TMP/helper.log" 2>&1 &
PG_PIDS+=($!)
registered() { agent caps 2>/dev/null | grep -q '"via":"session-helper"'; }
for i in $(seq 150); do registered && break; sleep 0.1; done
check "the helper registers (caps: via session-helper)" registered
HELPER_PID=$(pgrep -u "$PG_DESK" -x pixelgate-sessi | head -1)

wins=$(agent windows)
check "windows lists the desktop user's app through the helper" \
    jq -e '.via == "session-helper" and ([.windows[].title] | index("desk form") != null)' <<<"${wins:-null}"
check "no window of another account is listed (the root-owned app)" \
    jq -e '[.windows[].title] | index("root window") == null' <<<"${wins:-null}"
out=$(agent snapshot --screen)
check "a screen capture through the helper blacks out the window of another account (redacted_windows 1)" \
    test "$(jq .redacted_windows <<<"${out:-null}")" = 1
snap=$(agent snapshot --window 'desk form')
check "snapshot through the helper gives a token of the window's size" \
    jq -e '(.token | startswith("cap:")) and .width == 480 and .height == 260 and .via == "session-helper"' <<<"${snap:-null}"
read -r BX BY < <(jq -r '"\(.press.x + (.press.w/2|floor)) \(.press.y + (.press.h/2|floor))"' "$PG_STATE_FILE")
agent click --window 'desk form' --at "$BX,$BY" >/dev/null
check "a click through the helper reaches the app" pg_state_is '.clicks' 1

audit=$PG_TMP/state/audit.jsonl
registers() { grep '"op":"session.register"' "$audit"; }
check "the registration is audited with the helper's uid" \
    bash -c 'grep "\"op\":\"session.register\"" "$1" | grep -q "\"uid\":$2.*\"outcome\":\"OK\""' _ "$audit" "$(id -u "$PG_DESK")"

# --- refused: a copy, a traced helper, a second helper, another uid
cp "$PG_BUILD/broker/pixelgate-session" "$PG_TMP/app/copy-of-helper"
chmod 0755 "$PG_TMP/app/copy-of-helper"
out=$(as_desk "$PG_TMP/app/copy-of-helper" --once 2>&1); rc=$?
check "a copy of the binary is refused (exit 3: not the packaged helper)" \
    bash -c '[ '$rc' = 3 ] && grep -q "not the packaged session helper" <<<"$1"' _ "$out"
out=$(as_desk strace -f -o /dev/null "$HELPER" --once 2>&1); rc=$?
check "a traced helper is refused" bash -c '[ '$rc' = 3 ] && grep -q "traced" <<<"$1"' _ "$out"
out=$(as_desk "$HELPER" --once 2>&1); rc=$?
check "a second helper for the display is refused" bash -c '[ '$rc' = 3 ] && grep -q "already registered" <<<"$1"' _ "$out"
# (given the desktop user's cookie, so that only the broker's check stands in its way)
install -o "$PG_OTHER" -m 0600 "$DESK_AUTH" "$PG_TMP/app/other.xauth"
out=$(runuser -u "$PG_OTHER" -- env -i PATH=/usr/bin:/bin DISPLAY="$PG_DISPLAY" XAUTHORITY="$PG_TMP/app/other.xauth" \
    PIXELGATE_SESSION_SOCKET="$SESSION_SOCK" ASAN_OPTIONS=detect_leaks=0 "$HELPER" --once 2>&1); rc=$?
check "a helper of another uid claiming the display is refused" \
    bash -c '[ '$rc' = 3 ] && grep -q "belongs to uid" <<<"$1"' _ "$out"
check "each refusal is audited (4 refused registrations)" \
    bash -c '[ "$(grep "\"op\":\"session.register\"" "$1" | grep -vc "\"outcome\":\"OK\"")" -ge 4 ]' _ "$audit"
check "the registered helper still serves" registered

# --- the broker restarts: the same helper registers again
pg_stop_broker
start_broker
for i in $(seq 200); do registered && break; sleep 0.1; done
check "after a broker restart the helper registers again by itself" registered
check "... and it is the same helper process" bash -c 'kill -0 "$1" 2>/dev/null' _ "$HELPER_PID"

# --- the helper's allowlist, against a fake broker of the broker's account
FAKE_SOCK=$PG_TMP/run/fake-session.sock
runuser -u pixelgate -- python3 "$PG_ROOT/tests/integration/fake_session_broker.py" "$FAKE_SOCK" \
    >"$PG_TMP/fake-broker.out" 2>&1 &
PG_PIDS+=($!)
for i in $(seq 100); do [ -S "$FAKE_SOCK" ] && break; sleep 0.1; done
as_desk env PIXELGATE_SESSION_SOCKET="$FAKE_SOCK" "$HELPER" --once >"$PG_TMP/helper-fake.log" 2>&1
for i in $(seq 100); do grep -q '^DONE' "$PG_TMP/fake-broker.out" && break; sleep 0.1; done
check "a request outside the allowlist is refused by the helper (POLICY)" grep -q '^type_text POLICY_REFUSED' "$PG_TMP/fake-broker.out"
check "an unknown request is refused by the helper" grep -q '^exec POLICY_REFUSED' "$PG_TMP/fake-broker.out"
check "an allowed request is answered" grep -q '^caps OK' "$PG_TMP/fake-broker.out"
check "nothing was typed into the app" pg_state_is '.entry' ''

# --- the helper dies: the agent's call names the fix
kill "$HELPER_PID"
gone() { agent windows 2>&1 | grep "BROKER_UNREACHABLE" | grep "is gone" | grep -q "pixelgate-session"; }
for i in $(seq 100); do gone && break; sleep 0.1; done
check "a dead helper: the broker says it is gone and names pixelgate-session" gone

# --- the systemd user unit, as shipped (its ExecStart pointed at the test's copy)
sed "s|/usr/lib/pixelgate/pixelgate-session|$HELPER|" "$PG_ROOT/installer/linux/pixelgate-session.service" \
    >"$PG_TMP/pixelgate-session.service"
mkdir -m 0700 "$PG_TMP/xdg-runtime" # (no user manager here: --user still wants a runtime dir)
out=$(XDG_RUNTIME_DIR=$PG_TMP/xdg-runtime systemd-analyze verify --user "$PG_TMP/pixelgate-session.service" 2>&1); rc=$?
[ -z "$out" ] || echo "$out"
check "systemd-analyze verify --user passes the user unit" bash -c '[ '$rc' = 0 ] && [ -z "$1" ]' _ "$out"

pg_summary
