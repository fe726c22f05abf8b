#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# installer_test.sh - builds the NSIS installer (installer/windows/pixelgate.nsi) from a mingw
# build and checks, under Wine, its silent install, reinstall over an admin's policy, a failed
# broker install, uninstall (audit log and policy kept) and uninstall /PURGE; and that the
# install directory is on the system Path exactly while pixelgate is installed: a new
# `cmd.exe /c pixelgate --version` finds it, docs/mcp.md's registration (command `pixelgate`,
# arguments `mcp`) answers an MCP initialize from cmd.exe, and after uninstall neither is found.
#
# Usage: tests/windows/installer_test.sh [BUILD_DIR]     (default build/mingw)
#   BUILD_DIR must hold broker/pixelgated.exe and client/pixelgate.exe (cmake --preset mingw).
# Needs: makensis (nsis), wine64, Xvfb, x86_64-w64-mingw32-gcc: scripts/mingw-deps.sh installs
# them all. Missing tools or binaries fail the test; nothing is skipped.
# Wine prefix: $PG_WINEPREFIX if set, else a prefix of its own (installer-uid<N> in the cache
# dir), since the test registers a service that would otherwise start in the shared prefix.
# Output: one "ok - ..." / "not ok - ..." line per check, then "N passed, N failed"; exit 1 if
# any check failed. The installer's own logs are kept in the printed work dir on failure.
set -euo pipefail
exec </dev/null

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${1:-$ROOT/build/mingw}

die() { echo "FATAL: $*" >&2; exit 1; }

[ -d "$BUILD" ] || die "build dir $BUILD does not exist (cmake --preset mingw && cmake --build --preset mingw)"
BUILD=$(cd "$BUILD" && pwd)
BROKER=$BUILD/broker/pixelgated.exe
CLIENT=$BUILD/client/pixelgate.exe
command -v makensis >/dev/null || die "makensis not found: run scripts/mingw-deps.sh (it installs nsis)"
command -v x86_64-w64-mingw32-gcc >/dev/null || die "x86_64-w64-mingw32-gcc not found: run scripts/mingw-deps.sh"
[ -f "$BROKER" ] || die "$BROKER not found: build it (cmake --build $BUILD)"
[ -f "$CLIENT" ] || die "$CLIENT not found: build it (cmake --build $BUILD)"
VERSION=$(sed -n 's/^project(pixelgate VERSION \([0-9.]*\).*/\1/p' "$ROOT/CMakeLists.txt")
[ -n "$VERSION" ] || die "no project VERSION in $ROOT/CMakeLists.txt"

WORK=$(mktemp -d /tmp/pixelgate-installer.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
PASS=0
FAIL=0
ok() { PASS=$((PASS + 1)); echo "ok - $*"; }
not_ok() { FAIL=$((FAIL + 1)); echo "not ok - $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }

# ---- build: the real installer, and one whose broker always fails `install` ----
NSI=$ROOT/installer/windows/pixelgate.nsi
# The real installer is the build's own target; only the failing double below is made by hand.
cmake --build "$BUILD" --target installer >"$WORK/makensis.log" 2>&1 </dev/null ||
    { cat "$WORK/makensis.log" >&2; die "cmake --build $BUILD --target installer failed"; }
cp "$BUILD/pixelgate-setup.exe" "$WORK/pixelgate-setup.exe"
mkdir -p "$WORK/failing"
cat >"$WORK/failing/fail.c" <<'EOF'
/* A broker whose install fails (exit 9, PG_E_INTERNAL), standing in for any install failure. */
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "uninstall") == 0) return 0;
    fprintf(stderr, "test broker: install fails on purpose\n");
    return 9;
}
EOF
x86_64-w64-mingw32-gcc -O2 -static -o "$WORK/failing/pixelgated.exe" "$WORK/failing/fail.c" ||
    die "cannot build the failing test broker"
makensis -V2 -DBROKER_EXE="$WORK/failing/pixelgated.exe" -DCLIENT_EXE="$CLIENT" \
    -DWINPATH_EXE="$BUILD/installer/pg_winpath.exe" \
    -DOUTFILE="$WORK/pixelgate-setup-failing.exe" -DVERSION="$VERSION" "$NSI" \
    >"$WORK/makensis-failing.log" 2>&1 </dev/null || { cat "$WORK/makensis-failing.log" >&2; die "makensis (failing broker) failed"; }
