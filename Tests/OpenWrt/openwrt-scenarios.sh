# openwrt-scenarios.sh — what the rig proves about the package (sourced
# by openwrt-test.sh; PM and the variants from openwrt-packages.sh). The
# scenarios run in order in one rig: each starts from the state the one
# before left, which each states.
# shellcheck shell=bash

LAN_CLIENT=lanclient
USER_SERVER=/corp.example/10.0.2.1
DHCP_BEFORE=""

# dig_at NETNS SERVER[:PORT] NAME: the answer's records, one a line.
dig_at() {
  local ns=$1 server=${2%%:*} port=53 name=$3
  [[ $2 == *:* ]] && port=${2##*:}
  ip netns exec "$ns" dig +short +time=1 +tries=2 -p "$port" "@$server" "$name" A
}
lan_dig() { dig_at "$RIG_LAN" 192.168.1.1 "$1"; }
router_dig() { dig_at "$RIG_ROUTER" "$1" "$2"; }
# answers NETNS SERVER NAME ADDRESS: the answer is exactly ADDRESS.
answers() { [[ $(dig_at "$1" "$2" "$3") == "$4" ]]; }
# unanswered NETNS SERVER NAME: no address (SERVFAIL, or no answer).
unanswered() { [[ -z $(dig_at "$1" "$2" "$3") ]]; }

# dnsward_pid: the instance's pid as procd reports it (empty: none running).
# (This jsonfilter reads stdin only with -i: `| jsonfilter -e` matches nothing.)
dnsward_pid() {
  rig_sh "jsonfilter -s \"\$(ubus call service list '{\"name\":\"dnsward\"}')\" -e '@.dnsward.instances.*.pid'" 2>/dev/null
}
# (procd lists a pid only for an instance that runs.)
dnsward_running() { [[ -n $(dnsward_pid) ]]; }
# queries ADDR: dnsward's query counter (dnsward stats).
queries() { rig_sh "dnsward stats $1" | awk '$1 == "queries" { print $2 }'; }
dhcp_show() { rig_sh 'uci show dhcp'; }
uci_commit_reload() { rig_sh "$1 && uci commit dnsward && reload_config"; }

lan_lease() {
  cat >"$RIG_DIR/udhcpc.script" <<'EOF'
#!/bin/sh
case $1 in
bound | renew)
	ip addr flush dev "$interface" && ip addr add "$ip/$subnet" dev "$interface"
	echo "$dns" >"${0%/*}/lease.dns"
	;;
esac
EOF
  chmod 0755 "$RIG_DIR/udhcpc.script"
  rig_lan busybox udhcpc -i eth0 -n -q -t 10 -T 1 -x "hostname:$LAN_CLIENT" -s "$RIG_DIR/udhcpc.script" \
    >"$RIG_DIR/udhcpc.log" 2>&1 || rig_fail "no DHCP lease from dnsmasq: $(cat "$RIG_DIR/udhcpc.log")"
  LAN_ADDRESS=$(ip -n "$RIG_LAN" -4 -o addr show dev eth0 | awk '{ print $4 }' | cut -d/ -f1)
  [[ $LAN_ADDRESS == 192.168.1.* ]] || rig_fail "the LAN client's address: '$LAN_ADDRESS'"
}

# Before the package: dnsmasq alone serves the LAN (DHCP and DNS).
scenario_baseline() {
  # A setting of the user's own that dnsward must leave alone: a server
  # for one domain (Knot, in the WAN namespace).
  rig_sh "uci add_list 'dhcp.@dnsmasq[0].server=$USER_SERVER' && uci commit dhcp"
  rig_sh '/etc/init.d/dnsmasq enable && /etc/init.d/dnsmasq start' >"$RIG_DIR/dnsmasq-start.log" 2>&1 ||
    rig_fail "dnsmasq did not start: $(cat "$RIG_DIR/dnsmasq-start.log")"
  rig_wait "dnsmasq answering on 192.168.1.1:53" 20 answers "$RIG_ROUTER" 192.168.1.1 www.example 1.2.3.4
  lan_lease
  rig_wait "the lease's name in dnsmasq" 10 answers "$RIG_LAN" 192.168.1.1 "$LAN_CLIENT.lan" "$LAN_ADDRESS"
  DHCP_BEFORE=$(dhcp_show)
  pass "baseline: dnsmasq answers the LAN (www.example, $LAN_CLIENT.lan = $LAN_ADDRESS from its DHCP lease)"
}

