#!/usr/bin/env bash
# .ci/ipk.sh — the OpenWrt package: builds the static aarch64 musl firmware
# with the DNSSEC validator (-DDNSWARD_DNSSEC=ON: the packaged UCI file says
# `option dnssec 'auto'`; default compiled-in config, the package runs it with
# --config), makes the .ipk with
# `cmake --build BUILD --target ipk`, and checks what opkg and the router
# would see:
#
#   1. the outer archive: ./debian-binary (2.0), ./data.tar.gz,
#      ./control.tar.gz, in that order; the same bytes when made again;
#   2. control: Package, Version, Architecture, Depends; conffiles;
#      postinst/prerm using OpenWrt's default_postinst/default_prerm;
#   3. data: every file owned by 0:0, the init script and the binary 0755,
#      the binary the tree's stripped static one (no ELF interpreter);
#   4. the packaged converter under `busybox awk` (OpenWrt's) on the
#      packaged /etc/config/dnsward, in both modes, checked by the packaged
#      binary under qemu-aarch64 (`dnsward --check`), `dnssec auto` included;
#      a package made from a binary without the validator says '0';
#   5. what the OpenWrt rig (.ci/openwrt.sh) cannot show about the init
#      script (a new LAN address, disable in an image) under `busybox ash`
#      with a fake uci (Tests/OpenWrt/init-script-test.sh), and OpenWrtUCITests with
#      DNSWARD_TEST_AWK="busybox awk" against the packaged binary (if the
#      SwiftPM tests are built, as in .ci/run after `swift test`);
#   6. a glibc-dynamic tree's ipk target refuses, saying why.
#
# Environment: DNSWARD_IPK_BUILD_DIR keeps the musl build tree there
# (reused next time) instead of a temporary one. Needs: swiftc, cmake,
# ninja, musl-dev:arm64, gcc-aarch64-linux-gnu, binutils-aarch64-linux-gnu,
# qemu-user, busybox. About 3 to 5 minutes on 2 cores from scratch (the
# firmware build), seconds with a built tree.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# The version every package must carry: Release.version, what --version says.
RELEASE_VERSION=$(release_version)
work_dir
BUILD=${DNSWARD_IPK_BUILD_DIR:-$WORK/aarch64-musl}
SECONDS=0

need swiftc cmake ninja aarch64-linux-gnu-readelf qemu-aarch64 busybox tar gzip
[[ -e /usr/include/aarch64-linux-musl/sys/epoll.h ]] ||
  fail "no musl headers for aarch64: dpkg --add-architecture arm64 && apt-get install musl-dev:arm64"

step "aarch64 musl firmware with DNSSEC and its .ipk ($BUILD)"
cmake -S "$ROOT/Board" -B "$BUILD" -G Ninja -DDNSWARD_TARGET=aarch64 -DDNSWARD_LIBC=musl -DDNSWARD_DNSSEC=ON -DDNSWARD_OPENWRT_ARCH=aarch64_generic \
  >"$WORK/configure.log" 2>&1 || { cat "$WORK/configure.log"; fail "cmake configure"; }
cmake --build "$BUILD" >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; fail "firmware build"; }
cmake --build "$BUILD" --target ipk || fail "cmake --build --target ipk"
PACKAGE=$(readlink -f "$BUILD/dnsward.ipk")
[[ -f $PACKAGE ]] || fail "no $BUILD/dnsward.ipk"

step "1. the outer archive"
members=$(tar -tzf "$PACKAGE" | tr '\n' ' ')
[[ $members == "./debian-binary ./data.tar.gz ./control.tar.gz " ]] ||
  fail "outer members: '$members'"
mkdir "$WORK/outer" "$WORK/control" "$WORK/data"
tar -xzf "$PACKAGE" -C "$WORK/outer"
[[ $(cat "$WORK/outer/debian-binary") == 2.0 ]] || fail "debian-binary: $(cat "$WORK/outer/debian-binary")"
first=$(sha256sum <"$PACKAGE")
cmake --build "$BUILD" --target ipk >/dev/null || fail "the second ipk build"
[[ $(sha256sum <"$(readlink -f "$BUILD/dnsward.ipk")") == "$first" ]] ||
  fail "made twice from the same tree and commit, the package differs"
echo "reproducible: sha256 ${first%% *}"

step "2. control"
tar -xzf "$WORK/outer/control.tar.gz" -C "$WORK/control"
control=$WORK/control/control
cat "$control"
field() { sed -n "s/^$1: //p" "$control"; }
[[ $(field Package) == dnsward ]] || fail "Package: $(field Package)"
[[ $(field Version) == "$RELEASE_VERSION-r1" ]] || fail "Version: $(field Version), not $RELEASE_VERSION-r1"
[[ $(field Architecture) == aarch64_generic ]] || fail "Architecture: $(field Architecture)"
[[ $(field Depends) == libc ]] || fail "Depends: $(field Depends)"
[[ $(field License) == Apache-2.0 ]] || fail "License: $(field License), not the project's Apache-2.0"
[[ $(field Installed-Size) == $(gzip -dc "$WORK/outer/data.tar.gz" | wc -c) ]] ||
  fail "Installed-Size: $(field Installed-Size)"
