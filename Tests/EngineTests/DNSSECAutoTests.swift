import CompiledConfig
import DNSWire
import Engine
import TestSupport
import XCTest

/// `dnssec auto` (Sources/Engine/Validation/UpstreamProbes.swift): each
/// upstream is asked the anchor zone's DNSKEY RRset (here `example.`, the
/// fixtures' anchor); one whose answer fails is relayed unvalidated, the
/// others are validated as with `dnssec on`. The fake upstreams answer from
/// the Knot-signed fixtures, some with every RRSIG stripped.
final class DNSSECAutoTests: XCTestCase {
  static func config(_ mode: String, upstreams: Int = 1) -> String {
    let anchor = ValidatorFixtures.anchorDS
    var lines = [
      "cache 256", "cache-bytes 256k", "dnssec \(mode)", "dnssec-root off",
      "trust-anchor example. DS \(anchor.keyTag) \(anchor.algorithm) \(anchor.digestType) "
        + anchor.digest,
    ]
    if upstreams > 1 { lines.insert("upstream udp 127.0.0.2:5300", at: 0) }
    return
      (["listen 127.0.0.1:53", "upstream udp 127.0.0.1:5300", "timeout 1000ms", "inflight 16"]
      + lines).joined(separator: "\n")
  }

  func makeHarness(_ mode: String = "auto", upstreams: Int = 1) -> Harness {
    let harness = Harness(Self.config(mode, upstreams: upstreams))
    harness.environment.wallClockSeconds = Int64(ValidatorFixtures.capturedAt)
    return harness
  }

  /// Answers every upstream query from `start` on that has a fixture, and
  /// those the answers cause; every RRSIG stripped in the answers of the
  /// upstreams in `stripping`.
  @discardableResult
  func serve(_ harness: Harness, from start: Int, stripping: Set<Int> = []) -> [SentReply] {
    ValidationFixtureTests.serve(
      harness, answers: [:], from: start, stripping: stripping, tamper: { _, _ in })
  }

  /// The DNSKEY questions for `example.` asked from `start` on, by upstream.
  func probes(_ harness: Harness, from start: Int = 0) -> [Int] {
    harness.queries[start...].compactMap { query in
      guard let decoded = decode(query.bytes), decoded.questionType == .dnskey,
        decoded.questionText.lowercased() == "example"
      else { return nil }
      return query.upstream
    }
  }

  /// The first tick probes; the probes are answered (stripped for
  /// `stripping`).
  func probe(_ harness: Harness, stripping: Set<Int> = []) {
    let start = harness.queries.count
    harness.advance(by: 1)
    serve(harness, from: start, stripping: stripping)
  }

  func standingChanges(_ harness: Harness) -> [Reported] {
    harness.environment.events.filter {
      if case .dnssecStandingChanged = $0.event { return true }
      return false
    }
  }

  /// Asks www.example A with DO=1 and serves it; its one reply.
  func askSigned(_ harness: Harness, id: UInt16, stripping: Set<Int> = []) throws -> Decoded {
    var edns = EDNS()
    edns.dnssecOK = true
    let start = harness.queries.count
    harness.ask(makeQuery(id: id, name: "www.example", edns: edns))
    return try onlyReply(serve(harness, from: start, stripping: stripping))
  }

  // MARK: The probe

  func testTheFirstTickProbesEachUpstreamWithDOAndWithoutCD() throws {
    let harness = makeHarness(upstreams: 2)
    XCTAssertEqual(harness.engine.nextDeadline, 0, "the first tick is due at once")
    harness.advance(by: 1)
    XCTAssertEqual(probes(harness), [0, 1])
    for query in harness.queries {
      let sent = try XCTUnwrap(decode(query.bytes))
      XCTAssertEqual(sent.opt?.dnssecOK, true)
      XCTAssertFalse(sent.has(HeaderFlags.checkingDisabled), "CD=0: the upstream validates")
    }
    serve(harness, from: 0)
    for upstream in 0..<2 {
      XCTAssertEqual(harness.engine.selection.statistics(upstream).dnssec, .validating)
    }
    XCTAssertTrue(standingChanges(harness).isEmpty, "passing the first probe is not news")
    XCTAssertEqual(harness.engine.activeTransactions, 0)
    // Asked again ten minutes later, not before.
    let asked = harness.queries.count
    harness.advance(by: 599_000)
    XCTAssertEqual(probes(harness, from: asked), [])
    harness.advance(by: 1_000)
    XCTAssertEqual(probes(harness, from: asked), [0, 1])
  }

