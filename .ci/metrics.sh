#!/usr/bin/env bash
# .ci/metrics.sh — `metrics` checked by Prometheus's own linter (issue 17):
# dnsward with two workers and `metrics 127.0.0.1:0` in front of Knot on
# loopback, 5 s of dnsperf load scraped twice a second meanwhile, then:
#   - every scrape is HTTP 200, and `promtool check metrics` (Debian's
#     `prometheus` package) has nothing to say about any of them;
#   - the last scrape's dnsward_queries_total equals the queries sent (both
#     workers' figures added up) and its latency histogram counts them all;
#   - dnsperf lost no query while the scrapes ran.
# Builds nothing: DNSWARD_BIN is the binary to run (.ci/run passes the host
# build's). About 7 s (13 s on a busy machine).
#
#   DNSWARD_BIN=.build/debug/dnsward bash .ci/metrics.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
BIN=${DNSWARD_BIN:?set DNSWARD_BIN to the dnsward binary to check}
command -v promtool >/dev/null || fail "promtool missing (apt-get install prometheus)"
work_dir
# A failure shows what dnsward said.
print_log() { [ "$1" = 0 ] || cat "$WORK/dnsward.log" >&2 || true; }
CLEANUP_HOOKS+=(print_log)

UPSTREAM=$(free_port 27353)
start_knot "$UPSTREAM"
cat >"$WORK/dnsward.conf" <<CONF
listen 127.0.0.1:0
metrics 127.0.0.1:0
upstream udp 127.0.0.1:$UPSTREAM
override printer.lan 192.168.1.20
workers 2
CONF
"$BIN" --config "$WORK/dnsward.conf" >"$WORK/dnsward.log" 2>&1 &
DNSWARD_PID=$!
track "$DNSWARD_PID"
# Port 0 in both: the start-up log names what the kernel picked.
for _ in $(seq 1 100); do
  grep -q "listening on" "$WORK/dnsward.log" && break
  kill -0 "$DNSWARD_PID" 2>/dev/null || fail "dnsward exited at start-up"
  sleep 0.1
done
LOG=$(cat "$WORK/dnsward.log")
DNS_PORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' <<<"$LOG" | head -1)
METRICS_PORT=$(sed -n 's|.*metrics on http://127\.0\.0\.1:\([0-9]*\)/metrics.*|\1|p' <<<"$LOG" | head -1)
[ -n "$DNS_PORT" ] && [ -n "$METRICS_PORT" ] || fail "no listen or metrics address in the log"

# scrape N: GET /metrics into $WORK/scrape.N; fails unless HTTP 200.
scrape() {
  python3 - "$METRICS_PORT" "$WORK/scrape.$1" <<'EOF' || fail "scrape $1"
import sys, urllib.request
with urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics", timeout=5) as response:
    assert response.status == 200, response.status
    kind = response.headers["Content-Type"]
    assert kind.startswith("text/plain; version=0.0.4"), kind
    open(sys.argv[2], "wb").write(response.read())
EOF
}

for name in www.example.test alias.example.test big.example.test printer.lan nx.example.test; do
  for type in A AAAA; do echo "$name $type"; done
done >"$WORK/queries"
timeout 30 dnsperf -s 127.0.0.1 -p "$DNS_PORT" -d "$WORK/queries" -l 5 -Q 2000 -c 8 \
  >"$WORK/dnsperf.out" 2>&1 &
PERF_PID=$!
SCRAPES=0
while kill -0 "$PERF_PID" 2>/dev/null; do
  SCRAPES=$((SCRAPES + 1))
  scrape "$SCRAPES"
  sleep 0.5
done
wait "$PERF_PID" || fail "dnsperf: $(cat "$WORK/dnsperf.out")"
PERF=$(cat "$WORK/dnsperf.out")
SENT=$(sed -n 's/.*Queries sent: *\([0-9]*\).*/\1/p' <<<"$PERF")
LOST=$(sed -n 's/.*Queries lost: *\([0-9]*\).*/\1/p' <<<"$PERF")
[ "${LOST:-1}" = 0 ] || fail "dnsperf lost $LOST of $SENT queries while metrics were scraped"

# Workers publish once a second: wait for both workers' figures to add up.
TOTAL=
for _ in $(seq 1 30); do
  SCRAPES=$((SCRAPES + 1))
  scrape "$SCRAPES"
  TOTAL=$(sed -n 's/^dnsward_queries_total \([0-9]*\)$/\1/p' "$WORK/scrape.$SCRAPES")
  [ "$TOTAL" = "$SENT" ] && break
  sleep 0.2
done
[ "$TOTAL" = "$SENT" ] || fail "dnsward_queries_total $TOTAL, but dnsperf sent $SENT"
LAST="$WORK/scrape.$SCRAPES"
COUNTED=$(sed -n 's/^dnsward_answer_latency_seconds_count \([0-9]*\)$/\1/p' "$LAST")
[ "$COUNTED" = "$SENT" ] || fail "latency histogram counted $COUNTED replies of $SENT"
grep -q '^dnsward_workers 2$' "$LAST" || fail "dnsward_workers is not 2"
grep -q "^dnsward_upstream_answers_total{upstream=\"127.0.0.1:$UPSTREAM\",index=\"0\"} [1-9]" \
  "$LAST" || fail "no answers counted for the upstream"

for index in $(seq 1 "$SCRAPES"); do
  PROBLEMS=$(promtool check metrics <"$WORK/scrape.$index" 2>&1) \
    || fail "promtool check metrics, scrape $index: $PROBLEMS"
  [ -z "$PROBLEMS" ] || fail "promtool check metrics, scrape $index: $PROBLEMS"
done
echo "metrics.sh: $SCRAPES scrapes under load pass promtool check metrics;" \
  "dnsward_queries_total $TOTAL = queries sent, none lost, $(wc -l <"$LAST") lines"
