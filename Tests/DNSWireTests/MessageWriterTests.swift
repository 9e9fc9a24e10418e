import DNSWire
import TestSupport
import XCTest

final class MessageWriterTests: XCTestCase {
  static let www = wire("03 'www' 07 'example' 03 'com' 00")
  static let wwwUpper = wire("03 'WWW' 07 'Example' 03 'COM' 00")

  /// The response `buildResponse` must produce, byte for byte.
  static let goldenResponse = wire(
    "beef",  // 0  ID
    "8180",  // 2  flags: QR=1 RD=1 RA=1 RCODE=NOERROR
    "0001",  // 4  QDCOUNT 1
    "0002",  // 6  ANCOUNT 2
    "0000",  // 8  NSCOUNT 0
    "0001",  // 10 ARCOUNT 1
    "03 'www' 07 'example' 03 'com' 00",  // 12 QNAME, written in full
    "0001",  // 29 QTYPE A
    "0001",  // 31 QCLASS IN
    "c00c",  // 33 answer 1 NAME: compressed to the question
    "0001",  // 35 TYPE A
    "0001",  // 37 CLASS IN
    "0000012c",  // 39 TTL 300
    "0004",  // 43 RDLENGTH 4
    "5db8d822",  // 45 93.184.216.34
    "c00c",  // 49 answer 2 NAME: given as WWW.Example.COM, compressed ignoring case
    "0001",  // 51 TYPE A
    "0001",  // 53 CLASS IN
    "0000012c",  // 55 TTL 300
    "0004",  // 59 RDLENGTH 4
    "5db8d823",  // 61 93.184.216.35
    "00",  // 65 OPT NAME: root
    "0029",  // 66 TYPE OPT
    "04d0",  // 68 UDP payload size 1232
    "00",  // 70 EXTENDED-RCODE 0
    "00",  // 71 VERSION 0
    "8000",  // 72 DO=1
    "0000"  // 74 RDLENGTH 0; ends 76
  )

  static func buildResponse(_ writer: inout MessageWriter) throws(WireError) {
    try writer.writeHeader(
      id: 0xBEEF, flags: HeaderFlags(rawValue: 0x8180), questions: 1, answers: 2, additionals: 1)
    try withBytes(www) { (name) throws(WireError) in
      try writer.writeQuestion(name: name, type: .a, rrClass: .internet)
    }
    try withBytes(www) { (name) throws(WireError) in
      try withBytes([UInt8]([93, 184, 216, 34])) { (rdata) throws(WireError) in
        try writer.writeRecord(name: name, type: .a, rrClass: .internet, ttl: 300, rdata: rdata)
      }
    }
    try withBytes(wwwUpper) { (name) throws(WireError) in
      try withBytes([UInt8]([93, 184, 216, 35])) { (rdata) throws(WireError) in
        try writer.writeRecord(name: name, type: .a, rrClass: .internet, ttl: 300, rdata: rdata)
      }
    }
    try writer.writeOPT(udpPayloadSize: 1232, dnssecOK: true)
  }

  /// Same bytes, with the answers' owners given as pointers and the counts patched.
  static func buildResponseWithPointers(_ writer: inout MessageWriter) throws(WireError) {
    try writer.writeHeader(id: 0xBEEF, flags: HeaderFlags(rawValue: 0x8180))
    try withBytes(www) { (name) throws(WireError) in
      try writer.writeQuestion(name: name, type: .a, rrClass: .internet)
    }
    for last: UInt8 in [34, 35] {
      try withBytes([UInt8]([93, 184, 216, last])) { (rdata) throws(WireError) in
        try writer.writeRecord(pointerTo: 12, type: .a, rrClass: .internet, ttl: 300, rdata: rdata)
      }
    }
    try writer.writeOPT(udpPayloadSize: 1232, dnssecOK: true)
    writer.patchUInt16(1, at: 4)
    writer.patchUInt16(2, at: 6)
    writer.patchUInt16(1, at: 10)
  }

