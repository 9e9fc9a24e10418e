#!/usr/bin/env bash
# .ci/openwrt.sh — the OpenWrt package against the real OpenWrt userland
# (Tests/OpenWrt/README.md): builds the userland from ../shared/third-party
# into its cache (Tests/OpenWrt/userland.sh; about 70 s on 2 cores the first
# time, nothing once cached), the static x86_64 musl firmware with DNSSEC and
# its .ipk and .apk, then runs the rig's self-test and every scenario for
# both packages (Tests/OpenWrt/openwrt-test.sh, about 90 s a package).
#
# With DNSWARD_OPENWRT_FEED, a release's openwrt/ folder (B/release/openwrt
# of `cmake --build B --target release`, signed; .ci/release.sh makes one),
# the packages are that release's x86_64 ones, exactly what a user installs,
# and each package manager also installs dnsward from the feed over HTTP
# with its key; nothing is built then.
#
# Environment: DNSWARD_OPENWRT_FEED (above); DNSWARD_OPENWRT_BUILD_DIR keeps
# the firmware tree there (reused next time) instead of a temporary one;
# DNSWARD_CACHE_DIR and
# DNSWARD_THIRD_PARTY as userland.sh reads them. Needs root (namespaces,
# chroot), swiftc, cmake, ninja, musl-dev, musl-tools, meson, pkg-config,
# libjson-c-dev, libbsd-dev, zlib1g-dev, libssl-dev, libzstd-dev,
# nettle-dev, libgmp-dev, libnftables-dev, busybox, knot, dnsutils,
# iproute2, nftables, util-linux (unshare, nsenter, flock).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
work_dir
BUILD=${DNSWARD_OPENWRT_BUILD_DIR:-$WORK/x86_64-musl}
SECONDS=0

step "the OpenWrt userland (Tests/OpenWrt/userland.sh)"
USERLAND=$(bash "$ROOT/Tests/OpenWrt/userland.sh") || fail "userland.sh"

if [[ -n ${DNSWARD_OPENWRT_FEED:-} ]]; then
  FEED=$(readlink -f "$DNSWARD_OPENWRT_FEED")
  ipks=("$FEED"/x86_64/dnsward_*_x86_64.ipk) apks=("$FEED"/x86_64/dnsward-[0-9]*.apk)
  [[ ${#ipks[@]} == 1 && -f ${ipks[0]} && ${#apks[@]} == 1 && -f ${apks[0]} ]] ||
    fail "$FEED/x86_64 does not hold one dnsward .ipk and one dnsward .apk"
  step "the rig: self-test, then every scenario and the feed with opkg and with apk ($FEED)"
  bash "$ROOT/Tests/OpenWrt/openwrt-test.sh" --self-test --ipk "${ipks[0]}" --apk "${apks[0]}" --feed "$FEED" ||
    fail "Tests/OpenWrt/openwrt-test.sh"
  step "done"
  exit 0
fi

step "x86_64 musl firmware with DNSSEC, its .ipk and .apk ($BUILD)"
cmake -S "$ROOT/Board" -B "$BUILD" -G Ninja -DDNSWARD_TARGET=x86_64 -DDNSWARD_LIBC=musl -DDNSWARD_DNSSEC=ON \
  "-DDNSWARD_APK=$USERLAND/bin/apk" >"$WORK/configure.log" 2>&1 || { cat "$WORK/configure.log"; fail "cmake configure"; }
cmake --build "$BUILD" >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; fail "firmware build"; }
cmake --build "$BUILD" --target ipk || fail "cmake --build --target ipk"
cmake --build "$BUILD" --target apk || fail "cmake --build --target apk"

step "the rig: self-test, then every scenario with opkg and with apk"
bash "$ROOT/Tests/OpenWrt/openwrt-test.sh" --self-test --ipk "$BUILD/dnsward.ipk" --apk "$BUILD/dnsward.apk" ||
  fail "Tests/OpenWrt/openwrt-test.sh"
step "done"
