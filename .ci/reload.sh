#!/usr/bin/env bash
# .ci/reload.sh — reload without restart (issue 17, item 1) under load: the
# host dnsward binary (--config) forwarding to Knot DNS on loopback, dnsperf
# at a fixed rate for DURATION (10) seconds, and meanwhile a SIGHUP every
# INTERVAL (0.7) seconds with the config swapped between two versions:
#
#   A: `upstream udp KNOT`             B: `upstream tcp KNOT`, `upstream udp KNOT`
#
# (the upstream list changes at every reload), a new `override` address each
# time, and the block list and hosts file the config names (same paths)
# rewritten. One reload in the middle gets a config with a bad line.
#
# Checks (each failure says which one):
#   - every valid reload logs a line starting `reloaded ` within RELOAD_WAIT
#     (3) seconds of its SIGHUP, and right after it the override answers the
#     new address and the re-read block list and hosts file are in force;
#   - the bad config logs `CONFIG:LINE:` and `reload refused; the running
#     config stays`, and the next answers still come from the config before;
#   - dnsperf: `Queries lost: 0` and every answer NOERROR (no SERVFAIL while
#     the upstreams are swapped under in-flight queries), none later than
#     MAX_PAUSE_MS (1000);
#   - after the run the override answers the last config's address;
#   - `workers 2`: one SIGHUP to the main process, and then WORKER_ASKS (40)
#     questions from as many source ports (the kernel's SO_REUSEPORT hash
#     spreads them over both workers) all get the new override address.
#
# Printed for the issue's closing note: queries sent / completed / lost,
# reloads done and refused, dnsperf's average and longest latency (the
# longest pause a query saw), and the longest answer a probe asking every
# 20 ms got within 0.5 s after a SIGHUP (and the longest overall).
#
#   bash .ci/reload.sh
#   DNSWARD_BIN=/tmp/fw/dnsward.stripped bash .ci/reload.sh
#   RELOAD_SIGNALS=0 bash .ci/reload.sh   # no SIGHUP: only the load, the
#                                         # upstream and the no-loss checks
#
# Environment: DNSWARD_BIN (default: the SwiftPM debug build's dnsward, as
# .ci/e2e.sh), DURATION, RATE (dnsperf -Q, 3000: easy for a 2-core machine
# with the debug build), INTERVAL. Needs dnsperf, knotd, dig, ss, python3.
# Only 127.0.0.1 is used. About 15 s.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== reload: SIGHUP under dnsperf load, a bad config refused, workers 2"
source .ci/lib.sh

BIN=${DNSWARD_BIN:-$(swift build --show-bin-path)/dnsward}
DURATION=${DURATION:-10}
RATE=${RATE:-3000}
INTERVAL=${INTERVAL:-0.7}
RELOAD_WAIT=${RELOAD_WAIT:-3}
RELOAD_SIGNALS=${RELOAD_SIGNALS:-1}
WORKER_ASKS=${WORKER_ASKS:-40}
# The longest a query may wait for its answer (dnsperf's max latency): a
# reload must not stall the loop. Without reloads it is tens of ms here.
MAX_PAUSE_MS=${MAX_PAUSE_MS:-1000}
PROBE="python3 Tests/Benchmarks/bench/probe.py"
# Log lines as plain text, not journald's `<N>` prefixes.
unset JOURNAL_STREAM

need dnsperf knotd dig ss python3
[[ -x $BIN ]] || fail "no dnsward binary at $BIN"

work_dir
SECONDS=0

# port_owned_by PORT PID: every UDP and TCP listener on PORT belongs to PID
# or a process below it (its workers), and there is one. free_port's answer
# can be taken by another process before ours binds it, or shared through
# SO_REUSEPORT; then the caller starts again on another port.
port_owned_by() {
  local port=$1 root=$2 owners pid
  owners=$(ss -Hlntup "sport = :$port" | grep -o 'pid=[0-9]*' | cut -d= -f2 | sort -u)
  [[ -n $owners ]] || return 1
  for pid in $owners; do
    while [[ $pid != "$root" ]]; do
      # The parent: the field after the parenthesised command name.
      pid=$(sed 's/.*) [A-Za-z] \([0-9]*\) .*/\1/' "/proc/$pid/stat" 2>/dev/null) || return 1
      ((pid > 1)) || return 1
    done
  done
}

