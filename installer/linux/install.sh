#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# install.sh - install the broker's account, state dir, systemd unit and, when there is none
# yet, the shipped policy (run as root after `cmake --install`). Idempotent.
#
# The policy goes to /etc/pixelgate/policy.json as 0640 root:pixelgate: the broker (group
# pixelgate) reads it, agents do not (its deny patterns, approver names and endpoint URLs are
# the administrator's business), and only root can change it, which is what the broker checks
# (not writable by group or others). An existing policy is never replaced.
#
# DESTDIR=DIR installs the files under DIR only (staging, packaging): no account is created
# and nothing is started; the policy's group is set when the group pixelgate exists here.
#
# PREFIX is the one given to `cmake --install` (default /usr/local): the unit names the
# packaged path /usr/sbin/pixelgated and is rewritten for it. The Debian package (debian/,
# scripts/build-deb.sh) does all of this itself.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=${DESTDIR:-}
[ "$(id -u)" = 0 ] || { echo "install.sh: run as root" >&2; exit 2; }
install -D -m 0644 "$here/pixelgate.sysusers" "$root/usr/lib/sysusers.d/pixelgate.conf"
install -D -m 0644 "$here/pixelgate.tmpfiles" "$root/usr/lib/tmpfiles.d/pixelgate.conf"
PREFIX=${PREFIX:-/usr/local}
install -d -m 0755 "$root/etc/systemd/system"
sed "s|/usr/sbin/pixelgated|$PREFIX/sbin/pixelgated|" "$here/pixelgate.service" >"$root/etc/systemd/system/pixelgate.service"
chmod 0644 "$root/etc/systemd/system/pixelgate.service"
if [ -z "$root" ]; then
    if command -v systemd-sysusers >/dev/null; then systemd-sysusers pixelgate.conf
    else id pixelgate >/dev/null 2>&1 || useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin pixelgate; fi
    if command -v systemd-tmpfiles >/dev/null; then systemd-tmpfiles --create pixelgate.conf
    else install -d -m 0700 -o pixelgate -g pixelgate /var/lib/pixelgate; fi
fi

policy=$root/etc/pixelgate/policy.json
install -d -m 0755 -o root -g root "$root/etc/pixelgate"
if [ -e "$policy" ] || [ -L "$policy" ]; then
    echo "kept the existing policy $policy (not replaced)"
    mode=$(stat -c '%a %U:%G' "$policy")
    [ "$mode" = "640 root:pixelgate" ] ||
        echo "  it is $mode; the shipped default is 640 root:pixelgate (chgrp pixelgate $policy; chmod 0640 $policy)"
elif getent group pixelgate >/dev/null; then
    install -m 0640 -o root -g pixelgate "$here/policy.json" "$policy"
    echo "installed the default policy $policy (0640 root:pixelgate); list your agents in \"clients\""
else
    install -m 0600 -o root -g root "$here/policy.json" "$policy"
    echo "installed the default policy $policy as 0600 root:root: no group pixelgate here;" \
        "once the account exists: chgrp pixelgate $policy; chmod 0640 $policy" >&2
fi

if [ -n "$root" ]; then
    echo "staged under $root (no account created, nothing started)"
elif [ -d /run/systemd/system ]; then
    systemctl daemon-reload
    echo "installed; start with: systemctl enable --now pixelgate"
else
    echo "installed (no systemd running: start pixelgated by hand as user pixelgate)"
fi
echo "then, as the desktop user: xhost +SI:localuser:pixelgate"
