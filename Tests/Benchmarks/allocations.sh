#!/usr/bin/env bash
# Zero heap allocations per query in steady state, counted. The release
# dnsward runs under an LD_PRELOAD allocation counter (malloc-counter.c: every
# malloc, calloc, realloc, reallocarray, aligned_alloc, posix_memalign,
# memalign, valloc, pvalloc and free of the process, in a file that this
# script reads while dnsward runs). Each workload is warmed up, then QUERIES
# (100,000) queries are sent with dnsperf, and the counters are read before
# and after. One allocation during a run fails the script, and the stacks of
# the first ones are printed (symbolized with addr2line).
#
#   bash Tests/Benchmarks/allocations.sh
#   QUERIES=20000 WORKLOADS="hot cold" bash Tests/Benchmarks/allocations.sh
#   DNSWARD_BIN=/tmp/alloc-fw/dnsward.stripped bash Tests/Benchmarks/allocations.sh
#
# Workloads (UDP clients unless said otherwise):
#   hot            1,000 names, every answer a cache hit
#   nxdomain       1,000 non-existent names, negative-cache hits
#   override       override and block table hits (A, AAAA, NODATA, NXDOMAIN)
#   mixed          80% hot A/AAAA hits, 20% new names forwarded (A and AAAA)
#   cold           QUERIES distinct names, each forwarded to Knot and cached;
#                  the cache (4,096 entries) evicts on every insert
#   hot-do         the hot names, A and AAAA, with EDNS and the DO bit
#   large          answers of 40 and 80 records and CNAME chains, with EDNS
#                  (cache hits; the 80 records are over edns-size: TC=1)
#   truncated      the same without EDNS: both large answers get TC=1
#   tcp            the mixed workload from TCP clients (dnsperf -m tcp)
#   upstream-tcp   distinct names forwarded over a TCP upstream (a second
#                  dnsward, `upstream tcp`)
#   httpdns        distinct names, A and AAAA, forwarded to an HTTP DNS API
#                  (`upstream httpdns ... format=json`: HTTP/1.1 keep-alive
#                  to httpdns-server.py, a Python stdlib server, instead of
#                  Knot); at most 4 queries outstanding (dnsperf -q 4), as
#                  dnsward has 4 connections per httpdns upstream and one
#                  request on each, so that every query reaches the server;
#                  HTTPDNS_QUERIES queries (needs python3)
#   dot            distinct names, A and AAAA, forwarded over DoT (`upstream
#                  tls ... name=dns.test`, one persistent pipelined TLS
#                  connection) to dnsdist, which asks Knot; the TLS binary
#                  (DNSWARD_TLS_BIN), `ca-file` the run's test CA
#   doh            the same over DoH (`upstream https ... name=dns.test
#                  path=/dns-query`: 4 keep-alive HTTP/1.1 TLS connections,
#                  one request on each; dnsperf -q 32, so most questions
#                  wait in the pool's wait queue for a free connection)
#                  to dnsdist's addDOHLocal; DOH_QUERIES queries. For both:
#                  the certificates (a CA and a leaf for dns.test) are made
#                  by openssl at run time, dnsdist listens on free 127.0.0.1
#                  ports with no cache and no security poll, and a name
#                  through it is checked before the warm-up (its handshake
#                  must be counted: about 23,800 allocations in mbedTLS);
#                  mbedTLS allocates at start-up and in each handshake, the
#                  warm-up makes the connections, so the run counts TLS
#                  reads and writes only. Here: 0 allocations in 100,000
#                  dot queries (about 10 s) and 20,000 doh queries (about
#                  8 s), with the release build and with the host firmware
#                  (-DDNSWARD_TLS=ON); the debug build allocates (1 and
#                  about 200 per query, in unoptimized stdlib iteration)
#   routed         distinct names forwarded through a route: Knot's upstream
#                  line has `for cold.example.test for 168.192.in-addr.arpa`
#                  and a route table of 1,000 more domains (`for-list`), so
#                  each question's route is looked up in the table
#   local          the LAN's own names, none forwarded: A, AAAA, NODATA and
#                  PTR from a hosts file and a lease file of 500 names each
#                  (`domain lan`), NXDOMAIN for an unknown name in the
#                  domain, a single-label name and an RFC 6303 reverse name
#   nftset         the hot names (A and AAAA, cache hits) listed by `nftset`:
#                  every answer hands its addresses to the nftables writer,
#                  which sends them in batches to two real sets. It makes
#                  nftables sets, so the script runs it again in a network
#                  namespace of its own (unshare -n, as root; skipped
#                  otherwise), with a Knot and a dnsward of that run's own
#   dead-upstream  distinct names, the only upstream a closed port: SERVFAIL
#   stale          the upstream gone, every answer an expired entry served
#                  stale (`stale 1d`, entries cached with max-ttl 1s by a
#                  Knot of their own, then stopped)
#   defended       the mixed workload with every hijack defence on: hold-on
#                  (each forwarded answer held 5 ms), bogus, bogus-nxdomain,
#                  rebind-protection, rate-limit, detect-nxdomain-redirect and
#                  verify (Knot over TCP as the trusted upstream, every
#                  mixed name checked against Knot over UDP)
#   workers        the mixed workload against `workers 2` (two processes
#                  sharing the listener; forked, so they share the counter
#                  file and the counts are their sum); 16 dnsperf clients so
#                  that both get traffic in the warm-up; with `metrics
#                  PORT` (unless the binary has no metrics) scraped 20
#                  times a second during the run, so the scrapes count too
#   dnssec         `dnssec on` (DNSWARD_DNSSEC_BIN), its only trust anchor
#                  the DS of signed.test, which a Knot of its own signs
#                  (ECDSA P-256, NSEC) with a signed child, kid.signed.test;
#                  40% of the queries are new names, each validated in the
#                  run: wildcard answers (the NSEC proving no closer name),
#                  wildcard NODATA, NXDOMAIN (two NSECs) and the child's
#                  wildcard (its DS and DNSKEY fetched and validated again
#                  whenever the cache, 4,096 entries, evicted them); the
#                  others are hits on secure answers, NODATA and NXDOMAIN.
#                  Two runs of DNSSEC_QUERIES: DO=0 clients (RRSIG and NSEC
#                  stripped) as `dnssec`, DO=1 clients (AD set, RRSIGs kept)
#                  as `dnssec-do`. Before them, dig checks AD=1 and the
#                  stripping; after each, the engine's dnssecSecure must
#                  have grown by at least the new names of the run, with no
#                  insecure or bogus answer (an unvalidated run proves
#                  nothing). Needs keymgr (Debian: knot)
#
# Why warm up: a process allocates a little the first time a path runs
# (the host build's first query initializes the global defaultAllowPrefixes
# array and Swift metadata: 3 allocations), never again after. There is no
# slack: the count over each run must be 0.
#
# Control: at the end the main dnsward is stopped with SIGTERM; saving its
# cache file at shutdown allocates (it builds the file in an array), and the
# counter must see that, or the zeros would prove nothing.
#
# The firmware (Embedded Swift, built for the host) with this config inside:
#   PROXY_PORT=27451 KNOT_PORT=27450 bash Tests/Benchmarks/allocations.sh --write-config /tmp/alloc-fw.conf
#   cmake -S Board -B /tmp/alloc-fw -G Ninja -DDNSWARD_TARGET=host -DDNSWARD_CONFIG=/tmp/alloc-fw.conf
#   cmake --build /tmp/alloc-fw
#   DNSWARD_COMPILED_CONFIG=1 PROXY_PORT=27451 KNOT_PORT=27450 \
#     DNSWARD_BIN=/tmp/alloc-fw/dnsward.stripped bash Tests/Benchmarks/allocations.sh
#
# Environment:
#   DNSWARD_BIN      the binary to test (default: a release build with
#                    --scratch-path $ALLOC_SCRATCH, default /tmp/alloc-build)
#   DNSWARD_TLS_BIN  the binary with TLS for dot and doh (default: a release
#                    build with --traits TLS and --scratch-path
#                    $ALLOC_TLS_SCRATCH, default /tmp/alloc-build-tls; the
#                    host firmware built with -DDNSWARD_TLS=ON works too)
#   QUERIES          queries per workload (default 100000; a multiple of 2000)
#   HTTPDNS_QUERIES  queries of the httpdns workload (default QUERIES / 5,
#                    at least 2000; a multiple of 2000): one Python server,
#                    4 requests at a time, answers a few thousand a second
#   DNSWARD_DNSSEC_BIN  the binary with the validator for dnssec (default
#                    DNSWARD_TLS_BIN when set — .ci/run's host firmware is
#                    built with -DDNSWARD_DNSSEC=ON — else the main binary;
#                    the SwiftPM build always has it)
#   DNSSEC_QUERIES   queries of each dnssec run (default QUERIES / 5, at
#                    least 2000; a multiple of 2000): each new name costs
#                    two or three ECDSA verifications (about 0.6 ms each)
#   DOH_QUERIES      queries of the doh workload (default QUERIES / 5, at
#                    least 2000; a multiple of 2000): 4 at a time through
#                    dnsdist, about 2,700 a second here
#   WORKLOADS        which ones, space-separated (default: all, in the order above)
#   STRICT=1         a missing tool fails instead of skipping (also
#                    openssl, dnsdist or libmbedtls-dev for dot and doh,
#                    which are skipped alone otherwise)
#   SHOW_CONTROL_STACKS=1  print the stacks of the control's allocations
#   DNSWARD_COMPILED_CONFIG=1
#                    run the main dnsward without --config: a firmware with
#                    this script's config compiled in (see --write-config);
#                    PROXY_PORT and KNOT_PORT must be the ports in it. The
#                    other instances still use --config if the binary has it.
#
#   PROXY_PORT=N KNOT_PORT=M bash Tests/Benchmarks/allocations.sh --write-config FILE
#                    writes the main config for those ports and exits.
#
# Needs gcc, dnsperf, knotd and dig (addr2line to symbolize stacks); dot and
# doh also openssl, dnsdist and libmbedtls-dev (or DNSWARD_TLS_BIN); dnssec
# also keymgr. Takes 55 s after the builds, 70 s with dot and doh, and
# dnssec about 45 s more. Only 127.0.0.1 is used.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
QUERIES=${QUERIES:-100000}
ALL_WORKLOADS="hot nxdomain override mixed cold hot-do large truncated tcp upstream-tcp httpdns dot doh routed local nftset dead-upstream stale defended workers dnssec"
WORKLOADS=${WORKLOADS:-$ALL_WORKLOADS}
SCRATCH=${ALLOC_SCRATCH:-/tmp/alloc-build}
TLS_SCRATCH=${ALLOC_TLS_SCRATCH:-/tmp/alloc-build-tls}
STARTED=$SECONDS