  func testDNSSECOnSendsNoProbe() {
    let harness = makeHarness("on")
    harness.advance(by: 1)
    XCTAssertTrue(harness.queries.isEmpty)
    XCTAssertNil(harness.engine.nextDeadline)
  }

  // MARK: (a) a stripping upstream is relayed unvalidated

  func testAnUpstreamThatStripsRRSIGsIsRelayedWithoutValidation() throws {
    let harness = makeHarness()
    probe(harness, stripping: [0])
    XCTAssertEqual(harness.engine.selection.statistics(0).dnssec, .stripsSignatures)
    XCTAssertEqual("\(harness.engine.selection.statistics(0).dnssec.word)", "strips-rrsigs")
    XCTAssertEqual(
      standingChanges(harness),
      [Reported(event: .dnssecStandingChanged(.stripsSignatures), upstream: 0)])

    let reply = try askSigned(harness, id: 1, stripping: [0])
    XCTAssertEqual(reply.rcode, ResponseCode.noError.rawValue, "not SERVFAIL")
    XCTAssertFalse(reply.has(HeaderFlags.authenticData))
    XCTAssertFalse(reply.ipv4Answers.isEmpty)
    XCTAssertEqual(harness.counters[.dnssecUnvalidated], 1)
    XCTAssertEqual(harness.counters[.dnssecBogus], 0)
    XCTAssertEqual(harness.counters[.dnssecFetches], 0, "no chain fetched for it")
    // Cached as insecure: answered from the cache, still without AD.
    let asked = harness.queries.count
    var edns = EDNS()
    edns.dnssecOK = true
    let cached = try onlyReply(harness.ask(makeQuery(id: 2, name: "www.example", edns: edns)))
    XCTAssertEqual(cached.rcode, ResponseCode.noError.rawValue)
    XCTAssertFalse(cached.has(HeaderFlags.authenticData))
    XCTAssertEqual(harness.queries.count, asked, "a hit")
    XCTAssertEqual(standingChanges(harness).count, 1, "reported once")
  }

  /// A failing upstream's DNSKEY answer is relayed but not cached: the
  /// validator must never read an unproven chain link.
  func testAFailingUpstreamsDNSKEYAnswerIsNotCached() throws {
    let harness = makeHarness()
    probe(harness, stripping: [0])
    let start = harness.queries.count
    harness.ask(makeQuery(id: 1, name: "example", type: .dnskey))
    XCTAssertEqual(try onlyReply(serve(harness, from: start, stripping: [0])).rcode, 0)
    let asked = harness.queries.count
    harness.ask(makeQuery(id: 2, name: "example", type: .dnskey))
    XCTAssertEqual(harness.queries.count, asked + 1, "asked again")
  }

  // MARK: (b) `dnssec on` is strict

  func testWithDNSSECOnAStrippingUpstreamIsSERVFAIL() throws {
    let harness = makeHarness("on")
    harness.advance(by: 1)
    let reply = try askSigned(harness, id: 1, stripping: [0])
    XCTAssertEqual(reply.rcode, ResponseCode.serverFailure.rawValue)
    XCTAssertEqual(harness.counters[.dnssecUnvalidated], 0)
    XCTAssertGreaterThanOrEqual(harness.counters[.dnssecBogus], 1)
  }

  // MARK: (c) no downgrade per answer

  func testAnUpstreamThatPassedTheProbeAndThenStripsIsSERVFAIL() throws {
    let harness = makeHarness()
    probe(harness)
    XCTAssertEqual(harness.engine.selection.statistics(0).dnssec, .validating)
    let reply = try askSigned(harness, id: 1, stripping: [0])
    XCTAssertEqual(reply.rcode, ResponseCode.serverFailure.rawValue)
    XCTAssertEqual(harness.counters[.dnssecUnvalidated], 0)
    XCTAssertGreaterThanOrEqual(harness.counters[.dnssecBogus], 1)
  }

  func testBeforeAnyProbeAnswerTheUpstreamIsValidated() throws {
    let harness = makeHarness()
    harness.advance(by: 1)  // the probe is sent, not answered
    let reply = try askSigned(harness, id: 1, stripping: [0])
    XCTAssertEqual(reply.rcode, ResponseCode.serverFailure.rawValue)
    XCTAssertEqual(harness.engine.selection.statistics(0).dnssec, .unknown)
  }

