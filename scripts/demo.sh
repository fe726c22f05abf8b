#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# demo.sh - pixelgate's main job, end to end, on a fresh Debian 12 machine:
#   sudo bash scripts/demo.sh
# Installs dependencies, builds, then sets up a real deployment: the broker
# runs as system user `pixelgate` under an admin-owned policy, a Tk app runs on
# Xvfb as the agent user `pgdemo`, and the agent drives it only through the
# `pixelgate` client: find the window, snapshot it to an opaque token, read it
# (OCR), click a button by its label, wait for it to settle, assert what
# changed and what it says, type text, run a script. Then what it cannot do
# (a refused release, another user's token, the spool) and the audit trail
# that recorded all of it. Then the person's controls, on a nested Xephyr
# that stands for the person's own screen and keyboard: the stop key, the
# sign, take-over. Last, the same agent on a Wayland desktop: a
# headless sway session of a desktop user (pgdemo-desk) with a GTK app,
# reached through pixelgate-session, the helper that session starts.
# Everything it started or created is removed.
set -uo pipefail
exec </dev/null
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
if [ "$(id -u)" != 0 ]; then
    echo "demo.sh: needs root: it creates the broker's system account 'pixelgate' and a demo agent user." >&2
    echo "run: sudo bash scripts/demo.sh" >&2
    exit 2
fi
bash scripts/deps.sh || exit 1
echo "== building (build/default)"
{ cmake --preset default && cmake --build --preset default --target pixelgated pixelgate pixelgate-session; } >/tmp/pixelgate-demo-build.log 2>&1 ||
    { tail -30 /tmp/pixelgate-demo-build.log; exit 1; }

. tests/integration/lib.sh
. tests/integration/lib_wayland.sh
PG_AGENT=pgdemo
PG_OTHER=pgdemo-other
PG_DESK=pgdemo-desk
trap 'pkill -u "$PG_DESK" 2>/dev/null; pg_cleanup; pg_session_group_remove' EXIT
pg_user pixelgate system
pg_user "$PG_AGENT"
pg_user "$PG_OTHER"
pg_user "$PG_DESK"
pg_session_group
pg_setup_dirs
pg_start_xvfb
pg_start_broker
pg_start_app

say() { printf '\n\033[1m# %s\033[0m\n' "$*"; }
# agent CMD...: show the command as the agent types it, run it as the agent, show stdout/stderr and exit code.
shq() { case $1 in *[!A-Za-z0-9_.,:/+=-]*) printf "'%s'" "${1//\'/\'\\\'\'}" ;; *) printf '%s' "$1" ;; esac; }
agent() {
    printf '%s$ pixelgate' "$PG_AGENT"; for a in "$@"; do printf ' %s' "$(shq "$a")"; done; echo
    local out rc
    out=$(pg_as "$PG_AGENT" pixelgate "$@" 2>"$PG_TMP/err"); rc=$?
    [ -n "$out" ] && sed 's/^/  /' <<<"$out"
    [ -s "$PG_TMP/err" ] && sed 's/^/  stderr: /' "$PG_TMP/err"
    echo "  (exit $rc)"
    LAST_OUT=$out
    return $rc
}

say "Deployment: broker pid $PG_BROKER_PID runs as $(ps -o user= -p "$PG_BROKER_PID"), Tk app runs as $PG_AGENT on $PG_DISPLAY"
ls -ld "$PG_TMP/state" "$PG_TMP/state/spool" "$PG_SOCK" | sed 's/^/  /'

