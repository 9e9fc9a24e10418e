import CompiledConfig
import DNSWire
import XCTest

@testable import Engine

/// `hold-on`: the first UDP answer waits a short window for a second one;
/// when two differ, the one shaped like the upstream's usual answers wins.
final class HoldOnTests: XCTestCase {
  static let forged: [UInt8] = [198, 51, 100, 66]

  func makeHarness(holdOn: UInt32 = 50) -> Harness {
    Harness { $0.holdOnMilliseconds = holdOn }
  }

  func testASingleAnswerIsRelayedWhenTheWindowEnds() throws {
    let harness = makeHarness()
    harness.ask(makeQuery(id: 1, name: "www.example"))
    let query = harness.queries[0]
    XCTAssertTrue(harness.answer(makeReply(to: query.bytes), to: query).isEmpty, "held")
    XCTAssertEqual(harness.engine.nextDeadline, harness.now + 50)
    XCTAssertTrue(harness.advance(by: 49).isEmpty)
    let replies = harness.advance(by: 1)
    XCTAssertEqual(try decoded(try XCTUnwrap(replies.first).bytes).ipv4Answers, [exampleAddress])
    XCTAssertEqual(harness.counters[.holdOnConflicts], 0)
    XCTAssertEqual(harness.engine.activeTransactions, 0)
    XCTAssertNil(harness.engine.nextDeadline)
  }

  func testAForgedFirstAnswerWithoutEDNSLosesToTheRealOne() throws {
    let harness = makeHarness()
    harness.ask(makeQuery(id: 1, name: "www.example"))
    let query = harness.queries[0]
    harness.answer(makeReply(to: query.bytes, addresses: [Self.forged], withOPT: false), to: query)
    harness.advance(by: 20)
    let replies = harness.answer(makeReply(to: query.bytes), to: query)
    XCTAssertEqual(try decoded(try XCTUnwrap(replies.first).bytes).ipv4Answers, [exampleAddress])
    XCTAssertEqual(harness.counters[.holdOnConflicts], 1)
    XCTAssertEqual(harness.counters[.holdOnReplaced], 1)
    XCTAssertEqual(harness.environment.defences.map(\.event), [.holdOnConflict])
    XCTAssertTrue(harness.advance(by: 100).isEmpty, "answered once")
  }

  func testAForgedSecondAnswerWithoutEDNSLosesToTheFirst() throws {
    let harness = makeHarness()
    harness.ask(makeQuery(id: 1, name: "www.example"))
    let query = harness.queries[0]
    harness.answer(makeReply(to: query.bytes), to: query)
    let replies = harness.answer(
      makeReply(to: query.bytes, addresses: [Self.forged], withOPT: false), to: query)
    XCTAssertEqual(try decoded(try XCTUnwrap(replies.first).bytes).ipv4Answers, [exampleAddress])
    XCTAssertEqual(harness.counters[.holdOnConflicts], 1)
    XCTAssertEqual(harness.counters[.holdOnReplaced], 0)
  }

  func testTheUsualIPTTLDecidesBetweenTwoAnswersWithEDNS() throws {
    let harness = makeHarness()
    // An undisputed answer teaches the upstream's usual TTL: 61.
    harness.ask(makeQuery(id: 1, name: "a.example"))
    harness.answer(makeReply(to: harness.queries[0].bytes), to: harness.queries[0], ipTTL: 61)
    harness.advance(by: 50)
    // The real answer first with TTL 61, a forged one with EDNS but TTL 250.
    harness.ask(makeQuery(id: 2, name: "b.example"))
    var query = harness.queries[1]
    harness.answer(makeReply(to: query.bytes), to: query, ipTTL: 61)
    var replies = harness.answer(
      makeReply(to: query.bytes, addresses: [Self.forged]), to: query, ipTTL: 250)
    XCTAssertEqual(try decoded(try XCTUnwrap(replies.first).bytes).ipv4Answers, [exampleAddress])
    // And the other way round.
    harness.ask(makeQuery(id: 3, name: "c.example"))
    query = harness.queries[2]
    harness.answer(makeReply(to: query.bytes, addresses: [Self.forged]), to: query, ipTTL: 250)
    replies = harness.answer(makeReply(to: query.bytes), to: query, ipTTL: 61)
    XCTAssertEqual(try decoded(try XCTUnwrap(replies.first).bytes).ipv4Answers, [exampleAddress])
    XCTAssertEqual(harness.counters[.holdOnConflicts], 2)
    XCTAssertEqual(harness.counters[.holdOnReplaced], 1)
  }

