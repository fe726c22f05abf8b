#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# static-deps.sh - build the static cJSON that the native client links.
#
# The client `pixelgate` is one process per agent operation, and on these
# machines a dynamically linked process pays 0.5-0.7 ms more to start than a
# static one (docs/performance.md, "The client links statically"). Debian
# ships cJSON only as a shared library, so this builds it.
#
# Contract:
#   1. Builds cJSON (the library alone: no utils, no tests) as a static,
#      position-independent archive from Debian's own source package, fetched
#      through the private deb-src index that scripts/lib/debsrc.sh keeps (the
#      system's apt sources, lists and caches are never touched), and installs
#      it into ${PG_CACHE:-/var/cache/pixelgate-build}/native-cjson-<key>
#      (include/cjson/cJSON.h, lib/libcjson.a), where <key> names the recipe,
#      the compiler and the package version. cmake/PgStaticClient.cmake finds
#      the newest complete one there.
#   2. Prints that prefix as its ONLY line on stdout (logs go to stderr and to
#      $PG_CACHE/logs). A complete prefix is reused as is, without the network.
# Environment: PG_CACHE, PG_DEPS_REFRESH=1 (re-read the source index), CC.
# Never: commits third-party source, writes into the repo.
set -euo pipefail
exec </dev/null

RECIPE=1 # bump when the build flags below change
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PKGS=(build-essential cmake ninja-build dpkg-dev debian-archive-keyring)

log() { printf 'static-deps: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
# shellcheck source-path=SCRIPTDIR source=lib/debsrc.sh
. "$HERE/lib/debsrc.sh"

build_prefix() {
    local src bld=$WORK/build
    rm -rf "$PREFIX" "$WORK" && mkdir -p "$WORK"
    src=$(unpack_src cjson "$CJSON_V")
    log "building cJSON $CJSON_V (log: $LOGS/native-cjson-build.log)"
    {
        cmake -S "$src" -B "$bld" -G Ninja -DCMAKE_C_COMPILER="$CC" -DCMAKE_BUILD_TYPE=Release \
            -DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
            -DBUILD_SHARED_LIBS=OFF -DBUILD_SHARED_AND_STATIC_LIBS=OFF -DCJSON_BUILD_SHARED_LIBS=OFF \
            -DENABLE_CJSON_TEST=OFF -DENABLE_CJSON_UTILS=OFF -DENABLE_CUSTOM_COMPILER_FLAGS=OFF &&
            cmake --build "$bld" && cmake --install "$bld"
    } >"$LOGS/native-cjson-build.log" 2>&1 ||
        { tail -n 30 "$LOGS/native-cjson-build.log" >&2; die "building cJSON failed"; }
    [ -f "$PREFIX/lib/libcjson.a" ] || die "libcjson.a missing after install (log: $LOGS/native-cjson-build.log)"
    [ -f "$PREFIX/include/cjson/cJSON.h" ] || die "cJSON.h missing after install"
    rm -rf "$WORK"
    printf 'recipe %s\ncjson %s\ncc %s\n' "$RECIPE" "$CJSON_V" "$CC" >"$PREFIX/.pg-complete"
}

main() {
    install_packages
    CC=${CC:-cc}
    use_cache_dirs
    lock_src_index
    refresh_src_index
    CJSON_V=$(resolve_src cjson)
    local ccv key
    ccv=$("$CC" -dumpfullversion 2>/dev/null || "$CC" -dumpversion)
    key=$(echo "r$RECIPE-$(basename "$CC")$ccv-cjson$CJSON_V" | tr ':~' '__')
    PREFIX=$CACHE/native-cjson-$key
    WORK=$CACHE/work-native-cjson-$key
    [ -f "$PREFIX/.pg-complete" ] || build_prefix
    exec 9>&-
    echo "$PREFIX"
}

main "$@"
