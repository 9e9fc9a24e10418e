// The validator on fixture answers that were changed after signing, on
// wrong keys and anchors, at the wrong time, and against KeyTrap-shaped
// answers: each must end in its exact verdict.

import CompiledConfig
import DNSSEC
import DNSWire
import TestSupport
import XCTest

final class ValidatorTamperTests: XCTestCase {
  func validate(
    _ bytes: [UInt8], _ name: String, _ type: RRType, resolver: inout ChainResolver
  ) -> ValidationVerdict {
    resolver.validate(bytes, name: name, type: type)
  }

  func verdict(_ bytes: [UInt8], _ name: String, _ type: RRType) -> ValidationVerdict {
    var resolver = ChainResolver(warm: true)
    return resolver.validate(bytes, name: name, type: type)
  }

  /// The first RRSIG of an answer: its validity interval.
  func signatureTimes(_ key: String) -> (inception: UInt32, expiration: UInt32) {
    withMessage(fixture(key)) { message, records in
      let rrsig = RRSIGRecord(records.first { $0.type == .rrsig }!, in: message)!
      return (rrsig.inception, rrsig.expiration)
    }
  }

  func testChangedAddressIsBogus() {
    let bytes = fixture("www.example. A")
    XCTAssertEqual(verdict(tamper(.a, in: bytes, at: 3), "www.example.", .a), .bogus(.dnssecBogus))
    let rsa = fixture("www.sec.example. A")
    XCTAssertEqual(verdict(tamper(.a, in: rsa), "www.sec.example.", .a), .bogus(.dnssecBogus))
    let p384 = fixture("www.p384.example. A")
    XCTAssertEqual(verdict(tamper(.a, in: p384), "www.p384.example.", .a), .bogus(.dnssecBogus))
    let ed = fixture("www.ed.example. A")
    XCTAssertEqual(verdict(tamper(.a, in: ed), "www.ed.example.", .a), .bogus(.dnssecBogus))
  }

  func testChangedSignatureIsBogus() {
    let bytes = fixture("www.example. A")
    XCTAssertEqual(
      verdict(tamper(.rrsig, in: bytes, at: 40), "www.example.", .a), .bogus(.dnssecBogus))
  }

  /// Each fixture "name. TYPE" without its records of `type` is bogus
  /// with `reason`.
  func assertStrippedIsBogus(
    _ type: RRType, from keys: [String], _ reason: ExtendedDNSError, line: UInt = #line
  ) {
    for key in keys {
      let question = fixtureQuestion(key)
      XCTAssertEqual(
        verdict(strip(type, from: fixture(key)), question.name, question.type), .bogus(reason),
        key, line: line)
    }
  }

  func testRemovedRRSIGInSignedZoneIsBogus() {
    assertStrippedIsBogus(.rrsig, from: ["www.example. A"], .rrsigsMissing)
    // In the NSEC3 zones the DS walk reads NSEC3 NODATA proofs for www.
    assertStrippedIsBogus(
      .rrsig, from: ["www.sec.example. A", "www.ed.example. A", "sec.example. DS"], .rrsigsMissing)
  }

  func testRemovedDenialIsBogus() {
    assertStrippedIsBogus(.nsec, from: ["nx.example. A", "www.example. TXT"], .nsecMissing)
    assertStrippedIsBogus(.nsec3, from: ["nx.sec.example. A"], .nsecMissing)
    // Without the NSEC that covers the wildcard, NXDOMAIN is not proven.
    let wildcardProof = strip(.nsec, from: fixture("nx.example. A"), onlyIndex: 1)
    XCTAssertEqual(verdict(wildcardProof, "nx.example.", .a), .bogus(.nsecMissing))
    // A wildcard answer without its proof that no closer name exists.
    assertStrippedIsBogus(.nsec, from: ["x.wild.example. A"], .nsecMissing)
    assertStrippedIsBogus(.nsec3, from: ["a.w.sec.example. A"], .nsecMissing)
  }

  /// RFC 5155 §8.1 leaves a proof made only of NSEC3 records of unknown
  /// hash algorithms insecure. That must not let a path turn a signed
  /// denial insecure by rewriting the algorithm octet: every NSEC3 RRset is
  /// verified before its parameters are read, so the rewrite is bogus.
  func testRewrittenNSEC3HashAlgorithmIsBogusNotInsecure() {
    for (key, name, type) in [
      ("nx.sec.example. A", "nx.sec.example.", RRType.a),
      ("www.sec.example. TXT", "www.sec.example.", RRType.txt),
    ] {
      var rewritten = fixture(key)
      withMessage(fixture(key)) { _, records in
        for record in records where record.type == .nsec3 { rewritten[record.rdataOffset] = 2 }
      }
      XCTAssertNotEqual(rewritten, fixture(key), key)
      XCTAssertEqual(verdict(rewritten, name, type), .bogus(.dnssecBogus), key)
    }
  }

