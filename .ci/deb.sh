#!/usr/bin/env bash
# .ci/deb.sh — builds the dnsward .deb for arm64, armhf and amd64
# (`cmake --build TREE --target deb`, Board/packaging/deb.cmake), each with
# the DNSSEC validator (-DDNSWARD_DNSSEC=ON: the Debian profile, whose
# packaged config says `dnssec auto`), and checks each package:
#
#   - control fields (Package, Version, Architecture, Depends on libc6 with a
#     version, Section, Priority, Installed-Size, ...), conffiles, md5sums;
#   - the file list with modes and root ownership, exactly;
#   - lintian: no error (`--fail-on error`; nothing suppressed), its other
#     findings printed;
#   - the binary: its ELF machine; for arm64 and armhf LOAD segments aligned
#     to at least 16 KiB (Raspberry Pi 5's pages); `dnsward --check` of the packaged
#     config, and of the config with every commented example line enabled
#     (under qemu-aarch64 / qemu-arm for the ARM ones), which must report
#     `dnssec: auto`;
#   - amd64 only: installed with `dpkg --root` into a throwaway root (the
#     maintainer scripts run with stubs for the commands that would touch
#     this machine, and their calls are checked), then removed and purged;
#     the unit through `systemd-analyze verify`; the binary serving on the
#     packaged config (loopback port, Knot upstream, cache file in a
#     temporary folder; `dnssec auto` with the root's keys left out and one
#     anchor for a zone never asked, as Knot's zone is unsigned, so the
#     names asked are insecure) and reloading its cache after a restart; the same
#     started as the unit starts it (unprivileged, CAP_NET_BIND_SERVICE alone,
#     port 53 in its own network namespace; as root only); the sysusers.d
#     file through systemd-sysusers --root; a second build gives the same
#     bytes (SOURCE_DATE_EPOCH).
#
#   bash .ci/deb.sh
#
# Needs: what .ci/firmware.sh needs (swiftc, cmake, ninja, the cross gcc for
# aarch64 and armv7, qemu-user, knotd, dig), plus dpkg-deb and lintian
# (packages dpkg and lintian). Optional, each check skipped without it:
# systemd-analyze and systemd-sysusers (package systemd); root, unshare,
# setpriv (util-linux) and ip (iproute2) for the unprivileged start.
#
# Environment:
#   DNSWARD_DEB_BUILD_DIR  keep the arm64, armhf and amd64 build trees here
#                          (reused next time) instead of in a temporary directory
#   DNSWARD_DEB_HOST_TREE  an existing `-DDNSWARD_TARGET=host
#                          -DDNSWARD_DNSSEC=ON` build tree to package for
#                          amd64 (left as it is configured; one without
#                          DNSWARD_DNSSEC is refused); otherwise one is built
#   DNSWARD_DEB_PORT       first port to try for dnsward (default 26353)
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
work_dir
BUILD=${DNSWARD_DEB_BUILD_DIR:-$WORK/build}
SECONDS=0
# The version every package must carry: Release.version, what --version says.
RELEASE_VERSION=$(release_version)

ok() { printf '  ok  %s\n' "$*"; }

need swiftc cmake ninja dpkg-deb dpkg lintian readelf aarch64-linux-gnu-gcc \
  arm-linux-gnueabihf-gcc qemu-aarch64 qemu-arm knotd dig
mkdir -p "$BUILD"

