#!/usr/bin/env wish
# SPDX-License-Identifier: MIT
# pixelgate's "Order desk": an order-entry app with a menu bar, entries, a
# check box, radio buttons, a 60-row list, a slider, a status line and two
# dialogs, for tests that drive it through the client (order_script.sh).
#
#   wish pg_order.tcl [-truth FILE] [-log FILE] [-geometry +X+Y]
#        [-family "DejaVu Sans"] [-px 13]
#
# -log FILE: one JSON line per effect the app saw, appended as it happens:
#   {"event":"menu","menu":"Edit","item":"Clear notes","via":"menu"|"key"}
#   {"event":"menu-open","menu":"Edit"}              (a menu was posted)
#   {"event":"entry","field":"customer","value":"..."} (every change of a field)
#   {"event":"check","name":"express","value":0|1}
#   {"event":"radio","name":"delivery","value":"pickup"|"courier"|"post"}
#   {"event":"select","index":46,"text":"Item 47"}
#   {"event":"scale","name":"priority","value":N}    (when the button or key is released)
#   {"event":"dialog","name":"confirm"|"about","state":"opened"|"closed"}
#   {"event":"order","state":"submitted"|"cancelled",...}
#   {"event":"invalid","field":"quantity"|"item","value":"..."}
#   {"event":"reset",...the form as it is now}       (File > New order, ctrl+n)
# Scrolling the list is not a line (how many wheel steps Tk folds into one
# redraw varies): the truth's "first" says which row is at the top.
# And, for telling where the pointer went, which widget each button press
# and each pointer entry reached (Tk's own %W, `bind all`):
#   {"event":"press","widget":".f.items","button":1}
#   {"event":"enter","widget":".f.submit"}
#
# -truth FILE: the app's geometry and state, read from Tk, as one JSON
# object, rewritten after mapping and on every change (list scrolled, menu
# posted, dialog opened): boxes are relative to the window the broker sees
# (the toplevel's wrapper, menu bar included), so "x,y" of a box is what
# `click --at` takes: "widgets" (each with its box, text or value; the
# list with "first", its visible "rows" and the selection; the slider with
# its value and where its handle is at now, 0 and 100), "menus" (each menu
# bar entry and where its menu drops down, entry by entry), "posted" (the
# menus open now), "confirm_layout" (the confirmation's fixed boxes, known
# before it opens), "confirm"/"about" (the open dialogs' widgets, relative to
# the dialog) and "empty" (a point where only the frame is).
# "READY" goes to stdout once the first truth is written.
package require Tk

array set opt {-truth "" -log "" -geometry +0+0 -family "DejaVu Sans" -px 13}
foreach {k v} $argv {
    if {![info exists opt($k)]} { puts stderr "unknown option $k"; exit 2 }
    set opt($k) $v
}
# wish takes -geometry for itself (Tk_ParseArgv) and leaves it in ::geometry
if {[info exists ::geometry]} { set opt(-geometry) $::geometry }
font create F -family $opt(-family) -size -$opt(-px)
option add *Font F
# the caret does not blink: captures of a focused entry are stable
option add *insertOffTime 0
wm title . "Order desk"
wm geometry . $opt(-geometry)
wm resizable . 0 0

# ---- JSON ----
proc json_escape {s} {
    set out ""
    foreach ch [split $s ""] {
        scan $ch %c code
        if {$ch eq "\""} { append out "\\\"" } elseif {$ch eq "\\"} { append out "\\\\" } \
        elseif {$code < 0x20} { append out [format "\\u%04x" $code] } else { append out $ch }
    }
    return $out
}
# obj key value ...: a JSON object; a key written #key has a number (or
# true/false/null, or nested JSON) for its value, every other value is a string.
proc obj {args} {
    set parts {}
    foreach {k v} $args {
        if {[string index $k 0] eq "#"} {
            lappend parts "\"[string range $k 1 end]\": $v"
        } else {
            lappend parts "\"$k\": \"[json_escape $v]\""
        }
    }
    return "{[join $parts {, }]}"
}
proc emit {args} {
    global opt
    if {$opt(-log) eq ""} return
    set fd [open $opt(-log) a]
    fconfigure $fd -encoding utf-8
    puts $fd [obj {*}$args]
    close $fd
}

# ---- the form's state ----
set defaults {customer "Bob Stone" quantity 1 notes "Leave at the door" express 0 delivery pickup priority 0}
set orders 0
set resetting 0
proc set_defaults {} {
    global defaults last
    foreach {k v} $defaults {
        set ::$k $v
        set last($k) $v
    }
}
set_defaults

