import CompiledConfig
import DNSWire
import Engine
import Foundation
import TestSupport
import XCTest

/// Questions answered from the hosts and lease names (`hosts`, `leases`,
/// `domain`): A, AAAA, NODATA, PTR, the domain, and precedence.
final class LocalNameTests: XCTestCase {
  static let config = """
    listen 127.0.0.1:53
    upstream udp 127.0.0.1:5300
    cache 0
    hosts /etc/hosts
    leases /tmp/dhcp.leases
    domain lan
    override printer.lan 192.168.1.99
    block ads.lan
    """

  static let hosts = """
    192.168.1.10 nas.lan nas
    fd00::10 nas
    192.168.1.20 printer.lan printer
    10.9.8.7 intranet.example
    """

  static let leases = """
    1800003600 aa:bb:cc:dd:ee:ff 192.168.1.50 laptop 01:aa:bb:cc:dd:ee:ff
    duid 00:01:00:01:2c:1f:7a:3e:aa:bb:cc:dd:ee:ff
    1800003600 305419896 fd00::50 laptop 00:01:00:01:aa
    """

  /// A harness whose active table holds `hosts` and `leases` (as the loop
  /// loads them: into the inactive table, then swapped in).
  func makeHarness(_ config: String = LocalNameTests.config) -> Harness {
    let harness = Harness(config)
    let table = harness.engine.local.names.inactive
    for text in Self.hosts.split(separator: "\n") {
      XCTAssertEqual(table.addHostsLine(ArraySlice(Array(text.utf8))), .fine, String(text))
    }
    for text in Self.leases.split(separator: "\n") {
      XCTAssertEqual(
        table.addLeaseLine(ArraySlice(Array(text.utf8)), now: 1_800_000_000), .fine, String(text))
    }
    harness.engine.local.names.swap()
    return harness
  }

  func ask(_ harness: Harness, _ name: String, _ type: RRType) throws -> Decoded {
    let replies = harness.ask(makeQuery(id: 0x1234, name: name, type: type))
    XCTAssertEqual(replies.count, 1, "\(name) answered at once")
    return try XCTUnwrap(decode(replies.first?.bytes ?? []))
  }

  /// AA, RA, RD copied, NOERROR, TTL 0, the question as asked, no upstream.
  func assertLocal(
    _ reply: Decoded, rcode: ResponseCode = .noError, _ harness: Harness,
    file: StaticString = #filePath, line: UInt = #line
  ) {
    XCTAssertTrue(reply.has(HeaderFlags.authoritative), "AA", file: file, line: line)
    XCTAssertTrue(reply.has(HeaderFlags.recursionAvailable), file: file, line: line)
    XCTAssertTrue(reply.has(HeaderFlags.recursionDesired), "RD copied", file: file, line: line)
    XCTAssertEqual(reply.rcode, rcode.rawValue, file: file, line: line)
    XCTAssertTrue(reply.records.allSatisfy { $0.ttl == 0 }, "TTL 0", file: file, line: line)
    XCTAssertTrue(harness.queries.isEmpty, "never asked upstream", file: file, line: line)
  }

  func testAIsGolden() {
    let harness = makeHarness()
    let replies = harness.ask(makeQuery(id: 0xBEEF, name: "Laptop.LAN", type: .a))
    assertBytes(
      replies.first?.bytes ?? [],
      wire(
        "beef",  // 0  ID: the client's
        "8580",  // 2  flags: QR=1 AA=1 RD=1 (copied) RA=1 RCODE=NOERROR
        "0001 0001 0000 0000",  // 4  QD=1 AN=1 NS=0 AR=0
        "06 'Laptop' 03 'LAN' 00",  // 12 QNAME as the client wrote it
        "0001 0001",  // 24 QTYPE A, QCLASS IN
        "c00c",  // 28 NAME: pointer to the question
        "0001 0001",  // 30 TYPE A, CLASS IN
        "00000000",  // 34 TTL 0, as dnsmasq's local-ttl
        "0004 c0a80132"  // 38 RDLENGTH 4, RDATA 192.168.1.50
      ))
    XCTAssertEqual(harness.counters[.localAnswers], 1)
    XCTAssertTrue(harness.queries.isEmpty)
  }

