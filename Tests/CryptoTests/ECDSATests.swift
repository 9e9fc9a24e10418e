import TestSupport
import XCTest

@testable import Crypto

/// The curve whose verification a test calls.
enum ECDSACurve { case p256, p384 }

/// ECDSA.verifyP256 or verifyP384 on byte arrays.
func verifyECDSA(_ curve: ECDSACurve, digest: [UInt8], signature: [UInt8], publicKey: [UInt8])
  -> Bool
{
  digest.withUnsafeBytes { digest in
    signature.withUnsafeBytes { signature in
      publicKey.withUnsafeBytes { publicKey in
        switch curve {
        case .p256:
          ECDSA.verifyP256(digest: digest, signature: signature, publicKey: publicKey)
        case .p384:
          ECDSA.verifyP384(digest: digest, signature: signature, publicKey: publicKey)
        }
      }
    }
  }
}

/// ECDSA P-256/SHA-256 and P-384/SHA-384 verification (RFC 6605, FIPS 186-5 §6.4.2)
/// against the signed examples of RFC 6605 §6 and against Wycheproof's
/// ecdsa_secp256r1_sha256_p1363_test and ecdsa_secp384r1_sha384_p1363_test (P1363
/// signatures are r || s, as in RFC 6605 §4; keys are the "uncompressed" point without
/// its 0x04). The Wycheproof digests are the SHA-256 or SHA-384 of the vector's message.
final class ECDSATests: XCTestCase {
  struct Vector {
    /// Wycheproof's tcId and comment.
    let name: String
    let digest, publicKey, signature: String
    let valid: Bool
  }

  func verify(_ curve: ECDSACurve, _ digest: String, _ signature: String, _ publicKey: String)
    -> Bool
  {
    verifyECDSA(
      curve, digest: hexBytes(digest), signature: hexBytes(signature),
      publicKey: hexBytes(publicKey))
  }

  func check(_ curve: ECDSACurve, _ vectors: [Vector]) {
    for vector in vectors {
      XCTAssertEqual(
        verify(curve, vector.digest, vector.signature, vector.publicKey), vector.valid,
        vector.name)
    }
  }

  // MARK: RFC 6605 §6.1 and §6.2

  /// The data RFC 4034 §3.1.8.1 signs for the RRSIG over www.example.net. 3600 IN A
  /// 192.0.2.1 in the examples of RFC 6605 §6: the RRSIG RDATA without its signature
  /// (type A, algorithm, 3 labels, TTL 3600, expiration, inception, key tag, signer
  /// example.net.), then the record in canonical form.
  func signedData(algorithm: UInt8, times: String, keyTag: String, address: UInt8) -> [UInt8] {
    hexBytes("0001") + [algorithm] + hexBytes("0300000e10" + times + keyTag)
      + hexBytes("076578616d706c65036e657400")
      + hexBytes("03777777076578616d706c65036e6574000001000100000e100004c00002")
      + [address]
  }

