// The Montgomery arithmetic under RSA against values computed with python3's integers:
// R mod n, R² mod n, −n⁻¹ mod 2^64, a·b·R⁻¹ mod n, and powers, for moduli of one, three and
// sixteen limbs.

import TestSupport
import XCTest

@testable import Crypto

struct MontgomeryCase {
  var limbCount: Int
  var negativeInverse: UInt64
  var modulus: String
  var rModN: String
  var rSquaredModN: String
  var a: String
  var b: String
  var productTimesRInverse: String
  /// (n − 1)·(n − 1)·R⁻¹ mod n: the largest inputs.
  var largestProductTimesRInverse: String
  var exponent: String
  var aToExponent: String
  var aTo65537: String
}

final class MontgomeryTests: XCTestCase {
  static let cases: [MontgomeryCase] = [
    // 2^64 − 59 (prime), one limb
    MontgomeryCase(
      limbCount: 1, negativeInverse: 0xCBEE_A4E1_A08A_D8F3,
      modulus: "ffffffffffffffc5",
      rModN: "000000000000003b",
      rSquaredModN: "0000000000000d99",
      a: "ea959c212e9c82b1",
      b: "c4069545de11cc9d",
      productTimesRInverse: "337a5c8a16865195",
      largestProductTimesRInverse: "cbeea4e1a08ad8c4",
      exponent: "0cc30d8b7628dbd25e63b229f1",
      aToExponent: "1f45b9e69dd81d4b",
      aTo65537: "d2a27ea9ad8eed1c"),
    // a random odd 130-bit number: three limbs, the top one 2 bits
    MontgomeryCase(
      limbCount: 3, negativeInverse: 0x0248_942F_72A4_C973,
      modulus: "035bc8fbbcbde5c0994164d8399f767c45",
      rModN: "02127a68f23bcdb190126feac485b1a5b1",
      rSquaredModN: "004622eeb1c4d8a4e0c638486f42f71d58",
      a: "019e115e4b9e30691c238642ea126a1e48",
      b: "033729c619c60a3cab359eeefb015c33b2",
      productTimesRInverse: "012ded0e60bd41d59534f8a5019e1de57d",
      largestProductTimesRInverse: "033475d32ecfed80fffdfd0795f0cc2062",
      exponent: "02df561d802a759159fb7ff337",
      aToExponent: "01a59b8601f901f2e85bbd6da1b495490f",
      aTo65537: "030599bcebfa0f759f153944779c2fbc8c"),
    // a random odd 1024-bit number
    MontgomeryCase(
      limbCount: 16, negativeInverse: 0x5AFE_C9EF_5008_A3E1,
      modulus:
        "c78c281d687c966c377b9aa2bb2edb20035b73993fd4235992edcf451a1afe878b33e968617959ce3f1f"
        + "65a8de5271007814e8a25f2dd97f1cfb10f62827688de6a16a3b0d464138a62332553fc1ea36f17fd374"
        + "c6a5387777330bdbd7210dff076ce2ef87b0b125ec1d7da0a6eb8c9ebd69fe29d76d4330f1446beab0c1"
        + "1fdf",
      rModN:
        "3873d7e297836993c884655d44d124dffca48c66c02bdca66d1230bae5e5017874cc16979e86a631c0e0"
        + "9a5721ad8eff87eb175da0d22680e304ef09d7d89772195e95c4f2b9bec759dccdaac03e15c90e802c8b"
        + "395ac78888ccf42428def200f8931d10784f4eda13e2825f59147361429601d62892bccf0ebb94154f3e"
        + "e021",
      rSquaredModN:
        "6f3a7228304602217d0b28237baf8a8d688594b7ddc3125416d9152b7f3b0a91ca7a7c30b778942d361f"
        + "a2bed3005333cc8b8e6a00f084e4f888f114624553fe8d572be6b90f25b15b1a8404b58537626088e6e7"
        + "71ef5cb93289c86ea478cf259b53f0ed76196e95effde1ef7820f9a1bcfd6980f0159b43c2e04f7698de"
        + "0a3c",
      a:
        "960d5a8f9a656aafd14125844d25deb354f46a6910acff0043892dfc254cb864ef901b932a7c18806a37"
        + "53915c76f18a0585a01c4c7d6df0621aef57e4cc4132f7108e96f770c2263266aa3bb0cde917f7f35634"
        + "f0e3cd972e81d66d346c6e2ba02fdaa1ad864c44e049548e8a0a8c9632ea6928f6236bf2504b74ba4a0f"
        + "e75d",
      b:
        "6b384309c9a937a68c8f95ef04a012e8677fd139d84a1d3a5b8e8fb2bff29101f3001cee05da8467f063"
        + "13fff9a01fe8419521fe0e979cf32d1634b4b465325278f845f57b3120df2f4d4c8650d7d13fb2489191"
        + "7b121dc54e5a3a26d18a669a5af84e6b4f59672710e6d8e6568068b9b52a43abad8d194a9892139600dd"
        + "b74d",
      productTimesRInverse:
        "4b99854b217c4bac66f7157546a817a64d41528f4cbd8957f85d9febde4a2cee75843e308f69245fee9a"
        + "c64a4ea550aa1827ca383c18b09d88cc2a9a781fa0933e80a8af91a5b5f8cda6d6e0b35bb2a00b394438"
        + "592acd7c02d4d1c6a5c2dd9a01d6cb35e473d9d0d5c39c2b41ffb0cbd482af10ca512d8f5a2837e0eacc"
        + "a91e",
      largestProductTimesRInverse:
        "84b7d46f36c391d17ed98568d830920a91a08ae561aaa860c2804d07e1b2cef57083b8970e92c25ee795"
        + "ab814fd4ff42c75edb6b389e10e939be140c911d511ce75b2400b1f811b2bddba8d86eeb2c50c865cada"
        + "294aec365a18c96c3b0c0507a30dec473cc6036507012fc3c25d155a9ad1b046eab42fed42f16904af35"
        + "714d",
      exponent: "0d9419cf4d60597bdc5dbe4409",
      aToExponent:
        "5f85737e5642cb5289276955bd310e469c0383ffcf5094c39bfae96cbed6aebecc66716662fec36c8553"
        + "7ff8e9641d6ac66e497b3ae555ce0317e072b7c29ade3cb64889a78ff734f5772db0c63354059bf682e7"
        + "a80de77b2373130309e150fa7dc4c0b45194b42a04eaca265012b35851fbc2237b3e06b9729a5037ee14"
        + "cdba",
      aTo65537:
        "86b5ea745345608bd1b147f9304de941160b1b10791ee6afed1e8fec5afa18db5c8b28a9c8f7823e5299"
        + "e27b7b7f9833443802dcbd0a03c00a15b4bbbf745107f6a123a17f35c0858f0c4e8a390946d6c07057a2"
        + "dabf5462771de0b552cd911ed63dbe4d205a7041628da3050ec812bc7f5bb49a57d54e0c4b27f66e0fe3"
        + "915d"),

  ]

