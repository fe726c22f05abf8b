#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The person stays in charge (issue 31), end to end on X11. The person's
# display is a nested Xephyr inside Xvfb: what the host sends into the Xephyr
# window arrives through "Xephyr virtual keyboard/mouse", devices that are not
# the server's XTEST ones, as a real keyboard's would; what the broker (and
# any client of the nested display) injects is XTEST. The broker, the app and
# the agent use the nested display.
#   - an injected Pause (the agent's own `key Pause`, another client's xdotool)
#     stops nothing; the person's Pause stops the next snapshot, click and a
#     pending wait with exit 13, audited; an agent cannot resume; the person's
#     key re-arms;
#   - `xinput disable` of the person's keyboard, or re-flagging it as XTEST,
#     stops the agents until root resumes;
#   - the person's motion refuses agent input and captures (exit 14) until the
#     quiet period ends; wait-idle waits for it;
#   - the sign is on top while an agent drives, click-through, gone from the
#     agent's screen captures, and goes after the linger time;
#   - two agents contend for a lease: the app counts only the holder's clicks.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
PG_AGENT=pgp-agent
PG_OTHER=pgp-other
pg_require_root
pg_require_tools Xvfb Xephyr xauth xhost xdpyinfo xdotool xinput xwininfo wish jq runuser useradd
trap pg_cleanup EXIT
pg_user pixelgate system
pg_user "$PG_AGENT"
pg_user "$PG_OTHER"
pg_user pgp-boss
pg_setup_dirs
PG_POLICY_JSON=$(cat <<JSON
{"version": 1, "clients": {"users": ["$PG_AGENT", "$PG_OTHER"]}, "approvers": ["pgp-boss"],
 "input": {"other_users": true}, "capture": {"other_users": ["$PG_AGENT"]},
 "person": {"quiet_ms": 1500, "indicator_linger_ms": 1500}}
JSON
)
pg_write_policy "$PG_POLICY_JSON"
pg_start_xvfb
pg_start_xephyr
HOST=$PG_HOST_DISPLAY
NEST=$PG_DISPLAY
pg_start_broker
pg_start_app
AS() { pg_as "$PG_AGENT" pixelgate "$@"; }
OTHER() { pg_as "$PG_OTHER" pixelgate "$@"; }
W='pixelgate demo'
person() { AS ping 2>/dev/null | jq -c .person; }
# wait_person JQ: until ping's person object satisfies JQ (15 s at most).
wait_person() {
    local i
    for i in $(seq 150); do
        AS ping 2>/dev/null | jq -e ".person | $1" >/dev/null && return 0
        sleep 0.1
    done
    return 1
}
# The person's hand: the host's pointer into the Xephyr window, then keys or motion there.
PERSON() { pg_person_hand 300 300 "$@"; }
clicks() { jq -r .clicks "$PG_STATE_FILE"; }
rc_of() { "$@" >/dev/null 2>&1; echo $?; }
root_resume() { PIXELGATE_SOCKET=$PG_SOCK "$PG_TMP/bin/pixelgate" resume | jq -e '.resumed == true' >/dev/null; }
approver_resume() { pg_as_direct pgp-boss pixelgate resume | jq -e '.resumed == true' >/dev/null; }

check "the broker watches the person's input on the nested display" wait_person '.watching == true and .stop_key == "Pause"'

# --- injected Pause stops nothing
check "the agent's own key Pause is sent" test "$(rc_of AS key --window "$W" Pause)" = 0
DISPLAY=$NEST xdotool key Pause
PERSON mousemove 310 310 # the person's motion: once it is seen, the injected keys before it were too
check "the person's motion is seen (take-over begins)" wait_person '.human_active == true'
check "an injected Pause (the broker's XTEST, another client's xdotool) did not stop the agents" \
    wait_person '.stopped == false'
check "wait-idle waits for the quiet period to end" test "$(rc_of AS wait-idle --timeout 20)" = 0
check "after it, a snapshot works" test "$(rc_of AS snapshot --window "$W")" = 0

# --- take-over
PERSON mousemove 320 320
wait_person '.human_active == true' || true
out=$(AS click --window "$W" --at 10,10 2>&1); rc=$?
check "the person's motion refuses agent input (exit 14)" test "$rc" = 14
check "the refusal says a person is using the machine" grep -q "a person is using the machine" <<<"$out"
check "and refuses captures" test "$(rc_of AS snapshot --window "$W")" = 14
AS wait-idle --timeout 20 >/dev/null
check "once the quiet period has passed, input works again" test "$(rc_of AS click --window "$W" --at 10,10)" = 0

