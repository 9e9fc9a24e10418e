import CompiledConfig
import DNSWire
import Engine
import TestSupport
import XCTest

/// Statistics in class CHAOS (Engine/Statistics/ChaosAnswers.swift): `hits.bind.` and friends
/// as dnsmasq answers them, `stats.dnsward.` with every counter, and
/// `version.bind.`; only for clients inside `allow`.
final class StatsTests: XCTestCase {
  static let config = engineConfig(
    "cache 64", "cache-bytes 16k", "edns-size 4096", "override printer.lan 192.168.1.10",
    "override nas.lan 192.168.1.11", "block ads.example")

  /// A client that no default `allow` prefix contains.
  static var outsider: ClientRef {
    ClientRef(endpoint: Endpoint(address: ipv4(198, 51, 100, 7), port: 5353), listener: 0)
  }

  /// The TXT strings of every answer record, in order.
  func txtStrings(_ reply: Decoded) -> [String] {
    var strings: [String] = []
    for record in reply.records where record.type == .txt {
      var position = 0
      while position < record.rdata.count {
        let length = Int(record.rdata[position])
        let end = min(position + 1 + length, record.rdata.count)
        strings.append(String(decoding: record.rdata[(position + 1)..<end], as: UTF8.self))
        position = end
      }
    }
    return strings
  }

  /// Asks `name` CH TXT and returns the decoded reply.
  func askChaos(
    _ harness: Harness, _ name: String, id: UInt16 = 0xC4A0, type: RRType = .txt,
    edns: EDNS? = nil, from client: ClientRef = lanClient(),
    file: StaticString = #filePath, line: UInt = #line
  ) throws -> Decoded {
    let replies = harness.ask(
      makeQuery(id: id, name: name, type: type, rrClass: .chaos, edns: edns), from: client)
    XCTAssertEqual(replies.count, 1, "one reply for \(name)", file: file, line: line)
    XCTAssertEqual(replies.first?.client, client, file: file, line: line)
    let reply = try XCTUnwrap(replies.first, file: file, line: line)
    return try decoded(reply.bytes, file: file, line: line)
  }

  /// Asks `name` IN A and answers it from the upstream with `exampleAddress`.
  func resolve(_ harness: Harness, _ name: String, id: UInt16) {
    XCTAssertTrue(harness.ask(makeQuery(id: id, name: name)).isEmpty)
    let sent = harness.queries.last!
    XCTAssertEqual(harness.answer(makeReply(to: sent.bytes, ttl: 300), to: sent).count, 1)
  }

  func testHitsBindIsGolden() {
    let harness = Harness(Self.config)
    let query = wire(
      "c4a0",  // 0  ID
      "0100",  // 2  flags: QUERY, RD=1
      "0001 0000 0000 0000",  // 4  QD=1
      "04 'Hits' 04 'BIND' 00",  // 12 QNAME, mixed case
      "0010",  // 23 QTYPE TXT
      "0003"  // 25 QCLASS CH
    )
    let replies = harness.ask(query)
    assertBytes(
      replies.first?.bytes ?? [],
      wire(
        "c4a0",  // 0  ID: the client's
        "8580",  // 2  flags: QR=1 AA=1 RD=1 (copied) RA=1 NOERROR
        "0001 0001 0000 0000",  // 4  QD=1 AN=1 NS=0 AR=0 (no OPT asked)
        "04 'Hits' 04 'BIND' 00",  // 12 QNAME as the client wrote it
        "0010 0003",  // 23 TXT CH
        "c00c",  // 27 NAME: pointer to the question
        "0010 0003",  // 29 TYPE TXT, CLASS CH
        "00000000",  // 33 TTL 0: a statistic is never cached
        "0002",  // 37 RDLENGTH
        "01 '0'"  // 39 one character-string: no hits yet
      ))
    XCTAssertTrue(harness.queries.isEmpty, "answered by the engine, not forwarded")
    XCTAssertEqual(harness.counters[.chaosAnswered], 1)
  }

