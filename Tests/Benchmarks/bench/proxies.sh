# Sourced by Tests/Benchmarks/bench.sh: how each contender is configured and
# started. Each start_NAME writes its config into $WORK and launches the
# server in the foreground on 127.0.0.1:$PROXY_PORT, pinned with
# `taskset -c $PROXY_CPU` under `nice -n $NICE`, forwarding to Knot on
# 127.0.0.1:$UPSTREAM_PORT. It sets SERVER_PID (nice and taskset exec the
# server, so this is the server's own PID). Common settings:
#   - a cache of 10,000 entries (unbound has no entry limit; its caches are
#     sized in bytes so that about 10,000 answers fit, see start_unbound);
#   - the same 1,000 local overrides ($WORK/overrides.txt), present in every
#     workload, as a router with a local-name table would carry them;
#   - about 1,000 upstream queries in flight at once;
#   - one thread where the server lets us choose; logging off or warnings only.
# Everything else is left at the server's defaults.

# version_NAME prints one line naming the contender.
version_dnsward() { echo "dnsward ($DNSWARD_SOURCE; HEAD $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'))"; }
version_dnsmasq() { dnsmasq --version | awk 'NR == 1 {print "dnsmasq " $3}'; }
version_unbound() { unbound -V | awk 'NR == 1 {print "unbound " $2}'; }
version_dnsdist() { dnsdist --version 2>&1 | awk 'NR == 1 {print "dnsdist " $2}'; }
version_echo() { echo "echo (recvfrom + sendto, the floor)"; }

start_dnsward() {
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
  "$DNSWARD_BIN" --check "$WORK/dnsward.conf" >"$WORK/dnsward.check" 2>&1 || {
    cat "$WORK/dnsward.check" >&2
    return 1
  }
  nice -n "$NICE" taskset -c "$PROXY_CPU" "$DNSWARD_BIN" --config "$WORK/dnsward.conf" >>"$LOGS/dnsward.log" 2>&1 &
  SERVER_PID=$!
}

start_dnsmasq() {
  {
    echo "port=$PROXY_PORT"
    echo "listen-address=127.0.0.1"
    echo "bind-interfaces"
    echo "no-resolv"
    echo "no-hosts"
    echo "server=127.0.0.1#$UPSTREAM_PORT"
    echo "cache-size=10000"
    echo "dns-forward-max=1024"
    echo "user=$(id -un)"
    echo "pid-file=$WORK/dnsmasq.pid"
    awk '{print "address=/" $1 "/" $2; print "address=/" $1 "/" $3}' "$WORK/overrides.txt"
  } >"$WORK/dnsmasq.conf"
  nice -n "$NICE" taskset -c "$PROXY_CPU" dnsmasq --keep-in-foreground --conf-file="$WORK/dnsmasq.conf" \
    >>"$LOGS/dnsmasq.log" 2>&1 &
  SERVER_PID=$!
}

# unbound keeps answers in two caches sized in bytes: messages (one per
# question) and the RRsets they point to. With one slab each, 2500k of
# message cache and 3m of RRset cache hold about 10,000 of this benchmark's
# answers: after 40,000 distinct cold questions, `unbound-control dump_cache`
# listed 9,884 messages and 12,336 RRsets (remote-control is on, on a local
# socket, for such checks). Validation is off (module-config "iterator"):
# the other contenders do not validate. "test." is one of unbound's built-in
# local zones (RFC 6761), so it is switched off to let bench.test through.
start_unbound() {
  cat >"$WORK/unbound.conf" <<CONF
$(unbound_server_lines)
  module-config: "iterator"
  do-not-query-localhost: no
  local-zone: "test." nodefault
  msg-cache-size: ${UNBOUND_MSG_CACHE:-2500k}
  msg-cache-slabs: 1
  rrset-cache-size: ${UNBOUND_RRSET_CACHE:-3m}
  rrset-cache-slabs: 1
  infra-cache-slabs: 1
  key-cache-slabs: 1
  prefetch: no
$(awk '{printf "  local-data: \"%s. 300 IN A %s\"\n  local-data: \"%s. 300 IN AAAA %s\"\n", $1, $2, $1, $3}' "$WORK/overrides.txt")
remote-control:
  control-enable: yes
  control-use-cert: no
  control-interface: "$WORK/unbound.ctl"
forward-zone:
  name: "."
  forward-addr: 127.0.0.1@$UPSTREAM_PORT
CONF
  nice -n "$NICE" taskset -c "$PROXY_CPU" unbound -d -c "$WORK/unbound.conf" >>"$LOGS/unbound.log" 2>&1 &
  SERVER_PID=$!
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
