import CompiledConfig
import DNSWire
import Engine
import TestSupport
import XCTest

/// `dnssec on` end to end inside the engine, with the validator and Knot-
/// signed answers (ValidatorFixtures, shared with DNSSECTests): the fake
/// upstream answers each question the engine asks — the client's and the
/// DS/DNSKEY links it fetches — from the fixtures.
final class ValidationFixtureTests: XCTestCase {
  static let anchor = ValidatorFixtures.anchorDS
  static let config = engineConfig(
    "cache 256", "cache-bytes 256k", "dnssec on", "dnssec-root off",
    "trust-anchor example. DS \(anchor.keyTag) \(anchor.algorithm) \(anchor.digestType) \(anchor.digest)"
  )

  static var withDO: EDNS {
    var edns = EDNS()
    edns.dnssecOK = true
    return edns
  }

  func makeHarness(adjust: (inout Settings) -> Void = { _ in }) -> Harness {
    let harness = Harness(Self.config, adjust: adjust)
    harness.environment.wallClockSeconds = Int64(ValidatorFixtures.capturedAt)
    return harness
  }

  static func typeName(_ type: RRType) -> String {
    switch type {
    case .a: return "A"
    case .txt: return "TXT"
    case .ds: return "DS"
    case .dnskey: return "DNSKEY"
    default: return "\(type.rawValue)"
    }
  }

  /// Answers every upstream query from `start` on that has a fixture (with
  /// the query's ID and question bytes), the ones those answers cause too;
  /// `tamper` may change an answer first (by its key, "name. TYPE").
  @discardableResult
  func serve(
    _ harness: Harness, from start: Int = 0,
    tamper: (String, inout [UInt8]) -> Void = { _, _ in }
  ) -> [SentReply] {
    Self.serve(harness, answers: [:], from: start, tamper: tamper)
  }

  /// Answers every upstream query from `start` on: from `answers` (by key,
  /// "name. TYPE") first, else from the fixtures, each with the query's ID
  /// and question bytes; repeated while answers cause more queries.
  /// `tamper` may change an answer first; the answers to the upstreams in
  /// `stripping` lose every RRSIG.
  static func serve(
    _ harness: Harness, answers: [String: [UInt8]], from start: Int,
    stripping: Set<Int> = [], tamper: (String, inout [UInt8]) -> Void
  ) -> [SentReply] {
    var replies: [SentReply] = []
    var next = start
    while next < harness.queries.count {
      let query = harness.queries[next]
      next += 1
      guard let decoded = decode(query.bytes) else { continue }
      let key = decoded.questionText.lowercased() + ". " + typeName(decoded.questionType)
      guard let answer = answers[key] ?? ValidatorFixtures.answers[key].map({ wire($0) }) else {
        continue
      }
      var bytes = fixtureAnswer(answer, to: query, question: decoded.questionBytes)
      tamper(key, &bytes)
      if stripping.contains(query.upstream) { bytes = strippingSignatures(bytes) }
      replies += harness.answer(bytes, to: query)
    }
    return replies
  }

  /// A fixture answer made the reply to `query`: its ID, and its question
  /// as asked (`question`, with the query's letter case).
  static func fixtureAnswer(_ answer: [UInt8], to query: SentQuery, question: [UInt8])
    -> [UInt8]
  {
    var bytes = answer
    bytes[0] = query.bytes[0]
    bytes[1] = query.bytes[1]
    bytes.replaceSubrange(
      HeaderField.size..<(HeaderField.size + question.count), with: question)
    return bytes
  }

  // MARK: Secure

