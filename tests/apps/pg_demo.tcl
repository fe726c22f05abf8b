#!/usr/bin/env wish
# SPDX-License-Identifier: MIT
# pixelgate's Tk demo and test app. It reports its own state, so tests can
# check that input through pixelgate really arrived:
#   wish pg_demo.tcl STATE_FILE [GEOMETRY] [TITLE] [EXTRA...]   (defaults 480x260+40+40, "pixelgate demo")
# EXTRA adds windows of the same app (the same X client), each at its GEOMETRY:
#   popup=GEOMETRY   an override-redirect toplevel (what menus and tooltips are), magenta
#   dialog=GEOMETRY  a transient dialog (WM_TRANSIENT_FOR the main window), cyan
#   thief=GEOMETRY   a second window, on its own X connection (another client), with an
#                    entry that takes the focus (focus -force) when "~" is typed into the
#                    main entry; its text is "thief" in the state
# Every change rewrites STATE_FILE (one JSON object, written to a temp file and
# renamed) with its pid, the click count, the entry's exact text, and where the button
# and the entry are inside the window ({x,y,w,h}, window-relative), so a test
# can aim without OCR. "READY" goes to stdout once the window is mapped.
package require Tk

set state_file [lindex $argv 0]
set clicks 0
set status "Status: idle"

set title [lindex $argv 2]
if {$title eq ""} { set title "pixelgate demo" }
wm title . $title
set geometry [lindex $argv 1]
if {$geometry eq ""} { set geometry 480x260+40+40 }
wm geometry . $geometry
. configure -background "#f4f4f4"
option add *Font {Helvetica 14}

label .title -text $title -font {Helvetica 20 bold} -background "#f4f4f4"
label .status -textvariable status -background "#f4f4f4" -foreground "#1a4d8f"
button .press -text "Press me" -command on_press -background "#2e7d32" -foreground white \
    -activebackground "#1b5e20" -activeforeground white
entry .entry -width 28
label .echo -text "" -background "#f4f4f4"

pack .title -pady {12 4}
pack .status -pady 4
pack .press -pady 8
pack .entry -pady 4
pack .echo -pady 4

proc json_escape {s} {
    set out ""
    foreach ch [split $s ""] {
        scan $ch %c code
        if {$ch eq "\""} { append out "\\\"" } \
        elseif {$ch eq "\\"} { append out "\\\\" } \
        elseif {$code < 0x20} { append out [format "\\u%04x" $code] } \
        else { append out $ch }
    }
    return $out
}

proc geom {w} {
    return "{\"x\": [winfo x $w], \"y\": [winfo y $w], \"w\": [winfo width $w], \"h\": [winfo height $w]}"
}

proc write_state {} {
    global state_file clicks
    if {$state_file eq ""} return
    set text [.entry get]
    set thief ""
    if {[winfo exists .thief.e]} { set thief ", \"thief\": \"[json_escape [.thief.e get]]\"" }
    set tmp "$state_file.tmp"
    set f [open $tmp w]
    fconfigure $f -encoding utf-8
    puts $f "{\"pid\": [pid], \"clicks\": $clicks, \"entry\": \"[json_escape $text]\", \"press\": [geom .press], \"entry_box\": [geom .entry]$thief}"
    close $f
    file rename -force $tmp $state_file
}

proc on_press {} {
    global clicks status
    incr clicks
    set status "Clicked $clicks"
    write_state
}

proc on_entry_change {args} {
    .echo configure -text "You typed: [.entry get]"
    write_state
    return 1
}

.entry configure -validate key -validatecommand {after idle on_entry_change; expr 1}
bind .entry <KeyRelease> {on_entry_change}
bind .entry <Return> {set status "Entered: [.entry get]"; write_state}

set extras {}
foreach extra [lrange $argv 3 end] {
    lassign [split $extra =] kind geom
    switch -- $kind {
        popup {
            toplevel .popup -borderwidth 0 -background "#ff00ff"
            wm overrideredirect .popup 1
        }
        dialog {
            toplevel .dialog -background "#00ffff"
            wm title .dialog "$title dialog"
            wm transient .dialog .
        }
        thief {
            # On a connection of its own (Tk shares one connection per display
            # name, ignoring the screen number, so "unix:N" names the same
            # local display differently): to the X server it is another
            # client, and the focus it takes is X's, not Tk's own routing of
            # the keys one connection receives.
            regexp {:([0-9]+)} $env(DISPLAY) -> num
            toplevel .thief -background "#f4f4f4" -screen "unix:$num"
            wm title .thief "thief"
            entry .thief.e -width 20
            pack .thief.e -padx 8 -pady 8
            bind .thief.e <KeyRelease> {write_state}
            bind .entry <Key-asciitilde> {focus -force .thief.e}
        }
        default { error "unknown extra window '$extra'" }
    }
    wm geometry .$kind $geom
    lappend extras .$kind
}

update idletasks
tkwait visibility .
foreach w $extras { if {![winfo viewable $w]} { tkwait visibility $w } }
# Extras stay above the main window, as a menu the app opens over it does
# (again once a window manager has framed and stacked the main window).
foreach w $extras { raise $w }
after 300 [list foreach w $extras {raise $w}]
update
write_state
puts READY
flush stdout