fail() {
  echo "allocations.sh: FAILED: $*" >&2
  exit 1
}
skip() {
  [ "${STRICT:-0}" = 1 ] && fail "$*"
  echo "allocations.sh: SKIPPED: $*"
  exit 0
}

# The config under test. 4,096 cache entries: the hot sets (2,000 entries at
# most) fit and the cold names evict (1m of cache-bytes holds 4,096 of these
# answers, so the entry table is the limit). The cache file is saved only at
# shutdown (the interval is a day): that save is the control.
write_config() {  # write_config FILE PROXY_PORT UPSTREAM_PORT CACHE_FILE [udp|tcp|httpdns|tls|https [OPTIONS]]
  cat >"$1" <<CONF
# generated by Tests/Benchmarks/allocations.sh — do not edit
listen 127.0.0.1:$2
upstream ${5:-udp} 127.0.0.1:$3${6:+ $6}
timeout 2s
inflight 1024
cache 4096
cache-bytes 1m
stale 1d
cache-file $4
cache-save-interval 1d
tcp-clients 32
override printer.lan 192.168.1.20 fd00::20
override nas.lan 192.168.1.21
override *.home.lan 192.168.1.30 fd00::30
block ads.example
log warning
CONF
}

if [ "${1:-}" = --write-config ]; then
  [ $# -eq 2 ] && [ -n "${PROXY_PORT:-}" ] && [ -n "${KNOT_PORT:-}" ] ||
    fail "usage: PROXY_PORT=N KNOT_PORT=M $0 --write-config FILE"
  write_config "$2" "$PROXY_PORT" "$KNOT_PORT" "/tmp/dnsward-allocations.$PROXY_PORT.cache"
  exit 0
fi
[ $# -eq 0 ] || fail "unknown arguments: $* (settings come from the environment; see the top of $0)"
[ $((QUERIES % 2000)) -eq 0 ] && [ "$QUERIES" -gt 0 ] || fail "QUERIES must be a multiple of 2000"
FIFTH=$((QUERIES / 5 / 2000 * 2000 > 2000 ? QUERIES / 5 / 2000 * 2000 : 2000))
HTTPDNS_QUERIES=${HTTPDNS_QUERIES:-$FIFTH}
DOH_QUERIES=${DOH_QUERIES:-$FIFTH}
DNSSEC_QUERIES=${DNSSEC_QUERIES:-$FIFTH}
[ $((HTTPDNS_QUERIES % 2000)) -eq 0 ] && [ "$HTTPDNS_QUERIES" -gt 0 ] ||
  fail "HTTPDNS_QUERIES must be a multiple of 2000"
[ $((DOH_QUERIES % 2000)) -eq 0 ] && [ "$DOH_QUERIES" -gt 0 ] || fail "DOH_QUERIES must be a multiple of 2000"
[ $((DNSSEC_QUERIES % 2000)) -eq 0 ] && [ "$DNSSEC_QUERIES" -gt 0 ] ||
  fail "DNSSEC_QUERIES must be a multiple of 2000"
for workload in $WORKLOADS; do
  [[ " $ALL_WORKLOADS " == *" $workload "* ]] || fail "unknown workload $workload (known: $ALL_WORKLOADS)"
done

for tool in gcc dnsperf knotd dig; do
  command -v "$tool" >/dev/null ||
    skip "$tool is not installed (Debian: apt-get install gcc dnsperf knot dnsutils)"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/dnsward-allocations.XXXXXX")
PIDS=()
STALE_KNOT_PID=
STALE_KNOT_DIR=
HTTPDNS_PORT=
DNSDIST_DOT_PORT=
DNSDIST_DOH_PORT=
cleanup() {
  local pid
  for pid in "${PIDS[@]}" $STALE_KNOT_PID; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  [ -n "$STALE_KNOT_DIR" ] && rm -rf "$STALE_KNOT_DIR"
  stop_knot
  stop_signed_knot
  rm -rf "$WORK"
}
trap cleanup EXIT

# take_port VAR: a free port, never one handed out before in this run.
NEXT_PORT=$((${PROXY_PORT:-0} > ${KNOT_PORT:-0} ? ${PROXY_PORT:-0} + 1 : ${KNOT_PORT:-0} + 1))
[ "$NEXT_PORT" -gt 27300 ] || NEXT_PORT=27300
take_port() {
  local taken
  taken=$(free_port "$NEXT_PORT")
  NEXT_PORT=$((taken + 1))
  printf -v "$1" '%s' "$taken"
}

# --- the binary and the counter -------------------------------------------
if [ -n "${DNSWARD_BIN:-}" ]; then
  DNSWARD=$DNSWARD_BIN
  [ -x "$DNSWARD" ] || fail "DNSWARD_BIN=$DNSWARD is not an executable"
else
  command -v swift >/dev/null || PATH=/opt/swift/usr/bin:$PATH
  command -v swift >/dev/null || skip "no swift toolchain (or set DNSWARD_BIN)"
  echo "building the release dnsward (--scratch-path $SCRATCH)"
  swift build -c release --package-path "$ROOT" --product dnsward --scratch-path "$SCRATCH" \
    >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; fail "swift build"; }
  DNSWARD=$(swift build -c release --package-path "$ROOT" --scratch-path "$SCRATCH" \
    --show-bin-path)/dnsward
fi
# The dot and doh workloads: a dnsward with TLS (DNSWARD_TLS_BIN, or a release
# build with the TLS trait), openssl for the test certificates and dnsdist as
# the DoT/DoH server. TLS_SKIP says why they cannot run (STRICT=1: a failure).
DNSWARD_TLS=
TLS_SKIP=
if [[ " $WORKLOADS " == *" dot "* || " $WORKLOADS " == *" doh "* ]]; then
  for tool in openssl dnsdist; do
    command -v "$tool" >/dev/null || TLS_SKIP="$tool is not installed (Debian: apt-get install $tool)"
  done
  if [ -n "${DNSWARD_TLS_BIN:-}" ]; then
    DNSWARD_TLS=$DNSWARD_TLS_BIN
    [ -x "$DNSWARD_TLS" ] || fail "DNSWARD_TLS_BIN=$DNSWARD_TLS is not an executable"
  elif [ ! -e /usr/include/mbedtls/ssl.h ]; then
    TLS_SKIP="libmbedtls-dev is not installed (Debian: apt-get install libmbedtls-dev), or set DNSWARD_TLS_BIN"
  elif [ -z "$TLS_SKIP" ]; then
    command -v swift >/dev/null || PATH=/opt/swift/usr/bin:$PATH
    if ! command -v swift >/dev/null; then
      TLS_SKIP="no swift toolchain to build dnsward with TLS (or set DNSWARD_TLS_BIN)"
    else
      echo "building the release dnsward with TLS (--traits TLS --scratch-path $TLS_SCRATCH)"
      swift build -c release --traits TLS --package-path "$ROOT" --product dnsward \
        --scratch-path "$TLS_SCRATCH" >"$WORK/build-tls.log" 2>&1 ||
        { cat "$WORK/build-tls.log"; fail "swift build --traits TLS"; }
      DNSWARD_TLS=$(swift build -c release --traits TLS --package-path "$ROOT" \
        --scratch-path "$TLS_SCRATCH" --show-bin-path)/dnsward
    fi
  fi
  if [ -n "$TLS_SKIP" ]; then
    [ "${STRICT:-0}" = 1 ] && fail "dot, doh: $TLS_SKIP"
    echo "dot, doh: will be skipped: $TLS_SKIP"
  fi
fi
DNSWARD_DNSSEC=${DNSWARD_DNSSEC_BIN:-${DNSWARD_TLS_BIN:-$DNSWARD}}
[ -x "$DNSWARD_DNSSEC" ] || fail "DNSWARD_DNSSEC_BIN=$DNSWARD_DNSSEC is not an executable"
gcc -O2 -Wall -Wextra -shared -fPIC -fno-builtin -o "$WORK/malloc-counter.so" \
  "$ROOT/Tests/Benchmarks/malloc-counter.c" -ldl || fail "gcc malloc-counter.so"
gcc -O2 -Wall -Wextra -DMALLOC_COUNTER_READER -o "$WORK/malloc-counter" \
  "$ROOT/Tests/Benchmarks/malloc-counter.c" || fail "gcc malloc-counter"

# --- Knot, with wildcards for any number of distinct names -----------------
# Names under nx.example.test do not exist: NXDOMAIN with the SOA, negatively
# cached for the SOA MINIMUM (60 s).
cat >"$WORK/extra.zone" <<'ZONE'
*.hot    A     192.0.2.1
*.hot    AAAA  2001:db8::1
*.cold   A     192.0.2.2
*.cold   AAAA  2001:db8::2
*.mixed  A     192.0.2.3
*.mixed  AAAA  2001:db8::3
ZONE
# 40 addresses: about 700 bytes, over 512 but within edns-size 1232 (the
# zone's `big`, 80 of them, is over 1232 and always goes out with TC=1).
for i in $(seq 1 40); do echo "med A 198.51.100.$i" >>"$WORK/extra.zone"; done
if [ -z "${KNOT_PORT:-}" ]; then take_port KNOT_PORT; fi
start_knot "$KNOT_PORT" "$WORK/extra.zone"

# --- dnsward instances under the counter -----------------------------------
# start_dnsward NAME PORT CONFIG|- [BINARY]: starts dnsward (BINARY, default
# $DNSWARD) with the counter file $WORK/NAME.counters and the stacks file
# $WORK/NAME.stacks, and waits until it answers. CONFIG "-": the compiled-in
# config.
declare -A INSTANCE_PORT INSTANCE_PID
start_dnsward() {
  local name=$1 port=$2 config=$3 binary=${4:-$DNSWARD} args=() pid
  [ "$config" != - ] && args=(--config "$config")
  MALLOC_COUNTER_FILE="$WORK/$name.counters" MALLOC_COUNTER_STACKS="$WORK/$name.stacks" \
    LD_PRELOAD="$WORK/malloc-counter.so" \
    "$binary" "${args[@]}" >"$WORK/$name.log" 2>&1 &
  pid=$!
  PIDS+=("$pid")
  for _ in $(seq 1 100); do
    if [[ $(dig +short +tries=1 +time=1 @127.0.0.1 -p "$port" printer.lan A 2>/dev/null) == 192.168.1.20 ]]; then
      "$WORK/malloc-counter" "$WORK/$name.counters" >/dev/null 2>&1 ||
        fail "$name: dnsward answers but $WORK/$name.counters is no counter file (LD_PRELOAD ignored? a static binary?)"
      INSTANCE_PORT[$name]=$port
      INSTANCE_PID[$name]=$pid
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || { cat "$WORK/$name.log"; fail "$name: dnsward exited"; }
    sleep 0.1
  done
  cat "$WORK/$name.log"
  fail "$name: dnsward does not answer on 127.0.0.1:$port"
}

# instance NAME: the dnsward NAME, started on first use; sets IPORT.
# main: the config above; upstream-tcp: the same with `upstream tcp`;
# httpdns: `upstream httpdns` to its own httpdns-server.py; dot, doh: the
# TLS binary with `upstream tls` / `upstream https` to dnsdist (in front of
# the main Knot);
# dead-upstream: its upstream a closed port; stale: its own Knot (stopped by
# the stale workload) and max-ttl 1s.
instance() {
  local name=$1 port upstream binary=$DNSWARD
  if [ -z "${INSTANCE_PORT[$name]:-}" ]; then
    if [ "$name" = main ] && [ "${DNSWARD_COMPILED_CONFIG:-0}" = 1 ]; then
      [ -n "${PROXY_PORT:-}" ] || fail "DNSWARD_COMPILED_CONFIG=1 needs PROXY_PORT and KNOT_PORT"
      rm -f "/tmp/dnsward-allocations.$PROXY_PORT.cache"
      start_dnsward main "$PROXY_PORT" -
    else
      take_port port
      case $name in
        main) write_config "$WORK/$name.conf" "$port" "$KNOT_PORT" "$WORK/$name.cache" ;;
        upstream-tcp) write_config "$WORK/$name.conf" "$port" "$KNOT_PORT" "$WORK/$name.cache" tcp ;;
        httpdns)
          start_httpdns_server
          write_config "$WORK/$name.conf" "$port" "$HTTPDNS_PORT" "$WORK/$name.cache" httpdns format=json
          ;;
        dot | doh)
          [ -n "$DNSDIST_DOT_PORT" ] || start_dnsdist
          if [ "$name" = dot ]; then
            write_config "$WORK/$name.conf" "$port" "$DNSDIST_DOT_PORT" "$WORK/$name.cache" tls name=dns.test
          else
            write_config "$WORK/$name.conf" "$port" "$DNSDIST_DOH_PORT" "$WORK/$name.cache" https \
              "name=dns.test path=/dns-query"
          fi
          echo "ca-file $WORK/tls/ca.pem" >>"$WORK/$name.conf"
          binary=$DNSWARD_TLS
          ;;
        routed)
          awk 'BEGIN { for (i = 0; i < 1000; i++) print "server=/r" i ".example/192.0.2.53" }' \
            >"$WORK/routes.conf"
          write_config "$WORK/$name.conf" "$port" "$KNOT_PORT" "$WORK/$name.cache" udp \
            "for cold.example.test for 168.192.in-addr.arpa for-list $WORK/routes.conf"
          ;;
        local)
          awk 'BEGIN { for (i = 1; i <= 500; i++) printf "10.1.%d.%d nas%d nas%d.lan\n", i / 250, i % 250, i, i }' \
            >"$WORK/local.hosts"
          awk -v now="$(date +%s)" 'BEGIN { for (i = 1; i <= 500; i++)
            printf "%d 02:00:00:00:%02x:%02x 192.168.%d.%d host%d *\n", now + 86400, i / 256, i % 256, 1 + i / 250, i % 250, i }' \
            >"$WORK/local.leases"
          write_config "$WORK/$name.conf" "$port" "$KNOT_PORT" "$WORK/$name.cache"
          printf 'hosts %s\nleases %s\ndomain lan\n' "$WORK/local.hosts" "$WORK/local.leases" \
            >>"$WORK/$name.conf"
          ;;
        nftset)
          nft -f - <<'NFT' || fail "nftset: nft cannot make the sets"