  func testASecureAnswerHasADForAClientThatSetDO() throws {
    let harness = makeHarness()
    harness.ask(makeQuery(id: 1, name: "www.example", edns: Self.withDO))
    let reply = try onlyReply(serve(harness))
    XCTAssertEqual(reply.rcode, 0)
    XCTAssertTrue(reply.has(HeaderFlags.authenticData), "RFC 6840 §5.8")
    XCTAssertFalse(reply.ipv4Answers.isEmpty)
    XCTAssertTrue(reply.records.contains { $0.type == .rrsig }, "DO=1: signatures kept")
    XCTAssertGreaterThanOrEqual(harness.counters[.dnssecSecure], 1)
    XCTAssertGreaterThanOrEqual(harness.counters[.dnssecFetches], 1, "example. DNSKEY at least")
    XCTAssertEqual(harness.counters[.dnssecBogus], 0)
    XCTAssertEqual(harness.engine.activeTransactions, 0)
    // From the cache: still AD, nothing asked.
    let asked = harness.queries.count
    let cached = try onlyReply(
      harness.ask(makeQuery(id: 2, name: "www.example", edns: Self.withDO)))
    XCTAssertTrue(cached.has(HeaderFlags.authenticData))
    XCTAssertEqual(harness.queries.count, asked)
  }

  func testADIsSetForAClientThatSetADAndNotForOneThatSetNeither() throws {
    let harness = makeHarness()
    harness.ask(
      makeQuery(
        id: 1, name: "www.example", flags: HeaderFlags.recursionDesired | HeaderFlags.authenticData)
    )
    XCTAssertTrue(try onlyReply(serve(harness)).has(HeaderFlags.authenticData))
    let plain = try onlyReply(harness.ask(makeQuery(id: 2, name: "www.example")))
    XCTAssertEqual(plain.rcode, 0)
    XCTAssertFalse(plain.has(HeaderFlags.authenticData))
  }

  func testTheChainIsCachedForTheNextAnswerInTheZone() throws {
    let harness = makeHarness()
    harness.ask(makeQuery(id: 1, name: "www.example", edns: Self.withDO))
    serve(harness)
    let fetches = harness.counters[.dnssecFetches]
    let asked = harness.queries.count
    harness.ask(makeQuery(id: 2, name: "www.example", type: .txt, edns: Self.withDO))
    let reply = try onlyReply(serve(harness, from: asked))
    XCTAssertTrue(reply.has(HeaderFlags.authenticData))
    XCTAssertEqual(harness.counters[.dnssecFetches], fetches, "example. DNSKEY from the cache")
    XCTAssertEqual(harness.queries.count, asked + 1)
  }

  /// The zone's DNSKEY answer in the cache is read by every validation in
  /// the zone: each read counts as a use, so the cache's eviction keeps it
  /// while answers of other names stream through a small cache. (Before,
  /// only client hits counted: under load the DNSKEY went like a cold
  /// entry, was fetched again, and the answers waiting for it filled the
  /// pending pool.)
  func testTheZoneKeysStayCachedWhileValidationsUseThem() throws {
    let harness = Harness(Self.config.replacingOccurrences(of: "cache 256", with: "cache 16"))
    harness.environment.wallClockSeconds = Int64(ValidatorFixtures.capturedAt)
    var id: UInt16 = 1
    var filler = 0
    let questions: [(String, RRType)] = [
      ("www.example", .a), ("www.example", .txt), ("nx.example", .a), ("x.wild.example", .a),
      ("x.wild.example", .txt),
    ]
    for dnssecOK in [true, false] {
      for (name, type) in questions {
        let asked = harness.queries.count
        harness.ask(
          makeQuery(id: id, name: name, type: type, edns: dnssecOK ? Self.withDO : nil))
        id += 1
        let reply = try onlyReply(serve(harness, from: asked))
        XCTAssertNotEqual(reply.rcode, ResponseCode.serverFailure.rawValue, name)
        // Names under no anchor (insecure), each a new cache entry.
        for _ in 0..<6 {
          let before = harness.queries.count
          harness.ask(makeQuery(id: id, name: "f\(filler).filler"))
          id += 1
          filler += 1
          let query = try XCTUnwrap(harness.queries[before...].first)
          XCTAssertEqual(harness.answer(makeReply(to: query.bytes), to: query).count, 1)
        }
      }
    }
    XCTAssertEqual(harness.counters[.dnssecFetches], 1, "example. DNSKEY fetched once")
    XCTAssertEqual(harness.counters[.dnssecBogus], 0)
  }

