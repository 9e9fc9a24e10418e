#!/usr/bin/env bash
# What DNSSEC validation costs: CPU per validated cache miss and per
# validated cache hit, dnsward with `dnssec on` next to the same binary with
# `dnssec off`, unbound's validator and dnsmasq --dnssec, in front of one
# Knot DNS that signs the zone itself. Not a test, and not in .ci/run: it
# prints figures for Tests/Benchmarks/README.md.
#
#   bash Tests/Benchmarks/dnssec.sh                     # about 2 minutes
#   DNSWARD_BIN=/tmp/dnssec-fw/dnsward.stripped bash Tests/Benchmarks/dnssec.sh
#   ALGORITHM=8 PROXIES="dnsward-on unbound" WORKLOADS="hot miss" bash Tests/Benchmarks/dnssec.sh
#
# The binary (default): the DNSSEC release firmware for the host, built
# first into $FIRMWARE_DIR (default /tmp/dnssec-bench-fw) with
#   cmake -S Board -B DIR -G Ninja -DDNSWARD_TARGET=host -DDNSWARD_DNSSEC=ON
# and run with --config; DNSWARD_BIN takes any other (the SwiftPM release
# build validates too).
#
# Upstream: knotd signing signed.test (`start_signed_knot` in .ci/lib.sh:
# one key, ALGORITHM 13 = ECDSA P-256 by default or 8 = RSA/SHA-256 2048
# bits, NSEC) with NAMES names n0... (A), signed at start-up (about 5 s for
# 60,000 names with algorithm 13, longer with 8), and Knot's mod-stats to
# count the queries it answers. Every validator's only trust anchor is the
# zone's DS, and only validated answers count: before each measurement dig
# must get AD=1 from the three validating proxies (and not from
# dnsward-off), or the script stops.
#
# Proxies (each started afresh for each measurement, 10,000 cache entries):
#   dnsward-on   `dnssec on`, `dnssec-root off`, `trust-anchor DS`
#   dnsward-off  the same binary and config with `dnssec off`: it asks
#                upstream without DO, so its answers carry no RRSIG
#   unbound      module-config "validator iterator", the DS as
#                trust-anchor, forward-zone to Knot, one thread;
#                aggressive-nsec off (RFC 8198 would answer the nxdomain
#                names from one cached NSEC without asking: not a miss)
#   dnsmasq      --dnssec with the DS as --trust-anchor
# Workloads (dnsperf from DO=0 clients unless said otherwise):
#   hot        1,000 names, warmed: validated cache hits (the stripping path
#              for dnsward: the RRSIGs stay in the cache, the DO=0 client
#              gets none)
#   hot-do     the same from DO=1 clients (AD=1, RRSIGs kept)
#   miss       NAMES - 3,000 names in order, none asked before: each one
#              forwarded and validated (one ECDSA or RSA verification; the
#              zone's DNSKEY is cached after the first, fetched again when
#              the cache evicted it)
#   nxdomain   distinct names that do not exist, in order: each forwarded,
#              its NXDOMAIN proved by two NSECs (two verifications)
# Before the run the cache is filled with FILL (2,000) other names, then the
# workload's own set for hot. CPU per answered query is the proxy's
# utime+stime from /proc/PID/stat over the run divided by the answers
# dnsperf counted; the proxy runs alone on CPU $PROXY_CPU (taskset), dnsperf
# and Knot on $LOAD_CPU; dnsperf is unthrottled (MAX_CLIENTS sockets,
# MAX_OUTSTANDING in flight) for DURATION seconds, so the figure is the work
# per query at saturation. upstr/q: Knot's answered queries per answer
# (about 1 for a miss, 0 for a hit; a warning otherwise). RSS: VmHWM.
#
# Environment:
#   DURATION=5 NAMES=60000 FILL=2000 ALGORITHM=13
#   DNSKEY_TTL=          the zone's DNSKEY TTL in seconds (Knot's default:
#                        the SOA's, 3600); DNSKEY_TTL=10 DURATION=30
#                        WORKLOADS=miss has the keys expire during a run
#   ROUNDS=1             measure everything that many times, in turn (each
#                        round every workload, each workload every proxy);
#                        the summary gives the median of each (the
#                        on/off ratio of a hot workload moves by 15% between
#                        single runs on a shared machine: ROUNDS=7 with
#                        PROXIES="dnsward-on dnsward-off" WORKLOADS="hot hot-do"
#                        settles it in about 4 minutes)
#   PROXIES="dnsward-on dnsward-off unbound dnsmasq"
#   WORKLOADS="hot hot-do miss nxdomain"
#   MAX_CLIENTS=4 MAX_OUTSTANDING=100 PROXY_CPU=0 LOAD_CPU=1
#   DNSWARD_BIN, FIRMWARE_DIR   see above
#   RESULTS_DIR=/tmp/dnsward-dnssec-DATE   results.tsv, results.md, logs
#
# Needs dnsperf, knot (knotd, knotc, keymgr), unbound, dnsmasq, dig, cmake
# and ninja (or DNSWARD_BIN), taskset. Only 127.0.0.1 is used.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench/common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/bench/validating-proxies.sh"