[[ $PACKAGE == */dnsward_$(field Version)_aarch64_generic.ipk ]] || fail "file name $PACKAGE"
[[ $(cat "$WORK/control/conffiles") == /etc/config/dnsward ]] ||
  fail "conffiles: $(cat "$WORK/control/conffiles")"
grep -q 'default_postinst "$0"' "$WORK/control/postinst" || fail "postinst: $(cat "$WORK/control/postinst")"
grep -q 'default_prerm "$0"' "$WORK/control/prerm" || fail "prerm: $(cat "$WORK/control/prerm")"
busybox ash -n "$WORK/control/postinst" && busybox ash -n "$WORK/control/prerm" || fail "postinst/prerm syntax"

# The TLS build's control (no musl TLS firmware is built here: the same
# binary, packaged as ipk.cmake does with -DDNSWARD_TLS=ON).
IPK_BINARY=$BUILD/dnsward.stripped IPK_OUT_DIR=$WORK/tls IPK_SOURCE_ROOT=$ROOT \
  IPK_PACKAGE=dnsward-tls IPK_ARCH=aarch64_generic IPK_DEPENDS="libc, libmbedtls21" IPK_DNSSEC=1 \
  IPK_READELF=aarch64-linux-gnu-readelf bash "$ROOT/Board/packaging/ipk-build.sh" >/dev/null ||
  fail "ipk-build.sh for dnsward-tls"
tls_control=$(tar -xzOf "$WORK/tls/ipk/control.tar.gz" ./control)
for line in "Package: dnsward-tls" "Provides: dnsward" "Conflicts: dnsward" "Depends: libc, libmbedtls21"; do
  grep -q -x -F "$line" <<<"$tls_control" || fail "dnsward-tls control has no '$line': $tls_control"
done
echo "dnsward-tls: Provides and Conflicts dnsward, Depends libc, libmbedtls21"
grep -q 'validates DNSSEC' "$control" || fail "the Description does not say it validates DNSSEC"
# A binary without the validator (IPK_DNSSEC=0, as ipk.cmake passes for a
# tree without -DDNSWARD_DNSSEC=ON) gets a UCI file that does not ask for it.
IPK_BINARY=$BUILD/dnsward.stripped IPK_OUT_DIR=$WORK/no-dnssec IPK_SOURCE_ROOT=$ROOT \
  IPK_PACKAGE=dnsward IPK_ARCH=aarch64_generic IPK_DEPENDS=libc IPK_DNSSEC=0 \
  IPK_READELF=aarch64-linux-gnu-readelf bash "$ROOT/Board/packaging/ipk-build.sh" >/dev/null ||
  fail "ipk-build.sh with IPK_DNSSEC=0"
grep -q "^.option dnssec '0'\$" <(tar -xzOf "$WORK/no-dnssec/ipk/data.tar.gz" ./etc/config/dnsward) ||
  fail "IPK_DNSSEC=0: the packaged /etc/config/dnsward does not say option dnssec '0'"
grep -q 'validates DNSSEC' <(tar -xzOf "$WORK/no-dnssec/ipk/control.tar.gz" ./control) &&
  fail "IPK_DNSSEC=0: the Description says it validates DNSSEC"
echo "without the validator (IPK_DNSSEC=0): option dnssec '0', no DNSSEC in the Description"

step "3. data"
listing=$(tar -tvzf "$WORK/outer/data.tar.gz")
echo "$listing"
mode_of() { awk -v path="$1" '$6 == path { print $1 }' <<<"$listing"; }
[[ $(mode_of ./etc/init.d/dnsward) == -rwxr-xr-x ]] || fail "init script mode $(mode_of ./etc/init.d/dnsward)"
[[ $(mode_of ./usr/sbin/dnsward) == -rwxr-xr-x ]] || fail "binary mode $(mode_of ./usr/sbin/dnsward)"
[[ -n $(mode_of ./etc/config/dnsward) ]] || fail "no /etc/config/dnsward"
[[ -n $(mode_of ./usr/share/dnsward/uci-to-conf.awk) ]] || fail "no /usr/share/dnsward/uci-to-conf.awk"
owners=$(awk '{ print $2 }' <<<"$listing" | sort -u)
[[ $owners == 0/0 ]] || fail "owners: $owners"
tar -xzf "$WORK/outer/data.tar.gz" -C "$WORK/data"
BINARY=$WORK/data/usr/sbin/dnsward
cmp -s "$BINARY" "$BUILD/dnsward.stripped" || fail "/usr/sbin/dnsward is not $BUILD/dnsward.stripped"
program_headers=$(aarch64-linux-gnu-readelf -lW "$BINARY")
! grep -q 'Requesting program interpreter' <<<"$program_headers" || fail "the packaged binary has an ELF interpreter"
! grep -q '\.symtab' <<<"$(aarch64-linux-gnu-readelf -SW "$BINARY")" || fail "the packaged binary is not stripped"
echo "/usr/sbin/dnsward: static, stripped, $(stat -c %s "$BINARY") bytes"

