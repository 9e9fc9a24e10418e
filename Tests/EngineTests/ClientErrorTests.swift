import CompiledConfig
import DNSWire
import Engine
import TestSupport
import XCTest

/// What a client gets for a packet the engine will not forward: REFUSED
/// outside `allow`, FORMERR, NOTIMP, BADVERS, or silence for packets with no
/// usable header or with QR set. Each lands in exactly one counter.
final class ClientErrorTests: XCTestCase {
  static let allowTen = """
    listen 127.0.0.1:53
    allow 10.0.0.0/8
    upstream udp 127.0.0.1:5300
    inflight 16
    """

  static let query = wire(
    "0e0e",  // 0  ID
    "0100",  // 2  RD=1
    "0001 0000 0000 0000",  // 4  QD=1
    "07 'Example' 03 'com' 00",  // 12 QNAME
    "0001 0001"  // 25 A IN
  )

  func testClientOutsideAllowIsREFUSED() {
    let harness = Harness(Self.allowTen)
    let outsider = ClientRef(
      endpoint: Endpoint(address: ipv4(192, 0, 2, 1), port: 5353), listener: 0)
    let replies = harness.ask(Self.query, from: outsider)
    XCTAssertEqual(replies.count, 1)
    XCTAssertEqual(replies.first?.client, outsider)
    assertBytes(
      replies.first?.bytes ?? [],
      wire(
        "0e0e",  // 0  ID: the client's
        "8185",  // 2  QR=1 RD=1 RA=1 RCODE=REFUSED
        "0001 0000 0000 0000",  // 4  QD=1
        "07 'Example' 03 'com' 00",  // 12 QNAME echoed
        "0001 0001"  // 25 A IN
      ))
    XCTAssertEqual(harness.counters[.refused], 1)
    XCTAssertTrue(harness.queries.isEmpty)
    // The default-LAN client is also outside 10/8 once `allow` is given...
    harness.ask(Self.query, from: lanClient())
    XCTAssertEqual(harness.counters[.refused], 2)
    // ...and a client inside it is forwarded.
    let insider = ClientRef(endpoint: Endpoint(address: ipv4(10, 1, 2, 3), port: 5353), listener: 0)
    XCTAssertTrue(harness.ask(Self.query, from: insider).isEmpty)
    XCTAssertEqual(harness.queries.count, 1)
  }

  func testDefaultAllowRefusesPublicAddresses() {
    let harness = Harness()
    let outsider = ClientRef(
      endpoint: Endpoint(address: ipv4(203, 0, 113, 7), port: 53), listener: 0)
    let reply = harness.ask(Self.query, from: outsider)
    XCTAssertEqual(reply.first.flatMap { decode($0.bytes) }?.rcode, ResponseCode.refused.rawValue)
    XCTAssertTrue(harness.queries.isEmpty)
  }

  func testTruncatedQuestionIsFORMERR() {
    let harness = Harness()
    let replies = harness.ask(
      wire(
        "f0f0",  // 0  ID
        "0100",  // 2  RD=1
        "0001 0000 0000 0000",  // 4  QD=1
        "07 'exam'"  // 12 QNAME cut short
      ))
    assertBytes(
      replies.first?.bytes ?? [],
      wire(
        "f0f0",  // 0  ID: the client's
        "8181",  // 2  QR=1 RD=1 RA=1 RCODE=FORMERR
        "0000 0000 0000 0000"  // 4  no question: it did not parse
      ))
    XCTAssertEqual(harness.counters[.formErr], 1)
    XCTAssertTrue(harness.queries.isEmpty)
  }

