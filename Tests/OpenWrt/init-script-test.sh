#!/bin/sh
# init-script-test.sh — the OpenWrt package's init script
# (Board/openwrt/package/dnsward.init) without OpenWrt: its functions run
# in this shell with a fake `uci` (a file of KEY<TAB>VALUE lines, one per
# list item), and procd's, logger's and dnsmasq's init script's parts
# recorded instead of done.
#
#   busybox ash Tests/OpenWrt/init-script-test.sh DNSWARD
#
# DNSWARD is the dnsward command `--check` runs (a script that runs the
# firmware under qemu will do). AWK, if set, is the awk the converter runs
# under (e.g. "busybox awk"; default: awk).
#
# What it checks: mode beside and primary set dnsmasq up as documented; a
# second start changes nothing; a mode switch undoes the other mode; a new
# LAN address replaces DHCP option 6; the generated config is readable by
# the `user` account's group and by no one else; a reload makes the config
# again and sends SIGHUP, refuses a config that fails its check (dnsward
# keeps its own, not signalled), and restarts (start) instead when a
# listen address or a size changes or dnsward is not running; a change to
# the UCI config reloads; stop, and a config that fails its check, leave
# /etc/config/dhcp exactly as it was before dnsward, settings the user had
# (a server line, noresolv) included. What it cannot check: procd, netifd,
# ubus and dnsmasq themselves (see Board/openwrt/README.md).

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
# Whether dnsward runs, as pidof sees it.
RUNNING=0
pidof() { [ "$RUNNING" = 1 ]; }
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
# rc.common's procd stop: the script's stop_service, then procd_kill.
stop() {
	stop_service
	procd_kill dnsward
}

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

# --- mode beside ---------------------------------------------------------------

reset_calls
start_service || fail "beside: start_service failed: $(cat "$CALLS")"
expect_equal "beside: server list" "$(get 'dhcp.@dnsmasq[0].server')" "/corp.example/10.0.0.1 127.0.0.1#5353"
expect_equal "beside: noresolv" "$(get 'dhcp.@dnsmasq[0].noresolv')" 1
expect_equal "beside: dhcp commits" "$(count 'commit dhcp')" 1
expect_equal "beside: dnsmasq restarts" "$(count 'dnsmasq restart')" 1
expect_equal "beside: procd command" "$(grep '^procd_set_param command' "$CALLS")" \
	"procd_set_param command $PROG --config $CONF"
grep -q -x 'listen 127.0.0.1:5353' "$CONF" || fail "beside: no listen 127.0.0.1:5353 in $CONF"
expect_equal "beside: the config's mode and group (user nobody)" "$(stat -c '%a %g' "$CONF")" "640 $NOBODY_GID"
grep -q -x 'upstream resolv-conf /tmp/resolv.conf.d/resolv.conf.auto' "$CONF" ||
	fail "beside: no resolv-conf upstream in $CONF"
# Line N of the UCI file is line N of the config (found, not counted: the
# shipped file's comments move it).
override_line=$(grep -n "list override 'dnsward.test 127.0.0.53'" "$UCI_FILE" | cut -d: -f1)
[ -n "$override_line" ] || fail "beside: no list override 'dnsward.test 127.0.0.53' in the shipped UCI file"
expect_equal "beside: the converted lines" "$(sed -n "${override_line}p" "$CONF")" "override dnsward.test 127.0.0.53"
# The UCI boolean option dnssec '1' becomes `dnssec on`, on its line.
dnssec_line=$(grep -n "option dnssec '1'" "$UCI_FILE" | cut -d: -f1)
[ -n "$dnssec_line" ] || fail "beside: no option dnssec '1' in the shipped UCI file"
expect_equal "beside: option dnssec '1'" "$(sed -n "${dnssec_line}p" "$CONF")" "dnssec on"

# A second start (a reload on an interface event) changes nothing.
reset_calls
start_service || fail "beside again: start_service failed"
expect_equal "beside again: server list" "$(get 'dhcp.@dnsmasq[0].server')" "/corp.example/10.0.0.1 127.0.0.1#5353"
expect_equal "beside again: dhcp commits" "$(count 'commit dhcp')" 0
expect_equal "beside again: dnsmasq restarts" "$(count 'dnsmasq restart')" 0

# --- mode primary ----------------------------------------------------------------

uci set 'dnsward.@dnsward[0].mode=primary'
reset_calls
start_service || fail "primary: start_service failed: $(cat "$CALLS")"
expect_equal "primary: server list" "$(get 'dhcp.@dnsmasq[0].server')" "/corp.example/10.0.0.1"
get 'dhcp.@dnsmasq[0].noresolv' >/dev/null && fail "primary: noresolv still set"
expect_equal "primary: port" "$(get 'dhcp.@dnsmasq[0].port')" 0
expect_equal "primary: dhcp_option" "$(get 'dhcp.lan.dhcp_option')" "3,192.168.1.1 6,192.168.1.1"
expect_equal "primary: dnsmasq restarts" "$(count 'dnsmasq restart')" 1
for line in 'listen 192.168.1.1:53' 'listen 127.0.0.1:53' 'leases /tmp/dhcp.leases' \
	'hosts /tmp/hosts/odhcpd' "hosts $ROUTER_HOSTS" 'domain lan'; do
	grep -q -x -F "$line" "$CONF" || fail "primary: no '$line' in $CONF"
