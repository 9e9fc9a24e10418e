#!/usr/bin/env bash
# .ci/release.sh — the release command as a user runs it, checked:
#
#   cmake -S Board -B B -G Ninja -DDNSWARD_APK=... -DDNSWARD_FEED_KEY=...
#   cmake --build B --target release
#
#   1. B/release holds, for every OpenWrt architecture name of aarch64,
#      armv7 and x86_64, the .ipk and the .apk with the feed indexes
#      (Packages, Packages.gz and Packages.sig, which usign verifies, and
#      packages.adb, signed), the three .deb, the feeds' public keys, and
#      SHA256SUMS, which `sha256sum -c` accepts;
#   2. each OpenWrt binary runs (x86_64 here, aarch64 and armv7 under qemu):
#      `--version` names its target and DNSSEC, and it answers a query; with
#      mbedTLS for aarch64 musl at hand (DNSWARD_MBEDTLS_MUSL, default the one
#      .ci/mbedtls36-musl.sh leaves in /opt/mbedtls-3.6), dnsward-tls too:
#      depends on libmbedtls21, loads musl's loader and mbedTLS, runs under
#      qemu with OpenWrt's layout of them;
#   3. a second release, from scratch in another directory with the same
#      key, is byte for byte the same (SHA256SUMS equal): the packages and the
#      indexes are reproducible (the RSA signature is deterministic);
#   4. neither build left anything in $TMPDIR.
#
# The first release's trees are kept in DNSWARD_RELEASE_DIR (default: a
# temporary folder) for .ci/deb.sh, .ci/ipk.sh and .ci/apk.sh to reuse, and
# its x86_64 feed for the OpenWrt rig (Tests/OpenWrt).
#
# Environment: DNSWARD_USERLAND (the OpenWrt userland's prefix, for apk and
# usign; default: Tests/OpenWrt/userland.sh builds or finds it),
# DNSWARD_RELEASE_DIR. About 7 minutes on 2 cores (two releases of six trees).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SECONDS=0
work_dir
RELEASE_DIR=${DNSWARD_RELEASE_DIR:-$WORK/first}

USERLAND=${DNSWARD_USERLAND:-$(bash "$ROOT/Tests/OpenWrt/userland.sh")}
APK=$USERLAND/bin/apk
USIGN=$USERLAND/bin/usign
"$APK" --version | grep -q '^apk-tools 3\.' || fail "$APK is not apk-tools 3"
openssl genrsa -out "$WORK/feed-key.pem" 2048 2>/dev/null
"$USIGN" -G -s "$WORK/feed-usign.sec" -p "$WORK/feed-usign.pub" -c "dnsward CI feed" ||
  fail "usign -G"
MBEDTLS=${DNSWARD_MBEDTLS_MUSL:-/opt/mbedtls-3.6/aarch64-linux-musl}
tls_option=()
if [[ -e $MBEDTLS/.complete ]]; then
  tls_option=(-DDNSWARD_RELEASE_MBEDTLS_aarch64="$MBEDTLS")
else
  echo "release.sh: no mbedTLS for aarch64 musl in $MBEDTLS (bash .ci/mbedtls36-musl.sh makes it): no dnsward-tls checked" >&2
  MBEDTLS=""
fi
# Every build below runs with its own, empty TMPDIR.
mkdir -p "$WORK/tmp"

# release DIR: configures DIR and runs its release target.
release() {
  TMPDIR=$WORK/tmp cmake -S "$ROOT/Board" -B "$1" -G Ninja -DDNSWARD_APK="$APK" \
    -DDNSWARD_FEED_KEY="$WORK/feed-key.pem" -DDNSWARD_USIGN="$USIGN" \
    -DDNSWARD_FEED_USIGN_KEY="$WORK/feed-usign.sec" "${tls_option[@]}" >"$WORK/configure.log" 2>&1 ||
    { cat "$WORK/configure.log"; fail "configuring $1"; }
  TMPDIR=$WORK/tmp cmake --build "$1" --target release >"$WORK/release.log" 2>&1 ||
    { tail -60 "$WORK/release.log"; fail "cmake --build $1 --target release"; }
  grep '==> release' "$WORK/release.log"
}

