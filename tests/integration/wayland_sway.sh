#!/bin/bash
# SPDX-License-Identifier: MIT
# wayland_sway.sh - a wlroots Wayland session through pixelgate-session (issue 36):
# headless sway (1.7, pixman renderer) runs as a desktop user (pgwldesk) with
# native Wayland GTK 3 apps; the helper, started by the Exec= line of the
# shipped autostart entry under dbus-run-session, registers as
# wayland-wlroots; the broker (as pixelgate, --display-source session-helper
# --display wayland-N@pgwldesk) never touches the compositor. Then the X11 loop
# through the client: caps and windows (backend wlroots, via session-helper),
# snapshot, OCR, click by text, Unicode typing, wait-stable, assert; a denied
# window refused and blacked out; another account's client on the same
# compositor (the fixture: the runtime directory and socket opened to
# pgother, which is what sharing a compositor takes) neither listed nor
# clickable, and blacked out of screen captures; sway stopping: the broker
# reports the helper gone. Then the same GTK app under Xvfb through the direct
# X11 backend: the engine's hash and OCR agree across the two capture paths.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_wayland.sh"
pg_require_root
pg_require_tools sway swaymsg jq dbus-run-session convert Xvfb xauth xdpyinfo xhost mcookie
/usr/bin/python3 -c 'import gi; gi.require_version("Gtk", "3.0")' 2>/dev/null ||
    pg_die "python3-gi with GTK 3 (gir1.2-gtk-3.0) is needed"

PG_DESK=pgwldesk
finish() {
    pkill -u "$PG_DESK" 2>/dev/null || true
    pkill -u "$PG_OTHER" -f pg_demo_gtk 2>/dev/null || true
    pg_cleanup
    pg_session_group_remove
}
trap finish EXIT

pg_user pixelgate system
pg_user "$PG_AGENT"
pg_user "$PG_OTHER"
pg_user "$PG_DESK"
pg_session_group
PG_POLICY_JSON=$(cat <<JSON
{"version": 1,
 "clients": {"users": ["$PG_AGENT"]},
 "expose_pixels": "allow",
 "capture": {"other_users": ["$PG_DESK"], "deny_windows": ["^secret vault\$"]},
 "input": {"other_users": true}}
JSON
)
pg_setup_dirs
pg_install_session_helper

# --- the desktop user's sway, headless, with two of its GTK apps
pg_start_sway "$PG_DESK"
pg_wl_gtk_app pg_wl_as "$PG_STATE_FILE" "desk form" 60 60
pg_wl_gtk_app pg_wl_as "$PG_TMP/app/vault.json" "secret vault" 700 60

# --- the broker, reaching the session only through the helper
PG_DISPLAY="$PG_WL_DISPLAY@$PG_DESK"
pg_start_broker --display-source session-helper --session-socket "$SESSION_SOCK" --session-helper "$HELPER"
agent() { pg_as "$PG_AGENT" pixelgate "$@"; }

pg_wl_start_helper
registered() { agent caps 2>/dev/null | grep -q '"via":"session-helper"'; }
for i in $(seq 150); do registered && break; sleep 0.1; done
check "the helper registers for the sway session (caps: via session-helper)" registered
[ -s "$PG_TMP/helper.log" ] && sed 's/^/  helper: /' "$PG_TMP/helper.log" | head -5
caps=$(agent caps)
echo "  caps: $(jq -c .detail <<<"${caps:-null}")"
check "caps names the wlroots backend and what it uses" \
    jq -e '(tostring | test("wlroots")) and (tostring | test("wlr-screencopy"))' <<<"${caps:-null}"
check "the registration is audited as wayland-wlroots" \
    grep -q "\"op\":\"session.register\".*session wayland-wlroots.*\"outcome\":\"OK\"" "$PG_TMP/state/audit.jsonl"

wins=$(agent windows)
check "windows lists the desktop user's GTK app through the helper, with its size" \
    jq -e '.via == "session-helper" and ([.windows[] | select(.title == "desk form" and .width == 480 and .height == 260)] | length == 1)' <<<"${wins:-null}"

