import TestSupport
import XCTest

@testable import Crypto

/// PrimeField (Montgomery arithmetic modulo p and n of P-256 and P-384) against values
/// computed with Python's integers: a·b, a + b, a − b, b − a and a⁻¹ for random a, b.
final class PrimeFieldTests: XCTestCase {
  struct Values {
    let field: PrimeField
    let a, b, product: String
    let sum, difference, reversedDifference: String?
    let inverse: String
  }

  func load(_ field: PrimeField, _ hex: String) -> Limbs {
    hexBytes(hex).withUnsafeBytes { field.load($0) }
  }

  func hex(_ field: PrimeField, _ value: Limbs) -> String {
    var bytes: [UInt8] = []
    for index in stride(from: field.limbCount - 1, through: 0, by: -1) {
      for shift in stride(from: 56, through: 0, by: -8) {
        bytes.append(UInt8(truncatingIfNeeded: value[index] >> UInt64(shift)))
      }
    }
    return hexString(bytes)
  }

  func check(_ values: Values) {
    let field = values.field
    let a = load(field, values.a)
    let b = load(field, values.b)
    let aMontgomery = field.toMontgomery(a)
    let bMontgomery = field.toMontgomery(b)
    XCTAssertEqual(hex(field, field.fromMontgomery(aMontgomery)), values.a)
    XCTAssertEqual(
      hex(field, field.fromMontgomery(field.multiply(aMontgomery, bMontgomery))),
      values.product)
    XCTAssertEqual(
      hex(field, field.fromMontgomery(field.inverse(aMontgomery))), values.inverse)
    XCTAssertEqual(
      hex(field, field.fromMontgomery(field.multiply(field.inverse(aMontgomery), aMontgomery))),
      hex(field, PrimeField.limbs(1)))
    // Halving, then doubling, gives the number back: 1 is odd (a + m, no carry out),
    // m − 1 even, and an odd a or b above 2^bits − m carries out of the top limb.
    for value in [
      a, b, PrimeField.limbs(1),
      field.subtractWrapping(field.modulus, PrimeField.limbs(1)).difference,
    ] {
      let half = field.halve(value)
      XCTAssertTrue(field.isReduced(half))
      XCTAssertEqual(hex(field, field.add(half, half)), hex(field, value))
    }
    if let sum = values.sum { XCTAssertEqual(hex(field, field.add(a, b)), sum) }
    if let difference = values.difference {
      XCTAssertEqual(hex(field, field.subtract(a, b)), difference)
    }
    if let reversed = values.reversedDifference {
      XCTAssertEqual(hex(field, field.subtract(b, a)), reversed)
    }
  }

  /// The constants of a field: −m⁻¹ mod 2^64, and R² mod m found by doubling 1 modulo m
  /// 2·64·limbCount times.
  func checkConstants(_ field: PrimeField) {
    XCTAssertEqual(field.modulus[0] &* field.reductionFactor, UInt64.max)
    var value = PrimeField.limbs(1)
    for _ in 0..<(128 * field.limbCount) { value = field.add(value, value) }
    XCTAssertEqual(hex(field, value), hex(field, field.rSquared))
    // (m − 1)² = 1 and (m − 1) + 1 = 0.
    let minusOne = field.toMontgomery(
      field.subtractWrapping(field.modulus, PrimeField.limbs(1)).difference)
    XCTAssertEqual(
      hex(field, field.fromMontgomery(field.square(minusOne))), hex(field, PrimeField.limbs(1)))
    XCTAssertTrue(field.isZero(field.add(minusOne, field.montgomeryOne)))
  }

  func testConstants() {
    checkConstants(WeierstrassCurve.p256.field)
    checkConstants(WeierstrassCurve.p256.order)
    checkConstants(WeierstrassCurve.p384.field)
    checkConstants(WeierstrassCurve.p384.order)
  }

