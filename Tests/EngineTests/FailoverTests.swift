import CompiledConfig
import DNSWire
import Engine
import TestSupport
import XCTest

/// Timeouts, upstream errors, truncation, send failures and lost
/// connections: the next upstream is tried, and the client always ends with
/// an answer or a SERVFAIL.
final class FailoverTests: XCTestCase {
  static let threeUpstreams = """
    listen 127.0.0.1:53
    upstream udp 127.0.0.1:5300
    upstream udp 127.0.0.2:5300
    upstream udp 127.0.0.3:5300
    timeout 1000ms
    inflight 16
    """

  func testTimeoutFailsOverThenAnswersSERVFAIL() throws {
    let harness = Harness()
    let start = harness.now
    harness.ask(makeQuery(id: 0xAAAA, name: "slow.Example"))
    let first = harness.queries[0]
    XCTAssertEqual(first.upstream, 0)
    XCTAssertEqual(harness.engine.nextDeadline, start + 1000)

    XCTAssertTrue(harness.advance(by: 999).isEmpty)
    XCTAssertEqual(harness.queries.count, 1, "not due yet")
    XCTAssertEqual(harness.counters[.timeouts], 0)

    XCTAssertTrue(harness.advance(by: 1).isEmpty)
    XCTAssertEqual(harness.queries.count, 2)
    let second = harness.queries[1]
    XCTAssertEqual(second.upstream, 1)
    XCTAssertNotEqual(second.handle, first.handle)
    XCTAssertNotEqual(try decoded(second.bytes).id, try decoded(first.bytes).id)
    XCTAssertEqual(harness.counters[.timeouts], 1)
    XCTAssertEqual(harness.environment.events, [Reported(event: .upstreamTimeout, upstream: 0)])
    XCTAssertTrue(
      harness.environment.released.contains(Released(handle: first.handle, transport: .udp)))
    XCTAssertEqual(harness.engine.nextDeadline, harness.now + 1000)

    // The first upstream's late answer belongs to a finished attempt.
    XCTAssertTrue(harness.answer(makeReply(to: first.bytes), to: first).isEmpty)
    XCTAssertEqual(harness.counters[.staleReplies], 1)

    let replies = harness.advance(by: 1000)
    XCTAssertEqual(replies.count, 1)
    assertBytes(
      replies.first?.bytes ?? [],
      wire(
        "aaaa",  // 0  ID: the client's
        "8182",  // 2  flags: QR=1 RD=1 RA=1 RCODE=SERVFAIL
        "0001 0000 0000 0000",  // 4  QD=1
        "04 'slow' 07 'Example' 00",  // 12 QNAME in the client's case
        "0001 0001"  // 26 A IN
      ))
    XCTAssertEqual(harness.counters[.timeouts], 2)
    XCTAssertEqual(harness.counters[.servFail], 1)
    XCTAssertEqual(harness.engine.activeTransactions, 0)
    XCTAssertEqual(harness.engine.waitersInUse, 0)
    XCTAssertNil(harness.engine.nextDeadline)
  }

  func testThreeConsecutiveFailuresMarkAnUpstreamDownUntilItRecovers() throws {
    let harness = Harness()
    for index in 0..<3 {
      harness.ask(makeQuery(id: UInt16(index), name: "n\(index).example"))
      XCTAssertEqual(
        harness.queries.last?.upstream, 0, "attempt \(index) goes to the first upstream")
      harness.advance(by: 1000)
      let failover = harness.queries.last!
      XCTAssertEqual(failover.upstream, 1)
      XCTAssertEqual(harness.answer(makeReply(to: failover.bytes), to: failover).count, 1)
    }
    XCTAssertTrue(harness.engine.selection.isDown(0, now: harness.now))
    XCTAssertFalse(harness.engine.selection.isDown(1, now: harness.now))
    XCTAssertEqual(
      harness.environment.events.filter { $0.event == .upstreamDown },
      [Reported(event: .upstreamDown, upstream: 0)])

    // While down it is skipped.
    harness.ask(makeQuery(id: 10, name: "skip.example"))
    XCTAssertEqual(harness.queries.last?.upstream, 1)
    harness.answer(makeReply(to: harness.queries.last!.bytes), to: harness.queries.last!)

    // After the down period it is tried first again, and recovers.
    harness.advance(by: 30_000)
    XCTAssertFalse(harness.engine.selection.isDown(0, now: harness.now))
    harness.ask(makeQuery(id: 11, name: "back.example"))
    let back = harness.queries.last!
    XCTAssertEqual(back.upstream, 0)
    XCTAssertEqual(harness.answer(makeReply(to: back.bytes), to: back).count, 1)
    XCTAssertEqual(
      harness.environment.events.last, Reported(event: .upstreamRecovered, upstream: 0))
  }

