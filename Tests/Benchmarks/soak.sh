#!/usr/bin/env bash
# Soak (issue 8, item 6): DURATION seconds of mixed traffic at a moderate
# rate while the first upstream keeps failing, with dnsward's memory,
# descriptors and answers checked every SAMPLE seconds. Exits non-zero on
# a wrong or missing answer, RSS drift, or descriptor growth.
#
#   bash Tests/Benchmarks/soak.sh                                 # 2 minutes, CI
#   DURATION=1800 SAMPLE=60 bash Tests/Benchmarks/soak.sh         # 30 minutes
#   DNSWARD_BIN=/tmp/fw/dnsward.stripped bash Tests/Benchmarks/soak.sh
#
# Upstreams: two Knot servers on loopback with the same zone (lib.sh's
# example.test plus *.hot and *.cold wildcards): `upstream udp` knot1,
# `upstream udp` knot2 and `upstream tcp` knot2; `timeout 400ms`.
# Faults on knot1, in a cycle: up for UP (35) seconds; frozen for FAULT
# (10) seconds (SIGSTOP: silent, its socket fills, and after SIGCONT it
# answers everything late: replies dnsward must drop); up for UP; stopped
# for FAULT (its port closed: ICMP port unreachable), then started again.
# dnsward skips an upstream for 30 s after three failures in a row, so an
# up phase of 35 s sees knot1 marked down, retried and answering again.
#
# Traffic: dnsperf -Q RATE (400) over UDP and -Q TCP_RATE (40) over TCP
# (2 persistent connections), both over one file of 100,000 questions:
# 50% cached names (200 *.hot names), 20% distinct uncached names (*.cold,
# every one forwarded; the cache of 512 entries evicts them), 10% NXDOMAIN
# (500 names, negative-cached for 60 s), 5% an override, 5% a blocked
# name, 5% AAAA, 5% a CNAME chain.
#
# Warm-up: knot1 is frozen while INFLIGHT (256) distinct names are asked
# at once, so that every ring slot opens the UDP socket it keeps from then
# on; after that, dnsward's descriptor count has no reason to move.
#
# Answers are checked all the time, every CHECK_INTERVAL (2) seconds, so
# every phase of the fault cycle is covered whatever SAMPLE is: five
# questions through `probe.py watch`: www.example.test (192.0.2.80), a
# fresh *.cold name (192.0.2.2, forwarded, whatever knot1's phase), the
# override (192.168.1.20), a fresh non-existent name (NXDOMAIN) and
# www.example.test over TCP. Every SAMPLE seconds (default 20; 60 for long
# runs) a table row: VmRSS, the descriptor count, the checks since the
# last row and the slowest fresh name among them. At the end, the checks
# by knot1's phase. Fails on:
#   - any check answered wrongly or not at all (3 tries of 1 s);
#   - VmRSS moving by more than RSS_DRIFT_KB (256) over the samples after
#     the first (the warm-up: the cache's 64 KB arena fills in seconds);
#   - the descriptor count moving by more than FD_SLACK (3: a probe's TCP
#     connection being closed, the TCP upstream's connection replaced)
#     above the count after the warm-up, at any sample;
#   - dnsperf answering less than MIN_ANSWERED (95%) of what it sent.
#
# Needs dnsperf, knotd and python3. Only 127.0.0.1 is used.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
DURATION=${DURATION:-120}
SAMPLE=${SAMPLE:-20}
UP=${UP:-35}
FAULT=${FAULT:-10}
RATE=${RATE:-400}
TCP_RATE=${TCP_RATE:-40}
RSS_DRIFT_KB=${RSS_DRIFT_KB:-256}
FD_SLACK=${FD_SLACK:-3}
MIN_ANSWERED=${MIN_ANSWERED:-95}
INFLIGHT=256
PROBE="python3 $ROOT/Tests/Benchmarks/bench/probe.py"

for tool in dnsperf knotd python3; do
  command -v "$tool" >/dev/null || { echo "soak.sh: missing $tool" >&2; exit 1; }
done
DNSWARD_BIN=$(release_dnsward /tmp/load-build)

