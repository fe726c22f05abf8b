#!/usr/bin/env wish
# SPDX-License-Identifier: MIT
# Two small apps for the paste tests (tests/security/clipboard.sh):
#   wish pg_paste.tcl owner STATE TITLE SECRET GEOMETRY
#       puts SECRET on the CLIPBOARD and selects it in an entry (the PRIMARY
#       selection): what a password manager does when you copy a password
#   wish pg_paste.tcl target STATE TITLE GEOMETRY
#       an entry and a "Paste" button (<<Paste>> into the entry, as an
#       Edit > Paste item does)
# STATE is rewritten on every change as one JSON object: the entry's text
# and its box and the button's, window-relative. "READY" goes to stdout
# once the window is mapped.
package require Tk

lassign $argv mode state_file title
wm title . $title
option add *Font {Helvetica 14}
entry .e -width 24 -exportselection 1 -textvariable ::text
pack .e -padx 10 -pady 10

proc geom {w} {
    return "{\"x\": [expr {[winfo rootx $w] - [winfo rootx .]}], \"y\": [expr {[winfo rooty $w] - [winfo rooty .]}],\
 \"w\": [winfo width $w], \"h\": [winfo height $w]}"
}

proc write_state {args} {
    global state_file
    set text [string map {\\ \\\\ \" \\\"} [.e get]]
    set extra ""
    if {[winfo exists .paste]} { set extra ", \"paste_box\": [geom .paste]" }
    set f [open $state_file.tmp w]
    puts $f "{\"pid\": [pid], \"entry\": \"$text\", \"entry_box\": [geom .e]$extra}"
    close $f
    file rename -force $state_file.tmp $state_file
}

if {$mode eq "owner"} {
    set secret [lindex $argv 3]
    wm geometry . [lindex $argv 4]
    set ::text $secret
    clipboard clear
    clipboard append $secret
    .e selection range 0 end
} else {
    wm geometry . [lindex $argv 3]
    button .paste -text "Paste" -command {event generate .e <<Paste>>}
    pack .paste -pady 6
}
trace add variable ::text write write_state
update
write_state
# the owner keeps its selections: it claims them again if someone else takes one
if {$mode eq "owner"} {
    selection handle -selection CLIPBOARD . {}
}
puts READY
flush stdout
