#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check_completion.sh COMPLETION PIXELGATE - the generated bash completion
# (tools/pg_gendoc_completion.c) against the real client (unit.completion):
# it offers every command `pixelgate --help` lists, both words of the
# two-word ones, every option each command's usage line names, the values of
# enum options and positionals, file names where a file is named, nothing
# where a value is the user's to type, and it skips the global options.
# Output: "ok - ..." / "not ok - ..." per check, then "N passed, N failed".
set -uo pipefail
COMPLETION=$1
PG=$2
PASS=0
FAIL=0
ok() { PASS=$((PASS + 1)); echo "ok - $*"; }
not_ok() { FAIL=$((FAIL + 1)); echo "not ok - $*"; }
# shellcheck source=/dev/null
. "$COMPLETION" || { echo "FATAL: cannot source $COMPLETION" >&2; exit 1; }
complete -p pixelgate >/dev/null 2>&1 || { echo "FATAL: no completion registered for pixelgate" >&2; exit 1; }

# offers LINE: what completing the last word of LINE offers, one per line.
# A LINE ending in a space completes an empty word.
offers() {
    read -r -a COMP_WORDS <<<"$1"
    [ "${1: -1}" = " " ] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _pixelgate pixelgate "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
    printf '%s\n' "${COMPREPLY[@]}"
}
# expect DESC LINE WORD...: completing LINE offers each WORD
expect() {
    local desc=$1 line=$2 got w missing=()
    shift 2
    got=$(offers "$line")
    for w in "$@"; do grep -qxF -- "$w" <<<"$got" || missing+=("$w"); done
    if [ ${#missing[@]} = 0 ]; then ok "$desc"; else not_ok "$desc: '$line' does not offer ${missing[*]}"; fi
}
expect_nothing() {
    local got
    got=$(offers "$2")
    if [ -z "$got" ]; then ok "$1"; else not_ok "$1: '$2' offers $(tr '\n' ' ' <<<"$got")"; fi
}

# Every command and its options, from the client's own usage lines.
mapfile -t USAGE < <("$PG" --help | sed -n 's/^  pixelgate //p')
[ ${#USAGE[@]} -gt 40 ] || { echo "FATAL: pixelgate --help listed ${#USAGE[@]} commands" >&2; exit 1; }
bad_cmds=() bad_opts=()
for u in "${USAGE[@]}"; do
    read -r w1 w2 _ <<<"$u"
    name=$w1
    # (the offers are captured first: under pipefail, grep -q quitting early
    # would fail the pipe with SIGPIPE)
    if [[ ${w2:-} =~ ^[a-z][a-z-]*$ ]]; then
        name="$w1 $w2"
        got=$(offers "pixelgate $w1 ")
        grep -qxF -- "$w2" <<<"$got" || bad_cmds+=("$name")
    fi
    got=$(offers "pixelgate ${w1:0:2}")
    grep -qxF -- "$w1" <<<"$got" || bad_cmds+=("$w1")
    got=$(offers "pixelgate $name -")
    for o in $(grep -oE -- '--[a-z][a-z0-9-]*' <<<"$u" | sort -u); do
        grep -qxF -- "$o" <<<"$got" || bad_opts+=("$name $o")
    done
done
if [ ${#bad_cmds[@]} = 0 ]; then ok "all ${#USAGE[@]} commands of pixelgate --help are offered"; else
    not_ok "commands not offered: ${bad_cmds[*]}"; fi
if [ ${#bad_opts[@]} = 0 ]; then ok "every option of every usage line is offered"; else
    not_ok "options not offered: ${bad_opts[*]}"; fi

expect "global options" "pixelgate --" --socket --timeout --help --version
expect "a command after global options" "pixelgate --socket /tmp/s --timeout 5 snap" snapshot
expect "the assert family" "pixelgate assert " changed unchanged template text control
expect "help names commands" "pixelgate help wai" wait-stable wait-for
expect "an enum option's values" "pixelgate click --window x --button " left middle right
expect "an enum positional's values" "pixelgate scroll --window x " up down left right
expect "diff's metric" "pixelgate diff A B --metric " yiq oklab
expect_nothing "a regex is the user's to type" "pixelgate snapshot --window "
expect_nothing "a number is the user's to type" "pixelgate --timeout "
D=$(mktemp -d /tmp/pg-completion.XXXXXX)
trap 'rm -rf "$D"' EXIT
touch "$D/shot.png"
expect "release --png completes a file name" "pixelgate release cap:x --png $D/sh" "$D/shot.png"
expect "an image argument completes a file name" "pixelgate diff $D/s" "$D/shot.png"
expect "run takes a script file" "pixelgate run $D/s" "$D/shot.png"

echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
