import CompiledConfig
import DNSWire
import Engine
import XCTest

/// `override-check`: the transport's probe verdicts applied to override
/// answers (Engine/LocalAuthority/OverrideHealth.swift), with the fake clock.
final class OverrideHealthTests: XCTestCase {
  static let config = """
    listen 127.0.0.1:53
    upstream udp 127.0.0.1:5300
    timeout 1000ms
    inflight 16
    override svc.lan 192.0.2.10 192.0.2.11 2001:db8::10
    override solo.lan 192.0.2.20
    override *.wild.lan 192.0.2.10
    block ads.example
    """

  static let svc10 = ipv4(192, 0, 2, 10)
  static let svc11 = ipv4(192, 0, 2, 11)
  static let svc6 = IPAddress(high: 0x2001_0db8_0000_0000, low: 0x10)
  static let solo = ipv4(192, 0, 2, 20)

  /// The settings with `override-check tcp:443` set on the parsed value
  /// (the directive is parsed elsewhere).
  func makeHarness() -> Harness {
    Harness(Self.config) { $0.overrideCheckPort = 443 }
  }

  func ask(
    _ harness: Harness, _ name: String, type: RRType = .a, id: UInt16 = 0x0600
  ) throws -> Decoded? {
    let replies = harness.ask(makeQuery(id: id, name: name, type: type))
    guard let first = replies.first else { return nil }
    return try decoded(first.bytes)
  }

  func testDownAddressIsLeftOutOfOverrideAnswers() throws {
    let harness = makeHarness()
    XCTAssertEqual(
      harness.engine.local.overrideHealth.setAddress(Self.svc10, reachable: false), .markedDown)
    XCTAssertEqual(
      harness.engine.local.overrideHealth.setAddress(Self.svc10, reachable: false), .unchanged)
    XCTAssertEqual(harness.counters[.overrideAddressesDown], 1)
    XCTAssertTrue(harness.engine.local.overrideHealth.isDown(Self.svc10))

    let a = try XCTUnwrap(try ask(harness, "svc.lan"))
    XCTAssertTrue(a.has(HeaderFlags.authoritative))
    XCTAssertEqual(a.answerCount, 1)
    XCTAssertEqual(a.ipv4Answers, [[192, 0, 2, 11]])
    let any = try XCTUnwrap(try ask(harness, "svc.lan", type: .any))
    XCTAssertEqual(any.ipv4Answers, [[192, 0, 2, 11]])
    XCTAssertEqual(any.ipv6Answers.count, 1)
    XCTAssertEqual(any.answerCount, 2)
    XCTAssertTrue(harness.queries.isEmpty, "a name with an address up is still answered locally")
    XCTAssertEqual(harness.counters[.overridden], 2)
    XCTAssertEqual(harness.engine.local.overrideHealth.fallbacks, 0)
  }

  func testFamilyAllDownIsForwardedAndRecoveryAnswersLocallyAgain() throws {
    let harness = makeHarness()
    harness.engine.local.overrideHealth.setAddress(Self.svc10, reachable: false)
    harness.engine.local.overrideHealth.setAddress(Self.svc11, reachable: false)
    XCTAssertEqual(harness.counters[.overrideAddressesDown], 2)

    // A: every IPv4 address is down, so the name is resolved normally.
    XCTAssertNil(try ask(harness, "svc.lan", id: 1), "no local answer")
    XCTAssertEqual(harness.queries.count, 1)
    let relayed = harness.answer(
      makeReply(to: harness.queries[0].bytes, addresses: [[198, 51, 100, 5]]),
      to: harness.queries[0])
    let upstreamAnswer = try decoded(try XCTUnwrap(relayed.first).bytes)
    XCTAssertEqual(upstreamAnswer.id, 1)
    XCTAssertFalse(upstreamAnswer.has(HeaderFlags.authoritative))
    XCTAssertEqual(upstreamAnswer.ipv4Answers, [[198, 51, 100, 5]])
    XCTAssertEqual(harness.engine.local.overrideHealth.fallbacks, 1)

    // AAAA and other types: the IPv6 address is up, the override holds.
    let aaaa = try XCTUnwrap(try ask(harness, "svc.lan", type: .aaaa))
    XCTAssertEqual(aaaa.ipv6Answers.count, 1)
    let mx = try XCTUnwrap(try ask(harness, "svc.lan", type: .mx))
    XCTAssertTrue(mx.has(HeaderFlags.authoritative))
    XCTAssertEqual(mx.answerCount, 0)
    let any = try XCTUnwrap(try ask(harness, "svc.lan", type: .any))
    XCTAssertEqual(any.ipv4Answers, [])
    XCTAssertEqual(any.ipv6Answers.count, 1)
    XCTAssertEqual(harness.queries.count, 1)

    // One address recovers: answered locally again, though the cache now
    // holds the upstream's answer.
    XCTAssertEqual(
      harness.engine.local.overrideHealth.setAddress(Self.svc10, reachable: true), .recovered)
    XCTAssertEqual(
      harness.engine.local.overrideHealth.setAddress(Self.svc10, reachable: true), .unchanged)
    XCTAssertEqual(harness.counters[.overrideAddressesDown], 1)
    let back = try XCTUnwrap(try ask(harness, "svc.lan", id: 2))
    XCTAssertTrue(back.has(HeaderFlags.authoritative))
    XCTAssertEqual(back.ipv4Answers, [[192, 0, 2, 10]])
    harness.engine.local.overrideHealth.setAddress(Self.svc11, reachable: true)
    XCTAssertEqual(harness.counters[.overrideAddressesDown], 0)
    let all = try XCTUnwrap(try ask(harness, "svc.lan", id: 3))
    XCTAssertEqual(all.ipv4Answers, [[192, 0, 2, 10], [192, 0, 2, 11]])
    XCTAssertEqual(harness.queries.count, 1)
    XCTAssertEqual(harness.engine.local.overrideHealth.fallbacks, 1)
  }

