# uci-to-conf.awk — turns /etc/config/dnsward (UCI) into a dnsward.conf.
# Installed as /usr/share/dnsward/uci-to-conf.awk; /etc/init.d/dnsward runs
#
#   awk -v mode=beside|primary [-v lan_address=A] [-v lan_domain=D] \
#       [-v router_hosts=FILE] -f uci-to-conf.awk /etc/config/dnsward \
#       > /var/etc/dnsward.conf
#
# Plain POSIX awk: it runs under BusyBox awk (OpenWrt), mawk and gawk.
#
# Every `option NAME 'VALUE'` and `list NAME 'VALUE'` of a `config dnsward`
# section becomes the directive line `NAME VALUE`, with `_` in NAME turned
# into `-` (cache_bytes -> cache-bytes). Invariant: line N of the output
# comes from line N of the input (every other line, and a section of another
# type, gives an empty line), so dnsward's `/var/etc/dnsward.conf:12: ...`
# is line 12 of /etc/config/dnsward. The mode's own directives (listen,
# and the upstreams, leases and domain the user did not set) follow after
# the last input line, under a comment that says so. The on|off directives
# the shipped file sets as UCI booleans (dnssec, dnssec_root) take UCI's
# spellings too: 1, yes, true, enabled give `on`; 0, no, false, disabled
# give `off`; any other value (dnssec's `auto`) is passed on for dnsward
# to judge.
#
# The UCI syntax read here is uci's own: a line holds commands (`config`,
# `option`, `list`, `package`, or their first letters) separated by `;`;
# a word is made of unquoted runs (a backslash takes the next character as
# it is), '...' (taken as it is) and "..." (a backslash takes the next
# character as it is) up to white space; `#` outside quotes starts a
# comment. uci also lets a quoted value run on over several lines; a
# dnsward directive is one line, so that is an error here, as is a value
# holding `#` (dnsward.conf would take the rest as a comment). An empty
# value is how uci unsets an option: no directive.
#
# Errors go to stderr as `FILE:LINE: message`; the exit status is then 1.

BEGIN {
	# Options the init script reads itself; they are no directives.
	init_only["enabled"] = 1
	init_only["mode"] = 1
	init_only["interface"] = 1
	# Options written as UCI booleans ('1'/'0'), directives `on|off`.
	boolean["dnssec"] = 1
	boolean["dnssec_root"] = 1
	if (mode != "beside" && mode != "primary") {
		print "uci-to-conf.awk: mode must be beside or primary, not '" mode "'" > "/dev/stderr"
		failed = 1
		exit 1
	}
	if (lan_domain == "") lan_domain = "lan"
	if (resolv_file == "") resolv_file = "/tmp/resolv.conf.d/resolv.conf.auto"
	if (leases_file == "") leases_file = "/tmp/dhcp.leases"
	if (odhcpd_hosts == "") odhcpd_hosts = "/tmp/hosts/odhcpd"
	in_dnsward = 0
}

function report(message) {
	print FILENAME ":" FNR ": " message > "/dev/stderr"
	failed = 1
}

# Reads the next word of the current command from `rest` into `word`.
# Returns 1 for a word, 0 at the end of the command (end of line, a
# comment, or `;`, which is consumed and sets `more`), -1 after an error.
function next_word(    c, closed) {
	sub(/^[ \t\r\f\v]+/, "", rest)
	if (rest == "" || substr(rest, 1, 1) == "#") {
		rest = ""
		return 0
	}
	if (substr(rest, 1, 1) == ";") {
		rest = substr(rest, 2)
		more = 1
		return 0
	}
	word = ""
	while (rest != "") {
		c = substr(rest, 1, 1)
		if (c == " " || c == "\t" || c == "\r" || c == "\f" || c == "\v" || c == ";") break
		if (c == "#") {
			rest = ""
			break
		}
		rest = substr(rest, 2)
		if (c == "'") {
			c = index(rest, "'")
			if (c == 0) {
				report("unterminated ' (a value spanning lines cannot be a dnsward directive)")
				return -1
			}
			word = word substr(rest, 1, c - 1)
			rest = substr(rest, c + 1)
		} else if (c == "\"") {
			closed = 0
			while (rest != "") {
				c = substr(rest, 1, 1)
				rest = substr(rest, 2)
				if (c == "\"") {
					closed = 1
					break
				}
				if (c == "\\") {
					if (rest == "") break
					c = substr(rest, 1, 1)
					rest = substr(rest, 2)
				}
				word = word c
			}
			if (!closed) {
				report("unterminated \" (a value spanning lines cannot be a dnsward directive)")
				return -1
			}
		} else if (c == "\\") {
			if (rest == "") {
				report("a backslash at the end of a line continues it, which a dnsward directive cannot")
				return -1
			}
			word = word substr(rest, 1, 1)
			rest = substr(rest, 2)
		} else {
			word = word c
		}
	}
	return 1
}

