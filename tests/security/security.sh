#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One check per privacy guarantee, each attempting the forbidden thing as the
# agent (or with a bad policy) and failing as it must. Real broker as system
# user `pixelgate`, real Xvfb, real Tk apps run by their own users.
# (Spool/audit unreadable, tokens bound to their user and audit tamper
# detection are proven in tests/integration/tk_loop.sh.)
set -uo pipefail
. "$(dirname "$0")/../integration/lib.sh"
# Account names start with PGS_USERS (default pgs), so that two checkouts can
# run this at once without deleting each other's accounts.
PGS=${PGS_USERS:-pgs}
PG_AGENT=$PGS-agent
PG_OTHER=$PGS-other
APPROVER=$PGS-approver
OUTSIDER=$PGS-outsider

pg_require_root
pg_require_tools Xvfb xauth xhost xdpyinfo wish jq runuser useradd convert identify python3 curl sshd ssh ssh-keygen
trap pg_cleanup EXIT
pg_user pixelgate system
for u in "$PG_AGENT" "$PG_OTHER" "$APPROVER" "$OUTSIDER"; do pg_user "$u"; done
# A fake OpenAI-compatible vision server on loopback: it decodes the PNG it
# receives and answers from the pixels (size, dominant colour).
pg_start_fake_openai
PG_POLICY_JSON=$(cat <<JSON
{"version": 1,
 "clients": {"users": ["$PG_AGENT", "$PG_OTHER"]},
 "approvers": ["$APPROVER"],
 "expose_pixels": "analyze-only",
 "analysis": {"mode": "local-only", "endpoints": {
    "local": {"kind": "openai", "url": "$FAKE/ok/v1/chat/completions", "model": "fake"},
    "judge": {"kind": "openai", "url": "$FAKE/judge/v1/chat/completions", "model": "fake"}}},
 "capture": {"deny_windows": ["^secret vault\$", " - Private Browsing\$"]}}
JSON
)
pg_setup_dirs
pg_start_xvfb
DISPLAY=$PG_DISPLAY xhost +SI:localuser:"$PG_OTHER" >/dev/null
pg_start_broker
pg_start_app
pg_launch_app "$PG_OTHER" "$PG_TMP/app/other.json" 300x200+600+40 "other user app"
pg_launch_app "$PG_AGENT" "$PG_TMP/app/vault.json" 300x200+600+400 "secret vault"
AUDIT=$PG_TMP/state/audit.jsonl
audited() { jq -s -e "$1" "$AUDIT" >/dev/null; }   # audited JQ_FILTER_ON_ALL_RECORDS

TOKEN=$(pg_as "$PG_AGENT" pixelgate snapshot --window '^pixelgate demo$' | jq -r .token)
check "setup: the agent has a token" grep -q '^cap:' <<<"$TOKEN"

# --- hash is not a pixel oracle (a 1x1 sha256 has only 2^24 answers: a table inverts it)
pg_as "$PG_AGENT" pixelgate hash "$TOKEN" --algo sha256 --region 5,5,1,1 >/dev/null 2>"$PG_TMP/e"
check "sha256 of a token sub-region is refused (exit 3)" test $? = 3
out=$(pg_as "$PG_AGENT" pixelgate hash "$TOKEN" --algo sha256)
check "...the token's hash is its stored whole-image digest" test "$(jq -r .hash <<<"$out")" = "$(pg_as "$PG_AGENT" pixelgate info "$TOKEN" | jq -r .digest)"
pg_as "$PG_AGENT" pixelgate hash "$TOKEN" --algo dhash --region 5,5,8,8 >/dev/null 2>&1
check "a dhash of a tiny token region is refused (exit 3)" test $? = 3
check "...and hash queries on tokens are audited" audited 'map(select(.op=="hash")) | length >= 3'