# --- the upstream: Knot on loopback --------------------------------------------

# The zone's extra records: a wildcard for names never asked before (each
# one forwarded), and the two names the block list swaps between.
cat >"$WORK/zone-extra" <<'ZONE'
*.load  A     192.0.2.99
blocked-a A   192.0.2.10
blocked-b A   192.0.2.11
ZONE
KNOT_PORT=25600
for attempt in 1 2 3 4 5; do
  KNOT_PORT=$(free_port "$KNOT_PORT")
  if start_knot "$KNOT_PORT" "$WORK/zone-extra" && port_owned_by "$KNOT_PORT" "$KNOT_PID"; then
    break
  fi
  stop_knot
  KNOT_DIR= KNOT_PID=
  [[ $attempt == 5 ]] && fail "could not start knotd on a port of its own"
  KNOT_PORT=$((KNOT_PORT + 1))
done

# --- dnsward and its two configs ----------------------------------------------------

CONF=$WORK/dnsward.conf
LIST=$WORK/blocked.txt
PORT=$((KNOT_PORT + 1))

HOSTS=$WORK/hosts
# write_config VERSION ADDRESS [BAD]: the config (version A or B, override
# printer.lan ADDRESS), its block list and its hosts file (nas.lan is
# 192.168.7.1 in A, .2 in B), each written beside and renamed into place,
# so that a reload never reads half a file. BAD: a bad line instead of the
# override's (line 7, OVERRIDE_LINE), and the hosts file left as it is
# (dnsward reads a changed hosts file on its own too).
OVERRIDE_LINE=7
write_config() {
  local version=$1 address=$2 bad=${3:-}
  if [[ $version == A ]]; then
    echo "blocked-a.example.test" >"$LIST.new"
    echo "192.168.7.1 nas.lan" >"$HOSTS.new"
  else
    echo "blocked-b.example.test" >"$LIST.new"
    echo "192.168.7.2 nas.lan" >"$HOSTS.new"
  fi
  {
    echo "listen 127.0.0.1:$PORT"
    if [[ $version == A ]]; then
      echo "upstream udp 127.0.0.1:$KNOT_PORT"
      echo "# version A: one upstream"
    else
      echo "upstream tcp 127.0.0.1:$KNOT_PORT"
      echo "upstream udp 127.0.0.1:$KNOT_PORT"
    fi
    echo "timeout 1s"
    echo "log info"
    echo "block-list $(basename "$LIST")"
    if [[ -n $bad ]]; then
      echo "override printer.lan not-an-address"
    else
      echo "override printer.lan $address"
    fi
    echo "block ads.example.test"
    echo "hosts $HOSTS"
    if [[ -n ${WORKERS_LINE:-} ]]; then echo "$WORKERS_LINE"; fi
  } >"$CONF.new"
  mv "$LIST.new" "$LIST"
  if [[ -z $bad ]]; then mv "$HOSTS.new" "$HOSTS"; else rm -f "$HOSTS.new"; fi
  mv "$CONF.new" "$CONF"
}

D="dig @127.0.0.1 +tries=1 +time=2"
override_answer() { $D -p "$PORT" +short printer.lan A 2>&1 || true; }
status_of() { $D -p "$PORT" "$1" A 2>&1 | sed -n 's/.*status: \([A-Z]*\).*/\1/p' || true; }

# start_dnsward LOG: dnsward on $CONF, answering the override; moves to
# another port (rewriting the config) if one it did not bind answers there.
start_dnsward() {
  local log=$1 attempt
  for attempt in 1 2 3 4 5; do
    PORT=$(free_port "$PORT")
    write_config A 192.168.1.10
    "$BIN" --config "$CONF" >"$log" 2>&1 &
    DNSWARD_PID=$!
    track "$DNSWARD_PID"
    for _ in $(seq 1 50); do
      [[ $(override_answer) == 192.168.1.10 ]] && break
      kill -0 "$DNSWARD_PID" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$DNSWARD_PID" 2>/dev/null && port_owned_by "$PORT" "$DNSWARD_PID"; then
      return 0
    fi
    stop_process "$DNSWARD_PID"
    PORT=$((PORT + 1))
  done
  cat "$log" >&2
  fail "dnsward did not start on a port of its own; its log above"
}

