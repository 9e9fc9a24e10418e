#!/usr/bin/env bash
# The OpenWrt-style DoT/DoH firmware: aarch64, musl, linked dynamically
# against mbedTLS 3.6 shared libraries (OpenWrt 24.10's libmbedtls), proved
# under qemu-aarch64 against a DoT server on loopback.
#
#   1. mbedTLS 3.6 from Debian 13's source (.ci/mbedtls36.sh unpacks it),
#      built for aarch64-linux-musl with musl-dev:arm64's gcc wrapper (the
#      firmware's own C compiler, Toolchain.cmake), shared and static
#      libraries, into PREFIX/aarch64-linux-musl/{include,lib}; configured
#      as OpenWrt's libmbedtls package is by default (its Config.in: TLS 1.2
#      and 1.3, fewer ciphers and curves, no MBEDTLS_VERSION_C, ...), so the
#      firmware meets the library a router has. Skipped when already there.
#   2. a root for qemu's -L, PREFIX/aarch64-linux-musl/qemu-root (made
#      afresh each run, kept for other suites to run the firmware with):
#      lib/ld-musl-aarch64.so.1 (musl:arm64's libc.so, which is musl's
#      loader) and usr/lib/libmbed*.so.* stripped, where OpenWrt has them.
#   3. the firmware (-DDNSWARD_LIBC=musl -DDNSWARD_MUSL_DYNAMIC=ON
#      -DDNSWARD_TLS=ON) with a loopback test config; checks its interpreter
#      and its NEEDED mbedTLS sonames.
#   4. Knot on loopback behind dnsdist's DoT listener (a certificate from a
#      CA made here), dnsward under qemu with that as its only upstream
#      (`upstream tls`): dig through dnsward must get Knot's answers. dnsdist
#      drops a DoT connection idle for 2 s, so a question after 3 s needs a
#      new handshake, which must resume the first one's session: the
#      counters line (SIGUSR1) must say tls-handshakes 2 tls-resumptions 1
#      tls-refused 0.
#   5. sizes: the firmware stripped, and the stripped .so files.
#
#   bash .ci/mbedtls36-musl.sh [PREFIX]     (default /opt/mbedtls-3.6)
# BUILD_DIR (default a temporary directory) keeps the firmware build tree.
# Needs: musl-dev:arm64, qemu-user, knot, dnsdist, dnsutils, openssl, cmake,
# ninja-build, binutils-aarch64-linux-gnu, and the Swift toolchain.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
PREFIX=${1:-${MBEDTLS36_PREFIX:-/opt/mbedtls-3.6}}
MUSL=$PREFIX/aarch64-linux-musl
STRIP=aarch64-linux-gnu-strip

need aarch64-linux-musl-gcc qemu-aarch64 $STRIP cmake ninja knotd dnsdist dig openssl

[[ -e $PREFIX/.complete ]] || bash "$ROOT/.ci/mbedtls36.sh" "$PREFIX"
SOURCE=$(echo "$PREFIX"/src/mbedtls-3.6.*)
[[ -e $SOURCE/CMakeLists.txt ]] || fail "no mbedTLS 3.6 source in $PREFIX/src"

work_dir
BUILD=${BUILD_DIR:-$WORK/build}
mkdir -p "$BUILD"

# --- 1. mbedTLS 3.6 for aarch64 musl -----------------------------------------
# OpenWrt's libmbedtls defaults (package/libs/mbedtls/Config.in), as
# mbedtls_config.h options: the ones it turns on, then the ones it turns off.
OPENWRT_ON=(AES_C CMAC_C DES_C GCM_C NIST_KW_C RSA_NO_CRT HKDF_C
  KEY_EXCHANGE_PSK_ENABLED KEY_EXCHANGE_ECDHE_PSK_ENABLED KEY_EXCHANGE_ECDHE_RSA_ENABLED
  KEY_EXCHANGE_ECDHE_ECDSA_ENABLED ECP_DP_SECP256R1_ENABLED ECP_DP_SECP384R1_ENABLED
  ECP_DP_SECP521R1_ENABLED ECP_DP_SECP256K1_ENABLED ECP_DP_CURVE25519_ENABLED
  ENTROPY_FORCE_SHA256 THREADING_C THREADING_PTHREAD PSA_CRYPTO_CLIENT
  SSL_PROTO_TLS1_2 SSL_PROTO_TLS1_3 SSL_TLS1_3_COMPATIBILITY_MODE
  SSL_TLS1_3_KEY_EXCHANGE_MODE_PSK_ENABLED SSL_TLS1_3_KEY_EXCHANGE_MODE_EPHEMERAL_ENABLED
  SSL_TLS1_3_KEY_EXCHANGE_MODE_PSK_EPHEMERAL_ENABLED)