snap=$(agent snapshot --window '^desk form$')
check "snapshot of the window: a token of its size, by screencopy" \
    jq -e '(.token | startswith("cap:")) and .width == 480 and .height == 260' <<<"${snap:-null}"
TOK=$(jq -r .token <<<"${snap:-null}")
ocr=$(agent ocr "$TOK")
check "OCR reads the app's title and button" jq -e '(.text | test("desk form")) and (.text | test("Press me"))' <<<"${ocr:-null}"

agent click --window '^desk form$' --text 'Press me' >/dev/null
check "click by text reaches the GTK app (virtual pointer)" pg_state_is '.clicks' 1
read -r EX EY < <(jq -r '"\(.entry_box.x + 20) \(.entry_box.y + (.entry_box.h/2|floor))"' "$PG_STATE_FILE")
agent click --window '^desk form$' --at "$EX,$EY" >/dev/null
TEXT='Grüße, Zoë — 東京 €5 😀'
agent type --window '^desk form$' "$TEXT" >/dev/null
check "Unicode typed through the virtual keyboard arrives exactly" pg_state_is '.entry' "$TEXT"
agent key --window '^desk form$' BackSpace >/dev/null
check "BackSpace (a key binding, on the layout's keycode) deletes the last character" pg_state_is '.entry' "${TEXT%😀}"
agent key --window '^desk form$' ctrl+a >/dev/null
check "ctrl+a selects the whole entry" pg_state_is '.selection == [0, (.entry | length)]' true
agent type --window '^desk form$' "replaced" >/dev/null
check "...and text typed then replaces it" pg_state_is '.entry' "replaced"
check "wait-stable settles on the compositor's frames" agent wait-stable --window '^desk form$' --timeout 20
check "assert text finds what was typed" agent assert text "$(agent snapshot --window '^desk form$' | jq -r .token)" \
    --expect replaced
out=$(agent key --window '^desk form$' ctrl+alt+F2 2>&1); rc=$?
check "a VT-switch chord is refused (keyguard) before anything is sent" \
    bash -c '[ '$rc' = 3 ] && grep -q "ctrl+alt+F2" <<<"$1"' _ "$out"

# --- the denied window: refused, and black in a screen capture
wins=$(agent windows)
VAULT=$(jq '[.windows[] | select(.capture_denied)][0].id // empty' <<<"${wins:-null}")
check "the denied window is listed without its title" \
    bash -c '[ -n "$1" ] && ! grep -q "secret vault" <<<"$2"' _ "$VAULT" "$wins"
agent snapshot --window '^secret vault$' >/dev/null 2>&1
check "a pattern cannot find it (exit 4)" test $? = 4
agent snapshot --id "${VAULT:-0}" >/dev/null 2>&1
check "its id is refused (exit 3, POLICY_REFUSED)" test $? = 3

# --- another account's client on the same compositor
# the fixture: what lets another account draw on this compositor
chmod 0711 "$PG_WL_RT" && chmod 0777 "$PG_WL_RT/$PG_WL_DISPLAY"
as_other() { runuser -u "$PG_OTHER" -- env -i PATH=/usr/bin:/bin HOME=/nonexistent LANG=C.UTF-8 \
    XDG_RUNTIME_DIR="$PG_WL_RT" WAYLAND_DISPLAY="$PG_WL_DISPLAY" GDK_BACKEND=wayland NO_AT_BRIDGE=1 "$@"; }
pg_wl_gtk_app as_other "$PG_TMP/app/other.json" "other mail" 60 420
wins=$(agent windows)
check "another account's window is not listed" jq -e '[.windows[].title] | index("other mail") == null' <<<"${wins:-null}"
out=$(agent click --window '^other mail$' --at 10,10 2>&1); rc=$?
check "and not clickable (NOT_FOUND): no input reaches it" bash -c '[ '$rc' = 4 ] && [ "$(jq -r .clicks "$1")" = 0 ]' _ \
    "$PG_TMP/app/other.json"
