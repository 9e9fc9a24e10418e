#!/usr/bin/env bash
# DoT/DoH against mbedTLS 3.6 (OpenWrt 24.10's; TLS 1.3) as well as Debian
# 12's 2.28, which the rest of CI uses:
#
#   1. .ci/mbedtls36.sh: Debian 13's mbedTLS 3.6 packages unpacked into
#      PREFIX (default /opt/mbedtls-3.6), the system's 2.28 untouched;
#   2. the TLS trait build against it, in its own scratch path
#      (.build-tls36): its headers first on the include path, its libraries
#      first on the link path and in the binaries' run path, so the test
#      binary and the dnsward it starts load 3.6 (sonames .21/.7/.16, not
#      2.28's .14/.1/.7);
#   3. TLSTests and TLSUpstreamTests against it, with DNSWARD_EXPECT_MBEDTLS
#      set so the suite fails if the library loaded is not 3.6; they check
#      TLS 1.3 is negotiated with openssl s_server and resumed by ticket;
#   4. unless SKIP_MUSL=1, .ci/mbedtls36-musl.sh: the aarch64 musl firmware,
#      dynamic, against 3.6 built from source, doing DoT under qemu; then
#      TLSUpstreamTests (DoT and DoH against dnsdist) with that firmware as
#      the binary under test, under qemu-aarch64 with the musl root that
#      script made (its loader and the 3.6 .so files, as on OpenWrt).
#
#   bash .ci/tls36.sh [PREFIX]
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/lib.sh
PREFIX=${1:-${MBEDTLS36_PREFIX:-/opt/mbedtls-3.6}}

bash .ci/mbedtls36.sh "$PREFIX"
LIBDIR=$PREFIX/lib/$(uname -m)-linux-gnu
FLAGS=(--traits TLS --scratch-path .build-tls36
  -Xcc -I"$PREFIX/include" -Xlinker -L"$LIBDIR" -Xlinker -rpath -Xlinker "$LIBDIR")

echo "== swift build --traits TLS against mbedTLS 3.6 ($PREFIX)"
swift build --build-tests "${FLAGS[@]}"

echo "== swift test --traits TLS against mbedTLS 3.6: TLSTests and TLSUpstreamTests"
DNSWARD_EXPECT_MBEDTLS=3.6 swift test --skip-build "${FLAGS[@]}" \
  --filter 'TLSTests|TLSUpstreamTests'

if [[ ${SKIP_MUSL:-0} != 1 ]]; then
  echo "== aarch64 musl firmware, dynamic, mbedTLS 3.6: DoT under qemu"
  FIRMWARE=$(mktemp -d)
  remove_on_exit "$FIRMWARE"
  BUILD_DIR=$FIRMWARE bash .ci/mbedtls36-musl.sh "$PREFIX"
  echo "== TLSUpstreamTests against that firmware under qemu-aarch64"
  DNSWARD_TEST_BINARY=$FIRMWARE/aarch64-musl-tls36/dnsward.stripped \
    DNSWARD_TEST_RUNNER="qemu-aarch64 -L $PREFIX/aarch64-linux-musl/qemu-root" \
    swift test --skip-build "${FLAGS[@]}" --filter TLSUpstreamTests

  # The OpenWrt package of that firmware: dnsward-tls, which loads musl and
  # OpenWrt's libmbedtls (3.6: libmbedtls21) instead of carrying them.
  echo "== the dnsward-tls .ipk of that firmware"
  # (.ci/mbedtls36-musl.sh built it beside the firmware.)
  PACKAGE=$(ls "$FIRMWARE"/aarch64-musl-tls36/dnsward-tls_*_aarch64_generic.ipk)
  mkdir "$FIRMWARE/ipk" && tar -xzf "$PACKAGE" -C "$FIRMWARE/ipk"
  CONTROL=$(tar -xzOf "$FIRMWARE/ipk/control.tar.gz" ./control)
  for line in "Package: dnsward-tls" "Depends: libc, libmbedtls21" "Provides: dnsward"; do
    grep -qxF "$line" <<<"$CONTROL" || fail "no '$line' in: $CONTROL"
  done
  tar -xzf "$FIRMWARE/ipk/data.tar.gz" -C "$FIRMWARE/ipk" ./usr/sbin/dnsward
  HEADERS=$(readelf -lW "$FIRMWARE/ipk/usr/sbin/dnsward")
  grep -qF "[Requesting program interpreter: /lib/ld-musl-aarch64.so.1]" <<<"$HEADERS" ||
    fail "the packaged binary does not load musl's loader"
  echo "$(basename "$PACKAGE"): $(stat -c %s "$PACKAGE") bytes, Depends: libc, libmbedtls21"
fi
