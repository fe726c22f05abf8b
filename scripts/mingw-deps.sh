#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mingw-deps.sh - prepare a Debian 12 machine to cross-build pixelgate for
# Windows x86_64 and run its tests under Wine.
#
# Contract:
#   1. Installs (apt-get, as root or through sudo) the toolchain and runtime:
#      mingw-w64 (x86_64 only), zlib for mingw, dpkg-dev, wine64, Xvfb, cmake,
#      ninja. `apt-get update` runs only when a package is unknown to apt.
#   2. Builds cJSON, libpng, PCRE2 (8-bit, with its POSIX wrapper
#      pcre2-posix: mingw-w64 has no <regex.h>), libcurl (HTTP/HTTPS only,
#      TLS by Windows' Schannel, zlib) and utf8proc (Unicode NFKC and case
#      folding for OCR comparisons) as STATIC x86_64-w64-mingw32
#      libraries from Debian's own source packages (apt-get source through a private deb-src
#      list mirroring the system's Debian entries; the system's apt sources,
#      lists and caches are never touched) and installs them into
#        ${PG_CACHE:-/var/cache/pixelgate-build}/mingw-sysroot-<key>
#      where <key> names the recipe revision, compiler and package versions.
#      A complete sysroot is reused as is: reruns take about a second.
#   3. Prints the sysroot path as its ONLY line on stdout (progress and logs go
#      to stderr and to $PG_CACHE/logs), so: sysroot=$(scripts/mingw-deps.sh)
# Environment: PG_CACHE (cache dir, outside the repo), PG_DEPS_REFRESH=1 to
# re-read the Debian source index. Idempotent; safe to run concurrently (flock).
# Never: commits third-party source, writes into the repo, uses the network
# when the sysroot for the current key already exists.
set -euo pipefail

RECIPE=4 # bump when the build flags below change
TRIPLE=x86_64-w64-mingw32
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOOLCHAIN=$HERE/../cmake/mingw-w64.cmake
# No recommends are pulled in; the X libraries below are the ones Wine's X11
# driver loads for capture/input under Xvfb (libwine only needs libx11/libxext).
PKGS=(gcc-mingw-w64-x86-64 binutils-mingw-w64-x86-64 mingw-w64-x86-64-dev libz-mingw-w64-dev
      dpkg-dev xz-utils cmake ninja-build debian-archive-keyring
      wine wine64 fonts-wine xvfb libxrender1 libxrandr2 libxi6 libxcomposite1 libxfixes3
      libxinerama1 libxcursor1 nsis jq
      xdotool) # X input Wine takes as the person's own (tests/windows/person_physical.sh)

log() { printf 'mingw-deps: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
# shellcheck source-path=SCRIPTDIR source=lib/debsrc.sh
. "$HERE/lib/debsrc.sh"

sysroot_key() {
    local gcc tm zlib
    gcc=$("$TRIPLE-gcc" -dumpfullversion)
    tm=$("$TRIPLE-gcc" -v 2>&1 | sed -n 's/^Thread model: //p')
    case "$gcc" in *"$tm"*) ;; *) gcc=$gcc-$tm ;; esac
    zlib=$(dpkg-query -W -f='${Version}' libz-mingw-w64-dev)
    echo "r$RECIPE-$TRIPLE-gcc$gcc-cjson$CJSON_V-libpng$PNG_V-pcre2-$PCRE2_V-curl-$CURL_V-utf8proc$UTF8PROC_V-zlib$zlib" | tr ':~' '__'
}

# cmake_build NAME SRC_DIR ARGS... -> configure, build, install into $SYSROOT
cmake_build() {
    local name=$1 src=$2 bld=$WORK/$1-build
    shift 2
    log "building $name (log: $LOGS/$name-build.log)"
    {
        cmake -S "$src" -B "$bld" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" \
            -DPG_MINGW_SYSROOT="$SYSROOT" -DCMAKE_BUILD_TYPE=Release \
            -DCMAKE_INSTALL_PREFIX="$SYSROOT" -DBUILD_SHARED_LIBS=OFF "$@" &&
            cmake --build "$bld" && cmake --install "$bld"
    } >"$LOGS/$name-build.log" 2>&1 </dev/null ||
        { tail -n 30 "$LOGS/$name-build.log" >&2; die "building $name failed"; }
}

