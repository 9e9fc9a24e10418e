// The published examples of RFC 5702 §6.1–6.2 (RSA/SHA-256, RSA/SHA-512),
// RFC 6605 §6.1–6.2 (ECDSA P-256, P-384) and RFC 8080 §6.1 with Errata
// 4935 (Ed25519): key tags, DS digests, and the signed data of each RRSIG.
//
// The expected signed data was written out independently (python3's
// struct, from the RFCs' presentation form) and each example's signature
// verified over it with `openssl dgst -verify` (RSA, ECDSA, the DNSSEC r|s
// turned into DER) and `openssl pkeyutl -verify -rawin` (Ed25519) when these
// tests were written: all six verify, so these bytes are the signed ones.

import DNSSEC
import DNSWire
import TestSupport
import XCTest

struct SignedExample {
  let name: String
  let zone: String
  let keyFlags: UInt16
  let algorithm: UInt8
  let key: String
  let keyTag: UInt16
  /// DS digest type and digest, where the RFC gives one.
  let ds: (UInt8, String)?
  let rrset: [TestRecord]
  let rrsig: TestRecord
  let signedData: String
}

let rfc5702Expiration: UInt32 = 1_893_456_000  // 20300101000000
let rfc5702Inception: UInt32 = 946_684_800  // 20000101000000

