#!/usr/bin/env bash
# Memory stays flat while N distinct names (default a million) stream
# through the cache: every name is new, so every answer is inserted and the
# oldest evicted. Knot on loopback answers them (NXDOMAIN with an SOA, so
# each is negatively cached). Prints peak RSS (VmHWM) after the first tenth
# of the names and after all of them; the two must be equal (the cache and
# every other structure were allocated at start-up).
#
#   bash Tests/Benchmarks/cache-memory.sh            # N=1000000, RATE=10000 q/s
#   N=200000 bash Tests/Benchmarks/cache-memory.sh
#   DNSWARD_BIN=/path/to/dnsward bash Tests/Benchmarks/cache-memory.sh   # instead of the release build
#
# Needs dnsperf and knot. Only 127.0.0.1 is used.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench/common.sh"
N=${N:-1000000}
RATE=${RATE:-10000}
DNSWARD=$(release_dnsward)
work_dir
knot_upstream 29300
cat >"$WORK/dnsward.conf" <<CONF
listen 127.0.0.1:$PROXY
upstream udp 127.0.0.1:$UPSTREAM
cache 4096
cache-bytes 1m
inflight 1024
log info
CONF
launch_dnsward "$DNSWARD" "$WORK/dnsward.conf" "$PROXY" www.example.test 192.0.2.80
PID=$DNSWARD_PID

# stream FIRST COUNT: COUNT distinct names starting at FIRST.
stream() {
  awk -v first="$1" -v count="$2" \
    'BEGIN { for (i = first; i < first + count; i++) printf "n%d.stream.example.test A\n", i }' \
    >"$WORK/names.txt"
  dnsperf -s 127.0.0.1 -p "$PROXY" -d "$WORK/names.txt" -n 1 -c 8 -Q "$RATE" >"$WORK/dnsperf.log" 2>&1
  awk '/Queries completed/ {print $3}' "$WORK/dnsperf.log"
}

tenth=$((N / 10))
done_first=$(stream 0 "$tenth")
after_tenth=$(peak_kb "$PID")
done_rest=$(stream "$tenth" $((N - tenth)))
after_all=$(peak_kb "$PID")
inserts=$(kill -USR1 "$PID"; sleep 0.3; grep -o 'cache-misses [0-9]*' "$WORK/dnsward.log" | tail -1 || true)
printf 'distinct names answered: %d + %d (%s)\n' "$done_first" "$done_rest" "$inserts"
printf 'peak RSS after %d names: %d kB; after %d names: %d kB\n' "$tenth" "$after_tenth" "$N" "$after_all"
[ "$after_all" -le $((after_tenth + 256)) ] || fail "RSS grew by $((after_all - after_tenth)) kB"
echo "cache-memory: flat"
