#!/usr/bin/env bash
# .ci/apk.sh — the OpenWrt 25.12 package: builds the static aarch64 musl
# firmware with the DNSSEC validator (as .ci/ipk.sh does), makes the .apk
# with `cmake --build BUILD --target apk` (apk-tools 3's own apk mkpkg), and
# checks it with the real apk in scratch roots:
#
#   1. the same bytes when made again, and when made into another directory;
#   2. `apk adbdump`: name, version (Release.version-r1), arch, license,
#      origin, url, maintainer, depends, the three scripts OpenWrt generates
#      (post-install, post-upgrade: default_postinst; pre-deinstall:
#      default_prerm); dnsward-tls provides dnsward=VERSION and depends on
#      the mbedTLS package;
#   3. installed into a root that has OpenWrt's `libc` (an empty stand-in
#      package) and /etc/apk/arch: the files with their modes and owners,
#      the binary the tree's stripped one, /lib/apk/packages/dnsward.list
#      naming exactly the installed files, .conffiles and .conffiles_static
#      (the packaged config's SHA-256); the scripts run by apk in the root
#      (chroot, BusyBox as /bin/sh) with OpenWrt's own /lib/functions.sh
#      (DNSWARD_OPENWRT_FUNCTIONS) or a stand-in recording its calls, and an
#      /etc/rc.common recording what the init script is asked to do (procd
#      itself is for a rig with OpenWrt's userland);
#   4. upgraded to -r2 with /etc/config/dnsward edited, by `apk add` of the
#      file and by `apk upgrade` from a feed (apk mkndx): the edit is kept, the
#      new file lands beside it as dnsward.apk-new, post-upgrade runs with
#      PKG_UPGRADE=1; `apk del` runs pre-deinstall and removes the files but
#      the edited config;
#   5. dnsward-tls cannot be installed beside dnsward (one owner of a name),
#      and can once dnsward is removed;
#   6. a package for another architecture is refused by apk, saying so;
#   7. a tree whose apk is not apk-tools 3 refuses to make the package,
#      saying how to get it.
#
# Environment: DNSWARD_APK_BUILD_DIR keeps the musl build tree there (reused
# next time, e.g. .ci/ipk.sh's) instead of a temporary one; DNSWARD_APK is
# apk-tools 3's apk (default: `apk` on PATH; Debian 12 has none: build it
# from source, see Board/openwrt/README.md); DNSWARD_OPENWRT_FUNCTIONS is
# OpenWrt's base-files lib/functions.sh, if at hand. Needs root (apk runs the
# scripts in a chroot), swiftc, cmake, ninja, musl-dev:arm64,
# gcc-aarch64-linux-gnu, binutils-aarch64-linux-gnu, busybox. About 3 to 5
# minutes on 2 cores from scratch (the firmware build), seconds with a built
# tree.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# The version every package must carry: Release.version, what --version says.
RELEASE_VERSION=$(release_version)
work_dir
BUILD=${DNSWARD_APK_BUILD_DIR:-$WORK/aarch64-musl}
SECONDS=0
ARCH=aarch64_generic

APK=${DNSWARD_APK:-$(command -v apk || true)}
[[ -n $APK && -x $APK ]] ||
  fail "no apk-tools 3 (set DNSWARD_APK=/path/to/apk or put apk on PATH; Board/openwrt/README.md says how to build it)"
[[ $("$APK" --version) == "apk-tools 3."* ]] || fail "$APK is '$("$APK" --version)', not apk-tools 3"
need swiftc cmake ninja aarch64-linux-gnu-readelf busybox sha256sum chroot
[[ $(id -u) == 0 ]] || fail "needs root: apk runs the package's scripts in a chroot"
[[ -e /usr/include/aarch64-linux-musl/sys/epoll.h ]] ||
  fail "no musl headers for aarch64: dpkg --add-architecture arm64 && apt-get install musl-dev:arm64"
