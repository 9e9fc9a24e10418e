#!/usr/bin/env bash
# The benchmark suite: dnsward next to dnsmasq, unbound and dnsdist, one
# after the other, in front of the same Knot DNS upstream on loopback, under
# the same dnsperf workloads. Not a test: it prints numbers for
# Tests/Benchmarks/README.md.
#
#   bash Tests/Benchmarks/bench.sh                       # everything, ~9 min + build
#   PROXIES="dnsward dnsmasq" WORKLOADS="hot cold" DURATION=5 bash Tests/Benchmarks/bench.sh
#   DNSWARD_BIN=/path/to/dnsward bash Tests/Benchmarks/bench.sh
#
# Upstream: knotd serving bench.test, 200,000 names with A and AAAA, 2,000
# two-step CNAME chains, 10,000 filler names and an NXDOMAIN region
# (bench/generate.awk). Knot is first measured alone (its CPU per query and
# the qps dnsperf can drive), and its CPU is watched during every run.
#
# Workloads (query files from bench/generate.awk):
#   hot       1,000 questions (A/AAAA, 10% CNAME chains), warmed: cache hits
#   cold      200,000 names x A/AAAA = 400,000 distinct questions in order,
#             none asked before in that server's life: every query is
#             forwarded (the upstr/q column shows it; the script warns if
#             not). A run that gets through all of them starts again at the
#             top, still missing: 390,000 other answers have gone through the
#             10,000-entry caches since (and dnsdist's full cache takes none).
#   mixed     80% the hot questions (warmed), 20% names never asked before
#   nxdomain  1,000 nonexistent names, warmed: negative-cache hits
#   override  1,000 names from the local override table of each proxy
#
# Every proxy gets a 10,000-entry cache and the same 1,000 overrides
# (bench/proxies.sh has each configuration and why). A trivial UDP echo
# responder (bench/echo.c) is measured too: the floor that two system calls
# per query impose; it answers every workload alike, so it runs once.
#
# Each measurement starts the server afresh, fills its cache to 10,000
# entries the way a router's cache is full (9,000 filler answers, then the
# workload's own 1,000 questions; for cold, 10,000 filler answers), then
# runs dnsperf for DURATION seconds. Two measurements per proxy and workload:
#   fixed load  dnsperf -Q $QPS: p50/p99 latency from dnsperf -v (it prints
#               every answer with its latency), lost queries, CPU per query
#   max         dnsperf unthrottled, MAX_OUTSTANDING queries in flight:
#               max qps, CPU per query at saturation
# CPU per answered query is the server's utime+stime from /proc/PID/stat
# (all threads) over the run divided by the answers dnsperf counted: the
# most stable figure on a shared machine. At the fixed load it is dominated
# by waking up for every query; at max load, by the work per query.
# Peak RSS is VmHWM, the larger of the two runs. upstr/q: queries Knot
# answered during the fixed-load run per answer (Knot's mod-stats).
# The server runs on CPU $PROXY_CPU (taskset), dnsperf and Knot on $LOAD_CPU.
# With two cores dnsperf itself tops out around 50-80k qps; the
# srv/knt/prf/oth% column says, for the max run, how much of a CPU the
# server, Knot and dnsperf each used, and how much of the server's CPU went
# to everything else (other people's work on a shared machine): a server
# well below 100% while dnsperf (plus Knot, on the same CPU) is near 100%,
# or while others take its CPU, was not the bottleneck, and its max qps
# then says more about the machine than about the server. CPU per query
# still tells the servers apart.
#
# Environment:
#   DURATION=10          seconds per measurement
#   QPS=2000             offered load for the latency measurement
#   PROXIES="dnsward dnsmasq unbound dnsdist"
#   WORKLOADS="hot cold mixed nxdomain override"
#   ECHO=1               also measure the echo responder (0: skip)
#   DNSWARD_BIN=...      benchmark this binary instead of building one
#                        (default: swift build -c release --scratch-path
#                        /tmp/bench-build, away from the repo's .build)
#   DNSWARD_REV=HEAD     build this commit instead of the working tree (from
#                        git archive into /tmp/bench-src-REV)
#   MAX_CLIENTS=4 MAX_OUTSTANDING=100   dnsperf -c / -q for the max run
#   PROXY_CPU=0 LOAD_CPU=1
#   NICE=0               e.g. -10: server and dnsperf ahead of other work on
#                        a busy shared machine (as root)
#   NOISE_LIMIT=25 NOISE_RETRIES=6   a max run during which other work took
#                        more than NOISE_LIMIT% of the server's CPU is
#                        repeated once (the second one counts), at most
#                        NOISE_RETRIES times in all
#   RESULTS_DIR=/tmp/dnsward-bench-DATE  where results.tsv, results.md and
#                        the servers' logs are kept
#
# Needs dnsperf, knot (knotd, knotc), dnsmasq, unbound, dnsdist, gcc, dig,
# python3 (free_port from .ci/lib.sh). Only 127.0.0.1 is used.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
HERE=$ROOT/Tests/Benchmarks/bench
source "$HERE/proxies.sh"

