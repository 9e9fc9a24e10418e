import CompiledConfig
import DNSWire
import Engine
import TestSupport
import XCTest

/// Questions never forwarded by default: single-label names' addresses
/// (`forward-single-label`) and the RFC 6303 / RFC 7793 locally served
/// reverse zones (`forward-private-reverse`); and `filter-aaaa`.
final class NeverForwardedTests: XCTestCase {
  static let config = """
    listen 127.0.0.1:53
    upstream udp 127.0.0.1:5300
    override printer.lan 192.168.1.10 fd00::10
    override nas 192.168.1.11
    cache 0
    """

  /// `d.c.b.a.in-addr.arpa` for a.b.c.d.
  static func reverse(_ octets: [Int]) -> String {
    octets.reversed().map(String.init).joined(separator: ".") + ".in-addr.arpa"
  }

  /// The ip6.arpa name of the leading nibbles of `hex` (32 nibbles for a
  /// whole address, fewer for a zone).
  static func reverse6(_ hex: String) -> String {
    hex.reversed().map(String.init).joined(separator: ".") + ".ip6.arpa"
  }

  /// Asks `name`/`type` and returns the reply, or nil if it was forwarded.
  func ask(
    _ harness: Harness, _ name: String, type: RRType = .ptr, id: UInt16 = 1,
    file: StaticString = #filePath, line: UInt = #line
  ) throws -> Decoded? {
    let forwardedBefore = harness.queries.count
    let replies = harness.ask(makeQuery(id: id, name: name, type: type))
    if harness.queries.count > forwardedBefore {
      XCTAssertTrue(replies.isEmpty, "forwarded and answered: \(name)", file: file, line: line)
      return nil
    }
    XCTAssertEqual(replies.count, 1, name, file: file, line: line)
    return try decoded(
      XCTUnwrap(replies.first, file: file, line: line).bytes, file: file, line: line)
  }

  // MARK: - Single-label names

  func testSingleLabelAddressQuestionsAreNXDOMAINAndNeverForwarded() throws {
    let harness = Harness(Self.config)
    for (index, type) in [RRType.a, .aaaa, .any, .https].enumerated() {
      let reply = try XCTUnwrap(try ask(harness, "Printer", type: type, id: UInt16(index)))
      XCTAssertEqual(reply.rcode, 3, "\(type)")
      XCTAssertEqual(reply.id, UInt16(index))
      XCTAssertEqual(reply.questionText, "Printer", "the client's case")
      XCTAssertEqual(reply.questionType, type)
      XCTAssertTrue(reply.records.isEmpty, "no zone, no SOA")
      XCTAssertFalse(reply.flags.has(HeaderFlags.authoritative))
      XCTAssertTrue(reply.flags.has(HeaderFlags.recursionAvailable))
    }
    XCTAssertTrue(harness.queries.isEmpty)
    XCTAssertEqual(harness.counters[.notForwarded], 4)
    XCTAssertEqual(harness.counters[.forwarded], 0)
  }

  func testAnswersAreLoggedAsLocalNXDOMAINAndNODATA() throws {
    let harness = Harness(Self.config + "\nfilter-aaaa on")
    harness.environment.recordsQueries = true
    harness.ask(makeQuery(id: 1, name: "printer", type: .a))
    harness.ask(makeQuery(id: 2, name: "1.1.168.192.in-addr.arpa", type: .ptr))
    harness.ask(makeQuery(id: 3, name: "www.example", type: .aaaa))
    let logged = harness.environment.loggedQueries
    XCTAssertEqual(logged.map(\.name), ["printer", "1.1.168.192.in-addr.arpa", "www.example"])
    XCTAssertEqual(
      logged.map(\.outcome), [.answered(.nameError), .answered(.nameError), .answered(.noError)])
    XCTAssertEqual(logged.map(\.upstream), [-1, -1, -1], "no upstream")
  }

  func testSingleLabelOtherTypesAndTheRootAreForwarded() throws {
    let harness = Harness(Self.config)
    let ds = RRType(rawValue: 43)
    let dnskey = RRType(rawValue: 48)
    for type in [RRType.ns, .soa, ds, dnskey, .txt, .mx] {
      XCTAssertNil(try ask(harness, "com", type: type), "com \(type) is forwarded")
    }
    XCTAssertNil(try ask(harness, ".", type: .a), "the root is not a single-label name")
    XCTAssertNil(try ask(harness, "www.example", type: .a))
    XCTAssertEqual(harness.queries.count, 8)
    XCTAssertEqual(harness.counters[.notForwarded], 0)
  }