  func testBindNamesCountTheRealCacheWork() throws {
    let harness = Harness(Self.config)
    resolve(harness, "www.example", id: 1)  // miss, insert
    resolve(harness, "mail.example", id: 2)  // miss, insert
    for id in UInt16(3)...UInt16(5) {  // three hits
      XCTAssertEqual(harness.ask(makeQuery(id: id, name: "WWW.example")).count, 1)
    }
    XCTAssertEqual(harness.ask(makeQuery(id: 6, name: "mail.example")).count, 1)  // a fourth
    XCTAssertEqual(harness.counters[.cacheHits], 4)

    let hits = try askChaos(harness, "hits.bind")
    XCTAssertEqual(hits.rcode, 0)
    XCTAssertTrue(hits.has(HeaderFlags.authoritative))
    XCTAssertEqual(hits.records.count, 1)
    XCTAssertEqual(hits.records.first?.rrClass, .chaos)
    XCTAssertEqual(hits.records.first?.ttl, 0)
    XCTAssertEqual(hits.records.first.map { nameText($0.name) }, "hits.bind")
    XCTAssertEqual(txtStrings(hits), ["4"])
    XCTAssertEqual(txtStrings(try askChaos(harness, "misses.bind")), ["2"])
    XCTAssertEqual(txtStrings(try askChaos(harness, "insertions.bind")), ["2"])
    XCTAssertEqual(txtStrings(try askChaos(harness, "cachesize.bind")), ["64"])
    // Asking changed nothing the cache counts.
    XCTAssertEqual(harness.counters[.cacheHits], 4)
    XCTAssertEqual(harness.counters[.cacheMisses], 2)
    XCTAssertEqual(harness.counters[.chaosAnswered], 4)
    XCTAssertEqual(harness.queries.count, 2, "only the two misses went upstream")
  }

  func testCacheSizeIsZeroWithTheCacheOff() throws {
    let harness = Harness(twoUpstreams)  // cache 0
    XCTAssertEqual(txtStrings(try askChaos(harness, "cachesize.bind")), ["0"])
    XCTAssertEqual(txtStrings(try askChaos(harness, "hits.bind")), ["0"])
  }