table inet dwalloc {
  set s4 { type ipv4_addr; flags timeout; }
  set s6 { type ipv6_addr; flags timeout; }
}
NFT
          write_config "$WORK/$name.conf" "$port" "$KNOT_PORT" "$WORK/$name.cache"
          echo "nftset inet dwalloc s4,s6 for hot.example.test" >>"$WORK/$name.conf"
          ;;
        dead-upstream)
          take_port upstream  # nothing listens there: ICMP port unreachable
          write_config "$WORK/$name.conf" "$port" "$upstream" "$WORK/$name.cache"
          ;;
        stale)
          local knot_dir=$KNOT_DIR knot_pid=$KNOT_PID
          take_port STALE_KNOT_PORT
          start_knot "$STALE_KNOT_PORT" "$WORK/extra.zone"
          STALE_KNOT_DIR=$KNOT_DIR STALE_KNOT_PID=$KNOT_PID KNOT_DIR=$knot_dir KNOT_PID=$knot_pid
          write_config "$WORK/$name.conf" "$port" "$STALE_KNOT_PORT" "$WORK/$name.cache"
          echo "max-ttl 1s" >>"$WORK/$name.conf"
          ;;
        workers)
          write_config "$WORK/$name.conf" "$port" "$KNOT_PORT" "$WORK/$name.cache"
          echo "workers 2" >>"$WORK/$name.conf"
          if has_metrics; then
            take_port WORKERS_METRICS_PORT
            echo "metrics 127.0.0.1:$WORKERS_METRICS_PORT" >>"$WORK/$name.conf"
          fi
          ;;
        defended)
          write_config "$WORK/$name.conf" "$port" "$KNOT_PORT" "$WORK/$name.cache"
          defences "$KNOT_PORT" >>"$WORK/$name.conf"
          ;;
        dnssec)
          start_signed_zones
          write_config "$WORK/$name.conf" "$port" "$SIGNED_KNOT_PORT" "$WORK/$name.cache"
          validation "$SIGNED_KNOT_ANCHOR" >>"$WORK/$name.conf"
          binary=$DNSWARD_DNSSEC
          ;;
      esac
      start_dnsward "$name" "$port" "$WORK/$name.conf" "$binary"
      if [ "$name" = dot ] || [ "$name" = doh ]; then check_tls_path "$name" "$port"; fi
    fi
  fi
  IPORT=${INSTANCE_PORT[$name]}
}

