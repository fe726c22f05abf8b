#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make_pairs.sh OUT_DIR - renders the calibration set: every reference design
# of refs.tsv and every candidate of pairs.tsv is a Tk window
# (tests/apps/pg_layout.tcl, 640x440) on a private Xvfb, captured with
# ImageMagick's import and post-processed (blur) where pairs.tsv says. Writes
# OUT_DIR/{r1,r2,r3,t01,...}.png, OUT_DIR/sheets/*.png (side-by-side sheets
# for labelling: reference left, candidate right) and OUT_DIR/triples.tsv
# (ref, cand, score, split, id) from labels.tsv, which scripts/calibrate reads.
# No root needed. Fonts come from the system (Helvetica resolves through
# fontconfig), so another machine renders slightly different pixels: the
# labels judge the designs, not those exact bytes.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=${1:?usage: make_pairs.sh OUT_DIR}
for t in Xvfb wish import convert xwininfo; do command -v "$t" >/dev/null || { echo "make_pairs.sh: needs $t" >&2; exit 1; }; done
mkdir -p "$OUT/sheets"
# a display nobody uses: the first free number from 300
D=300
while [ -e "/tmp/.X$D-lock" ] || [ -e "/tmp/.X11-unix/X$D" ]; do D=$((D + 1)); done
Xvfb ":$D" -screen 0 1024x768x24 -nolisten tcp >"$OUT/xvfb.log" 2>&1 &
XPID=$!
trap 'kill $XPID 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X$D" ] && break; sleep 0.1; done
export DISPLAY=":$D"

# render NAME OPTS...: one window, captured to OUT/NAME.png
render() {
    local name=$1 log=$OUT/$1.log
    shift
    local args=() o
    for o in "$@"; do case $o in words=*) args+=("${o//_/ }") ;; *) args+=("$o") ;; esac; done
    wish "$REPO/tests/apps/pg_layout.tcl" "" 640x440+0+0 "calib-$name" "${args[@]}" >"$log" 2>&1 &
    local pid=$!
    for _ in $(seq 100); do grep -q READY "$log" 2>/dev/null && break; sleep 0.1; done
    grep -q READY "$log" || { echo "make_pairs.sh: $name did not start: $(cat "$log")" >&2; exit 1; }
    sleep 0.2
    import -window "$(xwininfo -name "calib-$name" | awk '/Window id/ {print $4}')" "$OUT/$name.png"
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    rm -f "$log"
}

declare -A REF
while IFS=$'\t' read -r id opts; do
    case $id in '#'* | id | '') continue ;; esac
    REF[$id]=$opts
    # shellcheck disable=SC2086
    render "$id" $opts
done <"$HERE/refs.tsv"

declare -A LABEL
while IFS=$'\t' read -r id score _; do
    case $id in '#'* | id | '') continue ;; esac
    LABEL[$id]=$score
done <"$HERE/labels.tsv"

printf 'ref\tcand\tscore\tsplit\tid\n' >"$OUT/triples.tsv"
while IFS=$'\t' read -r id split ref opts post what; do
    case $id in '#'* | id | '') continue ;; esac
    [ "$opts" = - ] && opts=
    # shellcheck disable=SC2086
    render "$id" ${REF[$ref]} $opts
    # shellcheck disable=SC2086
    [ "$post" = - ] || convert "$OUT/$id.png" $post "$OUT/$id.png"
    convert "$OUT/$ref.png" "$OUT/$id.png" -bordercolor '#808080' -border 4 +append -resize 50% "$OUT/sheets/$id.png"
    printf '%s\t%s\t%s\t%s\t%s\n' "$ref.png" "$id.png" "${LABEL[$id]:-}" "$split" "$id" >>"$OUT/triples.tsv"
done <"$HERE/pairs.tsv"
echo "make_pairs.sh: $(($(wc -l <"$OUT/triples.tsv") - 1)) pairs in $OUT (triples.tsv)"
