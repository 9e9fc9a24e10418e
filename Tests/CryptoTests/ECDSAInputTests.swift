import TestSupport
import XCTest

@testable import Crypto

/// The rejections FIPS 186-5 §6.4.2 and RFC 6605 §4 ask for, on both curves: wrong
/// lengths, r or s outside [1, n − 1], keys off the curve or with a coordinate ≥ p,
/// single-bit changes, and a sum u1·G + u2·Q at infinity; and the edge cases that must
/// still verify (s = n − 1, the key G or −G, the malleated (r, n − s)). The signatures
/// were made for this test with the message "dnsward" (digest below) and keys chosen
/// so that s = n − 1 or u1·G + u2·Q is the point at infinity.
final class ECDSAInputTests: XCTestCase {
  struct Case {
    let curve: ECDSACurve
    let size: Int
    let n, p: String
    /// SHA-256 or SHA-384 of "dnsward".
    let digest, key, signature: String
    /// s = n − 1.
    let largestSKey: String
    let largestSSignature: String
    /// A key for which u1·G + u2·Q is the point at infinity.
    let infinityKey: String
    let infinitySignature: String
    /// The key Q = G, then Q = −G (the generator with y negated: p − y).
    let generatorSignature: String
    let generatorX: String
    let generatorY: String
    let negatedGeneratorY: String
    let negatedGeneratorSignature: String
  }

  static let p256 = Case(
    curve: .p256, size: 32,
    n: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551",
    p: "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
    digest: "0b476ba4f4ec4f7572e9f84e7001910f245bb5690b9ff0323f0dc8ee0b025df2",
    key: "bb05dc1d811fbfde6ee09bd50705673b6e302fb8d2846b31f477c5b88fe52a4e"
      + "5cb718e53824c535c642d590e25f2b1159a3063980d0cc4e86afdddfbfecdc3f",
    signature: "d17e118e239cedb83dbadf4675ce988ac14db8c57afcd5290782b2d3e8058b52"
      + "d3ef40edb2989b49230a3df380065e6593f7c3564e237aaa70f2bf0f9aa1e72a",
    largestSKey: "d08eae65c507d52f1216671d59af0cc561bf0f715ad3e49777abd17f1143dd6f"
      + "7a7983ef41d1a4fcd80d13a153624d66a2d3326bc249fa8a3bbc0d91aee6677f",
    largestSSignature: "4e72dc96e1cfefafc0b5c2108ce3ac0cc912d24f280cbe111e76f799c97fc286"
      + "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632550",
    infinityKey: "22b964fd6a56e8294c33e920dea1f71b1ac206517c048b2fb408f4c988a7cd49"
      + "c53f511e98821647fa3e5ba9259fbad3dc644d10779b83497693eac7b0ccfebb",
    infinitySignature: "e3089c7a755530004ba417007ad25f922ed764b27e790e8ba0d0e9b47d50e093"
      + "85a8bb9b530e60cb1e353f29b11f0de6e6342c1c40f919043234c93c43b84219",
    generatorSignature: "49dcb5360853a297d5b0cda958a269408cb4f136abfda71a78098d4b208451c8"
      + "674c7b02782000c0c659d81b87f680a483504a53592769cfb10378f8df82e296",
    generatorX: "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296",
    generatorY: "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5",
    negatedGeneratorY: "b01cbd1c01e58065711814b583f061e9d431cca994cea1313449bf97c840ae0a",
    negatedGeneratorSignature:
      "bb611850c989a8f1226e8702b7bb5bf35d4c31461496a8c706d5c9639846ee5f"
      + "985f74c7e32f16691041e3f0290d609200efbb3068848b180bdbccf09d27cb66")