  /// What was found bogus while the upstream was still validated (before
  /// its first probe answer) is not kept once the probe says it fails:
  /// the same question is then asked again and relayed unvalidated, not
  /// answered SERVFAIL from the cache for a minute.
  func testAnswersFoundBogusBeforeTheProbeFailedAreNotKept() throws {
    let harness = makeHarness()
    harness.advance(by: 1)  // the probe is sent, not answered
    XCTAssertEqual(
      try askSigned(harness, id: 1, stripping: [0]).rcode, ResponseCode.serverFailure.rawValue)
    serve(harness, from: 0, stripping: [0])
    XCTAssertEqual(harness.engine.selection.statistics(0).dnssec, .stripsSignatures)
    let reply = try askSigned(harness, id: 2, stripping: [0])
    XCTAssertEqual(reply.rcode, ResponseCode.noError.rawValue)
    XCTAssertFalse(reply.has(HeaderFlags.authenticData))
    XCTAssertEqual(harness.counters[.dnssecUnvalidated], 1)
  }

  /// Without a bogus answer cached, an upstream turning failing empties
  /// nothing: what was validated (or loaded from the cache file) stays.
  func testAnUpstreamTurningFailingKeepsTheCacheWithoutBogusAnswers() throws {
    let harness = makeHarness()
    harness.advance(by: 1)  // the probe is sent, not answered
    let secure = try askSigned(harness, id: 1)
    XCTAssertEqual(secure.rcode, ResponseCode.noError.rawValue)
    XCTAssertTrue(secure.has(HeaderFlags.authenticData))
    serve(harness, from: 0, stripping: [0])
    XCTAssertEqual(harness.engine.selection.statistics(0).dnssec, .stripsSignatures)
    let asked = harness.queries.count
    var edns = EDNS()
    edns.dnssecOK = true
    let cached = try onlyReply(harness.ask(makeQuery(id: 2, name: "www.example", edns: edns)))
    XCTAssertEqual(cached.rcode, ResponseCode.noError.rawValue)
    XCTAssertEqual(harness.queries.count, asked, "answered from the cache")
  }

  /// An upstream that passed and then gives a bogus answer is probed again
  /// five seconds later, not at the next ten-minute round: a CPE or path
  /// that began to strip is noticed in seconds. The answer itself stays
  /// SERVFAIL, and more bogus answers do not bring the probe closer.
  func testABogusAnswerBringsItsUpstreamsProbeForward() throws {
    let harness = makeHarness()
    probe(harness)
    XCTAssertEqual(harness.engine.selection.statistics(0).dnssec, .validating)
    let asked = harness.queries.count
    XCTAssertEqual(
      try askSigned(harness, id: 1, stripping: [0]).rcode, ResponseCode.serverFailure.rawValue)
    harness.advance(by: 4_000)
    XCTAssertEqual(probes(harness, from: asked), [])
    harness.advance(by: 1_000)
    XCTAssertEqual(probes(harness, from: asked), [0])
    serve(harness, from: asked, stripping: [0])
    XCTAssertEqual(harness.engine.selection.statistics(0).dnssec, .stripsSignatures)
    XCTAssertEqual(
      try askSigned(harness, id: 2, stripping: [0]).rcode, ResponseCode.noError.rawValue)
  }

  // MARK: (d) selection prefers validating upstreams

  func testQuestionsGoToTheValidatingUpstream() throws {
    let harness = makeHarness(upstreams: 2)
    probe(harness, stripping: [0])
    XCTAssertEqual(harness.engine.selection.statistics(0).dnssec, .stripsSignatures)
    XCTAssertEqual(harness.engine.selection.statistics(1).dnssec, .validating)
    let start = harness.queries.count
    let reply = try askSigned(harness, id: 1, stripping: [0])
    XCTAssertTrue(reply.has(HeaderFlags.authenticData))
    XCTAssertEqual(harness.queries[start].upstream, 1, "the validating one first")
    XCTAssertEqual(Set(harness.queries[start...].map(\.upstream)), [1], "chain fetches too")
    XCTAssertEqual(harness.counters[.dnssecUnvalidated], 0)
  }