# start_httpdns_server: httpdns-server.py on HTTPDNS_PORT, waited for.
start_httpdns_server() {
  take_port HTTPDNS_PORT
  python3 "$ROOT/Tests/Benchmarks/httpdns-server.py" "$HTTPDNS_PORT" "$WORK/httpdns-server.ready" \
    2>"$WORK/httpdns-server.log" &
  local pid=$!
  PIDS+=("$pid")
  for _ in $(seq 1 100); do
    [ -s "$WORK/httpdns-server.ready" ] && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$WORK/httpdns-server.log"; fail "httpdns-server.py exited"; }
    sleep 0.1
  done
  fail "httpdns-server.py did not start on 127.0.0.1:$HTTPDNS_PORT"
}

# start_dnsdist: a test CA and a leaf for dns.test (openssl, EC P-256, like
# TLSHarness.swift), and dnsdist on 127.0.0.1 serving DoT (addTLSLocal) and
# DoH (addDOHLocal, /dns-query; HTTP/1.1 to a client whose ALPN offers no h2)
# with that leaf, forwarding to the main Knot; waited for. No security poll
# (it would ask the network), no cache (every query reaches Knot), and a DoT
# connection idle for a minute, not 2 s, before dnsdist closes it (a
# reconnection between the warm-up and the run would count a handshake).
start_dnsdist() {
  local dir=$WORK/tls plain ec="-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
  mkdir -p "$dir"
  # shellcheck disable=SC2086
  (
    cd "$dir" &&
      openssl req -x509 $ec -keyout ca.key -out ca.pem -days 30 -subj '/CN=dnsward allocations CA' \
        -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign &&
      openssl req $ec -keyout leaf.key -out leaf.csr -subj /CN=dns.test &&
      echo subjectAltName=DNS:dns.test >leaf.ext &&
      openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 30 \
        -extfile leaf.ext -out leaf.pem
  ) >"$dir/openssl.log" 2>&1 || { cat "$dir/openssl.log"; fail "openssl: the test certificates"; }
  take_port plain
  take_port DNSDIST_DOT_PORT
  take_port DNSDIST_DOH_PORT
  cat >"$dir/dnsdist.conf" <<CONF
setLocal("127.0.0.1:$plain")
setSecurityPollSuffix("")
setTCPRecvTimeout(60)
newServer({address="127.0.0.1:$KNOT_PORT"})
addTLSLocal("127.0.0.1:$DNSDIST_DOT_PORT", "$dir/leaf.pem", "$dir/leaf.key", {maxInFlight=1000})
addDOHLocal("127.0.0.1:$DNSDIST_DOH_PORT", "$dir/leaf.pem", "$dir/leaf.key", {"/dns-query"})
CONF
  dnsdist --supervised --disable-syslog -C "$dir/dnsdist.conf" </dev/null >"$dir/dnsdist.log" 2>&1 &
  local pid=$! port
  PIDS+=("$pid")
  for port in "$DNSDIST_DOT_PORT" "$DNSDIST_DOH_PORT"; do
    for _ in $(seq 1 100); do
      # A plain connect (dnsdist logs it as a failed handshake).
      (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue 2
      kill -0 "$pid" 2>/dev/null || { cat "$dir/dnsdist.log"; fail "dnsdist exited"; }
      sleep 0.1
    done
    cat "$dir/dnsdist.log"
    fail "dnsdist does not listen on 127.0.0.1:$port"
  done
}

# check_tls_path NAME PORT: the dnsward NAME answers a name from Knot through
# dnsdist, so its TLS upstream works before anything is measured. A control
# as well: that first query's handshake allocates in mbedTLS, and the counter
# must see it (it sees the TLS binary's allocations, libmbedtls's included).
check_tls_path() {
  local got before after
  read -r before _ <<<"$(counters "$1")"
  got=$(dig +short +tries=1 +time=3 @127.0.0.1 -p "$2" www.example.test A 2>&1 || true)
  if [ "$got" != 192.0.2.80 ]; then
    cat "$WORK/$1.log" "$WORK/tls/dnsdist.log"
    fail "$1: www.example.test through dnsdist answered '${got//$'\n'/ }', expected 192.0.2.80"
  fi
  read -r after _ <<<"$(counters "$1")"
  echo "control: $1: the first TLS handshake: $((after - before)) allocations counted"
  [ $((after - before)) -gt 0 ] ||
    FAILED+=("control: $1: the counter saw no allocation in a TLS handshake, so the zeros of $1 prove nothing")
}

# defences KNOT_PORT: the hijack-defence lines of the `defended` instance.
defences() {
  cat <<CONF
upstream tcp 127.0.0.1:$1 trusted
verify mixed.example.test
hold-on 5ms
bogus 203.0.113.0/24
bogus-nxdomain 198.18.0.1
rebind-protection on
rate-limit 1000000/s
detect-nxdomain-redirect on
CONF
}

# validation ANCHOR: the lines of the dnssec instance: its only trust
# anchor the test zone's DS.
validation() {
  printf 'dnssec on\ndnssec-root off\ntrust-anchor %s\n' "$1"
}

# start_signed_zones: the dnssec workload's Knot (.ci/lib.sh) on
# SIGNED_KNOT_PORT: signed.test with 500 names (n0..n499, A only) and a
# wildcard under w, and its signed child kid.signed.test (www and a
# wildcard under w); ECDSA P-256 (algorithm 13), NSEC.
start_signed_zones() {
  awk 'BEGIN { for (i = 0; i < 500; i++) printf "n%d A 192.0.2.%d\n", i, i % 250 + 1
               print "*.w A 192.0.2.4" }' >"$WORK/signed.test.records"
  printf 'www A 192.0.2.5\n*.w A 192.0.2.6\n' >"$WORK/kid.signed.test.records"
  take_port SIGNED_KNOT_PORT
  start_signed_knot "$SIGNED_KNOT_PORT" 13 nsec signed.test "$WORK/signed.test.records" \
    kid.signed.test "$WORK/kid.signed.test.records" || fail "dnssec: knotd did not sign the test zones"
}

