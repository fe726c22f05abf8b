#!/usr/bin/env wish
# SPDX-License-Identifier: MIT
# pixelgate's order-entry form: the labelled test set of layout/OCR and the
# integration test's app. The app is its own ground truth: once mapped it
# writes every widget's geometry (window-relative), text, value and state as
# one JSON object, read from Tk itself (winfo, bbox, get), never guessed.
#
#   wish pg_form.tcl -truth FILE [-theme tk|default|clam|alt|classic]
#        [-family "DejaVu Sans"] [-px 13] [-variant N] [-title T]
#        [-geometry +X+Y] [-log FILE] [-empty 1] [-caret 1] [-focus c_express] [-hover c_express]
#
# -variant picks the values (accented names, e-mail addresses, digits,
# states) deterministically. -empty 1 leaves the entries empty and every
# check box off, for a test that fills the form itself. -log FILE: every
# change is appended as one JSON line (what the app saw), and the truth file
# is rewritten (also when the city list scrolls). The pointer entering Submit
# is logged as "hover". "READY" goes to stdout when the truth is written.
package require Tk

array set opt {-truth "" -theme tk -family "DejaVu Sans" -px 13 -variant 0 -title "Order entry"
    -geometry +0+0 -log "" -empty 0 -caret 1 -focus "" -hover ""}
foreach {k v} $argv {
    if {![info exists opt($k)]} { puts stderr "unknown option $k"; exit 2 }
    set opt($k) $v
}
set theme $opt(-theme)
set classic [expr {$theme eq "tk"}]
if {!$classic} {
    # awthemes (tcl-awthemes): awlight, awdark, awbreeze, awclearlooks, ... load as packages
    if {[string match aw* $theme]} { package require $theme }
    ttk::style theme use $theme
}

font create F -family $opt(-family) -size -$opt(-px)
font create FB -family $opt(-family) -size -$opt(-px) -weight bold
option add *Font F
wm title . $opt(-title)
wm geometry . $opt(-geometry)

# ---- values: deterministic per variant ----
set names {"Zoë Ærø" "José Núñez" "Françoise Lefèvre" "Jürgen Müller" "Åsa Öberg" "Ðorđe Šimić"
    "Renée Dubois" "Søren Kierkegård" "Iñés Peña" "Łukasz Żółć" "Gaëlle Noël" "Björn Ångström"}
set mails {"zoe@example.com" "jose.nunez@example.org" "f.lefevre@mail.fr" "jm@muller.de" "asa.oberg@post.se"
    "dorde@simic.rs" "renee_d@example.net" "soren.k@dk.example" "ines.pena@correo.es" "lukasz@zolc.pl"
    "gaelle.noel@ex.fr" "bjorn.a@uni.se"}
set streets {"Königsallee 12" "Rue de l'Église 7" "Calle Mayor 105" "Øvre Slottsgate 3" "Straße des 17. Juni 41"
    "Hauptstraße 9" "Avenue Foch 28" "Plaza España 2" "Kärntner Ring 5" "Via Roma 77" "Rue Émile Zola 14"
    "Sveavägen 44"}
set cities {Zürich Genève Kraków København Málaga Tromsø Besançon Göteborg Lódź Ærøskøbing Nîmes Düsseldorf}
set v $opt(-variant)
proc pick {list k} { return [lindex $list [expr {$k % [llength $list]}]] }
set vals(customer) [pick $names $v]
set vals(email) [pick $mails [expr {$v * 5 + 1}]]
set vals(street) [pick $streets [expr {$v * 7 + 2}]]
set vals(quantity) [expr {($v * 37 + 3) % 1000}]
set vals(code) [expr {$v % 10}]
if {$opt(-empty)} { foreach k {customer email street quantity code} { set vals($k) "" } }
set bits [expr {($v * 2654435761) & 0xffff}]
foreach {i name} {0 express 1 gift 2 insure} {
    set chk($name) [expr {$opt(-empty) ? 0 : ($bits >> $i) & 1}]
}
set ship [expr {$opt(-empty) ? "standard" : [lindex {standard priority overnight} [expr {$v % 3}]]}]
set discount [expr {$opt(-empty) ? 0 : ($v * 13) % 51}]
set error_text [expr {$v % 2 ? "Invalid postcode" : "Postcode required"}]

# ---- widgets ----
proc W {kind args} {
    global classic
    if {$classic} { return [$kind {*}$args] }
    if {$kind in {label entry button checkbutton radiobutton scale scrollbar frame}} {
        return [ttk::$kind {*}$args]
    }
    return [$kind {*}$args]
}
set bg [expr {$classic ? [. cget -background] : [ttk::style lookup . -background]}]
if {$bg eq ""} { set bg [. cget -background] }
. configure -background $bg
if {$classic} { set f [frame .f -padx 10 -pady 10 -background $bg] } else { set f [ttk::frame .f -padding 10] }
pack $f -fill both -expand 1

