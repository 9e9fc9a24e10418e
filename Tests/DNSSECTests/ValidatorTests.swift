// The validator on answers of real signed zones (ValidatorFixtures.swift,
// made by make-fixtures.sh with Knot DNS): positive answers per algorithm,
// CNAME, DNAME, wildcard, NSEC and NSEC3 denial, insecure delegations.

import CompiledConfig
import DNSSEC
import DNSWire
import TestSupport
import XCTest

final class ValidatorTests: XCTestCase {
  func assertSecure(_ key: String, file: StaticString = #filePath, line: UInt = #line) {
    var resolver = ChainResolver(warm: true)
    let verdict = resolver.validate(key)
    XCTAssertTrue(isSecure(verdict), "\(key): \(verdict)", file: file, line: line)
    XCTAssertEqual(resolver.fetches, 0, key, file: file, line: line)
  }

  func assertVerdict(
    _ key: String, _ expected: ValidationVerdict, file: StaticString = #filePath, line: UInt = #line
  ) {
    var resolver = ChainResolver(warm: true)
    XCTAssertEqual(resolver.validate(key), expected, key, file: file, line: line)
    XCTAssertEqual(resolver.fetches, 0, key, file: file, line: line)
  }

  func testAnchoredDNSKEYIsSecure() { assertSecure("example. DNSKEY") }

  func testPositivePerAlgorithm() {
    assertSecure("www.example. A")  // 13
    assertSecure("www.sec.example. A")  // 8
    assertSecure("www.ed.example. A")  // 15
    assertSecure("www.p384.example. A")  // 14
  }

  func testChainFetchesEachLinkOnce() {
    var resolver = ChainResolver()
    XCTAssertTrue(isSecure(resolver.validate("www.sec.example. A")))
    // DNSKEY sec., DS sec., DNSKEY example.
    XCTAssertEqual(resolver.fetches, 3)
    XCTAssertEqual(resolver.cache.entries["sec.example. DS"]?.1, .secure)
    XCTAssertEqual(resolver.cache.entries["sec.example. DNSKEY"]?.1, .secure)
  }

  func testSecureTTLIsBoundedByRecordTTL() {
    var resolver = ChainResolver()
    XCTAssertEqual(resolver.validate("www.example. A"), .secure(ttl: 3600))
    resolver.now = nil
    XCTAssertEqual(resolver.validate("www.example. A"), .secure(ttl: .max))
  }

  func testCNAMEAndDNAME() {
    assertSecure("alias.example. A")
    assertSecure("www.dn.example. A")
  }

  func testNSECDenial() {
    assertSecure("nx.example. A")
    assertSecure("www.example. TXT")
    assertSecure("www.example. DS")
    assertSecure("insec.example. DS")
  }

  func testNSEC3Denial() {
    assertSecure("nx.sec.example. A")
    assertSecure("www.sec.example. TXT")
    assertSecure("www.ed.example. TXT")
    assertSecure("www.sec.example. DS")
    assertSecure("www.ed.example. DS")
  }

  func testWildcards() {
    assertSecure("x.wild.example. A")
    assertSecure("x.wild.example. TXT")
    assertSecure("a.w.sec.example. A")
  }

  func testInsecureZones() {
    assertVerdict("www.insec.example. A", .insecure)
    assertVerdict("un.ed.example. DS", .insecure)
    assertVerdict("www.un.ed.example. A", .insecure)
    assertVerdict("nx.ed.example. A", .insecure)
    assertVerdict("www.unsup.example. A", .insecure)
    assertVerdict("nx.hi.example. A", .insecure)
  }

  func testNameUnderNoAnchorIsInsecure() {
    var resolver = ChainResolver()
    resolver.anchors = madeUpDSAnchor("other.", algorithm: 13)
    XCTAssertEqual(resolver.validate("www.example. A"), .insecure)
    XCTAssertEqual(resolver.validate("nx.example. A"), .insecure)
    XCTAssertEqual(resolver.fetches, 0)
  }

