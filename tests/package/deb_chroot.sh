#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# deb_chroot.sh - the Debian package in a fresh Debian 12 chroot (debootstrap
# from the machine's Debian mirror; no container runtime needed):
#   apt install ./pixelgate_*.deb; the maintainer scripts make the account, the
#   state directory and the policy's ownership, and start nothing; the broker
#   started the way the packaged unit says (its ExecStart, User, Environment)
#   and the packaged client answer a ping and a snapshot on an Xvfb display;
#   `systemd-analyze verify` passes on the installed unit; the packaged man
#   pages render and show every command (tools/check_man.sh), and pixelgate(1)
#   lists every exit code, 0 through 12; the DEP-5 copyright file, NEWS, the
#   bash, zsh and fish completions, the Xsession.d snippet and the XDG autostart entry
#   that renew the display grant at login are installed (the last two as
#   conffiles); the installed Xsession.d snippet, sourced as Xsession(5) does
#   against an Xvfb with access control, makes `xhost` list SI:localuser:pixelgate;
#   apt remove keeps the policy and the audit log, apt purge removes them.
# Usage: tests/package/deb_chroot.sh [DEB]   (default: scripts/build-deb.sh builds one)
# Cache (PG_CACHE, default /var/cache/pixelgate-build): debootstrap's tarball
# of the base system and the chroot's downloaded .debs, so a second run
# downloads nothing. Needs root, debootstrap, Xvfb, systemd-analyze, man.
set -uo pipefail
exec </dev/null
. "$(dirname "$0")/../integration/lib.sh"
PG_CACHE=${PG_CACHE:-/var/cache/pixelgate-build}
SUITE=bookworm
ARCH=$(dpkg --print-architecture)
TARBALL=$PG_CACHE/debootstrap/$SUITE-minbase-$ARCH.tgz
APT_CACHE=$PG_CACHE/chroot-apt-archives
T0=$(date +%s)
phase() { echo "# $* (+$(($(date +%s) - T0))s)"; }

pg_require_root
pg_require_tools debootstrap Xvfb xdpyinfo systemd-analyze man groff jq dpkg-deb chroot
DEB=${1:-}
if [ -z "$DEB" ]; then
    phase "building the package (scripts/build-deb.sh)"
    DEB=$(bash "$PG_ROOT/scripts/build-deb.sh") || pg_die "the package did not build"
fi
[ -f "$DEB" ] || pg_die "no package at $DEB"

# The mirror the machine itself uses (the first URIs of its Debian sources).
SOURCES=/etc/apt/sources.list.d/debian.sources
MIRROR=$(sed -n 's/^URIs: *//p' "$SOURCES" | head -1)
[ -n "$MIRROR" ] || pg_die "no URIs in $SOURCES"