# apk reads /etc/apk/config of the machine unless told otherwise.
export APK_CONFIG=/dev/null

step "aarch64 musl firmware with DNSSEC and its .apk ($BUILD)"
cmake -S "$ROOT/Board" -B "$BUILD" -G Ninja -DDNSWARD_TARGET=aarch64 -DDNSWARD_LIBC=musl -DDNSWARD_DNSSEC=ON -DDNSWARD_OPENWRT_ARCH=aarch64_generic \
  "-DDNSWARD_APK=$APK" >"$WORK/configure.log" 2>&1 || { cat "$WORK/configure.log"; fail "cmake configure"; }
cmake --build "$BUILD" >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; fail "firmware build"; }
cmake --build "$BUILD" --target apk || fail "cmake --build --target apk"
PACKAGE=$(readlink -f "$BUILD/dnsward.apk")
[[ $PACKAGE == */dnsward-$RELEASE_VERSION-r1.apk ]] || fail "file name $PACKAGE, not dnsward-$RELEASE_VERSION-r1.apk"
cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$BUILD/CMakeCache.txt"; }
LICENSE=$(cache_value DNSWARD_PACKAGE_LICENSE)
URL=$(cache_value DNSWARD_PACKAGE_URL)
MAINTAINER=$(cache_value DNSWARD_PACKAGE_MAINTAINER)

# build_apk OUT_DIR PACKAGE VERSION DEPENDS [ARCH]: apk-build.sh run by hand
# with the settings apk.cmake passes, for the variants the tree does not make.
build_apk() {
  APK_TOOL=$APK APK_BINARY=$BUILD/dnsward.stripped APK_OUT_DIR=$1 APK_SOURCE_ROOT=$ROOT \
    APK_PACKAGE=$2 APK_ARCH=${5:-$ARCH} APK_VERSION=$3 APK_DEPENDS=$4 APK_DNSSEC=1 \
    APK_LICENSE=$LICENSE APK_URL=$URL APK_MAINTAINER=$MAINTAINER \
    APK_READELF=aarch64-linux-gnu-readelf bash "$ROOT/Board/packaging/apk-build.sh" >/dev/null ||
    fail "apk-build.sh for $2 $3"
}

step "1. reproducible"
first=$(sha256sum <"$PACKAGE")
cmake --build "$BUILD" --target apk >/dev/null || fail "the second apk build"
[[ $(sha256sum <"$(readlink -f "$BUILD/dnsward.apk")") == "$first" ]] ||
  fail "made twice from the same tree and commit, the package differs"
build_apk "$WORK/elsewhere" dnsward "$RELEASE_VERSION-r1" libc
cmp -s "$PACKAGE" "$WORK/elsewhere/dnsward-$RELEASE_VERSION-r1.apk" ||
  fail "made in another directory, the package differs"
echo "reproducible: sha256 ${first%% *}"

step "2. apk adbdump"
"$APK" adbdump "$PACKAGE" >"$WORK/dump" || fail "apk adbdump $PACKAGE"
sed -n '/^info:/,/^paths:/p' "$WORK/dump"
# info_field NAME [DUMP]: a field of the info block.
info_field() { sed -n '/^info:/,/^paths:/p' "${2:-$WORK/dump}" | sed -n "s/^  $1: //p"; }
expect_field() {
  [[ $(info_field "$1" "${3:-}") == "$2" ]] || fail "adbdump ${3:-}: $1 is '$(info_field "$1" "${3:-}")', not '$2'"
}
expect_field name dnsward
expect_field version "$RELEASE_VERSION-r1"
expect_field arch "$ARCH"
expect_field license "$LICENSE"
expect_field origin dnsward
expect_field url "$URL"
expect_field maintainer "$MAINTAINER"
[[ -n $LICENSE && $LICENSE != unspecified ]] || fail "no license: '$LICENSE'"
depends=$(sed -n '/^  depends:/,/^  [a-z]/p' "$WORK/dump" | sed -n 's/^    - //p' | tr '\n' ' ')
[[ $depends == "libc " ]] || fail "depends: '$depends'"
grep -q 'validates DNSSEC' <<<"$(sed -n '/^  description:/,/^  arch:/p' "$WORK/dump")" ||
  fail "the description does not say it validates DNSSEC"
