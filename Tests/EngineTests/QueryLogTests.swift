import CompiledConfig
import DNSWire
import Engine
import XCTest

/// `log-queries`: one `logQuery` call per answered question, with its
/// outcome, upstream and latency (0 for answers given at once).
final class QueryLogTests: XCTestCase {
  func logging(_ config: String = twoUpstreams) -> Harness {
    let harness = Harness(config)
    harness.environment.recordsQueries = true
    return harness
  }

  /// The log entry of the LAN client's A question for `name`.
  func loggedA(
    _ name: String, _ outcome: QueryOutcome, upstream: Int = -1, latencyMilliseconds: UInt64
  ) -> LoggedQuery {
    LoggedQuery(
      client: lanClient(), name: name, type: .a, outcome: outcome, upstream: upstream,
      latencyMilliseconds: latencyMilliseconds)
  }

  func testOverrideIsLoggedWithNoUpstreamAndNoLatency() {
    let harness = logging(twoUpstreams + "\noverride printer.lan 192.168.1.10")
    XCTAssertEqual(harness.ask(makeQuery(id: 1, name: "Printer.LAN")).count, 1)
    XCTAssertEqual(
      harness.environment.loggedQueries,
      [loggedA("printer.lan", .overridden, latencyMilliseconds: 0)])
  }

  func testRelayedAnswerIsLoggedWithItsUpstreamAndLatency() {
    let harness = logging()
    XCTAssertTrue(harness.ask(makeQuery(id: 2, name: "www.example")).isEmpty)
    XCTAssertTrue(harness.environment.loggedQueries.isEmpty, "nothing logged before the answer")
    harness.now += 25
    let sent = harness.queries[0]
    XCTAssertEqual(harness.answer(makeReply(to: sent.bytes), to: sent).count, 1)
    XCTAssertEqual(
      harness.environment.loggedQueries,
      [loggedA("www.example", .answered(.noError), upstream: 0, latencyMilliseconds: 25)],
      "relay needs the answer's arrival time: handleUpstreamReply must pass `now:` to relay")
  }

  func testCoalescedClientsEachLogTheirOwnLatency() {
    let harness = logging()
    harness.ask(makeQuery(id: 3, name: "www.example"))
    harness.now += 10
    harness.ask(makeQuery(id: 4, name: "www.example"), from: lanClient(21))
    harness.now += 15
    let sent = harness.queries[0]
    XCTAssertEqual(harness.queries.count, 1)
    XCTAssertEqual(harness.answer(makeReply(to: sent.bytes), to: sent).count, 2)
    XCTAssertEqual(
      harness.environment.loggedQueries.map(\.latencyMilliseconds).sorted(), [15, 25])
  }

  func testSERVFAILAfterTimeoutsIsLoggedWithTheTimeWaited() {
    let harness = logging()
    harness.ask(makeQuery(id: 5, name: "slow.example"))
    XCTAssertTrue(harness.advance(by: 1000).isEmpty, "first upstream timed out; second tried")
    XCTAssertEqual(harness.advance(by: 1000).count, 1)
    XCTAssertEqual(
      harness.environment.loggedQueries,
      [loggedA("slow.example", .servFail, latencyMilliseconds: 2000)])
  }

  func testCacheHitIsLoggedWithNoLatency() {
    let harness = logging(CacheTests.cached)
    harness.ask(makeQuery(id: 6, name: "www.example"))
    harness.now += 40
    let sent = harness.queries[0]
    harness.answer(makeReply(to: sent.bytes, ttl: 300), to: sent)
    harness.now += 5_000
    XCTAssertEqual(harness.ask(makeQuery(id: 7, name: "WWW.example", type: .a)).count, 1)
    XCTAssertEqual(harness.queries.count, 1, "answered from the cache")
    XCTAssertEqual(
      harness.environment.loggedQueries.last,
      loggedA("www.example", .cached, latencyMilliseconds: 0))
  }

  func testStaleAnswerAfterFailureIsLoggedWithTheTimeWaited() {
    let harness = logging(CacheTests.cached + "\nstale 1d")
    harness.ask(makeQuery(id: 8, name: "www.example"))
    let sent = harness.queries[0]
    harness.answer(makeReply(to: sent.bytes, ttl: 60), to: sent)
    harness.now += 3_600_000
    harness.ask(makeQuery(id: 9, name: "www.example"))
    harness.advance(by: 1000)
    XCTAssertEqual(harness.advance(by: 1000).count, 1)
    XCTAssertEqual(harness.environment.loggedQueries.last?.outcome, .stale)
    XCTAssertEqual(harness.environment.loggedQueries.last?.latencyMilliseconds, 2000)
  }

  func testNothingIsLoggedUnlessWanted() {
    let harness = Harness(twoUpstreams + "\noverride printer.lan 192.168.1.10")
    harness.ask(makeQuery(id: 10, name: "printer.lan"))
    XCTAssertTrue(harness.environment.loggedQueries.isEmpty)
  }
}
