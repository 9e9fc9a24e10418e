import CompiledConfig
import DNSWire
import Engine
import TestSupport
import XCTest

/// Names answered from the override table, never asked upstream.
final class OverrideTests: XCTestCase {
  static let config = """
    listen 127.0.0.1:53
    upstream udp 127.0.0.1:5300
    override printer.lan 192.168.1.10 fd00::10
    override *.dev.lan 192.168.1.30
    block ads.example
    """

  func testAOverrideIsGoldenWithClientIDCaseAndRD() {
    let harness = Harness(Self.config)
    let query = wire(
      "beef",  // 0  ID
      "0100",  // 2  flags: QUERY, RD=1
      "0001 0000 0000 0000",  // 4  QD=1 AN=0 NS=0 AR=0
      "07 'Printer' 03 'LAN' 00",  // 12 QNAME, mixed case
      "0001",  // 25 QTYPE A
      "0001"  // 27 QCLASS IN
    )
    let replies = harness.ask(query)
    XCTAssertEqual(replies.count, 1)
    assertBytes(
      replies.first?.bytes ?? [],
      wire(
        "beef",  // 0  ID: the client's
        "8580",  // 2  flags: QR=1 OPCODE=QUERY AA=1 TC=0 RD=1 (copied) RA=1 RCODE=NOERROR
        "0001",  // 4  QDCOUNT 1
        "0001",  // 6  ANCOUNT 1
        "0000",  // 8  NSCOUNT 0
        "0000",  // 10 ARCOUNT 0 (the client sent no OPT)
        "07 'Printer' 03 'LAN' 00",  // 12 QNAME exactly as the client wrote it
        "0001",  // 25 QTYPE A
        "0001",  // 27 QCLASS IN
        "c00c",  // 29 NAME: pointer to the question
        "0001",  // 31 TYPE A
        "0001",  // 33 CLASS IN
        "0000012c",  // 35 TTL 300 (override-ttl default)
        "0004",  // 39 RDLENGTH
        "c0a8010a"  // 41 RDATA 192.168.1.10
      ))
    XCTAssertEqual(replies.first?.client, lanClient())
    XCTAssertTrue(harness.queries.isEmpty, "an override must not be asked upstream")
    XCTAssertEqual(harness.counters[.overridden], 1)
    XCTAssertEqual(harness.counters[.forwarded], 0)
  }

  func testAAAAOverrideIsGoldenAndKeepsRDClear() {
    let harness = Harness(Self.config)
    let replies = harness.ask(makeQuery(id: 0x0042, name: "printer.lan", type: .aaaa, flags: 0))
    assertBytes(
      replies.first?.bytes ?? [],
      wire(
        "0042",  // 0  ID
        "8480",  // 2  flags: QR=1 AA=1 RD=0 (as asked) RA=1 NOERROR
        "0001 0001 0000 0000",  // 4  QD=1 AN=1 NS=0 AR=0
        "07 'printer' 03 'lan' 00",  // 12 QNAME
        "001c 0001",  // 25 AAAA IN
        "c00c 001c 0001",  // 29 NAME ->12, TYPE AAAA, CLASS IN
        "0000012c",  // 35 TTL 300
        "0010",  // 39 RDLENGTH 16
        "fd00 0000 0000 0000 0000 0000 0000 0010"  // 41 fd00::10
      ))
    XCTAssertTrue(harness.queries.isEmpty)
  }

  func testANYOverrideGivesBothFamiliesAndEDNSClientGetsOPT() throws {
    let harness = Harness(Self.config)
    let replies = harness.ask(
      makeQuery(id: 7, name: "PRINTER.lan", type: .any, edns: EDNS(payloadSize: 4096)))
    XCTAssertEqual(replies.count, 1)
    let reply = try decoded(replies[0].bytes)
    XCTAssertEqual(reply.id, 7)
    XCTAssertTrue(reply.isResponse)
    XCTAssertTrue(reply.has(HeaderFlags.authoritative))
    XCTAssertEqual(reply.rcode, ResponseCode.noError.rawValue)
    XCTAssertEqual(reply.questionText, "PRINTER.lan")
    XCTAssertEqual(reply.questionType, .any)
    XCTAssertEqual(reply.ipv4Answers, [[192, 168, 1, 10]])
    XCTAssertEqual(reply.ipv6Answers, [[0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10]])
    XCTAssertEqual(reply.opt?.payloadSize, 1232)
    XCTAssertEqual(reply.opt?.version, 0)
    XCTAssertTrue(harness.queries.isEmpty)
  }