  /// `www.example.com` then names sharing suffixes with it and with each other.
  static let goldenSuffixes = wire(
    "0000",  // 0  ID
    "8000",  // 2  flags: QR=1
    "0001",  // 4  QDCOUNT 1
    "0006",  // 6  ANCOUNT 6
    "0000",  // 8  NSCOUNT 0
    "0000",  // 10 ARCOUNT 0
    "03 'www' 07 'example' 03 'com' 00",  // 12 QNAME; example.com at 16
    "0001 0001",  // 29 QTYPE A, QCLASS IN
    "04 'mail' c010",  // 33 mail.example.com: label + pointer to example.com
    "0001 0001 00000000 0000",  // 40 TYPE A, CLASS IN, TTL 0, RDLENGTH 0
    "c010",  // 50 example.com: a bare pointer
    "0001 0001 00000000 0000",  // 52 fixed fields
    "01 'a' c021",  // 62 a.mail.example.com: pointer to mail at 33
    "0001 0001 00000000 0000",  // 66 fixed fields
    "05 'other' 03 'org' 00",  // 76 other.org: nothing to share
    "0001 0001 00000000 0000",  // 87 fixed fields
    "c021",  // 97 MAIL.EXAMPLE.COM: pointer to 33, case ignored
    "0001 0001 00000000 0000",  // 99 fixed fields
    "03 'www' c04c",  // 109 www.other.org: pointer to other.org at 76
    "0001 0001 00000000 0000"  // 115 fixed fields; ends 125
  )

  static let suffixNames = [
    "mail.example.com", "example.com", "a.mail.example.com", "other.org", "MAIL.EXAMPLE.COM",
    "www.other.org",
  ].map { text in
    // Name.parse lowers case; keep the upper-case spelling by hand.
    text == "MAIL.EXAMPLE.COM" ? wire("04 'MAIL' 07 'EXAMPLE' 03 'COM' 00") : flatName(text)
  }

  static func buildSuffixes(_ writer: inout MessageWriter) throws(WireError) {
    try writer.writeHeader(id: 0, flags: HeaderFlags(rawValue: 0x8000), questions: 1, answers: 6)
    try withBytes(www) { (name) throws(WireError) in
      try writer.writeQuestion(name: name, type: .a, rrClass: .internet)
    }
    for owner in suffixNames {
      try withBytes(owner) { (name) throws(WireError) in
        try writer.writeRecord(
          name: name, type: .a, rrClass: .internet, ttl: 0,
          rdata: UnsafeRawBufferPointer(start: nil, count: 0))
      }
    }
  }

  private func build(
    size: Int, _ body: (inout MessageWriter) throws(WireError) -> Void
  ) -> (bytes: [UInt8], error: WireError?) {
    // One guard byte past the buffer: the writer must never touch it.
    var storage = [UInt8](repeating: 0xA5, count: size + 1)
    return storage.withUnsafeMutableBytes { raw in
      var writer = MessageWriter(buffer: UnsafeMutableRawBufferPointer(rebasing: raw[0..<size]))
      var thrown: WireError? = nil
      do throws(WireError) { try body(&writer) } catch { thrown = error }
      XCTAssertLessThanOrEqual(writer.count, size)
      XCTAssertEqual(raw[size], 0xA5, "wrote past the buffer of \(size)")
      XCTAssertEqual(writer.written.count, writer.count)
      return (Array(raw[0..<writer.count]), thrown)
    }
  }

  func testGoldenResponse() throws {
    let (bytes, error) = build(size: 512, Self.buildResponse)
    XCTAssertNil(error)
    XCTAssertEqual(bytes, Self.goldenResponse, hexString(bytes, separator: " "))
    try bytes.withUnsafeBytes { raw in
      let message = try Message(validating: raw)
      XCTAssertEqual(message.answerCount, 2)
      XCTAssertEqual(message.opt?.udpPayloadSize, 1232)
      XCTAssertEqual(message.opt?.dnssecOK, true)
    }
  }

  func testPointerOwnersAndPatchedCountsGiveTheSameBytes() {
    let (bytes, error) = build(size: 512, Self.buildResponseWithPointers)
    XCTAssertNil(error)
    XCTAssertEqual(bytes, Self.goldenResponse, hexString(bytes, separator: " "))
  }

  func testSuffixCompression() throws {
    let (bytes, error) = build(size: 512, Self.buildSuffixes)
    XCTAssertNil(error)
    XCTAssertEqual(bytes, Self.goldenSuffixes, hexString(bytes, separator: " "))
    // And every owner reads back as the name that was written.
    try bytes.withUnsafeBytes { raw in
      let message = try Message(validating: raw)
      var iterator = message.records()
      var owners: [[UInt8]] = []
      while let record = iterator.next() {
        owners.append(try readFlat(raw, at: record.offset).name)
      }
      // Compression ignores case: MAIL.EXAMPLE.COM reads back as the copy it points to.
      XCTAssertEqual(owners, Self.suffixNames.map { $0.map(Name.asciiLowercased) })
    }
  }