  func testRFC6605Examples() {
    let key256 = hexBytes(
      "1a88c88615d437fbb8bf9e1942a1929f28562706ae6c2bd399e7b1bfb6d1e9e7"
        + "5b92b4aa42917ae1c61b701ef035c3fe7be3009cbafe5a2f71316c902dcf0d00")
    let signature256 = hexBytes(
      "ab1eb02d8aa687e97da0229337aa8873e6f0eb26be289f28333d183f5d3b7a95"
        + "c0c869adfb748daee3c5286eed6682c12e5533186baced9c26c167a9ebae950b")
    let key384 = hexBytes(
      "c4a61a36159d18e7c9fa73eb2fcfdaae4c1fd8463730327e484aca8af0554ae9b5c3f7a0b17bd2003b4d261c9e9b9442"
        + "3a9810e8af17d43452124adb610f8e07ebfcfee5f8e4d07063cae9eb917a1a5babf08fe695536017a5bfa93237ee6e34"
    )
    let signature384 = hexBytes(
      "fcbe610ca22f183c88d5f700457df3eb9aab98fb15cfbdd00f532be4212a3a22cff79871428baeae81827993afcc56b1"
        + "b13f0696bef885b6af44a6b224dbb2742bb35934923ddcfbc27a972f96dd709ceeb1d9c8d1148c44ec71c068a959c266"
    )
    // The address as signed (192.0.2.1), then as a forger would have it (192.0.2.2).
    for (address, valid) in [(UInt8(1), true), (2, false)] {
      let data256 = signedData(
        algorithm: 13, times: "4c88b1374c63c737", keyTag: "d960", address: address)
      let digest256 = data256.withUnsafeBytes { SHA256.hash($0) }
      var bytes256: [UInt8] = []
      for index in 0..<32 { bytes256.append(digest256[index]) }
      XCTAssertEqual(
        verifyECDSA(.p256, digest: bytes256, signature: signature256, publicKey: key256), valid)

      let data384 = signedData(
        algorithm: 14, times: "4c88b4e94c63cae9", keyTag: "2a13", address: address)
      let digest384 = data384.withUnsafeBytes { SHA384.hash($0) }
      var bytes384: [UInt8] = []
      for index in 0..<48 { bytes384.append(digest384[index]) }
      XCTAssertEqual(
        verifyECDSA(.p384, digest: bytes384, signature: signature384, publicKey: key384), valid)
    }
  }

  // MARK: Wycheproof, P-256 with SHA-256

  /// SHA-256 of the message 313233343030 ("123400").
  static let digest256 = "bb5a52f42f9c9261ed4361f59422a1e30036e7c32b270c8807a419feca605023"
  static let key256 =
    "2927b10512bae3eddcfe467828128bad2903269919f7086069c8c4df6c732838"
    + "c7787964eaac00e5921fb1498a60f4606766b3d9685001558d1a974e7341513e"

