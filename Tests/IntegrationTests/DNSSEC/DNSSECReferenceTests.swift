import Foundation
// unbound against the signed-zone fixture: every case of ValidationCases,
// honest and tampered, answered as the table says. The fixture (two knotd,
// the relay, unbound) starts once for the class and stops after it.
import TestSupport
import XCTest

final class DNSSECReferenceTests: XCTestCase {
  /// What the class's tests share; nil with `skipReason` or `failure` set.
  struct Fixture {
    let zones: SignedZones
    let relay: TamperingRelay
    let unbound: UnboundResolver
  }
  nonisolated(unsafe) static var fixture: Fixture?
  nonisolated(unsafe) static var skipReason: String?
  nonisolated(unsafe) static var failure: String?

  override class func setUp() {
    super.setUp()
    if let missing = SignedZones.missingTool {
      skipReason = missing
      return
    }
    guard UnboundResolver.isInstalled else {
      skipReason = "\(UnboundResolver.executable) is not installed (apt-get install unbound)"
      return
    }
    let started = Date()
    var zones: SignedZones?
    do {
      let made = try SignedZones()
      zones = made
      let relay = try TamperingRelay(
        upstream: made.honest.port, expiredUpstream: made.expired.port,
        rules: ValidationCases.rules)
      let unbound = try UnboundResolver(
        directory: made.directory.appendingPathComponent("unbound"),
        trustAnchor: made.trustAnchor, forwardTo: relay.port)
      fixture = Fixture(zones: made, relay: relay, unbound: unbound)
      print(String(format: "DNSSEC fixture started in %.2f s", Date().timeIntervalSince(started)))
    } catch {
      failure = "the signed-zone fixture did not start: \(error)"
      zones?.remove()
    }
  }

  override class func tearDown() {
    if let fixture {
      fixture.unbound.stop()
      fixture.relay.stop()
      // DNSWARD_DNSSEC_KEEP=1 keeps the keys, zones, configs and logs
      // for a look after the run.
      if ProcessInfo.processInfo.environment["DNSWARD_DNSSEC_KEEP"] == "1" {
        fixture.zones.stop()
        print("DNSSEC fixture kept in \(fixture.zones.directory.path)")
      } else {
        fixture.zones.remove()
      }
    }
    fixture = nil
    super.tearDown()
  }

  /// dnsward with `dnssec on` behind the fixture's relay, its only trust
  /// anchor the fixture's.
  func validatingDnsward(_ fixture: Fixture, log: String = "info") throws -> DnswardProcess {
    try DnswardProcess(
      config: """
        listen 127.0.0.1:0
        upstream udp 127.0.0.1:\(fixture.relay.port)
        timeout 1000ms
        dnssec on
        dnssec-root off
        trust-anchor \(fixture.zones.trustAnchor)
        log \(log)
        """)
  }

  func started() throws -> Fixture {
    if let reason = Self.skipReason { throw XCTSkip(reason) }
    guard let fixture = Self.fixture else {
      XCTFail(Self.failure ?? "no fixture")
      throw XCTSkip("no fixture")
    }
    return fixture
  }