  /// A zone's DNSKEY that validations read in the last tenth of its lifetime is
  /// asked again then (a refresh at the next tick), so the validations after
  /// its first expiry find it fresh and fetch nothing.
  func testTheZoneKeysAreAskedAgainBeforeTheyExpire() throws {
    let harness = makeHarness()
    func dnskeyQueries(from start: Int) -> Int {
      harness.queries[start...].filter { decode($0.bytes)?.questionType == .dnskey }.count
    }
    func askAndServe(_ id: UInt16, _ name: String, _ type: RRType) throws {
      let asked = harness.queries.count
      harness.ask(makeQuery(id: id, name: name, type: type, edns: Self.withDO))
      let reply = try onlyReply(serve(harness, from: asked))
      XCTAssertNotEqual(reply.rcode, ResponseCode.serverFailure.rawValue, name)
      XCTAssertTrue(reply.has(HeaderFlags.authenticData), name)
    }
    try askAndServe(1, "www.example", .a)
    XCTAssertEqual(dnskeyQueries(from: 0), 1, "example. DNSKEY (TTL 3,600 s) fetched")
    // At 3,000 s the key is not due (its last tenth starts at 3,240 s).
    harness.advance(by: 3_000_000)
    var start = harness.queries.count
    try askAndServe(2, "www.example", .txt)
    harness.advance(by: 1)
    XCTAssertEqual(dnskeyQueries(from: start), 0)
    XCTAssertEqual(harness.counters[.refreshes], 0)
    // At 3,300 s a validation reads it: the next tick asks for it again.
    harness.advance(by: 300_000)
    start = harness.queries.count
    try askAndServe(3, "nx.example", .a)
    XCTAssertEqual(dnskeyQueries(from: start), 0, "asked at the tick, not during the validation")
    harness.advance(by: 1)
    XCTAssertEqual(dnskeyQueries(from: start), 1)
    XCTAssertEqual(harness.counters[.refreshes], 1)
    harness.advance(by: 1)
    XCTAssertEqual(dnskeyQueries(from: start), 1, "one refresh in flight, not one a tick")
    serve(harness, from: start)
    // Past the first copy's expiry (3,600 s), the refreshed keys serve.
    harness.advance(by: 400_000)
    try askAndServe(4, "x.wild.example", .a)
    XCTAssertEqual(harness.counters[.dnssecFetches], 1, "no chain fetch after the first")
    XCTAssertEqual(harness.counters[.dnssecPendingFull], 0)
  }

  /// Validation before the `hold-on` window needs the chain in the cache:
  /// the first answer of a zone waits, like any other.
  func warmUp(
    _ harness: Harness, name: String, file: StaticString = #filePath, line: UInt = #line
  ) {
    let before = harness.replies.count
    harness.ask(makeQuery(id: 90, name: name, edns: Self.withDO))
    for _ in 0..<8 where harness.replies.count == before {
      serve(harness)
      harness.advance(by: 400)
    }
    XCTAssertEqual(harness.replies.count, before + 1, "warmed up", file: file, line: line)
  }

  func testASecureAnswerIsNotHeldForHoldOn() throws {
    let harness = makeHarness { $0.holdOnMilliseconds = 300 }
    warmUp(harness, name: "www.example")
    let asked = harness.queries.count
    harness.ask(makeQuery(id: 1, name: "www.example", type: .txt, edns: Self.withDO))
    let reply = try onlyReply(serve(harness, from: asked))
    XCTAssertTrue(reply.has(HeaderFlags.authenticData), "relayed at once, not after 300 ms")
  }

  func testADO0ClientGetsNoDNSSECRecordsAndAValidMessage() throws {
    let harness = makeHarness()
    for (id, name) in [
      (1, "www.example"), (2, "nx.example"), (3, "nx.sec.example"), (4, "x.wild.example"),
    ] {
      let asked = harness.queries.count
      harness.ask(makeQuery(id: UInt16(id), name: name))
      let reply = try onlyReply(serve(harness, from: asked))
      XCTAssertFalse(reply.records.contains { [.rrsig, .nsec, .nsec3].contains($0.type) }, name)
      XCTAssertEqual(
        reply.answerCount + reply.authorityCount + reply.additionalCount, reply.records.count, name)
      XCTAssertFalse(reply.has(HeaderFlags.authenticData), name)
      XCTAssertNotEqual(reply.rcode, ResponseCode.serverFailure.rawValue, name)
      // And from the cache.
      let cached = try onlyReply(harness.ask(makeQuery(id: UInt16(id + 10), name: name)))
      XCTAssertEqual(cached.records.map(\.type), reply.records.map(\.type), name)
    }
  }