step "1. the release ($RELEASE_DIR)"
release "$RELEASE_DIR"
OUT=$RELEASE_DIR/release
arches=(aarch64_generic aarch64_cortex-a53 aarch64_cortex-a72 aarch64_cortex-a76
  arm_cortex-a7_neon-vfpv4 arm_cortex-a7_vfpv4 arm_cortex-a8_vfpv3 arm_cortex-a9_neon
  arm_cortex-a9_vfpv3-d16 arm_cortex-a15_neon-vfpv4 x86_64)
VERSION=$(release_version)
expected=(openwrt/dnsward-feed.pem openwrt/dnsward-feed.usign.pub debian/dnsward_"$VERSION"_{arm64,armhf,amd64}.deb)
for arch in "${arches[@]}"; do
  expected+=("openwrt/$arch/dnsward_$VERSION-r1_$arch.ipk" "openwrt/$arch/dnsward-$VERSION-r1.apk"
    "openwrt/$arch/Packages" "openwrt/$arch/Packages.gz" "openwrt/$arch/Packages.sig"
    "openwrt/$arch/packages.adb")
  if [[ -n $MBEDTLS && $arch == aarch64_* ]]; then
    expected+=("openwrt/$arch/dnsward-tls_$VERSION-r1_$arch.ipk" "openwrt/$arch/dnsward-tls-$VERSION-r1.apk")
  fi
done
listed=$(cut -d' ' -f3 <"$OUT/SHA256SUMS" | LC_ALL=C sort)
[[ $listed == "$(printf '%s\n' "${expected[@]}" | LC_ALL=C sort)" ]] ||
  fail "SHA256SUMS lists other files than expected: $(diff <(printf '%s\n' "${expected[@]}" | LC_ALL=C sort) <(echo "$listed"))"
(cd "$OUT" && sha256sum --quiet -c SHA256SUMS) || fail "sha256sum -c SHA256SUMS"
echo "  ok  ${#expected[@]} files, SHA256SUMS verified"
for arch in "${arches[@]}"; do
  grep -qx "Package: dnsward" "$OUT/openwrt/$arch/Packages" || fail "$arch/Packages has no dnsward"
  grep -qx "Architecture: $arch" "$OUT/openwrt/$arch/Packages" || fail "$arch/Packages: not $arch"
  grep -qx "Filename: dnsward_$VERSION-r1_$arch.ipk" "$OUT/openwrt/$arch/Packages" ||
    fail "$arch/Packages: no Filename"
  grep -q "^arch: $arch\$" <("$APK" adbdump "$OUT/openwrt/$arch/dnsward-$VERSION-r1.apk" | sed 's/^ *//') ||
    fail "$arch: the .apk's arch is not $arch"
done
# opkg's indexes verify with the public key as a router keeps it.
mkdir -p "$WORK/opkg-keys"
cp "$OUT/openwrt/dnsward-feed.usign.pub" "$WORK/opkg-keys/$("$USIGN" -F -p "$OUT/openwrt/dnsward-feed.usign.pub")"
for arch in "${arches[@]}"; do
  "$USIGN" -V -q -m "$OUT/openwrt/$arch/Packages" -x "$OUT/openwrt/$arch/Packages.sig" -P "$WORK/opkg-keys" ||
    fail "$arch/Packages.sig does not verify"
done
# The apk index is signed by the feed key and names the package.
index=$("$APK" adbdump "$OUT/openwrt/x86_64/packages.adb")
grep -q 'name: dnsward' <<<"$index" || fail "x86_64/packages.adb does not name dnsward: $index"
echo "  ok  every Packages and .apk names its architecture; packages.adb indexes dnsward"

