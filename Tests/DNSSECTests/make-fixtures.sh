#!/bin/bash
# Regenerates Tests/TestSupport/ValidatorFixtures.swift (shared by DNSSECTests
# and EngineTests): signs test zones with Knot DNS
# (knotd with `dnssec-signing: on`, keys by its KASP), asks knotd the
# questions below with DO=1 CD=1 and writes each answer's wire bytes as hex.
# Needs knot, knot-dnsutils (keymgr, knotc) and python3 (stdlib). Run from
# anywhere: bash Tests/DNSSECTests/make-fixtures.sh
#
# Zones (all under the trust anchor example.):
#   example.        ECDSA P-256 (13), NSEC; www, a CNAME, a wildcard, a DNAME into the wildcard,
#                   delegations: sec. ed. hi. p384. (signed, DS), insec. (no DS),
#                   unsup. (a DS of algorithm 253 only)
#   sec.example.    RSA/SHA-256 (8), NSEC3 (0 iterations, no salt), wildcard
#   ed.example.     Ed25519 (15), NSEC3 opt-out (1 iteration, salt), with the
#                   unsigned delegation un.ed.example.
#   hi.example.     ECDSA P-256, NSEC3 with 200 iterations (RFC 9276: insecure)
#   p384.example.   ECDSA P-384 (14), NSEC
#   insec.example., unsup.example., un.ed.example.: unsigned
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../TestSupport/ValidatorFixtures.swift"
work=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
trap 'knotc -c "$work/knot.conf" stop >/dev/null 2>&1 || true; sleep 1; rm -rf "$work"' EXIT

cat >"$work/knot.conf" <<CONF
server:
    rundir: "$work"
    listen: 127.0.0.1@$port
database:
    storage: "$work/db"
    kasp-db: "$work/keys"
log:
  - target: stderr
    any: warning
policy:
  - id: p13
    algorithm: ecdsap256sha256
    rrsig-lifetime: 3650d
    rrsig-refresh: 30d
    nsec3: off
  - id: p8
    algorithm: rsasha256
    ksk-size: 2048
    zsk-size: 1024
    rrsig-lifetime: 3650d
    rrsig-refresh: 30d
    nsec3: on
    nsec3-iterations: 0
    nsec3-salt-length: 0
  - id: p15
    algorithm: ed25519
    rrsig-lifetime: 3650d
    rrsig-refresh: 30d
    nsec3: on
    nsec3-opt-out: on
    nsec3-iterations: 1
    nsec3-salt-length: 4
  - id: p14
    algorithm: ecdsap384sha384
    rrsig-lifetime: 3650d
    rrsig-refresh: 30d
    nsec3: off
  - id: phi
    algorithm: ecdsap256sha256
    rrsig-lifetime: 3650d
    rrsig-refresh: 30d
    nsec3: on
    nsec3-iterations: 200
    nsec3-salt-length: 2
template:
  - id: default
    storage: "$work"
    file: "%s.zone"
    zonefile-sync: -1
    journal-content: none
zone:
  - domain: example.
    dnssec-signing: on
    dnssec-policy: p13
  - domain: sec.example.
    dnssec-signing: on
    dnssec-policy: p8
  - domain: ed.example.
    dnssec-signing: on
    dnssec-policy: p15
  - domain: hi.example.
    dnssec-signing: on
    dnssec-policy: phi
  - domain: p384.example.
    dnssec-signing: on
    dnssec-policy: p14
  - domain: insec.example.
  - domain: unsup.example.
  - domain: un.ed.example.
CONF

soa() { echo "@ 3600 SOA ns.$1 admin.$1 1 3600 600 86400 300"; }
{
  soa example.
  cat <<Z
@ 3600 NS ns
ns 3600 A 192.0.2.1
www 3600 A 192.0.2.10
alias 3600 CNAME www
*.wild 3600 A 192.0.2.20
dn 3600 DNAME wild.example.
sec 3600 NS ns.sec
ns.sec 3600 A 192.0.2.2
ed 3600 NS ns.ed
ns.ed 3600 A 192.0.2.3
hi 3600 NS ns.hi
p384 3600 NS ns.p384
ns.p384 3600 A 192.0.2.11
ns.hi 3600 A 192.0.2.4
insec 3600 NS ns.insec
ns.insec 3600 A 192.0.2.5
unsup 3600 NS ns.unsup
ns.unsup 3600 A 192.0.2.6
unsup 3600 DS 12345 253 2 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
Z
} >"$work/example.zone"
for zone in sec ed hi p384; do
  { soa $zone.example.; echo "@ 3600 NS ns"; echo "ns 3600 A 192.0.2.7"
    echo "www 3600 A 192.0.2.30"; echo "*.w 3600 A 192.0.2.31"; } >"$work/$zone.example.zone"
done
echo "un 3600 NS ns.un" >>"$work/ed.example.zone"
echo "ns.un 3600 A 192.0.2.8" >>"$work/ed.example.zone"
for zone in insec.example unsup.example un.ed.example; do
  { soa $zone.; echo "@ 3600 NS ns"; echo "ns 3600 A 192.0.2.9"
    echo "www 3600 A 192.0.2.40"; } >"$work/$zone.zone"
