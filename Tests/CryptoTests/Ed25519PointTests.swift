// Ed25519PointTests.swift — the point arithmetic of Ed25519 verification
// (Sources/Crypto/Ed25519Point.swift): the dedicated doubling and the prepared additions
// against the plain addition law, the constant table of odd multiples of B and the one made
// for a key against multiples computed the slow way, and [s]B − [k]A against a bit-by-bit
// double-and-add, including sums that pass through the identity or add a point to itself.

import TestSupport
import XCTest

@testable import Crypto

private func decodedPoint(_ hex: String) -> EdwardsPoint? {
  hexBytes(hex).withUnsafeBytes { EdwardsPoint(decoding: $0) }
}

private func scalarWords(_ hex: String) -> Ed25519Scalar.Words {
  hexBytes(hex).withUnsafeBytes { Ed25519Scalar.littleEndian($0) }
}

/// −P = (−X, Y, Z, −T).
private func negation(_ p: EdwardsPoint) -> EdwardsPoint {
  EdwardsPoint(x: .zero - p.x, y: p.y, z: p.z, t: .zero - p.t)
}

/// [n]P by one doubling (P + P, the addition law) and one addition per bit, from the top.
private func slowMultiple(_ n: Ed25519Scalar.Words, _ p: EdwardsPoint) -> EdwardsPoint {
  var result = EdwardsPoint.identity
  for bit in (0..<256).reversed() {
    result = result + result
    if (n[bit >> 6] >> UInt64(bit & 63)) & 1 == 1 { result = result + p }
  }
  return result
}

/// Whether T·Z = X·Y, the extended coordinates' invariant (RFC 8032 §5.1.4).
private func hasConsistentT(_ p: EdwardsPoint) -> Bool {
  p.t * p.z == p.x * p.y
}

/// The affine (x, y, d·x·y) of an addend (Y + X, Y − X, 2·Z, 2·d·T).
private func affine(_ addend: EdwardsAddend) -> (
  x: Curve25519FieldElement, y: Curve25519FieldElement, dxy: Curve25519FieldElement
) {
  let inverse = addend.doubleZ.inverse
  return (
    (addend.yPlusX - addend.yMinusX) * inverse, (addend.yPlusX + addend.yMinusX) * inverse,
    addend.doubleDT * inverse
  )
}

final class Ed25519PointTests: XCTestCase {
  let base = EdwardsPoint.base
  /// RFC 8032 §7.1 TEST 1's public key.
  let key = decodedPoint("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")!
  /// A key plus the point of order 2 (Ed25519Tests.testTheEquationIsCofactorless).
  let mixedOrderKey = decodedPoint(
    "1ff7ca2a110ca2c28e6b6fbbd754e611cf4895031aa677c4c4cabd66b1bd50ba")!
  /// Points of order 2, 4 and 8.
  let smallOrder = [
    decodedPoint("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f")!,
    decodedPoint("0000000000000000000000000000000000000000000000000000000000000000")!,
    decodedPoint("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")!,
  ]

  func testDoublingMatchesTheAdditionLaw() {
    for point in [base, base + base + base, key, mixedOrderKey, .identity] + smallOrder {
      var doubled = point
      doubled.double(computingT: true)
      XCTAssertTrue(doubled.isSamePoint(as: point + point))
      XCTAssertTrue(hasConsistentT(doubled))
      XCTAssertTrue(hasConsistentT(point + point))
      // Without T the point is the same.
      var withoutT = point
      withoutT.double(computingT: false)
      XCTAssertTrue(withoutT.isSamePoint(as: doubled))
    }
    // The identity doubles to itself; a point of order 2 doubles to the identity.
    var identity = EdwardsPoint.identity
    identity.double(computingT: true)
    XCTAssertTrue(identity.isIdentity)
    var order2 = smallOrder[0]
    order2.double(computingT: true)
    XCTAssertTrue(order2.isIdentity)
  }

