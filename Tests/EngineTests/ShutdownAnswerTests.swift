import CompiledConfig
import DNSWire
import Engine
import XCTest

/// Stopping with questions in flight (issue 8, item 5): every waiting
/// client is answered — stale if the cache can, SERVFAIL otherwise — and
/// the ring is left empty.
final class ShutdownAnswerTests: XCTestCase {
  func testEveryWaitingClientGetsSERVFAILAndTheRingEmpties() throws {
    let harness = Harness()
    harness.ask(makeQuery(id: 1, name: "a.example"), from: lanClient(20))
    harness.ask(makeQuery(id: 2, name: "a.example"), from: lanClient(21))  // coalesced
    harness.ask(makeQuery(id: 3, name: "b.example"), from: lanClient(22, tcp: true))
    XCTAssertEqual(harness.engine.activeTransactions, 2)
    let waiting = harness.engine.answerPendingAtShutdown(
      now: harness.now, environment: &harness.environment)
    XCTAssertEqual(waiting, 3)
    XCTAssertEqual(harness.replies.count, 3)
    var ids: [UInt16] = []
    for reply in harness.replies {
      let message = try decoded(reply.bytes)
      XCTAssertEqual(message.rcode, ResponseCode.serverFailure.rawValue)
      ids.append(message.id)
    }
    XCTAssertEqual(ids.sorted(), [1, 2, 3])
    XCTAssertEqual(harness.environment.released.count, 2, "both upstream attempts released")
    XCTAssertEqual(harness.engine.activeTransactions, 0)
    XCTAssertEqual(harness.engine.waitersInUse, 0)
    XCTAssertNil(harness.engine.nextDeadline)
    XCTAssertEqual(
      harness.engine.answerPendingAtShutdown(now: harness.now, environment: &harness.environment),
      0, "nothing left the second time")
  }

  func testAStaleAnswerIsPreferredToSERVFAIL() throws {
    let harness = Harness(
      twoUpstreams.replacingOccurrences(of: "cache 0", with: "cache 64\nstale 1d"))
    harness.ask(makeQuery(id: 1, name: "www.example"))
    let first = try XCTUnwrap(harness.queries.last)
    harness.answer(makeReply(to: first.bytes, ttl: 60), to: first)
    harness.now += 3_600_000  // expired an hour ago, inside the stale window
    XCTAssertTrue(harness.ask(makeQuery(id: 5, name: "www.example")).isEmpty, "asked upstream")
    harness.engine.answerPendingAtShutdown(now: harness.now, environment: &harness.environment)
    let stale = try decoded(XCTUnwrap(harness.replies.last).bytes)
    XCTAssertEqual(stale.id, 5)
    XCTAssertEqual(stale.rcode, ResponseCode.noError.rawValue)
    XCTAssertEqual(stale.records.first?.rdata, exampleAddress)
    XCTAssertEqual(harness.counters[.staleServed], 1)
    XCTAssertEqual(harness.engine.activeTransactions, 0)
  }
}
