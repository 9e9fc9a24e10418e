import CompiledConfig
import DNSWire
import Engine
import TestSupport
import XCTest

/// `dnssec on`: a CNAME whose target the upstream left out (an
/// authoritative server answers a CNAME into a delegated child with the
/// CNAME and a referral) is chased — (target, type) asked with DO=1 CD=0 —
/// and the client gets the CNAME and the target's answer, validated as one
/// message (Sources/Engine/Validation/ValidationChase.swift). The signed records are
/// the Knot-signed fixtures (ValidatorFixtures); the partial answers are
/// cut from them.
final class ValidationChaseTests: XCTestCase {
  func makeHarness() -> Harness {
    let harness = Harness(ValidationFixtureTests.config)
    harness.environment.wallClockSeconds = Int64(ValidatorFixtures.capturedAt)
    return harness
  }

  /// A referral's NS record for `owner` (uncompressed, unsigned).
  static func nsRecord(_ owner: String) -> [UInt8] {
    let rdata = wireName("ns.example")
    return wireName(owner) + [0, 2, 0, 1, 0, 0, 0x0E, 0x10, 0, UInt8(rdata.count)] + rdata
  }

  /// An SOA record for `owner`: what a real NODATA carries.
  static func soaRecord(_ owner: String) -> [UInt8] {
    let rdata =
      wireName("ns.example") + wireName("admin.example") + [UInt8](repeating: 0, count: 20)
    return wireName(owner) + [0, 6, 0, 1, 0, 0, 0x0E, 0x10, 0, UInt8(rdata.count)] + rdata
  }

  /// "alias.example. A" (alias CNAME www.example, both signed) without the
  /// target's records: the CNAME and its RRSIG (written first, so their
  /// compression pointers still point at the question), then `authority`.
  static func aliasWithoutTarget(authority: [[UInt8]] = [nsRecord("www.example")]) -> [UInt8] {
    let fixture = wire(ValidatorFixtures.answers["alias.example. A"]!)
    return fixture.withUnsafeBytes { raw -> [UInt8] in
      let message = try! Message(validating: raw)
      var kept: [UInt8] = []
      var count: UInt8 = 0
      var records = message.records()
      while let record = records.next(), record.offset < message.authorityOffset {
        let covered = raw.getUInt16(at: record.rdataOffset)
        guard record.type == .cname || (record.type == .rrsig && covered == 5) else { continue }
        kept += raw[record.offset..<record.end]
        count += 1
      }
      var bytes = Array(raw[0..<message.questionEnd]) + kept + authority.flatMap { $0 }
      if let opt = message.opt { bytes += raw[opt.offset..<opt.end] }
      bytes[7] = count
      bytes[9] = UInt8(authority.count)
      bytes[11] = message.opt == nil ? 0 : 1
      return bytes
    }
  }

  /// An unsigned answer of one CNAME (owner the question) and `authority`.
  static func unsignedCNAME(_ owner: String, to target: String, authority: [[UInt8]]) -> [UInt8] {
    build { (writer: inout MessageWriter) throws(WireError) in
      try writer.writeHeader(
        id: 0, flags: HeaderFlags(rawValue: HeaderFlags.response), questions: 1, answers: 1,
        authorities: UInt16(authority.count), additionals: 1)
      try writeBytes(&writer, wireName(owner) + [0, 1, 0, 1])
      let rdata = wireName(target)
      try writeBytes(
        &writer, [0xC0, 12, 0, 5, 0, 1, 0, 0, 0x0E, 0x10, 0, UInt8(rdata.count)] + rdata)
      for record in authority { try writeBytes(&writer, record) }
      try writer.writeOPT(udpPayloadSize: 1232, dnssecOK: true)
    }
  }

  /// Answers every upstream query from `start` on: from `answers` (by key,
  /// "name. TYPE") first, else from the fixtures; repeated while answers
  /// cause more queries. `tamper` may change an answer first.
  @discardableResult
  func serve(
    _ harness: Harness, answers: [String: [UInt8]], from start: Int = 0,
    tamper: (String, inout [UInt8]) -> Void = { _, _ in }
  ) -> [SentReply] {
    ValidationFixtureTests.serve(harness, answers: answers, from: start, tamper: tamper)
  }

  func asked(_ harness: Harness, _ name: String, _ type: RRType = .a) -> Int {
    harness.queries.filter {
      guard let decoded = decode($0.bytes) else { return false }
      return decoded.questionText.lowercased() == name && decoded.questionType == type
    }.count
  }

  static var withDO: EDNS { ValidationFixtureTests.withDO }