ROOT=$(mktemp -d /tmp/pixelgate-chroot.XXXXXX)
chmod 0755 "$ROOT" # it becomes the chroot's /
PG_TMP=$(mktemp -d /tmp/pixelgate-test.XXXXXX) # Xvfb's cookie, logs, the extracted man pages
chmod 0755 "$PG_TMP"
MOUNTS=()
cleanup_chroot() {
    [ -n "${BROKER_PID:-}" ] && kill "$BROKER_PID" 2>/dev/null && wait "$BROKER_PID" 2>/dev/null
    local i
    for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do umount -l "${MOUNTS[$i]}" 2>/dev/null; done
    # Only once nothing is mounted below it any more.
    if ! grep -q " $ROOT/" /proc/self/mounts; then rm -rf "$ROOT"; else echo "# left $ROOT (still mounted)"; fi
    pg_cleanup
}
trap cleanup_chroot EXIT
bind() { mkdir -p "$ROOT$2" && mount --bind "$1" "$ROOT$2" && MOUNTS+=("$ROOT$2"); }
in_root() { chroot "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }

# ---- a fresh Debian 12 ----
mkdir -p "$(dirname "$TARBALL")" "$APT_CACHE"
if [ ! -s "$TARBALL" ]; then
    phase "debootstrap --make-tarball from $MIRROR (once; cached in $TARBALL)"
    debootstrap --variant=minbase --make-tarball="$TARBALL.tmp" "$SUITE" "$ROOT.tb" "$MIRROR" >"$ROOT.tb.log" 2>&1 ||
        { tail "$ROOT.tb.log"; rm -rf "$ROOT.tb" "$ROOT.tb.log"; pg_die "debootstrap --make-tarball failed"; }
    mv "$TARBALL.tmp" "$TARBALL"
    rm -rf "$ROOT.tb" "$ROOT.tb.log"
fi
phase "debootstrap $SUITE minbase from the cached tarball"
debootstrap --variant=minbase --unpack-tarball="$TARBALL" "$SUITE" "$ROOT" "$MIRROR" >"$ROOT.log" 2>&1 ||
    { tail "$ROOT.log"; pg_die "debootstrap failed"; }
rm -f "$ROOT.log"
cp "$SOURCES" "$ROOT/etc/apt/sources.list.d/debian.sources"
rm -f "$ROOT/etc/apt/sources.list"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
bind /proc /proc
bind /sys /sys
bind /dev /dev
bind /dev/pts /dev/pts
bind "$APT_CACHE" /var/cache/apt/archives
mount -t tmpfs -o mode=0755 tmpfs "$ROOT/run" && MOUNTS+=("$ROOT/run")
check "the chroot is Debian 12" grep -q '^VERSION_ID="12"' "$ROOT/etc/os-release"

# ---- install ----
# systemd and procps as any Debian 12 machine has them (minbase has neither):
# systemd-analyze verify needs the targets, and the unit's ExecReload /bin/kill.
phase "apt install systemd procps (what a Debian 12 machine has)"
in_root apt-get update -q >/dev/null 2>&1 || pg_die "apt-get update failed in the chroot"
in_root apt-get install -y -q --no-install-recommends systemd procps >"$PG_TMP/apt-base.log" 2>&1 ||
    { tail "$PG_TMP/apt-base.log"; pg_die "apt-get install systemd procps failed in the chroot"; }
phase "apt install ./$(basename "$DEB")"
cp "$DEB" "$ROOT/tmp/"
out=$(in_root apt-get install -y -q --no-install-recommends "/tmp/$(basename "$DEB")" 2>&1)
status=$(in_root dpkg-query -W -f='${Status}' pixelgate 2>&1)
check "apt install of the package succeeds ($status)" test "$status" = "install ok installed"
[ "$status" = "install ok installed" ] || echo "$out" | tail -20
check "both binaries are under /usr" test -x "$ROOT/usr/bin/pixelgate" -a -x "$ROOT/usr/sbin/pixelgated"
check "the maintainer scripts made the pixelgate system account" \
    bash -c "chroot '$ROOT' getent passwd pixelgate | awk -F: '\$3 < 1000 && \$7 == \"/usr/sbin/nologin\"' | grep -q ."
check "the state directory is the broker's alone (0700 pixelgate)" \
    test "$(in_root stat -c '%a %U' /var/lib/pixelgate)" = "700 pixelgate"
check "the policy is a conffile, root:pixelgate 0640" \
    bash -c "test \"\$(chroot '$ROOT' stat -c '%a %U %G' /etc/pixelgate/policy.json)\" = '640 root pixelgate' &&
             grep -qx /etc/pixelgate/policy.json '$ROOT/var/lib/dpkg/info/pixelgate.conffiles'"
check "the unit, sysusers and tmpfiles snippets are installed" \
    test -f "$ROOT/lib/systemd/system/pixelgate.service" -a -f "$ROOT/usr/lib/sysusers.d/pixelgate.conf" \
    -a -f "$ROOT/usr/lib/tmpfiles.d/pixelgate.conf"
check "the socket unit is installed beside the service (socket activation, Type=notify)" \
    bash -c "test -f '$ROOT/lib/systemd/system/pixelgate.socket' && grep -qx Type=notify '$ROOT/lib/systemd/system/pixelgate.service'"
check "pixelgate-session is installed root:pixelgate-session 2755 (the broker's proof of the packaged helper)" \
    test "$(in_root stat -c '%a %U %G' /usr/lib/pixelgate/pixelgate-session)" = "2755 root pixelgate-session"
check "its autostart entry and systemd user unit are installed" \
    test -f "$ROOT/etc/xdg/autostart/pixelgate-session.desktop" -a -f "$ROOT/usr/lib/systemd/user/pixelgate-session.service"
# A broker runs in the chroot when a pixelgated's root directory is the chroot's.
broker_in_root() {
    local p
    for p in $(pgrep -x pixelgated); do [ "$(readlink "/proc/$p/root")" = "$ROOT" ] && return 0; done
    return 1
}
no_broker_in_root() { ! broker_in_root; }
check "nothing started a broker" no_broker_in_root
check "the unit is not enabled (an unconfigured broker stays off)" \
    bash -c "! ls '$ROOT'/etc/systemd/system/*.wants/pixelgate.service >/dev/null 2>&1"
check "man pages and docs are installed" test -f "$ROOT/usr/share/man/man1/pixelgate.1.gz" -a \
    -f "$ROOT/usr/share/man/man8/pixelgated.8.gz" -a -f "$ROOT/usr/share/man/man5/pixelgate-policy.5.gz" -a \
    -f "$ROOT/usr/share/doc/pixelgate/README.Debian" -a -f "$ROOT/usr/share/doc/pixelgate/copyright"

D=$ROOT/usr/share/doc/pixelgate
check "the copyright file is DEP-5, the package's own files MIT" \
    bash -c "head -1 '$D/copyright' | grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' &&
             grep -q '^Files: \*\$' '$D/copyright' && grep -qx 'License: MIT' '$D/copyright' &&
             grep -q 'Permission is hereby granted, free of charge' '$D/copyright'"
check "NEWS is installed" test -f "$D/NEWS.gz" -o -f "$D/NEWS"
check "the bash completion is installed and completes a command" \
    chroot "$ROOT" bash -c '. /usr/share/bash-completion/completions/pixelgate && COMP_WORDS=(pixelgate snap) &&
        COMP_CWORD=1 && _pixelgate && [ "${COMPREPLY[*]}" = snapshot ]'
check "the Xsession.d snippet renews the display grant at login (a conffile)" \
    bash -c "grep -q 'xhost +SI:localuser:pixelgate' '$ROOT/etc/X11/Xsession.d/40pixelgate_xhost' &&
             grep -qx /etc/X11/Xsession.d/40pixelgate_xhost '$ROOT/var/lib/dpkg/info/pixelgate.conffiles'"
check "the XDG autostart entry does the same (a conffile)" \
    bash -c "grep -qx 'Exec=xhost +SI:localuser:pixelgate' '$ROOT/etc/xdg/autostart/pixelgate-xhost.desktop' &&
             grep -qx /etc/xdg/autostart/pixelgate-xhost.desktop '$ROOT/var/lib/dpkg/info/pixelgate.conffiles'"
check "README.Debian says how to turn both off" \
    bash -c "grep -q 'Display access at login' '$D/README.Debian' && grep -q 'Hidden=true' '$D/README.Debian'"
check "the zsh completion is installed where zsh looks (vendor-completions), as a #compdef file" \
    bash -c "head -1 '$ROOT/usr/share/zsh/vendor-completions/_pixelgate' | grep -qx '#compdef pixelgate' &&
             grep -q 'snapshot' '$ROOT/usr/share/zsh/vendor-completions/_pixelgate'"
check "the fish completion is installed where fish looks (vendor_completions.d)" \
    grep -q "^complete -c pixelgate -n __pixelgate_none -f -a 'snapshot'" \
    "$ROOT/usr/share/fish/vendor_completions.d/pixelgate.fish"

# The installed snippet, run the way Xsession(5) runs it (sourced by sh with
# set -e), with the host's xhost against a host Xvfb that keeps its access
# control (no -ac; -noreset so the list outlives each xhost). The X server
# resolves SI:localuser names with the host's accounts: the host needs a
# pixelgate account (the package's is in the chroot); as root the test makes
# a system one if it is missing, as the package does, and leaves it.
phase "the installed Xsession.d snippet against an Xvfb"
if ! getent passwd pixelgate >/dev/null; then
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin pixelgate ||
        pg_die "cannot make the host account pixelgate"
    echo "# made the host system account pixelgate (as the package's postinst does); it stays"
fi
exec 5>"$PG_TMP/xsession-display"
Xvfb -displayfd 5 -screen 0 320x240x24 -nolisten tcp -noreset >"$PG_TMP/xsession-xvfb.log" 2>&1 &
PG_PIDS+=($!)
exec 5>&-
for _ in $(seq 200); do [ -s "$PG_TMP/xsession-display" ] && break; sleep 0.05; done
XS_DISPLAY=:$(head -1 "$PG_TMP/xsession-display")
for _ in $(seq 100); do DISPLAY=$XS_DISPLAY xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
before=$(DISPLAY=$XS_DISPLAY xhost 2>&1)
check "the Xvfb keeps access control and has no grant yet" \
    bash -c 'grep -q "access control enabled" <<<"$1" && ! grep -q "SI:localuser:pixelgate" <<<"$1"' _ "$before"
DISPLAY=$XS_DISPLAY sh -ec ". '$ROOT/etc/X11/Xsession.d/40pixelgate_xhost'; echo sourced" >"$PG_TMP/xsession.out" 2>&1
check "the installed snippet, sourced under set -e, returns" grep -qx sourced "$PG_TMP/xsession.out"
after=$(DISPLAY=$XS_DISPLAY xhost 2>&1)
check "...and xhost then lists SI:localuser:pixelgate" grep -qx 'SI:localuser:pixelgate' <<<"$after"
grep -qx 'SI:localuser:pixelgate' <<<"$after" || echo "# xhost: $after"

# ---- the installed unit, checked by systemd ----
out=$(systemd-analyze verify --root="$ROOT" --man=no /lib/systemd/system/pixelgate.service 2>&1)
check "systemd-analyze verify passes on the installed unit" test -z "$out"
[ -z "$out" ] || echo "$out" | sed 's/^/#   /'
MAN=$PG_TMP/man
mkdir -p "$MAN"
for f in pixelgate.1 pixelgated.8 pixelgate-policy.5; do
    gzip -dc "$ROOT/usr/share/man/man${f##*.}/$f.gz" >"$MAN/$f"
done
check "the packaged man pages render and show every command, option and policy key" \
    bash "$PG_ROOT/tools/check_man.sh" "$MAN" "$ROOT/usr/bin/pixelgate" "$ROOT/usr/sbin/pixelgated" "$PG_ROOT/docs/policy.md"
# EXIT STATUS of the installed pixelgate(1), as zcat shows it: one .B line per code, 0 to 12,
# each followed by its name (the table of common/pg_error.c the page is generated from).
EXIT_SECTION=$(zcat "$ROOT/usr/share/man/man1/pixelgate.1.gz" | sed -n '/^\.SH "EXIT STATUS"/,/^\.SH /p')
missing_codes=()
for n in $(seq 0 12); do
    grep -qx "\.B $n" <<<"$EXIT_SECTION" || missing_codes+=("$n")
done
check "the installed pixelgate(1) lists exit codes 0 through 12 (missing: ${missing_codes[*]:-none})" \
    [ ${#missing_codes[@]} = 0 ]
check "...with their names, BLOCKED, NEEDS_APPROVAL and BUSY among them" \
    bash -c 'for w in OK BROKER_UNREACHABLE BLOCKED NEEDS_APPROVAL BUSY; do grep -q "fB$w\\\\fR" <<<"$1" || exit 1; done' _ "$EXIT_SECTION"

# ---- the packaged broker and client, as the unit runs them ----
phase "broker and client from the package"
UNIT=$ROOT/lib/systemd/system/pixelgate.service
EXECSTART=$(sed -n 's/^ExecStart=//p' "$UNIT")
UNIT_USER=$(sed -n 's/^User=//p' "$UNIT")
mapfile -t UNIT_ENV < <(sed -n 's/^Environment=//p' "$UNIT" | grep -v '^DISPLAY=')
# An X server without access control (-ac): the chroot's uids mean nothing to
# the host's X server, so xhost +SI:localuser cannot name them. Test only.
for n in $(seq 150 199); do [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] || break; done
PG_DISPLAY=:$n
Xvfb "$PG_DISPLAY" -ac -screen 0 1280x800x24 -nolisten tcp >"$PG_TMP/xvfb.log" 2>&1 &
PG_PIDS+=($!)
for _ in $(seq 100); do DISPLAY=$PG_DISPLAY xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
DISPLAY=$PG_DISPLAY xdpyinfo >/dev/null 2>&1 || pg_die "Xvfb did not start: $(cat "$PG_TMP/xvfb.log")"
bind /tmp/.X11-unix /tmp/.X11-unix
in_root useradd --create-home pgtester
jq '.clients.users = ["pgtester"]' "$ROOT/etc/pixelgate/policy.json" >"$ROOT/etc/pixelgate/policy.json.new" &&
    cat "$ROOT/etc/pixelgate/policy.json.new" >"$ROOT/etc/pixelgate/policy.json" && rm "$ROOT/etc/pixelgate/policy.json.new"
install -d -o "$(chroot "$ROOT" id -u pixelgate)" -g "$(chroot "$ROOT" id -g pixelgate)" -m 0755 "$ROOT/run/pixelgate" # RuntimeDirectory=
# shellcheck disable=SC2086 # ExecStart is split into words, as systemd does
chroot "$ROOT" runuser -u "$UNIT_USER" -- env -i PATH=/usr/bin:/bin "${UNIT_ENV[@]}" DISPLAY="$PG_DISPLAY" \
    $EXECSTART 2>"$PG_TMP/chroot-broker.log" &
BROKER_PID=$!
for _ in $(seq 100); do [ -S "$ROOT/run/pixelgate/broker.sock" ] && break; sleep 0.1; done
check "the packaged broker listens on the unit's socket" test -S "$ROOT/run/pixelgate/broker.sock"
out=$(in_root runuser -u pgtester -- pixelgate ping 2>&1)
check "the packaged client's ping answers, as pgtester" test "$(jq -r .peer.user <<<"$out" 2>/dev/null)" = pgtester
[ "$(jq -r .pong <<<"$out" 2>/dev/null)" = true ] || echo "# ping: $out; broker: $(tail -5 "$PG_TMP/chroot-broker.log")"
out=$(in_root runuser -u pgtester -- pixelgate snapshot --screen 2>&1)
check "a snapshot of the screen gives a token" grep -qE '^cap:' <<<"$(jq -r .token <<<"$out" 2>/dev/null)"
[ "$(jq -r .width <<<"$out" 2>/dev/null)" = 1280 ] || echo "# snapshot: $out"
kill "$BROKER_PID" 2>/dev/null
wait "$BROKER_PID" 2>/dev/null
BROKER_PID=
check "the snapshot is in the packaged audit log" grep -q '"op":"snapshot"' "$ROOT/var/lib/pixelgate/audit.jsonl"

# ---- remove keeps what the administrator made; purge does not ----
phase "apt remove, apt purge"
in_root apt-get remove -y -q pixelgate >/dev/null 2>&1
check "apt remove removes the binaries" test ! -e "$ROOT/usr/sbin/pixelgated" -a ! -e "$ROOT/usr/bin/pixelgate"
check "...and keeps the policy, with the administrator's change" grep -q pgtester "$ROOT/etc/pixelgate/policy.json"
check "...and keeps the audit log" test -s "$ROOT/var/lib/pixelgate/audit.jsonl"
in_root apt-get purge -y -q pixelgate >/dev/null 2>&1
check "apt purge removes the policy" test ! -e "$ROOT/etc/pixelgate/policy.json"
check "...and the state directory with the audit log" test ! -e "$ROOT/var/lib/pixelgate"
check "...and the policy's stat override" bash -c "! chroot '$ROOT' dpkg-statoverride --list | grep -q pixelgate"
check "the package is gone from dpkg" bash -c "! chroot '$ROOT' dpkg-query -W pixelgate >/dev/null 2>&1"
phase "done"
pg_summary
