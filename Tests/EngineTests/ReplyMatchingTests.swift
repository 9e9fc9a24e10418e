import CompiledConfig
import DNSWire
import Engine
import TestSupport
import XCTest

/// RFC 5452 §9.1 and the threat model: an upstream packet is accepted only if
/// transaction, source address and port, ID and the question (byte-exact,
/// 0x20 case included) all match. Anything else is counted and dropped, and
/// the real answer is still awaited.
final class ReplyMatchingTests: XCTestCase {
  /// One query in flight for `www.example.com A` from client ID 0xC1C1.
  func startOne(_ harness: Harness) -> SentQuery {
    harness.ask(makeQuery(id: 0xC1C1, name: "www.Example.com"))
    XCTAssertEqual(harness.queries.count, 1)
    return harness.queries[0]
  }

  /// The UDP pool ends an attempt itself when `handleUpstreamReply` says it
  /// is over; the engine releases nothing of the transport that called it.
  /// A forged or stray packet leaves the attempt awaited (false), so its
  /// socket keeps listening for the real answer.
  func testTheReplyCallSaysWhenTheAttemptIsOverAndReleasesNothing() {
    let harness = Harness()
    let sent = startOne(harness)
    let server = harness.engine.upstreams[0].endpoint
    var wrongID = makeReply(to: sent.bytes)
    wrongID[1] ^= 0x01
    let call = { (packet: [UInt8]) -> Bool in
      packet.withUnsafeBytes {
        harness.engine.handleUpstreamReply(
          $0, transaction: sent.handle, upstream: -1, from: server, now: harness.now,
          environment: &harness.environment)
      }
    }
    XCTAssertFalse(call(wrongID), "dropped: still awaited")
    XCTAssertFalse(call([0, 1, 2]), "too short: still awaited")
    XCTAssertTrue(call(makeReply(to: sent.bytes)), "answered: over")
    XCTAssertEqual(harness.environment.replies.count, 1)
    XCTAssertTrue(harness.environment.released.isEmpty, "no call back into the transport")
    XCTAssertTrue(call(makeReply(to: sent.bytes)), "a late copy: stale, nothing to await")
    XCTAssertEqual(harness.counters[.staleReplies], 1)
  }

