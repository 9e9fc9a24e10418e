#!/usr/bin/env bash
# A million-name block list compiled into dnsward (issue 5 part 4): build
# time, binary size per name, start-up time to the first answer, lookup cost
# and RSS, against dnsmasq loading the same names as `address=/NAME/` lines.
#
#   bash Tests/Benchmarks/blocklist.sh                  # N=1000000
#   N=100000 SKIP_AARCH64=1 bash Tests/Benchmarks/blocklist.sh
#   KEEP=1 ...                                          # keep WORK (printed)
#
# Builds, each once without the list (the baseline for size and build time:
# a config that blocks the list's dozen TLDs instead) and once with it,
# incrementally:
#   spm         the host SwiftPM release binary: SwiftPM compiles only
#               Sources/DefaultConfig/dnsward.conf, so a copy of the package
#               gets the config there (with an absolute `block-list` path);
#   fw-host     the Embedded firmware for this machine (cmake, DNSWARD_TARGET=host);
#   fw-aarch64  the aarch64 firmware, run under qemu-aarch64 (times emulated).
# Then runs, one after another on one loopback port with Knot on loopback as
# the upstream: the compiled-in list (SwiftPM and Embedded), the same list
# read at start-up (`--config`), the baseline binary, and dnsmasq; prints the
# time from exec to the first answer, RSS, and CPU per query (utime + stime
# from /proc over a fixed-rate dnsperf run) for blocked names and for names
# that miss the list and hit the cache. A microbenchmark (blocklist-lookup.swift)
# times the lookup alone.
#
# Needs cmake, ninja, dnsperf, dnsmasq, knot, python3, aarch64-linux-gnu-gcc
# and qemu-aarch64. Only 127.0.0.1 is used.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bench/common.sh"
N=${N:-1000000}
RATE=${RATE:-20000}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-10}
work_dir

PROXY=$(free_port 27353)
UPSTREAM=$(free_port $((PROXY + 1)))
start_knot "$UPSTREAM"

# --- The list: N distinct names, deterministic, shaped like real block lists
# (a random label with a number, an optional tracker-like first label, a TLD).
random_names "$N" "com net org io co.uk de info biz xyz ru cn app" \
  "ads track pixel metrics cdn stats" >"$WORK/names.txt"
sed 's|.*|address=/&/|' "$WORK/names.txt" >"$WORK/dnsmasq-list.conf"
PROBE=$(head -1 "$WORK/names.txt")
# Workloads: listed names (half asked one label below), and names that miss
# the list and are answered from the cache (Knot's zone, asked before).
shuf -n 100000 --random-source=<(yes) "$WORK/names.txt" |
  awk 'NR % 2 { print $0 " A"; next } { print "www." $0 " A" }' >"$WORK/blocked.txt"
printf 'www.example.test A\nwww.example.test AAAA\nalias.example.test A\nns.example.test A\n' \
  >"$WORK/missed.txt"
shuf -n 100000 --random-source=<(yes) "$WORK/names.txt" | sed 's/$/.miss/' >"$WORK/lookup-missed.txt"
sed 's/ A$//' "$WORK/blocked.txt" >"$WORK/lookup-blocked.txt"

common_config="listen 127.0.0.1:$PROXY
upstream udp 127.0.0.1:$UPSTREAM
cache 4096
cache-bytes 1m
override printer.lan 192.168.1.20
log warning"
# The baseline blocks the list's dozen TLDs instead: the same local answers
# (NXDOMAIN from the table) for the same queries, from a 12-entry table.
{
  printf '%s\n' "$common_config"
  awk -F. '{ print "block " $NF }' "$WORK/names.txt" | sort -u
} >"$WORK/base.conf"
printf '%s\nblock-list %s\n' "$common_config" "$WORK/names.txt" >"$WORK/list.conf"