DURATION=${DURATION:-5}
NAMES=${NAMES:-60000}
FILL=${FILL:-2000}
ALGORITHM=${ALGORITHM:-13}
PROXIES=${PROXIES:-dnsward-on dnsward-off unbound dnsmasq}
WORKLOADS=${WORKLOADS:-hot hot-do miss nxdomain}
MAX_CLIENTS=${MAX_CLIENTS:-4}
MAX_OUTSTANDING=${MAX_OUTSTANDING:-100}
PROXY_CPU=${PROXY_CPU:-0}
LOAD_CPU=${LOAD_CPU:-1}
RESULTS_DIR=${RESULTS_DIR:-/tmp/dnsward-dnssec-$(date +%Y%m%d-%H%M%S)}
ROUNDS=${ROUNDS:-1}
HOT=1000

need dnsperf knotd knotc keymgr dig taskset awk
need_proxies $PROXIES
for workload in $WORKLOADS; do
  case $workload in
    hot | hot-do | miss | nxdomain) ;;
    *) fail "unknown workload $workload (hot hot-do miss nxdomain)" ;;
  esac
done
[ "$NAMES" -ge $((HOT + FILL + 1000)) ] || fail "NAMES must be at least $((HOT + FILL + 1000))"

[[ " $PROXIES " != *" dnsward-"* ]] || build_dnssec_firmware

mkdir -p "$RESULTS_DIR/logs"
LOGS=$RESULTS_DIR/logs
work_dir dnssec-work
SERVER_PID=
# Interrupted, the script still ends its servers (the EXIT trap).
trap 'exit 130' INT TERM

# --- the signed zone -----------------------------------------------------------
# n0..n999 the hot set, n1000..n(1000+FILL-1) the fill, the rest the misses.
start_signed_zone "$NAMES" "$ALGORITHM" "${DNSKEY_TTL:-}"

# --- query files ------------------------------------------------------------------
awk -v hot="$HOT" 'BEGIN { for (i = 0; i < hot; i++) printf "n%d.signed.test A\n", i }' >"$WORK/hot.txt"
cp "$WORK/hot.txt" "$WORK/hot-do.txt"
awk -v hot="$HOT" -v fill="$FILL" 'BEGIN { for (i = hot; i < hot + fill; i++) printf "n%d.signed.test A\n", i }' \
  >"$WORK/fill.txt"
awk -v first=$((HOT + FILL)) -v n="$NAMES" 'BEGIN { for (i = first; i < n; i++) printf "n%d.signed.test A\n", i }' \
  >"$WORK/miss.txt"
# Names that sort after every n... name: one NSEC (the last name's, to the
# apex) covers them all, which is what aggressive NSEC would use.
awk -v n="$NAMES" 'BEGIN { for (i = 0; i < n; i++) printf "x%d.signed.test A\n", i }' >"$WORK/nxdomain.txt"

# ask FILE [ARGS]: every question once.
ask() {
  run_dnsperf "$WORK/warm.dnsperf" -p "$PROXY_PORT" -d "$1" -n 1 -c 2 -q 50 -t 3 "${@:2}"
  [ "$(dnsperf_field "$WORK/warm.dnsperf" "Queries lost")" = 0 ] ||
    echo "  warning: warm-up with $(basename "$1") lost $(dnsperf_field "$WORK/warm.dnsperf" "Queries lost") queries" >&2
}

# measure PROXY WORKLOAD: one fresh proxy, filled, one unthrottled run.
# Sets M_CPU, M_DONE, M_LOST, M_QPS, M_RSS, M_UP, M_RCODES, M_BUSY.
measure() {
  local proxy=$1 workload=$2 out before after up_before up_after flags=()
  out=$LOGS/$proxy-$workload-$round.dnsperf
  [ "$workload" = hot-do ] && flags=(-D)
  start_proxy "$proxy"
  ask "$WORK/fill.txt"
  if [[ $workload == hot* ]]; then
    ask "$WORK/hot.txt" "${flags[@]}"
    ask "$WORK/hot.txt" "${flags[@]}"
  fi
  up_before=$(knot_queries "$SIGNED_KNOT_DIR/knot.sock")
  before=$(cpu_ticks "$SERVER_PID")
  run_dnsperf "$out" -p "$PROXY_PORT" -d "$WORK/$workload.txt" -l "$DURATION" -c "$MAX_CLIENTS" -q "$MAX_OUTSTANDING" -t 3 \
    "${flags[@]}"
  after=$(cpu_ticks "$SERVER_PID")
  up_after=$(knot_queries "$SIGNED_KNOT_DIR/knot.sock")
  M_RSS=$(peak_kb "$SERVER_PID")
  # A SERVFAIL of dnsward-on's is its pending pool full (answers waiting
  # for a DNSKEY or DS being fetched), or a failed validation: said so.
  if [ "$proxy" = dnsward-on ]; then
    "$DNSWARD_BIN" stats "127.0.0.1:$PROXY_PORT" 2>/dev/null | awk -v what="$proxy $workload" '
      { v[$1] = $2 } END {
        printf "  %s: %d chain fetches, %d refreshes, %d dnssecPendingFull\n", what,
          v["dnssecFetches"], v["refreshes"], v["dnssecPendingFull"] > "/dev/stderr"
        if (v["dnssecPendingFull"] + v["dnssecBogus"] > 0)
          printf "  warning: %s: %d SERVFAIL with the pending pool full (dnssecPendingFull), %d bogus; %d chain fetches\n",
            what, v["dnssecPendingFull"], v["dnssecBogus"], v["dnssecFetches"] > "/dev/stderr" }'
  fi
  stop_server
  dnsperf_figures "$out" $((after - before)) $((up_after - up_before))
  # A fast proxy can get through the miss names and start again at the
  # top: still misses, as tens of thousands of answers went through its
  # 10,000 entries since; upstr/q is what says so.
  case $workload in
    miss | nxdomain)
      awk -v u="$M_UP" 'BEGIN { exit !(u < 0.95) }' &&
        echo "  warning: $proxy $workload: $M_UP upstream queries per answer: not every answer was a miss" >&2
      ;;
    hot*)
      awk -v u="$M_UP" 'BEGIN { exit !(u > 0.01) }' &&
        echo "  warning: $proxy $workload: $M_UP upstream queries per answer: not all cache hits" >&2
      ;;
  esac
  return 0
}

