#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the official MCP TypeScript SDK (@modelcontextprotocol/sdk, pinned)
# and js-tiktoken (pinned; o200k_base counts the tool list's tokens) into a
# cache outside the repository, for tests/mcp. Idempotent: does
# nothing when the pinned version is there. CI (scripts/test.sh) calls this
# before ctest; integration.mcp_sdk fails, not skips, when it has not run.
# Prints the node_modules directory on success.
set -eu
SDK_VERSION=1.32.2
TIKTOKEN_VERSION=1.0.21
dir="${PG_CACHE:-$HOME/.cache/pixelgate}/npm-mcp"
pinned() { # PACKAGE VERSION: installed at that version
    f="$dir/node_modules/$1/package.json"
    [ -f "$f" ] && node -e 'process.exit(require(process.argv[1]).version===process.argv[2]?0:1)' "$f" "$2"
}
have() { pinned @modelcontextprotocol/sdk "$SDK_VERSION" && pinned js-tiktoken "$TIKTOKEN_VERSION"; }
command -v node >/dev/null 2>&1 || { echo "setup.sh: node not found (apt-get install nodejs npm)" >&2; exit 1; }
command -v npm >/dev/null 2>&1 || { echo "setup.sh: npm not found (apt-get install npm)" >&2; exit 1; }
if ! have; then
    mkdir -p "$dir"
    [ -f "$dir/package.json" ] || echo '{"name":"pixelgate-mcp-tests","private":true}' >"$dir/package.json"
    npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "@modelcontextprotocol/sdk@$SDK_VERSION" \
        "js-tiktoken@$TIKTOKEN_VERSION" >&2
    have
fi
# The test runs the client as an unprivileged agent: it must be able to read the modules.
chmod -R a+rX "$dir"
echo "$dir/node_modules"