  /// RFC 4035 §5.3.3: a secure answer is kept no longer than its RRSIG
  /// is valid, and relayed with TTLs no longer than that.
  func testASecureAnswerLivesNoLongerThanItsSignature() throws {
    let harness = makeHarness()
    let fixture = wire(try XCTUnwrap(ValidatorFixtures.answers["www.example. A"]))
    let expiration = try XCTUnwrap(
      fixture.withUnsafeBytes { raw -> UInt32? in
        guard let message = try? Message(validating: raw) else { return nil }
        var records = message.records()
        while let record = records.next() {
          guard record.type == .rrsig else { continue }
          return raw.getUInt32(at: record.rdataOffset + 8)
        }
        return nil
      })
    harness.environment.wallClockSeconds = Int64(expiration) - 100
    harness.ask(makeQuery(id: 1, name: "www.example", edns: Self.withDO))
    let reply = try onlyReply(serve(harness))
    XCTAssertTrue(reply.has(HeaderFlags.authenticData))
    XCTAssertFalse(reply.records.isEmpty)
    XCTAssertTrue(reply.records.allSatisfy { $0.ttl <= 100 }, "\(reply.records.map(\.ttl))")
    let cached = try onlyReply(
      harness.ask(makeQuery(id: 2, name: "www.example", edns: Self.withDO)))
    XCTAssertTrue(cached.records.allSatisfy { $0.ttl <= 100 })
    harness.now += 101_000
    XCTAssertTrue(
      harness.ask(makeQuery(id: 3, name: "www.example", edns: Self.withDO)).isEmpty,
      "expired with its signature: asked again")
  }

  /// Adds an unsigned `example. NS ns1.example.` to the authority section
  /// and its glue `ns1.example. A 192.0.2.53` to the additional section,
  /// before the OPT, as a recursive upstream's full response carries them.
  static func addReferralRecords(to bytes: inout [UInt8]) {
    let example: [UInt8] = [7] + Array("example".utf8) + [0]
    let ns1: [UInt8] = [3] + Array("ns1".utf8) + example
    let ns: [UInt8] = example + [0, 2, 0, 1, 0, 0, 0x0E, 0x10, 0, UInt8(ns1.count)] + ns1
    let glue: [UInt8] = ns1 + [0, 1, 0, 1, 0, 0, 0x0E, 0x10, 0, 4, 192, 0, 2, 53]
    let additionalStart = bytes.withUnsafeBytes { raw -> Int in
      let message = try! Message(validating: raw)
      var records = message.records()
      var index = 0
      while let record = records.next() {
        if index == message.answerCount + message.authorityCount { return record.offset }
        index += 1
      }
      return raw.count
    }
    bytes.insert(contentsOf: ns + glue, at: additionalStart)
    // The NS ends the authority section, the glue begins the additional.
    bytes[9] += 1
    bytes[11] += 1
  }

