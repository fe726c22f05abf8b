#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# unit_sandbox.sh - the broker under installer/linux/pixelgate.service's
# restrictions, reproduced without systemd as PID 1, with every feature:
# X capture, OCR, the analysis relay to a loopback endpoint, audit copies to
# a real systemd-journald. The directives are read from the unit file itself:
#   User=/Group=, NoNewPrivileges, CapabilityBoundingSet=  setpriv
#   ProtectSystem=strict (all read-only but the state and runtime dirs),
#   ProtectHome, PrivateDevices, ProtectKernelTunables,
#   ProtectControlGroups, ProcSubset=pid, PrivateMounts    mounts in a private mount namespace
#   IPAddressDeny=any + IPAddressAllow=localhost          a network namespace with only lo
#   RestrictAddressFamilies, MemoryDenyWriteExecute,
#   SystemCallFilter (expanded by systemd-analyze
#   syscall-filter), SystemCallArchitectures=native        seccomp (tests/systemd/pg_unit_exec.c)
# Positive: ping, snapshot, OCR and analyze to the loopback endpoint work;
# every audit record has a journal copy that checks against the chained file
# (docs/audit.md's recipe) and none carries a window title. Negative: a
# family the unit forbids (AF_NETLINK, AF_PACKET) is refused with
# EAFNOSUPPORT, and under the old unit's RestrictAddressFamilies=AF_UNIX the
# relay cannot reach the endpoint. Also `systemd-analyze security --offline`
# holds the unit to an exposure of at most 2.5.
# Needs root, Xvfb, Tk, unshare, nsenter, setpriv, systemd (journald,
# systemd-analyze), the build's pg_unit_exec (libseccomp).
set -uo pipefail
. "$(dirname "$0")/../integration/lib.sh"
PG_AGENT=pgs-agent
PG_OTHER=pgs-other
UNIT=$PG_ROOT/installer/linux/pixelgate.service
EXEC=$PG_BUILD/tests/systemd/pg_unit_exec
JOURNALD=/lib/systemd/systemd-journald
MSGID=e0f7413aef8f404b824716333fbbc0b1

pg_require_root
pg_require_tools Xvfb xauth xhost xdpyinfo wish jq runuser useradd unshare nsenter setpriv findmnt ip \
    systemd-analyze journalctl python3
[ -x "$EXEC" ] || pg_die "$EXEC not built (libseccomp-dev; scripts/deps.sh)"
[ -x "$JOURNALD" ] || pg_die "$JOURNALD missing (apt-get install systemd)"
trap 'sandbox_stop; pg_cleanup' EXIT

# ---- the unit, as systemd reads it ----
unit_value() { sed -n "s/^$1=//p" "$UNIT" | tail -1; }
FAMILIES=$(unit_value RestrictAddressFamilies | tr ' ' ',')
[ -n "$FAMILIES" ] || pg_die "the unit has no RestrictAddressFamilies"
[ "$(unit_value MemoryDenyWriteExecute)" = yes ] && MDWE=--mdwe || MDWE=
[ "$(unit_value ProtectSystem)" = strict ] || pg_die "the unit is not ProtectSystem=strict: update this test"
[ "$(unit_value IPAddressDeny)" = any ] && [ "$(unit_value IPAddressAllow)" = localhost ] ||
    pg_die "the unit's IP address rules are not localhost-only: update this test"
# SystemCallFilter: the union of the allow lines minus the ~ lines, groups expanded.
expand() {
    local g n
    for g in "$@"; do
        case $g in
        @*) systemd-analyze syscall-filter "$g" | sed -n '2,$p' | sed 's/^ *//; /^#/d; /^$/d' |
                while read -r n; do expand "$n"; done ;;
        *) echo "$g" ;;
        esac
    done
}
allow=() deny=()
while read -r v; do
    if [[ $v == ~* ]]; then read -ra w <<<"${v#\~}"; deny+=("${w[@]}"); else read -ra w <<<"$v"; allow+=("${w[@]}"); fi