DURATION=${DURATION:-10}
QPS=${QPS:-2000}
PROXIES=${PROXIES:-dnsward dnsmasq unbound dnsdist}
WORKLOADS=${WORKLOADS:-hot cold mixed nxdomain override}
ECHO=${ECHO:-1}
LAT_CLIENTS=${LAT_CLIENTS:-8}
MAX_CLIENTS=${MAX_CLIENTS:-4}
MAX_OUTSTANDING=${MAX_OUTSTANDING:-100}
PROXY_CPU=${PROXY_CPU:-0}
LOAD_CPU=${LOAD_CPU:-1}
NICE=${NICE:-0}
NOISE_LIMIT=${NOISE_LIMIT:-25}
NOISE_RETRIES=${NOISE_RETRIES:-6}
RESULTS_DIR=${RESULTS_DIR:-/tmp/dnsward-bench-$(date +%Y%m%d-%H%M%S)}
ANCHORS="dnsmasq unbound dnsdist echo"

need() { command -v "$1" >/dev/null || { echo "bench: missing $1" >&2; exit 1; }; }
for tool in dnsperf knotd knotc dig gcc taskset awk; do need "$tool"; done
for proxy in $PROXIES; do
  case $proxy in
    dnsward) ;;
    dnsmasq | unbound | dnsdist) need "$proxy" ;;
    *) echo "bench: unknown proxy $proxy (dnsward dnsmasq unbound dnsdist)" >&2; exit 1 ;;
  esac
done
for workload in $WORKLOADS; do
  case $workload in
    hot | cold | mixed | nxdomain | override) ;;
    *) echo "bench: unknown workload $workload (hot cold mixed nxdomain override)" >&2; exit 1 ;;
  esac
done

DNSWARD_SOURCE="working tree"
if [[ " $PROXIES " == *" dnsward "* && -z "${DNSWARD_BIN:-}" ]]; then
  [ -d /opt/swift/usr/bin ] && PATH=$PATH:/opt/swift/usr/bin
  need swift
  package=$ROOT scratch=/tmp/bench-build
  if [ -n "${DNSWARD_REV:-}" ]; then
    # A commit, exported with git archive: not the working tree others edit.
    rev=$(git -C "$ROOT" rev-parse --short "$DNSWARD_REV")
    package=/tmp/bench-src-$rev scratch=/tmp/bench-build-rev
    rm -rf "$package" && mkdir -p "$package"
    git -C "$ROOT" archive "$rev" | tar -x -C "$package"
    DNSWARD_SOURCE="commit $rev"
  fi
  echo "building dnsward from the $DNSWARD_SOURCE (release, scratch path $scratch) ..."
  swift build -c release --package-path "$package" --product dnsward \
    --scratch-path "$scratch" >"$scratch.log" 2>&1 ||
    { tail -30 "$scratch.log" >&2; echo "bench: build failed (log: $scratch.log)" >&2; exit 1; }
  DNSWARD_BIN=$(swift build -c release --package-path "$package" --scratch-path "$scratch" \
    --show-bin-path)/dnsward
elif [ -n "${DNSWARD_BIN:-}" ]; then
  DNSWARD_SOURCE=$DNSWARD_BIN