# A UCI boolean as dnsward's on|off (uci_get_bool's spellings, in any
# case); anything else as it is.
function on_off(value,    lower) {
	lower = tolower(value)
	if (lower == "1" || lower == "on" || lower == "yes" || lower == "true" || lower == "enabled") return "on"
	if (lower == "0" || lower == "off" || lower == "no" || lower == "false" || lower == "disabled") return "off"
	return value
}

# One command: `config TYPE [NAME]`, `option NAME VALUE`, `list NAME VALUE`
# or `package NAME`. Returns the directive it gives ("" for none).
function command(    keyword, name, value, got) {
	got = next_word()
	if (got <= 0) return ""
	keyword = word
	if (keyword == "c" || keyword == "config") {
		if (next_word() != 1) {
			report("config without a type")
			return ""
		}
		in_dnsward = (word == "dnsward")
		while ((got = next_word()) == 1) {}
		return ""
	}
	if (keyword == "p" || keyword == "package") {
		while ((got = next_word()) == 1) {}
		return ""
	}
	if (keyword != "o" && keyword != "option" && keyword != "l" && keyword != "list") {
		report("invalid command '" keyword "' (UCI has config, option and list)")
		while ((got = next_word()) == 1) {}
		return ""
	}
	if (next_word() != 1) {
		report(keyword " without a name")
		return ""
	}
	name = word
	value = ""
	got = next_word()
	if (got < 0) return ""
	if (got == 1) value = word
	if (got == 1 && next_word() == 1) {
		report("too many values for " keyword " " name " (quote a value holding spaces: '" value " " word "')")
		while ((got = next_word()) == 1) {}
		return ""
	}
	if (!in_dnsward) return ""
	if (name !~ /^[A-Za-z0-9_]+$/) {
		report("invalid option name '" name "' (letters, digits and _)")
		return ""
	}
	if (name in init_only) return ""
	if (value == "") return ""
	if (index(value, "#") > 0) {
		report("the value of " name " holds '#', which would start a comment in dnsward.conf")
		return ""
	}
	if (name in boolean) value = on_off(value)
	gsub(/_/, "-", name)
	seen[name] = 1
	return name " " value
}

{
	rest = $0
	line = ""
	more = 1
	while (more) {
		more = 0
		directive = command()
		if (directive != "") {
			if (line != "") {
				report("one option or list per line: dnsward.conf has one directive per line")
			} else {
				line = directive
			}
		}
	}
	print line
}

END {
	if (failed) exit 1
	print "# Added by /etc/init.d/dnsward for mode '" mode "' (these lines are not in the UCI file):"
	if (mode == "beside") {
		# dnsmasq keeps port 53 and forwards to dnsward here.
		print "listen 127.0.0.1:5353"
	} else {
		if (lan_address != "") print "listen " lan_address ":53"
		print "listen 127.0.0.1:53"
	}
	if (!("upstream" in seen)) print "upstream resolv-conf " resolv_file
	if (mode == "primary") {
		# dnsmasq's DNS is off: its DHCP leases and odhcpd's hosts become
		# dnsward's local names, under dnsmasq's domain.
		if (!("leases" in seen)) print "leases " leases_file
		print "hosts " odhcpd_hosts
		if (router_hosts != "") print "hosts " router_hosts
		if (!("domain" in seen)) print "domain " lan_domain
	}
}
