# SPDX-License-Identifier: MIT
# lib.sh - shared by the integration/security tests and the demo (sourced).
#
# Builds a real deployment in a private temp dir: system user `pixelgate`
# running pixelgated, an Xvfb display that only admitted users may reach
# (cookie for root, xhost +SI:localuser for the broker and the agent), a Tk app
# running as the agent user, and the client run as that agent. Everything is
# torn down by pg_cleanup (trap it). Needs root: it creates accounts.

PG_ROOT=${PG_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
PG_BUILD=${PG_BUILD:-$PG_ROOT/build/default}
PG_AGENT=${PG_AGENT:-pgagent}
PG_OTHER=${PG_OTHER:-pgother}
PG_PIDS=()
PG_CREATED_USERS=()

pg_die() { echo "FATAL: $*" >&2; exit 1; }

pg_require_root() {
    [ "$(id -u)" = 0 ] || pg_die "this needs root: it creates the broker's system account 'pixelgate' and test users (run with sudo)"
}

pg_require_tools() {
    local t missing=()
    for t in "$@"; do command -v "$t" >/dev/null 2>&1 || missing+=("$t"); done
    [ ${#missing[@]} = 0 ] || pg_die "missing tools: ${missing[*]} (run scripts/deps.sh)"
}

# pg_user NAME [system]: create if missing; remembered for removal.
pg_user() {
    local name=$1 kind=${2:-}
    id "$name" >/dev/null 2>&1 && return 0
    if [ "$kind" = system ]; then
        useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$name"
    else
        useradd --create-home --shell /bin/bash "$name"
    fi
    PG_CREATED_USERS+=("$name")
}

# The tests' clients must be local to the broker: in an SSH login every
# process the shell starts is remote (docs/policy.md, clients.remote), and
# the default policy refuses remote clients. Fails rather than run wrong.
pg_require_local_session() {
    local p=$$ c u sid n
    while [ "$p" -gt 1 ]; do
        c=$(cat "/proc/$p/comm" 2>/dev/null) || break
        u=$(awk '/^Uid:/ {print $2 $3 $4 $5}' "/proc/$p/status" 2>/dev/null)
        case $c in sshd | sshd-session) [ "$u" = 0000 ] && pg_die "this shell runs inside an SSH login (sshd pid $p): the broker would count every test client as remote; run the tests from a local session" ;; esac
        p=$(awk '/^PPid:/ {print $2}' "/proc/$p/status" 2>/dev/null)
        [ -n "$p" ] || break
    done
    sid=$(cat /proc/$$/sessionid 2>/dev/null) || return 0
    [ "$sid" = 4294967295 ] && return 0
    for n in /proc/[0-9]*; do
        [ "$(cat "$n/sessionid" 2>/dev/null)" = "$sid" ] || continue
        case $(cat "$n/comm" 2>/dev/null) in sshd | sshd-session) ;; *) continue ;; esac
        [ "$(awk '/^Uid:/ {print $2 $3 $4 $5}' "$n/status" 2>/dev/null)" = 0000 ] || continue
        p=$(awk '/^PPid:/ {print $2}' "$n/status" 2>/dev/null)
        [ "$(cat "/proc/$p/sessionid" 2>/dev/null)" != "$sid" ] &&
            pg_die "this shell's login session $sid was opened by sshd (pid ${n#/proc/}): the broker would count every test client as remote; run the tests from a local session"
    done
    return 0
}

# Sets PG_TMP: binaries, app, state, socket, all under one 0755 dir.
pg_setup_dirs() {
    pg_require_local_session
    PG_TMP=$(mktemp -d /tmp/pixelgate-test.XXXXXX)
    chmod 0755 "$PG_TMP"
    mkdir -p "$PG_TMP/bin" "$PG_TMP/run" "$PG_TMP/state" "$PG_TMP/app"
    install -m 0755 "$PG_BUILD/broker/pixelgated" "$PG_BUILD/client/pixelgate" "$PG_TMP/bin/"
    install -m 0644 "$PG_ROOT/tests/apps/pg_demo.tcl" "$PG_TMP/app/"
    chown pixelgate: "$PG_TMP/run" "$PG_TMP/state"
    chmod 0755 "$PG_TMP/run"
    chmod 0700 "$PG_TMP/state"
    chmod 1777 "$PG_TMP/app" # each app user writes its own state file here
    PG_SOCK=$PG_TMP/run/broker.sock
    PG_STATE_FILE=$PG_TMP/app/state.json
    # The administrator's policy: root-owned file in a root-owned dir.
    mkdir -p "$PG_TMP/etc"
    chmod 0755 "$PG_TMP/etc"
    PG_POLICY=$PG_TMP/etc/policy.json
    pg_write_policy "${PG_POLICY_JSON:-$(pg_default_policy)}"
}

