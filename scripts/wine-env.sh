# SPDX-License-Identifier: MIT
# wine-env.sh - SOURCE this (bash) to run Windows test executables under Wine
# on a headless machine:   . scripts/wine-env.sh && pg_wine_up
#
# Contract:
#   - Exports WINEPREFIX (a 64-bit prefix under ${PG_CACHE:-/var/cache/
#     pixelgate-build}, one per uid: Wine refuses a prefix another user owns),
#     WINEARCH=win64, WINEDEBUG=-all, WINEDLLOVERRIDES (no Mono/Gecko install
#     prompts, no menu entries written into $HOME).
#   - pg_wine_up: uses $DISPLAY if its X socket exists, else starts Xvfb on a
#     free display (-displayfd) and remembers its pid; creates the prefix once
#     (wineboot -i, wineserver -w, crash dialogs off, X11 "Managed"=N since
#     Xvfb has no window manager); stops a wineserver left running for the
#     prefix by a killed run (it would keep that run's DISPLAY for services
#     it starts); then starts a persistent wineserver and
#     Wine's background services with their output in files, so that a later
#     `ctest` never shares its output pipes with a long-lived Wine process.
#     Installs `trap pg_wine_down EXIT` unless PG_WINE_NO_TRAP=1.
#   - pg_wine_down: wineserver -k, wineserver -w, then kills OUR Xvfb by pid.
#   - Every Wine command's stdout/stderr goes to $PG_WINE_LOGS, never a pipe.
#   - Holds an flock on $WINEPREFIX.lock (fd 8) from pg_wine_up to
#     pg_wine_down, so concurrent runs of one user take turns.
# Never: touches ~/.wine, kills processes it did not start, prompts.

PG_WINE_TIMEOUT=${PG_WINE_TIMEOUT:-300} # seconds, for wineboot and friends

pg_wine_cache_dir() {
    if [ -n "${PG_CACHE:-}" ]; then echo "$PG_CACHE"; return; fi
    local sys=/var/cache/pixelgate-build
    if mkdir -p "$sys" 2>/dev/null && [ -w "$sys" ]; then echo "$sys"; return; fi
    echo "${XDG_CACHE_HOME:-$HOME/.cache}/pixelgate-build"
}

pg_wine_log() { printf 'wine-env: %s\n' "$*" >&2; }

# The 64-bit loader and wineserver as Debian 12 installs them.
pg_wine_find_tools() {
    PG_WINE=$(command -v /usr/lib/wine/wine64 wine64 wine 2>/dev/null | head -n1)
    PG_WINESERVER=$(command -v /usr/lib/wine/wineserver64 wineserver 2>/dev/null | head -n1)
    if [ -z "$PG_WINE" ] || [ -z "$PG_WINESERVER" ]; then
        pg_wine_log "wine64/wineserver not found (scripts/mingw-deps.sh installs them)"
        return 1
    fi
    export PG_WINE PG_WINESERVER
}

# Runs a Wine command with output to $PG_WINE_LOGS/NAME.log, bounded in time.
pg_wine_run() {
    local name=$1
    shift
    timeout "$PG_WINE_TIMEOUT" "$@" >>"$PG_WINE_LOGS/$name.log" 2>&1 </dev/null 8>&-
}

pg_wine_env() {
    : "${HOME:=$(getent passwd "$(id -u)" | cut -d: -f6)}"
    export HOME
    local cache
    cache=$(pg_wine_cache_dir)
    mkdir -p "$cache"
    export WINEPREFIX=${PG_WINEPREFIX:-$cache/wineprefix-win64-uid$(id -u)}
    export WINEARCH=win64 WINEDEBUG=-all
    export WINEDLLOVERRIDES=${WINEDLLOVERRIDES:-mscoree,mshtml=;winemenubuilder.exe=d}
    PG_WINE_LOGS=$cache/logs/wine-uid$(id -u)
    export PG_WINE_LOGS
    mkdir -p "$PG_WINE_LOGS"
    if [ -e "$WINEPREFIX" ] && [ "$(stat -c %u "$WINEPREFIX")" != "$(id -u)" ]; then
        pg_wine_log "$WINEPREFIX is owned by uid $(stat -c %u "$WINEPREFIX"), not $(id -u); set PG_WINEPREFIX"
        return 1
    fi
}

