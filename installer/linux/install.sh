#!/usr/bin/env bash
# install.sh - install the broker's account, state dir and systemd unit (run as root after
# `cmake --install`). Idempotent.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "install.sh: run as root" >&2; exit 2; }
install -D -m 0644 "$here/pixelgate.sysusers" /usr/lib/sysusers.d/pixelgate.conf
install -D -m 0644 "$here/pixelgate.tmpfiles" /usr/lib/tmpfiles.d/pixelgate.conf
install -D -m 0644 "$here/pixelgate.service" /etc/systemd/system/pixelgate.service
if command -v systemd-sysusers >/dev/null; then systemd-sysusers pixelgate.conf
else id pixelgate >/dev/null 2>&1 || useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin pixelgate; fi
if command -v systemd-tmpfiles >/dev/null; then systemd-tmpfiles --create pixelgate.conf
else install -d -m 0700 -o pixelgate -g pixelgate /var/lib/pixelgate; fi
if [ -d /run/systemd/system ]; then
    systemctl daemon-reload
    echo "installed; start with: systemctl enable --now pixelgate"
else
    echo "installed (no systemd running: start pixelgated by hand as user pixelgate)"
fi
echo "then, as the desktop user: xhost +SI:localuser:pixelgate"