OPENWRT_OFF=(ARIA_C CAMELLIA_C CCM_C RIPEMD160_C KEY_EXCHANGE_DHE_PSK_ENABLED
  KEY_EXCHANGE_RSA_PSK_ENABLED KEY_EXCHANGE_RSA_ENABLED KEY_EXCHANGE_DHE_RSA_ENABLED
  KEY_EXCHANGE_ECDH_ECDSA_ENABLED KEY_EXCHANGE_ECDH_RSA_ENABLED KEY_EXCHANGE_ECJPAKE_ENABLED
  ECP_DP_SECP192R1_ENABLED ECP_DP_SECP224R1_ENABLED ECP_DP_SECP192K1_ENABLED
  ECP_DP_SECP224K1_ENABLED ECP_DP_BP256R1_ENABLED ECP_DP_BP384R1_ENABLED
  ECP_DP_BP512R1_ENABLED ECP_DP_CURVE448_ENABLED CIPHER_MODE_OFB CIPHER_MODE_XTS DEBUG_C
  PLATFORM_C SELF_TEST VERSION_C VERSION_FEATURES DEPRECATED_WARNING SSL_RENEGOTIATION)

if [[ ! -e $MUSL/.complete ]]; then
  step "mbedTLS $(basename "$SOURCE") for aarch64-linux-musl (OpenWrt's options; shared and static)"
  rm -rf "$MUSL"
  cp -a "$SOURCE" "$WORK/mbedtls-src"
  for option in "${OPENWRT_ON[@]}"; do
    python3 "$WORK/mbedtls-src/scripts/config.py" -f "$WORK/mbedtls-src/include/mbedtls/mbedtls_config.h" set "MBEDTLS_$option"
  done
  for option in "${OPENWRT_OFF[@]}"; do
    python3 "$WORK/mbedtls-src/scripts/config.py" -f "$WORK/mbedtls-src/include/mbedtls/mbedtls_config.h" unset "MBEDTLS_$option"
  done
  # GEN_FILES=OFF: the release tarball carries the generated sources. No
  # tests or programs: only the three libraries. -Os, as OpenWrt builds.
  cmake -S "$WORK/mbedtls-src" -B "$WORK/mbedtls" -G Ninja \
    -DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=aarch64 \
    -DCMAKE_C_COMPILER=aarch64-linux-musl-gcc -DCMAKE_BUILD_TYPE=MinSizeRel \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
    -DCMAKE_INSTALL_PREFIX="$MUSL" -DCMAKE_INSTALL_LIBDIR=lib \
    -DENABLE_TESTING=OFF -DENABLE_PROGRAMS=OFF -DGEN_FILES=OFF -DMBEDTLS_FATAL_WARNINGS=OFF \
    -DUSE_SHARED_MBEDTLS_LIBRARY=ON -DUSE_STATIC_MBEDTLS_LIBRARY=ON \
    >"$WORK/mbedtls.configure.log" 2>&1 || { cat "$WORK/mbedtls.configure.log"; fail "mbedTLS configure"; }
  cmake --build "$WORK/mbedtls" >"$WORK/mbedtls.build.log" 2>&1 ||
    { tail -50 "$WORK/mbedtls.build.log"; fail "mbedTLS build"; }
  cmake --install "$WORK/mbedtls" >/dev/null
  touch "$MUSL/.complete"
fi
VERSION=$(sed -n 's/^#define MBEDTLS_VERSION_STRING[[:space:]]*"\(.*\)"/\1/p' "$MUSL/include/mbedtls/build_info.h")
echo "mbedTLS $VERSION for aarch64 musl in $MUSL"

