#!/bin/sh
# SPDX-License-Identifier: MIT
# Fake analysis command: reports what it received. The answer (last non-empty
# line) carries the SHA-256 of stdin, the prompt, and the environment's names.
sum=$(sha256sum | cut -d' ' -f1)
echo "diagnostic line that is not the answer"
echo "sha256=$sum endpoint=$PIXELGATE_ENDPOINT prompt=$PIXELGATE_PROMPT cwd=$(pwd) env=$(env | cut -d= -f1 | sort | tr '\n' ',')"
echo "   "
echo
