import CompiledConfig
import DNSWire
import Engine
import XCTest

/// A reload that changes the upstreams (Engine/Reload.swift): the questions
/// in flight give up their attempts, the list is replaced, and they are
/// asked again of the new upstreams; their clients get the new answer, and
/// a late reply of the old attempt is stale.
final class UpstreamReplacementTests: XCTestCase {
  func replace(_ harness: Harness, with config: String) {
    let settings = makeSettings(config)
    harness.engine.withdrawQueriesInFlight(
      replacingUpstreamsWith: settings.upstreams, now: harness.now,
      environment: &harness.environment)
    harness.engine.reconfigure(settings: settings)
    harness.engine.resendQueriesInFlight(now: harness.now, environment: &harness.environment)
  }

  func testQuestionsInFlightGoToTheNewUpstreams() throws {
    let harness = Harness()
    harness.ask(makeQuery(id: 1, name: "a.example"))
    harness.ask(makeQuery(id: 2, name: "b.example"))
    harness.advance(by: 300)
    XCTAssertEqual(harness.queries.count, 2)
    replace(
      harness,
      with: twoUpstreams.replacingOccurrences(of: "127.0.0.1:5300", with: "127.0.0.9:5300"))
    XCTAssertEqual(harness.environment.released.count, 2, "each old attempt released")
    XCTAssertEqual(harness.queries.count, 4, "both asked again")
    XCTAssertEqual(harness.engine.upstreams[0].endpoint.address, IPAddress(ipv4: 0x7F00_0009))
    XCTAssertEqual(harness.queries[2].upstream, 0)
    XCTAssertEqual(harness.engine.activeTransactions, 2, "the slots and their waiters stay")
    XCTAssertTrue(harness.replies.isEmpty, "nobody answered SERVFAIL")

    // The old attempt's late answer is stale; the new one's is relayed.
    harness.deliver(
      makeReply(to: harness.queries[0].bytes), transaction: harness.queries[0].handle, upstream: 0,
      from: Endpoint(address: IPAddress(ipv4: 0x7F00_0001), port: 5300))
    XCTAssertEqual(harness.counters[.staleReplies], 1)
    XCTAssertTrue(harness.replies.isEmpty)
    let replies = harness.answer(makeReply(to: harness.queries[2].bytes), to: harness.queries[2])
    XCTAssertEqual(replies.count, 1)
    XCTAssertEqual(replies.first?.client, lanClient())
  }

  func testAnUpstreamInBothListsKeepsItsFigures() throws {
    let harness = Harness()
    harness.ask(makeQuery(id: 1, name: "a.example"))
    harness.answer(makeReply(to: harness.queries[0].bytes), to: harness.queries[0])
    XCTAssertEqual(harness.engine.selection.statistics(0).answers, 1)
    // 127.0.0.1 moves to second place; a new one comes first.
    replace(
      harness,
      with: """
        listen 127.0.0.1:53
        upstream udp 127.0.0.3:5300
        upstream udp 127.0.0.1:5300
        timeout 1000ms
        inflight 16
        cache 0
        """)
    XCTAssertEqual(harness.engine.upstreams.count, 2)
    XCTAssertEqual(harness.engine.selection.statistics(0).answers, 0)
    XCTAssertEqual(harness.engine.selection.statistics(1).answers, 1)
  }

  func testWithNoUpstreamLeftTheWaitingClientGetsServfail() throws {
    let harness = Harness()
    harness.ask(makeQuery(id: 1, name: "a.example"))
    replace(harness, with: "listen 127.0.0.1:53\ninflight 16\ncache 0\n")
    XCTAssertEqual(harness.replies.count, 1)
    XCTAssertEqual(harness.replies.first.flatMap { decode($0.bytes) }?.rcode, 2)
    XCTAssertEqual(harness.counters[.servFail], 1)
    XCTAssertEqual(harness.engine.activeTransactions, 0)
  }
}

/// A redirect probe round under way when the upstreams change: what it saw
/// was about the old list (its candidates name old upstream indexes), so it
/// is dropped and the new upstreams are probed at once.
final class ProbeRoundReplacementTests: XCTestCase {
  func testARoundOfTheOldUpstreamsTeachesNothingAndTheNewOnesAreProbed() throws {
    let twoPlain = """
      listen 127.0.0.1:53
      upstream udp 127.0.0.1:5300
      upstream udp 127.0.0.2:5300
      inflight 16
      """
    let harness = Harness(twoPlain) { $0.detectNXDomainRedirect = true }
    harness.advance(by: 1)
    XCTAssertEqual(harness.queries.count, 8, "four probes for each upstream")
    // The second upstream redirects every random name and answers the
    // control; one of the first upstream's probes is still in flight.
    let redirect: [UInt8] = [100, 64, 0, 80]
    for query in harness.queries[4..<7] {
      harness.answer(makeReply(to: query.bytes, addresses: [redirect]), to: query)
    }
    harness.answer(
      makeReply(to: harness.queries[7].bytes, addresses: [exampleAddress]), to: harness.queries[7])
    let before = harness.queries.count
    var settings = makeSettings(
      """
      listen 127.0.0.1:53
      upstream udp 127.0.0.3:5300
      inflight 16
      """)
    settings.detectNXDomainRedirect = true
    harness.engine.withdrawQueriesInFlight(
      replacingUpstreamsWith: settings.upstreams, now: harness.now,
      environment: &harness.environment)
    harness.engine.reconfigure(settings: settings)
    harness.engine.resendQueriesInFlight(now: harness.now, environment: &harness.environment)
    harness.advance(by: 1)
    XCTAssertEqual(harness.counters[.redirectAddressesLearned], 0, "nothing from the old round")
    XCTAssertEqual(
      harness.environment.events.filter { $0.upstream >= harness.engine.upstreams.count }.count
        + harness.environment.defences.filter { $0.upstream >= harness.engine.upstreams.count }
        .count, 0, "no event names an upstream that is gone")
    let probesOfTheNew = harness.queries[before...].filter { $0.upstream == 0 }
    XCTAssertEqual(probesOfTheNew.count, 4, "a new round for the new upstream")
  }
}