  func testTheSameAnswerTwiceIsNoConflictAndALaterErrorChangesNothing() throws {
    let harness = makeHarness()
    harness.ask(makeQuery(id: 1, name: "www.example"))
    let query = harness.queries[0]
    harness.answer(makeReply(to: query.bytes), to: query)
    XCTAssertTrue(harness.answer(makeReply(to: query.bytes), to: query).isEmpty)
    XCTAssertTrue(
      harness.answer(makeReply(to: query.bytes, rcode: .serverFailure), to: query).isEmpty)
    XCTAssertTrue(harness.answer(flippingCase(makeReply(to: query.bytes)), to: query).isEmpty)
    XCTAssertEqual(harness.queries.count, 1, "no retry or failover while an answer is held")
    let replies = harness.advance(by: 50)
    XCTAssertEqual(try decoded(try XCTUnwrap(replies.first).bytes).ipv4Answers, [exampleAddress])
    XCTAssertEqual(harness.counters[.holdOnConflicts], 0)
  }

  func testWhenEveryBufferIsTakenAnswersGoOutAtOnce() throws {
    // 16 ring slots, so 16 hold buffers: a 17th concurrent answer cannot be
    // held. Use a ring of 64 with 64 buffers and ask 65 names.
    let harness = Harness(
      twoUpstreams.replacingOccurrences(of: "inflight 16", with: "inflight 128")
    ) {
      $0.holdOnMilliseconds = 50
    }
    for index in 0..<65 {
      harness.ask(makeQuery(id: UInt16(index), name: "n\(index).example"))
    }
    var immediate = 0
    for query in harness.queries {
      immediate += harness.answer(makeReply(to: query.bytes), to: query).count
    }
    XCTAssertEqual(immediate, 1, "64 held, the 65th relayed at once")
    XCTAssertEqual(harness.advance(by: 50).count, 64)
    // The buffers are back: the next answer is held again.
    harness.ask(makeQuery(id: 99, name: "again.example"))
    XCTAssertTrue(
      harness.answer(makeReply(to: harness.queries[65].bytes), to: harness.queries[65]).isEmpty)
  }

  /// Found by the engine fuzzer (Tests/Fuzz/engine.swift): a second answer
  /// larger than a hold buffer (the advertised EDNS size; a UDP answer may
  /// still be larger) was copied over the held one without a length check,
  /// writing past the buffer: into the next held answer, or past the pool.
  /// It cannot be held, so it cannot replace the held answer, which goes out.
  func testASecondAnswerLargerThanTheBufferDoesNotReplaceTheHeldOne() throws {
    let harness = makeHarness()
    harness.ask(makeQuery(id: 1, name: "www.example", edns: EDNS()))
    let query = harness.queries[0]
    XCTAssertTrue(harness.answer(makeReply(to: query.bytes), to: query).isEmpty, "held")
    // 100 A records: 1,600 octets of records, more than the 1232 of a buffer.
    let large = makeReply(to: query.bytes, addresses: manyAddresses(100))
    XCTAssertGreaterThan(large.count, 1232)
    let replies = harness.answer(large, to: query)
    let reply = try decoded(try XCTUnwrap(replies.first).bytes)
    XCTAssertEqual(reply.ipv4Answers, [exampleAddress], "the held answer")
    XCTAssertEqual(harness.counters[.holdOnConflicts], 1)
    XCTAssertEqual(harness.counters[.holdOnReplaced], 0)
    XCTAssertTrue(harness.advance(by: 100).isEmpty, "answered once")
  }

  func testTCPAnswersAreNeverHeld() throws {
    let harness = Harness("listen 127.0.0.1:53\nupstream tcp 127.0.0.1:5353") {
      $0.holdOnMilliseconds = 50
    }
    harness.ask(makeQuery(id: 1, name: "www.example"))
    XCTAssertEqual(
      harness.answer(makeReply(to: harness.queries[0].bytes), to: harness.queries[0]).count, 1)
  }

  /// The pool's own slot table: a slot holds nothing until it holds a
  /// buffer and again after its release, so a reused slot starts empty; with
  /// `hold-on` off no slot ever holds anything.
  func testASlotHoldsABufferOnlyUntilItsRelease() {
    var pool = HoldPool(capacity: 2, bufferBytes: 512, slotCapacity: 8)
    defer { pool.deallocate() }
    XCTAssertEqual(pool.heldBuffer(of: 5), -1)
    let answer: [UInt8] = [1, 2, 3]
    let buffer = answer.withUnsafeBytes { pool.keep($0) }
    XCTAssertEqual(buffer, 1, "the free stack's top")
    pool.hold(slot: 5, buffer: buffer!, digest: 42, score: 3, ipTTL: 60)
    XCTAssertEqual(pool.heldBuffer(of: 5), 1)
    XCTAssertEqual(pool.heldBuffer(of: 4), -1, "one entry per slot")
    XCTAssertEqual(pool.answers[1].digest, 42)
    XCTAssertEqual(pool.answers[1].ipTTL, 60)
    pool.release(slot: 5)
    XCTAssertEqual(pool.heldBuffer(of: 5), -1)

    let off = HoldPool(capacity: 0, bufferBytes: 512, slotCapacity: 8)
    defer { off.deallocate() }
    off.release(slot: 7)
    XCTAssertEqual(off.heldBuffer(of: 7), -1)
  }
}