  /// The loop's `report` reads the engine (its log line names the upstream,
  /// and says whether it is trusted): a report made while a stage holds the
  /// engine's state for writing would be an exclusivity conflict, a crash.
  func testTheEnvironmentMayReadTheEngineWhenAnUpstreamGoesDownAndRecovers() {
    let harness = Harness(
      "listen 127.0.0.1:53\nupstream udp 127.0.0.1:5300\ntimeout 1000ms\ninflight 16")
    let engine = harness.engine
    var seen: [String] = []
    harness.environment.onReport = { event, upstream in
      let server = engine.upstreams[upstream]
      let answers = engine.selection.statistics(upstream).answers
      seen.append("\(event) \(server.trusted) \(answers)")
    }
    for index in 0..<3 {
      harness.ask(makeQuery(id: UInt16(index), name: "d\(index).example"))
      harness.advance(by: 1000)
    }
    harness.advance(by: 30_000)
    harness.ask(makeQuery(id: 9, name: "back.example"))
    harness.answer(makeReply(to: harness.queries.last!.bytes), to: harness.queries.last!)
    XCTAssertEqual(
      seen.filter { !$0.hasPrefix("upstreamTimeout") },
      [
        "upstreamDown false 0", "upstreamRecovered false 0",
      ])
  }

  func testADownUpstreamIsStillAskedWhenItIsTheOnlyOne() {
    let harness = Harness(
      "listen 127.0.0.1:53\nupstream udp 127.0.0.1:5300\ntimeout 1000ms\ninflight 16")
    for index in 0..<3 {
      harness.ask(makeQuery(id: UInt16(index), name: "d\(index).example"))
      XCTAssertEqual(harness.advance(by: 1000).count, 1)
    }
    XCTAssertTrue(harness.engine.selection.isDown(0, now: harness.now))
    harness.ask(makeQuery(id: 9, name: "anyway.example"))
    XCTAssertEqual(harness.queries.count, 4, "a down upstream beats no answer")
    XCTAssertEqual(harness.queries.last?.upstream, 0)
  }

  func testSERVFAILAndREFUSEDTryTheNextUpstreamAndTheLastIsRelayed() throws {
    let harness = Harness(Self.threeUpstreams)
    harness.ask(makeQuery(id: 0x5E5E, name: "Broken.example"))
    let first = harness.queries[0]
    XCTAssertTrue(
      harness.answer(makeReply(to: first.bytes, rcode: .serverFailure, addresses: []), to: first)
        .isEmpty)
    XCTAssertEqual(harness.queries.count, 2)
    let second = harness.queries[1]
    XCTAssertEqual(second.upstream, 1)
    XCTAssertTrue(
      harness.answer(makeReply(to: second.bytes, rcode: .refused, addresses: []), to: second)
        .isEmpty)
    XCTAssertEqual(harness.queries.count, 3)
    let third = harness.queries[2]
    XCTAssertEqual(third.upstream, 2)
    XCTAssertEqual(harness.counters[.retried], 2)
    let replies = harness.answer(
      makeReply(to: third.bytes, rcode: .serverFailure, addresses: []), to: third)
    XCTAssertEqual(replies.count, 1)
    let reply = try decoded(replies.first?.bytes ?? [])
    XCTAssertEqual(reply.id, 0x5E5E)
    XCTAssertEqual(reply.rcode, ResponseCode.serverFailure.rawValue)
    XCTAssertEqual(reply.questionText, "Broken.example")
    XCTAssertEqual(harness.counters[.answered], 1)
    XCTAssertEqual(harness.engine.activeTransactions, 0)
  }

