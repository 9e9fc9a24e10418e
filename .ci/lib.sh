# shellcheck shell=bash
# Sourced by the .ci scripts and the benchmarks (Tests/Benchmarks): what
# every one of them needs once, so that each script holds only its own
# checks. Only 127.0.0.1 is ever used.

# Once per script: bench.sh sources this and then bench/common.sh, which
# sources it too; a second pass would forget the processes already tracked.
[[ -z ${DNSWARD_LIB_LOADED:-} ]] || return 0
DNSWARD_LIB_LOADED=1

# The repository: every script finds its files from here.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# --- messages ------------------------------------------------------------------
# Every message names the script that printed it (CI runs many in a row).
SCRIPT_NAME=${0##*/}

# step MESSAGE: a heading, with the seconds since the script started.
step() { printf '\n==> %s  [%ds]\n' "$*" "$SECONDS"; }

# fail MESSAGE: stops the script with exit status 1 (cleanup runs).
fail() {
  printf '\n%s: FAILED: %s\n' "$SCRIPT_NAME" "$*" >&2
  exit 1
}

# check_failed MESSAGE: a failed check after which the script goes on, so
# that one run reports every failure; FAILURES counts them, and the script
# exits non-zero at its end when it is not 0.
FAILURES=0
check_failed() {
  echo "$SCRIPT_NAME: FAILED: $*" >&2
  FAILURES=$((FAILURES + 1))
}

# skip MESSAGE: the script cannot run on this machine (a tool is missing):
# says so and exits 0, or with STRICT=1 fails (CI, where it must run).
skip() {
  [ "${STRICT:-0}" != 1 ] || fail "$*"
  echo "$SCRIPT_NAME: SKIPPED: $*"
  exit 0
}

# need TOOL...: fails unless every TOOL is on PATH.
need() {
  local tool
  for tool; do
    command -v "$tool" >/dev/null || fail "'$tool' not found on PATH (see the header of $0)"
  done
}

# dnsperf_field FILE KEY: the first value after "KEY:" in dnsperf's summary.
dnsperf_field() {
  awk -v key="$2" 'index($0, key) == 3 || index($0, key) == 1 { sub(/^[^:]*: */, ""); print $1; exit }' "$1"
}

# --- cleanup ---------------------------------------------------------------------
# One EXIT trap for every script: it ends the tracked background processes
# (SIGTERM, then waits for each), runs the script's CLEANUP_HOOKS (functions
# called with the exit status, after those processes are gone), stops the
# Knot servers start_knot and start_signed_knot started, and removes the
# directories registered with remove_on_exit (with KEEP=1 in the
# environment it prints them and leaves them, to look into). The script's
# exit status stays its own.
PIDS=()
CLEANUP_HOOKS=()
REMOVE_ON_EXIT=()

# track PID...: ended by cleanup unless stop_process ended it before.
track() { PIDS+=("$@"); }

# untrack PID: a tracked process the script has waited for itself (its pid
# may be another process's by the time cleanup runs).
untrack() {
  local pid kept=()
  for pid in "${PIDS[@]}"; do [[ $pid == "$1" ]] || kept+=("$pid"); done
  PIDS=("${kept[@]}")
}

# stop_process PID [SIGNAL]: sends SIGNAL (TERM) to PID, waits for it, and
# no longer tracks it; its exit status is ignored.
stop_process() {
  kill "-${2:-TERM}" "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
  untrack "$1"
}

# remove_on_exit PATH...: removed by cleanup.
remove_on_exit() { REMOVE_ON_EXIT+=("$@"); }

# work_dir [NAME]: WORK, a new directory for the script's files
# ($TMPDIR/dnsward-NAME.XXXXXX, NAME the script's by default), removed by
# cleanup.
work_dir() {
  local name=${1:-${SCRIPT_NAME%.sh}}
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/dnsward-$name.XXXXXX")
  remove_on_exit "$WORK"
}

cleanup() {
  local status=$? pid hook path
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  PIDS=()
  for hook in "${CLEANUP_HOOKS[@]}"; do "$hook" "$status" || true; done
  stop_knot || true
  stop_signed_knot || true
  for path in "${REMOVE_ON_EXIT[@]}"; do
    if [[ -n ${KEEP:-} ]]; then echo "kept $path"; else rm -rf "$path" || true; fi
  done
}
trap cleanup EXIT

# release_version: Release.version in Sources/CompiledConfig/Release.swift,
# what `dnsward --version` says and every package carries (the packaging
# reads the same line: Board/packaging/release.cmake).
release_version() {
  sed -n 's/.*static let version: StaticString = "\([^"]*\)".*/\1/p' \
    "$ROOT/Sources/CompiledConfig/Release.swift"
}

# free_port N: a port on 127.0.0.1, free for both UDP and TCP, at or after N.
free_port() {
  python3 - "$1" <<'EOF'
import socket, sys
for port in range(int(sys.argv[1]), int(sys.argv[1]) + 200):
    try:
        for kind in (socket.SOCK_DGRAM, socket.SOCK_STREAM):
            s = socket.socket(socket.AF_INET, kind)
            s.bind(("127.0.0.1", port))
            s.close()
        print(port)
        break
    except OSError:
        pass
else:
    sys.exit("no free port")
EOF
}

# start_knot PORT [EXTRA]: Knot DNS on 127.0.0.1:PORT serving a small zone,
# example.test, that exercises A, AAAA, CNAME chains, NXDOMAIN and a large
# answer. EXTRA, optional, is a file of more records (relative names, e.g.
# wildcards) appended to the zone. Sets KNOT_DIR and KNOT_PID; stop_knot
# ends it.
start_knot() {
  local port=$1 extra=${2:-}
  KNOT_DIR=$(mktemp -d)
  cat >"$KNOT_DIR/example.test.zone" <<ZONE
\$ORIGIN example.test.
\$TTL 3600
@       SOA   ns.example.test. admin.example.test. 1 3600 600 86400 60
@       NS    ns.example.test.
ns      A     192.0.2.53
www     A     192.0.2.80
www     AAAA  2001:db8::80
alias   CNAME alias2.example.test.
alias2  CNAME www.example.test.
ZONE
  for i in $(seq 1 80); do echo "big A 198.51.100.$i" >>"$KNOT_DIR/example.test.zone"; done
  if [ -n "$extra" ]; then cat "$extra" >>"$KNOT_DIR/example.test.zone"; fi
  cat >"$KNOT_DIR/knot.conf" <<CONF
server:
    rundir: "$KNOT_DIR"
    listen: 127.0.0.1@$port
database:
    storage: "$KNOT_DIR"
log:
  - target: stderr
    any: warning
zone:
  - domain: example.test
    file: "$KNOT_DIR/example.test.zone"
CONF
  knotd -c "$KNOT_DIR/knot.conf" >"$KNOT_DIR/knotd.log" 2>&1 &
  KNOT_PID=$!
  for _ in $(seq 1 50); do
    if grep -q 192.0.2.80 <<<"$(dig +short +tries=1 +time=1 @127.0.0.1 -p "$port" www.example.test)"; then
      return 0
    fi
    sleep 0.2
  done
  echo "knotd did not start on 127.0.0.1:$port" >&2
  cat "$KNOT_DIR/knotd.log" >&2
  return 1
}

stop_knot() {
  if [ -n "${KNOT_PID:-}" ]; then kill "$KNOT_PID" 2>/dev/null || true; wait "$KNOT_PID" 2>/dev/null || true; fi
  if [ -n "${KNOT_DIR:-}" ]; then rm -rf "$KNOT_DIR"; fi
}

# knot_upstream FIRST [EXTRA]: start_knot (EXTRA: its extra records) on
# UPSTREAM, the first free port from FIRST, and PROXY, the next free port,
# for the server in front of it.
# shellcheck disable=SC2034 # PROXY is the caller's
knot_upstream() {
  UPSTREAM=$(free_port "$1")
  PROXY=$(free_port $((UPSTREAM + 1)))
  start_knot "$UPSTREAM" ${2:+"$2"}
}

# wait_for_answer PORT NAME EXPECTED [PID]: asks 127.0.0.1:PORT for NAME's A
# record every 0.1 s until dig's short answer is EXPECTED; false after 10 s,
# or at once when PID (if given) has exited.
wait_for_answer() {
  local port=$1 name=$2 expected=$3 pid=${4:-}
  for _ in $(seq 1 100); do
    [[ $(dig +short +tries=1 +time=1 @127.0.0.1 -p "$port" "$name" A 2>/dev/null) == "$expected" ]] && return 0
    [[ -z $pid ]] || kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# launch_dnsward BINARY CONFIG PORT NAME EXPECTED: BINARY --config CONFIG in
# the background (tracked; DNSWARD_PID), its output in the log beside
# CONFIG (dnsward.log for dnsward.conf), and waits until it answers NAME
# with EXPECTED on PORT; fails with its log otherwise.
launch_dnsward() {
  local binary=$1 config=$2 port=$3 name=$4 expected=$5
  "$binary" --config "$config" >"${config%.conf}.log" 2>&1 &
  DNSWARD_PID=$!
  track "$DNSWARD_PID"
  wait_for_answer "$port" "$name" "$expected" "$DNSWARD_PID" ||
    { cat "${config%.conf}.log" >&2; fail "dnsward ($binary) did not answer $name on 127.0.0.1:$port; its log above"; }
}

# release_dnsward [SCRATCH]: the dnsward binary a benchmark runs —
# $DNSWARD_BIN when set (the firmware, say), else the SwiftPM release build,
# built first (in SCRATCH, default the package's .build). Prints its path.
release_dnsward() {
  if [ -n "${DNSWARD_BIN:-}" ]; then
    echo "$DNSWARD_BIN"
    return
  fi
  local scratch=()
  [ -n "${1:-}" ] && scratch=(--scratch-path "$1")
  swift build -c release --package-path "$ROOT" --product dnsward "${scratch[@]}" >/dev/null
  echo "$(swift build -c release --package-path "$ROOT" --show-bin-path "${scratch[@]}")/dnsward"
}

# qemu_sysroot TRIPLE: the -L prefix for qemu-user running a dynamically
# linked binary for TRIPLE (aarch64-linux-gnu, arm-linux-gnueabihf). Where
# Debian's multiarch libc6:<arch> is installed (libmbedtls-dev:arm64 pulls it
# in), the host's /etc/ld.so.cache lists that libc under /lib/TRIPLE, and the
# cross loader from /usr/TRIPLE would load it: a different glibc build from
# the loader's own, under which forked workers hang. Then / is the sysroot
# (multiarch loader and libc from one package); otherwise the cross sysroot.
qemu_sysroot() {
  if [[ -e /lib/$1/libc.so.6 ]]; then echo /; else echo "/usr/$1"; fi
}

# start_signed_knot PORT ALGORITHM DENIAL ZONE FILE [ZONE FILE]...: Knot DNS
# on 127.0.0.1:PORT serving each ZONE, signed by knotd itself
# (`dnssec-signing: on`) with one key of its own (a CSK, flags 257, made by
# keymgr and never rolled). ALGORITHM is 8 (RSA/SHA-256), 13 (ECDSA P-256)
# or 15 (Ed25519); DENIAL is nsec or nsec3 (no salt, no extra iterations,
# as RFC 9276 §3.1 asks). Each FILE holds the zone's records (names relative
# to ZONE); the SOA (negative TTL 60 s), the NS and its address are added.
# A ZONE below an earlier one is a signed child: the parent gets its
# delegation and its DS. Sets SIGNED_KNOT_DIR, SIGNED_KNOT_PID and
# SIGNED_KNOT_ANCHOR (the first zone's SHA-256 DS record on one line, for a
# `trust-anchor` line or unbound's `trust-anchor:`); stop_signed_knot ends it.
# With SIGNED_KNOT_STATS=1, Knot counts its queries (mod-stats) and knotc
# reads them through $SIGNED_KNOT_DIR/knot.sock; SIGNED_KNOT_DNSKEY_TTL=N
# publishes the DNSKEY with TTL N seconds (a key that expires in a test).
start_signed_knot() {
  local port=$1 algorithm=$2 denial=$3 name
  shift 3
  local zones=() files=()
  while (($# >= 2)); do
    zones+=("${1%.}")
    files+=("$2")
    shift 2
  done
  case $algorithm in
    8) name=rsasha256 ;;
    13) name=ecdsap256sha256 ;;
    15) name=ed25519 ;;
    *) echo "start_signed_knot: algorithm $algorithm (8, 13 or 15)" >&2 && return 1 ;;
  esac
  SIGNED_KNOT_DIR=$(mktemp -d)
  mkdir -p "$SIGNED_KNOT_DIR/zones" "$SIGNED_KNOT_DIR/db"
  {
    cat <<CONF
server:
    rundir: "$SIGNED_KNOT_DIR"
    pidfile: "$SIGNED_KNOT_DIR/knotd.pid"
    listen: 127.0.0.1@$port
database:
    storage: "$SIGNED_KNOT_DIR/db"
control:
    listen: "$SIGNED_KNOT_DIR/knot.sock"
log:
  - target: stderr
    any: warning
template:
  - id: default
    storage: "$SIGNED_KNOT_DIR/zones"
    file: "%s.zone"
    zonefile-sync: -1
    journal-content: none
$([ "${SIGNED_KNOT_STATS:-0}" = 1 ] && echo "    global-module: mod-stats")
policy:
  - id: signed
    manual: on
    algorithm: $name
$([ -n "${SIGNED_KNOT_DNSKEY_TTL:-}" ] && echo "    dnskey-ttl: $SIGNED_KNOT_DNSKEY_TTL")
CONF
    if [ "$denial" = nsec3 ]; then
      printf '    nsec3: on\n    nsec3-iterations: 0\n    nsec3-salt-length: 0\n'
    fi
    echo "zone:"
    for name in "${zones[@]}"; do
      printf '  - domain: %s.\n    dnssec-signing: on\n    dnssec-policy: signed\n' "$name"
    done
  } >"$SIGNED_KNOT_DIR/knot.conf"
  local i j zone ds
  for i in "${!zones[@]}"; do
    zone=${zones[$i]}
    {
      printf '$ORIGIN %s.\n$TTL 3600\n' "$zone"
      printf '@ SOA ns.%s. admin.%s. 1 3600 600 86400 60\n@ NS ns\nns A 192.0.2.53\n' "$zone" "$zone"
      cat "${files[$i]}"
    } >"$SIGNED_KNOT_DIR/zones/$zone.zone"
    keymgr -c "$SIGNED_KNOT_DIR/knot.conf" "$zone." generate "algorithm=$algorithm" ksk=yes zsk=yes \
      >/dev/null || { echo "start_signed_knot: keymgr generate for $zone failed" >&2 && return 1; }
    # "NAME. DS TAG ALGORITHM 2 HEX": the SHA-256 digest (RFC 4509).
    ds=$(keymgr -c "$SIGNED_KNOT_DIR/knot.conf" "$zone." ds | awk '$5 == 2' | head -1)
    [ -n "$ds" ] || { echo "start_signed_knot: keymgr printed no SHA-256 DS for $zone" >&2 && return 1; }
    [ "$i" -eq 0 ] && SIGNED_KNOT_ANCHOR=$ds
    for ((j = i - 1; j >= 0; j--)); do
      if [[ $zone == *".${zones[$j]}" ]]; then
        printf '%s. NS ns.%s.\nns.%s. A 192.0.2.53\n%s\n' "$zone" "$zone" "$zone" "$ds" \
          >>"$SIGNED_KNOT_DIR/zones/${zones[$j]}.zone"
        break
      fi
    done
  done
  knotd -c "$SIGNED_KNOT_DIR/knot.conf" >"$SIGNED_KNOT_DIR/knotd.log" 2>&1 &
  SIGNED_KNOT_PID=$!
  # Signing takes a while for a big zone (60,000 RSA signatures: a minute).
  local signed=0
  for _ in $(seq 1 600); do
    signed=0
    for zone in "${zones[@]}"; do
      dig +dnssec +tries=1 +time=1 @127.0.0.1 -p "$port" "$zone." SOA 2>/dev/null |
        grep -q "RRSIG[[:space:]]*SOA" && signed=$((signed + 1))
    done
    [ "$signed" -eq ${#zones[@]} ] && return 0
    kill -0 "$SIGNED_KNOT_PID" 2>/dev/null || break
    sleep 0.2
  done
  echo "knotd did not serve ${zones[*]} signed on 127.0.0.1:$port" >&2
  cat "$SIGNED_KNOT_DIR/knotd.log" >&2
  return 1
}

stop_signed_knot() {
  if [ -n "${SIGNED_KNOT_PID:-}" ]; then
    kill "$SIGNED_KNOT_PID" 2>/dev/null || true
    wait "$SIGNED_KNOT_PID" 2>/dev/null || true
  fi
  if [ -n "${SIGNED_KNOT_DIR:-}" ]; then rm -rf "$SIGNED_KNOT_DIR"; fi
  SIGNED_KNOT_PID= SIGNED_KNOT_DIR=
}