# script NAME: the body of one script, unindented.
script() { sed -n "/^scripts:/,/^[^ ]/p" "$WORK/dump" | sed -n "/^  $1: |/,/^  [a-z-]*:/p" | sed '1d; /^  [a-z-]*:/d; s/^    //'; }
script post-install >"$WORK/post-install"
script post-upgrade >"$WORK/post-upgrade"
script pre-deinstall >"$WORK/pre-deinstall"
grep -qx 'default_postinst' "$WORK/post-install" || fail "post-install: $(cat "$WORK/post-install")"
grep -qx 'export PKG_UPGRADE=1' "$WORK/post-upgrade" && grep -qx 'default_postinst' "$WORK/post-upgrade" ||
  fail "post-upgrade: $(cat "$WORK/post-upgrade")"
grep -qx 'default_prerm' "$WORK/pre-deinstall" || fail "pre-deinstall: $(cat "$WORK/pre-deinstall")"
for name in post-install post-upgrade pre-deinstall; do
  grep -qx 'export pkgname="dnsward"' "$WORK/$name" || fail "$name does not set pkgname"
  busybox ash -n "$WORK/$name" || fail "$name: syntax"
done
echo "scripts: post-install, post-upgrade (PKG_UPGRADE=1), pre-deinstall"

build_apk "$WORK/tls" dnsward-tls "$RELEASE_VERSION-r1" "libc libmbedtls21"
"$APK" adbdump "$WORK/tls/dnsward-tls-$RELEASE_VERSION-r1.apk" >"$WORK/tls.dump" || fail "adbdump dnsward-tls"
expect_field name dnsward-tls "$WORK/tls.dump"
tls_list() { sed -n "/^  $1:/,/^  [a-z]/p" "$WORK/tls.dump" | sed -n 's/^    - //p' | tr '\n' ' '; }
[[ $(tls_list provides) == "dnsward=$RELEASE_VERSION-r1 " ]] || fail "dnsward-tls provides: '$(tls_list provides)'"
[[ $(tls_list depends) == "libc libmbedtls21 " ]] || fail "dnsward-tls depends: '$(tls_list depends)'"
grep -q 'export pkgname="dnsward-tls"' "$WORK/tls.dump" || fail "dnsward-tls scripts do not name dnsward-tls"
echo "dnsward-tls: provides dnsward=$RELEASE_VERSION-r1, depends libc libmbedtls21"

# stub_package OUT NAME ARCH: an empty package standing in for one an
# OpenWrt image has (its libc).
stub_package() {
  mkdir -p "$WORK/empty"
  "$APK" mkpkg --info "name:$2" --info version:1.2.5-r4 --info "arch:$3" \
    --info "description:stand-in for OpenWrt's $2" --files "$WORK/empty" --output "$1" ||
    fail "apk mkpkg of the $2 stand-in"
}