  func testNOTIMPIsRetriedButNXDOMAINIsAnAnswer() throws {
    let harness = Harness()
    harness.ask(makeQuery(id: 1, name: "a.example"))
    harness.answer(
      makeReply(to: harness.queries[0].bytes, rcode: .notImplemented, addresses: []),
      to: harness.queries[0])
    XCTAssertEqual(harness.queries.count, 2)

    harness.ask(makeQuery(id: 2, name: "nx.example"))
    let nx = harness.queries.last!
    let replies = harness.answer(makeReply(to: nx.bytes, rcode: .nameError, addresses: []), to: nx)
    XCTAssertEqual(replies.count, 1)
    XCTAssertEqual(try decoded(replies[0].bytes).rcode, ResponseCode.nameError.rawValue)
    XCTAssertEqual(harness.queries.count, 3, "NXDOMAIN is not retried")
  }

  func testTruncatedUDPReplyIsAskedAgainOverTCP() throws {
    let harness = Harness()
    harness.ask(makeQuery(id: 0x7C7C, name: "Big.Example.com"))
    let udp = harness.queries[0]
    XCTAssertTrue(
      harness.answer(makeReply(to: udp.bytes, truncated: true, addresses: []), to: udp).isEmpty)
    XCTAssertEqual(harness.counters[.retried], 1)
    XCTAssertEqual(harness.queries.count, 2)
    let tcp = harness.queries[1]
    XCTAssertEqual(tcp.upstream, 0, "same upstream")
    XCTAssertEqual(tcp.transport, .tcp)
    XCTAssertNotEqual(tcp.handle, udp.handle)
    XCTAssertTrue(
      harness.environment.released.contains(Released(handle: udp.handle, transport: .udp)))
    let tcpQuery = try decoded(tcp.bytes)
    XCTAssertEqual(tcpQuery.questionText, "big.example.com", "no 0x20 over TCP")
    XCTAssertTrue(tcpQuery.has(HeaderFlags.recursionDesired))

    // TCP replies come without a transaction handle and are matched by ID.
    let server = harness.engine.upstreams[0].endpoint
    var wrongID = makeReply(to: tcp.bytes, addresses: manyAddresses(3))
    wrongID[0] ^= 0x80
    XCTAssertTrue(harness.deliver(wrongID, transaction: nil, upstream: 0, from: server).isEmpty)
    XCTAssertTrue(
      harness.deliver(
        makeReply(to: tcp.bytes), transaction: nil, upstream: 1,
        from: harness.engine.upstreams[1].endpoint
      ).isEmpty, "another upstream's connection")
    XCTAssertEqual(harness.counters[.mismatchedID], 2)

    let replies = harness.deliver(
      makeReply(to: tcp.bytes, addresses: manyAddresses(3)), transaction: nil, upstream: 0,
      from: server)
    XCTAssertEqual(replies.count, 1)
    let reply = try decoded(replies.first?.bytes ?? [])
    XCTAssertEqual(reply.id, 0x7C7C)
    XCTAssertEqual(reply.questionText, "Big.Example.com")
    XCTAssertFalse(reply.has(HeaderFlags.truncated))
    XCTAssertEqual(reply.ipv4Answers, manyAddresses(3))
    // Over TCP nothing is held per attempt (replies are matched by ID): the
    // answered question leaves the table, and the UDP attempt ended above
    // is the only one released.
    XCTAssertEqual(harness.engine.activeTransactions, 0)
    XCTAssertEqual(harness.environment.released, [Released(handle: udp.handle, transport: .udp)])
  }

  func testTCPUpstreamIsAskedOverTCPWithout0x20() throws {
    let harness = Harness("listen 127.0.0.1:53\nupstream tcp 127.0.0.1:5353\ninflight 16")
    harness.ask(makeQuery(id: 0x7C90, name: "Mixed.Case.Example"))
    let sent = harness.queries[0]
    XCTAssertEqual(sent.transport, .tcp)
    XCTAssertEqual(try decoded(sent.bytes).questionText, "mixed.case.example")
    // A TC=1 answer over TCP is final: relayed, not retried.
    let replies = harness.answer(makeReply(to: sent.bytes, truncated: true), to: sent)
    XCTAssertEqual(replies.count, 1)
    XCTAssertEqual(harness.queries.count, 1)
    XCTAssertEqual(try decoded(replies[0].bytes).questionText, "Mixed.Case.Example")
  }