say "1. Who does the broker think I am? (from the kernel, SO_PEERCRED)"
agent ping
say "2. What can this backend do?"
agent caps
say "3. Find the app's window"
agent windows --match 'pixelgate demo'
say "4. Snapshot it: an opaque token, no path, no pixels"
agent snapshot --window 'pixelgate demo'
TOKEN=$(jq -r .token <<<"$LAST_OUT")
say "5. Read it: OCR inside the broker, only text and word boxes come back"
out=$(pg_as "$PG_AGENT" pixelgate ocr "$TOKEN"); echo "  text: $(jq -c .text <<<"$out")"; echo "  first words: $(jq -c '[.words[:4][] | {text, x, y, w, h}]' <<<"$out")"
say "6. Click the button by its label, wait until the window settles, check what changed"
agent click --window 'pixelgate demo' --text 'Press me'
agent wait-stable --window 'pixelgate demo' --interval 0.2
AFTER=$(pg_as "$PG_AGENT" pixelgate snapshot --window 'pixelgate demo' | jq -r .token)
agent assert changed "$TOKEN" "$AFTER" --min-pct 0.05
agent assert text "$AFTER" --expect 'Clicked 1'
agent assert text "$AFTER" --expect 'Clicked 7' || true
say "7. Type into the entry, including characters not on the keyboard map"
read -r EX EY < <(jq -r '"\(.entry_box.x + 10) \(.entry_box.y + (.entry_box.h/2|floor))"' "$PG_STATE_FILE")
agent click --window 'pixelgate demo' --at "$EX,$EY" >/dev/null
agent type --window 'pixelgate demo' 'Hello from pixelgate! é€ü'
agent key --window 'pixelgate demo' Return
agent wait-for --window 'pixelgate demo' --text 'Entered' --timeout 5
echo "  the app's own record of its state: $(jq -c '{clicks, entry}' "$PG_STATE_FILE")"
say "8. A scripted session in one piped call: named results, shift held over a key, cleanup"
printf '%s$ pixelgate run - <<EOF\n' "$PG_AGENT"
script="snapshot --window 'pixelgate demo' as before
assert text \$before --expect 'Entered'
click --window 'pixelgate demo' --at $EX,$EY
key --window 'pixelgate demo' End
key-down --window 'pixelgate demo' shift
key --window 'pixelgate demo' Home
key-up shift
type --window 'pixelgate demo' 'Replaced in one script'
snapshot --window 'pixelgate demo' as after
assert changed \$before \$after --min-pct 0.01
finally
drop \$before \$after"
sed 's/^/  /' <<<"$script"; echo "  EOF"
pg_as "$PG_AGENT" pixelgate run - <<<"$script" | sed 's/^/  /'
echo "  the entry now (the app's own record): $(jq -c .entry "$PG_STATE_FILE")"
say "What the agent cannot do"
echo "- take the pixels: the policy says analyze-only, so a release needs a human approver"
agent release "$TOKEN" --png /tmp/pgdemo-shot.png || true
echo "- use another user's token:"
printf '%s$ pixelgate info %s\n' "$PG_OTHER" "$TOKEN"
pg_as "$PG_OTHER" pixelgate info "$TOKEN" 2>&1 | sed 's/^/  /'; echo "  (exit ${PIPESTATUS[0]})"
echo "- read the spool where the pixels are:"
printf '%s$ ls %s\n' "$PG_AGENT" "$PG_TMP/state/spool"
pg_as "$PG_AGENT" ls "$PG_TMP/state/spool" 2>&1 | sed 's/^/  /'
echo "- click a window that is not there:"
agent click --window 'no such window' --at 1,1 || true
say "The audit trail: every capture, input and refusal, hash-chained (root reads it; the agent cannot)"
printf '%s$ cat %s\n' "$PG_AGENT" "$PG_TMP/state/audit.jsonl"
pg_as "$PG_AGENT" cat "$PG_TMP/state/audit.jsonl" 2>&1 | sed 's/^/  /'
echo "root# tail -n 3 audit.jsonl"
tail -n 3 "$PG_TMP/state/audit.jsonl" | sed 's/^/  /'
echo "root# pixelgated --verify-audit audit.jsonl"
"$PG_TMP/bin/pixelgated" --verify-audit "$PG_TMP/state/audit.jsonl" | sed 's/^/  /'
say "Broker log (stderr of pixelgated)"
tail -n 8 "$PG_TMP/broker.log" | sed 's/^/  /'
X_STATE="clicks=$(pg_state .clicks), entry=$(pg_state .entry)"