  func testEveryMismatchIsDroppedAndCountedThenTheRealReplyIsAccepted() throws {
    let harness = Harness()
    let sent = startOne(harness)
    let good = makeReply(to: sent.bytes)
    let server = harness.engine.upstreams[0].endpoint

    // Wrong ID.
    var wrongID = good
    wrongID[1] ^= 0x01
    XCTAssertTrue(harness.answer(wrongID, to: sent).isEmpty)
    XCTAssertEqual(harness.counters[.mismatchedID], 1)

    // QR=0: a query, not an answer.
    var notResponse = good
    notResponse[2] &= 0x7F
    XCTAssertTrue(harness.answer(notResponse, to: sent).isEmpty)
    XCTAssertEqual(harness.counters[.mismatchedID], 2)

    // A different name of the same length, and one of another length.
    let sentName = try decoded(sent.bytes).questionText
    for other in ["www.example.org", "mail.example.com"] {
      var query = makeQuery(id: try decoded(sent.bytes).id, name: other)
      query[2] = sent.bytes[2]
      XCTAssertTrue(harness.answer(makeReply(to: query), to: sent).isEmpty, other)
    }
    XCTAssertEqual(harness.counters[.mismatchedQuestion], 2)

    // Same name, other type; same name, other class.
    let id = try decoded(sent.bytes).id
    XCTAssertTrue(
      harness.answer(makeReply(to: makeQuery(id: id, name: sentName, type: .aaaa)), to: sent)
        .isEmpty)
    XCTAssertTrue(
      harness.answer(makeReply(to: makeQuery(id: id, name: sentName, rrClass: .chaos)), to: sent)
        .isEmpty)
    XCTAssertEqual(harness.counters[.mismatchedQuestion], 4)

    // Right bytes from the wrong address, then the wrong port.
    XCTAssertTrue(
      harness.deliver(
        good, transaction: sent.handle, upstream: 0,
        from: Endpoint(address: ipv4(127, 0, 0, 9), port: server.port)
      ).isEmpty)
    XCTAssertTrue(
      harness.deliver(
        good, transaction: sent.handle, upstream: 0,
        from: Endpoint(address: server.address, port: server.port &+ 1)
      ).isEmpty)
    // From the second upstream's address: still not the one asked.
    XCTAssertTrue(
      harness.deliver(
        good, transaction: sent.handle, upstream: 1, from: harness.engine.upstreams[1].endpoint
      ).isEmpty)
    XCTAssertEqual(harness.counters[.mismatchedSource], 3)

    // A stale generation of the same slot, and a slot out of range.
    let stale = TransactionHandle(slot: sent.handle.slot, generation: sent.handle.generation &+ 1)
    XCTAssertTrue(harness.deliver(good, transaction: stale, upstream: 0, from: server).isEmpty)
    XCTAssertTrue(
      harness.deliver(
        good, transaction: TransactionHandle(slot: 1 << 20, generation: sent.handle.generation),
        upstream: 0, from: server
      ).isEmpty)
    XCTAssertEqual(harness.counters[.staleReplies], 2)

    // Over TCP (no transaction) for a query sent over UDP: no TCP query has that ID.
    XCTAssertTrue(harness.deliver(good, transaction: nil, upstream: 0, from: server).isEmpty)
    XCTAssertEqual(harness.counters[.mismatchedID], 3)

    // Garbage and a short packet on the transaction's socket.
    XCTAssertTrue(harness.answer(Array(good[0..<20]), to: sent).isEmpty)
    XCTAssertTrue(harness.answer([0x12, 0x34], to: sent).isEmpty)
    XCTAssertEqual(harness.counters[.malformedReplies], 2)

    // None of that touched the transaction.
    XCTAssertTrue(harness.replies.isEmpty)
    XCTAssertEqual(harness.engine.activeTransactions, 1)
    XCTAssertEqual(harness.counters[.mismatchedCase], 0)
    XCTAssertEqual(harness.queries.count, 1, "no drop may trigger another upstream query")

    // The real answer is still accepted.
    let replies = harness.answer(good, to: sent)
    XCTAssertEqual(replies.count, 1)
    let reply = try decoded(replies.first?.bytes ?? [])
    XCTAssertEqual(reply.id, 0xC1C1)
    XCTAssertEqual(reply.questionText, "www.Example.com")
    XCTAssertEqual(reply.ipv4Answers, [exampleAddress])
    XCTAssertEqual(harness.counters[.answered], 1)

    // A second copy arrives after the transaction is over: stale.
    XCTAssertTrue(harness.answer(good, to: sent).isEmpty)
    XCTAssertEqual(harness.counters[.staleReplies], 3)
  }

  func testTrailingPaddingAfterTheRecordsIsAccepted() throws {
    let harness = Harness()
    let sent = startOne(harness)
    let replies = harness.answer(makeReply(to: sent.bytes) + [0, 0, 0, 0], to: sent)
    XCTAssertEqual(replies.count, 1)
    let reply = try decoded(replies.first?.bytes ?? [])
    XCTAssertEqual(reply.id, 0xC1C1)
  }

  func testWrongCaseIsRetriedWithout0x20ToTheSameUpstream() throws {
    let harness = Harness()
    let sent = startOne(harness)
    let sentName = try decoded(sent.bytes).questionText
    // Same letters, one of them in the other case.
    let forged = makeReply(to: flippingCase(sent.bytes))
    XCTAssertTrue(harness.answer(forged, to: sent).isEmpty)
    XCTAssertEqual(harness.counters[.mismatchedCase], 1)
    XCTAssertEqual(harness.counters[.retried], 1)
    XCTAssertEqual(harness.queries.count, 2)
    let retry = harness.queries[1]
    XCTAssertEqual(retry.upstream, 0, "retried on the same upstream")
    XCTAssertEqual(retry.transport, .udp)
    XCTAssertNotEqual(retry.handle, sent.handle)
    XCTAssertTrue(
      harness.environment.released.contains(Released(handle: sent.handle, transport: .udp)))
    let retried = try decoded(retry.bytes)
    XCTAssertEqual(retried.questionText, sentName.lowercased(), "the retry is sent without 0x20")
    XCTAssertNotEqual(retried.id, try decoded(sent.bytes).id)
    // One mismatch is not enough to give up 0x20 for the upstream.
    XCTAssertTrue(harness.engine.selection.usesCaseRandomization(0, under: harness.engine.settings))
    XCTAssertTrue(harness.environment.events.isEmpty)

    // The late original is stale; the retry's answer goes to the client.
    XCTAssertTrue(harness.answer(makeReply(to: sent.bytes), to: sent).isEmpty)
    XCTAssertEqual(harness.counters[.staleReplies], 1)
    let replies = harness.answer(makeReply(to: retry.bytes), to: retry)
    let reply = try decoded(replies.first?.bytes ?? [])
    XCTAssertEqual(reply.id, 0xC1C1)
    XCTAssertEqual(reply.questionText, "www.Example.com")
    XCTAssertEqual(harness.engine.activeTransactions, 0)
  }