  /// The fixture is what the table assumes: knotd signs (RRSIGs valid now),
  /// the faketime instance's RRSIGs ended in the past, the unsigned child
  /// has none, and the top zone publishes each signed child's DS.
  func testTheZonesAreSignedAndTheOldSignaturesExpired() throws {
    let fixture = try started()
    let now = UInt32(Date().timeIntervalSince1970)
    func signatures(_ name: String, type: UInt16, port: UInt16) -> [PlainRecord] {
      let query = dnsQuery(name, type: type, id: 0x7E57, edns: 1232, dnssecOK: true)
      let reply = StubClient.udpMatchingID(query, port: port, timeout: 2).flatMap(PlainMessage.init)
      return reply?.answer.filter { $0.type == PlainRecord.rrsig } ?? []
    }
    // RFC 4034 §3.1.5: expiration at RDATA octets 8-11, inception 12-15.
    func expiration(_ record: PlainRecord) -> UInt32 {
      record.rdata[8..<12].reduce(0) { $0 << 8 | UInt32($1) }
    }
    let current = signatures("expired.\(TestZones.top)", type: 1, port: fixture.zones.honest.port)
    XCTAssertEqual(current.count, 1, fixture.zones.honest.log)
    XCTAssertGreaterThan(current.first.map(expiration) ?? 0, now + 86_400)
    let old = signatures("expired.\(TestZones.top)", type: 1, port: fixture.zones.expired.port)
    XCTAssertEqual(old.count, 1, fixture.zones.expired.log)
    let oldExpiration = old.first.map(expiration) ?? UInt32.max
    XCTAssertLessThan(oldExpiration, now - 30 * 86_400, "expired more than 30 days ago")
    XCTAssertNotEqual(current.first?.rdata, old.first?.rdata)
    XCTAssertEqual(
      signatures("www.plain.\(TestZones.top)", type: 1, port: fixture.zones.honest.port), [])
    // RFC 5155 §4.2: NSEC3PARAM is algorithm, flags, iterations (2),
    // salt length, salt. The salted zone has 8 octets, the others none.
    for (zone, saltLength) in [("salted", 8), ("nsec3", 0), ("optout", 0)] {
      let query = dnsQuery(
        "\(zone).\(TestZones.top)", type: 51, id: 0x7E58, edns: 1232, dnssecOK: true)
      let reply = StubClient.udpMatchingID(query, port: fixture.zones.honest.port, timeout: 2)
        .flatMap(PlainMessage.init)
      let record = reply?.answer.first(where: { $0.type == 51 })
      let parameters: [UInt8] = record?.rdata ?? []
      XCTAssertEqual(parameters.count, 5 + saltLength, "\(zone)'s NSEC3PARAM")
      XCTAssertEqual(parameters.first, 1, "SHA-1")
      XCTAssertEqual(parameters[safe: 4].map(Int.init), saltLength)
      XCTAssertEqual(parameters[safe: 2], 0, "no extra iterations")
      XCTAssertEqual(parameters[safe: 3], 0, "no extra iterations")
    }
    for label in TestZones.delegated where label != "plain" {
      let ds = signatures("\(label).\(TestZones.top)", type: 43, port: fixture.zones.honest.port)
      XCTAssertEqual(ds.count, 1, "the DS of \(label) signed by the top zone")
    }
  }

  /// Every case answered by unbound as the table says; every tampered
  /// answer really went through its rule.
  func testUnboundGivesTheTablesOutcomes() throws {
    let fixture = try started()
    let started = Date()
    let outcomes = ValidationCases.outcomes(resolverPort: fixture.unbound.port)
    let elapsed = Date().timeIntervalSince(started)
    var table: [String] = []
    for (item, outcome) in zip(ValidationCases.all, outcomes) {
      table.append(
        "\(item.name) | \(item.question) \(item.type) | \(outcome.map { "\($0)" } ?? "no answer")")
      XCTAssertEqual(outcome, item.expected, "\(item)\n\(fixture.unbound.log)")
      XCTAssertTrue(item.accepts(outcome), "\(item)")
      if let rule = item.tampering {
        XCTAssertGreaterThan(
          fixture.relay.hits(rule.suffix), 0, "\(item): the relay altered nothing")
      }
    }
    // What a test of another resolver asserts; here unbound against itself.
    XCTAssertEqual(ValidationCases.disagreements(outcomes), [])
    // unbound's cache answers the expired case with EDE 6, no longer 7:
    // why every resolver is asked once, with a cold cache.
    let expiredIndex = ValidationCases.all.firstIndex { $0.question == "expired.\(TestZones.top)" }!
    let again = ValidationCases.outcomes(
      resolverPort: fixture.unbound.port, cases: [ValidationCases.all[expiredIndex]])
    XCTAssertEqual(again.first??.extendedError, 6, "a cached bogus answer, code 6")
    print(
      "unbound's outcomes (\(String(format: "%.2f", elapsed)) s):\n" + table.joined(separator: "\n")
    )
  }

