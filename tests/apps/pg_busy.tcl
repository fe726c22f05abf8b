#!/usr/bin/env wish
# SPDX-License-Identifier: MIT
# The busy desk of tests/integration/busy_agent.sh: an 800x600 window whose
# harness changes it one step at a time (five characters typed into a note,
# a long list scrolled one row), so an agent watching it meets new content
# every step, as in an ordinary visual loop.
#   wish pg_busy.tcl COMMAND_FILE STATE_FILE
# The harness writes a step number to COMMAND_FILE; the app applies every
# step up to it and writes the last step applied to STATE_FILE (atomically).
package require Tk
lassign $argv cmd_file state_file
wm title . "busy desk"
wm geometry . 800x600+0+0
. configure -background white
text .note -width 80 -height 8 -font {Helvetica 14} -background white -borderwidth 0 -highlightthickness 0
listbox .list -font {Helvetica 14} -background white -borderwidth 0 -highlightthickness 0 -activestyle none
place .note -x 10 -y 10 -width 780 -height 170
place .list -x 10 -y 190 -width 780 -height 400
set words {alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa}
for {set i 0} {$i < 400} {incr i} {
    .list insert end [format "Row %03d  %-10s order %05d  qty %2d  %s" $i [lindex $words [expr {$i % 16}]] \
        [expr {($i * 7919) % 100000}] [expr {$i % 37}] [lindex $words [expr {($i * 5) % 16}]]]
}
set applied 0
set letters abcdefghijklmnopqrstuvwxyz

proc step {n} {
    global letters
    set chunk ""
    for {set k 0} {$k < 5} {incr k} { append chunk [string index $letters [expr {($n * 5 + $k) % 26}]] }
    if {$n % 8 == 0} { set chunk "$chunk\n" }
    .note insert end $chunk
    .note see end
    .list yview $n
}

proc poll {} {
    global cmd_file state_file applied
    set want $applied
    if {![catch {open $cmd_file r} f]} {
        set t [string trim [read $f]]
        close $f
        if {[string is integer -strict $t]} { set want $t }
    }
    if {$want > $applied} {
        while {$applied < $want} { incr applied; step $applied }
        update idletasks
        set f [open $state_file.tmp w]
        puts $f $applied
        close $f
        file rename -force $state_file.tmp $state_file
    }
    after 50 poll
}
update idletasks
tkwait visibility .
update
poll
puts READY
flush stdout
