#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tess_smoke.sh - proves that the static mingw-w64 Tesseract of
# scripts/mingw-tesseract.sh works in a Windows process: cross-compiles
# tests/windows/tess_smoke.c against it, runs it under Wine on an image with
# "Hello pixelgate" and checks the recognised text.
#
# Usage: tests/windows/tess_smoke.sh
# Environment: PG_CACHE, PG_WINEPREFIX (default $cache/wineprefix-tess),
# PG_WINE_TIMEOUT, PG_TESS_KEEP=1 (keep the work dir).
#
# Contract: builds the mingw sysroot and the Tesseract prefix if needed, then
#   A. links tess_smoke.exe with x86_64-w64-mingw32-g++-posix -static and
#      `pkg-config --libs tesseract` (the .pc files of the prefix);
#   B. builds a throwaway CMake consumer (C only, the project's toolchain
#      cmake/mingw-w64.cmake, i.e. linked by the win32-model gcc driver) twice:
#      with include(PgTesseract.cmake) and with pkg_check_modules(tesseract):
#      the two ways broker/ocr can find it;
#   runs every .exe under Wine (scripts/wine-env.sh: Wine output to files,
#   never a pipe; bounded by timeout), with each dot-product kernel this CPU
#   has (DOTPRODUCT=generic/sse/avx/avx2/fma: the runtime-dispatched SIMD code
#   must not trip the Win64 stack-alignment rules), plus the prefix's
#   tesseract.exe; then times the same image natively (host tesseract, and
#   tess_smoke.c built against the host's libtesseract if it is installed).
#   Prints a summary; exits non-zero if any Windows run misses the text.
# Never: writes into the repo, reads stdin, pipes Wine's output, leaves Wine
# or Xvfb running.
set -euo pipefail
exec </dev/null

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TRIPLE=x86_64-w64-mingw32
TEXT="Hello pixelgate"
log() { printf 'tess-smoke: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# ImageMagick and a named font make the test image (as tests/unit/ocr.cmake).
need_packages() {
    local p miss=()
    for p in imagemagick fonts-dejavu-core; do
        dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null | grep -qx installed || miss+=("$p")
    done
    [ ${#miss[@]} = 0 ] && return 0
    log "installing: ${miss[*]}"
    local run=()
    [ "$(id -u)" = 0 ] || run=(sudo -n)
    "${run[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        -oDPkg::Lock::Timeout=600 "${miss[@]}" >&2
}

SYSROOT=$("$REPO/scripts/mingw-deps.sh")
PREFIX=$("$REPO/scripts/mingw-tesseract.sh" "$SYSROOT")
need_packages
# shellcheck source=/dev/null
. "$PREFIX/share/pixelgate/tessdata.env"
log "sysroot $SYSROOT"
log "tesseract prefix $PREFIX"

W=$(mktemp -d "${TMPDIR:-/tmp}/tess-smoke.XXXXXX")
cleanup() {
    local rc=$?
    if [ "${PG_WINE_UP:-0}" = 1 ]; then pg_wine_down; fi
    if [ "$rc" = 0 ] && [ "${PG_TESS_KEEP:-0}" != 1 ]; then rm -rf "$W"; else log "work dir kept: $W"; fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the image ---------------------------------------------------------------
convert -size 400x80 xc:white -font DejaVu-Sans -pointsize 32 -fill black \
    -annotate +10+50 "$TEXT" "$W/hello.png"

# --- A: g++ (POSIX thread model) + pkg-config ---------------------------------
export PKG_CONFIG_LIBDIR="$PREFIX/lib/pkgconfig:$SYSROOT/lib/pkgconfig:/usr/$TRIPLE/lib/pkgconfig"
unset PKG_CONFIG_PATH
log "A: $TRIPLE-g++-posix -static \$(pkg-config --libs tesseract)"
# shellcheck disable=SC2046
"$TRIPLE-gcc-posix" -std=c17 -O2 -Wall -Wextra -Werror -c "$REPO/tests/windows/tess_smoke.c" \
    -o "$W/tess_smoke.o" $(pkg-config --cflags tesseract lept)
# shellcheck disable=SC2046
"$TRIPLE-g++-posix" -static -o "$W/tess_smoke_gxx.exe" "$W/tess_smoke.o" $(pkg-config --libs tesseract lept)

# --- B: a CMake consumer, C only, the project's toolchain ---------------------
mkdir -p "$W/consumer"
GCCLIBDIR=$(pkg-config --variable=gcclibdir tesseract)
cat >"$W/consumer/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.25)
project(tess_consumer C)
# 1) the generated snippet: absolute .a paths, nothing to search
include("$PREFIX/lib/cmake/PgTesseract.cmake")
add_executable(tess_smoke_snippet "$REPO/tests/windows/tess_smoke.c")
target_link_libraries(tess_smoke_snippet PRIVATE PgTesseract::tesseract)
# 2) pkg-config, as broker/ocr/CMakeLists.txt does on Linux. FindPkgConfig
#    turns every -lNAME into find_library(NAME): the prefix and the POSIX
#    libstdc++ dir must be find roots, and only .a may match (else it takes
#    libstdc++.dll.a, libwinpthread.dll.a, libz.dll.a: the .exe then needs DLLs).
list(APPEND CMAKE_FIND_ROOT_PATH "$PREFIX" "$GCCLIBDIR")
set(CMAKE_FIND_LIBRARY_SUFFIXES .a)
set(ENV{PKG_CONFIG_LIBDIR} "$PREFIX/lib/pkgconfig:\$ENV{PKG_CONFIG_LIBDIR}")
find_package(PkgConfig REQUIRED)
pkg_check_modules(PG_TESSERACT REQUIRED IMPORTED_TARGET tesseract>=5.0)
message(STATUS "PG_TESSERACT_LINK_LIBRARIES=\${PG_TESSERACT_LINK_LIBRARIES}")
add_executable(tess_smoke_pc "$REPO/tests/windows/tess_smoke.c")
target_link_libraries(tess_smoke_pc PRIVATE PkgConfig::PG_TESSERACT)
EOF
log "B: CMake consumer (cmake/mingw-w64.cmake, C linker)"
if ! { cmake -S "$W/consumer" -B "$W/consumer-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$REPO/cmake/mingw-w64.cmake" -DPG_MINGW_SYSROOT="$SYSROOT" &&
    cmake --build "$W/consumer-build" -v; } >"$W/consumer.log" 2>&1; then
    tail -n 30 "$W/consumer.log" >&2
    die "CMake consumer failed (log: $W/consumer.log)"
fi
cp "$W/consumer-build/tess_smoke_snippet.exe" "$W/consumer-build/tess_smoke_pc.exe" "$W/"
# Fully static: only DLLs that every Windows has (no libstdc++-6, libwinpthread-1,
# zlib1, libgcc_s).
for exe in "$W"/*.exe; do
    dlls=$("$TRIPLE-objdump" -p "$exe" | awk '/DLL Name:/ {print $3}' | tr '\n' ' ')
    case " ${dlls,,}" in *" lib"*|*zlib*) die "$(basename "$exe") imports non-system DLLs: $dlls" ;; esac
    log "$(basename "$exe"): $(stat -c %s "$exe") bytes, imports: $dlls"
done

# --- run under Wine -----------------------------------------------------------
export PG_WINEPREFIX=${PG_WINEPREFIX:-$(dirname "$SYSROOT")/wineprefix-tess}
export PG_WINE_NO_TRAP=1
# shellcheck source=scripts/wine-env.sh
. "$REPO/scripts/wine-env.sh"
pg_wine_up
PG_WINE_UP=1

FAILS=0
RESULTS=()
# wine_run NAME [ENV=VAL...] -- ARGS...: output in $W/NAME.out/.err, never a pipe.
wine_run() {
    local name=$1 t0 rc=0
    shift
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    t0=$(date +%s%N)
    env "${envs[@]}" timeout "$PG_WINE_TIMEOUT" "$PG_WINE" "$@" >"$W/$name.out" 2>"$W/$name.err" </dev/null 8>&- || rc=$?
    WALL_MS=$((($(date +%s%N) - t0) / 1000000))
    return "$rc"
}
IMG_WIN="Z:$W/hello.png"
check() { # NAME EXE [ENV...]
    local name=$1 exe=$2 rc=0
    shift 2
    wine_run "$name" "$@" -- "Z:$W/$exe" "$IMG_WIN" "$TESSDATA_DIR_WINE" "$TEXT" 3 || rc=$?
    # pg_ocr promises silence on stderr: the libraries must not print (Wine's
    # own messages are off: WINEDEBUG=-all).
    if [ "$rc" = 0 ] && grep -q '^PASS' "$W/$name.out" && [ ! -s "$W/$name.err" ]; then
        RESULTS+=("PASS $name (wall ${WALL_MS} ms): $(grep '^timing' "$W/$name.out")")
    else
        FAILS=$((FAILS + 1))
        RESULTS+=("FAIL $name (exit $rc): $(tr '\n' ' ' <"$W/$name.out" | cut -c1-300) $(tail -n 3 "$W/$name.err" | tr '\n' ' ')")
    fi
}
check gxx tess_smoke_gxx.exe
check snippet tess_smoke_snippet.exe
check pkgconfig tess_smoke_pc.exe
for k in generic sse avx avx2 fma; do
    case $k in
        generic) ;;
        sse) grep -qw sse4_1 /proc/cpuinfo || continue ;;
        *) grep -qw "$k" /proc/cpuinfo || continue ;;
    esac
    check "dotproduct-$k" tess_smoke_gxx.exe "DOTPRODUCT=$k"
done
# The forward-slash spelling of the data path works too (CMake-friendly).
if wine_run fwdslash -- "Z:$W/tess_smoke_gxx.exe" "$IMG_WIN" "Z:$TESSDATA_DIR" "$TEXT" 0; then
    RESULTS+=("PASS datapath Z:$TESSDATA_DIR")
else
    FAILS=$((FAILS + 1))
    RESULTS+=("FAIL datapath Z:$TESSDATA_DIR")
fi
# The prefix's command-line tesseract.exe, same settings (LSTM, one block).
rc=0
wine_run cli -- "$PREFIX/bin/tesseract.exe" "$IMG_WIN" stdout --tessdata-dir "$TESSDATA_DIR_WINE" \
    -l eng --oem 1 --psm 6 || rc=$?
if [ "$rc" = 0 ] && grep -q "$TEXT" "$W/cli.out"; then
    RESULTS+=("PASS tesseract.exe under Wine (wall ${WALL_MS} ms incl. Wine start): $(head -n1 "$W/cli.out")")
else
    FAILS=$((FAILS + 1))
    RESULTS+=("FAIL tesseract.exe (exit $rc): $(head -c 300 "$W/cli.out") $(tail -n 3 "$W/cli.err")")
fi
pg_wine_down
PG_WINE_UP=0

# --- native baseline (informational) ------------------------------------------
if command -v tesseract >/dev/null; then
    t0=$(date +%s%N)
    OMP_THREAD_LIMIT=1 tesseract "$W/hello.png" stdout --tessdata-dir "$TESSDATA_DIR" -l eng --oem 1 --psm 6 \
        >"$W/native-cli.out" 2>"$W/native-cli.err" || true
    RESULTS+=("native tesseract CLI (wall $((($(date +%s%N) - t0) / 1000000)) ms): $(head -n1 "$W/native-cli.out")")
fi
if (unset PKG_CONFIG_LIBDIR; pkg-config --exists tesseract lept) 2>/dev/null; then
    # shellcheck disable=SC2046
    if (unset PKG_CONFIG_LIBDIR; gcc -std=c17 -O2 -o "$W/tess_smoke_native" "$REPO/tests/windows/tess_smoke.c" \
        $(pkg-config --cflags --libs tesseract lept)) >"$W/native-build.log" 2>&1; then
        OMP_THREAD_LIMIT=1 "$W/tess_smoke_native" "$W/hello.png" "$TESSDATA_DIR" "$TEXT" 3 \
            >"$W/native.out" 2>"$W/native.err" || true
        RESULTS+=("native tess_smoke (host libtesseract): $(grep '^timing\|^FAIL' "$W/native.out")")
    fi
else
    RESULTS+=("native tess_smoke skipped (no host libtesseract-dev/libleptonica-dev)")
fi

printf '\n== tess-smoke summary\n' >&2
head -n 2 "$W/gxx.out" >&2
printf '%s\n' "${RESULTS[@]}" >&2
[ "$FAILS" = 0 ] || die "$FAILS Windows run(s) failed"
log "OK"
