#!/usr/bin/env bash
# build-deb.sh — makes the dnsward .deb from a firmware build tree's binary.
# Run by `cmake --build BUILD --target deb` (Board/packaging/deb.cmake),
# which passes every option; by hand:
#
#   bash Board/debian/build-deb.sh --binary BUILD/dnsward --arch arm64 \
#     --out BUILD [--version 1.2.3] [--maintainer 'Name <mail>'] \
#     [--strip aarch64-linux-gnu-strip] [--readelf readelf] [--dnssec on|off]
#
# --dnssec says whether the binary has the DNSSEC validator
# (-DDNSWARD_DNSSEC=ON; default on). The packaged dnsward.conf says
# `dnssec auto` only then; with `off` its line is `dnssec off`, which is all
# such a binary accepts.
#
# Writes OUT/dnsward_VERSION_ARCH.deb (and removes older dnsward_*_ARCH.deb
# there), from a staging tree in OUT/deb-root-ARCH, with `dpkg-deb --build
# --root-owner-group`: no debhelper, no fakeroot. Needs dpkg-deb, gzip,
# md5sum, readelf and the target's strip.
#
# Reproducible: every time stamp (files, gzip headers, the changelog's date,
# the ar members) is SOURCE_DATE_EPOCH, by default the time of the git
# commit the tree is at; the same inputs give the same bytes.
#
# The version, unless given: `git describe` of a tag vX.Y.Z (X.Y.Z, or
# X.Y.Z+gitN.HASH N commits after it), else 0.0~gitYYYYMMDD.N.HASH from the
# commit's date and the number of commits up to it, so that a later commit
# sorts higher (`~` sorts before anything, so a first tag 0.1 is newer than
# every such version). A tree with
# uncommitted changes gets no mark: the version names the commit only.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

binary="" arch="" out="" version="" strip_tool=strip readelf_tool=readelf dnssec=on
maintainer="dnsward maintainers <maintainers@users.noreply.a-seed-480a1da2.example>"
while (($#)); do
  case $1 in
    --binary) binary=$2 ;;
    --arch) arch=$2 ;;
    --out) out=$2 ;;
    --version) version=$2 ;;
    --maintainer) maintainer=$2 ;;
    --strip) strip_tool=$2 ;;
    --readelf) readelf_tool=$2 ;;
    --dnssec) dnssec=$2 ;;
    *)
      echo "build-deb.sh: unknown option '$1'" >&2
      exit 2
      ;;
  esac
  shift 2
done
fail() {
  echo "build-deb.sh: $*" >&2
  exit 1
}
[[ -n $binary && -n $arch && -n $out ]] || fail "--binary, --arch and --out are required"
[[ -f $binary ]] || fail "no binary at $binary (build the firmware first)"
[[ $dnssec == on || $dnssec == off ]] || fail "--dnssec '$dnssec': on or off"

git_in_root() { git -C "$ROOT" "$@" 2>/dev/null; }

# --- version and time stamp ---------------------------------------------------
if [[ -z $version ]]; then
  if described=$(git_in_root describe --tags --match 'v[0-9]*' --long); then
    # vX.Y.Z-N-gHASH
    base=${described%-*-g*}
    base=${base#v}
    rest=${described#"v$base"-}
    commits=${rest%%-*}
    hash=${rest#*-g}
    if [[ $commits == 0 ]]; then version=$base; else version="$base+git$commits.$hash"; fi
  elif hash=$(git_in_root rev-parse --short=7 HEAD); then
    day=$(git_in_root log -1 --format=%cd --date=format:%Y%m%d)
    version="0.0~git$day.$(git_in_root rev-list --count HEAD).$hash"
  else
    fail "not in a git checkout: pass --version"
  fi
fi
# Debian policy 5.6.12: starts with a digit; letters, digits, . + ~ (no
# hyphen: this is a native package, without a Debian revision).
[[ $version =~ ^[0-9][A-Za-z0-9.+~]*$ ]] || fail "version '$version' is not a Debian version"
if [[ -z ${SOURCE_DATE_EPOCH:-} ]]; then
  SOURCE_DATE_EPOCH=$(git_in_root log -1 --format=%ct || stat -c %Y "$binary")
fi
export SOURCE_DATE_EPOCH

# --- the binary ---------------------------------------------------------------
# The ELF machine must be the package's architecture.
case $arch in
  arm64) machine=AArch64 ;;
  armhf) machine=ARM ;;
  amd64) machine='Advanced Micro Devices X86-64' ;;
  *) fail "architecture '$arch': only arm64, armhf and amd64 are known" ;;
