# Sourced by Tests/Benchmarks/bench.sh: how each contender is configured and
# started. Each start_NAME (start_dnsmasq and start_unbound in
# bench/common.sh, with the lines NAME_extra adds here) writes its config
# into $WORK and launches the server in the foreground on
# 127.0.0.1:$PROXY_PORT, pinned with `taskset -c $PROXY_CPU` under
# `nice -n $NICE`, forwarding to Knot on 127.0.0.1:$UPSTREAM_PORT. It sets
# SERVER_PID (nice and taskset exec the server, so this is the server's own
# PID). Common settings:
#   - a cache of 10,000 entries (unbound has no entry limit; its caches are
#     sized in bytes so that about 10,000 answers fit, see start_unbound);
#   - the same 1,000 local overrides ($WORK/overrides.txt), present in every
#     workload, as a router with a local-name table would carry them;
#   - about 1,000 upstream queries in flight at once;
#   - one thread where the server lets us choose; logging off or warnings only.
# Everything else is left at the server's defaults.

# version_NAME prints one line naming the contender (dnsward, dnsmasq and
# unbound: bench/common.sh).
version_dnsdist() { dnsdist --version 2>&1 | awk 'NR == 1 {print "dnsdist " $2}'; }
version_echo() { echo "echo (recvfrom + sendto, the floor)"; }

# start_dnsward [BINARY [LOG-NAME]]: DNSWARD_BIN by default.
start_dnsward() {
  local binary=${1:-$DNSWARD_BIN} name=${2:-dnsward}
  {
    echo "listen 127.0.0.1:$PROXY_PORT"
    echo "upstream udp 127.0.0.1:$UPSTREAM_PORT"
    echo "cache 10000"
    # The default: 10,000 of this benchmark's answers take 720...760 kB
    # (cacheBytesInUse in `dnsward stats`), so the entry count binds first.
    echo "cache-bytes 1m"
    echo "inflight 1024"
    echo "log warning"
    awk '{print "override " $1 " " $2 " " $3}' "$WORK/overrides.txt"
  } >"$WORK/dnsward.conf"
  "$binary" --check "$WORK/dnsward.conf" >"$WORK/dnsward.check" 2>&1 || {
    cat "$WORK/dnsward.check" >&2
    return 1
  }
  nice -n "$NICE" taskset -c "$PROXY_CPU" "$binary" --config "$WORK/dnsward.conf" >>"$LOGS/$name.log" 2>&1 &
  SERVER_PID=$!
}

# dnsward-before: the same config run by DNSWARD_BEFORE_BIN, a build of an
# earlier commit, so that a change is measured side by side with what it
# changes (the ratio table compares dnsward with it).
start_dnsward-before() { start_dnsward "$DNSWARD_BEFORE_BIN" dnsward-before; }
version_dnsward-before() { echo "dnsward before the change ($DNSWARD_BEFORE_BIN)"; }

dnsmasq_extra() {
  awk '{print "address=/" $1 "/" $2; print "address=/" $1 "/" $3}' "$WORK/overrides.txt"
}

# unbound keeps answers in two caches sized in bytes: messages (one per
# question) and the RRsets they point to. With one slab each, 2500k of
# message cache and 3m of RRset cache hold about 10,000 of this benchmark's
# answers: after 40,000 distinct cold questions, `unbound-control dump_cache`
# listed 9,884 messages and 12,336 RRsets (remote-control is on, on a local
# socket, for such checks). Validation is off (module-config "iterator"):
# the other contenders do not validate.
unbound_extra() {
  awk '{printf "  local-data: \"%s. 300 IN A %s\"\n  local-data: \"%s. 300 IN AAAA %s\"\n", $1, $2, $1, $3}' "$WORK/overrides.txt"
  cat <<CONF
remote-control:
  control-enable: yes
  control-use-cert: no
  control-interface: "$WORK/unbound.ctl"
CONF
}

# dnsdist has no per-name address table: the 1,000 override names are one
# QNameSetRule (a hash-set lookup, not 1,000 rules tried in turn) answered by
# one SpoofAction, so every override name gets the same A and AAAA. The cost
# per query is what matters here, not the addresses. Its packet cache does
# not evict live entries: once 10,000 answers are in it, new answers are not
# stored until old ones expire (fresh start per measurement, see bench.sh).
# All of its threads (listener, responder, health checks, ...) share the
# pinned CPU.
start_dnsdist() {
  {
    echo "setLocal('127.0.0.1:$PROXY_PORT')"
    echo "setACL({'127.0.0.0/8'})"
    echo "setSecurityPollSuffix('')"
    echo "newServer({address='127.0.0.1:$UPSTREAM_PORT', checkName='bench.test.', checkType='SOA'})"
    echo "getPool(''):setCache(newPacketCache(10000, {maxTTL=86400, minTTL=0, numberOfShards=1}))"
    echo "local overrides = newDNSNameSet()"
    awk '{print "overrides:add(newDNSName(\"" $1 ".\"))"}' "$WORK/overrides.txt"
    echo "addAction(QNameSetRule(overrides), SpoofAction({'10.200.0.1', 'fd00::1'}))"
  } >"$WORK/dnsdist.conf"
  nice -n "$NICE" taskset -c "$PROXY_CPU" dnsdist --supervised --disable-syslog -C "$WORK/dnsdist.conf" \
    >>"$LOGS/dnsdist.log" 2>&1 &
  SERVER_PID=$!
}

start_echo() {
  nice -n "$NICE" taskset -c "$PROXY_CPU" "$WORK/echo" "$PROXY_PORT" >>"$LOGS/echo.log" 2>&1 &
  SERVER_PID=$!
}
