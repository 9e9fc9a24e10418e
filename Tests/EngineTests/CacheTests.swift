import CompiledConfig
import DNSWire
import Engine
import TestSupport
import XCTest

/// The packet cache in the engine: hits with decremented TTLs, negative
/// caching (RFC 2308), TTL clamps, expiry, serve-stale (RFC 8767).
final class CacheTests: XCTestCase {
  static let cached = """
    listen 127.0.0.1:53
    upstream udp 127.0.0.1:5300
    upstream udp 127.0.0.2:5300
    timeout 1000ms
    inflight 16
    cache 64
    cache-bytes 16k
    """

  /// NXDOMAIN (or NODATA with `rcode: .noError`) with an SOA whose TTL and
  /// MINIMUM are given, as an upstream would answer `query`.
  func negativeReply(
    to query: [UInt8], rcode: ResponseCode = .nameError, soaTTL: UInt32, minimum: UInt32,
    withSOA: Bool = true
  ) -> [UInt8] {
    let decoded = try! decoded(query)
    return build { (writer: inout MessageWriter) throws(WireError) in
      var flags = HeaderFlags(
        rawValue: HeaderFlags.response | HeaderFlags.recursionAvailable
          | HeaderFlags.recursionDesired)
      flags.rcode = rcode
      try writer.writeHeader(
        id: decoded.id, flags: flags, questions: 1, authorities: withSOA ? 1 : 0)
      try writeBytes(&writer, decoded.questionBytes)
      guard withSOA else { return }
      let zone = wireName("example")
      try writeBytes(&writer, zone)
      try writer.writeUInt16(RRType.soa.rawValue)
      try writer.writeUInt16(RRClass.internet.rawValue)
      try writer.writeUInt32(soaTTL)
      let mname = wireName("ns.example")
      let rname = wireName("admin.example")
      try writer.writeUInt16(UInt16(mname.count + rname.count + 20))
      try writeBytes(&writer, mname)
      try writeBytes(&writer, rname)
      for value in [UInt32(1), 3600, 600, 86400, minimum] { try writer.writeUInt32(value) }
    }
  }

  /// Asks `name`, answers from upstream 0 with `reply(query)`, returns the reply.
  @discardableResult
  func resolve(
    _ harness: Harness, _ name: String, id: UInt16 = 1, edns: EDNS? = nil,
    reply: ([UInt8]) -> [UInt8]
  ) -> Decoded? {
    XCTAssertTrue(harness.ask(makeQuery(id: id, name: name, edns: edns)).isEmpty)
    let sent = harness.queries.last!
    return try? decoded(harness.answer(reply(sent.bytes), to: sent).first?.bytes ?? [])
  }

  func testWarmCacheAnswersWithoutUpstreamAndCountsTTLDown() throws {
    let harness = Harness(Self.cached)
    resolve(harness, "www.example") { makeReply(to: $0, ttl: 300) }
    XCTAssertEqual(harness.queries.count, 1)
    harness.now += 10_500
    let hit = try decoded(
      XCTUnwrap(harness.ask(makeQuery(id: 0x4242, name: "WWW.Example")).first).bytes)
    XCTAssertEqual(harness.queries.count, 1, "no upstream traffic for a cached name")
    XCTAssertEqual(hit.id, 0x4242)
    XCTAssertEqual(hit.questionText, "WWW.Example")
    XCTAssertEqual(hit.records.first?.ttl, 290, "300 s less the 10 s spent in cache")
    XCTAssertEqual(hit.records.first?.rdata, exampleAddress)
    XCTAssertFalse(hit.flags.has(HeaderFlags.authoritative))
    XCTAssertTrue(hit.flags.has(HeaderFlags.recursionAvailable))
    XCTAssertNil(hit.opt, "no OPT for a client that sent none")
    let withEDNS = try decoded(
      XCTUnwrap(harness.ask(makeQuery(id: 7, name: "www.example", edns: EDNS())).first).bytes)
    XCTAssertNotNil(withEDNS.opt)
    XCTAssertEqual(harness.counters[.cacheHits], 2)
    XCTAssertEqual(harness.counters[.cacheInserts], 1)
  }

