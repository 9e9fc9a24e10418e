# shellcheck shell=bash
# rig.sh — "OpenWrt in a box" (Tests/OpenWrt/README.md): sourced by
# openwrt-test.sh. It lays out an OpenWrt root from the userland that
# userland.sh built, starts ubusd, logd, procd and the netifd stand-in in a
# router namespace (network, mount and PID: the root's `pidof dnsward` sees
# only its own processes), with a LAN namespace (the client) and a WAN
# namespace (Knot, the WAN's DNS server). Everything it creates carries the
# shell's PID in its name and goes away in rig_cleanup.
#
# Addresses (only inside the namespaces created here):
#   router  br-lan 192.168.1.1/24, wan0 10.0.2.2/24 (default route 10.0.2.1)
#   LAN     eth0 from dnsmasq's DHCP (192.168.1.100-249)
#   WAN     eth0 10.0.2.1/24: knotd, zone example. (www.example A 1.2.3.4)

RIG_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RIG_ID=$$
RIG_ROUTER=dwrig-r$RIG_ID
RIG_LAN=dwrig-l$RIG_ID
RIG_WAN=dwrig-w$RIG_ID
RIG_DIR=""
RIG_ROOT=""
RIG_PID1=""
RIG_UNSHARE=""
RIG_KNOT=""
RIG_USERLAND=""
# The programs whose sha256 must be the userland's (rig_check_real).
RIG_REAL=(sbin/procd sbin/ubusd bin/ubus sbin/uci bin/opkg usr/sbin/dnsmasq sbin/logd sbin/logread usr/bin/apk)

rig_log() { printf '[rig %(%T)T] %s\n' -1 "$*" >&2; }

# rig_logs: what a failure needs to be understood.
rig_logs() {
  [[ -n $RIG_PID1 ]] || return 0
  echo "----- logread (last 60) -----" >&2
  rig_sh 'logread | tail -60' >&2 2>&1 || true
  echo "----- procd output (last 40) -----" >&2
  rig_sh 'tail -40 /tmp/procd.log' >&2 2>&1 || true
  echo "----- ubus call service list -----" >&2
  rig_sh 'ubus call service list' >&2 2>&1 || true
}

rig_fail() {
  echo "FAIL: $*" >&2
  rig_logs
  exit 1
}

# rig_wait WHAT SECONDS COMMAND...: polls COMMAND every 0.1 s until it
# succeeds; fails the run after SECONDS.
rig_wait() {
  local what=$1 seconds=$2 deadline
  shift 2
  deadline=$(($(rig_now_ms) + seconds * 1000))
  until "$@" >/dev/null 2>&1; do
    (($(rig_now_ms) < deadline)) || rig_fail "timed out after ${seconds}s waiting for: $what"
    sleep 0.1
  done
}
rig_now_ms() {
  local now=${EPOCHREALTIME/./}
  echo $((now / 1000))
}

# rig_sh SCRIPT: runs SCRIPT with the root's /bin/sh (BusyBox ash) inside
# the router's namespaces and root, with a router's environment; at most
# 120 s (nothing in the scenarios takes more than a few).
rig_sh() {
  timeout 120 nsenter -t "$RIG_PID1" -m -n -p -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    chroot "$RIG_ROOT" /bin/sh -c "$1"
}
rig_lan() { ip netns exec "$RIG_LAN" "$@"; }

rig_cleanup() {
  local status=$?
  set +e
  [[ -n $RIG_UNSHARE ]] && kill -KILL "$RIG_UNSHARE" 2>/dev/null
  # PID 1 of the router's PID namespace: its end ends every process in it.
  [[ -n $RIG_PID1 ]] && kill -KILL "$RIG_PID1" 2>/dev/null
  [[ -n $RIG_UNSHARE ]] && wait "$RIG_UNSHARE" 2>/dev/null
  [[ -n $RIG_KNOT ]] && kill "$RIG_KNOT" 2>/dev/null
  ip netns pids "$RIG_LAN" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
  local ns
  for ns in "$RIG_ROUTER" "$RIG_LAN" "$RIG_WAN"; do ip netns delete "$ns" 2>/dev/null; done
  rm -rf "/etc/netns/$RIG_LAN"
  [[ -n $RIG_DIR && ${RIG_KEEP:-0} != 1 ]] && rm -rf "$RIG_DIR"
  return "$status"
}