done
expect_equal "primary: the router's name" "$(cat "$ROUTER_HOSTS")" "192.168.1.1 OpenWrt"

reset_calls
start_service || fail "primary again: start_service failed"
expect_equal "primary again: dhcp_option" "$(get 'dhcp.lan.dhcp_option')" "3,192.168.1.1 6,192.168.1.1"
expect_equal "primary again: dnsmasq restarts" "$(count 'dnsmasq restart')" 0

# The LAN address changed (an interface event reloads): option 6 follows.
LAN_ADDRESS=192.168.2.1
reset_calls
start_service || fail "primary, new address: start_service failed"
expect_equal "primary, new address: dhcp_option" "$(get 'dhcp.lan.dhcp_option')" "3,192.168.1.1 6,192.168.2.1"
grep -q -x 'listen 192.168.2.1:53' "$CONF" || fail "primary, new address: no listen 192.168.2.1:53"

# --- reload: the config made again, checked, then SIGHUP or a restart -------------------

RUNNING=1
UCI_ORIGINAL=$ROOT/Board/openwrt/package/dnsward.uci
sed 's/dnsward.test 127.0.0.53/dnsward.test 127.0.0.54/' "$UCI_ORIGINAL" >"$UCI_FILE"
reset_calls
reload_service || fail "reload: reload_service failed: $(cat "$CALLS")"
expect_equal "reload: the new override" "$(sed -n "${override_line}p" "$CONF")" "override dnsward.test 127.0.0.54"
expect_equal "reload: SIGHUPs" "$(count 'procd_send_signal dnsward')" 1
expect_equal "reload: starts" "$(count start)" 0
expect_equal "reload: procd instances" "$(count procd_open_instance)" 0
expect_equal "reload: dnsmasq restarts" "$(count 'dnsmasq restart')" 0
expect_equal "reload: the config's mode and group" "$(stat -c '%a %g' "$CONF")" "640 $NOBODY_GID"
[ -e "$CONF_DIR/dnsward.conf.new" ] && fail "reload: $CONF_DIR/dnsward.conf.new left behind"

# A bad line: refused before dnsward sees it; it keeps running its config,
# unsignalled, and the reload still succeeds (rc.common would restart).
sed -e 's/dnsward.test 127.0.0.53/dnsward.test 127.0.0.54/' -e "s/option timeout .1500ms./option timeout 'soon'/" \
	"$UCI_ORIGINAL" >"$UCI_FILE"
timeout_line=$(grep -n "option timeout 'soon'" "$UCI_FILE" | cut -d: -f1)
cp "$CONF" "$WORK/conf.before"
reset_calls
reload_service 2>"$WORK/errors" || fail "bad reload: reload_service failed (rc.common would restart dnsward)"
grep -q -F "$CONF_DIR/dnsward.conf.new:$timeout_line:" "$WORK/errors" ||
	fail "bad reload: no '$CONF_DIR/dnsward.conf.new:$timeout_line:' in the error: $(cat "$WORK/errors")"
cmp -s "$CONF" "$WORK/conf.before" || fail "bad reload: $CONF changed"
expect_equal "bad reload: SIGHUPs" "$(count 'procd_send_signal dnsward')" 0
expect_equal "bad reload: starts" "$(count start)" 0
[ -e "$CONF_DIR/dnsward.conf.new" ] && fail "bad reload: $CONF_DIR/dnsward.conf.new left behind"

# A size dnsward keeps until a restart (cache): start, which restarts it.
sed "s/option cache .1024./option cache '2048'/" "$UCI_ORIGINAL" >"$UCI_FILE"
reset_calls
reload_service || fail "reload, new cache size: reload_service failed"
expect_equal "reload, new cache size: starts" "$(count start)" 1
expect_equal "reload, new cache size: procd instances" "$(count procd_open_instance)" 1
expect_equal "reload, new cache size: SIGHUPs" "$(count 'procd_send_signal dnsward')" 0
grep -q -x 'cache 2048' "$CONF" || fail "reload, new cache size: no 'cache 2048' in $CONF"
cp "$UCI_ORIGINAL" "$UCI_FILE"

# A new LAN address (mode primary): new listen lines, so a restart.
start_service >/dev/null 2>&1
LAN_ADDRESS=192.168.3.1
reset_calls
reload_service || fail "reload, new LAN address: reload_service failed"
expect_equal "reload, new LAN address: starts" "$(count start)" 1
expect_equal "reload, new LAN address: SIGHUPs" "$(count 'procd_send_signal dnsward')" 0
grep -q -x 'listen 192.168.3.1:53' "$CONF" || fail "reload, new LAN address: no listen 192.168.3.1:53"

