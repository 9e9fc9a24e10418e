// RSA.verifyPKCS1v15 (RFC 8017 §8.2.2) on keys made with OpenSSL: correct signatures for
// each digest and key size, then each way an input must be refused.

import Crypto
import XCTest

final class RSATests: XCTestCase {
  func testCorrectSignaturesVerify() {
    XCTAssertTrue(RSAVectors.rsa1024SHA1.verifies)
    XCTAssertTrue(RSAVectors.rsa2048Exponent3SHA256.verifies)
    XCTAssertTrue(RSAVectors.rsa2048SHA256.verifies)
    XCTAssertTrue(RSAVectors.rsa4096SHA512.verifies)
    XCTAssertTrue(RSAVectors.rsa1032SHA256.verifies)
    XCTAssertTrue(RSAVectors.rsa512SHA256.verifies)
    XCTAssertTrue(RSAVectors.rsa1024LongExponentSHA256.verifies)
  }

  func testSignaturesOverTheHashedMessageVerify() {
    let message = Array("dnsward RSA test".utf8)
    for vector in [
      RSAVectors.rsa1024SHA1, RSAVectors.rsa2048SHA256, RSAVectors.rsa4096SHA512,
    ] {
      var hashed = vector
      hashed.digest = rsaDigest(of: message, vector.kind)
      XCTAssertEqual(hashed.digest, vector.digest)
      XCTAssertTrue(hashed.verifies)
      hashed.digest = rsaDigest(of: message + [0x0A], vector.kind)
      XCTAssertFalse(hashed.verifies)
    }
  }

  func testLeadingZerosOfModulusAndExponentAreAllowed() {
    var vector = RSAVectors.rsa2048SHA256
    vector.modulus.insert(contentsOf: [0, 0, 0], at: 0)
    vector.exponent.insert(contentsOf: [0, 0], at: 0)
    XCTAssertTrue(vector.verifies)
    var largest = RSAVectors.rsa4096SHA512
    largest.modulus.insert(contentsOf: [UInt8](repeating: 0, count: 9), at: 0)
    XCTAssertTrue(largest.verifies)
    var longExponent = RSAVectors.rsa1024LongExponentSHA256
    longExponent.exponent.insert(0, at: 0)
    XCTAssertTrue(longExponent.verifies)
  }

  func testModulusSizeLimits() {
    XCTAssertEqual(RSA.maximumModulusBits, 4096)
    // Correct signatures, from keys of 4104 and 496 bits.
    XCTAssertFalse(RSAVectors.rsa4104SHA256.verifies)
    XCTAssertFalse(RSAVectors.rsa496SHA1.verifies)
    // A 512-bit key is too short for a SHA-512 DigestInfo (RFC 8017 §9.2 step 4).
    var sha512 = RSAVectors.rsa512SHA256
    sha512.kind = .sha512
    sha512.digest = [UInt8](repeating: 0xAB, count: 64)
    XCTAssertFalse(sha512.verifies)
    // No modulus at all.
    var empty = RSAVectors.rsa512SHA256
    empty.modulus = []
    XCTAssertFalse(empty.verifies)
    empty.modulus = [0, 0, 0]
    XCTAssertFalse(empty.verifies)
  }

  func testEvenModulusIsRefused() {
    var vector = RSAVectors.rsa2048SHA256
    vector.modulus[vector.modulus.count - 1] &= 0xFE
    XCTAssertFalse(vector.verifies)
  }

  func testZeroOrTooLongExponentIsRefused() {
    var vector = RSAVectors.rsa1024LongExponentSHA256
    for exponent: [UInt8] in [[], [0], [0, 0, 0]] {
      vector.exponent = exponent
      XCTAssertFalse(vector.verifies)
    }
    // Mathematically equivalent (e + 256·φ(n)), but one byte longer than the modulus.
    vector.exponent = RSAVectors.longerExponent
    XCTAssertEqual(vector.exponent.count, vector.modulus.count + 1)
    XCTAssertFalse(vector.verifies)
  }