let signedExamples: [SignedExample] = [
  SignedExample(
    name: "RFC 5702 §6.1 RSA/SHA-256", zone: "example.net.", keyFlags: 256, algorithm: 8,
    key:
      "AwEAAcFcGsaxxdgiuuGmCkVImy4h99CqT7jwY3pexPGcnUFtR2Fh36BponcwtkZ4cAgtvd4Qs8PkxUdp6p/DlUmObdk=",
    keyTag: 9033, ds: nil,
    rrset: [TestRecord(owner: "WWW.Example.NET.", type: .a, rdata: [192, 0, 2, 91])],
    rrsig: TestRecord(
      owner: "www.example.net.", type: .rrsig,
      rdata: rrsigRDATA(
        covered: .a, algorithm: 8, labels: 3, expiration: rfc5702Expiration,
        inception: rfc5702Inception, keyTag: 9033, signer: "Example.NET.",
        signature: base64(
          "kRCOH6u7l0QGy9qpC9l1sLncJcOKFLJ7GhiUOibu4teYp5VE9RncriShZNz85mwlMgNEacFYK/lPtPiVYP4bwg=="
        ))),
    signedData:
      "0001080300000e1070dbd880386d43802349076578616d706c65036e65740003777777076578616d706c65036e6574000001000100000e100004c000025b"
  ),
  SignedExample(
    name: "RFC 5702 §6.2 RSA/SHA-512", zone: "example.net.", keyFlags: 256, algorithm: 10,
    key:
      "AwEAAdHoNTOW+et86KuJOWRDp1pndvwb6Y83nSVXXyLA3DLroROUkN6X0O6pnWnjJQujX/AyhqFDxj13tOnD9u/1kTg7cV6rklMrZDtJCQ5PCl/D7QNPsgVsMu1J2Q8gpMpztNFLpPBz1bWXjDtaR7ZQBlZ3PFY12ZTSncorffcGmhOL",
    keyTag: 3740, ds: nil,
    rrset: [TestRecord(owner: "www.example.net.", type: .a, rdata: [192, 0, 2, 91])],
    rrsig: TestRecord(
      owner: "www.example.net.", type: .rrsig,
      rdata: rrsigRDATA(
        covered: .a, algorithm: 10, labels: 3, expiration: rfc5702Expiration,
        inception: rfc5702Inception, keyTag: 3740, signer: "example.net.",
        signature: base64(
          "tsb4wnjRUDnB1BUi+t6TMTXThjVnG+eCkWqjvvjhzQL1d0YRoOe0CbxrVDYd0xDtsuJRaeUw1ep94PzEWzr0iGYgZBWm/zpq+9fOuagYJRfDqfReKBzMweOLDiNa8iP5g9vMhpuv6OPlvpXwm9Sa9ZXIbNl1MBGk0fthPgxdDLw="
        ))),
    signedData:
      "00010a0300000e1070dbd880386d43800e9c076578616d706c65036e65740003777777076578616d706c65036e6574000001000100000e100004c000025b"
  ),
  SignedExample(
    name: "RFC 6605 §6.1 P-256", zone: "example.net.", keyFlags: 257, algorithm: 13,
    key: "GojIhhXUN/u4v54ZQqGSnyhWJwaubCvTmeexv7bR6edbkrSqQpF64cYbcB7wNcP+e+MAnLr+Wi9xMWyQLc8NAA==",
    keyTag: 55648, ds: (2, "b4c8c1fe2e7477127b27115656ad6256f424625bf5c1e2770ce6d6e37df61d17"),
    rrset: [TestRecord(owner: "www.example.net.", type: .a, rdata: [192, 0, 2, 1])],
    rrsig: TestRecord(
      owner: "www.example.net.", type: .rrsig,
      rdata: rrsigRDATA(
        covered: .a, algorithm: 13, labels: 3, expiration: 1_284_026_679,
        inception: 1_281_607_479, keyTag: 55648, signer: "example.net.",
        signature: base64(
          "qx6wLYqmh+l9oCKTN6qIc+bw6ya+KJ8oMz0YP107epXAyGmt+3SNruPFKG7tZoLBLlUzGGus7ZwmwWep666VCw=="
        ))),
    signedData:
      "00010d0300000e104c88b1374c63c737d960076578616d706c65036e65740003777777076578616d706c65036e6574000001000100000e100004c0000201"
  ),
  SignedExample(
    name: "RFC 6605 §6.2 P-384", zone: "example.net.", keyFlags: 257, algorithm: 14,
    key:
      "xKYaNhWdGOfJ+nPrL8/arkwf2EY3MDJ+SErKivBVSum1w/egsXvSADtNJhyem5RCOpgQ6K8X1DRSEkrbYQ+OB+v8/uX45NBwY8rp65F6Glur8I/mlVNgF6W/qTI37m40",
    keyTag: 10771,
    ds: (
      4,
      "72d7b62976ce06438e9c0bf319013cf801f09ecc84b8d7e9495f27e305c6a9b0563a9b5f4d288405c3008a946df983d6"
    ),
    rrset: [TestRecord(owner: "www.example.net.", type: .a, rdata: [192, 0, 2, 1])],
    rrsig: TestRecord(
      owner: "www.example.net.", type: .rrsig,
      rdata: rrsigRDATA(
        covered: .a, algorithm: 14, labels: 3, expiration: 1_284_027_625,
        inception: 1_281_608_425, keyTag: 10771, signer: "example.net.",
        signature: base64(
          "/L5hDKIvGDyI1fcARX3z65qrmPsVz73QD1Mr5CEqOiLP95hxQouuroGCeZOvzFaxsT8Glr74hbavRKayJNuydCuzWTSSPdz7wnqXL5bdcJzusdnI0RSMROxxwGipWcJm"
        ))),
    signedData:
      "00010e0300000e104c88b4e94c63cae92a13076578616d706c65036e65740003777777076578616d706c65036e6574000001000100000e100004c0000201"
  ),
  // The MX target is a compression pointer to the owner (offset 12) and
  // the names are in mixed case: the signed data has them flat and lower-case.
  SignedExample(
    name: "RFC 8080 §6.1 Ed25519 (1)", zone: "example.com.", keyFlags: 257, algorithm: 15,
    key: "l02Woi0iS8Aa25FQkUd9RMzZHJpBoRQwAQEX1SxZJA4=", keyTag: 3613,
    ds: (2, "3aa5ab37efce57f737fc1627013fee07bdf241bd10f3b1964ab55c78e79a304b"),
    rrset: [TestRecord(owner: "Example.COM.", type: .mx, rdata: wire("000a 04 'Mail' c00c"))],
    rrsig: TestRecord(
      owner: "example.com.", type: .rrsig,
      rdata: rrsigRDATA(
        covered: .mx, algorithm: 15, labels: 2, expiration: 1_440_021_600,
        inception: 1_438_207_200, keyTag: 3613, signer: "EXAMPLE.com.",
        signature: base64(
          "oL9krJun7xfBOIWcGHi7mag5/hdZrKWw15jPGrHpjQeRAvTdszaPD+QLs3fx8A4M3e23mRZ9VrbpMngwcrqNAg=="
        ))),
    signedData:
      "000f0f0200000e1055d4fc6055b94ce00e1d076578616d706c6503636f6d00076578616d706c6503636f6d00000f000100000e100014000a046d61696c076578616d706c6503636f6d00"
  ),
  SignedExample(
    name: "RFC 8080 §6.1 Ed25519 (2)", zone: "example.com.", keyFlags: 257, algorithm: 15,
    key: "zPnZ/QwEe7S8C5SPz2OfS5RR40ATk2/rYnE9xHIEijs=", keyTag: 35217,
    ds: (2, "401781b934e392de492ec77ae2e15d70f6575a1c0bc59c5275c04ebe80c6614c"),
    rrset: [TestRecord(owner: "example.com.", type: .mx, rdata: wire("000a 04 'mail' c00c"))],
    rrsig: TestRecord(
      owner: "example.com.", type: .rrsig,
      rdata: rrsigRDATA(
        covered: .mx, algorithm: 15, labels: 2, expiration: 1_440_021_600,
        inception: 1_438_207_200, keyTag: 35217, signer: "example.com.",
        signature: base64(
          "zXQ0bkYgQTEFyfLyi9QoiY6D8ZdYo4wyUhVioYZXFdT410QPRITQSqJSnzQoSm5poJ7gD7AQR0O7KuI5k2pcBg=="
        ))),
    signedData:
      "000f0f0200000e1055d4fc6055b94ce08991076578616d706c6503636f6d00076578616d706c6503636f6d00000f000100000e100014000a046d61696c076578616d706c6503636f6d00"
  ),
]

