#!/usr/bin/env bash
# Off-path cache poisoning against dnsward and dnsmasq (issue 8, item 2):
# bench/spoof.c plays a slow upstream (every answer after DELAY ms), the
# clients, and an attacker who sends from the upstream's own socket
# (perfect source address and port) forged answers for the names being
# asked — right question, random ID, random destination port in the range
# the victim draws its source ports from — for NAMES names, the second
# half of them asked by BIRTHDAY clients at once (a birthday attack).
# Every name is asked again afterwards: what the cache holds.
#
# Victims, each started afresh:
#   dnsward             the kernel's ephemeral range (ip_local_port_range), 0x20 on
#   dnsward-no-0x20     the same with case-randomization off
#   dnsmasq             random ports 1024-65535 (its default)
#   dnsmasq-fixed-port  --query-port fixed: the control, where only the
#                       16-bit ID stands between the attacker and the cache
#
#   bash Tests/Benchmarks/spoofing.sh                 # NAMES=30 DELAY=500: about 70 s
#   NAMES=200 DELAY=1000 bash Tests/Benchmarks/spoofing.sh
#   DNSWARD_BIN=/tmp/fw/dnsward.stripped bash Tests/Benchmarks/spoofing.sh
#
# The flood goes to every port of 127.0.0.1, so everything runs in a network
# namespace of its own (unshare -n as root, unshare -rn otherwise), where
# nothing else listens; without one the script says so and exits 0.
# Exits 1 if dnsward is ever poisoned, or if the control never is (then the
# flood was too weak here to prove anything). Needs gcc, dnsmasq
# (dnsmasq-base) and ip (iproute2).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
NAMES=${NAMES:-30}
DELAY=${DELAY:-500}
BIRTHDAY=${BIRTHDAY:-20}

if [ -z "${SPOOFING_NETNS:-}" ]; then
  for tool in gcc dnsmasq ip unshare; do
    command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 1; }
  done
  if [ -z "${DNSWARD_BIN:-}" ]; then
    swift build -c release --package-path "$ROOT" --product dnsward \
      --scratch-path /tmp/spoofing-build >/dev/null
    DNSWARD_BIN=$(swift build -c release --package-path "$ROOT" --show-bin-path \
      --scratch-path /tmp/spoofing-build)/dnsward
  fi
  export DNSWARD_BIN SPOOFING_NETNS=1
  for namespace in "unshare -n" "unshare -rn"; do
    if $namespace true 2>/dev/null; then
      exec $namespace bash "${BASH_SOURCE[0]}" "$@"
    fi
  done
  echo "spoofing.sh: skipped, no network namespace can be made here (it needs root or" \
    "user namespaces); the flood must not reach other programs on 127.0.0.1" >&2
  exit 0
fi

# In the namespace: a loopback of our own.
ip link set lo up
WORK=$(mktemp -d)
PROXY_PID=
cleanup() {
  [ -n "$PROXY_PID" ] && kill "$PROXY_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
gcc -O2 -o "$WORK/spoof" "$ROOT/Tests/Benchmarks/bench/spoof.c"
UPSTREAM=5300
PROXY=5353
FIXED_PORT=5400
read -r EPHEMERAL_FIRST EPHEMERAL_LAST </proc/sys/net/ipv4/ip_local_port_range

wait_for_proxy() {
  for _ in $(seq 100); do
    if grep -q ":$PROXY " <<<"$(ss -lun 2>/dev/null)"; then return 0; fi
    sleep 0.05
  done
  echo "the proxy did not start" >&2
  return 1
}

# attack VICTIM FIRST_PORT LAST_PORT: one run against the proxy in PROXY_PID.
attack() {
  local victim=$1 first=$2 last=$3 line landed
  wait_for_proxy
  line=$("$WORK/spoof" "$PROXY" "$UPSTREAM" "$first" "$last" "$NAMES" "$DELAY" "$BIRTHDAY")
  landed="n/a"
  if [ "${victim#dnsward}" != "$victim" ]; then
    # Forgeries that reached one of dnsward's upstream sockets and were
    # turned away there (the kernel dropped the rest).
    landed=$("$DNSWARD_BIN" stats "127.0.0.1:$PROXY" |
      awk '$1 ~ /^mismatched(ID|Case|Question)$/ { n += $2 } END { print n + 0 }')
  fi
  kill "$PROXY_PID"
  wait "$PROXY_PID" 2>/dev/null || true
  PROXY_PID=
  # forgeries N upstream_queries N answers N poisoned N lost N cache_poisoned N cache_misses N
  set -- $line
  printf '| %s | %s-%s | %s | %s | %s | %s | %s | %s | %s |\n' "$victim" "$first" "$last" \
    "$2" "$landed" "$4" "$6" "$8" "${10}" "${12}"
  echo "$victim $8 ${12}" >>"$WORK/results"
}

dnsward() {  # dnsward EXTRA-CONFIG
  printf 'listen 127.0.0.1:%s\nupstream udp 127.0.0.1:%s\ntimeout 3s\nlog warning\n%s\n' \
    "$PROXY" "$UPSTREAM" "$1" >"$WORK/dnsward.conf"
  "$DNSWARD_BIN" --config "$WORK/dnsward.conf" >>"$WORK/dnsward.log" 2>&1 &
  PROXY_PID=$!
}

dnsmasq_proxy() {  # dnsmasq_proxy [OPTION]
  dnsmasq --keep-in-foreground --no-resolv --no-hosts --listen-address=127.0.0.1 \
    --bind-interfaces --port="$PROXY" --server="127.0.0.1#$UPSTREAM" --user="$(id -un)" \
    --pid-file="$WORK/dnsmasq.pid" "$@" 2>>"$WORK/dnsmasq.log" &
  PROXY_PID=$!
}

echo "$NAMES names, upstream delay $DELAY ms, names $((NAMES / 2 + 1))-$NAMES asked by" \
  "$BIRTHDAY clients at once; dnsward: $DNSWARD_BIN; $(dnsmasq --version | head -1)"
echo
echo "| victim | ports sprayed | forgeries | reached a socket | upstream queries" \
  "| client answers | poisoned answers | lost | poisoned cache entries |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
dnsward ""
attack dnsward "$EPHEMERAL_FIRST" "$EPHEMERAL_LAST"
dnsward "case-randomization off"
attack dnsward-no-0x20 "$EPHEMERAL_FIRST" "$EPHEMERAL_LAST"
dnsmasq_proxy
attack dnsmasq 1024 65535
dnsmasq_proxy --query-port="$FIXED_PORT"
attack dnsmasq-fixed-port "$FIXED_PORT" "$FIXED_PORT"

status=0
while read -r victim poisoned cached; do
  case $victim in
    dnsward*)
      if [ "$poisoned" != 0 ] || [ "$cached" != 0 ]; then
        echo "FAIL: $victim was poisoned" >&2
        status=1
      fi
      ;;
    dnsmasq-fixed-port)
      if [ "$poisoned" = 0 ] && [ "$cached" = 0 ]; then
        echo "FAIL: the control was never poisoned: the flood is too weak here to show anything" >&2
        status=1
      fi
      ;;
  esac
done <"$WORK/results"
exit $status