  static let p384 = Case(
    curve: .p384, size: 48,
    n:
      "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973",
    p:
      "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffff",
    digest:
      "8674ba86f7b5bc5ac3aad7694101fab855e2ea164df18d3dadae6b3ab12d3e0f677745a456a03b45bf3557ce96b8ae0d",
    key:
      "32c03e63b2933725e52ad0a4c57bdac66119b5d2af4ca645842f26245224914854884d1a2f985eb38ccd845a8b7f712b"
      + "c795904b38cfac8e77140d10011ee3e50e93256e53d1d6a0f2b2aa28f346f48fd7851e9175d3c651adda8954352cce76",
    signature:
      "d2f2ca9bb570e60bf01a3a55aaa6b059f105b173c1e8c12912b1a73a374c4783156a91f27fe96792095c2c4a779492ed"
      + "8b7e95013af0f03d26a8db596731bda671b7ca58ac7304a873c5a73412542a0b539c1b8597c934fc441b0add096352c1",
    largestSKey:
      "fcc8936375fa1f15d1303f56e940000492a7b841d171a7718cfd1f7ea4b7d49d48dda6918405fa8894d3efe40c40809d"
      + "e72ea34bff3dcdb3a68cca1e10e4cec42a7e74fc863d567aced6f82846406dff0027801200316893930cce958d7f085e",
    largestSSignature:
      "def851a503473dfe63dfaf8976b8191e406fec82821c9318b1d6a4692492620a5750ac3bcbd0ab6e6c37a7d7a0016f7e"
      + "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52972",
    infinityKey:
      "936620f034e38b1b60c2cd44c5ae40abbd9761a3a854add4e1297c4abe3225f7d1dfe9e44c47b3177902a90b70b96357"
      + "9ee9566f54cfc5ad9a3d16bcd3230d544b28c02cf5ca6e96569a109375572b6be081aaeb88112623ed850d232254ba44",
    infinitySignature:
      "85a8bb9b530e60cb1e353f29b11f0de6e6342c1c40f919043234c93c43b84218e3089c7a755530004ba417007ad25f93"
      + "3341fde73cc608422b456d913c0bfc13cfa2f9f4f1abd893f796ef6eddae9b602ca106edc9843faac32f9525acc10a6d",
    generatorSignature:
      "fa10f787e92e8ce314408d6354df0a39f47b5eac3033ac15ac1290680e739c88aa2f19357d3ae4225af3797ac5061b6f"
      + "04fa9fe20f72c99afc2b35b87401f2a0b9240ccb6d63d77c147b4a54dfc62ff2980bd9477ee7173524a79de633073e5b",
    generatorX:
      "aa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab7",
    generatorY:
      "3617de4a96262c6f5d9e98bf9292dc29f8f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5f",
    negatedGeneratorY:
      "c9e821b569d9d390a26167406d6d23d6070be242d765eb831625ceec4a0f473ef59f4e30e2817e6285bce2846f15f1a0",
    negatedGeneratorSignature:
      "2bb363f4243865b516c9cd68ee25b234d6821483cb3d11219694509f3f7bd99782bfda6d5603e4c5c1dfc6c67001ce7e"
      + "f17a1b6791177526be6d2c83837cffa2860469ee705ac4868416a71a1294fbad8749d892f7e0b30350858c645ad519aa"
  )

  func verify(_ test: Case, _ digest: [UInt8], _ signature: [UInt8], _ key: [UInt8]) -> Bool {
    verifyECDSA(test.curve, digest: digest, signature: signature, publicKey: key)
  }

  func flipped(_ bytes: [UInt8], bit: Int) -> [UInt8] {
    var result = bytes
    result[bit / 8] ^= 1 << UInt8(bit % 8)
    return result
  }

  func checkValidAndChanged(_ test: Case) {
    let digest = hexBytes(test.digest)
    let signature = hexBytes(test.signature)
    let key = hexBytes(test.key)
    let size = test.size
    XCTAssertTrue(verify(test, digest, signature, key))
    // One bit changed anywhere in r, s, the digest or the key.
    for bit in [0, 7, 8 * size - 1] {
      XCTAssertFalse(verify(test, digest, flipped(signature, bit: bit), key), "r bit \(bit)")
      XCTAssertFalse(
        verify(test, digest, flipped(signature, bit: 8 * size + bit), key), "s bit \(bit)")
      XCTAssertFalse(verify(test, flipped(digest, bit: bit), signature, key), "digest \(bit)")
      XCTAssertFalse(verify(test, digest, signature, flipped(key, bit: bit)), "x bit \(bit)")
      XCTAssertFalse(
        verify(test, digest, signature, flipped(key, bit: 8 * size + bit)), "y bit \(bit)")
    }
    // r and s swapped.
    let swapped = Array(signature[size...] + signature[..<size])
    XCTAssertFalse(verify(test, digest, swapped, key))
    // (r, n − s) is also a valid signature (FIPS 186-5 §6.4.2 does not exclude it).
    let n = hexBytes(test.n)
    let s = Array(signature[size...])
    var negatedS = [UInt8](repeating: 0, count: size)
    var borrow = 0
    for index in stride(from: size - 1, through: 0, by: -1) {
      let difference = Int(n[index]) - Int(s[index]) - borrow
      negatedS[index] = UInt8((difference + 256) % 256)
      borrow = difference < 0 ? 1 : 0
    }
    XCTAssertTrue(verify(test, digest, Array(signature[..<size]) + negatedS, key))
  }

  func checkLengths(_ test: Case) {
    let digest = hexBytes(test.digest)
    let signature = hexBytes(test.signature)
    let key = hexBytes(test.key)
    XCTAssertFalse(verify(test, Array(digest.dropLast()), signature, key))
    XCTAssertFalse(verify(test, digest + [0], signature, key))
    XCTAssertFalse(verify(test, [], signature, key))
    XCTAssertFalse(verify(test, digest, Array(signature.dropLast()), key))
    XCTAssertFalse(verify(test, digest, signature + [0], key))
    XCTAssertFalse(verify(test, digest, [], key))
    XCTAssertFalse(verify(test, digest, signature, Array(key.dropLast())))
    XCTAssertFalse(verify(test, digest, signature, key + [0]))
    // The uncompressed SEC 1 form with its 0x04 prefix is not the RFC 6605 §4 form.
    XCTAssertFalse(verify(test, digest, signature, [4] + key))
    XCTAssertFalse(verify(test, digest, signature, []))
  }