  func testRepeatedCaseMismatchesDisable0x20ForThatUpstream() throws {
    let harness = Harness()
    for (index, name) in ["alpha.example.com", "bravo.example.com"].enumerated() {
      harness.ask(makeQuery(id: UInt16(index), name: name))
      let sent = harness.queries.last!
      XCTAssertEqual(sent.upstream, 0)
      XCTAssertTrue(harness.answer(makeReply(to: flippingCase(sent.bytes)), to: sent).isEmpty)
      let retry = harness.queries.last!
      XCTAssertEqual(try decoded(retry.bytes).questionText, name)
      XCTAssertEqual(harness.answer(makeReply(to: retry.bytes), to: retry).count, 1)
    }
    XCTAssertEqual(harness.counters[.mismatchedCase], 2)
    XCTAssertFalse(
      harness.engine.selection.usesCaseRandomization(0, under: harness.engine.settings))
    XCTAssertTrue(
      harness.engine.selection.usesCaseRandomization(1, under: harness.engine.settings),
      "only the offending upstream")
    XCTAssertEqual(
      harness.environment.events, [Reported(event: .caseRandomizationDisabled, upstream: 0)])

    // From now on upstream 0 gets plain lower case, and its answers are accepted.
    harness.ask(makeQuery(id: 9, name: "CHARLIE.Example.Com"))
    let plain = harness.queries.last!
    XCTAssertEqual(try decoded(plain.bytes).questionText, "charlie.example.com")
    let reply = try decoded(
      harness.answer(makeReply(to: plain.bytes), to: plain).first?.bytes ?? [])
    XCTAssertEqual(reply.questionText, "CHARLIE.Example.Com")
  }

  func testRetryWithoutCaseRandomizationAcceptsAnyCase() throws {
    let harness = Harness()
    let sent = startOne(harness)
    harness.answer(makeReply(to: flippingCase(sent.bytes)), to: sent)
    let retry = harness.queries[1]
    // The retry went out without 0x20, so its case proves nothing: an answer
    // in another case is accepted rather than dropped or retried again.
    XCTAssertEqual(try decoded(retry.bytes).questionText, "www.example.com")
    let replies = harness.answer(makeReply(to: flippingCase(retry.bytes)), to: retry)
    XCTAssertEqual(replies.count, 1)
    XCTAssertEqual(harness.counters[.mismatchedCase], 1)
    XCTAssertEqual(harness.queries.count, 2)
    // One mismatch is not enough to turn 0x20 off for the upstream.
    XCTAssertTrue(harness.engine.selection.usesCaseRandomization(0, under: harness.engine.settings))
  }

  /// Found by the engine fuzzer (Tests/Fuzz/engine.swift): a record whose
  /// owner is a pointer into the header reads as a name only while the
  /// header holds the upstream's ID. Relayed with the client's ID it read as
  /// a pointer past the end, so the client got a message that does not
  /// parse (and the cache kept it). No name is ever in the header
  /// (RFC 1035 §4.1.4): such a reply is malformed. The same for a CNAME
  /// target, which the client would read as whatever its own ID spells.
  func testANamePointingIntoTheHeaderIsMalformed() throws {
    // With ID 0300, offset 0 reads as the label 03 (00 81 80), then the
    // root (QDCOUNT's first octet); with ID CD01 it is a pointer to 0x0D01.
    let records = [
      "owner": "c000 0001 0001 00000e10 0004 5db8d822",
      "CNAME target": "c00c 0005 0001 00000e10 0002 c000",
    ]
    for (place, record) in records {
      let harness = Harness()
      harness.environment.scriptedRandom = [0x0300, 0]
      harness.ask(makeQuery(id: 0xCD01, name: "example.com"))
      let sent = harness.queries[0]
      let packet = wire(
        "0300 8180 0001 0001 0000 0000", "07 'example' 03 'com' 00 0001 0001", record)
      let replies = harness.answer(packet, to: sent)
      for reply in replies { XCTAssertNotNil(decode(reply.bytes), hexString(reply.bytes)) }
      XCTAssertTrue(replies.isEmpty, place)
      XCTAssertEqual(harness.counters[.malformedReplies], 1, place)
      XCTAssertEqual(harness.engine.activeTransactions, 1, place)
    }
  }