# reloaded_count LOG: how many `reloaded ` lines LOG has.
# (A line is `dnsward: info: MESSAGE` on a terminal or a file.)
reloaded_count() { grep -c -E '(^|: )reloaded ' "$1" || true; }
refused_count() { grep -c 'reload refused; the running config stays' "$1" || true; }

# wait_for_count FUNCTION LOG N: until FUNCTION LOG reaches N (true), or
# RELOAD_WAIT seconds pass (false).
wait_for_count() {
  local deadline=$((SECONDS + RELOAD_WAIT))
  while (($($1 "$2") < $3)); do
    ((SECONDS <= deadline)) || return 1
    sleep 0.02
  done
}

# expect_config WHAT VERSION ADDRESS: the override answers ADDRESS and the
# block list of VERSION is in force (its name NXDOMAIN, the other's
# forwarded to Knot).
expect_config() {
  local what=$1 version=$2 address=$3 got blocked open
  got=$(override_answer)
  [[ $got == "$address" ]] || check_failed "$what: printer.lan answered '$got', expected $address (config $version)"
  if [[ $version == A ]]; then blocked=blocked-a open=blocked-b; else blocked=blocked-b open=blocked-a; fi
  got=$(status_of "$blocked.example.test")
  [[ $got == NXDOMAIN ]] || check_failed "$what: $blocked.example.test is $got, expected NXDOMAIN (block list of config $version)"
  got=$(status_of "$open.example.test")
  [[ $got == NOERROR ]] || check_failed "$what: $open.example.test is $got, expected NOERROR (not in config $version's block list)"
  got=$($D -p "$PORT" +short nas.lan A 2>&1 || true)
  [[ $got == "192.168.7.$([[ $version == A ]] && echo 1 || echo 2)" ]] ||
    check_failed "$what: nas.lan answered '$got', expected config $version's hosts file"
}

LOG=$WORK/dnsward.log
start_dnsward "$LOG"
echo "dnsward $BIN on 127.0.0.1:$PORT, Knot on 127.0.0.1:$KNOT_PORT  [${SECONDS}s]"
expect_config "at start" A 192.168.1.10

# --- the load, and the reloads under it ---------------------------------------------

# Of every four questions: the override, a cached name, and two names never
# asked before (Knot's wildcard), so that about half the load is forwarded.
awk 'BEGIN { for (i = 1; i <= 40000; i++) printf "printer.lan A\nwww.example.test A\nn%d.load.example.test A\nm%d.load.example.test A\n", i, i }' \
  >"$WORK/queries.txt"
dnsperf -s 127.0.0.1 -p "$PORT" -d "$WORK/queries.txt" -l "$DURATION" -Q "$RATE" -c 4 -t 5 \
  >"$WORK/dnsperf.txt" 2>&1 &
PERF_PID=$!
track "$PERF_PID"
PERF_STARTED=$SECONDS
# A client asking every 20 ms: the override, and a name never asked before
# (forwarded, to whichever upstreams are configured).
$PROBE watch "$PORT" 0.02 override:NOERROR:-:printer.lan:A:udp \
  fresh:NOERROR:192.0.2.99:p{n}.load.example.test:A:udp >"$WORK/watch.txt" &
WATCH_PID=$!
track "$WATCH_PID"
sleep 1

