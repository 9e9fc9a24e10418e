// Montgomery form by long division (x·R mod n, MontgomeryWorkspace.toMontgomery) and the
// modular power RSA verification runs, on moduli whose top limb takes each path of the
// division (all ones: no scaling and no "+ 1" in the quotient estimate; a single bit;
// one limb; 64 limbs). x·R mod n is checked against the same number made the slow way, by
// doubling modulo n 64·limbCount times; the power by Fermat's little theorem on primes
// (x^(p−1) = 1 and x^p = x), which takes the even-exponent and odd-exponent endings.

import XCTest

@testable import Crypto

final class MontgomeryDivisionTests: XCTestCase {
  struct Modulus {
    var name: String
    var limbs: [UInt64]  // least significant first, top limb not zero
    var isPrime: Bool
  }

  static let moduli: [Modulus] = [
    Modulus(name: "2^64 − 59", limbs: powerOfTwo(64, minus: 59), isPrime: true),
    Modulus(name: "2^64 + 13", limbs: [13, 1], isPrime: true),
    Modulus(name: "2^127 − 1", limbs: powerOfTwo(127, minus: 1), isPrime: true),
    Modulus(name: "2^128 − 159", limbs: powerOfTwo(128, minus: 159), isPrime: true),
    Modulus(name: "2^521 − 1", limbs: powerOfTwo(521, minus: 1), isPrime: true),
    Modulus(name: "2^2281 − 1", limbs: powerOfTwo(2281, minus: 1), isPrime: true),
    Modulus(name: "2^4096 − 1", limbs: powerOfTwo(4096, minus: 1), isPrime: false),
    Modulus(
      name: "2^4095 + 1", limbs: [1] + [UInt64](repeating: 0, count: 62) + [1 << 63],
      isPrime: false),
  ]

  /// 2^bits − subtrahend, for 0 < subtrahend < 2^64 and bits ≥ 64.
  static func powerOfTwo(_ bits: Int, minus subtrahend: UInt64) -> [UInt64] {
    var limbs = [UInt64](repeating: .max, count: (bits + 63) / 64)
    if bits % 64 != 0 { limbs[limbs.count - 1] = (1 << UInt64(bits % 64)) - 1 }
    limbs[0] -= subtrahend - 1
    return limbs
  }

  func testToMontgomeryMatchesDoubling() throws {
    for modulus in Self.moduli {
      let arithmetic = try XCTUnwrap(montgomery(modulus), modulus.name)
      for x in values(below: modulus) {
        let expected = doubled(x, times: 64 * modulus.limbs.count, modulo: modulus.limbs)
        let y = arithmetic.toMontgomery(number(x))
        XCTAssertEqual(limbs(y, modulus), expected, modulus.name)
        XCTAssertEqual(limbs(arithmetic.fromMontgomery(y), modulus), x, modulus.name)
      }
      let one = doubled([1], times: 64 * modulus.limbs.count, modulo: modulus.limbs)
      XCTAssertEqual(limbs(arithmetic.one, modulus), one, modulus.name)
      let rSquared = doubled(one, times: 64 * modulus.limbs.count, modulo: modulus.limbs)
      XCTAssertEqual(limbs(arithmetic.rSquared, modulus), rSquared, modulus.name)
    }
  }

  /// x^2 by the power (a squaring in Montgomery form) against two products:
  /// (x·x·R⁻¹)·R²·R⁻¹ = x².
  func testSquareMatchesProduct() throws {
    for modulus in Self.moduli {
      let arithmetic = try XCTUnwrap(montgomery(modulus), modulus.name)
      let rSquared = arithmetic.rSquared
      for x in values(below: modulus) {
        let squared = [UInt8(2)].withUnsafeBytes {
          arithmetic.modularPower(number(x), exponent: $0)
        }
        let multiplied = arithmetic.multiply(arithmetic.multiply(number(x), number(x)), rSquared)
        XCTAssertEqual(limbs(squared, modulus), limbs(multiplied, modulus), modulus.name)
      }
    }
  }