scenario_wrong_arch() {
  local output
  if output=$(pm_install wrong); then rig_fail "a package for aarch64_generic was installed: $output"; fi
  pm_arch_refused "$output" || rig_fail "the refusal is not the package manager's own: $output"
  [[ -z $(pm_version) ]] || rig_fail "dnsward is installed after the refusal"
  pass "a package for aarch64_generic is refused: $(tr -s ' \n' ' ' <<<"$output")"
}

# Install: default_postinst enables and starts it (mode beside).
scenario_install() {
  local output
  output=$(pm_install current) || rig_fail "install: $output"
  [[ $(pm_version) == "$PACKAGE_VERSION" ]] || rig_fail "installed version '$(pm_version)'"
  rig_sh 'test -L /etc/rc.d/S21dnsward' || rig_fail "not enabled after install (no /etc/rc.d/S21dnsward)"
  rig_wait "procd lists dnsward running" 10 dnsward_running
  rig_wait "dnsward answering on 127.0.0.1:5353" 10 answers "$RIG_ROUTER" 127.0.0.1:5353 dnsward.test 127.0.0.53
  # It may hold a secret: root's, readable by the group of its `user` (nobody).
  local mode gid
  mode=$(rig_sh 'stat -c "%a %g" /var/etc/dnsward.conf')
  gid=$(rig_sh "awk -F: '\$1 == \"nobody\" { print \$4 }' /etc/passwd")
  [[ $mode == "640 $gid" ]] || rig_fail "/var/etc/dnsward.conf: mode and group '$mode', not '640 $gid'"
  pass "install: enabled, procd lists it running (pid $(dnsward_pid)), it answers on 127.0.0.1:5353; its config 0640 group nobody's"
}

dnsmasq_pid() {
  rig_sh "jsonfilter -s \"\$(ubus call service list '{\"name\":\"dnsmasq\"}')\" -e '@.dnsmasq.instances.*.pid'"
}

# A second start (what an interface event's reload does when nothing
# changed) changes nothing: neither dnsward nor dnsmasq restarts.
scenario_start_again() {
  local pid dnsmasq dhcp
  pid=$(dnsward_pid) dnsmasq=$(dnsmasq_pid) dhcp=$(dhcp_show)
  rig_sh '/etc/init.d/dnsward start' || rig_fail "a second start failed"
  [[ $(dnsward_pid) == "$pid" && $(dnsmasq_pid) == "$dnsmasq" && $(dhcp_show) == "$dhcp" ]] ||
    rig_fail "a second start changed something: dnsward $pid -> $(dnsward_pid), dnsmasq $dnsmasq -> $(dnsmasq_pid)"
  pass "a second start changes nothing (dnsward $pid, dnsmasq $dnsmasq kept)"
}

# Beside: the LAN asks dnsmasq, dnsmasq asks dnsward.
scenario_beside() {
  local before after
  [[ $(rig_sh "uci get 'dhcp.@dnsmasq[0].server'") == "$USER_SERVER 127.0.0.1#5353" ]] ||
    rig_fail "beside: dnsmasq's servers: $(rig_sh "uci get 'dhcp.@dnsmasq[0].server'")"
  before=$(queries 127.0.0.1:5353)
  rig_wait "beside.example through dnsmasq and dnsward" 10 answers "$RIG_LAN" 192.168.1.1 beside.example 1.2.3.5
  # dnsmasq answers *.test itself (rfc6761.conf): the override under example.
  answers "$RIG_LAN" 192.168.1.1 ward.example 5.6.7.8 || rig_fail "ward.example through dnsmasq: $(lan_dig ward.example)"
  after=$(queries 127.0.0.1:5353)
  ((after > before)) || rig_fail "dnsward's query counter did not move ($before -> $after)"
  answers "$RIG_LAN" 192.168.1.1 "$LAN_CLIENT.lan" "$LAN_ADDRESS" || rig_fail "the DHCP name through dnsmasq: $(lan_dig "$LAN_CLIENT.lan")"
  rig_lan getent hosts ward.example | grep -q '^5\.6\.7\.8 ' || rig_fail "getent hosts ward.example on the LAN"
  pass "beside: LAN -> dnsmasq:53 -> dnsward:5353 (queries $before -> $after), $LAN_CLIENT.lan still from dnsmasq, getent resolves"
}