esac
header=$("$readelf_tool" -hW "$binary")
grep -q "Machine: *$machine\$" <<<"$header" ||
  fail "$binary is not an $arch binary: $(grep Machine: <<<"$header")"

# Depends: glibc at least as new as the newest GLIBC_x.y symbol version the
# binary asks for (what dpkg-shlibdeps would find through libc6's symbols
# file, which a cross build may not have installed); none when static.
versions=$("$readelf_tool" -VW "$binary")
glibc=$(grep -o 'Name: GLIBC_[0-9][0-9.]*' <<<"$versions" | sed 's/Name: GLIBC_//' |
  sort -V | tail -n 1 || true)
# Packed relative relocations (DT_RELR, Board/CMakeLists.txt) ask for
# GLIBC_ABI_DT_RELR, which glibc has from 2.36 on.
if grep -q 'Name: GLIBC_ABI_DT_RELR' <<<"$versions"; then
  glibc=$(printf '%s\n2.36\n' "$glibc" | sort -V | tail -n 1)
fi
depends=()
[[ -n $glibc ]] && depends+=("libc6 (>= $glibc)")
# The other shared libraries: on armv7 the linker takes integer division
# helpers from libgcc_s (symbol version GCC_3.5, in every libgcc-s1). Any
# other library (a TLS build's mbedTLS) is refused: its package is not
# computed here.
dynamic=$("$readelf_tool" -dW "$binary")
while read -r library; do
  case $library in
    libc.so.6 | ld-linux*.so.* | libm.so.6) ;;
    libgcc_s.so.1) depends+=(libgcc-s1) ;;
    *) fail "$binary needs $library; only glibc's and libgcc_s are handled (no TLS build)" ;;
  esac