out=$(agent snapshot --screen)
check "a screen capture blacks out the denied window and the other account's (redacted_windows 2)" \
    test "$(jq .redacted_windows <<<"${out:-null}")" = 2
agent release "$(jq -r .token <<<"${out:-null}")" --png "$PG_TMP/app/screen.png" >/dev/null
px() { convert "$PG_TMP/app/screen.png" -format "%[pixel:p{$1}]" info:; }
check "...black where the vault is and where the other account's window is, not where the desk form is" \
    bash -c '[ "$1" = "srgb(0,0,0)" ] && [ "$2" = "srgb(0,0,0)" ] && [ "$3" != "srgb(0,0,0)" ]' _ \
    "$(px 900,150)" "$(px 200,500)" "$(px 300,150)"

# --- the engine's results on the Wayland capture, kept for the X11 side below: a fresh app,
# focused (GTK under Xvfb without a window manager draws itself active too)
pg_wl_gtk_app pg_wl_as "$PG_TMP/app/parity.json" "parity form" 60 440
pg_wl_swaymsg '[title="^parity form$"] focus'
# engine_reading NAME: the settled parity form's pixels (released to NAME.png), OCR text,
# SHA-256 and dHash, into NAME_OCR, NAME_SHA, NAME_DHASH.
engine_reading() {
    local tok
    agent wait-stable --window '^parity form$' --timeout 20 >/dev/null
    tok=$(agent snapshot --window '^parity form$' | jq -r .token)
    agent release "$tok" --png "$PG_TMP/app/parity-$1.png" >/dev/null
    printf -v "$1_OCR" '%s' "$(agent ocr "$tok" | jq -r .text)"
    printf -v "$1_SHA" '%s' "$(agent hash "$tok" --algo sha256 | jq -r .hash)"
    printf -v "$1_DHASH" '%s' "$(agent hash "$tok" --algo dhash | jq -r .hash)"
}
engine_reading W

# --- the compositor goes away: the helper's end, the broker says so
kill "$PG_WL_SWAY_PID"
gone() { agent windows 2>&1 | grep -q "BROKER_UNREACHABLE"; }
for i in $(seq 100); do gone && break; sleep 0.1; done
check "sway stops: the agent's call says the session is unreachable" gone

# --- the same app on X11 (Xvfb, the direct backend, GDK_BACKEND=x11), same fonts and size:
# identical pixels where both paths are lossless, else a dHash within 2 and the same OCR text
pg_stop_broker
pg_start_xvfb
pg_start_broker
runuser -u "$PG_AGENT" -- env -i PATH=/usr/bin:/bin HOME=/nonexistent LANG=C.UTF-8 DISPLAY="$PG_DISPLAY" GDK_BACKEND=x11 \
    NO_AT_BRIDGE=1 /usr/bin/python3 "$PG_TMP/app/pg_demo_gtk.py" "$PG_TMP/app/parity-x11.json" "parity form" \
    >"$PG_TMP/app/parity-x11.out" 2>&1 &
PG_PIDS+=($!)
for i in $(seq 150); do grep -q READY "$PG_TMP/app/parity-x11.out" 2>/dev/null && break; sleep 0.1; done
engine_reading X
dist=$(python3 -c 'import sys; print(bin(int(sys.argv[1], 16) ^ int(sys.argv[2], 16)).count("1"))' "${W_DHASH:-0}" "${X_DHASH:-ffffffffffffffff}")
echo "  parity: sha256 $([ "$W_SHA" = "$X_SHA" ] && echo identical || echo differs), dHash distance $dist"
check "the Wayland and X11 captures of the same app: identical, or a dHash within 2 (engine parity)" \
    bash -c '[ -n "$1" ] && { [ "$1" = "$2" ] || [ "$3" -le 2 ]; }' _ "$W_SHA" "$X_SHA" "$dist"
check "...and OCR reads the same text from both" bash -c '[ -n "$1" ] && [ "$1" = "$2" ]' _ "$W_OCR" "$X_OCR"

pg_summary
