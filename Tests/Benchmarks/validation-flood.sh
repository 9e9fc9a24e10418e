#!/usr/bin/env bash
# Whether a validation flood holds back other clients' cached answers: one
# client asks names of a signed zone that no proxy has seen (each answer
# needs a signature verification) as fast as the proxy answers, while
# another client asks cached names every 20 ms and times each answer.
# dnsward with `dnssec on` side by side with unbound's validator, in front
# of one Knot DNS that signs the zone itself. Not a test, and not in
# .ci/run: it prints figures for Tests/Benchmarks/README.md.
#
#   bash Tests/Benchmarks/validation-flood.sh             # about 3 minutes
#   DNSWARD_BIN=/tmp/dnssec-bench-fw/dnsward.stripped ROUNDS=3 bash Tests/Benchmarks/validation-flood.sh
#
# The zone, the proxies and the binary are dnssec.sh's
# (bench/validating-proxies.sh): knotd signs NAMES names with ALGORITHM
# (13, ECDSA P-256, by default), each proxy's only trust anchor is the
# zone's DS, and each must answer with AD=1 before it is measured.
#
# For each proxy, started afresh: the CACHED names n0...n(CACHED-1) are
# asked twice (cached and validated; few enough that the flood's new
# answers do not push them out of a 10,000-entry cache between two
# visits), then
#   idle    the paced client alone for PROBE_SECONDS: its latency floor;
#   flood   dnsperf from FLOOD_SOURCE (127.0.0.1) asks never-asked names
#           n(CACHED)... in order, unthrottled (MAX_CLIENTS sockets,
#           MAX_OUTSTANDING in flight) for DURATION seconds; one second in,
#           the paced client (`probe.py paced`, from PROBE_SOURCE,
#           127.0.0.2) asks the cached names for PROBE_SECONDS;
#   misses  the same flood again (its first names were pushed out of the
#           cache by the later ones: misses again), while the
#           paced client asks names of its own that nobody asked, from the
#           end of the zone: each of its answers needs a verification too,
#           and waits behind the flood's unless the proxy puts the
#           flooding client's work after the others'.
# The paced client prints its answered and lost questions (no answer in
# 1 s) and the p50, p99 and largest latency; the flood line has dnsperf's
# answers a second, losses and rcodes, and the proxy's CPU busy percent.
# The proxy and the paced client run on CPU $PROXY_CPU (the client wakes
# every 20 ms for a few microseconds), dnsperf and Knot on $LOAD_CPU.
#
# Environment:
#   DURATION=10 PROBE_SECONDS=8 CACHED=10 NAMES=150000 ALGORITHM=13 ROUNDS=1
#   PROXIES="dnsward-on unbound" MAX_CLIENTS=4 MAX_OUTSTANDING=100
#   PROXY_CPU=0 LOAD_CPU=1 FLOOD_SOURCE=127.0.0.1 PROBE_SOURCE=127.0.0.2
#   DNSWARD_BIN, FIRMWARE_DIR   as in dnssec.sh
#   RESULTS_DIR=/tmp/dnsward-flood-DATE   results.tsv, logs
#
# Needs dnsperf, knot (knotd, knotc, keymgr), unbound, dig, python3, cmake
# and ninja (or DNSWARD_BIN), taskset. Only 127.0.0.1 and 127.0.0.2 are used.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench/common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/bench/validating-proxies.sh"

DURATION=${DURATION:-10}
PROBE_SECONDS=${PROBE_SECONDS:-8}
NAMES=${NAMES:-150000}
ALGORITHM=${ALGORITHM:-13}
ROUNDS=${ROUNDS:-1}
PROXIES=${PROXIES:-dnsward-on unbound}
MAX_CLIENTS=${MAX_CLIENTS:-4}
MAX_OUTSTANDING=${MAX_OUTSTANDING:-100}
PROXY_CPU=${PROXY_CPU:-0}
LOAD_CPU=${LOAD_CPU:-1}
FLOOD_SOURCE=${FLOOD_SOURCE:-127.0.0.1}
PROBE_SOURCE=${PROBE_SOURCE:-127.0.0.2}
RESULTS_DIR=${RESULTS_DIR:-/tmp/dnsward-flood-$(date +%Y%m%d-%H%M%S)}
CACHED=${CACHED:-10}

need dnsperf knotd knotc keymgr dig taskset awk python3
need_proxies $PROXIES
[ "$PROBE_SECONDS" -le $((DURATION - 2)) ] || fail "PROBE_SECONDS must end a second before the flood does"
[[ " $PROXIES " != *" dnsward-"* ]] || build_dnssec_firmware

mkdir -p "$RESULTS_DIR/logs"
LOGS=$RESULTS_DIR/logs
work_dir flood-work
SERVER_PID=
trap 'exit 130' INT TERM
PROBE="python3 $ROOT/Tests/Benchmarks/bench/probe.py"

