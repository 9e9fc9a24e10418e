// Ed25519Tests.swift — Ed25519.verify (Sources/Crypto/Ed25519.swift) against the RFC 8032
// §7.1 vectors, and what §5.1.3 and §5.1.7 make a verifier refuse. The vectors were checked
// while writing these tests by signing them again with OpenSSL (python3's cryptography
// module, which wraps it); the crafted signatures below were made with python3 integers and
// the OpenSSL verdict on each is noted beside it.

import TestSupport
import XCTest

@testable import Crypto

/// One signed message: public key, message and signature as hex.
private struct Ed25519Vector {
  let name: String
  let publicKey: String
  let message: String
  let signature: String
}

/// Ed25519.verify over byte arrays.
private func ed25519Verify(signature: [UInt8], publicKey: [UInt8], message: [UInt8]) -> Bool {
  signature.withUnsafeBytes { signatureBytes in
    publicKey.withUnsafeBytes { keyBytes in
      message.withUnsafeBytes { messageBytes in
        Ed25519.verify(signature: signatureBytes, publicKey: keyBytes, message: messageBytes)
      }
    }
  }
}

/// Ed25519.verify over hex strings.
private func ed25519Verify(signature: String, publicKey: String, message: String) -> Bool {
  ed25519Verify(
    signature: hexBytes(signature), publicKey: hexBytes(publicKey), message: hexBytes(message))
}

/// The bytes with bit `bit` (0 the least significant) of byte `index` flipped.
private func flipped(_ bytes: [UInt8], byte index: Int, bit: Int) -> [UInt8] {
  var copy = bytes
  copy[index] ^= 1 << UInt8(bit)
  return copy
}

