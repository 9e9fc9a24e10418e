# openwrt-packages.sh — the package manager side of the scenarios
# (sourced by openwrt-test.sh): install, upgrade and remove with the real
# opkg (PM=ipk) or apk (PM=apk) inside the rig's root, and the variants of
# the package under test that the scenarios need, made by the project's own
# packaging script from the binary inside the package:
#   NEXT_PACKAGE        the same, one version later (upgrade)
#   WRONG_ARCH_PACKAGE  the same, for aarch64_generic (opkg must refuse it)

# rig_put FILE PATH: FILE from the host into the root (its /tmp is only
# visible inside the rig's mount namespace).
rig_put() {
  rig_sh "mkdir -p '$(dirname "$2")' && cat >'$2'" <"$1"
}

# ipk_field PACKAGE FIELD: a control field of an .ipk.
ipk_field() {
  tar -xzOf "$1" ./control.tar.gz | tar -xzO ./control | sed -n "s/^$2: //p"
}

make_variants() {
  local pm=$1 package=$2 dir=$RIG_DIR/variants
  [[ $pm == ipk ]] || { make_apk_variants "$package"; return; }
  mkdir -p "$dir/data"
  tar -xzOf "$package" ./data.tar.gz | tar -xz -C "$dir/data" ./usr/sbin/dnsward
  PACKAGE_VERSION=$(ipk_field "$package" Version)
  PACKAGE_ARCH=$(ipk_field "$package" Architecture)
  local dnssec=0
  ipk_field "$package" Description | grep -q 'validates DNSSEC' && dnssec=1
  # ipk_variant ARCH VERSION OUT
  ipk_variant() {
    IPK_BINARY=$dir/data/usr/sbin/dnsward IPK_OUT_DIR=$3 IPK_SOURCE_ROOT=$REPO IPK_PACKAGE=dnsward \
      IPK_ARCH=$1 IPK_VERSION=$2 IPK_DEPENDS=libc IPK_DNSSEC=$dnssec IPK_READELF=readelf \
      IPK_ALLOW_DYNAMIC=1 bash "$REPO/Board/packaging/ipk-build.sh" >/dev/null
    readlink -f "$3/dnsward.ipk"
  }
  NEXT_VERSION=$PACKAGE_VERSION.1
  NEXT_PACKAGE=$(ipk_variant "$PACKAGE_ARCH" "$NEXT_VERSION" "$dir/next")
  WRONG_ARCH_PACKAGE=$(ipk_variant aarch64_generic "$PACKAGE_VERSION" "$dir/wrong")
  rig_put "$package" /tmp/pkg/dnsward.ipk
  rig_put "$NEXT_PACKAGE" /tmp/pkg/next/dnsward.ipk
  rig_put "$WRONG_ARCH_PACKAGE" /tmp/pkg/wrong/dnsward.ipk
}

# pm_install WHICH (current, next or wrong): installs it, output on stdout.
pm_install() {
  case $PM in
  ipk)
    local file=/tmp/pkg/dnsward.ipk
    [[ $1 == current ]] || file=/tmp/pkg/$1/dnsward.ipk
    rig_sh "opkg install $file 2>&1"
    ;;
  apk) rig_sh "apk add --allow-untrusted /tmp/pkg/${1}.apk 2>&1" ;;
  esac
}
pm_remove() {
  case $PM in
  ipk) rig_sh 'opkg remove dnsward 2>&1' ;;
  apk) rig_sh 'apk del dnsward 2>&1' ;;
  esac
}
# pm_version: the installed version of dnsward (empty: not installed).
pm_version() {
  case $PM in
  ipk) rig_sh "opkg status dnsward | sed -n 's/^Version: //p'" ;;
  apk) rig_sh "apk info -v dnsward 2>/dev/null | sed -n 's/^dnsward-//p'" ;;
  esac
}
# The message the package manager refuses a foreign architecture with.
pm_arch_refusal() {
  case $PM in
  ipk) echo 'incompatible with the architectures configured' ;;
  apk) echo 'UNTRUSTED\|architecture' ;;
  esac
}

# --- apk (apk-tools v3) ------------------------------------------------------

# apk_seed: the image's base packages in apk's database, as empty packages
# of those names (apk refuses a package whose libc dependency is missing).
apk_seed() {
  local name dir=$RIG_DIR/apk-seed
  mkdir -p "$dir/files"
  rig_sh 'mkdir -p /etc/apk /lib/apk/db && echo x86_64 >/etc/apk/arch && : >/etc/apk/world'
  for name in libc base-files busybox procd ubus uci dnsmasq; do
    "$RIG_USERLAND/bin/apk" mkpkg --info "name:$name" --info "version:1.0-r1" --info "arch:x86_64" \
      --info "description:rig base package" --files "$dir/files" --output "$dir/$name.apk" >/dev/null
    rig_put "$dir/$name.apk" "/tmp/pkg/seed/$name.apk"
  done
  rig_sh 'apk add --initdb --allow-untrusted --no-network /tmp/pkg/seed/*.apk >/dev/null' ||
    rig_fail "seeding apk's database"
}

# The apk variants: the package under test for NEXT and WRONG is made by
# the apk target; here only the one given is put in place.
make_apk_variants() {
  PACKAGE_VERSION=$(tar -xzOf "$1" .PKGINFO 2>/dev/null | sed -n 's/^pkgver = //p' || true)
  rig_put "$1" /tmp/pkg/current.apk
  NEXT_PACKAGE="" WRONG_ARCH_PACKAGE=""
}