  func testPreparedAdditionAndSubtraction() {
    let points = [base, key, mixedOrderKey, .identity] + smallOrder
    for p in points {
      for q in points {
        let addend = EdwardsAddend(q)
        var sum = p
        sum.add(addend, negated: false, isAffine: false, computingT: true)
        XCTAssertTrue(sum.isSamePoint(as: p + q))
        XCTAssertTrue(hasConsistentT(sum))
        var difference = p
        difference.add(addend, negated: true, isAffine: false, computingT: true)
        XCTAssertTrue(difference.isSamePoint(as: p + negation(q)))
        XCTAssertTrue(hasConsistentT(difference))
      }
    }
    // P − P is the identity; P + P the doubling.
    var zero = key
    zero.add(EdwardsAddend(key), negated: true, isAffine: false, computingT: true)
    XCTAssertTrue(zero.isIdentity)
  }

  func testAffineAdditionMatchesTheProjectiveOne() {
    // B's table entry used as affine (D = 2·Z1) and as projective (D = Z1·2).
    for p in [base, key, mixedOrderKey, .identity] {
      for negated in [false, true] {
        var affineSum = p
        affineSum.add(
          EdwardsAddend.baseOddMultiple(0), negated: negated, isAffine: true, computingT: true)
        var projectiveSum = p
        projectiveSum.add(
          EdwardsAddend(base), negated: negated, isAffine: false, computingT: true)
        XCTAssertTrue(affineSum.isSamePoint(as: projectiveSum))
        XCTAssertTrue(hasConsistentT(affineSum))
      }
    }
  }

  func testBaseOddMultiplesTableMatchesTheSlowWay() {
    // Each entry i of the constant table is (2i + 1)·B, from B by the addition law, in
    // affine coordinates (x = X/Z, y = Y/Z).
    let d = Curve25519FieldElement.curveD
    var multiple = base
    for index in 0..<4 {
      let inverseZ = multiple.z.inverse
      let x = multiple.x * inverseZ
      let y = multiple.y * inverseZ
      let entry = EdwardsAddend.baseOddMultiple(index)
      XCTAssertEqual(entry.yPlusX, y + x, "entry \(index)")
      XCTAssertEqual(entry.yMinusX, y - x, "entry \(index)")
      XCTAssertEqual(entry.doubleDT, d * x * y + d * x * y, "entry \(index)")
      XCTAssertTrue(entry.yPlusX.isCanonical && entry.yMinusX.isCanonical)
      XCTAssertTrue(entry.doubleDT.isCanonical)
      multiple = multiple + base + base
    }
  }

  func testOddMultiplesOfAKeyMatchTheSlowWay() {
    let d = Curve25519FieldElement.curveD
    for point in [key, mixedOrderKey, smallOrder[2], base] {
      let table = EdwardsPoint.oddMultiples(of: point)
      var multiple = point
      for index in 0..<4 {
        let inverseZ = multiple.z.inverse
        let x = multiple.x * inverseZ
        let y = multiple.y * inverseZ
        let entry = affine(table[index])
        XCTAssertEqual(entry.x, x, "entry \(index)")
        XCTAssertEqual(entry.y, y, "entry \(index)")
        XCTAssertEqual(entry.dxy, d * x * y, "entry \(index)")
        multiple = multiple + point + point
      }
    }
  }