set r 0
foreach {key text} {customer "Customer:" email "E-mail:" street "Street:" quantity "Quantity:" code "Code:"} {
    W label $f.l_$key -text $text
    W entry $f.e_$key -width 26
    if {$classic} { $f.l_$key configure -background $bg; $f.e_$key configure -insertofftime 0 } \
    else { $f.e_$key configure -style TEntry }
    $f.e_$key insert 0 $vals($key)
    grid $f.l_$key -row $r -column 0 -sticky w -padx {0 8} -pady 3
    grid $f.e_$key -row $r -column 1 -columnspan 3 -sticky w -pady 3
    incr r
}
# ttk entries blink through the style: keep the caret on so captures are stable.
option add *insertOffTime 0
foreach key {customer email street quantity code} {
    catch { $f.e_$key configure -insertofftime 0 }
}
set c 0
foreach {name text} {express "Express" gift "Gift wrap" insure "Insurance"} {
    W checkbutton $f.c_$name -text $text -variable chk($name) -command log_change
    if {$classic} { $f.c_$name configure -background $bg -highlightthickness 0 }
    grid $f.c_$name -row $r -column $c -sticky w -pady 3
    incr c
}
incr r
set c 0
foreach {name text} {standard "Standard" priority "Priority" overnight "Overnight"} {
    W radiobutton $f.r_$name -text $text -variable ship -value $name -command log_change
    if {$classic} { $f.r_$name configure -background $bg -highlightthickness 0 }
    grid $f.r_$name -row $r -column $c -sticky w -pady 3
    incr c
}
incr r
W label $f.l_city -text "City:"
if {$classic} { $f.l_city configure -background $bg }
grid $f.l_city -row $r -column 0 -sticky nw -padx {0 8} -pady 3
frame $f.lf -borderwidth 0 -background $bg
listbox $f.city -height 4 -width 18 -exportselection 0 -activestyle none -yscrollcommand list_scrolled
W scrollbar $f.sb -orient vertical -command "$f.city yview"
if {!$classic} {
    # the theme's own selection colours, as a ttk app would set them
    set sbg [ttk::style lookup . -selectbackground]
    set sfg [ttk::style lookup . -selectforeground]
    if {$sbg ne ""} { $f.city configure -selectbackground $sbg -selectforeground $sfg }
}
foreach city $cities { $f.city insert end $city }
set sel [expr {$opt(-empty) ? -1 : ($v * 3) % 4}]
if {$sel >= 0} { $f.city selection set $sel }
bind $f.city <<ListboxSelect>> log_change
pack $f.city -in $f.lf -side left
pack $f.sb -in $f.lf -side left -fill y
raise $f.city
raise $f.sb
grid $f.lf -row $r -column 1 -columnspan 3 -sticky w -pady 3
incr r
W label $f.l_disc -text "Discount:"
if {$classic} {
    $f.l_disc configure -background $bg
    scale $f.disc -from 0 -to 50 -orient horizontal -length 200 -showvalue 0 -variable discount \
        -background $bg -highlightthickness 0 -command {apply {{v} log_change}}
} else {
    ttk::scale $f.disc -from 0 -to 50 -orient horizontal -length 200 -variable discount \
        -command {apply {{v} log_change}}
}
grid $f.l_disc -row $r -column 0 -sticky w -padx {0 8} -pady 3
grid $f.disc -row $r -column 1 -columnspan 3 -sticky w -pady 3
incr r
label $f.err -text $error_text -foreground "#d32f2f" -background $bg
grid $f.err -row $r -column 0 -columnspan 4 -sticky w -pady 3
incr r
W button $f.submit -text "Submit" -command {log_change submit}
W button $f.cancel -text "Cancel" -command {log_change cancel}
if {$classic} { $f.submit configure -highlightthickness 0; $f.cancel configure -highlightthickness 0 }
grid $f.submit -row $r -column 1 -sticky w -pady {8 0}
grid $f.cancel -row $r -column 2 -sticky w -pady {8 0}

if {$opt(-caret)} { focus -force $f.e_customer; $f.e_customer icursor end }
# -focus NAME: keyboard focus (and its focus ring) on a check box, radio
# button or button instead: c_express, r_priority, submit, ...
if {$opt(-focus) ne ""} { focus -force $f.$opt(-focus) }
# -hover NAME: that widget drawn as under the pointer (its active state).
if {$opt(-hover) ne ""} {
    if {$classic} { $f.$opt(-hover) configure -state active } else { $f.$opt(-hover) state active }
}