  func testStatsDnswardListsEveryCounterWithItsValue() throws {
    let harness = Harness(Self.config)
    harness.ask(makeQuery(id: 1, name: "printer.lan"))  // override
    harness.ask(makeQuery(id: 2, name: "NAS.lan", type: .aaaa))  // override (NODATA)
    harness.ask(makeQuery(id: 3, name: "ads.example"))  // block
    resolve(harness, "www.example", id: 4)  // miss, forwarded, answered, inserted
    harness.ask(makeQuery(id: 5, name: "www.example"))  // hit
    harness.ask(makeQuery(id: 6, name: "www.example"), from: Self.outsider)  // REFUSED

    let reply = try askChaos(harness, "Stats.DNSward", edns: EDNS(payloadSize: 4096))
    XCTAssertEqual(reply.rcode, 0)
    XCTAssertFalse(reply.has(HeaderFlags.truncated))
    XCTAssertTrue(reply.has(HeaderFlags.authoritative))
    XCTAssertEqual(reply.questionText, "Stats.DNSward", "the client's case")
    XCTAssertNotNil(reply.opt, "an OPT for a client that sent one")
    XCTAssertEqual(
      reply.answerCount, Statistics.recordCount(upstreams: harness.engine.upstreams.count))
    XCTAssertTrue(reply.records.allSatisfy { $0.ttl == 0 && $0.rrClass == .chaos })

    var names: [String] = []
    var values: [String: UInt64] = [:]
    for text in txtStrings(reply) {
      let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
      XCTAssertEqual(parts.count, 2, "name=value: \(text)")
      names.append(parts[0])
      values[parts[0]] = UInt64(parts[1])
    }
    XCTAssertEqual(names.count, Statistic.count + 5, "one upstream: five more")

    // Every statistic under its own name, in table order, with the value
    // the engine holds (the stats query itself included in `queries` and
    // `chaosAnswered`). The order is an interface: the statistics that were
    // there before keep their positions, new ones come after them.
    let historic = [
      "queries", "droppedShort", "droppedResponses", "refused", "formErr", "notImp",
      "badVersion", "overridden", "blocked", "coalesced", "retransmissions", "forwarded",
      "ringFull", "servFail", "cacheHits", "cacheMisses", "cacheInserts", "staleServed",
      "refreshes", "answered", "truncated", "timeouts", "retried", "mismatchedSource",
      "mismatchedID", "mismatchedQuestion", "mismatchedCase", "malformedReplies", "staleReplies",
      "chaosAnswered", "cacheEntries", "cacheCapacity", "activeTransactions", "waitersInUse",
      "cacheBytesInUse", "rateLimited", "anyRefused", "bogusDropped", "redirectsRewritten",
      "redirectProbes", "redirectAddressesLearned", "rebindBlocked", "holdOnConflicts",
      "holdOnReplaced", "verifyDisagreements", "overrideAddressesDown", "networkChanges",
      "notForwarded", "aaaaFiltered", "localAnswers", "localNXDomain", "localNamesDropped",
      "nftsetAddresses", "nftsetElementsSent", "nftsetElementsDropped", "nftsetBatchesFailed",
      "nftsetElementsFailed", "nftsetElementsUnsupported", "dnssecSecure", "dnssecInsecure",
      "dnssecBogus", "dnssecFetches", "dnssecPendingFull", "dnssecVerifications",
      "dnssecUnvalidated",
    ]
    let upstream0 = [
      "upstream0.answers", "upstream0.timeouts", "upstream0.failures", "upstream0.srtt-ms",
      "upstream0.disagreements",
    ]
    XCTAssertEqual(Array(names.prefix(historic.count)), historic)
    XCTAssertEqual(Array(names.suffix(upstream0.count)), upstream0)
    XCTAssertEqual(
      Array(names.dropLast(upstream0.count)),
      Statistic.allCases.map { String(decoding: $0.name, as: UTF8.self) })
    for statistic in Statistic.allCases {
      let name = String(decoding: statistic.name, as: UTF8.self)
      XCTAssertEqual(values[name], harness.counters[statistic], name)
    }
    XCTAssertEqual(values["cacheEntries"], 1)
    XCTAssertEqual(values["cacheCapacity"], 64)
    XCTAssertEqual(values["activeTransactions"], 0)
    XCTAssertEqual(values["waitersInUse"], 0)
    XCTAssertEqual(values["cacheBytesInUse"].map { $0 > 0 }, true)

    // The workload, counted.
    XCTAssertEqual(values["queries"], 7, "six client queries and this one")
    XCTAssertEqual(values["overridden"], 2)
    XCTAssertEqual(values["blocked"], 1)
    XCTAssertEqual(values["forwarded"], 1)
    XCTAssertEqual(values["answered"], 1)
    XCTAssertEqual(values["cacheHits"], 1)
    XCTAssertEqual(values["cacheMisses"], 1)
    XCTAssertEqual(values["cacheInserts"], 1)
    XCTAssertEqual(values["refused"], 1)
    XCTAssertEqual(values["chaosAnswered"], 1)
    XCTAssertEqual(values["truncated"], 0)
    XCTAssertEqual(values["servFail"], 0)
  }

  func testClientsOutsideAllowAreREFUSED() throws {
    let harness = Harness(Self.config)
    for name in ["hits.bind", "stats.dnsward", "version.bind"] {
      let reply = try askChaos(harness, name, from: Self.outsider)
      XCTAssertEqual(reply.rcode, UInt16(ResponseCode.refused.rawValue), name)
      XCTAssertTrue(reply.records.isEmpty, name)
      XCTAssertFalse(reply.has(HeaderFlags.authoritative), name)
    }
    XCTAssertEqual(harness.counters[.refused], 3)
    XCTAssertEqual(harness.counters[.chaosAnswered], 0)

    let allowTen = Harness(
      "listen 127.0.0.1:53\nallow 10.0.0.0/8\nupstream udp 127.0.0.1:5300\ncache 64")
    let refused = try askChaos(allowTen, "hits.bind", from: lanClient())
    XCTAssertEqual(refused.rcode, UInt16(ResponseCode.refused.rawValue))
    let insider = ClientRef(endpoint: Endpoint(address: ipv4(10, 1, 2, 3), port: 5353), listener: 0)
    XCTAssertEqual(txtStrings(try askChaos(allowTen, "hits.bind", from: insider)), ["0"])
  }