# A stop prints nothing (rc.common's own ubus call after stop_service).
scenario_stop_quiet() {
  local output
  output=$(rig_sh '/etc/init.d/dnsward stop 2>&1') || rig_fail "stop failed: $output"
  [[ -z $output ]] || rig_fail "/etc/init.d/dnsward stop printed: $output"
  [[ -z $(dnsward_pid) ]] || rig_fail "still running after stop"
  [[ $(dhcp_show) == "$DHCP_BEFORE" ]] || rig_fail "stop: uci show dhcp differs from before install: $(diff <(echo "$DHCP_BEFORE") <(dhcp_show))"
  rig_wait "dnsmasq's own DNS after stop" 10 answers "$RIG_LAN" 192.168.1.1 www.example 1.2.3.4
  rig_sh '/etc/init.d/dnsward start' || rig_fail "start after stop"
  rig_wait "dnsward answering again" 10 answers "$RIG_ROUTER" 127.0.0.1:5353 dnsward.test 127.0.0.53
  pass "stop is quiet, gives dnsmasq its settings back (uci show dhcp byte-equal) and its DNS; start again"
}

# logread_has TEXT: the log holds a line with TEXT (fixed string).
logread_has() { rig_sh 'logread' | grep -qF -- "$1"; }
pid_changed_from() { local pid; pid=$(dnsward_pid) && [[ -n $pid && $pid != "$1" ]]; }

# uci commit + reload_config reaches dnsward as a reload: same pid, the new
# config in force. The packaged config says `dnssec auto`, and the rig's WAN
# server (Knot: an unsigned zone, no root keys to give) is an upstream that
# cannot pass DNSSEC: its probe fails, it is named in one warning, and its
# answers are relayed unvalidated, so the LAN keeps its names. Under
# `dnssec 1` the same names are SERVFAIL (the root's keys cannot be had);
# `dnssec 0` answers again.
scenario_reload() {
  local pid
  pid=$(dnsward_pid)
  rig_wait "reload.example under dnssec auto" 10 answers "$RIG_ROUTER" 127.0.0.1:5353 reload.example 1.2.3.5
  rig_wait "the dnssec auto warning in the log" 10 logread_has "dnssec auto: upstream 10.0.2.1:53 "
  uci_commit_reload "uci set dnsward.main.dnssec=1"
  rig_wait "reload.example SERVFAIL under dnssec 1" 10 unanswered "$RIG_ROUTER" 127.0.0.1:5353 reload2.example
  [[ -z $(router_dig 127.0.0.1:5353 reload.example) ]] || rig_fail "reload.example answered under dnssec 1"
  uci_commit_reload "uci set dnsward.main.dnssec=0 && uci add_list dnsward.main.override='ward.example 5.6.7.8'"
  rig_wait "the reloaded config (override ward.example)" 10 answers "$RIG_ROUTER" 127.0.0.1:5353 ward.example 5.6.7.8
  rig_wait "reload.example with dnssec 0" 10 answers "$RIG_ROUTER" 127.0.0.1:5353 reload.example 1.2.3.5
  [[ $(dnsward_pid) == "$pid" ]] || rig_fail "reload: pid $pid became $(dnsward_pid) (restarted, not reloaded)"
  pass "uci commit; reload_config: reloaded in place (pid $pid): dnssec auto answers behind a WAN that fails DNSSEC (warned), dnssec 1 does not, then an override and dnssec 0"
}

# A directive a running dnsward cannot change (cache) restarts it.
scenario_restart_only() {
  local pid
  pid=$(dnsward_pid)
  uci_commit_reload "uci set dnsward.main.cache=2048"
  rig_wait "a new pid after changing cache" 15 pid_changed_from "$pid"
  rig_wait "the restarted dnsward answering" 10 answers "$RIG_ROUTER" 127.0.0.1:5353 ward.example 5.6.7.8
  pass "a restart-only change (cache) restarts it: pid $pid -> $(dnsward_pid)"
}

# A bad value is refused; dnsward keeps the config it runs.
scenario_bad_value() {
  local pid
  pid=$(dnsward_pid)
  uci_commit_reload "uci set dnsward.main.timeout=soon"
  rig_wait "the refusal in logread" 10 logread_has "was refused: dnsward keeps running the config it has"
  [[ $(dnsward_pid) == "$pid" ]] || rig_fail "a refused reload changed the pid: $pid -> $(dnsward_pid)"
  answers "$RIG_ROUTER" 127.0.0.1:5353 ward.example 5.6.7.8 || rig_fail "the running config was lost"
  rig_sh 'grep -qx "timeout 1500ms" /var/etc/dnsward.conf' || rig_fail "/var/etc/dnsward.conf changed"
  uci_commit_reload "uci set dnsward.main.timeout=1500ms"
  pass "a bad value (timeout soon) is refused, same pid, running config kept"
}