  func testUncompressedNameIsWrittenFlatAndNotRemembered() {
    let (bytes, error) = build(size: 100) { (writer) throws(WireError) in
      try withBytes(Self.www) { (name) throws(WireError) in
        try writer.writeName(name, compress: false)
        try writer.writeName(name)  // nothing remembered yet: flat again
        try writer.writeName(name)  // now a pointer to the second copy
      }
    }
    XCTAssertNil(error)
    XCTAssertEqual(bytes, Self.www + Self.www + wire("c011"))
  }

  func testPointersNeverTargetPastFourteenBits() throws {
    // example.com starts at 0x3FFE (reachable), com at 0x4006 (not).
    let (bytes, error) = build(size: 0x4100) { (writer) throws(WireError) in
      try withBytes([UInt8](repeating: 0, count: 0x3FFA)) { (pad) throws(WireError) in
        try writer.write(pad)
      }
      for text in ["www.example.com", "com", "example.com"] {
        try withBytes(flatName(text)) { (name) throws(WireError) in try writer.writeName(name) }
      }
      // A name written past 0x3FFF is never a target.
      for _ in 0..<2 {
        try withBytes(flatName("far.away")) { (name) throws(WireError) in
          try writer.writeName(name)
        }
      }
    }
    XCTAssertNil(error)
    let tail = Array(bytes[0x3FFA...])
    XCTAssertEqual(
      tail,
      wire(
        "03 'www' 07 'example' 03 'com' 00",  // 0x3FFA www.example.com, flat
        "03 'com' 00",  // 0x400B com: its only copy is at 0x4006, out of reach
        "fffe",  // 0x4010 example.com: pointer to 0x3FFE
        "03 'far' 04 'away' 00",  // 0x4012 far.away
        "03 'far' 04 'away' 00"  // 0x401C far.away again: still flat
      ), hexString(tail, separator: " "))
    try bytes.withUnsafeBytes { raw in
      XCTAssertEqual(formatted(try readFlat(raw, at: 0x4010).name), "example.com.")
    }
  }

  func testBufferFullAtEveryShorterLength() {
    let builders: [(String, Int, (inout MessageWriter) throws(WireError) -> Void)] = [
      ("response", Self.goldenResponse.count, Self.buildResponse),
      ("response with pointers", Self.goldenResponse.count, Self.buildResponseWithPointers),
      ("suffixes", Self.goldenSuffixes.count, Self.buildSuffixes),
    ]
    for (name, needed, body) in builders {
      let golden = name == "suffixes" ? Self.goldenSuffixes : Self.goldenResponse
      var prefix = golden
      if name == "response with pointers" {
        // Its counts are patched in only once everything else has fit.
        prefix.replaceSubrange(4..<12, with: [UInt8](repeating: 0, count: 8))
      }
      for size in 0..<needed {
        let (bytes, error) = build(size: size, body)
        XCTAssertEqual(error, .bufferFull, "\(name), buffer of \(size)")
        // Whatever fit is the golden prefix; nothing half-written beyond it.
        XCTAssertEqual(bytes, Array(prefix[0..<bytes.count]), "\(name), buffer of \(size)")
      }
      let (bytes, error) = build(size: needed, body)
      XCTAssertNil(error, name)
      XCTAssertEqual(bytes, golden, name)
    }
  }

  func testOversizedRdataIsBufferFullForNamedOwner() {
    let (_, error) = build(size: 100) { (writer) throws(WireError) in
      try withBytes([UInt8](repeating: 0, count: 0x10000)) { (rdata) throws(WireError) in
        try withBytes(Self.www) { (name) throws(WireError) in
          try writer.writeRecord(name: name, type: .txt, rrClass: .internet, ttl: 0, rdata: rdata)
        }
      }
    }
    XCTAssertEqual(error, .bufferFull)
  }

  /// Regression: `writeRecord(pointerTo:...)` used to trap converting an
  /// RDATA of 65,536 bytes or more to UInt16; like `writeRecord(name:...)`
  /// it must throw `.bufferFull`.
  func testWriteRecordPointerToWithOversizedRdataThrowsBufferFull() throws {
    let (_, error) = build(size: 0x20000) { (writer) throws(WireError) in
      try writer.writeHeader(id: 0, flags: HeaderFlags(rawValue: 0), questions: 1)
      try withBytes(Self.www) { (name) throws(WireError) in
        try writer.writeQuestion(name: name, type: .txt, rrClass: .internet)
      }
      try withBytes([UInt8](repeating: 0, count: 0x10000)) { (rdata) throws(WireError) in
        try writer.writeRecord(pointerTo: 12, type: .txt, rrClass: .internet, ttl: 0, rdata: rdata)
      }
    }
    XCTAssertEqual(error, .bufferFull)
  }
}