  func testDenialForTheWrongNameIsBogus() {
    // The NXDOMAIN proof of nx.example. does not deny other names.
    XCTAssertEqual(verdict(fixture("nx.example. A"), "zz.example.", .a), .bogus(.nsecMissing))
    XCTAssertEqual(
      verdict(fixture("nx.sec.example. A"), "other.sec.example.", .a), .bogus(.nsecMissing))
    // The NODATA proof for TXT does not deny A.
    XCTAssertEqual(verdict(fixture("www.example. TXT"), "www.example.", .a), .bogus(.nsecMissing))
    XCTAssertEqual(
      verdict(fixture("www.sec.example. TXT"), "www.sec.example.", .a), .bogus(.nsecMissing))
  }

  func testWrongDSMakesTheChildBogus() {
    var resolver = ChainResolver()
    resolver.fetch = { key in
      let bytes = ValidatorFixtures.answers[key].map(hexBytes)
      return key == "sec.example. DS" ? bytes.map { tamper(.ds, in: $0, at: 10) } : bytes
    }
    XCTAssertEqual(resolver.validate("www.sec.example. A"), .bogus(.dnskeyMissing))
    XCTAssertEqual(resolver.cache.entries["sec.example. DS"]?.1, .bogus)
    // A DS the cache holds as secure that matches no key of the child.
    var cached = ChainResolver()
    cached.cache.store(
      "sec.example. DS", tamper(.ds, in: fixture("sec.example. DS"), at: 10), .secure)
    XCTAssertEqual(cached.validate("sec.example. DNSKEY"), .bogus(.dnskeyMissing))
  }

  func testWrongKeysAreBogus() {
    var resolver = ChainResolver()
    resolver.anchors = fixtureAnchors(digest: String(repeating: "ab", count: 32))
    XCTAssertEqual(resolver.validate("example. DNSKEY"), .bogus(.dnskeyMissing))
    XCTAssertEqual(resolver.validate("www.example. A"), .bogus(.dnskeyMissing))
    // A DNSKEY set with one key changed: its signature no longer verifies.
    let changed = tamper(.dnskey, in: fixture("example. DNSKEY"), at: 20)
    XCTAssertEqual(verdict(changed, "example.", .dnskey), .bogus(.dnssecBogus))
  }

  func testSignatureTimes() {
    let times = signatureTimes("www.example. A")
    var resolver = ChainResolver()
    resolver.now = times.expiration &+ 1
    XCTAssertEqual(resolver.validate("www.example. A"), .bogus(.signatureExpired))
    resolver.now = times.inception &- 1
    XCTAssertEqual(resolver.validate("www.example. A"), .bogus(.signatureNotYetValid))
    resolver.now = times.expiration &- 100
    XCTAssertEqual(resolver.validate("www.example. A"), .secure(ttl: 100))
  }

  func testAnchorOfUnsupportedAlgorithmIsInsecure() {
    var resolver = ChainResolver()
    resolver.anchors = madeUpDSAnchor("example.", algorithm: 253)
    XCTAssertEqual(resolver.validate("example. DNSKEY"), .insecure)
    XCTAssertEqual(resolver.validate("www.example. A"), .insecure)
  }

  func testCachedBogusOrMissingLinks() {
    var resolver = ChainResolver()
    resolver.cache.store("example. DNSKEY", fixture("example. DNSKEY"), .bogus)
    XCTAssertEqual(resolver.validate("www.example. A"), .bogus(.dnskeyMissing))
    var missing = ChainResolver()
    missing.fetch = { _ in nil }
    XCTAssertEqual(missing.validate("www.sec.example. A"), .needs(.dnskey))
  }

  func testManyFailingSignaturesStopQuickly() {
    // www.example. A with its RRSIG repeated 40 times, each signature broken.
    let (address, rrsig) = withMessage(fixture("www.example. A")) { message, records in
      let a = records.first { $0.type == .a }!
      let sig = records.first { $0.type == .rrsig }!
      return (
        Array(message.bytes[a.rdataOffset..<a.end]), Array(message.bytes[sig.rdataOffset..<sig.end])
      )
    }
    var answers = [TestRecord(owner: "www.example.", type: .a, rdata: address)]
    for index in 0..<40 {
      var broken = rrsig
      broken[broken.count - 1 - index % 60] ^= UInt8(1 + index)
      answers.append(TestRecord(owner: "www.example.", type: .rrsig, rdata: broken))
    }
    var resolver = ChainResolver()
    let start = Date()
    XCTAssertEqual(
      resolver.validate(buildMessage(answers: answers), name: "www.example.", type: .a),
      .bogus(.dnssecBogus))
    XCTAssertLessThan(Date().timeIntervalSince(start), 1)
    // One verification for the DNSKEY set, at most 4 RRSIGs of the RRset.
    XCTAssertLessThanOrEqual(resolver.verifications, 5)
  }

