#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The bounded part of the labelled layout/OCR set that CI runs: one Tk form
# (classic widgets, 12 px), one held-out theme (awdark, DejaVu Serif 13 px)
# and the GTK 3 form, scored by bench_layout against floors well under the
# full set's figures (docs/ocr.md), so a regression in field OCR, detection
# or state reading fails here. The full set: bench/ocr_testset.sh.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
OUT=$(mktemp -d /tmp/pg-ocr-ci.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
res=$(bash "$PG_ROOT/bench/ocr_testset.sh" --quick "$OUT/set") || pg_die "bench/ocr_testset.sh failed"
tune=$(grep '"split":"tuning"' <<<"$res")
gtk=$(grep '"split":"gtk"' <<<"$res")
all=$(grep '"split":"all"' <<<"$res")
echo "$res"
f() { jq -r "$1" <<<"$2"; }
check "field OCR on the Tk form: >= 98 % of characters ($(f .char_acc_after "$tune"))" \
    test "$(f '.char_acc_after >= 0.98' "$tune")" = true
check "field OCR beats the plain region OCR it replaces ($(f .char_acc_before "$all") -> $(f .char_acc_after "$all"))" \
    test "$(f '.char_acc_after > .char_acc_before' "$all")" = true
for k in entry button check radio; do
    check "Tk form: every $k found, nothing extra" \
        test "$(f ".$k.recall == 1 and .$k.precision == 1" "$tune")" = true
done
check "Tk form: every check box and radio button state read right" test "$(f '.state_acc == 1' "$tune")" = true
check "Tk form: the selected list row read right" test "$(f '.selected_row_acc == 1' "$tune")" = true
check "GTK form: entries, buttons and radio buttons found" \
    test "$(f '.entry.recall == 1 and .button.recall == 1 and .radio.recall == 1' "$gtk")" = true
check "GTK form: the states it found read right" test "$(f '.state_acc == 1' "$gtk")" = true
pg_summary