  func testOtherTypeOfOverriddenNameIsNODATA() throws {
    let harness = Harness(Self.config)
    for type in [RRType.mx, .txt, .https] {
      let replies = harness.ask(makeQuery(id: 0x1001, name: "printer.LAN", type: type))
      let reply = try decoded(replies[0].bytes)
      XCTAssertEqual(reply.id, 0x1001)
      XCTAssertEqual(reply.rcode, ResponseCode.noError.rawValue)
      XCTAssertTrue(reply.has(HeaderFlags.authoritative))
      XCTAssertEqual(reply.answerCount, 0)
      XCTAssertEqual(reply.questionType, type)
      XCTAssertEqual(reply.questionText, "printer.LAN")
    }
    XCTAssertTrue(harness.queries.isEmpty)
    XCTAssertEqual(harness.counters[.overridden], 3)
  }

  func testWildcardAnswersNamesStrictlyBelow() throws {
    let harness = Harness(Self.config)
    for name in ["Host.Dev.Lan", "a.b.dev.lan"] {
      let reply = try decoded(harness.ask(makeQuery(id: 9, name: name))[0].bytes)
      XCTAssertEqual(reply.questionText, name)
      XCTAssertEqual(reply.ipv4Answers, [[192, 168, 1, 30]])
      XCTAssertTrue(reply.has(HeaderFlags.authoritative))
    }
    // The wildcard has no AAAA: NODATA.
    let noAAAA = try decoded(
      harness.ask(makeQuery(id: 10, name: "x.dev.lan", type: .aaaa))[0].bytes)
    XCTAssertEqual(noAAAA.answerCount, 0)
    XCTAssertEqual(noAAAA.rcode, 0)
    XCTAssertTrue(harness.queries.isEmpty)
    // `*.dev.lan` does not cover dev.lan itself, nor does an exact override
    // cover its subdomains: both are forwarded.
    XCTAssertTrue(harness.ask(makeQuery(id: 11, name: "dev.lan")).isEmpty)
    XCTAssertTrue(harness.ask(makeQuery(id: 12, name: "tray.printer.lan")).isEmpty)
    XCTAssertEqual(harness.queries.count, 2)
  }

  func testBlockIsNXDOMAINForNameAndSubdomains() throws {
    let harness = Harness(Self.config)
    let blocked = harness.ask(makeQuery(id: 0xAD5, name: "ads.example"))
    assertBytes(
      blocked.first?.bytes ?? [],
      wire(
        "0ad5",  // 0  ID
        "8583",  // 2  flags: QR=1 AA=1 RD=1 RA=1 RCODE=NXDOMAIN
        "0001 0000 0000 0000",  // 4  QD=1 AN=0 NS=0 AR=0
        "03 'ads' 07 'example' 00",  // 12 QNAME
        "0001 0001"  // 25 A IN
      ))
    let sub = try decoded(
      harness.ask(makeQuery(id: 0xAD6, name: "Tracker.ADS.example", type: .aaaa, edns: EDNS()))[0]
        .bytes)
    XCTAssertEqual(sub.id, 0xAD6)
    XCTAssertEqual(sub.rcode, ResponseCode.nameError.rawValue)
    XCTAssertEqual(sub.questionText, "Tracker.ADS.example")
    XCTAssertEqual(sub.answerCount, 0)
    XCTAssertNotNil(sub.opt)
    XCTAssertEqual(harness.counters[.blocked], 2)
    XCTAssertTrue(harness.queries.isEmpty)
    // A name that merely ends in the same letters is not below it.
    XCTAssertTrue(harness.ask(makeQuery(id: 0xAD7, name: "notads.example")).isEmpty)
    XCTAssertEqual(harness.queries.count, 1)
  }
}
