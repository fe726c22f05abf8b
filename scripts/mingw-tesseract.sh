#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mingw-tesseract.sh - build Tesseract 5 and Leptonica as STATIC
# x86_64-w64-mingw32 libraries, so that the broker's OCR module (Tesseract C
# API, tesseract/capi.h) exists in the Windows build.
#
# Usage: prefix=$(scripts/mingw-tesseract.sh [SYSROOT])
#   SYSROOT: the dependency sysroot of scripts/mingw-deps.sh (libpng, zlib
#   comes from /usr/x86_64-w64-mingw32); default $PG_MINGW_SYSROOT, else the
#   output of scripts/mingw-deps.sh (which this script then runs).
#
# Contract:
#   1. Installs (apt-get, as root or through sudo) what is missing: the C++
#      cross compiler with the POSIX thread model (g++-mingw-w64-x86-64-posix:
#      Tesseract needs std::mutex/std::thread, which GCC 12's win32 thread
#      model lacks), dpkg-dev, cmake, ninja, and the English language data
#      tesseract-ocr-eng (read at run time, not linked).
#   2. Builds Debian's source packages `leptonlib` and `tesseract` (apt-get
#      source through the private deb-src list that scripts/mingw-deps.sh keeps
#      in $PG_CACHE/debsrc; the system's apt state is never touched) with
#      every optional feature off: no libarchive/curl/OpenMP/OpenCL/ScrollView/
#      training tools; Leptonica reads PNG (and its own BMP/PNM) only.
#      SIMD: no -march=native; the AVX/AVX2/AVX512F/FMA/SSE4.1 kernels are
#      compiled per file and chosen at run time by CPUID (simddetect.cpp), so
#      the result runs on any x86_64. Installs into
#        ${PG_CACHE:-/var/cache/pixelgate-build}/mingw-tesseract-<key>
#      with <key> = recipe, compiler, package versions and the sysroot.
#      A complete prefix is reused as is: reruns take about a second.
#   3. The prefix holds, besides include/ and lib/:
#      lib/pkgconfig/{tesseract,lept}.pc  static-complete (everything in Libs)
#      lib/cmake/PgTesseract.cmake         imported target PgTesseract::tesseract
#                                          (absolute .a paths, link order right)
#      share/pixelgate/tessdata.env        where the language data is, as a host
#                                          path and as the Wine (Z:) path
#   4. Prints the prefix as its ONLY line on stdout (progress to stderr, build
#      logs to $PG_CACHE/logs).
# Environment: PG_CACHE, PG_MINGW_SYSROOT, PG_DEPS_REFRESH=1 (re-read the
# Debian source index). Idempotent; safe to run concurrently (flock).
# Never: commits third-party source, writes into the repo, uses the network
# when the prefix for the current key already exists.
set -euo pipefail
exec </dev/null

RECIPE=1 # bump when the build flags below change
TRIPLE=x86_64-w64-mingw32
CC=$TRIPLE-gcc-posix
CXX=$TRIPLE-g++-posix
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOOLCHAIN=$HERE/../cmake/mingw-w64.cmake
TESSDATA=/usr/share/tesseract-ocr/5/tessdata
PKGS=(g++-mingw-w64-x86-64 g++-mingw-w64-x86-64-posix gcc-mingw-w64-x86-64 mingw-w64-x86-64-dev
      dpkg-dev xz-utils cmake ninja-build debian-archive-keyring tesseract-ocr-eng)

