import CompiledConfig
import DNSWire
import Engine
import TestSupport
import XCTest

/// `dnssec on` in the engine (Sources/Engine/Validation/Validation.swift): what goes
/// upstream, what waits for a chain of trust, and what a client gets when
/// the chain cannot be had. The messages are signed only in form (an RRSIG
/// naming its signer): these tests are about the plumbing around the
/// validator, which needs the signer's DNSKEY before anything else.
final class ValidationPlumbingTests: XCTestCase {
  static let config = """
    listen 127.0.0.1:53
    upstream udp 127.0.0.1:5300
    upstream udp 127.0.0.2:5300
    timeout 1000ms
    inflight 16
    cache 256
    cache-bytes 256k
    dnssec on
    dnssec-root off
    trust-anchor example. IN 3600 DNSKEY 257 3 15 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
    """

  static let withEDNS = EDNS()

  /// An upstream answer to `query` whose A record is followed by an RRSIG
  /// (algorithm 15) made by `signer`, and an OPT.
  func signedReply(to query: [UInt8], signer: String = "example", ttl: UInt32 = 300) -> [UInt8] {
    signedReply(to: query, signer: signer, ttl: ttl, addresses: [exampleAddress])
  }

  func signedReply(
    to query: [UInt8], signer: String, ttl: UInt32, addresses: [[UInt8]]
  ) -> [UInt8] {
    guard let decoded = decode(query) else { fatalError("captured query must parse") }
    return build { (writer: inout MessageWriter) throws(WireError) in
      try writer.writeHeader(
        id: decoded.id, flags: replyFlags(to: decoded), questions: 1,
        answers: UInt16(addresses.count + 1), additionals: 1)
      try writeBytes(&writer, decoded.questionBytes)
      for address in addresses {
        try writeAddressRecord(&writer, address, ttl: ttl)
      }
      let signerName = wireName(signer)
      try writer.writeUInt16(0xC000 | UInt16(HeaderField.size))
      try writer.writeUInt16(RRType.rrsig.rawValue)
      try writer.writeUInt16(RRClass.internet.rawValue)
      try writer.writeUInt32(ttl)
      try writer.writeUInt16(UInt16(18 + signerName.count + 64))
      try writer.writeUInt16(decoded.questionType.rawValue)  // type covered
      try writer.writeUInt8(15)  // algorithm
      try writer.writeUInt8(2)  // labels
      try writer.writeUInt32(ttl)  // original TTL
      try writer.writeUInt32(0xFFFF_FFF0)  // expiration
      try writer.writeUInt32(0)  // inception
      try writer.writeUInt16(12_345)  // key tag
      try writeBytes(&writer, signerName)
      try writeBytes(&writer, [UInt8](repeating: 0xA5, count: 64))
      try writer.writeOPT(udpPayloadSize: 4096, dnssecOK: true)
    }
  }

  /// The upstream queries asking (name, type), in order.
  func queries(_ harness: Harness, for name: String, _ type: RRType) -> [SentQuery] {
    harness.queries.filter {
      guard let decoded = decode($0.bytes) else { return false }
      return decoded.questionText.lowercased() == name && decoded.questionType == type
    }
  }

  // MARK: Upstream queries

  func testEveryUpstreamQueryCarriesDOAndCDWhenValidating() throws {
    let harness = Harness(Self.config)
    harness.ask(makeQuery(id: 1, name: "www.example"))
    let sent = try XCTUnwrap(decode(try XCTUnwrap(harness.queries.last).bytes))
    XCTAssertTrue(sent.has(HeaderFlags.checkingDisabled), "CD=1 upstream (RFC 6840 §5.9)")
    XCTAssertEqual(sent.opt?.dnssecOK, true, "DO=1 upstream although the client sent no EDNS")
  }

