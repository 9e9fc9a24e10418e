import CompiledConfig
import DNSWire
import Engine
import TestSupport
import XCTest

/// Domain routing (`upstream ... for DOMAIN`): which upstreams a name may be
/// asked of, failover inside a route group, reverse zones, the implicit
/// `rebind-allow` of a private upstream, and the defences on routed answers.
final class RoutingTests: XCTestCase {
  /// Upstream 0: the default one; 1 and 2: a VPN's pair for corp.example
  /// (on public test addresses, so rebinding applies to them); 3: the LAN's
  /// dnsmasq for `lan` and a reverse zone; 4: a deeper domain under corp.
  static let routed = """
    listen 127.0.0.1:53
    upstream udp 198.51.100.1
    upstream udp 192.0.2.1 for corp.example
    upstream tcp 192.0.2.2 for corp.example
    upstream udp 127.0.0.1:5353 for lan for 168.192.in-addr.arpa
    upstream udp 203.0.113.9 for lab.corp.example
    timeout 1000ms
    inflight 16
    """

  func upstreamAsked(_ harness: Harness, _ name: String, type: RRType = .a) -> Int? {
    let before = harness.queries.count
    harness.ask(makeQuery(id: UInt16(before + 1), name: name, type: type))
    guard harness.queries.count == before + 1 else { return nil }
    return harness.queries[before].upstream
  }

  func testTheLongestMatchingDomainWinsAndUnroutedNamesGoToTheDefault() {
    let harness = Harness(Self.routed)
    XCTAssertEqual(upstreamAsked(harness, "www.example"), 0)
    XCTAssertEqual(upstreamAsked(harness, "corp.example"), 1, "the domain itself")
    XCTAssertEqual(upstreamAsked(harness, "Mail.CORP.example"), 1, "case is ignored")
    XCTAssertEqual(upstreamAsked(harness, "lab.corp.example"), 4)
    XCTAssertEqual(upstreamAsked(harness, "x.y.lab.corp.example"), 4, "the longest match")
    XCTAssertEqual(upstreamAsked(harness, "notcorp.example"), 0, "at a label boundary only")
    XCTAssertEqual(upstreamAsked(harness, "printer.lan"), 3)
    XCTAssertEqual(upstreamAsked(harness, "lan.example"), 0)
    XCTAssertEqual(upstreamAsked(harness, "example", type: .ns), 0)
  }

  func testTheRouteIsComputedOncePerNameAndExposed() {
    let harness = Harness(Self.routed)
    func route(_ name: String) -> UInt8 {
      wireName(name).withUnsafeBytes { harness.engine.settings.routes.routeGroup($0) }
    }
    XCTAssertEqual(route("www.example"), 0)
    XCTAssertNotEqual(route("a.corp.example"), 0)
    XCTAssertEqual(route("a.corp.example"), route("corp.example"))
    XCTAssertNotEqual(route("a.lab.corp.example"), route("a.corp.example"))
    XCTAssertEqual(route("printer.lan"), route("1.168.192.in-addr.arpa"), "one upstream, one group")
    let unrouted = Harness()
    XCTAssertEqual(
      wireName("corp.example").withUnsafeBytes { unrouted.engine.settings.routes.routeGroup($0) }, 0
    )
  }

  /// A routed private reverse zone goes to its server; an unrouted one is
  /// still served empty here (RFC 6303), and a public one goes to the default.
  func testReverseZonesAreRoutedLikeOtherDomains() throws {
    let harness = Harness(Self.routed)
    XCTAssertEqual(upstreamAsked(harness, "20.1.168.192.in-addr.arpa", type: .ptr), 3)
    XCTAssertEqual(upstreamAsked(harness, "20.1.16.172.in-addr.arpa", type: .ptr), nil)
    XCTAssertEqual(harness.counters[.notForwarded], 1)
    XCTAssertEqual(upstreamAsked(harness, "1.2.0.192.in-addr.arpa", type: .ptr), nil)
    XCTAssertEqual(upstreamAsked(harness, "8.8.8.8.in-addr.arpa", type: .ptr), 0)
  }

