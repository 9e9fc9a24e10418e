#!/usr/bin/env bash
# ipk-build.sh — lays out the dnsward OpenWrt package (.ipk) from a built
# firmware. Board/packaging/ipk.cmake runs it for `cmake --build BUILD
# --target ipk`, with its settings in the environment:
#
#   IPK_BINARY      the stripped firmware (BUILD/dnsward.stripped)
#   IPK_OUT_DIR     where the package and its staging folder go (BUILD)
#   IPK_SOURCE_ROOT the repository (Board/openwrt/package/ holds the files)
#   IPK_PACKAGE     dnsward, or dnsward-tls (then Provides/Conflicts dnsward)
#   IPK_ARCH        OpenWrt's architecture name (DISTRIB_ARCH), e.g. aarch64_generic
#   IPK_VERSION     the version, OpenWrt's VERSION-rRELEASE; empty: from git (below)
#   IPK_MAINTAINER, IPK_LICENSE, IPK_URL
#   IPK_DEPENDS     comma-separated Depends (libc, and the mbedTLS package)
#   IPK_READELF     readelf for the target
#   IPK_ALLOW_DYNAMIC  1: package a binary that needs a dynamic loader
#   IPK_DNSSEC      1: the binary has the validator (-DDNSWARD_DNSSEC=ON); 0: it
#                   does not, and the packaged config says `option dnssec '0'`
#
# The files, their modes and the checks on the binary are the .apk's too
# (openwrt-package.sh beside this script).
#
# The format opkg (OpenWrt 24.10 and earlier) reads: a gzip'd tar (GNU
# format) of ./debian-binary ("2.0"), ./data.tar.gz (the files, from /) and
# ./control.tar.gz (control, conffiles, postinst, prerm), in that order, as
# OpenWrt's own ipkg-build writes them. Installed-Size is the size of the
# uncompressed data tar in bytes, as there. Every tar is reproducible: owner
# and group 0 (numeric), names sorted, one mtime (SOURCE_DATE_EPOCH, else the
# git commit's time), gzip without name and time stamp; the same tree and
# commit give the same bytes.
set -euo pipefail

fail() {
  echo "ipk-build.sh: $*" >&2
  exit 1
}

for variable in IPK_BINARY IPK_OUT_DIR IPK_SOURCE_ROOT IPK_PACKAGE IPK_ARCH IPK_READELF IPK_DNSSEC; do
  [[ -n ${!variable:-} ]] || fail "$variable is not set (run through cmake --build BUILD --target ipk)"
done
source "$(dirname "${BASH_SOURCE[0]}")/openwrt-package.sh"
openwrt_check_names "$IPK_PACKAGE" "$IPK_ARCH"
openwrt_check_binary "$IPK_BINARY" "$IPK_READELF" "${IPK_ALLOW_DYNAMIC:-0}" "${IPK_DEPENDS:-}"

# The version from the commit, unless given.
version=${IPK_VERSION:-}
if [[ -z $version ]]; then
  version=$(git -C "$IPK_SOURCE_ROOT" describe --tags --match 'v[0-9]*' 2>/dev/null | sed 's/^v//' || true)
  if [[ -z $version ]]; then
    hash=$(git -C "$IPK_SOURCE_ROOT" rev-parse --short=7 HEAD 2>/dev/null) ||
      fail "no IPK_VERSION and no git history to derive one (-DDNSWARD_PACKAGE_VERSION=...)"
    # `~` sorts before anything in opkg's comparison, so a real release
    # (0.1.0) is newer than every snapshot; the date orders snapshots.
    version="0~git$(date -u -d "@$(openwrt_commit_time "$IPK_SOURCE_ROOT")" +%Y%m%d).$hash-r1"
  fi
