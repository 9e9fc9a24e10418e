import CompiledConfig
import DNSWire
import Engine
import TestSupport
import XCTest

/// Checks of upstreams: `verify` (trusted first, a plain one compared) and
/// `detect-nxdomain-redirect` (probes for names that cannot exist).
final class UpstreamCheckTests: XCTestCase {
  static let plainAndTrusted = """
    listen 127.0.0.1:53
    upstream udp 127.0.0.1:5300
    upstream tcp 127.0.0.2:5353
    inflight 16
    cache 64
    """
  static let phishing: [UInt8] = [100, 64, 0, 66]

  func verifyingHarness() -> Harness {
    Harness(Self.plainAndTrusted) {
      $0.upstreams[1].trusted = true
      $0.verifyNames = wireName("bank.example")
    }
  }

  func testAVerifiedNameGoesToTheTrustedUpstreamThenIsCheckedOnThePlainOne() throws {
    let harness = verifyingHarness()
    harness.ask(makeQuery(id: 5, name: "www.Bank.example"))
    XCTAssertEqual(harness.queries.map(\.upstream), [1], "trusted first")
    let replies = harness.answer(makeReply(to: harness.queries[0].bytes), to: harness.queries[0])
    XCTAssertEqual(try decoded(try XCTUnwrap(replies.first).bytes).ipv4Answers, [exampleAddress])
    XCTAssertEqual(harness.queries.count, 2, "then the plain upstream")
    let check = harness.queries[1]
    XCTAssertEqual(check.upstream, 0)

    XCTAssertTrue(
      harness.answer(makeReply(to: check.bytes, addresses: [Self.phishing]), to: check).isEmpty,
      "a check is never relayed")
    XCTAssertEqual(harness.counters[.verifyDisagreements], 1)
    XCTAssertEqual(harness.engine.selection.statistics(0).disagreements, 1, "per upstream")
    XCTAssertEqual(harness.engine.selection.statistics(1).disagreements, 0)
    XCTAssertEqual(
      harness.environment.defences,
      [
        ReportedDefence(
          event: .verificationDisagreed, name: "www.bank.example", address: ipv4(100, 64, 0, 66),
          upstream: 0)
      ])
    XCTAssertEqual(harness.engine.activeTransactions, 0)
    // The cache keeps the trusted answer.
    let cached = harness.ask(makeQuery(id: 6, name: "www.bank.example"))
    XCTAssertEqual(try decoded(try XCTUnwrap(cached.first).bytes).ipv4Answers, [exampleAddress])
  }

  func testAnAgreeingPlainAnswerIsNotCounted() throws {
    let harness = verifyingHarness()
    harness.ask(makeQuery(id: 5, name: "bank.example"))
    harness.answer(
      makeReply(to: harness.queries[0].bytes, addresses: [exampleAddress, [93, 184, 216, 35]]),
      to: harness.queries[0])
    harness.answer(makeReply(to: harness.queries[1].bytes), to: harness.queries[1])
    XCTAssertEqual(harness.counters[.verifyDisagreements], 0, "a subset of the trusted addresses")
  }

  func testAHiddenNameCountsAsDisagreement() throws {
    let harness = verifyingHarness()
    harness.ask(makeQuery(id: 5, name: "bank.example"))
    harness.answer(makeReply(to: harness.queries[0].bytes), to: harness.queries[0])
    harness.answer(
      makeReply(to: harness.queries[1].bytes, rcode: .nameError, addresses: []),
      to: harness.queries[1])
    XCTAssertEqual(harness.counters[.verifyDisagreements], 1)
  }

  func testOtherNamesFollowTheNormalOrderAndAClientNeverJoinsACheck() throws {
    let harness = verifyingHarness()
    harness.ask(makeQuery(id: 5, name: "news.example"))
    XCTAssertEqual(harness.queries.map(\.upstream), [0])
    harness.answer(makeReply(to: harness.queries[0].bytes), to: harness.queries[0])
    XCTAssertEqual(harness.queries.count, 1, "not a verify name: no check")

    harness.ask(makeQuery(id: 7, name: "bank.example"))
    harness.answer(makeReply(to: harness.queries[1].bytes), to: harness.queries[1])
    XCTAssertEqual(harness.queries.count, 3)
    // The cache has the trusted answer, so this is a hit, not a join.
    let hit = harness.ask(makeQuery(id: 8, name: "bank.example"))
    XCTAssertEqual(try decoded(try XCTUnwrap(hit.first).bytes).ipv4Answers, [exampleAddress])
    // A different type is a new question: it goes to the trusted upstream.
    harness.ask(makeQuery(id: 9, name: "bank.example", type: .aaaa))
    XCTAssertEqual(harness.queries.last?.upstream, 1)
  }