# Not running (it gave up, or was never started): start.
RUNNING=0
reset_calls
reload_service || fail "reload, not running: reload_service failed"
expect_equal "reload, not running: starts" "$(count start)" 1
expect_equal "reload, not running: SIGHUPs" "$(count 'procd_send_signal dnsward')" 0

# `uci commit dnsward; reload_config` and LuCI reload it.
reset_calls
service_triggers
grep -q -x 'procd_add_reload_trigger dnsward dhcp' "$CALLS" ||
	fail "service_triggers: no reload trigger for the dnsward config: $(cat "$CALLS")"
LAN_ADDRESS=192.168.2.1
start_service >/dev/null 2>&1

# --- stop: dnsmasq as it was -------------------------------------------------------

reset_calls
stop
expect_equal "stop: dnsmasq restarts" "$(count 'dnsmasq restart')" 1
uci delete 'dnsward.@dnsward[0].mode'
uci set 'dnsward.@dnsward[0].mode=beside'
sort "$UCI_DB" >"$WORK/dhcp.after"
cmp -s "$WORK/dhcp.before" "$WORK/dhcp.after" ||
	fail "stop: the config differs from before dnsward: $(diff "$WORK/dhcp.before" "$WORK/dhcp.after")"
reset_calls
stop
expect_equal "stop again: dnsmasq restarts" "$(count 'dnsmasq restart')" 0

# noresolv the user had set stays set after stop (nothing was saved for it).
uci set 'dhcp.@dnsmasq[0].noresolv=1'
start_service >/dev/null 2>&1
stop
expect_equal "a user's noresolv after stop" "$(get 'dhcp.@dnsmasq[0].noresolv')" 1
uci delete 'dhcp.@dnsmasq[0].noresolv'

# --- a config that fails its check -------------------------------------------------

sed 's/option cache .1024./option cache '"'"'lots'"'"'/' "$ROOT/Board/openwrt/package/dnsward.uci" >"$UCI_FILE"
cache_line=$(grep -n "option cache 'lots'" "$UCI_FILE" | cut -d: -f1)
reset_calls
if start_service 2>"$WORK/errors"; then fail "bad config: start_service succeeded"; fi
grep -q -F "$CONF:$cache_line:" "$WORK/errors" ||
	fail "bad config: no '$CONF:$cache_line:' in the error: $(cat "$WORK/errors")"
expect_equal "bad config: procd instances" "$(count procd_open_instance)" 0
expect_equal "bad config: dnsmasq restarts" "$(count 'dnsmasq restart')" 0
cp "$ROOT/Board/openwrt/package/dnsward.uci" "$UCI_FILE"

# ...also when it was running in another mode: dnsmasq gets its DNS back.
start_service >/dev/null 2>&1
sed 's/option cache .1024./option cache '"'"'lots'"'"'/' "$ROOT/Board/openwrt/package/dnsward.uci" >"$UCI_FILE"
start_service 2>/dev/null && fail "bad config after beside: start_service succeeded"
expect_equal "bad config after beside: server list" "$(get 'dhcp.@dnsmasq[0].server')" "/corp.example/10.0.0.1"
cp "$ROOT/Board/openwrt/package/dnsward.uci" "$UCI_FILE"

# --- enabled '0' and a bad mode ------------------------------------------------------

uci set 'dnsward.@dnsward[0].enabled=0'
reset_calls
start_service || fail "enabled 0: start_service failed"
expect_equal "enabled 0: procd instances" "$(count procd_open_instance)" 0
uci delete 'dnsward.@dnsward[0].enabled'
uci set 'dnsward.@dnsward[0].mode=sideways'
reset_calls
start_service 2>"$WORK/errors" && fail "mode sideways: start_service succeeded"
grep -q "mode must be 'beside' or 'primary', not 'sideways'" "$WORK/errors" ||
	fail "mode sideways: $(cat "$WORK/errors")"
uci set 'dnsward.@dnsward[0].mode=beside'

# --- disable while building an image: only the links go ---------------------------

mkdir -p "$WORK/root/etc/rc.d"
touch "$WORK/root/etc/rc.d/S21dnsward" "$WORK/root/etc/rc.d/S19dnsmasq"
reset_calls
(IPKG_INSTROOT=$WORK/root initscript=/etc/init.d/dnsward disable)
[ -e "$WORK/root/etc/rc.d/S21dnsward" ] && fail "disable: S21dnsward still there"
[ -e "$WORK/root/etc/rc.d/S19dnsmasq" ] || fail "disable: S19dnsmasq removed"
expect_equal "disable in an image: procd_kill" "$(count 'procd_kill dnsward')" 0

sort "$UCI_DB" >"$WORK/dhcp.after"
cmp -s "$WORK/dhcp.before" "$WORK/dhcp.after" ||
	fail "at the end: the config differs from before dnsward: $(diff "$WORK/dhcp.before" "$WORK/dhcp.after")"

if [ "$FAILURES" -gt 0 ]; then
	echo "init-script-test.sh: $FAILURES check(s) failed" >&2
	exit 1
fi
echo "init-script-test.sh: all checks passed (awk: ${AWK:-awk})"
