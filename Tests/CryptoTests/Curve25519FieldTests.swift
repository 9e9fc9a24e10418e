// Curve25519FieldTests.swift — GF(2^255 − 19) arithmetic (Sources/Crypto/Curve25519Field.swift)
// against values computed independently with python3 integers (pow, %), all written as
// 32-byte little-endian encodings (RFC 8032 §5.1.2).

import TestSupport
import XCTest

@testable import Crypto

/// The field element with a 32-byte little-endian encoding (bit 255 ignored).
private func fieldElement(_ hex: String) -> Curve25519FieldElement {
  hexBytes(hex).withUnsafeBytes { Curve25519FieldElement(lowBitsOf: $0) }
}

/// Whether the 32-byte little-endian encoding is read as a canonical (below p) number.
private func isCanonicalEncoding(_ hex: String) -> Bool {
  fieldElement(hex).isCanonical
}

final class Curve25519FieldTests: XCTestCase {
  let a = fieldElement("490b1f2afcecee04549fa0850bdacb3c8aece0676d94ec6259e3ee972587417a")
  let b = fieldElement("8e6fc699fbbee260be0cfbaf81fe2c08f5cea89ee2a64860e58a5a6d782f991f")
  let minusOne = fieldElement("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f")

  func testSumDifferenceAndProductMatchPython() {
    XCTAssertEqual(
      a + b, fieldElement("ea7ae5c3f7abd16512ac9b358dd8f8447fbb8906503b35c33e6e49059eb6da19"))
    XCTAssertEqual(
      a - b, fieldElement("bb9b5890002e0ca49592a5d589db9e34951d38c98aeda3027458942aad57a85a"))
    XCTAssertEqual(
      b - a, fieldElement("3264a76fffd1f35b6a6d5a2a762461cb6ae2c73675125cfd8ba76bd552a85725"))
    XCTAssertEqual(
      a * b, fieldElement("46857a2bc49d9a4a44061102285d508d9056c27358cd3c4b8e00c2f493e53a0d"))
    XCTAssertNotEqual(a * b, a + b)
  }

  func testSquareMatchesPythonAndTheProduct() {
    XCTAssertEqual(
      a.squared, fieldElement("511cd945cc6f60da53c73da183f82233e47bbd084f4f4d602b17fa933d762711"))
    // The squaring's 15 products against the product's 25, up to the largest weakly reduced
    // limbs (2^51 + 2^18 − 1 each).
    let limb: UInt64 = 0x8_0000_0003_ffff
    let weak = Curve25519FieldElement(limbs: [limb, limb, limb, limb, limb])
    let mixed = Curve25519FieldElement(limbs: [limb, 0, limb, 1, 0x7_ffff_ffff_ffff])
    for value in [a, b, minusOne, weak, mixed, .zero, .one, a * b, a - b] {
      XCTAssertEqual(value.squared, value * value)
    }
    // One step of the exponent chains: a^(2^3) · b.
    XCTAssertEqual(
      a.squared(times: 3, thenTimes: b),
      fieldElement("ea34b7cf1708b47a54c6d7d1ae82c4398b5ad6cf12fa317a050fc4ce6de87e78"))
  }

  func testEdgesOfTheField() {
    XCTAssertEqual(minusOne * minusOne, .one)
    XCTAssertEqual(minusOne + .one, .zero)
    XCTAssertEqual(.zero - .one, minusOne)
    XCTAssertEqual(-Curve25519FieldElement.zero, .zero)
    XCTAssertNotEqual(minusOne, .one)
    // √−1 squared is −1 (RFC 8032 §5.1.3).
    let root = Curve25519FieldElement.squareRootOfMinusOne
    XCTAssertEqual(root * root, minusOne)
    XCTAssertEqual(
      root, fieldElement("b0a00e4a271beec478e42fad0618432fa7d7fb3d99004d2b0bdfc14f8024832b"))
  }