reloads=0 refused=0 version=A address=192.168.1.10
: >"$WORK/hups.txt"
if [[ $RELOAD_SIGNALS != 0 ]]; then
  bad_at=$(awk -v d="$DURATION" -v i="$INTERVAL" 'BEGIN { n = int((d - 2) / i); print int(n / 2) }')
  n=0
  while true; do
    n=$((n + 1))
    # Stop a second before dnsperf does, so every reload is under load.
    if ((SECONDS - PERF_STARTED >= DURATION - 1)) || ! kill -0 "$PERF_PID" 2>/dev/null; then break; fi
    next_started=$(date +%s.%N)
    if ((n == bad_at)); then
      # The bad config: refused with its line, the running one stays.
      before=$(refused_count "$LOG")
      write_config "$([[ $version == A ]] && echo B || echo A)" 192.168.1.99 bad
      date +%s.%N >>"$WORK/hups.txt"
      kill -HUP "$DNSWARD_PID" 2>/dev/null || { check_failed "reload $n: dnsward exited before its SIGHUP"; break; }
      if ! wait_for_count refused_count "$LOG" $((before + 1)); then
        check_failed "reload $n (a bad line): no 'reload refused; the running config stays' in the log within ${RELOAD_WAIT}s of SIGHUP"
        break
      fi
      grep -q -F "$CONF:$OVERRIDE_LINE:" "$LOG" ||
        check_failed "reload $n (a bad line): no '$CONF:$OVERRIDE_LINE:' line in the log"
      expect_config "after the refused reload $n" "$version" "$address"
      refused=$((refused + 1))
    else
      # The config in force stays $version/$address until this one is.
      [[ $version == A ]] && new_version=B || new_version=A
      new_address=192.168.1.$((10 + n))
      before=$(reloaded_count "$LOG")
      write_config "$new_version" "$new_address"
      date +%s.%N >>"$WORK/hups.txt"
      kill -HUP "$DNSWARD_PID" 2>/dev/null || { check_failed "reload $n: dnsward exited before its SIGHUP"; break; }
      if ! wait_for_count reloaded_count "$LOG" $((before + 1)); then
        if kill -0 "$DNSWARD_PID" 2>/dev/null; then
          check_failed "reload $n: no line starting 'reloaded ' in the log within ${RELOAD_WAIT}s of SIGHUP (dnsward still running: SIGHUP not implemented?)"
        else
          check_failed "reload $n: dnsward exited after SIGHUP"
        fi
        break
      fi
      version=$new_version address=$new_address
      expect_config "after reload $n" "$version" "$address"
      reloads=$((reloads + 1))
    fi
    sleep "$(awk -v s="$next_started" -v i="$INTERVAL" -v now="$(date +%s.%N)" \
      'BEGIN { d = s + i - now; print (d > 0 ? d : 0) }')"
  done
fi
if [[ $RELOAD_SIGNALS != 0 ]] && ((FAILURES == 0)) && ((refused != 1 || reloads < 5)); then
  check_failed "only $reloads reloads and $refused refused in the run (expected at least 5, and 1 refused)"
fi
wait "$PERF_PID" || check_failed "dnsperf exited with status $?: $(cat "$WORK/dnsperf.txt")"
untrack "$PERF_PID"
stop_process "$WATCH_PID"
kill -0 "$DNSWARD_PID" 2>/dev/null || check_failed "dnsward is not running after the load"
[[ $(override_answer) == "$address" ]] ||
  check_failed "after the run: printer.lan answered '$(override_answer)', expected the last config's $address"

sent=$(dnsperf_field "$WORK/dnsperf.txt" "Queries sent")
completed=$(dnsperf_field "$WORK/dnsperf.txt" "Queries completed")
lost=$(dnsperf_field "$WORK/dnsperf.txt" "Queries lost")
rcodes=$(awk '/Response codes/ { sub(/.*Response codes: */, ""); print }' "$WORK/dnsperf.txt")
read -r avg_ms max_ms < <(awk '/Average Latency/ { gsub(/[(),]/, " "); printf "%.2f %.2f\n", $5 * 1000, $9 * 1000 }' \
  "$WORK/dnsperf.txt")