fi
DNSWARD_BIN=${DNSWARD_BIN:-}

mkdir -p "$RESULTS_DIR"
LOGS=$RESULTS_DIR/logs
mkdir -p "$LOGS"
WORK=$(mktemp -d /tmp/dnsward-bench-work.XXXXXX)
SERVER_PID=
KNOT_PID=
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  if [ -n "$KNOT_PID" ]; then kill "$KNOT_PID" 2>/dev/null || true; wait "$KNOT_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

gcc -O2 -Wall -o "$WORK/echo" "$HERE/echo.c"
awk -v dir="$WORK" -f "$HERE/generate.awk"

HZ=$(getconf CLK_TCK)
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }
peak_kb() { awk '/^VmHWM/ {print $2}' "/proc/$1/status"; }

UPSTREAM_PORT=$(free_port 27400)
PROXY_PORT=$(free_port $((UPSTREAM_PORT + 1)))

# --- the upstream ------------------------------------------------------------
cat >"$WORK/knot.conf" <<CONF
server:
    rundir: "$WORK"
    listen: 127.0.0.1@$UPSTREAM_PORT
    udp-workers: 1
    tcp-workers: 1
    background-workers: 1
control:
    listen: "$WORK/knot.sock"
database:
    storage: "$WORK"
log:
  - target: stderr
    any: warning
template:
  - id: default
    global-module: mod-stats
zone:
  - domain: bench.test
    file: "$WORK/bench.test.zone"
    semantic-checks: off
    journal-content: none
    zonefile-sync: -1
CONF
nice -n "$NICE" taskset -c "$PROXY_CPU" knotd -c "$WORK/knot.conf" >"$LOGS/knotd.log" 2>&1 &
KNOT_PID=$!
for _ in $(seq 1 100); do
  grep -q . <<<"$(dig +short +tries=1 +time=1 @127.0.0.1 -p "$UPSTREAM_PORT" n199999.bench.test)" && break
  sleep 0.2
done
grep -q . <<<"$(dig +short +tries=1 +time=1 @127.0.0.1 -p "$UPSTREAM_PORT" n199999.bench.test)" ||
  { echo "bench: knotd did not come up" >&2; cat "$LOGS/knotd.log" >&2; exit 1; }
# Knot binds its worker threads to CPUs of its own choosing: pin every
# thread again now that they all exist.
taskset -a -p -c "$PROXY_CPU" "$KNOT_PID" >/dev/null
# Queries Knot has answered so far: how many a proxy forwarded during a run.
knot_queries() {
  knotc -s "$WORK/knot.sock" stats mod-stats.server-operation 2>/dev/null |
    awk -F' = ' '/\[query\]/ {n += $2} END {print n + 0}'
}

# run_dnsperf OUT ARGS...: dnsperf from $LOAD_CPU against the server; its
# own user and system CPU seconds go to OUT.cpu.
run_dnsperf() {
  local out=$1 TIMEFORMAT='%U %S'
  shift
  { time nice -n "$NICE" taskset -c "$LOAD_CPU" dnsperf -s 127.0.0.1 "$@" >"$out" 2>&1; } 2>"$out.cpu" || true
}
field() { awk -v key="$2" 'index($0, key) == 3 || index($0, key) == 1 { sub(/^[^:]*: */, ""); print $1; exit }' "$1"; }

# Knot alone, pinned like a proxy, the cold file unthrottled.
knot_line=
if [ "${KNOT_CHECK:-1}" = 1 ]; then
  before=$(cpu_ticks "$KNOT_PID")
  run_dnsperf "$LOGS/knot-max.dnsperf" -p "$UPSTREAM_PORT" -d "$WORK/cold.txt" -l "$DURATION" \
    -c "$MAX_CLIENTS" -q "$MAX_OUTSTANDING" -t 2
  after=$(cpu_ticks "$KNOT_PID")
  knot_done=$(field "$LOGS/knot-max.dnsperf" "Queries completed")
  knot_qps=$(field "$LOGS/knot-max.dnsperf" "Queries per second")
  KNOT_CPU_US=$(awk -v t=$((after - before)) -v hz="$HZ" -v n="$knot_done" \
    'BEGIN { printf "%.2f", (n > 0 ? t / hz * 1e6 / n : 0) }')
  knot_line=$(printf 'Knot %s alone on CPU %s (cold names, unthrottled): %.0f qps (dnsperf-bound), %s CPU-us/query (one core: ~%.0f qps)' \
    "$(knotd -V | awk '{print $NF}')" "$PROXY_CPU" "$knot_qps" "$KNOT_CPU_US" \
    "$(awk -v c="$KNOT_CPU_US" 'BEGIN { print (c > 0 ? 1e6 / c : 0) }')")
  echo "$knot_line"
