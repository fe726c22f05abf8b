#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ocr_testset.sh - build the labelled layout/OCR set and score it.
#
#   bench/ocr_testset.sh [--quick] [--lang LANG] [OUTDIR]
#
# Starts its own Xvfb, renders tests/apps/pg_form.tcl (Tk) and
# tests/apps/pg_form_gtk.py (GTK 3) in many themes, fonts and sizes, captures
# each window (ImageMagick's import), keeps the truth each app wrote about
# itself next to the PNG, and runs bench_layout over the set:
#   tune_*    Tk classic widgets and the ttk themes default, clam, alt,
#             classic in DejaVu Sans / Nimbus Sans, 10-20 px (and one per
#             theme with a focused, hovered check box): what the detector and
#             the field OCR were developed on;
#   heldout_* the awthemes awlight and awdark (tcl-awthemes; dark is light
#             text on dark fields) in DejaVu Serif and URW Gothic at 11, 13,
#             15 and 18 px: themes, fonts and sizes the tuning never saw;
#   gtk_*     the GTK 3 form (Adwaita).
# --quick renders one of each (tests/integration/ocr_testset.sh runs it).
# Prints bench_layout's JSON lines (per split and in all) on stdout.
# Needs: Xvfb, wish, tcl-awthemes, python3-gi + gir1.2-gtk-3.0, imagemagick
# (scripts/deps.sh), and build/<preset>/bench/bench_layout.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${PG_BUILD:-$HERE/build/default}
QUICK=0
LANG_SPEC=Latin
while [ $# -gt 0 ]; do
    case $1 in
    --quick) QUICK=1; shift ;;
    --lang) LANG_SPEC=$2; shift 2 ;;
    *) break ;;
    esac
done
OUT=${1:-/tmp/pg-ocr-testset}
for t in Xvfb wish import /usr/bin/python3 "$BUILD/bench/bench_layout"; do
    command -v "$t" >/dev/null 2>&1 || [ -x "$t" ] || { echo "ocr_testset: missing $t (scripts/deps.sh; build bench_layout)" >&2; exit 2; }
done
/usr/bin/python3 -c 'import gi; gi.require_version("Gtk", "3.0")' 2>/dev/null ||
    { echo "ocr_testset: python3-gi with GTK 3 is missing (scripts/deps.sh)" >&2; exit 2; }
mkdir -p "$OUT"
rm -f "$OUT"/*.png "$OUT"/*.json

for n in $(seq 150 199); do [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] || break; done
DISP=":$n"
Xvfb "$DISP" -screen 0 1280x800x24 -nolisten tcp >"$OUT/xvfb.log" 2>&1 &
XPID=$!
trap 'kill $XPID 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -S "/tmp/.X11-unix/X$n" ] && break; sleep 0.1; done

# shot NAME CMD...: run the app, wait for its truth, capture its window, end it.
shot() {
    local name=$1 pid i w h
    shift
    DISPLAY=$DISP LANG=C.UTF-8 "$@" >"$OUT/$name.out" 2>&1 &
    pid=$!
    for i in $(seq 150); do grep -q READY "$OUT/$name.out" 2>/dev/null && break; sleep 0.1; done
    grep -q READY "$OUT/$name.out" || { echo "ocr_testset: $name did not start: $(cat "$OUT/$name.out")" >&2; kill $pid; exit 1; }
    sleep 0.3 # the caret and the last repaint
    w=$(jq .width "$OUT/$name.json.w"); h=$(jq .height "$OUT/$name.json.w")
    DISPLAY=$DISP import -window root -crop "${w}x${h}+0+0" +repage "$OUT/$name.png"
    mv "$OUT/$name.json.w" "$OUT/$name.json"
    kill $pid 2>/dev/null || true
    wait $pid 2>/dev/null || true
    rm -f "$OUT/$name.out"
}
tk() { # tk NAME THEME FAMILY PX VARIANT [OPTIONS...]
    local name=$1 theme=$2 fam=$3 px=$4 var=$5
    shift 5
    shot "$name" wish "$HERE/tests/apps/pg_form.tcl" -truth "$OUT/$name.json.w" -theme "$theme" -family "$fam" \
        -px "$px" -variant "$var" "$@"
}
gtk() { # gtk NAME PX VARIANT
    shot "$1" /usr/bin/python3 "$HERE/tests/apps/pg_form_gtk.py" --truth "$OUT/$1.json.w" --px "$2" --variant "$3"
}

if [ $QUICK = 1 ]; then
    tk tune_tk_12 tk "DejaVu Sans" 12 5
    tk heldout_awdark_13 awdark "DejaVu Serif" 13 7
    gtk gtk_13 13 3
else
    v=0
    for theme in tk default clam alt classic; do
        for px in 10 12 14 16 20; do
            fam="DejaVu Sans"; [ $((v % 2)) = 1 ] && fam="Nimbus Sans"
            tk "tune_${theme}_${px}" "$theme" "$fam" "$px" $v
            v=$((v + 1))
        done
        # a check box with the keyboard focus (its dotted ring) under the pointer (its hover tint)
        tk "tune_${theme}_14_focus" "$theme" "DejaVu Sans" 14 $v -caret 0 -focus c_express -hover c_express
        v=$((v + 1))
        for _ in 1; do :
        done
    done
    for theme in awlight awdark; do
        for fam in "DejaVu Serif" "URW Gothic"; do
            for px in 11 13 15 18; do
                tk "heldout_${theme}_${fam// /}_${px}" "$theme" "$fam" "$px" $v
                v=$((v + 1))
            done
        done
    done
    for px in 12 13 16; do
        gtk "gtk_${px}" "$px" $v
        v=$((v + 1))
    done
fi
kill $XPID 2>/dev/null || true
OMP_THREAD_LIMIT=1 "$BUILD/bench/bench_layout" score "$LANG_SPEC" "$OUT"/*.png
