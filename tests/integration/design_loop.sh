#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Design and motion comparison on real Tk windows, through the CLI as an
# unprivileged agent: compare a snapshot with itself, with a recoloured and
# a rearranged variant (exact under expose_pixels allow: findings name hex
# colours and boxes), frames of an animated and a static widget and motion
# between them and between two phases of the same animation; then the same
# answers under analyze-only, coarse and charged.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
PG_AGENT=pgd-agent
PG_OTHER=pgd-other
pg_require_root
pg_require_tools Xvfb xauth xhost xdpyinfo wish jq runuser
trap pg_cleanup EXIT
pg_user pixelgate system
pg_user "$PG_AGENT"
pg_user "$PG_OTHER"
allow_policy() {
    cat <<JSON
{"version": 1, "clients": {"users": ["$PG_AGENT"]}, "expose_pixels": "${1:-allow}",
 "capture": {"deny_windows": ["^secret vault\$"]}}
JSON
}
PG_POLICY_JSON=$(allow_policy allow)
pg_setup_dirs
install -m 0644 "$PG_ROOT/tests/apps/pg_layout.tcl" "$PG_TMP/app/"
pg_start_xvfb
pg_start_broker
AS() { pg_as "$PG_AGENT" pixelgate "$@"; }

# layout TITLE GEOMETRY KEY=VALUE...: one pg_layout window of the agent's; waits for READY.
layout() {
    local title=$1 geom=$2 out=$PG_TMP/app.$RANDOM.out
    shift 2
    runuser -u "$PG_AGENT" -- env -i PATH=/usr/bin:/bin DISPLAY="$PG_DISPLAY" LANG=C.UTF-8 \
        wish "$PG_TMP/app/pg_layout.tcl" "$PG_TMP/app/$title.json" "$geom" "$title" heading=Dashboard "$@" \
        >"$out" 2>&1 &
    PG_PIDS+=($!)
    local i
    for i in $(seq 100); do grep -q READY "$out" 2>/dev/null && return 0; sleep 0.1; done
    pg_die "layout '$title' did not start: $(cat "$out")"
}
layout "design ref" 640x440+0+0
layout "design recolour" 640x440+0+0 accent=#c62828 header=#6a1b9a
layout "design rearranged" 640x440+0+0 order=card3,card1,card2 button_dx=440
layout "motion anim" 640x440+0+0 anim=1
layout "motion still" 640x440+0+0
snap() { AS snapshot --window "^$1\$" | jq -r .token; }
REF=$(snap "design ref")
RECOL=$(snap "design recolour")
REARR=$(snap "design rearranged")
check "snapshots of the three layouts are tokens" test "${REF:0:4}${RECOL:0:4}${REARR:0:4}" = "cap:cap:cap:"
num() { jq -r "$1" <<<"$out"; }
# hexes TYPE FIELD: the FIELD hex colours of the findings of TYPE in $out.
hexes() { num "[.cv_findings[] | select(.type == \"$1\") | .$2 | select(. != null)] | join(\" \")"; }
# any_near "R G B" TOL HEX...: one of the colours within TOL of R G B in every channel.
any_near() {
    local want=$1 tol=$2 h
    shift 2
    for h in "$@"; do
        python3 -c 'import sys; h=sys.argv[1]; w=list(map(int,sys.argv[2].split())); t=int(sys.argv[3])
sys.exit(0 if len(h)==7 and all(abs(int(h[1+2*i:3+2*i],16)-w[i])<=t for i in range(3)) else 1)' "$h" "$want" "$tol" && return 0
    done
    return 1
}

