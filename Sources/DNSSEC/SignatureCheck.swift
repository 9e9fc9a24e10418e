// Whether an RRSIG's signature over its signed data (SignedData.swift) was
// made with a DNSKEY: the one place that maps a DNSSEC algorithm number to
// the Crypto module's verifiers.
//
//   5, 7   RSA/SHA-1        RFC 3110 key; PKCS#1 v1.5 signature
//   8, 10  RSA/SHA-256/512  RFC 5702 (same key and signature format)
//   13, 14 ECDSA P-256/384  RFC 6605 §4: key x | y, signature r | s, digest
//                           SHA-256 / SHA-384 of the signed data
//   15     Ed25519          RFC 8080 §3: 32-octet key, 64-octet signature
//                           over the signed data itself (RFC 8032 §5.1.7)
//
// The key's algorithm must be the RRSIG's (RFC 4035 §5.3.1); tag, owner and
// flags are the caller's check (`RRSIGRecord.mayBeSigned`).

import Crypto

/// The outcome of checking one signature with one key.
public enum SignatureCheck: Equatable {
  case valid
  /// The signature does not verify, or the key or signature is malformed
  /// for its algorithm.
  case invalid
  /// An algorithm outside `DNSSECAlgorithm.isSupported`: neither valid nor
  /// proof of tampering (RFC 4035 §5.2).
  case unsupportedAlgorithm
}

extension RRSIGRecord {
  /// Checks this RRSIG's signature over `signedData` (what `SignedData.write`
  /// wrote for it) with `key`.
  public func verify(key: DNSKEYRecord, signedData: UnsafeRawBufferPointer) -> SignatureCheck {
    guard algorithm.isSupported else { return .unsupportedAlgorithm }
    guard key.algorithm == algorithm else { return .invalid }
    return verifySupported(key: key, signedData: signedData) ? .valid : .invalid
  }

  private func verifySupported(key: DNSKEYRecord, signedData: UnsafeRawBufferPointer) -> Bool {
    let publicKey = key.publicKey
    switch algorithm {
    case .rsaSHA1, .rsaSHA1NSEC3SHA1:
      let digest = SHA1.hash(signedData)
      return Self.verifyRSA(key, signature, digest, kind: .sha1)
    case .rsaSHA256:
      let digest = SHA256.hash(signedData)
      return Self.verifyRSA(key, signature, digest, kind: .sha256)
    case .rsaSHA512:
      let digest = SHA512.hash(signedData)
      return Self.verifyRSA(key, signature, digest, kind: .sha512)
    case .ecdsaP256SHA256:
      let digest = SHA256.hash(signedData)
      return digest.span.withUnsafeBytes {
        ECDSA.verifyP256(digest: $0, signature: signature, publicKey: publicKey)
      }
    case .ecdsaP384SHA384:
      let digest = SHA384.hash(signedData)
      return digest.span.withUnsafeBytes {
        ECDSA.verifyP384(digest: $0, signature: signature, publicKey: publicKey)
      }
    case .ed25519:
      return Ed25519.verify(signature: signature, publicKey: publicKey, message: signedData)
    default:
      return false
    }
  }

  /// RSA with the key split as RFC 3110 §2 stores it.
  private static func verifyRSA<let count: Int>(
    _ key: DNSKEYRecord, _ signature: UnsafeRawBufferPointer,
    _ digest: borrowing InlineArray<count, UInt8>, kind: RSADigestKind
  ) -> Bool {
    guard let key = key.rsaPublicKey else { return false }
    return digest.span.withUnsafeBytes {
      RSA.verifyPKCS1v15(
        signature: signature, modulus: key.modulus, exponent: key.exponent, digest: $0,
        digestKind: kind)
    }
  }
}
