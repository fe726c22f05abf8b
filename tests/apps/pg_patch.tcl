#!/usr/bin/env wish
# SPDX-License-Identifier: MIT
# The target of the oracle attacks (tests/security/oracle.sh): two 32x32
# images at known places on a white window, drawn pixel for pixel, and a
# caret (2x16 at 160,44) that blinks every 500 ms, as a text field's does.
#   wish pg_patch.tcl NOISE.png TEXT.png
package require Tk
wm title . "oracle target"
wm geometry . 200x112+20+20
. configure -background white
image create photo noise -file [lindex $argv 0]
image create photo text -file [lindex $argv 1]
foreach {w img x} {.n noise 40 .t text 120} {
    label $w -image $img -borderwidth 0 -highlightthickness 0 -padx 0 -pady 0 -background white
    place $w -x $x -y 40
}
frame .caret -width 2 -height 16 -background black -borderwidth 0 -highlightthickness 0
place .caret -x 160 -y 44
proc blink {on} {
    .caret configure -background [expr {$on ? "black" : "white"}]
    after 500 [list blink [expr {!$on}]]
}
blink 1
update idletasks
tkwait visibility .
update
puts READY
flush stdout
