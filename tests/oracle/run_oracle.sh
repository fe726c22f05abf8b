#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs one oracle test (diff | template) with a python3 that has OpenCV.
# Fails loudly - never skips - when node, the npm packages or OpenCV are
# missing: an oracle test that does not run proves nothing.
# Usage: run_oracle.sh diff|template|ssim|color PG_ENGINE_TOOL WORKDIR
set -eu
here=$(cd "$(dirname "$0")" && pwd)
which_test=$1 tool=$2 work=$3
py=""
for cand in ${PG_ORACLE_PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import cv2, numpy' 2>/dev/null; then
        py=$cand
        break
    fi
done
if [ -z "$py" ]; then
    echo "ORACLE FAILURE: no python3 with OpenCV and numpy (apt-get install python3-opencv)" >&2
    exit 1
fi
rm -rf "$work"
mkdir -p "$work"
exec "$py" "$here/oracle_$which_test.py" "$tool" "$work"
