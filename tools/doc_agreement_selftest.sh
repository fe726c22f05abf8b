#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The agreement test must fail when the docs drift: copy docs/, break them
# four ways (an argument row gone from protocol.md, a range changed there, a
# help line changed in agents.md's reference, a command's example section
# gone), and expect pg_gendoc check to name each one.
#   doc_agreement_selftest.sh PG_GENDOC PIXELGATE DOCS_DIR
set -uo pipefail
gendoc=$1 client=$2 docs=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
try() { # try DESCRIPTION FILE PYTHON_EXPR_ON_s EXPECTED_MESSAGE
    rm -rf "$tmp/docs" && cp -r "$docs" "$tmp/docs"
    python3 -c "import sys; p=sys.argv[1]; s=open(p).read(); n=$3; assert n != s, 'mutation did nothing'; open(p,'w').write(n)" \
        "$tmp/docs/$2" || { echo "FAIL $1: could not mutate"; fails=$((fails + 1)); return; }
    out=$("$gendoc" check "$tmp/docs" "$client" 2>&1)
    if [ $? -ne 0 ] && grep -qF "$4" <<<"$out"; then echo "ok   $1"; else echo "FAIL $1: $out"; fails=$((fails + 1)); fi
}
"$gendoc" check "$docs" "$client" >/dev/null 2>&1 || { echo "FAIL the docs do not agree to begin with"; exit 1; }
try "an argument missing from protocol.md is caught" protocol.md \
    "'\n'.join(l for l in s.split('\n') if not l.startswith('| \`max_ratio\` |'))" "protocol.md: generated section"
try "a range that disagrees in protocol.md is caught" protocol.md \
    "s.replace('| \`samples\` | integer | no | 1..9 |', '| \`samples\` | integer | no | 1..10 |')" "protocol.md: generated section"
try "a help line that disagrees in agents.md is caught" agents.md \
    "s.replace('how many times to ask (majority vote)', 'how often to ask')" "agents.md: generated section"
try "a command without its example section in agents.md is caught" agents.md \
    "s.replace('\n## judge\n', '\n## judging\n', 1)" "no example section"
[ "$fails" = 0 ] && echo "4 passed, 0 failed"
[ "$fails" = 0 ]
