#!/usr/bin/env bash
# apk-build.sh — makes the dnsward OpenWrt package for apk v3 (OpenWrt 25.12
# and later) from a built firmware, with apk-tools' own `apk mkpkg`.
# Board/packaging/apk.cmake runs it for `cmake --build BUILD --target apk`,
# with its settings in the environment:
#
#   APK_TOOL        apk-tools v3's apk
#   APK_BINARY      the stripped firmware (BUILD/dnsward.stripped)
#   APK_OUT_DIR     where the package and its staging folder go (BUILD)
#   APK_SOURCE_ROOT the repository (Board/openwrt/package/ holds the files)
#   APK_PACKAGE     dnsward, or dnsward-tls (then provides dnsward=VERSION)
#   APK_ARCH        OpenWrt's architecture name (DISTRIB_ARCH), e.g. aarch64_generic
#   APK_VERSION     OpenWrt's VERSION-rRELEASE, e.g. 0.16.0-r1
#   APK_MAINTAINER, APK_LICENSE, APK_URL
#   APK_DEPENDS     space-separated dependencies (libc, and the mbedTLS package)
#   APK_READELF     readelf for the target
#   APK_ALLOW_DYNAMIC  1: package a binary that needs a dynamic loader
#   APK_DNSSEC      1: the binary has the validator (-DDNSWARD_DNSSEC=ON); 0: it
#                   does not, and the packaged config says `option dnssec '0'`
#
# The package installs the same files as the .ipk (openwrt-package.sh), and
# beside them what OpenWrt's own apk packages carry in /lib/apk/packages/:
# NAME.list (every installed file and link, which default_postinst and
# default_prerm read to find the init script), NAME.conffiles (the paths) and
# NAME.conffiles_static (path and SHA-256 of the packaged content, from which
# sysupgrade tells an edited conffile from an untouched one). apk itself
# keeps an edited /etc/config/dnsward on upgrade: /etc is a protected path
# (the new file is written beside it as dnsward.apk-new).
#
# Reproducible: every file owned by root (fakeroot when not run as root), one
# mtime (SOURCE_DATE_EPOCH, else the commit's time, which apk mkpkg applies
# to every file), no extended attributes from the build machine, no apk
# configuration read from it; the same tree and commit give the same bytes.
set -euo pipefail

fail() {
  echo "apk-build.sh: $*" >&2
  exit 1
}

for variable in APK_TOOL APK_BINARY APK_OUT_DIR APK_SOURCE_ROOT APK_PACKAGE APK_ARCH \
  APK_VERSION APK_DEPENDS APK_READELF APK_DNSSEC; do
  [[ -n ${!variable:-} ]] || fail "$variable is not set (run through cmake --build BUILD --target apk)"
done
source "$(dirname "${BASH_SOURCE[0]}")/openwrt-package.sh"
openwrt_check_names "$APK_PACKAGE" "$APK_ARCH"
openwrt_check_binary "$APK_BINARY" "$APK_READELF" "${APK_ALLOW_DYNAMIC:-0}" "$APK_DEPENDS"
# apk's version grammar: numbers, an optional letter, _suffixes, an optional
# ~hash, and the -rN release OpenWrt always writes.
[[ $APK_VERSION =~ ^[0-9]+(\.[0-9]+)*[a-z]?(_(alpha|beta|pre|rc|cvs|svn|git|hg|p)[0-9]*)*(~[0-9a-f]+)?-r[0-9]+$ ]] ||
  fail "bad version '$APK_VERSION': apk wants e.g. 1.2.3-r1 (-DDNSWARD_PACKAGE_VERSION=1.2.3 -DDNSWARD_OPENWRT_RELEASE=1)"
version_line=$("$APK_TOOL" --version 2>/dev/null) || fail "cannot run $APK_TOOL --version"
[[ $version_line == "apk-tools 3."* ]] || fail "$APK_TOOL is '$version_line', not apk-tools 3 (apk v2 cannot make v3 packages)"
epoch=$(openwrt_epoch "$APK_SOURCE_ROOT")

STAGE=$APK_OUT_DIR/apk
rm -rf "$STAGE"
mkdir -p "$STAGE/data" "$STAGE/scripts"
DATA=$STAGE/data
SCRIPTS=$STAGE/scripts
openwrt_stage_files "$DATA" "$APK_BINARY" "$APK_SOURCE_ROOT" "$APK_DNSSEC"

