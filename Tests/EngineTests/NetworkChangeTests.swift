import CompiledConfig
import DNSWire
import Engine
import XCTest

/// The WAN changed: in-flight UDP attempts go out again at once, and
/// upstreams marked down get a fresh start (issue 7, item 6).
final class NetworkChangeTests: XCTestCase {
  func testInFlightUDPAttemptsAreSentAgainAtOnce() throws {
    let harness = Harness()
    harness.ask(makeQuery(id: 1, name: "a.example"))
    harness.ask(makeQuery(id: 2, name: "b.example"))
    harness.advance(by: 300)
    harness.engine.networkChanged(now: harness.now, environment: &harness.environment)
    XCTAssertEqual(harness.queries.count, 4, "both asked again")
    XCTAssertEqual(harness.queries[2].upstream, 0, "of the same upstream")
    XCTAssertNotEqual(harness.queries[2].handle, harness.queries[0].handle, "a new attempt")
    XCTAssertEqual(harness.counters[.networkChanges], 1)
    // The new attempt has a full timeout from now, and its answer is taken.
    XCTAssertTrue(harness.advance(by: 900).isEmpty)
    let replies = harness.answer(makeReply(to: harness.queries[2].bytes), to: harness.queries[2])
    XCTAssertEqual(replies.count, 1)
    // The old attempt's late answer is stale.
    harness.answer(makeReply(to: harness.queries[1].bytes), to: harness.queries[1])
    XCTAssertEqual(harness.counters[.staleReplies], 1)
  }

  func testUpstreamsMarkedDownGetAFreshStart() throws {
    let harness = Harness()
    for id in 0..<3 {
      harness.ask(makeQuery(id: UInt16(id), name: "n\(id).example"))
      harness.advance(by: 1000)
    }
    XCTAssertTrue(harness.engine.selection.isDown(0, now: harness.now))
    harness.engine.networkChanged(now: harness.now, environment: &harness.environment)
    XCTAssertFalse(harness.engine.selection.isDown(0, now: harness.now))
    let before = harness.queries.count
    harness.ask(makeQuery(id: 9, name: "fresh.example"))
    XCTAssertEqual(harness.queries[before].upstream, 0, "the first upstream is asked first again")
  }
}
