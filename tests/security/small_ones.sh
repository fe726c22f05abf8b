#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The review's low findings, as found (issue 27, N5, N8, N9), each tried as the
# agent against a real broker (system user `pixelgate`, Xvfb, Tk apps):
#   N5  a far --offset printed the exact match position, a negative one wrapped
#       through unsigned arithmetic;
#   N8  the approver was not told whose window a release request shows;
#   N9  baselines were every user's: another user could accept against, or
#       prepare for, the agent's case.
# (No broker path in any message: every suite checks every client call,
# tests/integration/lib.sh pg_as.)
set -uo pipefail
. "$(dirname "$0")/../integration/lib.sh"
PGL=${PGL_USERS:-pgl}
PG_AGENT=$PGL-agent
PG_OTHER=$PGL-other
APPROVER=$PGL-approver
pg_require_root
pg_require_tools Xvfb xauth xhost xdpyinfo wish jq runuser useradd
trap pg_cleanup EXIT
pg_user pixelgate system
for u in "$PG_AGENT" "$PG_OTHER" "$APPROVER"; do pg_user "$u"; done
# The other user may see the agent's windows (capture.other_users), so that it
# can ask for one of them to be released, as in the review.
PG_POLICY_JSON=$(cat <<JSON
{"version": 1,
 "clients": {"users": ["$PG_AGENT", "$PG_OTHER"]},
 "approvers": ["$APPROVER"],
 "expose_pixels": "analyze-only",
 "capture": {"other_users": ["$PG_AGENT"]},
 "baselines": {"shared_cases": {"team": ["$PG_AGENT"]}}}
JSON
)
pg_setup_dirs
pg_start_xvfb
DISPLAY=$PG_DISPLAY xhost +SI:localuser:"$PG_OTHER" >/dev/null
pg_start_broker
pg_start_app
W='^pixelgate demo$'
A() { pg_as "$PG_AGENT" pixelgate "$@"; }
O() { pg_as "$PG_OTHER" pixelgate "$@"; }
R() { pg_as "$APPROVER" pixelgate "$@"; }

# --- N5: an offset never tells where the match is
A move --window "$W" --text Press --offset 60000,0 >/dev/null 2>"$PG_TMP/e"
check "a far --offset is refused (exit 8)" test $? = 8
check "...before anything is located: no point in the message ($(jq -r .error.message "$PG_TMP/e"))" \
    eval '! grep -q "point [0-9]" "$PG_TMP/e"'
A move --window "$W" --text Press --offset 0,-60000 >/dev/null 2>"$PG_TMP/e"
rc=$?
check "a far negative --offset is refused (exit 8) without a wrapped coordinate" \
    eval '[ $rc = 8 ] && ! grep -q 4294 "$PG_TMP/e"'
A move --window "$W" --text Press --offset 400,0 >/dev/null 2>"$PG_TMP/e"
check "an --offset that leaves the window from where the match is: refused (exit 8)" test $? = 8
check "...saying so without a coordinate ($(jq -r .error.message "$PG_TMP/e"))" \
    eval 'grep -q "falls outside" "$PG_TMP/e" && ! grep -q "point [0-9]" "$PG_TMP/e"'
check "an --offset inside the window still moves the pointer there" A move --window "$W" --text Press --offset 0,2

# --- N8: the approver is told whose window a capture shows
TOK=$(O snapshot --window "$W" | jq -r .token)
check "setup: the other user captures the agent's window (capture.other_users)" grep -q '^cap:' <<<"$TOK"
REQ=$(O release "$TOK" --png - 2>&1 >/dev/null | jq -r '.error.details.request_id // empty')
check "setup: ...and asks for its release (a request id)" grep -q '^rel:' <<<"$REQ"
out=$(R approve "$REQ" --show)
check "approve --show names the requester ($(jq -r .requester <<<"$out"))" test "$(jq -r .requester <<<"$out")" = "$PG_OTHER"
check "...and whose window it shows ($(jq -r .window_owner <<<"$out"))" test "$(jq -r .window_owner <<<"$out")" = "$PG_AGENT"

# --- N9: a case is its preparer's
T=$(A snapshot --window "$W" | jq -r .token)
CAND=$(A baseline prepare --case home "$T" | jq -r .candidate)
DIGEST=$(R baseline show "$CAND" | jq -r .digest)
check "setup: the approver approves the agent's case home" \
    eval 'R baseline approve "$CAND" --digest "$DIGEST" --note ok >/dev/null'
check "the agent's accept of home passes (exit 0)" eval 'A accept --case home --window "$W" >/dev/null'
O accept --case home --window "$W" >"$PG_TMP/o" 2>/dev/null
rc=$?
check "the other user's accept of home is not judged by the agent's baseline: its own candidate (exit 11)" \
    test $rc = 11 -a "$(jq -r .reason_code "$PG_TMP/o")" = NO_BASELINE
check "...and its baseline list shows none of the agent's" test "$(O baseline list | jq '.baselines | length')" = 0
check "...nor the agent's case by name (exit 4)" eval 'O baseline show home >/dev/null 2>&1; [ $? = 4 ]'
check "the agent does not see the other user's candidate" test "$(A baseline list | jq '.candidates | length')" = 0
check "the approver sees both, each with its owner" \
    test "$(R baseline list | jq -r '[.baselines[].owner, .candidates[].owner] | map(startswith("u")) | all')" = true
O accept --case team --window "$W" >/dev/null 2>&1
check "a case the policy shares with others only is refused (exit 3)" test $? = 3

pg_summary
