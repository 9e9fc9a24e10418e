/// ECDSA signature verification for DNSSEC algorithms 13 (ECDSA P-256 with SHA-256)
/// and 14 (ECDSA P-384 with SHA-384), RFC 6605. Both curves share one implementation
/// (`WeierstrassCurve`, `PrimeField`); nothing allocates.
public enum ECDSA {
  /// FIPS 186-5 §6.4.2 verification. digest: the 32-byte SHA-256 of the message;
  /// signature: r || s, 32 bytes each, big-endian (RFC 6605 §4); publicKey: x || y,
  /// 32 bytes each (RFC 6605 §4, no 0x04 prefix). False for wrong lengths, r or s not in
  /// [1, n − 1], a key off the curve or with a coordinate ≥ p, and a wrong signature.
  public static func verifyP256(
    digest: UnsafeRawBufferPointer, signature: UnsafeRawBufferPointer,
    publicKey: UnsafeRawBufferPointer
  ) -> Bool {
    WeierstrassCurve.p256.verify(digest: digest, signature: signature, publicKey: publicKey)
  }

  /// Same as `verifyP256` with 48-byte values and SHA-384.
  public static func verifyP384(
    digest: UnsafeRawBufferPointer, signature: UnsafeRawBufferPointer,
    publicKey: UnsafeRawBufferPointer
  ) -> Bool {
    WeierstrassCurve.p384.verify(digest: digest, signature: signature, publicKey: publicKey)
  }
}