# --- Builds. `timed LABEL COMMAND...` runs COMMAND, logging to WORK/LABEL.log,
# and records its wall time and peak RSS (of the largest process) in TIMES.
declare -A TIMES
timed() {
  local label=$1
  shift
  /usr/bin/time -f '%e %M' -o "$WORK/$label.time" "$@" >"$WORK/$label.log" 2>&1 ||
    { tail -30 "$WORK/$label.log"; fail "$label"; }
  TIMES[$label]=$(cat "$WORK/$label.time")
}
# stripped_size BINARY: its size stripped (the firmware's are stripped
# already, by the build, and the host's strip cannot read the aarch64 one).
stripped_size() {
  case $1 in
    */dnsward-fw-*) stat -c %s "$1" ;;
    *) strip -o "$WORK/stripped.tmp" "$1" && stat -c %s "$WORK/stripped.tmp" ;;
  esac
}

# Every build and the microbenchmark use one snapshot of the package, so
# that edits made meanwhile cannot slip into one build and not the other.
SNAPSHOT=$WORK/spm
mkdir -p "$SNAPSHOT"
cp -R "$ROOT/Package.swift" "$ROOT/Sources" "$ROOT/Tests" "$ROOT/Board" "$ROOT/Toolchain.cmake" \
  "$SNAPSHOT/"
SPM=(swift build -c release --package-path "$SNAPSHOT" --scratch-path "$WORK/spm-build"
  --product)
cp "$WORK/base.conf" "$SNAPSHOT/Sources/DefaultConfig/dnsward.conf"
timed spm-base "${SPM[@]}" dnsward
BIN=$WORK/spm-build/release
cp "$BIN/dnsward" "$WORK/dnsward-spm-base"
cp "$WORK/list.conf" "$SNAPSHOT/Sources/DefaultConfig/dnsward.conf"
timed spm-list "${SPM[@]}" dnsward
cp "$BIN/dnsward" "$WORK/dnsward-spm-list"
"${SPM[@]}" dnsward-confgen >>"$WORK/spm-list.log" 2>&1
timed confgen "$BIN/dnsward-confgen" "$WORK/list.conf" "$WORK/list.generated.swift"

firmware() {  # firmware TARGET: builds WORK/fw-TARGET without, then with the list
  local dir=$WORK/fw-$1
  cmake -S "$SNAPSHOT/Board" -B "$dir" -G Ninja -DDNSWARD_TARGET="$1" \
    -DDNSWARD_CONFIG="$WORK/base.conf" >"$dir.log" 2>&1 || { cat "$dir.log"; fail "configure $1"; }
  timed "fw-$1-base" cmake --build "$dir"
  cp "$dir/dnsward.stripped" "$WORK/dnsward-fw-$1-base"
  cmake -S "$SNAPSHOT/Board" -B "$dir" -DDNSWARD_CONFIG="$WORK/list.conf" >>"$dir.log" 2>&1
  timed "fw-$1-list" cmake --build "$dir"
  cp "$dir/dnsward.stripped" "$WORK/dnsward-fw-$1-list"
  # Per step of the incremental build, from Ninja's log (milliseconds).
  awk '!/^#/ { sub(".*/", "", $4); step[$4] = $2 - $1 }
    END { printf "confgen %.1f s, DefaultConfig %.1f s, main module %.1f s, link %.1f s\n",
      step["DefaultConfig.generated.swift"] / 1000, step["DefaultConfig.o"] / 1000,
      step["dnsward.o"] / 1000, step["dnsward"] / 1000 }' "$dir/.ninja_log" >"$WORK/fw-$1-steps"
}
firmware host
[[ -n ${SKIP_AARCH64:-} ]] || firmware aarch64