  func testUnsignedDSBelowInsecureParentIsInsecure() {
    let ds = dsRDATA(
      keyTag: 7, algorithm: 13, digestType: 2, digest: Array(repeating: 7, count: 32))
    let bytes = buildMessage(answers: [
      TestRecord(owner: "sub.insec.example.", type: .ds, rdata: ds)
    ])
    var resolver = ChainResolver()
    XCTAssertEqual(resolver.validate(bytes, name: "sub.insec.example.", type: .ds), .insecure)
    // The walk stops at the parent: it never asks for the DS being validated.
    XCTAssertNil(resolver.cache.entries["sub.insec.example. DS"])
    XCTAssertEqual(resolver.cache.entries["insec.example. DS"]?.1, .secure)
  }

  func testDNSKEYAnchor() {
    let keySigningKey = withMessage(fixture("example. DNSKEY")) { message, records in
      let record = records.first {
        $0.type == .dnskey && DNSKEYRecord($0, in: message)!.isSecureEntryPoint
      }!
      return Array(message.bytes[record.rdataOffset..<record.end])
    }
    var resolver = ChainResolver()
    resolver.anchors = oneAnchor("example.", .dnskey, rdata: keySigningKey)
    XCTAssertTrue(isSecure(resolver.validate("www.sec.example. A")))
    var changed = keySigningKey
    changed[changed.count - 1] ^= 1
    var wrong = ChainResolver()
    wrong.anchors = oneAnchor("example.", .dnskey, rdata: changed)
    XCTAssertEqual(wrong.validate("example. DNSKEY"), .bogus(.dnskeyMissing))
  }

  func testWalkStartsBelowASecuredSigner() {
    // www.ed.example.'s signed A next to unsigned data of the unsigned
    // child un.ed.example.: the signer ed.example. is secure, so the walk
    // asks DS un.ed.example. only, not DS ed.example. again.
    let signed = withMessage(fixture("www.ed.example. A")) { message, records in
      records.filter { $0.offset < message.authorityOffset }.map { record in
        TestRecord(
          owner: "www.ed.example.", type: record.type,
          rdata: Array(message.bytes[record.rdataOffset..<record.end]))
      }
    }
    let bytes = buildMessage(
      answers: [TestRecord(owner: "www.un.ed.example.", type: .a, rdata: [192, 0, 2, 40])] + signed)
    var resolver = ChainResolver(warm: true)
    resolver.cache.entries["ed.example. DS"] = nil
    resolver.fetch = { _ in nil }
    XCTAssertEqual(resolver.validate(bytes, name: "www.un.ed.example.", type: .a), .insecure)
    // Without the secured signer the walk needs DS ed.example. first.
    let alone = buildMessage(answers: [
      TestRecord(owner: "www.un.ed.example.", type: .a, rdata: [192, 0, 2, 40])
    ])
    XCTAssertEqual(resolver.validate(alone, name: "www.un.ed.example.", type: .a), .needs(.ds))
  }

  /// A signature verified once is not verified again by the same
  /// validator (VerifiedSignatures): the second validation of an NXDOMAIN
  /// does no cryptography and is still secure; the same records changed by
  /// one bit are verified afresh, and fail.
  func testVerifiedSignaturesAreRememberedAndChangedOnesAreNot() {
    let cache = ChainResolver(warm: true).cache
    var validator = Validator()
    func validate(_ bytes: [UInt8]) -> ValidationVerdict {
      bytes.withUnsafeBytes { raw in
        wireName("nx.sec.example.").withUnsafeBytes { question in
          validator.validate(
            try! Message(validating: raw), questionName: question, questionType: .a,
            anchors: fixtureAnchors(), records: cache, now: fixtureNow)
        }
      }
    }
    let answer = fixture("nx.sec.example. A")
    XCTAssertTrue(isSecure(validate(answer)))
    XCTAssertGreaterThan(validator.verifications, 0)
    XCTAssertTrue(isSecure(validate(answer)))
    XCTAssertEqual(validator.verifications, 0, "remembered")
    for index in 0..<3 {
      XCTAssertEqual(
        validate(tamper(.nsec3, in: answer, at: 20 + index)), .bogus(.dnssecBogus), "\(index)")
      XCTAssertGreaterThan(validator.verifications, 0)
    }
    // The last octet of the first RRSIG's signature.
    let signatureEnd = withMessage(answer) { _, records in
      records.first { $0.type == .rrsig }!.rdataLength - 1
    }
    XCTAssertEqual(
      validate(tamper(.rrsig, in: answer, at: signatureEnd)), .bogus(.dnssecBogus))
  }
}