  func testACNAMEAndAReferralAreChasedAndTheComposedAnswerIsSecure() throws {
    let harness = makeHarness()
    harness.ask(makeQuery(id: 1, name: "alias.example", edns: Self.withDO))
    let replies = serve(harness, answers: ["alias.example. A": Self.aliasWithoutTarget()])
    let reply = try onlyReply(replies)
    XCTAssertEqual(reply.rcode, 0)
    XCTAssertTrue(reply.has(HeaderFlags.authenticData), "CNAME and target both verified")
    XCTAssertEqual(reply.questionText.lowercased(), "alias.example")
    XCTAssertEqual(reply.records.filter { $0.type == .cname }.count, 1)
    XCTAssertEqual(reply.ipv4Answers.count, 1, "the target's address, fetched")
    XCTAssertEqual(reply.records.filter { $0.type == .rrsig }.count, 2)
    XCTAssertFalse(reply.records.contains { $0.type == .ns }, "the referral is not relayed")
    XCTAssertEqual(asked(harness, "www.example"), 1, "the target asked once")
    XCTAssertEqual(harness.counters[.dnssecBogus], 0)
    XCTAssertEqual(harness.engine.activeTransactions, 0)
    // The composed answer is what was cached.
    let count = harness.queries.count
    let cached = try XCTUnwrap(
      decode(
        try XCTUnwrap(
          harness.ask(makeQuery(id: 2, name: "alias.example", edns: Self.withDO)).first
        ).bytes))
    XCTAssertEqual(harness.queries.count, count)
    XCTAssertTrue(cached.has(HeaderFlags.authenticData))
    XCTAssertEqual(cached.ipv4Answers.count, 1)
    // A DO=0 client: the same chase, no DNSSEC records, a valid message.
    harness.ask(makeQuery(id: 3, name: "alias.example"))
    let plainReplies = serve(
      harness, answers: ["alias.example. A": Self.aliasWithoutTarget()], from: count)
    let plain = try XCTUnwrap(decode(try XCTUnwrap(plainReplies.first).bytes))
    XCTAssertEqual(plain.ipv4Answers.count, 1)
    XCTAssertFalse(plain.records.contains { $0.type == .rrsig })
  }

  func testATargetInAnUnsignedChildIsInsecure() throws {
    let harness = makeHarness()
    harness.ask(makeQuery(id: 1, name: "x.insec.example", edns: Self.withDO))
    let partial = Self.unsignedCNAME(
      "x.insec.example", to: "www.insec.example", authority: [Self.nsRecord("www.insec.example")])
    let replies = serve(harness, answers: ["x.insec.example. A": partial])
    let reply = try onlyReply(replies)
    XCTAssertEqual(reply.rcode, 0)
    XCTAssertFalse(reply.has(HeaderFlags.authenticData))
    XCTAssertEqual(reply.records.filter { $0.type == .cname }.count, 1)
    XCTAssertEqual(reply.ipv4Answers.count, 1)
    XCTAssertEqual(asked(harness, "www.insec.example"), 1)
    XCTAssertGreaterThanOrEqual(harness.counters[.dnssecInsecure], 1)
    XCTAssertEqual(harness.counters[.dnssecBogus], 0)
  }

  /// The target does not exist: the composed answer takes the target's
  /// NXDOMAIN (RFC 6604 §2.1) and its SOA and NSEC records (their
  /// compressed names written in full), and the denial is validated.
  func testATargetThatDoesNotExistGivesNXDOMAINWithItsProof() throws {
    let harness = makeHarness()
    harness.ask(makeQuery(id: 1, name: "x.insec.example", edns: Self.withDO))
    let partial = Self.unsignedCNAME(
      "x.insec.example", to: "nx.example", authority: [Self.nsRecord("nx.example")])
    let replies = serve(harness, answers: ["x.insec.example. A": partial])
    XCTAssertEqual(asked(harness, "nx.example"), 1)
    let reply = try onlyReply(replies)
    XCTAssertEqual(reply.rcode, ResponseCode.nameError.rawValue)
    XCTAssertFalse(reply.has(HeaderFlags.authenticData), "the CNAME is in an unsigned zone")
    XCTAssertEqual(reply.records.filter { $0.type == .cname }.count, 1)
    XCTAssertEqual(reply.records.filter { $0.type == .soa }.count, 1)
    XCTAssertFalse(reply.records.filter { $0.type == .nsec }.isEmpty)
    XCTAssertEqual(harness.counters[.dnssecBogus], 0)
    XCTAssertGreaterThanOrEqual(harness.counters[.dnssecInsecure], 1)
  }

  func testABogusTargetMakesTheAnswerSERVFAILWithItsExtendedError() throws {
    let harness = makeHarness()
    harness.ask(makeQuery(id: 1, name: "alias.example", edns: Self.withDO))
    let replies = serve(harness, answers: ["alias.example. A": Self.aliasWithoutTarget()]) {
      key, bytes in
      guard key == "www.example. A" else { return }
      ValidationFixtureTests.changeAddress(&bytes)
    }
    let reply = try onlyReply(replies)
    XCTAssertEqual(reply.rcode, ResponseCode.serverFailure.rawValue)
    XCTAssertEqual(
      extendedError(replies[0]), 6, "the target's EDE: DNSSEC Bogus")
    XCTAssertEqual(asked(harness, "www.example"), 1)
    XCTAssertEqual(harness.engine.activeTransactions, 0)
  }

