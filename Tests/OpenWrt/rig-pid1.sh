#!/usr/bin/env bash
# rig-pid1.sh ROOT — PID 1 of the rig's router namespaces (started by
# rig_boot under `unshare --mount --pid --fork` in the router's network
# namespace). It mounts what a router's early boot mounts (proc, a tmpfs on
# /tmp, /var being a link to it, the device nodes), starts the daemons a
# router runs before any service (ubusd, logd, procd: not PID 1, so it
# skips the boot sequence and only serves services; and the netifd
# stand-in), then reaps orphans until the rig kills it. The mounts live in
# this mount namespace only and go with it.
set -euo pipefail
ROOT=$1

mount -t proc proc "$ROOT/proc"
mount -t tmpfs -o mode=0755 tmpfs "$ROOT/tmp"
mount -t tmpfs -o mode=0755 tmpfs "$ROOT/dev"
for node in null zero random urandom full; do
  touch "$ROOT/dev/$node"
  mount --bind "/dev/$node" "$ROOT/dev/$node"
done
mkdir -p "$ROOT"/tmp/{run/ubus,lock,log,state,etc,resolv.conf.d,lib/misc,opkg-lists}
# What netifd writes from the WAN's DHCP: the WAN's DNS server (Knot).
echo "nameserver 10.0.2.1" >"$ROOT/tmp/resolv.conf.d/resolv.conf.auto"
printf 'search lan\nnameserver 127.0.0.1\n' >"$ROOT/tmp/resolv.conf"

# (Only ever run in the background: the subshell becomes the daemon.)
in_root() { exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root chroot "$ROOT" "$@"; }
# until_present PATH: the daemon that creates PATH is up (bounded: 10 s).
until_present() {
  local tries=0
  until [[ -e $ROOT$1 ]]; do
    ((tries++ < 100)) || { echo "rig-pid1: $1 did not appear" >&2; exit 1; }
    sleep 0.1
  done
}

in_root /sbin/ubusd -s /var/run/ubus/ubus.sock >"$ROOT/tmp/ubusd.log" 2>&1 &
until_present /var/run/ubus/ubus.sock
in_root /sbin/logd -S 64 >"$ROOT/tmp/logd.log" 2>&1 &
in_root /sbin/procd -s /var/run/ubus/ubus.sock -S -I /etc/init.d -R /etc/rc.d >"$ROOT/tmp/procd.log" 2>&1 &
in_root /usr/bin/ucode -L '/usr/lib/ucode/*.so' /usr/share/rig/netifd-standin.uc /etc/rig-interfaces.json \
  >"$ROOT/tmp/netifd-standin.log" 2>&1 &
touch "$ROOT/tmp/rig.started"
# Orphans of the namespace are this shell's children: each `sleep` that
# ends lets bash reap every exited child (it waits for any pid).
while :; do sleep 1; done
