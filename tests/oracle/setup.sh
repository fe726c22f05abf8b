#!/bin/sh
# Installs the oracle tools' npm packages (pixelmatch, pngjs) into a cache
# outside the repository; idempotent (does nothing when the pinned versions
# are already there). CI calls this before ctest; the oracle tests fail, not
# skip, when it has not run. Prints the node_modules directory on success.
set -eu
PIXELMATCH_VERSION=7.2.0
PNGJS_VERSION=7.0.0
dir="${PG_CACHE:-$HOME/.cache/pixelgate}/npm"
have() { # name version
    f="$dir/node_modules/$1/package.json"
    [ -f "$f" ] && node -e 'process.exit(require(process.argv[1]).version===process.argv[2]?0:1)' "$f" "$2"
}
command -v node >/dev/null 2>&1 || { echo "setup.sh: node not found (apt-get install nodejs npm)" >&2; exit 1; }
command -v npm >/dev/null 2>&1 || { echo "setup.sh: npm not found (apt-get install npm)" >&2; exit 1; }
if have pixelmatch "$PIXELMATCH_VERSION" && have pngjs "$PNGJS_VERSION"; then
    echo "$dir/node_modules"
    exit 0
fi
mkdir -p "$dir"
[ -f "$dir/package.json" ] || echo '{"name":"pixelgate-oracle-tools","private":true}' > "$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
    "pixelmatch@$PIXELMATCH_VERSION" "pngjs@$PNGJS_VERSION" >&2
have pixelmatch "$PIXELMATCH_VERSION" && have pngjs "$PNGJS_VERSION"
echo "$dir/node_modules"