# kill -9: procd starts it again (respawn).
scenario_kill() {
  local pid
  pid=$(dnsward_pid)
  rig_sh "kill -9 $pid"
  rig_wait "procd respawning dnsward" 15 pid_changed_from "$pid"
  rig_wait "the respawned dnsward answering" 10 answers "$RIG_ROUTER" 127.0.0.1:5353 ward.example 5.6.7.8
  pass "kill -9 $pid: procd started it again (pid $(dnsward_pid))"
}

dhcp_as_before() { [[ $(dhcp_show) == "$DHCP_BEFORE" ]]; }
dnsward_down() { [[ -z $(dnsward_pid) ]]; }

# enabled '0', then a mode that does not exist: no dnsward, dnsmasq as before.
scenario_enabled_mode() {
  uci_commit_reload "uci set dnsward.main.enabled=0"
  rig_wait "dnsward stopped by enabled 0" 15 dnsward_down
  rig_wait "dnsmasq's settings back" 10 dhcp_as_before
  uci_commit_reload "uci set dnsward.main.enabled=1 && uci set dnsward.main.mode=sideways"
  rig_wait "the refusal of mode sideways" 15 logread_has "mode must be 'beside' or 'primary', not 'sideways'"
  dnsward_down || rig_fail "mode sideways: dnsward runs"
  dhcp_as_before || rig_fail "mode sideways: dhcp changed"
  uci_commit_reload "uci set dnsward.main.mode=beside"
  rig_wait "dnsward back in mode beside" 15 answers "$RIG_ROUTER" 127.0.0.1:5353 ward.example 5.6.7.8
  pass "enabled 0 stops it, mode sideways is refused; both leave dhcp as before install"
}

dnsmasq_dns_off() { [[ $(rig_sh "uci -q get 'dhcp.@dnsmasq[0].port'") == 0 ]] && rig_sh 'grep -qx port=0 /var/etc/dnsmasq.conf.*'; }

# Primary: dnsward on port 53 of the LAN address, dnsmasq DHCP only.
scenario_primary() {
  local before after
  uci_commit_reload "uci set dnsward.main.mode=primary"
  rig_wait "dnsmasq with port 0" 15 dnsmasq_dns_off
  rig_wait "dnsward on 192.168.1.1:53" 15 answers "$RIG_LAN" 192.168.1.1 dnsward.test 127.0.0.53
  before=$(queries 127.0.0.1:53)
  rig_wait "the lease's name from dnsward" 10 answers "$RIG_LAN" 192.168.1.1 "$LAN_CLIENT.lan" "$LAN_ADDRESS"
  answers "$RIG_LAN" 192.168.1.1 primary.example 1.2.3.5 || rig_fail "primary.example from the LAN"
  after=$(queries 127.0.0.1:53)
  ((after > before)) || rig_fail "dnsward's counter did not move ($before -> $after)"
  answers "$RIG_LAN" 192.168.1.1 OpenWrt.lan 192.168.1.1 || rig_fail "the router's name: $(lan_dig OpenWrt.lan)"
  [[ $(rig_sh "uci get 'dhcp.@dnsmasq[0].server'") == "$USER_SERVER" ]] || rig_fail "primary: the user's server line"
  rm -f "$RIG_DIR/lease.dns"
  lan_lease
  [[ $(cat "$RIG_DIR/lease.dns") == 192.168.1.1 ]] || rig_fail "primary: the lease's DNS server is '$(cat "$RIG_DIR/lease.dns")'"
  pass "primary: dnsward answers 192.168.1.1:53 ($LAN_CLIENT.lan from the leases, OpenWrt.lan, queries $before -> $after), dnsmasq port 0 still leases with DNS 192.168.1.1"
  uci_commit_reload "uci set dnsward.main.mode=beside"
  rig_wait "dnsmasq's DNS back (beside)" 15 answers "$RIG_LAN" 192.168.1.1 beside2.example 1.2.3.5
  rig_wait "dnsward back on 5353" 10 answers "$RIG_ROUTER" 127.0.0.1:5353 ward.example 5.6.7.8
}