# ---- the truth ----
proc json_escape {s} {
    set out ""
    foreach ch [split $s ""] {
        scan $ch %c code
        if {$ch eq "\""} { append out "\\\"" } elseif {$ch eq "\\"} { append out "\\\\" } \
        elseif {$code < 0x20} { append out [format "\\u%04x" $code] } else { append out $ch }
    }
    return $out
}
# A widget's box relative to the toplevel.
proc box {w} {
    set x [expr {[winfo rootx $w] - [winfo rootx .]}]
    set y [expr {[winfo rooty $w] - [winfo rooty .]}]
    return "\"x\": $x, \"y\": $y, \"w\": [winfo width $w], \"h\": [winfo height $w]"
}
proc item {kind w extra} { return "{\"kind\": \"$kind\", \"widget\": \"$w\", [box $w]$extra}" }
proc truth_json {} {
    global f opt chk ship discount theme vals cities
    set items {}
    foreach key {customer email street quantity code} {
        lappend items [item label $f.l_$key ", \"text\": \"[json_escape [$f.l_$key cget -text]]\""]
        lappend items [item entry $f.e_$key ", \"value\": \"[json_escape [$f.e_$key get]]\", \"label\": \"[json_escape [$f.l_$key cget -text]]\", \"focused\": [expr {[focus] eq "$f.e_$key" ? "true" : "false"}]"]
    }
    foreach name {express gift insure} {
        set t [$f.c_$name cget -text]
        lappend items [item check $f.c_$name ", \"text\": \"[json_escape $t]\", \"checked\": [expr {$chk($name) ? "true" : "false"}]"]
    }
    foreach name {standard priority overnight} {
        set t [$f.r_$name cget -text]
        lappend items [item radio $f.r_$name ", \"text\": \"[json_escape $t]\", \"checked\": [expr {$ship eq $name ? "true" : "false"}]"]
    }
    foreach key {city disc} { lappend items [item label $f.l_$key ", \"text\": \"[json_escape [$f.l_$key cget -text]]\""] }
    set rows {}
    set n [$f.city size]
    set lx [expr {[winfo rootx $f.city] - [winfo rootx .]}]
    set ly [expr {[winfo rooty $f.city] - [winfo rooty .]}]
    set sel [$f.city curselection]
    for {set i 0} {$i < $n} {incr i} {
        set bb [$f.city bbox $i]
        if {$bb eq ""} continue
        lassign $bb bx by bw bh
        lappend rows "{\"index\": $i, \"text\": \"[json_escape [$f.city get $i]]\", \"x\": [expr {$lx + $bx}], \"y\": [expr {$ly + $by}], \"w\": $bw, \"h\": $bh, \"selected\": [expr {$i in $sel ? "true" : "false"}]}"
    }
    lappend items [item list $f.city ", \"label\": \"City:\", \"selected\": [expr {$sel eq "" ? -1 : $sel}], \"selected_text\": \"[expr {$sel eq "" ? "" : [json_escape [$f.city get $sel]]}]\", \"rows\": \[[join $rows ", "]\]"]
    lassign [$f.sb get] a b
    lappend items [item scrollbar $f.sb ", \"orient\": \"vertical\", \"first\": $a, \"last\": $b"]
    lappend items [item slider $f.disc ", \"label\": \"Discount:\", \"from\": 0, \"to\": 50, \"value\": $discount, \"fraction\": [expr {$discount / 50.0}]"]
    lappend items [item label $f.err ", \"text\": \"[json_escape [$f.err cget -text]]\", \"color\": \"[$f.err cget -foreground]\", \"error\": true"]
    foreach b {submit cancel} { lappend items [item button $f.$b ", \"text\": \"[json_escape [$f.$b cget -text]]\""] }
    return "{\"toolkit\": \"tk\", \"theme\": \"$theme\", \"family\": \"[json_escape $opt(-family)]\", \"px\": $opt(-px), \"variant\": $opt(-variant), \"pid\": [pid], \"rootx\": [winfo rootx .], \"rooty\": [winfo rooty .], \"width\": [winfo width .], \"height\": [winfo height .], \"widgets\": \[\n  [join $items ",\n  "]\n\]}"
}
proc write_truth {} {
    global opt
    if {$opt(-truth) eq ""} return
    set tmp "$opt(-truth).tmp"
    set fd [open $tmp w]
    fconfigure $fd -encoding utf-8
    puts $fd [truth_json]
    close $fd
    file rename -force $tmp $opt(-truth)
}
# Every change: one log line of what the app holds now, and the truth again.
proc log_change {{what change}} {
    global opt f chk ship discount
    if {$opt(-log) ne ""} {
        set fd [open $opt(-log) a]
        fconfigure $fd -encoding utf-8
        set sel [$f.city curselection]
        puts $fd "{\"event\": \"$what\", \"customer\": \"[json_escape [$f.e_customer get]]\", \"email\": \"[json_escape [$f.e_email get]]\", \"quantity\": \"[json_escape [$f.e_quantity get]]\", \"express\": $chk(express), \"gift\": $chk(gift), \"insure\": $chk(insure), \"ship\": \"$ship\", \"city\": \"[expr {$sel eq "" ? "" : [json_escape [$f.city get $sel]]}]\", \"discount\": $discount}"
        close $fd
    }
    write_truth
}
foreach key {customer email street quantity code} {
    bind $f.e_$key <KeyRelease> {log_change type}
}
# The list scrolled (wheel, scroll bar, keys): the scroll bar follows, and
# the truth says where it is now ("first" of the scrollbar item).
proc list_scrolled {first last} {
    global f
    $f.sb set $first $last
    if {[winfo ismapped .]} { write_truth }
}
# The pointer came over Submit: a hover, logged as what the app saw.
bind $f.submit <Enter> {log_change hover}
update
after 200 {
    update
    write_truth
    puts READY
    flush stdout
}
