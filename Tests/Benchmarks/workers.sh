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
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DURATION=${DURATION:-10}
if [ -z "${DNSWARD_BIN:-}" ]; then
  swift build -c release --package-path "$ROOT" --product dnsward \
    --scratch-path /tmp/workers-build >/dev/null
  DNSWARD_BIN=$(swift build -c release --package-path "$ROOT" --show-bin-path \
    --scratch-path /tmp/workers-build)/dnsward
fi
scratch_with_cleanup
UPSTREAM=$(free_port 29300)
PROXY=$(free_port $((UPSTREAM + 1)))
start_knot "$UPSTREAM"
printf 'www.example.test A\nwww.example.test AAAA\nalias.example.test A\nns.example.test A\n' \
  >"$WORK/hot.txt"

# cpu_ticks PID...: utime+stime of the processes, summed.
cpu_ticks() { for pid in "$@"; do awk '{print $14 + $15}' "/proc/$pid/stat"; done |
  awk '{s += $1} END {print s}'; }
ticks=$(getconf CLK_TCK)

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
  sleep 1
  pids=("$PROXY_PID" $(pgrep -P "$PROXY_PID" || true))
  dnsperf -s 127.0.0.1 -p "$PROXY" -d "$WORK/hot.txt" -n 2 -c 16 >/dev/null 2>&1
  before=$(cpu_ticks "${pids[@]}")
  out=$(dnsperf -s 127.0.0.1 -p "$PROXY" -d "$WORK/hot.txt" -l "$DURATION" -c 16 -q 200 2>&1)
  after=$(cpu_ticks "${pids[@]}")
  completed=$(echo "$out" | awk '/Queries completed/ {print $3}')
  qps=$(echo "$out" | awk '/Queries per second/ {printf "%.0f", $4}')
  printf '%-8s %10s %12s\n' "$workers" "$qps" "$(awk -v t=$((after - before)) -v hz="$ticks" \
    -v n="$completed" 'BEGIN { printf "%.2f", (n > 0 ? t / hz * 1e6 / n : 0) }')"
  kill "$PROXY_PID"
  wait "$PROXY_PID" 2>/dev/null || true
  PROXY_PID=
done