# --- compare, exact (allow)
out=$(AS compare "$REF" "$REF")
check "a snapshot compared with itself scores 100" test "$(num .overall)" = 100
check "...in every scored dimension" test "$(num '[.subscores[] | .score | select(. != null and . != 100)] | length')" = 0
check "...with the four diagnostic images as tokens" test "$(num '[.visuals[] | select(startswith("cap:"))] | length')" = 4
out=$(AS compare "$REF" "$RECOL")
echo "     recoloured: overall $(num .overall), color $(num .subscores.color.score), findings: $(num '[.cv_findings[] | "\(.type) \(.reference_hex // "") -> \(.candidate_hex // "")"] | join("; ")')"
check "the recoloured variant loses on color" test "$(num '.subscores.color.score < 60 and .subscores.layout.score > 95')" = true
check "a color_shift names the button's new red (#c62828, within the antialiasing): $(hexes color_shift candidate_hex)" \
    any_near "198 40 40" 12 $(hexes color_shift candidate_hex)
check "...and the reference's blue it replaced (#2878dc): $(hexes color_shift reference_hex)" \
    any_near "40 120 220" 12 $(hexes color_shift reference_hex)
check "...and the header's purple (#6a1b9a)" any_near "106 27 154" 12 $(hexes color_shift candidate_hex)
out=$(AS compare "$REF" "$REARR")
echo "     rearranged: overall $(num .overall), content $(num .subscores.content.score), findings: $(num '[.cv_findings[] | "\(.type) \(.box // [] | map(tostring) | join(","))"] | join("; ")')"
check "the rearranged variant loses on layout and content" \
    test "$(num '.subscores.layout.score < 97 and .subscores.content.score < 100')" = true
check "...and a moved_region finding boxes the button where it was (16,272 at 640 px: canonical x 19, y 326)" \
    test "$(num '[.cv_findings[] | select(.type == "moved_region") | .box | select((.[0] - 19 | fabs) <= 4 and (.[1] - 326 | fabs) <= 4)] | length')" -ge 1

# --- the agent's own file against a token
WORK=$(runuser -u "$PG_AGENT" -- mktemp -d)
AS release "$REF" --png "$WORK/ref.png" >/dev/null
out=$(AS compare "$WORK/ref.png" "$REF")
check "a released file compared with its token scores 100" test "$(num .overall)" = 100

# --- frames and motion (exact)
MOV1=$(AS frames --window '^motion anim$' --count 24 --interval 60 | jq -r .token)
MOV2=$(AS frames --window '^motion anim$' --count 24 --interval 60 | jq -r .token)
out=$(AS frames --window '^motion still$' --count 24 --interval 60)
STILL=$(num .token)
check "frames gives one frame-set token of 24 frames" test "$(num '.frames == 24 and .height == 24 * .frame_height')" = true
check "...audited as one capture" test "$(jq -s '[.[] | select(.op == "frames")] | length' "$PG_TMP/state/audit.jsonl")" = 3
out=$(AS motion "$MOV1" "$STILL")
check "motion of the animated widget against the static one scores 0" test "$(num .motion_score)" = 0
check "...and has no temporal correlation (null, with a note)" test "$(num '.temporal_corr == null and (.temporal_corr_note | length) > 0')" = true
out=$(AS motion "$MOV1" "$MOV2")
echo "     two phases of one animation: motion_score $(num .motion_score), energy_ratio $(num .energy_ratio), temporal_corr $(num .temporal_corr)"
check "motion of the animation against itself at another phase scores high (>= 70)" test "$(num '.motion_score >= 70')" = true
check "...with a signature plot token" grep -q '^cap:' <<<"$(num .plot_token)"
AS compare "$MOV1" "$REF" >/dev/null 2>&1
check "compare refuses a frame set (exit 2)" test $? = 2

# --- the same under analyze-only: coarse and charged
pg_write_policy "$(allow_policy analyze-only)"
kill -HUP "$PG_BROKER_PID"; sleep 0.6
out=$(AS compare "$REF" "$RECOL")
check "analyze-only: the comparison is coarse ($(num .disclosed_bits) bits charged)" \
    test "$(num '(.resolution | startswith("coarse")) and .disclosed_bits > 0')" = true
check "...scores in whole points" test "$(num '[.subscores[] | .score | select(. != null and . != floor)] | length')" = 0
check "...hex colours on the 4-bit grid" \
    test "$(num '[.cv_findings[] | (.reference_hex, .candidate_hex) | select(. != null) | select(.[1:2] != .[2:3] or .[3:4] != .[4:5] or .[5:6] != .[6:7])] | length')" = 0
check "...and a color_shift still names the red, to 4 bits a channel: $(hexes color_shift candidate_hex)" \
    any_near "198 40 40" 17 $(hexes color_shift candidate_hex)
out=$(AS compare "$REF" "$REARR")
check "...boxes of protected pixels on the 8-pixel grid" \
    test "$(num '[.cv_findings[] | .box | select(. != null) | .[0:2][] | select(. % 8 != 0)] | length')" = 0
out=$(AS compare "$WORK/ref.png" "$WORK/ref.png")
check "...while two files of the agent's own stay exact" test "$(num '.overall == 100 and .resolution == null')" = true
out=$(AS motion "$MOV1" "$STILL")
check "analyze-only: motion against the static widget still scores 0, coarse" \
    test "$(num '.motion_score == 0 and (.resolution | startswith("coarse"))')" = true
out=$(AS motion "$MOV1" "$MOV2")
echo "     coarse, two phases: motion_score $(num .motion_score), temporal_corr $(num .temporal_corr), $(num .disclosed_bits) bits"
check "...and against itself at another phase still high" test "$(num '.motion_score >= 70')" = true
out=$(AS frames --window '^motion anim$' --count 4 --interval 10 --region 0,0,20,20)
TINY=$(num .token)
AS motion "$TINY" "$TINY" >/dev/null 2>"$PG_TMP/e"
check "motion about frames smaller than min_area is refused (exit 3)" test $? = 3

pg_summary