  func testWithoutDNSSECTheClientsBitsGoUpstream() throws {
    let harness = Harness(Self.config.replacingOccurrences(of: "dnssec on", with: "dnssec off"))
    harness.ask(makeQuery(id: 1, name: "www.example"))
    let sent = try XCTUnwrap(decode(try XCTUnwrap(harness.queries.last).bytes))
    XCTAssertFalse(sent.has(HeaderFlags.checkingDisabled))
    XCTAssertEqual(sent.opt?.dnssecOK, false)
    harness.answer(signedReply(to: harness.queries[0].bytes), to: harness.queries[0])
    XCTAssertEqual(harness.queries.count, 1, "nothing fetched without dnssec")
  }

  // MARK: CD=1

  func testACheckingDisabledClientGetsTheAnswerUnvalidated() throws {
    let harness = Harness(Self.config)
    let query = makeQuery(
      id: 1, name: "www.example",
      flags: HeaderFlags.recursionDesired | HeaderFlags.checkingDisabled, edns: Self.withEDNS)
    harness.ask(query)
    let sent = try XCTUnwrap(harness.queries.last)
    let replies = harness.answer(signedReply(to: sent.bytes), to: sent)
    let reply = try XCTUnwrap(decode(try XCTUnwrap(replies.first).bytes))
    XCTAssertEqual(reply.rcode, 0)
    XCTAssertEqual(reply.ipv4Answers, [exampleAddress])
    XCTAssertFalse(reply.has(HeaderFlags.authenticData))
    XCTAssertEqual(harness.queries.count, 1, "no chain fetched for CD=1 (RFC 4035 §3.2.2)")
    XCTAssertEqual(harness.counters[.dnssecInsecure] + harness.counters[.dnssecSecure], 0)
    // Cached under its CD=1 key, unchecked: a CD=1 client gets it from the
    // cache, a CD=0 client does not.
    XCTAssertEqual(harness.ask(query).count, 1)
    XCTAssertEqual(harness.counters[.cacheHits], 1)
    XCTAssertTrue(harness.ask(makeQuery(id: 3, name: "www.example", edns: Self.withEDNS)).isEmpty)
    XCTAssertEqual(harness.queries.count, 2)
  }

  func testAnUncheckedEntryIsAMissForAValidatingClient() throws {
    let harness = Harness(Self.config)
    // As a cache file loads it: validation state 0 (unchecked).
    let question = makeQuery(id: 0, name: "www.example")
    let stored = makeReply(to: question, withOPT: false)
    stored.withUnsafeBytes { message in
      wireName("www.example").withUnsafeBytes { name in
        XCTAssertTrue(
          harness.engine.cache.insert(
            name: name, type: .a, rrClass: .internet, keyFlags: 0, message: message,
            now: harness.now, expiresAt: harness.now + 600_000))
      }
    }
    XCTAssertTrue(harness.ask(makeQuery(id: 1, name: "www.example")).isEmpty)
    XCTAssertEqual(harness.queries.count, 1, "asked upstream instead")
    XCTAssertEqual(harness.counters[.cacheHits], 0)
  }

  // MARK: Chain fetches

  func testAMissingDNSKEYIsFetchedAndJoined() throws {
    let harness = Harness(Self.config)
    harness.ask(makeQuery(id: 1, name: "www.example", edns: Self.withEDNS))
    let first = try XCTUnwrap(harness.queries.last)
    XCTAssertTrue(harness.answer(signedReply(to: first.bytes), to: first).isEmpty, "waits")
    let fetches = queries(harness, for: "example", .dnskey)
    XCTAssertEqual(fetches.count, 1)
    let fetch = try XCTUnwrap(decode(try XCTUnwrap(fetches.first).bytes))
    XCTAssertEqual(fetch.opt?.dnssecOK, true)
    XCTAssertTrue(fetch.has(HeaderFlags.checkingDisabled))
    XCTAssertEqual(harness.counters[.dnssecFetches], 1)
    XCTAssertEqual(harness.engine.activeTransactions, 2, "the client's slot and the fetch")
    // A second answer signed by the same zone joins the fetch in flight.
    harness.ask(makeQuery(id: 2, name: "mail.example", edns: Self.withEDNS))
    let second = try XCTUnwrap(harness.queries.last)
    XCTAssertTrue(harness.answer(signedReply(to: second.bytes), to: second).isEmpty)
    XCTAssertEqual(queries(harness, for: "example", .dnskey).count, 1)
    XCTAssertEqual(harness.counters[.dnssecFetches], 1)
    // The parked slot is not failed over when its timeout passes.
    harness.advance(by: 1500)
    XCTAssertEqual(queries(harness, for: "www.example", .a).count, 1)
  }

