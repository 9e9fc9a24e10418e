#!/usr/bin/env python3
"""Writes the seed corpus of the libFuzzer targets (Tests/Fuzz/corpus/TARGET/).

The seeds are made here, field by field, so that they are ours and easy to
extend: `python3 Tests/Fuzz/make-seeds.py` rewrites every generated seed
(files named seed-*; regression inputs from findings, named finding-*, are
kept). .ci/fuzz.sh never writes into the corpus: it fuzzes a scratch copy.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")

A, NS, CNAME, SOA, PTR, MX, TXT, AAAA, SRV, OPT, HTTPS, ANY = (
    1, 2, 5, 6, 12, 15, 16, 28, 33, 41, 65, 255)
IN = 1


def name(text):
    """Flat wire form of a presentation name, case kept; "." is the root."""
    out = b""
    for label in text.strip(".").split("."):
        if label:
            out += bytes([len(label)]) + label.encode()
    return out + b"\x00"


def header(ident, flags, qd=0, an=0, ns=0, ar=0):
    return struct.pack(">HHHHHH", ident, flags, qd, an, ns, ar)


def question(qname, qtype=A, qclass=IN):
    return name(qname) + struct.pack(">HH", qtype, qclass)


def rr(owner, rtype, ttl, rdata, rclass=IN):
    """owner: flat bytes (a name or a pointer)."""
    return owner + struct.pack(">HHIH", rtype, rclass, ttl, len(rdata)) + rdata


def opt(payload=1232, do=False, options=b""):
    return rr(b"\x00", OPT, 0x8000 if do else 0, options, rclass=payload)


def ptr(offset):
    return struct.pack(">H", 0xC000 | offset)


RD, QR, RA, AA, TC, CD, AD = 0x0100, 0x8000, 0x0080, 0x0400, 0x0200, 0x0010, 0x0020


def query(ident, qname, qtype=A, edns=None, flags=RD, do=False):
    msg = header(ident, flags, qd=1, ar=1 if edns else 0) + question(qname, qtype)
    if edns:
        msg += opt(edns, do)
    return msg


def answer(ident, qname, qtype, records, rcode=0, edns=1232, flags=QR | RD | RA,
           authority=()):
    """records: (rtype, ttl, rdata) owned by the question name (a pointer)."""
    msg = header(ident, flags | rcode, 1, len(records), len(authority),
                 1 if edns else 0) + question(qname, qtype)
    for rtype, ttl, rdata in records:
        msg += rr(ptr(12), rtype, ttl, rdata)
    for record in authority:
        msg += record
    if edns:
        msg += opt(edns)
    return msg


def soa(zone_offset):
    rdata = (name("ns1.example.com") + name("hostmaster.example.com")
             + struct.pack(">IIIII", 2024010101, 7200, 3600, 1209600, 300))
    return rr(ptr(zone_offset), SOA, 3600, rdata)


def dns_messages():
    """Real-looking DNS messages: queries and answers of every common shape."""
    m = {}
    m["query-a"] = query(0x1234, "www.example.com")
    m["query-aaaa-edns"] = query(0xBEEF, "WwW.ExAmPlE.cOm", AAAA, edns=1232)
    m["query-do"] = query(0x0001, "example.org", HTTPS, edns=4096, do=True, flags=RD | CD)
    m["query-root-any"] = query(0x7777, ".", ANY)
    m["query-ptr"] = query(0x4242, "4.3.2.1.in-addr.arpa", PTR, edns=512)
    m["answer-a"] = answer(0x1234, "www.example.com", A,
                           [(A, 300, bytes([93, 184, 216, 34])), (A, 300, bytes([192, 0, 2, 7]))])
    m["answer-aaaa"] = answer(0xBEEF, "www.example.com", AAAA,
                              [(AAAA, 60, bytes.fromhex("20010db8000000000000000000000001"))])
    # CNAME chain: www.example.com -> cdn.example.net (compressed) -> A.
    q = question("www.example.com")
    cname_rdata = b"\x03cdn\x07example\x03net\x00"
    msg = header(0x0102, QR | RD | RA, 1, 2, 0, 1) + q
    msg += rr(ptr(12), CNAME, 300, cname_rdata)
    cdn_offset = 12 + len(q) + 12
    msg += rr(ptr(cdn_offset), A, 60, bytes([198, 51, 100, 10]))
    msg += opt()
    m["answer-cname-chain"] = msg
    # NXDOMAIN with the zone's SOA in the authority section.
    q = question("nope.example.com")
    msg = header(0x0203, QR | RD | RA | 3, 1, 0, 1, 0) + q + soa(12 + 5)
    m["answer-nxdomain-soa"] = msg
    m["answer-servfail"] = answer(0x0304, "broken.example", A, [], rcode=2)
    m["answer-truncated"] = answer(0x0405, "big.example", TXT, [], flags=QR | RD | RA | TC,
                                   edns=None)
    m["answer-txt"] = answer(0x0506, "_dmarc.example.com", TXT,
                             [(TXT, 3600, b"\x0ev=DMARC1; p=no\x05three")])
    m["answer-mx"] = answer(0x0607, "example.com", MX,
                            [(MX, 3600, struct.pack(">H", 10) + b"\x04mail" + ptr(12))])
    m["answer-srv"] = answer(0x0708, "_sip._tcp.example.com", SRV,
                             [(SRV, 600, struct.pack(">HHH", 10, 5, 5060) + name("sip.example.com"))])
    # Padding option in the OPT (RFC 7830) and a cookie.
    msg = header(0x0809, RD, 1, 0, 0, 1) + question("padded.example")
    msg += opt(1232, options=struct.pack(">HH", 10, 8) + b"\x01" * 8
               + struct.pack(">HH", 12, 12) + b"\x00" * 12)
    m["query-padded-cookie"] = msg
    # Names at the limits: 63-octet labels, a 253-character name.
    long_name = ".".join(["a" * 63, "b" * 63, "c" * 63, "d" * 61])
    m["query-longest-name"] = query(0x0A0B, long_name)
    # Many records (owner pointers), in all three sections.
    records = [(A, 60, bytes([10, 0, i // 256, i % 256])) for i in range(40)]
    m["answer-40-records"] = answer(0x0B0C, "many.example", A, records)
    ns_records = [rr(ptr(12), NS, 86400, name("ns%d.example" % i)) for i in range(3)]
    msg = header(0x0C0D, QR | AA, 1, 0, 3, 0) + question("example", NS)
    for record in ns_records:
        msg += record
    m["answer-delegation"] = msg
    # A CHAOS question (stats.dnsward is answered locally).
    m["query-chaos"] = header(0x0D0E, 0, 1) + question("stats.dnsward", TXT, 3)
    # Hostile shapes the parser must reject: a pointer loop, a forward
    # pointer, a count larger than the data.
    m["hostile-pointer-loop"] = header(0x0E0F, 0, 1) + ptr(12) + struct.pack(">HH", A, IN)
    m["hostile-forward-pointer"] = header(0x0F10, 0, 1) + ptr(20) + b"\x00" * 10
    m["hostile-counts"] = header(0x1011, QR, 1, 9, 9, 9) + question("x.example")
    # RDATA names: a CNAME target into the header, an SOA cut before its
    # counters (both refused since RDATA names are validated).
    m["hostile-rdata-pointer-into-header"] = answer(0x1112, "a.example", A,
                                                    [(CNAME, 60, ptr(0))])
    m["hostile-soa-without-counters"] = answer(0x1213, "a.example", SOA,
                                               [(SOA, 60, ptr(12) + ptr(12))])
    m["name-text"] = b"printer.lan."
    return m


def http(body, fields=(), status="200 OK", chunk=None):
    head = "HTTP/1.1 %s\r\n" % status
    for field in fields:
        head += field + "\r\n"
    if chunk is None:
        head += "Content-Length: %d\r\n\r\n" % len(body)
        return head.encode() + body
    head += "Transfer-Encoding: chunked\r\n\r\n"
    out = head.encode()
    for start in range(0, len(body), chunk):
        piece = body[start:start + chunk]
        out += b"%x\r\n" % len(piece) + piece + b"\r\n"
    return out + b"0\r\n\r\n"


# The httpdns target's queries (Tests/Fuzz/httpdns.swift, `queries`).
HTTPDNS_QUERIES = [
    ("www.example.com", A, 0x1234, RD, False), ("www.example.com", AAAA, 0xBEEF, RD | CD, True),
    ("WwW.ExAmPlE.CoM", A, 0x0001, RD, True), ("_dmarc.example.com", TXT, 0x4242, RD, True),
    ("example.com", MX, 0x0A0A, RD, False), ("cdn.example.net", CNAME, 0x7777, RD, True),
    ("example.org", HTTPS, 0x5A5A, RD, True), ("4.3.2.1.in-addr.arpa", PTR, 0x0102, 0, False),
]
JSON, ALIBABA, DNSPOD, DNS_MESSAGE = 0, 1, 2, 3


def selector(fmt, query_index, capacity_index=1):
    return bytes([fmt | query_index << 2 | capacity_index << 5])


def httpdns_responses():
    s = {}
    json_body = (
        b'{"Status":0,"TC":false,"RD":true,"RA":true,"AD":false,"CD":false,'
        b'"Question":[{"name":"www.example.com.","type":1}],'
        b'"Answer":[{"name":"www.example.com.","type":5,"TTL":300,"data":"cdn.example.net."},'
        b'{"name":"cdn.example.net.","type":1,"TTL":60,"data":"192.0.2.7"}]}')
    s["json-cname-a"] = selector(JSON, 0) + http(json_body, ["Content-Type: application/json"])
    s["json-chunked"] = selector(JSON, 0) + http(json_body, chunk=37)
    s["json-nxdomain"] = selector(JSON, 0) + http(
        b'{"Status":3,"Question":[{"name":"www.example.com.","type":1}],'
        b'"Authority":[{"name":"example.com.","type":6,"TTL":900,'
        b'"data":"ns1.example.com. hostmaster.example.com. 1 7200 3600 1209600 300"}]}')
    s["json-txt-escapes"] = selector(JSON, 3) + http(
        b'{"Status":0,"Answer":[{"name":"_dmarc.example.com.","type":16,"TTL":60,'
        b'"data":"\\"v=DMARC1; p=none\\" \\"\\\\065\\\\\\"x\\""}],'
        b'"Comment":"\\u00e9\\ud83d\\ude00"}')
    s["json-mx"] = selector(JSON, 4) + http(
        b'{"Status":0,"Answer":[{"name":"example.com.","type":15,"TTL":3600,'
        b'"data":"10 mail.example.com."}]}')
    s["json-aaaa"] = selector(JSON, 1) + http(
        b'{"Status":0,"Answer":[{"name":"www.example.com.","type":28,"TTL":30,'
        b'"data":"2001:db8::1"},{"name":"www.example.com.","type":28,"TTL":30,'
        b'"data":"::ffff:192.0.2.1"}]}')
    s["json-https-generic"] = selector(JSON, 6) + http(
        b'{"Status":0,"Answer":[{"name":"example.org.","type":65,"TTL":60,'
        b'"data":"\\\\# 3 000100"},{"name":"example.org.","type":99,"TTL":60,"data":"\\\\# 0"}]}')
    s["json-ptr"] = selector(JSON, 7) + http(
        b'{"Status":0,"Answer":[{"name":"4.3.2.1.in-addr.arpa.","type":12,"TTL":86400,'
        b'"data":"host.example."}]}')
    s["json-nested-unknown"] = selector(JSON, 0) + http(
        b'{"Status":0,"Extra":{"a":[1,2.5e3,-0.1,true,false,null,{"b":[[[]]]}]},"Answer":[]}')
    alibaba = b'{"host":"www.example.com","ips":["192.0.2.1","192.0.2.2"],"ipsv6":["2001:db8::1"],"ttl":57,"origin_ttl":600}'
    s["alibaba-a"] = selector(ALIBABA, 0) + http(alibaba, ["Content-Type: application/json"])
    s["alibaba-aaaa-chunked"] = selector(ALIBABA, 1) + http(alibaba, chunk=9)
    s["alibaba-empty"] = selector(ALIBABA, 2) + http(b'{"host":"www.example.com","ips":[]}')
    s["dnspod-a"] = selector(DNSPOD, 0) + http(b"192.0.2.1;192.0.2.2,600")
    s["dnspod-aaaa"] = selector(DNSPOD, 1) + http(b"2001:db8::1;2001:db8::2,60")
    s["dnspod-no-ttl-close"] = selector(DNSPOD, 2) + (
        b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n192.0.2.9")
    s["dnspod-empty"] = selector(DNSPOD, 0) + http(b"")
    s["interim-100"] = selector(DNSPOD, 0) + b"HTTP/1.1 100 Continue\r\n\r\n" + http(b"192.0.2.1")
    s["status-503"] = selector(JSON, 0) + http(b"busy", status="503 Service Unavailable")
    s["keep-alive-then-more"] = selector(DNSPOD, 0) + http(b"192.0.2.1", ["Connection: keep-alive"]) + b"HTTP/1.1 200"
    # RFC 8484: the body is the DNS answer with the query's question.
    for index, (qname, qtype, ident, flags, edns) in enumerate(HTTPDNS_QUERIES):
        if qtype not in (A, AAAA, TXT):
            continue
        if qtype == A:
            records = [(A, 300, bytes([192, 0, 2, 1])), (A, 60, bytes([192, 0, 2, 2]))]
        elif qtype == AAAA:
            records = [(AAAA, 120, bytes.fromhex("20010db8000000000000000000000001"))]
        else:
            records = [(TXT, 5, b"\x0bv=DMARC1; p")]
        msg = header(0, QR | flags | RA, 1, len(records), 0, 1 if edns else 0)
        msg += question(qname, qtype)
        for rtype, ttl, rdata in records:
            msg += rr(ptr(12), rtype, ttl, rdata)
        if edns:
            msg += opt(1232)
        fields = ["Content-Type: application/dns-message"]
        s["doh-%d" % index] = selector(DNS_MESSAGE, index) + http(msg, fields)
        s["doh-%d-max-age" % index] = selector(DNS_MESSAGE, index, 2) + http(
            msg, fields + ["Cache-Control: max-age=100", "Age: 30"])
        s["doh-%d-chunked" % index] = selector(DNS_MESSAGE, index, 0) + http(
            msg, fields + ["cache-control: public, max-age=\"50\""], chunk=16)
    return s


def configs():
    s = {}
    s["minimal"] = "listen 127.0.0.1:53\nupstream udp 192.0.2.53\n"
    s["router"] = """# A router's config.