# check_validation NAME PORT: before the dnssec runs, the instance validates
# (AD=1 and the RRSIG for a DO=1 client, in the signed child too) and strips
# (no RRSIG for a DO=0 client).
check_validation() {
  local got
  got=$(dig +dnssec +tries=1 +time=3 @127.0.0.1 -p "$2" www.kid.signed.test A 2>&1 || true)
  if ! grep -q 'flags:.* ad[ ;]' <<<"$got" || ! grep -q 'RRSIG' <<<"$got"; then
    cat "$WORK/$1.log"
    fail "$1: www.kid.signed.test with DO=1: no AD=1 or no RRSIG: $got"
  fi
  got=$(dig +tries=1 +time=3 @127.0.0.1 -p "$2" x1.signed.test A 2>&1 || true)
  if ! grep -q 'status: NXDOMAIN' <<<"$got" || grep -q 'RRSIG\|NSEC' <<<"$got"; then
    fail "$1: x1.signed.test with DO=0: not NXDOMAIN, or RRSIG/NSEC not stripped: $got"
  fi
}

# validation_stats PORT: "secure insecure bogus fetches" from `dnsward stats`.
validation_stats() {
  "$DNSWARD_DNSSEC" stats "127.0.0.1:$1" 2>/dev/null | awk '{ v[$1] = $2 } END {
    print v["dnssecSecure"] + 0, v["dnssecInsecure"] + 0, v["dnssecBogus"] + 0, v["dnssecFetches"] + 0 }'
}

# measure_validated WORKLOAD PREFIX [DNSPERF ARGS...]: measure over the
# dnssec instance with that run's own new names (PREFIX), then the check
# that they were validated: dnssecSecure grew by at least the new names
# (chain fetches count too), none insecure or bogus.
measure_validated() {
  local workload=$1 prefix=$2 before after misses
  shift 2
  dnssec_queries "w$prefix" 2000 >"$WORK/$workload-warm.txt"
  dnssec_queries "$prefix" "$DNSSEC_QUERIES" >"$WORK/$workload.txt"
  misses=$((DNSSEC_QUERIES * 4 / 10))
  instance dnssec
  read -r -a before <<<"$(validation_stats "$IPORT")"
  QUERIES=$DNSSEC_QUERIES measure "$workload" dnssec udp "$WORK/$workload-warm.txt" 1 "$WORK/$workload.txt" "$@"
  read -r -a after <<<"$(validation_stats "$IPORT")"
  local secure=$((after[0] - before[0])) insecure=$((after[1] - before[1]))
  local bogus=$((after[2] - before[2])) fetches=$((after[3] - before[3]))
  echo "$workload: validated secure $secure, insecure $insecure, bogus $bogus, chain fetches $fetches (warm-up included; $misses new names in the run)"
  [ "$secure" -ge "$misses" ] ||
    FAILED+=("$workload: dnssecSecure grew by $secure, fewer than the $misses new names of the run: not validated")
  [ "$insecure" -eq 0 ] && [ "$bogus" -eq 0 ] ||
    FAILED+=("$workload: $insecure insecure and $bogus bogus answers from a zone signed throughout")
}

# can_configure [LINE]: whether the binary takes --config (with LINE added
# to the config), so that instances other than main can be started.
can_configure() {
  write_config "$WORK/check.conf" 1 1 "$WORK/check.cache"
  [ $# -eq 0 ] || echo "$1" >>"$WORK/check.conf"
  "${CHECK_BIN:-$DNSWARD}" --check "$WORK/check.conf" >/dev/null 2>&1
}

# has_metrics: whether the binary serves `metrics` (a firmware built with
# -DDNSWARD_METRICS=OFF refuses a config with it at start-up).
has_metrics() {
  local output
  printf 'listen 127.0.0.1:0\nmetrics 127.0.0.1:0\n' >"$WORK/metrics-probe.conf"
  output=$(timeout 2 "$DNSWARD" --config "$WORK/metrics-probe.conf" 2>&1 || true)
  ! grep -q "built without them" <<<"$output"
}

# start_scraper NAME: for the workers instance with metrics, GET /metrics
# 20 times a second until stop_scraper; sets SCRAPER.
start_scraper() {
  SCRAPER=
  [ "$1" = workers ] && [ -n "${WORKERS_METRICS_PORT:-}" ] || return 0
  python3 - "$WORKERS_METRICS_PORT" "$WORK/$1.scrapes" <<'EOF' &
import sys, time, urllib.request
scrapes = 0
while True:
    with urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics", timeout=5) as response:
        assert response.status == 200 and b"dnsward_queries_total" in response.read()
    scrapes += 1
    open(sys.argv[2], "w").write(f"{scrapes}\n")
    time.sleep(0.05)
EOF
  SCRAPER=$!
  PIDS+=("$SCRAPER")
}

# stop_scraper WORKLOAD NAME: fails if a scrape failed (the scraper exited)
# or none was made.
stop_scraper() {
  [ -n "$SCRAPER" ] || return 0
  kill -0 "$SCRAPER" 2>/dev/null || fail "$1: a metrics scrape failed during the run"
  kill "$SCRAPER" 2>/dev/null || true
  wait "$SCRAPER" 2>/dev/null || true
  local scrapes
  scrapes=$(cat "$WORK/$2.scrapes" 2>/dev/null || echo 0)
  [ "$scrapes" -gt 0 ] || fail "$1: no metrics scrape during the run"
  echo "$1: $scrapes metrics scrapes during the run"
}

# --- query files -----------------------------------------------------------
# A run is exactly QUERIES queries: a file of QUERIES lines read once, or a
# short file read QUERIES / lines times (dnsperf -n).
names() {  # names FORMAT FIRST COUNT TYPES...: FORMAT with a %d, the types in turn
  awk -v fmt="$1" -v first="$2" -v count="$3" -v types="${*:4}" 'BEGIN {
    n = split(types, t, " ")
    for (i = 0; i < count; i++) printf fmt " %s\n", first + i, t[i % n + 1]
  }'
}
names 'h%d.hot.example.test' 0 1000 A >"$WORK/hot.txt"
awk 'BEGIN { for (i = 0; i < 1000; i++) printf "h%d.hot.example.test A\nh%d.hot.example.test AAAA\n", i, i }' \
  >"$WORK/hot-both.txt"