# Starts Xvfb on a free display unless $DISPLAY already names a live server.
pg_wine_display() {
    local n=${DISPLAY:-}
    n=${n#*:}
    n=${n%%.*}
    if [ -n "${DISPLAY:-}" ] && [ -S "/tmp/.X11-unix/X$n" ]; then return 0; fi
    local fdfile=$PG_WINE_LOGS/xvfb.display
    : >"$fdfile"
    Xvfb -displayfd 3 -nolisten tcp -screen 0 1280x800x24 3>"$fdfile" >"$PG_WINE_LOGS/xvfb.log" 2>&1 </dev/null 8>&- &
    PG_XVFB_PID=$!
    local _
    for _ in $(seq 100); do
        [ -s "$fdfile" ] && break
        kill -0 "$PG_XVFB_PID" 2>/dev/null || { pg_wine_log "Xvfb failed: $(tail -n 5 "$PG_WINE_LOGS/xvfb.log")"; return 1; }
        sleep 0.1
    done
    [ -s "$fdfile" ] || { pg_wine_log "Xvfb did not report a display"; return 1; }
    DISPLAY=:$(head -n1 "$fdfile")
    export DISPLAY
    export PG_XVFB_PID
}

# Creates the prefix once: wineboot -i, wait, registry settings.
pg_wine_prefix() {
    [ -f "$WINEPREFIX/.pg-ready" ] && return 0
    pg_wine_log "creating Wine prefix $WINEPREFIX (once; ~15 s)"
    # A half-made prefix of ours is redone; a PG_WINEPREFIX given is never deleted.
    [ -n "${PG_WINEPREFIX:-}" ] || rm -rf "$WINEPREFIX"
    mkdir -p "$WINEPREFIX"
    pg_wine_run wineboot "$PG_WINE" wineboot -i || { pg_wine_log "wineboot -i failed (see $PG_WINE_LOGS/wineboot.log)"; return 1; }
    pg_wine_run wineboot "$PG_WINESERVER" -w
    if ! pg_wine_run reg "$PG_WINE" reg add 'HKCU\Software\Wine\WineDbg' /v ShowCrashDialog /t REG_DWORD /d 0 /f ||
        ! pg_wine_run reg "$PG_WINE" reg add 'HKCU\Software\Wine\X11 Driver' /v Managed /t REG_SZ /d N /f; then
        pg_wine_log "reg add failed (see $PG_WINE_LOGS/reg.log)"
        return 1
    fi
    pg_wine_run reg "$PG_WINESERVER" -w
    touch "$WINEPREFIX/.pg-ready"
}

# A persistent wineserver plus the services a first Wine process starts
# (services.exe, plugplay, ...), all with output in files.
pg_wine_services() {
    pg_wine_run wineserver "$PG_WINESERVER" -p || true # returns once the server is up
    pg_wine_run services "$PG_WINE" cmd /c exit 0 || { pg_wine_log "wine cannot run cmd (see $PG_WINE_LOGS/services.log)"; return 1; }
}

# One user of the prefix at a time: pg_wine_down kills every process in it.
# The lock is fd 8 of the sourcing shell, held until it exits.
pg_wine_lock() {
    exec 8>"$WINEPREFIX.lock"
    flock -w "$PG_WINE_TIMEOUT" 8 || { pg_wine_log "another run holds $WINEPREFIX.lock"; return 1; }
    rm -f "$PG_WINE_LOGS"/*.log
}

pg_wine_up() {
    pg_wine_find_tools && pg_wine_env && pg_wine_lock || return 1
    if [ "${PG_WINE_NO_TRAP:-0}" != 1 ]; then
        trap pg_wine_down EXIT
        trap 'exit 130' INT TERM
    fi
    # We hold the prefix lock, so a wineserver still running for this prefix is
    # a leftover of a killed run: its services (services.exe and the Windows
    # services it starts) would keep that run's DISPLAY. Stop it first.
    pg_wine_run wineserver "$PG_WINESERVER" -k || true
    pg_wine_run wineserver "$PG_WINESERVER" -w || true
    pg_wine_display && pg_wine_prefix && pg_wine_services || return 1
    pg_wine_log "ready: WINEPREFIX=$WINEPREFIX DISPLAY=$DISPLAY"
}

pg_wine_down() {
    if [ -n "${PG_WINESERVER:-}" ] && [ -n "${WINEPREFIX:-}" ]; then
        timeout 30 "$PG_WINESERVER" -k >>"$PG_WINE_LOGS/wineserver.log" 2>&1 </dev/null 8>&- || true
        timeout 30 "$PG_WINESERVER" -w >>"$PG_WINE_LOGS/wineserver.log" 2>&1 </dev/null 8>&- || true
    fi
    if [ -n "${PG_XVFB_PID:-}" ]; then
        kill "$PG_XVFB_PID" 2>/dev/null || true
        wait "$PG_XVFB_PID" 2>/dev/null || true
        unset PG_XVFB_PID
    fi
    exec 8>&- # release the prefix lock
}