listen 192.168.1.1:53
listen [fd00::1]:53
allow 192.168.1.0/24
allow fd00::/64
upstream httpdns 223.5.5.5 format=json
upstream udp 192.0.2.53:53
upstream tcp 198.51.100.53:5353 trusted
timeout 1500ms
inflight 1024
override printer.lan 192.168.1.20 fd00::20
override *.dev.lan 192.168.1.30
block ads.example
override-ttl 300
log info
tcp-clients 32
tcp-idle 10s
edns-size 1232
case-randomization on
cache 4096
cache-bytes 1m
min-ttl 0
max-ttl 1d
neg-ttl-max 1h
stale 1d
stale-first off
prefetch www.example.com
prefetch-hits 3
log-queries off
workers 1
rate-limit 100/s
refuse-any on
"""
    s["defences"] = """listen 127.0.0.1:8053
upstream udp 192.0.2.53
upstream tcp 198.51.100.53:5353 trusted
bogus 198.51.100.66
bogus 2001:db8:bad::/48
bogus-nxdomain 100.64.0.80
detect-nxdomain-redirect on
verify bank.example
hold-on 100ms
rebind-protection on
rebind-allow nas.example
override-check tcp:80
override-check-interval 60
override nas.example 192.168.1.5
"""
    s["httpdns"] = """listen 127.0.0.1:53
