import TestSupport
import XCTest

@testable import Crypto

/// The parts of ECDSA verification that inputs rarely reach: x_R ≥ n (FIPS 186-5 §6.4.2
/// step 7 reduces it mod n), the width-w NAF digits of the scalars, and P-256's own
/// Montgomery multiplication against the generic one. The crafted keys below were made
/// for this test with python3 integers: R a point whose x is the case wanted, r and s
/// chosen, and Q = u2⁻¹·(R − u1·G) so that u1·G + u2·Q = R.
final class ECDSAArithmeticTests: XCTestCase {
  /// SHA-256 and SHA-384 of "dnsward", as in ECDSAInputTests.
  let digest256 = ECDSAInputTests.p256.digest
  let digest384 = ECDSAInputTests.p384.digest

  func verify(_ curve: ECDSACurve, _ digest: String, _ signature: String, _ key: String)
    -> Bool
  {
    verifyECDSA(
      curve, digest: hexBytes(digest), signature: hexBytes(signature), publicKey: hexBytes(key))
  }

  /// x_R in [n, p): x_R mod n = x_R − n = r verifies (with r = 3 and 2, x_R = n + r).
  func testAnXOfRAboveNIsReducedModN() {
    XCTAssertTrue(
      verify(
        .p256, digest256,
        String(repeating: "0", count: 63) + "3" + String(repeating: "0", count: 57) + "1234567",
        "af0db504cf4150a5da4ea6aef1a40e015db899b7d0fbe90d100920f9276defc9"
          + "1e14a87e8283c7be40ac53ab523465c3bc701132117c75b337d6e73beeedb9dc"))
    XCTAssertTrue(
      verify(
        .p384, digest384,
        String(repeating: "0", count: 95) + "2" + String(repeating: "0", count: 89) + "1234567",
        "44127b258815a40afb98c167ca288e6950d0a8d070e9e68edb68fd07e4b39129a9e6a6e9f193aa0b1e09ed1991470b28"
          + "0bd6195a1c97529e0653eb205518cf8f7e5693737e8ed12f92a72c8815ee63abd42fa7dfe8591a3e4810b886f0d45357"
      ))
  }

  /// r ≥ p − n, and x_R = r + n − p (here 0): r + n is not a coordinate (it is ≥ p), and
  /// x_R mod n ≠ r, so the signature must fail; a verifier that compared (r + n) mod p
  /// with x_R would accept it.
  func testRPlusNAtOrAbovePIsNotACandidate() {
    XCTAssertFalse(
      verify(
        .p256, digest256,
        "000000000000000000000000000000004319055358e8617b0c46353d039cdaae"
          + String(repeating: "0", count: 57) + "1234567",
        "640516e109427722acb59f50a44974ce039e3d4a625e7ca77e437dba68f5927f"
          + "29942e3514503d0f272e956bccc40c623f931c97553edadfd5f18b6158d1f5fc"))
    XCTAssertFalse(
      verify(
        .p384, digest384,
        "000000000000000000000000000000000000000000000000389cb27e0bc8d21fa7e5f24cb74f58851313e696333ad68c"
          + String(repeating: "0", count: 89) + "1234567",
        "7e754fe6e5d883f66f2d1f96a6c147e1f16bbe9544d7096195f552dfbaed4993f559057a65f5f14a6d68c5a907d0c2bc"
          + "7d7970aa67e98a13c967d56dfe47dcb2458c969f420701b166fe96c5079a3f413e5f2c86311580814fc2d50d30896b4a"
      ))
  }