  func testP256Field() {
    check(
      Values(
        field: WeierstrassCurve.p256.field,
        a: "92bdb98e97ed2981588df12289b3a30967eadff1ba23814cc594557b386eca73",
        b: "8d460a374d9dc8f8b56f4983999505b94502df36d355dd5345ab861586d827ec",
        product: "4b3c90307e4cdc363efdb66ff8850e6d7323c521a3a309418a22ac6033aa3f14",
        sum: "2003c3c6e58af2790dfd3aa62348a8c2acedbf278d795ea00b3fdb90bf46f260",
        difference: "0577af574a4f6088a31ea79ef01e9d5022e800bae6cda3f97fe8cf65b196a287",
        reversedDifference: "fa8850a7b5b09f785ce158610fe162afdd17ff4619325c068017309a4e695d78",
        inverse: "4041593b5e3a125e996bf90495f8152a783c1190b07f006635edc743c9260f6b"))
  }

  func testP256Order() {
    check(
      Values(
        field: WeierstrassCurve.p256.order,
        a: "7efc0606252bfa45803197f9ec46ac5c9161915e7a3735714805085d1d658320",
        b: "a5b20fb234f351cf3099f08b2906e32ccb14a2ffa1908d8acb494c35af164bb5",
        product: "fa8beffaeead831a014a0fd2a53f26dd18d593cee2a10932cee925a6ef0d03b0",
        sum: nil, difference: nil, reversedDifference: nil,
        inverse: "96b0373a59ba42a98b7b4c2272e01c1a5f661836180cb51f9c89868b1e99f120"))
  }

  func testP384Field() {
    check(
      Values(
        field: WeierstrassCurve.p384.field,
        a: "92e0a51d7af79dca83736e026831c2e821a15a776fde6870ce7fa355afadd3ef"
          + "a5b20fb234f351cf3099f08b2906e32c",
        b: "d53df080cfc41a9aca6b50e456f25271d814400c88c22115426893b196a00a92"
          + "338452c4b460a8eae98d2c9619e9ae0d",
        product: "d37663571e6b0d6ab22fe6c5316dfa1c94fdbf560b243fe12762be0896bf0c8a"
          + "f2fce33e02e17becb4e8320b315b989c",
        sum: "681e959e4abbb8654ddebee6bf241559f9b59a83f8a0898610e83707464dde82"
          + "d9366277e953faba1a271d2042f0913a",
        difference: "bda2b49cab33832fb9081d1e113f7076498d1a6ae71c475b8c170fa4190dc95c"
          + "722dbcec8092a8e4470cc3f60f1d351e",
        reversedDifference: "425d4b6354cc7cd046f7e2e1eec08f89b672e59518e3b8a473e8f05be6f236a2"
          + "8dd243127f6d571bb8f33c0af0e2cae1",
        inverse: "8920c34cc789997b97c7b9279bf282a0e5d9635ffeb4fcb0a726eab615e1ccf5"
          + "f0a7f7c61a95a713235edb6784f2e8a5"))
  }

  func testP384Order() {
    check(
      Values(
        field: WeierstrassCurve.p384.order,
        a: "3fe3a37b142f03727d4fdf2326f5d7607a41535325dd8d1b7dde5d6b16b40cf9"
          + "78262ae28b7c227ba840a525d2ef67a9",
        b: "942e5d7fcacb44be64b079c9a139ac5cc89ab551e90d27f7eeb5bef934309378"
          + "5a38ff528b21b53f17b57d83a5f790ed",
        product: "4ca382188c52e97ae7c173795b810272afb17e0a5fe7a4727ea8a4f4015c9331"
          + "53b373dee9a69c114a5a2ce3066b5c68",
        sum: nil, difference: nil, reversedDifference: nil,
        inverse: "55a2a27ea763af47ac6b65bb84274e763fa9e68254fdea5e1e81570ef6df94d5"
          + "7e83bc0e0abeb31a7e52d8d33c7adca8"))
  }
}