WORK=$(mktemp -d)
PROXY_PID= FAULTS_PID= WATCH_PID= UDP_PERF= TCP_PERF= K1_DIR= K2_DIR= K2_PID=
cleanup() {
  for pid in $UDP_PERF $TCP_PERF $FAULTS_PID $WATCH_PID $PROXY_PID; do kill "$pid" 2>/dev/null || true; done
  if [ -s "$WORK/knot1.pid" ]; then
    kill -CONT "$(cat "$WORK/knot1.pid")" 2>/dev/null || true
    kill "$(cat "$WORK/knot1.pid")" 2>/dev/null || true
  fi
  [ -n "$K2_PID" ] && kill "$K2_PID" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$WORK" ${K1_DIR:+"$K1_DIR"} ${K2_DIR:+"$K2_DIR"}
}
trap cleanup EXIT
FAILED=0
fail() { echo "soak.sh: FAILED: $*" >&2; FAILED=1; }

printf '*.hot A 192.0.2.1\n*.cold A 192.0.2.2\n' >"$WORK/extra.zone"
KNOT1=$(free_port 28700)
start_knot "$KNOT1" "$WORK/extra.zone"
K1_DIR=$KNOT_DIR
echo "$KNOT_PID" >"$WORK/knot1.pid"
KNOT2=$(free_port $((KNOT1 + 1)))
start_knot "$KNOT2" "$WORK/extra.zone"
K2_DIR=$KNOT_DIR K2_PID=$KNOT_PID
KNOT_DIR= KNOT_PID=
PROXY=$(free_port $((KNOT2 + 1)))

cat >"$WORK/dnsward.conf" <<CONF
listen 127.0.0.1:$PROXY
upstream udp 127.0.0.1:$KNOT1
upstream udp 127.0.0.1:$KNOT2
upstream tcp 127.0.0.1:$KNOT2
timeout 400ms
inflight $INFLIGHT
cache 512
cache-bytes 64k
tcp-clients 16
override soak.lan 192.168.1.20
block blocked.test
log info
CONF
"$DNSWARD_BIN" --config "$WORK/dnsward.conf" >"$WORK/dnsward.log" 2>&1 &
PROXY_PID=$!
for _ in $(seq 1 50); do
  [ "$($PROBE ask "$PROXY" soak.lan | cut -d' ' -f3)" = 192.168.1.20 ] && break
  sleep 0.1
done

awk 'BEGIN { for (i = 0; i < 100000; i++) { k = i % 20
  if (k < 10) printf "h%d.hot.example.test A\n", i % 200
  else if (k < 14) printf "c%d.cold.example.test A\n", i
  else if (k < 16) printf "nx%d.example.test A\n", i % 500
  else if (k == 16) print "soak.lan A"
  else if (k == 17) printf "x%d.blocked.test A\n", i
  else if (k == 18) print "www.example.test AAAA"
  else print "alias.example.test A" } }' >"$WORK/mixed.txt"

# The fault cycle on knot1, in the background; its current pid is kept in
# knot1.pid and each phase change is logged with the time.
faults() {
  local cycle=0 pid
  while :; do
    cycle=$((cycle + 1))
    echo "$EPOCHREALTIME up" >>"$WORK/phases"
    sleep "$UP"
    pid=$(cat "$WORK/knot1.pid")
    kill -STOP "$pid"
    echo "$EPOCHREALTIME frozen" >>"$WORK/phases"
    sleep "$FAULT"
    kill -CONT "$pid"
    echo "$EPOCHREALTIME up" >>"$WORK/phases"
    sleep "$UP"
    kill "$pid"
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    echo "$EPOCHREALTIME stopped" >>"$WORK/phases"
    sleep "$FAULT"
    knotd -c "$K1_DIR/knot.conf" >>"$K1_DIR/knotd.log" 2>&1 &
    echo $! >"$WORK/knot1.pid"
  done
}

