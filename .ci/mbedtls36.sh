#!/usr/bin/env bash
# mbedTLS 3.6 (OpenWrt 24.10's version) beside Debian 12's 2.28, for building
# and testing dnsward's TLS module against both. Debian 13 (trixie) ships 3.6:
# its packages are fetched with apt through a sources list of their own,
# used only to download (nothing is installed, the system's apt state and its
# 2.28 packages are untouched), and unpacked with dpkg-deb -x into PREFIX:
#
#   PREFIX/include/{mbedtls,psa}/          headers (libmbedtls-dev)
#   PREFIX/lib/x86_64-linux-gnu/           amd64 .so and .a
#   PREFIX/lib/aarch64-linux-gnu/          arm64 (glibc) .so and .a
#   PREFIX/src/mbedtls-3.6.*/              the upstream source (.orig tarball),
#                                          for the musl build (mbedtls36-musl.sh)
#
# Idempotent: a PREFIX that holds a complete unpack (PREFIX/.complete) is
# reused. Bounded: every download has a timeout. Prints the version unpacked.
#
#   bash .ci/mbedtls36.sh [PREFIX]      (default /opt/mbedtls-3.6)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PREFIX=${1:-${MBEDTLS36_PREFIX:-/opt/mbedtls-3.6}}

print_version() {
  sed -n 's/^#define MBEDTLS_VERSION_STRING[[:space:]]*"\(.*\)"/\1/p' \
    "$PREFIX/include/mbedtls/build_info.h"
}

if [[ -e $PREFIX/.complete ]]; then
  echo "mbedTLS $(print_version) already in $PREFIX"
  exit 0
fi

# The mirror the machine's own sources use (deb.debian.org unless configured
# otherwise), with the trixie suite. Debian 12's debian-archive-keyring
# already carries the trixie signing keys.
MIRROR=$(grep -hoE 'https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
  /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1 | tr -d ' ' || true)
MIRROR=${MIRROR:-http://deb.debian.org/debian}
MIRROR=${MIRROR%/}
KEYRING=/usr/share/keyrings/debian-archive-trixie-stable.gpg
if [[ ! -e $KEYRING ]]; then
  KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
fi

work_dir
mkdir -p "$WORK/lists/partial" "$WORK/cache/archives/partial" "$WORK/debs"
cat >"$WORK/trixie.list" <<LIST
deb [signed-by=$KEYRING] $MIRROR trixie main
deb-src [signed-by=$KEYRING] $MIRROR trixie main
LIST
APT_OPTIONS=(
  -q
  -o "Dir::Etc::SourceList=$WORK/trixie.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$WORK/lists" -o "Dir::Cache=$WORK/cache"
  -o APT::Architectures::=amd64 -o APT::Architectures::=arm64
  -o Acquire::http::Timeout=30 -o Acquire::Retries=2
  -o APT::Sandbox::User=root
)
echo "== apt-get update (trixie from $MIRROR, a private list)"
timeout 300 apt-get "${APT_OPTIONS[@]}" update >/dev/null

echo "== apt-get download: libmbedtls-dev and its libraries, amd64 and arm64"
cd "$WORK/debs"
packages=()
for arch in amd64 arm64; do
  for name in libmbedtls-dev libmbedtls21 libmbedx509-7 libmbedcrypto16; do
    packages+=("$name:$arch/trixie")
  done
done
timeout 300 apt-get "${APT_OPTIONS[@]}" download "${packages[@]}" >/dev/null
echo "== apt-get source --download-only mbedtls (the .orig tarball)"
timeout 300 apt-get "${APT_OPTIONS[@]}" source --download-only mbedtls/trixie >/dev/null

mkdir -p "$WORK/root"
for deb in ./*.deb; do dpkg-deb -x "$deb" "$WORK/root"; done
version=$(sed -n 's/^#define MBEDTLS_VERSION_STRING[[:space:]]*"\(.*\)"/\1/p' \
  "$WORK/root/usr/include/mbedtls/build_info.h")
case $version in
  3.6.*) ;;
  *) fail "expected mbedTLS 3.6.x from trixie, got '$version'" ;;
esac

rm -rf "$PREFIX"
mkdir -p "$PREFIX/src"
cp -a "$WORK/root/usr/include" "$WORK/root/usr/lib" "$PREFIX/"
# Python's tarfile reads .bz2 itself: no bzip2 package needed.
python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
  ./mbedtls_*.orig.tar.* "$PREFIX/src"
touch "$PREFIX/.complete"
echo "mbedTLS $(print_version) in $PREFIX"
