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
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DURATION=${DURATION:-8}
ROUNDS=${ROUNDS:-3}

command -v dnsperf >/dev/null || { echo "missing dnsperf" >&2; exit 1; }
DNSWARD_BIN=$(release_dnsward)

WORK=$(mktemp -d)
ECHO_PID=
cleanup() {
  [ -n "$ECHO_PID" ] && kill "$ECHO_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

cc -O2 -o "$WORK/echo" "$ROOT/Tests/Benchmarks/bench/echo.c"
UPSTREAM=$(free_port 27600)
PROXY=$(free_port $((UPSTREAM + 1)))
"$WORK/echo" "$UPSTREAM" &
ECHO_PID=$!
for i in $(seq 1 20000); do echo "n$i.bench.test A"; done >"$WORK/cold.txt"
echo "local.test A" >"$WORK/hot.txt"

# One run: prints "QPS CPU-µs-per-query".
run() {
  local filter=$1 load=$2
  printf 'listen 127.0.0.1:%s\nupstream udp 127.0.0.1:%s\ncache 0\noverride local.test 192.0.2.1\nseccomp %s\n' \
    "$PROXY" "$UPSTREAM" "$filter" >"$WORK/dnsward.conf"
  "$DNSWARD_BIN" --config "$WORK/dnsward.conf" >"$WORK/dnsward.log" 2>&1 &
  local pid=$!
  sleep 0.5
  if [ "$filter" = on ] && ! grep -q 'filter installed' "$WORK/dnsward.log"; then
    cat "$WORK/dnsward.log" >&2
    echo "seccomp.sh: the filter was not installed" >&2
    exit 1
  fi
  local before after
  before=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  dnsperf -s 127.0.0.1 -p "$PROXY" -d "$WORK/$load.txt" -l "$DURATION" -c 4 -q 200 \
    >"$WORK/dnsperf.log" 2>&1
  after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  local ticks
  ticks=$(getconf CLK_TCK)
  awk -v used=$((after - before)) -v hz="$ticks" '
    /Queries completed/ { done = $3 }
    /Queries per second/ { qps = $4 }
    END { printf "%.0f %.2f\n", qps, used * 1e6 / hz / done }' "$WORK/dnsperf.log"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

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
  printf '  %-5s off %6s  on %6s  on/off %s\n' "$load" "$off" "$on" \
    "$(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.2f", a / b }')"
done