  func testInverseMatchesPython() {
    let inverse = a.inverse
    XCTAssertEqual(
      inverse, fieldElement("fe77085581b478ff1664be0802975caf2d3e6e6b5dc3c58cb87d263e2dcd525a"))
    XCTAssertEqual(a * inverse, .one)
    XCTAssertEqual(minusOne.inverse, minusOne)
    XCTAssertEqual(Curve25519FieldElement.zero.inverse, .zero)
  }

  func testSquareRootOfARatio() throws {
    // u = x²·v for the x below.
    let u = fieldElement("c4f5ef91dbdd57289bc136296edb50390b4b41f9f3efe7fa99a8e863c0fb1619")
    let v = fieldElement("8b220508b74eba5135f1c5e42c9e8910feb256f3ec566ef5f4429f752dcad574")
    let x = fieldElement("4aab755e987ff2baca108aede7c7c389d4f30b583f2b62ee4ef92104955d2708")
    let root = try XCTUnwrap(Curve25519FieldElement.squareRoot(ofRatio: u, to: v))
    XCTAssertTrue(root == x || root == -x)
    XCTAssertEqual(v * root * root, u)
    // −u/v is a square too (−1 is a square mod p): the root takes the √−1 branch for one of
    // u and −u.
    let minusRoot = try XCTUnwrap(Curve25519FieldElement.squareRoot(ofRatio: -u, to: v))
    XCTAssertEqual(v * minusRoot * minusRoot, -u)
    // u2/v is not a square.
    let u2 = fieldElement("d2b1ecb443bf3c69cb6c7d3efb77b88449f4a95506186e6dd23bfe48636ba75a")
    XCTAssertNil(Curve25519FieldElement.squareRoot(ofRatio: u2, to: v))
    XCTAssertEqual(Curve25519FieldElement.squareRoot(ofRatio: .zero, to: v), .zero)
  }

  func testTheLargestWeaklyReducedValueNeitherOverflowsNorMisreduces() {
    // Every limb at 2^51 + 2^18 − 1, the top of the invariant: the largest inputs each
    // operator must take without overflow (a trap in these tests).
    let limb: UInt64 = 0x8_0000_0003_ffff
    let weak = Curve25519FieldElement(limbs: [limb, limb, limb, limb, limb])
    XCTAssertEqual(
      weak, fieldElement("1200040000000000200000000000000100000000000800000000004000000000"))
    XCTAssertFalse(weak.isCanonical)
    XCTAssertFalse(weak.isNegative)
    XCTAssertEqual(
      weak + weak,
      fieldElement("2400080000000000400000000000000200000000001000000000008000000000"))
    XCTAssertEqual(
      .zero - weak,
      fieldElement("dbfffbffffffffffdffffffffffffffefffffffffff7ffffffffffbfffffff7f"))
    XCTAssertEqual(weak - weak, .zero)
    XCTAssertEqual(
      weak * weak,
      fieldElement("44019000d00400008004801d0000002400a40000002001e00200000009000500"))
  }

  func testCanonicalEncodingsAreBelowP() {
    // p − 1 is the largest canonical value; p, p + 1 and 2^255 − 1 are not (§5.1.3 step 1).
    XCTAssertTrue(
      isCanonicalEncoding(
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"))
    XCTAssertFalse(
      isCanonicalEncoding(
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"))
    XCTAssertFalse(
      isCanonicalEncoding(
        "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"))
    XCTAssertFalse(
      isCanonicalEncoding(
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"))
    // Bit 255 is the sign of x, not part of y.
    XCTAssertTrue(
      isCanonicalEncoding(
        "0100000000000000000000000000000000000000000000000000000000000080"))
    XCTAssertEqual(
      fieldElement(
        "0100000000000000000000000000000000000000000000000000000000000080"), .one)
  }

  func testNegativeIsOddCanonicalValue() {
    XCTAssertTrue(Curve25519FieldElement.one.isNegative)
    XCTAssertFalse(Curve25519FieldElement.zero.isNegative)
    // p − 1 is even; −1 computed as 0 − 1 must also read as even.
    XCTAssertFalse(minusOne.isNegative)
    XCTAssertFalse((Curve25519FieldElement.zero - .one).isNegative)
    XCTAssertTrue(a.isNegative != (-a).isNegative)
  }
}
