#!/usr/bin/env bash
# End to end on loopback: dig and kdig against the host dnsward binary
# (--config) forwarding to Knot DNS. Only 127.0.0.1 is ever addressed.
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/lib.sh

KNOT_PORT=$(free_port 25300)
DNSWARD_PORT=$(free_port $((KNOT_PORT + 1)))
BIN=${DNSWARD_BIN:-$(swift build --show-bin-path)/dnsward}
work_dir

start_knot "$KNOT_PORT"
cat >"$WORK/dnsward.conf" <<CONF
listen 127.0.0.1:$DNSWARD_PORT
upstream udp 127.0.0.1:$KNOT_PORT
timeout 1s
override printer.lan 192.168.1.20 fd00::20
block ads.example
CONF
launch_dnsward "$BIN" "$WORK/dnsward.conf" "$DNSWARD_PORT" printer.lan 192.168.1.20

failures=0
check() {  # description, expected (grep -E), command...
  local what=$1 expected=$2; shift 2
  local output
  output=$("$@" 2>&1 || true)
  # A here-string, not `echo | grep -q`: under pipefail, grep quitting at
  # its first match can leave echo to die of SIGPIPE and fail the check.
  if grep -Eq -- "$expected" <<<"$output"; then
    echo "ok   $what"
  else
    echo "FAIL $what: expected /$expected/, got:"; echo "$output" | sed 's/^/     /'
    failures=$((failures + 1))
  fi
}
D="dig @127.0.0.1 -p $DNSWARD_PORT +tries=1 +time=3"
K="kdig @127.0.0.1 -p $DNSWARD_PORT +retry=0 +timeout=3"
check "A"                "^192\.0\.2\.80$"          $D +short www.example.test A
check "AAAA"             "^2001:db8::80$"           $D +short www.example.test AAAA
check "CNAME chain"      "192\.0\.2\.80"            $D +short alias.example.test A
check "CNAME chain 2"    "alias2\.example\.test"    $D +short alias.example.test A
check "NXDOMAIN"         "status: NXDOMAIN"         $D nope.example.test A
check "TCP"              "^192\.0\.2\.80$"          $D +tcp +short www.example.test A
check "large, UDP no EDNS → TC" "flags: qr.* tc"      $D +noedns +ignore big.example.test A
check "large, TCP"       "ANSWER: 80"               $D +tcp big.example.test A
check "kdig UDP"         "192\.0\.2\.80"            $K www.example.test A
check "kdig TCP"         "192\.0\.2\.80"            $K +tcp www.example.test A
check "kdig EDNS + DO"   "Version: 0; flags: do"          $K +dnssec www.example.test A
check "override"         "^192\.168\.1\.20$"        $D +short printer.lan A
check "override AAAA"    "^fd00::20$"               $D +short printer.lan AAAA
check "block"            "status: NXDOMAIN"         $D ads.example A
check "0x20 question case preserved" "WwW\.ExAmPlE\.TeSt" $D WwW.ExAmPlE.TeSt A

if [ "$failures" -ne 0 ]; then
  echo "e2e: $failures check(s) failed; dnsward log:"; cat "$WORK/dnsward.log"
  exit 1
fi
echo "e2e: all checks passed"
