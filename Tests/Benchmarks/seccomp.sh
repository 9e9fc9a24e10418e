#!/usr/bin/env bash
# What `seccomp on` costs: the same dnsward binary with the filter off and
# on, alternating run by run, under a hot load (one override name: receive,
# answer, send) and a cold one (every name forwarded to a UDP echo upstream,
# cache off: a connect, send, receive and disconnect per query, so the
# filter runs on about six calls per answer). Prints CPU microseconds per
# answered query (utime+stime from /proc/PID/stat) and qps per run, then
# the medians.
#
#   bash Tests/Benchmarks/seccomp.sh                   # SwiftPM release build
#   DNSWARD_BIN=/tmp/fw/dnsward.stripped ROUNDS=5 bash Tests/Benchmarks/seccomp.sh
#
# Needs dnsperf and a C compiler. Only 127.0.0.1 is used. Not a test.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench/common.sh"
DURATION=${DURATION:-8}
ROUNDS=${ROUNDS:-3}

need dnsperf
DNSWARD_BIN=$(release_dnsward)
work_dir

cc -O2 -o "$WORK/echo" "$ROOT/Tests/Benchmarks/bench/echo.c"
UPSTREAM=$(free_port 27600)
PROXY=$(free_port $((UPSTREAM + 1)))
"$WORK/echo" "$UPSTREAM" &
track $!
for i in $(seq 1 20000); do echo "n$i.bench.test A"; done >"$WORK/cold.txt"
echo "local.test A" >"$WORK/hot.txt"

# One run: prints "QPS CPU-µs-per-query".
run() {
  local filter=$1 load=$2
  printf 'listen 127.0.0.1:%s\nupstream udp 127.0.0.1:%s\ncache 0\noverride local.test 192.0.2.1\nseccomp %s\n' \
    "$PROXY" "$UPSTREAM" "$filter" >"$WORK/dnsward.conf"
  "$DNSWARD_BIN" --config "$WORK/dnsward.conf" >"$WORK/dnsward.log" 2>&1 &
  local pid=$!
  track "$pid"
  sleep 0.5
  if [ "$filter" = on ] && ! grep -q 'filter installed' "$WORK/dnsward.log"; then
    cat "$WORK/dnsward.log" >&2
    fail "the filter was not installed"
  fi
  local before after
  before=$(cpu_ticks "$pid")
  dnsperf -s 127.0.0.1 -p "$PROXY" -d "$WORK/$load.txt" -l "$DURATION" -c 4 -q 200 \
    >"$WORK/dnsperf.log" 2>&1
  after=$(cpu_ticks "$pid")
  stop_process "$pid"
  printf '%.0f %s\n' "$(dnsperf_field "$WORK/dnsperf.log" "Queries per second")" \
    "$(cpu_us_per_query $((after - before)) "$(dnsperf_field "$WORK/dnsperf.log" "Queries completed")")"
}

printf '%-5s %-7s %6s %10s %12s\n' load seccomp round qps 'CPU µs/q'
for load in hot cold; do
  for filter in off on; do : >"$WORK/$load-$filter.cpu"; done
  for round in $(seq 1 "$ROUNDS"); do
    for filter in off on; do
      read -r qps cpu < <(run "$filter" "$load")
      printf '%-5s %-7s %6s %10s %12s\n' "$load" "$filter" "$round" "$qps" "$cpu"
      echo "$cpu" >>"$WORK/$load-$filter.cpu"
    done
  done
done
echo "medians, CPU µs per answered query:"
for load in hot cold; do
  off=$(median <"$WORK/$load-off.cpu")
  on=$(median <"$WORK/$load-on.cpu")
  printf '  %-5s off %6s  on %6s  on/off %s\n' "$load" "$off" "$on" "$(ratio "$on" "$off")"
done
