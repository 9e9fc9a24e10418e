import CompiledConfig
import DNSWire
import Engine
import TestSupport
import XCTest

/// RFC 1035 §4.2.1, RFC 6891 §6.2.5, RFC 7766 §5: a UDP reply never exceeds
/// what the client can take (512 without EDNS, its payload size capped by
/// ours with it); otherwise TC=1 with only the question. TCP gets it all.
final class TruncationTests: XCTestCase {
  /// 40 A records: 12 + 21 + 40 * 16 = 673 octets for www.example.com.
  static let forty = manyAddresses(40)

  func testUDPClientGetsTCAndTCPClientGetsEverything() throws {
    let harness = Harness()
    let udpClient = lanClient(1, port: 5001)
    let tcpClient = lanClient(2, port: 5002, tcp: true)
    harness.ask(makeQuery(id: 0x0512, name: "www.Example.com"), from: udpClient)
    harness.ask(makeQuery(id: 0x0513, name: "WWW.example.com"), from: tcpClient)
    XCTAssertEqual(harness.queries.count, 1)
    let replies = harness.answer(
      makeReply(to: harness.queries[0].bytes, addresses: Self.forty), to: harness.queries[0])
    XCTAssertEqual(replies.count, 2)

    let toUDP = try XCTUnwrap(replies.first { $0.client == udpClient })
    assertBytes(
      toUDP.bytes,
      wire(
        "0512",  // 0  ID
        "8380",  // 2  QR=1 TC=1 RD=1 RA=1 NOERROR
        "0001 0000 0000 0000",  // 4  QD=1, nothing else
        "03 'www' 07 'Example' 03 'com' 00",  // 12 QNAME in the client's case
        "0001 0001"  // 29 A IN
      ))
    let toTCP = try decoded(try XCTUnwrap(replies.first { $0.client == tcpClient }).bytes)
    XCTAssertEqual(toTCP.id, 0x0513)
    XCTAssertFalse(toTCP.has(HeaderFlags.truncated))
    XCTAssertEqual(toTCP.questionText, "WWW.example.com")
    XCTAssertEqual(toTCP.ipv4Answers, Self.forty)
    XCTAssertEqual(harness.counters[.truncated], 1)
  }

  func testEDNSClientLimitIsItsSizeCappedByOurs() throws {
    let harness = Harness()
    // 4096 asked, capped to our 1232: 673 octets fit.
    harness.ask(
      makeQuery(id: 1, name: "www.example.com", edns: EDNS(payloadSize: 4096)), from: lanClient(1))
    let fits = try decoded(
      harness.answer(
        makeReply(to: harness.queries[0].bytes, addresses: Self.forty), to: harness.queries[0])[0]
        .bytes)
    XCTAssertFalse(fits.has(HeaderFlags.truncated))
    XCTAssertEqual(fits.answerCount, 40)

    // 80 records are 1313 + 11 octets: over 1232.
    harness.ask(
      makeQuery(id: 2, name: "www.example.com", edns: EDNS(payloadSize: 4096)), from: lanClient(2))
    let bytes = harness.answer(
      makeReply(to: harness.queries[1].bytes, addresses: manyAddresses(80)), to: harness.queries[1])[
        0
      ].bytes
    let truncated = try decoded(bytes)
    XCTAssertLessThanOrEqual(bytes.count, 1232)
    XCTAssertTrue(truncated.has(HeaderFlags.truncated))
    XCTAssertEqual(truncated.answerCount, 0)
    XCTAssertEqual(truncated.questionCount, 1)
    XCTAssertNotNil(truncated.opt, "an EDNS client keeps its OPT in a truncated reply")

    // A client asking for 600: 673 does not fit.
    harness.ask(
      makeQuery(id: 3, name: "www.example.com", edns: EDNS(payloadSize: 600)), from: lanClient(3))
    let small = harness.answer(
      makeReply(to: harness.queries[2].bytes, addresses: Self.forty), to: harness.queries[2])[0]
      .bytes
    XCTAssertLessThanOrEqual(small.count, 600)
    XCTAssertTrue(try decoded(small).has(HeaderFlags.truncated))

    // A payload size below 512 means 512 (RFC 6891 §6.2.5).
    harness.ask(
      makeQuery(id: 4, name: "www.example.com", edns: EDNS(payloadSize: 100)), from: lanClient(4))
    let tiny = harness.answer(
      makeReply(to: harness.queries[3].bytes, addresses: manyAddresses(20)), to: harness.queries[3])[
        0
      ].bytes
    XCTAssertFalse(try decoded(tiny).has(HeaderFlags.truncated), "\(tiny.count) octets fit 512")
  }

  func testLargeOverrideIsTruncatedForUDPToo() throws {
    let addresses = (1...40).map { "10.0.0.\($0)" }.joined(separator: " ")
    let harness = Harness(twoUpstreams + "\noverride many.lan \(addresses)")
    let udp = try decoded(harness.ask(makeQuery(id: 0x4040, name: "Many.lan"))[0].bytes)
    XCTAssertTrue(udp.has(HeaderFlags.truncated))
    XCTAssertTrue(udp.has(HeaderFlags.authoritative))
    XCTAssertEqual(udp.answerCount, 0)
    XCTAssertEqual(udp.questionText, "Many.lan")
    XCTAssertEqual(udp.id, 0x4040)
    let tcp = try decoded(
      harness.ask(makeQuery(id: 0x4041, name: "Many.lan"), from: lanClient(tcp: true))[0].bytes)
    XCTAssertFalse(tcp.has(HeaderFlags.truncated))
    XCTAssertEqual(tcp.ipv4Answers.count, 40)
    XCTAssertTrue(harness.queries.isEmpty)
  }
}