log() { printf 'mingw-tesseract: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
# shellcheck source-path=SCRIPTDIR source=lib/debsrc.sh
. "$HERE/lib/debsrc.sh"

# --- this script -------------------------------------------------------------

# The sysroot: argument, $PG_MINGW_SYSROOT, else scripts/mingw-deps.sh (which
# also creates the deb-src index in $SRC that we use below).
find_sysroot() {
    local s=${1:-${PG_MINGW_SYSROOT:-}}
    if [ -z "$s" ]; then
        log "no sysroot given: running scripts/mingw-deps.sh"
        s=$("$HERE/mingw-deps.sh")
    fi
    [ -f "$s/.pg-complete" ] || die "$s is not a complete sysroot of scripts/mingw-deps.sh"
    (cd "$s" && pwd)
}

prefix_key() {
    local gxx tm sys
    gxx=$("$CXX" -dumpfullversion)
    tm=$("$CXX" -v 2>&1 | sed -n 's/^Thread model: //p')
    case "$gxx" in *"$tm"*) ;; *) gxx=$gxx-$tm ;; esac
    # The sysroot's path names its package versions, and the .pc files and
    # PgTesseract.cmake embed it: a hash keeps this name short while another
    # sysroot still means another prefix.
    sys=$(printf '%s' "$SYSROOT" | sha256sum | cut -c1-12)
    echo "r$RECIPE-$TRIPLE-gxx$gxx-lept$LEPT_V-tess$TESS_V-sys$sys" | tr ':~' '__'
}

# The project's toolchain (find roots, -static, Wine emulator), plus the C++
# compiler and this prefix as one more find root (Leptonica's CMake package).
# C goes through the POSIX-model driver too: CMake passes the C compiler's
# implicit link directory (.../12-win32) as -L when linking C++, which would
# pull in the win32-model libstdc++.
write_toolchain() {
    cat >"$WORK/toolchain.cmake" <<EOF
include("$TOOLCHAIN")
set(CMAKE_C_COMPILER "$(command -v "$CC")")
set(CMAKE_CXX_COMPILER "$(command -v "$CXX")")
list(APPEND CMAKE_FIND_ROOT_PATH "$PREFIX")
EOF
}

cmake_build() {
    local name=$1 src=$2 bld=$WORK/$1-build
    shift 2
    log "building $name (log: $LOGS/$name-build.log)"
    {
        cmake -S "$src" -B "$bld" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$WORK/toolchain.cmake" \
            -DPG_MINGW_SYSROOT="$SYSROOT" -DCMAKE_BUILD_TYPE=Release \
            -DCMAKE_INSTALL_PREFIX="$PREFIX" -DBUILD_SHARED_LIBS=OFF "$@" &&
            cmake --build "$bld" && cmake --install "$bld"
    } >"$LOGS/$name-build.log" 2>&1 ||
        { tail -n 30 "$LOGS/$name-build.log" >&2; die "building $name failed"; }
}

# Static-complete .pc files: the prefix has no DLLs, so every library goes in
# Libs (a consumer that asks without --static still gets a working line).
# libstdc++ and winpthread are the POSIX-thread-model ones Tesseract was
# compiled against; a win32-model gcc driver would otherwise pick its own.
write_pkgconfig() {
    local pc=$PREFIX/lib/pkgconfig gccdir
    gccdir=$(dirname "$("$CXX" -print-file-name=libstdc++.a)")
    gccdir=$(cd "$gccdir" && pwd)
    mkdir -p "$pc"
    cat >"$pc/lept.pc" <<EOF
prefix=$PREFIX
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: leptonica
Description: Leptonica $LEPT_UPSTREAM (Debian leptonlib $LEPT_V), static, PNG I/O only
Version: $LEPT_UPSTREAM
Requires: libpng16 zlib
Libs: -L\${libdir} -l$LEPT_LIB
Cflags: -I\${includedir} -I\${includedir}/leptonica
EOF
    cat >"$pc/tesseract.pc" <<EOF
prefix=$PREFIX
libdir=\${prefix}/lib
includedir=\${prefix}/include
gcclibdir=$gccdir

Name: tesseract
Description: Tesseract OCR $TESS_UPSTREAM (Debian tesseract $TESS_V), static, C++ runtime: POSIX thread model
Version: $TESS_UPSTREAM
Requires: lept
Libs: -L\${libdir} -l$TESS_LIB -L\${gcclibdir} -lstdc++ -lwinpthread -lws2_32
Cflags: -I\${includedir}
EOF
}