done < <(sed -n 's/^SystemCallFilter=//p' "$UNIT")
[ ${#allow[@]} -gt 0 ] || pg_die "the unit has no SystemCallFilter allow list"

pg_user pixelgate system
pg_user "$PG_AGENT"
pg_user "$PG_OTHER"
pg_setup_dirs
SYSCALLS=$PG_TMP/syscalls.txt
comm -23 <(expand "${allow[@]}" | sort -u) <(expand "${deny[@]}" | sort -u) >"$SYSCALLS"
echo "# unit: families $FAMILIES, ${MDWE:-no} MDWE, $(wc -l <"$SYSCALLS") system calls allowed"
install -m 0755 "$EXEC" "$PG_BUILD/broker/pixelgated" "$PG_TMP/bin/"
pg_start_xvfb
pg_start_app
mkdir -p "$PG_TMP/journal"

# ---- the sandbox: one process holding the mount and network namespaces ----
# $1: the address families to allow. Starts journald, the fake endpoint and
# the broker inside; returns once the broker listens.
SANDBOX_PID=
sandbox_start() {
    local fams=$1
    cat >"$PG_TMP/sandbox.sh" <<'EOF'
set -eu
T=$1 FAMS=$2 MDWE=$3 DISPLAY_=$4 ROOT=$5 PROC_SUBSET=$6
ip link set lo up
# A private /run (the host's is not the service's business), journald in it
# writing to $T/journal so the test can read the journal afterwards. What runs
# here writes only to its own mounts or to inherited descriptors: a file open
# for writing on / would keep / from going read-only below.
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /run/systemd /run/log
mount -t tmpfs -o mode=0755 tmpfs /run/systemd
mount --bind "$T/journal" /run/log
/lib/systemd/systemd-journald </dev/null >&2 &
JPID=$!
for _ in $(seq 100); do [ -S /run/systemd/journal/socket ] && break; sleep 0.05; done
# The vision endpoint, on loopback in this network namespace.
exec 3< <(exec python3 "$ROOT/tests/relay/fake_openai.py" --until-killed </dev/null 2>/dev/null)
FPID=$!
read -r PORT <&3
printf '{"version":1,"clients":{"users":["pgs-agent"]},"expose_pixels":"analyze-only",
 "analysis":{"mode":"local-only","endpoints":{"local":{"kind":"openai",
   "url":"http://127.0.0.1:%s/ok/v1/chat/completions","model":"m"}}},
 "audit":{"journal":true}}\n' "$PORT" >"$T/etc/policy.json"
chmod 0644 "$T/etc/policy.json"
# PrivateDevices=yes: a /dev with the pseudo devices only.
D=$T/dev.new
mkdir -p "$D" && mount -t tmpfs -o mode=0755,nosuid tmpfs "$D"
for n in null zero full random urandom tty; do touch "$D/$n"; mount --bind "/dev/$n" "$D/$n"; done
mkdir "$D/shm" && mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$D/shm"
ln -s /proc/self/fd "$D/fd"; ln -s /proc/self/fd/0 "$D/stdin"; ln -s /proc/self/fd/1 "$D/stdout"; ln -s /proc/self/fd/2 "$D/stderr"
mount --move "$D" /dev
# ProtectHome=yes
for h in /home /root; do mount -t tmpfs -o ro,mode=0755 tmpfs "$h"; done
# ProtectSystem=strict, ProtectKernelTunables, ProtectControlGroups: every
# mount read-only but the API trees and journald's own. A failure fails the test.
findmnt -rn -o TARGET | while read -r m; do
    case $m in /proc|/proc/*|/dev|/dev/*|/run/systemd|/run/log) continue ;; esac
    mount -o remount,bind,ro "$m"
done
if [ "$PROC_SUBSET" = pid ]; then # ProcSubset=pid: a /proc of process directories only
    mount -t proc -o subset=pid,nosuid,nodev,noexec proc /proc
else
    mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys
fi
# StateDirectory and RuntimeDirectory stay writable.
for w in "$T/state" "$T/run"; do mount --bind "$w" "$w"; mount -o remount,bind,rw "$w"; done
cd /
umask 0077
setpriv --reuid=pixelgate --regid=pixelgate --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all \
    env -i PATH=/usr/bin:/bin DISPLAY="$DISPLAY_" OMP_THREAD_LIMIT=1 ASAN_OPTIONS=detect_leaks=0 \
    "$T/bin/pg_unit_exec" --families "$FAMS" --syscalls "$T/syscalls.txt" $MDWE -- \
    "$T/bin/pixelgated" --foreground --socket "$T/run/broker.sock" --state-dir "$T/state" --policy "$T/etc/policy.json" &
BPID=$!
trap 'kill $BPID; wait $BPID; kill $JPID $FPID; wait' TERM
wait $BPID
EOF
    rm -f "$PG_SOCK"
    unshare --mount --net --propagation private bash "$PG_TMP/sandbox.sh" "$PG_TMP" "$fams" "$MDWE" "$PG_DISPLAY" \
        "$PG_ROOT" "$(unit_value ProcSubset)" 2>>"$PG_TMP/broker.log" &
    SANDBOX_PID=$!
    local i
    for i in $(seq 200); do
        if [ -S "$PG_SOCK" ]; then
            BROKER_PID=$(pgrep -u pixelgate -f "pixelgated --foreground --socket $PG_SOCK" | head -1)
            [ -n "$BROKER_PID" ] && return 0
        fi
        kill -0 "$SANDBOX_PID" 2>/dev/null || break
        sleep 0.05
    done
    pg_die "the sandboxed broker did not start: $(tail -20 "$PG_TMP/broker.log")"
}
# The sandbox's shell stops the broker, journald and the endpoint on TERM.
sandbox_stop() {
    [ -n "$SANDBOX_PID" ] || return 0
    kill -TERM "$SANDBOX_PID" 2>/dev/null
    wait "$SANDBOX_PID" 2>/dev/null
    SANDBOX_PID=
}
# Runs a probe in the sandbox's namespaces, as the broker's user, under the same seccomp.
# (ASAN_OPTIONS, for sanitizer builds: LeakSanitizer needs ptrace, which the
# unit's system call filter refuses; the other tests check for leaks.)
in_sandbox() {
    nsenter -t "$BROKER_PID" -m -n setpriv --reuid=pixelgate --regid=pixelgate --clear-groups --no-new-privs \
        env ASAN_OPTIONS=detect_leaks=0 \
        "$PG_TMP/bin/pg_unit_exec" --families "$1" --syscalls "$PG_TMP/syscalls.txt" $MDWE "${@:2}"
}

# ---- the unit as it ships ----
sandbox_start "$FAMILIES"
check "the broker runs as pixelgate under the unit's restrictions" \
    test "$(ps -o user= -p "$BROKER_PID" | tr -d ' ')" = pixelgate
check "its seccomp filters are on (Seccomp: 2 in /proc/PID/status)" \
    grep -qE '^Seccomp:[[:space:]]+2' "/proc/$BROKER_PID/status"
check "it cannot write outside its state and runtime directories (ProtectSystem=strict)" \
    bash -c "! nsenter -t $BROKER_PID -m setpriv --reuid=pixelgate --regid=pixelgate --clear-groups touch /var/tmp/pg-sandbox-probe 2>/dev/null"
out=$(pg_as "$PG_AGENT" pixelgate ping)
check "ping answers" test "$(jq -r .peer.user <<<"$out")" = "$PG_AGENT"
snap=$(pg_as "$PG_AGENT" pixelgate snapshot --window 'pixelgate demo')
TOKEN=$(jq -r .token <<<"$snap")
check "snapshot captures the Tk window over the X socket" grep -qE '^cap:' <<<"$TOKEN"
out=$(pg_as "$PG_AGENT" pixelgate ocr "$TOKEN")
check "OCR works (MemoryDenyWriteExecute, the system call filter)" grep -q "Press me" <<<"$(jq -r .text <<<"$out")"
out=$(pg_as "$PG_AGENT" pixelgate analyze "$TOKEN" --prompt 'what is it?' --endpoint local 2>&1)
check "analyze reaches the loopback endpoint (AF_INET allowed)" grep -q "size: " <<<"$(jq -r .answer <<<"$out" 2>/dev/null)"
[ "$(jq -r .answer <<<"$out" 2>/dev/null)" != null ] || echo "# analyze: $out"
for fam in AF_NETLINK AF_PACKET; do
    r=$(in_sandbox "$FAMILIES" --probe-socket "$fam")
    check "a socket of a family the unit forbids ($fam) is refused: $r" test "$r" = EAFNOSUPPORT
done
r=$(in_sandbox "$FAMILIES" --probe-socket AF_INET)
check "an AF_INET socket is allowed: $r" test "$r" = ok
# The journal copies, checked the way docs/audit.md says.
sandbox_stop
JDIR=$PG_TMP/journal/journal
copies=$(journalctl -D "$JDIR" -o json --no-pager MESSAGE_ID=$MSGID 2>/dev/null)
records=$(wc -l <"$PG_TMP/state/audit.jsonl")
check "every audit record ($records) has its copy in the journal" test "$(grep -c . <<<"$copies")" = "$records"
bad=0
while IFS=' ' read -r seq hash; do
    "$PG_TMP/bin/pixelgated" --verify-audit "$PG_TMP/state/audit.jsonl" --anchor "$seq:$hash" >/dev/null 2>&1 ||
        { bad=$((bad + 1)); echo "# copy $seq:$hash does not check"; }
done < <(jq -r '"\(.PIXELGATE_AUDIT_SEQ) \(.PIXELGATE_AUDIT_HASH)"' <<<"$copies")
check "each copy's SEQ:HASH checks against the chained file (--verify-audit --anchor)" test "$bad" = 0
check "the copies carry no window title" bash -c '! grep -q "PIXELGATE_WINDOW_TITLE\|pixelgate demo" <<<"$1"' _ "$copies"
# analyze has an effect outside the broker: its intent is on record before the relay, its result after.
check "the copies say who did what (the intent, then the outcome)" \
    test "$(jq -r 'select(.PIXELGATE_OP == "analyze") | "\(.PIXELGATE_USER) \(.PIXELGATE_DISPOSITION) \(.PIXELGATE_ENDPOINT) \(.PIXELGATE_OUTCOME)"' <<<"$copies")" = \
         "$PG_AGENT analyze local INTENT"$'\n'"$PG_AGENT analyze local OK"

# ---- the unit before this change: AF_UNIX only ----
sandbox_start AF_UNIX
snap=$(pg_as "$PG_AGENT" pixelgate snapshot --window 'pixelgate demo')
out=$(pg_as "$PG_AGENT" pixelgate analyze "$(jq -r .token <<<"$snap")" --prompt 'what is it?' --endpoint local 2>&1)
rc=$?
check "with RestrictAddressFamilies=AF_UNIX the relay cannot reach the endpoint (exit $rc)" test "$rc" != 0
echo "# AF_UNIX only: $(jq -c .error.message <<<"$out" 2>/dev/null)"
sandbox_stop

score=$(systemd-analyze security --offline=yes "$UNIT" 2>/dev/null | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
echo "# systemd-analyze security --offline=yes: exposure $score"
check "systemd-analyze security --offline: exposure at most 2.5 (it is $score)" \
    bash -c 'systemd-analyze security --offline=yes --threshold=25 "$1" >/dev/null 2>&1' _ "$UNIT"
pg_summary