[[ -n $lost ]] || check_failed "dnsperf printed no 'Queries lost:' line: $(cat "$WORK/dnsperf.txt")"
[[ ${lost:-x} == 0 ]] || check_failed "dnsperf: $lost queries lost (of $sent sent)"
[[ $rcodes =~ ^NOERROR\ [0-9]+\ \(100\.00%\)$ ]] || check_failed "dnsperf: answers other than NOERROR: $rcodes"
awk -v max="$max_ms" -v bound="$MAX_PAUSE_MS" 'BEGIN { exit !(max <= bound) }' ||
  check_failed "dnsperf: a query waited $max_ms ms for its answer, more than MAX_PAUSE_MS ($MAX_PAUSE_MS)"
# The probe's answers: the longest within 0.5 s after a SIGHUP, and overall;
# a probe question never answered (LOST) or answered wrong is a failure.
read -r probe_after_hup probe_max probe_count probe_bad < <(awk '
  FILENAME == ARGV[1] { hup[++h] = $1; next }
  { n++; if ($3 != "OK") bad++; if ($4 > max) max = $4
    for (i = 1; i <= h; i++) if ($1 - $4 / 1000 >= hup[i] && $1 - $4 / 1000 < hup[i] + 0.5 && $4 > near) near = $4 }
  END { printf "%.2f %.2f %d %d\n", near, max, n, bad }' "$WORK/hups.txt" "$WORK/watch.txt")
((probe_bad == 0)) || check_failed "probe: $probe_bad of $probe_count answers wrong or lost: $(grep -v ' OK ' "$WORK/watch.txt" | head -5)"

# --- workers 2: the main process passes SIGHUP on to both workers ---------------------

stop_process "$DNSWARD_PID"
WORKERS_LINE="workers 2"
PORT=$((PORT + 1))
WLOG=$WORK/dnsward-workers.log
start_dnsward "$WLOG"
# The main process is worker 0 and forks the others.
forked=$(pgrep -P "$DNSWARD_PID" | wc -l || true)
((forked == 1)) || check_failed "workers 2: $forked worker processes forked by $DNSWARD_PID, expected 1"
worker_reloads=0 worker_new=0
if [[ $RELOAD_SIGNALS != 0 ]]; then
  write_config B 192.168.1.200
  if ! kill -HUP "$DNSWARD_PID" 2>/dev/null; then
    check_failed "workers 2: dnsward exited before its SIGHUP"
  elif wait_for_count reloaded_count "$WLOG" 1; then
    sleep 0.2 # the second worker's line
    worker_reloads=$(reloaded_count "$WLOG")
    for _ in $(seq 1 "$WORKER_ASKS"); do
      # Each dig is a new socket: a new source port, hashed to either worker.
      if [[ $(override_answer) == 192.168.1.200 ]]; then worker_new=$((worker_new + 1)); fi
    done
    ((worker_new == WORKER_ASKS)) ||
      check_failed "workers 2: $((WORKER_ASKS - worker_new)) of $WORKER_ASKS answers after SIGHUP kept the old override (a worker did not reload)"
  else
    check_failed "workers 2: no line starting 'reloaded ' in the log within ${RELOAD_WAIT}s of SIGHUP to the main process"
  fi
fi

echo
echo "| reload under load | value |"
echo "| --- | --- |"
echo "| load | dnsperf -Q $RATE for $DURATION s, 4 clients: override, cached and never-asked (forwarded) names |"
echo "| queries sent / completed / lost | $sent / $completed / $lost |"
echo "| response codes | $rcodes |"
echo "| reloads (SIGHUP every $INTERVAL s) | $reloads done, $refused refused (a bad line) |"
echo "| dnsperf latency average / longest | $avg_ms ms / $max_ms ms |"
echo "| probe every 20 ms: longest answer within 0.5 s after a SIGHUP / overall | $probe_after_hup ms / $probe_max ms ($probe_count answers) |"
echo "| workers 2: 'reloaded' lines, answers with the new override | $worker_reloads, $worker_new of $WORKER_ASKS |"
echo "| time | ${SECONDS}s |"
if ((FAILURES > 0)); then
  echo "reload.sh: $FAILURES check(s) failed; the log of the run under load:" >&2
  tail -40 "$LOG" >&2
  exit 1
fi
echo "reload.sh: all checks passed"
