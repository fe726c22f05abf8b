#!/usr/bin/env wish
# SPDX-License-Identifier: MIT
# A small Tk screen whose look is set from the command line, for the design
# and motion comparisons (tests/integration/design_loop.sh) and for making
# the calibration pairs (scripts/calibration/make_pairs.sh):
#   wish pg_layout.tcl STATE_FILE GEOMETRY TITLE ?KEY=VALUE ...?
# Keys (defaults in brackets):
#   bg [#f4f5f7] header [#283c78] card [#ffffff] text [#1e1e1e] accent [#2878dc]
#   heading [TITLE] the header's text
#   font [12]      body text size in pixels (headings are 1.5x)
#   hide []        comma list of header,card1,card2,card3,button
#   order [card1,card2,card3]  which card sits in which slot (a rearrangement)
#   button_dx [0] button_dy [0]  move the button
#   gap [16]       space between cards and around them
#   lines [2]      text lines per card
#   words []       extra words appended to every text line
#   anim [0]       1: a bar slides in a strip under the cards, its position a sine of the clock
#   period [1600]  milliseconds per back-and-forth of the bar
# Writes STATE_FILE ({"pid":N, "geometry": {...}, "slots": {...}}) and prints READY once mapped.
package require Tk

set state_file [lindex $argv 0]
set geometry [lindex $argv 1]
set title [lindex $argv 2]
array set opt {bg #f4f5f7 header #283c78 card #ffffff text #1e1e1e accent #2878dc font 12 hide {}
    order card1,card2,card3 heading {} button_dx 0 button_dy 0 gap 16 lines 2 words {} anim 0 period 1600}
foreach kv [lrange $argv 3 end] {
    set i [string first = $kv]
    if {$i < 1} { puts stderr "bad option $kv"; exit 2 }
    set k [string range $kv 0 [expr {$i - 1}]]
    if {![info exists opt($k)]} { puts stderr "unknown option $k"; exit 2 }
    set opt($k) [string range $kv [expr {$i + 1}] end]
}
wm title . $title
wm geometry . $geometry
wm resizable . 0 0
. configure -background $opt(bg)
update idletasks
scan $geometry "%dx%d" W H
set hidden [split $opt(hide) ,]
proc shown {what} { global hidden; expr {[lsearch -exact $hidden $what] < 0} }

set body [list Helvetica -$opt(font)]
set head [list Helvetica -[expr {round($opt(font) * 1.5)}] bold]
set g $opt(gap)
set top $g
if {[shown header]} {
    frame .header -background $opt(header) -height 56
    place .header -x 0 -y 0 -width $W -height 56
    label .header.t -text [expr {$opt(heading) eq "" ? $title : $opt(heading)}] -foreground white -background $opt(header) -font $head
    place .header.t -x $g -rely 0.5 -anchor w
    set top [expr {56 + $g}]
}

# The cards' texts: a heading and a few lines each, fixed so that every run draws the same.
set texts {
    card1 {"Overview" "Three files changed in the last hour" "Build 1423 passed all checks"}
    card2 {"Storage" "18.2 GB of 64 GB used" "Backups run at 02:00 nightly"}
    card3 {"Members" "Alice, Bob and Carol can edit" "Two invitations are pending"}
}
array set text $texts
set slots {}
set slot_h [expr {round($opt(font) * 1.5) + 14 + $opt(lines) * ($opt(font) + 8) + 12}]
set half [expr {($W - 3 * $g) / 2}]
# slot 1 spans the width; slots 2 and 3 share the row below
set places [list [list $g $top [expr {$W - 2 * $g}]] \
    [list $g [expr {$top + $slot_h + $g}] $half] \
    [list [expr {2 * $g + $half}] [expr {$top + $slot_h + $g}] $half]]
set n 0
foreach name [split $opt(order) ,] {
    lassign [lindex $places $n] x y w
    incr n
    if {![shown $name]} continue
    set f .$name
    frame $f -background $opt(card) -highlightthickness 1 -highlightbackground #d0d4da
    place $f -x $x -y $y -width $w -height $slot_h
    label $f.h -text [lindex $text($name) 0] -font $head -foreground $opt(text) -background $opt(card)
    place $f.h -x 12 -y 8
    for {set i 0} {$i < $opt(lines)} {incr i} {
        set line [lindex $text($name) [expr {1 + $i % 2}]]
        if {$opt(words) ne ""} { append line " " $opt(words) }
        label $f.l$i -text $line -font $body -foreground $opt(text) -background $opt(card)
        place $f.l$i -x 12 -y [expr {round($opt(font) * 1.5) + 18 + $i * ($opt(font) + 8)}]
    }
    lappend slots "\"$name\": {\"x\": $x, \"y\": $y, \"w\": $w, \"h\": $slot_h}"
}
set below [expr {$top + 2 * ($slot_h + $g)}]
if {[shown button]} {
    button .button -text "Save changes" -font $body -background $opt(accent) -foreground white \
        -activebackground $opt(accent) -activeforeground white -relief flat -borderwidth 0
    place .button -x [expr {$g + $opt(button_dx)}] -y [expr {$below + $opt(button_dy)}] -width 160 -height 36
    lappend slots "\"button\": {\"x\": [expr {$g + $opt(button_dx)}], \"y\": [expr {$below + $opt(button_dy)}], \"w\": 160, \"h\": 36}"
}
set strip_y [expr {$below + 36 + $g}]
canvas .strip -background $opt(bg) -highlightthickness 0 -width [expr {$W - 2 * $g}] -height 48
place .strip -x $g -y $strip_y
.strip create rectangle 0 4 48 44 -fill $opt(accent) -outline "" -tags bar
set travel [expr {$W - 2 * $g - 48}]

# The bar's place is a function of the clock, not of how often Tk gets to run,
# so two captures of the same moment agree whatever the load.
proc slide {} {
    global opt travel
    set t [expr {[clock milliseconds] % $opt(period)}]
    set x [expr {round($travel * (0.5 - 0.5 * cos(6.283185307179586 * $t / $opt(period))))}]
    .strip coords bar $x 4 [expr {$x + 48}] 44
    after 20 slide
}
if {$opt(anim)} { slide } else { .strip coords bar [expr {$travel / 2}] 4 [expr {$travel / 2 + 48}] 44 }

proc write_state {} {
    global state_file slots
    if {$state_file eq ""} return
    set f [open "$state_file.tmp" w]
    puts $f "{\"pid\": [pid], \"slots\": {[join $slots {, }]}}"
    close $f
    file rename -force "$state_file.tmp" $state_file
}
update idletasks
tkwait visibility .
update
write_state
puts READY
flush stdout