# --- admission
pg_as "$OUTSIDER" pixelgate ping >/dev/null 2>"$PG_TMP/e"
check "a user the policy does not admit is refused (exit 3)" test $? = 3
check "...and the refusal is audited" audited "map(select(.principal.user==\"$OUTSIDER\" and .outcome==\"POLICY_REFUSED\")) | length == 1"

# --- admission by a group with many members, and of a user whose passwd entry
# is long: the lookups grow their buffers (ERANGE) instead of failing closed
BIG=$PGS-big
GECOS=$PGS-gecos
groupadd "$BIG"
members=()
for i in $(seq -w 1 64); do pg_user "$PGS-big-member-$i" system; members+=("$PGS-big-member-$i"); done
gpasswd -M "$(IFS=,; echo "${members[*]},$PG_AGENT")" "$BIG"
check "setup: the group's entry is over 1 KiB" test "$(getent group "$BIG" | wc -c)" -gt 1024
pg_user "$GECOS"
usermod -c "$(printf 'long comment %.0s' $(seq 100))" "$GECOS"
check "setup: $GECOS's passwd entry is over 1 KiB" test "$(getent passwd "$GECOS" | wc -c)" -gt 1024
GOOD_POLICY=$(cat "$PG_POLICY")
pg_write_policy "$(jq --arg g "$BIG" --arg u "$GECOS" '.clients = {"users": [$u], "groups": [$g]}' <<<"$GOOD_POLICY")"
kill -HUP "$PG_BROKER_PID"; sleep 0.6
pg_as "$PG_AGENT" pixelgate ping >/dev/null 2>"$PG_TMP/e"
check "a member of a group with many members is admitted by that group" test $? = 0
sed "s/^/# /" "$PG_TMP/e"
pg_as "$GECOS" pixelgate ping >/dev/null 2>"$PG_TMP/e"
check "a user whose passwd entry is long is admitted by name" test $? = 0
sed "s/^/# /" "$PG_TMP/e"
# the broker remembers who a uid is for a moment (pg_posix_accounts.h), but
# not past a change to the group file: leaving the group refuses at once
gpasswd -d "$PG_AGENT" "$BIG" >/dev/null
pg_as "$PG_AGENT" pixelgate ping >/dev/null 2>"$PG_TMP/e"
check "a user removed from the admitting group is refused at the next connection (exit 3)" test $? = 3
pg_write_policy "$GOOD_POLICY"
kill -HUP "$PG_BROKER_PID"; sleep 0.6
groupdel "$BIG"

# --- remote drivers are off by default, and "remote" comes from what the peer
# cannot set: a root-owned sshd among its ancestors or holding its login
# session (audit session id, logind's record), never the peer's own name.
cat >"$PG_TMP/ping.py" <<'PY'
import ctypes, json, socket, struct, sys
if len(sys.argv) > 2:
    ctypes.CDLL(None).prctl(15, sys.argv[2].encode(), 0, 0, 0)  # PR_SET_NAME
