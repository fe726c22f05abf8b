#!/bin/sh
# SPDX-License-Identifier: MIT
# Fake command that never reads its stdin (the broker must survive EPIPE).
echo "VERDICT: MATCH - did not even look"
