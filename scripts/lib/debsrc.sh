# SPDX-License-Identifier: MIT
# scripts/lib/debsrc.sh - SOURCE this (bash): what scripts/mingw-deps.sh,
# scripts/mingw-tesseract.sh and scripts/static-deps.sh share to install
# Debian packages and to fetch Debian source packages through the private
# deb-src index in $SRC.
#
# The caller defines log() and die(), the array PKGS (packages its build
# needs), and before calling the source functions: CACHE, SRC (the index dir:
# parts/, lists/, cache/, pool/; refresh_src_index makes it) and LOGS.
# Never: touches the system's apt sources, lists or caches; reads stdin.

# The cache dir: $PG_CACHE, else /var/cache/pixelgate-build if we may write
# there, else the user's cache. Shared with scripts/wine-env.sh.
pg_cache_dir() {
    if [ -n "${PG_CACHE:-}" ]; then echo "$PG_CACHE"; return; fi
    local sys=/var/cache/pixelgate-build
    if mkdir -p "$sys" 2>/dev/null && [ -w "$sys" ]; then echo "$sys"; return; fi
    echo "${XDG_CACHE_HOME:-$HOME/.cache}/pixelgate-build"
}

# Sets CACHE (absolute, made), SRC (its source index dir) and LOGS (made).
use_cache_dirs() {
    CACHE=$(pg_cache_dir)
    mkdir -p "$CACHE"
    CACHE=$(cd "$CACHE" && pwd)
    SRC=$CACHE/debsrc
    LOGS=$CACHE/logs
    mkdir -p "$LOGS"
}

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"
    elif command -v sudo >/dev/null; then sudo -n "$@"
    else die "need root to run: $*"; fi
}

install_packages() {
    local p miss=()
    for p in "${PKGS[@]}"; do
        dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null | grep -qx installed || miss+=("$p")
    done
    [ ${#miss[@]} = 0 ] && return 0
    log "installing: ${miss[*]}"
    for p in "${miss[@]}"; do
        apt-cache show --no-all-versions "$p" >/dev/null 2>&1 && continue
        log "apt does not know $p yet: apt-get update"
        as_root apt-get update -q >&2
        break
    done
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        -oDPkg::Lock::Timeout=600 "${miss[@]}" >&2
}

# deb-src twins of the system's enabled Debian entries (deb822 and one-line).
write_src_list() {
    local out=$1 f
    : >"$out.new"
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -r "$f" ] || continue
        awk -v RS='' '/(^|\n)Types:[^\n]*deb([ \n]|$)/ && !/(^|\n)Enabled: *no/ && /debian-archive-keyring|\/debian(-security)?\/? *(\n|$)/ {
            uri=""; su=""; sb=""
            n=split($0, L, "\n")
            for (i=1;i<=n;i++) {
                if (L[i] ~ /^URIs:/) uri=substr(L[i],6)
                else if (L[i] ~ /^Suites:/) su=substr(L[i],8)
                else if (L[i] ~ /^Signed-By:/) sb=substr(L[i],11)
            }
            printf "Types: deb-src\nURIs:%s\nSuites:%s\nComponents: main\n", uri, su
            if (sb != "") printf "Signed-By:%s\n", sb
            printf "\n"
        }' "$f" >>"$out.new"
    done
    if [ -r /etc/apt/sources.list ]; then
        awk '$1=="deb" && $0 ~ /\/debian(-security)?\/? / {sub(/^deb /,"deb-src "); print}' \
            /etc/apt/sources.list >"$(dirname "$out")/legacy.list.tmp"
    fi
    [ -s "$out.new" ] || [ -s "$(dirname "$out")/legacy.list.tmp" ] ||
        die "no Debian entry in /etc/apt/sources.list{,.d} to derive a deb-src list from"
    mv "$out.new" "$out"
    if [ -s "$(dirname "$out")/legacy.list.tmp" ]; then
        mv "$(dirname "$out")/legacy.list.tmp" "$(dirname "$out")/legacy.list"
    else
        rm -f "$(dirname "$out")/legacy.list.tmp" "$(dirname "$out")/legacy.list"
    fi
}