  func testAAndAAAAForBareAndDomainNames() throws {
    let harness = makeHarness()
    let bare = try ask(harness, "laptop", .aaaa)
    assertLocal(bare, harness)
    XCTAssertEqual(bare.ipv6Answers, [wireAddress("fd00::50")])
    let suffixed = try ask(harness, "laptop.lan", .aaaa)
    XCTAssertEqual(suffixed.ipv6Answers, [wireAddress("fd00::50")], "NAME.DOMAIN")
    // nas.lan is on the hosts line itself, nas alone has the IPv6 line:
    // NAME.DOMAIN answers with both, 192.168.1.10 once.
    let both = try ask(harness, "nas.lan", .any)
    assertLocal(both, harness)
    XCTAssertEqual(both.ipv4Answers, [[192, 168, 1, 10]])
    XCTAssertEqual(both.ipv6Answers, [wireAddress("fd00::10")])
    XCTAssertEqual(try ask(harness, "nas", .a).ipv4Answers, [[192, 168, 1, 10]])
    // Only one label below the domain is a bare name.
    XCTAssertEqual(try ask(harness, "x.laptop.lan", .a).rcode, ResponseCode.nameError.rawValue)
    XCTAssertEqual(harness.counters[.localAnswers], 4)
    XCTAssertEqual(harness.counters[.localNXDomain], 1)
  }

  func testOtherTypesOfAKnownNameAreNODATA() throws {
    let harness = makeHarness()
    for type in [RRType.mx, .txt, RRType(rawValue: 33)] {
      let reply = try ask(harness, "laptop.lan", type)
      assertLocal(reply, harness)
      XCTAssertEqual(reply.answerCount, 0, "NODATA for type \(type.rawValue)")
    }
    let noIPv6 = try ask(harness, "intranet.example", .aaaa)
    assertLocal(noIPv6, harness)
    XCTAssertEqual(noIPv6.answerCount, 0, "a hosts name outside the domain: NODATA too")
  }

  func testPTRForIPv4AndIPv6() throws {
    let harness = makeHarness()
    let lease = try ask(harness, "50.1.168.192.in-addr.arpa", .ptr)
    assertLocal(lease, harness)
    XCTAssertEqual(lease.records.map(\.type), [.ptr])
    XCTAssertEqual(lease.records.first?.rdata, wireName("laptop.lan"), "bare: NAME.DOMAIN")
    let canonical = try ask(harness, "10.1.168.192.in-addr.arpa", .ptr)
    XCTAssertEqual(canonical.records.first?.rdata, wireName("nas.lan"), "the first name")
    let other = try ask(harness, "7.8.9.10.in-addr.arpa", .ptr)
    XCTAssertEqual(other.records.first?.rdata, wireName("intranet.example"))
    let ipv6 = try ask(
      harness, "0.5.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.f.ip6.arpa", .ptr)
    assertLocal(ipv6, harness)
    XCTAssertEqual(ipv6.records.first?.rdata, wireName("laptop.lan"))
    let otherType = try ask(harness, "50.1.168.192.in-addr.arpa", .a)
    assertLocal(otherType, harness)
    XCTAssertEqual(otherType.answerCount, 0, "NODATA for a known address's other types")
    XCTAssertEqual(harness.counters[.localAnswers], 5)
  }

  /// A reverse name local data lacks, or one that is not a whole address
  /// in canonical form (no leading zero), goes on: to the upstream with
  /// `forward-private-reverse on`, to the RFC 6303 empty zone without.
  func testUnknownReverseNamesAreForwarded() {
    let harness = makeHarness(Self.config + "\nforward-private-reverse on")
    for name in [
      "51.1.168.192.in-addr.arpa", "1.168.192.in-addr.arpa", "050.1.168.192.in-addr.arpa",
      "256.1.168.192.in-addr.arpa",
    ] {
      XCTAssertTrue(harness.ask(makeQuery(id: 1, name: name, type: .ptr)).isEmpty, name)
    }
    XCTAssertEqual(harness.queries.count, 4)
  }

