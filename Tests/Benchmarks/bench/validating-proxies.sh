# shellcheck shell=bash
# Sourced by dnssec.sh and validation-flood.sh (after bench/common.sh): the
# signed zone they ask and the validating proxies they compare, each with
# the zone's DS as its only trust anchor.
#
# start_PROXY writes its config, starts it on $PROXY_CPU and sets
# SERVER_PID (start_unbound and start_dnsmasq: bench/common.sh, with the
# lines unbound_extra and dnsmasq_extra add here):
#   dnsward-on   `dnssec on`, `dnssec-root off`, `trust-anchor DS`
#   dnsward-off  the same binary and config with `dnssec off`
#   unbound      module-config "validator iterator", forward-zone to Knot
#   dnsmasq      --dnssec with the DS as --trust-anchor

# need_proxies NAME...: fails on a name not above, or a server not installed.
need_proxies() {
  local proxy
  for proxy; do
    case $proxy in
      dnsward-on | dnsward-off) ;;
      unbound | dnsmasq) need "$proxy" ;;
      *) fail "unknown proxy $proxy (dnsward-on dnsward-off unbound dnsmasq)" ;;
    esac
  done
}

# build_dnssec_firmware: unless DNSWARD_BIN names a binary, builds the
# DNSSEC host firmware into $FIRMWARE_DIR (default /tmp/dnssec-bench-fw)
# and sets DNSWARD_BIN to it.
build_dnssec_firmware() {
  [ -z "${DNSWARD_BIN:-}" ] || return 0
  FIRMWARE_DIR=${FIRMWARE_DIR:-/tmp/dnssec-bench-fw}
  echo "building the DNSSEC host firmware in $FIRMWARE_DIR ..."
  cmake -S "$ROOT/Board" -B "$FIRMWARE_DIR" -G Ninja -DDNSWARD_TARGET=host -DDNSWARD_DNSSEC=ON \
    >"$FIRMWARE_DIR.log" 2>&1 && cmake --build "$FIRMWARE_DIR" >>"$FIRMWARE_DIR.log" 2>&1 ||
    { tail -30 "$FIRMWARE_DIR.log" >&2; fail "firmware build failed (log: $FIRMWARE_DIR.log)"; }
  DNSWARD_BIN=$FIRMWARE_DIR/dnsward.stripped
}

# start_signed_zone NAMES ALGORITHM [DNSKEY_TTL]: knotd signing signed.test
# with names n0...n(NAMES-1) (A 10.x.y.z) on $UPSTREAM_PORT, pinned to
# $LOAD_CPU; picks UPSTREAM_PORT and PROXY_PORT and fails unless the last
# name is served signed. Sets what start_signed_knot (.ci/lib.sh) sets.
start_signed_zone() {
  local names=$1 algorithm=$2 started=$SECONDS
  awk -v n="$names" 'BEGIN { for (i = 0; i < n; i++) printf "n%d A 10.%d.%d.%d\n", i, i / 65536 % 256, i / 256 % 256, i % 256 }' \
    >"$WORK/signed.test.records"
  UPSTREAM_PORT=$(free_port 27600)
  PROXY_PORT=$(free_port $((UPSTREAM_PORT + 1)))
  SIGNED_KNOT_STATS=1 SIGNED_KNOT_DNSKEY_TTL=${3:-} start_signed_knot "$UPSTREAM_PORT" "$algorithm" nsec signed.test \
    "$WORK/signed.test.records" || fail "knotd did not sign signed.test"
  # The last name signed too (Knot answers once the whole zone is loaded).
  dig +dnssec +tries=1 +time=2 @127.0.0.1 -p "$UPSTREAM_PORT" "n$((names - 1)).signed.test" A |
    grep -q 'RRSIG[[:space:]]*A' || fail "knotd serves n$((names - 1)).signed.test unsigned"
  echo "knotd signed $names names with algorithm $algorithm in $((SECONDS - started)) s"
  echo "trust anchor: $SIGNED_KNOT_ANCHOR"
  # Knot shares the load generator's CPU and leaves the proxy's to the proxy.
  taskset -a -p -c "$LOAD_CPU" "$SIGNED_KNOT_PID" >/dev/null
}