fi
# From here on Knot shares the load generator's CPU and leaves the
# server's to the server.
taskset -a -p -c "$LOAD_CPU" "$KNOT_PID" >/dev/null

# --- measurements --------------------------------------------------------------
# start_server NAME: launches it and waits until it answers.
start_server() {
  "start_$1"
  for _ in $(seq 1 100); do
    if grep -q 'status: NOERROR' <<<"$(dig +tries=1 +time=1 @127.0.0.1 -p "$PROXY_PORT" ns.bench.test 2>/dev/null)"; then
      return 0
    fi
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "bench: $1 did not answer on 127.0.0.1:$PROXY_PORT (log: $LOGS/$1.log)" >&2
  tail -20 "$LOGS/$1.log" >&2
  exit 1
}

# ask FILE: every question once, until all are answered.
ask() {
  local _
  for _ in 1 2 3; do
    run_dnsperf "$WORK/warm.dnsperf" -p "$PROXY_PORT" -d "$1" -n 1 -c 2 -q 50 -t 2
    [ "$(field "$WORK/warm.dnsperf" "Queries lost")" = 0 ] && return 0
  done
  echo "bench: warm-up with $1 kept losing queries" >&2
}

# prepare WORKLOAD: brings a fresh server's cache to the state the workload
# is measured in. A router's cache is full, so the cache workloads start
# with 10,000 answers in it: 9,000 filler names and then the workload's
# own 1,000 questions (hot, mixed: the hot set; nxdomain: the negative set),
# or for cold 10,000 filler names, none of which it asks. (dnsdist's cache
# then takes no new entries at all; the others evict their oldest.)
prepare() {
  case $1 in
    hot | mixed) head -9000 "$WORK/fill.txt" >"$WORK/fill-part.txt"; ask "$WORK/fill-part.txt"; ask "$WORK/hot.txt" ;;
    nxdomain) head -9000 "$WORK/fill.txt" >"$WORK/fill-part.txt"; ask "$WORK/fill-part.txt"; ask "$WORK/nxdomain.txt" ;;
    cold) ask "$WORK/fill.txt" ;;
    override) ask "$WORK/override.txt" ;;
  esac
}

