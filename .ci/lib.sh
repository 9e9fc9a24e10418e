# Sourced by the .ci scripts. Only 127.0.0.1 is ever used.

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

# release_dnsward [SCRATCH]: the dnsward binary a benchmark runs —
# $DNSWARD_BIN when set (the firmware, say), else the SwiftPM release build,
# built first (in SCRATCH, default the package's .build). Prints its path.
release_dnsward() {
  if [ -n "${DNSWARD_BIN:-}" ]; then
    echo "$DNSWARD_BIN"
    return
  fi
  local root scratch=()
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  [ -n "${1:-}" ] && scratch=(--scratch-path "$1")
  swift build -c release --package-path "$root" --product dnsward "${scratch[@]}" >/dev/null
  echo "$(swift build -c release --package-path "$root" --show-bin-path "${scratch[@]}")/dnsward"
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
