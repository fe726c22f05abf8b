#!/bin/sh
# SPDX-License-Identifier: MIT
# Fake command: prints something, complains on stderr, exits with status $1.
cat > /dev/null
echo "partial answer"
echo "the model server is down" >&2
exit "$1"