  func testARealNODATAForTheTargetIsNotChased() throws {
    let harness = makeHarness()
    harness.ask(makeQuery(id: 1, name: "alias.example", edns: Self.withDO))
    let nodata = Self.aliasWithoutTarget(authority: [Self.soaRecord("example")])
    let replies = serve(harness, answers: ["alias.example. A": nodata])
    XCTAssertEqual(asked(harness, "www.example"), 0, "an SOA: the upstream's last word")
    let reply = try onlyReply(replies)
    XCTAssertEqual(reply.rcode, ResponseCode.serverFailure.rawValue, "an unsigned denial")
  }

  func testAnAnswerWithItsTargetIsNotChased() throws {
    let harness = makeHarness()
    harness.ask(makeQuery(id: 1, name: "alias.example", edns: Self.withDO))
    let replies = serve(harness, answers: [:])
    XCTAssertEqual(asked(harness, "www.example"), 0)
    XCTAssertTrue(
      try XCTUnwrap(decode(try XCTUnwrap(replies.first).bytes)).has(HeaderFlags.authenticData))
  }

  /// alias CNAME www, and www's upstream answers www CNAME alias with a
  /// referral: each chase leads back to the other. It ends, SERVFAIL.
  func testAChaseLoopIsBounded() throws {
    let harness = makeHarness()
    harness.ask(makeQuery(id: 1, name: "alias.example", edns: Self.withDO))
    let answers = [
      "alias.example. A": Self.aliasWithoutTarget(),
      "www.example. A": Self.unsignedCNAME(
        "www.example", to: "alias.example", authority: [Self.nsRecord("alias.example")]),
    ]
    var replies = serve(harness, answers: answers)
    for _ in 0..<8 where replies.isEmpty {
      replies += harness.advance(by: 1000)
      replies += serve(harness, answers: answers)
    }
    let reply = try onlyReply(replies)
    XCTAssertEqual(reply.rcode, ResponseCode.serverFailure.rawValue)
    XCTAssertEqual(asked(harness, "www.example"), 1, "the target chased")
    XCTAssertLessThanOrEqual(asked(harness, "alias.example"), 2, "and alias once more at most")
    XCTAssertEqual(harness.engine.activeTransactions, 0)
  }

  /// c0 CNAME c1, c1 CNAME c2, ..., each answered with a referral: at most
  /// eight chased links per question, then SERVFAIL.
  func testAChainOfChasesStopsAfterEightLinks() throws {
    let harness = makeHarness()
    harness.ask(makeQuery(id: 1, name: "c0.insec.example", edns: Self.withDO))
    var answers: [String: [UInt8]] = [:]
    for link in 0..<20 {
      let target = "c\(link + 1).insec.example"
      answers["c\(link).insec.example. A"] = Self.unsignedCNAME(
        "c\(link).insec.example", to: target, authority: [Self.nsRecord(target)])
    }
    let replies = serve(harness, answers: answers)
    let reply = try onlyReply(replies)
    XCTAssertEqual(reply.rcode, ResponseCode.serverFailure.rawValue)
    XCTAssertEqual(asked(harness, "c8.insec.example"), 1, "the eighth link chased")
    XCTAssertEqual(asked(harness, "c9.insec.example"), 0, "the ninth not")
    XCTAssertEqual(harness.engine.activeTransactions, 0)
  }

  /// The target's records are written with every name in full: an answer
  /// that fits compressed may not fit composed. SERVFAIL, counted.
  func testAComposedAnswerPastAPendingBufferIsSERVFAIL() throws {
    let harness = makeHarness()
    let target =
      String(repeating: "x", count: 63) + "." + String(repeating: "y", count: 40)
      + ".insec.example"
    harness.ask(makeQuery(id: 1, name: "big.insec.example", edns: Self.withDO))
    let partial = Self.unsignedCNAME(
      "big.insec.example", to: target, authority: [Self.nsRecord(target)])
    // 200 A records whose owners are 2-byte pointers to the question (115
    // bytes in full): 3 KB as sent, 26 KB composed.
    var big = Self.unsignedCNAME(target, to: "www.insec.example", authority: [])
    let address: [UInt8] = [0xC0, 12, 0, 1, 0, 1, 0, 0, 0x0E, 0x10, 0, 4, 192, 0, 2, 1]
    big.removeSubrange(
      (big.count - 11 - 12 - wireName("www.insec.example").count)..<(big.count - 11))
    big.insert(contentsOf: Array(repeating: address, count: 200).flatMap { $0 }, at: big.count - 11)
    big[7] = 200
    let replies = serve(harness, answers: ["big.insec.example. A": partial, "\(target). A": big])
    XCTAssertEqual(asked(harness, target), 1)
    let reply = try onlyReply(replies)
    XCTAssertEqual(reply.rcode, ResponseCode.serverFailure.rawValue)
    XCTAssertEqual(harness.counters[.dnssecPendingFull], 1)
    XCTAssertEqual(harness.engine.activeTransactions, 0)
  }
}