  func testUnknownNamesInTheDomainAreNXDOMAINAndTheDomainItselfNODATA() throws {
    let harness = makeHarness()
    let unknown = try ask(harness, "Phone.lan", .a)
    assertLocal(unknown, rcode: .nameError, harness)
    XCTAssertEqual(unknown.answerCount, 0)
    let deep = try ask(harness, "a.b.lan", .aaaa)
    assertLocal(deep, rcode: .nameError, harness)
    let apex = try ask(harness, "lan", .soa)
    assertLocal(apex, harness)
    XCTAssertEqual(apex.answerCount, 0)
    XCTAssertEqual(harness.counters[.localNXDomain], 3)
    // Outside the domain (a longer last label is another domain) is
    // forwarded (a single-label name's MX too: only its addresses stay home).
    for (name, type) in [("phone.plan", RRType.a), ("lan.example", .a), ("phone", .mx)] {
      XCTAssertTrue(harness.ask(makeQuery(id: 2, name: name, type: type)).isEmpty, name)
    }
    XCTAssertEqual(harness.queries.count, 3)
  }

  /// The domain's NXDOMAIN holds without any hosts or lease file too.
  func testDomainAloneKeepsItsNamesLocal() throws {
    let harness = Harness("listen 127.0.0.1:53\nupstream udp 127.0.0.1:5300\ndomain home.arpa")
    XCTAssertEqual(try ask(harness, "tv.home.arpa", .a).rcode, ResponseCode.nameError.rawValue)
    XCTAssertTrue(harness.queries.isEmpty)
  }

  /// `override`/`block` > local names > forwarded.
  func testOverrideAndBlockComeBeforeLocalNames() throws {
    let harness = makeHarness()
    XCTAssertEqual(try ask(harness, "printer.lan", .a).ipv4Answers, [[192, 168, 1, 99]])
    XCTAssertEqual(harness.counters[.overridden], 1)
    let table = harness.engine.local.names.active
    XCTAssertEqual(table.addHostsLine(ArraySlice(Array("192.168.1.30 ads.lan".utf8))), .fine)
    XCTAssertEqual(try ask(harness, "ads.lan", .a).rcode, ResponseCode.nameError.rawValue)
    XCTAssertEqual(harness.counters[.blocked], 1)
    XCTAssertEqual(harness.counters[.localAnswers], 0)
    // Without the override the hosts line answers.
    let plain = makeHarness(Self.config.replacingOccurrences(of: "override", with: "# override"))
    XCTAssertEqual(try ask(plain, "printer.lan", .a).ipv4Answers, [[192, 168, 1, 20]])
  }

  /// A name outside the domain that local data does not know is forwarded;
  /// only class IN is answered locally.
  func testUnknownNamesAndOtherClassesGoOn() {
    let harness = makeHarness()
    XCTAssertTrue(harness.ask(makeQuery(id: 3, name: "example.com", type: .a)).isEmpty)
    XCTAssertTrue(
      harness.ask(makeQuery(id: 4, name: "laptop", type: .a, rrClass: RRClass(rawValue: 3)))
        .isEmpty)
    XCTAssertEqual(harness.queries.count, 2)
  }

  /// A reload swaps tables: the names of the old one stop answering at once.
  func testSwappedTableReplacesTheNames() throws {
    let harness = makeHarness()
    let table = harness.engine.local.names.inactive
    table.clear()
    XCTAssertEqual(table.addHostsLine(ArraySlice(Array("192.168.1.60 tablet".utf8))), .fine)
    harness.engine.local.names.swap()
    XCTAssertEqual(try ask(harness, "tablet.lan", .a).ipv4Answers, [[192, 168, 1, 60]])
    XCTAssertEqual(try ask(harness, "laptop.lan", .a).rcode, ResponseCode.nameError.rawValue)
  }

  func testQueryLogSaysLocalName() {
    let harness = makeHarness()
    harness.environment.recordsQueries = true
    harness.ask(makeQuery(id: 5, name: "laptop.lan", type: .a))
    XCTAssertEqual(harness.environment.loggedQueries.map(\.outcome), [.localName])
  }

  func wireAddress(_ text: String) -> [UInt8] {
    let address = try! AddressText.parse(ArraySlice(Array(text.utf8)))
    return (0..<16).map { address.byte($0) }
  }
}