  func testWycheproofP256() {
    check(
      .p256,
      [
        Vector(
          name: "tcId 1 signature malleability", digest: Self.digest256, publicKey: Self.key256,
          signature: "2ba3a8be6b94d5ec80a6d9d1190a436effe50d85a1eee859b8cc6af9bd5c2e18"
            + "4cd60b855d442f5b3c7b11eb6c4e0ae7525fe710fab9aa7c77a67f79e6fadd76", valid: true),
        Vector(
          name: "tcId 3 modified r", digest: Self.digest256, publicKey: Self.key256,
          signature: "d45c5740946b2a147f59262ee6f5bc90bd01ed280528b62b3aed5fc93f06f739"
            + "b329f479a2bbd0a5c384ee1493b1f5186a87139cac5df4087c134b49156847db", valid: false),
        Vector(
          name: "tcId 8 modified s", digest: Self.digest256, publicKey: Self.key256,
          signature: "2ba3a8be6b94d5ec80a6d9d1190a436effe50d85a1eee859b8cc6af9bd5c2e18"
            + "4cd60b865d442f5a3c7b11eb6c4e0ae79578ec6353a20bf783ecb4b6ea97b825", valid: false),
        Vector(
          name: "tcId 9 r = s = 0", digest: Self.digest256, publicKey: Self.key256,
          signature: String(repeating: "00", count: 64), valid: false),
        Vector(
          name: "tcId 107 special case hash",
          digest: "8f65d92927cfb86a84dd59623fb531bb599e4d5f7289ffffffff2f1f2f57881c",
          publicKey: Self.key256,
          signature: "5b09ab637bd4caf0f4c7c7e4bca592fea20e9087c259d26a38bb4085f0bbff11"
            + "45b7eb467b6748af618e9d80d6fdcd6aa24964e5a13f885bca8101de08eb0d75", valid: true),
        Vector(
          name: "tcId 112 special case hash",
          digest: "d59291cc2cf89f3087715fcb1aa4e79aa2403f748e97d7cd28ecaefeffffffff",
          publicKey: Self.key256,
          signature: "914c67fb61dd1e27c867398ea7322d5ab76df04bc5aa6683a8e0f30a5d287348"
            + "fa07474031481dda4953e3ac1959ee8cea7e66ec412b38d6c96d28f6d37304ea", valid: true),
        Vector(
          name: "tcId 113 k*G has a large x-coordinate", digest: Self.digest256,
          publicKey: "0ad99500288d466940031d72a9f5445a4d43784640855bf0a69874d2de5fe103"
            + "c5011e6ef2c42dcd50d5d3d29f99ae6eba2c80c9244f4c5422f0979ff0c3ba5e",
          signature: "000000000000000000000000000000004319055358e8617b0c46353d039cdaab"
            + "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc63254e", valid: true),
        Vector(
          name: "tcId 114 r too large (x of k*G, not reduced mod n)", digest: Self.digest256,
          publicKey: "0ad99500288d466940031d72a9f5445a4d43784640855bf0a69874d2de5fe103"
            + "c5011e6ef2c42dcd50d5d3d29f99ae6eba2c80c9244f4c5422f0979ff0c3ba5e",
          signature: "ffffffff00000001000000000000000000000000fffffffffffffffffffffffc"
            + "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc63254e", valid: false),
        Vector(
          name: "tcId 115 r, s are large", digest: Self.digest256,
          publicKey: "ab05fd9d0de26b9ce6f4819652d9fc69193d0aa398f0fba8013e09c582204554"
            + "19235271228c786759095d12b75af0692dd4103f19f6a8c32f49435a1e9b8d45",
          signature: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc63254f"
            + "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc63254e", valid: true),
        Vector(
          name: "tcId 116 r and s^-1 have a large Hamming weight", digest: Self.digest256,
          publicKey: "80984f39a1ff38a86a68aa4201b6be5dfbfecf876219710b07badf6fdd4c6c56"
            + "11feb97390d9826e7a06dfb41871c940d74415ed3cac2089f1445019bb55ed95",
          signature: "7ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffd"
            + "909135bdb6799286170f5ead2de4f6511453fe50914f3df2de54a36383df8dd4", valid: true),
        Vector(
          name: "tcId 118 small r and s", digest: Self.digest256,
          publicKey: "a71af64de5126a4a4e02b7922d66ce9415ce88a4c9d25514d91082c8725ac957"
            + "5d47723c8fbe580bb369fec9c2665d8e30a435b9932645482e7c9f11e872296b",
          signature: String(repeating: "0", count: 63) + "5" + String(repeating: "0", count: 63)
            + "1", valid: true),
        Vector(
          name: "tcId 124 small r and s", digest: Self.digest256,
          publicKey: "cbe0c29132cd738364fedd603152990c048e5e2fff996d883fa6caca7978c737"
            + "70af6a8ce44cb41224b2603606f4c04d188e80bff7cc31ad5189d4ab0d70e8c1",
          signature: String(repeating: "0", count: 63) + "5" + String(repeating: "0", count: 63)
            + "6", valid: true),
        Vector(
          name: "tcId 126 r is larger than n", digest: Self.digest256,
          publicKey: "cbe0c29132cd738364fedd603152990c048e5e2fff996d883fa6caca7978c737"
            + "70af6a8ce44cb41224b2603606f4c04d188e80bff7cc31ad5189d4ab0d70e8c1",
          signature: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632556"
            + String(repeating: "0", count: 63) + "6", valid: false),
      ])
  }

  /// The digests above are this module's SHA-256 and SHA-384 of the message, as a
  /// DNSSEC validator computes them before it verifies (RFC 6605 §4).
  func testDigestsOfTheMessageVerify() {
    let message = Array("123400".utf8)
    let digest256 = message.withUnsafeBytes { SHA256.hash($0) }
    let digest384 = message.withUnsafeBytes { SHA384.hash($0) }
    var bytes256: [UInt8] = []
    for index in 0..<32 { bytes256.append(digest256[index]) }
    var bytes384: [UInt8] = []
    for index in 0..<48 { bytes384.append(digest384[index]) }
    XCTAssertEqual(hexString(bytes256), Self.digest256)
    XCTAssertEqual(hexString(bytes384), Self.digest384)
    XCTAssertTrue(
      verifyECDSA(
        .p256, digest: bytes256,
        signature: hexBytes(
          "2ba3a8be6b94d5ec80a6d9d1190a436effe50d85a1eee859b8cc6af9bd5c2e18"
            + "4cd60b855d442f5b3c7b11eb6c4e0ae7525fe710fab9aa7c77a67f79e6fadd76"),
        publicKey: hexBytes(Self.key256)))
    XCTAssertTrue(
      verifyECDSA(
        .p384, digest: bytes384,
        signature: hexBytes(
          "12b30abef6b5476fe6b612ae557c0425661e26b44b1bfe19daf2ca28e3113083ba8e4ae4cc45a0320abd3394f1c548d7"
            + "1840da9fc1d2f8f8900cf485d5413b8c2574ee3a8d4ca03995ca30240e09513805bf6209b58ac7aa9cff54eecd82b9f1"
        ),
        publicKey: hexBytes(Self.key384)))
  }