  func testAFailingUpstreamIsUsedWhenNoValidatingOneIsUp() throws {
    let harness = makeHarness(upstreams: 2)
    probe(harness, stripping: [0])
    // Upstream 1 goes silent: three timeouts mark it down.
    for id in 1...3 {
      let start = harness.queries.count
      harness.ask(makeQuery(id: UInt16(id), name: "q\(id).filler"))
      XCTAssertEqual(harness.queries[start].upstream, 1)
      harness.advance(by: 1_000)
      // The failing-over attempt to upstream 0 is answered.
      let retry = try XCTUnwrap(harness.queries.last)
      XCTAssertEqual(retry.upstream, 0)
      harness.answer(makeReply(to: retry.bytes), to: retry)
    }
    XCTAssertTrue(harness.engine.selection.isDown(1, now: harness.now))
    XCTAssertEqual(harness.counters[.dnssecUnvalidated], 3, "the fillers' answers")
    let start = harness.queries.count
    let reply = try askSigned(harness, id: 9, stripping: [0])
    XCTAssertEqual(harness.queries[start].upstream, 0)
    XCTAssertEqual(reply.rcode, ResponseCode.noError.rawValue)
    XCTAssertEqual(harness.counters[.dnssecUnvalidated], 4)
  }

  // MARK: (e) timeouts

  func testATimedOutProbeLeavesTheUpstreamUnknownAndIsRetried() {
    let harness = makeHarness()
    harness.advance(by: 1)
    XCTAssertEqual(probes(harness), [0])
    harness.advance(by: 1_000)  // its deadline
    XCTAssertEqual(harness.engine.selection.statistics(0).dnssec, .unknown)
    harness.advance(by: 5_000)
    XCTAssertEqual(probes(harness), [0, 0], "retried a few seconds after")
    harness.advance(by: 6_000)
    XCTAssertEqual(probes(harness), [0, 0, 0])
    XCTAssertEqual(harness.engine.selection.statistics(0).dnssec, .unknown, "two misses")
    XCTAssertTrue(standingChanges(harness).isEmpty)
    harness.advance(by: 6_000)
    XCTAssertEqual(harness.engine.selection.statistics(0).dnssec, .noAnswer, "the third")
    XCTAssertEqual(
      standingChanges(harness), [Reported(event: .dnssecStandingChanged(.noAnswer), upstream: 0)])
    // Still probed: an answer that passes brings it back, reported.
    serve(harness, from: harness.queries.count - 1)
    XCTAssertEqual(harness.engine.selection.statistics(0).dnssec, .validating)
    XCTAssertEqual(
      standingChanges(harness).last,
      Reported(event: .dnssecStandingChanged(.validating), upstream: 0))
  }

  // MARK: (f) a new upstream list is probed

  func testAReplacedUpstreamListIsProbed() throws {
    let harness = makeHarness()
    probe(harness)
    let settings = makeSettings(
      Self.config("auto", upstreams: 2).replacingOccurrences(
        of: "127.0.0.1:5300", with: "127.0.0.9:5300"))
    harness.engine.withdrawQueriesInFlight(
      replacingUpstreamsWith: settings.upstreams, now: harness.now,
      environment: &harness.environment)
    harness.engine.reconfigure(settings: settings)
    harness.engine.resendQueriesInFlight(now: harness.now, environment: &harness.environment)
    XCTAssertEqual(harness.engine.selection.statistics(0).dnssec, .unknown)
    let start = harness.queries.count
    harness.advance(by: 1)
    XCTAssertEqual(probes(harness, from: start), [0, 1])
    serve(harness, from: start, stripping: [1])
    XCTAssertEqual(harness.engine.selection.statistics(0).dnssec, .validating)
    XCTAssertEqual(harness.engine.selection.statistics(1).dnssec, .stripsSignatures)
  }

  func testANetworkChangeProbesAgain() {
    let harness = makeHarness()
    probe(harness)
    let start = harness.queries.count
    harness.engine.networkChanged(now: harness.now, environment: &harness.environment)
    harness.advance(by: 1)
    XCTAssertEqual(probes(harness, from: start), [0])
    // A new ISP that strips: noticed, reported.
    serve(harness, from: start, stripping: [0])
    XCTAssertEqual(harness.engine.selection.statistics(0).dnssec, .stripsSignatures)
  }

  func testAReloadAwayFromAutoForgetsTheProbes() {
    let harness = makeHarness()
    probe(harness, stripping: [0])
    harness.engine.reconfigure(settings: makeSettings(Self.config("on")))
    XCTAssertEqual(harness.engine.selection.statistics(0).dnssec, .unknown)
    XCTAssertNil(harness.engine.nextDeadline)
  }
}