# Every ring slot's socket opened: knot1 silent, INFLIGHT questions at once.
for i in $(seq 1 "$INFLIGHT"); do echo "warm$i.cold.example.test A"; done >"$WORK/warm.txt"
kill -STOP "$(cat "$WORK/knot1.pid")"
dnsperf -s 127.0.0.1 -p "$PROXY" -d "$WORK/warm.txt" -n 1 -c 1 -q "$INFLIGHT" -t 3 >/dev/null 2>&1
kill -CONT "$(cat "$WORK/knot1.pid")"
sleep 1
fds() { ls "/proc/$PROXY_PID/fd" | wc -l; }
FDS_WARM=$(fds)
echo "dnsward $DNSWARD_BIN: $FDS_WARM descriptors after the warm-up (inflight $INFLIGHT)"

STARTED=$SECONDS
faults &
FAULTS_PID=$!
dnsperf -s 127.0.0.1 -p "$PROXY" -d "$WORK/mixed.txt" -l "$DURATION" -c 4 -Q "$RATE" -t 3 \
  >"$WORK/udp.txt" 2>&1 &
UDP_PERF=$!
dnsperf -m tcp -s 127.0.0.1 -p "$PROXY" -d "$WORK/mixed.txt" -l "$DURATION" -c 2 -Q "$TCP_RATE" \
  -t 3 >"$WORK/tcp.txt" 2>&1 &
TCP_PERF=$!
$PROBE watch "$PROXY" "${CHECK_INTERVAL:-2}" \
  www:NOERROR:192.0.2.80:www.example.test:A:udp \
  fresh:NOERROR:192.0.2.2:s{n}.fresh.cold.example.test:A:udp \
  override:NOERROR:192.168.1.20:soak.lan:A:udp \
  nxdomain:NXDOMAIN:-:gone{n}.example.test:A:udp \
  tcp:NOERROR:192.0.2.80:www.example.test:A:tcp >"$WORK/checks.txt" &
WATCH_PID=$!

printf '%6s %-15s %8s %5s %-16s %-14s\n' second "knot1 phases" "RSS kB" fds "checks ok/all" \
  "fresh max ms"