dnsward_config() {  # dnsward_config on|off
  cat <<CONF
listen 127.0.0.1:$PROXY_PORT
upstream udp 127.0.0.1:$UPSTREAM_PORT
cache 10000
cache-bytes 4m
inflight 1024
log warning
dnssec $1
dnssec-root off
trust-anchor $SIGNED_KNOT_ANCHOR
CONF
}
start_dnsward_dnssec() {  # start_dnsward_dnssec on|off
  dnsward_config "$1" >"$WORK/dnsward-$1.conf"
  "$DNSWARD_BIN" --check "$WORK/dnsward-$1.conf" >"$WORK/dnsward.check" 2>&1 ||
    { cat "$WORK/dnsward.check" >&2; fail "dnsward --check refused the config"; }
  taskset -c "$PROXY_CPU" "$DNSWARD_BIN" --config "$WORK/dnsward-$1.conf" >>"$LOGS/dnsward-$1.log" 2>&1 &
  SERVER_PID=$!
}
start_dnsward-on() { start_dnsward_dnssec on; }
start_dnsward-off() { start_dnsward_dnssec off; }

# unbound: caches sized in bytes for about 10,000 of these signed answers
# (each RRset keeps its RRSIG); the zone's DS its one trust anchor.
# shellcheck disable=SC2034 # read by start_unbound (bench/common.sh)
UNBOUND_MODULES="validator iterator"
UNBOUND_MSG_CACHE=${UNBOUND_MSG_CACHE:-4m}
UNBOUND_RRSET_CACHE=${UNBOUND_RRSET_CACHE:-8m}
unbound_extra() {
  local ds_owner ds_rest
  read -r ds_owner _ ds_rest <<<"$SIGNED_KNOT_ANCHOR"
  cat <<CONF
  trust-anchor: "$ds_owner DS $ds_rest"
  trust-anchor-signaling: no
  root-key-sentinel: no
  aggressive-nsec: no
  qname-minimisation: no
CONF
}

# dnsmasq: --trust-anchor=[CLASS,]DOMAIN,KEYTAG,ALGORITHM,DIGESTTYPE,DIGEST.
# dnsmasq 2.90 refuses to start without a root anchor ("no root trust
# anchor provided for DNSSEC"), so the root's KSK-2017 DS is there too; it
# is never reached: signed.test's own anchor is closer to every name asked.
dnsmasq_extra() {
  local owner tag algorithm digest_type digest
  read -r owner _ tag algorithm digest_type digest <<<"$SIGNED_KNOT_ANCHOR"
  echo "dnssec"
  echo "trust-anchor=.,20326,8,2,E06D44B80B8F1D39A95C0B0D7C65D08458E880409BBC683457104237C7F8EC8D"
  echo "trust-anchor=${owner%.},$tag,$algorithm,$digest_type,$digest"
}

version() {
  case $1 in
    dnsward-*) version_dnsward ;;
    *) "version_$1" ;;
  esac
}

# start_proxy PROXY: start_server, then the validating ones must set AD=1
# on a signed answer (dnsward-off must not).
start_proxy() {
  start_server "$1" n0.signed.test +dnssec
  if [ "$1" = dnsward-off ]; then
    ! grep -q 'flags:.* ad[ ;]' <<<"$SERVER_ANSWER" || fail "$1 set AD=1 with dnssec off"
  else
    grep -q 'flags:.* ad[ ;]' <<<"$SERVER_ANSWER" ||
      { echo "$SERVER_ANSWER" >&2; fail "$1 did not validate n0.signed.test (no AD=1)"; }
  fi
}