  func testAChainFetchThatFailsMakesItsWaitersBogus() throws {
    let harness = Harness(Self.config)
    harness.ask(makeQuery(id: 1, name: "www.example", edns: Self.withEDNS))
    harness.ask(makeQuery(id: 2, name: "www.example", edns: nil))
    let sent = try XCTUnwrap(harness.queries.last)
    harness.answer(signedReply(to: sent.bytes), to: sent)
    // Both upstreams SERVFAIL the DNSKEY question.
    for _ in 0..<2 {
      let fetch = try XCTUnwrap(queries(harness, for: "example", .dnskey).last)
      harness.answer(makeReply(to: fetch.bytes, rcode: .serverFailure, addresses: []), to: fetch)
    }
    XCTAssertEqual(queries(harness, for: "example", .dnskey).count, 2)
    let replies = harness.advance(by: 1)
    XCTAssertEqual(replies.count, 2)
    for reply in replies {
      XCTAssertEqual(try XCTUnwrap(decode(reply.bytes)).rcode, ResponseCode.serverFailure.rawValue)
    }
    let withEDNS = try XCTUnwrap(replies.first { decode($0.bytes)?.opt != nil })
    XCTAssertEqual(extendedError(withEDNS), 9, "DNSKEY Missing (RFC 8914 §4.10)")
    XCTAssertEqual(harness.counters[.dnssecBogus], 1)
    XCTAssertEqual(harness.engine.activeTransactions, 0)
    // Remembered as bogus: SERVFAIL with the EDE from the cache.
    let again = harness.ask(makeQuery(id: 3, name: "www.example", edns: Self.withEDNS))
    XCTAssertEqual(again.count, 1)
    XCTAssertEqual(extendedError(try XCTUnwrap(again.first)), 9)
    XCTAssertEqual(queries(harness, for: "www.example", .a).count, 1)
    // ... for 60 seconds.
    harness.now += 61_000
    XCTAssertTrue(harness.ask(makeQuery(id: 4, name: "www.example", edns: Self.withEDNS)).isEmpty)
  }

  func testAPendingValidationEndsAtItsDeadline() throws {
    let harness = Harness(
      Self.config.replacingOccurrences(of: "upstream udp 127.0.0.2:5300\n", with: ""))
    harness.ask(makeQuery(id: 1, name: "www.example", edns: Self.withEDNS))
    let sent = try XCTUnwrap(harness.queries.last)
    harness.answer(signedReply(to: sent.bytes), to: sent)
    XCTAssertNotNil(harness.engine.nextDeadline)
    // The fetch times out after 1 s (one upstream), the next tick ends it.
    XCTAssertTrue(harness.advance(by: 999).isEmpty)
    var replies = harness.advance(by: 1)
    replies += harness.advance(by: 1)
    XCTAssertEqual(replies.count, 1)
    XCTAssertEqual(extendedError(try XCTUnwrap(replies.first)), 9)
    XCTAssertNil(harness.engine.nextDeadline)
  }

  func testAnAnswerWaitingForItsChainIsSERVFAILAtShutdown() throws {
    let harness = Harness(Self.config)
    harness.ask(makeQuery(id: 1, name: "www.example", edns: Self.withEDNS))
    let sent = try XCTUnwrap(harness.queries.last)
    harness.answer(signedReply(to: sent.bytes), to: sent)
    let before = harness.replies.count
    let waiting = harness.engine.answerPendingAtShutdown(
      now: harness.now, environment: &harness.environment)
    XCTAssertEqual(waiting, 1)
    let replies = harness.replies.dropFirst(before)
    XCTAssertEqual(replies.compactMap { decode($0.bytes)?.id }, [1])
    XCTAssertEqual(
      replies.first.flatMap { decode($0.bytes) }?.rcode, ResponseCode.serverFailure.rawValue)
    XCTAssertEqual(harness.engine.activeTransactions, 0)
  }