  func testDOBitAndTypeAreSeparateKeys() {
    let harness = Harness(Self.cached)
    resolve(harness, "www.example") { makeReply(to: $0) }
    var withDO = EDNS()
    withDO.dnssecOK = true
    XCTAssertTrue(harness.ask(makeQuery(id: 2, name: "www.example", edns: withDO)).isEmpty)
    XCTAssertTrue(harness.ask(makeQuery(id: 3, name: "www.example", type: .aaaa)).isEmpty)
    XCTAssertEqual(harness.queries.count, 3)
  }

  func testExpiredEntryGoesUpstreamAgain() {
    let harness = Harness(Self.cached)
    resolve(harness, "short.example") { makeReply(to: $0, ttl: 5) }
    harness.now += 5_000
    XCTAssertTrue(harness.ask(makeQuery(id: 2, name: "short.example")).isEmpty)
    XCTAssertEqual(harness.queries.count, 2)
  }

  func testNegativeAnswersAreCachedForTheSOAMinimum() throws {
    let harness = Harness(Self.cached)
    // min(SOA TTL 900, MINIMUM 60) = 60 s (RFC 2308 §5).
    let nx = resolve(harness, "nx.example") { self.negativeReply(to: $0, soaTTL: 900, minimum: 60) }
    XCTAssertEqual(nx?.rcode, ResponseCode.nameError.rawValue)
    harness.now += 59_000
    let hit = try decoded(XCTUnwrap(harness.ask(makeQuery(id: 9, name: "nx.example")).first).bytes)
    XCTAssertEqual(hit.rcode, ResponseCode.nameError.rawValue)
    XCTAssertEqual(hit.authorityCount, 1)
    XCTAssertEqual(hit.records.first?.ttl, 1)
    harness.now += 1_000
    XCTAssertTrue(harness.ask(makeQuery(id: 10, name: "nx.example")).isEmpty, "expired at 60 s")
    // NODATA likewise.
    resolve(harness, "nodata.example") {
      self.negativeReply(to: $0, rcode: .noError, soaTTL: 30, minimum: 300)
    }
    harness.now += 29_000
    XCTAssertEqual(harness.ask(makeQuery(id: 11, name: "nodata.example")).count, 1)
  }

  func testNegTTLMaxCapsAndNoSOAMeansNoCaching() {
    let harness = Harness(Self.cached + "\nneg-ttl-max 10")
    resolve(harness, "nx.example") { self.negativeReply(to: $0, soaTTL: 900, minimum: 900) }
    harness.now += 10_000
    XCTAssertTrue(harness.ask(makeQuery(id: 2, name: "nx.example")).isEmpty, "capped at 10 s")
    let before = harness.queries.count
    resolve(harness, "nosoa.example") {
      self.negativeReply(to: $0, soaTTL: 0, minimum: 0, withSOA: false)
    }
    XCTAssertTrue(harness.ask(makeQuery(id: 3, name: "nosoa.example")).isEmpty)
    XCTAssertEqual(harness.queries.count, before + 2)
  }

  func testErrorsAndTruncatedAnswersAreNotCached() {
    let harness = Harness(Self.cached + "\nupstream tcp 127.0.0.3:53")
    // SERVFAIL from every upstream: relayed, not cached.
    XCTAssertTrue(harness.ask(makeQuery(id: 1, name: "sf.example")).isEmpty)
    for _ in 0..<3 {
      let sent = harness.queries.last!
      harness.answer(makeReply(to: sent.bytes, rcode: .serverFailure, addresses: []), to: sent)
    }
    XCTAssertEqual(harness.counters[.cacheInserts], 0)
    XCTAssertTrue(harness.ask(makeQuery(id: 2, name: "sf.example")).isEmpty)
  }

