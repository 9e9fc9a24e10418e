import Foundation
// `dnssec auto` with the real binary behind a relay that strips RRSIGs, as
// an ISP resolver or a CPE relay does (Sources/Engine/Validation/
// UpstreamProbes.swift): the signed-zone fixture of DNSSECReferenceTests.
import TestSupport
import XCTest

extension DNSSECReferenceTests {
  /// A relay's rules that strip every RRSIG from the top zone's DNSKEY and
  /// A answers (the probe's question and the names asked).
  static let strippingRules = [
    TamperRule(suffix: TestZones.top, type: 48, tampering: .stripSignatures),
    TamperRule(suffix: TestZones.top, type: 1, tampering: .stripSignatures),
  ]

  func dnsward(_ mode: String, behind relay: TamperingRelay, _ fixture: Fixture) throws
    -> DnswardProcess
  {
    try DnswardProcess(
      config: """
        listen 127.0.0.1:0
        upstream udp 127.0.0.1:\(relay.port)
        timeout 1000ms
        dnssec \(mode)
        dnssec-root off
        trust-anchor \(fixture.zones.trustAnchor)
        log info
        """)
  }

  /// `name` A with DO=1 from `port`: its reply.
  func askSigned(_ name: String, port: UInt16, id: UInt16) throws -> PlainMessage {
    try XCTUnwrap(
      StubClient.udp(dnsQuery(name, id: id, edns: 1232, dnssecOK: true), port: port)
        .flatMap(PlainMessage.init), "\(name): no reply")
  }

  /// Whether `process`'s log says, within 10 s, that the upstream
  /// `strips RRSIGs`.
  func logsStripping(_ process: DnswardProcess) -> Bool {
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline {
      if process.log.contains("strips RRSIGs: its answers are used without validation") {
        return true
      }
      Thread.sleep(forTimeInterval: 0.05)
    }
    return false
  }

  /// Behind an upstream that strips RRSIGs, `auto` keeps answering (AD=0)
  /// and says so once in its log, where `on` answers SERVFAIL.
  func testAutoAnswersBehindAStrippingUpstreamWhereOnIsSERVFAIL() throws {
    try DNSSECAvailability.requireValidator()
    let fixture = try started()
    let relay = try TamperingRelay(
      upstream: fixture.zones.honest.port, expiredUpstream: fixture.zones.expired.port,
      rules: Self.strippingRules)
    defer { relay.stop() }
    let auto = try dnsward("auto", behind: relay, fixture)
    defer { auto.stop() }
    XCTAssertTrue(logsStripping(auto), auto.log)
    let reply = try askSigned("www.\(TestZones.top)", port: auto.port, id: 1)
    XCTAssertEqual(reply.rcode, 0, auto.log)
    XCTAssertEqual(reply.flags & ProbeReply.authenticData, 0, "relayed unvalidated: no AD")
    XCTAssertEqual(reply.answer.filter { $0.type == 1 }.map(\.rdata), [[192, 0, 2, 1]])
    let warnings = auto.log.components(separatedBy: "dnssec auto: upstream").count - 1
    XCTAssertEqual(warnings, 1, "one warning: \(auto.log)")

    let on = try dnsward("on", behind: relay, fixture)
    defer { on.stop() }
    XCTAssertEqual(try askSigned("www.\(TestZones.top)", port: on.port, id: 2).rcode, 2)
  }

  /// An upstream that passed its probe and then strips: SERVFAIL (no
  /// downgrade per answer) until its probe, brought forward by that bogus
  /// answer, finds it stripping; then its answers are relayed unvalidated.
  func testUnderAutoAnUpstreamThatPassesThenStripsIsSERVFAILUntilItsProbe() throws {
    try DNSSECAvailability.requireValidator()
    let fixture = try started()
    let relay = try TamperingRelay(
      upstream: fixture.zones.honest.port, expiredUpstream: fixture.zones.expired.port, rules: [])
    defer { relay.stop() }
    let auto = try dnsward("auto", behind: relay, fixture)
    defer { auto.stop() }
    let validated = try askSigned("addr.\(TestZones.top)", port: auto.port, id: 1)
    XCTAssertEqual(validated.rcode, 0)
    XCTAssertNotEqual(validated.flags & ProbeReply.authenticData, 0, "validated: AD")

    relay.rules = Self.strippingRules
    let stripped = try askSigned("www.\(TestZones.top)", port: auto.port, id: 2)
    XCTAssertEqual(stripped.rcode, 2, "passed, then stripped: SERVFAIL")
    XCTAssertTrue(logsStripping(auto), auto.log)
    let later = try askSigned("www.\(TestZones.top)", port: auto.port, id: 3)
    XCTAssertEqual(later.rcode, 0, "after the probe: relayed unvalidated")
    XCTAssertEqual(later.flags & ProbeReply.authenticData, 0)
  }
}