  /// Hostile upstream packets for an in-flight question (ID 0x5151,
  /// example.com A IN, sent without 0x20): each is dropped and counted, and
  /// the real answer is still accepted afterwards.
  func testMalformedUpstreamRepliesAreDroppedAndTheRealAnswerAwaited() throws {
    let harness = Harness()
    harness.environment.scriptedRandom = [0x5151, 0]
    harness.ask(makeQuery(id: 0x0A0A, name: "example.com"))
    let sent = harness.queries[0]
    let head = "5151 8180"  // ID as sent, QR=1 RD=1 RA=1
    let question = "07 'example' 03 'com' 00 0001 0001"  // 12..<29
    let malformed: [(String, [UInt8])] = [
      ("question cut", wire(head, "0001 0000 0000 0000 07 'exam'")),
      ("ANCOUNT past the end", wire(head, "0001 0001 0000 0000", question)),
      (
        "RDATA past the end",
        wire(head, "0001 0001 0000 0000", question, "c00c 0001 0001 00000e10 0004 5db8")
      ),
      (
        "forward pointer",
        wire(head, "0001 0001 0000 0000", question, "c030 0001 0001 00000e10 0004 5db8d822")
      ),
      (
        "pointer to itself",
        wire(head, "0001 0001 0000 0000", question, "c01d 0001 0001 00000e10 0004 5db8d822")
      ),
      (
        "pointer past the end",
        wire(head, "0001 0001 0000 0000", question, "ffff 0001 0001 00000e10 0004 5db8d822")
      ),
      (
        "reserved label type",
        wire(head, "0001 0001 0000 0000", question, "80 0001 0001 00000e10 0004 5db8d822")
      ),
      (
        "OPT in the answers",
        wire(head, "0001 0001 0000 0000", question, "00 0029 1000 00000000 0000")
      ),
      (
        "two OPTs",
        wire(
          head, "0001 0000 0000 0002", question,
          "00 0029 1000 00000000 0000 00 0029 1000 00000000 0000")
      ),
      (
        "OPT option cut",
        wire(head, "0001 0000 0000 0001", question, "00 0029 1000 00000000 0002 000a")
      ),
      ("two questions", wire(head, "0002 0000 0000 0000", question, question)),
      ("header only", [0x51, 0x51, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0]),
    ]
    for (index, (label, packet)) in malformed.enumerated() {
      XCTAssertTrue(harness.answer(packet, to: sent).isEmpty, label)
      XCTAssertEqual(harness.counters[.malformedReplies], UInt64(index + 1), label)
    }
    // Well-formed but not an answer to this question.
    let noQuestion = wire(head, "0000 0000 0000 0000")
    XCTAssertTrue(harness.answer(noQuestion, to: sent).isEmpty)
    let compressedQuestion = wire(head, "0001 0001 0000 0000", "c00c 0001 0001")
    XCTAssertTrue(harness.answer(compressedQuestion, to: sent).isEmpty)
    XCTAssertEqual(harness.counters[.mismatchedQuestion] + harness.counters[.malformedReplies], 14)
    XCTAssertEqual(harness.queries.count, 1)
    XCTAssertTrue(harness.replies.isEmpty)
    XCTAssertEqual(harness.engine.activeTransactions, 1)

    let replies = harness.answer(makeReply(to: sent.bytes), to: sent)
    XCTAssertEqual(try decoded(replies.first?.bytes ?? []).id, 0x0A0A)
  }
}
