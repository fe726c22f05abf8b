#!/bin/sh
# SPDX-License-Identifier: MIT
# Fake judge command for the relay tests: answers the next verdict of a
# comma-separated sequence, counting its calls in STATEFILE.
#   judge_seq.sh STATEFILE SEQUENCE     e.g. MATCH,MISMATCH,MATCH
# Tokens: MATCH MISMATCH UNCERTAIN (a VERDICT line), FAIL (exit 3),
# SLEEP (sleep 30), GARBAGE (no VERDICT line), HUGE (3 MB of output),
# BOTH (two contradicting VERDICT lines). Past the end, the last token repeats.
state=$1
seq=$2
n=$(cat "$state" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > "$state"
bytes=$(wc -c | tr -d ' ')          # the PNG arrives on stdin
v=$(echo "$seq" | cut -d, -f"$n")
[ -n "$v" ] || v=$(echo "$seq" | awk -F, '{print $NF}')
case "$v" in
    FAIL) echo "judge broke on call $n" >&2; exit 3 ;;
    SLEEP) sleep 30 ;;
    GARBAGE) echo "looks fine to me"; exit 0 ;;
    HUGE) head -c 3000000 /dev/zero | tr '\0' x; exit 0 ;;
    BOTH) echo "VERDICT: MATCH - yes"; echo "VERDICT: MISMATCH - no"; exit 0 ;;
esac
echo "read $bytes bytes; expectation: $PIXELGATE_EXPECT"
echo "VERDICT: $v - call $n said so"
echo