refresh_src_index() {
    mkdir -p "$SRC/parts" "$SRC/lists/partial" "$SRC/cache/archives/partial"
    write_src_list "$SRC/parts/debian-src.sources"
    local sum
    sum=$(cat "$SRC"/parts/* | sha256sum | cut -c1-16)
    if [ "${PG_DEPS_REFRESH:-0}" = 1 ] || [ "$(cat "$SRC/lists.sum" 2>/dev/null)" != "$sum" ] ||
        ! ls "$SRC"/lists/*Sources* >/dev/null 2>&1; then
        log "fetching the Debian source index into $SRC/lists"
        mapfile -t O < <(apt_src_opts)
        apt-get "${O[@]}" update -q >"$LOGS/apt-src-update.log" 2>&1 ||
            { tail -n 20 "$LOGS/apt-src-update.log" >&2; die "apt-get update (deb-src) failed"; }
        echo "$sum" >"$SRC/lists.sum"
    fi
}

# The source index and pool in $SRC are shared by every script that builds
# from Debian's source packages: hold this lock (fd 9) while reading or
# extending them. Released by `exec 9>&-` or when the script ends.
lock_src_index() {
    exec 9>"$CACHE/.debsrc.lock"
    flock -w 1800 9 || die "another build from Debian's source packages holds $CACHE/.debsrc.lock"
}

# apt options that confine apt to $SRC (lists, caches) and our source list.
apt_src_opts() {
    printf '%s\n' -oDir::Etc::SourceList=/dev/null "-oDir::Etc::SourceParts=$SRC/parts" \
        "-oDir::State::Lists=$SRC/lists" "-oDir::Cache=$SRC/cache" -oAPT::Sandbox::User=root \
        -oAPT::Get::List-Cleanup=0
}

# Suites of the private deb-src list, e.g. "bookworm bookworm-updates ...".
src_suites() {
    cat "$SRC"/parts/* | awk '/^Suites:/ {for (i = 2; i <= NF; i++) print $i}
        $1 == "deb-src" {gsub(/\[[^]]*\] */, ""); print $3}' | sort -u
}

# "VERSION SUITE" for each suite that carries PKG, newest version first.
src_candidates() {
    local pkg=$1 s dsc
    mapfile -t O < <(apt_src_opts)
    for s in $(src_suites); do
        dsc=$(apt-get "${O[@]}" source --print-uris "$pkg/$s" 2>/dev/null | awk '{print $2}' |
            grep '\.dsc$' | head -n1) || continue
        dsc=${dsc%.dsc}
        echo "${dsc#*_} $s"
    done | sort -r -V
}

# Download PKG/SUITE into $SRC/pool/PKG_VERSION (kept: a rerun needs no network).
download_src() {
    local pkg=$1 ver=$2 suite=$3 dir=$SRC/pool/$1_$2
    ls "$dir"/*.dsc >/dev/null 2>&1 && return 0
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
    mapfile -t O < <(apt_src_opts)
    (cd "$dir.tmp" && apt-get "${O[@]}" source --download-only -q "$pkg/$suite") \
        >>"$LOGS/$pkg-fetch.log" 2>&1 </dev/null || return 1
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
}

# unpack_src PKG VERSION -> unpacks the downloaded source package (Debian's
# patches applied) into $WORK/PKG-src and prints that dir. Needs WORK.
unpack_src() {
    local pkg=$1 dir=$WORK/$1-src
    dpkg-source -x "$SRC/pool/$1_$2"/*.dsc "$dir" >>"$LOGS/$pkg-fetch.log" 2>&1 </dev/null ||
        { tail -n 20 "$LOGS/$pkg-fetch.log" >&2; die "dpkg-source -x $pkg failed"; }
    echo "$dir"
}

# Prints the version of PKG to build: the newest one the mirror actually
# serves (a security mirror may list a version it cannot deliver). The choice
# is remembered per source index, so a rerun resolves it offline.
resolve_src() {
    local pkg=$1 memo=$SRC/resolved-$1 sum msum ver suite
    sum=$(cat "$SRC/lists.sum")
    if [ -f "$memo" ] && read -r msum ver <"$memo" && [ "$msum" = "$sum" ] &&
        ls "$SRC/pool/${pkg}_$ver"/*.dsc >/dev/null 2>&1; then
        echo "$ver"; return 0
    fi
    : >"$LOGS/$pkg-fetch.log"
    while read -r ver suite; do
        [ -n "$ver" ] || continue
        if download_src "$pkg" "$ver" "$suite"; then
            echo "$sum $ver" >"$memo"
            echo "$ver"; return 0
        fi
        log "$pkg $ver from $suite could not be downloaded; trying an older one"
    done < <(src_candidates "$pkg")
    tail -n 20 "$LOGS/$pkg-fetch.log" >&2
    die "no downloadable source package '$pkg' in the Debian source index"
}