  func testOpcodesOtherThanQUERYAreNOTIMP() {
    let harness = Harness()
    // STATUS (2) with RD=1.
    let status = harness.ask(makeQuery(id: 0x0202, name: "example.com", opcode: 2))
    assertBytes(
      status.first?.bytes ?? [],
      wire(
        "0202",  // 0  ID
        "9104",  // 2  QR=1 OPCODE=STATUS RD=1 RCODE=NOTIMP
        "0001 0000 0000 0000",  // 4  QD=1
        "07 'example' 03 'com' 00 0001 0001"  // 12 question echoed
      ))
    // UPDATE (5): the zone section parses as a question.
    let update = harness.ask(
      makeQuery(id: 0x0505, name: "example.com", type: .soa, flags: 0, opcode: 5))
    assertBytes(
      update.first?.bytes ?? [],
      wire(
        "0505",  // 0  ID
        "a804",  // 2  QR=1 OPCODE=UPDATE RCODE=NOTIMP
        "0001 0000 0000 0000",  // 4  QD=1
        "07 'example' 03 'com' 00 0006 0001"  // 12 zone echoed
      ))
    // NOTIFY (4) with RD, AD and CD: RA, AD and CD are defined for QUERY only (RFC 1035
    // §4.1.1, RFC 4035 §3.2.2–3.2.3), so the reply has none of them; RD is copied.
    let notify = harness.ask(
      makeQuery(
        id: 0x0404, name: "example.com", type: .soa,
        flags: HeaderFlags.recursionDesired | HeaderFlags.authenticData
          | HeaderFlags.checkingDisabled, opcode: 4))
    let notifyReply = notify.first.flatMap { decode($0.bytes) }
    XCTAssertEqual(notifyReply?.rcode, ResponseCode.notImplemented.rawValue)
    XCTAssertEqual(
      notifyReply.map { $0.flags.rawValue & 0x7FF0 },
      0x2000 | HeaderFlags.recursionDesired, "OPCODE=NOTIFY RD=1, no AA, TC, RA, AD or CD")
    XCTAssertEqual(harness.counters[.notImp], 3)
    XCTAssertTrue(harness.queries.isEmpty)
  }

  func testShortPacketsAndResponsesAreDroppedSilently() {
    let harness = Harness()
    for length in 0..<12 {
      XCTAssertTrue(harness.ask(Array(Self.query.prefix(length))).isEmpty)
    }
    XCTAssertEqual(harness.counters[.droppedShort], 12)
    var response = Self.query
    response[2] |= 0x80
    XCTAssertTrue(harness.ask(response).isEmpty)
    // Even a well-formed full response (a reflection attempt) is dropped.
    XCTAssertTrue(harness.ask(makeReply(to: Self.query)).isEmpty)
    XCTAssertEqual(harness.counters[.droppedResponses], 2)
    XCTAssertEqual(harness.counters[.queries], 14)
    XCTAssertTrue(harness.replies.isEmpty)
    XCTAssertTrue(harness.queries.isEmpty)
  }

  func testEDNSVersionOneIsBADVERS() {
    let harness = Harness()
    let replies = harness.ask(
      wire(
        "0bad",  // 0  ID
        "0100",  // 2  RD=1
        "0001 0000 0000 0001",  // 4  QD=1 AR=1
        "07 'example' 03 'com' 00 0001 0001",  // 12 question
        "00 0029 1000",  // 29 OPT, payload 4096
        "00 01 0000",  // 34 ext-RCODE 0, VERSION 1, flags 0
        "0000"  // 38 RDLENGTH 0
      ))
    assertBytes(
      replies.first?.bytes ?? [],
      wire(
        "0bad",  // 0  ID
        "8180",  // 2  QR=1 RD=1 RA=1, low RCODE bits 0 (16 & 0xF)
        "0001 0000 0000 0001",  // 4  QD=1 AR=1
        "07 'example' 03 'com' 00 0001 0001",  // 12 question echoed
        "00 0029 04d0",  // 29 OPT, our payload 1232
        "01 00 0000",  // 34 ext-RCODE 1 (16 >> 4 = BADVERS), VERSION 0, flags 0
        "0000"  // 38 RDLENGTH 0
      ))
    XCTAssertEqual(harness.counters[.badVersion], 1)
    XCTAssertTrue(harness.queries.isEmpty)
  }