  func testATrustedFailureFallsBackToThePlainUpstream() throws {
    let harness = verifyingHarness()
    harness.ask(makeQuery(id: 5, name: "bank.example"))
    harness.connectionLost(upstream: 1)
    XCTAssertEqual(harness.queries.last?.upstream, 0)
    let replies = harness.answer(makeReply(to: harness.queries[1].bytes), to: harness.queries[1])
    XCTAssertEqual(replies.count, 1)
  }

  // MARK: - NXDOMAIN-redirect detection

  static let oneUpstream = """
    listen 127.0.0.1:53
    upstream udp 127.0.0.1:5300
    inflight 16
    """
  static let redirect: [UInt8] = [100, 64, 0, 80]

  /// Runs one probe round: the random probes get `randomAnswers` (one
  /// address list each, nil: no answer), the control `controlAnswer`.
  func probeRound(
    random randomAnswers: [[[UInt8]]?], control controlAnswer: [[UInt8]]?
  ) throws -> Harness {
    let harness = Harness(Self.oneUpstream) { $0.detectNXDomainRedirect = true }
    harness.advance(by: 1)
    XCTAssertEqual(harness.queries.count, 4, "three random names and the control")
    XCTAssertEqual(harness.counters[.redirectProbes], 4)
    let names = try harness.queries.map { try decoded($0.bytes).questionText.lowercased() }
    XCTAssertEqual(names.last, "example.com")
    XCTAssertEqual(
      Set(names.dropLast().map { $0.split(separator: ".").last! }), ["com", "net", "org"])
    XCTAssertEqual(names.dropLast().map { $0.split(separator: ".").first!.count }, [16, 16, 16])
    for (index, query) in harness.queries.prefix(3).enumerated() {
      if let addresses = randomAnswers[index] {
        let rcode: ResponseCode = addresses.isEmpty ? .nameError : .noError
        harness.answer(makeReply(to: query.bytes, rcode: rcode, addresses: addresses), to: query)
      }
    }
    if let controlAnswer {
      harness.answer(
        makeReply(to: harness.queries[3].bytes, addresses: controlAnswer), to: harness.queries[3])
    }
    harness.advance(by: 2000)  // past the 1.5 s timeout of an unanswered probe
    return harness
  }

  func testARedirectAddressThatProbesAgreeOnIsLearned() throws {
    let harness = try probeRound(
      random: [[Self.redirect], [Self.redirect], [Self.redirect]], control: [exampleAddress])
    XCTAssertEqual(harness.counters[.redirectAddressesLearned], 1)
    XCTAssertEqual(harness.environment.defences.map(\.address), [ipv4(100, 64, 0, 80)])
    XCTAssertEqual(harness.environment.replies.count, 0, "probes answer nobody")
    // From now on that address alone means NXDOMAIN.
    harness.ask(makeQuery(id: 3, name: "typo.example"))
    let query = try XCTUnwrap(harness.queries.last)
    let replies = harness.answer(makeReply(to: query.bytes, addresses: [Self.redirect]), to: query)
    XCTAssertEqual(
      try decoded(try XCTUnwrap(replies.first).bytes).rcode, ResponseCode.nameError.rawValue)
    XCTAssertEqual(harness.counters[.redirectsRewritten], 1)
  }

  func testTwoAgreeingProbesAreEnoughButOneIsNot() throws {
    XCTAssertEqual(
      try probeRound(random: [[Self.redirect], [], [Self.redirect]], control: [exampleAddress])
        .counters[.redirectAddressesLearned], 1)
    XCTAssertEqual(
      try probeRound(random: [[Self.redirect], [], []], control: [exampleAddress])
        .counters[.redirectAddressesLearned], 0)
  }

  func testAnAddressTheControlNameAlsoGetsIsNeverLearned() throws {
    let harness = try probeRound(
      random: [[Self.redirect], [Self.redirect], [Self.redirect]], control: [Self.redirect])
    XCTAssertEqual(harness.counters[.redirectAddressesLearned], 0)
  }