  func testConstants() throws {
    for test in Self.cases {
      let arithmetic = try XCTUnwrap(modulus(test))
      XCTAssertEqual(arithmetic.negativeInverse, test.negativeInverse)
      XCTAssertEqual(hexOf(arithmetic.one, test), test.rModN)
      XCTAssertEqual(hexOf(arithmetic.rSquared, test), test.rSquaredModN)
    }
  }

  func testMultiply() throws {
    for test in Self.cases {
      let arithmetic = try XCTUnwrap(modulus(test))
      let a = try XCTUnwrap(number(test.a, test))
      let b = try XCTUnwrap(number(test.b, test))
      XCTAssertEqual(hexOf(arithmetic.multiply(a, b), test), test.productTimesRInverse)
      XCTAssertEqual(hexOf(arithmetic.multiply(b, a), test), test.productTimesRInverse)
      var largest = arithmetic.modulus
      largest.limbs[0] -= 1
      XCTAssertEqual(
        hexOf(arithmetic.multiply(largest, largest), test), test.largestProductTimesRInverse)
      // Into Montgomery form and back is the identity.
      XCTAssertEqual(hexOf(arithmetic.fromMontgomery(arithmetic.toMontgomery(a)), test), test.a)
    }
  }

  func testPower() throws {
    for test in Self.cases {
      let arithmetic = try XCTUnwrap(modulus(test))
      let a = arithmetic.toMontgomery(try XCTUnwrap(number(test.a, test)))
      let exponent = hexBytes(test.exponent)
      let power = exponent.withUnsafeBytes { arithmetic.power(a, exponent: $0) }
      XCTAssertEqual(hexOf(arithmetic.fromMontgomery(power), test), test.aToExponent)
      let f4: [UInt8] = [0x00, 0x01, 0x00, 0x01]  // a leading zero byte changes nothing
      let power65537 = f4.withUnsafeBytes { arithmetic.power(a, exponent: $0) }
      XCTAssertEqual(hexOf(arithmetic.fromMontgomery(power65537), test), test.aTo65537)
      // x^0 = 1 and x^1 = x.
      let zero = [UInt8]().withUnsafeBytes { arithmetic.power(a, exponent: $0) }
      XCTAssertEqual(hexOf(zero, test), test.rModN)
      let one = [UInt8(1)].withUnsafeBytes { arithmetic.power(a, exponent: $0) }
      XCTAssertEqual(hexOf(arithmetic.fromMontgomery(one), test), test.a)
    }
  }