# busy_ticks CPU: ticks that CPU spent on anything but idle, all processes.
busy_ticks() { awk -v cpu="cpu$1" '$1 == cpu { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
query_file() { if [ "$1" = echo ]; then echo "$WORK/hot.txt"; else echo "$WORK/$2.txt"; fi; }

# measure PROXY WORKLOAD MODE: one fresh server, one dnsperf run. Sets
# M_CPU (us per answered query), M_DONE, M_LOST, M_QPS, M_P50, M_P99,
# M_RSS, M_UP (upstream queries per answer), M_RCODES, and during the run
# the percent of one CPU used by the server (M_BUSY) and by Knot (M_KNOT),
# and by dnsperf (M_PERF), and by everything else on the server's CPU
# (M_OTHER: other people's work on a shared machine, interrupts).
measure() {
  local proxy=$1 workload=$2 mode=$3 out before after up_before up_after
  local knot_before knot_after cpu_before cpu_after
  out=$LOGS/$proxy-$workload-$mode.dnsperf
  start_server "$proxy"
  [ "$proxy" != echo ] && prepare "$workload"
  up_before=$(knot_queries)
  knot_before=$(cpu_ticks "$KNOT_PID")
  cpu_before=$(busy_ticks "$PROXY_CPU")
  before=$(cpu_ticks "$SERVER_PID")
  if [ "$mode" = fixed ]; then
    run_dnsperf "$out" -p "$PROXY_PORT" -d "$(query_file "$proxy" "$workload")" -l "$DURATION" \
      -Q "$QPS" -c "$LAT_CLIENTS" -q 500 -t 2 -v
  else
    run_dnsperf "$out" -p "$PROXY_PORT" -d "$(query_file "$proxy" "$workload")" -l "$DURATION" \
      -c "$MAX_CLIENTS" -q "$MAX_OUTSTANDING" -t 2
  fi
  after=$(cpu_ticks "$SERVER_PID")
  cpu_after=$(busy_ticks "$PROXY_CPU")
  knot_after=$(cpu_ticks "$KNOT_PID")
  up_after=$(knot_queries)
  M_RSS=$(peak_kb "$SERVER_PID")
  stop_server
  M_DONE=$(field "$out" "Queries completed")
  M_LOST=$(field "$out" "Queries lost")
  M_QPS=$(field "$out" "Queries per second" | awk '{printf "%.0f", $1}')
  M_RCODES=$(awk -F': *' '/Response codes/ { n = split($2, part, ", "); r = ""
      for (i = 1; i <= n; i++) { split(part[i], w, " "); r = r (i > 1 ? "," : "") w[1] "=" w[2] }
      print r }' "$out")
  M_CPU=$(awk -v t=$((after - before)) -v hz="$HZ" -v n="$M_DONE" \
    'BEGIN { printf "%.2f", (n > 0 ? t / hz * 1e6 / n : 0) }')
  M_UP=$(awk -v u=$((up_after - up_before)) -v n="$M_DONE" 'BEGIN { printf "%.2f", (n > 0 ? u / n : 0) }')
  local seconds
  seconds=$(field "$out" "Run time (s)")
  M_BUSY=$(awk -v t=$((after - before)) -v hz="$HZ" -v s="$seconds" 'BEGIN { printf "%.0f", (s > 0 ? t / hz / s * 100 : 0) }')
  M_OTHER=$(awk -v t=$((cpu_after - cpu_before - (after - before))) -v hz="$HZ" -v s="$seconds" \
    'BEGIN { if (t < 0) t = 0; printf "%.0f", (s > 0 ? t / hz / s * 100 : 0) }')
  M_PERF=$(awk -v s="$seconds" '{ printf "%.0f", (s > 0 ? ($1 + $2) / s * 100 : 0) }' "$out.cpu")
  M_KNOT=$(awk -v t=$((knot_after - knot_before)) -v hz="$HZ" -v s="$seconds" 'BEGIN { printf "%.0f", (s > 0 ? t / hz / s * 100 : 0) }')
  M_P50=- M_P99=-
  if [ "$mode" = fixed ]; then
    awk '$1 == ">" && $2 != "T" && NF >= 5 {print $NF * 1e6}' "$out" | sort -g >"$WORK/latencies"
    read -r M_P50 M_P99 < <(awk '{v[NR] = $1} END {
      if (NR == 0) { print "- -"; exit }
      i50 = int(NR * 0.50 + 0.5); i99 = int(NR * 0.99 + 0.5)
      if (i50 < 1) i50 = 1; if (i99 < 1) i99 = 1
      printf "%.0f %.0f\n", v[i50], v[i99] }' "$WORK/latencies")
    # The per-query lines are big; keep the summary only.
    grep -v '^> ' "$out" >"$out.summary" && mv "$out.summary" "$out"
  fi
}

TSV=$RESULTS_DIR/results.tsv
printf 'proxy\tversion\tworkload\tcpu_us_per_q_fixed\tcpu_us_per_q_max\tmax_qps\tp50_us\tp99_us\tlost_fixed\tlost_max\tanswered_fixed\tanswered_max\tpeak_rss_kb\tupstream_per_q_fixed\tupstream_per_q_max\trcodes_fixed\tserver_busy_pct_max\tupstream_busy_pct_max\tdnsperf_busy_pct_max\tother_on_server_cpu_pct_max\tother_on_server_cpu_pct_fixed\n' >"$TSV"

ROW='%-8s %-9s %8s %8s %7s %16s %6s %7s %9s %7s %7s\n'
# shellcheck disable=SC2059
printf "$ROW" proxy workload "cpu@$QPS" "cpu@max" "max-qps" "srv/knt/prf/oth%" "p50us" "p99us" "lost" "rss-kB" "upstr/q"

# measure_quietly PROXY WORKLOAD max: measure, and measure once more if
# other work took more than NOISE_LIMIT percent of the server's CPU, as
# long as the NOISE_RETRIES budget for the whole suite lasts. (Only the max
# run: at the fixed load the server leaves most of its CPU idle, and other
# work using that idle time is no interference.)
RETRIES_LEFT=$NOISE_RETRIES
measure_quietly() {
  measure "$@"
  if [ "$M_OTHER" -gt "$NOISE_LIMIT" ] && [ "$RETRIES_LEFT" -gt 0 ]; then
    RETRIES_LEFT=$((RETRIES_LEFT - 1))
    echo "  ($1 $2 $3: other work took $M_OTHER% of the server's CPU; measuring again)" >&2
    measure "$@"
  fi
}

# bench PROXY WORKLOAD: both measurements, one table row, one TSV row.
bench() {
  local proxy=$1 workload=$2 cpu_fixed p50 p99 lost_fixed done_fixed rss up_fixed rcodes other_fixed
  # shellcheck disable=SC2059
  measure "$proxy" "$workload" fixed
  cpu_fixed=$M_CPU p50=$M_P50 p99=$M_P99 lost_fixed=$M_LOST done_fixed=$M_DONE rss=$M_RSS
  up_fixed=$M_UP rcodes=$M_RCODES other_fixed=$M_OTHER
  measure_quietly "$proxy" "$workload" max
  [ "$M_RSS" -gt "$rss" ] && rss=$M_RSS
  printf "$ROW" "$proxy" "$workload" "$cpu_fixed" "$M_CPU" "$M_QPS" "$M_BUSY/$M_KNOT/$M_PERF/$M_OTHER" "$p50" "$p99" \
    "$lost_fixed/$M_LOST" "$rss" "$up_fixed"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$proxy" \
    "${VERSION[$proxy]}" "$workload" "$cpu_fixed" "$M_CPU" "$M_QPS" "$p50" "$p99" "$lost_fixed" "$M_LOST" \
    "$done_fixed" "$M_DONE" "$rss" "$up_fixed" "$M_UP" "$rcodes" "$M_BUSY" "$M_KNOT" "$M_PERF" "$M_OTHER" "$other_fixed" >>"$TSV"
  # Cold must miss every time, the cached workloads never (a wrapped-around
  # cold file still misses: 390,000 other answers came in between).
  case $workload in
    cold) awk -v a="$up_fixed" -v b="$M_UP" 'BEGIN { exit !(a < 0.98 || b < 0.98) }' &&
      echo "  warning: $proxy answered cold questions without asking upstream ($up_fixed, $M_UP per query)" >&2 ;;
    hot | nxdomain | override) awk -v a="$up_fixed" -v b="$M_UP" 'BEGIN { exit !(a > 0.01 || b > 0.01) }' &&
      echo "  warning: $proxy asked upstream in the $workload workload ($up_fixed, $M_UP per query)" >&2 ;;
  esac
  return 0
}