  func testMinAndMaxTTLClampWhatIsCached() throws {
    let harness = Harness(Self.cached + "\nmin-ttl 60\nmax-ttl 600")
    resolve(harness, "tiny.example") { makeReply(to: $0, ttl: 5) }
    harness.now += 30_000
    let raised = try decoded(
      XCTUnwrap(harness.ask(makeQuery(id: 2, name: "tiny.example")).first).bytes)
    XCTAssertEqual(raised.records.first?.ttl, 30, "kept 60 s, 30 s left")
    resolve(harness, "huge.example", id: 3) { makeReply(to: $0, ttl: 100_000) }
    let lowered = try decoded(
      XCTUnwrap(harness.ask(makeQuery(id: 4, name: "huge.example")).first).bytes)
    XCTAssertEqual(lowered.records.first?.ttl, 600)
  }

  func testStaleAnswerWhenEveryUpstreamFails() throws {
    let harness = Harness(Self.cached + "\nstale 1d")
    resolve(harness, "www.example") { makeReply(to: $0, ttl: 60) }
    harness.now += 3_600_000  // an hour later: expired, well inside a day
    XCTAssertTrue(harness.ask(makeQuery(id: 5, name: "www.example")).isEmpty)
    XCTAssertTrue(harness.advance(by: 1000).isEmpty, "first upstream timed out; second tried")
    let stale = try decoded(XCTUnwrap(harness.advance(by: 1000).first).bytes)
    XCTAssertEqual(stale.id, 5)
    XCTAssertEqual(stale.rcode, ResponseCode.noError.rawValue)
    XCTAssertEqual(stale.records.first?.ttl, 30)
    XCTAssertEqual(stale.records.first?.rdata, exampleAddress)
    XCTAssertEqual(harness.counters[.staleServed], 1)
    XCTAssertEqual(harness.counters[.servFail], 0)
    // Past the stale window: SERVFAIL.
    harness.now += 86_400_000
    harness.ask(makeQuery(id: 6, name: "www.example"))
    harness.advance(by: 1000)
    let failed = try decoded(XCTUnwrap(harness.advance(by: 1000).first).bytes)
    XCTAssertEqual(failed.rcode, ResponseCode.serverFailure.rawValue)
  }

  func testStaleFirstAnswersAtOnceAndRefreshesInTheBackground() throws {
    let harness = Harness(Self.cached + "\nstale 1d\nstale-first on")
    resolve(harness, "www.example") { makeReply(to: $0, ttl: 60) }
    harness.now += 120_000
    let immediate = try decoded(
      XCTUnwrap(harness.ask(makeQuery(id: 8, name: "www.example")).first).bytes)
    XCTAssertEqual(immediate.records.first?.ttl, 30)
    XCTAssertEqual(harness.counters[.refreshes], 1)
    let refresh = harness.queries.last!
    XCTAssertEqual(harness.queries.count, 2)
    // The refresh's answer goes only into the cache.
    XCTAssertTrue(
      harness.answer(
        makeReply(to: refresh.bytes, addresses: [[192, 0, 2, 9]], ttl: 600), to: refresh
      )
      .isEmpty)
    let fresh = try decoded(
      XCTUnwrap(harness.ask(makeQuery(id: 9, name: "www.example")).first).bytes)
    XCTAssertEqual(fresh.records.first?.rdata, [192, 0, 2, 9])
    XCTAssertEqual(fresh.records.first?.ttl, 600)
  }

  func testCacheZeroTurnsItOff() {
    let off = Harness(
      """
      listen 127.0.0.1:53
      upstream udp 127.0.0.1:5300
      cache 0
      """)
    resolve(off, "www.example") { makeReply(to: $0) }
    XCTAssertTrue(off.ask(makeQuery(id: 2, name: "www.example")).isEmpty)
    XCTAssertEqual(off.queries.count, 2)
    XCTAssertEqual(off.counters[.cacheHits], 0)
  }
}