  func testUnknownNamesAndTypesInOurZonesAreREFUSED() throws {
    let harness = Harness(Self.config)
    let refusals: [(String, RRType)] = [
      ("evictions.bind", .txt),  // no such counter: not invented
      ("authors.bind", .txt),
      ("hostname.bind", .txt),
      ("id.server", .txt),
      ("bind", .txt),
      ("dnsward", .txt),
      ("x.stats.dnsward", .txt),
      ("hits.bind", .a),
      ("hits.bind", .any),
      ("stats.dnsward", .aaaa),
    ]
    for (index, (name, type)) in refusals.enumerated() {
      let reply = try askChaos(harness, name, id: UInt16(index), type: type, edns: EDNS())
      XCTAssertEqual(reply.rcode, UInt16(ResponseCode.refused.rawValue), name)
      XCTAssertEqual(reply.id, UInt16(index))
      XCTAssertTrue(reply.records.isEmpty, name)
      XCTAssertEqual(reply.questionText, name)
      XCTAssertNotNil(reply.opt, "the OPT comes back with the error")
    }
    XCTAssertEqual(harness.counters[.refused], UInt64(refusals.count))
    XCTAssertEqual(harness.counters[.chaosAnswered], 0)
    XCTAssertTrue(harness.queries.isEmpty, "nothing in our zones goes upstream")
  }

  func testChaosNamesOutsideOurZonesTakeTheOrdinaryPath() {
    let harness = Harness(Self.config)
    XCTAssertTrue(
      harness.ask(makeQuery(id: 9, name: "hits.bind.example", type: .txt, rrClass: .chaos))
        .isEmpty)
    XCTAssertEqual(harness.queries.count, 1, "forwarded like any other class")
    XCTAssertEqual(harness.counters[.chaosAnswered], 0)
    // And IN-class names that look like ours are ordinary names.
    harness.ask(makeQuery(id: 10, name: "hits.bind", type: .txt))
    XCTAssertEqual(harness.queries.count, 2)
  }

  func testStatsOverPlainUDPIsTruncatedAndWholeOverTCP() throws {
    let harness = Harness(Self.config)
    let small = try askChaos(harness, "STATS.dnsward", id: 0x0101)
    XCTAssertTrue(small.has(HeaderFlags.truncated), "more than 512 bytes")
    XCTAssertTrue(small.has(HeaderFlags.authoritative))
    XCTAssertEqual(small.id, 0x0101)
    XCTAssertEqual(small.rcode, 0)
    XCTAssertEqual(small.questionText, "STATS.dnsward")
    XCTAssertEqual(small.questionClass, .chaos)
    XCTAssertEqual(small.questionType, .txt)
    XCTAssertTrue(small.records.isEmpty)
    XCTAssertNil(small.opt)
    XCTAssertEqual(harness.counters[.truncated], 1)

    let edns512 = try askChaos(harness, "stats.dnsward", edns: EDNS(payloadSize: 512))
    XCTAssertTrue(edns512.has(HeaderFlags.truncated))
    XCTAssertNotNil(edns512.opt)

    let tcp = try askChaos(harness, "stats.dnsward", id: 0x0202, from: lanClient(tcp: true))
    XCTAssertFalse(tcp.has(HeaderFlags.truncated))
    XCTAssertEqual(
      tcp.answerCount, Statistics.recordCount(upstreams: harness.engine.upstreams.count))
    XCTAssertTrue(txtStrings(tcp).contains("truncated=2"))
    XCTAssertEqual(harness.counters[.chaosAnswered], 3)
  }

  func testVersionBindAndVersionServer() throws {
    let harness = Harness(Self.config)
    let bind = try askChaos(harness, "version.bind", edns: EDNS())
    XCTAssertEqual(bind.rcode, 0)
    let release = releaseDescription()
    XCTAssertEqual(txtStrings(bind), [release])
    XCTAssertTrue(release.hasPrefix("dnsward \(Release.version) (\(Release.date); "), release)
    XCTAssertTrue(release.hasSuffix("runtime config)"), release)
    XCTAssertNotNil(bind.opt)
    XCTAssertEqual(bind.opt?.payloadSize, harness.engine.settings.ednsPayloadSize)
    let server = try askChaos(harness, "VERSION.Server", id: 7)
    XCTAssertEqual(server.id, 7)
    XCTAssertEqual(server.questionText, "VERSION.Server")
    XCTAssertEqual(txtStrings(server), [release])
    XCTAssertNil(server.opt)
    let noRD = harness.ask(
      makeQuery(id: 8, name: "version.bind", type: .txt, rrClass: .chaos, flags: 0))
    XCTAssertFalse(try decoded(noRD.first?.bytes ?? []).has(HeaderFlags.recursionDesired))
    XCTAssertEqual(harness.counters[.chaosAnswered], 3)
  }
}
