#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Paste reads only what is the agent's (issue 27, finding N3 of the
# 2026-12-07 review), as found: a denied password manager of another user
# puts a password on the CLIPBOARD and selects it (PRIMARY); the agent pastes
# into its own window by ctrl+v, shift+Insert, a chord built from held keys,
# the middle button and a "Paste" control clicked by its text, then reads
# its window. Every one of them must be refused (exit 3), audited, and leave
# the agent's entry without the password; a paste of what the agent copied
# in its own window keeps working. Real broker as system user `pixelgate`,
# real Xvfb and Tk apps of two users.
set -uo pipefail
. "$(dirname "$0")/../integration/lib.sh"
PGC=${PGC_USERS:-pgc}
PG_AGENT=$PGC-agent
PG_OTHER=$PGC-other
SECRET=SECRET-WORD-4711
pg_require_root
pg_require_tools Xvfb xauth xhost xdpyinfo wish jq runuser useradd
trap pg_cleanup EXIT
pg_user pixelgate system
for u in "$PG_AGENT" "$PG_OTHER"; do pg_user "$u"; done
PG_POLICY_JSON=$(cat <<JSON
{"version": 1,
 "clients": {"users": ["$PG_AGENT"]},
 "expose_pixels": "analyze-only",
 "capture": {"deny_windows": ["^Vault 5\$"]}}
JSON
)
pg_setup_dirs
install -m 0644 "$PG_ROOT/tests/apps/pg_paste.tcl" "$PG_TMP/app/"
pg_start_xvfb
DISPLAY=$PG_DISPLAY xhost +SI:localuser:"$PG_OTHER" >/dev/null
pg_start_broker
AUDIT=$PG_TMP/state/audit.jsonl
audited() { jq -s -e "$1" "$AUDIT" >/dev/null; }

# paste_app USER STATE ARGS...: one of tests/apps/pg_paste.tcl's apps; waits for READY.
paste_app() {
    local user=$1 out=$PG_TMP/paste.$RANDOM.out; shift
    runuser -u "$user" -- env -i PATH=/usr/bin:/bin DISPLAY="$PG_DISPLAY" LANG=C.UTF-8 \
        wish "$PG_TMP/app/pg_paste.tcl" "$@" >"$out" 2>&1 &
    PG_PIDS+=($!)
    local i
    for i in $(seq 100); do grep -q READY "$out" 2>/dev/null && return 0; sleep 0.1; done
    pg_die "paste app ($user $*) did not start: $(cat "$out")"
}
TARGET=$PG_TMP/app/target.json
paste_app "$PG_AGENT" target "$TARGET" Notes 360x160+40+40
paste_app "$PG_OTHER" owner "$PG_TMP/app/vault.json" "Vault 5" "$SECRET" 360x120+500+40

W='^Notes$'
entry_at() { jq -r '"\(.entry_box.x + 20),\(.entry_box.y + (.entry_box.h / 2 | floor))"' "$TARGET"; }
entry_text() { jq -r .entry "$TARGET"; }
agent() { pg_as "$PG_AGENT" pixelgate "$@"; }
refused() { local rc; agent "$@" >/dev/null 2>"$PG_TMP/err"; rc=$?; [ "$rc" = 3 ] && grep -q 'a paste would insert' "$PG_TMP/err"; }
no_secret() { ! grep -q "$SECRET" "$TARGET"; }

check "setup: the agent's entry takes input" agent click --window "$W" --at "$(entry_at)"
check "ctrl+v of the denied vault's CLIPBOARD is refused (exit 3)" refused key --window "$W" ctrl+v
check "shift+Insert is refused" refused key --window "$W" shift+Insert
check "ctrl+shift+v is refused" refused key --window "$W" ctrl+shift+v
check "the middle button (PRIMARY) is refused" refused click --window "$W" --at "$(entry_at)" --button middle
printf '%s\n' "key-down --window '$W' ctrl" "key --window '$W' v" >"$PG_TMP/held.txt"
chmod 0644 "$PG_TMP/held.txt"
check "key-down ctrl, then key v (one script, one connection) is refused" refused run "$PG_TMP/held.txt"
check "a 'Paste' control clicked by its text is refused" refused click --window "$W" --text Paste
check "...the agent's entry never got the password" no_secret
tok=$(agent snapshot --window "$W" | jq -r .token)
check "...and OCR of the agent's own window does not read it" eval "! agent ocr '$tok' | grep -q SECRET"
check "the refusals are audited" \
    audited 'map(select(.outcome=="POLICY_REFUSED" and (.op=="key" or .op=="click"))) | length >= 6'

# The honest case: text the agent typed and copied in its own window pastes.
check "setup: the agent types into its entry" agent type --window "$W" "mine"
check "setup: the agent selects its text (a triple click)" agent click --window "$W" --at "$(entry_at)" --count 3
check "setup: ...and copies it: its own app owns the CLIPBOARD now" agent key --window "$W" ctrl+c
agent key --window "$W" End >/dev/null
agent key --window "$W" ctrl+v >"$PG_TMP/own.out" 2>&1
rc=$?; sed "s/^/# /" "$PG_TMP/own.out"
check "ctrl+v of the agent's own copied text goes through" test "$rc" = 0
wait_text() { local i; for i in $(seq 50); do [ "$(entry_text)" = minemine ] && return 0; sleep 0.1; done; return 1; }
check "...and pastes it (the entry reads minemine)" wait_text
check "...and still nothing of the password" no_secret

pg_summary