h = b'{"v":1,"id":1,"op":"ping"}'
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b"PGF1" + struct.pack(">II", len(h), 0) + h)
pre = s.recv(12, socket.MSG_WAITALL); n = struct.unpack(">I", pre[4:8])[0]
r = json.loads(s.recv(n, socket.MSG_WAITALL))
print("OK" if r.get("ok") else r["error"]["code"] + ": " + r["error"]["message"])
PY
chmod 0644 "$PG_TMP/ping.py"
REMOTE_DIR=$(mktemp -d)
chmod 0755 "$REMOTE_DIR"
cp "$(readlink -f /usr/bin/python3)" "$REMOTE_DIR/sshd"   # its comm is "sshd"
pg_as "$PG_AGENT" "$REMOTE_DIR/sshd" "$PG_TMP/ping.py" "$PG_SOCK" >"$PG_TMP/remote.out" 2>&1
check "a local client whose executable is named sshd is still local (served)" grep -qx OK "$PG_TMP/remote.out"
sed "s/^/# /" "$PG_TMP/remote.out"; rm -rf "$REMOTE_DIR"
pg_as "$PG_AGENT" python3 "$PG_TMP/ping.py" "$PG_SOCK" sshd >"$PG_TMP/remote.out" 2>&1
check "a local client that renames itself sshd (prctl PR_SET_NAME) is still local (served)" grep -qx OK "$PG_TMP/remote.out"
sed "s/^/# /" "$PG_TMP/remote.out"
# A real SSH login on loopback: sshd as root, the agent logging in with a key.
SSHD=$PG_TMP/sshd
mkdir -p "$SSHD/keys" /run/sshd
chmod 0755 "$SSHD" "$SSHD/keys"
ssh-keygen -q -t ed25519 -N '' -f "$SSHD/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$SSHD/client_key"
install -m 0644 "$SSHD/client_key.pub" "$SSHD/keys/$PG_AGENT"
SSH_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$SSHD/sshd_config" <<CFG
Port $SSH_PORT
ListenAddress 127.0.0.1
HostKey $SSHD/host_key
UsePAM yes
AuthorizedKeysFile $SSHD/keys/%u
PasswordAuthentication no
KbdInteractiveAuthentication no
StrictModes no
PidFile none
CFG
/usr/sbin/sshd -D -e -f "$SSHD/sshd_config" 2>"$SSHD/log" &
PG_PIDS+=($!)
as_ssh() { ssh -q -i "$SSHD/client_key" -p "$SSH_PORT" -o BatchMode=yes -o StrictHostKeyChecking=no \
    -o UserKnownHostsFile=/dev/null "$PG_AGENT@127.0.0.1" "$@"; }
for i in $(seq 50); do as_ssh true 2>/dev/null && break; sleep 0.1; done
as_ssh true
check "setup: the agent logs in over SSH on loopback" test $? = 0
as_ssh "PIXELGATE_SOCKET=$PG_SOCK $PG_TMP/bin/pixelgate ping" >/dev/null 2>"$PG_TMP/e"
check "a client started in an SSH login is remote and refused while clients.remote is false (exit 3)" test $? = 3
check "...saying so" grep -q 'remote clients are not admitted' "$PG_TMP/e"
# Leaving sshd's process tree (reparented to init) does not leave the login session.
as_ssh "(python3 $PG_TMP/ping.py $PG_SOCK >$PG_TMP/app/detached.out 2>&1 &); sleep 1; cat $PG_TMP/app/detached.out" >"$PG_TMP/remote.out" 2>&1
check "...and so is one that detached from sshd's process tree (same login session)" grep -q '^POLICY_REFUSED' "$PG_TMP/remote.out"
sed "s/^/# /" "$PG_TMP/remote.out"
check "...and the refusals are audited" audited "map(select(.principal.user==\"$PG_AGENT\" and .op==\"ping\" and .outcome==\"POLICY_REFUSED\")) | length >= 1"

# --- release under analyze-only: refused, with a request id; nothing written
pg_as "$PG_AGENT" pixelgate release "$TOKEN" --png "/tmp/$PGS-release.png" >/dev/null 2>"$PG_TMP/e"
check "release under analyze-only exits 3" test $? = 3
check "...nothing was written" test ! -e /tmp/$PGS-release.png
REQ=$(jq -r .error.details.request_id "$PG_TMP/e")
check "...and the refusal names a request id" grep -qE '^rel:' <<<"$REQ"
check "...and is audited with that id" audited "map(select(.op==\"release\" and .disposition.request_id==\"$REQ\" and .outcome==\"POLICY_REFUSED\")) | length >= 1"

