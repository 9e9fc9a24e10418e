#!/usr/bin/env bash
# The "domestic list" pattern (issue 15 part 2): a list of N domains in the
# dnsmasq-china-list format (`server=/NAME/114.114.114.114`) routed to one
# upstream with `for-list`, every other name to another. Measures
#   - dnsward-confgen (release) on the config with the list, and the -O
#     compile of the generated source with the modules it needs (what a
#     build with the list compiled in adds), against the config without it;
#   - the bytes the list adds to the compiled object (its route tables),
#     per domain;
#   - start-up with `--config` (exec to the first answer), with and without
#     the list;
#   - the route lookup alone (`OverrideTable.routeGroup` on the compiled
#     table, -O): nanoseconds of CPU per lookup, routed and unrouted names;
#   - CPU per forwarded query (utime + stime from /proc over a fixed-rate
#     dnsperf run, cache off), in turns: routed and unrouted names through
#     dnsward with the list, and the unrouted names through a dnsward
#     without any `for` (no route table: the lookup is skipped); every
#     upstream is `bench/echo.c` on loopback.
#
#   bash Tests/Benchmarks/routes.sh                 # N=100000
#   N=1000000 DURATION=20 bash Tests/Benchmarks/routes.sh
#   CALLGRIND=1 ...                                  # and instructions per query (valgrind)
#
# Needs dnsperf, gcc and python3 (valgrind for CALLGRIND=1). Only 127.0.0.1 is used. Not a test: the
# figures go in Tests/Benchmarks/README.md and Sources/Config/README.md.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench/common.sh"
N=${N:-100000}
DURATION=${DURATION:-10}
QPS=${QPS:-4000}
ROUNDS=${ROUNDS:-3}
work_dir

# --- The list: N distinct names, deterministic, a random label and a TLD.
random_names "$N" "cn com.cn net.cn com net org" >"$WORK/names.txt"
sed 's|.*|server=/&/114.114.114.114|' "$WORK/names.txt" >"$WORK/china.conf"
# Workloads: listed names one label below the listed domain, and the same
# names with their listed label changed, which no domain of the list
# matches (the lookup then walks every label up to the root).
shuf -n 10000 --random-source=<(yes) "$WORK/names.txt" | sed 's/^/www./' >"$WORK/routed.names"
sed 's/^www\./www.x/' "$WORK/routed.names" >"$WORK/unrouted.names"
for kind in routed unrouted; do sed 's/$/ A/' "$WORK/$kind.names" >"$WORK/$kind.txt"; done

gcc -O2 -o "$WORK/echo" "$ROOT/Tests/Benchmarks/bench/echo.c"
DOMESTIC=$(free_port 27400)
"$WORK/echo" "$DOMESTIC" & track $!
TRUSTED=$(free_port $((DOMESTIC + 1)))
"$WORK/echo" "$TRUSTED" & track $!
PROXY=$(free_port $((TRUSTED + 1)))
PLAIN=$(free_port $((PROXY + 1)))

config() {  # config WITH_LIST
  echo "listen 127.0.0.1:$PROXY"
  echo "upstream udp 127.0.0.1:$TRUSTED"
  if [[ $1 == yes ]]; then
    echo "upstream udp 127.0.0.1:$DOMESTIC for-list $WORK/china.conf"
  else
    echo "upstream udp 127.0.0.1:$DOMESTIC for example.cn"
  fi
  echo "override probe.test 192.0.2.1"
  echo "cache 0"
  echo "log warning"
}
config yes >"$WORK/list.conf"
config no >"$WORK/base.conf"

swift build -c release --package-path "$ROOT" --product dnsward >/dev/null
swift build -c release --package-path "$ROOT" --product dnsward-confgen >/dev/null
BIN=$(swift build -c release --package-path "$ROOT" --show-bin-path)

# --- Build: confgen, then the generated source compiled -O with DNSWire and
# CompiledConfig (imports removed: one module), as one object.
wire_table_sources "$ROOT" "$WORK/modules"
cat >"$WORK/lookup-main.swift" <<'SWIFT'
import Glibc