# --- Lookup microbenchmark: the compiled table and lookup code, -O.
wire_table_sources "$SNAPSHOT" "$WORK/lookup"
grep -v '^import ' "$WORK/list.generated.swift" >"$WORK/lookup/Generated.swift"
cp "$SNAPSHOT/Tests/Benchmarks/blocklist-lookup.swift" "$WORK/lookup/main.swift"
timed lookup-build swiftc -O -wmo -module-name Lookup -o "$WORK/blocklist-lookup" "$WORK/lookup"/*.swift
"$WORK/blocklist-lookup" 20 <"$WORK/lookup-blocked.txt" >"$WORK/lookup-blocked.out"
"$WORK/blocklist-lookup" 20 <"$WORK/lookup-missed.txt" >"$WORK/lookup-missed.out"

# --- Runs. first-answer.py starts a server and asks for a listed name every
# 2 ms until it answers; prints the PID, the milliseconds from exec to the
# answer, and the answer's RCODE (3: NXDOMAIN, the list is loaded).
cat >"$WORK/first-answer.py" <<'PY'
import socket, struct, subprocess, sys, time
port, name, log, command = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
question = b"".join(bytes([len(label)]) + label.encode() for label in name.split("."))
question += b"\0" + struct.pack(">HH", 1, 1)
client = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
client.settimeout(0.002)
start = time.monotonic()
server = subprocess.Popen(command, stdout=open(log, "ab"), stderr=subprocess.STDOUT,
                          start_new_session=True)
ident = 0
while time.monotonic() - start < 900:
    if server.poll() is not None:
        sys.exit(f"{command[0]} exited with status {server.returncode}")
    ident = (ident + 1) & 0xFFFF
    client.sendto(struct.pack(">HHHHHH", ident, 0x0100, 1, 0, 0, 0) + question,
                  ("127.0.0.1", port))
    try:
        while True:
            reply = client.recv(4096)
            if len(reply) >= 4 and struct.unpack(">H", reply[:2])[0] == ident:
                elapsed = (time.monotonic() - start) * 1000
                print(server.pid, f"{elapsed:.1f}", reply[3] & 0xF)
                sys.exit(0)
    except socket.timeout:
        pass
server.kill()
sys.exit("no answer in 900 s")
PY

# workload PID FILE: "µs-CPU-per-query qps" for a fixed-rate dnsperf run.
workload() {
  local before after log=$WORK/dnsperf-$RANDOM.log
  before=$(cpu_ticks "$1")
  dnsperf -s 127.0.0.1 -p "$PROXY" -d "$2" -l "$SECONDS_PER_RUN" -c 4 -Q "$RATE" >"$log" 2>&1
  after=$(cpu_ticks "$1")
  awk -v ticks=$((after - before)) -v hz="$CLK_TCK" '
    /Queries completed/ { done = $3 }
    /Queries per second/ { qps = $4 }
    END { if (done > 0) printf "%.1f %d\n", ticks / hz * 1e6 / done, qps; else print "- 0" }' "$log"
}

printf '\n%-34s %10s %9s %9s %9s %11s %11s\n' "server" "first ans" "RSS" "peak RSS" "RssFile" \
  "µs/blocked" "µs/missed"
# run LABEL COMMAND...: one row of the table.
run() {
  local label=$1 pid ms rcode blocked missed
  shift
  read -r pid ms rcode < <(python3 "$WORK/first-answer.py" "$PROXY" "$PROBE" \
    "$WORK/run-$(tr -c 'A-Za-z0-9\n' - <<<"$label").log" "$@") ||
    fail "$label did not answer"
  track "$pid"
  local rss
  rss=$(status_kb "$pid" VmRSS)
  dnsperf -s 127.0.0.1 -p "$PROXY" -d "$WORK/missed.txt" -n 10 -c 1 >/dev/null 2>&1  # warm the cache
  read -r blocked blocked_qps < <(workload "$pid" "$WORK/blocked.txt")
  read -r missed missed_qps < <(workload "$pid" "$WORK/missed.txt")
  printf '%-34s %7s ms %6s kB %6s kB %6s kB %11s %11s   (rcode %s, %s + %s q/s)\n' "$label" "$ms" \
    "$rss" "$(status_kb "$pid" VmHWM)" "$(status_kb "$pid" RssFile)" "$blocked" "$missed" \
    "$rcode" "$blocked_qps" "$missed_qps"
  kill "$pid"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  untrack "$pid"
}
run "dnsward SwiftPM, list compiled in" "$WORK/dnsward-spm-list"
run "dnsward SwiftPM, --config list" "$WORK/dnsward-spm-base" --config "$WORK/list.conf"
run "dnsward SwiftPM, 12 TLD blocks" "$WORK/dnsward-spm-base"
run "dnsward Embedded host, compiled" "$WORK/dnsward-fw-host-list"
run "dnsward Embedded host, 12 TLD blocks" "$WORK/dnsward-fw-host-base"
{
  dnsmasq_config "$PROXY" "$UPSTREAM"
  echo "cache-size=4096"
  echo "conf-file=$WORK/dnsmasq-list.conf"
} >"$WORK/dnsmasq.conf"
run "$(version_dnsmasq), address=/NAME/" \
  dnsmasq -k -C "$WORK/dnsmasq.conf" --log-facility=- --pid-file=
if [[ -z ${SKIP_AARCH64:-} ]]; then
  for variant in base list; do
    read -r pid ms rcode < <(python3 "$WORK/first-answer.py" "$PROXY" "$PROBE" \
      "$WORK/qemu-$variant.log" qemu-aarch64 -L "$(qemu_sysroot aarch64-linux-gnu)" "$WORK/dnsward-fw-aarch64-$variant") ||
      fail "aarch64 $variant did not answer"
    track "$pid"
    printf '%-34s %7s ms   (rcode %s; emulated)\n' "dnsward aarch64 qemu, $variant" "$ms" "$rcode"
    kill "$pid"
    while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
    untrack "$pid"
  done
fi

# --- Builds and sizes.
names_bytes=$(stat -c %s "$WORK/names.txt")
echo
echo "list: $N names, $names_bytes bytes of text ($(awk -v b="$names_bytes" -v n="$N" \
  'BEGIN { printf "%.1f", b / n }') per name with its newline)"
read -r confgen_s confgen_kb <<<"${TIMES[confgen]}"
printf 'dnsward-confgen (release): %s s, peak RSS %d MB; generated source %d MB\n' "$confgen_s" \
  $((confgen_kb / 1024)) $(($(stat -c %s "$WORK/list.generated.swift") >> 20))
row() {  # row LABEL BASE-BINARY LIST-BINARY BASE-TIMING LIST-TIMING
  local base list
  base=$(stripped_size "$2")
  list=$(stripped_size "$3")
  read -r base_s _ <<<"${TIMES[$4]}"
  read -r list_s list_kb <<<"${TIMES[$5]}"
  printf '%-22s build %7s s (+list, incremental: %6s s, peak RSS %5d MB)  stripped %9d -> %9d B  %5.1f B/name\n' \
    "$1" "$base_s" "$list_s" $((list_kb / 1024)) "$base" "$list" \
    "$(awk -v d=$((list - base)) -v n="$N" 'BEGIN { print d / n }')"
}
row "SwiftPM release, host" "$WORK/dnsward-spm-base" "$WORK/dnsward-spm-list" spm-base spm-list
row "Embedded host" "$WORK/dnsward-fw-host-base" "$WORK/dnsward-fw-host-list" fw-host-base fw-host-list
echo "  Embedded host, incremental steps: $(cat "$WORK/fw-host-steps")"
if [[ -z ${SKIP_AARCH64:-} ]]; then
  row "Embedded aarch64" "$WORK/dnsward-fw-aarch64-base" "$WORK/dnsward-fw-aarch64-list" \
    fw-aarch64-base fw-aarch64-list
  echo "  Embedded aarch64, incremental steps: $(cat "$WORK/fw-aarch64-steps")"
fi
echo
echo "lookup alone (-O, CPU time, 20 passes of 100,000 queries):"
echo "  listed names (half one label below): $(cat "$WORK/lookup-blocked.out")"
echo "  missing names (one label more):      $(cat "$WORK/lookup-missed.out")"
