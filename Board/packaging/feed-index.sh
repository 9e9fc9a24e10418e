#!/usr/bin/env bash
# feed-index.sh — makes a folder of OpenWrt packages a package feed:
#
#   [FEED_APK=apk [FEED_APK_KEY=key.pem]] [FEED_USIGN=usign FEED_USIGN_KEY=secret] \
#     bash feed-index.sh FOLDER
#
#   Packages, Packages.gz  opkg's index of the folder's .ipk files (OpenWrt
#                          24.10 and earlier): each package's control fields,
#                          with Filename, Size and SHA256sum added
#   Packages.sig           its signature by FEED_USIGN_KEY (a usign secret
#                          key; usign is OpenWrt's Ed25519 signing tool), when
#                          given: what opkg checks under `option
#                          check_signature`, with the public key in
#                          /etc/opkg/keys/<its fingerprint>
#   packages.adb           apk's index of its .apk files (OpenWrt 25.12),
#                          made by FEED_APK (apk-tools 3's `apk mkndx`), signed
#                          with FEED_APK_KEY (a private key in PEM) when given:
#                          apk checks it with the public key in /etc/apk/keys/
#
# A router then names the folder's URL: `src/gz dnsward URL` in
# /etc/opkg/customfeeds.conf, or `URL/packages.adb` in
# /etc/apk/repositories.d/customfeeds.list. Both indexes name the packages by
# file name relative to the index, so the folder can be served, copied or
# mirrored as it is. Deterministic: packages in name order, gzip without
# name or time stamp, apk's index dated SOURCE_DATE_EPOCH; Ed25519 and RSA
# signatures are deterministic too (an ECDSA one is not).
set -euo pipefail

fail() {
  echo "feed-index.sh: $*" >&2
  exit 1
}

FOLDER=${1:?usage: feed-index.sh FOLDER (settings in the environment: see the header)}
APK=${FEED_APK:-}
APK_KEY=${FEED_APK_KEY:-}
USIGN=${FEED_USIGN:-}
USIGN_KEY=${FEED_USIGN_KEY:-}
[[ -z $USIGN_KEY || -n $USIGN ]] || fail "FEED_USIGN_KEY is set but not FEED_USIGN (the usign program)"
[[ -d $FOLDER ]] || fail "no folder $FOLDER"
cd "$FOLDER"
shopt -s nullglob

# --- opkg ---------------------------------------------------------------------
ipks=(*.ipk)
: >Packages
for ipk in "${ipks[@]}"; do
  control=$(tar -xzOf "$ipk" ./control.tar.gz | tar -xzOf - ./control) ||
    fail "$ipk: no ./control in its control.tar.gz"
  grep -q '^Package: ' <<<"$control" || fail "$ipk: its control has no Package field"
  {
    # The fields before the Description, then where to get the file and how
    # to check it, then the Description and its continuation lines.
    sed -n '/^Description:/,$!p' <<<"$control"
    echo "Filename: $ipk"
    echo "Size: $(stat -c %s "$ipk")"
    echo "SHA256sum: $(sha256sum "$ipk" | cut -d' ' -f1)"
    sed -n '/^Description:/,$p' <<<"$control"
    echo
  } >>Packages
done
gzip -9n <Packages >Packages.gz
# opkg verifies the signature of the uncompressed index it has unpacked.
if [[ -n $USIGN_KEY ]]; then
  "$USIGN" -S -m Packages -s "$USIGN_KEY" -x Packages.sig || fail "usign could not sign $FOLDER/Packages"
fi

# --- apk ----------------------------------------------------------------------
apks=(*.apk)
if ((${#apks[@]})); then
  [[ -n $APK ]] || fail "$FOLDER has .apk packages but no apk-tools was given to index them"
  sign=()
  [[ -z $APK_KEY ]] || sign=(--sign-key "$APK_KEY")
  "$APK" mkndx --allow-untrusted "${sign[@]}" --output packages.adb "${apks[@]}" >/dev/null ||
    fail "apk mkndx failed for $FOLDER"
fi
echo "$FOLDER: ${#ipks[@]} .ipk, ${#apks[@]} .apk indexed${USIGN_KEY:+, Packages signed}${APK_KEY:+, packages.adb signed}"
