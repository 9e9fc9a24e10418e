#!/usr/bin/env bash
# Zero heap allocations per query, measured: runs the release dnsward under
# valgrind twice, with N and 10×N queries (forwarded to Knot on loopback, and
# answered from the override table), and compares valgrind's "total heap
# usage". Equal totals mean no query allocated.
#
#   bash Tests/Benchmarks/allocations.sh        # N = 2000
#
# Needs valgrind, dnsperf and knot. Only 127.0.0.1 is used.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$ROOT/.ci/lib.sh"
N=${N:-2000}
swift build -c release --package-path "$ROOT" --product dnsward >/dev/null
DNSWARD=$(swift build -c release --package-path "$ROOT" --show-bin-path)/dnsward
WORK=$(mktemp -d)
trap 'stop_knot; rm -rf "$WORK"' EXIT
UPSTREAM=$(free_port 28300)
PROXY=$(free_port $((UPSTREAM + 1)))
start_knot "$UPSTREAM"
cat >"$WORK/dnsward.conf" <<CONF
listen 127.0.0.1:$PROXY
upstream udp 127.0.0.1:$UPSTREAM
override printer.lan 192.168.1.20
log warning
CONF
printf 'www.example.test A\nwww.example.test AAAA\nalias.example.test A\nnope.example.test A\n' \
  >"$WORK/forwarded.txt"
printf 'printer.lan A\n' >"$WORK/local.txt"

# run COUNT: prints valgrind's heap total for COUNT forwarded + COUNT local queries.
run() {
  local count=$1 pid
  valgrind --tool=memcheck --leak-check=no "$DNSWARD" --config "$WORK/dnsward.conf" \
    2>"$WORK/valgrind-$count.log" &
  pid=$!
  sleep 3
  dnsperf -s 127.0.0.1 -p "$PROXY" -d "$WORK/forwarded.txt" -n $((count / 4)) -c 4 -Q 2000 \
    >"$WORK/forwarded-$count.log" 2>&1
  dnsperf -s 127.0.0.1 -p "$PROXY" -d "$WORK/local.txt" -n "$count" -c 4 -Q 4000 \
    >"$WORK/local-$count.log" 2>&1
  kill -INT "$pid"
  wait "$pid" || true
  local completed
  completed=$(cat "$WORK/forwarded-$count.log" "$WORK/local-$count.log" |
    awk '/Queries completed/ {sum += $3} END {print sum}')
  printf '%7d queries answered: %s\n' "$completed" \
    "$(grep -o 'total heap usage.*' "$WORK/valgrind-$count.log")"
}
run "$N"
run $((N * 10))