done

knotd -c "$work/knot.conf" &
sleep 3
for child in sec ed hi p384; do
  keymgr -c "$work/knot.conf" $child.example. ds | grep ' DS .* 2 ' \
    | sed "s/^[^ ]* /$child 3600 /; s/ DS / IN DS /" >>"$work/example.zone" || true
done
grep DS "$work/example.zone" >&2
knotc -c "$work/knot.conf" zone-reload example. >/dev/null
sleep 3
anchor=$(keymgr -c "$work/knot.conf" example. ds | grep ' DS .* 2 ' | head -1)
now=$(date +%s)

python3 - "$port" "$out" "$now" "$anchor" <<'PY'
import socket, struct, sys
port, out, now, anchor = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
questions = [
    ("example.", "DNSKEY"), ("sec.example.", "DS"), ("sec.example.", "DNSKEY"),
    ("ed.example.", "DS"), ("ed.example.", "DNSKEY"), ("hi.example.", "DS"),
    ("hi.example.", "DNSKEY"), ("insec.example.", "DS"), ("unsup.example.", "DS"),
    ("un.ed.example.", "DS"), ("www.example.", "DS"),
    ("www.example.", "A"), ("www.sec.example.", "A"), ("www.ed.example.", "A"),
    ("alias.example.", "A"), ("nx.example.", "A"), ("www.example.", "TXT"),
    ("x.wild.example.", "A"), ("x.wild.example.", "TXT"),
    ("nx.sec.example.", "A"), ("www.sec.example.", "TXT"), ("a.w.sec.example.", "A"),
    ("nx.ed.example.", "A"), ("www.ed.example.", "TXT"), ("nx.hi.example.", "A"),
    ("www.insec.example.", "A"), ("www.unsup.example.", "A"), ("www.un.ed.example.", "A"),
    ("www.dn.example.", "A"), ("dn.example.", "DS"), ("wild.example.", "DS"),
    ("www.wild.example.", "DS"), ("www.sec.example.", "DS"), ("www.ed.example.", "DS"),
    ("p384.example.", "DS"), ("p384.example.", "DNSKEY"), ("www.p384.example.", "A"),
]
types = {"A": 1, "TXT": 16, "DS": 43, "DNSKEY": 48}
def wire(name):
    return b"".join(bytes([len(l)]) + l.encode() for l in name.rstrip(".").split(".") if l) + b"\0"
def ask(name, qtype):
    query = struct.pack(">HHHHHH", 0x1234, 0x0010, 1, 0, 0, 1) + wire(name)
    query += struct.pack(">HH", types[qtype], 1)
    query += b"\0" + struct.pack(">HHIH", 41, 4096, 0x8000, 0)
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(struct.pack(">H", len(query)) + query)
        data = b""
        while len(data) < 2 or len(data) < 2 + struct.unpack(">H", data[:2])[0]:
            chunk = s.recv(65535)
            if not chunk: break
            data += chunk
    return data[2:]
def ident(name, qtype):
    parts = [p for p in name.rstrip(".").split(".")]
    words = [p.capitalize() for p in reversed(parts)] if False else [p.capitalize() for p in parts]
    first = "".join(words)
    return first[0].lower() + first[1:] + qtype.capitalize()
lines = [
    "// GENERATED by Tests/DNSSECTests/make-fixtures.sh (Knot DNS %s-signed zones," % "knotd",
    "// answers asked with DO=1 CD=1 over TCP); do not edit, run the script again.",
    "// Wire bytes of each answer, hex. Names: question name then type.",
    "",
    "public enum ValidatorFixtures {",
    "  /// When the answers were made: inside every signature's validity.",
    "  public static let capturedAt: UInt32 = %d" % now,
    "  /// The trust anchor: %s" % anchor,
    '  static let anchorDS = "%s"' % "".join(anchor.split()[-4:-3]) if False else None,
]
lines = [l for l in lines if l is not None]
f = anchor.split()
tag, alg, dtype, digest = f[-4], f[-3], f[-2], f[-1]
lines.append("  public static let anchorDS:")
lines.append("    (keyTag: UInt16, algorithm: UInt8, digestType: UInt8, digest: String) = (")
lines.append('      %s, %s, %s, "%s"' % (tag, alg, dtype, digest.lower()))
lines.append("    )")
lines.append("  public static let answers: [String: String] = [")
for name, qtype in questions:
    data = ask(name, qtype)
    key = "%s %s" % (name, qtype)
    hexdata = data.hex()
    lines.append('    "%s":' % key)
    for i in range(0, len(hexdata), 90):
        chunk = hexdata[i:i + 90]
        sep = " +" if i + 90 < len(hexdata) else ","
        lines.append('      "%s"%s' % (chunk, sep))
lines.append("  ]")
lines.append("}")
open(out, "w").write("\n".join(lines) + "\n")
PY
echo "wrote $out"