# --- 2. the qemu root, laid out as on OpenWrt --------------------------------
QEMU_ROOT=$MUSL/qemu-root
rm -rf "$QEMU_ROOT"
mkdir -p "$QEMU_ROOT/lib" "$QEMU_ROOT/usr/lib" "$QEMU_ROOT/etc"
cp /usr/lib/aarch64-linux-musl/libc.so "$QEMU_ROOT/lib/ld-musl-aarch64.so.1"
# musl's loader reads its search path from /etc/ld-musl-aarch64.path, which
# qemu would otherwise take from the host (musl:arm64's, naming multiarch
# folders); OpenWrt's libraries are in /lib and /usr/lib.
printf '/lib\n/usr/lib\n' >"$QEMU_ROOT/etc/ld-musl-aarch64.path"
for library in "$MUSL"/lib/libmbed*.so.*; do
  if [[ -L $library ]]; then
    cp -P "$library" "$QEMU_ROOT/usr/lib/"
  else
    $STRIP --strip-unneeded -o "$QEMU_ROOT/usr/lib/$(basename "$library")" "$library"
  fi
done

# --- 3. the firmware -----------------------------------------------------------
PORT=$(free_port "${DNSWARD_FW_PORT:-26353}")
KNOT_PORT=$(free_port $((PORT + 1)))
DOT_PORT=$(free_port $((KNOT_PORT + 1)))
DNSDIST_PORT=$(free_port $((DOT_PORT + 1)))

# A CA and a certificate for dns.test from it (P-256, valid 2 days).
CERTS=$WORK/certs
mkdir -p "$CERTS"
(
  cd "$CERTS"
  ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
  openssl req -x509 "${ec[@]}" -keyout ca.key -out ca.pem -days 2 -subj '/CN=dnsward test CA' \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign
  openssl req "${ec[@]}" -keyout dns.key -out dns.csr -subj /CN=dns.test
  printf 'subjectAltName=DNS:dns.test\n' >san.ext
  openssl x509 -req -in dns.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
    -extfile san.ext -out dns.pem
) >"$WORK/openssl.log" 2>&1 || { cat "$WORK/openssl.log"; fail "openssl could not make the certificates"; }

# The compiled-in config is a placeholder; the run below passes --config.
CONFIG=$WORK/dnsward.conf
cat >"$CONFIG" <<CONF
# generated by .ci/mbedtls36-musl.sh: loopback only
listen 127.0.0.1:$PORT
allow 127.0.0.0/8
upstream tls 127.0.0.1:$DOT_PORT name=dns.test
ca-file $CERTS/ca.pem
timeout 3000ms
log info
CONF

FIRMWARE=$BUILD/aarch64-musl-tls36
step "firmware: aarch64, musl, dynamic, TLS (mbedTLS $VERSION)"
cmake -S "$ROOT/Board" -B "$FIRMWARE" -G Ninja -DDNSWARD_TARGET=aarch64 -DDNSWARD_LIBC=musl \
  -DDNSWARD_MUSL_DYNAMIC=ON -DDNSWARD_TLS=ON -DDNSWARD_MBEDTLS_INCLUDE="$MUSL/include" \
  -DDNSWARD_MBEDTLS_LIBDIR="$MUSL/lib" -DDNSWARD_CONFIG="$CONFIG" \
  >"$FIRMWARE.configure.log" 2>&1 || { cat "$FIRMWARE.configure.log"; fail "firmware configure"; }
cmake --build "$FIRMWARE" || fail "firmware build"
BINARY=$FIRMWARE/dnsward.stripped
# Its OpenWrt package (dnsward-tls), while the config it was built with is
# still here: .ci/tls36.sh checks it.
cmake --build "$FIRMWARE" --target ipk >"$FIRMWARE.ipk.log" 2>&1 ||
  { cat "$FIRMWARE.ipk.log"; fail "the ipk target"; }

HEADERS=$(aarch64-linux-gnu-readelf -l -d "$BINARY")
grep -q 'Requesting program interpreter: /lib/ld-musl-aarch64.so.1' <<<"$HEADERS" ||
  fail "the interpreter is not musl's /lib/ld-musl-aarch64.so.1"