  /// `domain lan` keeps unknown LAN names home, unless `for lan` names the
  /// server that knows them (dnsmasq on another port); a routed single
  /// label goes out too.
  func testARouteBeatsTheLocalDomainAndTheSingleLabelRule() {
    let harness = Harness(Self.routed + "\ndomain lan\nupstream udp 192.0.2.7 for printer")
    XCTAssertEqual(upstreamAsked(harness, "phone.lan"), 3)
    XCTAssertEqual(upstreamAsked(harness, "printer"), 5)
    XCTAssertEqual(upstreamAsked(harness, "scanner"), nil, "an unrouted single label")
    XCTAssertEqual(harness.counters[.localNXDomain], 0)
    XCTAssertEqual(harness.counters[.notForwarded], 1)
    let unrouted = Harness(
      "listen 127.0.0.1:53\nupstream udp 198.51.100.1\ndomain lan\ntimeout 1000ms")
    XCTAssertEqual(upstreamAsked(unrouted, "phone.lan"), nil)
    XCTAssertEqual(unrouted.counters[.localNXDomain], 1)
  }

  /// A routed name fails over inside its group only, then SERVFAIL: it never
  /// reaches the default upstream, however dead its own are.
  func testFailoverStaysInsideTheGroup() throws {
    let harness = Harness(Self.routed)
    harness.ask(makeQuery(id: 7, name: "intranet.corp.example"))
    XCTAssertEqual(harness.queries.map(\.upstream), [1])
    harness.advance(by: 1000)
    XCTAssertEqual(harness.queries.map(\.upstream), [1, 2], "the group's second upstream")
    XCTAssertEqual(harness.queries[1].transport, .tcp)
    let replies = harness.advance(by: 1000)
    XCTAssertEqual(harness.queries.count, 2, "no upstream outside the group is asked")
    XCTAssertEqual(
      try decoded(try XCTUnwrap(replies.first).bytes).rcode, ResponseCode.serverFailure.rawValue)
  }

  /// The unrouted names' upstream being dead does not send them to a
  /// routed upstream: names no `for` matches go only to upstreams without one.
  func testUnroutedNamesNeverReachRoutedUpstreams() throws {
    let harness = Harness(Self.routed)
    harness.ask(makeQuery(id: 8, name: "www.example"))
    let replies = harness.advance(by: 1000)
    XCTAssertEqual(harness.queries.map(\.upstream), [0])
    XCTAssertEqual(
      try decoded(try XCTUnwrap(replies.first).bytes).rcode, ResponseCode.serverFailure.rawValue)
  }

  func testTwoUpstreamsNamingTheSameDomainShareIt() {
    let harness = Harness(
      """
      listen 127.0.0.1:53
      upstream udp 198.51.100.1
      upstream udp 192.0.2.1 for corp.example for vpn.example
      upstream udp 192.0.2.2 for corp.example
      timeout 1000ms
      """)
    XCTAssertEqual(upstreamAsked(harness, "a.corp.example"), 1)
    harness.advance(by: 1000)
    XCTAssertEqual(harness.queries.last?.upstream, 2, "corp.example: both")
    XCTAssertEqual(upstreamAsked(harness, "a.vpn.example"), 1)
    harness.advance(by: 1000)
    XCTAssertEqual(harness.queries.count, 3, "vpn.example: the first only")
  }

