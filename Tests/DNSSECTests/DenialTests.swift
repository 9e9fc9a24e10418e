// NSEC and NSEC3 (RFC 4034 §4, RFC 5155): type bitmaps, the NSEC3 hashes of
// RFC 5155 Appendix A, base32hex owners, and which names and hashes a
// record matches or covers, the last record of a chain included.

import DNSSEC
import DNSWire
import TestSupport
import XCTest

final class DenialTests: XCTestCase {
  /// RFC 5155 Appendix A: salt aabbccdd, 12 iterations.
  let appendixAHashes: [(String, String)] = [
    ("example.", "0p9mhaveqvm6t7vbl5lop2u3t2rp3tom"),
    ("a.example.", "35mthgpgcu1qg68fab165klnsnk3dpvl"),
    ("ai.example.", "gjeqe526plbf1g8mklp59enfd789njgi"),
    ("ns1.example.", "2t7b4g4vsa5smi47k61mv5bv1a22bojr"),
    ("ns2.example.", "q04jkcevqvmu85r014c7dkba38o0ji5r"),
    ("w.example.", "k8udemvp1j2f7eg6jebps17vp3n8i58h"),
    ("*.w.example.", "r53bq7cc2uvmubfu5ocmm6pers9tk9en"),
    ("x.w.example.", "b4um86eghhds6nea196smvmlo4ors995"),
    ("y.w.example.", "ji6neoaepv8b5o6k4ev33abha8ht9fgc"),
    ("x.y.w.example.", "2vptu5timamqttgl4luu9kg21e0aor3s"),
    ("xx.example.", "t644ebqk9bibcna874givr6joj62mlhv"),
    ("2t7b4g4vsa5smi47k61mv5bv1a22bojr.example.", "kohar7mbb8dc2ce8a9qvl8hon4k53uhi"),
    ("c.example.", "4g6p9u5gvfshp30pqecj98b3maqbn1ck"),
  ]

  func hash(base32 text: String) -> NSEC3Hash? {
    Array(text.utf8).withUnsafeBytes { NSEC3Hash(base32Hex: $0) }
  }

  func hash(of name: String, salt: [UInt8] = [0xAA, 0xBB, 0xCC, 0xDD], iterations: Int = 12)
    -> NSEC3Hash?
  {
    wireName(name).withUnsafeBytes { flat in
      salt.withUnsafeBytes { NSEC3Hash(hashing: flat, salt: $0, iterations: iterations) }
    }
  }

  func testRFC5155AppendixAHashes() {
    for (name, text) in appendixAHashes {
      let expected = hash(base32: text)
      XCTAssertNotNil(expected, text)
      XCTAssertEqual(hash(of: name), expected, name)
      // Case does not change the hash (RFC 5155 §5: canonical form).
      XCTAssertEqual(hash(of: name.uppercased()), expected, name)
      XCTAssertEqual(hash(base32: text.uppercased()), expected, text)
    }
    XCTAssertNotEqual(hash(of: "example.", iterations: 11), hash(base32: appendixAHashes[0].1))
    XCTAssertNotEqual(hash(of: "example.", salt: []), hash(base32: appendixAHashes[0].1))
  }

  func testBase32HexRefusesOtherText() {
    XCTAssertNil(hash(base32: "0p9mhaveqvm6t7vbl5lop2u3t2rp3to"))  // 31 characters
    XCTAssertNil(hash(base32: "0p9mhaveqvm6t7vbl5lop2u3t2rp3tomm"))  // 33
    XCTAssertNil(hash(base32: "0p9mhaveqvm6t7vbl5lop2u3t2rp3tow"))  // w is not base32hex
    XCTAssertNil(hash(base32: "0p9mhaveqvm6t7vbl5lop2u3t2rp3to="))
    XCTAssertNil(hash(base32: ""))
  }

  /// An NSEC3 of RFC 5155 Appendix A's zone: owner hash, next hash, types.
  func nsec3(
    _ owner: String, next: String, types: [UInt16], flags: UInt8 = 1, iterations: UInt16 = 12,
    salt: [UInt8] = [0xAA, 0xBB, 0xCC, 0xDD]
  ) -> TestRecord {
    let nextRaw = Array(hash(base32: next).map { h in (0..<20).map { h.octets[$0] } }!)
    return TestRecord(
      owner: owner + ".example.", type: .nsec3,
      rdata: [1, flags] + uint16(iterations) + [UInt8(salt.count)] + salt + [20] + nextRaw
        + typeBitmap(types))
  }