# new_root DIR ARCH: a root apk can install into: /etc/apk/arch, BusyBox as
# /bin/sh with the libraries it loads, /lib/functions.sh, and an
# /etc/rc.common that records how it is called (the init script runs
# through it): with DNSWARD_OPENWRT_FUNCTIONS, OpenWrt's own functions.sh,
# whose default_postinst and default_prerm find the init script in the
# package's /lib/apk/packages/<pkgname>.list and call enable, start, disable,
# stop; without it a stand-in that records the calls it gets instead.
new_root() {
  local root=$1 library applet
  mkdir -p "$root/etc/apk" "$root/bin" "$root/lib" "$root/tmp"
  echo "$2" >"$root/etc/apk/arch"
  cp "$(command -v busybox)" "$root/bin/busybox"
  ln -s busybox "$root/bin/sh"
  for library in $(ldd "$(command -v busybox)" | grep -o '/[^ ]*'); do
    mkdir -p "$root$(dirname "$library")"
    cp -L "$library" "$root$library"
  done
  # shellcheck disable=SC2016 # written for the root's shell
  printf '%s\n' 'echo "rc.common $*" >>/tmp/scripts.log' >"$root/etc/rc.common"
  if [[ -n ${DNSWARD_OPENWRT_FUNCTIONS:-} ]]; then
    cp "$DNSWARD_OPENWRT_FUNCTIONS" "$root/lib/functions.sh"
    # BusyBox's applets as OpenWrt has them (functions.sh calls grep, rm, basename).
    for applet in grep basename sed cat rm; do ln -s busybox "$root/bin/$applet"; done
  else
    cat >"$root/lib/functions.sh" <<'EOF'
record() {
  for script in $(busybox grep -s '^/etc/init.d/' "$root/lib/apk/packages/$pkgname.list"); do
    echo "$1 $pkgname root='$root' PKG_UPGRADE='${PKG_UPGRADE:-}' $script" >>/tmp/scripts.log
  done
}
default_postinst() { record postinst; }
default_prerm() { record prerm; }
EOF
  fi
  "$APK" --root "$root" --initdb --allow-untrusted --no-network add "$WORK/libc-$2.apk" >/dev/null ||
    fail "installing the libc stand-in into $root"
}

# expect_calls EVENT: what the package's script for EVENT (install,
# upgrade, remove) left in the root's /tmp/scripts.log; then empties it.
expect_calls() {
  local expected
  if [[ -n ${DNSWARD_OPENWRT_FUNCTIONS:-} ]]; then
    case $1 in
      install) expected=$'rc.common /etc/init.d/dnsward enable\nrc.common /etc/init.d/dnsward start' ;;
      upgrade) expected='rc.common /etc/init.d/dnsward start' ;;
      remove) expected=$'rc.common /etc/init.d/dnsward disable\nrc.common /etc/init.d/dnsward stop' ;;
    esac
  else
    case $1 in
      install) expected="postinst dnsward root='' PKG_UPGRADE='' /etc/init.d/dnsward" ;;
      upgrade) expected="postinst dnsward root='' PKG_UPGRADE='1' /etc/init.d/dnsward" ;;
      remove) expected="prerm dnsward root='' PKG_UPGRADE='' /etc/init.d/dnsward" ;;
    esac
  fi
  [[ $(cat "$R/tmp/scripts.log") == "$expected" ]] ||
    fail "$1: the script called '$(cat "$R/tmp/scripts.log")', not '$expected'"
  echo "$1: $(paste -sd ';' "$R/tmp/scripts.log")"
  : >"$R/tmp/scripts.log"
}

step "3. installed with apk into a scratch root"
stub_package "$WORK/libc-$ARCH.apk" libc "$ARCH"
R=$WORK/root
new_root "$R" "$ARCH"
"$APK" --root "$R" --allow-untrusted --no-network add "$PACKAGE" || fail "apk add $PACKAGE"
# expect_file PATH MODE: installed, owned by root, with that mode.
expect_file() {
  [[ -f $R$1 ]] || fail "$1 not installed"
  [[ $(stat -c '%a %U:%G' "$R$1") == "$2 root:root" ]] || fail "$1: $(stat -c '%a %U:%G' "$R$1"), not $2 root:root"
}
expect_file /usr/sbin/dnsward 755
expect_file /etc/init.d/dnsward 755
expect_file /etc/config/dnsward 600
expect_file /usr/share/dnsward/uci-to-conf.awk 644
for suffix in list conffiles conffiles_static; do expect_file "/lib/apk/packages/dnsward.$suffix" 644; done
cmp -s "$R/usr/sbin/dnsward" "$BUILD/dnsward.stripped" || fail "/usr/sbin/dnsward is not $BUILD/dnsward.stripped"
expected_list=$(printf '%s\n' /etc/config/dnsward /etc/init.d/dnsward /usr/sbin/dnsward /usr/share/dnsward/uci-to-conf.awk)
[[ $(cat "$R/lib/apk/packages/dnsward.list") == "$expected_list" ]] ||
  fail "dnsward.list: $(cat "$R/lib/apk/packages/dnsward.list")"
