#!/usr/bin/env bash
# openwrt-test.sh — dnsward's OpenWrt package in the rig (Tests/OpenWrt/README.md):
#
#   bash Tests/OpenWrt/openwrt-test.sh --ipk dnsward_V_x86_64.ipk [--apk dnsward-V.apk] [--feed DIR]
#   bash Tests/OpenWrt/openwrt-test.sh --self-test    (the rig refuses stand-ins)
#
# Each package given runs every scenario (openwrt-scenarios.sh) in a fresh
# rig with its own package manager: opkg for --ipk, apk for --apk. The
# package's binary must run on this machine (x86_64). With --feed, a
# release's openwrt/ folder (B/release/openwrt, signed), each package
# manager then also installs dnsward from that feed over HTTP
# (openwrt-feed.sh). Needs root, the
# userland (userland.sh builds or finds it), knotd, dig, busybox, ip,
# unshare, nsenter, flock, nft.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# shellcheck source=rig.sh
source "$HERE/rig.sh"
# shellcheck source=rig-net.sh
source "$HERE/rig-net.sh"
# shellcheck source=openwrt-scenarios.sh
source "$HERE/openwrt-scenarios.sh"
# shellcheck source=openwrt-packages.sh
source "$HERE/openwrt-packages.sh"
# shellcheck source=openwrt-feed.sh
source "$HERE/openwrt-feed.sh"

usage() {
  echo "usage: $0 [--ipk FILE] [--apk FILE] [--feed RELEASE/openwrt] [--self-test]" >&2
  exit 2
}

IPK="" APK="" FEED="" SELF_TEST=0
while (($#)); do
  case $1 in
  --ipk) IPK=$(readlink -f "${2:?}") && shift 2 ;;
  --apk) APK=$(readlink -f "${2:?}") && shift 2 ;;
  --feed) FEED=$(readlink -f "${2:?}") && shift 2 ;;
  --self-test) SELF_TEST=1 && shift ;;
  *) usage ;;
  esac
done
[[ -n $IPK || -n $APK || $SELF_TEST == 1 ]] || usage
[[ -z $FEED || (-f $FEED/x86_64/packages.adb && -f $FEED/x86_64/Packages.sig) ]] ||
  { echo "openwrt-test.sh: --feed $FEED is not a signed release feed (x86_64/packages.adb, x86_64/Packages.sig)" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "openwrt-test.sh: needs root (namespaces, chroot)" >&2; exit 1; }
for tool in knotd dig busybox ip unshare nsenter flock nft readelf; do
  command -v "$tool" >/dev/null || { echo "openwrt-test.sh: '$tool' not found" >&2; exit 1; }
done

SECONDS=0
PASSED=0
pass() {
  PASSED=$((PASSED + 1))
  printf '[rig %3ds] ok: %s\n' "$SECONDS" "$*"
}

USERLAND=$(bash "$HERE/userland.sh")

# self_test: a root whose procd (then opkg) is a shell script is refused.
self_test() {
  local program
  trap rig_cleanup EXIT
  rig_layout "$USERLAND"
  for program in sbin/procd bin/opkg; do
    cp "$RIG_ROOT/$program" "$RIG_DIR/saved"
    printf '#!/bin/sh\nexit 0\n' >"$RIG_ROOT/$program"
    if (rig_check_real "$USERLAND") 2>"$RIG_DIR/refusal"; then
      rig_fail "the rig accepted a shell script as /$program"
    fi
    grep -q "/$program in the root is not an ELF file" "$RIG_DIR/refusal" ||
      rig_fail "refusal of /$program: $(cat "$RIG_DIR/refusal")"
    cp "$RIG_DIR/saved" "$RIG_ROOT/$program"
    pass "a shell script as /$program is refused: $(sed 's/^FAIL: //' "$RIG_DIR/refusal")"
  done
  rig_check_real "$USERLAND"
  pass "the restored root passes the check"
}

# run_for KIND FILE: every scenario for one package, in a fresh rig (a
# subshell: its trap cleans that rig up).
run_for() (
  PM=$1 PACKAGE=$2
  trap rig_cleanup EXIT
  rig_log "=== $PM: $(basename "$PACKAGE")"
  rig_layout "$USERLAND"
  rig_net_up
  rig_knot_up
  rig_boot
  make_variants "$PM" "$PACKAGE"
  if [[ $PM == apk ]]; then apk_seed; fi
  scenarios
  [[ -z $FEED ]] || scenario_feed
  rig_log "=== $PM: $PASSED checks passed in ${SECONDS}s"
)

if [[ $SELF_TEST == 1 ]]; then
  (self_test)
fi
[[ -z $IPK ]] || run_for ipk "$IPK"
[[ -z $APK ]] || run_for apk "$APK"
echo "openwrt-test.sh: all passed in ${SECONDS}s"
