# shellcheck shell=bash
# Sourced by the benchmark scripts (Tests/Benchmarks/*.sh): how they measure
# a server (its CPU from /proc, dnsperf's figures) and how the reference
# servers they compare dnsward with are started. .ci/lib.sh (sourced from
# here too) has the rest: messages, cleanup, Knot, free ports.
[[ -z ${DNSWARD_BENCH_COMMON_LOADED:-} ]] || return 0
DNSWARD_BENCH_COMMON_LOADED=1
source "$(dirname "${BASH_SOURCE[0]}")/../../../.ci/lib.sh"

CLK_TCK=$(getconf CLK_TCK)

# --- a process's CPU and memory --------------------------------------------------
# cpu_ticks PID...: utime + stime of the processes (all their threads),
# summed, in clock ticks. The fields are counted after the command name,
# which may hold spaces.
cpu_ticks() {
  local pid
  for pid; do awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat"; done |
    awk '{ s += $1 } END { print s + 0 }'
}

# cpu_us_per_query TICKS ANSWERS [FORMAT]: microseconds of CPU per answer
# (FORMAT %.2f), 0 without answers.
cpu_us_per_query() {
  awk -v t="$1" -v hz="$CLK_TCK" -v n="$2" -v f="${3:-%.2f}" \
    'BEGIN { printf f, (n > 0 ? t / hz * 1e6 / n : 0) }'
}

# status_kb PID KEY: a figure of /proc/PID/status in kB (VmRSS, VmHWM, ...).
status_kb() { awk -v key="$2:" '$1 == key { print $2 }' "/proc/$1/status"; }
# peak_kb PID: peak RSS (VmHWM).
peak_kb() { status_kb "$1" VmHWM; }
# fd_count PID: the descriptors PID has open.
fd_count() { ls "/proc/$1/fd" | wc -l; }

# --- figures ---------------------------------------------------------------------
# median: the median of the numbers on stdin, one a line.
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# ratio A B: A / B with two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# random_names N TLDS [PREFIXES]: N distinct names, the same on every run
# (srand(1)): a random label of 4 to 13 letters and digits with its number,
# then one of the TLDS; with PREFIXES, about half get one of them as a first
# label (as tracker names in real block lists have).
random_names() {
  awk -v n="$1" -v tld_list="$2" -v prefix_list="${3:-}" 'BEGIN {
    srand(1)
    tld_count = split(tld_list, tlds, " ")
    prefix_count = split(prefix_list, prefixes, " ")
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
    for (i = 0; i < n; i++) {
      len = 4 + int(rand() * 10)
      label = ""
      for (j = 0; j < len; j++) label = label substr(alphabet, 1 + int(rand() * 36), 1)
      prefix = ""
      if (prefix_count > 0 && rand() >= 0.5) prefix = prefixes[1 + int(rand() * prefix_count)] "."
      print prefix label i "." tlds[1 + int(rand() * tld_count)]
    }
  }'
}