done < <(sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' <<<"$dynamic")
# postinst falls back to adduser where systemd-sysusers is missing.
depends+=(adduser)
depends=$(printf '%s, ' "${depends[@]}")
depends=${depends%, }

# Raspberry Pi 5's kernel uses 16 KiB pages: a segment aligned for smaller
# pages does not load there.
if [[ $arch == arm64 ]]; then
  alignment=0
  while read -r segment_alignment; do
    if ((alignment == 0 || segment_alignment < alignment)); then alignment=$segment_alignment; fi
  done < <("$readelf_tool" -lW "$binary" | awk '$1 == "LOAD" { print $NF }')
  if ((alignment < 0x4000)); then
    echo "build-deb.sh: warning: LOAD segments aligned to $alignment: this arm64 binary will not" \
      "load on a 16 KiB-page kernel (Raspberry Pi 5); configure with -DDNSWARD_MAX_PAGE_SIZE=65536" >&2
  fi
fi

# --- the staging tree ---------------------------------------------------------
umask 022
mkdir -p "$out"
stage=$out/deb-root-$arch
rm -rf "$stage"
doc=$stage/usr/share/doc/dnsward
install -d "$stage/DEBIAN" "$stage/usr/sbin" "$stage/etc/dnsward" "$stage/lib/systemd/system" \
  "$stage/usr/lib/sysusers.d" "$doc" "$stage/usr/share/man/man8"

# Stripped as dh_strip strips a program: symbols, and the .comment and .note
# sections (the toolchains' version strings); the build ID note stays.
"$strip_tool" --strip-all --remove-section=.comment --remove-section=.note \
  -o "$stage/usr/sbin/dnsward" "$binary"
chmod 0755 "$stage/usr/sbin/dnsward"
install -m 0644 "$HERE/dnsward.conf" "$stage/etc/dnsward/dnsward.conf"
if [[ $dnssec == off ]]; then
  # The binary refuses `dnssec auto`: the config must not ask for it.
  sed -i -e 's/^dnssec auto$/dnssec off/' \
    -e "s/^# This package's dnsward is built with the validator (-DDNSWARD_DNSSEC=ON)\.$/# This package's dnsward is built without the validator: only \`dnssec off\`./" \
    "$stage/etc/dnsward/dnsward.conf"
  grep -qx 'dnssec off' "$stage/etc/dnsward/dnsward.conf" && ! grep -q 'built with the validator' \
    "$stage/etc/dnsward/dnsward.conf" || fail "could not turn the packaged config's dnssec off"
fi
install -m 0644 "$HERE/dnsward.service" "$stage/lib/systemd/system/dnsward.service"
install -m 0644 "$HERE/sysusers.conf" "$stage/usr/lib/sysusers.d/dnsward.conf"
install -m 0644 "$HERE/copyright" "$doc/copyright"

# gzip -9n: no name or time stamp in the header (reproducible).
compress_into() { gzip -9nc "$1" >"$2" && chmod 0644 "$2"; }
compress_into "$HERE/dnsward.8" "$stage/usr/share/man/man8/dnsward.8.gz"
compress_into "$HERE/README.md" "$doc/README.md.gz"

# A native package's changelog (Debian policy 12.7): one entry, this build.
commit=$(git_in_root rev-parse --short=12 HEAD || echo unknown)
changelog=$out/deb-changelog-$arch
cat >"$changelog" <<EOF
dnsward ($version) unstable; urgency=medium

  * Built from the dnsward repository at commit $commit.

 -- $maintainer  $(LC_ALL=C date -u -R -d "@$SOURCE_DATE_EPOCH")
EOF
compress_into "$changelog" "$doc/changelog.gz"
rm -f "$changelog"

for script in postinst prerm postrm; do
  install -m 0755 "$HERE/$script" "$stage/DEBIAN/$script"
done
printf '/etc/dnsward/dnsward.conf\n' >"$stage/DEBIAN/conffiles"

# Installed-Size in KiB, counted as dpkg-gencontrol does: each file rounded
# up to whole KiB, one more for each directory.
installed_kib=$(cd "$stage" && find . -path ./DEBIAN -prune -o \( -type f -printf '%s\n' \) -o \
  \( ! -name . -printf '1024\n' \) | awk '{ total += int(($1 + 1023) / 1024) } END { print total }')

description_dnssec=""
if [[ $dnssec == on ]]; then
  description_dnssec="
 .
 It validates DNSSEC (dnssec on): answers of signed zones are checked up
 to the root's keys; the upstream resolvers must pass DNSSEC records on."
fi
cat >"$stage/DEBIAN/control" <<EOF
Package: dnsward
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $installed_kib
Depends: $depends
Section: net
Priority: optional
Description: DNS forwarding proxy for a LAN's router or server
 dnsward is the resolver a LAN's DHCP server advertises: it answers every
 device's DNS questions from its cache, its local names (hosts and dnsmasq
 lease files) and overrides, or by asking the upstream resolvers, and
 defends the answers against what the network above may do to them: forged
 and injected answers, an ISP's NXDOMAIN redirection, DNS rebinding into
 the LAN, cache poisoning.$description_dnssec
 .
 One single-threaded process with every buffer allocated at start-up. This
 package runs it as a sandboxed systemd service on
 /etc/dnsward/dnsward.conf, listening on 127.0.0.1:53 until the LAN address
 is added there, and keeps its cache across restarts.
EOF
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | LC_ALL=C sort |
  xargs md5sum >DEBIAN/md5sums)
chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/conffiles" "$stage/DEBIAN/md5sums"

# Every time stamp is SOURCE_DATE_EPOCH (dpkg-deb takes the ar members'
# from it too; it orders the entries itself).
find "$stage" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

rm -f "$out"/dnsward_*_"$arch".deb
deb=$out/dnsward_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb: $(stat -c %s "$deb") bytes (Depends: $depends; Installed-Size: $installed_kib KiB)"