names 'x%d.nx.example.test' 0 1000 A >"$WORK/nx.txt"
cat >"$WORK/override.txt" <<'Q'
printer.lan A
printer.lan AAAA
PRINTER.Lan A
printer.lan MX
nas.lan A
nas.lan AAAA
tv.home.lan A
a.b.home.lan AAAA
ads.example A
www.ads.example AAAA
Q
cat >"$WORK/large.txt" <<'Q'
big.example.test A
med.example.test A
alias.example.test A
alias.example.test AAAA
www.example.test AAAA
Q
# mixed PREFIX: QUERIES lines; every fifth a new name under mixed.example.test
# (A and AAAA in turn), the others hot names (A for a thousand, then AAAA).
mixed() {
  awk -v prefix="$1" -v count="$QUERIES" 'BEGIN {
    for (i = 0; i < count; i++) {
      if (i % 5 == 4) printf "%s%d.mixed.example.test %s\n", prefix, i, (int(i / 5) % 2) ? "AAAA" : "A"
      else printf "h%d.hot.example.test %s\n", (i * 7) % 1000, (int(i / 1000) % 2) ? "AAAA" : "A"
    }
  }'
}
# Warm-ups of mixed workloads: misses first, so the hot entries are then the
# newest ones, and hit (CLOCK gives them a second chance).
mixed_warm() {
  names "$1%d.mixed.example.test" 0 5000 A AAAA
  cat "$WORK/hot-both.txt" "$WORK/hot-both.txt"
}
mixed m >"$WORK/mixed.txt"
mixed_warm w >"$WORK/mixed-warm.txt"
mixed t >"$WORK/tcp.txt"
mixed_warm v >"$WORK/tcp-warm.txt"
mixed g >"$WORK/defended.txt"
mixed_warm q >"$WORK/defended-warm.txt"
mixed k >"$WORK/workers.txt"
mixed_warm j >"$WORK/workers-warm.txt"
names 'w%d.cold.example.test' 0 10000 A >"$WORK/cold-warm.txt"
names 'c%d.cold.example.test' 0 "$QUERIES" A >"$WORK/cold.txt"
names 'u%d.cold.example.test' 0 5000 A AAAA >"$WORK/upstream-tcp-warm.txt"
names 'd%d.cold.example.test' 0 "$QUERIES" A AAAA >"$WORK/upstream-tcp.txt"
names 'p%d.httpdns.example.test' 0 2000 A AAAA >"$WORK/httpdns-warm.txt"
names 'r%d.httpdns.example.test' 0 "$HTTPDNS_QUERIES" A AAAA >"$WORK/httpdns.txt"
names 'dotw%d.cold.example.test' 0 5000 A AAAA >"$WORK/dot-warm.txt"
names 'dot%d.cold.example.test' 0 "$QUERIES" A AAAA >"$WORK/dot.txt"
names 'dohw%d.cold.example.test' 0 2000 A AAAA >"$WORK/doh-warm.txt"
names 'doh%d.cold.example.test' 0 "$DOH_QUERIES" A AAAA >"$WORK/doh.txt"
names 'rw%d.cold.example.test' 0 5000 A AAAA >"$WORK/routed-warm.txt"
names 'r%d.cold.example.test' 0 "$QUERIES" A AAAA >"$WORK/routed.txt"
cat >"$WORK/local.txt" <<'Q'
host7.lan A
host7.lan AAAA
host300 A
7.1.168.192.in-addr.arpa PTR
nas7.lan A
nas7.lan MX
7.0.1.10.in-addr.arpa PTR
ghost.lan A
fileserver A
3.2.16.172.in-addr.arpa PTR
Q
# dnssec_queries PREFIX COUNT: COUNT lines, in tens: 4 new names (PREFIX
# and the line number: a wildcard A, an NXDOMAIN, a wildcard NODATA, the
# child's wildcard A), then 6 hits (secure A and NODATA, the child's www,
# an NXDOMAIN of the warm-up's: names every warm-up asks).
dnssec_queries() {
  awk -v p="$1" -v count="$2" 'BEGIN {
    for (i = 0; i < count; i++) {
      k = (i * 7) % 500
      r = i % 10
      if (r == 0) printf "%s%d.w.signed.test A\n", p, i
      else if (r == 1) printf "n%d.signed.test A\n", k
      else if (r == 2) printf "%sx%d.signed.test A\n", p, i
      else if (r == 3) printf "n%d.signed.test AAAA\n", k
      else if (r == 4) printf "%s%d.w.signed.test AAAA\n", p, i
      else if (r == 5) printf "%s%d.w.kid.signed.test A\n", p, i
      else if (r == 6) print "www.kid.signed.test A"
      else if (r == 8) printf "gone%d.signed.test A\n", k % 50
      else printf "n%d.signed.test A\n", (k + 250) % 500
    }
  }'
}
names 'e%d.cold.example.test' 0 5000 A AAAA >"$WORK/dead-warm.txt"
names 'f%d.cold.example.test' 0 "$QUERIES" A AAAA >"$WORK/dead.txt"

# --- measuring -------------------------------------------------------------
counters() {  # counters INSTANCE: "allocs frees bytes stacks"
  "$WORK/malloc-counter" "$WORK/$1.counters" | tr ' ' '\n' |
    awk -F= '{ v[$1] = $2 } END { print v["allocs"], v["frees"], v["bytes"], v["stacks"] }'
}
# engine_stats PORT: the engine's counters the table shows, from `dnsward
# stats`: hits, forwarded, local answers, inserts, SERVFAIL, stale, TC.
engine_stats() {
  "$DNSWARD" stats "127.0.0.1:$1" 2>/dev/null | awk '{ v[$1] = $2 } END {
    print v["cacheHits"] + 0, v["forwarded"] + 0, v["overridden"] + v["blocked"], v["cacheInserts"] + 0,
      v["servFail"] + 0, v["staleServed"] + 0, v["truncated"] + 0 }'
}
dnsperf_run() {  # dnsperf_run PORT MODE FILE RUNS LOG [ARGS...]; CLIENTS (4) sockets
  local port=$1 mode=$2 file=$3 runs=$4 log=$5
  shift 5
  dnsperf -s 127.0.0.1 -p "$port" -m "$mode" -d "$file" -n "$runs" -c "${CLIENTS:-4}" -q 200 -t 5 "$@" \
    >"$log" 2>&1 || { cat "$log"; fail "dnsperf -d $file"; }
}