# build_deb TREE TARGET [cmake options...]: configures TREE (again, if it is
# a reused one: the options apply to it too) and builds its .deb; prints
# nothing but the build's output. Without cmake options the tree is left as
# configured (DNSWARD_DEB_HOST_TREE).
build_deb() {
  local tree=$1 target=$2
  shift 2
  if (($#)) || [[ ! -f $tree/CMakeCache.txt ]]; then
    cmake -S "$ROOT/Board" -B "$tree" -G Ninja -DDNSWARD_TARGET="$target" "$@" \
      >"$tree.configure.log" 2>&1 || { cat "$tree.configure.log"; fail "cmake configure for $target"; }
  fi
  cmake --build "$tree" --target deb || fail "cmake --build $tree --target deb"
}

# The one dnsward_*_ARCH.deb in TREE (build-deb.sh removes older ones).
deb_in() {
  local debs=("$1"/dnsward_*_"$2".deb)
  [[ ${#debs[@]} == 1 && -f ${debs[0]} ]] || fail "expected one dnsward_*_$2.deb in $1, found: ${debs[*]}"
  echo "${debs[0]}"
}

# --- 1. the three packages ----------------------------------------------------
step "arm64 .deb (aarch64, DNSSEC, segments aligned to 64 KiB)"
build_deb "$BUILD/arm64" aarch64 -DDNSWARD_MAX_PAGE_SIZE=65536 -DDNSWARD_DNSSEC=ON
# armv7 too: it costs nothing (lld does not pad the file), and the binary
# then loads even where a 32-bit userland runs on a 16 KiB-page kernel.
step "armhf .deb (armv7, DNSSEC, segments aligned to 64 KiB)"
build_deb "$BUILD/armhf" armv7 -DDNSWARD_MAX_PAGE_SIZE=65536 -DDNSWARD_DNSSEC=ON
step "amd64 .deb (host, DNSSEC, tree ${DNSWARD_DEB_HOST_TREE:-$BUILD/amd64})"
[[ $(dpkg --print-architecture) == amd64 ]] || fail "the host package is checked as amd64; this machine is $(dpkg --print-architecture)"
if [[ -n ${DNSWARD_DEB_HOST_TREE:-} ]]; then
  HOST_TREE=$DNSWARD_DEB_HOST_TREE
  grep -qx 'DNSWARD_DNSSEC:BOOL=ON' "$HOST_TREE/CMakeCache.txt" ||
    fail "DNSWARD_DEB_HOST_TREE=$HOST_TREE is not configured with -DDNSWARD_DNSSEC=ON (the package's config says dnssec auto)"
  build_deb "$HOST_TREE" host
else
  HOST_TREE=$BUILD/amd64
  build_deb "$HOST_TREE" host -DDNSWARD_DNSSEC=ON
fi

declare -A DEB
# (Plain assignments, so that a failure in deb_in stops the script.)
DEB[arm64]=$(deb_in "$BUILD/arm64" arm64)
DEB[armhf]=$(deb_in "$BUILD/armhf" armhf)
DEB[amd64]=$(deb_in "$HOST_TREE" amd64)

# --- 2. each package ------------------------------------------------------------
# The packaged config with every commented example directive enabled: the
# examples must be valid too.
examples_enabled() {
  sed -E 's/^# (listen|allow|upstream|override|block|rebind-allow|domain|hosts|leases) /\1 /' "$1"
}

EXPECTED_FILES="drwxr-xr-x root/root ./
drwxr-xr-x root/root ./etc/
drwxr-xr-x root/root ./etc/dnsward/
-rw-r--r-- root/root ./etc/dnsward/dnsward.conf
drwxr-xr-x root/root ./lib/
drwxr-xr-x root/root ./lib/systemd/
drwxr-xr-x root/root ./lib/systemd/system/
-rw-r--r-- root/root ./lib/systemd/system/dnsward.service
drwxr-xr-x root/root ./usr/
drwxr-xr-x root/root ./usr/lib/
drwxr-xr-x root/root ./usr/lib/sysusers.d/
-rw-r--r-- root/root ./usr/lib/sysusers.d/dnsward.conf
drwxr-xr-x root/root ./usr/sbin/
-rwxr-xr-x root/root ./usr/sbin/dnsward
drwxr-xr-x root/root ./usr/share/
drwxr-xr-x root/root ./usr/share/doc/
drwxr-xr-x root/root ./usr/share/doc/dnsward/
-rw-r--r-- root/root ./usr/share/doc/dnsward/README.md.gz
-rw-r--r-- root/root ./usr/share/doc/dnsward/changelog.gz
-rw-r--r-- root/root ./usr/share/doc/dnsward/copyright
drwxr-xr-x root/root ./usr/share/man/
drwxr-xr-x root/root ./usr/share/man/man8/
-rw-r--r-- root/root ./usr/share/man/man8/dnsward.8.gz"

# field DEB NAME: one control field.
field() { dpkg-deb --field "$1" "$2"; }

check_package() {
  local arch=$1 deb=${DEB[$1]}
  local unpacked=$WORK/unpacked-$arch control=$WORK/control-$arch
  step "$arch: $(basename "$deb")"
  dpkg-deb --info "$deb" | sed 's/^/    /'

  [[ $(field "$deb" Package) == dnsward ]] || fail "$arch: Package is not dnsward"
  [[ $(field "$deb" Architecture) == "$arch" ]] || fail "$arch: Architecture is $(field "$deb" Architecture)"
  [[ $(field "$deb" Version) == "$RELEASE_VERSION" ]] ||
    fail "$arch: Version '$(field "$deb" Version)', not Release.version $RELEASE_VERSION"
  [[ $(basename "$deb") == "dnsward_$(field "$deb" Version)_$arch.deb" ]] || fail "$arch: file name and Version differ"
  [[ $(field "$deb" Section) == net && $(field "$deb" Priority) == optional ]] ||
    fail "$arch: Section/Priority are not net/optional"
  [[ -n $(field "$deb" Maintainer) ]] || fail "$arch: no Maintainer"
  [[ $(field "$deb" Installed-Size) =~ ^[0-9]+$ ]] || fail "$arch: Installed-Size '$(field "$deb" Installed-Size)'"
  local depends
  depends=$(field "$deb" Depends)
  [[ $depends =~ (^|, )libc6\ \(\>=\ 2\.[0-9]+\) ]] || fail "$arch: Depends '$depends' has no libc6 (>= 2.N)"
  [[ $depends =~ (^|, )adduser($|,) ]] || fail "$arch: Depends '$depends' lacks adduser (the postinst fallback)"
  ok "control fields; Depends: $depends"

  dpkg-deb --control "$deb" "$control"
  [[ $(cat "$control/conffiles") == /etc/dnsward/dnsward.conf ]] ||
    fail "$arch: conffiles is '$(cat "$control/conffiles")'"
  local script
  for script in postinst prerm postrm; do
    [[ -x $control/$script ]] || fail "$arch: DEBIAN/$script missing or not executable"
    sh -n "$control/$script" || fail "$arch: DEBIAN/$script: sh -n"
  done
  ok "conffiles: /etc/dnsward/dnsward.conf; postinst, prerm, postrm"

  # Modes, owners and names, exactly (sizes and dates left out).
  local files
  files=$(dpkg-deb --contents "$deb" | awk '{ print $1, $2, $6 }')
  if [[ $files != "$EXPECTED_FILES" ]]; then
    diff <(echo "$EXPECTED_FILES") <(echo "$files") || true
    fail "$arch: the file list differs from the expected one (above: - expected, + found)"
  fi
  ok "contents: $(wc -l <<<"$files") entries, modes as expected, all root/root"

  dpkg-deb -x "$deb" "$unpacked"
  (cd "$unpacked" && md5sum --quiet -c "$control/md5sums") || fail "$arch: md5sums do not match the files"
  ok "md5sums"

  # lintian: errors fail (nothing is suppressed); warnings and notes printed.
  # (Its note that it runs as root is dropped: CI runs as root.)
  local findings status=0
  findings=$(lintian --fail-on error --display-info "$deb" 2>&1) || status=$?
  findings=$(grep -v 'running with root privileges is not recommended' <<<"$findings" || true)
  if [[ -n $findings ]]; then sed 's/^/    /' <<<"$findings"; fi
  ((status == 0)) || fail "$arch: lintian reports errors (E: above), or failed (status $status)"
  ok "lintian: no errors"

  local binary=$unpacked/usr/sbin/dnsward machine runner=()
  case $arch in
    arm64)
      machine=AArch64
      runner=(qemu-aarch64 -L "$(qemu_sysroot aarch64-linux-gnu)")
      ;;
    armhf)
      machine=ARM
      runner=(qemu-arm -L "$(qemu_sysroot arm-linux-gnueabihf)")
      ;;
    amd64) machine='Advanced Micro Devices X86-64' ;;
  esac
  grep -q "Machine: *$machine\$" <<<"$(readelf -hW "$binary")" || fail "$arch: /usr/sbin/dnsward is not $machine"
  grep -q '\.symtab' <<<"$(readelf -SW "$binary")" && fail "$arch: /usr/sbin/dnsward is not stripped"
  if [[ $arch == arm64 || $arch == armhf ]]; then
    local alignment smallest=0
    while read -r alignment; do
      if ((smallest == 0 || alignment < smallest)); then smallest=$alignment; fi
    done < <(readelf -lW "$binary" | awk '$1 == "LOAD" { print $NF }')
    ((smallest >= 0x4000)) || { readelf -lW "$binary"; fail "$arch: LOAD aligned to $smallest, under 16 KiB"; }
    ok "LOAD segments aligned to $(printf '0x%x' "$smallest") (>= 0x4000: loads on 16 KiB pages)"
  fi
  local config=$unpacked/etc/dnsward/dnsward.conf checked
  checked=$("${runner[@]}" "$binary" --check "$config" 2>&1) || { echo "$checked"; fail "$arch: --check of the packaged config"; }
  grep -q 'user: dnsward' <<<"$checked" || fail "$arch: the packaged config does not set user dnsward"
  grep -q 'cache-file: /var/lib/dnsward/cache' <<<"$checked" || fail "$arch: the packaged config's cache-file"
  # The Debian profile validates: the binary has the validator and the
  # packaged config turns it on, with the root's keys.
  grep -q '^dnssec: auto; trust anchors: 2 (root: 2)' <<<"$checked" ||
    { echo "$checked"; fail "$arch: --check of the packaged config does not report 'dnssec: auto' with the root's 2 anchors"; }
  examples_enabled "$config" >"$WORK/examples-$arch.conf"
  checked=$("${runner[@]}" "$binary" --check "$WORK/examples-$arch.conf" 2>&1) ||
    { echo "$checked"; fail "$arch: --check with the commented examples enabled"; }
  ok "dnsward --check accepts the packaged config (dnssec auto), and with its examples enabled${runner[*]:+ (${runner[0]})}"
}

for arch in arm64 armhf amd64; do check_package "$arch"; done

# --- 3. amd64: install, the unit, a run on the packaged config -----------------
deb=${DEB[amd64]}
step "amd64: dpkg --root install, reinstall (an upgrade), remove, purge"
# The maintainer scripts run outside a chroot (--force-script-chrootless,
# DPKG_ROOT set) with stubs first on PATH for every command that would
# change this machine; each stub logs its arguments. /run/systemd/system is
# absent here, so no unit is started.
target=$WORK/root stubs=$WORK/stubs calls=$WORK/calls
mkdir -p "$target/var/lib/dpkg/info" "$target/var/lib/dpkg/updates" "$stubs"
touch "$target/var/lib/dpkg/status" "$calls"
for command in getent systemd-sysusers adduser chgrp chmod deb-systemd-helper deb-systemd-invoke systemctl; do
  status=0
  [[ $command == getent ]] && status=2 # no such account yet
  printf '#!/bin/sh\necho "%s $*" >>"%s"\nexit %d\n' "$command" "$calls" "$status" >"$stubs/$command"
  chmod 0755 "$stubs/$command"
done
in_target() {
  PATH="$stubs:$PATH" dpkg --root="$target" --force-script-chrootless --force-not-root \
    --force-depends --log="$WORK/dpkg.log" "$@" >"$WORK/dpkg.out" 2>&1 ||
    { cat "$WORK/dpkg.out"; fail "dpkg --root $*"; }
}
# expect_calls LABEL EXPECTED: the stubs' calls since the last check.
expect_calls() {
  local got
  got=$(cat "$calls")
  : >"$calls"
  if [[ $got != "$2" ]]; then
    diff <(echo "$2") <(echo "$got") || true
    fail "$1: maintainer scripts' calls differ (above: - expected, + made)"
  fi
  ok "$1: ${2//$'\n'/; }"
}
in_target -i "$deb"
[[ -x $target/usr/sbin/dnsward && -f $target/etc/dnsward/dnsward.conf ]] || fail "install: files missing in $target"
grep -q '^Status: install ok installed' "$target/var/lib/dpkg/status" || fail "install: not 'install ok installed'"
grep -q '^ /etc/dnsward/dnsward.conf [0-9a-f]\{32\}$' "$target/var/lib/dpkg/status" ||
  fail "install: dpkg registered no conffile"
# The config as shipped (root:root 0644) gets the dnsward group and 0640;
# dpkg run by another user than root unpacks it as that user's, which
# postinst leaves alone.
protect_calls=
[[ $(id -u) == 0 ]] && protect_calls="
chgrp dnsward $target/etc/dnsward/dnsward.conf
chmod 0640 $target/etc/dnsward/dnsward.conf"
expect_calls "install" "getent passwd dnsward
systemd-sysusers /usr/lib/sysusers.d/dnsward.conf$protect_calls
deb-systemd-helper unmask dnsward.service
deb-systemd-helper --quiet was-enabled dnsward.service
deb-systemd-helper enable dnsward.service"
# An edited conffile survives a reinstall (dpkg keeps it when the packaged
# one did not change).
echo '# edited by the administrator' >>"$target/etc/dnsward/dnsward.conf"
# (the chgrp and chmod above were stubs: an administrator's own mode now,
# which postinst leaves alone)
chmod 0600 "$target/etc/dnsward/dnsward.conf"
in_target -i "$deb"
grep -q 'edited by the administrator' "$target/etc/dnsward/dnsward.conf" || fail "reinstall: the edited conffile was replaced"
expect_calls "reinstall" "getent passwd dnsward
systemd-sysusers /usr/lib/sysusers.d/dnsward.conf
deb-systemd-helper unmask dnsward.service
deb-systemd-helper --quiet was-enabled dnsward.service
deb-systemd-helper enable dnsward.service"
mkdir -p "$target/var/lib/dnsward" && touch "$target/var/lib/dnsward/cache"
in_target --remove dnsward
[[ ! -e $target/usr/sbin/dnsward && -f $target/etc/dnsward/dnsward.conf && -f $target/var/lib/dnsward/cache ]] ||
  fail "remove: the binary should be gone, the config and the cache kept"
expect_calls "remove" "deb-systemd-helper mask dnsward.service"
in_target --purge dnsward
[[ ! -e $target/etc/dnsward/dnsward.conf && ! -e $target/var/lib/dnsward ]] ||
  fail "purge: the config or the state directory is left"
expect_calls "purge" "deb-systemd-helper purge dnsward.service
deb-systemd-helper unmask dnsward.service"

unpacked=$WORK/unpacked-amd64
if command -v systemd-analyze >/dev/null; then
  step "amd64: systemd-analyze verify dnsward.service"
  # ExecStart pointed at the unpacked binary (verify checks that it exists).
  mkdir -p "$WORK/unit"
  sed "s|/usr/sbin/dnsward|$unpacked/usr/sbin/dnsward|" "$unpacked/lib/systemd/system/dnsward.service" \
    >"$WORK/unit/dnsward.service"
  verified=$(systemd-analyze verify --man=no "$WORK/unit/dnsward.service" 2>&1) ||
    { echo "$verified"; fail "systemd-analyze verify"; }
  # systemd 252 (Debian 12) does not know the back-off keys of 254; the unit
  # says so. Anything else it reports fails.
  unexpected=$(grep -v -E "Unknown key '(RestartSteps|RestartMaxDelaySec)' in section \[Service\], ignoring\.$" \
    <<<"$verified" || true)
  [[ -z $unexpected ]] || { echo "$verified"; fail "systemd-analyze verify reports more than the known keys"; }
  ok "verified (systemd $(systemctl --version | awk 'NR == 1 { print $2 }'))${verified:+; known: RestartSteps/RestartMaxDelaySec before 254}"
  exposure=$(systemd-analyze security --offline=yes "$WORK/unit/dnsward.service" 2>/dev/null |
    grep -o 'Overall exposure level.*' || true)
  ok "systemd-analyze security: ${exposure:-not reported}"
else
  step "amd64: systemd-analyze not installed: the unit is not verified"
fi

if command -v systemd-sysusers >/dev/null; then
  step "amd64: systemd-sysusers makes the dnsward account (in a throwaway root)"
  mkdir -p "$WORK/sysusers-root/etc"
  systemd-sysusers --root="$WORK/sysusers-root" "$unpacked/usr/lib/sysusers.d/dnsward.conf" >/dev/null 2>&1 ||
    fail "systemd-sysusers rejects usr/lib/sysusers.d/dnsward.conf"
  account=$(grep '^dnsward:' "$WORK/sysusers-root/etc/passwd" || true)
  [[ $account =~ ^dnsward:x:[0-9]+:[0-9]+:[^:]*:/nonexistent:/usr/sbin/nologin$ ]] ||
    fail "sysusers made '$account'"
  grep -q '^dnsward:' "$WORK/sysusers-root/etc/group" || fail "sysusers made no dnsward group"
  ok "$account"
fi

# The unit starts dnsward unprivileged with CAP_NET_BIND_SERVICE as its one
# (ambient) capability. The same here with setpriv, as nobody (this machine
# has no dnsward account), on port 53 in a network namespace of its own: it
# must bind, answer, skip the config's `user` line and write its cache file
# as that account.
if [[ $(id -u) == 0 ]] && command -v unshare >/dev/null && command -v setpriv >/dev/null; then
  step "amd64: started as the unit starts it: as nobody, CAP_NET_BIND_SERVICE alone, port 53 (own network namespace)"
  chmod 0711 "$WORK"
  state=$WORK/unprivileged-state
  mkdir -p "$state"
  chown nobody: "$state"
  chmod 0750 "$state"
  sed -e "s|^cache-file /var/lib/dnsward/cache\$|cache-file $state/cache|" \
    "$unpacked/etc/dnsward/dnsward.conf" >"$WORK/unprivileged.conf"
  chmod 0644 "$WORK/unprivileged.conf"
  grep -qxF "cache-file $state/cache" "$WORK/unprivileged.conf" || fail "could not set the cache file"
  export BINARY=$unpacked/usr/sbin/dnsward CONFIG=$WORK/unprivileged.conf LOG=$WORK/unprivileged.log
  # Prints the answer, the process's capabilities and its exit status.
  observed=$(timeout 60 unshare -n bash -c '
    ip link set lo up
    setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups --no-new-privs \
      --bounding-set=-all,+net_bind_service --inh-caps=-all,+net_bind_service \
      --ambient-caps=+net_bind_service "$BINARY" --config "$CONFIG" >"$LOG" 2>&1 &
    pid=$!
    for _ in $(seq 1 60); do
      answer=$(dig +short +time=1 +tries=1 @127.0.0.1 dnsward.test A 2>/dev/null || true)
      [[ $answer == 127.0.0.53 ]] && break
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.25
    done
    echo "answer $answer"
    grep -E "^(Uid|CapEff):" /proc/$pid/status 2>/dev/null | tr -s "\t" " "
    kill -TERM "$pid" 2>/dev/null
    code=0
    wait "$pid" || code=$?
    echo "exit $code"') || true
  nobody_uid=$(id -u nobody)
  for expected in "answer 127.0.0.53" "Uid: $nobody_uid $nobody_uid $nobody_uid $nobody_uid" \
    "CapEff: 0000000000000400" "exit 0"; do
    grep -qxF "$expected" <<<"$observed" ||
      { echo "$observed"; cat "$LOG"; fail "unprivileged start: expected '$expected' (observed above, then the log)"; }
  done
  grep -q 'listening on 127.0.0.1:53 ' "$LOG" || { cat "$LOG"; fail "unprivileged start: not listening on port 53"; }
  [[ $(stat -c '%U %a' "$state/cache") == "nobody 600" ]] ||
    fail "unprivileged start: cache file is $(stat -c '%U %a' "$state/cache"), expected nobody 600"
  ok "bound 127.0.0.1:53 as uid $nobody_uid with CAP_NET_BIND_SERVICE (0x400) only, answered, exit 0; cache file nobody 0600"
else
  step "amd64: the unprivileged start is skipped (needs root, unshare and setpriv)"
fi

step "amd64: the packaged config serving on loopback, its cache file kept across a restart"
PORT=$(free_port "${DNSWARD_DEB_PORT:-26353}")
UPSTREAM_PORT=$(free_port $((PORT + 1)))
start_knot "$UPSTREAM_PORT" || fail "knotd did not start"
mkdir -p "$WORK/state"
# The packaged file with only what a CI machine needs changed: a free port,
# Knot as the upstream, the state folder, and no `user` (the unit runs
# dnsward as the dnsward account; this machine has none).
sed -e "s|^listen 127.0.0.1:53\$|listen 127.0.0.1:$PORT|" \
  -e "s|^upstream resolv-conf /etc/resolv.conf\$|upstream udp 127.0.0.1:$UPSTREAM_PORT|" \
  -e "s|^cache-file /var/lib/dnsward/cache\$|cache-file $WORK/state/cache|" \
  -e '/^user dnsward$/d' "$unpacked/etc/dnsward/dnsward.conf" >"$WORK/run.conf"
for line in "listen 127.0.0.1:$PORT" "upstream udp 127.0.0.1:$UPSTREAM_PORT" "cache-file $WORK/state/cache" \
  "dnssec auto"; do
  grep -qxF "$line" "$WORK/run.conf" || fail "the packaged config changed: could not set '$line'"
done
# `dnssec auto` stays, but Knot's zone is unsigned and it cannot give the
# root's keys: no root anchor, and one (RFC 4034 §5.4's DS) for a zone never
# asked, so example.test is under no anchor (insecure) and answered as is.
printf '%s\n' "dnssec-root off" \
  "trust-anchor dskey.example.com. 86400 IN DS 60485 5 1 2BB183AF5F22588179A53B0A98631FAD1A292118" \
  >>"$WORK/run.conf"
ask() { dig +short +time=2 +tries=1 @127.0.0.1 -p "$PORT" "$@" 2>&1 || true; }
# serve LOG: starts dnsward on run.conf; waits until it answers.
serve() {
  "$unpacked/usr/sbin/dnsward" --config "$WORK/run.conf" >"$1" 2>&1 &
  DNSWARD_PID=$!
  track "$DNSWARD_PID"
  local tries
  for tries in $(seq 1 60); do
    kill -0 "$DNSWARD_PID" 2>/dev/null || { cat "$1"; fail "dnsward exited; log above"; }
    [[ $(ask dnsward.test A) == 127.0.0.53 ]] && return 0
    sleep 0.25
  done
  cat "$1"
  fail "no answer from 127.0.0.1:$PORT within 15 s"
}
stop() {
  kill -TERM "$DNSWARD_PID"
  local code=0
  wait "$DNSWARD_PID" || code=$?
  untrack "$DNSWARD_PID"
  [[ $code == 0 ]] || { cat "$1"; fail "exit status $code after SIGTERM"; }
}
serve "$WORK/run1.log"
[[ $(ask www.example.test A) == 192.0.2.80 ]] || { cat "$WORK/run1.log"; fail "www.example.test over UDP"; }
[[ $(ask +tcp www.example.test A) == 192.0.2.80 ]] || { cat "$WORK/run1.log"; fail "www.example.test over TCP"; }
ok "dnsward.test -> 127.0.0.53 (override), www.example.test -> 192.0.2.80 (UDP, TCP)"
stop "$WORK/run1.log"
grep -q 'saved [1-9][0-9]* cached answers' "$WORK/run1.log" || { cat "$WORK/run1.log"; fail "no cache saved at SIGTERM"; }
[[ -s $WORK/state/cache ]] || fail "no cache file in the state folder"
serve "$WORK/run2.log"
grep -q 'loaded [1-9][0-9]* cached answers' "$WORK/run2.log" || { cat "$WORK/run2.log"; fail "the cache file was not loaded"; }
stop "$WORK/run2.log"
ok "cache file saved at SIGTERM and loaded at the next start"
stop_knot

step "amd64: the same tree gives the same .deb (SOURCE_DATE_EPOCH)"
first=$(sha256sum <"$deb")
cp "$deb" "$WORK/first.deb"
cmake --build "$HOST_TREE" --target deb >/dev/null || fail "second build of the amd64 .deb"
second=$(sha256sum <"$(deb_in "$HOST_TREE" amd64)")
[[ $first == "$second" ]] || fail "two builds of the amd64 .deb differ"
ok "identical: ${first%% *}"

# --- 4. sizes --------------------------------------------------------------------
step "package sizes (bytes)"
for arch in arm64 armhf amd64; do
  printf '  %-6s %8d  %s (usr/sbin/dnsward %d bytes, Installed-Size %s KiB)\n' "$arch" \
    "$(stat -c %s "${DEB[$arch]}")" "$(basename "${DEB[$arch]}")" \
    "$(stat -c %s "$WORK/unpacked-$arch/usr/sbin/dnsward")" "$(field "${DEB[$arch]}" Installed-Size)"
done

printf '\ndeb.sh: all checks passed in %d s\n' "$SECONDS"
