# rig-net.sh — the rig's namespaces, Knot and the boot (sourced by
# openwrt-test.sh after rig.sh).
# shellcheck shell=bash
# The RIG_ variables are rig.sh's (read by its rig_cleanup and rig_sh).
# shellcheck disable=SC2034,SC2153

# rig_net_up: router, LAN and WAN network namespaces and their links.
rig_net_up() {
  local ns
  for ns in "$RIG_ROUTER" "$RIG_LAN" "$RIG_WAN"; do
    ip netns add "$ns"
    ip -n "$ns" link set lo up
  done
  ip -n "$RIG_ROUTER" link add br-lan type bridge
  ip -n "$RIG_ROUTER" link add lan0 type veth peer name eth0 netns "$RIG_LAN"
  ip -n "$RIG_ROUTER" link set lan0 master br-lan
  ip -n "$RIG_ROUTER" addr add 192.168.1.1/24 dev br-lan
  ip -n "$RIG_ROUTER" link add wan0 type veth peer name eth0 netns "$RIG_WAN"
  ip -n "$RIG_ROUTER" addr add 10.0.2.2/24 dev wan0
  ip -n "$RIG_WAN" addr add 10.0.2.1/24 dev eth0
  for link in br-lan lan0 wan0; do ip -n "$RIG_ROUTER" link set "$link" up; done
  ip -n "$RIG_ROUTER" route add default via 10.0.2.1
  ip -n "$RIG_WAN" link set eth0 up
  ip -n "$RIG_LAN" link set eth0 up
  # getent in the LAN namespace reads this one (ip netns exec mounts it).
  mkdir -p "/etc/netns/$RIG_LAN"
  echo "nameserver 192.168.1.1" >"/etc/netns/$RIG_LAN/resolv.conf"
}

# rig_knot_up: knotd in the WAN namespace, authoritative for example.
rig_knot_up() {
  local dir=$RIG_DIR/knot
  mkdir -p "$dir"
  cat >"$dir/example.zone" <<'ZONE'
$TTL 300
@    SOA ns.example. hostmaster.example. 1 3600 600 86400 300
@    NS  ns.example.
ns   A   10.0.2.1
www  A   1.2.3.4
*    A   1.2.3.5
ZONE
  cat >"$dir/knot.conf" <<CONF
server:
    rundir: "$dir"
    listen: 10.0.2.1@53
database:
    storage: "$dir"
zone:
  - domain: example.
    file: "$dir/example.zone"
CONF
  ip netns exec "$RIG_WAN" knotd -c "$dir/knot.conf" >"$dir/knotd.log" 2>&1 &
  RIG_KNOT=$!
  rig_wait "knotd on 10.0.2.1" 10 ip netns exec "$RIG_WAN" dig +short +time=1 +tries=1 @10.0.2.1 www.example A
}

# rig_boot: PID 1 of the router's namespaces (rig-pid1.sh), then the bus
# and the services it serves.
rig_boot() {
  ip netns exec "$RIG_ROUTER" unshare --mount --pid --fork --propagation private \
    bash "$RIG_HERE/rig-pid1.sh" "$RIG_ROOT" &
  RIG_UNSHARE=$!
  rig_wait "PID 1 of the router namespace" 10 rig_find_pid1
  RIG_PID1=$(rig_find_pid1)
  rig_wait "rig-pid1.sh's mounts and daemons" 15 rig_sh 'test -e /tmp/rig.started'
  rig_wait "ubusd, procd and the netifd stand-in" 15 rig_sh \
    'ubus list service && ubus list log && ubus list network.interface'
  # A booted router has /var/run/config.md5: reload_config sends
  # config.change events only against it.
  rig_sh reload_config
  rig_wait "/var/run/config.md5" 5 rig_sh 'test -s /var/run/config.md5'
}
rig_find_pid1() {
  local child
  child=$(cat "/proc/$RIG_UNSHARE/task/$RIG_UNSHARE/children" 2>/dev/null) || return 1
  [[ -n $child ]] || return 1
  echo "${child%% *}"
}
