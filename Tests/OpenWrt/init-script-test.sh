#!/bin/sh
# init-script-test.sh — what the OpenWrt rig (Tests/OpenWrt/README.md)
# cannot show about the package's init script (Board/openwrt/package/dnsward.init),
# with its functions run in this shell, a fake `uci` (a file of
# KEY<TAB>VALUE lines, one per list item), and procd's, logger's and
# dnsmasq's init script's parts recorded instead of done:
#
#   busybox ash Tests/OpenWrt/init-script-test.sh DNSWARD
#
# DNSWARD is the dnsward command `--check` runs (a script that runs the
# firmware under qemu will do). AWK, if set, is the awk the converter runs
# under (e.g. "busybox awk"; default: awk).
#
# What the rig cannot show: a new LAN address (netifd's interface event,
# which the rig has no netifd to send) moves DHCP option 6 and the listen
# lines and restarts dnsward instead of a SIGHUP; `disable` while an image
# is being built (IPKG_INSTROOT set) removes only the boot link. Everything
# else the init script does, the rig checks against the real procd, uci
# and dnsmasq.

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DNSWARD=${1:?usage: init-script-test.sh DNSWARD-COMMAND}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dnsward-init-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
FAILURES=0

fail() {
	echo "FAIL: $*" >&2
	FAILURES=$((FAILURES + 1))
}

# expect_equal WHAT ACTUAL EXPECTED
expect_equal() {
	[ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
}

# --- the fakes ---------------------------------------------------------------

UCI_DB=$WORK/uci.db
CALLS=$WORK/calls
: >"$CALLS"

uci() {
	local key value
	[ "$1" = -q ] && shift
	case $1 in
	get)
		# Items of a list are printed space-separated, as uci does; an
		# option that is not there fails.
		value=$(awk -F '\t' -v key="$2" '$1 == key { printf "%s%s", sep, $2; sep = " "; found = 1 }
			END { exit !found }' "$UCI_DB") || return 1
		echo "$value"
		;;
	set)
		key=${2%%=*} value=${2#*=}
		awk -F '\t' -v key="$key" '$1 != key' "$UCI_DB" >"$UCI_DB.new" && mv "$UCI_DB.new" "$UCI_DB"
		printf '%s\t%s\n' "$key" "$value" >>"$UCI_DB"
		;;
	delete)
		awk -F '\t' -v key="$2" '$1 != key' "$UCI_DB" >"$UCI_DB.new" && mv "$UCI_DB.new" "$UCI_DB"
		;;
	add_list)
		key=${2%%=*} value=${2#*=}
		printf '%s\t%s\n' "$key" "$value" >>"$UCI_DB"
		;;
	del_list)
		key=${2%%=*} value=${2#*=}
		awk -F '\t' -v key="$key" -v value="$value" '!($1 == key && $2 == value)' "$UCI_DB" >"$UCI_DB.new" &&
			mv "$UCI_DB.new" "$UCI_DB"
		;;
	show)
		awk -F '\t' -v config="$2" 'index($1, config ".") == 1 { print $1 "=\047" $2 "\047" }' "$UCI_DB"
		;;
	commit)
		echo "commit $2" >>"$CALLS"
		;;
	*)
		echo "fake uci: unknown command $*" >&2
		return 1
		;;
	esac
}

logger() { echo "logger $*" >>"$CALLS"; }
# Whether dnsward runs (set after the init script is read: it defines
# prog_running, replaced below).
RUNNING=0
procd_send_signal() { echo "procd_send_signal $*" >>"$CALLS"; }
procd_add_reload_trigger() { echo "procd_add_reload_trigger $*" >>"$CALLS"; }
procd_add_reload_interface_trigger() { echo "procd_add_reload_interface_trigger $*" >>"$CALLS"; }
procd_open_instance() { echo "procd_open_instance" >>"$CALLS"; }
procd_set_param() { echo "procd_set_param $*" >>"$CALLS"; }
procd_close_instance() { echo "procd_close_instance" >>"$CALLS"; }
procd_kill() { echo "procd_kill $*" >>"$CALLS"; }

# The init script defines its variables and functions; rc.common would run
# an action afterwards.
. "$ROOT/Board/openwrt/package/dnsward.init"
prog_running() { [ "$RUNNING" = 1 ]; }

if [ -n "${AWK:-}" ]; then
	awk() { $AWK "$@"; }