# The policy tests start from: the agent and the other user admitted, pixels
# analyze-only, one denied window pattern.
pg_default_policy() {
    cat <<JSON
{"version": 1,
 "clients": {"users": ["$PG_AGENT", "$PG_OTHER"]},
 "expose_pixels": "analyze-only",
 "capture": {"deny_windows": ["^secret vault\$"]}}
JSON
}

# pg_write_policy JSON: replace the policy file (0644 root) atomically.
pg_write_policy() {
    printf '%s\n' "$1" >"$PG_POLICY.tmp"
    chmod 0644 "$PG_POLICY.tmp"
    mv -f "$PG_POLICY.tmp" "$PG_POLICY"
}

# Starts Xvfb on a free display with a root-only cookie; sets DISPLAY_NUM, PG_DISPLAY.
pg_start_xvfb() {
    local n
    for n in $(seq 90 140); do
        [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] || break
    done
    PG_DISPLAY=":$n"
    export XAUTHORITY=$PG_TMP/root.xauth
    touch "$XAUTHORITY"; chmod 0600 "$XAUTHORITY"
    xauth -q add "$PG_DISPLAY" . "$(mcookie)"
    Xvfb "$PG_DISPLAY" -screen 0 "${PG_SCREEN:-1280x800x24}" -nolisten tcp -noreset -auth "$XAUTHORITY" >"$PG_TMP/xvfb.log" 2>&1 &
    PG_PIDS+=($!)
    local i
    for i in $(seq 100); do
        [ -S "/tmp/.X11-unix/X$n" ] && DISPLAY=$PG_DISPLAY xdpyinfo >/dev/null 2>&1 && break
        sleep 0.1
    done
    DISPLAY=$PG_DISPLAY xdpyinfo >/dev/null 2>&1 || pg_die "Xvfb did not start on $PG_DISPLAY: $(cat "$PG_TMP/xvfb.log")"
    # The desktop's owner grants the broker and the agent, as a user would.
    # (-noreset above: a server reset would forget these grants.)
    DISPLAY=$PG_DISPLAY xhost +SI:localuser:pixelgate >/dev/null
    DISPLAY=$PG_DISPLAY xhost +SI:localuser:"$PG_AGENT" >/dev/null
}

# pg_start_xephyr (after pg_start_xvfb): the person's display, a nested Xephyr
# at the Xvfb's top-left. What the host sends into its window arrives through
# "Xephyr virtual keyboard/mouse", devices that are not the server's XTEST
# ones, as a real keyboard's would (issue 31). Sets PG_HOST_DISPLAY (the
# Xvfb: the person's hand is `DISPLAY=$PG_HOST_DISPLAY xdotool ...`) and
# PG_DISPLAY (the nested one, for the broker and the apps), with the same
# grants pg_start_xvfb gives.
pg_start_xephyr() {
    local n
    PG_HOST_DISPLAY=$PG_DISPLAY
    for n in $(seq 141 180); do [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] || break; done
    xauth -q add ":$n" . "$(mcookie)"
    DISPLAY=$PG_HOST_DISPLAY Xephyr ":$n" -screen "${PG_NEST_SCREEN:-1024x700}" -nolisten tcp -noreset \
        -auth "$XAUTHORITY" >"$PG_TMP/xephyr.log" 2>&1 &
    PG_PIDS+=($!)
    for _ in $(seq 150); do DISPLAY=":$n" xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
    DISPLAY=":$n" xdpyinfo >/dev/null 2>&1 || pg_die "Xephyr did not start on :$n: $(cat "$PG_TMP/xephyr.log")"
    DISPLAY=":$n" xhost +SI:localuser:pixelgate >/dev/null
    DISPLAY=":$n" xhost +SI:localuser:"$PG_AGENT" >/dev/null
    PG_DISPLAY=":$n"
}