# --- the indicator: on top while driving, absent from captures, gone after the linger time
sign_shown() { DISPLAY=$NEST xwininfo -name "pixelgate indicator" 2>/dev/null | grep -q "IsViewable"; }
AS click --window "$W" --at 12,12 >/dev/null
check "the sign is shown while the agent drives" sign_shown
top=$(DISPLAY=$NEST xwininfo -root -children | grep -m1 -E '^ +0x') # xwininfo lists the top first
check "the sign is the top window of the display" grep -q "pixelgate indicator" <<<"$top"
shot_on=$(AS snapshot --screen | jq -r .sha256)
check "the screen capture was taken with the sign shown" sign_shown
for _ in $(seq 150); do sign_shown || break; sleep 0.1; done
check "the sign goes after the linger time" bash -c "! DISPLAY=$NEST xwininfo -name 'pixelgate indicator' 2>/dev/null | grep -q IsViewable"
shot_off=$(AS snapshot --screen | jq -r .sha256)
check "a screen capture with the sign on equals one with it off" test -n "$shot_on" -a "$shot_on" = "$shot_off"

# --- the stop key
PERSON key Pause
check "the person's Pause stops the agents" wait_person '.stopped == true'
out=$(AS snapshot --window "$W" 2>&1); rc=$?
check "the next snapshot is refused STOPPED (exit 13)" test "$rc" = 13
check "its message says a person stopped the agents" grep -q "stopped by a person" <<<"$out"
check "a click is refused STOPPED" test "$(rc_of AS click --window "$W" --at 10,10)" = 13
check "a wait is refused STOPPED" test "$(rc_of AS wait-stable --window "$W" --timeout 5)" = 13
check "ping and caps still answer" test "$(rc_of AS ping)$(rc_of AS caps)" = 00
check "an agent cannot resume" test "$(rc_of AS resume)" = 3
check "the stop and the refusals are in the audit log" \
    bash -c "grep -q '\"op\":\"person.stop\"' '$PG_TMP/state/audit.jsonl' && grep -q 'STOPPED' '$PG_TMP/state/audit.jsonl'"
PERSON key Pause
check "the person's Pause again re-arms" wait_person '.stopped == false'
AS wait-idle --timeout 20 >/dev/null
check "input works again" test "$(rc_of AS click --window "$W" --at 10,10)" = 0

# --- tampering: a disabled or re-flagged keyboard stops until root resumes
KBD=$(DISPLAY=$NEST xinput list --id-only "Xephyr virtual keyboard" 2>/dev/null)
check "the person's keyboard is listed" test -n "$KBD"
DISPLAY=$NEST xinput disable "$KBD"
check "disabling the person's keyboard stops the agents" wait_person '.stopped == true and (.why | test("disabled|removed|detached"))'
DISPLAY=$NEST xinput enable "$KBD"
check "root re-arms with resume" root_resume
check "and input works again" test "$(rc_of AS focus --window "$W")" = 0
DISPLAY=$NEST xinput set-prop "$KBD" --type=int --format=8 "XTEST Device" 1
check "re-flagging the person's keyboard as XTEST stops the agents" wait_person '.stopped == true'
check "an approver re-arms with resume" approver_resume

# --- one agent at the keyboard
AS wait-idle --timeout 20 >/dev/null
read -r BX BY < <(jq -r '"\(.press.x + (.press.w/2|floor)),\(.press.y + (.press.h/2|floor))" | split(",") | join(" ")' "$PG_STATE_FILE")
AT="$BX,$BY"
LEASE=$(OTHER lease --ttl 60 | jq -r .lease)
check "another agent takes the lease" test "${LEASE#lease:}" != "$LEASE"
before=$(clicks)
out=$(AS click --window "$W" --at "$AT" 2>&1); rc=$?
check "input without the lease is BUSY (exit 12)" test "$rc" = 12
check "the refusal names the holder" grep -q "leased to $PG_OTHER" <<<"$out"
check "the lease holder's click goes in" test "$(rc_of OTHER click --window "$W" --at "$AT" --lease "$LEASE")" = 0
for _ in $(seq 50); do [ "$(clicks)" != "$before" ] && break; sleep 0.1; done
check "the app counted the holder's click only" test "$(clicks)" = $((before + 1))
check "the holder gives the lease back" test "$(rc_of OTHER lease --release "$LEASE")" = 0
check "then the other agent's input goes in" test "$(rc_of AS click --window "$W" --at "$AT")" = 0
pg_summary