  func testNSEC3FieldsMatchingAndCovering() {
    let bytes = buildMessage(
      answers: [],
      authority: [
        nsec3(
          "0P9MHAVEQVM6T7VBL5LOP2U3T2RP3TOM", next: "2t7b4g4vsa5smi47k61mv5bv1a22bojr",
          types: [15, 48, 2, 6, 51, 46]),
        nsec3(
          "t644ebqk9bibcna874givr6joj62mlhv", next: "0p9mhaveqvm6t7vbl5lop2u3t2rp3tom",
          types: [1, 13, 46], flags: 0),
      ])
    withMessage(bytes) { message, records in
      let first = NSEC3Record(records[0], in: message)!
      XCTAssertEqual(first.parameters.hashAlgorithm, 1)
      XCTAssertTrue(first.parameters.isOptOut)
      XCTAssertEqual(first.parameters.iterations, 12)
      XCTAssertEqual(Array(first.parameters.salt), [0xAA, 0xBB, 0xCC, 0xDD])
      XCTAssertEqual(first.ownerHash, hash(of: "example."))
      XCTAssertEqual(first.nextHashedOwner, hash(of: "ns1.example."))
      for type: UInt16 in [15, 48, 2, 6, 51, 46] {
        XCTAssertTrue(first.types.contains(RRType(rawValue: type)), "\(type)")
      }
      XCTAssertFalse(first.types.contains(.a))
      XCTAssertFalse(first.types.contains(.ds))
      XCTAssertFalse(first.types.contains(RRType(rawValue: 1234)))
      // The owner's hash matches; a hash strictly between is covered.
      wireName("EXAMPLE.").withUnsafeBytes {
        XCTAssertEqual(NSEC3Hash(hashing: $0, parameters: first.parameters), first.ownerHash)
      }
      XCTAssertTrue(first.matches(hash(of: "example.")!))
      XCTAssertFalse(first.covers(hash(of: "example.")!))
      XCTAssertTrue(first.covers(hash(base32: "10000000000000000000000000000000")!))
      XCTAssertFalse(first.covers(hash(of: "ns1.example.")!))
      XCTAssertFalse(first.covers(hash(of: "a.example.")!))  // 35mt… after 2t7b…

      // The last NSEC3 of the chain wraps around to the first hash.
      let last = NSEC3Record(records[1], in: message)!
      XCTAssertFalse(last.parameters.isOptOut)
      XCTAssertTrue(last.covers(hash(base32: "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv")!))
      XCTAssertTrue(last.covers(hash(base32: "00000000000000000000000000000000")!))
      XCTAssertFalse(last.covers(hash(of: "xx.example.")!))
      XCTAssertTrue(last.matches(hash(of: "xx.example.")!))
      XCTAssertFalse(last.covers(hash(of: "example.")!))
      XCTAssertFalse(last.covers(hash(of: "w.example.")!))  // k8ud…
    }
  }

  func testSingleNSEC3ChainCoversEveryOtherHash() {
    let only = "k8udemvp1j2f7eg6jebps17vp3n8i58h"
    let bytes = buildMessage(answers: [nsec3(only, next: only, types: [1])])
    withMessage(bytes) { message, records in
      let record = NSEC3Record(records[0], in: message)!
      XCTAssertFalse(record.covers(hash(base32: only)!))
      XCTAssertTrue(record.covers(hash(of: "example.")!))
      XCTAssertTrue(record.covers(hash(of: "xx.example.")!))
    }
  }

  func nsec(_ owner: String, next: String, types: [UInt16] = [1, 46, 47]) -> TestRecord {
    TestRecord(owner: owner, type: .nsec, rdata: wireName(next) + typeBitmap(types))
  }

  func testNSECCoveringIncludingTheLastOfTheZone() {
    let bytes = buildMessage(answers: [
      nsec("B.example.", next: "d.EXAMPLE.", types: [1, 15, 46, 47, 1234]),
      nsec("z.example.", next: "example."),
    ])
    withMessage(bytes) { message, records in
      let middle = NSECRecord(records[0], in: message)!
      XCTAssertEqual(Array(middle.nextName), wireName("d.EXAMPLE."))
      XCTAssertTrue(middle.types.contains(.mx))
      XCTAssertTrue(middle.types.contains(RRType(rawValue: 1234)))
      XCTAssertFalse(middle.types.contains(.aaaa))
      XCTAssertFalse(middle.types.contains(RRType(rawValue: 1235)))
      func covers(_ record: NSECRecord, _ name: String) -> Bool {
        wireName(name).withUnsafeBytes { record.covers($0, in: message) }
      }
      XCTAssertTrue(covers(middle, "c.example."))
      XCTAssertTrue(covers(middle, "x.b.example."))  // below the owner, before the next
      XCTAssertTrue(covers(middle, "C.EXAMPLE."))
      XCTAssertFalse(covers(middle, "b.example."))
      XCTAssertFalse(covers(middle, "d.example."))
      XCTAssertFalse(covers(middle, "e.example."))
      XCTAssertFalse(covers(middle, "a.example."))
      XCTAssertTrue(wireName("b.EXAMPLE.").withUnsafeBytes { middle.matches($0, in: message) })
      XCTAssertFalse(wireName("c.example.").withUnsafeBytes { middle.matches($0, in: message) })

      let last = NSECRecord(records[1], in: message)!
      XCTAssertTrue(covers(last, "zz.example."))
      XCTAssertTrue(covers(last, "a.z.example."))
      XCTAssertFalse(covers(last, "y.example."))
      XCTAssertFalse(covers(last, "z.example."))
      XCTAssertFalse(covers(last, "example."))
    }
  }
}