/// The example's RRset, RRSIG, DNSKEY and (where given) DS, in one message.
func exampleMessage(_ example: SignedExample) -> [UInt8] {
  let key = TestRecord(
    owner: example.zone, type: .dnskey,
    rdata: dnskeyRDATA(
      flags: example.keyFlags, algorithm: example.algorithm, key: base64(example.key)))
  var answers = example.rrset + [example.rrsig, key]
  if let (digestType, digest) = example.ds {
    answers.append(
      TestRecord(
        owner: example.zone, type: .ds,
        rdata: dsRDATA(
          keyTag: example.keyTag, algorithm: example.algorithm, digestType: digestType,
          digest: hexBytes(digest))))
  }
  return buildMessage(answers: answers)
}

final class PublishedExampleTests: XCTestCase {
  func message(for example: SignedExample) -> [UInt8] { exampleMessage(example) }

  func testKeyTagsAndKeyFields() {
    for example in signedExamples {
      withMessage(message(for: example)) { message, records in
        let key = DNSKEYRecord(records[example.rrset.count + 1], in: message)
        XCTAssertEqual(key?.keyTag, example.keyTag, example.name)
        XCTAssertEqual(key?.algorithm.rawValue, example.algorithm, example.name)
        XCTAssertEqual(key?.isZoneKey, true, example.name)
        XCTAssertEqual(key?.isSecureEntryPoint, example.keyFlags == 257, example.name)
        XCTAssertEqual(key?.isRevoked, false, example.name)
        XCTAssertEqual(key?.protocolField, 3, example.name)
        XCTAssertEqual(key.map { Array($0.publicKey) }, base64(example.key), example.name)
        XCTAssertEqual(key?.algorithm.isSupported, true, example.name)
        // The RRSIG names the key by its tag.
        XCTAssertEqual(
          RRSIGRecord(records[example.rrset.count], in: message)?.keyTag, example.keyTag)
      }
    }
  }

  func testDSDigestsMatchTheirKeys() throws {
    var checked = 0
    for example in signedExamples where example.ds != nil {
      withMessage(message(for: example)) { message, records in
        let key = DNSKEYRecord(records[example.rrset.count + 1], in: message)!
        let ds = DSRecord(records[example.rrset.count + 2], in: message)!
        let owner = wireName(example.zone.uppercased())
        owner.withUnsafeBytes {
          XCTAssertEqual(ds.check(key: key, keyOwner: $0), .match, example.name)
        }
        // Another owner, or the other example's key, is not described.
        wireName("example.org.").withUnsafeBytes {
          XCTAssertEqual(ds.check(key: key, keyOwner: $0), .mismatch, example.name)
        }
        checked += 1
      }
    }
    XCTAssertEqual(checked, 4)
  }