fi
# Everything on disk goes to $WORK.
cat >"$WORK/dnsward-check" <<EOF
#!/bin/sh
exec $DNSWARD "\$@"
EOF
cat >"$WORK/dnsmasq-init" <<EOF
#!/bin/sh
echo "dnsmasq \$*" >>"$CALLS"
EOF
chmod +x "$WORK/dnsward-check" "$WORK/dnsmasq-init"
PROG=$WORK/dnsward-check
DNSMASQ_INIT=$WORK/dnsmasq-init
UCI_FILE=$WORK/dnsward.uci
UCI_TO_CONF=$ROOT/Board/openwrt/package/uci-to-conf.awk
CONF_DIR=$WORK/var-etc
CONF=$CONF_DIR/dnsward.conf
ROUTER_HOSTS=$CONF_DIR/dnsward.hosts
LAN_ADDRESS=192.168.1.1
lan_ipv4() { echo "$LAN_ADDRESS"; }
# The `user` account (nobody) in a passwd file of our own; its group must
# be one chgrp may give: any as root, our own otherwise.
if [ "$(id -u)" = 0 ]; then NOBODY_GID=65534; else NOBODY_GID=$(id -g); fi
PASSWD=$WORK/passwd
echo "nobody:x:65534:$NOBODY_GID:nobody:/var:/bin/false" >"$PASSWD"
# rc.common's procd start: start_service (between procd_open_service and
# procd_close_service).
start() {
	echo "start" >>"$CALLS"
	start_service "$@"
}
# rc.common's stop (only counted: `disable` in an image must not stop).
stop() { echo "stop" >>"$CALLS"; }

cp "$ROOT/Board/openwrt/package/dnsward.uci" "$UCI_FILE"
# A default OpenWrt's dhcp config, plus a server line and a DHCP option the
# user had (both must survive), and the init-only settings.
tab=$(printf '\t')
cat >"$UCI_DB" <<EOF
dhcp.@dnsmasq[0]${tab}dnsmasq
dhcp.@dnsmasq[0].domain${tab}lan
dhcp.@dnsmasq[0].server${tab}/corp.example/10.0.0.1
dhcp.lan${tab}dhcp
dhcp.lan.interface${tab}lan
dhcp.lan.dhcp_option${tab}3,192.168.1.1
system.@system[0].hostname${tab}OpenWrt
dnsward.@dnsward[0]${tab}dnsward
dnsward.@dnsward[0].mode${tab}beside
EOF
sort "$UCI_DB" >"$WORK/dhcp.before"

# count WHAT: how many lines of the calls since the last reset are WHAT.
count() { grep -c -x -F "$1" "$CALLS"; }
reset_calls() { : >"$CALLS"; }
get() { uci -q get "$1"; }

# --- a new LAN address in mode primary -------------------------------------------

uci set 'dnsward.@dnsward[0].mode=primary'
start_service >/dev/null 2>&1 || fail "primary: start_service failed: $(cat "$CALLS")"
expect_equal "primary: dhcp_option" "$(get 'dhcp.lan.dhcp_option')" "3,192.168.1.1 6,192.168.1.1"
RUNNING=1
# The interface event reloads: new listen lines, so a restart (start), no SIGHUP.
LAN_ADDRESS=192.168.2.1
reset_calls
reload_service || fail "reload, new LAN address: reload_service failed"
expect_equal "reload, new LAN address: starts" "$(count start)" 1
expect_equal "reload, new LAN address: SIGHUPs" "$(count 'procd_send_signal dnsward')" 0
grep -q -x 'listen 192.168.2.1:53' "$CONF" || fail "reload, new LAN address: no listen 192.168.2.1:53"
# DHCP option 6 follows; the user's own option 3 stays.
expect_equal "new address: dhcp_option" "$(get 'dhcp.lan.dhcp_option')" "3,192.168.1.1 6,192.168.2.1"
expect_equal "new address: the router's name" "$(cat "$ROUTER_HOSTS")" "192.168.2.1 OpenWrt"
# Back to beside: option 6 is the user's again (none).
uci set 'dnsward.@dnsward[0].mode=beside'
start_service >/dev/null 2>&1 || fail "beside: start_service failed"
expect_equal "beside: dhcp_option" "$(get 'dhcp.lan.dhcp_option')" "3,192.168.1.1"
dnsmasq_for off
sort "$UCI_DB" | grep -v '^dnsward\.' >"$WORK/dhcp.after"
grep -v '^dnsward\.' "$WORK/dhcp.before" >"$WORK/dhcp.before.dhcp"
cmp -s "$WORK/dhcp.before.dhcp" "$WORK/dhcp.after" ||
	fail "off: the config differs from before dnsward: $(diff "$WORK/dhcp.before.dhcp" "$WORK/dhcp.after")"

# --- disable while building an image: only the links go ---------------------------

mkdir -p "$WORK/root/etc/rc.d"
touch "$WORK/root/etc/rc.d/S21dnsward" "$WORK/root/etc/rc.d/S19dnsmasq"
reset_calls
(IPKG_INSTROOT=$WORK/root initscript=/etc/init.d/dnsward disable)
[ -e "$WORK/root/etc/rc.d/S21dnsward" ] && fail "disable: S21dnsward still there"
[ -e "$WORK/root/etc/rc.d/S19dnsmasq" ] || fail "disable: S19dnsmasq removed"
expect_equal "disable in an image: stops" "$(count stop)" 0

if [ "$FAILURES" -gt 0 ]; then
	echo "init-script-test.sh: $FAILURES check(s) failed" >&2
	exit 1
fi
echo "init-script-test.sh: all checks passed (awk: ${AWK:-awk})"