  /// A TCP upstream that echoes the question in another case: the
  /// transaction was sent over TCP, so any retry must stay on TCP (the
  /// upstream is configured `tcp`; it may not even listen on UDP).
  func testCaseMismatchOverTCPIsNotRetriedOverUDP() throws {
    let harness = Harness("listen 127.0.0.1:53\nupstream tcp 127.0.0.1:5353\ninflight 16")
    harness.ask(makeQuery(id: 0x7C91, name: "tcp.example"))
    let sent = harness.queries[0]
    // No 0x20 goes over TCP, so the case of the reply is no evidence of
    // forgery: it is accepted, and no UDP query reaches a TCP-only upstream.
    let replies = harness.answer(makeReply(to: flippingCase(sent.bytes)), to: sent)
    XCTAssertEqual(harness.counters[.mismatchedCase], 0)
    XCTAssertEqual(replies.count, 1)
    XCTAssertEqual(
      harness.queries.filter { $0.transport == .udp }.count, 0,
      "a tcp upstream was sent a UDP query: \(harness.queries.map(\.transport))")
  }

  func testSendFailureTriesTheNextUpstreamAtOnce() throws {
    let harness = Harness()
    harness.environment.unreachable = [0]
    XCTAssertTrue(harness.ask(makeQuery(id: 0x5D, name: "unreachable.example")).isEmpty)
    XCTAssertEqual(harness.queries.map(\.upstream), [0, 1])
    XCTAssertEqual(harness.queries.map(\.accepted), [false, true])
    XCTAssertTrue(
      harness.environment.released.contains(
        Released(handle: harness.queries[0].handle, transport: .udp)))
    let replies = harness.answer(makeReply(to: harness.queries[1].bytes), to: harness.queries[1])
    XCTAssertEqual(try decoded(replies.first?.bytes ?? []).id, 0x5D)

    // Nobody reachable: SERVFAIL at once, nothing left in flight.
    harness.environment.unreachable = [0, 1]
    let failed = harness.ask(makeQuery(id: 0x5E, name: "nobody.example"))
    XCTAssertEqual(failed.count, 1)
    let reply = try decoded(failed.first?.bytes ?? [])
    XCTAssertEqual(reply.id, 0x5E)
    XCTAssertEqual(reply.rcode, ResponseCode.serverFailure.rawValue)
    XCTAssertEqual(harness.engine.activeTransactions, 0)
    XCTAssertEqual(harness.engine.waitersInUse, 0)
  }

  func testAttemptFailedFailsOverAndIgnoresStaleHandles() throws {
    let harness = Harness()
    harness.ask(makeQuery(id: 0xAF, name: "icmp.example"))
    let first = harness.queries[0]
    harness.attemptFailed(first.handle)
    XCTAssertEqual(harness.queries.count, 2)
    XCTAssertEqual(harness.queries[1].upstream, 1)
    harness.attemptFailed(first.handle)  // stale now
    harness.attemptFailed(TransactionHandle(slot: 999, generation: 1))
    XCTAssertEqual(harness.queries.count, 2)
    XCTAssertTrue(harness.replies.isEmpty)

    harness.attemptFailed(harness.queries[1].handle)
    XCTAssertEqual(harness.replies.count, 1)
    let reply = try decoded(harness.replies[0].bytes)
    XCTAssertEqual(reply.id, 0xAF)
    XCTAssertEqual(reply.rcode, ResponseCode.serverFailure.rawValue)
    XCTAssertEqual(harness.engine.activeTransactions, 0)
  }

