#!/usr/bin/env bash
# feed-index.sh — makes a folder of OpenWrt packages a package feed:
#
#   bash feed-index.sh FOLDER [APK [APK_KEY]]
#
#   Packages, Packages.gz  opkg's index of the folder's .ipk files (OpenWrt
#                          24.10 and earlier): each package's control fields,
#                          with Filename, Size and SHA256sum added
#   packages.adb           apk's index of its .apk files (OpenWrt 25.12),
#                          made by APK (apk-tools 3's `apk mkndx`), signed
#                          with APK_KEY (a private key in PEM) when given
#
# A router then names the folder's URL: `src/gz dnsward URL` in
# /etc/opkg/customfeeds.conf, or `URL/packages.adb` in
# /etc/apk/repositories.d/customfeeds.list with the key's public half in
# /etc/apk/keys/. Both indexes name the packages by file name relative to
# the index, so the folder can be served, copied or mirrored as it is.
# Deterministic: packages in name order, gzip without name or time stamp,
# apk's index dated SOURCE_DATE_EPOCH (an RSA signature is deterministic
# too; an ECDSA one is not).
set -euo pipefail

fail() {
  echo "feed-index.sh: $*" >&2
  exit 1
}

FOLDER=${1:?usage: feed-index.sh FOLDER [APK [APK_KEY]]}
APK=${2:-}
APK_KEY=${3:-}
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

# --- apk ----------------------------------------------------------------------
apks=(*.apk)
if ((${#apks[@]})); then
  [[ -n $APK ]] || fail "$FOLDER has .apk packages but no apk-tools was given to index them"
  sign=()
  [[ -z $APK_KEY ]] || sign=(--sign-key "$APK_KEY")
  "$APK" mkndx --allow-untrusted "${sign[@]}" --output packages.adb "${apks[@]}" >/dev/null ||
    fail "apk mkndx failed for $FOLDER"
fi
echo "$FOLDER: ${#ipks[@]} .ipk, ${#apks[@]} .apk indexed${APK_KEY:+ (apk index signed)}"
