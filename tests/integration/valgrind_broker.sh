#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The long-running broker under valgrind memcheck: many requests of every
# kind, from several clients at once, a policy reload, then SIGTERM. Passes
# only when valgrind reports no errors and no definite leaks.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
PG_AGENT=pgv-agent
PG_OTHER=pgv-other
pg_require_root
pg_require_tools valgrind Xvfb xauth xhost wish jq runuser useradd convert
trap pg_cleanup EXIT
pg_user pixelgate system
pg_user "$PG_AGENT"
pg_user "$PG_OTHER"
pg_setup_dirs
pg_start_xvfb
pg_start_app
runuser -u pixelgate -- env -i PATH=/usr/bin:/bin OMP_THREAD_LIMIT=1 valgrind --quiet --error-exitcode=99 \
    --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite \
    --log-file="$PG_TMP/run/valgrind.log" "$PG_TMP/bin/pixelgated" --foreground --socket "$PG_SOCK" \
    --state-dir "$PG_TMP/state" --policy "$PG_POLICY" --display "$PG_DISPLAY" 2>>"$PG_TMP/broker.log" &
VG=$!
for i in $(seq 300); do [ -S "$PG_SOCK" ] && break; sleep 0.1; done
check "broker listens under valgrind" test -S "$PG_SOCK"
W='^pixelgate demo$'
client_loop() {
    local i t
    for i in $(seq "$1"); do
        pg_as "$PG_AGENT" pixelgate ping >/dev/null
        pg_as "$PG_AGENT" pixelgate windows >/dev/null
        t=$(pg_as "$PG_AGENT" pixelgate snapshot --window "$W" --no-settle | jq -r .token)
        pg_as "$PG_AGENT" pixelgate info "$t" >/dev/null
        pg_as "$PG_AGENT" pixelgate hash "$t" --algo dhash >/dev/null
        pg_as "$PG_AGENT" pixelgate snapshot --window "$W" --max-size 100x100 >/dev/null
        pg_as "$PG_OTHER" pixelgate info "$t" >/dev/null 2>&1
        pg_as "$PG_AGENT" pixelgate release "$t" --base64 >/dev/null 2>&1
        pg_as "$PG_AGENT" pixelgate snapshot --window 'nothing like this' >/dev/null 2>&1
    done
}
client_loop 10 & A=$!
client_loop 10 & B=$!
wait $A $B
T1=$(pg_as "$PG_AGENT" pixelgate snapshot --window "$W" | jq -r .token)
pg_as "$PG_AGENT" pixelgate click --window "$W" --at 240,107 >/dev/null
pg_as "$PG_AGENT" pixelgate type --window "$W" 'héllo' >/dev/null
T2=$(pg_as "$PG_AGENT" pixelgate snapshot --window "$W" | jq -r .token)
out=$(pg_as "$PG_AGENT" pixelgate diff "$T1" "$T2")
check "diff works under valgrind" test "$(jq .sizes_match <<<"$out")" = true
pg_as "$PG_AGENT" pixelgate assert template "$T2" --template "$T1" >/dev/null 2>&1
pg_as "$PG_AGENT" pixelgate wait-stable --window "$W" --interval 0.2 --timeout 20 >/dev/null
check "wait-stable works under valgrind" test $? = 0
printf 'not a frame at all' | pg_as "$PG_AGENT" python3 -c "import socket,sys;s=socket.socket(socket.AF_UNIX);s.connect('$PG_SOCK');s.sendall(sys.stdin.buffer.read());s.close()" 2>/dev/null
kill -HUP "$(pgrep -u pixelgate -f "pixelgated --foreground --socket $PG_SOCK" | head -1)" 2>/dev/null
sleep 1
pg_as "$PG_AGENT" pixelgate ping >/dev/null
check "broker still answers after garbage and a reload" test $? = 0
kill -TERM "$(pgrep -u pixelgate -f "pixelgated --foreground --socket $PG_SOCK" | head -1)"
wait $VG
rc=$?
check "valgrind: no errors, no definite leaks (exit $rc)" test $rc = 0
[ $rc = 0 ] || sed 's/^/# /' "$PG_TMP/run/valgrind.log" | head -60
pg_summary
