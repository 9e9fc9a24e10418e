import TestSupport

/// Golden messages, written out by hand field by field (RFC 1035 §4.1, RFC 6891
/// §6.1). Offsets in the comments are absolute, from the first header byte.
enum Golden {
  /// A recursive query for `wWw.ExAmPlE.cOm A IN`, with 0x20 mixed case.
  static let query = wire(
    "1234",  // 0  ID
    "0100",  // 2  flags: QR=0 OPCODE=QUERY AA=0 TC=0 RD=1 RA=0 Z=0 AD=0 CD=0 RCODE=0
    "0001",  // 4  QDCOUNT 1
    "0000",  // 6  ANCOUNT 0
    "0000",  // 8  NSCOUNT 0
    "0000",  // 10 ARCOUNT 0
    "03 'wWw'",  // 12 QNAME label "wWw"
    "07 'ExAmPlE'",  // 16 label "ExAmPlE"
    "03 'cOm'",  // 24 label "cOm"
    "00",  // 28 root
    "0001",  // 29 QTYPE A
    "0001"  // 31 QCLASS IN; message ends at 33
  )

  /// An answer to `www.example.com ANY` with an A and an AAAA record whose
  /// owners are pointers to the question name.
  static let addressAnswer = wire(
    "1234",  // 0  ID
    "8180",  // 2  flags: QR=1 RD=1 RA=1 RCODE=NOERROR
    "0001",  // 4  QDCOUNT 1
    "0002",  // 6  ANCOUNT 2
    "0000",  // 8  NSCOUNT 0
    "0000",  // 10 ARCOUNT 0
    "03 'www' 07 'example' 03 'com' 00",  // 12 QNAME www.example.com (17 octets)
    "00ff",  // 29 QTYPE ANY
    "0001",  // 31 QCLASS IN
    "c00c",  // 33 answer 1 NAME: pointer to 12
    "0001",  // 35 TYPE A
    "0001",  // 37 CLASS IN
    "00000e10",  // 39 TTL 3600
    "0004",  // 43 RDLENGTH 4
    "5db8d822",  // 45 RDATA 93.184.216.34
    "c00c",  // 49 answer 2 NAME: pointer to 12
    "001c",  // 51 TYPE AAAA
    "0001",  // 53 CLASS IN
    "00000e10",  // 55 TTL 3600
    "0010",  // 59 RDLENGTH 16
    "2606 2800 0220 0001 0248 1893 25c8 1946"  // 61 RDATA 2606:2800:220:1:248:1893:25c8:1946
  )

  /// `www.example.com A` → CNAME cdn.example.com → CNAME edge.net → A 192.0.2.1,
  /// with pointers to the question, into the question, and into RDATA.
  static let cnameChain = wire(
    "abcd",  // 0  ID
    "8180",  // 2  flags: QR=1 RD=1 RA=1 RCODE=NOERROR
    "0001",  // 4  QDCOUNT 1
    "0003",  // 6  ANCOUNT 3
    "0000",  // 8  NSCOUNT 0
    "0000",  // 10 ARCOUNT 0
    "03 'www'",  // 12 QNAME label www
    "07 'example' 03 'com' 00",  // 16 example.com (the target of pointer c010)
    "0001",  // 29 QTYPE A
    "0001",  // 31 QCLASS IN
    "c00c",  // 33 answer 1 NAME: pointer to 12 (www.example.com)
    "0005",  // 35 TYPE CNAME
    "0001",  // 37 CLASS IN
    "0000012c",  // 39 TTL 300
    "0006",  // 43 RDLENGTH 6
    "03 'cdn' c010",  // 45 RDATA cdn + pointer to 16 = cdn.example.com
    "c02d",  // 51 answer 2 NAME: pointer to 45 (cdn.example.com, inside RDATA)
    "0005",  // 53 TYPE CNAME
    "0001",  // 55 CLASS IN
    "0000012c",  // 57 TTL 300
    "000a",  // 61 RDLENGTH 10
    "04 'edge' 03 'net' 00",  // 63 RDATA edge.net, uncompressed
    "c03f",  // 73 answer 3 NAME: pointer to 63 (edge.net)
    "0001",  // 75 TYPE A
    "0001",  // 77 CLASS IN
    "0000003c",  // 79 TTL 60
    "0004",  // 83 RDLENGTH 4
    "c0000201"  // 85 RDATA 192.0.2.1; ends 89
  )

