#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The assertion engine on a real Tk app, through the CLI as an unprivileged
# agent: click a button by its label (OCR), wait-stable, assert changed /
# unchanged, assert text on the new label, assert template with a button
# image, diff and hash of tokens and of the agent's own files, wait-for, and
# bad input (corrupt image, decompression bomb).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
PG_AGENT=pga-agent
PG_OTHER=pga-other
pg_require_root
pg_require_tools Xvfb xauth xhost xdpyinfo wish jq runuser useradd convert python3
trap pg_cleanup EXIT
pg_user pixelgate system
pg_user "$PG_AGENT"
pg_user "$PG_OTHER"
pg_setup_dirs
pg_start_xvfb
pg_start_broker
pg_start_app
W='^pixelgate demo$'
AS() { pg_as "$PG_AGENT" pixelgate "$@"; }
WORK=$(runuser -u "$PG_AGENT" -- mktemp -d)

# --- OCR reads the app
BEFORE=$(AS snapshot --window "$W" | jq -r .token)
out=$(AS ocr "$BEFORE")
check "ocr reads the status label" grep -q "Status: idle" <<<"$(jq -r .text <<<"$out")"
check "ocr gives word boxes inside the window" test "$(jq '[.words[] | select(.x >= 0 and .y >= 0 and .w > 0 and .h > 0)] | length > 3' <<<"$out")" = true
read -r BX BY BW BH < <(jq -r '"\(.press.x) \(.press.y) \(.press.w) \(.press.h)"' "$PG_STATE_FILE")
# analyze-only: word boxes are grown out to the 8-pixel disclosure grid, and charged
check "the word 'Press' is boxed inside the real button (within the disclosure grid)" \
    test "$(jq --argjson bx "$BX" --argjson by "$BY" --argjson bw "$BW" --argjson bh "$BH" \
      '[.words[] | select(.text=="Press") | select(.x % 8 == 0 and .y % 8 == 0 and .x >= $bx - 8 and .y >= $by - 8
        and .x+.w <= $bx+$bw+8 and .y+.h <= $by+$bh+8)] | length' <<<"$out")" = 1
check "ocr says its geometry is coarse and shows no polarity or scale" \
    test "$(jq -c '[.geometry, has("inverted"), has("scale")]' <<<"$out")" = '["coarse",false,false]'

# --- click by label text, then settle
out=$(AS click --window "$W" --text "Press me")
check "click --text exits 0" test $? = 0
check "the click by text reached the button (clicks == 1)" pg_state_is .clicks 1
out=$(AS wait-stable --window "$W" --frames 2 --interval 0.2 --timeout 10)
check "wait-stable reports a stable window" test "$(jq .stable <<<"$out")" = true
AFTER=$(AS snapshot --window "$W" | jq -r .token)

# --- changed / unchanged
out=$(AS assert changed "$BEFORE" "$AFTER" --min-pct 0.05)
check "assert changed passes after the click" test $? = 0 -a "$(jq .passed <<<"$out")" = true
out=$(AS assert unchanged "$BEFORE" "$AFTER" --max-pct 0.01 2>"$PG_TMP/e")
check "assert unchanged --max-pct 0.01 fails (exit 1)" test $? = 1
check "...still printing its measurements on stdout" test "$(jq '.pixels_changed > 0 and .passed == false' <<<"$out")" = true
check "...with an evidence bundle holding a diff token" grep -qE '^cap:' <<<"$(jq -r .evidence.diff <<<"$out")"
check "...and a recovery tip on stderr" test -n "$(jq -r .error.recovery_tip "$PG_TMP/e")"
check "the change's bounds lie on the status label (a check lists no regions of protected pixels)" \
    test "$(jq '.bounds.y < 100 and (.regions | length) == 0' <<<"$out")" = true
out=$(AS diff "$BEFORE" "$AFTER")
check "diff lists the changed regions, on the status label" \
    test "$(jq '[.regions[] | select(.y < 100)] | length > 0' <<<"$out")" = true
out=$(AS assert unchanged "$BEFORE" "$BEFORE")
check "a capture is unchanged against itself" test $? = 0 -a "$(jq .pixels_changed <<<"$out")" = 0
out=$(AS assert unchanged "$BEFORE" "$AFTER" --mask 0,0,480,100)
check "masking the label makes it unchanged" test $? = 0
AS assert unchanged "$BEFORE" "$AFTER" --mask 0,0,480,260 >/dev/null 2>&1
check "a mask covering everything is an error, not a pass (exit 2)" test $? = 2

