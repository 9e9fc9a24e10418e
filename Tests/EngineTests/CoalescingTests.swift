import CompiledConfig
import DNSWire
import Engine
import XCTest

/// Identical questions in flight share one upstream query (threat model:
/// fewer queries for a poisoner to race); each client still gets its own ID,
/// case, flags and EDNS back.
final class CoalescingTests: XCTestCase {
  func testSameQuestionFromTwoClientsIsAskedOnce() throws {
    let harness = Harness()
    let alice = lanClient(30, port: 1111)
    let bob = lanClient(31, port: 2222)
    XCTAssertTrue(harness.ask(makeQuery(id: 0x1111, name: "www.Example.com"), from: alice).isEmpty)
    XCTAssertTrue(
      harness.ask(makeQuery(id: 0x2222, name: "WWW.EXAMPLE.COM", flags: 0, edns: EDNS()), from: bob)
        .isEmpty)
    XCTAssertEqual(harness.queries.count, 1, "one upstream query for both")
    XCTAssertEqual(harness.counters[.coalesced], 1)
    XCTAssertEqual(harness.engine.activeTransactions, 1)
    XCTAssertEqual(harness.engine.waitersInUse, 2)

    let replies = harness.answer(makeReply(to: harness.queries[0].bytes), to: harness.queries[0])
    XCTAssertEqual(replies.count, 2)
    let toAlice = try XCTUnwrap(replies.first { $0.client == alice })
    let toBob = try XCTUnwrap(replies.first { $0.client == bob })
    let a = try decoded(toAlice.bytes)
    let b = try decoded(toBob.bytes)
    XCTAssertEqual(a.id, 0x1111)
    XCTAssertEqual(a.questionText, "www.Example.com")
    XCTAssertTrue(a.has(HeaderFlags.recursionDesired))
    XCTAssertNil(a.opt)
    XCTAssertEqual(a.ipv4Answers, [exampleAddress])
    XCTAssertEqual(b.id, 0x2222)
    XCTAssertEqual(b.questionText, "WWW.EXAMPLE.COM")
    XCTAssertFalse(b.has(HeaderFlags.recursionDesired))
    XCTAssertNotNil(b.opt)
    XCTAssertEqual(b.ipv4Answers, [exampleAddress])
    XCTAssertEqual(harness.engine.waitersInUse, 0)
    XCTAssertEqual(harness.engine.activeTransactions, 0)

    // Over: the same question starts a new transaction.
    harness.ask(makeQuery(id: 0x3333, name: "www.example.com"), from: alice)
    XCTAssertEqual(harness.queries.count, 2)
  }

  func testDifferentTypeClassOrCDIsAskedSeparately() {
    let harness = Harness()
    harness.ask(makeQuery(id: 1, name: "www.example.com", type: .a), from: lanClient(1))
    harness.ask(makeQuery(id: 2, name: "www.example.com", type: .aaaa), from: lanClient(2))
    harness.ask(makeQuery(id: 3, name: "www.example.com", rrClass: .chaos), from: lanClient(3))
    harness.ask(
      makeQuery(
        id: 4, name: "www.example.com",
        flags: HeaderFlags.recursionDesired | HeaderFlags.checkingDisabled), from: lanClient(4))
    harness.ask(makeQuery(id: 5, name: "www.example.net", type: .a), from: lanClient(5))
    XCTAssertEqual(harness.queries.count, 5)
    XCTAssertEqual(harness.counters[.coalesced], 0)
    // ...and a repeat of the first joins it.
    harness.ask(makeQuery(id: 6, name: "WWW.example.com", type: .a), from: lanClient(6))
    XCTAssertEqual(harness.queries.count, 5)
    XCTAssertEqual(harness.counters[.coalesced], 1)
  }

  func testCoalescedClientsEachGetTheirOwnSERVFAIL() throws {
    let harness = Harness(
      "listen 127.0.0.1:53\nupstream udp 127.0.0.1:5300\ntimeout 1000ms\ninflight 16")
    harness.ask(makeQuery(id: 0xA, name: "Slow.example"), from: lanClient(1))
    harness.ask(makeQuery(id: 0xB, name: "sLOW.example", edns: EDNS()), from: lanClient(2))
    let replies = harness.advance(by: 1000)
    XCTAssertEqual(replies.count, 2)
    for reply in replies {
      let message = try decoded(reply.bytes)
      XCTAssertEqual(message.rcode, ResponseCode.serverFailure.rawValue)
      if reply.client == lanClient(1) {
        XCTAssertEqual(message.id, 0xA)
        XCTAssertEqual(message.questionText, "Slow.example")
        XCTAssertNil(message.opt)
      } else {
        XCTAssertEqual(message.id, 0xB)
        XCTAssertEqual(message.questionText, "sLOW.example")
        XCTAssertNotNil(message.opt)
      }
    }
    XCTAssertEqual(harness.counters[.servFail], 2)
    XCTAssertEqual(harness.engine.waitersInUse, 0)
  }

  func testLateClientJoinsATransactionThatWasRetriedOrFailedOver() throws {
    let harness = Harness()
    harness.ask(makeQuery(id: 1, name: "moved.example"), from: lanClient(1))
    // Retry without 0x20 moves the transaction to a new slot...
    harness.answer(makeReply(to: flippingCase(harness.queries[0].bytes)), to: harness.queries[0])
    XCTAssertEqual(harness.queries.count, 2)
    harness.ask(makeQuery(id: 2, name: "MOVED.example"), from: lanClient(2))
    XCTAssertEqual(harness.queries.count, 2, "joins the retried transaction")
    // ...and so does failing over after a timeout.
    harness.advance(by: 1000)
    XCTAssertEqual(harness.queries.count, 3)
    XCTAssertEqual(harness.queries[2].upstream, 1)
    harness.ask(makeQuery(id: 3, name: "moved.EXAMPLE"), from: lanClient(3))
    XCTAssertEqual(harness.queries.count, 3, "joins the failed-over transaction")
    XCTAssertEqual(harness.counters[.coalesced], 2)
    let replies = harness.answer(makeReply(to: harness.queries[2].bytes), to: harness.queries[2])
    XCTAssertEqual(replies.count, 3)
    let byID = try replies.map { try decoded($0.bytes) }.sorted { $0.id < $1.id }
    XCTAssertEqual(byID.map(\.id), [1, 2, 3])
    XCTAssertEqual(byID.map(\.questionText), ["moved.example", "MOVED.example", "moved.EXAMPLE"])
  }
}

/// A client that retransmits its question (same address, port and ID) while
/// the first is in flight gets one answer, not one per copy.
final class RetransmissionTests: XCTestCase {
  func testRetransmittedQueryIsAnsweredOnce() throws {
    let harness = Harness()
    let query = makeQuery(id: 0x0D0D, name: "retransmit.example")
    XCTAssertTrue(harness.ask(query).isEmpty)
    XCTAssertTrue(harness.ask(query).isEmpty)
    XCTAssertEqual(harness.queries.count, 1)
    XCTAssertEqual(harness.engine.waitersInUse, 1)
    XCTAssertEqual(harness.counters[.retransmissions], 1)
    let replies = harness.answer(makeReply(to: harness.queries[0].bytes), to: harness.queries[0])
    XCTAssertEqual(replies.count, 1)
    XCTAssertEqual(try decoded(replies[0].bytes).id, 0x0D0D)
    // Another client with the same ID is a different question-asker.
    harness.ask(query)
    harness.ask(query, from: lanClient(9))
    XCTAssertEqual(harness.engine.waitersInUse, 2)
  }
}