  func testOverridesAnswerSingleLabelNamesFirst() throws {
    let harness = Harness(Self.config)
    let reply = try XCTUnwrap(try ask(harness, "nas", type: .a))
    XCTAssertEqual(reply.rcode, 0)
    XCTAssertEqual(reply.records.first?.rdata, [192, 168, 1, 11])
    XCTAssertEqual(harness.counters[.overridden], 1)
    XCTAssertEqual(harness.counters[.notForwarded], 0)
  }

  func testForwardSingleLabelOnForwardsThem() throws {
    let harness = Harness(Self.config + "\nforward-single-label on")
    XCTAssertNil(try ask(harness, "printer", type: .a))
    XCTAssertNil(try ask(harness, "printer", type: .aaaa))
    XCTAssertEqual(harness.counters[.notForwarded], 0)
    // The other switch is independent.
    XCTAssertNotNil(try ask(harness, Self.reverse([192, 168, 1, 1])))
  }

  // MARK: - Locally served zones

  func testPrivateReverseNameIsGoldenNXDOMAINWithTheZoneSOA() {
    let harness = Harness(Self.config)
    let replies = harness.ask(makeQuery(id: 0xABCD, name: "1.0.0.10.IN-ADDR.arpa", type: .ptr))
    assertBytes(
      replies.first?.bytes ?? [],
      wire(
        "abcd",  // 0  ID
        "8583",  // 2  flags: QR=1 AA=1 RD=1 RA=1 RCODE=NXDOMAIN
        "0001 0000 0001 0000",  // 4  QD=1 AN=0 NS=1 AR=0
        "01 '1' 01 '0' 01 '0' 02 '10' 07 'IN-ADDR' 04 'arpa' 00",  // 12 QNAME as asked
        "000c 0001",  // 35 PTR IN
        "c012",  // 39 owner: pointer to 18, `10.IN-ADDR.arpa`, the zone apex
        "0006 0001",  // 41 SOA IN
        "00002a30",  // 45 TTL 10800 (RFC 6303 §3)
        "0026",  // 49 RDLENGTH 38
        "c012",  // 51 MNAME: the zone itself
        "06 'nobody' 07 'invalid' 00",  // 53 RNAME nobody.invalid.
        "00000001",  // 69 SERIAL 1
        "00000e10",  // 73 REFRESH 3600
        "000004b0",  // 77 RETRY 1200
        "00093a80",  // 81 EXPIRE 604800
        "00002a30"  // 85 MINIMUM 10800
      ))
    XCTAssertTrue(harness.queries.isEmpty)
    XCTAssertEqual(harness.counters[.notForwarded], 1)
  }

  func testEveryIPv4ZoneAndItsNeighbours() throws {
    let harness = Harness(Self.config)
    let local: [[Int]] = [
      [10, 1, 2, 3], [172, 16, 0, 1], [172, 31, 255, 1], [192, 168, 1, 20], [0, 1, 2, 3],
      [127, 0, 0, 1], [169, 254, 3, 4], [192, 0, 2, 5], [198, 51, 100, 5], [203, 0, 113, 5],
      [100, 64, 0, 1], [100, 127, 255, 1],
    ]
    for octets in local {
      let name = Self.reverse(octets)
      let reply = try XCTUnwrap(try ask(harness, name), "\(name) is answered locally")
      XCTAssertEqual(reply.rcode, 3, name)
      XCTAssertEqual(reply.records.map(\.type), [.soa], name)
      XCTAssertTrue(reply.flags.has(HeaderFlags.authoritative), name)
    }
    let forwarded: [[Int]] = [
      [172, 15, 0, 1], [172, 32, 0, 1], [192, 167, 1, 1], [192, 169, 1, 1], [169, 253, 1, 1],
      [192, 0, 3, 5], [198, 51, 101, 5], [203, 0, 112, 5], [100, 63, 0, 1], [100, 128, 0, 1],
      [11, 0, 0, 1], [126, 0, 0, 1], [8, 8, 8, 8], [255, 255, 255, 254],
    ]
    for octets in forwarded {
      XCTAssertNil(try ask(harness, Self.reverse(octets)), Self.reverse(octets))
    }
    XCTAssertEqual(harness.counters[.notForwarded], UInt64(local.count))
    XCTAssertEqual(harness.queries.count, forwarded.count)
  }