  func testUnusableMessages() {
    var resolver = ChainResolver()
    var servfail = fixture("www.example. A")
    servfail[3] = (servfail[3] & 0xF0) | 2
    XCTAssertEqual(
      resolver.validate(servfail, name: "www.example.", type: .a), .bogus(.dnssecIndeterminate))
    // The question name is not a name.
    var validator = Validator()
    let verdict = fixture("www.example. A").withUnsafeBytes { raw in
      [UInt8]([5, 1, 2]).withUnsafeBytes { name in
        validator.validate(
          try! Message(validating: raw), questionName: name, questionType: .a,
          anchors: fixtureAnchors(), records: resolver.cache, now: fixtureNow)
      }
    }
    XCTAssertEqual(verdict, .bogus(.dnssecBogus))
  }

  func testKeyTagCollisionsAreBounded() {
    // example.'s zone key and ten keys with its tag (two octets of the key
    // moved in opposite directions keep the tag's sum), all cached as secure.
    let (address, rrsig, zoneKey) = withMessage(fixture("www.example. A")) { message, records in
      let a = records.first { $0.type == .a }!
      let sig = records.first { $0.type == .rrsig }!
      return (
        Array(message.bytes[a.rdataOffset..<a.end]),
        Array(message.bytes[sig.rdataOffset..<sig.end]),
        RRSIGRecord(sig, in: message)!.keyTag
      )
    }
    let key = withMessage(fixture("example. DNSKEY")) { message, records in
      let record = records.first {
        $0.type == .dnskey && DNSKEYRecord($0, in: message)!.keyTag == zoneKey
      }!
      return Array(message.bytes[record.rdataOffset..<record.end])
    }
    var keys: [TestRecord] = []
    for index in 0..<10 {
      var colliding = key
      let position = 8 + 2 * index
      colliding[position] &+= 1
      colliding[position + 2] &-= 1
      keys.append(TestRecord(owner: "example.", type: .dnskey, rdata: colliding))
    }
    keys.append(TestRecord(owner: "example.", type: .dnskey, rdata: key))
    var answers = [TestRecord(owner: "www.example.", type: .a, rdata: address)]
    for index in 0..<4 {
      var broken = rrsig
      broken[broken.count - 1 - index] ^= 0x80
      answers.append(TestRecord(owner: "www.example.", type: .rrsig, rdata: broken))
    }
    var resolver = ChainResolver()
    resolver.cache.store("example. DNSKEY", buildMessage(answers: keys), .secure)
    XCTAssertEqual(
      resolver.validate(buildMessage(answers: answers), name: "www.example.", type: .a),
      .bogus(.dnssecBogus))
    // 4 RRSIGs x 4 keys would be 16: the failure bound stops at 8.
    XCTAssertEqual(resolver.verifications, 8)
    // The genuine RRSIG is still found past colliding keys it may try first.
    answers[1] = TestRecord(owner: "www.example.", type: .rrsig, rdata: rrsig)
    var genuine = ChainResolver()
    genuine.cache.store("example. DNSKEY", buildMessage(answers: Array(keys.reversed())), .secure)
    XCTAssertTrue(
      isSecure(genuine.validate(buildMessage(answers: answers), name: "www.example.", type: .a)))
  }

  func testRRSIGQuestionIsIndeterminate() {
    var resolver = ChainResolver()
    XCTAssertEqual(
      resolver.validate(fixture("www.example. A"), name: "www.example.", type: .rrsig),
      .bogus(.dnssecIndeterminate))
  }

  func testUnsignedDataBelowAProvenNonexistentNameIsBogus() {
    let bytes = buildMessage(answers: [
      TestRecord(owner: "a.nx.example.", type: .a, rdata: [192, 0, 2, 99])
    ])
    var resolver = ChainResolver()
    // The NXDOMAIN proof for nx.example. answers its DS question as well.
    resolver.fetch = { key in
      key == "nx.example. DS"
        ? fixture("nx.example. A") : ValidatorFixtures.answers[key].map(hexBytes)
    }
    XCTAssertEqual(
      resolver.validate(bytes, name: "a.nx.example.", type: .a), .bogus(.rrsigsMissing))
    XCTAssertEqual(resolver.cache.entries["nx.example. DS"]?.1, .secure)
    XCTAssertNil(resolver.cache.entries["a.nx.example. DS"])
    XCTAssertEqual(resolver.fetches, 2)
  }

