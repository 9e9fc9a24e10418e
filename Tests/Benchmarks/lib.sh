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
