#!/bin/sh
# SPDX-License-Identifier: MIT
# Cross-build determinism of the design comparison: builds bench/design_xcheck.c
# against the engine of three build trees (gcc: build/default, clang:
# build/clang, mingw-w64: build/mingw, run under Wine) and requires their
# outputs - JSON, raw scores in hex floating point, image checksums - to be
# byte-identical. Build pg_engine in each tree first, e.g.
#   cmake --preset clang && cmake --build build/clang --target pg_engine
# Wine: runs with the caller's WINEPREFIX/DISPLAY (source scripts/wine-env.sh
# and pg_wine_up first); without Wine or the mingw tree it says so and fails.
# Usage: sh bench/run_design_xcheck.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$here/..
work=$(mktemp -d "${TMPDIR:-/tmp}/pg-xcheck.XXXXXX")
trap 'rm -rf "$work"' EXIT
inc="-I$root/broker/engine -I$root/common -I$root/tests/unit"
native_libs="-lcjson -lpng -lcrypto -lm"
pkg-config --exists libjpeg 2>/dev/null && native_libs="$native_libs -ljpeg"
pkg-config --exists libwebp 2>/dev/null && native_libs="$native_libs -lwebp"
for cc in gcc clang; do
    tree=$root/build/default
    [ $cc = clang ] && tree=$root/build/clang
    [ -f "$tree/broker/engine/libpg_engine.a" ] || { echo "xcheck: build pg_engine in $tree first" >&2; exit 1; }
    $cc -O2 -std=c17 $inc -I/usr/include/cjson "$here/design_xcheck.c" "$tree/broker/engine/libpg_engine.a" \
        "$tree/common/libpg_common.a" $native_libs -o "$work/xcheck_$cc"
    "$work/xcheck_$cc" > "$work/out_$cc.txt"
done
sysroot=$(ls -d /var/cache/pixelgate-build/mingw-sysroot-* 2>/dev/null | tail -1)
[ -f "$root/build/mingw/broker/engine/libpg_engine.a" ] && [ -n "$sysroot" ] && command -v wine >/dev/null ||
    { echo "xcheck: mingw tree, sysroot or wine missing: cross-compiler check NOT done" >&2; exit 1; }
x86_64-w64-mingw32-gcc -O2 -std=c17 -D__USE_MINGW_ANSI_STDIO=1 $inc -I"$sysroot/include" -I"$sysroot/include/cjson" \
    "$here/design_xcheck.c" "$root/build/mingw/broker/engine/libpg_engine.a" "$root/build/mingw/common/libpg_common.a" \
    -L"$sysroot/lib" -lcjson -lpng16 -lz -lbcrypt -lws2_32 -static -o "$work/xcheck.exe"
wine "$work/xcheck.exe" 2>/dev/null | tr -d '\r' > "$work/out_mingw.txt"
lines=$(wc -l < "$work/out_gcc.txt")
status=0
for other in clang mingw; do
    if cmp -s "$work/out_gcc.txt" "$work/out_$other.txt"; then
        echo "gcc and $other: identical ($lines lines: 12 comparisons, 1 motion pair)"
    else
        echo "gcc and $other DIFFER:"; diff "$work/out_gcc.txt" "$work/out_$other.txt" | head -20; status=1
    fi
done
exit $status