# wire_table_sources TREE DIR: the DNSWire and CompiledConfig sources of the
# source tree TREE, copied into DIR without their imports, to be compiled
# -O with a generated table as one module.
wire_table_sources() {
  local module file
  mkdir -p "$2"
  for module in DNSWire CompiledConfig; do
    for file in "$1/Sources/$module"/*.swift; do
      grep -v '^import ' "$file" >"$2/$module-$(basename "$file")"
    done
  done
}

# screening_config: dnsward's hijack defences that judge every upstream
# answer (defences.sh's "screening"; allocations.sh's "defended").
screening_config() {
  cat <<CONF
bogus 203.0.113.0/24
bogus-nxdomain 198.18.0.1
rebind-protection on
rate-limit 1000000/s
detect-nxdomain-redirect on
CONF
}

# --- the server under measurement ----------------------------------------------------
# A script that compares servers defines start_NAME for each, which writes
# its config into $WORK, launches it on 127.0.0.1:$PROXY_PORT with its log in
# $LOGS/NAME.log and sets SERVER_PID.

# start_server NAME QUESTION [DIG OPTIONS...]: start_NAME, then waits until
# the server answers QUESTION with NOERROR (dig's whole answer is then in
# SERVER_ANSWER); fails with the end of its log otherwise.
start_server() {
  local name=$1 question=$2
  shift 2
  "start_$name"
  track "$SERVER_PID"
  for _ in $(seq 1 100); do
    SERVER_ANSWER=$(dig "$@" +tries=1 +time=1 @127.0.0.1 -p "$PROXY_PORT" "$question" 2>/dev/null || true)
    grep -q 'status: NOERROR' <<<"$SERVER_ANSWER" && return 0
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  tail -20 "$LOGS/$name.log" >&2
  fail "$name did not answer on 127.0.0.1:$PROXY_PORT (log: $LOGS/$name.log)"
}

stop_server() {
  if [ -n "${SERVER_PID:-}" ]; then
    stop_process "$SERVER_PID"
    SERVER_PID=
  fi
}

# run_dnsperf OUT ARGS...: dnsperf against 127.0.0.1 (ARGS give the port),
# on CPU $LOAD_CPU under nice $NICE; its output goes to OUT, its own user
# and system CPU seconds to OUT.cpu. A failed run leaves its figures empty.
run_dnsperf() {
  local out=$1 TIMEFORMAT='%U %S'
  shift
  { time nice -n "${NICE:-0}" taskset -c "$LOAD_CPU" dnsperf -s 127.0.0.1 "$@" >"$out" 2>&1; } 2>"$out.cpu" || true
}

# knot_queries SOCKET: the queries a Knot with mod-stats has answered so
# far (knotc through its control SOCKET).
knot_queries() {
  knotc -s "$1" stats mod-stats.server-operation 2>/dev/null |
    awk -F' = ' '/\[query\]/ {n += $2} END {print n + 0}'
}

# dnsperf_figures OUT TICKS UPSTREAM_QUERIES: the figures of the dnsperf run
# in OUT, during which the server used TICKS of CPU and the upstream
# answered UPSTREAM_QUERIES: M_DONE, M_LOST, M_QPS, M_RCODES
# (NOERROR=n,...), M_CPU (µs per answer), M_UP (upstream queries per
# answer) and M_BUSY (percent of one CPU the server used).
# shellcheck disable=SC2034 # the M_ figures are the caller's
dnsperf_figures() {
  local out=$1 ticks=$2 upstream=$3
  M_DONE=$(dnsperf_field "$out" "Queries completed")
  M_LOST=$(dnsperf_field "$out" "Queries lost")
  M_QPS=$(dnsperf_field "$out" "Queries per second" | awk '{printf "%.0f", $1}')
  M_RCODES=$(awk -F': *' '/Response codes/ { n = split($2, part, ", "); r = ""
      for (i = 1; i <= n; i++) { split(part[i], w, " "); r = r (i > 1 ? "," : "") w[1] "=" w[2] }
      print r }' "$out")
  M_CPU=$(cpu_us_per_query "$ticks" "$M_DONE")
  M_UP=$(awk -v u="$upstream" -v n="$M_DONE" 'BEGIN { printf "%.2f", (n > 0 ? u / n : 0) }')
  M_BUSY=$(awk -v t="$ticks" -v hz="$CLK_TCK" -v s="$(dnsperf_field "$out" "Run time (s)")" \
    'BEGIN { printf "%.0f", (s > 0 ? t / hz / s * 100 : 0) }')
}

# --- the reference servers -----------------------------------------------------------
# Each forwards to 127.0.0.1:$UPSTREAM_PORT with a 10,000-answer cache and
# about 1,000 queries in flight, runs on CPU $PROXY_CPU under nice $NICE, and
# takes the lines its NAME_extra function prints (the script's own, if it
# defines one) on top.

version_dnsward() {
  echo "dnsward (${DNSWARD_SOURCE:-$DNSWARD_BIN}; HEAD $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'))"
}
version_dnsmasq() { dnsmasq --version | awk 'NR == 1 {print "dnsmasq " $3}'; }
version_unbound() { unbound -V | awk 'NR == 1 {print "unbound " $2}'; }

# dnsmasq_config PORT UPSTREAM_PORT: the lines of every dnsmasq config here:
# on 127.0.0.1:PORT only, nothing read from this machine's resolv.conf or
# hosts, everything forwarded to 127.0.0.1:UPSTREAM_PORT.
dnsmasq_config() {
  printf '%s\n' "port=$1" listen-address=127.0.0.1 bind-interfaces no-resolv no-hosts \
    "server=127.0.0.1#$2"
}

start_dnsmasq() {
  {
    dnsmasq_config "$PROXY_PORT" "$UPSTREAM_PORT"
    echo "cache-size=10000"
    echo "dns-forward-max=1024"
    echo "user=$(id -un)"
    echo "pid-file=$WORK/dnsmasq.pid"
    if declare -F dnsmasq_extra >/dev/null; then dnsmasq_extra; fi
  } >"$WORK/dnsmasq.conf"
  nice -n "${NICE:-0}" taskset -c "$PROXY_CPU" dnsmasq --keep-in-foreground --conf-file="$WORK/dnsmasq.conf" \
    >>"$LOGS/dnsmasq.log" 2>&1 &
  SERVER_PID=$!
}

# unbound has no entry limit: its two caches are sized in bytes
# (UNBOUND_MSG_CACHE, UNBOUND_RRSET_CACHE) for about 10,000 of the script's
# answers. UNBOUND_MODULES: its module-config ("iterator": no validation).
# "test." is one of its built-in local zones (RFC 6761), switched off to let
# the test zones through.
start_unbound() {
  cat >"$WORK/unbound.conf" <<CONF
server:
  verbosity: 0
  use-syslog: no
  logfile: ""
  do-daemonize: no
  chroot: ""
  username: ""
  directory: "$WORK"
  pidfile: "$WORK/unbound.pid"
  interface: 127.0.0.1
  port: $PROXY_PORT
  do-ip6: no
  access-control: 127.0.0.0/8 allow
  num-threads: 1
  num-queries-per-thread: 1024
  outgoing-range: 2048
  module-config: "${UNBOUND_MODULES:-iterator}"
  do-not-query-localhost: no
  local-zone: "test." nodefault
  msg-cache-size: ${UNBOUND_MSG_CACHE:-2500k}
  msg-cache-slabs: 1
  rrset-cache-size: ${UNBOUND_RRSET_CACHE:-3m}
  rrset-cache-slabs: 1
  infra-cache-slabs: 1
  key-cache-slabs: 1
  prefetch: no
$(if declare -F unbound_extra >/dev/null; then unbound_extra; fi)
forward-zone:
  name: "."
  forward-addr: 127.0.0.1@$UPSTREAM_PORT
CONF
  nice -n "${NICE:-0}" taskset -c "$PROXY_CPU" unbound -d -c "$WORK/unbound.conf" >>"$LOGS/unbound.log" 2>&1 &
  SERVER_PID=$!
}