  /// RFC 4035 §3.2.3: AD only when every RRset of the answer and authority
  /// sections is authentic. The validator proves the answer and the denial
  /// records; the unsigned NS of a full response and additional glue are
  /// not proven, so a secure answer goes out (and into the cache) without
  /// them. An insecure answer is relayed as it came.
  func testASecureAnswerCarriesOnlyWhatWasValidated() throws {
    let harness = makeHarness()
    harness.ask(makeQuery(id: 1, name: "www.example", edns: Self.withDO))
    let reply = try onlyReply(
      serve(harness) { key, bytes in
        if key == "www.example. A" { Self.addReferralRecords(to: &bytes) }
      })
    XCTAssertTrue(reply.has(HeaderFlags.authenticData))
    XCTAssertFalse(reply.records.contains { $0.type == .ns }, "unsigned NS taken out")
    XCTAssertFalse(reply.ipv4Answers.contains([192, 0, 2, 53]), "glue taken out")
    XCTAssertTrue(reply.records.contains { $0.type == .rrsig }, "the answer's RRSIG kept")
    XCTAssertNotNil(reply.opt)
    let cached = try onlyReply(
      harness.ask(makeQuery(id: 2, name: "www.example", edns: Self.withDO)))
    XCTAssertEqual(cached.records.map(\.type), reply.records.map(\.type))
    XCTAssertTrue(cached.has(HeaderFlags.authenticData))

    let insecure = makeHarness()
    insecure.ask(makeQuery(id: 3, name: "www.insec.example", edns: Self.withDO))
    let relayed = try onlyReply(
      serve(insecure) { key, bytes in
        if key == "www.insec.example. A" { Self.addReferralRecords(to: &bytes) }
      })
    XCTAssertFalse(relayed.has(HeaderFlags.authenticData))
    XCTAssertTrue(relayed.records.contains { $0.type == .ns }, "an insecure answer as it came")
    XCTAssertTrue(relayed.ipv4Answers.contains([192, 0, 2, 53]))
  }

  // MARK: Insecure

  func testAnInsecureDelegationIsAnsweredWithoutAD() throws {
    let harness = makeHarness()
    harness.ask(makeQuery(id: 1, name: "www.insec.example", edns: Self.withDO))
    let reply = try onlyReply(serve(harness))
    XCTAssertEqual(reply.rcode, 0)
    XCTAssertFalse(reply.ipv4Answers.isEmpty)
    XCTAssertFalse(reply.has(HeaderFlags.authenticData))
    XCTAssertGreaterThanOrEqual(harness.counters[.dnssecInsecure], 1)
    XCTAssertEqual(harness.counters[.dnssecBogus], 0)
  }

  func testAnInsecureAnswerStillWaitsForHoldOn() throws {
    let harness = makeHarness { $0.holdOnMilliseconds = 300 }
    warmUp(harness, name: "www.insec.example")
    let asked = harness.queries.count
    // DO=0: another cache key, asked again; the chain is cached.
    harness.ask(makeQuery(id: 1, name: "www.insec.example"))
    XCTAssertTrue(serve(harness, from: asked).isEmpty, "held for the window")
    let reply = try onlyReply(harness.advance(by: 300))
    XCTAssertEqual(reply.rcode, 0)
    XCTAssertFalse(reply.has(HeaderFlags.authenticData))
  }

  // MARK: Bogus

  func testAChangedAddressIsSERVFAILWithAnExtendedError() throws {
    let harness = makeHarness()
    harness.ask(makeQuery(id: 1, name: "www.example", edns: Self.withDO))
    let replies = serve(harness) { key, bytes in
      guard key == "www.example. A" else { return }
      Self.changeAddress(&bytes)
    }
    let reply = try onlyReply(replies)
    XCTAssertEqual(reply.rcode, ResponseCode.serverFailure.rawValue)
    XCTAssertEqual(extendedError(replies[0]), 6, "DNSSEC Bogus (RFC 8914 §4.7)")
    XCTAssertEqual(harness.counters[.dnssecBogus], 1)
    XCTAssertEqual(harness.environment.bogusReports.map(\.name), ["www.example"])
    XCTAssertEqual(harness.environment.defences.count, 0, "not a hijack defence's report")
    // A CD=1 client still gets it, unvalidated (RFC 4035 §3.2.2).
    let asked = harness.queries.count
    harness.ask(
      makeQuery(
        id: 2, name: "www.example",
        flags: HeaderFlags.recursionDesired | HeaderFlags.checkingDisabled, edns: Self.withDO))
    XCTAssertEqual(harness.queries.count, asked + 1)
  }