  func testNothingIsLearnedWithoutTheControlAnswer() throws {
    let harness = try probeRound(
      random: [[Self.redirect], [Self.redirect], [Self.redirect]], control: nil)
    XCTAssertEqual(harness.counters[.redirectAddressesLearned], 0)
    XCTAssertEqual(harness.engine.activeTransactions, 0, "the unanswered probe timed out")
  }

  func testAnHonestUpstreamTeachesNothingAndRoundsRepeatHourly() throws {
    let harness = try probeRound(random: [[], [], []], control: [exampleAddress])
    XCTAssertEqual(harness.counters[.redirectAddressesLearned], 0)
    XCTAssertEqual(harness.queries.count, 4)
    harness.advance(by: 3_600_000)
    XCTAssertEqual(harness.queries.count, 8, "the next round an hour later")
  }

  // MARK: - Rate limit and ANY

  func testAClientOverTheRateLimitIsDroppedAndRefilledOverTime() throws {
    let harness = Harness("listen 127.0.0.1:53\noverride printer.lan 192.168.1.10") {
      $0.rateLimitPerSecond = 5
    }
    var answered = 0
    for id in 0..<8 {
      answered += harness.ask(makeQuery(id: UInt16(id), name: "printer.lan")).count
    }
    XCTAssertEqual(answered, 5, "a burst of one second's worth")
    XCTAssertEqual(harness.counters[.rateLimited], 3)
    XCTAssertEqual(
      harness.ask(makeQuery(id: 9, name: "printer.lan"), from: lanClient(21)).count, 1,
      "another client has its own bucket")
    harness.advance(by: 200)
    XCTAssertEqual(harness.ask(makeQuery(id: 10, name: "printer.lan")).count, 1, "200 ms earn one")
    XCTAssertEqual(harness.ask(makeQuery(id: 11, name: "printer.lan")).count, 0)
  }

  func testANYOverUDPGetsTheRFC8482AnswerAndOverTCPIsForwarded() throws {
    let harness = Harness()
    let replies = harness.ask(makeQuery(id: 4, name: "Example.com", type: .any))
    let reply = try decoded(try XCTUnwrap(replies.first).bytes)
    XCTAssertEqual(reply.rcode, 0)
    XCTAssertEqual(reply.questionText, "Example.com")
    XCTAssertEqual(reply.records.map(\.type), [RRType(rawValue: 13)])
    XCTAssertEqual(reply.records.first?.rdata, [7] + Array("RFC8482".utf8) + [0])
    XCTAssertEqual(harness.counters[.anyRefused], 1)
    XCTAssertTrue(harness.queries.isEmpty)
    harness.ask(makeQuery(id: 5, name: "example.com", type: .any), from: lanClient(tcp: true))
    XCTAssertEqual(harness.queries.count, 1)

    let open = Harness { $0.refuseAny = false }
    open.ask(makeQuery(id: 4, name: "example.com", type: .any))
    XCTAssertEqual(open.queries.count, 1)
  }
}

extension UpstreamCheckTests {
  func testProbesRefusedByAnUpstreamDoNotMarkItDown() throws {
    let harness = Harness(Self.oneUpstream) { $0.detectNXDomainRedirect = true }
    harness.advance(by: 1)
    for query in harness.queries {
      harness.answer(makeReply(to: query.bytes, rcode: .refused, addresses: []), to: query)
    }
    XCTAssertFalse(harness.engine.selection.isDown(0, now: harness.now))
    XCTAssertEqual(harness.engine.selection.statistics(0).failures, 0)
  }
}

extension UpstreamCheckTests {
  func testStrictNeverFallsBackToAPlainUpstreamForAVerifiedName() throws {
    let harness = Harness(Self.plainAndTrusted) {
      $0.upstreams[1].trusted = true
      $0.verifyNames = wireName("bank.example")
      $0.strict = true
    }
    harness.ask(makeQuery(id: 5, name: "bank.example"))
    let failed = harness.environment.replies.count
    harness.connectionLost(upstream: 1)
    XCTAssertEqual(harness.queries.map(\.upstream), [1], "no plain upstream asked")
    let reply = try decoded(try XCTUnwrap(harness.replies.dropFirst(failed).first).bytes)
    XCTAssertEqual(reply.rcode, ResponseCode.serverFailure.rawValue)
    // Other names still use the plain upstream.
    harness.ask(makeQuery(id: 6, name: "news.example"))
    XCTAssertEqual(harness.queries.last?.upstream, 0)
  }
}
