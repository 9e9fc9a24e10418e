import CompiledConfig
import DNSWire
import Engine
import TestSupport
import XCTest

/// The transaction table and the waiter pool are fixed at `inflight`; when
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
    XCTAssertEqual(harness.counters[.ringFull], 1)
    // Joining a question in flight needs a waiter too, and there is none.
    let joined = harness.ask(makeQuery(id: 0x1818, name: "n3.example"), from: lanClient(98))
    XCTAssertEqual(
      try decoded(joined.first?.bytes ?? []).rcode, ResponseCode.serverFailure.rawValue)
    XCTAssertEqual(harness.counters[.ringFull], 2)
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
    XCTAssertEqual(harness.counters[.timeouts], 16)
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
    XCTAssertEqual(harness.counters[.ringFull], 0)
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

  func testRetryInAFullRingKeepsItsSlot() throws {
    let harness = Harness()
    fill(harness, prefix: "c")
    // A truncated answer for a transaction that is not the oldest starts a
    // new attempt (over TCP) in the same slot: nothing is lost to a full table.
    let victim = harness.queries[5]
    let immediate = harness.answer(
      makeReply(to: victim.bytes, truncated: true, addresses: []), to: victim)
    harness.assertWithinCapacity()
    XCTAssertTrue(immediate.isEmpty)
    XCTAssertEqual(harness.counters[.ringFull], 0)
    let retry = harness.queries.last!
    XCTAssertEqual(retry.transport, .tcp)
    XCTAssertNotEqual(retry.handle, victim.handle, "a new attempt has a new generation")
    XCTAssertEqual(harness.answer(makeReply(to: retry.bytes), to: retry).count, 1)
    while harness.engine.nextDeadline != nil { harness.advance(by: 1000) }
    let ids = try harness.replies.map { try decoded($0.bytes).id }.sorted()
    XCTAssertEqual(ids, (0..<16).map { UInt16($0) }, "every client answered exactly once")
  }

  /// A slot whose answer came back is free at once, even while older
  /// questions are still waiting: one slow question does not hold the
  /// capacity of the ones answered after it.
  func testAnsweredSlotsAreReusableWhileAnOlderQuestionWaits() throws {
    let harness = Harness()
    fill(harness, prefix: "d")
    for query in harness.queries.dropFirst() {
      XCTAssertEqual(harness.answer(makeReply(to: query.bytes), to: query).count, 1)
    }
    XCTAssertEqual(harness.engine.activeTransactions, 1)
    XCTAssertTrue(harness.advance(by: 500).isEmpty)
    for index in 0..<15 {
      XCTAssertTrue(
        harness.ask(makeQuery(id: UInt16(100 + index), name: "e\(index).example")).isEmpty)
    }
    XCTAssertEqual(harness.counters[.ringFull], 0)
    XCTAssertEqual(harness.engine.activeTransactions, 16)
    // The oldest one still expires first, and alone: it moves on to the
    // second upstream in a new attempt.
    let oldest = harness.queries[0]
    XCTAssertTrue(harness.advance(by: 500).isEmpty)
    XCTAssertEqual(harness.queries.count, 32, "only the oldest timed out")
    XCTAssertEqual(harness.queries.last?.upstream, 1)
    XCTAssertEqual(harness.queries.last?.handle.slot, oldest.handle.slot)
    XCTAssertNotEqual(harness.queries.last?.handle, oldest.handle)
  }
}