# --- the runs ---------------------------------------------------------------------------
TSV=$RESULTS_DIR/results.tsv
printf 'round\tproxy\tworkload\tcpu_us_per_q\tqps\tanswered\tlost\tupstream_per_q\tpeak_rss_kb\tproxy_busy_pct\trcodes\n' >"$TSV"
ROW='%-5s %-12s %-9s %9s %8s %9s %6s %8s %8s %6s  %s\n'
# shellcheck disable=SC2059
printf "$ROW" round proxy workload "cpu-us/q" qps answered lost upstr/q rss-kB busy% rcodes
for round in $(seq 1 "$ROUNDS"); do
  for workload in $WORKLOADS; do
    for proxy in $PROXIES; do
      measure "$proxy" "$workload"
      # shellcheck disable=SC2059
      printf "$ROW" "$round" "$proxy" "$workload" "$M_CPU" "$M_QPS" "$M_DONE" "$M_LOST" "$M_UP" "$M_RSS" "$M_BUSY" \
        "$M_RCODES"
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$proxy" "$workload" "$M_CPU" "$M_QPS" \
        "$M_DONE" "$M_LOST" "$M_UP" "$M_RSS" "$M_BUSY" "$M_RCODES" >>"$TSV"
    done
  done
done

# --- summary: one row per proxy, one column per workload ---------------------------------
machine=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)
summary() {
  awk -F'\t' -v workloads="$WORKLOADS" -v proxies="$PROXIES" '
    NR > 1 { n[$2, $3]++; v[$2, $3, n[$2, $3]] = $4; rss[$2] = (rss[$2] > $9 ? rss[$2] : $9) }
    function median(key,   i, j, k, t, a) {
      k = n[key]
      for (i = 1; i <= k; i++) a[i] = v[key, i] + 0
      for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
    }
    END {
      for (key in n) cpu[key] = sprintf("%.2f", median(key))
      nw = split(workloads, w, " "); np = split(proxies, p, " ")
      printf "| proxy |"; for (j = 1; j <= nw; j++) printf " %s |", w[j]; print " peak RSS kB |"
      printf "| --- |"; for (j = 1; j <= nw; j++) printf " ---: |"; print " ---: |"
      for (i = 1; i <= np; i++) {
        printf "| %s |", p[i]
        for (j = 1; j <= nw; j++) printf " %s |", ((p[i], w[j]) in cpu ? cpu[p[i], w[j]] : "-")
        printf " %s |\n", rss[p[i]]
      }
      for (j = 1; j <= nw; j++) {
        on = cpu["dnsward-on", w[j]]; off = cpu["dnsward-off", w[j]]
        if (on > 0 && off > 0) printf "\ndnsward-on / dnsward-off, %s: %.2f", w[j], on / off
      }
      print ""
    }' "$TSV"
}
{
  echo "# DNSSEC validation cost, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "Machine: $(nproc) CPUs, $machine; kernel $(uname -r); load average at the end $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "Command: DURATION=$DURATION NAMES=$NAMES ALGORITHM=$ALGORITHM PROXIES=\"$PROXIES\" WORKLOADS=\"$WORKLOADS\" bash Tests/Benchmarks/dnssec.sh"
  for proxy in $PROXIES; do echo "- $proxy: $(version "$proxy")"; done
  echo
  echo "CPU µs per answered query (proxy on CPU $PROXY_CPU, dnsperf -c $MAX_CLIENTS -q $MAX_OUTSTANDING unthrottled for $DURATION s;"
  echo "the median of $ROUNDS round(s)):"
  echo
  summary
} >"$RESULTS_DIR/results.md"
echo
sed -n '/^CPU/,$p' "$RESULTS_DIR/results.md"
echo
echo "results: $TSV"
echo "         $RESULTS_DIR/results.md"
echo "logs:    $LOGS"
