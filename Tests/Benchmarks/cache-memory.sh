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
#
# Needs dnsperf and knot. Only 127.0.0.1 is used.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
N=${N:-1000000}
RATE=${RATE:-10000}
swift build -c release --package-path "$ROOT" --product dnsward >/dev/null
DNSWARD=$(swift build -c release --package-path "$ROOT" --show-bin-path)/dnsward
WORK=$(mktemp -d)
PID=
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; stop_knot; rm -rf "$WORK"' EXIT
UPSTREAM=$(free_port 29300)
PROXY=$(free_port $((UPSTREAM + 1)))
start_knot "$UPSTREAM"
cat >"$WORK/dnsward.conf" <<CONF
listen 127.0.0.1:$PROXY
upstream udp 127.0.0.1:$UPSTREAM
cache 4096
cache-bytes 1m
inflight 1024
log info
CONF
"$DNSWARD" --config "$WORK/dnsward.conf" >"$WORK/dnsward.log" 2>&1 &
PID=$!
sleep 0.5

# stream FIRST COUNT: COUNT distinct names starting at FIRST.
stream() {
  awk -v first="$1" -v count="$2" \
    'BEGIN { for (i = first; i < first + count; i++) printf "n%d.stream.example.test A\n", i }' \
    >"$WORK/names.txt"
  dnsperf -s 127.0.0.1 -p "$PROXY" -d "$WORK/names.txt" -n 1 -c 8 -Q "$RATE" >"$WORK/dnsperf.log" 2>&1
  awk '/Queries completed/ {print $3}' "$WORK/dnsperf.log"
}
peak() { awk '/VmHWM/ {print $2}' "/proc/$PID/status"; }

tenth=$((N / 10))
done_first=$(stream 0 "$tenth")
after_tenth=$(peak)
done_rest=$(stream "$tenth" $((N - tenth)))
after_all=$(peak)
inserts=$(kill -USR1 "$PID"; sleep 0.3; grep -o 'cache-misses [0-9]*' "$WORK/dnsward.log" | tail -1 || true)
printf 'distinct names answered: %d + %d (%s)\n' "$done_first" "$done_rest" "$inserts"
printf 'peak RSS after %d names: %d kB; after %d names: %d kB\n' "$tenth" "$after_tenth" "$N" "$after_all"
if [ "$after_all" -gt $((after_tenth + 256)) ]; then
  echo "cache-memory: RSS grew by $((after_all - after_tenth)) kB" >&2
  exit 1
fi
echo "cache-memory: flat"
