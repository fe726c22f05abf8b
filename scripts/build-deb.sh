#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# build-deb.sh - the Debian package from this tree: pixelgate_<version>_<arch>.deb
# (debian/, debhelper), then lintian over it; errors fail.
#   scripts/build-deb.sh [OUTDIR]        (default build/deb)
# Builds in a scratch copy of the tracked files (dpkg-buildpackage writes next
# to its source), so the tree stays clean. Prints the .deb's path on stdout.
# Needs: dpkg-dev, debhelper, lintian and the Build-Depends of debian/control
# (scripts/deps.sh installs them all). Checks that debian/changelog's version
# is the CMake project's, so the two cannot drift.
set -euo pipefail
exec </dev/null
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${1:-$REPO/build/deb}
die() { echo "build-deb.sh: $*" >&2; exit 1; }
for t in dpkg-buildpackage dh lintian dpkg-parsechangelog; do command -v "$t" >/dev/null || die "$t missing (scripts/deps.sh)"; done

VERSION=$(sed -n 's/^project(pixelgate VERSION \([0-9.]*\).*/\1/p' "$REPO/CMakeLists.txt")
DEBVER=$(dpkg-parsechangelog -l "$REPO/debian/changelog" -S Version)
[ -n "$VERSION" ] && [ "$DEBVER" = "$VERSION" ] ||
    die "debian/changelog says $DEBVER, CMakeLists.txt says $VERSION: add a changelog entry (dch -v $VERSION)"
ARCH=$(dpkg-architecture -qDEB_HOST_ARCH)

WORK=$(mktemp -d /tmp/pixelgate-deb.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
SRC=$WORK/pixelgate-$VERSION
mkdir -p "$SRC"
git -C "$REPO" ls-files -z | (cd "$REPO" && tar --null -T - -cf -) | tar -xf - -C "$SRC"
(cd "$SRC" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" dpkg-buildpackage -us -uc -b >"$WORK/build.log" 2>&1) ||
    { tail -40 "$WORK/build.log" >&2; die "dpkg-buildpackage failed"; }
DEB=$WORK/pixelgate_${VERSION}_${ARCH}.deb
[ -f "$DEB" ] || die "no $(basename "$DEB") was built"
# lintian: errors fail the build; warnings are printed for whoever reads the log.
lintian --fail-on error --info "$DEB" "$WORK"/pixelgate_*.changes >&2 || die "lintian found errors in $(basename "$DEB")"
mkdir -p "$OUT"
cp "$DEB" "$OUT/"
echo "$OUT/$(basename "$DEB")"
