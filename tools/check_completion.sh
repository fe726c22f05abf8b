#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check_completion.sh [--shell bash|zsh|fish] COMPLETION PIXELGATE - a
# generated completion (tools/pg_gendoc_completion.c) against the real client
# (unit.completion, unit.completion_zsh, unit.completion_fish): it offers every
# command `pixelgate --help` lists, both words of the two-word ones, every
# option each command's usage line names, the values of enum options and
# positionals, file names where a file is named, nothing where a value is the
# user's to type, and it skips the global options.
#   bash: _pixelgate is called with COMP_WORDS/COMP_CWORD set, as bash would;
#   zsh:  _pixelgate is autoloaded from the file's directory (it must be named
#         _pixelgate) and called with words/CURRENT/PREFIX set and compadd and
#         _files replaced by functions that print; then, through zsh/zpty, an
#         interactive zsh with compinit completes a few lines for real;
#   fish: `complete -C LINE` after sourcing the file, as fish itself asks.
# Output: "ok - ..." / "not ok - ..." per check, then "N passed, N failed".
set -uo pipefail
SHELL_KIND=bash
if [ "${1:-}" = --shell ]; then SHELL_KIND=$2; shift 2; fi
COMPLETION=$1
PG=$2
PASS=0
FAIL=0
ok() { PASS=$((PASS + 1)); echo "ok - $*"; }
not_ok() { FAIL=$((FAIL + 1)); echo "not ok - $*"; }
D=$(mktemp -d /tmp/pg-completion.XXXXXX)
trap 'rm -rf "$D"' EXIT

case $SHELL_KIND in
bash)
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
    ;;
zsh)
    command -v zsh >/dev/null || { echo "FATAL: zsh is not installed (scripts/deps.sh)" >&2; exit 1; }
    [ "$(basename "$COMPLETION")" = _pixelgate ] || { echo "FATAL: a zsh completion must be named _pixelgate" >&2; exit 1; }
    head -1 "$COMPLETION" | grep -qx '#compdef pixelgate' || { echo "FATAL: $COMPLETION lacks #compdef pixelgate" >&2; exit 1; }
    cat >"$D/offers.zsh" <<'ZSH'
fpath=($1 $fpath)
autoload -Uz _pixelgate
compadd() {
    while [[ $# -gt 0 && $1 != -- ]]; do shift; done
    shift
    local a
    for a in "$@"; do [[ $a == ${PREFIX}* ]] && print -r -- $a; done
    return 0
}
_files() { local f; for f in ${PREFIX}*(N); do print -r -- $f; done; }
words=(${(z)2})
[[ $2 == *' ' ]] && words+=('')
CURRENT=${#words}
PREFIX=$words[CURRENT]
_pixelgate
ZSH
    offers() { zsh -f "$D/offers.zsh" "$(dirname "$COMPLETION")" "$1"; }
    ;;
fish)
    command -v fish >/dev/null || { echo "FATAL: fish is not installed (scripts/deps.sh)" >&2; exit 1; }
    # shellcheck disable=SC2016 # $argv is fish's
    offers() { HOME=$D fish --no-config -c 'source $argv[1]; complete -C $argv[2]' "$COMPLETION" "$1" | cut -f1; }
    ;;
*) echo "FATAL: --shell bash, zsh or fish" >&2; exit 2 ;;
esac

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
touch "$D/shot.png"
expect "release --png completes a file name" "pixelgate release cap:x --png $D/sh" "$D/shot.png"
expect "an image argument completes a file name" "pixelgate diff $D/s" "$D/shot.png"
expect "run takes a script file" "pixelgate run $D/s" "$D/shot.png"
expect_nothing "no file names where no argument names a file" "pixelgate windows $D/s"

if [ "$SHELL_KIND" = zsh ]; then
    # For real: an interactive zsh (zsh/zpty) with compinit finds _pixelgate on
    # its fpath, and TAB completes the line. Each waits for the completed line,
    # up to 10 s.
    cat >"$D/real.zsh" <<'ZSH'
zmodload zsh/zpty zsh/datetime
zpty z 'env -i TERM=dumb HOME=/nonexistent zsh -f -i'
zpty -w z "fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D; PS1='> '"
zpty -w -n z "$2"$'\t'
local line out end=$((EPOCHREALTIME + 10))
while (( EPOCHREALTIME < end )); do
    if zpty -r -t z line 2>/dev/null; then out+=$line; [[ $out == *"$3"* ]] && break; else sleep 0.02; fi
done
zpty -d z
[[ $out == *"$3"* ]] || { print -r -- "${out//[^[:print:]]/}"; exit 1 }
ZSH
    real() {
        local got
        if got=$(zsh -f "$D/real.zsh" "$(dirname "$COMPLETION")" "$2" "$3"); then ok "$1"; else
            not_ok "$1: TAB after '$2' did not give '$3' (${got: -200})"; fi
    }
    real "compinit: an enum positional" "pixelgate scroll --window x u" "pixelgate scroll --window x up "
    real "compinit: a two-word command after global options" "pixelgate --socket $D/x assert unch" \
        "pixelgate --socket $D/x assert unchanged "
    real "compinit: a file name" "pixelgate diff $D/sh" "pixelgate diff $D/shot.png "
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
