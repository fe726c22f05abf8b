#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# deps.sh - install what pixelgate needs to build, test and demo on Debian 12.
# Idempotent: runs apt-get only for packages that are missing. Needs root.
# The Windows cross-build has its own list (scripts/mingw-deps.sh).
set -euo pipefail
exec </dev/null

PKGS=(
  # toolchain
  build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev valgrind
  # libraries
  libcjson-dev libpng-dev libjpeg-dev libwebp-dev libssl-dev libcurl4-openssl-dev
  libtesseract-dev tesseract-ocr-eng libutf8proc-dev libdeflate-dev
  # OCR language data: Latin script (every Latin-alphabet language; the policy's default) and a few
  tesseract-ocr-script-latn tesseract-ocr-deu tesseract-ocr-fra tesseract-ocr-spa
  libxcb1-dev libxcb-shm0-dev libxcb-xtest0-dev libxcb-composite0-dev libxcb-res0-dev
  libxcb-damage0-dev libxcb-xfixes0-dev libxcb-randr0-dev libxcb-shape0-dev libxkbcommon-x11-dev libxkbcommon-dev
  libx11-dev libx11-xcb-dev
  # XInput 2.2 raw events: the person's own keys and mouse told from injected ones (x11_person.c)
  libxcb-xinput-dev
  # the session helper's wlroots backend: libwayland and wayland-scanner
  libwayland-dev libwayland-bin
  # readiness, socket activation and logind (pixelgated); logind mocked in tests
  libsystemd-dev python3-dbusmock
  # the zsh and fish completions are checked in their shells (unit.completion_zsh, _fish)
  zsh fish
  # the desktop the tests and the demo drive
  xvfb xauth x11-utils x11-xserver-utils x11-apps tk openbox fonts-dejavu-core
  # test and bench tools
  jq curl iproute2 desktop-file-utils python3 python3-opencv python3-skimage imagemagick hyperfine procps passwd util-linux
  # a real SSH login on loopback for the remote-client checks (tests/security/security.sh)
  openssh-server openssh-client
  # man pages (unit.man_pages renders them), the systemd unit's checks and sandbox
  # (systemd-analyze, a real systemd-journald, libseccomp for tests/systemd/pg_unit_exec)
  man-db groff-base systemd libseccomp-dev
  # the Debian package and its chroot test (scripts/build-deb.sh, tests/package/deb_chroot.sh)
  dpkg-dev debhelper lintian debootstrap
  tesseract-ocr
  # the labelled layout/OCR set (bench/ocr_testset.sh): a GTK 3 form, held-out Tk themes and fonts
  python3-gi gir1.2-gtk-3.0 tcl-awthemes fonts-dejavu-extra fonts-urw-base35
  # pixelgate-session started as a login would (dbus-run-session), and traced to be refused
  dbus-daemon dbus-bin strace
  # a wlroots Wayland session, headless (tests/integration/wayland_sway.sh); grim is bench/'s anchor
  sway grim
  # the person's keyboard and mouse in tests (a nested Xephyr; xinput tampers with it, xdotool is the hand;
  # unit.test_x11_person and tests/integration/person_xephyr.sh)
  xserver-xephyr xinput xdotool
  # the offline HTML report, opened in a headless browser (tests/integration/accept_tk.sh)
  chromium
)

if [ "$(id -u)" != 0 ]; then
    echo "deps.sh: needs root to install packages (run: sudo bash scripts/deps.sh)" >&2
    exit 2
fi
missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node and npm (oracle tests, bench): the machine image ships them; Debian's
# packages only when they are absent (Debian's npm conflicts with other nodes).
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
    echo "deps.sh: installing ${missing[*]}" >&2
    apt-get update -q >&2
    # Installed packages start no services (openssh-server would start an sshd
    # on port 22): the tests start what they need, on loopback, themselves.
    prc=/usr/sbin/policy-rc.d made_prc=
    if [ ! -e "$prc" ]; then printf '#!/bin/sh\nexit 101\n' >"$prc" && chmod 0755 "$prc" && made_prc=1; fi
    rc=0
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 || rc=$?
    [ -z "$made_prc" ] || rm -f "$prc"
    [ "$rc" = 0 ] || exit "$rc"
fi

# The client links statically (cmake/PgStaticClient.cmake says why), and
# Debian ships cJSON only as a shared library: build the static one from
# Debian's source package. Cached: a rerun takes a second, without the network.
bash "$(dirname "$0")/static-deps.sh" >/dev/null