ok "cmake --build --target installer built pixelgate-setup.exe ($VERSION) from $BUILD"

# ---- Wine ----
# shellcheck source-path=SCRIPTDIR/../.. source=scripts/wine-env.sh
. "$ROOT/scripts/wine-env.sh"
if [ -z "${PG_WINEPREFIX:-}" ]; then
    PG_WINEPREFIX=$(pg_wine_cache_dir)/wineprefix-installer-uid$(id -u)
    export PG_WINEPREFIX
fi
# On failure the installer's own logs are shown (CI keeps no /tmp) and the work dir is kept.
cleanup() {
    local rc=$? f
    pg_wine_down
    if [ "$FAIL" = 0 ] && [ "$rc" = 0 ]; then rm -rf "$WORK"; return; fi
    for f in "$WORK"/*-pixelgate-*.log; do
        [ -f "$f" ] || continue
        echo "# --- $(basename "$f")" >&2
        sed 's/^/# /' "$f" >&2
    done
    echo "# work dir kept: $WORK" >&2
}
export PG_WINE_NO_TRAP=1
# An Xvfb pid inherited from a caller's wine-env.sh is not ours to kill in pg_wine_down.
unset PG_XVFB_PID
trap cleanup EXIT
trap 'exit 130' INT TERM
pg_wine_up || die "Wine did not come up (logs: ${PG_WINE_LOGS:-?})"

C=$WINEPREFIX/drive_c
INSTDIR_WIN='C:\Program Files\pixelgate'
PF=$C/Program\ Files/pixelgate
PD=$C/ProgramData/pixelgate
SVC_KEY='HKLM\System\CurrentControlSet\Services\pixelgate'
ARP_KEY='HKLM\Software\Microsoft\Windows\CurrentVersion\Uninstall\pixelgate'
STEP=0

# wrun NAME WINE-ARGS...: runs a Windows program, waits for it, output in $WORK/NAME.out.
wrun() {
    local name=$1
    shift
    timeout "$PG_WINE_TIMEOUT" "$PG_WINE" "$@" >"$WORK/$name.out" 2>&1 </dev/null 8>&-
}
# key_exists NAME KEY: `reg query` succeeds and names the key.
key_exists() {
    wrun "$1" reg query "$2" && grep -qiF "${2#HKLM\\}" "$WORK/$1.out"
}
key_absent() { ! wrun "$1" reg query "$2"; }
# Waits up to 15 s for a key to go (the SCM may delete a service's key after the call returns).
key_gone() {
    local _
    for _ in $(seq 30); do key_absent "$1" "$2" && return 0; sleep 0.5; done
    return 1
}
# The installer's and uninstaller's own logs (UTF-16 in the admin's %TEMP%), kept per step.
# shellcheck disable=SC2317
save_logs() {
    local f
    while IFS= read -r -d '' f; do
        iconv -f UTF-16 -t UTF-8 "$f" >"$WORK/$1-$(basename "$f")" 2>/dev/null || cp "$f" "$WORK/$1-$(basename "$f")"
        rm -f "$f"
    done < <(find "$C/users" -maxdepth 4 -name 'pixelgate-*.log' -print0 2>/dev/null)
}
# run_setup NAME EXE ARGS...: sets RC to the exit code.
run_setup() {
    local name=$1
    shift
    STEP=$((STEP + 1))
    RC=0
    wrun "$STEP-$name" "$@" || RC=$?
    save_logs "$STEP-$name"
}
# An NSIS uninstaller started plainly copies itself to %TEMP% and returns at once. With
# `_?=DIR` it runs in place and we can wait for it; NSIS wants DIR unquoted even with spaces,
# and Wine quotes an argv word that holds a space but joins words with one space: so DIR is
# passed split at its spaces.
run_uninstall() {
    local name=$1 w
    shift
    read -ra w <<<"_?=$INSTDIR_WIN"
    run_setup "$name" "$PF/uninstall.exe" /S "$@" "${w[@]}"
}
# What _?= leaves behind: the uninstaller itself.
drop_uninstaller() { rm -f "$PF/uninstall.exe"; rmdir "$PF" 2>/dev/null || true; }

# The system Path, as the registry holds it (in $WORK/NAME.out).
ENV_KEY='HKLM\System\CurrentControlSet\Control\Session Manager\Environment'
path_query() { wrun "$1" reg query "$ENV_KEY" /v Path; }
# How many entries of the system Path are the install directory (any case, trailing \ or not).
path_count() {
    path_query "$1" || { echo -1; return; }
    sed -n 's/^ *Path *REG_[A-Z_]*SZ *//Ip' "$WORK/$1.out" | tr -d '\r' | tr ';' '\n' |
        sed 's:\\*$::' | grep -ciFx "$INSTDIR_WIN"
}
# A fresh cmd.exe (Wine builds its environment from the registry): runs CMDLINE, stdin from
# FILE (or nothing), output in $WORK/NAME.out; the exit code in RC.
fresh_cmd() {
    local name=$1 in=$2
    shift 2
    RC=0
    timeout "$PG_WINE_TIMEOUT" "$PG_WINE" cmd.exe /c "$@" <"$in" >"$WORK/$name.out" 2>&1 8>&- || RC=$?
}
MCP_INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"installer_test","version":"1"}}}'
printf '%s\n' "$MCP_INIT" >"$WORK/mcp-init.jsonl"