# /lib/apk/packages/: the list first, so that it names only the package's
# own files, not itself or the conffiles lists.
PACKAGES=$DATA/lib/apk/packages
mkdir -p "$PACKAGES"
list=$(cd "$DATA" && find . \( -type f -o -type l \) -printf '/%P\n' | LC_ALL=C sort)
printf '%s\n' "$list" >"$PACKAGES/$APK_PACKAGE.list"
printf '%s\n' "${OPENWRT_CONFFILES[@]}" >"$PACKAGES/$APK_PACKAGE.conffiles"
for conffile in "${OPENWRT_CONFFILES[@]}"; do
  [[ -f $DATA$conffile ]] || fail "conffile $conffile is not in the package"
  sum=$(sha256sum "$DATA$conffile") || fail "sha256sum $DATA$conffile"
  echo "$conffile ${sum%% *}"
done >"$PACKAGES/$APK_PACKAGE.conffiles_static"
chmod 0644 "$PACKAGES"/*
find "$DATA" -type d -exec chmod 0755 {} +

# The scripts OpenWrt generates for every package: default_postinst (from
# /lib/functions.sh) enables the init scripts of NAME.list and, on a live
# system (IPKG_INSTROOT empty), starts them, not while an image is built; on
# upgrade (PKG_UPGRADE=1) it starts without enabling again. default_prerm
# disables (unless upgrading) and stops, which gives dnsmasq its settings
# back. Both find the package by $pkgname, and the root by $root.
{
  echo '#!/bin/sh'
  echo '[ "${IPKG_NO_SCRIPT}" = "1" ] && exit 0'
  echo '[ -s "${IPKG_INSTROOT}/lib/functions.sh" ] || exit 0'
  echo '. "${IPKG_INSTROOT}/lib/functions.sh"'
  echo 'export root="${IPKG_INSTROOT}"'
  echo "export pkgname=\"$APK_PACKAGE\""
  echo 'default_postinst'
} >"$SCRIPTS/post-install"
{
  echo '#!/bin/sh'
  echo 'export PKG_UPGRADE=1'
  sed 1d "$SCRIPTS/post-install"
} >"$SCRIPTS/post-upgrade"
{
  echo '#!/bin/sh'
  echo '[ -s "${IPKG_INSTROOT}/lib/functions.sh" ] || exit 0'
  echo '. "${IPKG_INSTROOT}/lib/functions.sh"'
  echo 'export root="${IPKG_INSTROOT}"'
  echo "export pkgname=\"$APK_PACKAGE\""
  echo 'default_prerm'
} >"$SCRIPTS/pre-deinstall"
chmod 0755 "$SCRIPTS"/*

# dnsward-tls takes dnsward's place: a versioned provide makes it satisfy
# anything that depends on dnsward, and, as apk lets one package only own a
# name, it cannot be installed beside dnsward.
provides=()
if [[ $APK_PACKAGE == dnsward-tls ]]; then
  provides=(--info "provides:dnsward=$APK_VERSION")
fi
# One line: the summary as a sentence, then the details.
description=$(openwrt_description "$APK_PACKAGE" "$APK_DNSSEC" | sed '1s/$/./' | paste -sd ' ')

# Files owned by root whoever builds: apk mkpkg records owner names.
as_root=()
if [[ $(id -u) != 0 ]]; then
  command -v fakeroot >/dev/null ||
    fail "not root and no fakeroot: the package's files would be owned by $(id -un) (apt-get install fakeroot)"
  as_root=(fakeroot)
fi

package=$APK_OUT_DIR/$APK_PACKAGE-$APK_VERSION.apk
rm -f "$package"
# origin: the source package, shared by dnsward and dnsward-tls, which lets
# apk hand the files of one to the other when they replace each other.
SOURCE_DATE_EPOCH=$epoch APK_CONFIG=/dev/null "${as_root[@]}" "$APK_TOOL" mkpkg \
  --xattrs=no \
  --info "name:$APK_PACKAGE" \
  --info "version:$APK_VERSION" \
  --info "description:$description" \
  --info "arch:$APK_ARCH" \
  --info "license:${APK_LICENSE:-unspecified}" \
  --info "origin:dnsward" \
  --info "url:${APK_URL:-}" \
  --info "maintainer:${APK_MAINTAINER:-dnsward maintainers}" \
  --info "depends:$APK_DEPENDS" \
  "${provides[@]}" \
  --script "post-install:$SCRIPTS/post-install" \
  --script "post-upgrade:$SCRIPTS/post-upgrade" \
  --script "pre-deinstall:$SCRIPTS/pre-deinstall" \
  --files "$DATA" \
  --output "$package" || fail "apk mkpkg failed for $package"
[[ -s $package ]] || fail "apk mkpkg wrote no $package"
# The name without the version, for scripts: always the last package built.
ln -sf "$(basename "$package")" "$APK_OUT_DIR/$APK_PACKAGE.apk"
echo "$package: $(stat -c %s "$package") bytes"
