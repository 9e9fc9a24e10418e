# Sourced first by every benchmark script: strict mode, ROOT (the checkout)
# and .ci/lib.sh's helpers (free_port, start_knot, release_dnsward, ...).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$ROOT/.ci/lib.sh"