service_state() {
    wrun sc-query sc query pixelgate || true
    sed -n 's/^ *STATE *: *[0-9]* *\([A-Z_]*\).*/\1/p' "$WORK/sc-query.out" | head -n1
}

# ---- a clean prefix: no pixelgate left over from an earlier run ----
if [ -f "$PF/pixelgated.exe" ]; then wrun pre-uninstall "$PF/pixelgated.exe" uninstall || true; fi
wrun pre-sc-delete sc delete pixelgate || true
wrun pre-reg-delete reg delete "$ARP_KEY" /f || true
wrun pre-path "$BUILD/installer/pg_winpath.exe" remove "$INSTDIR_WIN" || true # an earlier run's entry
rm -rf "$PF" "$PD"
save_logs 0-pre

# ---- 1. fresh install ----
run_setup install "$WORK/pixelgate-setup.exe" /S
check "silent install exits 0 (got $RC)" [ "$RC" = 0 ]
for f in pixelgated.exe pixelgate.exe uninstall.exe policy.default.json LICENSE.txt docs/policy.md docs/windows.md tessdata/eng.traineddata; do
    check "installed Program Files/pixelgate/$f" [ -f "$PF/$f" ]
done
check "installed pixelgated.exe is the build's" cmp -s "$BROKER" "$PF/pixelgated.exe"
check "default policy written to ProgramData/pixelgate/policy.json" cmp -s "$ROOT/installer/windows/policy.json" "$PD/policy.json"
check "Add/Remove Programs key exists" key_exists arp "$ARP_KEY"
check "Add/Remove Programs entry names pixelgate $VERSION and a quiet uninstall" \
    grep -q "DisplayVersion.*$VERSION" "$WORK/arp.out"
check "Add/Remove Programs entry has QuietUninstallString" grep -qF 'uninstall.exe" /S' "$WORK/arp.out"
check "service key $SVC_KEY exists" key_exists svc "$SVC_KEY"
check "service binary path is \"$INSTDIR_WIN\\pixelgated.exe\" service" \
    grep -qiF "\"$INSTDIR_WIN\\pixelgated.exe\" service" "$WORK/svc.out"
check "service starts automatically (Start = 2)" grep -Eqi 'Start[[:space:]]+REG_DWORD[[:space:]]+0x2' "$WORK/svc.out"
check "service runs as LocalSystem" grep -qi 'ObjectName.*LocalSystem' "$WORK/svc.out"
check "ProgramData/pixelgate/spool exists" [ -d "$PD/spool" ]
check "ProgramData/pixelgate/audit exists" [ -d "$PD/audit" ]
echo "# service state after install: $(service_state)"
check "the install directory is on the system Path once" [ "$(path_count path1)" = 1 ]
fresh_cmd cmd-version /dev/null pixelgate --version
check "a new cmd.exe finds it: cmd /c pixelgate --version says $VERSION (exit $RC)" \
    grep -q "pixelgate $VERSION" "$WORK/cmd-version.out"
fresh_cmd cmd-mcp "$WORK/mcp-init.jsonl" pixelgate mcp
check "docs/mcp.md's registration from cmd.exe: pixelgate mcp answers initialize (exit $RC)" \
    grep -q '"id":1,"result":{.*"serverInfo":{"name":"pixelgate"' "$WORK/cmd-mcp.out"