last=$EPOCHREALTIME
while [ $((SECONDS - STARTED)) -lt "$DURATION" ]; do
  sleep "$SAMPLE"
  now=$EPOCHREALTIME
  # knot1's phases during the interval: the one in force at its start, and
  # every change since.
  phases=$(awk -v a="$last" -v b="$now" '$1 <= a { p = $2 } $1 > a && $1 <= b { p = p "/" $2 }
    END { print p }' "$WORK/phases")
  read -r ok all slowest < <(awk -v a="$last" -v b="$now" '$1 > a && $1 <= b { all++
    if ($3 == "OK") ok++; if ($2 == "fresh" && $4 > m) m = $4 }
    END { printf "%d %d %.1f\n", ok, all, m }' "$WORK/checks.txt")
  last=$now
  total=$(fds)
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$PROXY_PID/status")
  elapsed=$((SECONDS - STARTED))
  printf '%6s %-15s %8s %5s %-16s %-14s\n' "$elapsed" "${phases#/}" "$rss" "$total" "$ok/$all" \
    "$slowest"
  echo "$elapsed $rss $total" >>"$WORK/raw.txt"
done
wait "$UDP_PERF" "$TCP_PERF" || true
UDP_PERF= TCP_PERF=
for pid in $FAULTS_PID $WATCH_PID; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
FAULTS_PID= WATCH_PID=
kill -USR1 "$PROXY_PID"
sleep 0.3

summary() {  # summary FILE: sent answered rcodes
  awk '/Queries sent/ { s = $3 } /Queries completed/ { c = $3 }
    /Response codes/ { sub(/.*Response codes: */, ""); r = $0 }
    END { printf "%s %s %s\n", s, c, r }' "$1"
}
read -r udp_sent udp_done udp_rcodes < <(summary "$WORK/udp.txt")
read -r tcp_sent tcp_done tcp_rcodes < <(summary "$WORK/tcp.txt")
read -r rss_first rss_min rss_max fd_min fd_max < <(awk 'NR == 1 { first = $2 }
  NR >= 2 { if (!n++) { rmin = rmax = $2 }
    if ($2 < rmin) rmin = $2; if ($2 > rmax) rmax = $2 }
  !m++ { fmin = fmax = $3 } $3 < fmin { fmin = $3 } $3 > fmax { fmax = $3 }
  END { print first + 0, rmin + 0, rmax + 0, fmin + 0, fmax + 0 }' "$WORK/raw.txt")
samples=$(wc -l <"$WORK/raw.txt")
checks=$(wc -l <"$WORK/checks.txt")
wrong=$(awk '$3 != "OK"' "$WORK/checks.txt" | wc -l)
# The checks by knot1's phase at the time of each answer.
by_phase=$(awk 'NR == FNR { t[++n] = $1; p[n] = $2; next }
  { while (i < n && t[i + 1] <= $1) i++; phase = i ? p[i] : "up"
    all[phase]++; if ($3 == "OK") ok[phase]++
    if ($2 == "fresh" && $4 > slow[phase]) slow[phase] = $4 }
  END { for (phase in all) printf "%s %d/%d (fresh name at most %.1f ms); ", phase, ok[phase],
    all[phase], slow[phase] }' "$WORK/phases" "$WORK/checks.txt")
frozen=$(grep -c frozen "$WORK/phases" || true)
stopped=$(grep -c stopped "$WORK/phases" || true)

echo
echo "| measure | value |"
echo "| --- | --- |"
echo "| soak | $DURATION s, UDP $RATE q/s + TCP $TCP_RATE q/s mixed; knot1 frozen $frozen and stopped $stopped times, $FAULT s each, up $UP s between |"
echo "| UDP dnsperf sent / answered | $udp_sent / $udp_done ($udp_rcodes) |"
echo "| TCP dnsperf sent / answered | $tcp_sent / $tcp_done ($tcp_rcodes) |"
echo "| checks answered correctly | $((checks - wrong)) of $checks (5 every ${CHECK_INTERVAL:-2} s) |"
echo "| checks by knot1's phase | $by_phase |"
echo "| VmRSS first sample / min / max after it | $rss_first / $rss_min / $rss_max kB (drift $((rss_max - rss_min)) kB) |"
echo "| descriptors after the warm-up / min / max | $FDS_WARM / $fd_min / $fd_max |"
grep -E "info: (upstream [0-9]|queries |transport )" "$WORK/dnsward.log" |
  sed 's/^[^:]*: info: /| dnsward at the end | /; s/$/ |/' || true

[ "$samples" -ge 3 ] || fail "only $samples samples"
[ "$checks" -ge 5 ] || fail "only $checks checks made"
[ "$wrong" -eq 0 ] || { fail "$wrong wrong answers:"; awk '$3 != "OK"' "$WORK/checks.txt" | head -20 >&2; }
[ $((rss_max - rss_min)) -le "$RSS_DRIFT_KB" ] ||
  fail "VmRSS drifted $((rss_max - rss_min)) kB after the first sample (bound $RSS_DRIFT_KB)"
[ "$fd_max" -le $((FDS_WARM + FD_SLACK)) ] && [ $((fd_max - fd_min)) -le "$FD_SLACK" ] ||
  fail "descriptors $fd_min..$fd_max, $FDS_WARM after the warm-up (slack $FD_SLACK)"
for side in udp tcp; do
  sent_var=${side}_sent done_var=${side}_done
  awk -v s="${!sent_var:-0}" -v d="${!done_var:-0}" -v m="$MIN_ANSWERED" \
    'BEGIN { exit !(s > 0 && d * 100 >= s * m) }' ||
    fail "$side: dnsperf got ${!done_var:-0} answers of ${!sent_var:-0} sent (bound $MIN_ANSWERED%)"
done
kill -0 "$PROXY_PID" 2>/dev/null || fail "dnsward exited"
if [ "$FAILED" -ne 0 ]; then
  echo "--- dnsward log"; tail -20 "$WORK/dnsward.log"
  exit 1
fi
echo "soak.sh: all checks passed ($(date -u +%Y-%m-%d), $((SECONDS - STARTED)) s)"
