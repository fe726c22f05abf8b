#!/usr/bin/env wish
# SPDX-License-Identifier: MIT
# A window that shows whatever text a file holds, as its title and as a large
# label: the screen's author in the untrusted-text test
# (tests/integration/untrusted_text.sh), who puts the previous reply's
# closing delimiter on the screen.
#   wish pg_echo.tcl TEXT_FILE GEOMETRY
# The file is read every 50 ms; a change is shown at once. "READY" goes to
# stdout once the window is mapped.
package require Tk

lassign $argv text_file geometry
wm title . "pixelgate echo"
wm geometry . $geometry
. configure -background white
label .l -text "waiting" -font {Courier 18 bold} -background white -foreground black -justify left -wraplength 1100
pack .l -padx 16 -pady 16 -anchor w
set ::shown ""

proc poll {} {
    global text_file
    if {[file readable $text_file]} {
        set f [open $text_file r]
        fconfigure $f -encoding utf-8
        set t [string trimright [read $f] "\n"]
        close $f
        if {$t ne $::shown} {
            set ::shown $t
            wm title . $t
            .l configure -text $t
        }
    }
    after 50 poll
}

bind . <Map> {if {"%W" eq "."} {puts READY; flush stdout}}
poll
