# openwrt-package.sh — what the two OpenWrt package builders share, sourced
# by ipk-build.sh (.ipk, opkg) and apk-build.sh (.apk, apk v3): the checks on
# the binary, the files the package installs with their modes, the conffiles,
# the description. Declared once here, so that both formats install the same
# tree. The sourcing script defines fail MESSAGE (prints it, exits 1).

# The files a user edits and the package manager keeps when changed.
OPENWRT_CONFFILES=(/etc/config/dnsward)

# openwrt_check_binary BINARY READELF ALLOW_DYNAMIC DEPENDS: the firmware
# must run on OpenWrt's musl userland. A static binary has no ELF interpreter
# (PT_INTERP), a dynamic musl one names musl's /lib/ld-musl-<arch>.so.1,
# which OpenWrt has; a glibc one names /lib/ld-linux-*.so, which OpenWrt
# does not have ("not found" although the file is there). A binary that
# loads libmbedtls needs an mbedTLS package among DEPENDS.
openwrt_check_binary() {
  local binary=$1 readelf=$2 allow_dynamic=$3 depends=$4 headers interpreter dynamic
  [[ -f $binary ]] || fail "no firmware at $binary"
  headers=$("$readelf" -lW "$binary") || fail "$binary is not an ELF file"
  interpreter=$(sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p' <<<"$headers")
  if [[ -n $interpreter && $interpreter != /lib/ld-musl-*.so.1 && $allow_dynamic != 1 ]]; then
    fail "$binary needs the dynamic loader $interpreter, which OpenWrt lacks; build with -DDNSWARD_LIBC=musl, or pass -DDNSWARD_IPK_ALLOW_DYNAMIC=ON"
  fi
  dynamic=$("$readelf" -dW "$binary" 2>/dev/null || true)
  if grep -q 'NEEDED.*libmbedtls' <<<"$dynamic" && [[ $depends != *mbedtls* ]]; then
    fail "$binary loads libmbedtls but the dependencies ($depends) name no mbedTLS package (DNSWARD_OPENWRT_MBEDTLS_DEPENDS)"
  fi
}

# openwrt_check_names PACKAGE ARCH: names opkg and apk both accept.
openwrt_check_names() {
  [[ $1 =~ ^[a-z0-9][a-z0-9.+-]*$ ]] || fail "bad package name '$1'"
  [[ $2 =~ ^[A-Za-z0-9_.+-]+$ ]] || fail "bad architecture '$2'"
}

# openwrt_commit_time SOURCE_ROOT: the commit's time (empty outside git).
openwrt_commit_time() { git -C "$1" log -1 --format=%ct 2>/dev/null || true; }

# openwrt_epoch SOURCE_ROOT: every file's time stamp in the package,
# SOURCE_DATE_EPOCH, else the commit's time.
openwrt_epoch() {
  local epoch=${SOURCE_DATE_EPOCH:-$(openwrt_commit_time "$1")}
  [[ $epoch =~ ^[0-9]+$ ]] || fail "no SOURCE_DATE_EPOCH and no git commit time"
  echo "$epoch"
}

# openwrt_stage_files DATA BINARY SOURCE_ROOT DNSSEC: the installed tree
# under DATA (as from /). DNSSEC 1: the binary has the validator and
# /etc/config/dnsward keeps `option dnssec 'auto'`; 0: it does not, and the
# packaged file says '0' (such a binary refuses `dnssec auto` and `on`: the
# package's config never asks for what its binary lacks). Directories 0755.
openwrt_stage_files() {
  local data=$1 binary=$2 files=$3/Board/openwrt/package dnssec=$4
  [[ $dnssec == 0 || $dnssec == 1 ]] || fail "DNSSEC is '$dnssec', not 0 or 1"
  openwrt_install_file "$data" 0755 "$binary" /usr/sbin/dnsward
  openwrt_install_file "$data" 0755 "$files/dnsward.init" /etc/init.d/dnsward
  # It may hold an httpdns secret: root only (dnsward reads its config as root).
  openwrt_install_file "$data" 0600 "$files/dnsward.uci" /etc/config/dnsward
  if [[ $dnssec == 0 ]]; then
    sed -i "s/^\(\toption dnssec '\)auto'\$/\10'/" "$data/etc/config/dnsward"
    grep -q "^.option dnssec '0'\$" "$data/etc/config/dnsward" ||
      fail "could not set option dnssec '0' in the packaged /etc/config/dnsward"
  fi
  openwrt_install_file "$data" 0644 "$files/uci-to-conf.awk" /usr/share/dnsward/uci-to-conf.awk
  find "$data" -type d -exec chmod 0755 {} +
}

# openwrt_install_file DATA MODE SOURCE DESTINATION
openwrt_install_file() {
  mkdir -p "$1$(dirname "$4")"
  cp "$3" "$1$4"
  chmod "$2" "$1$4"
}

# openwrt_description PACKAGE DNSSEC: the summary on the first line, then
# the details (opkg shows them indented under Description; apk's
# description is one line, all of it joined).
openwrt_description() {
  local package=$1 dnssec=$2
  # dnsward-tls loads the router's musl and mbedTLS (a static musl link
  # against mbedTLS is not made: Board/openwrt/README.md); dnsward is static.
  if [[ $package == dnsward-tls ]]; then
    echo "dnsward, a small DNS forwarder for routers (Embedded Swift, with the router's mbedTLS)"
  else
    echo "dnsward, a small DNS forwarder for routers (Embedded Swift, static)"
  fi
  echo "Caches, forwards over UDP, TCP, HTTP DNS$([[ $package == dnsward-tls ]] && echo ', DoT and DoH'),"
  echo "answers the LAN's DHCP names and blocks names$([[ $dnssec == 1 ]] && echo ', validates DNSSEC')."
  echo "Beside dnsmasq (default) or in its place on port 53: /etc/config/dnsward,"
  echo "option mode."
}