# rig_copy_elf FILE DEST: FILE into the root at DEST with the shared
# libraries it loads (ldd), at the paths the dynamic loader looks in.
rig_copy_elf() {
  install -D -m 0755 "$1" "$RIG_ROOT$2"
  local lib
  for lib in $(ldd "$1" 2>/dev/null | grep -o '/[^ ]*'); do
    # The userland's own libraries go to /usr/lib (rig_layout_userland).
    [[ -e $RIG_ROOT$lib || $lib == "$RIG_USERLAND"/* ]] && continue
    install -D -m 0755 "$(readlink -f "$lib")" "$RIG_ROOT$lib"
  done
}

rig_layout_userland() {
  local u=$1 files=$1/share/openwrt-files/package
  cp -a "$files/base-files/files/." "$RIG_ROOT/"
  install -D -m 0755 "$files/system/procd/files/procd.sh" "$RIG_ROOT/lib/functions/procd.sh"
  install -D -m 0755 "$files/system/procd/files/reload_config" "$RIG_ROOT/sbin/reload_config"
  install -D -m 0755 "$files/system/procd/files/service" "$RIG_ROOT/sbin/service"
  install -D -m 0644 "$files/system/uci/files/lib/config/uci.sh" "$RIG_ROOT/lib/config/uci.sh"
  local d=$files/network/services/dnsmasq/files
  install -D -m 0755 "$d/dnsmasq.init" "$RIG_ROOT/etc/init.d/dnsmasq"
  install -D -m 0644 "$d/dhcp.conf" "$RIG_ROOT/etc/config/dhcp"
  install -D -m 0644 "$d/dnsmasq.conf" "$RIG_ROOT/etc/dnsmasq.conf"
  install -D -m 0755 "$d/dhcp-script.sh" "$RIG_ROOT/usr/lib/dnsmasq/dhcp-script.sh"
  install -D -m 0644 "$d/rfc6761.conf" "$RIG_ROOT/usr/share/dnsmasq/rfc6761.conf"
  install -D -m 0644 "$d/dhcpbogushostname.conf" "$RIG_ROOT/usr/share/dnsmasq/dhcpbogushostname.conf"
  install -D -m 0644 "$u/share/libubox/jshn.sh" "$RIG_ROOT/usr/share/libubox/jshn.sh"
  local pair
  for pair in sbin/procd:/sbin/procd sbin/ubusd:/sbin/ubusd bin/ubus:/bin/ubus bin/uci:/sbin/uci \
    sbin/logd:/sbin/logd sbin/logread:/sbin/logread sbin/validate_data:/sbin/validate_data \
    bin/opkg-cl:/bin/opkg bin/usign:/usr/bin/usign bin/jsonfilter:/usr/bin/jsonfilter \
    bin/jshn:/usr/bin/jshn bin/apk:/usr/bin/apk bin/ucode:/usr/bin/ucode sbin/dnsmasq:/usr/sbin/dnsmasq; do
    rig_copy_elf "$u/${pair%%:*}" "${pair#*:}"
  done
  cp -a "$u"/lib/*.so* "$RIG_ROOT/usr/lib/"
  # procd preloads it into instances that log their stdout (line buffering).
  install -D -m 0755 "$u/lib/libsetlbf.so" "$RIG_ROOT/lib/libsetlbf.so"
  mkdir -p "$RIG_ROOT/usr/lib/ucode"
  cp -a "$u"/lib/ucode/*.so "$RIG_ROOT/usr/lib/ucode/"
  install -D -m 0644 "$RIG_HERE/netifd-standin.uc" "$RIG_ROOT/usr/share/rig/netifd-standin.uc"
  # netifd's devstatus, asking the stand-in.
  # shellcheck disable=SC2016 # $1 is the script's, in the root
  printf '#!/bin/sh\nubus call network.device status "{ \\"name\\": \\"$1\\" }"\n' >"$RIG_ROOT/sbin/devstatus"
  chmod 0755 "$RIG_ROOT/sbin/devstatus"
}

# BusyBox as /bin/sh and its applets, as on a router; from the host: flock
# (Debian's BusyBox lacks the applet; procd.sh serialises with it) and nft
# (dnsmasq's init script calls it; it changes only the router namespace).
rig_layout_busybox() {
  local applet
  # Debian's busybox package is linked against glibc (busybox-static is
  # not): its libraries come along.
  rig_copy_elf "$(command -v busybox)" /bin/busybox
  for applet in $(busybox --list-full); do
    [[ -e $RIG_ROOT/$applet || -L $RIG_ROOT/$applet ]] && continue
    mkdir -p "$(dirname "$RIG_ROOT/$applet")"
    ln -s /bin/busybox "$RIG_ROOT/$applet"
  done
  rig_copy_elf "$(command -v flock)" /usr/bin/flock
  rig_copy_elf "$(command -v nft)" /usr/sbin/nft
  rig_copy_elf /lib64/ld-linux-x86-64.so.2 /lib64/ld-linux-x86-64.so.2
}

# The files a booted router has that a bare tree lacks (README's list).
rig_layout_config() {
  local r=$RIG_ROOT
  ln -sfn tmp "$r/var"
  mkdir -p "$r/tmp" "$r/proc" "$r/dev" "$r/sys" "$r/root" "$r/overlay" "$r/etc/rc.d" "$r/usr/lib/opkg/info"
  printf "config system\n\toption hostname 'OpenWrt'\n\toption log_size '64'\n" >"$r/etc/config/system"
  cat >"$r/etc/config/network" <<'EOF'
config interface 'loopback'
	option device 'lo'
	option proto 'static'
	option ipaddr '127.0.0.1'
	option netmask '255.0.0.0'

config device
	option name 'br-lan'
	option type 'bridge'

config interface 'lan'
	option device 'br-lan'
	option proto 'static'
	option ipaddr '192.168.1.1'
	option netmask '255.255.255.0'

config interface 'wan'
	option device 'wan0'
	option proto 'static'
	option ipaddr '10.0.2.2'
	option netmask '255.255.255.0'
	option gateway '10.0.2.1'
EOF
  cat >"$r/etc/rig-interfaces.json" <<'EOF'
[ { "name": "lan", "device": "br-lan", "address": "192.168.1.1", "mask": 24 },
  { "name": "wan", "device": "wan0", "address": "10.0.2.2", "mask": 24, "gateway": "10.0.2.1",
    "dns": [ "10.0.2.1" ] } ]
EOF
  cat >"$r/etc/openwrt_release" <<'EOF'
DISTRIB_ID='OpenWrt'
DISTRIB_RELEASE='rig'
DISTRIB_REVISION='r0'
DISTRIB_TARGET='x86/64'
DISTRIB_ARCH='x86_64'
DISTRIB_DESCRIPTION='OpenWrt rig'
EOF
  printf 'dest root /\ndest ram /tmp\nlists_dir ext /var/opkg-lists\noption overlay_root /overlay\narch all 1\narch noarch 1\narch x86_64 10\n' \
    >"$r/etc/opkg.conf"
  # The image's base packages: OpenWrt packages depend on libc.
  local package
  for package in libc base-files busybox procd ubus uci dnsmasq; do
    printf 'Package: %s\nVersion: 1.0-r1\nStatus: install user installed\nArchitecture: x86_64\nInstalled-Time: 1700000000\n\n' \
      "$package"
  done >"$r/usr/lib/opkg/status"
  for package in libc base-files busybox procd ubus uci dnsmasq; do : >"$r/usr/lib/opkg/info/$package.list"; done
  ln -sfn /tmp/resolv.conf "$r/etc/resolv.conf"
  # The account dnsmasq's package adds when it is installed.
  grep -q '^dnsmasq:' "$r/etc/passwd" || echo 'dnsmasq:x:453:453:dnsmasq:/var/run/dnsmasq:/bin/false' >>"$r/etc/passwd"
  grep -q '^dnsmasq:' "$r/etc/group" || echo 'dnsmasq:x:453:' >>"$r/etc/group"
}

# rig_layout USERLAND: the root, in a fresh temporary directory.
rig_layout() {
  RIG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/dnsward-rig.XXXXXX")
  RIG_ROOT=$RIG_DIR/root
  RIG_USERLAND=$1
  mkdir -p "$RIG_ROOT"
  rig_layout_userland "$1"
  rig_layout_busybox
  rig_layout_config
  rig_check_real "$1"
}

# rig_check_real USERLAND: the rig runs the real procd, ubus, uci, opkg,
# dnsmasq, logd and apk: each is an ELF file with the sha256 the userland's
# manifest lists for its build. A stand-in (a script) stops the run.
rig_check_real() {
  local manifest=$1/manifest.sha256 path source expected actual
  for path in "${RIG_REAL[@]}"; do
    case $path in
    bin/opkg) source=bin/opkg-cl ;;
    sbin/uci) source=bin/uci ;;
    usr/*) source=${path#usr/} ;;
    *) source=$path ;;
    esac
    expected=$(awk -v p="$source" '$2 == p { print $1 }' "$manifest")
    [[ -n $expected ]] || rig_fail "$source is not in $manifest"
    [[ $(head -c 4 "$RIG_ROOT/$path" | od -An -tx1 | tr -d ' \n') == 7f454c46 ]] ||
      rig_fail "/$path in the root is not an ELF file: not the real $(basename "$path")"
    actual=$(sha256sum <"$RIG_ROOT/$path" | cut -d' ' -f1)
    [[ $actual == "$expected" ]] || rig_fail "/$path in the root is not the userland's build (sha256 $actual)"
  done
}
