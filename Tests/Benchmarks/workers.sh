#!/usr/bin/env bash
# Scaling with `workers N`: the same hot (cache-hit) load against dnsward
# with 1 and then 2 worker processes, unpinned, dnsperf with 16 client
# sockets so the kernel's SO_REUSEPORT hash spreads them. Prints answered
# qps and the CPU of all dnsward processes per answered query.
#
#   bash Tests/Benchmarks/workers.sh               # 10 s per run
#   DNSWARD_BIN=/tmp/fw/dnsward.stripped bash Tests/Benchmarks/workers.sh
#
# On a 2-core machine dnsperf needs a core of its own, so two workers can
# only show whether the second process costs anything and how the kernel
# spreads clients; real scaling needs a board with cores to spare. Only
# 127.0.0.1 is used. Needs dnsperf and knot.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench/common.sh"
DURATION=${DURATION:-10}
DNSWARD_BIN=$(release_dnsward /tmp/workers-build)
work_dir
knot_upstream 29300
printf 'www.example.test A\nwww.example.test AAAA\nalias.example.test A\nns.example.test A\n' \
  >"$WORK/hot.txt"

printf '%-8s %10s %12s\n' workers qps "cpu-us/q"
for workers in 1 2; do
  cat >"$WORK/dnsward.conf" <<CONF
listen 127.0.0.1:$PROXY
upstream udp 127.0.0.1:$UPSTREAM
workers $workers
log warning
CONF
  "$DNSWARD_BIN" --config "$WORK/dnsward.conf" >"$WORK/dnsward-$workers.log" 2>&1 &
  PROXY_PID=$!
  track "$PROXY_PID"
  sleep 1
  pids=("$PROXY_PID" $(pgrep -P "$PROXY_PID" || true))
  dnsperf -s 127.0.0.1 -p "$PROXY" -d "$WORK/hot.txt" -n 2 -c 16 >/dev/null 2>&1
  before=$(cpu_ticks "${pids[@]}")
  out=$(dnsperf -s 127.0.0.1 -p "$PROXY" -d "$WORK/hot.txt" -l "$DURATION" -c 16 -q 200 2>&1)
  after=$(cpu_ticks "${pids[@]}")
  completed=$(echo "$out" | awk '/Queries completed/ {print $3}')
  qps=$(echo "$out" | awk '/Queries per second/ {printf "%.0f", $4}')
  printf '%-8s %10s %12s\n' "$workers" "$qps" "$(cpu_us_per_query $((after - before)) "$completed")"
  stop_process "$PROXY_PID"
done