  func testSynthesizedCNAMEIsNotTrusted() {
    // The signed DNAME dn.example. -> wild.example., an unsigned CNAME
    // claiming www.dn.example. -> www.example., and www.example.'s genuine
    // signed A: the chain follows the DNAME, not the forged CNAME, and
    // www.wild.example. has no A in the answer and no proof.
    func rdata(_ key: String, _ type: RRType, covering: RRType? = nil) -> [UInt8] {
      withMessage(fixture(key)) { message, records in
        let record = records.first {
          $0.type == type
            && (covering == nil || RRSIGRecord($0, in: message)!.typeCovered == covering)
        }!
        return Array(message.bytes[record.rdataOffset..<record.end])
      }
    }
    let answers = [
      TestRecord(
        owner: "dn.example.", type: .init(rawValue: 39),
        rdata: rdata("www.dn.example. A", .init(rawValue: 39))),
      TestRecord(
        owner: "dn.example.", type: .rrsig,
        rdata: rdata("www.dn.example. A", .rrsig, covering: .init(rawValue: 39))),
      TestRecord(owner: "www.dn.example.", type: .cname, rdata: wireName("www.example.")),
      TestRecord(owner: "www.example.", type: .a, rdata: rdata("www.example. A", .a)),
      TestRecord(owner: "www.example.", type: .rrsig, rdata: rdata("www.example. A", .rrsig)),
    ]
    XCTAssertEqual(
      verdict(buildMessage(answers: answers), "www.dn.example.", .a), .bogus(.nsecMissing))
    // The genuine answer passes; without the DNAME's signature it does not.
    let original = fixture("www.dn.example. A")
    XCTAssertTrue(isSecure(verdict(original, "www.dn.example.", .a)))
    let unsigned = strip(.rrsig, from: original, onlyIndex: 0)
    XCTAssertEqual(verdict(unsigned, "www.dn.example.", .a), .bogus(.rrsigsMissing))
  }

  func testEmptyNonTerminalAndWildcardNODATA() {
    var resolver = ChainResolver(warm: true)
    XCTAssertTrue(isSecure(resolver.validate("wild.example. DS")))
    XCTAssertTrue(isSecure(resolver.validate("www.wild.example. DS")))
    XCTAssertTrue(isSecure(resolver.validate("dn.example. DS")))
  }

  static let insecureFixtures: Set<String> = [
    "www.insec.example. A", "un.ed.example. DS", "www.un.ed.example. A", "nx.ed.example. A",
    "www.unsup.example. A", "nx.hi.example. A",
  ]

  func testRandomCorruptionNeverTrapsNorPassesChangedData() {
    // Seeded single-octet changes to every fixture answer: each parsable
    // result gets a verdict within the bounds. A change inside the RDATA of
    // a signed answer record (not an RRSIG's) must not stay secure.
    var generator = SplitMix64(seed: 18)
    var checked = 0
    // Every other fixture, to keep the suite fast in debug builds.
    let keys = ValidatorFixtures.answers.keys.sorted()
    for (position, key) in keys.enumerated() where position % 2 == 0 {
      let original = fixture(key)
      let (name, type) = fixtureQuestion(key)
      // The insecure answers (ValidatorTests.testInsecureZones); every
      // other fixture validates as secure (the other tests).
      let originalIsSecure = !Self.insecureFixtures.contains(key)
      for _ in 0..<1 {
        var bytes = original
        let index = 12 + generator.below(bytes.count - 12)
        bytes[index] ^= UInt8(1 + generator.below(255))
        guard (bytes.withUnsafeBytes { try? Message(validating: $0) }) != nil else { continue }
        var resolver = ChainResolver(warm: true)
        resolver.fetch = { _ in nil }
        let verdict = resolver.validate(bytes, name: name, type: type)
        checked += 1
        XCTAssertLessThanOrEqual(resolver.verifications, 2 * 16, key)
        // An answer-section record's RDATA, not an RRSIG's.
        let inSignedRDATA = withMessage(original) { message, records in
          records.contains { record in
            record.type != .rrsig && record.rdataOffset <= index && index < record.end
              && record.offset < message.authorityOffset
          }
        }
        if inSignedRDATA, originalIsSecure {
          XCTAssertFalse(isSecure(verdict), "\(key) changed at \(index): \(verdict)")
        }
      }
    }
    XCTAssertGreaterThan(checked, 8)
  }

  func testDelegationNSECCannotDenyNamesBelowIt() {
    // The parent's NSEC at the delegation insec.example. (NS, no SOA, no
    // DS) covers www.insec.example. in canonical order, but the parent is
    // not authoritative there (RFC 6840 §4.1): as NXDOMAIN it is no proof.
    var bytes = fixture("insec.example. DS")
    bytes[3] = (bytes[3] & 0xF0) | 3
    XCTAssertEqual(verdict(bytes, "www.insec.example.", .a), .bogus(.nsecMissing))
    XCTAssertEqual(verdict(bytes, "www.insec.example.", .ds), .bogus(.nsecMissing))
  }
}