# pg_person_hand X Y [XDOTOOL-COMMAND...]: the person's hand on their own
# keyboard and mouse: the host's pointer into the Xephyr window at X,Y, the
# host's keyboard focus given to the window there (an earlier focus on the
# host, e.g. to an app of its own, would keep the keys), then the command.
pg_person_hand() {
    local x=$1 y=$2 win
    shift 2
    DISPLAY=$PG_HOST_DISPLAY xdotool mousemove "$x" "$y"
    win=$(DISPLAY=$PG_HOST_DISPLAY xdotool getmouselocation --shell | sed -n 's/^WINDOW=//p')
    [ -n "$win" ] && DISPLAY=$PG_HOST_DISPLAY xdotool windowfocus "$win" 2>/dev/null
    [ $# -eq 0 ] || DISPLAY=$PG_HOST_DISPLAY xdotool "$@"
}

pg_start_wm() {
    DISPLAY=$PG_DISPLAY openbox >"$PG_TMP/openbox.log" 2>&1 &
    PG_PIDS+=($!)
    local i
    for i in $(seq 100); do
        DISPLAY=$PG_DISPLAY xprop -root _NET_SUPPORTING_WM_CHECK 2>/dev/null | grep -q 'window id' && return 0
        sleep 0.1
    done
    pg_die "openbox did not come up"
}

# Starts the broker as `pixelgate`; returns once it listens (it detaches when ready).
pg_start_broker() {
    runuser -u pixelgate -- env -i PATH=/usr/bin:/bin "$PG_TMP/bin/pixelgated" --socket "$PG_SOCK" \
        --state-dir "$PG_TMP/state" --policy "$PG_POLICY" --display "$PG_DISPLAY" "$@" 2>>"$PG_TMP/broker.log" ||
        pg_die "broker failed to start: $(cat "$PG_TMP/broker.log")"
    PG_BROKER_PID=$(pgrep -u pixelgate -f "pixelgated --socket $PG_SOCK" | head -1)
    [ -n "$PG_BROKER_PID" ] || pg_die "broker not running: $(cat "$PG_TMP/broker.log")"
}

pg_stop_broker() {
    [ -n "${PG_BROKER_PID:-}" ] || return 0
    kill -TERM "$PG_BROKER_PID" 2>/dev/null || true
    local i
    for i in $(seq 50); do kill -0 "$PG_BROKER_PID" 2>/dev/null || break; sleep 0.1; done
    PG_BROKER_PID=
}

# pg_launch_app USER STATE_FILE GEOMETRY TITLE [EXTRA...]: a Tk app run by USER
# (EXTRA: more windows of it, see tests/apps/pg_demo.tcl); waits for READY.
pg_launch_app() {
    local user=$1 state=$2 geom=$3 title=$4 out
    shift 4
    out=$PG_TMP/app.$RANDOM.out
    rm -f "$state"
    runuser -u "$user" -- env -i PATH=/usr/bin:/bin DISPLAY="$PG_DISPLAY" LANG=C.UTF-8 \
        wish "$PG_TMP/app/pg_demo.tcl" "$state" "$geom" "$title" "$@" >"$out" 2>&1 &
    PG_PIDS+=($!)
    local i
    for i in $(seq 100); do grep -q READY "$out" 2>/dev/null && return 0; sleep 0.1; done
    pg_die "Tk app '$title' ($user) did not start: $(cat "$out")"
}

# Starts the Tk app as the agent (its own program under test).
pg_start_app() {
    pg_launch_app "$PG_AGENT" "$PG_STATE_FILE" "${PG_APP_GEOMETRY:-480x260+40+40}" "pixelgate demo"
}

# pg_as_direct USER CMD...: the same with the client's own stdout and stderr,
# for the one call whose test is what a closed pipe does to the client
# (pointer_verbs): its output is not searched for broker paths.
pg_as_direct() {
    local u=$1; shift
    runuser -u "$u" -- env -i PATH="$PG_TMP/bin:/usr/bin:/bin" LANG=C.UTF-8 PIXELGATE_SOCKET="$PG_SOCK" "$@"
}

# pg_as USER CMD...: run the client (or anything) as USER with the socket set.
# What the client (pixelgate, or an MCP client: node) prints is the agent's
# to see, so it must never carry a path of the broker's (its state dir: the
# spool, the audit log, baselines; its policy file): PG_TMP is a random
# directory, and a leak is recorded and fails pg_summary (issue 27).
pg_as() {
    local u=$1 w cmd=; shift
    for w in "$@"; do case $w in *=*) ;; *) cmd=$w; break ;; esac; done # past env's NAME=VALUE words
    case ${cmd##*/} in
    pixelgate | node) ;;
    *)
        pg_as_direct "$u" "$@"
        return
        ;;
    esac
    local seen rc fd tpid
    seen=$(mktemp "$PG_TMP/as.XXXXXX")
    # Both streams pass through tee as they come (a reader that follows them,
    # or closes them early, sees what it did before), and are kept to search.
    exec {fd}> >(tee -a "$seen.e" >&2)
    tpid=$!
    pg_as_direct "$u" "$@" 2>&"$fd" | tee -a "$seen.o"
    rc=${PIPESTATUS[0]}
    exec {fd}>&-
    wait "$tpid" 2>/dev/null
    # (a path the agent named itself, echoed back by its own client, is not a leak)
    if [[ "$*" != *"$PG_TMP/state"* && "$*" != *"$PG_TMP/etc"* ]] &&
        grep -qsF -e "$PG_TMP/state" -e "$PG_TMP/etc" "$seen.o" "$seen.e"; then
        echo "LEAK: '$*' showed the agent a broker path" >&2
        echo "$*" >>"$PG_TMP/path-leaks"
    fi
    rm -f "$seen" "$seen.o" "$seen.e"
    return $rc
}

