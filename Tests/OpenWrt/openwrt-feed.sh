# openwrt-feed.sh — the release's package feed in the rig (sourced by
# openwrt-test.sh; PM from run_for): the folder `cmake --build B --target
# release` writes as B/release/openwrt, served over HTTP from the router's
# own loopback (inside the rig's network namespace), added to the router
# as Board/openwrt/README.md tells its owner, with the feed's public key
# and without --allow-untrusted:
#
#   - without the key, the package manager refuses the index in its own
#     words (apk: UNTRUSTED signature; opkg with check_signature: Signature
#     check failed) and dnsward is not installed;
#   - with the key, `apk add dnsward` / `opkg install dnsward` installs the
#     release's version from the feed, and procd runs it;
#   - then it is removed again.
#
# opkg verifies a signature by running /usr/sbin/opkg-key, a small script of
# OpenWrt's opkg package, which is not among the archives the rig builds
# from; the rig's own, written here, does what OpenWrt's does for `verify`
# and `add`: usign (the real one) against the keys in /etc/opkg/keys/. opkg
# keeps a src/gz list as downloaded (Packages.gz) and the signature is of
# the uncompressed Packages, so `verify` unpacks the list first.
# shellcheck shell=bash

FEED_URL=http://127.0.0.1:8080

# feed_serve DIR: DIR (the release's openwrt/) into the root's /tmp/feed,
# served by BusyBox httpd on the router's 127.0.0.1:8080.
feed_serve() {
  rig_sh 'mkdir -p /tmp/feed'
  tar -C "$1" -cf - . | rig_sh 'tar -xf - -C /tmp/feed' || rig_fail "copying the feed into the root"
  rig_sh 'busybox httpd -p 127.0.0.1:8080 -h /tmp/feed' || rig_fail "busybox httpd"
  rig_wait "the feed served on $FEED_URL" 10 rig_sh "wget -q -O /dev/null $FEED_URL/x86_64/Packages"
  FEED_VERSION=$(sed -n 's/^Version: //p' "$1/x86_64/Packages" | head -1)
  [[ -n $FEED_VERSION ]] || rig_fail "no dnsward in the feed's x86_64/Packages"
}

# The router's side of opkg's signature check (see the header).
opkg_key_script() {
  cat <<'EOF'
#!/bin/sh
# opkg-key (the rig's): verify SIGFILE FILE | add KEYFILE
case $1 in
verify) { gzip -dc "$3" 2>/dev/null || cat "$3"; } | usign -V -q -P /etc/opkg/keys -x "$2" -m - ;;
add) mkdir -p /etc/opkg/keys && cp "$2" "/etc/opkg/keys/$(usign -F -p "$2")" ;;
*) echo "usage: opkg-key verify SIGFILE FILE | add KEYFILE" >&2; exit 1 ;;
esac
EOF
}

# feed_add_source: the router names the feed (no key yet).
feed_add_source() {
  case $PM in
  ipk)
    opkg_key_script | rig_sh 'cat >/usr/sbin/opkg-key && chmod 0755 /usr/sbin/opkg-key'
    rig_sh "echo 'option check_signature 1' >>/etc/opkg.conf &&
      mkdir -p /etc/opkg && echo 'src/gz dnsward $FEED_URL/x86_64' >/etc/opkg/customfeeds.conf"
    ;;
  apk)
    rig_sh "mkdir -p /etc/apk/repositories.d &&
      echo '$FEED_URL/x86_64/packages.adb' >/etc/apk/repositories.d/customfeeds.list"
    ;;
  esac
}

# feed_install: update the index and install dnsward from it; output on stdout.
feed_install() {
  case $PM in
  ipk) rig_sh 'opkg update 2>&1; opkg install dnsward 2>&1' ;;
  apk) rig_sh 'apk update 2>&1; apk add dnsward 2>&1' ;;
  esac
}

# feed_trust: the feed's public key, where the router's package manager looks.
feed_trust() {
  case $PM in
  ipk) rig_sh 'opkg-key add /tmp/feed/dnsward-feed.usign.pub' ;;
  apk) rig_sh 'mkdir -p /etc/apk/keys && cp /tmp/feed/dnsward-feed.pem /etc/apk/keys/' ;;
  esac
}

# feed_untrusted OUTPUT: the package manager's own refusal of the index.
feed_untrusted() {
  case $PM in
  ipk) grep -q 'Signature check failed' <<<"$1" ;;
  apk) grep -q 'UNTRUSTED signature' <<<"$1" ;;
  esac
}

scenario_feed() {
  local output
  [[ -z $(pm_version) ]] || rig_fail "feed: dnsward is still installed before the feed is added"
  feed_serve "$FEED"
  feed_add_source || rig_fail "adding the feed to the router's sources"
  output=$(feed_install) && [[ -n $(pm_version) ]] && rig_fail "installed from a feed whose key is not trusted: $output"
  feed_untrusted "$output" || rig_fail "without the key, the refusal is not the package manager's own: $output"
  [[ -z $(pm_version) ]] || rig_fail "dnsward installed from an untrusted feed"
  pass "the feed without its key is refused: $(grep -m1 -E 'UNTRUSTED|Signature check' <<<"$output")"

  feed_trust || rig_fail "adding the feed's key"
  output=$(feed_install) || rig_fail "install from the feed: $output"
  [[ $(pm_version) == "$FEED_VERSION" ]] || rig_fail "from the feed: version '$(pm_version)', not $FEED_VERSION: $output"
  rig_wait "procd running dnsward from the feed" 15 dnsward_running
  # The /etc/config/dnsward the removal kept (edited) is the one in force.
  rig_wait "dnsward from the feed answering" 10 answers "$RIG_ROUTER" 127.0.0.1:5353 ward.example 5.6.7.8
  pass "with the key, dnsward $FEED_VERSION installed from the feed over HTTP, no --allow-untrusted; procd runs it"

  output=$(pm_remove) || rig_fail "removing the feed's package: $output"
  [[ $(dhcp_show) == "$DHCP_BEFORE" ]] || rig_fail "after removing the feed's package: dhcp differs"
}
