// netifd-standin.uc — the two ubus objects of netifd that the init scripts
// read, for the rig (netifd itself is not among the third-party sources):
//   network.interface dump           what /lib/functions/network.sh parses
//   network.interface.NAME status    one interface of the dump
//   network.device status {name}     `devstatus` (dnsmasq's init script: up?)
// The interfaces come from the rig (argument: a JSON file); their addresses
// are the ones the rig gave the namespace's devices. Nothing here is
// dnsward's or dnsmasq's code under test: it only answers questions.
'use strict';

import * as ubus from 'ubus';
import * as uloop from 'uloop';
import { readfile } from 'fs';

const interfaces = json(readfile(ARGV[0]));

function status(iface) {
	return {
		interface: iface.name, up: true, pending: false, available: true,
		autostart: true, proto: 'static', device: iface.device, l3_device: iface.device,
		'ipv4-address': [ { address: iface.address, mask: iface.mask } ],
		'ipv6-address': [], 'ipv6-prefix': [], 'ipv6-prefix-assignment': [],
		route: iface.gateway ? [ { target: '0.0.0.0', mask: 0, nexthop: iface.gateway } ] : [],
		'dns-server': iface.dns ?? [], 'dns-search': [], data: {}
	};
}

uloop.init();
const conn = ubus.connect();
if (!conn)
	die(`netifd-standin: no ubus: ${ubus.error()}\n`);

conn.publish('network.interface', {
	dump: { args: {}, call: (req) => req.reply({ interface: map(interfaces, status) }) }
});
for (let iface in interfaces) {
	let current = iface;
	conn.publish(`network.interface.${iface.name}`, {
		status: { args: {}, call: (req) => req.reply(status(current)) },
		up: { args: {}, call: (req) => req.reply({}) },
		down: { args: {}, call: (req) => req.reply({}) }
	});
}
conn.publish('network.device', {
	status: {
		args: { name: '' },
		call: (req) => {
			for (let iface in interfaces)
				if (iface.device == req.args.name)
					return req.reply({ up: true, carrier: true, present: true, type: 'Network device' });
			return req.reply({});
		}
	}
});
uloop.run();