  func testRefusedModuli() {
    var even = BigUnsigned()
    even.limbs[0] = 0x1_0000
    XCTAssertNil(MontgomeryModulus(modulus: even, limbCount: 1))
    var one = BigUnsigned()
    one.limbs[0] = 1
    XCTAssertNil(MontgomeryModulus(modulus: one, limbCount: 1))
    // The top limb of the count given must not be zero.
    var small = BigUnsigned()
    small.limbs[0] = 0xFFFF_FFFF_FFFF_FFC5
    XCTAssertNotNil(MontgomeryModulus(modulus: small, limbCount: 1))
    XCTAssertNil(MontgomeryModulus(modulus: small, limbCount: 2))
    XCTAssertNil(MontgomeryModulus(modulus: small, limbCount: 0))
    XCTAssertNil(MontgomeryModulus(modulus: small, limbCount: 65))
  }

  func testBytes() throws {
    let bytes: [UInt8] = [0x00, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09]
    let number = try XCTUnwrap(bytes.withUnsafeBytes { BigUnsigned(bigEndian: $0, limbCount: 2) })
    XCTAssertEqual(number.limbs[0], 0x0203_0405_0607_0809)
    XCTAssertEqual(number.limbs[1], 0x01)
    XCTAssertEqual(number.bigEndianByte(0, byteCount: 9), 0x01)
    XCTAssertEqual(number.bigEndianByte(8, byteCount: 9), 0x09)
    XCTAssertEqual(number.bigEndianByte(0, byteCount: 20), 0x00)
    // Nine significant bytes do not fit in one limb; leading zeros do not count.
    XCTAssertNil(bytes.withUnsafeBytes { BigUnsigned(bigEndian: $0, limbCount: 1) })
    let tooLong = [UInt8](repeating: 0xFF, count: 513)
    XCTAssertNil(tooLong.withUnsafeBytes { BigUnsigned(bigEndian: $0, limbCount: 64) })
    let empty = try XCTUnwrap(
      [UInt8]().withUnsafeBytes { BigUnsigned(bigEndian: $0, limbCount: 1) })
    XCTAssertEqual(empty.limbs[0], 0)
  }

  private func number(_ hex: String, _ test: MontgomeryCase) -> BigUnsigned? {
    hexBytes(hex).withUnsafeBytes { BigUnsigned(bigEndian: $0, limbCount: test.limbCount) }
  }

  private func modulus(_ test: MontgomeryCase) -> MontgomeryModulus? {
    guard let n = number(test.modulus, test) else { return nil }
    return MontgomeryModulus(modulus: n, limbCount: test.limbCount)
  }

  /// x as hex of the modulus's byte length, as the cases write it.
  private func hexOf(_ x: BigUnsigned, _ test: MontgomeryCase) -> String {
    let count = test.modulus.utf8.count / 2
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    for index in 0..<count {
      let byte = x.bigEndianByte(index, byteCount: count)
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
  }
}
