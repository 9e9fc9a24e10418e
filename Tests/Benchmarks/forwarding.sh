#!/usr/bin/env bash
# A first side-by-side measurement of forwarding cost: dnsward (the host
# SwiftPM release build, and the Embedded firmware built for the host with
# Board/CMakeLists.txt when cmake is available) and dnsmasq, both with the
# cache off (this measures forwarding) in front of the same Knot upstream on loopback,
# the same dnsperf load, one after the other. Prints CPU microseconds per
# answered query (utime+stime from /proc/PID/stat), qps, average latency,
# lost queries and peak RSS (VmHWM), and dnsward's ratios.
#
#   bash Tests/Benchmarks/forwarding.sh            # 15 s per run
#   DURATION=30 QPS=5000 bash Tests/Benchmarks/forwarding.sh
#
# Needs dnsperf, dnsmasq-base and knot (apt-get install dnsperf dnsmasq-base
# knot). Only 127.0.0.1 is used. Not a test: numbers go in
# Tests/Benchmarks/README.md.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DURATION=${DURATION:-15}
QPS=${QPS:-4000}
CLIENTS=${CLIENTS:-8}

for tool in dnsperf dnsmasq knotd; do
  command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 1; }
done
swift build -c release --package-path "$ROOT" --product dnsward >/dev/null
DNSWARD=$(swift build -c release --package-path "$ROOT" --show-bin-path)/dnsward

scratch_with_cleanup

UPSTREAM=$(free_port 27300)
PROXY=$(free_port $((UPSTREAM + 1)))
start_knot "$UPSTREAM"

# Workloads: forwarded names (A, AAAA, CNAME chain, NXDOMAIN) and an
# override/local answer.
printf 'www.example.test A\nwww.example.test AAAA\nalias.example.test A\nnope.example.test A\n' \
  >"$WORK/forwarded.txt"
printf 'printer.lan A\n' >"$WORK/local.txt"

ticks=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
peak_kb() { awk '/VmHWM/ {print $2}' "/proc/$1/status"; }

# measure NAME WORKLOAD: runs dnsperf against the proxy in PROXY_PID.
measure() {
  local name=$1 workload=$2 before after out
  sleep 0.5
  before=$(cpu_ticks "$PROXY_PID")
  out=$(dnsperf -s 127.0.0.1 -p "$PROXY" -d "$WORK/$workload.txt" -l "$DURATION" \
    -c "$CLIENTS" -Q "$QPS" 2>&1)
  after=$(cpu_ticks "$PROXY_PID")
  local completed qps latency lost
  completed=$(echo "$out" | awk '/Queries completed/ {print $3}')
  lost=$(echo "$out" | awk '/Queries lost/ {print $3}')
  qps=$(echo "$out" | awk '/Queries per second/ {printf "%.0f", $4}')
  latency=$(echo "$out" | awk '/Average Latency/ {printf "%.0f", $4 * 1e6}')
  local us_per_query
  us_per_query=$(awk -v t=$((after - before)) -v hz="$ticks" -v n="$completed" \
    'BEGIN { printf "%.2f", (n > 0) ? t / hz * 1e6 / n : 0 }')
  printf '%-8s %-10s %8s %8s %10s %6s %8s\n' "$name" "$workload" "$us_per_query" "$qps" \
    "$latency" "$lost" "$(peak_kb "$PROXY_PID")"
  echo "$name $workload $us_per_query" >>"$WORK/results"
}

printf '%-8s %-10s %8s %8s %10s %6s %8s\n' proxy workload "cpu-us/q" qps "avg-us" lost "rss-kB"

cat >"$WORK/dnsward.conf" <<CONF
listen 127.0.0.1:$PROXY
upstream udp 127.0.0.1:$UPSTREAM
override printer.lan 192.168.1.20
cache 0
log warning
CONF
"$DNSWARD" --config "$WORK/dnsward.conf" >"$WORK/dnsward.log" 2>&1 &
PROXY_PID=$!
measure dnsward forwarded
measure dnsward local
kill "$PROXY_PID"; wait "$PROXY_PID" 2>/dev/null || true

# The firmware is the same core in Embedded Swift with the config compiled in.
if command -v cmake >/dev/null && command -v ninja >/dev/null; then
  cmake -S "$ROOT/Board" -B "$WORK/firmware" -G Ninja -DDNSWARD_TARGET=host \
    -DDNSWARD_CONFIG="$WORK/dnsward.conf" >"$WORK/firmware.log" 2>&1
  cmake --build "$WORK/firmware" >>"$WORK/firmware.log" 2>&1
  "$WORK/firmware/dnsward.stripped" >"$WORK/firmware-run.log" 2>&1 &
  PROXY_PID=$!
  measure firmware forwarded
  measure firmware local
  kill "$PROXY_PID"; wait "$PROXY_PID" 2>/dev/null || true
fi

dnsmasq --keep-in-foreground --no-resolv --no-hosts --cache-size=0 \
  --listen-address=127.0.0.1 --bind-interfaces --port="$PROXY" \
  --server="127.0.0.1#$UPSTREAM" --address=/printer.lan/192.168.1.20 \
  --user="$(id -un)" --pid-file="$WORK/dnsmasq.pid" 2>"$WORK/dnsmasq.log" &
PROXY_PID=$!
measure dnsmasq forwarded
measure dnsmasq local
kill "$PROXY_PID"; wait "$PROXY_PID" 2>/dev/null || true
PROXY_PID=

echo
awk '{ cost[$1 " " $2] = $3 } END {
  for (w in cost) { split(w, k, " "); if (k[1] != "dnsmasq") {
    other = cost["dnsmasq " k[2]];
    if (other > 0) printf "%s/dnsmasq CPU per query, %s: %.2f\n", k[1], k[2], cost[w] / other } } }' \
  "$WORK/results" | sort
