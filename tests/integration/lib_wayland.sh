# SPDX-License-Identifier: MIT
# lib_wayland.sh - a desktop user's headless sway session for tests and bench/,
# sourced after lib.sh (and after pg_setup_dirs):
#   pg_start_sway USER        sway 1.7 headless (pixman), 1280x800, every app window
#                             floating; sets PG_WL_USER, PG_WL_RT (its runtime dir),
#                             PG_WL_DISPLAY (wayland-N), PG_WL_SWAYSOCK, PG_WL_SWAY_PID
#   pg_wl_as CMD...           runs CMD as that user inside the session
#   pg_wl_swaymsg ARGS...     swaymsg to that session
#   pg_wl_gtk_app RUNNER STATE TITLE X Y
#                             a native Wayland GTK 3 app (tests/apps/pg_demo_gtk.py)
#                             run by RUNNER (a function like pg_wl_as), floated to X,Y
#   pg_wl_start_helper        pixelgate-session ($PG_TMP/bin), started by the Exec= line
#                             of the shipped autostart entry under dbus-run-session,
#                             with $SESSION_SOCK as the broker's session socket

pg_start_sway() {
    PG_WL_USER=$1
    PG_WL_RT=$PG_TMP/runtime-$PG_WL_USER
    mkdir -m 0700 "$PG_WL_RT" && chown "$PG_WL_USER": "$PG_WL_RT"
    install -m 0644 "$PG_ROOT/tests/apps/pg_demo_gtk.py" "$PG_TMP/app/"
    cat >"$PG_TMP/app/sway.conf" <<'CONF'
output HEADLESS-1 resolution 1280x800 position 0 0
for_window [app_id=".*"] floating enable
CONF
    runuser -u "$PG_WL_USER" -- env -i PATH=/usr/bin:/bin HOME=/nonexistent XDG_RUNTIME_DIR="$PG_WL_RT" \
        WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1 sway -c "$PG_TMP/app/sway.conf" \
        >"$PG_TMP/sway.log" 2>&1 &
    PG_WL_SWAY_PID=$!
    PG_PIDS+=($PG_WL_SWAY_PID)
    local i
    for i in $(seq 150); do pg_wl_sway_up && break; sleep 0.1; done
    pg_wl_sway_up || pg_die "sway did not start: $(tail -5 "$PG_TMP/sway.log")"
    PG_WL_DISPLAY=$(basename "$(ls "$PG_WL_RT"/wayland-? | head -1)")
    PG_WL_SWAYSOCK=$(ls "$PG_WL_RT"/sway-ipc.*.sock | head -1)
}

pg_wl_sway_up() { ls "$PG_WL_RT"/sway-ipc.*.sock >/dev/null 2>&1 && ls "$PG_WL_RT"/wayland-? >/dev/null 2>&1; }

pg_wl_as() {
    runuser -u "$PG_WL_USER" -- env -i PATH=/usr/bin:/bin HOME=/nonexistent LANG=C.UTF-8 XDG_RUNTIME_DIR="$PG_WL_RT" \
        WAYLAND_DISPLAY="$PG_WL_DISPLAY" SWAYSOCK="$PG_WL_SWAYSOCK" XDG_SESSION_TYPE=wayland \
        XDG_CURRENT_DESKTOP=sway GDK_BACKEND=wayland NO_AT_BRIDGE=1 PIXELGATE_SESSION_SOCKET="${SESSION_SOCK:-}" \
        ASAN_OPTIONS=detect_leaks=0 "$@"
}

pg_wl_swaymsg() { pg_wl_as swaymsg -s "$PG_WL_SWAYSOCK" "$@" >/dev/null; }

pg_wl_gtk_app() {
    local runner=$1 state=$2 title=$3 x=$4 y=$5 out=$PG_TMP/app.$RANDOM.out i
    rm -f "$state"
    $runner /usr/bin/python3 "$PG_TMP/app/pg_demo_gtk.py" "$state" "$title" >"$out" 2>&1 &
    PG_PIDS+=($!)
    for i in $(seq 150); do grep -q READY "$out" 2>/dev/null && break; sleep 0.1; done
    grep -q READY "$out" || pg_die "GTK app '$title' did not start: $(cat "$out")"
    # Moved once sway has the window in its tree (READY can come first), and
    # until the tree shows it there.
    for i in $(seq 100); do
        pg_wl_swaymsg "[title=\"^$title\$\"] move position $x $y" 2>/dev/null
        pg_wl_at "$title" "$x" "$y" && return 0
        sleep 0.1
    done
    pg_die "GTK app '$title' could not be moved to $x,$y"
}

# pg_wl_at TITLE X Y: sway's tree has the window's frame at X,Y.
pg_wl_at() {
    pg_wl_as swaymsg -s "$PG_WL_SWAYSOCK" -t get_tree 2>/dev/null | jq -e --arg t "$1" --argjson x "$2" --argjson y "$3" \
        '[.. | objects | select(.name? == $t and .pid? != null) | select(.rect.x == $x and .deco_rect.y == $y)] | length == 1' \
        >/dev/null
}

pg_wl_start_helper() {
    local exec
    exec=$(sed -n 's/^Exec=//p' "$PG_ROOT/installer/linux/pixelgate-session.desktop")
    [ "$exec" = /usr/lib/pixelgate/pixelgate-session ] || pg_die "unexpected Exec= line: $exec"
    exec=${exec/\/usr\/lib\/pixelgate/$PG_TMP/bin}
    pg_wl_as dbus-run-session -- $exec >"$PG_TMP/helper.log" 2>&1 &
    PG_PIDS+=($!)
}