  func testAnAnswerLargerThanAPendingBufferIsSERVFAIL() throws {
    let harness = Harness(Self.config)
    harness.ask(makeQuery(id: 1, name: "big.example", edns: Self.withEDNS))
    let sent = try XCTUnwrap(harness.queries.last)
    let big = signedReply(
      to: sent.bytes, signer: "example", ttl: 300, addresses: manyAddresses(1100))
    XCTAssertGreaterThan(big.count, 16_384)
    let replies = harness.answer(big, to: sent)
    XCTAssertEqual(replies.count, 1)
    XCTAssertEqual(
      try XCTUnwrap(decode(replies[0].bytes)).rcode, ResponseCode.serverFailure.rawValue)
    XCTAssertEqual(harness.counters[.dnssecPendingFull], 1)
    XCTAssertEqual(harness.engine.activeTransactions, 0)
  }

  func testAFullPendingPoolIsSERVFAIL() throws {
    // 32 pending buffers (min(inflight, 32)); 128 slots, so the ring is not
    // what runs out.
    let harness = Harness(Self.config.replacingOccurrences(of: "inflight 16", with: "inflight 128"))
    var replies: [SentReply] = []
    for zone in 0..<33 {
      harness.ask(makeQuery(id: UInt16(zone), name: "www.z\(zone).example", edns: Self.withEDNS))
      let sent = try XCTUnwrap(harness.queries.last)
      replies += harness.answer(signedReply(to: sent.bytes, signer: "z\(zone).example"), to: sent)
    }
    XCTAssertEqual(harness.counters[.dnssecFetches], 32, "one link each for the first 32")
    XCTAssertEqual(harness.counters[.dnssecPendingFull], 1)
    let reply = try onlyReply(replies)
    XCTAssertEqual(reply.id, 32)
    XCTAssertEqual(reply.rcode, ResponseCode.serverFailure.rawValue)
    harness.assertWithinCapacity()
  }

  func testFetchesPerQuestionAreBounded() throws {
    let harness = Harness(Self.config.replacingOccurrences(of: "inflight 16", with: "inflight 64"))
    let deep = (1...20).map { "l\($0)" }.joined(separator: ".") + ".example"
    harness.ask(makeQuery(id: 1, name: deep, edns: Self.withEDNS))
    let sent = try XCTUnwrap(harness.queries.last)
    var replies = harness.answer(signedReply(to: sent.bytes, signer: deep), to: sent)
    // Every DS and DNSKEY question is answered signed by its own name, one
    // label deeper each time: links that never end in a key that verifies.
    var answered = 0
    while answered < 60, replies.isEmpty,
      let fetch = harness.queries.dropFirst(answered + 1).first
    {
      answered += 1
      let question = try XCTUnwrap(decode(fetch.bytes)).questionText.lowercased()
      replies += harness.answer(signedReply(to: fetch.bytes, signer: question), to: fetch)
    }
    replies += harness.advance(by: 1)
    XCTAssertLessThanOrEqual(harness.counters[.dnssecFetches], 16)
    let reply = try XCTUnwrap(replies.first { decode($0.bytes)?.id == 1 })
    XCTAssertEqual(
      try XCTUnwrap(decode(reply.bytes)).rcode, ResponseCode.serverFailure.rawValue)
    XCTAssertGreaterThanOrEqual(harness.counters[.dnssecBogus], 1, "the chain answers count too")
    harness.assertWithinCapacity()
  }

  func testTheStatisticsNameTheDNSSECCounters() {
    let harness = Harness(Self.config)
    let names = Statistic.allCases.map { String(decoding: $0.name, as: UTF8.self) }
    for name in [
      "dnssecSecure", "dnssecInsecure", "dnssecBogus", "dnssecFetches", "dnssecPendingFull",
    ] {
      XCTAssertTrue(names.contains(name), name)
    }
  }

  // MARK: DO=0 clients (RFC 4035 §3.2.1)

  static let checkingDisabled = HeaderFlags.recursionDesired | HeaderFlags.checkingDisabled