[[ $(cat "$R/lib/apk/packages/dnsward.conffiles") == /etc/config/dnsward ]] ||
  fail "dnsward.conffiles: $(cat "$R/lib/apk/packages/dnsward.conffiles")"
sum=$(sha256sum "$R/etc/config/dnsward")
[[ $(cat "$R/lib/apk/packages/dnsward.conffiles_static") == "/etc/config/dnsward ${sum%% *}" ]] ||
  fail "dnsward.conffiles_static: $(cat "$R/lib/apk/packages/dnsward.conffiles_static")"
grep -q "^.option dnssec 'auto'\$" "$R/etc/config/dnsward" || fail "the installed config does not say option dnssec 'auto'"
(cd "$R" && find usr/sbin/dnsward etc/init.d/dnsward etc/config/dnsward usr/share/dnsward lib/apk/packages \
  -printf '%M %u:%g %6s /%p\n')
expect_calls install

step "4. upgrades keep an edited config; removal"
echo "	option cache '4096'" >>"$R/etc/config/dnsward"
edited=$(sha256sum <"$R/etc/config/dnsward")
build_apk "$WORK/r2" dnsward "$RELEASE_VERSION-r2" libc
R2=$WORK/r2/dnsward-$RELEASE_VERSION-r2.apk
"$APK" --root "$R" --allow-untrusted --no-network add "$R2" || fail "apk add of -r2"
[[ $(sha256sum <"$R/etc/config/dnsward") == "$edited" ]] || fail "apk add of -r2 overwrote the edited /etc/config/dnsward"
cmp -s "$R/etc/config/dnsward.apk-new" "$WORK/r2/apk/data/etc/config/dnsward" ||
  fail "no /etc/config/dnsward.apk-new holding the new package's config"
installed() { "$APK" --root "$1" info -v 2>/dev/null | grep '^dnsward' || true; }
[[ $(installed "$R") == "dnsward-$RELEASE_VERSION-r2" ]] || fail "installed after apk add of -r2: $(installed "$R")"
expect_calls upgrade
echo "apk add of -r2: edited config kept, the new one as dnsward.apk-new"
"$APK" --root "$R" --no-network del dnsward || fail "apk del dnsward"
expect_calls remove
for path in /usr/sbin/dnsward /etc/init.d/dnsward /lib/apk/packages/dnsward.list; do
  [[ ! -e $R$path ]] || fail "$path left after apk del"
done
[[ $(sha256sum <"$R/etc/config/dnsward") == "$edited" ]] || fail "apk del removed the edited /etc/config/dnsward"
echo "apk del: files removed, the edited config kept"

# From a feed (an index made by apk mkndx), as `apk upgrade` sees packages:
# installed by name with -r1, the config edited, then upgraded to -r2.
feed() {
  mkdir -p "$WORK/$1" && cp "$2" "$WORK/$1/"
  "$APK" mkndx --allow-untrusted --output "$WORK/$1/packages.adb" "$WORK/$1/$(basename "$2")" >/dev/null ||
    fail "apk mkndx $1"
}
feed feed-r1 "$PACKAGE"
feed feed-r2 "$R2"
F=$WORK/feed-root
new_root "$F" "$ARCH"
"$APK" --root "$F" --allow-untrusted --no-network --repository "$WORK/feed-r1/packages.adb" add dnsward >/dev/null ||
  fail "apk add dnsward from the -r1 feed"