  func testZoneApexAnswersSOANSAndANYAndNODATAOtherwise() throws {
    let harness = Harness(Self.config)
    let apex = "168.192.in-addr.arpa"
    let soa = try XCTUnwrap(try ask(harness, apex, type: .soa))
    XCTAssertEqual(soa.rcode, 0)
    XCTAssertEqual(soa.answerCount, 1)
    XCTAssertEqual(soa.authorityCount, 0)
    XCTAssertEqual(soa.records.first.map { nameText($0.name) }, apex)
    XCTAssertEqual(soa.records.first?.type, .soa)

    let ns = try XCTUnwrap(try ask(harness, apex, type: .ns))
    XCTAssertEqual(ns.answerCount, 1)
    XCTAssertEqual(ns.records.first?.type, .ns)
    // RDATA is a pointer to the apex in the question (offset 12).
    XCTAssertEqual(ns.records.first?.rdata, [0xC0, 12])

    let any = try XCTUnwrap(try ask(harness, apex, type: .any))
    XCTAssertEqual(any.records.map(\.type), [.soa, .ns])

    for type in [RRType.ptr, .a, .aaaa, .txt] {
      let nodata = try XCTUnwrap(try ask(harness, apex, type: type))
      XCTAssertEqual(nodata.rcode, 0, "the apex exists: NODATA for \(type)")
      XCTAssertEqual(nodata.answerCount, 0)
      XCTAssertEqual(nodata.authorityCount, 1)
      XCTAssertEqual(nodata.records.first?.type, .soa)
      XCTAssertTrue(nodata.flags.has(HeaderFlags.authoritative))
    }
    // The broadcast address is a zone of its own: its name is the apex.
    let broadcast = try XCTUnwrap(try ask(harness, Self.reverse([255, 255, 255, 255])))
    XCTAssertEqual(broadcast.rcode, 0)
    XCTAssertEqual(broadcast.authorityCount, 1)
    // A name below an apex, even one that is no address, is NXDOMAIN.
    let below = try XCTUnwrap(try ask(harness, "_tcp.10.in-addr.arpa", type: RRType(rawValue: 33)))
    XCTAssertEqual(below.rcode, 3)
    XCTAssertEqual(below.records.first.map { nameText($0.name) }, "10.in-addr.arpa")
    XCTAssertTrue(harness.queries.isEmpty)
  }

  func testIPv6Zones() throws {
    let harness = Harness(Self.config)
    let local = [
      "fd00000000000000000000000000abcd",  // ULA, locally assigned
      "fe800000000000000000000000000001",  // link-local
      "febf0000000000000000000000000001",
      "20010db8000000000000000000000001",  // documentation
      "00000000000000000000000000000001",  // ::1
      "00000000000000000000000000000000",  // ::
    ]
    for hex in local {
      let name = Self.reverse6(hex).uppercased()
      let reply = try XCTUnwrap(try ask(harness, name), "\(name) is answered locally")
      XCTAssertEqual(reply.records.map(\.type), [.soa], hex)
      XCTAssertEqual(reply.rcode, hex.hasPrefix("0000") ? 0 : 3, "::1 and :: are apexes")
    }
    let forwarded = [
      "fc00000000000000000000000000abcd",  // fc00::/8: not locally assigned
      "fec00000000000000000000000000001",  // past fe80::/10
      "20010db9000000000000000000000001",
      "00000000000000000000000000000002",
      "2a000000000000000000000000000001",
    ]
    for hex in forwarded {
      XCTAssertNil(try ask(harness, Self.reverse6(hex)), hex)
    }
    // Zone apexes, and names that are no nibbles.
    XCTAssertEqual(try ask(harness, "d.f.ip6.arpa", type: .soa)?.answerCount, 1)
    XCTAssertEqual(try ask(harness, "8.e.f.ip6.arpa", type: .ns)?.answerCount, 1)
    XCTAssertEqual(try ask(harness, "x.d.f.ip6.arpa")?.rcode, 3)
    XCTAssertNil(try ask(harness, "f.ip6.arpa"), "above every zone")
    XCTAssertNil(try ask(harness, "df.ip6.arpa"), "one nibble per label")
    XCTAssertEqual(harness.queries.count, forwarded.count + 2)
  }

