// Malformed DNSSEC RDATA in a valid message: every view refuses it (nil),
// and random RDATA never traps. DNSWire treats these types' RDATA as
// opaque, so the checks here are the only ones.

import DNSSEC
import DNSWire
import TestSupport
import XCTest

final class MalformedRecordTests: XCTestCase {
  func parses(_ type: RRType, _ rdata: [UInt8], owner: String = "example.") -> Bool {
    withMessage(buildMessage(answers: [TestRecord(owner: owner, type: type, rdata: rdata)])) {
      message, records in
      switch type {
      case .dnskey: return DNSKEYRecord(records[0], in: message) != nil
      case .ds: return DSRecord(records[0], in: message) != nil
      case .rrsig: return RRSIGRecord(records[0], in: message) != nil
      case .nsec: return NSECRecord(records[0], in: message) != nil
      case .nsec3: return NSEC3Record(records[0], in: message) != nil
      default: return NSEC3PARAMRecord(records[0], in: message) != nil
      }
    }
  }

  func testTruncatedDNSKEYAndDS() {
    XCTAssertTrue(parses(.dnskey, wire("0101 03 0d 01")))
    XCTAssertFalse(parses(.dnskey, wire("0101 03 0d")))  // no key octets
    XCTAssertFalse(parses(.dnskey, wire("0101 03")))
    XCTAssertFalse(parses(.dnskey, []))
    XCTAssertTrue(parses(.ds, wire("1234 0d 02 aa")))
    XCTAssertFalse(parses(.ds, wire("1234 0d 02")))
    XCTAssertFalse(parses(.ds, wire("12")))
  }

  let rrsigFixed = "0001 0d 02 00000e10 00000002 00000001 1234"

  func testRRSIGSignerName() {
    XCTAssertTrue(parses(.rrsig, wire(rrsigFixed, "07 'example' 00 aabb")))
    // Compressed signer: RFC 4034 §3.1.7 forbids it.
    XCTAssertFalse(parses(.rrsig, wire(rrsigFixed, "c00c aabb")))
    XCTAssertFalse(parses(.rrsig, wire(rrsigFixed, "07 'example' c00c aabb")))
    // A signer running past the RDATA, or one without a signature after it.
    XCTAssertFalse(parses(.rrsig, wire(rrsigFixed, "07 'exam'")))
    XCTAssertFalse(parses(.rrsig, wire(rrsigFixed, "07 'example' 00")))
    // Longer than 255 octets: five labels of 63.
    XCTAssertFalse(
      parses(.rrsig, wire(rrsigFixed, "3f 61*63 3f 61*63 3f 61*63 3f 61*63 3f 61*63 00 aa")))
    // Reserved label types.
    XCTAssertFalse(parses(.rrsig, wire(rrsigFixed, "41 00 aa")))
    XCTAssertFalse(parses(.rrsig, wire(rrsigFixed, "81 00 aa")))
    // Fixed fields cut short.
    XCTAssertFalse(parses(.rrsig, wire("0001 0d 02 00000e10 00000002 00000001")))
  }

  func testNSECBitmaps() {
    XCTAssertTrue(parses(.nsec, wire("01 'a' 00 00 01 40")))
    XCTAssertTrue(parses(.nsec, wire("01 'a' 00")))  // no types at all
    XCTAssertFalse(parses(.nsec, wire("01 'a' 00 00 00")))  // window length 0
    XCTAssertFalse(parses(.nsec, wire("01 'a' 00 00 21", "ff*33")))  // 33 > 32
    XCTAssertTrue(parses(.nsec, wire("01 'a' 00 00 20", "ff*32")))
    XCTAssertFalse(parses(.nsec, wire("01 'a' 00 00 04 40")))  // past the end
    XCTAssertFalse(parses(.nsec, wire("01 'a' 00 00")))  // a lone window number
    XCTAssertFalse(parses(.nsec, wire("01 'a' 00 01 01 40 00 01 40")))  // out of order
    XCTAssertFalse(parses(.nsec, wire("01 'a' 00 00 01 40 00 01 40")))  // repeated
    XCTAssertFalse(parses(.nsec, wire("c00c 00 01 40")))  // compressed next name
    XCTAssertFalse(parses(.nsec, wire("01 'a'")))  // next name past the end
  }

  let hashOwner = "0p9mhaveqvm6t7vbl5lop2u3t2rp3tom.example."
  let nextHash = "00*20"