  /// `lan` to dnsmasq on loopback: private by nature, so its private
  /// answers pass rebind protection; the same answer from a routed upstream
  /// on a public address, or for an unrouted name, is refused.
  func testARoutedNameOfAPrivateUpstreamIsImplicitlyRebindAllowed() throws {
    let harness = Harness(Self.routed) { $0.rebindProtection = true }
    let lanAddress: [UInt8] = [192, 168, 1, 20]
    harness.ask(makeQuery(id: 1, name: "printer.lan"))
    var replies = harness.answer(
      makeReply(to: harness.queries[0].bytes, addresses: [lanAddress]), to: harness.queries[0])
    XCTAssertEqual(try decoded(try XCTUnwrap(replies.first).bytes).ipv4Answers, [lanAddress])
    XCTAssertEqual(harness.counters[.rebindBlocked], 0)

    harness.ask(makeQuery(id: 2, name: "a.lab.corp.example"))
    replies = harness.answer(
      makeReply(to: harness.queries[1].bytes, addresses: [lanAddress]), to: harness.queries[1])
    XCTAssertEqual(harness.counters[.rebindBlocked], 1, "a public upstream's routed names are not")
    XCTAssertEqual(
      try decoded(try XCTUnwrap(replies.first).bytes).rcode, ResponseCode.serverFailure.rawValue,
      "its group has no other upstream")

    harness.ask(makeQuery(id: 3, name: "www.example"))
    harness.answer(
      makeReply(to: harness.queries[2].bytes, addresses: [lanAddress]), to: harness.queries[2])
    XCTAssertEqual(harness.counters[.rebindBlocked], 2)
  }

  func testBogusAndHoldOnWorkOnRoutedAnswers() throws {
    let forged: [UInt8] = [198, 51, 100, 66]
    let harness = Harness(Self.routed) {
      $0.bogusPrefixes = [AddressPrefix(address: IPAddress(ipv4: 0xC633_6442), length: 128)]
      $0.holdOnMilliseconds = 50
    }
    harness.ask(makeQuery(id: 1, name: "a.lab.corp.example"))
    let query = harness.queries[0]
    XCTAssertEqual(query.upstream, 4)
    XCTAssertTrue(
      harness.answer(makeReply(to: query.bytes, addresses: [forged]), to: query).isEmpty)
    XCTAssertEqual(harness.counters[.bogusDropped], 1)
    // An injected answer without EDNS, then the real one: hold-on keeps the real.
    harness.answer(
      makeReply(to: query.bytes, addresses: [[203, 0, 113, 66]], withOPT: false), to: query)
    harness.advance(by: 10)
    let replies = harness.answer(makeReply(to: query.bytes), to: query) + harness.advance(by: 100)
    XCTAssertEqual(try decoded(try XCTUnwrap(replies.first).bytes).ipv4Answers, [exampleAddress])
    XCTAssertEqual(harness.counters[.holdOnReplaced], 1)
  }

  /// `verify` on a routed name: the trusted upstream of its group first,
  /// then the group's plain one is checked; with `strict`, a group without
  /// a trusted upstream answers nothing rather than ask outside the group.
  func testVerifyAndStrictStayInsideTheGroup() throws {
    let config = """
      listen 127.0.0.1:53
      upstream tcp 198.51.100.1 trusted
      upstream udp 198.51.100.2
      upstream udp 192.0.2.1 for bank.example
      upstream tcp 192.0.2.2 trusted for bank.example
      upstream udp 192.0.2.3 for shop.example
      timeout 1000ms
      inflight 16
      """
    let harness = Harness(config) {
      $0.verifyNames = wireName("bank.example") + wireName("shop.example")
    }
    harness.ask(makeQuery(id: 1, name: "www.bank.example"))
    XCTAssertEqual(harness.queries.map(\.upstream), [3], "the group's trusted upstream")
    harness.answer(makeReply(to: harness.queries[0].bytes), to: harness.queries[0])
    XCTAssertEqual(harness.queries.map(\.upstream), [3, 2], "checked on the group's plain one")

    let strict = Harness(config) {
      $0.verifyNames = wireName("shop.example")
      $0.strict = true
    }
    let replies = strict.ask(makeQuery(id: 2, name: "www.shop.example"))
    XCTAssertTrue(strict.queries.isEmpty, "no trusted upstream serves shop.example")
    XCTAssertEqual(
      try decoded(try XCTUnwrap(replies.first).bytes).rcode, ResponseCode.serverFailure.rawValue)
  }
}
