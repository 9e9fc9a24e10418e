import DNSWire
import XCTest

final class SipHashTests: XCTestCase {
  /// The key of the paper's test vectors: bytes 00 01 ... 0f, little-endian.
  let referenceKey = HashKey(k0: 0x0706_0504_0302_0100, k1: 0x0f0e_0d0c_0b0a_0908)

  func sipHash24(_ bytes: [UInt8]) -> UInt64 {
    var hasher = SipHasher(key: referenceKey, compressionRounds: 2, finalizationRounds: 4)
    for byte in bytes { hasher.combine(byte) }
    return hasher.finalize()
  }

  /// Aumasson and Bernstein, "SipHash: a fast short-input PRF", Appendix A:
  /// the 15-byte message 00 01 ... 0e, and the empty message of the
  /// reference implementation's vector table.
  func testSipHash24MatchesThePublishedVectors() {
    XCTAssertEqual(sipHash24(Array(0..<15)), 0xa129_ca61_49be_45e5)
    XCTAssertEqual(sipHash24([]), 0x726f_db47_dd0e_0e31)
  }

  func testNameHashIgnoresCaseAndDependsOnKeyAndTweak() {
    let lower = Array("\u{3}www\u{7}example\u{3}com\u{0}".utf8)
    let mixed = Array("\u{3}WwW\u{7}EXAMPLE\u{3}cOm\u{0}".utf8)
    func hash(_ name: [UInt8], _ key: HashKey, tweak: UInt64 = 0) -> UInt64 {
      name.withUnsafeBytes { Name.hashIgnoringCase($0, key: key, tweak: tweak) }
    }
    XCTAssertEqual(hash(lower, referenceKey), hash(mixed, referenceKey))
    XCTAssertNotEqual(hash(lower, referenceKey), hash(lower, HashKey(k0: 1, k1: 2)))
    XCTAssertNotEqual(hash(lower, referenceKey), hash(lower, referenceKey, tweak: 28))
  }

  /// SipHash-1-3 over names host0.lan ... host4095.lan: the low 32 bits (what the
  /// tables keep) of 4096 such names never collide in practice and spread
  /// over every bucket bit.
  func testLowBitsSpreadOverBuckets() {
    var seen = Set<UInt32>()
    var buckets = [Int](repeating: 0, count: 64)
    for index in 0..<4096 {
      let label = Array("host\(index)".utf8)
      let name = [UInt8(label.count)] + label + Array("\u{3}lan\u{0}".utf8)
      let hash = UInt32(
        truncatingIfNeeded: name.withUnsafeBytes {
          Name.hashIgnoringCase($0, key: referenceKey)
        })
      seen.insert(hash)
      buckets[Int(hash & 63)] += 1
    }
    XCTAssertEqual(seen.count, 4096)
    // 64 expected per bucket; a poor hash would leave some near empty.
    XCTAssertGreaterThan(buckets.min() ?? 0, 30)
    XCTAssertLessThan(buckets.max() ?? 0, 110)
  }
}
