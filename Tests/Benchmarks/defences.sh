#!/usr/bin/env bash
# What the hijack defences cost: the same loads against dnsward with the
# defences off (plain); with every defence that judges answers on
# (screening: bogus, bogus-nxdomain, rebind-protection, rate-limit,
# detect-nxdomain-redirect); with screening and hold-on 30ms (holding);
# and with screening and every cold name a `verify` name (verifying: asked
# of a trusted TCP upstream, then checked over UDP).
# Configurations alternate run by run (ROUNDS rounds), so the machine's
# noise falls on all of them alike; the median of the rounds is printed.
#
#   bash Tests/Benchmarks/defences.sh
#   DNSWARD_BIN=/tmp/fw/dnsward.stripped ROUNDS=5 bash Tests/Benchmarks/defences.sh
#
# Loads (dnsperf, 4 client sockets, at most 100 queries outstanding):
#   hot   cache hits (the defences never see an upstream answer)
#   cold  20,000 distinct names per run under *.cold.example.test, every one
#         forwarded to Knot (answers screened, held, verified), as fast as
#         dnsward answers: at that rate far more answers arrive per 30 ms
#         than the 64 hold-on buffers, so most are relayed unheld, and
#         most verify checks are skipped (16 at a time)
#   paced the same at 1,000 queries per second (PACED_QUERIES, 5,000): a
#         busy LAN's rate, where every answer is held and every check made
# Columns: answered qps, dnsward CPU microseconds per answered query (from
# /proc/PID/stat), dnsperf's average latency in ms. Only 127.0.0.1 is used.
# Needs dnsperf, knotd and dig.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ROUNDS=${ROUNDS:-3}
COLD_QUERIES=${COLD_QUERIES:-20000}
HOT_SECONDS=${HOT_SECONDS:-5}
PACED_QUERIES=${PACED_QUERIES:-5000}
DNSWARD_BIN=$(release_dnsward /tmp/defences-build)
scratch_with_cleanup
printf '*.cold A 192.0.2.2\n*.hot A 192.0.2.1\n' >"$WORK/extra.zone"
UPSTREAM=$(free_port 29400)
PROXY=$(free_port $((UPSTREAM + 1)))
start_knot "$UPSTREAM" "$WORK/extra.zone"
for i in $(seq 0 999); do echo "h$i.hot.example.test A"; done >"$WORK/hot.txt"
ticks=$(getconf CLK_TCK)

config() {  # config NAME
  cat <<CONF
listen 127.0.0.1:$PROXY
upstream udp 127.0.0.1:$UPSTREAM
inflight 1024
cache 4096
log warning
CONF
  case $1 in
    plain) ;;
    screening | holding | verifying)
      cat <<CONF
bogus 203.0.113.0/24
bogus-nxdomain 198.18.0.1
rebind-protection on
rate-limit 1000000/s
detect-nxdomain-redirect on
CONF
      ;;
  esac
  if [ "$1" = holding ]; then echo "hold-on 30ms"; fi
  if [ "$1" = verifying ]; then
    printf 'upstream tcp 127.0.0.1:%s trusted\nverify cold.example.test\n' "$UPSTREAM"
  fi
}

# run CONFIG LOAD ROUND: prints "qps cpu-us-per-query latency-ms".
run() {
  local name=$1 load=$2 round=$3 out before after completed
  config "$name" >"$WORK/$name.conf"
  "$DNSWARD_BIN" --config "$WORK/$name.conf" >"$WORK/$name.log" 2>&1 &
  PROXY_PID=$!
  for _ in $(seq 1 50); do
    dig +short +tries=1 +time=1 @127.0.0.1 -p "$PROXY" www.example.test >/dev/null 2>&1 && break
    sleep 0.1
  done
  if [ "$load" = hot ]; then
    dnsperf -s 127.0.0.1 -p "$PROXY" -d "$WORK/hot.txt" -n 2 -c 4 >/dev/null 2>&1
    before=$(awk '{print $14 + $15}' "/proc/$PROXY_PID/stat")
    out=$(dnsperf -s 127.0.0.1 -p "$PROXY" -d "$WORK/hot.txt" -l "$HOT_SECONDS" -c 4 -q 100 2>&1)
  else
    local count=$COLD_QUERIES pace=()
    if [ "$load" = paced ]; then count=$PACED_QUERIES pace=(-Q 1000); fi
    for i in $(seq 1 "$count"); do echo "r$round-$i.$load-$name.cold.example.test A"; done \
      >"$WORK/cold.txt"
    before=$(awk '{print $14 + $15}' "/proc/$PROXY_PID/stat")
    out=$(dnsperf -s 127.0.0.1 -p "$PROXY" -d "$WORK/cold.txt" -n 1 -c 4 -q 100 "${pace[@]}" 2>&1)
  fi
  after=$(awk '{print $14 + $15}' "/proc/$PROXY_PID/stat")
  kill "$PROXY_PID"
  wait "$PROXY_PID" 2>/dev/null || true
  PROXY_PID=
  completed=$(echo "$out" | awk '/Queries completed/ {print $3}')
  echo "$out" | awk -v c="$completed" -v t=$((after - before)) -v hz="$ticks" '
    /Queries per second/ { qps = $4 }
    /Average Latency/ { latency = $4 * 1000 }
    END { printf "%.0f %.2f %.2f\n", qps, c ? t * 1e6 / hz / c : 0, latency }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for load in hot cold paced; do
  for round in $(seq 1 "$ROUNDS"); do
    for name in plain screening holding verifying; do
      echo "$load $name $(run "$name" "$load" "$round")" >>"$WORK/results"
    done
  done
done
printf '%-5s %-10s %8s %10s %11s\n' load config qps cpu-us/q latency-ms
for load in hot cold paced; do
  for name in plain screening holding verifying; do
    rows=$(awk -v l="$load" -v n="$name" '$1 == l && $2 == n' "$WORK/results")
    printf '%-5s %-10s %8s %10s %11s\n' "$load" "$name" \
      "$(echo "$rows" | awk '{print $3}' | median)" \
      "$(echo "$rows" | awk '{print $4}' | median)" \
      "$(echo "$rows" | awk '{print $5}' | median)"
  done
done
echo "(median of $ROUNDS alternating rounds; see the top of $0 for the configs)"