  func checkRanges(_ test: Case) {
    let digest = hexBytes(test.digest)
    let n = hexBytes(test.n)
    let p = hexBytes(test.p)
    let zero = [UInt8](repeating: 0, count: test.size)
    // s = n − 1 verifies; the same r with s = n, or with r = n or 0, does not.
    let key = hexBytes(test.largestSKey)
    let signature = hexBytes(test.largestSSignature)
    let r = Array(signature[..<test.size])
    let s = Array(signature[test.size...])
    XCTAssertTrue(verify(test, digest, signature, key))
    XCTAssertFalse(verify(test, digest, r + n, key))
    XCTAssertFalse(verify(test, digest, n + s, key))
    XCTAssertFalse(verify(test, digest, zero + s, key))
    XCTAssertFalse(verify(test, digest, r + zero, key))
    XCTAssertFalse(verify(test, digest, n + n, key))
    // Keys: (0, 0), coordinates equal to p, a point off the curve.
    let x = Array(key[..<test.size])
    let y = Array(key[test.size...])
    XCTAssertFalse(verify(test, digest, signature, zero + zero))
    XCTAssertFalse(verify(test, digest, signature, p + y))
    XCTAssertFalse(verify(test, digest, signature, x + p))
    XCTAssertFalse(verify(test, digest, signature, x + x))
    XCTAssertFalse(
      verify(test, digest, signature, [UInt8](repeating: 0xFF, count: 2 * test.size)))
  }

  func checkSpecialKeys(_ test: Case) {
    let digest = hexBytes(test.digest)
    // u1·G + u2·Q is the point at infinity: rejected (FIPS 186-5 §6.4.2 step 6).
    XCTAssertFalse(
      verify(test, digest, hexBytes(test.infinitySignature), hexBytes(test.infinityKey)))
    // Q = G: G + Q in Shamir's table is a doubling.
    let generator = hexBytes(test.generatorX + test.generatorY)
    let negated = hexBytes(test.generatorX + test.negatedGeneratorY)
    XCTAssertTrue(verify(test, digest, hexBytes(test.generatorSignature), generator))
    XCTAssertFalse(verify(test, digest, hexBytes(test.generatorSignature), negated))
    // Q = −G (the generator with y negated): G + Q is the point at infinity.
    XCTAssertTrue(verify(test, digest, hexBytes(test.negatedGeneratorSignature), negated))
    XCTAssertFalse(verify(test, digest, hexBytes(test.negatedGeneratorSignature), generator))
  }

  /// Arbitrary bytes as r || s (some ≥ n), as the key, or both: never accepted, never a
  /// trap. The generator is a fixed xorshift so a failure repeats.
  func checkArbitraryBytes(_ test: Case) {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func nextBytes(_ count: Int) -> [UInt8] {
      (0..<count).map { _ in
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return UInt8(truncatingIfNeeded: state >> 24)
      }
    }
    let digest = hexBytes(test.digest)
    let key = hexBytes(test.key)
    let signature = hexBytes(test.signature)
    for round in 0..<8 {
      var randomSignature = nextBytes(2 * test.size)
      // Every other round the top bytes are 0xFF, so r and s are mostly ≥ n.
      if round % 2 == 1 {
        randomSignature[0] = 0xFF
        randomSignature[test.size] = 0xFF
      }
      XCTAssertFalse(verify(test, digest, randomSignature, key), "round \(round)")
      XCTAssertFalse(verify(test, digest, signature, nextBytes(2 * test.size)), "round \(round)")
      XCTAssertFalse(
        verify(test, nextBytes(test.size), randomSignature, nextBytes(2 * test.size)))
    }
  }

  func testP256() {
    checkValidAndChanged(Self.p256)
    checkLengths(Self.p256)
    checkRanges(Self.p256)
    checkSpecialKeys(Self.p256)
    checkArbitraryBytes(Self.p256)
  }

  func testP384() {
    checkValidAndChanged(Self.p384)
    checkLengths(Self.p384)
    checkRanges(Self.p384)
    checkSpecialKeys(Self.p384)
    checkArbitraryBytes(Self.p384)
  }

  /// Inputs of one curve given to the other are the wrong length.
  func testCurvesDoNotMix() {
    let p256 = Self.p256
    let p384 = Self.p384
    XCTAssertFalse(
      verifyECDSA(
        .p384, digest: hexBytes(p256.digest), signature: hexBytes(p256.signature),
        publicKey: hexBytes(p256.key)))
    XCTAssertFalse(
      verifyECDSA(
        .p256, digest: hexBytes(p384.digest), signature: hexBytes(p384.signature),
        publicKey: hexBytes(p384.key)))
  }
}
