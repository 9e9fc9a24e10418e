// Which algorithms and digest types are supported, and the DS digest types
// of RFC 4034 §5.4 (SHA-1) and RFC 4509 §2.3 (SHA-256) over one key.

import DNSSEC
import DNSWire
import TestSupport
import XCTest

final class AlgorithmTableTests: XCTestCase {
  func testSupportedAlgorithms() {
    let supported: Set<UInt8> = [5, 7, 8, 10, 13, 14, 15]
    for value in 0...255 {
      let algorithm = DNSSECAlgorithm(rawValue: UInt8(value))
      XCTAssertEqual(algorithm.isSupported, supported.contains(UInt8(value)), "\(value)")
    }
    XCTAssertEqual(DSDigestType.sha1.supportedDigestLength, 20)
    XCTAssertEqual(DSDigestType.sha256.supportedDigestLength, 32)
    XCTAssertEqual(DSDigestType.sha384.supportedDigestLength, 48)
    XCTAssertNil(DSDigestType.gostR341194.supportedDigestLength)
    XCTAssertNil(DSDigestType(rawValue: 0).supportedDigestLength)
    XCTAssertNil(DSDigestType(rawValue: 5).supportedDigestLength)
  }

  /// RFC 4034 §5.4 (DS 60485 5 1) and RFC 4509 §2.3 (DS 60485 5 2).
  let dskeyKey = base64(
    "AQOeiiR0GOMYkDshWoSKz9XzfwJr1AYtsmx3TGkJaNXVbfi/2pHm822aJ5iI9BMzNXxeYCmZDRD99WYwYqUSdjMmmAphXdvxegXd/M5+X7OrzKBaMbCVdFLUUh6DhweJBjEVv5f2wwjM9XzcnOf+EPbtG9DMBmADjFDc2w/rljwvFw=="
  )

  func check(digestType: UInt8, digest: String, keyTag: UInt16 = 60485, algorithm: UInt8 = 5)
    -> DigestCheck
  {
    let bytes = buildMessage(answers: [
      TestRecord(
        owner: "dskey.example.com.", type: .dnskey,
        rdata: dnskeyRDATA(flags: 256, algorithm: 5, key: dskeyKey)),
      TestRecord(
        owner: "dskey.example.com.", type: .ds,
        rdata: dsRDATA(
          keyTag: keyTag, algorithm: algorithm, digestType: digestType, digest: hexBytes(digest))),
    ])
    return withMessage(bytes) { message, records in
      let key = DNSKEYRecord(records[0], in: message)!
      XCTAssertEqual(key.keyTag, 60485)
      var owner = CanonicalName(in: message, at: records[0].offset)!
      return owner.withBytes { DSRecord(records[1], in: message)!.check(key: key, keyOwner: $0) }
    }
  }

  let sha1Digest = "2bb183af5f22588179a53b0a98631fad1a292118"
  let sha256Digest = "d4b7d520e7bb5f0f67674a0cceb1e3e0614b93c4f9e99b8383f6a1e4469da50a"

  func testRFC4034AndRFC4509Digests() {
    XCTAssertEqual(check(digestType: 1, digest: sha1Digest), .match)
    XCTAssertEqual(check(digestType: 2, digest: sha256Digest), .match)
    // The digest of the other type, a changed octet, a short digest.
    XCTAssertEqual(check(digestType: 2, digest: sha1Digest), .mismatch)
    XCTAssertEqual(
      check(digestType: 1, digest: "3bb183af5f22588179a53b0a98631fad1a292118"), .mismatch)
    XCTAssertEqual(
      check(digestType: 1, digest: "2bb183af5f22588179a53b0a98631fad1a2921"), .mismatch)
    XCTAssertEqual(
      check(digestType: 4, digest: sha256Digest + "00112233445566778899aabbccddeeff"), .mismatch)
    // The right digest under another key tag or algorithm describes another key.
    XCTAssertEqual(check(digestType: 1, digest: sha1Digest, keyTag: 60486), .mismatch)
    XCTAssertEqual(check(digestType: 1, digest: sha1Digest, algorithm: 8), .mismatch)
    // GOST and unassigned types: neither proof nor disproof.
    XCTAssertEqual(check(digestType: 3, digest: sha256Digest), .unsupportedDigestType)
    XCTAssertEqual(check(digestType: 0, digest: sha1Digest), .unsupportedDigestType)
    XCTAssertEqual(check(digestType: 200, digest: sha1Digest), .unsupportedDigestType)
  }

  func testKeyFlags() {
    let bytes = buildMessage(answers: [
      TestRecord(
        owner: "example.", type: .dnskey, rdata: dnskeyRDATA(flags: 385, algorithm: 15, key: [1])),
      TestRecord(
        owner: "example.", type: .dnskey,
        rdata: dnskeyRDATA(flags: 0, protocolField: 2, algorithm: 15, key: [1])),
    ])
    withMessage(bytes) { message, records in
      let revoked = DNSKEYRecord(records[0], in: message)!
      XCTAssertTrue(revoked.isRevoked)
      XCTAssertTrue(revoked.isZoneKey)
      XCTAssertTrue(revoked.isSecureEntryPoint)
      let plain = DNSKEYRecord(records[1], in: message)!
      XCTAssertFalse(plain.isZoneKey || plain.isRevoked || plain.isSecureEntryPoint)
      XCTAssertEqual(plain.protocolField, 2)
      XCTAssertNil(plain.rsaPublicKey)  // one octet: no modulus
    }
  }
}