  func testLostTCPConnectionFailsOverItsAttempts() throws {
    let harness = Harness(
      "listen 127.0.0.1:53\nupstream tcp 127.0.0.1:5353\nupstream udp 127.0.0.2:5300\ninflight 16")
    harness.ask(makeQuery(id: 1, name: "one.example"), from: lanClient(1))
    harness.ask(makeQuery(id: 2, name: "two.example"), from: lanClient(2))
    XCTAssertEqual(harness.queries.map(\.transport), [.tcp, .tcp])
    harness.connectionLost(upstream: 1)  // UDP upstream: nothing to do
    XCTAssertEqual(harness.queries.count, 2)
    harness.connectionLost(upstream: 0)
    XCTAssertEqual(harness.queries.count, 4)
    XCTAssertEqual(harness.queries[2...].map(\.upstream), [1, 1])
    XCTAssertEqual(harness.queries[2...].map(\.transport), [.udp, .udp])
    for query in harness.queries[2...] {
      XCTAssertEqual(harness.answer(makeReply(to: query.bytes), to: query).count, 1)
    }
    XCTAssertEqual(
      Set(try harness.replies.map { try decoded($0.bytes).id }), [1, 2])
  }
  /// RFC 7766 §7: queries pipelined on one TCP connection need distinct IDs,
  /// since replies are matched by ID alone. The random source is scripted to
  /// repeat an ID; whatever ID the engine settles on, each reply (built from
  /// the query actually sent) must reach its own client.
  func testTCPQueriesToOneUpstreamNeverShareAnID() throws {
    let harness = Harness("listen 127.0.0.1:53\nupstream tcp 127.0.0.1:5353\ninflight 16")
    harness.environment.scriptedRandom = [0x1111]
    harness.ask(makeQuery(id: 0xA, name: "first.example"), from: lanClient(1))
    harness.environment.scriptedRandom = [0x1111]
    harness.ask(makeQuery(id: 0xB, name: "second.example"), from: lanClient(2))
    XCTAssertEqual(harness.queries.count, 2)
    let first = try decoded(harness.queries[0].bytes)
    let second = try decoded(harness.queries[1].bytes)
    XCTAssertNotEqual(
      first.id, second.id, "two queries in flight on one TCP upstream share ID \(first.id)")
    // The second answer arrives first.
    let replies = harness.answer(makeReply(to: harness.queries[1].bytes), to: harness.queries[1])
    XCTAssertEqual(replies.count, 1, "the answer to the second query was dropped")
    XCTAssertEqual(replies.first?.client, lanClient(2))
  }
}

/// Failure signals from replies, not timeouts.
final class ErrorReplyTests: XCTestCase {
  /// REFUSED with QDCOUNT 0 (some servers leave the question out of errors)
  /// fails over at once instead of leaving the client to the deadline.
  func testQuestionlessErrorReplyFailsOverAtOnce() throws {
    let harness = Harness()
    harness.ask(makeQuery(id: 0x51, name: "refused.example"))
    let sent = harness.queries[0]
    var refused = Array(sent.bytes[0..<HeaderField.size])
    refused[2] = 0x81  // QR, RD
    refused[3] = 0x85  // RA, REFUSED
    for index in 4..<12 { refused[index] = 0 }
    XCTAssertTrue(harness.answer(refused, to: sent).isEmpty)
    XCTAssertEqual(harness.queries.count, 2)
    XCTAssertEqual(harness.queries[1].upstream, 1)
    let replies = harness.answer(makeReply(to: harness.queries[1].bytes), to: harness.queries[1])
    XCTAssertEqual(try decoded(replies.first?.bytes ?? []).id, 0x51)
  }

  /// An upstream that answers SERVFAIL every time is marked down like a
  /// silent one, so the others are asked first.
  func testRepeatedServFailMarksAnUpstreamDown() throws {
    let harness = Harness()
    for index in 0..<3 {
      harness.ask(makeQuery(id: UInt16(0x60 + index), name: "sf\(index).example"))
      let first = harness.queries.last!
      XCTAssertEqual(first.upstream, 0)
      harness.answer(makeReply(to: first.bytes, rcode: .serverFailure), to: first)
      let second = harness.queries.last!
      XCTAssertEqual(second.upstream, 1)
      harness.answer(makeReply(to: second.bytes), to: second)
    }
    XCTAssertTrue(harness.engine.selection.isDown(0, now: harness.now))
    harness.ask(makeQuery(id: 0x70, name: "after.example"))
    XCTAssertEqual(harness.queries.last?.upstream, 1)
  }
}
