import CompiledConfig
import DNSWire
import Engine
import XCTest

/// The transaction ring and the waiter pool are fixed at `inflight`; when
/// full, the defined behaviour is an immediate, counted SERVFAIL.
final class RingTests: XCTestCase {
  static let oneUpstream = """
    listen 127.0.0.1:53
    upstream udp 127.0.0.1:5300
    timeout 1000ms
    inflight 16
    """

  func fill(_ harness: Harness, prefix: String) {
    for index in 0..<16 {
      XCTAssertTrue(
        harness.ask(
          makeQuery(id: UInt16(index), name: "\(prefix)\(index).example"),
          from: lanClient(UInt8(index + 1))
        )
        .isEmpty)
      harness.assertWithinCapacity()
    }
    XCTAssertEqual(harness.engine.activeTransactions, 16)
    XCTAssertEqual(harness.engine.waitersInUse, 16)
  }

  func testSeventeenthQuestionGetsSERVFAILUntilTheRingDrains() throws {
    let harness = Harness(Self.oneUpstream)
    fill(harness, prefix: "n")
    XCTAssertEqual(harness.queries.count, 16)

    let refused = harness.ask(makeQuery(id: 0x1717, name: "Seventeen.example"), from: lanClient(99))
    XCTAssertEqual(refused.count, 1)
    assertBytes(
      refused.first?.bytes ?? [],
      wire(
        "1717",  // 0  ID
        "8182",  // 2  QR=1 RD=1 RA=1 SERVFAIL
        "0001 0000 0000 0000",  // 4  QD=1
        "09 'Seventeen' 07 'example' 00",  // 12 QNAME as asked
        "0001 0001"  // 31 A IN
      ))
    XCTAssertEqual(harness.counters.ringFull, 1)
    // Joining a question in flight needs a waiter too, and there is none.
    let joined = harness.ask(makeQuery(id: 0x1818, name: "n3.example"), from: lanClient(98))
    XCTAssertEqual(
      try decoded(joined.first?.bytes ?? []).rcode, ResponseCode.serverFailure.rawValue)
    XCTAssertEqual(harness.counters.ringFull, 2)
    XCTAssertEqual(harness.queries.count, 16)
    harness.assertWithinCapacity()

    // Every answer arrives: the ring is empty and works again.
    for query in harness.queries {
      XCTAssertEqual(harness.answer(makeReply(to: query.bytes), to: query).count, 1)
      harness.assertWithinCapacity()
    }
    XCTAssertEqual(harness.engine.activeTransactions, 0)
    XCTAssertEqual(harness.engine.waitersInUse, 0)
    XCTAssertTrue(harness.ask(makeQuery(id: 0x1919, name: "again.example")).isEmpty)
    XCTAssertEqual(harness.queries.count, 17)

    // Many more rounds than slots: generations keep the handles apart.
    for round in 0..<5 {
      let sent = harness.queries.last!
      XCTAssertEqual(harness.answer(makeReply(to: sent.bytes), to: sent).count, 1)
      fill(harness, prefix: "r\(round)-")
      for query in harness.queries.suffix(16) {
        XCTAssertEqual(harness.answer(makeReply(to: query.bytes), to: query).count, 1)
      }
      harness.ask(makeQuery(id: 0x2000 + UInt16(round), name: "next\(round).example"))
    }
  }

  func testRingDrainsByTimeout() throws {
    let harness = Harness(Self.oneUpstream)
    fill(harness, prefix: "t")
    let failures = harness.advance(by: 1000)
    XCTAssertEqual(failures.count, 16)
    for reply in failures {
      XCTAssertEqual(try decoded(reply.bytes).rcode, ResponseCode.serverFailure.rawValue)
    }
    XCTAssertEqual(harness.counters.timeouts, 16)
    XCTAssertEqual(harness.engine.activeTransactions, 0)
    XCTAssertEqual(harness.engine.waitersInUse, 0)
    XCTAssertTrue(harness.ask(makeQuery(id: 1, name: "fresh.example")).isEmpty)
    XCTAssertEqual(harness.queries.count, 17)
  }

  func testFullRingStillFailsOverEveryTransaction() throws {
    let harness = Harness()
    fill(harness, prefix: "f")
    // Each expired slot is freed before its next attempt takes a slot.
    XCTAssertTrue(harness.advance(by: 1000).isEmpty)
    harness.assertWithinCapacity()
    XCTAssertEqual(harness.counters.ringFull, 0)
    XCTAssertEqual(harness.queries.count, 32)
    XCTAssertEqual(harness.queries.suffix(16).map(\.upstream), Array(repeating: 1, count: 16))
    XCTAssertEqual(harness.engine.activeTransactions, 16)
    for query in harness.queries.suffix(16) {
      XCTAssertEqual(harness.answer(makeReply(to: query.bytes), to: query).count, 1)
    }
    let ids = try harness.replies.map { try decoded($0.bytes).id }.sorted()
    XCTAssertEqual(ids, (0..<16).map { UInt16($0) })
    XCTAssertEqual(harness.engine.activeTransactions, 0)
  }

  func testRetryInAFullRingIsCountedNotLost() throws {
    let harness = Harness()
    fill(harness, prefix: "c")
    // A truncated answer for a transaction that is not the oldest needs a
    // new slot; whatever the engine does, the client is answered exactly
    // once and the counts stay within capacity.
    let victim = harness.queries[5]
    let immediate = harness.answer(
      makeReply(to: victim.bytes, truncated: true, addresses: []), to: victim)
    harness.assertWithinCapacity()
    if immediate.isEmpty {
      let retry = harness.queries.last!
      XCTAssertEqual(retry.transport, .tcp)
      XCTAssertEqual(harness.answer(makeReply(to: retry.bytes), to: retry).count, 1)
    } else {
      XCTAssertEqual(try decoded(immediate[0].bytes).id, 5)
      XCTAssertEqual(harness.counters.ringFull, 1)
    }
    while harness.engine.nextDeadline != nil { harness.advance(by: 1000) }
    let ids = try harness.replies.map { try decoded($0.bytes).id }.sorted()
    XCTAssertEqual(ids, (0..<16).map { UInt16($0) }, "every client answered exactly once")
  }
}