step "2. the OpenWrt binaries run"
port=$(free_port 27353)
# run_binary NAME RUNNER...: --version, then one query answered from the
# binary's compiled-in override (no upstream needed).
run_binary() {
  local name=$1 version pid answer
  shift
  version=$("$@" --version) || fail "$name: --version"
  grep -q "; DNSSEC, " <<<"$version" || fail "$name: --version does not name DNSSEC: $version"
  [[ $name != *tls* ]] || grep -q ", TLS (DoT, DoH), " <<<"$version" || fail "$name: --version does not name TLS: $version"
  printf 'listen 127.0.0.1:%s\nupstream udp 127.0.0.1:9\noverride release.test 192.0.2.7\n' "$port" \
    >"$WORK/run.conf"
  "$@" --config "$WORK/run.conf" >"$WORK/run.log" 2>&1 &
  pid=$!
  track "$pid"
  answer=""
  for _ in $(seq 1 50); do
    answer=$(dig +short +tries=1 +time=1 -p "$port" @127.0.0.1 release.test 2>/dev/null || true)
    [[ $answer == 192.0.2.7 ]] && break
    sleep 0.2
  done
  stop_process "$pid"
  [[ $answer == 192.0.2.7 ]] || { cat "$WORK/run.log"; fail "$name did not answer"; }
  echo "  ok  $name: $version"
}
unpack() {
  mkdir -p "$WORK/unpacked/$1"
  tar -xzOf "$OUT/openwrt/$1/dnsward_$VERSION-r1_$1.ipk" ./data.tar.gz | tar -xzf - -C "$WORK/unpacked/$1"
  echo "$WORK/unpacked/$1/usr/sbin/dnsward"
}
run_binary x86_64 "$(unpack x86_64)"
run_binary aarch64 qemu-aarch64 "$(unpack aarch64_generic)"
run_binary armv7 qemu-arm "$(unpack arm_cortex-a7_neon-vfpv4)"
if [[ -n $MBEDTLS ]]; then
  tls_control=$(tar -xzOf "$OUT/openwrt/aarch64_generic/dnsward-tls_$VERSION-r1_aarch64_generic.ipk" \
    ./control.tar.gz | tar -xzOf - ./control)
  grep -qx 'Depends: libc, libmbedtls21' <<<"$tls_control" || fail "dnsward-tls control: $tls_control"
  # (The dump names libmbedtls21 only among the dependencies.)
  "$APK" adbdump "$OUT/openwrt/aarch64_generic/dnsward-tls-$VERSION-r1.apk" | grep -q libmbedtls21 ||
    fail "dnsward-tls .apk does not depend on libmbedtls21"
  mkdir -p "$WORK/unpacked/tls"
  tar -xzOf "$OUT/openwrt/aarch64_generic/dnsward-tls_$VERSION-r1_aarch64_generic.ipk" ./data.tar.gz |
    tar -xzf - -C "$WORK/unpacked/tls"
  headers=$(readelf -lW "$WORK/unpacked/tls/usr/sbin/dnsward")
  grep -qF '[Requesting program interpreter: /lib/ld-musl-aarch64.so.1]' <<<"$headers" ||
    fail "dnsward-tls's binary does not load musl's loader"
  run_binary "aarch64 dnsward-tls" qemu-aarch64 -L "$MBEDTLS/qemu-root" "$WORK/unpacked/tls/usr/sbin/dnsward"
fi

step "3. a second release from scratch is the same, byte for byte"
release "$WORK/second"
cmp -s "$OUT/SHA256SUMS" "$WORK/second/release/SHA256SUMS" ||
  fail "the second release differs: $(diff "$OUT/SHA256SUMS" "$WORK/second/release/SHA256SUMS")"
echo "  ok  $(wc -l <"$OUT/SHA256SUMS") files identical"
rm -rf "$WORK/second"

step "4. nothing left in TMPDIR"
left=$(find "$WORK/tmp" -mindepth 1 | head -5)
[[ -z $left ]] || fail "the builds left in TMPDIR: $left"
echo "  ok  empty"

step "sizes (bytes)"
for file in openwrt/aarch64_generic/dnsward-"$VERSION"-r1.apk openwrt/aarch64_generic/dnsward_"$VERSION"-r1_aarch64_generic.ipk \
  openwrt/arm_cortex-a7_neon-vfpv4/dnsward-"$VERSION"-r1.apk openwrt/x86_64/dnsward-"$VERSION"-r1.apk \
  debian/dnsward_"$VERSION"_arm64.deb debian/dnsward_"$VERSION"_armhf.deb debian/dnsward_"$VERSION"_amd64.deb; do
  printf '  %-60s %9d\n' "$file" "$(stat -c %s "$OUT/$file")"
done
if [[ -n $MBEDTLS ]]; then
  printf '  %-60s %9d\n' "openwrt/aarch64_generic/dnsward-tls-$VERSION-r1.apk" \
    "$(stat -c %s "$OUT/openwrt/aarch64_generic/dnsward-tls-$VERSION-r1.apk")"
fi
for tree in openwrt-aarch64 openwrt-aarch64-tls openwrt-armv7 openwrt-x86_64 arm64 armhf amd64; do
  [[ -e $RELEASE_DIR/trees/$tree/dnsward.stripped ]] || continue
  printf '  %-60s %9d\n' "trees/$tree/dnsward.stripped" "$(stat -c %s "$RELEASE_DIR/trees/$tree/dnsward.stripped")"
done
step "done"
