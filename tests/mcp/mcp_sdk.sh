#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `pixelgate mcp` driven by the official MCP TypeScript SDK client
# (@modelcontextprotocol/sdk, tests/mcp/setup.sh) on a real deployment
# (tests/integration/lib.sh: Xvfb, the Tk app, the broker as `pixelgate`, the
# agent as its own user; the SDK client and the server both run as the agent,
# as a host would). Two phases:
#   analyze-only: list tools, snapshot, ocr, click, wait-for (with progress),
#     assert changed/text, type, a file argument the agent owns and one it
#     cannot read, a refused release as a tool error, a cancelled wait; and no
#     message from the server carries image bytes;
#   allow: a release comes back as image content, downscaled by the broker to
#     1568 px on the long side of a 2000x1200 screen, or written to a file.
# The audit log must show the cancelled wait ended as BROKER_UNREACHABLE.
set -uo pipefail
. "$(dirname "$0")/../integration/lib.sh"
PG_AGENT=pgm-agent
PG_OTHER=pgm-other
PG_SCREEN=2000x1200x24

pg_require_root
pg_require_tools Xvfb xauth xhost xdpyinfo wish jq runuser useradd node convert
# The agent reads the SDK: the cache must be outside root's home (scripts/test.sh's default).
export PG_CACHE=${PG_CACHE:-/var/cache/pixelgate-build}
MODULES=$(sh "$PG_ROOT/tests/mcp/setup.sh") || pg_die "the MCP SDK is not installed (tests/mcp/setup.sh)"
trap pg_cleanup EXIT
pg_user pixelgate system
pg_user "$PG_AGENT"
pg_user "$PG_OTHER"
pg_setup_dirs
pg_start_xvfb
pg_start_broker
pg_start_app
install -m 0644 "$PG_ROOT/tests/mcp/mcp_sdk_client.mjs" "$PG_TMP/app/"
WORK=$PG_TMP/agent-work
install -d -m 0700 -o "$PG_AGENT" "$WORK"
pg_as "$PG_AGENT" convert -size 64x48 xc:'#2e7d32' "$WORK/agent-own.png" || pg_die "convert failed"
convert -size 64x48 xc:red "$WORK/root-only.png" && chmod 0600 "$WORK/root-only.png"

run_phase() {
    echo "# phase $1"
    pg_as "$PG_AGENT" HOME="$WORK" node "$PG_TMP/app/mcp_sdk_client.mjs" "$MODULES" "$1" "$PG_TMP/bin/pixelgate" \
        "$PG_STATE_FILE" "$WORK"
}
run_phase analyze-only
rc1=$?
check "the SDK client's analyze-only checks pass" test "$rc1" = 0
AUDIT=$PG_TMP/state/audit.jsonl
check "the audit log records the cancelled wait as BROKER_UNREACHABLE" \
    test "$(jq -s '[.[] | select(.op == "wait_for" and .outcome == "BROKER_UNREACHABLE")] | length' "$AUDIT")" -ge 1
check "every MCP call the agent made is in the audit log under its uid" \
    test "$(jq -s --argjson u "$(id -u "$PG_AGENT")" '[.[] | select(.op == "snapshot" and .principal.uid == $u)] | length' "$AUDIT")" -ge 2

pg_stop_broker
pg_write_policy "$(pg_default_policy | jq '.expose_pixels = "allow"')"
pg_start_broker
run_phase allow
rc2=$?
check "the SDK client's allow checks pass" test "$rc2" = 0
check "the released release is on record as allow, downscaled by the broker" \
    test "$(jq -s '[.[] | select(.op == "release" and .outcome == "OK" and (.disposition.detail // "" | test("downscaled 2000x1200 -> 1568x941")))] | length' "$AUDIT")" -ge 1
pg_summary