# Starts the fake OpenAI-compatible vision server on loopback; sets FAKE (its base URL).
pg_start_fake_openai() {
    local out
    out=$(mktemp)
    python3 "$PG_ROOT/tests/relay/fake_openai.py" --until-killed </dev/null >"$out" 2>/dev/null &
    PG_PIDS+=($!)
    local i
    for i in $(seq 50); do [ -s "$out" ] && break; sleep 0.1; done
    [ -s "$out" ] || pg_die "fake OpenAI server did not start"
    FAKE=http://127.0.0.1:$(head -1 "$out")
    rm -f "$out"
}

pg_state() { jq -r "$1" "$PG_STATE_FILE"; }

# pg_state_is JQ EXPECTED: true once the app's state shows EXPECTED. Input is
# delivered when the call returns but the app handles it when it gets the
# CPU: poll (bounded, 10 s) instead of sleeping a guessed time.
pg_state_is() {
    local i
    for i in $(seq 100); do [ "$(pg_state "$1" 2>/dev/null)" = "$2" ] && return 0; sleep 0.1; done
    return 1
}

pg_cleanup() {
    pg_stop_broker
    local p
    for p in "${PG_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${PG_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    PG_PIDS=()
    # runuser does not pass signals on to its child: end the test users' processes themselves.
    local u
    for u in "$PG_AGENT" "$PG_OTHER"; do pkill -u "$u" 2>/dev/null || true; done
    for u in "${PG_CREATED_USERS[@]}"; do
        pkill -u "$u" 2>/dev/null || true
        userdel -r "$u" >/dev/null 2>&1 || userdel "$u" >/dev/null 2>&1 || true
    done
    PG_CREATED_USERS=()
    [ -n "${PG_TMP:-}" ] && [ -z "${PG_KEEP_TMP:-}" ] && rm -rf "$PG_TMP"
    return 0
}

# --- pixelgate-session tests (session_helper.sh, wayland_sway.sh, bench/wayland_h2h)

# pg_session_group: the helper's group, as the package makes it; removed again by
# pg_session_group_remove only when this run made it.
pg_session_group() {
    getent group pixelgate-session >/dev/null && return 0
    groupadd --system pixelgate-session && PG_SESSION_GROUP_MADE=1
}
pg_session_group_remove() {
    [ -n "${PG_SESSION_GROUP_MADE:-}" ] && groupdel pixelgate-session 2>/dev/null
    return 0
}

# pg_install_session_helper (after pg_setup_dirs): the helper under test installed as the
# package installs it (root:pixelgate-session 2755); sets HELPER and SESSION_SOCK, the broker's
# session socket.
pg_install_session_helper() {
    HELPER=$PG_TMP/bin/pixelgate-session
    install -o root -g pixelgate-session -m 2755 "$PG_BUILD/broker/pixelgate-session" "$HELPER"
    SESSION_SOCK=$PG_TMP/run/session.sock
}

# ---- a tiny TAP-like reporter ending in "N passed, N failed" ----
PG_PASS=0
PG_FAIL=0
ok() { PG_PASS=$((PG_PASS + 1)); echo "ok   $*"; }
not_ok() { PG_FAIL=$((PG_FAIL + 1)); echo "FAIL $*"; }
# check DESC CMD...: passes when CMD succeeds.
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
pg_summary() {
    # every client call's output was searched for the broker's paths (pg_as)
    if [ -s "${PG_TMP:-/nonexistent}/path-leaks" ]; then
        not_ok "no client output carried a broker path ($(wc -l <"$PG_TMP/path-leaks") calls did; the first: $(head -1 "$PG_TMP/path-leaks"))"
    elif [ -n "${PG_TMP:-}" ]; then
        ok "no client output carried a broker path"
    fi
    echo "$PG_PASS passed, $PG_FAIL failed"
    [ "$PG_FAIL" = 0 ] && [ "$PG_PASS" -gt 0 ]
}