for soname in $(cd "$MUSL/lib" && for l in libmbedtls libmbedx509 libmbedcrypto; do
  aarch64-linux-gnu-readelf -d "$l.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p'
done); do
  grep -q "(NEEDED).*\[$soname\]" <<<"$HEADERS" || fail "the firmware does not need $soname"
done
echo "interpreter and NEEDED:"
grep -E 'interpreter|NEEDED' <<<"$HEADERS" | sed 's/^ */  /'

# --- 4. DoT through the firmware under qemu -----------------------------------
step "DoT: dig -> dnsward (qemu-aarch64, musl, mbedTLS $VERSION) -> dnsdist DoT -> Knot"
start_knot "$KNOT_PORT"
cat >"$WORK/dnsdist.conf" <<CONF
setLocal("127.0.0.1:$DNSDIST_PORT")
setSecurityPollSuffix("")
setTCPRecvTimeout(2)
newServer({address="127.0.0.1:$KNOT_PORT"})
addTLSLocal("127.0.0.1:$DOT_PORT", "$CERTS/dns.pem", "$CERTS/dns.key")
CONF
dnsdist --supervised --disable-syslog -C "$WORK/dnsdist.conf" >"$WORK/dnsdist.log" 2>&1 &
track $!
qemu-aarch64 -L "$QEMU_ROOT" "$BINARY" --config "$CONFIG" >"$WORK/dnsward.log" 2>&1 &
DNSWARD_PID=$!
track "$DNSWARD_PID"
ANSWER=""
for _ in $(seq 1 60); do
  ANSWER=$(dig +short +tries=1 +time=2 @127.0.0.1 -p "$PORT" www.example.test A 2>/dev/null || true)
  [[ $ANSWER == 192.0.2.80 ]] && break
  sleep 0.5
done
if [[ $ANSWER != 192.0.2.80 ]]; then
  cat "$WORK/dnsward.log" "$WORK/dnsdist.log"
  fail "no answer over DoT through the musl firmware (got '$ANSWER')"
fi
# The first question may have taken a few tries while dnsdist started: the
# resumption check starts on a connection of its own.
sleep 3
ANSWER=$(dig +short +tries=1 +time=3 @127.0.0.1 -p "$PORT" alias.example.test A)
grep -q 192.0.2.80 <<<"$ANSWER" || fail "question after a reconnection: got '$ANSWER'"
sleep 3
ANSWER=$(dig +short +tries=1 +time=3 @127.0.0.1 -p "$PORT" www.example.test AAAA)
[[ $ANSWER == 2001:db8::80 ]] || fail "question after another reconnection: got '$ANSWER'"
kill -USR1 "$DNSWARD_PID"
COUNTERS=""
for _ in $(seq 1 20); do
  COUNTERS=$(grep -o 'tls-handshakes [0-9]* tls-resumptions [0-9]* tls-refusals [0-9]*' "$WORK/dnsward.log" | tail -n 1 || true)
  [[ -n $COUNTERS ]] && break
  sleep 0.25
done
echo "dnsward: $COUNTERS"
# Every handshake after the first resumes (the first question may have
# needed more than one connection while dnsdist started).
read -r _ HANDSHAKES _ RESUMED _ REFUSED <<<"$COUNTERS"
if [[ -z $COUNTERS ]] || ((HANDSHAKES < 3 || RESUMED < 2 || REFUSED != 0)); then
  cat "$WORK/dnsward.log"
  fail "expected at least 3 TLS handshakes, the last 2 resumed, none refused"
fi
echo "DoT works through the firmware, and reconnections resume the TLS session"

# --- 5. sizes --------------------------------------------------------------------
step "sizes (bytes, stripped)"
printf '%-40s %10s\n' "firmware (musl dynamic, TLS $VERSION)" "$(stat -c %s "$BINARY")"
for library in "$QEMU_ROOT"/usr/lib/libmbed*.so.*; do
  [[ -L $library ]] || printf '%-40s %10s\n' "$(basename "$library")" "$(stat -c %s "$library")"
done
