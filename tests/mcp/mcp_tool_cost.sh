#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What `pixelgate mcp`'s tool list costs a model, through the official MCP SDK
# client, counted with js-tiktoken's o200k_base (tests/mcp/setup.sh pins
# both): the default profile within its token budget, true annotations,
# profiles and --tools/--exclude-tools (tests/mcp/mcp_tool_cost.mjs). Needs no
# broker, display or root. Fails - never skips - when node or the packages
# are missing.
set -uo pipefail
: "${PG_BUILD:?}" "${PG_ROOT:?}"
export PG_CACHE=${PG_CACHE:-/var/cache/pixelgate-build}
MODULES=$(sh "$PG_ROOT/tests/mcp/setup.sh") || { echo "FAIL: the MCP SDK or js-tiktoken is not installed (tests/mcp/setup.sh)" >&2; exit 1; }
exec node "$PG_ROOT/tests/mcp/mcp_tool_cost.mjs" "$MODULES" "$PG_BUILD/client/pixelgate"