  func testSignaturesAreLeftOutForAClientWithoutDO() throws {
    let harness = Harness(Self.config)
    let query = makeQuery(id: 1, name: "www.example", flags: Self.checkingDisabled)
    harness.ask(query)
    let sent = try XCTUnwrap(harness.queries.last)
    let relayed = try XCTUnwrap(
      decode(try XCTUnwrap(harness.answer(signedReply(to: sent.bytes), to: sent).first).bytes))
    XCTAssertEqual(relayed.records.map(\.type), [.a])
    XCTAssertEqual(relayed.answerCount, 1)
    let cached = try XCTUnwrap(decode(try XCTUnwrap(harness.ask(query).first).bytes))
    XCTAssertEqual(harness.counters[.cacheHits], 1)
    XCTAssertEqual(cached.records.map(\.type), [.a], "from the cache too")
    // A DO=1 client gets them.
    harness.ask(
      makeQuery(
        id: 2, name: "www.example", flags: Self.checkingDisabled, edns: DNSSECOKEchoTests.withDO))
    let withDO = try XCTUnwrap(harness.queries.last)
    let signed = try XCTUnwrap(
      decode(try XCTUnwrap(harness.answer(signedReply(to: withDO.bytes), to: withDO).first).bytes))
    XCTAssertEqual(signed.records.map(\.type), [.a, .rrsig])
  }

  func testAQuestionForSignaturesKeepsThem() throws {
    let harness = Harness(Self.config)
    harness.ask(makeQuery(id: 1, name: "www.example", type: .rrsig, flags: Self.checkingDisabled))
    let sent = try XCTUnwrap(harness.queries.last)
    let reply = try XCTUnwrap(
      decode(try XCTUnwrap(harness.answer(signedReply(to: sent.bytes), to: sent).first).bytes))
    XCTAssertTrue(reply.records.contains { $0.type == .rrsig })
  }

  /// A record after a removed one, whose owner points at a name after it:
  /// the pointer moves with the name.
  func testPointersAfterARemovedRecordAreRewritten() throws {
    let harness = Harness(Self.config)
    harness.ask(makeQuery(id: 1, name: "www.example", flags: Self.checkingDisabled))
    let sent = try XCTUnwrap(harness.queries.last)
    guard let decoded = decode(sent.bytes) else { return XCTFail("query") }
    let target = wireName("target.example")
    let reply = build { (writer: inout MessageWriter) throws(WireError) in
      let flags = HeaderFlags(rawValue: HeaderFlags.response | decoded.flags.rawValue)
      try writer.writeHeader(id: decoded.id, flags: flags, questions: 1, answers: 3)
      try writeBytes(&writer, decoded.questionBytes)
      // RRSIG (removed), 18 + 9 + 8 octets of RDATA.
      try writer.writeUInt16(0xC00C)
      try writer.writeUInt16(RRType.rrsig.rawValue)
      try writer.writeUInt16(RRClass.internet.rawValue)
      try writer.writeUInt32(300)
      try writer.writeUInt16(18 + 9 + 8)
      try writeBytes(
        &writer,
        [UInt8](repeating: 1, count: 18) + wireName("example") + [UInt8](repeating: 7, count: 8))
      // CNAME www.example -> target.example (written in full).
      try writer.writeUInt16(0xC00C)
      try writer.writeUInt16(5)
      try writer.writeUInt16(RRClass.internet.rawValue)
      try writer.writeUInt32(300)
      try writer.writeUInt16(UInt16(target.count))
      let targetOffset = writer.count
      try writeBytes(&writer, target)
      // target.example A, its owner a pointer to the CNAME's RDATA.
      try writeAddressRecord(&writer, exampleAddress, ttl: 300, ownerOffset: targetOffset)
    }
    let relayed = try XCTUnwrap(decode(try XCTUnwrap(harness.answer(reply, to: sent).first).bytes))
    XCTAssertEqual(relayed.records.map(\.type), [RRType(rawValue: 5), .a])
    XCTAssertEqual(nameText(relayed.records[1].name).lowercased(), "target.example")
    XCTAssertEqual(relayed.ipv4Answers, [exampleAddress])
  }
}