# --- text
out=$(AS assert text "$AFTER" --expect "Clicked 1")
check "assert text finds the new label" test $? = 0 -a "$(jq .passed <<<"$out")" = true
out=$(AS assert text "$AFTER" --expect "Clicked 99" 2>/dev/null)
check "assert text of absent text exits 1, showing what was read" test $? = 1 -a -n "$(jq -r .text_read <<<"$out")"
AS assert text "$AFTER" --expect "clicked 1" --exact >/dev/null 2>&1
check "--exact is case-sensitive and whole-text" test $? = 1

# --- template: the button image, cut from a capture by region
BTN=$(AS snapshot --window "$W" --region "$BX,$BY,$BW,$BH" | jq -r .token)
out=$(AS assert template "$AFTER" --template "$BTN")
check "assert template finds the button" test $? = 0 -a "$(jq .found <<<"$out")" = true
# analyze-only: where it was found is told on the 8-pixel disclosure grid
check "...at the button's place (within the disclosure grid)" \
    test "$(jq --argjson x "$BX" --argjson y "$BY" '(.best.x - $x | fabs) <= 4 and (.best.y - $y | fabs) <= 4' <<<"$out")" = true
check "...with a score near 1" test "$(jq '.best.score > 0.99' <<<"$out")" = true
AS click --window "$W" --template "$BTN" >/dev/null
check "click --template presses the button (clicks == 2)" pg_state_is .clicks 2
out=$(AS wait-for --window "$W" --text "Clicked 2" --timeout 10)
check "wait-for sees the new label" test "$(jq .found <<<"$out")" = true
out=$(AS wait-for --window "$W" --text "Clicked 50" --timeout 1.5 2>"$PG_TMP/e")
check "wait-for of text that never comes exits 6" test $? = 6
check "...and prints its measurements on stdout, as exit 1 does (the last frame's token)" \
    test "$(jq -r '.token[0:4]' <<<"$out")" = "cap:"
AS click --window "$W" --text "No such label" >/dev/null 2>&1
check "click --text on absent text exits 4" test $? = 4

# --- hashes
SHA=$(AS info "$AFTER" | jq -r .digest)
check "hash sha256 of a token equals its capture digest" test "$(AS hash "$AFTER" --algo sha256 | jq -r .hash)" = "$SHA"
D1=$(AS hash "$BEFORE" | jq -r .hash)
check "hash gives a dhash by default, 16 hex digits" grep -qE '^[0-9a-f]{16}$' <<<"$D1"

# --- the agent's own files (read by the client, sent as bytes)
runuser -u "$PG_AGENT" -- convert -size 64x48 xc:white -fill black -draw "rectangle 10,10 20,20" "$WORK/a.png"
runuser -u "$PG_AGENT" -- convert -size 64x48 xc:white -fill black -draw "rectangle 30,10 40,20" "$WORK/b.png"
out=$(AS diff "$WORK/a.png" "$WORK/b.png")
check "diff of two files counts both squares (242 pixels)" test "$(jq .pixels_changed <<<"$out")" = 242
check "...as two regions" test "$(jq .region_count <<<"$out")" = 2
AS diff "$WORK/a.png" "$BEFORE" >/dev/null 2>&1
check "images of different sizes are not compared (exit 1)" test $? = 1
head -c 200 "$WORK/a.png" >"$WORK/truncated.png"
AS hash "$WORK/truncated.png" >/dev/null 2>"$PG_TMP/e"
check "a truncated PNG is BAD_INPUT (exit 8)" test $? = 8
python3 - "$WORK/bomb.png" <<'PY'
import struct, sys, zlib
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
ihdr = struct.pack(">IIBBBBB", 100000, 100000, 8, 6, 0, 0, 0)
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 1000)) + chunk(b"IEND", b""))
PY
chown "$PG_AGENT" "$WORK/bomb.png"
AS hash "$WORK/bomb.png" >/dev/null 2>"$PG_TMP/e"
check "a decompression bomb (100000x100000 claimed) is refused before decoding (exit 8)" test $? = 8
AS hash "$PG_TMP/state/audit.jsonl" >/dev/null 2>&1
check "the client cannot make the broker read a path (the agent's own read fails: exit 4)" test $? = 4
AS info "$(jq -r .evidence.diff <<<"$(AS assert unchanged "$BEFORE" "$AFTER" --max-pct 0.01 2>/dev/null)")" >/dev/null
check "a diff token belongs to the agent (info works)" test $? = 0
pg_as "$PG_OTHER" pixelgate hash "$AFTER" >/dev/null 2>&1
check "another user cannot hash the agent's token (exit 4)" test $? = 4

pg_summary