  /// NXDOMAIN for `nope.example.com A` with the zone's SOA in authority.
  static let nxdomain = wire(
    "5555",  // 0  ID
    "8183",  // 2  flags: QR=1 RD=1 RA=1 RCODE=3 (NXDOMAIN)
    "0001",  // 4  QDCOUNT 1
    "0000",  // 6  ANCOUNT 0
    "0001",  // 8  NSCOUNT 1
    "0000",  // 10 ARCOUNT 0
    "04 'nope'",  // 12 QNAME label nope
    "07 'example' 03 'com' 00",  // 17 example.com (pointer target 0x11)
    "0001",  // 30 QTYPE A
    "0001",  // 32 QCLASS IN
    "c011",  // 34 authority NAME: pointer to 17 (example.com)
    "0006",  // 36 TYPE SOA
    "0001",  // 38 CLASS IN
    "00000384",  // 40 TTL 900
    "0026",  // 44 RDLENGTH 38
    "02 'ns' c011",  // 46 MNAME ns.example.com
    "0a 'hostmaster' c011",  // 51 RNAME hostmaster.example.com
    "78a3f175",  // 64 SERIAL 2024010101
    "00001c20",  // 68 REFRESH 7200
    "00000e10",  // 72 RETRY 3600
    "00127500",  // 76 EXPIRE 1209600
    "0000012c"  // 80 MINIMUM 300; ends 84
  )

  /// An answer with an EDNS OPT: UDP 1232, DO set, no options.
  static let ednsAnswer = wire(
    "beef",  // 0  ID
    "8180",  // 2  flags: QR=1 RD=1 RA=1 RCODE=NOERROR
    "0001",  // 4  QDCOUNT 1
    "0001",  // 6  ANCOUNT 1
    "0000",  // 8  NSCOUNT 0
    "0001",  // 10 ARCOUNT 1
    "07 'example' 03 'com' 00",  // 12 QNAME example.com (13 octets)
    "0001",  // 25 QTYPE A
    "0001",  // 27 QCLASS IN
    "c00c",  // 29 answer NAME: pointer to 12
    "0001",  // 31 TYPE A
    "0001",  // 33 CLASS IN
    "0000012c",  // 35 TTL 300
    "0004",  // 39 RDLENGTH 4
    "5db8d822",  // 41 RDATA 93.184.216.34
    "00",  // 45 OPT NAME: root
    "0029",  // 46 TYPE OPT (41)
    "04d0",  // 48 CLASS = UDP payload size 1232
    "00",  // 50 EXTENDED-RCODE 0
    "00",  // 51 VERSION 0
    "8000",  // 52 DO=1, Z=0
    "0000"  // 54 RDLENGTH 0; ends 56
  )

  /// BADVERS (extended RCODE 1 → 16) with an OPT carrying two options.
  static let badVersWithOptions = wire(
    "beef",  // 0  ID
    "8100",  // 2  flags: QR=1 RD=1 RCODE(low 4 bits)=0
    "0001",  // 4  QDCOUNT 1
    "0000",  // 6  ANCOUNT 0
    "0000",  // 8  NSCOUNT 0
    "0001",  // 10 ARCOUNT 1
    "07 'example' 03 'com' 00",  // 12 QNAME example.com
    "0001",  // 25 QTYPE A
    "0001",  // 27 QCLASS IN
    "00",  // 29 OPT NAME: root
    "0029",  // 30 TYPE OPT
    "0200",  // 32 UDP payload size 512
    "01",  // 34 EXTENDED-RCODE 1 (full RCODE 16, BADVERS)
    "00",  // 35 VERSION 0
    "0000",  // 36 DO=0, Z=0
    "0014",  // 38 RDLENGTH 20
    "000a",  // 40 OPTION-CODE 10 (COOKIE)
    "0008",  // 42 OPTION-LENGTH 8
    "0102030405060708",  // 44 client cookie
    "000c",  // 52 OPTION-CODE 12 (PADDING)
    "0004",  // 54 OPTION-LENGTH 4
    "00000000"  // 56 padding; ends 60
  )

  /// No question; OPT extended RCODE 0xAB and header RCODE 5 → 12-bit 0xAB5.
  static let twelveBitRcode = wire(
    "0001",  // 0  ID
    "8405",  // 2  flags: QR=1 AA=1 RCODE(low)=5
    "0000",  // 4  QDCOUNT 0
    "0000",  // 6  ANCOUNT 0
    "0000",  // 8  NSCOUNT 0
    "0001",  // 10 ARCOUNT 1
    "00",  // 12 OPT NAME: root
    "0029",  // 13 TYPE OPT
    "1000",  // 15 UDP payload size 4096
    "ab",  // 17 EXTENDED-RCODE 0xAB
    "01",  // 18 VERSION 1
    "ffff",  // 19 DO=1 and every Z bit set
    "0000"  // 21 RDLENGTH 0; ends 23
  )

  static let all: [(name: String, bytes: [UInt8])] = [
    ("query", query), ("addressAnswer", addressAnswer), ("cnameChain", cnameChain),
    ("nxdomain", nxdomain), ("ednsAnswer", ednsAnswer),
    ("badVersWithOptions", badVersWithOptions), ("twelveBitRcode", twelveBitRcode),
  ]
}
