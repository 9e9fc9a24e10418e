# openwrt-packages.sh — the package manager side of the scenarios
# (sourced by openwrt-test.sh): install, upgrade and remove with the real
# opkg (PM=ipk) or apk (PM=apk) inside the rig's root, and the variants of
# the package under test that the scenarios need, made by the project's own
# packaging script from the binary inside the package:
#   NEXT_PACKAGE        the same, one version later (upgrade)
#   WRONG_ARCH_PACKAGE  the same, for aarch64_generic (opkg must refuse it)
# shellcheck shell=bash

# rig_put FILE PATH: FILE from the host into the root (its /tmp is only
# visible inside the rig's mount namespace).
rig_put() {
  rig_sh "mkdir -p '$(dirname "$2")' && cat >'$2'" <"$1"
}

# ipk_field PACKAGE FIELD: a control field of an .ipk.
ipk_field() {
  tar -xzOf "$1" ./control.tar.gz | tar -xzO ./control | sed -n "s/^$2: //p"
}

# next_version VERSION: one release later (VERSION-rN -> VERSION-rN+1).
next_version() {
  if [[ $1 =~ ^(.*-r)([0-9]+)$ ]]; then
    echo "${BASH_REMATCH[1]}$((BASH_REMATCH[2] + 1))"
  else
    echo "$1.1"
  fi
}

# make_variants PM PACKAGE: NEXT_PACKAGE and WRONG_ARCH_PACKAGE from the
# binary in PACKAGE, by the project's own ipk-build.sh or apk-build.sh;
# all three put into the root's /tmp/pkg.
make_variants() {
  local pm=$1 package=$2 dir=$RIG_DIR/variants dnssec=0
  mkdir -p "$dir/data"
  if [[ $pm == ipk ]]; then
    tar -xzOf "$package" ./data.tar.gz | tar -xz -C "$dir/data" ./usr/sbin/dnsward
    PACKAGE_VERSION=$(ipk_field "$package" Version)
    PACKAGE_ARCH=$(ipk_field "$package" Architecture)
    ipk_field "$package" Description | grep -q 'validates DNSSEC' && dnssec=1
  else
    APK_CONFIG=/dev/null "$RIG_USERLAND/bin/apk" extract --allow-untrusted --destination "$dir/data" "$package" >/dev/null
    "$RIG_USERLAND/bin/apk" adbdump "$package" >"$dir/dump"
    PACKAGE_VERSION=$(sed -n 's/^  version: //p' "$dir/dump" | head -1)
    PACKAGE_ARCH=$(sed -n 's/^  arch: //p' "$dir/dump" | head -1)
    grep -q 'validates DNSSEC' "$dir/dump" && dnssec=1
  fi
  NEXT_VERSION=$(next_version "$PACKAGE_VERSION")
  NEXT_PACKAGE=$(package_variant "$pm" "$dir/data/usr/sbin/dnsward" "$dnssec" "$PACKAGE_ARCH" "$NEXT_VERSION" "$dir/next")
  WRONG_ARCH_PACKAGE=$(package_variant "$pm" "$dir/data/usr/sbin/dnsward" "$dnssec" aarch64_generic "$PACKAGE_VERSION" "$dir/wrong")
  rig_put "$package" "/tmp/pkg/current/dnsward.$pm"
  rig_put "$NEXT_PACKAGE" "/tmp/pkg/next/dnsward.$pm"
  rig_put "$WRONG_ARCH_PACKAGE" "/tmp/pkg/wrong/dnsward.$pm"
}

# package_variant PM BINARY DNSSEC ARCH VERSION OUT: the package's path.
package_variant() {
  local pm=$1 binary=$2 dnssec=$3 arch=$4 version=$5 out=$6
  if [[ $pm == ipk ]]; then
    IPK_BINARY=$binary IPK_OUT_DIR=$out IPK_SOURCE_ROOT=$REPO IPK_PACKAGE=dnsward IPK_ARCH=$arch \
      IPK_VERSION=$version IPK_DEPENDS=libc IPK_DNSSEC=$dnssec IPK_READELF=readelf IPK_ALLOW_DYNAMIC=1 \
      bash "$REPO/Board/packaging/ipk-build.sh" >/dev/null || rig_fail "ipk-build.sh ($arch $version)"
  else
    APK_TOOL=$RIG_USERLAND/bin/apk APK_BINARY=$binary APK_OUT_DIR=$out APK_SOURCE_ROOT=$REPO APK_PACKAGE=dnsward \
      APK_ARCH=$arch APK_VERSION=$version APK_DEPENDS=libc APK_DNSSEC=$dnssec APK_READELF=readelf \
      APK_ALLOW_DYNAMIC=1 bash "$REPO/Board/packaging/apk-build.sh" >/dev/null || rig_fail "apk-build.sh ($arch $version)"
  fi
  readlink -f "$out/dnsward.$pm"
}

# pm_install WHICH (current, next or wrong): installs it; its output on stdout.
pm_install() {
  case $PM in
  ipk) rig_sh "opkg install /tmp/pkg/$1/dnsward.ipk 2>&1" ;;
  apk) rig_sh "apk add --allow-untrusted --no-network /tmp/pkg/$1/dnsward.apk 2>&1" ;;
  esac
}
pm_remove() {
  case $PM in
  ipk) rig_sh 'opkg remove dnsward 2>&1' ;;
  apk) rig_sh 'apk del --no-network dnsward 2>&1' ;;
  esac
}
# pm_version: the installed version of dnsward (empty: not installed).
pm_version() {
  case $PM in
  ipk) rig_sh "opkg status dnsward | sed -n 's/^Version: //p'" ;;
  apk) rig_sh "apk list --installed dnsward 2>/dev/null | sed -n 's/^dnsward-\([^ ]*\) .*/\1/p'" ;;
  esac
}
# pm_arch_refused OUTPUT: OUTPUT is the package manager's own refusal of
# a package for aarch64_generic.
pm_arch_refused() {
  case $PM in
  ipk) grep -q 'incompatible with the architectures configured' <<<"$1" ;;
  apk) grep -q 'error: uninstallable' <<<"$1" && grep -q 'arch: aarch64_generic' <<<"$1" ;;
  esac
}

# --- apk (apk-tools v3) ------------------------------------------------------

# apk_seed: the image's base packages in apk's database, as empty packages
# of those names (apk refuses a package whose libc dependency is missing).
apk_seed() {
  local name dir=$RIG_DIR/apk-seed
  mkdir -p "$dir/files"
  rig_sh 'mkdir -p /etc/apk /lib/apk/db && echo x86_64 >/etc/apk/arch && : >/etc/apk/world'
  for name in libc base-files busybox procd ubus uci dnsmasq; do
    "$RIG_USERLAND/bin/apk" mkpkg --info "name:$name" --info "version:1.0-r1" --info "arch:x86_64" \
      --info "description:rig base package" --files "$dir/files" --output "$dir/$name.apk" >/dev/null
    rig_put "$dir/$name.apk" "/tmp/pkg/seed/$name.apk"
  done
  rig_sh 'apk add --initdb --allow-untrusted --no-network /tmp/pkg/seed/*.apk >/dev/null' ||
    rig_fail "seeding apk's database"
}

