#!/usr/bin/env bash
# release-build.sh — every package of a release from one command:
# `cmake --build BUILD --target release` (release-target.cmake) runs it with
# its settings in the environment:
#
#   RELEASE_SOURCE_ROOT  the repository
#   RELEASE_OUT          where the release goes (BUILD/release), made anew
#   RELEASE_TREES        where the firmware build trees live (BUILD/trees),
#                        kept: a second run rebuilds only what changed
#   RELEASE_VERSION      the packages' version (DNSWARD_PACKAGE_VERSION)
#   RELEASE_APK          apk-tools v3's `apk` (mkpkg, mkndx); empty: no .apk
#   RELEASE_FEED_KEY     a private key (PEM) that signs the apk indexes;
#                        empty: they are unsigned
#   RELEASE_USIGN, RELEASE_FEED_USIGN_KEY
#                        usign and a secret key of its own that sign opkg's
#                        indexes (Packages.sig); empty: unsigned
#   RELEASE_OPENWRT_ARCHES_aarch64, _armv7, _x86_64
#                        the OpenWrt architecture names (DISTRIB_ARCH) each
#                        binary is packaged for, separated by ';'
#   RELEASE_MBEDTLS_aarch64, _armv7, _x86_64
#                        mbedTLS built for that target's musl (a folder with
#                        include/ and lib/, as OpenWrt's libmbedtls is): the
#                        release then also has dnsward-tls for it, linked
#                        dynamically against the router's musl and mbedTLS;
#                        empty: no dnsward-tls for that target
#
# What it makes, in RELEASE_OUT:
#
#   openwrt/ARCH/   dnsward's .ipk and .apk for that OpenWrt architecture
#                   (and dnsward-tls's, where its mbedTLS was given),
#                   Packages, Packages.gz (and Packages.sig) (opkg's index)
#                   and packages.adb (apk's): each folder is a package feed
#                   as it is (feed-index.sh)
#   openwrt/dnsward-feed.pem, openwrt/dnsward-feed.usign.pub
#                   the public keys a router needs to trust the feeds
#   debian/         dnsward_VERSION_{arm64,armhf,amd64}.deb
#   SHA256SUMS      of every file above, by path
#
# Every package validates DNSSEC (the trees are configured with
# -DDNSWARD_DNSSEC=ON, as their configs say `dnssec auto`). A binary is built
# once per target and packaged under each of its architecture names: OpenWrt
# names a CPU's variants apart (aarch64_cortex-a53, aarch64_cortex-a72, ...)
# and opkg and apk install only the names a router lists, but the static
# binary is the same for all of them.
#
# Reproducible: the trees build from the commit's sources alone, the packages
# are made with one time stamp (SOURCE_DATE_EPOCH, else the commit's time)
# and sorted members; the same commit gives the same bytes.
set -euo pipefail

fail() {
  echo "release-build.sh: $*" >&2
  exit 1
}
step() { printf '\n==> release: %s  [%ds]\n' "$*" "$SECONDS"; }

for variable in RELEASE_SOURCE_ROOT RELEASE_OUT RELEASE_TREES RELEASE_VERSION; do
  [[ -n ${!variable:-} ]] || fail "$variable is not set (run through cmake --build BUILD --target release)"
done
ROOT=$RELEASE_SOURCE_ROOT
SECONDS=0
if [[ -z ${SOURCE_DATE_EPOCH:-} ]]; then
  SOURCE_DATE_EPOCH=$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null) ||
    fail "no SOURCE_DATE_EPOCH and no git commit to take the time stamp from"
fi
export SOURCE_DATE_EPOCH
# (RELEASE_APK is checked where it is used: each tree's apk target refuses
# one that is not apk-tools 3, saying how to get it.)

# configure TREE CMAKE-OPTIONS...: a build tree of the release's firmware.
configure() {
  local tree=$RELEASE_TREES/$1
  shift
  mkdir -p "$tree"
  cmake -S "$ROOT/Board" -B "$tree" -G Ninja -DDNSWARD_DNSSEC=ON \
    -DDNSWARD_PACKAGE_VERSION="$RELEASE_VERSION" ${RELEASE_APK:+-DDNSWARD_APK="$RELEASE_APK"} "$@" \
    >"$tree.configure.log" 2>&1 || { cat "$tree.configure.log" >&2; fail "configuring $tree"; }
}

# build TREE [TARGET...]: the firmware (and the given package targets).
build() {
  local tree=$RELEASE_TREES/$1
  shift
  cmake --build "$tree" "$@" >"$tree.build.log" 2>&1 || { tail -40 "$tree.build.log" >&2; fail "building $tree $*"; }
}

rm -rf "$RELEASE_OUT"
mkdir -p "$RELEASE_OUT/openwrt" "$RELEASE_OUT/debian"