say "9. The person stays in charge: a stop key only a person can press, take-over, the sign"
pg_stop_broker
pg_start_xephyr # the person's own screen, keyboard and mouse (a nested X server: its input is not injected)
pg_write_policy "$(jq '.person = {"quiet_ms": 1500, "indicator_linger_ms": 1500}' "$PG_POLICY")"
pg_start_broker
pg_start_app
person() { pg_as "$PG_AGENT" pixelgate ping 2>/dev/null | jq -c .person; }
until_person() { for _ in $(seq 150); do person | jq -e "$1" >/dev/null && return 0; sleep 0.1; done; return 1; }
# the person's hand, on their own keyboard: into the Xephyr window, clear of the first app on the host
hand() { pg_person_hand 900 650 "$@"; }
until_person '.watching'
echo "  the broker watches the person's keyboard on $PG_DISPLAY: $(person)"
agent click --window 'pixelgate demo' --text 'Press me' >/dev/null
echo "  while the agent drives, the broker draws its sign on top (click-through, not in any capture):"
echo "  $(DISPLAY=$PG_DISPLAY xwininfo -root -children | grep -o '"pixelgate indicator".*' | head -1)"
echo "person: presses Pause on their own keyboard"
hand key Pause
until_person '.stopped' || echo "  (the broker did not see the person's Pause: $(person))"
agent snapshot --window 'pixelgate demo' || true
agent resume || true
echo "person: presses Pause again (re-armed), then keeps using the mouse"
hand key Pause
until_person '.stopped | not' || echo "  (the broker did not see the second Pause: $(person))"
hand mousemove 910 660
agent click --window 'pixelgate demo' --at 10,10 || true
agent wait-idle --timeout 20
agent click --window 'pixelgate demo' --text 'Press me'
X_STATE="$X_STATE; with the person: clicks=$(pg_state .clicks)"

say "10. The same agent on a Wayland desktop (sway), through the desktop user's pixelgate-session"
pg_stop_broker
pg_install_session_helper
pg_write_policy "$(jq --arg d "$PG_DESK" '.capture.other_users = [$d] | .input.other_users = true' "$PG_POLICY")"
pg_start_sway "$PG_DESK"
PG_STATE_FILE=$PG_TMP/app/wayland.json
pg_wl_gtk_app pg_wl_as "$PG_STATE_FILE" "sway demo" 80 80
PG_DISPLAY="$PG_WL_DISPLAY@$PG_DESK"
pg_start_broker --display-source session-helper --session-socket "$SESSION_SOCK" --session-helper "$HELPER"
pg_wl_start_helper
for i in $(seq 150); do pg_as "$PG_AGENT" pixelgate caps 2>/dev/null | grep -q session-helper && break; sleep 0.1; done
echo "  $PG_DESK runs sway (headless) and a GTK app; the broker serves --display $PG_DISPLAY, reached only through"
echo "  the helper that $PG_DESK's session started: $(sed 's/^pixelgate-session: //' "$PG_TMP/helper.log" | head -1)"
agent windows --match 'sway demo'
agent click --window 'sway demo' --text 'Press me'
read -r EX EY < <(jq -r '"\(.entry_box.x + 10) \(.entry_box.y + (.entry_box.h/2|floor))"' "$PG_STATE_FILE")
agent click --window 'sway demo' --at "$EX,$EY" >/dev/null
agent type --window 'sway demo' 'Grüße aus Wayland — 東京 😀'
agent wait-stable --window 'sway demo' >/dev/null
agent assert text "$(pg_as "$PG_AGENT" pixelgate snapshot --window 'sway demo' | jq -r .token)" --expect 'pressed 1'
echo "  the GTK app's own record of its state: $(jq -c '{clicks, entry}' "$PG_STATE_FILE")"

echo
echo "Demo finished: X11 $X_STATE; Wayland $(jq -c '{clicks, entry}' "$PG_STATE_FILE"). Tearing down."