build_sysroot() {
    rm -rf "$SYSROOT" "$WORK"
    mkdir -p "$SYSROOT" "$WORK"
    local src
    src=$(unpack_src cjson "$CJSON_V")
    cmake_build cjson "$src" -DENABLE_CJSON_TEST=OFF -DENABLE_CJSON_UTILS=OFF -DCMAKE_C_FLAGS=-DCJSON_HIDE_SYMBOLS \
        -DENABLE_CUSTOM_COMPILER_FLAGS=OFF
    src=$(unpack_src libpng1.6 "$PNG_V")
    cmake_build libpng "$src" -DPNG_SHARED=OFF -DPNG_STATIC=ON -DPNG_TESTS=OFF \
        -DPNG_EXECUTABLES=OFF -DSKIP_INSTALL_PROGRAMS=ON \
        -DZLIB_LIBRARY="/usr/$TRIPLE/lib/libz.a" -DZLIB_INCLUDE_DIR="/usr/$TRIPLE/include"
    # PCRE2: 8-bit only, no JIT (no writable+executable pages in the broker),
    # no tools; the library policy/ and the broker use through pg_regex.h.
    src=$(unpack_src pcre2 "$PCRE2_V")
    cmake_build pcre2 "$src" -DBUILD_STATIC_LIBS=ON -DPCRE2_BUILD_PCRE2_8=ON \
        -DPCRE2_BUILD_PCRE2_16=OFF -DPCRE2_BUILD_PCRE2_32=OFF -DPCRE2_SUPPORT_JIT=OFF \
        -DPCRE2_BUILD_PCRE2GREP=OFF -DPCRE2_BUILD_TESTS=OFF -DPCRE2_SUPPORT_LIBBZ2=OFF \
        -DPCRE2_SUPPORT_LIBZ=OFF -DPCRE2_SUPPORT_LIBEDIT=OFF -DPCRE2_SUPPORT_LIBREADLINE=OFF
    # libcurl for the analysis relay: HTTP and HTTPS only, TLS by Schannel
    # (Windows' own certificate store), zlib; no other TLS, SSH, IDN, PSL,
    # HTTP/2, brotli or zstd. Consumers use curl's CMake config (CURL::libcurl:
    # CURL_STATICLIB, ws2_32 crypt32 advapi32 bcrypt winmm, zlib); Schannel
    # loads secur32.dll at run time, so nothing links it.
    src=$(unpack_src curl "$CURL_V")
    cmake_build curl "$src" -DBUILD_CURL_EXE=OFF -DBUILD_TESTING=OFF \
        -DHTTP_ONLY=ON -DCURL_DISABLE_LDAP=ON -DCURL_DISABLE_LDAPS=ON -DENABLE_UNIX_SOCKETS=OFF \
        -DCURL_USE_SCHANNEL=ON -DCURL_USE_OPENSSL=OFF -DCURL_USE_MBEDTLS=OFF -DCURL_USE_BEARSSL=OFF \
        -DCURL_USE_WOLFSSL=OFF -DCURL_USE_NSS=OFF -DCURL_USE_LIBSSH2=OFF \
        -DCURL_USE_LIBSSH=OFF -DCURL_USE_GSSAPI=OFF -DUSE_NGHTTP2=OFF -DUSE_NGTCP2=OFF -DUSE_QUICHE=OFF \
        -DUSE_MSH3=OFF -DCURL_BROTLI=OFF -DCURL_ZSTD=OFF -DUSE_LIBIDN2=OFF -DUSE_WIN32_IDN=OFF \
        -DCURL_USE_LIBPSL=OFF -DENABLE_ARES=OFF -DCURL_CA_BUNDLE=none -DCURL_CA_PATH=none \
        -DCURL_ZLIB=ON -DZLIB_LIBRARY="/usr/$TRIPLE/lib/libz.a" -DZLIB_INCLUDE_DIR="/usr/$TRIPLE/include"
    # utf8proc: the library alone (no tests, no shared build); consumers
    # define UTF8PROC_STATIC (broker/ocr/CMakeLists.txt does).
    src=$(unpack_src utf8proc "$UTF8PROC_V")
    cmake_build utf8proc "$src" -DUTF8PROC_ENABLE_TESTING=OFF -DUTF8PROC_INSTALL=ON
    [ -f "$SYSROOT/lib/libutf8proc.a" ] || die "libutf8proc.a missing after install"
    [ -f "$SYSROOT/lib/libcjson.a" ] || die "libcjson.a missing after install"
    [ -f "$SYSROOT/lib/libcurl.a" ] || die "libcurl.a missing after install"
    [ -f "$SYSROOT/lib/libpcre2-8.a" ] || die "libpcre2-8.a missing after install"
    [ -f "$SYSROOT/lib/libpcre2-posix.a" ] || die "libpcre2-posix.a missing after install"
    ls "$SYSROOT"/lib/libpng*.a >/dev/null 2>&1 || die "libpng*.a missing after install"
    rm -rf "$WORK"
    printf 'recipe %s\ncjson %s\nlibpng1.6 %s\npcre2 %s\ncurl %s\nutf8proc %s\n' "$RECIPE" "$CJSON_V" "$PNG_V" \
        "$PCRE2_V" "$CURL_V" "$UTF8PROC_V" >"$SYSROOT/.pg-complete"
}

main() {
    install_packages
    use_cache_dirs
    lock_src_index
    refresh_src_index
    CJSON_V=$(resolve_src cjson)
    PNG_V=$(resolve_src libpng1.6)
    PCRE2_V=$(resolve_src pcre2)
    CURL_V=$(resolve_src curl)
    UTF8PROC_V=$(resolve_src utf8proc)
    local key
    key=$(sysroot_key)
    SYSROOT=$CACHE/mingw-sysroot-$key
    WORK=$CACHE/work-$key
    if [ ! -f "$SYSROOT/.pg-complete" ]; then
        log "building the dependency sysroot $SYSROOT"
        build_sysroot
    fi
    flock -u 9
    echo "$SYSROOT"
}

main "$@"