declare -A VERSION
for proxy in echo $PROXIES; do VERSION[$proxy]=$("version_$proxy"); done
if [ "$ECHO" = 1 ]; then bench echo any; fi
for proxy in $PROXIES; do
  for workload in $WORKLOADS; do bench "$proxy" "$workload"; done
done

# --- summary -----------------------------------------------------------------------
machine=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)
{
  echo "# dnsward benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "Machine: $(nproc) CPUs, $machine; kernel $(uname -r). Server on CPU $PROXY_CPU, dnsperf and Knot on CPU $LOAD_CPU."
  echo "Command: DURATION=$DURATION QPS=$QPS PROXIES=\"$PROXIES\" WORKLOADS=\"$WORKLOADS\" NICE=$NICE bash Tests/Benchmarks/bench.sh"
  echo "(max run: dnsperf -c $MAX_CLIENTS -q $MAX_OUTSTANDING; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg);"
  echo "$((NOISE_RETRIES - RETRIES_LEFT)) measurements repeated because other work took more than $NOISE_LIMIT% of the server's CPU)."
  [ -n "$knot_line" ] && echo "Upstream: $knot_line."
  echo
  echo "| proxy | workload | CPU µs/query @$QPS qps | CPU µs/query @max | max qps | CPU % @max: server / Knot / dnsperf / others on the server's CPU | p50 µs @$QPS | p99 µs @$QPS | lost @$QPS / @max | peak RSS kB | upstream queries per answer |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s / %s / %s / %s | %s | %s | %s / %s | %s | %s |\n", $2, $3, $4, $5, $6, $17, $18, $19, $20, $7, $8, $9, $10, $13, $14 }' "$TSV"
} >"$RESULTS_DIR/results.md"