  /// Every RRSIG's type rewritten to a private one (65280), as if the
  /// signatures were stripped on the way; offsets and compression stay.
  static func strippingSignatures(_ bytes: [UInt8]) -> [UInt8] {
    var result = bytes
    bytes.withUnsafeBytes { raw in
      guard let message = try? Message(validating: raw) else { return }
      var records = message.records()
      while let record = records.next() {
        guard record.type == .rrsig else { continue }
        result[record.fixedOffset] = 0xFF
        result[record.fixedOffset + 1] = 0x00
      }
    }
    return result
  }

  /// Flips a bit of the first A record's address in `bytes`.
  static func changeAddress(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { raw in
      guard let message = try? Message(validating: UnsafeRawBufferPointer(raw)) else { return }
      var records = message.records()
      while let record = records.next() {
        guard record.type == .a else { continue }
        raw[record.rdataOffset + 3] ^= 1
        return
      }
    }
  }

  /// Issue 18: a bogus answer is logged once per zone, with its EDE; the
  /// zone is the signer of what failed, or where the chain stopped when
  /// the signatures were stripped.
  func testBogusAnswersAreReportedOncePerZone() throws {
    let harness = makeHarness()
    let changed: Set<String> = ["www.example. A", "x.wild.example. A", "www.sec.example. A"]
    for (id, name) in [(1, "www.example"), (2, "x.wild.example"), (3, "www.sec.example")] {
      let asked = harness.queries.count
      harness.ask(makeQuery(id: UInt16(id), name: name, edns: Self.withDO))
      let reply = try onlyReply(
        serve(harness, from: asked) { key, bytes in
          if changed.contains(key) { Self.changeAddress(&bytes) }
        })
      XCTAssertEqual(reply.rcode, ResponseCode.serverFailure.rawValue, name)
    }
    XCTAssertEqual(harness.counters[.dnssecBogus], 3)
    XCTAssertEqual(harness.environment.bogusReports.map(\.zone), ["example", "sec.example"])
    XCTAssertEqual(
      harness.environment.bogusReports.map(\.name), ["www.example", "www.sec.example"])
    XCTAssertEqual(harness.environment.bogusReports.map(\.extendedError), [6, 6])

    // Signatures stripped: no signer; the zones the chain proved signed.
    let stripped = makeHarness()
    let questions: [(String, RRType)] = [
      ("www.example", .a), ("www.example", .txt), ("www.sec.example", .a),
    ]
    for (index, (name, type)) in questions.enumerated() {
      let asked = stripped.queries.count
      stripped.ask(makeQuery(id: UInt16(index + 1), name: name, type: type, edns: Self.withDO))
      let reply = try onlyReply(
        serve(stripped, from: asked) { key, bytes in
          if !key.hasSuffix("DNSKEY") && !key.hasSuffix(" DS") {
            bytes = Self.strippingSignatures(bytes)
          }
        })
      XCTAssertEqual(reply.rcode, ResponseCode.serverFailure.rawValue, name)
    }
    XCTAssertEqual(stripped.counters[.dnssecBogus], 3)
    XCTAssertEqual(stripped.environment.bogusReports.map(\.zone), ["example", "sec.example"])
    XCTAssertEqual(stripped.environment.bogusReports.map(\.extendedError), [10, 10])

    // Every signature stripped, the DS answers' too: the chain stops at
    // once, at the trust anchor (example.).
    let bare = makeHarness()
    bare.ask(makeQuery(id: 1, name: "www.sec.example", edns: Self.withDO))
    let reply = try onlyReply(
      serve(bare) { key, bytes in
        if !key.hasSuffix("DNSKEY") { bytes = Self.strippingSignatures(bytes) }
      })
    XCTAssertEqual(reply.rcode, ResponseCode.serverFailure.rawValue)
    XCTAssertEqual(bare.environment.bogusReports.map(\.zone), ["example"])
  }

  func testWithoutAClockPastTheBuildDateTimesAreNotCheckedAndThatIsReported() throws {
    let harness = makeHarness()
    harness.environment.wallClockSeconds = 0
    harness.ask(makeQuery(id: 1, name: "www.example", edns: Self.withDO))
    XCTAssertTrue(try onlyReply(serve(harness)).has(HeaderFlags.authenticData))
    XCTAssertEqual(harness.environment.events.map(\.event), [.dnssecTimesUnchecked])
  }
}