  func testFermatOnPrimes() throws {
    for modulus in Self.moduli where modulus.isPrime {
      let arithmetic = try XCTUnwrap(montgomery(modulus), modulus.name)
      let pMinusOne = subtract(1, from: modulus.limbs)
      let pMinusTwo = subtract(2, from: modulus.limbs)
      let exponentP = bigEndian(modulus.limbs)
      let exponentPMinusOne = bigEndian(pMinusOne)
      for x in [[2], [3], pMinusTwo] as [[UInt64]] {
        let toP = exponentP.withUnsafeBytes { arithmetic.modularPower(number(x), exponent: $0) }
        XCTAssertEqual(limbs(toP, modulus), padded(x, modulus), modulus.name)
        let toPMinusOne = exponentPMinusOne.withUnsafeBytes {
          arithmetic.modularPower(number(x), exponent: $0)
        }
        XCTAssertEqual(limbs(toPMinusOne, modulus), padded([1], modulus), modulus.name)
      }
      // 0^p = 0; x^0 = 1 (no exponent bytes, or only zeros); x^1 = x.
      let zero = exponentP.withUnsafeBytes { arithmetic.modularPower(number([0]), exponent: $0) }
      XCTAssertEqual(limbs(zero, modulus), padded([0], modulus), modulus.name)
      let empty = [UInt8]().withUnsafeBytes { arithmetic.modularPower(number([5]), exponent: $0) }
      XCTAssertEqual(limbs(empty, modulus), padded([1], modulus), modulus.name)
      let zeros = [UInt8](repeating: 0, count: 3).withUnsafeBytes {
        arithmetic.modularPower(number([5]), exponent: $0)
      }
      XCTAssertEqual(limbs(zeros, modulus), padded([1], modulus), modulus.name)
      let first = [UInt8(0), 1].withUnsafeBytes {
        arithmetic.modularPower(number(pMinusTwo), exponent: $0)
      }
      XCTAssertEqual(limbs(first, modulus), pMinusTwo, modulus.name)
    }
  }

  /// 0, 1, 2, n − 2, n − 1 and a number of alternating bits below n, each of n's limbs.
  private func values(below modulus: Modulus) -> [[UInt64]] {
    let nMinusOne = subtract(1, from: modulus.limbs)
    let nMinusTwo = subtract(2, from: modulus.limbs)
    var pattern = [UInt64](repeating: 0x5A5A_A5A5_0F0F_F0F0, count: modulus.limbs.count)
    pattern[pattern.count - 1] = modulus.limbs[pattern.count - 1] >> 1
    return [
      padded([0], modulus), padded([1], modulus), padded([2], modulus), nMinusTwo,
      nMinusOne, pattern,
    ]
  }

  /// x·2^times mod n the slow way, for x < n: double, subtract n if at or above it.
  private func doubled(_ x: [UInt64], times: Int, modulo n: [UInt64]) -> [UInt64] {
    var value = x + [UInt64](repeating: 0, count: n.count - x.count)
    for _ in 0..<times {
      var carry: UInt64 = 0
      for index in value.indices {
        let limb = value[index]
        value[index] = limb << 1 | carry
        carry = limb >> 63
      }
      if carry != 0 || !isLess(value, n) {
        var borrow = false
        for index in value.indices {
          let (difference, borrowed) = value[index].subtractingReportingOverflow(n[index])
          let (result, borrowedAgain) = difference.subtractingReportingOverflow(borrow ? 1 : 0)
          value[index] = result
          borrow = borrowed || borrowedAgain
        }
      }
    }
    return value
  }

  /// x − small, for x ≥ small.
  private func subtract(_ small: UInt64, from x: [UInt64]) -> [UInt64] {
    var result = x
    var borrow = small
    for index in result.indices where borrow != 0 {
      let (difference, borrowed) = result[index].subtractingReportingOverflow(borrow)
      result[index] = difference
      borrow = borrowed ? 1 : 0
    }
    return result
  }

  private func isLess(_ x: [UInt64], _ y: [UInt64]) -> Bool {
    for index in x.indices.reversed() where x[index] != y[index] { return x[index] < y[index] }
    return false
  }

  private func padded(_ x: [UInt64], _ modulus: Modulus) -> [UInt64] {
    x + [UInt64](repeating: 0, count: modulus.limbs.count - x.count)
  }

  private func montgomery(_ modulus: Modulus) -> MontgomeryModulus? {
    MontgomeryModulus(modulus: number(modulus.limbs), limbCount: modulus.limbs.count)
  }

  private func number(_ limbs: [UInt64]) -> BigUnsigned {
    var number = BigUnsigned()
    for (index, limb) in limbs.enumerated() { number.limbs[index] = limb }
    return number
  }

  /// The low limbs of x, as many as the modulus has; the limbs above must be zero.
  private func limbs(_ x: BigUnsigned, _ modulus: Modulus) -> [UInt64] {
    for index in modulus.limbs.count..<BigUnsigned.maximumLimbs {
      XCTAssertEqual(x.limbs[index], 0, modulus.name)
    }
    return (0..<modulus.limbs.count).map { x.limbs[$0] }
  }

  private func bigEndian(_ limbs: [UInt64]) -> [UInt8] {
    limbs.reversed().flatMap { limb in
      (0..<8).reversed().map { UInt8(truncatingIfNeeded: limb >> UInt64($0 * 8)) }
    }
  }
}