# Ratios: dnsward / anchor, per workload (CPU, latency, RSS: lower is
# better for dnsward below 1; max qps: higher is better above 1). The echo
# responder answers every workload alike, so its one row is the anchor for all.
ratio_table() {
  awk -F'\t' -v anchors="$ANCHORS" '
    NR == 1 { next }
    { key = $1 SUBSEP $3; cpuf[key] = $4; cpum[key] = $5; qps[key] = $6; p50[key] = $7; p99[key] = $8; rss[key] = $13
      if ($1 == "dnsward") order[++n] = $3 }
    function r(a, b) { return (a + 0 > 0 && b + 0 > 0 && a != "-" && b != "-") ? sprintf("%.2f", a / b) : "-" }
    END {
      if (n == 0) exit
      printf "%-9s %-8s %9s %9s %8s %7s %7s %7s\n", "workload", "vs", "cpu@fix", "cpu@max", "max-qps", "p50", "p99", "rss"
      na = split(anchors, a, " ")
      for (i = 1; i <= n; i++) {
        w = order[i]; d = "dnsward" SUBSEP w
        for (j = 1; j <= na; j++) {
          k = a[j] SUBSEP (a[j] == "echo" ? "any" : w)
          if (!(k in cpuf)) continue
          printf "%-9s %-8s %9s %9s %8s %7s %7s %7s\n", w, a[j], r(cpuf[d], cpuf[k]), r(cpum[d], cpum[k]),
            r(qps[d], qps[k]), r(p50[d], p50[k]), r(p99[d], p99[k]), r(rss[d], rss[k])
        }
      }
    }' "$TSV"
}
ratios=$(ratio_table)
if [ -n "$ratios" ]; then
  echo
  echo "dnsward / anchor (below 1 is better for dnsward, except max-qps):"
  echo "$ratios"
  {
    echo
    echo "dnsward / anchor (below 1 is better for dnsward, except max qps):"
    echo
    echo '```'
    echo "$ratios"
    echo '```'
  } >>"$RESULTS_DIR/results.md"
fi

# Was the upstream fast enough? How busy Knot was while each proxy forwarded
# as fast as it could (cold, max run), and how busy dnsperf, which shares
# its CPU, was.
if grep -q '	cold	' "$TSV"; then
  echo
  awk -F'\t' 'NR > 1 && $3 == "cold" && $6 > 0 {
      printf "upstream check: %s forwarded %d qps using %d%% of its CPU (others took %d%%); Knot used %d%% of a core, dnsperf %d%%%s\n",
        $1, $6, $17, $20, $18, $19, ($18 > 70 ? " -- Knot may have limited this run" : ($18 + $19 > 90 && $17 < 90 ? " -- their shared CPU limited this run" : "")) }' "$TSV" >"$WORK/checks"
  cat "$WORK/checks"
  { echo; sed 's/^/- /' "$WORK/checks"; } >>"$RESULTS_DIR/results.md"
fi
echo
echo "results: $TSV"
echo "         $RESULTS_DIR/results.md (Markdown for Tests/Benchmarks/README.md)"
echo "logs:    $LOGS"