  /// The number Σ digits[i]·2^i, as 7 limbs in two's complement (the digits' sum may
  /// pass the scalar's 384 bits on the way down).
  func value(of digits: ScalarDigits, count: Int) -> [UInt64] {
    var total = [UInt64](repeating: 0, count: 7)
    for position in stride(from: count - 1, through: 0, by: -1) {
      // total ← 2·total + digit.
      for index in stride(from: 6, to: 0, by: -1) {
        total[index] = total[index] << 1 | total[index - 1] >> 63
      }
      total[0] <<= 1
      // Plus the digit, sign-extended to 7 limbs.
      let digit = Int64(digits[position])
      let fill: UInt64 = digit < 0 ? .max : 0
      var carry = false
      for index in 0..<7 {
        let addend = index == 0 ? UInt64(bitPattern: digit) : fill
        let (sum, overflow) = total[index].addingReportingOverflow(addend)
        let (sumAgain, overflowAgain) = sum.addingReportingOverflow(carry ? 1 : 0)
        total[index] = sumAgain
        carry = overflow || overflowAgain
      }
    }
    return total
  }

  func testWindowedDigitsRebuildTheScalarAndKeepTheirShape() {
    var generator = SystemRandomNumberGenerator()
    var scalars: [Limbs] = [
      Limbs(repeating: 0), PrimeField.limbs(1), PrimeField.limbs(2), PrimeField.limbs(31),
      [.max, .max, .max, .max, 0, 0], [0, 0, 0, 1 << 63, 0, 0],
      [.max, .max, .max, .max, .max, .max], WeierstrassCurve.p256.order.modulus,
      [0x5555_5555_5555_5555, 0xAAAA_AAAA_AAAA_AAAA, 0x5555_5555_5555_5555, 0, 0, 0],
    ]
    for _ in 0..<50 {
      scalars.append([
        generator.next(), generator.next(), generator.next(), generator.next(), 0, 0,
      ])
    }
    for width in 2...7 {
      for scalar in scalars {
        let bitCount = scalar[4] == 0 && scalar[5] == 0 ? 256 : 384
        var digits = ScalarDigits(repeating: 0)
        let count = writeDigits(of: scalar, bitCount: bitCount, width: width, into: &digits)
        XCTAssertLessThanOrEqual(count, bitCount + 1)
        let rebuilt = value(of: digits, count: count)
        XCTAssertEqual(Array(rebuilt[0..<6]), (0..<6).map { scalar[$0] }, "width \(width)")
        XCTAssertEqual(rebuilt[6], 0, "width \(width)")
        var lastNonzero = -width
        for position in 0..<385 {
          let digit = Int(digits[position])
          if position >= count { XCTAssertEqual(digit, 0) }
          guard digit != 0 else { continue }
          XCTAssertEqual(digit & 1, 1, "an even digit")
          XCTAssertLessThan(abs(digit), 1 << (width - 1))
          XCTAssertGreaterThanOrEqual(position - lastNonzero, width, "digits too close")
          lastNonzero = position
        }
        if count > 0 { XCTAssertNotEqual(digits[count - 1], 0) }
      }
    }
  }

  /// multiplyModuloP256 equals the generic Montgomery product for P-256's p (whose
  /// −p⁻¹ mod 2^64 is 1), at the edges (0, 1, p − 1, p − 2, 2^255) and at random.
  func testP256MultiplicationMatchesTheGenericOne() {
    let p = p256Prime
    var values: [Limbs] = [
      Limbs(repeating: 0), PrimeField.limbs(1), [p[0] - 1, p[1], p[2], p[3], 0, 0],
      [p[0] - 2, p[1], p[2], p[3], 0, 0], [0, 0, 0, 1 << 63, 0, 0],
      [0, 0xFFFF_FFFF, 0, 0xFFFF_FFFF_0000_0000, 0, 0],
    ]
    var generator = SystemRandomNumberGenerator()
    let field = WeierstrassCurve.p256.field
    for _ in 0..<200 {
      let random: Limbs = [
        generator.next(), generator.next(), generator.next(), generator.next(), 0, 0,
      ]
      values.append(field.reduceOnce(random))
    }
    XCTAssertEqual(field.reductionFactor, 1)
    for a in values {
      for b in values.prefix(12) {
        let fast = multiplyModuloP256(a, b)
        let generic = FixedWidth<4>.multiply(a, b, modulo: p, reductionFactor: 1)
        XCTAssertEqual((0..<6).map { fast[$0] }, (0..<6).map { generic[$0] })
      }
    }
  }
}
