#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run_layout.sh - layout of a 1280x800 window, and a window's OCR against the
# tesseract CLI, side by side. Run by hand (never by ctest):
#   bench/run_layout.sh [RUNS]
# Renders tests/apps/pg_form.tcl in a 1280x800 window (its own Xvfb), then
#  1. bench_layout time: the whole layout (controls, the page OCR, a field
#     OCR per entry, button and selected row, labels) in one process, median
#     of RUNS (default 10);
#  2. the same window read by pixelgate's OCR (pg_ocr_run, as `pixelgate ocr`)
#     and by `tesseract IMG - --psm 3` and `--psm 11` (Debian's tesseract 5.3, the same
#     library and model), each timed (median of RUNS) and scored by how many
#     of the window's own texts (labels, entry values, buttons, list rows; the
#     app's truth) appear in what was read.
# Prints one JSON line per measurement. Needs Xvfb, wish, import, tesseract
# (scripts/deps.sh) and build/default/bench/bench_layout.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${PG_BUILD:-$HERE/build/default}
RUNS=${1:-10}
LANG_SPEC=${PG_LANG:-Latin}
OUT=$(mktemp -d /tmp/pg-bench-layout.XXXXXX)
trap 'kill ${XPID:-0} 2>/dev/null || true; rm -rf "$OUT"' EXIT
for n in $(seq 150 199); do [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] || break; done
Xvfb ":$n" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
XPID=$!
for _ in $(seq 100); do [ -S "/tmp/.X11-unix/X$n" ] && break; sleep 0.1; done
DISPLAY=:$n wish "$HERE/tests/apps/pg_form.tcl" -truth "$OUT/w.json" -theme clam -px 13 -variant 3 \
    -geometry 1280x800+0+0 >"$OUT/app.out" 2>&1 &
APP=$!
for _ in $(seq 100); do grep -q READY "$OUT/app.out" 2>/dev/null && break; sleep 0.1; done
sleep 0.3
DISPLAY=:$n import -window root -crop 1280x800+0+0 +repage "$OUT/w.png"
kill $APP
# The same form alone fills a fifth of that window; a dense 1280x800 is six of
# it side by side (3 x 2, cropped): ~100 controls.
W=$(jq "[.widgets[] | .x + .w] | max" "$OUT/w.json"); H=$(jq "[.widgets[] | .y + .h] | max" "$OUT/w.json")
convert "$OUT/w.png" -crop 360x400+0+0 +repage "$OUT/one.png"
convert \( "$OUT/one.png" "$OUT/one.png" "$OUT/one.png" +append \) \( "$OUT/one.png" "$OUT/one.png" "$OUT/one.png" +append \) \
    -append -background "#dcdad5" -gravity northwest -extent 1280x800 "$OUT/dense.png"
echo "{\"window\":\"the form in a 1280x800 window (its widgets fill ${W}x${H} of it)\"}"
OMP_THREAD_LIMIT=1 "$BUILD/bench/bench_layout" time "$LANG_SPEC" "$OUT/w.png" "$RUNS"
echo '{"window":"1280x800 dense: six forms side by side"}'
OMP_THREAD_LIMIT=1 "$BUILD/bench/bench_layout" time "$LANG_SPEC" "$OUT/dense.png" "$RUNS"
OMP_THREAD_LIMIT=1 "$BUILD/bench/bench_layout" ocr "$LANG_SPEC" "$OUT/w.png" "$RUNS" >"$OUT/pg.json"
for psm in 3 11; do
    ts=()
    for _ in $(seq "$RUNS"); do
        t0=$(date +%s%N)
        OMP_THREAD_LIMIT=1 tesseract "$OUT/w.png" "$OUT/t$psm" -l "$LANG_SPEC" --psm $psm >/dev/null 2>&1
        ts+=($(( ($(date +%s%N) - t0) / 1000000 )))
    done
    printf '%s\n' "${ts[@]}" | sort -n | sed -n "$((RUNS / 2 + 1))p" >"$OUT/t$psm.ms"
done
/usr/bin/python3 - "$OUT" "$LANG_SPEC" <<'PY'
import json, sys, unicodedata
out, lang = sys.argv[1], sys.argv[2]
t = json.load(open(out + "/w.json"))
want = []
for w in t["widgets"]:
    for k in ("text", "value"):
        if isinstance(w.get(k), str) and w[k] and w["kind"] not in ("scrollbar", "slider"):
            want.append(w[k])
    for r in w.get("rows", []):
        want.append(r["text"])
def norm(s): return " ".join(unicodedata.normalize("NFKC", s).casefold().split())
def score(text):
    n = norm(text)
    return sum(1 for x in want if norm(x) in n)
pg = json.load(open(out + "/pg.json"))
print(json.dumps({"reader": "pixelgate ocr (lang %s)" % lang, "median_ms": round(pg["median_ms"]),
                  "texts_found": score(pg["text"]), "texts": len(want)}))
for psm in (3, 11):
    txt = open(out + "/t%d.txt" % psm, encoding="utf-8").read()
    ms = int(open(out + "/t%d.ms" % psm).read())
    print(json.dumps({"reader": "tesseract CLI --psm %d (lang %s)" % (psm, lang), "median_ms": ms,
                      "texts_found": score(txt), "texts": len(want)}))
PY
