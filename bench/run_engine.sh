#!/bin/sh
# SPDX-License-Identifier: MIT
# Engine benchmark, side by side in one run: pixelgate's diff against
# pixelmatch 7.2.0 and 8.0.0 (node, the call only; opaque screens and a
# transparent 1080p pair, each metric against its generation) and
# ImageMagick `compare -metric AE`
# (whole process); template matching against OpenCV matchTemplate (2 threads);
# dHash, SHA-256 and PNG encoding per frame against what a user would reach
# for (OpenCV resize INTER_AREA, Python hashlib, cv2.imencode). Generated
# 1280x720, 1920x1080 and 3840x2160 pairs. Prints a markdown table of medians
# and ratios (docs/performance.md, section "Engine").
# Usage: sh bench/run_engine.sh [BENCH_ENGINE_BINARY] [REPS]
#   (after: cmake --build build/default --target bench_engine)
#   PG_BENCH_ONLY=diff: the diff rows alone
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tool=${1:-$here/../build/default/bench/bench_engine}
reps=${2:-15}
[ -x "$tool" ] || { echo "run_engine.sh: build bench_engine first ($tool)" >&2; exit 1; }
mods=$(sh "$here/../tests/oracle/setup.sh")
py=""
for cand in ${PG_ORACLE_PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import cv2, numpy' 2>/dev/null; then py=$cand; break; fi
done
[ -n "$py" ] || { echo "run_engine.sh: no python3 with OpenCV (apt-get install python3-opencv)" >&2; exit 1; }
command -v compare >/dev/null 2>&1 || { echo "run_engine.sh: ImageMagick compare missing" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pg-bench-engine.XXXXXX")
trap 'rm -rf "$work"' EXIT
exec "$py" "$here/run_engine.py" "$tool" "$mods" "$work" "$reps"
