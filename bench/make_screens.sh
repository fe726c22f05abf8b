#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make_screens.sh OUTDIR [WIDTH HEIGHT] - two content-rich "screenshots" for
# the diff benchmarks (bench/h2h), made with ImageMagick and fixed seeds so
# every run measures the same bytes: a title bar and menu, a side panel of
# small UI detail (buttons, checkboxes, rules), a photo-like region (a plasma
# fractal, blurred and noised like a JPEG photo), a gradient header, and
# columns of body text in DejaVu Sans at 13 px. b.png is a.png after a user's
# edit: one paragraph retyped, a button's colour changed, a checkbox ticked.
# Writes OUTDIR/a.png and OUTDIR/b.png (PNG, zlib default level, as a
# screenshot tool saves them). Default size 1920x1080; 3840x2160 is four
# such screens of different text tiled 2x2 (a 4K desktop of four windows),
# the edit in the first (ImageMagick's caption, measuring a 4K paragraph one
# line at a time, passes its 16K-pixel width limit at 4K type sizes).
set -euo pipefail
out=$1
W=${2:-1920}
H=${3:-1080}
SEED=${SEED:-0}
mkdir -p "$out"
if [ "$W" = 3840 ] && [ "$H" = 2160 ]; then
    for k in 0 1 2 3; do SEED=$((k * 10)) bash "$0" "$out/tile$k" 1920 1080; done
    convert \( "$out/tile0/a.png" "$out/tile1/a.png" +append \) \( "$out/tile2/a.png" "$out/tile3/a.png" +append \) \
        -append -define png:compression-level=6 "$out/a.png"
    convert \( "$out/tile0/b.png" "$out/tile1/a.png" +append \) \( "$out/tile2/a.png" "$out/tile3/a.png" +append \) \
        -append -define png:compression-level=6 "$out/b.png"
    rm -rf "$out"/tile?
    exit 0
fi
s() { echo $(($1 * W / 1920)); } # scale a 1080p coordinate to this width
t() { echo $(($1 * H / 1080)); }
font=DejaVu-Sans
pt=$(($(s 13) > 9 ? $(s 13) : 9))

para() { # a deterministic paragraph of words (seeded by $1)
    local seed=$1 n=$2 words=(agent window capture token broker verify screen policy pixel release audit chain
        session helper display input focus button label value entry list scroll menu dialog form submit order
        customer address total quantity colour layout spacing margin header footer panel status ready)
    local i out=""
    for ((i = 0; i < n; i++)); do
        out+="${words[$(((seed * 7919 + i * 104729) % ${#words[@]}))]}"
        out+=" "
    done
    echo "$out"
}

text_block() { # x y w h seed -> an ImageMagick caption composed at x,y
    local x=$1 y=$2 w=$3 h=$4 seed=$5
    convert -size "${w}x${h}" -background white -fill '#202428' -font "$font" -pointsize "$pt" \
        caption:"$(para "$((seed + SEED))" 180)" "$out/block_$seed.png"
    echo "$out/block_$seed.png -geometry +$x+$y -composite"
}

base() { # $1: variant (a|b)
    local v=$1 cmds=()
    convert -size "${W}x${H}" xc:'#f3f4f6' "$out/base.png"
    # title bar, menu bar, gradient header
    cmds+=(-fill '#2b303b' -draw "rectangle 0,0 $W,$(t 34)")
    cmds+=(-fill '#e5e7eb' -draw "rectangle 0,$(t 34) $W,$(t 60)")
    convert -size "$W"x"$(t 90)" gradient:'#3b82f6-#9333ea' "$out/grad.png"
    # the photo: a seeded plasma fractal, blurred and with sensor-like noise
    convert -seed $((7 + SEED)) -size "$(s 560)x$(t 380)" plasma:fractal -blur 0x2 -seed $((11 + SEED)) -attenuate 0.4 +noise Gaussian \
        "$out/photo.png"
    local ui=()
    local i
    for i in $(seq 0 13); do # side panel: buttons, checkboxes, rules
        local y=$(t $((170 + i * 58))) col='#e5e7eb'
        [ "$v" = b ] && [ "$i" = 5 ] && col='#fca5a5'
        ui+=(-fill "$col" -stroke '#9ca3af' -draw "roundrectangle $(s 16),$y $(s 220),$((y + $(t 34))) 6,6")
        ui+=(-stroke none -fill '#111827' -font "$font" -pointsize "$pt" -annotate +$(s 30)+$((y + $(t 22))) "Button $i")
        ui+=(-fill white -stroke '#6b7280' -draw "rectangle $(s 232),$((y + $(t 8))) $(s 250),$((y + $(t 26)))")
        if [ "$i" = 3 ] || { [ "$v" = b ] && [ "$i" = 9 ]; }; then
            ui+=(-stroke '#111827' -draw "line $(s 235),$((y + $(t 17))) $(s 241),$((y + $(t 23)))")
            ui+=(-draw "line $(s 241),$((y + $(t 23))) $(s 248),$((y + $(t 10)))")
        fi
        ui+=(-stroke '#d1d5db' -draw "line $(s 16),$((y + $(t 46))) $(s 260),$((y + $(t 46)))")
    done
    local b1 b2 b3 b4
    b1=$(text_block "$(s 300)" "$(t 560)" "$(s 520)" "$(t 480)" 1)
    b2=$(text_block "$(s 860)" "$(t 170)" "$(s 500)" "$(t 860)" $([ "$v" = b ] && echo 22 || echo 2))
    b3=$(text_block "$(s 1400)" "$(t 170)" "$(s 500)" "$(t 420)" 3)
    b4=$(text_block "$(s 1400)" "$(t 610)" "$(s 500)" "$(t 420)" 4)
    # shellcheck disable=SC2086
    convert "$out/base.png" "${cmds[@]}" \
        "$out/grad.png" -geometry +0+$(t 60) -composite \
        "$out/photo.png" -geometry +$(s 300)+$(t 170) -composite \
        "${ui[@]}" $b1 $b2 $b3 $b4 \
        -stroke none -fill white -font "$font" -pointsize "$((pt + 3))" -annotate +$(s 14)+$(t 23) "Order Entry - pixelgate bench" \
        -fill '#111827' -pointsize "$pt" -annotate +$(s 14)+$(t 52) "File   Edit   View   Window   Help" \
        -fill white -pointsize "$((pt * 2))" -annotate +$(s 300)+$(t 120) "Quarterly report" \
        -define png:compression-level=6 "$out/$v.png"
}
base a
base b
rm -f "$out"/block_*.png "$out/base.png" "$out/grad.png" "$out/photo.png"
