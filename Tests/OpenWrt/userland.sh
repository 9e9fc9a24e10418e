#!/usr/bin/env bash
# userland.sh — builds the OpenWrt userland the rig runs (Tests/OpenWrt/README.md)
# from the source archives in ../shared/third-party, into a cache outside
# the clone, and prints the prefix it built (or found) on stdout:
#
#   bash Tests/OpenWrt/userland.sh      ->  /var/cache/dnsward/openwrt-userland/KEY
#
# KEY is a sha256 over the sha256s of the archives used and of this script:
# new archives or a changed recipe give a new prefix, the same inputs find
# the one built before and build nothing. The build happens in a temporary
# directory beside the final one and is renamed into place only when it is
# complete, so an interrupted build never looks finished.
#
# The prefix holds bin/, sbin/, lib/ (rpath'd to PREFIX/lib: PREFIX/bin/apk
# runs on the host), share/openwrt-files (the tree's base, procd, uci and
# dnsmasq files, as shipped) and manifest.sha256: the sha256 of every
# program built, which the rig checks its root against.
#
# Environment: DNSWARD_CACHE_DIR (default /var/cache/dnsward),
# DNSWARD_THIRD_PARTY (default: <repo>/../shared/third-party).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
THIRD_PARTY=${DNSWARD_THIRD_PARTY:-$REPO/../shared/third-party}
CACHE=${DNSWARD_CACHE_DIR:-/var/cache/dnsward}/openwrt-userland
# The archives, by name stem, in build order.
STEMS=(libubox ubus uci ucode udebug procd ubox usign jsonpath opkg-lede apk-tools immortalwrt-files)

fail() {
  echo "userland.sh: $*" >&2
  exit 1
}
log() { echo "userland.sh: $*" >&2; }