  func testNameWithEveryAddressDownFallsBackForEveryType() throws {
    let harness = makeHarness()
    harness.engine.local.overrideHealth.setAddress(Self.solo, reachable: false)
    for (index, type) in [RRType.a, .aaaa, .mx].enumerated() {
      XCTAssertNil(try ask(harness, "solo.lan", type: type, id: UInt16(index)), "\(type)")
    }
    XCTAssertEqual(harness.queries.count, 3)
    // ANY over UDP is resolved as any name's would be: the RFC 8482 answer.
    let any = try XCTUnwrap(try ask(harness, "solo.lan", type: .any, id: 3))
    XCTAssertEqual(any.records.map(\.type), [RRType(rawValue: 13)])  // HINFO
    XCTAssertEqual(harness.counters[.anyRefused], 1)
    XCTAssertEqual(harness.counters[.overridden], 0)
    XCTAssertEqual(harness.engine.local.overrideHealth.fallbacks, 4)
    // The wildcard's only address is 192.0.2.10, still up.
    let wild = try XCTUnwrap(try ask(harness, "host.wild.lan"))
    XCTAssertEqual(wild.ipv4Answers, [[192, 0, 2, 10]])
    // ... until it is down too; the two names share it.
    harness.engine.local.overrideHealth.setAddress(Self.svc10, reachable: false)
    XCTAssertNil(try ask(harness, "host.wild.lan", id: 9))
    XCTAssertEqual(try ask(harness, "svc.lan")?.ipv4Answers, [[192, 0, 2, 11]])
  }

  func testBlocksAndUncheckedNamesAreNotAffected() throws {
    let harness = makeHarness()
    harness.engine.local.overrideHealth.setAddress(Self.solo, reachable: false)
    harness.engine.local.overrideHealth.setAddress(Self.svc10, reachable: false)
    harness.engine.local.overrideHealth.setAddress(Self.svc11, reachable: false)
    harness.engine.local.overrideHealth.setAddress(Self.svc6, reachable: false)
    let blocked = try XCTUnwrap(try ask(harness, "ads.example"))
    XCTAssertEqual(blocked.rcode, ResponseCode.nameError.rawValue)
    XCTAssertEqual(harness.counters[.blocked], 1)
    XCTAssertTrue(harness.queries.isEmpty)
  }

  func testFullTableLeavesFurtherAddressesAnswered() throws {
    let harness = makeHarness()
    for index in 0..<OverrideHealth.capacity {
      XCTAssertEqual(
        harness.engine.local.overrideHealth.setAddress(
          ipv4(10, 99, UInt8(index >> 8), UInt8(index & 0xFF)), reachable: false),
        .markedDown)
    }
    XCTAssertEqual(
      harness.engine.local.overrideHealth.setAddress(Self.solo, reachable: false), .tableFull)
    XCTAssertEqual(harness.engine.local.overrideHealth.rejected, 1)
    XCTAssertEqual(
      harness.counters[.overrideAddressesDown], UInt64(OverrideHealth.capacity))
    XCTAssertEqual(try ask(harness, "solo.lan")?.ipv4Answers, [[192, 0, 2, 20]])
    // A recovery frees a place.
    harness.engine.local.overrideHealth.setAddress(ipv4(10, 99, 0, 7), reachable: true)
    XCTAssertEqual(
      harness.engine.local.overrideHealth.setAddress(Self.solo, reachable: false), .markedDown)
    XCTAssertNil(try ask(harness, "solo.lan", id: 2))
    XCTAssertEqual(
      harness.counters[.overrideAddressesDown], UInt64(OverrideHealth.capacity))
  }
}