# --- OpenWrt: one tree per CPU, packaged under each name ----------------------
# openwrt_packages TREE ARCH...: the tree's .ipk and .apk under each name,
# into openwrt/ARCH/. Only the architecture name changes from one to the
# next: nothing is recompiled.
openwrt_packages() {
  local tree=$1 arch targets
  shift
  for arch in "$@"; do
    configure "$tree" -DDNSWARD_OPENWRT_ARCH="$arch"
    rm -f "$RELEASE_TREES/$tree"/*.ipk "$RELEASE_TREES/$tree"/*.apk
    targets=(--target ipk)
    [[ -z ${RELEASE_APK:-} ]] || targets+=(--target apk)
    build "$tree" "${targets[@]}"
    mkdir -p "$RELEASE_OUT/openwrt/$arch"
    find "$RELEASE_TREES/$tree" -maxdepth 1 -type f \( -name '*.ipk' -o -name '*.apk' \) \
      -exec cp {} "$RELEASE_OUT/openwrt/$arch/" \;
  done
}

for target in aarch64 armv7 x86_64; do
  arches_variable=RELEASE_OPENWRT_ARCHES_$target
  IFS=';' read -r -a arches <<<"${!arches_variable:-}"
  ((${#arches[@]})) || continue
  step "OpenWrt $target (static musl, DNSSEC): ${arches[*]}"
  configure "openwrt-$target" -DDNSWARD_TARGET="$target" -DDNSWARD_LIBC=musl -DDNSWARD_OPENWRT_ARCH="${arches[0]}"
  build "openwrt-$target"
  openwrt_packages "openwrt-$target" "${arches[@]}"

  mbedtls_variable=RELEASE_MBEDTLS_$target
  mbedtls=${!mbedtls_variable:-}
  [[ -n $mbedtls ]] || continue
  [[ -e $mbedtls/include/mbedtls/ssl.h && -d $mbedtls/lib ]] ||
    fail "$mbedtls_variable=$mbedtls holds no include/mbedtls/ssl.h and lib/"
  step "OpenWrt $target dnsward-tls (musl and mbedTLS dynamic, DNSSEC): ${arches[*]}"
  configure "openwrt-$target-tls" -DDNSWARD_TARGET="$target" -DDNSWARD_LIBC=musl -DDNSWARD_MUSL_DYNAMIC=ON \
    -DDNSWARD_TLS=ON -DDNSWARD_MBEDTLS_INCLUDE="$mbedtls/include" -DDNSWARD_MBEDTLS_LIBDIR="$mbedtls/lib" \
    -DDNSWARD_OPENWRT_ARCH="${arches[0]}"
  build "openwrt-$target-tls"
  openwrt_packages "openwrt-$target-tls" "${arches[@]}"
done

# --- Debian: glibc, dynamic ---------------------------------------------------
# arm64 and armhf with segments aligned to 64 KiB (Raspberry Pi 5's 16 KiB
# pages), amd64 from the build machine's own target.
declare -A deb_targets=([arm64]=aarch64 [armhf]=armv7 [amd64]=host)
for deb_arch in arm64 armhf amd64; do
  if [[ $deb_arch == amd64 && $(dpkg --print-architecture 2>/dev/null) != amd64 ]]; then
    echo "release: no amd64 .deb: this build machine is not amd64" >&2
    continue
  fi
  step "Debian $deb_arch (glibc, DNSSEC)"
  page_size=()
  [[ $deb_arch == amd64 ]] || page_size=(-DDNSWARD_MAX_PAGE_SIZE=65536)
  configure "$deb_arch" -DDNSWARD_TARGET="${deb_targets[$deb_arch]}" "${page_size[@]}"
  build "$deb_arch"
  build "$deb_arch" --target deb
  cp "$RELEASE_TREES/$deb_arch"/dnsward_*_"$deb_arch".deb "$RELEASE_OUT/debian/"
done

# --- the feeds' indexes -------------------------------------------------------
step "package indexes"
for folder in "$RELEASE_OUT"/openwrt/*/; do
  FEED_APK=${RELEASE_APK:-} FEED_APK_KEY=${RELEASE_FEED_KEY:-} FEED_USIGN=${RELEASE_USIGN:-} \
    FEED_USIGN_KEY=${RELEASE_FEED_USIGN_KEY:-} bash "$ROOT/Board/packaging/feed-index.sh" "$folder"
done
# The public halves, for the routers: /etc/apk/keys/ on OpenWrt 25.12, and
# /etc/opkg/keys/<fingerprint> (usign -F -p FILE) on 24.10.
if [[ -n ${RELEASE_FEED_KEY:-} ]]; then
  openssl pkey -in "$RELEASE_FEED_KEY" -pubout -out "$RELEASE_OUT/openwrt/dnsward-feed.pem" 2>/dev/null ||
    fail "could not derive the public key of $RELEASE_FEED_KEY"
fi
if [[ -n ${RELEASE_FEED_USIGN_KEY:-} ]]; then
  public=${RELEASE_FEED_USIGN_KEY%.sec}.pub
  [[ $public != "$RELEASE_FEED_USIGN_KEY" && -f $public ]] ||
    fail "no public key beside $RELEASE_FEED_USIGN_KEY (usign -G -s NAME.sec -p NAME.pub makes both)"
  cp "$public" "$RELEASE_OUT/openwrt/dnsward-feed.usign.pub"
fi

(cd "$RELEASE_OUT" && find . -type f ! -name SHA256SUMS | LC_ALL=C sort | sed 's|^\./||' |
  xargs sha256sum >SHA256SUMS)
step "done: $(wc -l <"$RELEASE_OUT/SHA256SUMS") files in $RELEASE_OUT"
cat "$RELEASE_OUT/SHA256SUMS"
