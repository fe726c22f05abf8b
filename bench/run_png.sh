#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run_png.sh - the PNG encoder's settings on a 1080p text screen
# (docs/performance.md, "Released PNGs").
#   bash bench/run_png.sh [BUILD_DIR] [REPS]      (default build/default, 15)
# Starts its own Xvfb (1920x1080x24, a display number the server picks),
# shows a full-screen Tk window of text (an editor-like pane of this repo's
# C source in a monospace font, a file list and a status line: what an agent
# releases most), waits until Tk says it is drawn, grabs the root window
# (xwd, converted to PNG by ImageMagick) and runs bench_png on it.
# Needs Xvfb, wish, xwd and convert.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-$ROOT/build/default}
REPS=${2:-15}
for t in Xvfb wish xwd convert; do command -v "$t" >/dev/null || { echo "run_png.sh: $t missing" >&2; exit 1; }; done
[ -x "$BUILD/bench/bench_png" ] || { echo "run_png.sh: build bench_png first (cmake --build $BUILD)" >&2; exit 1; }
WORK=$(mktemp -d /tmp/pg-png.XXXXXX)
XPID=
cleanup() { [ -n "$XPID" ] && kill "$XPID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

exec 5>"$WORK/display"
Xvfb -displayfd 5 -screen 0 1920x1080x24 -nolisten tcp >"$WORK/xvfb.log" 2>&1 &
XPID=$!
for _ in $(seq 100); do [ -s "$WORK/display" ] && break; sleep 0.1; done
[ -s "$WORK/display" ] || { echo "run_png.sh: Xvfb did not start" >&2; cat "$WORK/xvfb.log" >&2; exit 1; }
export DISPLAY=:$(head -1 "$WORK/display")

cat "$ROOT"/broker/engine/pg_img_png.c "$ROOT"/common/pg_proto.c "$ROOT"/client/main.c >"$WORK/text.c"
(cd "$ROOT" && git ls-files 2>/dev/null | head -80) >"$WORK/files.txt" || true
cat >"$WORK/screen.tcl" <<'EOF'
wm overrideredirect . 1
wm geometry . 1920x1080+0+0
. configure -background #f0f0f0
set text [lindex $argv 0]
set files [lindex $argv 1]
frame .top -background #dcdcdc -height 28
label .top.l -text "pixelgate - pg_img_png.c - Editor" -background #dcdcdc -font {Helvetica 11}
pack .top.l -side left -padx 8
listbox .files -font {Helvetica 10} -width 36 -borderwidth 0 -background #ffffff
text .ed -font {Courier 11} -wrap none -borderwidth 0 -background #ffffff -foreground #202020
label .status -text "Ln 1, Col 1    UTF-8    C    Spaces: 4" -anchor w -background #007acc \
    -foreground white -font {Helvetica 10}
pack .top -side top -fill x
pack .status -side bottom -fill x
pack .files -side left -fill y
pack .ed -side left -fill both -expand 1
set f [open $files]; foreach l [split [read $f] "\n"] { .files insert end $l }; close $f
set f [open $text]; .ed insert end [read $f]; close $f
update idletasks
update
after 300 { update; puts ready; flush stdout }
EOF
coproc TK { wish "$WORK/screen.tcl" "$WORK/text.c" "$WORK/files.txt"; }
read -r -t 30 line <&"${TK[0]}" || true
[ "${line:-}" = ready ] || { echo "run_png.sh: the Tk screen did not come up" >&2; exit 1; }
xwd -root -silent >"$WORK/screen.xwd"
convert "xwd:$WORK/screen.xwd" "png:$WORK/screen.png"
kill "$TK_PID" 2>/dev/null || true
wait "$TK_PID" 2>/dev/null || true
echo "screen: $(stat -c %s "$WORK/screen.png") bytes as ImageMagick wrote it"
"$BUILD/bench/bench_png" "$WORK/screen.png" "$REPS"
if [ -n "${PG_PNG_KEEP:-}" ]; then cp "$WORK/screen.png" "$PG_PNG_KEEP"; fi