# archive STEM: the one archive of that name (STEM-<hash>.tar.gz).
archive() {
  local matches=("$THIRD_PARTY/$1"-*.tar.gz)
  [[ ${#matches[@]} == 1 && -f ${matches[0]} ]] ||
    fail "no single $1-*.tar.gz in $THIRD_PARTY (set DNSWARD_THIRD_PARTY to the third-party directory)"
  echo "${matches[0]}"
}
DNSMASQ_ARCHIVE=$THIRD_PARTY/dnsmasq_2.90.orig.tar.xz

cache_key() {
  local stem
  {
    for stem in "${STEMS[@]}"; do sha256sum <"$(archive "$stem")"; done
    sha256sum <"$DNSMASQ_ARCHIVE"
    sha256sum <"${BASH_SOURCE[0]}"
  } | sha256sum | cut -c1-16
}

[[ -d $THIRD_PARTY ]] || fail "no third-party directory at $THIRD_PARTY (set DNSWARD_THIRD_PARTY)"
[[ -f $DNSMASQ_ARCHIVE ]] || fail "no $DNSMASQ_ARCHIVE"
KEY=$(cache_key)
FINAL=$CACHE/$KEY
if [[ -f $FINAL/manifest.sha256 ]]; then
  log "cached: $FINAL"
  echo "$FINAL"
  exit 0
fi

mkdir -p "$CACHE"
STAGING=$(mktemp -d "$CACHE/.building-$KEY.XXXXXX")
SRC=$STAGING/src
trap 'rm -rf "$STAGING"' EXIT
# Everything is installed into $PREFIX, but linked as if it lived at
# $FINAL (the rpath), where the rename puts it.
PREFIX=$STAGING/prefix
mkdir -p "$SRC" "$PREFIX"
SECONDS=0
JOBS=$(nproc)

export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
BASE_CFLAGS="-I$PREFIX/include -O2"
# glibc 2.36 has no strlcpy/strlcat, which procd, ubox and usign use.
BSD_CFLAGS="$BASE_CFLAGS -D_GNU_SOURCE -include bsd/string.h"
LINK_FLAGS="-L$PREFIX/lib -Wl,-rpath,$FINAL/lib"

unpack() {
  local stem=$1
  tar -xzf "$(archive "$stem")" -C "$SRC"
  [[ -d $SRC/$stem ]] || fail "$(archive "$stem") did not unpack into $stem/"
  # These trees build with -Werror, which newer compilers' warnings break.
  find "$SRC/$stem" -name CMakeLists.txt -exec sed -i 's/-Werror\([^=]\|$\)/\1/g' {} +
}

# cmake_build STEM [CMAKE ARGS...]: configure, build and install one tree.
cmake_build() {
  local stem=$1 cflags=$BASE_CFLAGS libs=""
  shift
  case $stem in
  procd | ubox | usign | udebug)
    cflags=$BSD_CFLAGS
    libs=-lbsd
    ;;
  esac
  log "building $stem"
  cmake -S "$SRC/$stem" -B "$SRC/$stem/build" -G Ninja -Wno-dev \
    -DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_PREFIX_PATH="$PREFIX" \
    -DCMAKE_POLICY_VERSION_MINIMUM=3.5 -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS="$cflags" -DCMAKE_C_STANDARD_LIBRARIES="$libs" \
    -DCMAKE_EXE_LINKER_FLAGS="$LINK_FLAGS" -DCMAKE_SHARED_LINKER_FLAGS="$LINK_FLAGS" \
    -DCMAKE_MODULE_LINKER_FLAGS="$LINK_FLAGS" "$@" >"$SRC/$stem.log" 2>&1 ||
    { tail -40 "$SRC/$stem.log" >&2; fail "cmake configure of $stem"; }
  # Some trees have extras that fail on Debian (procd's upgraded, opkg's
  # libopkg_test): the programs the rig needs are checked afterwards.
  ninja -C "$SRC/$stem/build" -k 0 -j "$JOBS" >>"$SRC/$stem.log" 2>&1 || log "$stem: some targets failed (see below)"
  cmake --install "$SRC/$stem/build" >>"$SRC/$stem.log" 2>&1 || true
}

build_all() {
  local stem
  for stem in "${STEMS[@]}"; do unpack "$stem"; done
  tar -xJf "$DNSMASQ_ARCHIVE" -C "$SRC"

  cmake_build libubox -DBUILD_LUA=OFF -DBUILD_EXAMPLES=OFF
  cmake_build ubus -DBUILD_LUA=OFF -DBUILD_EXAMPLES=OFF
  cmake_build uci -DBUILD_LUA=OFF
  cmake_build ucode -DUBUS_SUPPORT=ON -DUCI_SUPPORT=ON -DULOOP_SUPPORT=ON \
    -DRTNL_SUPPORT=OFF -DNL80211_SUPPORT=OFF -DDIGEST_SUPPORT=OFF
  cmake_build udebug
  cmake_build procd
  # procd's install rule misses the binary when a sibling target failed.
  [[ -x $PREFIX/sbin/procd ]] || install -D -m 0755 "$SRC/procd/build/procd" "$PREFIX/sbin/procd"
  cmake_build ubox
  cmake_build usign
  cmake_build opkg-lede
  [[ -x $PREFIX/bin/opkg-cl ]] || install -D -m 0755 "$SRC/opkg-lede/build/src/opkg-cl" "$PREFIX/bin/opkg-cl"
  build_jsonfilter
  build_apk
  build_dnsmasq
  mkdir -p "$PREFIX/share/openwrt-files"
  cp -a "$SRC/immortalwrt-files/." "$PREFIX/share/openwrt-files/"
}

# jsonpath's lemon step wants to run in its source tree.
build_jsonfilter() {
  log "building jsonpath (jsonfilter)"
  (cd "$SRC/jsonpath" && cmake . -G Ninja -DCMAKE_POLICY_VERSION_MINIMUM=3.5 -DCMAKE_C_FLAGS="$BASE_CFLAGS" \
    -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_EXE_LINKER_FLAGS="$LINK_FLAGS" && ninja) >"$SRC/jsonpath.log" 2>&1 ||
    { tail -40 "$SRC/jsonpath.log" >&2; fail "jsonpath build"; }
  install -D -m 0755 "$SRC/jsonpath/jsonpath" "$PREFIX/bin/jsonfilter"
}

build_apk() {
  log "building apk-tools"
  (cd "$SRC/apk-tools" &&
    LDFLAGS="-Wl,-rpath,$FINAL/lib" meson setup build --prefix="$PREFIX" --libdir=lib \
      -Dlua=disabled -Ddocs=disabled -Dtests=disabled -Dhelp=disabled -Dpython=disabled &&
    ninja -C build && ninja -C build install) >"$SRC/apk-tools.log" 2>&1 ||
    { tail -40 "$SRC/apk-tools.log" >&2; fail "apk-tools build"; }
}

build_dnsmasq() {
  log "building dnsmasq (with ubus)"
  make -C "$SRC/dnsmasq-2.90" -j "$JOBS" COPTS="-DHAVE_UBUS -DHAVE_DNSSEC -DHAVE_NFTSET" \
    CFLAGS="$BASE_CFLAGS" LDFLAGS="$LINK_FLAGS" PKG_CONFIG="pkg-config" >"$SRC/dnsmasq.log" 2>&1 ||
    { tail -40 "$SRC/dnsmasq.log" >&2; fail "dnsmasq build"; }
  install -D -m 0755 "$SRC/dnsmasq-2.90/src/dnsmasq" "$PREFIX/sbin/dnsmasq"
}

# The programs the rig runs; each must have been built.
PROGRAMS=(sbin/procd sbin/ubusd bin/ubus bin/uci sbin/logd sbin/logread bin/opkg-cl bin/usign
  bin/jsonfilter bin/apk sbin/dnsmasq sbin/validate_data)

write_manifest() {
  local program
  for program in "${PROGRAMS[@]}"; do
    [[ -x $PREFIX/$program ]] || {
      find "$PREFIX" -maxdepth 2 -type f -perm -u+x >&2
      fail "$program was not built (logs were in $SRC)"
    }
  done
  (cd "$PREFIX" && sha256sum "${PROGRAMS[@]}" lib/*.so*) >"$PREFIX/manifest.sha256"
}

build_all
write_manifest
rm -rf "$SRC"
mv "$PREFIX" "$FINAL.new.$$"
# rename(2) of a directory onto a missing name: only a complete build gets KEY.
mv -T "$FINAL.new.$$" "$FINAL" 2>/dev/null || { rm -rf "$FINAL.new.$$"; log "another run finished first"; }
log "built in ${SECONDS}s: $FINAL"
echo "$FINAL"