step "4. the packaged converter under busybox awk, checked by the packaged binary"
for mode in beside primary; do
  busybox awk -v mode="$mode" -v lan_address=192.168.1.1 -v router_hosts=/var/etc/dnsward.hosts \
    -f "$WORK/data/usr/share/dnsward/uci-to-conf.awk" "$WORK/data/etc/config/dnsward" \
    >"$WORK/$mode.conf" || fail "busybox awk, mode $mode"
  cmp -s <(awk -v mode="$mode" -v lan_address=192.168.1.1 -v router_hosts=/var/etc/dnsward.hosts \
    -f "$WORK/data/usr/share/dnsward/uci-to-conf.awk" "$WORK/data/etc/config/dnsward") "$WORK/$mode.conf" ||
    fail "mode $mode: busybox awk and $(readlink -f "$(command -v awk)") convert differently"
  qemu-aarch64 "$BINARY" --check "$WORK/$mode.conf" >"$WORK/$mode.check" 2>&1 ||
    { cat "$WORK/$mode.check"; fail "dnsward --check refused the converted config (mode $mode)"; }
  grep -q "$WORK/$mode.conf: OK" "$WORK/$mode.check" || fail "mode $mode: $(cat "$WORK/$mode.check")"
  # option dnssec 'auto' became `dnssec auto`, which this binary accepts.
  grep -qx 'dnssec auto' "$WORK/$mode.conf" || fail "mode $mode: no 'dnssec auto' line in the converted config"
  grep -q '^dnssec: auto' "$WORK/$mode.check" || fail "mode $mode: --check does not report dnssec: auto"
  echo "mode $mode: $(grep '^listen' "$WORK/$mode.check" | tr '\n' ' ')$(grep '^dnssec' "$WORK/$mode.check")"
done

step "5. the init script under busybox ash; OpenWrtUCITests under busybox awk"
AWK="busybox awk" busybox ash "$ROOT/Tests/OpenWrt/init-script-test.sh" "qemu-aarch64 $BINARY" ||
  fail "init-script-test.sh"
if [[ -e "$(cd "$ROOT" && swift build --show-bin-path)/dnswardPackageTests.xctest" ]]; then
  (cd "$ROOT" && DNSWARD_TEST_AWK="busybox awk" DNSWARD_TEST_BINARY=$BINARY DNSWARD_TEST_RUNNER=qemu-aarch64 \
    swift test --skip-build --filter OpenWrtUCITests) >"$WORK/swift-test.log" 2>&1 ||
    { cat "$WORK/swift-test.log"; fail "OpenWrtUCITests under busybox awk"; }
  grep -E 'Executed [0-9]+ tests' "$WORK/swift-test.log" | tail -1
else
  echo "OpenWrtUCITests skipped: the SwiftPM tests are not built (swift build --build-tests)"
fi

step "6. a glibc-dynamic tree refuses to make a package"
cmake -S "$ROOT/Board" -B "$WORK/glibc" -G Ninja -DDNSWARD_TARGET=aarch64 >"$WORK/glibc.log" 2>&1 ||
  { cat "$WORK/glibc.log"; fail "cmake configure (glibc)"; }
if refusal=$(cmake --build "$WORK/glibc" --target ipk 2>&1); then
  fail "the glibc tree made a package"
fi
grep -q 'DNSWARD_LIBC=musl' <<<"$refusal" || fail "the refusal does not say what to do: $refusal"
echo "refused: $(grep "^ipk: " <<<"$refusal")"

step "sizes (bytes)"
# The .ipk is gzip'd; on the router the binary sits in the overlay (JFFS2 or
# UBIFS, compressed) once installed, or in the image's squashfs (xz).
printf '  %-44s %9d\n' "/usr/sbin/dnsward (static musl, DNSSEC)" "$(stat -c %s "$BINARY")" \
  "  the binary gzip -9" "$(gzip -9c "$BINARY" | wc -c)" \
  "$(basename "$PACKAGE")" "$(stat -c %s "$PACKAGE")"
# (xz-utils is priority standard, not always installed.)
if command -v xz >/dev/null; then
  printf '  %-44s %9d\n' "  the binary xz -9e" "$(xz -9e -c "$BINARY" | wc -c)"
fi
step "done: $(basename "$PACKAGE"), $(stat -c %s "$PACKAGE") bytes"