FAILED=()
TABLE="$WORK/table"
header() {
  printf '%-13s %4s %8s %5s %6s %5s %9s | %7s %7s %7s %7s %7s %7s %7s\n' workload mode answered lost \
    allocs frees per-query hits fwd local inserts srvfail stale tc
}

# measure WORKLOAD INSTANCE MODE WARM_FILE WARM_RUNS FILE [DNSPERF ARGS...]:
# warm up, then QUERIES queries from FILE (read as often as needed), counted.
measure() {
  local workload=$1 name=$2 mode=$3 warm=$4 warm_runs=$5 file=$6
  shift 6
  instance "$name"
  local port=$IPORT lines runs
  lines=$(wc -l <"$file")
  runs=$((QUERIES / lines))
  [ $((lines * runs)) -eq "$QUERIES" ] || fail "$workload: $lines lines do not divide $QUERIES"
  dnsperf_run "$port" "$mode" "$warm" "$warm_runs" "$WORK/$workload-warm.dnsperf" "$@"
  local stats0 stats1 allocs0 frees0 bytes0 stacks0 allocs1 frees1 bytes1 stacks1 seconds=$SECONDS
  read -r -a stats0 <<<"$(engine_stats "$port")"
  "$WORK/malloc-counter" "$WORK/$name.counters" arm 50
  read -r allocs0 frees0 bytes0 stacks0 <<<"$(counters "$name")"
  start_scraper "$name"
  dnsperf_run "$port" "$mode" "$file" "$runs" "$WORK/$workload.dnsperf" "$@"
  read -r allocs1 frees1 bytes1 stacks1 <<<"$(counters "$name")"
  stop_scraper "$workload" "$name"
  "$WORK/malloc-counter" "$WORK/$name.counters" disarm
  seconds=$((SECONDS - seconds))
  read -r -a stats1 <<<"$(engine_stats "$port")"
  local completed lost allocs=$((allocs1 - allocs0)) frees=$((frees1 - frees0))
  local bytes=$((bytes1 - bytes0)) i deltas=()
  completed=$(awk '/Queries completed/ {print $3}' "$WORK/$workload.dnsperf")
  lost=$(awk '/Queries lost/ {print $3}' "$WORK/$workload.dnsperf")
  for i in 0 1 2 3 4 5 6; do
    # With workers, `dnsward stats` reaches one of them: no totals to show.
    if [ "$name" = workers ]; then deltas+=(-); else deltas+=($((${stats1[$i]:-0} - ${stats0[$i]:-0}))); fi
  done
  printf '%-13s %4s %8d %5d %6d %5d %9s | %7s %7s %7s %7s %7s %7s %7s\n' "$workload" "$mode" \
    "${completed:-0}" "${lost:-0}" "$allocs" "$frees" \
    "$(awk -v a="$allocs" -v q="${completed:-0}" 'BEGIN { printf "%.4f", q ? a / q : 0 }')" \
    "${deltas[@]}" | tee -a "$TABLE"
  if [ "$allocs" -gt 0 ]; then
    FAILED+=("$workload: $allocs allocations ($bytes bytes) and $frees frees during ${completed:-0} answered queries")
    echo "$workload $name $stacks0 $stacks1" >>"$WORK/failed-stacks"
  elif [ "$frees" -gt 0 ]; then
    echo "warning: $workload: $frees frees (and no allocation) during the run" >&2
  fi
  # httpdns, dot, doh: every query must have gone through that upstream
  # (the only one), not failed over.
  if [[ $workload == httpdns || $workload == dot || $workload == doh ]] && [ "${deltas[4]}" -ne 0 ]; then
    FAILED+=("$workload: ${deltas[4]} SERVFAIL answers (queries that did not get through the $workload upstream)")
  fi
  if [ "${completed:-0}" -lt $((QUERIES * 99 / 100)) ]; then
    cat "$WORK/$workload.dnsperf"
    FAILED+=("$workload: only ${completed:-0} of $QUERIES queries answered (the run proves little)")
  fi
  echo "$workload: ${seconds}s" >>"$WORK/times"
}

# print_stacks INSTANCE FIRST LAST: the distinct stacks among the recorded
# allocations FIRST+1..LAST, most frequent first (at most 5), symbolized.
print_stacks() {
  local instance=$1 first=$2 last=$3 line where
  awk -v first="$first" -v last="$last" '
    /^allocation / { n = $2 + 0; keep = (n > first && n <= last)
                     if (keep) { key[++count] = ""; head[count] = $0 }; next }
    keep { key[count] = key[count] $0 "\n" }
    END {
      for (i = 1; i <= count; i++) {
        if (!(key[i] in seen)) { order[++distinct] = key[i]; example[key[i]] = head[i] }
        seen[key[i]]++
      }
      for (d = 1; d <= distinct; d++)
        for (e = d + 1; e <= distinct; e++)
          if (seen[order[e]] > seen[order[d]]) { t = order[d]; order[d] = order[e]; order[e] = t }
      for (d = 1; d <= distinct && d <= 5; d++) {
        printf "--- %d of the %d recorded allocations have this stack (e.g. %s)\n",
          seen[order[d]], count, example[order[d]]
        printf "%s", order[d]
      }
    }' "$WORK/$instance.stacks" | while IFS= read -r line; do
    if [[ $line =~ ^\ \ (/[^ ]+)\ (0x[0-9a-f]+) ]] && command -v addr2line >/dev/null; then
      where=$(addr2line -p -f -i -e "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" 2>/dev/null | tr '\n' ' ')
      if command -v swift-demangle >/dev/null; then where=$(swift-demangle --simplified <<<"$where"); fi
      printf '  %s %s  %s\n' "${BASH_REMATCH[1]##*/}" "${BASH_REMATCH[2]}" "$where"
    else
      printf '%s\n' "$line"
    fi
  done
}