# --- approving: never one's own request; not a non-approver; an approver once
pg_as "$PG_AGENT" pixelgate approve "$REQ" >/dev/null 2>&1
check "the agent cannot approve its own release (exit 3)" test $? = 3
pg_as "$PG_OTHER" pixelgate approve "$REQ" >/dev/null 2>&1
check "a user who is not an approver cannot approve (exit 3)" test $? = 3
pg_as "$PG_AGENT" pixelgate release "$TOKEN" --png /tmp/$PGS-release.png >/dev/null 2>&1
check "still refused before approval" test $? = 3
SNAP_SHA=$(jq -rs --arg t "${TOKEN:0:8}" 'map(select(.op=="snapshot" and .disposition.token_prefix==$t))[0].image_sha256' "$AUDIT")
out=$(pg_as "$APPROVER" pixelgate approve "$REQ" --show)
check "approve --show tells the approver what the request releases: the window, its size, its time" \
    test "$(jq -r '"\(.source) \(.window_title) \(.width)x\(.height) \(.captured_at|length)"' <<<"$out")" = "window pixelgate demo 480x260 24"
check "...and the full digest of the pixels, the one the audit log holds for the capture" \
    test "$(jq -r .sha256 <<<"$out")" = "$SNAP_SHA" -a ${#SNAP_SHA} = 64
pg_as "$PG_AGENT" pixelgate release "$TOKEN" --png /tmp/$PGS-release.png >/dev/null 2>&1
check "...and approves nothing (release still exits 3)" test $? = 3
out=$(pg_as "$APPROVER" pixelgate approve "$REQ")
check "an approver (not a client) approves" test "$(jq -r .requester <<<"$out")" = "$PG_AGENT"
check "...and the approval's reply names what it released" test "$(jq -r '"\(.window_title) \(.sha256)"' <<<"$out")" = "pixelgate demo $SNAP_SHA"
RELDIR=$(runuser -u "$PG_AGENT" -- mktemp -d)
out=$(pg_as "$PG_AGENT" pixelgate release "$TOKEN" --png "$RELDIR/shot.png")
check "after approval the release succeeds once (mode approved)" test "$(jq -r .mode <<<"$out")" = approved
check "...the client wrote a real PNG of the capture's size, owned by the agent" \
    test "$(identify -format '%wx%h' "$RELDIR/shot.png")" = "$(jq -r '"\(.width)x\(.height)"' <<<"$out")" -a "$(stat -c %U "$RELDIR/shot.png")" = "$PG_AGENT"
pg_as "$PG_AGENT" pixelgate release "$TOKEN" --base64 >/dev/null 2>&1
check "...and only once (a second release exits 3)" test $? = 3
pg_as "$PG_OTHER" pixelgate release "$TOKEN" --base64 >/dev/null 2>&1
check "another user cannot release the agent's token (exit 4)" test $? = 4

# --- denied windows
out=$(pg_as "$PG_AGENT" pixelgate windows)
check "windows lists the denied window without its title, class or instance" \
    test "$(jq -c '[.windows[] | select(.capture_denied and (.other_user | not))] | map({title, class, private})' <<<"$out")" = '[{"title":null,"class":null,"private":true}]'
check "...and another user's window too, never captured either (other_users.sh tries)" \
    test "$(jq '[.windows[] | select(.private == true and .other_user == true and .capture_denied == true)] | length' <<<"$out")" = 1
check "...while the agent's own window keeps its title" \
    test "$(jq -r '[.windows[] | select(.title == "pixelgate demo")] | length' <<<"$out")" = 1
check "...and titles of private windows appear nowhere in the answer" bash -c '! grep -q "secret vault\|other user app" <<<"$1"' _ "$out"
check "windows is audited" audited 'map(select(.op=="windows" and .outcome=="OK")) | length >= 1'
VAULT_ID=$(jq '[.windows[] | select(.capture_denied and (.other_user | not))][0].id' <<<"$out")
pg_as "$PG_AGENT" pixelgate snapshot --window '^secret vault$' >/dev/null 2>"$PG_TMP/e"
check "a pattern cannot find a private window (exit 4: no probing of private titles)" test $? = 4
pg_as "$PG_AGENT" pixelgate snapshot --id "$VAULT_ID" >/dev/null 2>"$PG_TMP/e"
check "capturing a denied window by its id exits 3" test $? = 3
check "...the refusal names no title" bash -c '! grep -q "secret vault" "$1"' _ "$PG_TMP/e"
check "...and the refusal is audited" audited 'map(select(.op=="snapshot" and .outcome=="POLICY_REFUSED" and .window.title=="secret vault")) | length == 1'
pg_as "$PG_AGENT" pixelgate click --id "$VAULT_ID" --at 10,10 >/dev/null 2>&1
check "input into a denied window exits 3" test $? = 3

# A deny rule anchored at the end, and a title (a web page chooses it) long
# enough that a 511-byte copy loses the suffix: a cut title matches every rule.
LONG_TITLE="$(printf 'a%.0s' $(seq 581)) - Private Browsing"
pg_launch_app "$PG_AGENT" "$PG_TMP/app/long.json" 300x150+40+600 "$LONG_TITLE"
LONG_ID=$(pg_as "$PG_AGENT" pixelgate windows | jq '[.windows[] | select(.width == 300 and .height == 150 and .y >= 600)][0].id')
check "setup: the window with the 600-byte title is listed" test "$LONG_ID" != null
check "...as private, denied, and without its title (it might match a deny rule)" \
    test "$(pg_as "$PG_AGENT" pixelgate windows | jq -c --argjson id "$LONG_ID" '.windows[] | select(.id == $id) | [.title, .private, .capture_denied]')" = '[null,true,true]'
pg_as "$PG_AGENT" pixelgate snapshot --id "$LONG_ID" >/dev/null 2>&1
check "a window whose 600-byte title ends in a denied suffix is not captured (exit 3)" test $? = 3
kill "$(jq .pid "$PG_TMP/app/long.json")" 2>/dev/null

# --- agent-supplied patterns
# A pattern whose automaton glibc would build for seconds and gigabytes (6.5 GB,
# 10 s measured with regcomp alone) is refused before anything is compiled;
# compiled, it would match nothing and exit 0.
pg_as "$PG_AGENT" pixelgate windows --match '((a{1,255}){1,255}){1,255}' >/dev/null 2>"$PG_TMP/e"
check "a pathological --match pattern is refused as USAGE (exit 2)" test $? = 2
check "...saying why" grep -q 'bad window pattern' "$PG_TMP/e"
pg_as "$PG_AGENT" pixelgate snapshot --window '((a{1,255}){1,255}){1,255}' >/dev/null 2>"$PG_TMP/e"
check "...and as a --window target (exit 2)" test $? = 2
pg_as "$PG_AGENT" pixelgate ping >/dev/null 2>&1
check "...the broker still answers" test $? = 0

# --- input only into the requester's own windows
OTHER_ID=$(pg_as "$PG_AGENT" pixelgate windows | jq '[.windows[] | select(.other_user == true)][0].id')
pg_as "$PG_AGENT" pixelgate click --id "$OTHER_ID" --at 150,100 >/dev/null 2>"$PG_TMP/e"
check "clicking a window owned by another user exits 3" test $? = 3
pg_as "$PG_AGENT" pixelgate type --id "$OTHER_ID" 'rm -rf ~' >/dev/null 2>&1
check "typing into a window owned by another user exits 3" test $? = 3
check "...the other user's app got nothing" test "$(jq .clicks "$PG_TMP/app/other.json"):$(jq -r .entry "$PG_TMP/app/other.json")" = "0:"

# --- analysis: by name only, to the endpoint the policy names; only text comes back
SNAP=$(pg_as "$PG_AGENT" pixelgate snapshot --window '^pixelgate demo$')
ATOK=$(jq -r .token <<<"$SNAP")
hits() { curl -s "$FAKE/stats" | jq '[.hits[]] | add // 0'; }
out=$(pg_as "$PG_AGENT" pixelgate analyze "$ATOK" --prompt "describe" --endpoint local)
check "analyze answers with the endpoint's text" grep -q "dominant colour" <<<"$(jq -r .answer <<<"$out")"
check "...computed from the very pixels captured (size matches)" \
    grep -q "size: $(jq -r '"\(.width)x\(.height)"' <<<"$SNAP")" <<<"$(jq -r .answer <<<"$out")"
check "...and the analysis is audited with the endpoint" audited 'map(select(.op=="analyze" and .disposition.endpoint=="local" and .outcome=="OK")) | length == 1'
before=$(hits)
pg_as "$PG_AGENT" pixelgate analyze "$ATOK" --prompt x --endpoint "$FAKE/ok/v1/chat/completions" >/dev/null 2>&1
check "an endpoint given as a URL is refused (exit 3)" test $? = 3
pg_as "$PG_AGENT" pixelgate analyze "$ATOK" --prompt x --endpoint elsewhere >/dev/null 2>&1
check "an endpoint the policy does not name is refused (exit 3)" test $? = 3
check "...and no request reached any server" test "$(hits)" = "$before"
out=$(pg_as "$PG_AGENT" pixelgate judge "$ATOK" --expect "the window is mostly white" --samples 3 --endpoint judge)
check "judge: a matching expectation passes (exit 0, CONTENT_MATCH)" test $? = 0 -a "$(jq -r .outcome <<<"$out")" = CONTENT_MATCH
out=$(pg_as "$PG_AGENT" pixelgate judge "$ATOK" --expect "the window is mostly red" --samples 3 --endpoint judge --blocking 2>/dev/null)
check "judge --blocking: a wrong expectation fails (exit 1, CONTENT_MISMATCH)" test $? = 1 -a "$(jq -r .outcome <<<"$out")" = CONTENT_MISMATCH
out=$(pg_as "$PG_AGENT" pixelgate judge "$ATOK" --expect "the window is mostly red" --samples 3 --endpoint judge 2>/dev/null)
check "judge without --blocking: a wrong expectation is a warning (exit 0, warning set)" test $? = 0 -a "$(jq -r .outcome <<<"$out")" = CONTENT_MISMATCH -a "$(jq -r 'has("warning")' <<<"$out")" = true
out=$(pg_as "$PG_AGENT" pixelgate judge "$ATOK" --expect "the window is mostly white" --samples 3 --endpoint judge)
check "judge: the same question again is answered from the cache" test "$(jq .cached <<<"$out")" = true
GOOD_POLICY=$(cat "$PG_POLICY")
pg_write_policy "$(jq '.analysis.endpoints.far = {"kind": "openai", "url": "http://10.20.30.40/v1/chat/completions", "model": "x"}' <<<"$GOOD_POLICY")"
kill -HUP "$PG_BROKER_PID"; sleep 0.6
check "a non-loopback endpoint under local-only is refused at reload" grep -q "policy reload refused" "$PG_TMP/broker.log"
pg_as "$PG_AGENT" pixelgate analyze "$ATOK" --prompt x --endpoint far >/dev/null 2>&1
check "...so it cannot be used (exit 3)" test $? = 3
pg_write_policy "$GOOD_POLICY"

# --- release under allow (policy reloaded by SIGHUP); screen capture blacks out the denied window
ALLOW=$(jq '.expose_pixels = "allow"' "$PG_POLICY")
pg_write_policy "$ALLOW"
kill -HUP "$PG_BROKER_PID"; sleep 0.6
check "SIGHUP reload is audited" audited 'map(select(.op=="policy.reload" and .outcome=="OK")) | length >= 1'
# redacted_windows counts the denied window and the other user's app (blacked out like it)
out=$(pg_as "$PG_AGENT" pixelgate snapshot --screen)
check "a screen capture reports the denied window blacked out" test "$(jq .redacted_windows <<<"$out")" = 2
STOK=$(jq -r .token <<<"$out")
# A region that starts left of and above the screen: the capture is clipped
# to the screen, and the blackout must follow the clipped origin.
out=$(pg_as "$PG_AGENT" pixelgate snapshot --screen --region -20000,-20000,40000,40000)
check "a screen capture whose region starts outside the screen still blacks out the denied window" \
    test "$(jq .redacted_windows <<<"$out")" = 2
NTOK=$(jq -r .token <<<"$out")
pg_as "$PG_AGENT" pixelgate release "$NTOK" --png "$RELDIR/neg.png" >/dev/null
check "...and the released pixels at the denied window are black" \
    test "$(convert "$RELDIR/neg.png" -format '%[pixel:p{750,500}]' info:)" = "srgb(0,0,0)"
out=$(pg_as "$PG_AGENT" pixelgate snapshot --screen --region -200,380,1200,400)
NTOK=$(jq -r .token <<<"$out")
pg_as "$PG_AGENT" pixelgate release "$NTOK" --png "$RELDIR/straddle.png" >/dev/null
check "a region straddling the left edge blacks out the denied window where it lands (x 600..900, y 400..600)" \
    test "$(convert "$RELDIR/straddle.png" -format '%[pixel:p{610,30}]' info:)" = "srgb(0,0,0)" -a \
         "$(convert "$RELDIR/straddle.png" -format '%[pixel:p{890,190}]' info:)" = "srgb(0,0,0)"
check "...with the clipped origin in its metadata" test "$(jq -c .region <<<"$out")" = '{"x":0,"y":380,"w":1000,"h":400}'
pg_as "$PG_AGENT" pixelgate release "$STOK" --png "$RELDIR/screen.png" >/dev/null
check "under allow the agent releases its screen capture" test -s "$RELDIR/screen.png"
px() { convert "$RELDIR/screen.png" -format "%[pixel:p{$1}]" info:; }
check "...where the denied window is black" test "$(px 750,500)" = "srgb(0,0,0)" -o "$(px 750,500)" = "black"
check "...and the agent's own window is not" test "$(px 100,100)" != "srgb(0,0,0)"

# Everything a denied app shows is its own: an override-redirect popup (what
# menus, tooltips and autotype dropdowns are) and a transient dialog, both
# outside its main window, are blacked out too.
pg_launch_app "$PG_AGENT" "$PG_TMP/app/vault2.json" 200x120+1000+600 "secret vault" \
    popup=120x60+1050+520 dialog=150x60+820+640
out=$(pg_as "$PG_AGENT" pixelgate snapshot --screen)
check "a screen capture counts the denied app's popup and dialog among the blacked-out windows" \
    test "$(jq .redacted_windows <<<"$out")" = 5
pg_as "$PG_AGENT" pixelgate release "$(jq -r .token <<<"$out")" --png "$RELDIR/owned.png" >/dev/null
opx() { convert "$RELDIR/owned.png" -format "%[pixel:p{$1}]" info:; }
check "...its override-redirect popup never appears in the released capture (black)" test "$(opx 1110,550)" = "srgb(0,0,0)"
check "...nor its transient dialog" test "$(opx 895,670)" = "srgb(0,0,0)"
check "...nor its main window" test "$(opx 1100,660)" = "srgb(0,0,0)"
kill "$(jq .pid "$PG_TMP/app/vault2.json")" 2>/dev/null

# --- never: no release even after an approval would exist
pg_write_policy "$(jq '.expose_pixels = "never"' "$PG_POLICY")"
kill -HUP "$PG_BROKER_PID"; sleep 0.6
pg_as "$PG_AGENT" pixelgate release "$STOK" --png "$RELDIR/never.png" >/dev/null 2>&1
check "release under never exits 3" test $? = 3
check "...and writes nothing" test ! -e "$RELDIR/never.png"
pg_as "$PG_AGENT" pixelgate analyze "$STOK" --prompt x --endpoint local >/dev/null 2>&1
check "analyze under never exits 3 (no image leaves the broker)" test $? = 3

# --- the policy file itself
chmod 0666 "$PG_POLICY"
kill -HUP "$PG_BROKER_PID"; sleep 0.6
check "a world-writable policy is refused on reload, the old one stays" grep -q "policy reload refused" "$PG_TMP/broker.log"
pg_as "$PG_AGENT" pixelgate release "$STOK" --base64 >/dev/null 2>&1
check "...(still never: release exits 3)" test $? = 3
chmod 0664 "$PG_POLICY"
runuser -u pixelgate -- "$PG_TMP/bin/pixelgated" --foreground --socket "$PG_TMP/run/x.sock" \
    --state-dir "$PG_TMP/state2" --policy "$PG_POLICY" 2>"$PG_TMP/e"
check "the broker refuses to start with a group-writable policy (exit 8)" test $? = 8
check "...saying why" grep -qi "writable" "$PG_TMP/e"
chmod 0644 "$PG_POLICY"
chown "$PG_AGENT" "$PG_POLICY"
runuser -u pixelgate -- "$PG_TMP/bin/pixelgated" --foreground --socket "$PG_TMP/run/x.sock" \
    --state-dir "$PG_TMP/state2" --policy "$PG_POLICY" 2>"$PG_TMP/e"
check "...or with a policy owned by the agent (exit 8)" test $? = 8
chown root "$PG_POLICY"

# --- the shipped policy: installed 0640 root:pixelgate, so the broker (group
# pixelgate) reads it and agents do not learn its deny patterns, approvers
# and endpoints; the broker's file check accepts that mode
INST=$PG_TMP/inst
mkdir -p "$INST"; chmod 0755 "$INST"
DESTDIR=$INST bash "$PG_ROOT/installer/linux/install.sh" >"$PG_TMP/inst.log" 2>&1
check "install.sh (DESTDIR) installs the shipped policy 0640 root:pixelgate" \
    test "$(stat -c '%a %U:%G' "$INST/etc/pixelgate/policy.json" 2>&1)" = "640 root:pixelgate"
sed "s/^/# /" "$PG_TMP/inst.log"
pg_as "$PG_AGENT" cat "$INST/etc/pixelgate/policy.json" >/dev/null 2>&1
check "...which an agent cannot read" test $? != 0
mkdir -p "$PG_TMP/state3"; chown pixelgate: "$PG_TMP/state3"; chmod 0700 "$PG_TMP/state3"
runuser -u pixelgate -- env -i PATH=/usr/bin:/bin "$PG_TMP/bin/pixelgated" --socket "$PG_TMP/run/inst.sock" \
    --state-dir "$PG_TMP/state3" --policy "$INST/etc/pixelgate/policy.json" --display "$PG_DISPLAY" 2>"$PG_TMP/inst-broker.log"
check "...and the broker starts with it as installed" test $? = 0
INST_PID=$(pgrep -u pixelgate -f "pixelgated --socket $PG_TMP/run/inst.sock" | head -1)
[ -n "$INST_PID" ] && kill "$INST_PID"
sed "s/^/# /" "$PG_TMP/inst-broker.log"
echo '{"version": 1}' >"$INST/etc/pixelgate/policy.json"
DESTDIR=$INST bash "$PG_ROOT/installer/linux/install.sh" >/dev/null 2>&1
check "...and install.sh never overwrites an administrator's policy" grep -qx '{"version": 1}' "$INST/etc/pixelgate/policy.json"

# --- the audit chain still verifies after all of this
"$PG_TMP/bin/pixelgated" --verify-audit "$AUDIT" >/dev/null
check "the audit chain verifies" test $? = 0
ANCHOR=$(grep -o 'audit [0-9]*:[0-9a-f]*' "$PG_TMP/broker.log" | tail -1 | cut -d' ' -f2)
head -n -2 "$AUDIT" >"$PG_TMP/truncated.jsonl"
"$PG_TMP/bin/pixelgated" --verify-audit "$PG_TMP/truncated.jsonl" --anchor "$ANCHOR" >/dev/null
check "truncating the audit log is caught against the logged anchor (exit 1)" test $? = 1

pg_summary