# ---- menus ----
menu .mb -tearoff 0
foreach {name label} {file File edit Edit help Help} {
    menu .mb.$name -tearoff 0 -postcommand [list menu_posted $label]
    .mb add cascade -label $label -menu .mb.$name
}
.mb.file add command -label "New order" -accelerator Ctrl+N -command {new_order menu}
.mb.file add separator
.mb.file add command -label "Quit" -command {emit event menu menu File item Quit via menu; exit}
.mb.edit add command -label "Clear notes" -command clear_notes
.mb.help add command -label "About" -command about
. configure -menu .mb
# ctrl+n is New order, not also Tk's emacs-style "next line" (a focused
# list would move its selection before the form is reset)
event delete <<NextLine>> <Control-Key-n> <Control-Lock-Key-N>
bind all <Control-n> {new_order key}

proc status {text} { .f.status configure -text $text }
proc menu_posted {label} {
    emit event menu-open menu $label
    status "$label menu open"
    after idle write_truth
}

# ---- widgets ----
frame .f -padx 12 -pady 10
pack .f -fill both -expand 1
set r 0
foreach {key text width} {customer "Customer:" 24 quantity "Quantity:" 8 notes "Notes:" 30} {
    label .f.l_$key -text $text
    entry .f.$key -width $width -textvariable $key -insertofftime 0
    grid .f.l_$key -row $r -column 0 -sticky w -padx {0 8} -pady 3
    grid .f.$key -row $r -column 1 -columnspan 3 -sticky w -pady 3
    trace add variable ::$key write [list field_changed $key]
    incr r
}
checkbutton .f.express -text "Express" -variable express -command {
    emit event check name express #value $express
    status [expr {$express ? "Express delivery on" : "Express delivery off"}]
    write_truth
}
grid .f.express -row $r -column 1 -columnspan 3 -sticky w -pady 3
incr r
label .f.l_delivery -text "Delivery:"
grid .f.l_delivery -row $r -column 0 -sticky w -padx {0 8} -pady 3
set c 1
foreach {value text} {pickup Pickup courier Courier post Post} {
    radiobutton .f.$value -text $text -variable delivery -value $value -command {
        emit event radio name delivery value $delivery
        status "Delivery by [string totitle $delivery]"
        write_truth
    }
    grid .f.$value -row $r -column $c -sticky w -pady 3
    incr c
}
incr r
label .f.l_items -text "Item:"
grid .f.l_items -row $r -column 0 -sticky nw -padx {0 8} -pady 3
frame .f.lf
listbox .f.items -height 8 -width 12 -exportselection 0 -activestyle none -yscrollcommand list_scrolled
scrollbar .f.sb -orient vertical -command ".f.items yview"
for {set i 1} {$i <= 60} {incr i} { .f.items insert end [format "Item %02d" $i] }
pack .f.items -in .f.lf -side left
pack .f.sb -in .f.lf -side left -fill y
raise .f.items
raise .f.sb
grid .f.lf -row $r -column 1 -columnspan 3 -sticky w -pady 3
bind .f.items <<ListboxSelect>> {
    set sel [.f.items curselection]
    if {$sel ne ""} {
        emit event select #index $sel text [.f.items get $sel]
        status "Selected [.f.items get $sel]"
    }
    write_truth
}
incr r
label .f.l_priority -text "Priority:"
scale .f.priority -from 0 -to 100 -resolution 1 -orient horizontal -length 200 -showvalue 0 \
    -variable priority -highlightthickness 0 -command {apply {{v} { .f.priority_val configure -text $v }}}
label .f.priority_val -text 0 -width 3 -anchor w
grid .f.l_priority -row $r -column 0 -sticky w -padx {0 8} -pady 3
grid .f.priority -row $r -column 1 -columnspan 2 -sticky w -pady 3
grid .f.priority_val -row $r -column 3 -sticky w -padx {6 0} -pady 3
# the slider's value is logged once it is let go (not every step of a drag)
bind .f.priority <ButtonRelease> { after idle priority_settled }
bind .f.priority <KeyRelease> { after idle priority_settled }
proc priority_settled {} {
    global priority last
    if {$priority == $last(priority)} return
    set last(priority) $priority
    emit event scale name priority #value $priority
    status "Priority $priority"
    write_truth
}
incr r
button .f.submit -text "Submit" -command submit
grid .f.submit -row $r -column 1 -sticky w -pady {8 0}
incr r
# a fixed width: the label's box does not move when its text changes
label .f.status -text "Ready" -width 42 -anchor w -relief sunken -borderwidth 1 -padx 4
grid .f.status -row $r -column 0 -columnspan 4 -sticky w -pady {10 0}
# room on the right and below where a click reaches only the frame
grid columnconfigure .f 4 -minsize 40
grid rowconfigure .f [incr r] -minsize 24

