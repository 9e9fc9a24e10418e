# Sourced first by every benchmark script: strict mode, ROOT (the checkout)
# and .ci/lib.sh's helpers (free_port, start_knot, release_dnsward, ...).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$ROOT/.ci/lib.sh"

# scratch_with_cleanup: WORK, a new scratch directory, and PROXY_PID, for
# the proxy the script starts (empty while none runs); on exit that proxy
# is killed, the Knot DNS of start_knot stopped and WORK removed.
scratch_with_cleanup() {
  WORK=$(mktemp -d)
  PROXY_PID=
  trap cleanup_scratch EXIT
}
cleanup_scratch() {
  [ -n "$PROXY_PID" ] && kill "$PROXY_PID" 2>/dev/null || true
  stop_knot
  rm -rf "$WORK"
}

# stop_server: stops the server of SERVER_PID, if one runs, and clears it.
stop_server() {
  if [ -n "$SERVER_PID" ]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
  fi
}

# unbound_server_lines: the start of the config of every unbound a benchmark
# runs: in the foreground, its files in WORK, one thread on
# 127.0.0.1:PROXY_PORT. Each caller adds its module-config and caches.
unbound_server_lines() {
  cat <<CONF
server:
  verbosity: 0
  use-syslog: no
  logfile: ""
  do-daemonize: no
  chroot: ""
  username: ""
  directory: "$WORK"
  pidfile: "$WORK/unbound.pid"
  interface: 127.0.0.1
  port: $PROXY_PORT
  do-ip6: no
  access-control: 127.0.0.0/8 allow
  num-threads: 1
  num-queries-per-thread: 1024
  outgoing-range: 2048
CONF
}