# A broken /etc/config/dnsward: start refuses, names file:line, dnsmasq
# keeps serving the LAN with its own settings.
scenario_broken_config() {
  local line output
  rig_sh '/etc/init.d/dnsward stop' >/dev/null 2>&1
  line=$(rig_sh "grep -n \"option timeout\" /etc/config/dnsward" | cut -d: -f1)
  rig_sh "sed -i \"s/option timeout .*/option timeout 'soon'/\" /etc/config/dnsward"
  output=$(rig_sh '/etc/init.d/dnsward start 2>&1') || true
  rig_wait "file:line in logread" 10 logread_has "/var/etc/dnsward.conf:$line"
  [[ -z $(dnsward_pid) ]] || rig_fail "a broken config started"
  [[ $(dhcp_show) == "$DHCP_BEFORE" ]] || rig_fail "broken config: dhcp changed: $(diff <(echo "$DHCP_BEFORE") <(dhcp_show))"
  rig_wait "dnsmasq serving the LAN" 10 answers "$RIG_LAN" 192.168.1.1 broken.example 1.2.3.5
  rig_sh "sed -i \"s/option timeout .*/option timeout '1500ms'/\" /etc/config/dnsward && /etc/init.d/dnsward start"
  rig_wait "dnsward after the fix" 10 answers "$RIG_ROUTER" 127.0.0.1:5353 ward.example 5.6.7.8
  pass "a broken config is refused with /var/etc/dnsward.conf:$line (${output:+start said: ${output%%$'\n'*}}), dnsmasq keeps the LAN"
}

# Upgrade to the next version keeps the edited /etc/config/dnsward.
scenario_upgrade() {
  local output
  output=$(pm_install next) || rig_fail "upgrade: $output"
  [[ $(pm_version) == "$NEXT_VERSION" ]] || rig_fail "after the upgrade: version '$(pm_version)'"
  rig_sh "grep -q \"ward.example 5.6.7.8\" /etc/config/dnsward && grep -q \"option dnssec '0'\" /etc/config/dnsward" ||
    rig_fail "the upgrade lost the edits of /etc/config/dnsward"
  rig_wait "the upgraded dnsward running" 10 dnsward_running
  rig_wait "the upgraded dnsward with the edited config" 10 answers "$RIG_ROUTER" 127.0.0.1:5353 ward.example 5.6.7.8
  pass "upgrade $PACKAGE_VERSION -> $NEXT_VERSION keeps the edited /etc/config/dnsward"
}

# disable, then removal while dnsward is down (procd dropped it), give
# dnsmasq its settings back.
scenario_disable_remove() {
  local output
  output=$(rig_sh '/etc/init.d/dnsward disable 2>&1')
  [[ -z $output ]] || rig_fail "disable printed: $output"
  rig_sh 'test ! -e /etc/rc.d/S21dnsward' || rig_fail "disable left /etc/rc.d/S21dnsward"
  [[ $(dhcp_show) == "$DHCP_BEFORE" ]] || rig_fail "disable: dhcp differs from before install"
  rig_sh '/etc/init.d/dnsward start'
  rig_wait "dnsward started again" 10 dnsward_running
  rig_sh "ubus call service delete '{\"name\":\"dnsward\"}'"
  rig_wait "dnsward down" 10 dnsward_down
  [[ $(dhcp_show) != "$DHCP_BEFORE" ]] || rig_fail "dhcp has no dnsward settings while it is down"
  output=$(pm_remove) || rig_fail "remove: $output"
  [[ -z $(pm_version) ]] || rig_fail "still installed after removal"
  rig_sh 'test ! -e /usr/sbin/dnsward && test ! -e /etc/init.d/dnsward' || rig_fail "files left after removal"
  [[ $(dhcp_show) == "$DHCP_BEFORE" ]] ||
    rig_fail "after removal: uci show dhcp differs: $(diff <(echo "$DHCP_BEFORE") <(dhcp_show))"
  rig_wait "dnsmasq's DNS after removal" 10 answers "$RIG_LAN" 192.168.1.1 removed.example 1.2.3.5
  pass "disable is quiet; removed while down: uci show dhcp byte-equal to before install, dnsmasq answers the LAN"
}

scenarios() {
  scenario_baseline
  scenario_wrong_arch
  scenario_install
  scenario_start_again
  scenario_reload
  scenario_beside
  scenario_restart_only
  scenario_bad_value
  scenario_kill
  scenario_enabled_mode
  scenario_primary
  scenario_broken_config
  scenario_upgrade
  scenario_stop_quiet
  scenario_disable_remove
}