# ---- behaviour ----
# Every change of an entry (a keystroke, a clear) is one line with the
# field's value now; a write that leaves it as it was is not a change.
proc field_changed {key args} {
    global resetting last
    set v [set ::$key]
    if {$resetting || $v eq $last($key)} return
    set last($key) $v
    emit event entry field $key value $v
}
proc clear_notes {} {
    emit event menu menu Edit item "Clear notes" via menu
    set ::notes ""
    status "Notes cleared"
    write_truth
}
proc new_order {via} {
    global resetting defaults
    emit event menu menu File item "New order" via $via
    foreach d {.confirm .about} { if {[winfo exists $d]} { close_dialog $d } }
    set resetting 1
    set_defaults
    .f.priority_val configure -text $::priority
    .f.items selection clear 0 end
    .f.items yview moveto 0
    .f.items activate 0
    focus .f.customer
    .f.customer icursor end
    set resetting 0
    emit event reset customer $::customer quantity $::quantity notes $::notes #express $::express \
        delivery $::delivery #priority $::priority #selected -1 #first [first_row]
    status "New order"
    write_truth
}
proc selected_item {} {
    set sel [.f.items curselection]
    return [expr {$sel eq "" ? "" : [.f.items get $sel]}]
}
proc submit {} {
    global quantity
    if {![string is integer -strict [string trim $quantity]] || [string trim $quantity] <= 0} {
        emit event invalid field quantity value $quantity
        status "Quantity must be a positive whole number"
        write_truth
        return
    }
    if {[selected_item] eq ""} {
        emit event invalid field item value ""
        status "Choose an item from the list"
        write_truth
        return
    }
    confirm_dialog
}
# The confirmation: a fixed layout (the boxes are in the truth before it
# opens), to the right of the main window.
set confirm_layout {message {16 12 328 64} ok {150 92 90 30} cancel {254 92 90 30}}
set confirm_size {360 136}
proc place_box {w box} { lassign $box x y bw bh; place $w -x $x -y $y -width $bw -height $bh }
proc confirm_dialog {} {
    global confirm_layout confirm_size quantity customer express delivery priority
    if {[winfo exists .confirm]} { raise .confirm; return }
    toplevel .confirm
    wm title .confirm "Confirm order"
    wm transient .confirm .
    wm resizable .confirm 0 0
    lassign $confirm_size cw ch
    set x [expr {[winfo rootx .#mb] + [winfo width .#mb] + 30}]
    set y [winfo rooty .#mb]
    wm geometry .confirm ${cw}x${ch}+$x+$y
    set how [string totitle $delivery]
    if {$express} { append how ", express" }
    label .confirm.message -justify left -anchor nw -wraplength 320 \
        -text "Order [string trim $quantity] x [selected_item] for $customer\n$how, priority $priority"
    button .confirm.ok -text "OK" -command confirm_ok
    button .confirm.cancel -text "Cancel" -command confirm_cancel
    foreach {k box} $confirm_layout { place_box .confirm.$k $box }
    wm protocol .confirm WM_DELETE_WINDOW confirm_cancel
    bind .confirm <Map> { if {"%W" eq ".confirm"} { after idle write_truth } }
    emit event dialog name confirm state opened
    status "Confirm the order"
}
proc close_dialog {d} {
    destroy $d
    emit event dialog name [string range $d 1 end] state closed
}
proc confirm_ok {} {
    global orders quantity customer express delivery priority
    incr orders
    set sel [.f.items curselection]
    emit event order state submitted #number $orders customer $customer #quantity [string trim $quantity] \
        #index $sel item [.f.items get $sel] #express $express delivery $delivery #priority $priority
    close_dialog .confirm
    status "Order $orders placed"
    write_truth
}
proc confirm_cancel {} {
    emit event order state cancelled
    close_dialog .confirm
    status "Order cancelled"
    write_truth
}
proc about {} {
    emit event menu menu Help item About via menu
    if {[winfo exists .about]} { raise .about; return }
    toplevel .about
    wm title .about "About Order desk"
    wm transient .about .
    wm geometry .about +[expr {[winfo rootx .#mb] + 40}]+[expr {[winfo rooty .#mb] + 60}]
    label .about.text -text "Order desk 1.0\npixelgate's test app" -justify left -padx 20 -pady 12
    button .about.close -text "Close" -command { close_dialog .about; status "Ready"; write_truth }
    pack .about.text .about.close -side top -pady 6
    wm protocol .about WM_DELETE_WINDOW { close_dialog .about; write_truth }
    bind .about <Map> { if {"%W" eq ".about"} { after idle write_truth } }
    emit event dialog name about state opened
    status "About Order desk"
}

# ---- the pointer: which widget got it ----
bind all <ButtonPress> { emit event press widget %W #button %b }
bind all <Enter> { if {"%d" ne "NotifyInferior"} { emit event enter widget %W } }

# ---- the truth ----
# The window the broker sees is the toplevel's wrapper, the menu bar
# (.#mb, the menu bar's clone) at its top-left; boxes are relative to it.
proc origin {} { return [list [winfo rootx .#mb] [winfo rooty .#mb]] }
proc rel {w} {
    lassign [origin] ox oy
    return [list [expr {[winfo rootx $w] - $ox}] [expr {[winfo rooty $w] - $oy}]]
}
proc box_json {x y w h} { return "\"x\": $x, \"y\": $y, \"w\": $w, \"h\": $h" }
proc wbox {w} { lassign [rel $w] x y; return [box_json $x $y [winfo width $w] [winfo height $w]] }
proc first_row {} { return [.f.items index @0,0] }
# The menu bar's entries, and where each cascade drops down with its
# entries (window-relative): Tk posts a menu bar's cascade at the entry's
# left edge, right under the entry (the bar's bottom border overlapped).
proc menus_json {} {
    set mb .#mb
    set bh [winfo height $mb]
    set dy [expr {$bh - [$mb cget -borderwidth]}]
    set n [$mb index end]
    set out {}
    for {set i 0} {$i <= $n} {incr i} {
        set x [$mb xposition $i]
        set label [$mb entrycget $i -label]
        set menu [.mb entrycget $i -menu]
        if {$i < $n} { set w [expr {[$mb xposition [expr {$i + 1}]] - $x}] } \
        else { set w [expr {[font measure F $label] + 2 * 4 + 2 * 2}] }
        set entries {}
        set last [$menu index end]
        set mh [winfo reqheight $menu]
        for {set j 0} {$j <= $last} {incr j} {
            set ey [$menu yposition $j]
            set eh [expr {($j < $last ? [$menu yposition [expr {$j + 1}]] : $mh - [$menu cget -borderwidth]) - $ey}]
            if {[$menu type $j] eq "separator"} continue
            lappend entries "{\"label\": \"[json_escape [$menu entrycget $j -label]]\", [box_json $x [expr {$dy + $ey}] [winfo reqwidth $menu] $eh]}"
        }
        lappend out "{\"label\": \"[json_escape $label]\", [box_json $x 0 $w $bh], \"menu\": {[box_json $x $dy [winfo reqwidth $menu] $mh], \"entries\": \[[join $entries {, }]\]}}"
    }
    return "\[[join $out {, }]\]"
}
# Menus posted now (the clones Tk maps), window-relative.
proc posted_json {} {
    set out {}
    foreach m [winfo children .#mb] {
        if {[winfo class $m] ne "Menu" || ![winfo ismapped $m]} continue
        lappend out "{\"widget\": \"$m\", [wbox $m]}"
    }
    return "\[[join $out {, }]\]"
}
proc dialog_json {d} {
    if {![winfo exists $d] || ![winfo ismapped $d]} { return null }
    set kids {}
    foreach k [winfo children $d] {
        set t [$k cget -text]
        set x [expr {[winfo rootx $k] - [winfo rootx $d]}]
        set y [expr {[winfo rooty $k] - [winfo rooty $d]}]
        lappend kids "{\"widget\": \"$k\", \"text\": \"[json_escape $t]\", [box_json $x $y [winfo width $k] [winfo height $k]]}"
    }
    return "{\"title\": \"[json_escape [wm title $d]]\", \"width\": [winfo width $d], \"height\": [winfo height $d], \"widgets\": \[[join $kids {, }]\]}"
}
proc truth_json {} {
    global opt confirm_layout confirm_size orders
    lassign [origin] ox oy
    set items {}
    foreach key {customer quantity notes} {
        lappend items "{\"widget\": \".f.l_$key\", \"kind\": \"label\", \"text\": \"[json_escape [.f.l_$key cget -text]]\", [wbox .f.l_$key]}"
        lappend items "{\"widget\": \".f.$key\", \"kind\": \"entry\", \"value\": \"[json_escape [set ::$key]]\", \"focused\": [expr {[focus] eq ".f.$key"}], [wbox .f.$key]}"
    }
    foreach key {delivery items priority} {
        lappend items "{\"widget\": \".f.l_$key\", \"kind\": \"label\", \"text\": \"[json_escape [.f.l_$key cget -text]]\", [wbox .f.l_$key]}"
    }
    lappend items "{\"widget\": \".f.express\", \"kind\": \"check\", \"text\": \"Express\", \"checked\": $::express, [wbox .f.express]}"
    foreach v {pickup courier post} {
        lappend items "{\"widget\": \".f.$v\", \"kind\": \"radio\", \"text\": \"[.f.$v cget -text]\", \"checked\": [expr {$::delivery eq $v}], [wbox .f.$v]}"
    }
    set rows {}
    lassign [rel .f.items] lx ly
    set sel [.f.items curselection]
    for {set i 0} {$i < [.f.items size]} {incr i} {
        set bb [.f.items bbox $i]
        if {$bb eq ""} continue
        lassign $bb bx by bw bh
        lappend rows "{\"index\": $i, \"text\": \"[.f.items get $i]\", [box_json [expr {$lx + $bx}] [expr {$ly + $by}] $bw $bh]}"
    }
    lassign [.f.items yview] a b
    lappend items "{\"widget\": \".f.items\", \"kind\": \"list\", \"size\": [.f.items size], \"first\": [first_row], \"yview\": \[$a, $b\], \"selected\": [expr {$sel eq "" ? -1 : $sel}], \"selected_text\": \"[selected_item]\", \"rows\": \[[join $rows {, }]\], [wbox .f.items]}"
    lappend items "{\"widget\": \".f.sb\", \"kind\": \"scrollbar\", [wbox .f.sb]}"
    # the slider's centre now, and where it is at 0 and at 100 (Tk's scale coords)
    lassign [rel .f.priority] sx sy
    set pts {}
    foreach {k v} [list now $::priority at0 0 at100 100] {
        lassign [.f.priority coords $v] cx cy
        lappend pts "\"$k\": {\"x\": [expr {$sx + round($cx)}], \"y\": [expr {$sy + round($cy)}]}"
    }
    lappend items "{\"widget\": \".f.priority\", \"kind\": \"slider\", \"from\": 0, \"to\": 100, \"value\": $::priority, [join $pts {, }], [wbox .f.priority]}"
    lappend items "{\"widget\": \".f.priority_val\", \"kind\": \"label\", \"text\": \"[.f.priority_val cget -text]\", [wbox .f.priority_val]}"
    lappend items "{\"widget\": \".f.submit\", \"kind\": \"button\", \"text\": \"Submit\", [wbox .f.submit]}"
    lappend items "{\"widget\": \".f.status\", \"kind\": \"status\", \"text\": \"[json_escape [.f.status cget -text]]\", [wbox .f.status]}"
    set layout {}
    foreach {k box} $confirm_layout { lappend layout "\"$k\": {[box_json {*}$box]}" }
    set width [winfo width .#mb]
    set height [expr {[winfo height .#mb] + [winfo height .]}]
    # a point where only the frame is: below the status line, at the right
    set empty "{\"x\": [expr {$width - 6}], \"y\": [expr {$height - 6}]}"
    return "{\"title\": \"Order desk\", \"pid\": [pid], \"rootx\": $ox, \"rooty\": $oy, \"width\": $width, \"height\": $height, \"menubar_height\": [winfo height .#mb], \"orders\": $orders, \"focus\": \"[focus]\", \"empty\": $empty,\n \"menus\": [menus_json],\n \"posted\": [posted_json],\n \"confirm_layout\": {\"width\": [lindex $confirm_size 0], \"height\": [lindex $confirm_size 1], [join $layout {, }]},\n \"confirm\": [dialog_json .confirm],\n \"about\": [dialog_json .about],\n \"widgets\": \[\n  [join $items ",\n  "]\n\]}"
}
proc write_truth {} {
    global opt
    if {$opt(-truth) eq "" || ![winfo ismapped .]} return
    set tmp "$opt(-truth).tmp"
    set fd [open $tmp w]
    fconfigure $fd -encoding utf-8
    puts $fd [truth_json]
    close $fd
    file rename -force $tmp $opt(-truth)
}
proc list_scrolled {first last} {
    .f.sb set $first $last
    if {[winfo ismapped .]} { after idle write_truth }
}
# a posted menu's place, once it is mapped
bind Menu <Map> {+ after idle write_truth }
bind Menu <Unmap> {+ after idle write_truth }

focus .f.customer
.f.customer icursor end
update
after 200 {
    update
    write_truth
    puts READY
    flush stdout
}