/// RFC 8032 §7.1, the five Ed25519 tests.
private let rfc8032Vectors = [
  Ed25519Vector(
    name: "TEST 1",
    publicKey: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
    message: "",
    signature: "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
      + "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
  Ed25519Vector(
    name: "TEST 2",
    publicKey: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
    message: "72",
    signature: "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
      + "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
  Ed25519Vector(
    name: "TEST 3",
    publicKey: "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
    message: "af82",
    signature: "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
      + "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"),
  Ed25519Vector(
    name: "TEST 1024",
    publicKey: "278117fc144c72340f67d0f2316e8386ceffbf2b2428c9c51fef7c597f1d426e",
    message: rfc8032Test1024Message,
    signature: "0aab4c900501b3e24d7cdf4663326a3a87df5e4843b2cbdb67cbf6e460fec350"
      + "aa5371b1508f9f4528ecea23c436d94b5e8fcd4f681e30a6ac00a9704a188a03"),
  Ed25519Vector(
    name: "TEST SHA(abc)",
    publicKey: "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
    message: "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
      + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
    signature: "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b589"
      + "09351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704"),
]

/// RFC 8032 §7.1 TEST 1024: the 1,023-byte message.
private let rfc8032Test1024Message =
  "08b8b2b733424243760fe426a4b54908632110a66c2f6591eabd3345e3e4eb98"
  + "fa6e264bf09efe12ee50f8f54e9f77b1e355f6c50544e23fb1433ddf73be84d8"
  + "79de7c0046dc4996d9e773f4bc9efe5738829adb26c81b37c93a1b270b20329d"
  + "658675fc6ea534e0810a4432826bf58c941efb65d57a338bbd2e26640f89ffbc"
  + "1a858efcb8550ee3a5e1998bd177e93a7363c344fe6b199ee5d02e82d522c4fe"
  + "ba15452f80288a821a579116ec6dad2b3b310da903401aa62100ab5d1a36553e"
  + "06203b33890cc9b832f79ef80560ccb9a39ce767967ed628c6ad573cb116dbef"
  + "efd75499da96bd68a8a97b928a8bbc103b6621fcde2beca1231d206be6cd9ec7"
  + "aff6f6c94fcd7204ed3455c68c83f4a41da4af2b74ef5c53f1d8ac70bdcb7ed1"
  + "85ce81bd84359d44254d95629e9855a94a7c1958d1f8ada5d0532ed8a5aa3fb2"
  + "d17ba70eb6248e594e1a2297acbbb39d502f1a8c6eb6f1ce22b3de1a1f40cc24"
  + "554119a831a9aad6079cad88425de6bde1a9187ebb6092cf67bf2b13fd65f270"
  + "88d78b7e883c8759d2c4f5c65adb7553878ad575f9fad878e80a0c9ba63bcbcc"
  + "2732e69485bbc9c90bfbd62481d9089beccf80cfe2df16a2cf65bd92dd597b07"
  + "07e0917af48bbb75fed413d238f5555a7a569d80c3414a8d0859dc65a46128ba"
  + "b27af87a71314f318c782b23ebfe808b82b0ce26401d2e22f04d83d1255dc51a"
  + "ddd3b75a2b1ae0784504df543af8969be3ea7082ff7fc9888c144da2af58429e"
  + "c96031dbcad3dad9af0dcbaaaf268cb8fcffead94f3c7ca495e056a9b47acdb7"
  + "51fb73e666c6c655ade8297297d07ad1ba5e43f1bca32301651339e22904cc8c"
  + "42f58c30c04aafdb038dda0847dd988dcda6f3bfd15c4b4c4525004aa06eeff8"
  + "ca61783aacec57fb3d1f92b0fe2fd1a85f6724517b65e614ad6808d6f6ee34df"
  + "f7310fdc82aebfd904b01e1dc54b2927094b2db68d6f903b68401adebf5a7e08"
  + "d78ff4ef5d63653a65040cf9bfd4aca7984a74d37145986780fc0b16ac451649"
  + "de6188a7dbdf191f64b5fc5e2ab47b57f7f7276cd419c17a3ca8e1b939ae49e4"
  + "88acba6b965610b5480109c8b17b80e1b7b750dfc7598d5d5011fd2dcc5600a3"
  + "2ef5b52a1ecc820e308aa342721aac0943bf6686b64b2579376504ccc493d97e"
  + "6aed3fb0f9cd71a43dd497f01f17c0e2cb3797aa2a2f256656168e6c496afc5f"
  + "b93246f6b1116398a346f1a641f3b041e989f7914f90cc2c7fff357876e506b5"
  + "0d334ba77c225bc307ba537152f3f1610e4eafe595f6d9d90d11faa933a15ef1"
  + "369546868a7f3a45a96768d40fd9d03412c091c6315cf4fde7cb68606937380d"
  + "b2eaaa707b4c4185c32eddcdd306705e4dc1ffc872eeee475a64dfac86aba41c"
  + "0618983f8741c5ef68d3a101e8a3b8cac60c905c15fc910840b94c00a0b9d0"

final class Ed25519Tests: XCTestCase {
  private let test1 = rfc8032Vectors[0]

  func testRFC8032VectorsVerify() {
    XCTAssertEqual(hexBytes(rfc8032Test1024Message).count, 1023)
    for vector in rfc8032Vectors {
      XCTAssertTrue(
        ed25519Verify(
          signature: vector.signature, publicKey: vector.publicKey, message: vector.message),
        vector.name)
    }
  }

  func testAFlippedBitInRSKeyOrMessageIsRefused() {
    // Each vector with the lowest bit of R, of S, of the key and of the message's first byte
    // flipped (TEST 1's empty message gets a byte instead); TEST 3 also with R's and the
    // key's sign bits (−R, −A), S's bit 251 (S stays below L) and a byte more of message.
    for vector in rfc8032Vectors {
      let signature = hexBytes(vector.signature)
      let publicKey = hexBytes(vector.publicKey)
      let message = hexBytes(vector.message)
      let isTest3 = vector.name == "TEST 3"
      for (byte, bit) in isTest3 ? [(0, 0), (31, 7), (32, 0), (63, 3)] : [(0, 0), (32, 0)] {
        XCTAssertFalse(
          ed25519Verify(
            signature: flipped(signature, byte: byte, bit: bit), publicKey: publicKey,
            message: message), "\(vector.name): signature byte \(byte) bit \(bit)")
      }
      for (byte, bit) in isTest3 ? [(0, 0), (31, 7)] : [(0, 0)] {
        XCTAssertFalse(
          ed25519Verify(
            signature: signature, publicKey: flipped(publicKey, byte: byte, bit: bit),
            message: message), "\(vector.name): key byte \(byte) bit \(bit)")
      }
      if !message.isEmpty {
        XCTAssertFalse(
          ed25519Verify(
            signature: signature, publicKey: publicKey, message: flipped(message, byte: 0, bit: 0)),
          vector.name)
      }
      if message.isEmpty || isTest3 {
        XCTAssertFalse(
          ed25519Verify(signature: signature, publicKey: publicKey, message: message + [0]),
          vector.name)
      }
    }
  }

  func testAnotherKeysSignatureIsRefused() {
    let test2 = rfc8032Vectors[1]
    let test3 = rfc8032Vectors[2]
    XCTAssertFalse(
      ed25519Verify(signature: test2.signature, publicKey: test3.publicKey, message: test2.message))
  }

  func testSAtOrAboveLIsRefused() {
    // RFC 8032 §5.1.7 step 1, on TEST 1's R, key and message. S + L is TEST 1's S plus L:
    // the same scalar mod L, so a verifier that reduced S would accept it.
    let r = "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
    for s in [
      "4c8c7872aa064e049dbb3013fbf29380d25bf5f0595bbe24655141438e7a101b",  // S + L
      "edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010",  // L
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",  // 2^256 − 1
    ] {
      XCTAssertFalse(
        ed25519Verify(signature: r + s, publicKey: test1.publicKey, message: test1.message), s)
    }
  }

  func testUndecodableKeyOrRIsRefused() {
    // RFC 8032 §5.1.3: y ≥ p, no square root, x = 0 with the sign bit set.
    let undecodable = [
      "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  // y = p
      "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  // y = p + 1
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  // y = 2^255 − 1
      "0200000000000000000000000000000000000000000000000000000000000000",  // y = 2: no root
      "0100000000000000000000000000000000000000000000000000000000000080",  // y = 1, x = −0
      "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",  // y = −1, x = −0
    ]
    let s = String(test1.signature.dropFirst(64))
    for encoding in undecodable {
      XCTAssertNil(hexBytes(encoding).withUnsafeBytes { EdwardsPoint(decoding: $0) }, encoding)
      XCTAssertFalse(
        ed25519Verify(signature: test1.signature, publicKey: encoding, message: test1.message))
      XCTAssertFalse(
        ed25519Verify(signature: encoding + s, publicKey: test1.publicKey, message: test1.message))
    }
  }

  func testTheBasePointDecodes() throws {
    // B's encoding: y = 4/5, x even (RFC 8032 §5.1).
    let encoding = "5866666666666666666666666666666666666666666666666666666666666666"
    let base = try XCTUnwrap(hexBytes(encoding).withUnsafeBytes { EdwardsPoint(decoding: $0) })
    XCTAssertEqual(base.x, EdwardsPoint.base.x)
    XCTAssertEqual(base.y, EdwardsPoint.base.y)
    XCTAssertEqual(base.t, EdwardsPoint.base.t)
    XCTAssertFalse(base.hasSmallOrder)
    // The sign bit set picks −x.
    let negated = try XCTUnwrap(
      hexBytes("58666666666666666666666666666666666666666666666666666666666666e6")
        .withUnsafeBytes { EdwardsPoint(decoding: $0) })
    XCTAssertEqual(negated.x, -EdwardsPoint.base.x)
    XCTAssertTrue((negated + base).isIdentity)
    XCTAssertFalse((base + base).isIdentity)
  }

  func testKeysOfSmallOrderAreRefused() {
    // The eight points T with [8]T = identity. For R = [r]B and S = r (r = 1234567), the
    // equation [S]B = R + [k]A holds whenever [k]A is the identity, for any message: refused
    // outright, whatever k is.
    let smallOrderKeys = [
      "0100000000000000000000000000000000000000000000000000000000000000",  // order 1
      "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  // order 2
      "0000000000000000000000000000000000000000000000000000000000000000",  // order 4
      "0000000000000000000000000000000000000000000000000000000000000080",  // order 4
      "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",  // order 8
      "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",  // order 8
      "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",  // order 8
      "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",  // order 8
    ]
    let forgery =
      "62244e218f4deae680de9a6832ab808cbda6da6451c5caae6be7eca4d466b5d9"
      + "87d6120000000000000000000000000000000000000000000000000000000000"
    for key in smallOrderKeys {
      let point = hexBytes(key).withUnsafeBytes { EdwardsPoint(decoding: $0) }
      XCTAssertEqual(point?.hasSmallOrder, true, key)
      for message in ["", "00", "616263"] {
        XCTAssertFalse(ed25519Verify(signature: forgery, publicKey: key, message: message), key)
      }
    }
  }

  func testAllZeroKeyAndSignatureAreRefused() {
    let zeroKey = String(repeating: "00", count: 32)
    let zeroSignature = String(repeating: "00", count: 64)
    for message in ["", "00", "72"] {
      XCTAssertFalse(
        ed25519Verify(signature: zeroSignature, publicKey: zeroKey, message: message))
      XCTAssertFalse(
        ed25519Verify(signature: zeroSignature, publicKey: test1.publicKey, message: message))
      XCTAssertFalse(
        ed25519Verify(signature: test1.signature, publicKey: zeroKey, message: message))
    }
  }

  func testTheEquationIsCofactorless() {
    // A key A + T, with T = (0, −1) of order 2, signed with A's secret and k computed over the
    // key as published. [S]B = R + [k](A + T) holds when k is even; when k is odd it is off by
    // T and only the cofactored equation holds. OpenSSL accepts the first and refuses the
    // second, and so does this verifier: a key with a small-order part is not refused as such.
    let key = "1ff7ca2a110ca2c28e6b6fbbd754e611cf4895031aa677c4c4cabd66b1bd50ba"
    XCTAssertTrue(
      ed25519Verify(
        signature: "e13315604c5ce0e132049d6c9705119a18f14d759c07b37fd6d28e57951d3b6b"
          + "d683e544a3b882a79e7bfdea0ee0c7fa8f60b46a9c3b05ebac3f5c00520ec90b",
        publicKey: key, message: "636f666163746f722000"))
    XCTAssertFalse(
      ed25519Verify(
        signature: "9d1bd0a153850f657929c458d221e45e4baea0ac0c762f250921e5dab78e2758"
          + "4e18439a7900256d714c3915cabdbfb90ae2dd4bf03483e2299f402e90826b08",
        publicKey: key, message: "636f666163746f722004"))
  }

  func testWrongLengthsAreRefused() {
    let signature = hexBytes(test1.signature)
    let publicKey = hexBytes(test1.publicKey)
    XCTAssertTrue(ed25519Verify(signature: signature, publicKey: publicKey, message: []))
    for badSignature in [[], Array(signature.dropLast()), signature + [0]] {
      XCTAssertFalse(ed25519Verify(signature: badSignature, publicKey: publicKey, message: []))
    }
    for badKey in [[], Array(publicKey.dropLast()), publicKey + [0]] {
      XCTAssertFalse(ed25519Verify(signature: signature, publicKey: badKey, message: []))
    }
    // Buffers without a base address: refused as a signature or key, an empty message.
    let none = UnsafeRawBufferPointer(start: nil, count: 0)
    signature.withUnsafeBytes { signatureBytes in
      publicKey.withUnsafeBytes { keyBytes in
        XCTAssertTrue(Ed25519.verify(signature: signatureBytes, publicKey: keyBytes, message: none))
        XCTAssertFalse(Ed25519.verify(signature: none, publicKey: keyBytes, message: none))
        XCTAssertFalse(Ed25519.verify(signature: signatureBytes, publicKey: none, message: none))
      }
    }
  }
}

final class Ed25519ArbitraryInputTests: XCTestCase {
  /// Signatures of arbitrary bytes under TEST 1's key, and TEST 1's signature under arbitrary
  /// keys: each is refused, and none traps (decodable or not).
  func testArbitraryBytesAreRefusedWithoutATrap() {
    var state: UInt64 = 0x9e37_79b9_7f4a_7c15
    func nextByte() -> UInt8 {
      // A linear congruential generator (Knuth's MMIX constants); its top byte.
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return UInt8(truncatingIfNeeded: state >> 56)
    }
    let test1 = rfc8032Vectors[0]
    for _ in 0..<8 {
      var signature = (0..<64).map { _ in nextByte() }
      signature[63] &= 0x0f  // S below 2^252 < L, so the equation is reached when R decodes
      let key = (0..<32).map { _ in nextByte() }
      XCTAssertFalse(
        ed25519Verify(signature: signature, publicKey: hexBytes(test1.publicKey), message: []))
      XCTAssertFalse(
        ed25519Verify(signature: hexBytes(test1.signature), publicKey: key, message: []))
    }
  }
}