upstream httpdns 203.107.1.1 format=alibaba account=139450 secret=s3cr3t-key
upstream httpdns 119.29.29.29:80 format=dnspod
upstream httpdns 223.5.5.5 format=dns-message path=/dns-query
upstream httpdns 223.6.6.6 format=json path=/resolve?edns=0
"""
    s["tls"] = """listen 127.0.0.1:53
upstream tls 1.1.1.1 name=cloudflare-dns.com pin=sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=
upstream https 8.8.8.8:443 name=dns.google path=/dns-query format=dns-message trusted
ca-file /etc/ssl/certs/ca-certificates.crt
"""
    s["cache-file"] = """listen 0.0.0.0:53
upstream udp 192.0.2.53
cache-file /var/lib/dnsward/cache
cache-save-interval 5m
cache 16
cache-bytes 16k
user nobody
"""
    s["crlf-tabs-comments"] = "listen\t127.0.0.1:53 # here\r\n\r\n  upstream udp 192.0.2.1\t\r\n# end\r\n"
    s["block-list"] = ("listen 127.0.0.1:53\nupstream udp 192.0.2.53\nblock-list lists/ads.txt\n"
                       "override tracker.example 192.0.2.80\n\x00# ads\nads.example\n"
                       "tracker.example.\r\n  cdn.ads.example  # comment\n")
    s["resolv-conf"] = "listen 127.0.0.1:53\nupstream resolv-conf /etc/resolv.conf\n"
    s["errors"] = "listen 127.0.0.1:53\nupstream udp 192.0.2.53\ninflight 1000\n"
    s["error-address"] = "listen 999.0.0.1:53\n"
    s["error-duplicate"] = "listen 127.0.0.1:53\nupstream udp 192.0.2.53\noverride a.lan 192.0.2.1\noverride a.lan 192.0.2.2\n"
    return s


# The engine target's script (Tests/Fuzz/engine.swift): opcodes and operands.
def client_query(name_index, type_index, bits, payload_index, case, ident, kind):
    return bytes([0, name_index, type_index, bits, payload_index, case, ident >> 8, ident & 0xFF, kind])


def answer_op(pick=0, rcode_index=0, shape=0x68, family=0):
    return bytes([3, pick, rcode_index, shape, family])


def advance(step):
    return bytes([8, step])


def engine_scripts():
    s = {}
    # Config 0: a question, its answer, the same from the cache, a timeout.
    s["forward-answer-cache"] = (bytes([0]) + client_query(0, 0, 0x08, 3, 0x55, 0x1234, 0)
                                 + answer_op(0, 0, 0x6A, 0) + client_query(0, 0, 0, 0, 0, 0x2222, 0)
                                 + client_query(2, 2, 0, 0, 0, 0x3333, 3) + advance(0xFF))
    s["override-block-chaos"] = (bytes([0]) + client_query(3, 0, 0, 0, 0, 1, 0)
                                 + client_query(4, 2, 0, 0, 0, 2, 6) + client_query(5, 0, 0x08, 3, 0, 3, 0)
                                 + client_query(12, 5, 0x40, 0, 0, 4, 0)
                                 + client_query(0, 3, 0, 0, 0, 5, 5))
    s["truncated-then-tcp"] = (bytes([0]) + client_query(7, 5, 0x08, 3, 0, 0x0707, 0)
                               + answer_op(0, 0, 0x04, 0) + answer_op(0, 0, 0x7F, 0x40))
    s["timeouts-stale"] = (bytes([0]) + client_query(1, 0, 0x08, 2, 0, 9, 0)
                           + answer_op(0, 0, 0x21, 0) + advance(0x90) + client_query(1, 0, 0x08, 2, 0, 10, 0)
                           + advance(100) + advance(100) + advance(100))
    s["raw-and-mutated"] = (bytes([0]) + bytes([2, 0, 12]) + bytes.fromhex("abcd01000001000000000000")
                            + client_query(0, 1, 0x18, 4, 3, 0x4444, 0)
                            + bytes([5, 0, 0, 0x09, 0, 2, 3, 0xC0, 7, 0xFF, 1, 20])
                            + bytes([6, 0, 12]) + bytes(12) + bytes([9, 0, 10, 2, 11, 1, 3]))
    s["forged-deliveries"] = (bytes([0]) + client_query(0, 0, 0x08, 3, 0, 0x5151, 0)
                              + bytes([7, 0, 0, 0x09, 0, 0, 3, 2]) + bytes([7, 0, 0, 0x09, 0, 1, 1])
                              + bytes([7, 0, 0, 0x09, 0, 2]) + answer_op())
    # Config 1: every defence.
    s["defences"] = (bytes([1]) + client_query(0, 0, 0x08, 3, 0, 0x0101, 0)
                     + answer_op(0, 0, 0x09, 0) + answer_op(1, 0, 0x09, 0x04) + advance(10) + advance(10)
                     + client_query(8, 0, 0, 0, 0, 0x0202, 0) + answer_op(0, 0, 0x09, 0x0C)
                     + client_query(7, 0, 0, 0, 0, 0x0303, 0) + answer_op(0, 3, 0x0A, 0x08)
                     + advance(0xFF) + advance(0xFF))
    s["redirect-probes"] = bytes([1]) + advance(1) + answer_op(0, 0, 0x09, 0x08) + answer_op(1, 0, 0x09, 0x08) + advance(0xC0)
    # Config 2: tiny cache, httpdns, rate limit, stale-first.
    s["tiny-cache"] = bytes([2]) + b"".join(
        client_query(i % 11, i % 3, 0x08, 3, i, 0x1000 + i, i % 7) + answer_op(0, 0, 0x2A + (i & 1), i)
        for i in range(12)) + advance(0xFF)
    s["rate-limited"] = bytes([2]) + b"".join(client_query(0, 0, 0, 0, 0, i, 0) for i in range(60))
    s["send-failures"] = bytes([2, 11, 1, 3]) + client_query(1, 1, 0, 0, 0, 77, 0) + bytes([11, 0, 0]) + advance(40)
    return s


# The cachefile target (Tests/Fuzz/cachefile.swift): a selector byte, then
# the file; with bit 7 clear the harness appends the checksum itself.
CACHE_MAGIC = b"DNSWARDC"
DO_BIT, CD_BIT = 1, 2


def fnv1a64(data):
    value = 0xCBF29CE484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


def cache_entry(key, qtype, message, key_flags=0, seconds_left=0):
    flat = name(key.lower())
    return (bytes([len(flat)]) + flat + struct.pack(">HHBIH", qtype, IN, key_flags, seconds_left,
                                                    len(message)) + message)


def cache_body(entries, count=None):
    return (CACHE_MAGIC + struct.pack(">HI", 1, len(entries) if count is None else count)
            + b"".join(entries))


def stored(qname, qtype, records, rcode=0, authority=()):
    """An answer as the cache stores it: ID 0, no OPT, question as asked."""
    return answer(0, qname, qtype, records, rcode=rcode, edns=None, authority=authority)


def cache_files():
    a = stored("www.example.com", A, [(A, 300, bytes([93, 184, 216, 34]))])
    aaaa = stored("www.example.com", AAAA,
                  [(AAAA, 60, bytes.fromhex("20010db8000000000000000000000001"))])
    nx = stored("nope.example.com", A, [], rcode=3, authority=(soa(12 + 5),))
    mx = stored("example.com", MX, [(MX, 3600, struct.pack(">H", 10) + b"\x04mail" + ptr(12))])
    many = stored("many.example", A, [(A, 60, bytes([10, 0, 0, i])) for i in range(40)])
    mixed = stored("MiXeD.Example.ORG", A, [(A, 30, bytes([192, 0, 2, 5]))])
    entries = [
        cache_entry("www.example.com", A, a, seconds_left=120),
        cache_entry("www.example.com", AAAA, aaaa),
        cache_entry("www.example.com", A, a, key_flags=DO_BIT),
        cache_entry("nope.example.com", A, nx, key_flags=CD_BIT),
        cache_entry("example.com", MX, mx, seconds_left=3599),
        cache_entry("mixed.example.org", A, mixed),
    ]
    f = {}
    # Selector: capacity (bits 0-1), arena (2-3), load time (4-5), raw (7).
    f["empty"] = bytes([0x05]) + cache_body([])
    f["one"] = bytes([0x15]) + cache_body(entries[:1])
    f["six"] = bytes([0x2A]) + cache_body(entries)
    f["six-tiny-cache"] = bytes([0x00]) + cache_body(entries)
    f["six-three-entries"] = bytes([0x35]) + cache_body(entries)
    f["large-entry"] = bytes([0x07]) + cache_body([cache_entry("many.example", A, many)] + entries[:2])
    f["duplicate-keys"] = bytes([0x0A]) + cache_body([entries[0], entries[0], entries[1]])
    f["sentinel-key"] = bytes([0x0A]) + cache_body(
        [cache_entry("sentinel.test", A, stored("sentinel.test", A, [(A, 60, bytes([192, 0, 2, 1]))]))])
    f["count-too-large"] = bytes([0x0A]) + cache_body(entries[:2], count=3)
    f["trailing-bytes"] = bytes([0x0A]) + cache_body(entries[:2]) + b"\x00"
    body = cache_body(entries)
    f["raw-whole-file"] = bytes([0x8A]) + body + struct.pack(">Q", fnv1a64(body))
    f["raw-bad-checksum"] = bytes([0x8A]) + body + struct.pack(">Q", fnv1a64(body) ^ 1)
    f["raw-truncated"] = bytes([0x8A]) + body[:40]
    return f


DS, RRSIG, NSEC, DNSKEY, NSEC3, NSEC3PARAM = 43, 46, 47, 48, 50, 51


def rrsig_rdata(covered, algorithm, labels, ttl, expiration, inception, tag, signer, signature):
    return (struct.pack(">HBBIIIH", covered, algorithm, labels, ttl, expiration, inception, tag)
            + name(signer) + signature)


def dnssec_messages():
    """The published RFC 6605 §6.1 (P-256), RFC 8080 §6.1 (Ed25519) and RFC
    5702 §6.1 (RSA/SHA-256) examples as answers (RRset, RRSIG, DNSKEY, DS),
    and denials with NSEC and NSEC3 (RFC 5155 Appendix A's parameters)."""
    import base64
    f = {}
    examples = {
        "p256": ("example.net", 257, 13,
                 "GojIhhXUN/u4v54ZQqGSnyhWJwaubCvTmeexv7bR6edbkrSqQpF64cYbcB7wNcP+e+MAnLr+Wi9xMWyQLc8NAA==",
                 55648, A, "www.example.net", bytes([192, 0, 2, 1]), 3, 1284026679, 1281607479,
                 "qx6wLYqmh+l9oCKTN6qIc+bw6ya+KJ8oMz0YP107epXAyGmt+3SNruPFKG7tZoLBLlUzGGus7ZwmwWep666VCw==",
                 bytes.fromhex("b4c8c1fe2e7477127b27115656ad6256f424625bf5c1e2770ce6d6e37df61d17")),
        "ed25519": ("example.com", 257, 15, "l02Woi0iS8Aa25FQkUd9RMzZHJpBoRQwAQEX1SxZJA4=",
                    3613, MX, "example.com", struct.pack(">H", 10) + name("mail.example.com"), 2,
                    1440021600, 1438207200,
                    "oL9krJun7xfBOIWcGHi7mag5/hdZrKWw15jPGrHpjQeRAvTdszaPD+QLs3fx8A4M3e23mRZ9VrbpMngwcrqNAg==",
                    bytes.fromhex("3aa5ab37efce57f737fc1627013fee07bdf241bd10f3b1964ab55c78e79a304b")),
        "rsasha256": ("example.net", 256, 8,
                      "AwEAAcFcGsaxxdgiuuGmCkVImy4h99CqT7jwY3pexPGcnUFtR2Fh36BponcwtkZ4cAgtvd4Qs8PkxUdp6p/DlUmObdk=",
                      9033, A, "www.example.net", bytes([192, 0, 2, 91]), 3, 1893456000, 946684800,
                      "kRCOH6u7l0QGy9qpC9l1sLncJcOKFLJ7GhiUOibu4teYp5VE9RncriShZNz85mwlMgNEacFYK/lPtPiVYP4bwg==",
                      None),
    }
    for key, (zone, flags, alg, pub, tag, rtype, owner, rdata, labels, exp, inc, sig,
              digest) in examples.items():
        records = [
            rr(name(owner), rtype, 3600, rdata),
            rr(name(owner), RRSIG, 3600,
               rrsig_rdata(rtype, alg, labels, 3600, exp, inc, tag, zone, base64.b64decode(sig))),
            rr(name(zone), DNSKEY, 3600, struct.pack(">HBB", flags, 3, alg) + base64.b64decode(pub)),
        ]
        if digest is not None:
            records.append(rr(name(zone), DS, 3600, struct.pack(">HBB", tag, alg, 2) + digest))
        f["answer-" + key] = (header(1, 0x8180, 1, len(records)) + question(owner, rtype)
                              + b"".join(records))
    # NXDOMAIN with an NSEC whose bitmap holds A, NS, SOA, RRSIG, NSEC, DNSKEY.
    bitmap = bytes([0, 7, 0x62, 0x01, 0x80, 0x08, 0x00, 0x03, 0x80])
    nsec = rr(name("a.example"), NSEC, 3600, name("d.example") + bitmap)
    f["nxdomain-nsec"] = header(2, 0x8183, 1, 0, 1) + question("b.example") + nsec
    # NSEC3 (RFC 5155 Appendix A: SHA-1, 12 iterations, salt aabbccdd) and its PARAM.
    params = struct.pack(">BBH", 1, 1, 12) + bytes([4]) + bytes.fromhex("aabbccdd")
    next_hash = bytes(range(1, 21))
    nsec3 = rr(name("0p9mhaveqvm6t7vbl5lop2u3t2rp3tom.example"), NSEC3, 3600,
               params + bytes([20]) + next_hash + bitmap)
    nsec3param = rr(name("example"), NSEC3PARAM, 3600, struct.pack(">BBH", 1, 0, 12) + bytes([4])
                    + bytes.fromhex("aabbccdd"))
    f["nxdomain-nsec3"] = header(3, 0x8183, 1, 0, 2) + question("a.example") + nsec3 + nsec3param
    return f


def write(target, seeds):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    for old in os.listdir(folder):
        if old.startswith("seed-"):
            os.remove(os.path.join(folder, old))
    for key, data in seeds.items():
        if isinstance(data, str):
            data = data.encode()
        with open(os.path.join(folder, "seed-" + key), "wb") as out:
            out.write(data)


def main():
    write("dnswire", dns_messages())
    write("httpdns", httpdns_responses())
    write("config", configs())
    write("engine", engine_scripts())
    write("cachefile", cache_files())
    # The dnssec target reads a selector byte first (cache state, clock).
    write("dnssec", {k: b"\x00" + v for k, v in dnssec_messages().items()})


if __name__ == "__main__":
    main()