  func testNSEC3Lengths() {
    XCTAssertTrue(
      parses(.nsec3, wire("01 01 000c 04 aabbccdd 14", nextHash, "00 01 40"), owner: hashOwner))
    XCTAssertTrue(parses(.nsec3, wire("01 00 0000 00 14", nextHash), owner: hashOwner))
    // Salt length past the end.
    XCTAssertFalse(parses(.nsec3, wire("01 01 000c 08 aabbccdd"), owner: hashOwner))
    XCTAssertFalse(parses(.nsec3, wire("01 01 000c ff aabbccdd 14", nextHash), owner: hashOwner))
    // Hash length not SHA-1's 20, or the hash cut short.
    XCTAssertFalse(parses(.nsec3, wire("01 01 000c 00 13", "00*19"), owner: hashOwner))
    XCTAssertFalse(parses(.nsec3, wire("01 01 000c 00 14", "00*19"), owner: hashOwner))
    XCTAssertFalse(parses(.nsec3, wire("01 01 000c 00"), owner: hashOwner))
    // An unknown hash algorithm (RFC 5155 §8.1: ignored).
    XCTAssertFalse(parses(.nsec3, wire("02 00 0000 00 14", nextHash), owner: hashOwner))
    // A bad bitmap.
    XCTAssertFalse(parses(.nsec3, wire("01 00 0000 00 14", nextHash, "00 00"), owner: hashOwner))
    // An owner whose first label is not a base32hex hash.
    XCTAssertFalse(parses(.nsec3, wire("01 00 0000 00 14", nextHash), owner: "www.example."))
    XCTAssertFalse(
      parses(
        .nsec3, wire("01 00 0000 00 14", nextHash),
        owner: "wp9mhaveqvm6t7vbl5lop2u3t2rp3tom.example."))
    XCTAssertFalse(parses(.nsec3, wire("01 00 0000 00 14", nextHash), owner: "."))
  }

  func testNSEC3PARAM() {
    let bytes = buildMessage(answers: [
      TestRecord(owner: "example.", type: .nsec3param, rdata: wire("01 00 000c 04 aabbccdd"))
    ])
    withMessage(bytes) { message, records in
      let parameters = NSEC3PARAMRecord(records[0], in: message)?.parameters
      XCTAssertEqual(parameters?.iterations, 12)
      XCTAssertEqual(parameters.map { Array($0.salt) }, [0xAA, 0xBB, 0xCC, 0xDD])
      XCTAssertEqual(parameters?.isOptOut, false)
    }
    XCTAssertFalse(parses(.nsec3param, wire("01 00 000c 04 aabbcc")))
    XCTAssertFalse(parses(.nsec3param, wire("01 00 000c 04 aabbccdd ee")))
    XCTAssertFalse(parses(.nsec3param, wire("01 00 00")))
  }

  /// Random RDATA of each type, and random names for the comparisons:
  /// whatever the views accept, reading every field must not trap.
  func testRandomRDATANeverTraps() {
    var random = SplitMix64(seed: 18)
    let types: [RRType] = [.dnskey, .ds, .rrsig, .nsec, .nsec3, .nsec3param]
    var accepted = 0
    for round in 0..<3000 {
      let type = types[round % types.count]
      let length = random.below(80)
      var rdata = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
      // Bias towards almost-valid fields: small label and window lengths.
      for index in rdata.indices where random.percent(40) { rdata[index] &= 0x1F }
      let owner = random.percent(50) ? hashOwner : "x.example."
      let bytes = buildMessage(answers: [
        TestRecord(owner: owner, type: type, rdata: rdata),
        TestRecord(owner: "x.example.", type: .a, rdata: [1, 2, 3, 4]),
      ])
      withMessage(bytes) { message, records in
        if let key = DNSKEYRecord(records[0], in: message) {
          accepted += 1
          _ = (key.keyTag, key.flags, key.rsaPublicKey?.modulus.count)
        }
        if let ds = DSRecord(records[0], in: message),
          let key = DNSKEYRecord(records[0], in: message)
        {
          _ = wireName("x.example.").withUnsafeBytes { ds.check(key: key, keyOwner: $0) }
        }
        if let rrsig = RRSIGRecord(records[0], in: message) {
          accepted += 1
          var output = [UInt8](repeating: 0, count: 1024)
          _ = output.withUnsafeMutableBytes {
            SignedData.write(for: rrsig, in: message, section: .answer, into: $0)
          }
          _ = (rrsig.signature.count, rrsig.isCurrent(at: 5))
        }
        if let nsec = NSECRecord(records[0], in: message) {
          accepted += 1
          _ = wireName("y.example.").withUnsafeBytes { nsec.covers($0, in: message) }
          _ = nsec.types.contains(
            RRType(rawValue: random.percent(50) ? 1 : UInt16(truncatingIfNeeded: random.next())))
          _ = wireName("x.example.").withUnsafeBytes { CanonicalOrder.compare(nsec.nextName, $0) }
        }
        if let nsec3 = NSEC3Record(records[0], in: message) {
          accepted += 1
          _ = nsec3.covers(nsec3.nextHashedOwner)
          _ = nsec3.types.contains(.a)
        }
        if let parameters = NSEC3PARAMRecord(records[0], in: message)?.parameters,
          parameters.iterations < 200
        {
          accepted += 1
          _ = wireName("x.example.").withUnsafeBytes {
            NSEC3Hash(hashing: $0, parameters: parameters)
          }
        }
      }
      // Arbitrary octets as flat names.
      let left = (0..<random.below(40)).map { _ in UInt8(random.below(12)) }
      let right = (0..<random.below(40)).map { _ in UInt8(random.below(12)) }
      _ = left.withUnsafeBytes { l in right.withUnsafeBytes { CanonicalOrder.compare(l, $0) } }
    }
    XCTAssertGreaterThan(accepted, 100)
  }
}