start_signed_zone "$NAMES" "$ALGORITHM"
awk -v n="$CACHED" 'BEGIN { for (i = 0; i < n; i++) printf "n%d.signed.test A\n", i }' >"$WORK/cached.txt"
# The paced client's misses: the last MISSES names (one each 20 ms for
# PROBE_SECONDS, in each round), which the flood does not reach.
MISSES=$((PROBE_SECONDS * 50 * ROUNDS))
awk -v first="$CACHED" -v n=$((NAMES - MISSES)) 'BEGIN { for (i = first; i < n; i++) printf "n%d.signed.test A\n", i }' \
  >"$WORK/flood.txt"
awk -v first=$((NAMES - MISSES)) -v n="$NAMES" 'BEGIN { for (i = first; i < n; i++) printf "n%d.signed.test A\n", i }' \
  >"$WORK/misses.txt"

# paced OUT NAMES: the paced client on the proxy's CPU for PROBE_SECONDS.
paced() {
  taskset -c "$PROXY_CPU" $PROBE paced "$PROXY_PORT" "$2" "$PROBE_SECONDS" "$PROBE_SOURCE" >"$1"
}
# flood_with_paced OUT NAMES: the flood for DURATION seconds, the paced
# client asking NAMES from one second in; sets the M_ figures (dnsperf's,
# the proxy's CPU).
flood_with_paced() {
  local out=$1 before after flood
  before=$(cpu_ticks "$SERVER_PID")
  run_dnsperf "$out.dnsperf" -p "$PROXY_PORT" -a "$FLOOD_SOURCE" -d "$WORK/flood.txt" -l "$DURATION" \
    -c "$MAX_CLIENTS" -q "$MAX_OUTSTANDING" -t 3 &
  flood=$!
  sleep 1
  paced "$out.paced" "$2"
  wait "$flood"
  after=$(cpu_ticks "$SERVER_PID")
  dnsperf_figures "$out.dnsperf" $((after - before)) 0
}
# field OUT NAME: the figure after NAME in the paced client's line.
field() { awk -v key="$2" '{ for (i = 1; i < NF; i++) if ($i == key) print $(i + 1) }' "$1"; }

TSV=$RESULTS_DIR/results.tsv
printf 'round\tproxy\tphase\tsent\tanswered\tlost\tp50_ms\tp99_ms\tmax_ms\tflood_qps\tflood_lost\tflood_rcodes\tbusy_pct\n' >"$TSV"
ROW='%-5s %-11s %-6s %5s %8s %4s %7s %7s %7s %9s %9s %5s  %s\n'
# shellcheck disable=SC2059
printf "$ROW" round proxy phase sent answered lost p50-ms p99-ms max-ms flood-q/s flood-lost busy% flood-rcodes
for round in $(seq 1 "$ROUNDS"); do
  for proxy in $PROXIES; do
    start_proxy "$proxy"
    for _ in 1 2; do
      run_dnsperf "$WORK/warm.dnsperf" -p "$PROXY_PORT" -d "$WORK/cached.txt" -n 1 -c 2 -q 50 -t 3
    done
    paced "$LOGS/$proxy-idle-$round.paced" "$WORK/cached.txt"
    flood_with_paced "$LOGS/$proxy-flood-$round" "$WORK/cached.txt"
    flood_figures=("$M_QPS" "$M_LOST" "$M_BUSY" "$M_RCODES")
    # Each round's own misses: the names after the previous rounds'.
    sed -n "$(((round - 1) * PROBE_SECONDS * 50 + 1)),\$p" "$WORK/misses.txt" >"$WORK/misses-$round.txt"
    flood_with_paced "$LOGS/$proxy-misses-$round" "$WORK/misses-$round.txt"
    misses_figures=("$M_QPS" "$M_LOST" "$M_BUSY" "$M_RCODES")
    if [[ $proxy == dnsward-* ]]; then
      "$DNSWARD_BIN" stats "127.0.0.1:$PROXY_PORT" >"$LOGS/$proxy-$round.stats" 2>&1 || true
    fi
    stop_server
    for phase in idle flood misses; do
      paced_out=$LOGS/$proxy-$phase-$round.paced
      figures=("$(field "$paced_out" sent)" "$(field "$paced_out" answered)" "$(field "$paced_out" lost)"
        "$(field "$paced_out" p50_ms)" "$(field "$paced_out" p99_ms)" "$(field "$paced_out" max_ms)")
      case $phase in
        idle) phase_figures=(- - - -) ;;
        flood) phase_figures=("${flood_figures[@]}") ;;
        misses) phase_figures=("${misses_figures[@]}") ;;
      esac
      # shellcheck disable=SC2059
      printf "$ROW" "$round" "$proxy" "$phase" "${figures[@]}" "${phase_figures[@]}"
      printf '%s\t' "$round" "$proxy" "$phase" "${figures[@]}" "${phase_figures[0]}" "${phase_figures[1]}" \
        "${phase_figures[3]}" >>"$TSV"
      printf '%s\n' "${phase_figures[2]}" >>"$TSV"
    done
  done
done
echo
echo "results: $TSV"
echo "logs:    $LOGS"
