#!/usr/bin/env wish
# The target of the oracle attacks (tests/security/oracle.sh): two 32x32
# images at known places on a white window, drawn pixel for pixel.
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
update idletasks
tkwait visibility .
update
puts READY
flush stdout