# For CMake consumers: absolute paths in link order, no find_library() (whose
# .dll.a-first search and find-root rerooting would not give these files).
write_cmake_snippet() {
    local f=$PREFIX/lib/cmake/PgTesseract.cmake png
    png=$(ls "$SYSROOT"/lib/libpng16.a)
    mkdir -p "$(dirname "$f")"
    cat >"$f" <<EOF
# PgTesseract.cmake - generated by scripts/mingw-tesseract.sh; include() it.
# Defines PgTesseract::tesseract (static Tesseract $TESS_UPSTREAM + Leptonica
# $LEPT_UPSTREAM for $TRIPLE, C++ runtime of the POSIX thread model) and
# PG_TESSDATA_DIR / PG_TESSDATA_DIR_WINE (the host's English language data).
if(NOT TARGET PgTesseract::tesseract)
  add_library(PgTesseract::tesseract INTERFACE IMPORTED)
  set_target_properties(PgTesseract::tesseract PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "$PREFIX/include;$PREFIX/include/leptonica"
    INTERFACE_LINK_LIBRARIES "$PREFIX/lib/lib$TESS_LIB.a;$PREFIX/lib/lib$LEPT_LIB.a;$png;/usr/$TRIPLE/lib/libz.a;$("$CXX" -print-file-name=libstdc++.a);/usr/$TRIPLE/lib/libwinpthread.a;ws2_32")
endif()
set(PG_TESSERACT_VERSION "$TESS_UPSTREAM")
set(PG_TESSDATA_DIR "$TESSDATA")
set(PG_TESSDATA_DIR_WINE "Z:$TESSDATA") # Wine maps the host's / to Z:
EOF
}