instance main
echo "dnsward: $DNSWARD"
echo "$QUERIES queries per workload after a warm-up; Knot on 127.0.0.1:$KNOT_PORT"
echo "(hits .. tc: the engine's own counters over the run; local = overridden + blocked)"
header | tee "$TABLE"
for workload in $WORKLOADS; do
  case $workload in
    upstream-tcp | routed | local | dead-upstream | stale)
      if ! can_configure; then
        echo "$workload: skipped (needs a second dnsward with --config, which this binary lacks)" |
          tee -a "$TABLE"
        continue
      fi
      ;;
    httpdns)
      if ! command -v python3 >/dev/null; then
        [ "${STRICT:-0}" = 1 ] && fail "$workload: python3 is not installed"
        echo "$workload: skipped (python3 is not installed)" | tee -a "$TABLE"
        continue
      fi
      if ! can_configure "upstream httpdns 127.0.0.1:1 format=json"; then
        echo "$workload: skipped (this binary takes no --config with \`upstream httpdns\`)" |
          tee -a "$TABLE"
        continue
      fi
      ;;
    dot | doh)
      if [ -n "$TLS_SKIP" ]; then
        echo "$workload: skipped ($TLS_SKIP)" | tee -a "$TABLE"
        continue
      fi
      ;;
    defended)
      if ! can_configure "$(defences 1)"; then
        echo "$workload: skipped (this binary takes no --config with the defence directives)" |
          tee -a "$TABLE"
        continue
      fi
      ;;
    nftset)
      reason=
      if [ "$(id -u)" != 0 ] || ! command -v nft >/dev/null || ! command -v unshare >/dev/null; then
        reason="it needs root, nft and unshare"
      elif [ "${ALLOC_OWN_NETNS:-0}" != 1 ]; then
        # ALLOC_OWN_NETNS is set here only, inside the namespace just made.
        echo "nftset: run again in a network namespace of its own:"
        unshare -n env ALLOC_OWN_NETNS=1 WORKLOADS=nftset QUERIES="$QUERIES" \
          bash -c 'ip link set lo up && exec bash "$0"' "$ROOT/Tests/Benchmarks/allocations.sh" ||
          fail "nftset: its run in a network namespace of its own failed"
        continue
      elif ! can_configure "nftset inet t s for x.example"; then
        reason="this binary takes no --config with \`nftset\`"
      fi
      if [ -n "$reason" ]; then
        [ "${STRICT:-0}" = 1 ] && fail "$workload: $reason"
        echo "$workload: skipped ($reason)" | tee -a "$TABLE"
        continue
      fi
      ;;
    dnssec)
      reason=
      if ! command -v keymgr >/dev/null; then
        reason="keymgr is not installed (Debian: apt-get install knot)"
      elif ! CHECK_BIN=$DNSWARD_DNSSEC can_configure "$(validation \
        "signed.test. DS 1 13 2 $(printf '%064d' 0)")"; then
        reason="$DNSWARD_DNSSEC takes no --config with \`dnssec on\` (a firmware without -DDNSWARD_DNSSEC=ON?)"
      fi
      if [ -n "$reason" ]; then
        [ "${STRICT:-0}" = 1 ] && fail "$workload: $reason"
        echo "$workload: skipped ($reason)" | tee -a "$TABLE"
        continue
      fi
      ;;
    workers)
      if ! can_configure "workers 2"; then
        echo "$workload: skipped (this binary takes no --config with \`workers 2\`)" | tee -a "$TABLE"
        continue
      fi
      ;;
  esac
  case $workload in
    hot) measure hot main udp "$WORK/hot.txt" 2 "$WORK/hot.txt" ;;
    nxdomain) measure nxdomain main udp "$WORK/nx.txt" 2 "$WORK/nx.txt" ;;
    override) measure override main udp "$WORK/override.txt" 10 "$WORK/override.txt" ;;
    mixed) measure mixed main udp "$WORK/mixed-warm.txt" 1 "$WORK/mixed.txt" ;;
    cold) measure cold main udp "$WORK/cold-warm.txt" 1 "$WORK/cold.txt" ;;
    hot-do) measure hot-do main udp "$WORK/hot-both.txt" 2 "$WORK/hot-both.txt" -D ;;
    large) measure large main udp "$WORK/large.txt" 10 "$WORK/large.txt" -e ;;
    truncated) measure truncated main udp "$WORK/large.txt" 10 "$WORK/large.txt" ;;
    tcp) measure tcp main tcp "$WORK/tcp-warm.txt" 1 "$WORK/tcp.txt" ;;
    upstream-tcp) measure upstream-tcp upstream-tcp udp "$WORK/upstream-tcp-warm.txt" 1 "$WORK/upstream-tcp.txt" ;;
    httpdns)
      QUERIES=$HTTPDNS_QUERIES measure httpdns httpdns udp "$WORK/httpdns-warm.txt" 1 "$WORK/httpdns.txt" -q 4
      ;;
    dot) measure dot dot udp "$WORK/dot-warm.txt" 1 "$WORK/dot.txt" ;;
    doh) QUERIES=$DOH_QUERIES measure doh doh udp "$WORK/doh-warm.txt" 1 "$WORK/doh.txt" -q 32 ;;
    routed) measure routed routed udp "$WORK/routed-warm.txt" 1 "$WORK/routed.txt" ;;
    local) measure local local udp "$WORK/local.txt" 10 "$WORK/local.txt" ;;
    nftset)
      measure nftset nftset udp "$WORK/hot-both.txt" 2 "$WORK/hot-both.txt"
      # The answers did reach the sets: the hot names' addresses are there.
      [[ $(nft list set inet dwalloc s4) == *"elements = {"* ]] ||
        fail "nftset: no address reached the set: $(nft list set inet dwalloc s4)"
      ;;
    dead-upstream) measure dead-upstream dead-upstream udp "$WORK/dead-warm.txt" 1 "$WORK/dead.txt" ;;
    stale)
      # Cache the hot names (max-ttl 1s), stop their Knot, let them expire;
      # the warm-up in measure then already goes through the stale path.
      instance stale
      dnsperf_run "$IPORT" udp "$WORK/hot-both.txt" 1 "$WORK/stale-fill.dnsperf"
      kill "$STALE_KNOT_PID"
      wait "$STALE_KNOT_PID" 2>/dev/null || true
      STALE_KNOT_PID=
      sleep 1.5
      measure stale stale udp "$WORK/hot-both.txt" 1 "$WORK/hot-both.txt"
      ;;
    defended) measure defended defended udp "$WORK/defended-warm.txt" 1 "$WORK/defended.txt" ;;
    workers) CLIENTS=16 measure workers workers udp "$WORK/workers-warm.txt" 1 "$WORK/workers.txt" ;;
    dnssec)
      instance dnssec
      check_validation dnssec "$IPORT"
      measure_validated dnssec a
      measure_validated dnssec-do b -D
      ;;
  esac
done

# The control: the shutdown save of the cache file allocates.
read -r control_before _ _ control_stacks <<<"$(counters main)"
"$WORK/malloc-counter" "$WORK/main.counters" arm
kill -TERM "${INSTANCE_PID[main]}"
status=0
wait "${INSTANCE_PID[main]}" || status=$?
[ "$status" -eq 0 ] || FAILED+=("dnsward exited with status $status on SIGTERM")
read -r control_after _ _ control_stacks_after <<<"$(counters main)"
control=$((control_after - control_before))
rm -f "/tmp/dnsward-allocations.${PROXY_PORT:-none}.cache"
echo "control: dnsward saving its cache file at shutdown: $control allocations counted"
[ "$control" -gt 0 ] ||
  FAILED+=("control: the counter saw no allocation when dnsward saved its cache file, so it is not counting dnsward's allocations and the zeros prove nothing")
if [ "${SHOW_CONTROL_STACKS:-0}" = 1 ]; then
  echo "stacks of the control's allocations:"
  print_stacks main "$control_stacks" "$control_stacks_after"
fi

for name in "${!INSTANCE_PORT[@]}"; do
  if [ -s "$WORK/$name.log" ]; then
    echo "dnsward ($name) wrote to its log:"
    sed 's/^/  /' "$WORK/$name.log"
  fi
done
echo "run times: $(paste -sd, "$WORK/times" | sed 's/,/, /g'); total $((SECONDS - STARTED))s"
if [ ${#FAILED[@]} -gt 0 ]; then
  if [ -f "$WORK/failed-stacks" ]; then
    while read -r workload name first last; do
      echo "stacks of the allocations during $workload:"
      print_stacks "$name" "$first" "$last"
    done <"$WORK/failed-stacks"
  fi
  echo "the table again:"
  cat "$TABLE"
  for message in "${FAILED[@]}"; do echo "allocations.sh: FAILED: $message" >&2; done
  exit 1
fi
notes=()
grep -q '^httpdns .* | ' "$TABLE" && notes+=("httpdns: $HTTPDNS_QUERIES")
grep -q '^doh .* | ' "$TABLE" && notes+=("doh: $DOH_QUERIES")
grep -q '^dnssec .* | ' "$TABLE" && notes+=("dnssec and dnssec-do: $DNSSEC_QUERIES")
note=
[ ${#notes[@]} -gt 0 ] && note=" ($(IFS=,; echo "${notes[*]}" | sed 's/,/, /g'))"
echo "allocations.sh: no heap allocation in $(($(grep -c " | " "$TABLE") - 1)) workloads of $QUERIES queries each$note"