  func testBaseMultipleMinusMultipleMatchesDoubleAndAdd() {
    let orderMinusOne = "ecd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010"
    let zero = String(repeating: "00", count: 32)
    let one = "01" + String(repeating: "00", count: 31)
    let random1 = "2a58c5d0c7b4bd7d2c3cd5b04e0f2b0e9f5c1d7b3e6a4c8d0e2f4a6b8c0d1e02"
    let random2 = "f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0e"
    // 2^253 − 1: every digit position, a carry out of the top window.
    let topBits = String(repeating: "ff", count: 31) + "1f"
    let cases: [(String, String, EdwardsPoint)] = [
      (zero, zero, key), (one, zero, key), (zero, one, key), (random1, random2, key),
      (orderMinusOne, random1, mixedOrderKey), (random2, orderMinusOne, smallOrder[2]),
      (topBits, topBits, key), (random1, random2, base),
      // s = k with A = B: [s]B − [s]B passes through sums that cancel to the identity.
      (random1, random1, base),
      // A = −B, s = k = 1: digit 0 adds B, then subtracts −B, adding B to itself.
      (one, one, negation(base)),
    ]
    for (s, k, point) in cases {
      let sWords = scalarWords(s)
      let kWords = scalarWords(k)
      let fast = EdwardsPoint.baseMultipleMinusMultiple(
        baseDigits: Ed25519Scalar.signedDigits(sWords),
        pointDigits: Ed25519Scalar.signedDigits(kWords), of: point)
      let slow = slowMultiple(sWords, base) + slowMultiple(kWords, negation(point))
      XCTAssertTrue(fast.isSamePoint(as: slow), "s \(s), k \(k)")
    }
    let cancelled = EdwardsPoint.baseMultipleMinusMultiple(
      baseDigits: Ed25519Scalar.signedDigits(scalarWords(random1)),
      pointDigits: Ed25519Scalar.signedDigits(scalarWords(random1)), of: base)
    XCTAssertTrue(cancelled.isIdentity)
    let twiceBase = EdwardsPoint.baseMultipleMinusMultiple(
      baseDigits: Ed25519Scalar.signedDigits(scalarWords(one)),
      pointDigits: Ed25519Scalar.signedDigits(scalarWords(one)), of: negation(base))
    XCTAssertTrue(twiceBase.isSamePoint(as: base + base))
  }
}

final class Ed25519SignedDigitsTests: XCTestCase {
  /// n + Σ (the negative digits' magnitudes)·2^i against Σ (the positive digits)·2^i, in five
  /// words; and the form: each digit 0 or odd in −7…7, three zeros after a non-zero one.
  private func check(_ hex: String, file: StaticString = #filePath, line: UInt = #line) {
    let n = scalarWords(hex)
    let digits = Ed25519Scalar.signedDigits(n)
    var positive = [UInt64](repeating: 0, count: 5)
    var negativePlusN = [n[0], n[1], n[2], n[3], 0]
    func add(_ value: UInt64, at bit: Int, to words: inout [UInt64]) {
      let shift = UInt64(bit & 63)
      var carry = value << shift
      var high = shift == 0 ? 0 : value >> (64 - shift)
      var index = bit >> 6
      while (carry != 0 || high != 0) && index < 5 {
        let (sum, overflow) = words[index].addingReportingOverflow(carry)
        words[index] = sum
        carry = high + (overflow ? 1 : 0)
        high = 0
        index += 1
      }
    }
    var zerosNeeded = 0
    for index in 0..<256 {
      let digit = digits[index]
      if digit == 0 {
        zerosNeeded = max(zerosNeeded - 1, 0)
        continue
      }
      XCTAssertEqual(zerosNeeded, 0, "digit \(index)", file: file, line: line)
      XCTAssertEqual(digit & 1, 1, "digit \(index)", file: file, line: line)
      XCTAssertLessThanOrEqual(digit.magnitude, 7, "digit \(index)", file: file, line: line)
      zerosNeeded = 3
      if digit > 0 {
        add(UInt64(digit), at: index, to: &positive)
      } else {
        add(UInt64(digit.magnitude), at: index, to: &negativePlusN)
      }
    }
    XCTAssertEqual(positive, negativePlusN, hex, file: file, line: line)
  }

  func testDigitsSumToTheScalar() {
    check(String(repeating: "00", count: 32))
    check("01" + String(repeating: "00", count: 31))
    check("1f" + String(repeating: "00", count: 31))  // 31 = 32 − 1: carries
    check("ecd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")  // L − 1
    check(String(repeating: "ff", count: 31) + "1f")  // 2^253 − 1
    check("2a58c5d0c7b4bd7d2c3cd5b04e0f2b0e9f5c1d7b3e6a4c8d0e2f4a6b8c0d1e02")
    check("f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0e")
    // Windows that straddle the words: from bits 62, 126 and 191; from 61, 125 and 189.
    check("0000000000000040010000000000004003000000000000800300000000000000")
    check("00000000000000a001000000000000a000000000000000e00000000000000000")
  }
}