  // MARK: Wycheproof, P-384 with SHA-384

  /// SHA-384 of the message 313233343030 ("123400").
  static let digest384 =
    "f9b127f0d81ebcd17b7ba0ea131c660d340b05ce557c82160e0f793de07d38179023942871acb7002dfafdfffc8deace"
  static let key384 =
    "2da57dda1089276a543f9ffdac0bff0d976cad71eb7280e7d9bfd9fee4bdb2f20f47ff888274389772d98cc5752138aa"
    + "4b6d054d69dcf3e25ec49df870715e34883b1836197d76f8ad962e78f6571bbc7407b0d6091f9e4d88f014274406174f"

  func testWycheproofP384() {
    let zeros = String(repeating: "0", count: 95)
    check(
      .p384,
      [
        Vector(
          name: "tcId 1 signature malleability", digest: Self.digest384, publicKey: Self.key384,
          signature:
            "12b30abef6b5476fe6b612ae557c0425661e26b44b1bfe19daf2ca28e3113083ba8e4ae4cc45a0320abd3394f1c548d7"
            + "1840da9fc1d2f8f8900cf485d5413b8c2574ee3a8d4ca03995ca30240e09513805bf6209b58ac7aa9cff54eecd82b9f1",
          valid: true),
        Vector(
          name: "tcId 4 replaced r by n - r", digest: Self.digest384, publicKey: Self.key384,
          signature:
            "ed4cf541094ab8901949ed51aa83fbda99e1d94bb4e401e5ec7083591125fd5b9d8bc2cd7c6b0748e22ee5d5daffe09c"
            + "e7bf25603e2d07076ff30b7a2abec473da8b11c572b35fc631991d5de62ddca7525aaba89325dfd04fecc47bff426f82",
          valid: false),
        Vector(
          name: "tcId 13 r = 0, s = n", digest: Self.digest384, publicKey: Self.key384,
          signature: zeros + "0"
            + "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973",
          valid: false),
        Vector(
          name: "tcId 21 r = 1, s = n - 1", digest: Self.digest384, publicKey: Self.key384,
          signature: zeros + "1"
            + "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52972",
          valid: false),
        Vector(
          name: "tcId 140 special case hash",
          digest:
            "da5ca26a4c99b6dd983dd30bc321711c28fb09e4b370dd51b9c1b50c8d3cbe30be2c10092fb9ffffffff1de6123963b2",
          publicKey: Self.key384,
          signature:
            "70f80b438424ba228a7d80f26e22ff6a896243c9d49c75573489ee0de58ec60efd103838143465bd8fe34672ba949617"
            + "115492bd9365b96f38747536318bffb819e7c146df3a5a7a46d6288c7fdf31cff570b22176aa398daba9073ab1e7b9bf",
          valid: true),
        Vector(
          name: "tcId 141 special case hash",
          digest:
            "22daa42bf1bffb894b5ab27dd1f2ee31fb78b51386db5c38e03512ed6b70a2161caf8aed1e6f60ffffffffff5e446670",
          publicKey: Self.key384,
          signature:
            "ff16ca0389ea6948f4305b434fe0aa589f880f5aa937767c31170ee8da6c1ad620c993d40ddf141b7fda37424d51b5cd"
            + "ba0f86985dffc61d6e35a37de06918b11e431b72403161acfb8f05c469f1fcfa6e215c6f7eb5a0a5e0cc9e7be79ce18b",
          valid: true),
        Vector(
          name: "tcId 147 k*G has a large x-coordinate", digest: Self.digest384,
          publicKey:
            "4bf4e52f958427ebb5915fb8c9595551b4d3a3fdab67badd9d6c3093f425ba43630df71f42f0eb7ceaa94d9f6448a85d"
            + "d30331588249fd2fdc0b309ec7ed8481bc16f27800c13d7db700fc82e1b1c8545aa0c0d3b56e3bfe789fc18a916887c2",
          signature:
            "000000000000000000000000000000000000000000000000389cb27e0bc8d21fa7e5f24cb74f58851313e696333ad68b"
            + "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52970",
          valid: true),
        Vector(
          name: "tcId 148 r too large (x of k*G, not reduced mod n)", digest: Self.digest384,
          publicKey:
            "4bf4e52f958427ebb5915fb8c9595551b4d3a3fdab67badd9d6c3093f425ba43630df71f42f0eb7ceaa94d9f6448a85d"
            + "d30331588249fd2fdc0b309ec7ed8481bc16f27800c13d7db700fc82e1b1c8545aa0c0d3b56e3bfe789fc18a916887c2",
          signature:
            "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000fffffffe"
            + "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52970",
          valid: false),
        Vector(
          name: "tcId 149 r, s are large", digest: Self.digest384,
          publicKey:
            "3623bb296b88f626d0f92656bf016f115b721277ccb4930739bfbd81f9c1e734630e0685d32e154e0b4a5c62e43851f6"
            + "768356b4a5764c128c7b1105e3d778a89d1e01da297ede1bc4312c2583e0bbddd21613583dd09ab895c63be479f94576",
          signature:
            "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52972"
            + "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52971",
          valid: true),
        Vector(
          name: "tcId 150 r and s^-1 have a large Hamming weight", digest: Self.digest384,
          publicKey:
            "d516cb8ac8e4457b693d5192beeb6ce7d9a46bef48eecf3ea823286f101f98d130f5a26dc6fec23662eff07f14486fd5"
            + "8456932e74894b7f0e3bb0dfd362502b3765dd80a3177209fb221dc9b51aaf4470b245391405bef514176b13a267a720",
          signature:
            "7ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffd"
            + "d1aee55fdc2a716ba2fabcb57020b72e539bf05c7902f98e105bf83d4cc10c2a159a3cf7e01d749d2205f4da6bd8fcf1",
          valid: true),
        Vector(
          name: "tcId 154 small r and s", digest: Self.digest384,
          publicKey:
            "44ee3335fa77d2fb02e4bd7074f45e598a879c0fa822ec718c21dc13b83440edc4e3c10a1858423e03044c9eff22591c"
            + "d027c49933e5510557d6b4b2c6f66fe5dcb9302a3b13fdc68048c3fcac88ba152b6a9833c87fdc6280afc5d11ab7c107",
          signature: zeros + "2" + zeros + "2", valid: true),
        Vector(
          name: "tcId 162 small r and s", digest: Self.digest384,
          publicKey:
            "1301dee63fca91b6de8835480c3d86297b1e6a0a7339fc5011a50c33f350e9938743df496aeaa1e3170ba1e2f0c44918"
            + "7b6812948761816232e414e23b0f9904d171da5cc0492a341e2b4f9477da0a311cdac7c7d01037ed7dddb3376892fd44",
          signature: zeros + "3" + zeros + "4", valid: true),
        Vector(
          name: "tcId 164 r is larger than n", digest: Self.digest384,
          publicKey:
            "1301dee63fca91b6de8835480c3d86297b1e6a0a7339fc5011a50c33f350e9938743df496aeaa1e3170ba1e2f0c44918"
            + "7b6812948761816232e414e23b0f9904d171da5cc0492a341e2b4f9477da0a311cdac7c7d01037ed7dddb3376892fd44",
          signature:
            "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52976"
            + zeros + "4", valid: false),
      ])
  }
}