build_prefix() {
    rm -rf "$PREFIX" "$WORK"
    mkdir -p "$PREFIX" "$WORK"
    write_toolchain
    local src
    src=$(unpack_src leptonlib "$LEPT_V")
    # SW_BUILD defaults to ON on WIN32 (fetches packages with the sw tool).
    # GIF/JPEG/TIFF/WebP/OpenJPEG: none exist for mingw here; disabling the
    # look-ups keeps a stray copy from changing what gets linked.
    # NO_CONSOLE_IO compiles Leptonica's stderr messages out: without libtiff,
    # every Tesseract engine's DebugPixa (bmfCreate) would print four "function
    # not present" lines, and pg_ocr promises never to write stderr.
    cmake_build leptonica "$src" -DSW_BUILD=OFF -DBUILD_PROG=OFF \
        -DCMAKE_C_FLAGS="-D__USE_MINGW_ANSI_STDIO=1 -DNO_CONSOLE_IO" \
        -DCMAKE_DISABLE_FIND_PACKAGE_GIF=ON -DCMAKE_DISABLE_FIND_PACKAGE_JPEG=ON \
        -DCMAKE_DISABLE_FIND_PACKAGE_TIFF=ON -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON \
        -DWEBP_INCLUDE_DIR=WEBP_INCLUDE_DIR-NOTFOUND -DWEBPMUX_INCLUDE_DIR=WEBPMUX_INCLUDE_DIR-NOTFOUND \
        -DJP2K_INCLUDE_DIR=JP2K_INCLUDE_DIR-NOTFOUND \
        -DZLIB_LIBRARY="/usr/$TRIPLE/lib/libz.a" -DZLIB_INCLUDE_DIR="/usr/$TRIPLE/include"
    grep -q '^#define HAVE_LIBPNG 1' "$WORK/leptonica-build/src/config_auto.h" ||
        die "Leptonica was configured without libpng (see $LOGS/leptonica-build.log)"
    src=$(unpack_src tesseract "$TESS_V")
    # Upstream links "Ws2_32"; the mingw-w64 import library is libws2_32.a and
    # this file system is case-sensitive.
    sed -i 's/set(LIB_Ws2_32 Ws2_32)/set(LIB_Ws2_32 ws2_32)/' "$src/CMakeLists.txt"
    grep -q 'set(LIB_Ws2_32 ws2_32)' "$src/CMakeLists.txt" || die "tesseract: Ws2_32 patch did not apply"
    # COMPILER_SUPPORTS_MARCH_NATIVE=OFF: upstream compiles dotproduct.cpp with
    # -march=native, i.e. for the build machine's CPU (Debian's no-march-native
    # patch is disabled in its series).
    cmake_build tesseract "$src" -DSW_BUILD=OFF -DLeptonica_DIR="$PREFIX/lib/cmake/leptonica" \
        -DBUILD_TRAINING_TOOLS=OFF -DBUILD_TESTS=OFF -DDISABLE_ARCHIVE=ON -DDISABLE_CURL=ON \
        -DGRAPHICS_DISABLED=ON -DOPENMP_BUILD=OFF -DENABLE_OPENCL=OFF -DENABLE_LTO=OFF \
        -DCOMPILER_SUPPORTS_MARCH_NATIVE=OFF -DCMAKE_DISABLE_FIND_PACKAGE_TIFF=ON \
        -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON -DCMAKE_DISABLE_FIND_PACKAGE_OpenMP=ON
    if grep -q -- '-march=native' "$WORK/tesseract-build/build.ninja"; then
        die "tesseract still compiles with -march=native (see $WORK/tesseract-build/build.ninja)"
    fi
    LEPT_LIB=$(basename "$(ls "$PREFIX"/lib/libleptonica*.a)" .a) && LEPT_LIB=${LEPT_LIB#lib}
    TESS_LIB=$(basename "$(ls "$PREFIX"/lib/libtesseract*.a)" .a) && TESS_LIB=${TESS_LIB#lib}
    LEPT_UPSTREAM=${LEPT_V%-*} LEPT_UPSTREAM=${LEPT_UPSTREAM#*:}
    TESS_UPSTREAM=${TESS_V%-*} TESS_UPSTREAM=${TESS_UPSTREAM#*:}
    [ -f "$PREFIX/include/tesseract/capi.h" ] || die "tesseract/capi.h missing after install"
    write_pkgconfig
    write_cmake_snippet
    mkdir -p "$PREFIX/share/pixelgate"
    # Language data is not built here: Debian's tesseract-ocr-eng provides it on
    # the host, and Wine maps the host's / to Z:.
    # Shell syntax (quoted for the backslashes), so a script can source it.
    printf "# generated by scripts/mingw-tesseract.sh\nTESSDATA_DIR='%s'\nTESSDATA_DIR_WINE='%s'\n" \
        "$TESSDATA" "$TESSDATA_WINE" >"$PREFIX/share/pixelgate/tessdata.env"
    rm -rf "$WORK"
    printf 'recipe %s\nsysroot %s\nleptonlib %s\ntesseract %s\ncxx %s\n' "$RECIPE" "$SYSROOT" \
        "$LEPT_V" "$TESS_V" "$("$CXX" -dumpfullversion)" >"$PREFIX/.pg-complete"
}

main() {
    install_packages
    SYSROOT=$(find_sysroot "${1:-}")
    use_cache_dirs
    TESSDATA_WINE="Z:${TESSDATA//\//\\}"
    [ -f "$TESSDATA/eng.traineddata" ] || die "$TESSDATA/eng.traineddata missing (Debian: tesseract-ocr-eng)"
    exec 7>"$CACHE/.mingw-tesseract.lock"
    flock -w 3600 7 || die "another mingw-tesseract.sh holds $CACHE/.mingw-tesseract.lock"
    # The deb-src index and pool are shared (scripts/lib/debsrc.sh): read and
    # extend them under their lock, and only for as long as that takes.
    [ -f "$SRC/lists.sum" ] || die "no Debian source index in $SRC: run scripts/mingw-deps.sh first"
    lock_src_index
    LEPT_V=$(resolve_src leptonlib)
    TESS_V=$(resolve_src tesseract)
    exec 9>&-
    local key
    key=$(prefix_key)
    PREFIX=$CACHE/mingw-tesseract-$key
    WORK=$CACHE/work-tesseract-$key
    if [ ! -f "$PREFIX/.pg-complete" ]; then
        log "building Tesseract $TESS_V + Leptonica $LEPT_V into $PREFIX"
        local t0=$SECONDS
        build_prefix
        log "built in $((SECONDS - t0)) s"
    fi
    exec 7>&-
    echo "$PREFIX"
}

main "$@"