func cpuNanoseconds() -> UInt64 {
  var time = timespec()
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
  return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

@main enum RouteLookup {
  static func main() {
    let routes = compiledSettings().routes
    var flat: [[UInt8]] = []
    var buffer = [UInt8](repeating: 0, count: Name.maxLength)
    while let line = readLine() {
      let text = Array(line.utf8)
      let length = text.withUnsafeBytes { source in
        buffer.withUnsafeMutableBytes { (try? Name.parse(text: source, into: $0)) ?? 0 }
      }
      if length > 0 { flat.append(Array(buffer[0..<length])) }
    }
    var routed = 0
    let start = cpuNanoseconds()
    for _ in 0..<50 {
      for name in flat { routed += name.withUnsafeBytes { routes.routeGroup($0) } == 0 ? 0 : 1 }
    }
    let perLookup = Double(cpuNanoseconds() - start) / Double(50 * flat.count)
    print("\(flat.count * 50) lookups, \(routed) routed, \(Int(perLookup.rounded())) ns CPU per lookup")
  }
}
SWIFT
for kind in base list; do
  /usr/bin/time -f "%e %M" -o "$WORK/confgen-$kind.time" \
    "$BIN/dnsward-confgen" "$WORK/$kind.conf" "$WORK/$kind.generated.swift"
  grep -v '^import ' "$WORK/$kind.generated.swift" >"$WORK/$kind.swift"
  /usr/bin/time -f "%e %M" -o "$WORK/compile-$kind.time" \
    swiftc -O -wmo -parse-as-library -module-name Routes -c -o "$WORK/$kind.o" \
    "$WORK/$kind.swift" "$WORK/modules"/*.swift
done
swiftc -O -wmo -module-name RouteLookup -o "$WORK/lookup" "$WORK/list.swift" \
  "$WORK/modules"/*.swift "$WORK/lookup-main.swift"
read -r confgen_s confgen_kb <"$WORK/confgen-list.time"
read -r compile_s compile_kb <"$WORK/compile-list.time"
read -r base_compile_s _ <"$WORK/compile-base.time"
object_list=$(size -A "$WORK/list.o" | awk '$1 ~ /^\.(rodata|data|text)/ { sum += $2 } END { print sum }')
object_base=$(size -A "$WORK/base.o" | awk '$1 ~ /^\.(rodata|data|text)/ { sum += $2 } END { print sum }')
echo "N=$N domains; list file $(stat -c %s "$WORK/china.conf") bytes"
printf 'dnsward-confgen (release): %s s, peak RSS %d MB; generated source %d KB\n' \
  "$confgen_s" $((confgen_kb / 1024)) $(($(stat -c %s "$WORK/list.generated.swift") >> 10))
printf 'swiftc -O of the generated config: %s s with the list, %s s without (peak RSS %d MB)\n' \
  "$compile_s" "$base_compile_s" $((compile_kb / 1024))
awk -v list="$object_list" -v base="$object_base" -v n="$N" 'BEGIN {
  printf "compiled object: %d bytes more with the list: %.1f bytes per domain\n",
    list - base, (list - base) / n }'

for kind in routed unrouted; do
  echo "route lookup, $kind names: $("$WORK/lookup" <"$WORK/$kind.names")"
done

# --- Start-up with --config: exec to the first answer (an override).
cat >"$WORK/first-answer.py" <<'PY'
import socket, struct, subprocess, sys, time
port, command = int(sys.argv[1]), sys.argv[2:]
query = struct.pack(">HHHHHH", 1, 0x0100, 1, 0, 0, 0) + b"\x05probe\x04test\x00" + struct.pack(">HH", 1, 1)
client = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
client.settimeout(0.002)
start = time.monotonic()
server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
while time.monotonic() - start < 60:
    if server.poll() is not None:
        sys.exit(f"{command[0]} exited with status {server.returncode}")
    client.sendto(query, ("127.0.0.1", port))
    try:
        client.recv(512)
        break
    except socket.timeout:
        pass
print(f"{(time.monotonic() - start) * 1000:.0f}")
server.terminate()
server.wait()
PY
for kind in base list; do
  times=()
  for _ in 1 2 3; do times+=("$(python3 "$WORK/first-answer.py" "$PROXY" "$BIN/dnsward" --config "$WORK/$kind.conf")")
  done
  echo "start-up to the first answer, --config $kind: ${times[*]} ms"
done

# --- CPU per forwarded query, in turns: routed and unrouted names through
# dnsward with the list, unrouted names through one without routes.
"$BIN/dnsward" --config "$WORK/list.conf" >"$WORK/dnsward.log" 2>&1 &
LIST_PID=$!
track "$LIST_PID"
{
  echo "listen 127.0.0.1:$PLAIN"
  echo "upstream udp 127.0.0.1:$TRUSTED"
  echo "cache 0"
  echo "log warning"
} >"$WORK/plain.conf"
"$BIN/dnsward" --config "$WORK/plain.conf" >"$WORK/plain.log" 2>&1 &
PLAIN_PID=$!
track "$PLAIN_PID"
sleep 1
measure() {  # measure LABEL PID PORT WORKLOAD
  local before after out completed
  before=$(cpu_ticks "$2")
  out=$(dnsperf -s 127.0.0.1 -p "$3" -d "$WORK/$4.txt" -l "$DURATION" -c 8 -Q "$QPS" 2>&1)
  after=$(cpu_ticks "$2")
  completed=$(echo "$out" | awk '/Queries completed/ {print $3}')
  printf '%-18s %7d answered, %s us CPU per query\n' "$1" "$completed" \
    "$(cpu_us_per_query $((after - before)) "$completed")"
}
for _ in $(seq "$ROUNDS"); do
  measure list/routed "$LIST_PID" "$PROXY" routed
  measure list/unrouted "$LIST_PID" "$PROXY" unrouted
  measure no-routes/unrouted "$PLAIN_PID" "$PLAIN" unrouted
done | tee "$WORK/cpu"
awk '{ cost[$1] += $4; runs[$1]++ } END {
  r = cost["list/routed"] / runs["list/routed"]
  u = cost["list/unrouted"] / runs["list/unrouted"]
  p = cost["no-routes/unrouted"] / runs["no-routes/unrouted"]
  printf "mean CPU per query: routed %.2f us, unrouted %.2f us, without routes %.2f us\n", r, u, p
  printf "routed/unrouted %.3f, routed/without routes %.3f, unrouted/without routes %.3f\n",
    r / u, r / p, u / p }' "$WORK/cpu"

# --- CALLGRIND=1: instructions per query in Engine.handleClientQuery (the
# route lookup is inlined there), 2,000 queries each under valgrind: routed
# and unrouted names with the list, unrouted names without routes.
[[ -n ${CALLGRIND:-} ]] || exit 0
stop_process "$LIST_PID"
stop_process "$PLAIN_PID"
callgrind() {  # callgrind LABEL CONFIG PORT WORKLOAD
  head -2000 "$WORK/$4.txt" >"$WORK/$1.cg.txt"
  valgrind --tool=callgrind --callgrind-out-file="$WORK/$1.cg" "$BIN/dnsward" --config "$2" \
    2>"$WORK/$1.vg.log" &
  local pid=$! completed
  sleep 8
  completed=$(dnsperf -s 127.0.0.1 -p "$3" -d "$WORK/$1.cg.txt" -n 1 -c 1 -Q 200 2>&1 |
    awk '/Queries completed/ {print $3}')
  kill -INT "$pid"
  wait "$pid" || true
  callgrind_annotate --inclusive=yes "$WORK/$1.cg" | grep 'handleClientQuery_4from' |
    grep -v '=>' | head -1 | awk -v n="$completed" -v w="$1" \
    '{ gsub(",", "", $1); printf "%-18s %d instructions per query in handleClientQuery\n", w, $1 / n }'
}
callgrind list/routed "$WORK/list.conf" "$PROXY" routed
callgrind list/unrouted "$WORK/list.conf" "$PROXY" unrouted
callgrind no-routes/unrouted "$WORK/plain.conf" "$PLAIN" unrouted
