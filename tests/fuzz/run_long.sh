#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run_long.sh - every fuzz target for a long time, on demand (not in CI; CI
# runs each for PG_FUZZ_SECONDS over its corpus):
#   bash tests/fuzz/run_long.sh [MINUTES_PER_TARGET] [build-dir]   (default 10, build/fuzz)
# Builds the fuzz preset if needed, runs each target one after another over a
# scratch copy of its corpus (new inputs are kept there, not in the repo),
# with the same limits as CI (2 GiB RSS, 10 s per input), and ends with one
# line per target. A crash leaves its input in the scratch dir and fails.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
MIN=${1:-10}
BUILD=${2:-$REPO/build/fuzz}
[ -d "$BUILD" ] || cmake --preset fuzz >/dev/null || exit 1
nice -n 10 cmake --build "$BUILD" -j 2 >/dev/null || { echo "run_long.sh: build failed" >&2; exit 1; }
WORK=$(mktemp -d /tmp/pg-fuzz-long.XXXXXX)
results=() failed=0
for corpus in "$REPO"/tests/fuzz/corpus/*/; do
    name=$(basename "$corpus")
    bin=$(find "$BUILD/tests/fuzz" -maxdepth 2 -type f -name "$name" -perm -u+x | head -1)
    [ -n "$bin" ] || { results+=("$name: NOT BUILT"); failed=1; continue; }
    mkdir -p "$WORK/$name" && cp -r "$corpus." "$WORK/$name/"
    echo "== $name: $MIN min"
    (cd "$WORK/$name" && "$bin" -max_total_time=$((MIN * 60)) -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
        "$WORK/$name" >"$WORK/$name.log" 2>&1)
    rc=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$WORK/$name.log" | grep -o '[0-9]*$')
    if [ $rc = 0 ]; then results+=("$name: ok, ${runs:-?} runs"); else results+=("$name: FAILED (exit $rc), see $WORK/$name.log"); failed=1; fi
done
printf '%s\n' "${results[@]}"
echo "scratch corpora and logs: $WORK"
exit $failed
