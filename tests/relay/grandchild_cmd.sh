#!/bin/sh
# SPDX-License-Identifier: MIT
# Fake command that hangs with a grandchild; writes the grandchild's pid to $1.
# On timeout the relay must kill the whole process group.
sleep 60 &
echo $! > "$1"
wait