fi
[[ $version =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || fail "bad version '$version' (starts with a digit; letters, digits, . + ~ -)"
epoch=$(openwrt_epoch "$IPK_SOURCE_ROOT")

STAGE=$IPK_OUT_DIR/ipk
rm -rf "$STAGE"
mkdir -p "$STAGE/data" "$STAGE/control"
DATA=$STAGE/data
CONTROL=$STAGE/control

openwrt_stage_files "$DATA" "$IPK_BINARY" "$IPK_SOURCE_ROOT" "$IPK_DNSSEC"

# reproducible_tar DIRECTORY OUTPUT [MEMBERS...]: a gzip'd tar of the
# members (default: the whole directory, as ./...), owned by 0:0, names
# sorted, mtime $epoch.
reproducible_tar() {
  local directory=$1 output=$2
  shift 2
  (($#)) || set -- .
  tar --format=gnu --numeric-owner --owner=0 --group=0 --sort=name \
    --mtime="@$epoch" -C "$directory" -cf - "$@" | gzip -9n >"$output"
}

reproducible_tar "$DATA" "$STAGE/data.tar.gz"
installed_size=$(gzip -dc "$STAGE/data.tar.gz" | wc -c)

conflicts=dnsward-tls
provides=""
if [[ $IPK_PACKAGE == dnsward-tls ]]; then
  conflicts=dnsward
  provides=dnsward
fi
{
  echo "Package: $IPK_PACKAGE"
  echo "Version: $version"
  echo "Depends: $IPK_DEPENDS"
  [[ -z $provides ]] || echo "Provides: $provides"
  echo "Conflicts: $conflicts"
  echo "License: ${IPK_LICENSE:-unspecified}"
  echo "Section: net"
  echo "Architecture: $IPK_ARCH"
  echo "Installed-Size: $installed_size"
  echo "Maintainer: ${IPK_MAINTAINER:-dnsward maintainers}"
  [[ -z ${IPK_URL:-} ]] || echo "URL: $IPK_URL"
  openwrt_description "$IPK_PACKAGE" "$IPK_DNSSEC" | sed '1s/^/Description: /; 2,$s/^/ /'
} >"$CONTROL/control"
printf '%s\n' "${OPENWRT_CONFFILES[@]}" >"$CONTROL/conffiles"
# OpenWrt's convention (its packages' generated scripts): default_postinst
# enables the init script and, on a live system (IPKG_INSTROOT empty),
# starts it, not when an image is being built; default_prerm disables
# (unless upgrading) and stops it, which gives dnsmasq its settings back.
cat >"$CONTROL/postinst" <<'EOF'
#!/bin/sh
[ "${IPKG_NO_SCRIPT}" = "1" ] && exit 0
[ -s "${IPKG_INSTROOT}/lib/functions.sh" ] || exit 0
. "${IPKG_INSTROOT}/lib/functions.sh"
default_postinst "$0" "$@"
EOF
cat >"$CONTROL/prerm" <<'EOF'
#!/bin/sh
[ -s "${IPKG_INSTROOT}/lib/functions.sh" ] || exit 0
. "${IPKG_INSTROOT}/lib/functions.sh"
default_prerm "$0" "$@"
EOF
chmod 0644 "$CONTROL/control" "$CONTROL/conffiles"
chmod 0755 "$CONTROL/postinst" "$CONTROL/prerm" "$CONTROL"
reproducible_tar "$CONTROL" "$STAGE/control.tar.gz"

echo 2.0 >"$STAGE/debian-binary"
chmod 0644 "$STAGE/debian-binary" "$STAGE/data.tar.gz" "$STAGE/control.tar.gz"
package=$IPK_OUT_DIR/${IPK_PACKAGE}_${version}_${IPK_ARCH}.ipk
reproducible_tar "$STAGE" "$package" ./debian-binary ./data.tar.gz ./control.tar.gz
# The name without the version, for scripts: always the last package built.
ln -sf "$(basename "$package")" "$IPK_OUT_DIR/$IPK_PACKAGE.ipk"
echo "$package: $(stat -c %s "$package") bytes (installed: $installed_size bytes)"
