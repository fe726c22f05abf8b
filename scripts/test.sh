#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test.sh - every test pixelgate has, from a fresh Debian 12 machine:
#   sudo bash scripts/test.sh
# Installs dependencies, then runs, each in its own build tree:
#   1. native build (gcc): unit, X11 backend, oracle and integration tests (ctest)
#   2. ASan+UBSan build (clang): the same tests under the sanitizers
#   3. libFuzzer build: every fuzz target over its corpus for a bounded time
#   4. mingw-w64 cross-build: unit tests under Wine on Xvfb
#   5. Release builds the way a distribution builds (no presets, so no
#      -Werror; -O3 finds other warnings), gcc and clang: build + unit tests
#   6. The Debian package: debhelper build + lintian (errors fail), then a
#      fresh Debian 12 chroot: apt install, ping and snapshot from the
#      package, remove keeps policy and audit log, purge removes them
# (The MCP SDK test, tests/mcp, and the systemd unit sandbox, tests/systemd,
# are integration tests of stages 1 and 2.)
# Integration tests create system users, so this needs root. Nothing is
# skipped: a stage whose tools are missing fails.
set -uo pipefail
exec </dev/null
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
export PG_CACHE=${PG_CACHE:-/var/cache/pixelgate-build}
STAGES_PASSED=0
STAGES_FAILED=0
FAILED_NAMES=()
T0=$(date +%s)

stage() {
    local name=$1; shift
    printf '\n==== %s (+%ss)\n' "$name" "$(($(date +%s) - T0))"
    if "$@"; then
        STAGES_PASSED=$((STAGES_PASSED + 1))
    else
        STAGES_FAILED=$((STAGES_FAILED + 1))
        FAILED_NAMES+=("$name")
    fi
}

if [ "$(id -u)" != 0 ]; then
    echo "test.sh: needs root (it installs packages and creates test users): sudo bash scripts/test.sh" >&2
    exit 2
fi

bash scripts/deps.sh || { echo "test.sh: dependency install failed" >&2; exit 1; }
bash tests/oracle/setup.sh >/dev/null || { echo "test.sh: oracle setup failed" >&2; exit 1; }
bash tests/mcp/setup.sh >/dev/null || { echo "test.sh: MCP SDK setup failed" >&2; exit 1; }

build_and_test() {
    local preset=$1
    cmake --preset "$preset" >/dev/null &&
        cmake --build --preset "$preset" &&
        ctest --preset "$preset" --output-on-failure
}

fuzz_smoke() {
    cmake --preset fuzz >/dev/null && cmake --build --preset fuzz &&
        ctest --test-dir build/fuzz --output-on-failure -L fuzz
}

# The unit tests: "unit" runs as any user with no display; "root" (file
# ownership, network namespaces) and "x11" (its own Xvfb) need more, which
# this script has. (ctest -L takes a regular expression.)
UNIT_LABELS='^(unit|root|x11)$'

# A distribution's build: plain cmake, CMAKE_BUILD_TYPE=Release, its compiler.
release_build() {
    local cc=$1 dir=build/release-$1
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$cc" >/dev/null &&
        cmake --build "$dir" -j "$(nproc)" &&
        ctest --test-dir "$dir" --output-on-failure -L "$UNIT_LABELS"
}

# The package and a Debian 12 chroot, each bounded (about 3 minutes with the
# cache warm: debootstrap's tarball and the chroot's .debs in PG_CACHE).
package_test() {
    local deb
    deb=$(timeout 900 bash scripts/build-deb.sh build/deb) &&
        timeout 900 bash tests/package/deb_chroot.sh "$deb"
}

stage "native (gcc): unit, x11, oracle, integration" build_and_test default
stage "asan+ubsan (clang): unit, x11, oracle, integration" build_and_test asan
stage "fuzz (libFuzzer): bounded runs over each corpus" fuzz_smoke
stage "mingw-w64 + Wine: unit tests" bash scripts/test-mingw.sh
stage "release (gcc, plain cmake): build, unit" release_build gcc
stage "release (clang, plain cmake): build, unit" release_build clang
stage "package (debhelper, lintian; Debian 12 chroot: install, ping, snapshot, remove, purge)" package_test

printf '\n==== done in %ss\n' "$(($(date +%s) - T0))"
[ ${#FAILED_NAMES[@]} -gt 0 ] && printf 'failed stage: %s\n' "${FAILED_NAMES[@]}"
echo "stages: $STAGES_PASSED passed, $STAGES_FAILED failed"
[ "$STAGES_FAILED" = 0 ]
