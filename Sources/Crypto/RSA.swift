// RSASSA-PKCS1-v1_5 signature verification (RFC 8017 §8.2.2) for the DNSSEC RSA
// algorithms: 5 and 7 (RSA/SHA-1, RFC 3110), 8 (RSA/SHA-256) and 10 (RSA/SHA-512,
// RFC 5702). Public keys of 512 to 4096 bits; the caller hashes the signed data.

/// The hash whose DigestInfo (RFC 8017 §9.2, note 1) the encoded message carries.
public enum RSADigestKind: Sendable {
  case sha1, sha256, sha512

  /// The digest's length in bytes.
  var digestLength: Int {
    switch self {
    case .sha1: 20
    case .sha256: 32
    case .sha512: 64
    }
  }

  /// The DER DigestInfo up to the digest itself: SEQUENCE { AlgorithmIdentifier with NULL
  /// parameters, OCTET STRING header } (RFC 8017 §9.2, note 1).
  var digestInfoPrefix: [UInt8] {
    switch self {
    case .sha1: sha1DigestInfoPrefix
    case .sha256: sha256DigestInfoPrefix
    case .sha512: sha512DigestInfoPrefix
    }
  }
}

private let sha1DigestInfoPrefix: [UInt8] = [
  0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2B, 0x0E, 0x03, 0x02, 0x1A, 0x05, 0x00, 0x04, 0x14,
]
private let sha256DigestInfoPrefix: [UInt8] = [
  0x30, 0x31, 0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01,
  0x05, 0x00, 0x04, 0x20,
]
private let sha512DigestInfoPrefix: [UInt8] = [
  0x30, 0x51, 0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03,
  0x05, 0x00, 0x04, 0x40,
]

public enum RSA {
  /// RFC 3110 §2 and RFC 5702 §2 limit DNSSEC RSA keys to 4096 bits.
  public static let maximumModulusBits = 4096
  /// RFC 5702 §2's least key size (it asks 1024 bits of RSA/SHA-512 keys; a SHA-512
  /// DigestInfo needs 752 bits here, RFC 8017 §9.2 step 4).
  static let minimumModulusBits = 512

  /// RSASSA-PKCS1-v1_5 verification (RFC 8017 §8.2.2): true only if
  /// signature^exponent mod modulus is exactly EM = 0x00 01 FF..FF 00 ||
  /// DigestInfo(digestKind) || digest.
  ///
  /// `modulus` and `exponent` are big-endian unsigned numbers (as RFC 3110 §2 stores them;
  /// leading zero bytes allowed). False, never a trap, for a modulus under 512 or over 4096
  /// bits or even, an exponent of 0 or longer than the modulus, a signature whose length is
  /// not the modulus's (in bytes, without leading zeros) or that is not below the modulus, a
  /// digest of the wrong length for `digestKind`, and any difference from EM.
  public static func verifyPKCS1v15(
    signature: UnsafeRawBufferPointer, modulus: UnsafeRawBufferPointer,
    exponent: UnsafeRawBufferPointer, digest: UnsafeRawBufferPointer,
    digestKind: RSADigestKind
  ) -> Bool {
    let modulus = withoutLeadingZeros(modulus)
    let exponent = withoutLeadingZeros(exponent)
    let length = modulus.count  // k in RFC 8017
    guard length > 0, length <= maximumModulusBits / 8 else { return false }
    let bits = length * 8 - modulus[0].leadingZeroBitCount
    guard bits >= minimumModulusBits, modulus[length - 1] & 1 == 1 else { return false }
    guard !exponent.isEmpty, exponent.count <= length else { return false }
    // RFC 8017 §8.2.2 step 1: the signature has exactly k bytes.
    guard signature.count == length, digest.count == digestKind.digestLength else {
      return false
    }
    // §9.2 step 4: emLen ≥ tLen + 11 (a 512-bit key cannot carry a SHA-512 DigestInfo).
    let prefix = digestKind.digestInfoPrefix
    let digestInfoLength = prefix.count + digest.count  // tLen
    guard length >= digestInfoLength + 11 else { return false }

    let limbCount = (length + 7) / 8
    guard let n = BigUnsigned(bigEndian: modulus, limbCount: limbCount),
      let s = BigUnsigned(bigEndian: signature, limbCount: limbCount),
      let arithmetic = MontgomeryModulus(modulus: n, limbCount: limbCount)
    else { return false }
    // §5.2.2 RSAVP1 step 1: the signature representative is below n.
    guard s.isLess(than: n, limbCount: limbCount) else { return false }
    // Step 2: m = s^e mod n.
    let m = arithmetic.modularPower(s, exponent: exponent)

    // §8.2.2 steps 3 and 4: EM = I2OSP(m, k) must equal EMSA-PKCS1-v1_5-ENCODE(M, k)
    // (§9.2 step 5): 0x00 0x01, k − tLen − 3 bytes 0xFF, 0x00, DigestInfo prefix, digest.
    // Every byte is compared; nothing is parsed.
    let separatorIndex = length - digestInfoLength - 1
    let digestStart = length - digest.count
    var difference: UInt8 = 0
    m.withLimbs(limbCount) { limbs in
      for index in 0..<length {
        let expected: UInt8
        if index == 0 || index == separatorIndex {
          expected = 0x00
        } else if index == 1 {
          expected = 0x01
        } else if index < separatorIndex {
          expected = 0xFF
        } else if index < digestStart {
          expected = prefix[index - separatorIndex - 1]
        } else {
          expected = digest[index - digestStart]
        }
        let position = length - 1 - index  // from the least significant byte
        let byte = limbs[position >> 3] >> UInt64((position & 7) * 8)
        difference |= UInt8(truncatingIfNeeded: byte) ^ expected
      }
    }
    return difference == 0
  }

  /// `bytes` from its first nonzero byte on (empty if all are zero).
  private static func withoutLeadingZeros(_ bytes: UnsafeRawBufferPointer)
    -> UnsafeRawBufferPointer
  {
    var start = 0
    while start < bytes.count, bytes[start] == 0 { start += 1 }
    return UnsafeRawBufferPointer(rebasing: bytes[start...])
  }
}
