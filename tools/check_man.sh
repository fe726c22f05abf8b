#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check_man.sh - the generated man pages render without a warning and show
# what they are generated from:
#   pixelgate(1): every command line `pixelgate --help` lists, and every global option;
#   pixelgated(8): every option `pixelgated --help` lists;
#   pixelgate-policy(5): every key of docs/policy.md's reference table.
# Usage: check_man.sh MAN_DIR PIXELGATE PIXELGATED POLICY_MD
# Needs man (man-db) and groff; fails - never skips - without them.
set -uo pipefail
dir=$1 client=$2 broker=$3 policy_md=$4
fail=0
bad() { echo "FAIL $*"; fail=1; }
command -v man >/dev/null && command -v groff >/dev/null || { echo "FAIL man and groff are needed (apt-get install man-db)"; exit 1; }

# Rendered as `man` shows it, wide enough that no line of a synopsis wraps,
# then with runs of blanks folded (fill joins lines with single spaces).
render() {
    local err
    err=$(mktemp)
    LC_ALL=C.UTF-8 MANWIDTH=250 MAN_KEEP_FORMATTING= man --warnings=all -E UTF-8 -l "$1" 2>"$err" | col -bx | tr -s ' \n' '  '
    if [ -s "$err" ]; then bad "$(basename "$1") renders with warnings: $(head -5 "$err")"; fi
    rm -f "$err"
}
fold() { tr -s ' \n' '  '; }

for page in pixelgate.1 pixelgated.8 pixelgate-policy.5; do
    [ -s "$dir/$page" ] || bad "$page was not generated"
done

out=$(render "$dir/pixelgate.1")
n=0
while IFS= read -r line; do
    syn=$(fold <<<"$line" | sed 's/^ //; s/ $//')
    [ -n "$syn" ] || continue
    n=$((n + 1))
    grep -qF -- "$syn" <<<"$out" || bad "man pixelgate lacks \"$syn\""
done < <("$client" --help | sed -n '/^commands:/,/^$/p' | grep '^  pixelgate ')
[ "$n" -gt 20 ] || bad "pixelgate --help listed only $n commands"
while IFS= read -r opt; do
    grep -qF -- "$opt" <<<"$out" || bad "man pixelgate lacks the global option $opt"
done < <("$client" --help | sed -n '/^global options:/,/^$/p' | grep -oE '^  --[a-z-]+' | sed 's/^ *//')
for code in OK ASSERTION_FAILED USAGE POLICY_REFUSED NOT_FOUND BROKER_UNREACHABLE TIMEOUT UNSUPPORTED BAD_INPUT INTERNAL; do
    grep -qF "$code" <<<"$out" || bad "man pixelgate lacks exit status $code"
done
echo "# pixelgate(1): $n commands"

out=$(render "$dir/pixelgated.8")
n=0
while IFS= read -r opt; do
    n=$((n + 1))
    grep -qF -- "$opt" <<<"$out" || bad "man pixelgated lacks $opt"
done < <("$broker" --help | grep -oE '^  --[a-z-]+' | sed 's/^ *//')
[ "$n" -gt 10 ] || bad "pixelgated --help listed only $n options"
echo "# pixelgated(8): $n options"

out=$(render "$dir/pixelgate-policy.5")
n=0
while IFS= read -r key; do
    n=$((n + 1))
    grep -qF -- "$key" <<<"$out" || bad "man pixelgate-policy lacks the key $key"
done < <(sed -n '/^## Reference/,/^### /p' "$policy_md" | grep -oE '^\| `[a-z_.]+`' | tr -d '|` ')
[ "$n" -gt 15 ] || bad "docs/policy.md's reference listed only $n keys"
echo "# pixelgate-policy(5): $n keys"

[ "$fail" = 0 ] && echo "man pages: all present"
exit "$fail"
