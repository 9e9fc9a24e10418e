// RRSIGRecord.verify against the published examples (PublishedExampleTests:
// RFC 5702, RFC 6605, RFC 8080 with Errata 4935): each signature verifies
// with its key over the signed data this module writes, and fails once the
// data, the signature or the key is changed.

import DNSSEC
import DNSWire
import XCTest

final class SignatureCheckTests: XCTestCase {
  /// Checks example `example`'s RRSIG with its DNSKEY after `alter` had its
  /// way with the message bytes and the signed data.
  func check(
    _ example: SignedExample, alterMessage: (inout [UInt8]) -> Void = { _ in },
    alterSignedData: (inout [UInt8]) -> Void = { _ in }
  ) -> SignatureCheck? {
    var bytes = exampleMessage(example)
    guard var data = signedData(bytes, rrsigAt: example.rrset.count) else { return nil }
    alterMessage(&bytes)
    alterSignedData(&data)
    return withMessage(bytes) { message, records -> SignatureCheck? in
      guard let rrsig = RRSIGRecord(records[example.rrset.count], in: message),
        let key = DNSKEYRecord(records[example.rrset.count + 1], in: message)
      else { return nil }
      return data.withUnsafeBytes { rrsig.verify(key: key, signedData: $0) }
    }
  }

  func testEveryPublishedSignatureVerifies() {
    XCTAssertEqual(signedExamples.map(\.algorithm), [8, 10, 13, 14, 15, 15])
    for example in signedExamples {
      XCTAssertEqual(check(example), .valid, example.name)
    }
  }

  func testAChangedRecordOrSignatureFails() {
    for example in signedExamples {
      // The last octet of the signed data is the RRset's last RDATA octet.
      XCTAssertEqual(
        check(example, alterSignedData: { $0[$0.count - 1] ^= 0x01 }), .invalid, example.name)
      // The signed RRSIG fields: the expiration moved by one second.
      XCTAssertEqual(check(example, alterSignedData: { $0[11] ^= 0x01 }), .invalid, example.name)
      XCTAssertEqual(
        check(example, alterSignedData: { $0.removeLast() }), .invalid, example.name)
      // The signature's last octet (the RRSIG is the record after the
      // RRset; its RDATA ends where the DNSKEY record starts).
      XCTAssertEqual(
        check(example, alterMessage: { flipLastRDATAOctet(of: example.rrset.count, in: &$0) }),
        .invalid, example.name)
      // The key's last octet.
      XCTAssertEqual(
        check(example, alterMessage: { flipLastRDATAOctet(of: example.rrset.count + 1, in: &$0) }),
        .invalid, example.name)
    }
  }

  func testAKeyOfAnotherAlgorithmOrExampleFails() {
    // The P-256 example's RRSIG with the P-384 example's key: another algorithm.
    let p256 = exampleMessage(signedExamples[2])
    let p384 = exampleMessage(signedExamples[3])
    let data = signedData(p256, rrsigAt: 1)!
    withMessage(p256) { message, records in
      let rrsig = RRSIGRecord(records[1], in: message)!
      withMessage(p384) { other, otherRecords in
        let otherKey = DNSKEYRecord(otherRecords[2], in: other)!
        XCTAssertEqual(
          data.withUnsafeBytes { rrsig.verify(key: otherKey, signedData: $0) }, .invalid)
      }
    }
    // The two Ed25519 examples: same algorithm, the other one's key.
    let first = exampleMessage(signedExamples[4])
    let second = exampleMessage(signedExamples[5])
    let firstData = signedData(first, rrsigAt: signedExamples[4].rrset.count)!
    withMessage(first) { message, records in
      let rrsig = RRSIGRecord(records[signedExamples[4].rrset.count], in: message)!
      withMessage(second) { other, otherRecords in
        let otherKey = DNSKEYRecord(otherRecords[signedExamples[5].rrset.count + 1], in: other)!
        XCTAssertEqual(
          firstData.withUnsafeBytes { rrsig.verify(key: otherKey, signedData: $0) }, .invalid)
      }
    }
  }

  func testUnsupportedAlgorithmsAreNeitherValidNorInvalid() {
    for algorithm: UInt8 in [1, 3, 6, 12, 16, 253] {
      let key = TestRecord(
        owner: "example.", type: .dnskey,
        rdata: dnskeyRDATA(flags: 257, algorithm: algorithm, key: [3, 1, 0, 1, 0xC5]))
      let rrsig = TestRecord(
        owner: "example.", type: .rrsig,
        rdata: rrsigRDATA(
          covered: .dnskey, algorithm: algorithm, labels: 1, expiration: 2, inception: 1,
          keyTag: 1, signer: "example.", signature: [1, 2, 3]))
      withMessage(buildMessage(answers: [key, rrsig])) { message, records in
        let check = RRSIGRecord(records[1], in: message)!.verify(
          key: DNSKEYRecord(records[0], in: message)!,
          signedData: UnsafeRawBufferPointer(start: nil, count: 0))
        XCTAssertEqual(check, .unsupportedAlgorithm, "algorithm \(algorithm)")
      }
    }
  }

  func testMalformedKeysAndSignaturesAreInvalidNotATrap() {
    // Supported algorithms with keys and signatures of every short length.
    for algorithm: UInt8 in [5, 8, 10, 13, 14, 15] {
      for keyLength in [1, 2, 3, 4, 31, 33, 63, 65, 97] {
        for signatureLength in [0, 1, 63, 64, 65, 96] {
          let key = TestRecord(
            owner: "example.", type: .dnskey,
            rdata: dnskeyRDATA(
              flags: 257, algorithm: algorithm,
              key: (0..<keyLength).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 1) }))
          let rrsig = TestRecord(
            owner: "example.", type: .rrsig,
            rdata: rrsigRDATA(
              covered: .dnskey, algorithm: algorithm, labels: 1, expiration: 2, inception: 1,
              keyTag: 1, signer: "example.",
              signature: (0..<signatureLength).map { UInt8(truncatingIfNeeded: $0 &* 11) }))
          withMessage(buildMessage(answers: [key, rrsig])) { message, records in
            guard let parsed = RRSIGRecord(records[1], in: message) else { return }
            let check = [UInt8](repeating: 7, count: 40).withUnsafeBytes {
              parsed.verify(key: DNSKEYRecord(records[0], in: message)!, signedData: $0)
            }
            XCTAssertEqual(check, .invalid, "\(algorithm) \(keyLength) \(signatureLength)")
          }
        }
      }
    }
  }
}

/// Flips the last RDATA octet of record `index` (answer section) in `bytes`.
private func flipLastRDATAOctet(of index: Int, in bytes: inout [UInt8]) {
  let end = withMessage(bytes) { _, records in records[index].end }
  bytes[end - 1] ^= 0x01
}