# ---- 2. reinstall over an administrator's policy ----
MARKER="admin policy $$-$RANDOM"
mkdir -p "$PD" # (already there unless step 1 failed: then keep going and report)
printf '{ "//": "%s", "version": 1, "clients": { "users": ["agent"] } }\n' "$MARKER" >"$PD/policy.json"
cp "$PD/policy.json" "$WORK/marker-policy.json"
run_setup reinstall "$WORK/pixelgate-setup.exe" /S
check "second silent install (upgrade) exits 0 (got $RC)" [ "$RC" = 0 ]
check "an existing policy is not overwritten" cmp -s "$WORK/marker-policy.json" "$PD/policy.json"
check "service key still exists after the upgrade" key_exists svc2 "$SVC_KEY"
check "Program Files/pixelgate/pixelgated.exe still there" [ -f "$PF/pixelgated.exe" ]
check "the upgrade leaves the install directory on the system Path once, not twice" [ "$(path_count path2)" = 1 ]

# ---- 3. uninstall: binaries and service go, audit log and policy stay ----
mkdir -p "$PD/audit" # (the broker made it; "audit exists" above checked that)
echo '{"seq":1}' >"$PD/audit/audit.jsonl"
run_uninstall uninstall
check "silent uninstall exits 0 (got $RC)" [ "$RC" = 0 ]
for f in pixelgated.exe pixelgate.exe policy.default.json LICENSE.txt docs tessdata; do
    check "removed Program Files/pixelgate/$f" [ ! -e "$PF/$f" ]
done
check "service key removed" key_gone svc3 "$SVC_KEY"
check "Add/Remove Programs key removed" key_absent arp3 "$ARP_KEY"
check "audit log kept" [ -f "$PD/audit/audit.jsonl" ]
check "policy kept" cmp -s "$WORK/marker-policy.json" "$PD/policy.json"
check "spool removed" [ ! -e "$PD/spool" ]
check "the install directory left the system Path" [ "$(path_count path3)" = 0 ]
check "...and the rest of the Path is still there" grep -qi 'system32' "$WORK/path3.out"
drop_uninstaller
fresh_cmd cmd-gone /dev/null pixelgate --version
check "a new cmd.exe no longer finds pixelgate (exit $RC)" [ "$RC" != 0 ]

# ---- 4. a broker whose install fails: setup fails and rolls back ----
run_setup failing "$WORK/pixelgate-setup-failing.exe" /S
check "setup fails when pixelgated.exe install fails (exit $RC)" [ "$RC" != 0 ]
check "the failure is logged with the broker's exit code" \
    grep -q 'install failed with exit code 9' "$WORK/$STEP-failing-pixelgate-setup.log"
check "no pixelgated.exe left after the failed install" [ ! -e "$PF/pixelgated.exe" ]
check "no uninstall.exe left after the failed install" [ ! -e "$PF/uninstall.exe" ]
check "no Add/Remove Programs key after the failed install" key_absent arp4 "$ARP_KEY"
check "policy kept after the failed install" cmp -s "$WORK/marker-policy.json" "$PD/policy.json"
check "the failed install left the system Path as it was" [ "$(path_count path4)" = 0 ]

# ---- 5. install again, then uninstall /PURGE removes ProgramData/pixelgate ----
run_setup install2 "$WORK/pixelgate-setup.exe" /S /NOSTART
check "install with /NOSTART exits 0 (got $RC)" [ "$RC" = 0 ]
check "the kept policy survives a new install" cmp -s "$WORK/marker-policy.json" "$PD/policy.json"
check "service key exists again" key_exists svc5 "$SVC_KEY"
run_uninstall purge /PURGE
check "silent uninstall /PURGE exits 0 (got $RC)" [ "$RC" = 0 ]
check "/PURGE removed ProgramData/pixelgate" [ ! -e "$PD" ]
check "service key removed after /PURGE" key_gone svc6 "$SVC_KEY"
check "Add/Remove Programs key removed after /PURGE" key_absent arp6 "$ARP_KEY"
check "program files removed after /PURGE" [ ! -e "$PF/pixelgated.exe" ]
check "the install directory left the system Path after /PURGE" [ "$(path_count path6)" = 0 ]
drop_uninstaller

echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