echo "	option cache '4096'" >>"$F/etc/config/dnsward"
"$APK" --root "$F" --allow-untrusted --no-network --repository "$WORK/feed-r2/packages.adb" upgrade ||
  fail "apk upgrade from the -r2 feed"
[[ $(installed "$F") == "dnsward-$RELEASE_VERSION-r2" ]] || fail "installed after apk upgrade: $(installed "$F")"
[[ $(sha256sum <"$F/etc/config/dnsward") == "$edited" ]] || fail "apk upgrade overwrote the edited /etc/config/dnsward"
[[ -f $F/etc/config/dnsward.apk-new ]] || fail "apk upgrade wrote no /etc/config/dnsward.apk-new"
echo "apk upgrade from a feed: edited config kept, the new one as dnsward.apk-new"

step "5. dnsward-tls takes dnsward's place, never beside it"
# (Depends libc only: a static TLS build, so that apk's answer is about the
# conflict, not a missing mbedTLS package.)
build_apk "$WORK/tls-static" dnsward-tls "$RELEASE_VERSION-r1" libc
TLS=$WORK/tls-static/dnsward-tls-$RELEASE_VERSION-r1.apk
"$APK" --root "$R" --allow-untrusted --no-network add "$PACKAGE" >/dev/null || fail "apk add dnsward again"
if "$APK" --root "$R" --allow-untrusted --no-network add "$TLS" >"$WORK/both.log" 2>&1; then
  fail "apk installed dnsward-tls beside dnsward"
fi
cat "$WORK/both.log"
grep -q 'conflicts: dnsward-tls' "$WORK/both.log" || fail "apk's refusal does not name the conflict"
"$APK" --root "$R" --no-network del dnsward >/dev/null || fail "apk del dnsward"
"$APK" --root "$R" --allow-untrusted --no-network add "$TLS" >/dev/null || fail "apk add dnsward-tls after apk del dnsward"
[[ $(installed "$R") == "dnsward-tls-$RELEASE_VERSION-r1" ]] || fail "installed: $(installed "$R")"
echo "after apk del dnsward: $(installed "$R") installed"

step "6. a package for another architecture is refused"
stub_package "$WORK/libc-x86_64.apk" libc x86_64
new_root "$WORK/x86_64-root" x86_64
if "$APK" --root "$WORK/x86_64-root" --allow-untrusted --no-network add "$PACKAGE" >"$WORK/arch.log" 2>&1; then
  fail "apk installed the $ARCH package into an x86_64 root"
fi
cat "$WORK/arch.log"
grep -q 'error: uninstallable' "$WORK/arch.log" && grep -q "arch: $ARCH" "$WORK/arch.log" ||
  fail "the refusal does not name the architecture"
[[ ! -e $WORK/x86_64-root/usr/sbin/dnsward ]] || fail "refused, yet /usr/sbin/dnsward is there"

step "7. without apk-tools 3 the target refuses, saying how to get it"
printf '#!/bin/sh\necho "apk-tools 2.14.10, compiled for x86_64."\n' >"$WORK/apk-v2"
chmod 0755 "$WORK/apk-v2"
cmake -S "$ROOT/Board" -B "$WORK/v2" -G Ninja -DDNSWARD_TARGET=aarch64 -DDNSWARD_LIBC=musl \
  "-DDNSWARD_APK=$WORK/apk-v2" >"$WORK/v2.log" 2>&1 || { cat "$WORK/v2.log"; fail "cmake configure (apk v2)"; }
if refusal=$(cmake --build "$WORK/v2" --target apk 2>&1); then
  fail "the tree with apk-tools 2 made a package"
fi
grep -q 'not apk-tools 3.x: build apk-tools 3.x from its source' <<<"$refusal" ||
  fail "the refusal does not say what to do: $refusal"
echo "refused: $(grep '^apk: ' <<<"$refusal")"

step "done: $(basename "$PACKAGE"), $(stat -c %s "$PACKAGE") bytes, installed-size $(info_field installed-size)"
