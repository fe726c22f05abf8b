#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the oracle tools' npm packages into a cache outside the repository:
# both generations of pixelmatch side by side (npm aliases pixelmatch7 ->
# pixelmatch@7.2.0, pixelmatch8 -> pixelmatch@8.0.0) and pngjs. Idempotent:
# does nothing when the pinned versions are already there. CI calls this
# before ctest; the oracle tests fail, not skip, when it has not run. Prints
# the node_modules directory on success.
set -eu
PIXELMATCH7_VERSION=7.2.0
PIXELMATCH8_VERSION=8.0.0
PNGJS_VERSION=7.0.0
dir="${PG_CACHE:-$HOME/.cache/pixelgate}/npm"
have() { # directory-name version
    f="$dir/node_modules/$1/package.json"
    [ -f "$f" ] && node -e 'process.exit(require(process.argv[1]).version===process.argv[2]?0:1)' "$f" "$2"
}
have_all() {
    have pixelmatch7 "$PIXELMATCH7_VERSION" && have pixelmatch8 "$PIXELMATCH8_VERSION" && have pngjs "$PNGJS_VERSION"
}
command -v node >/dev/null 2>&1 || { echo "setup.sh: node not found (apt-get install nodejs npm)" >&2; exit 1; }
command -v npm >/dev/null 2>&1 || { echo "setup.sh: npm not found (apt-get install npm)" >&2; exit 1; }
if have_all; then
    echo "$dir/node_modules"
    exit 0
fi
mkdir -p "$dir"
[ -f "$dir/package.json" ] || echo '{"name":"pixelgate-oracle-tools","private":true}' > "$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
    "pixelmatch7@npm:pixelmatch@$PIXELMATCH7_VERSION" "pixelmatch8@npm:pixelmatch@$PIXELMATCH8_VERSION" \
    "pngjs@$PNGJS_VERSION" >&2
have_all
echo "$dir/node_modules"
