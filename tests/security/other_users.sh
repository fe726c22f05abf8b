#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 27 item 2 (security review 2026-12-07, N2), the attack as it was
# found: another user's window "Inbox (3) - salary review - Mail" named and
# captured by --id (wait-for, snapshot, info, frames), its text read by OCR
# from a window capture and from a screen capture, and a denied window's
# title printed by wait-for --id --appear. Every step must yield neither the
# title nor the text. Then capture.other_users opens that account's windows,
# and input into them stays refused. Real broker, Xvfb, Tk apps of two users.
set -uo pipefail
. "$(dirname "$0")/../integration/lib.sh"
PGU=${PGU_USERS:-pgu}
PG_AGENT=$PGU-agent
PG_OTHER=$PGU-other

pg_require_root
pg_require_tools Xvfb xauth xhost xdpyinfo wish jq runuser useradd
trap pg_cleanup EXIT
pg_user pixelgate system
for u in "$PG_AGENT" "$PG_OTHER"; do pg_user "$u"; done
pg_setup_dirs
pg_start_xvfb
DISPLAY=$PG_DISPLAY xhost +SI:localuser:"$PG_OTHER" >/dev/null
pg_start_broker
pg_start_app
MAIL_TITLE="Inbox (3) - salary review - Mail"
pg_launch_app "$PG_OTHER" "$PG_TMP/app/mail.json" 560x140+40+420 "$MAIL_TITLE"
pg_launch_app "$PG_AGENT" "$PG_TMP/app/vault.json" 300x140+700+420 "secret vault"
ag() { pg_as "$PG_AGENT" pixelgate "$@"; }
# no_secret TEXT: neither the mail title's words nor the vault's title in it
no_secret() { ! grep -qi 'salary\|secret vault' <<<"$1"; }

LIST=$(ag windows)
MAIL_ID=$(jq '[.windows[] | select(.private == true and .width == 560 and .height == 140)][0].id' <<<"$LIST")
VAULT_ID=$(jq '[.windows[] | select(.private == true and .width == 300 and .height == 140)][0].id' <<<"$LIST")
check "setup: the other user's mail window and the denied vault are listed by id" \
    test "$MAIL_ID" != null -a "$VAULT_ID" != null
check "...without their titles" no_secret "$LIST"

out=$(ag wait-for --id "$VAULT_ID" --appear --timeout 1 2>&1)
check "wait-for --id --appear of a denied window prints no title" no_secret "$out"
echo "# $out"
out=$(ag wait-for --id "$MAIL_ID" --appear --timeout 1 2>&1)
check "wait-for --id --appear of another user's window prints no title" no_secret "$out"

out=$(ag snapshot --id "$MAIL_ID" 2>&1)
rc=$?
echo "# snapshot --id: exit $rc: $out"
check "snapshot --id of another user's window is refused (exit 3)" test $rc = 3
check "...and names no title" no_secret "$out"
TOK=$(jq -r '.token // empty' <<<"$out" 2>/dev/null)
if [ -n "$TOK" ]; then # the finding: a token, its title in info, its text in OCR
    info=$(ag info "$TOK" 2>&1)
    echo "# info: $info"
    check "info of the token names no title" no_secret "$info"
    text=$(ag ocr "$TOK" 2>&1)
    echo "# ocr: $(jq -c .text <<<"$text" 2>/dev/null)"
    check "OCR of the window capture reads none of its text" no_secret "$text"
fi
out=$(ag frames --id "$MAIL_ID" --count 2 --interval 0 2>&1)
rc=$?
check "frames --id of another user's window is refused (exit 3)" test $rc = 3
check "...and names no title" no_secret "$out"
out=$(ag wait-stable --id "$MAIL_ID" --timeout 2 2>&1)
check "wait-stable --id of it is refused (exit 3)" test $? = 3

# A screen capture around it: the window is blacked out like a denied one.
out=$(ag snapshot --screen --region 30,410,600,160 2>&1)
STOK=$(jq -r .token <<<"$out")
check "setup: a screen capture of the area holding it is made" grep -q '^cap:' <<<"$STOK"
# redacted_windows counts every window blacked out on the screen: the vault and, now, the mail window
check "...with the other user's window among the blacked-out ones (the vault and it)" test "$(jq .redacted_windows <<<"$out")" = 2
text=$(ag ocr "$STOK" 2>&1)
echo "# ocr of the screen capture: $(jq -c .text <<<"$text" 2>/dev/null)"
check "OCR of the screen capture reads none of its text" no_secret "$text"
text=$(ag ocr "$(ag snapshot --screen | jq -r .token)" 2>&1)
check "...nor of the whole screen" no_secret "$text"

# The administrator opens the account's windows: seen and captured, input still its own rule.
pg_write_policy "$(jq --arg u "$PG_OTHER" '.capture.other_users = [$u]' "$PG_POLICY")"
kill -HUP "$PG_BROKER_PID"; sleep 0.6
out=$(ag snapshot --id "$MAIL_ID")
check "with capture.other_users naming its owner the window is captured, title and all" \
    test "$(jq -r .window.title <<<"$out")" = "$MAIL_TITLE"
text=$(ag ocr "$(jq -r .token <<<"$out")")
check "...and its text read" grep -qi salary <<<"$text"
ag click --id "$MAIL_ID" --at 20,20 >/dev/null 2>&1
check "...but input into it is still refused (input.other_users, exit 3)" test $? = 3
out=$(ag wait-for --id "$VAULT_ID" --appear --timeout 1 2>&1)
check "...and the denied window's title stays hidden" no_secret "$out"

pg_summary