  func testLabelsThatAreNoOctetsDoNotMatch() throws {
    let harness = Harness(Self.config)
    for name in [
      "010.in-addr.arpa", "256.in-addr.arpa", "1.0.x.192.in-addr.arpa", "in-addr.arpa",
      "10.in-addr.arpa.example", "10.in-addr", "1.10.ip6.arpa", "1.a.in-addr.arpa",
      "d.?.ip6.arpa", "d.:.ip6.arpa", "8.e.g.ip6.arpa", "1.0.0.1/0.in-addr.arpa",
    ] {
      XCTAssertNil(try ask(harness, name), name)
    }
    XCTAssertEqual(harness.counters[.notForwarded], 0)
  }

  func testForwardPrivateReverseOnForwardsThem() throws {
    let harness = Harness(Self.config + "\nforward-private-reverse on")
    XCTAssertNil(try ask(harness, Self.reverse([192, 168, 1, 20])))
    XCTAssertNil(try ask(harness, "168.192.in-addr.arpa", type: .soa))
    XCTAssertNil(try ask(harness, Self.reverse6("fd000000000000000000000000000001")))
    XCTAssertEqual(harness.counters[.notForwarded], 0)
    XCTAssertNotNil(try ask(harness, "printer", type: .a), "single-label names are still kept")
  }

  func testChaosAndOtherClassesAreNotLocalZones() throws {
    let harness = Harness(Self.config)
    harness.ask(makeQuery(id: 1, name: "1.1.168.192.in-addr.arpa", type: .ptr, rrClass: .chaos))
    harness.ask(makeQuery(id: 2, name: "printer", type: .a, rrClass: .chaos))
    XCTAssertEqual(harness.queries.count, 2)
    XCTAssertEqual(harness.counters[.notForwarded], 0)
  }

  // MARK: - filter-aaaa

  func testFilterAAAAAnswersNODATAAndForwardsA() throws {
    let harness = Harness(Self.config + "\nfilter-aaaa on")
    let reply = try XCTUnwrap(try ask(harness, "www.example", type: .aaaa, id: 9))
    XCTAssertEqual(reply.id, 9)
    XCTAssertEqual(reply.rcode, 0)
    XCTAssertEqual(reply.questionType, .aaaa)
    XCTAssertTrue(reply.records.isEmpty, "NODATA: no answer, no SOA")
    XCTAssertEqual(harness.counters[.aaaaFiltered], 1)
    XCTAssertNil(try ask(harness, "www.example", type: .a), "A is still forwarded")
    XCTAssertNil(try ask(harness, "www.example", type: .https))
    XCTAssertEqual(harness.queries.count, 2)
    XCTAssertEqual(harness.counters[.aaaaFiltered], 1)
  }

  func testFilterAAAALeavesOverridesAnswering() throws {
    let harness = Harness(Self.config + "\nfilter-aaaa on")
    let reply = try XCTUnwrap(try ask(harness, "printer.lan", type: .aaaa))
    XCTAssertEqual(reply.records.map(\.type), [.aaaa])
    XCTAssertEqual(reply.records.first?.rdata.first, 0xFD)
    XCTAssertEqual(harness.counters[.overridden], 1)
    XCTAssertEqual(harness.counters[.aaaaFiltered], 0)
  }

  func testFilterAAAALeavesPrefetchAskingOnlyA() throws {
    let harness = Harness(
      "listen 127.0.0.1:53\nupstream udp 127.0.0.1:5300\nprefetch www.example\nfilter-aaaa on")
    harness.advance(by: 1)
    XCTAssertEqual(harness.queries.compactMap { decode($0.bytes)?.questionType }, [.a])
  }

  func testFilterAAAAIsOffByDefault() throws {
    let harness = Harness(Self.config)
    XCTAssertNil(try ask(harness, "www.example", type: .aaaa))
    XCTAssertEqual(harness.counters[.aaaaFiltered], 0)
  }
}