  func testSignedDataIsTheBytesTheRFCExamplesSigned() {
    for example in signedExamples {
      let bytes = message(for: example)
      let written = signedData(bytes, rrsigAt: example.rrset.count)
      XCTAssertEqual(written.map { hexString($0) }, example.signedData, example.name)
      // One octet too few for the output: refused, not cut short.
      XCTAssertNil(
        signedData(bytes, rrsigAt: example.rrset.count, capacity: example.signedData.count / 2 - 1),
        example.name)
      XCTAssertNotNil(
        signedData(bytes, rrsigAt: example.rrset.count, capacity: example.signedData.count / 2),
        example.name)
    }
  }

  func testRRSIGFields() {
    let example = signedExamples[2]
    withMessage(message(for: example)) { message, records in
      let rrsig = RRSIGRecord(records[1], in: message)!
      XCTAssertEqual(rrsig.typeCovered, .a)
      XCTAssertEqual(rrsig.algorithm, .ecdsaP256SHA256)
      XCTAssertEqual(rrsig.labels, 3)
      XCTAssertEqual(rrsig.originalTTL, 3600)
      XCTAssertEqual(rrsig.expiration, 1_284_026_679)
      XCTAssertEqual(rrsig.inception, 1_281_607_479)
      XCTAssertEqual(Array(rrsig.signerName), wireName("example.net."))
      XCTAssertEqual(rrsig.signature.count, 64)
      XCTAssertEqual(rrsig.rrClass, .internet)
      XCTAssertTrue(rrsig.isCurrent(at: 1_283_000_000))
      XCTAssertTrue(rrsig.isCurrent(at: 1_281_607_479))
      XCTAssertTrue(rrsig.isCurrent(at: 1_284_026_679))
      XCTAssertFalse(rrsig.isCurrent(at: 1_281_607_478))
      XCTAssertFalse(rrsig.isCurrent(at: 1_284_026_680))
      XCTAssertFalse(rrsig.isCurrent(at: 0))
      // Not a DNSKEY, DS, NSEC or NSEC3.
      XCTAssertNil(DNSKEYRecord(records[1], in: message))
      XCTAssertNil(DSRecord(records[1], in: message))
      XCTAssertNil(NSECRecord(records[1], in: message))
      XCTAssertNil(NSEC3Record(records[1], in: message))
      XCTAssertNil(RRSIGRecord(records[0], in: message))
    }
  }

  func testKeyAndSignerChecks() {
    withMessage(message(for: signedExamples[2])) { message, records in
      let rrsig = RRSIGRecord(records[1], in: message)!
      let key = DNSKEYRecord(records[2], in: message)!
      XCTAssertTrue(rrsig.signerEnclosesOwner(in: message))
      XCTAssertTrue(
        wireName("Example.NET.").withUnsafeBytes { rrsig.mayBeSigned(by: key, keyOwner: $0) })
      XCTAssertFalse(
        wireName("example.org.").withUnsafeBytes { rrsig.mayBeSigned(by: key, keyOwner: $0) })
      // The P-384 key has another tag and algorithm.
      withMessage(self.message(for: signedExamples[3])) { other, otherRecords in
        let otherKey = DNSKEYRecord(otherRecords[2], in: other)!
        XCTAssertFalse(
          wireName("example.net.").withUnsafeBytes { rrsig.mayBeSigned(by: otherKey, keyOwner: $0) }
        )
      }
    }
    // A signer that is not an ancestor of the owner, or only a suffix of a label.
    for (owner, signer, encloses) in [
      ("www.example.net.", "example.com.", false), ("www.example.net.", "ample.net.", false),
      ("www.example.net.", ".", true), ("example.net.", "www.example.net.", false),
      ("www.example.net.", "WWW.example.net.", true),
    ] {
      let bytes = buildMessage(answers: [
        TestRecord(
          owner: owner, type: .rrsig,
          rdata: rrsigRDATA(
            covered: .a, algorithm: 13, labels: 1, expiration: 2, inception: 1, keyTag: 1,
            signer: signer, signature: [1]))
      ])
      withMessage(bytes) { message, records in
        XCTAssertEqual(
          RRSIGRecord(records[0], in: message)?.signerEnclosesOwner(in: message), encloses,
          "\(owner) \(signer)")
      }
    }
  }

  func testRSAPublicKeyParts() {
    withMessage(message(for: signedExamples[0])) { message, records in
      let parts = DNSKEYRecord(records[2], in: message)?.rsaPublicKey
      XCTAssertEqual(parts.map { Array($0.exponent) }, [0x01, 0x00, 0x01])
      XCTAssertEqual(parts?.modulus.count, 64)
    }
  }
}
