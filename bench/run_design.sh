#!/bin/sh
# SPDX-License-Identifier: MIT
# Design-comparison benchmark, side by side in one run: pixelgate's SSIM
# against scikit-image's structural_similarity on the same grey images (call
# only, same value required), and the whole design comparison of a
# 1920x1080 pair (call only, and the whole process including PNG decoding).
# Prints a markdown table of medians and ratios.
# Usage: sh bench/run_design.sh [BENCH_ENGINE_BINARY] [REPS]
#   (after: cmake --build build/default --target bench_engine)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tool=${1:-$here/../build/default/bench/bench_engine}
reps=${2:-15}
[ -x "$tool" ] || { echo "run_design.sh: build bench_engine first ($tool)" >&2; exit 1; }
py=""
for cand in ${PG_ORACLE_PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import cv2, numpy, skimage' 2>/dev/null; then py=$cand; break; fi
done
[ -n "$py" ] || { echo "run_design.sh: no python3 with OpenCV and scikit-image (apt-get install python3-opencv python3-skimage)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pg-bench-design.XXXXXX")
trap 'rm -rf "$work"' EXIT
exec "$py" "$here/run_design.py" "$tool" "$work" "$reps"