  func testSignatureOfAnotherLengthIsRefused() {
    var vector = RSAVectors.rsa2048SHA256
    vector.signature.insert(0, at: 0)
    XCTAssertFalse(vector.verifies)
    vector.signature = Array(RSAVectors.rsa2048SHA256.signature.dropLast())
    XCTAssertFalse(vector.verifies)
    vector.signature = []
    XCTAssertFalse(vector.verifies)
  }

  func testSignatureNotBelowModulusIsRefused() {
    var vector = RSAVectors.rsa1024SHA1
    vector.signature = vector.modulus
    XCTAssertFalse(vector.verifies)
    // Congruent to the correct signature, so only the range check refuses it.
    vector.signature = RSAVectors.signaturePlusModulus
    XCTAssertEqual(vector.signature.count, vector.modulus.count)
    XCTAssertFalse(vector.verifies)
    vector.signature = [UInt8](repeating: 0xFF, count: vector.modulus.count)
    XCTAssertFalse(vector.verifies)
  }

  func testZeroAndOneSignaturesAreRefused() {
    var vector = RSAVectors.rsa2048Exponent3SHA256
    vector.signature = [UInt8](repeating: 0, count: vector.modulus.count)
    XCTAssertFalse(vector.verifies)
    vector.signature[vector.signature.count - 1] = 1
    XCTAssertFalse(vector.verifies)
  }

  func testFlippedSignatureBitIsRefused() {
    for vector in [RSAVectors.rsa1024SHA1, RSAVectors.rsa2048Exponent3SHA256] {
      for (index, bit) in [
        (0, 0x01), (vector.signature.count / 2, 0x40), (vector.signature.count - 1, 0x80),
      ] {
        var flipped = vector
        flipped.signature[index] ^= UInt8(bit)
        XCTAssertFalse(flipped.verifies, "byte \(index)")
      }
    }
  }

  func testFlippedDigestBitIsRefused() {
    for vector in [RSAVectors.rsa1024SHA1, RSAVectors.rsa2048SHA256, RSAVectors.rsa4096SHA512] {
      for index in [0, vector.digest.count - 1] {
        var flipped = vector
        flipped.digest[index] ^= 0x01
        XCTAssertFalse(flipped.verifies, "byte \(index)")
      }
    }
  }

  func testDigestOfWrongLengthOrKindIsRefused() {
    var vector = RSAVectors.rsa2048SHA256
    vector.digest.removeLast()
    XCTAssertFalse(vector.verifies)
    vector.digest = RSAVectors.rsa2048SHA256.digest + [0]
    XCTAssertFalse(vector.verifies)
    vector.digest = []
    XCTAssertFalse(vector.verifies)
    // The right digest, named as another hash.
    vector.digest = RSAVectors.rsa2048SHA256.digest
    vector.kind = .sha512
    XCTAssertFalse(vector.verifies)
    vector.kind = .sha1
    vector.digest = Array(RSAVectors.rsa2048SHA256.digest.prefix(20))
    XCTAssertFalse(vector.verifies)
  }

  func testSHA256DigestInfoWithSHA512DigestIsRefused() {
    // EM = 00 01 FF.. 00 || SHA-256 DigestInfo prefix || 64-byte SHA-512 digest.
    var vector = RSAVectors.rsa4096SHA512
    vector.signature = RSAVectors.sha256PrefixSHA512Digest
    XCTAssertFalse(vector.verifies)
    vector.kind = .sha256
    XCTAssertFalse(vector.verifies)
  }

  func testEachWrongEncodingIsRefused() {
    let encodings: [(StaticString, [UInt8])] = [
      ("block type 02", RSAVectors.blockType2),
      ("first byte 01", RSAVectors.firstByte1),
      ("a padding byte FE", RSAVectors.paddingByteFE),
      ("separator FF", RSAVectors.separatorFF),
      ("SHA-384 OID", RSAVectors.digestInfoOIDChanged),
      ("digest not at the end", RSAVectors.digestNotAtEnd),
      ("zero padding", RSAVectors.zeroPadding),
    ]
    for (name, signature) in encodings {
      var vector = RSAVectors.rsa2048SHA256
      vector.signature = signature
      XCTAssertFalse(vector.verifies, "\(name)")
    }
  }
}