  /// Hostile and malformed client packets: each is answered with the listed
  /// RCODE (and the client's ID) or dropped, never forwarded, never a crash.
  func testHostileCorpus() throws {
    enum Outcome { case drop, rcode(UInt16) }
    let corpus: [(String, [UInt8], Outcome)] = [
      ("empty", [], .drop),
      ("header only, QR=1", wire("abcd 8180 0000 0000 0000 0000"), .drop),
      ("no question", wire("abcd 0100 0000 0000 0000 0000"), .rcode(1)),
      (
        "two questions",
        wire("abcd 0100 0002 0000 0000 0000 01 'a' 00 0001 0001 01 'b' 00 0001 0001"), .rcode(1)
      ),
      ("QDCOUNT past the end", wire("abcd 0100 0001 0000 0000 0000"), .rcode(1)),
      ("QTYPE cut", wire("abcd 0100 0001 0000 0000 0000 01 'a' 00 00"), .rcode(1)),
      ("pointer to itself", wire("abcd 0100 0001 0000 0000 0000 c00c 0001 0001"), .rcode(1)),
      ("forward pointer", wire("abcd 0100 0001 0000 0000 0000 c010 0001 0001 00"), .rcode(1)),
      ("pointer past the end", wire("abcd 0100 0001 0000 0000 0000 c0ff 0001 0001"), .rcode(1)),
      ("label type 01", wire("abcd 0100 0001 0000 0000 0000 41 'a' 00 0001 0001"), .rcode(1)),
      ("label type 10", wire("abcd 0100 0001 0000 0000 0000 81 'a' 00 0001 0001"), .rcode(1)),
      ("label past the end", wire("abcd 0100 0001 0000 0000 0000 3f 'abc'"), .rcode(1)),
      (
        "name over 255 octets",
        wire("abcd 0100 0001 0000 0000 0000")
          + Array(repeating: [0x3f] + Array(repeating: 0x61, count: 63), count: 4).flatMap { $0 }
          + wire("00 0001 0001"), .rcode(1)
      ),
      ("trailing byte", wire("abcd 0100 0001 0000 0000 0000 01 'a' 00 0001 0001 00"), .rcode(1)),
      (
        "ANCOUNT without data", wire("abcd 0100 0001 0001 0000 0000 01 'a' 00 0001 0001"), .rcode(1)
      ),
      (
        "record RDATA past the end",
        wire("abcd 0100 0001 0001 0000 0000 01 'a' 00 0001 0001 c00c 0001 0001 00000000 00ff 01"),
        .rcode(1)
      ),
      (
        "OPT in the answer section",
        wire("abcd 0100 0001 0001 0000 0000 01 'a' 00 0001 0001 00 0029 1000 00000000 0000"),
        .rcode(1)
      ),
      (
        "two OPTs",
        wire(
          "abcd 0100 0001 0000 0000 0002 01 'a' 00 0001 0001 00 0029 1000 00000000 0000 00 0029 1000 00000000 0000"
        ), .rcode(1)
      ),
      (
        "OPT option cut",
        wire(
          "abcd 0100 0001 0000 0000 0001 01 'a' 00 0001 0001 00 0029 1000 00000000 0003 000a 00"),
        .rcode(1)
      ),
      (
        "OPT with a non-root owner",
        wire("abcd 0100 0001 0000 0000 0001 01 'a' 00 0001 0001 c00c 0029 1000 00000000 0000"),
        .rcode(1)
      ),
      ("opcode 15", wire("abcd 7900 0001 0000 0000 0000 01 'a' 00 0001 0001"), .rcode(4)),
      ("opcode 3, garbage body", wire("abcd 1900 0001 0000 0000 0000 ff"), .rcode(4)),
      (
        "EDNS version 255",
        wire("abcd 0100 0001 0000 0000 0001 01 'a' 00 0001 0001 00 0029 1000 00ff0000 0000"),
        .rcode(16)
      ),
    ]
    for (label, packet, outcome) in corpus {
      let harness = Harness()
      let replies = harness.ask(packet)
      switch outcome {
      case .drop:
        XCTAssertTrue(replies.isEmpty, label)
      case .rcode(let rcode):
        XCTAssertEqual(replies.count, 1, label)
        guard let bytes = replies.first?.bytes else { continue }
        let reply = try XCTUnwrap(decode(bytes), "\(label): reply does not validate")
        XCTAssertEqual(reply.id, 0xABCD, label)
        XCTAssertTrue(reply.isResponse, label)
        XCTAssertEqual(reply.rcode, rcode, label)
        XCTAssertEqual(
          reply.flags.opcode, HeaderFlags(rawValue: UInt16(packet[2]) << 8).opcode, label)
      }
      XCTAssertTrue(harness.queries.isEmpty, "\(label): must not be forwarded")
      let outcomes: [Statistic] = [
        .droppedShort, .droppedResponses, .refused, .formErr, .notImp, .badVersion,
      ]
      let counted = outcomes.reduce(0) { $0 + harness.counters[$1] }
      XCTAssertEqual(counted, 1, "\(label): exactly one counter")
    }
  }
}
