import CompiledConfig
import DNSWire
import Engine
import XCTest

/// RFC 3225 §3: "The DO bit of the query MUST be copied in the response."
/// Every reply with an OPT record carries the client's DO bit, whichever
/// path wrote it: relayed, from the cache, stale, SERVFAIL, truncated or
/// answered locally.
final class DNSSECOKEchoTests: XCTestCase {
  static let config = engineConfig(
    "cache 64", "cache-bytes 16k", "stale 1d", "override printer.lan 192.168.1.10",
    "block ads.example")

  static var withDO: EDNS {
    var edns = EDNS()
    edns.dnssecOK = true
    return edns
  }

  /// The client's OPT DO bit in `reply`, failing when it has no OPT.
  func dnssecOK(
    _ reply: SentReply?, file: StaticString = #filePath, line: UInt = #line
  ) throws -> Bool {
    let message = try decoded(XCTUnwrap(reply, file: file, line: line).bytes)
    return try XCTUnwrap(message.opt, "a reply to an EDNS query has an OPT", file: file, line: line)
      .dnssecOK
  }

  /// An upstream reply to `query` whose OPT has DO set as given.
  func reply(to query: [UInt8], dnssecOK: Bool, ttl: UInt32 = 60) -> [UInt8] {
    var bytes = makeReply(to: query, ttl: ttl)
    // makeReply's OPT is last; its TTL field holds the DO bit.
    let ttlOffset = bytes.count - 6
    bytes[ttlOffset + 2] = dnssecOK ? 0x80 : 0
    return bytes
  }

  func testAnAnswerFromTheCacheCarriesTheClientsDOBit() throws {
    let harness = Harness(Self.config)
    XCTAssertTrue(harness.ask(makeQuery(id: 1, name: "www.example", edns: Self.withDO)).isEmpty)
    let sent = try XCTUnwrap(harness.queries.last)
    let fresh = harness.answer(reply(to: sent.bytes, dnssecOK: true), to: sent).first
    XCTAssertTrue(try dnssecOK(fresh), "fresh answer")
    let cached = harness.ask(makeQuery(id: 2, name: "www.example", edns: Self.withDO)).first
    XCTAssertEqual(harness.counters[.cacheHits], 1)
    XCTAssertTrue(try dnssecOK(cached), "the same answer from the cache")
  }

  func testTheClientsDOBitWinsOverTheUpstreams() throws {
    let harness = Harness(Self.config)
    harness.ask(makeQuery(id: 1, name: "a.example", edns: Self.withDO))
    var sent = try XCTUnwrap(harness.queries.last)
    let stripped = harness.answer(reply(to: sent.bytes, dnssecOK: false), to: sent).first
    XCTAssertTrue(try dnssecOK(stripped), "an upstream that dropped DO")
    harness.ask(makeQuery(id: 2, name: "b.example", edns: EDNS()))
    sent = try XCTUnwrap(harness.queries.last)
    let added = harness.answer(reply(to: sent.bytes, dnssecOK: true), to: sent).first
    XCTAssertFalse(try dnssecOK(added), "an upstream that set DO the client did not")
  }

  func testStaleAndSERVFAILRepliesCarryTheClientsDOBit() throws {
    let harness = Harness(Self.config)
    harness.ask(makeQuery(id: 1, name: "www.example", edns: Self.withDO))
    let sent = try XCTUnwrap(harness.queries.last)
    harness.answer(reply(to: sent.bytes, dnssecOK: true, ttl: 60), to: sent)
    harness.now += 3_600_000
    XCTAssertTrue(harness.ask(makeQuery(id: 2, name: "www.example", edns: Self.withDO)).isEmpty)
    let stale = harness.advance(by: 1000).first
    XCTAssertEqual(harness.counters[.staleServed], 1)
    XCTAssertTrue(try dnssecOK(stale), "stale answer")
    harness.ask(makeQuery(id: 3, name: "nothing.example", edns: Self.withDO))
    let failed = harness.advance(by: 1000).first
    XCTAssertEqual(try decoded(XCTUnwrap(failed).bytes).rcode, ResponseCode.serverFailure.rawValue)
    XCTAssertTrue(try dnssecOK(failed), "SERVFAIL")
  }

  func testTruncatedRepliesCarryTheClientsDOBit() throws {
    let harness = Harness(Self.config)
    var small = Self.withDO
    small.payloadSize = 512
    harness.ask(makeQuery(id: 1, name: "big.example", edns: small))
    let sent = try XCTUnwrap(harness.queries.last)
    let big = makeReply(to: sent.bytes, addresses: manyAddresses(40))
    let truncated = harness.answer(big, to: sent).first
    XCTAssertTrue(try decoded(XCTUnwrap(truncated).bytes).has(HeaderFlags.truncated))
    XCTAssertTrue(try dnssecOK(truncated), "truncated relayed answer")
    let cached = harness.ask(makeQuery(id: 2, name: "big.example", edns: small)).first
    XCTAssertTrue(try decoded(XCTUnwrap(cached).bytes).has(HeaderFlags.truncated))
    XCTAssertTrue(try dnssecOK(cached), "truncated cached answer")
  }

  func testLocalAnswersCarryTheClientsDOBit() throws {
    let harness = Harness(Self.config)
    for (id, name) in [(1, "printer.lan"), (2, "ads.example")] {
      let local = harness.ask(makeQuery(id: UInt16(id), name: name, edns: Self.withDO)).first
      XCTAssertTrue(try dnssecOK(local), name)
      let plain = harness.ask(makeQuery(id: UInt16(id), name: name, edns: EDNS())).first
      XCTAssertFalse(try dnssecOK(plain), name)
    }
    XCTAssertEqual(harness.queries.count, 0)
  }
}
