#!/usr/bin/env wish
# SPDX-License-Identifier: MIT
# The app the acceptance test drives: a fixed layout that a test changes by
# writing one word into CONTROL_FILE (read every 100 ms):
#   base      the approved look
#   recolour  the button's background changes colour
#   move      the button moves 3 px to the right
#   label     the label's text changes
#   caret     the entry takes the focus: its text cursor blinks (300/300 ms)
# After applying a word the app writes {"applied": WORD, "ok": {x,y,w,h},
# "label": {...}, "entry": {...}} to STATE_FILE, so the test knows the
# screen has it and where the widgets are (window-relative).
#   wish pg_accept.tcl CONTROL_FILE STATE_FILE
package require Tk

set control [lindex $argv 0]
set state [lindex $argv 1]
set mode ""

wm title . "pixelgate accept"
wm geometry . 360x200+30+30
wm resizable . 0 0
. configure -background "#ffffff"
option add *Font {Helvetica 12}

label .title -text "Settings" -font {Helvetica 16 bold} -background "#ffffff"
place .title -x 20 -y 12
label .label -text "Volume: 40 %" -background "#ffffff"
place .label -x 20 -y 52
button .ok -text "Save" -background "#2e7d32" -foreground white -activebackground "#2e7d32" \
    -relief flat -borderwidth 0 -highlightthickness 0
place .ok -x 20 -y 90 -width 90 -height 30
entry .entry -width 20 -insertontime 300 -insertofftime 300 -relief flat -highlightthickness 0
place .entry -x 20 -y 140
frame .sink -width 1 -height 1 -background "#ffffff" -takefocus 1
place .sink -x 350 -y 190

proc apply {m} {
    global state
    .ok configure -background "#2e7d32" -activebackground "#2e7d32"
    place .ok -x 20
    .label configure -text "Volume: 40 %"
    focus -force .sink
    switch -- $m {
        recolour { .ok configure -background "#c62828" -activebackground "#c62828" }
        move     { place .ok -x 23 }
        label    { .label configure -text "Volume: 100 % (max)" }
        caret    { focus -force .entry }
    }
    update idletasks
    after 150 [list write_state $m]
}

proc geom {w} {
    return "{\"x\": [winfo x $w], \"y\": [winfo y $w], \"w\": [winfo width $w], \"h\": [winfo height $w]}"
}

proc write_state {m} {
    global state
    set f [open "$state.tmp" w]
    puts $f "{\"applied\": \"$m\", \"ok\": [geom .ok], \"label\": [geom .label], \"entry\": [geom .entry]}"
    close $f
    file rename -force "$state.tmp" $state
}

proc poll {} {
    global control mode
    if {[file exists $control]} {
        set f [open $control r]
        set m [string trim [read $f]]
        close $f
        if {$m ne $mode} {
            set mode $m
            apply $m
        }
    }
    after 100 poll
}

update
puts READY
flush stdout
poll