  /// The relay's rules alter what they select and nothing else: an answer
  /// no rule selects comes back byte for byte.
  func testTheRelayPassesUnselectedAnswersUnchanged() throws {
    let fixture = try started()
    let query = dnsQuery("www.\(TestZones.top)", type: 1, id: 0x4242, edns: 1232, dnssecOK: true)
    let direct = StubClient.udpMatchingID(query, port: fixture.zones.honest.port, timeout: 2)
    XCTAssertNotNil(direct)
    XCTAssertEqual(StubClient.udpMatchingID(query, port: fixture.relay.port, timeout: 2), direct)
    let selected = dnsQuery(
      "addr.\(TestZones.top)", type: 1, id: 0x4243, edns: 1232, dnssecOK: true)
    let altered = StubClient.udpMatchingID(selected, port: fixture.relay.port, timeout: 2)
      .flatMap(PlainMessage.init)
    let addresses = altered?.answer.filter { $0.type == PlainRecord.a }.map(\.rdata)
    XCTAssertEqual(addresses, [TamperingRelay.changedAddress])
    XCTAssertEqual(altered?.answer.filter { $0.type == PlainRecord.rrsig }.count, 1, "RRSIG kept")
    // Over TCP the same: knotd asked over TCP, the same rule applied.
    let directTCP = StubClient.TCPConnection(port: fixture.zones.honest.port)?.ask(query)
    XCTAssertNotNil(directTCP)
    XCTAssertEqual(StubClient.TCPConnection(port: fixture.relay.port)?.ask(query), directTCP)
    let alteredTCP = StubClient.TCPConnection(port: fixture.relay.port)?.ask(selected)
      .flatMap(PlainMessage.init)
    XCTAssertEqual(
      alteredTCP?.answer.filter { $0.type == PlainRecord.a }.map(\.rdata),
      [TamperingRelay.changedAddress])
  }

  /// dnsward with `dnssec on` behind the same relay, its only trust anchor
  /// the fixture's: every case as unbound answers it (or with a code the
  /// case also accepts). Its cache is cold: the first time each is asked.
  func testDnswardAgreesWithUnbound() throws {
    try DNSSECAvailability.requireValidator()
    let dnsward = try validatingDnsward(try started(), log: "debug")
    defer { dnsward.stop() }
    let disagreements = ValidationCases.disagreements(resolverPort: dnsward.port)
    for line in disagreements { print("dnsward disagrees with unbound: \(line)") }
    // knotd (authoritative) answers a CNAME into a delegated child with the
    // CNAME and the referral; dnsward chases the target as unbound does
    // (Sources/Engine/Validation/ValidationChase.swift).
    XCTAssertEqual(disagreements, [], "dnsward's log:\n\(dnsward.log)")
    // Issue 18: every bogus answer is a SERVFAIL, but the log names each
    // zone once (among the last 16): the tampered cases in the top zone
    // are one warning.
    let zones = dnsward.log.split(separator: "\n").compactMap { line -> Substring? in
      guard line.contains("DNSSEC validation failed for "),
        let start = line.range(of: "(zone ")?.upperBound
      else { return nil }
      return line[start...].prefix { $0 != "," }
    }
    XCTAssertEqual(zones.count, Set(zones).count, "each zone once: \(zones)")
    XCTAssertTrue(zones.contains("\(ValidationCases.top)."), "\(zones)")
    let bogus = ValidationCases.all.filter { $0.expected.rcode == 2 }.count
    XCTAssertLessThan(zones.count, bogus, "\(zones)")
  }
}

extension DNSSECReferenceTests {
  /// ProtocolProbes.all, each to unbound and to dnsward behind the same
  /// relay: dnsward's reply is unbound's, or differs only as the probe says.
  func testProtocolProbesAgreeWithUnbound() throws {
    try DNSSECAvailability.requireValidator()
    let fixture = try started()
    let dnsward = try validatingDnsward(fixture)
    defer { dnsward.stop() }
    for probe in ProtocolProbes.all {
      let theirs = StubClient.udp(probe.query, port: fixture.unbound.port).flatMap(ProbeReply.init)
      let ours = StubClient.udp(probe.query, port: dnsward.port).flatMap(ProbeReply.init)
      guard var expected = theirs else {
        XCTFail("\(probe.name): unbound gave no reply that parses")
        continue
      }
      probe.difference?(&expected)
      XCTAssertEqual(
        ours, expected,
        "\(probe.name)\n  dnsward: \(ours.map(String.init(describing:)) ?? "no reply")"
          + "\n  unbound: \(theirs.map(String.init(describing:)) ?? "")"
          + (probe.why.isEmpty ? "" : "\n  (\(probe.why))"))
      print("probe \(probe.name): \(ours.map(String.init(describing:)) ?? "no reply")")
    }
  }
}
