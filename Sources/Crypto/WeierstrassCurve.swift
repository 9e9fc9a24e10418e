/// The short Weierstrass curves y² = x³ − 3x + b over a prime field (SP 800-186 §3.2.1:
/// P-256 and P-384; both have a = −3 and cofactor 1) and the ECDSA verification of
/// FIPS 186-5 §6.4.2 on them; the point arithmetic is in WeierstrassPoint.swift.

struct WeierstrassCurve {
  /// Coordinates are numbers modulo the prime p.
  let field: PrimeField
  /// Scalars are numbers modulo the group order n (a prime; the cofactor is 1).
  let order: PrimeField
  /// The constant b, not in Montgomery form.
  let b: Limbs
  /// The odd multiples G, 3G, 5G, … of the generator G, affine, in Montgomery form,
  /// each x's `limbCount` limbs then y's (GeneratorTables.swift); their count fixes the
  /// window width of u1·G in `linearCombination`.
  let generatorMultiples: [UInt64]

  /// The size in bytes of a coordinate, a scalar and a digest (RFC 6605 §4).
  var byteCount: Int { 8 * field.limbCount }

  /// P-256 (SP 800-186 §3.2.1); R² values are 2^512 mod p and mod n.
  static var p256: WeierstrassCurve {
    WeierstrassCurve(
      field: PrimeField(
        modulus: p256Prime,
        limbCount: 4,
        rSquared: [
          0x0000_0000_0000_0003, 0xFFFF_FFFB_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFE,
          0x0000_0004_FFFF_FFFD, 0, 0,
        ]),
      order: PrimeField(
        modulus: [
          0xF3B9_CAC2_FC63_2551, 0xBCE6_FAAD_A717_9E84, 0xFFFF_FFFF_FFFF_FFFF,
          0xFFFF_FFFF_0000_0000, 0, 0,
        ],
        limbCount: 4,
        rSquared: [
          0x8324_4C95_BE79_EEA2, 0x4699_799C_49BD_6FA6, 0x2845_B239_2B6B_EC59,
          0x66E1_2D94_F3D9_5620, 0, 0,
        ]),
      b: [
        0x3BCE_3C3E_27D2_604B, 0x651D_06B0_CC53_B0F6, 0xB3EB_BD55_7698_86BC,
        0x5AC6_35D8_AA3A_93E7, 0, 0,
      ],
      generatorMultiples: p256GeneratorMultiples)
  }

  /// P-384 (SP 800-186 §3.2.1); R² values are 2^768 mod p and mod n.
  static var p384: WeierstrassCurve {
    WeierstrassCurve(
      field: PrimeField(
        modulus: [
          0x0000_0000_FFFF_FFFF, 0xFFFF_FFFF_0000_0000, 0xFFFF_FFFF_FFFF_FFFE,
          0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF,
        ],
        limbCount: 6,
        rSquared: [
          0xFFFF_FFFE_0000_0001, 0x0000_0002_0000_0000, 0xFFFF_FFFE_0000_0000,
          0x0000_0002_0000_0000, 0x0000_0000_0000_0001, 0,
        ]),
      order: PrimeField(
        modulus: [
          0xECEC_196A_CCC5_2973, 0x581A_0DB2_48B0_A77A, 0xC763_4D81_F437_2DDF,
          0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_FFFF_FFFF,
        ],
        limbCount: 6,
        rSquared: [
          0x2D31_9B24_19B4_09A9, 0xFF3D_81E5_DF1A_A419, 0xBC3E_483A_FCB8_2947,
          0xD40D_4917_4AAB_1CC5, 0x3FB0_5B7A_2826_6895, 0x0C84_EE01_2B39_BF21,
        ]),
      b: [
        0x2A85_C8ED_D3EC_2AEF, 0xC656_398D_8A2E_D19D, 0x0314_088F_5013_875A,
        0x181D_9C6E_FE81_4112, 0x988E_056B_E3F8_2D19, 0xB331_2FA7_E23E_E7E4,
      ],
      generatorMultiples: p384GeneratorMultiples)
  }

  /// FIPS 186-5 §6.4.2 with the encodings of RFC 6605 §4: `digest` is the hash of the
  /// message, `signature` r || s and `publicKey` x || y, each value `byteCount` bytes,
  /// big-endian. False for wrong lengths, r or s outside [1, n − 1], a key that is not
  /// a point of the curve, and a signature that does not match.
  func verify(
    digest: UnsafeRawBufferPointer, signature: UnsafeRawBufferPointer,
    publicKey: UnsafeRawBufferPointer
  ) -> Bool {
    let size = byteCount
    guard digest.count == size, signature.count == 2 * size, publicKey.count == 2 * size
    else { return false }
    // Step 1: r and s are integers in [1, n − 1].
    let r = order.load(UnsafeRawBufferPointer(rebasing: signature[0..<size]))
    let s = order.load(UnsafeRawBufferPointer(rebasing: signature[size..<(2 * size)]))
    guard !order.isZero(r), order.isReduced(r), !order.isZero(s), order.isReduced(s)
    else { return false }
    // The public key is a point of the curve (partial public-key validation: both
    // coordinates below p and the curve equation holds; with cofactor 1 such a point
    // has order n, and no (x, y) encodes the point at infinity).
    let keyX = field.load(UnsafeRawBufferPointer(rebasing: publicKey[0..<size]))
    let keyY = field.load(UnsafeRawBufferPointer(rebasing: publicKey[size..<(2 * size)]))
    guard field.isReduced(keyX), field.isReduced(keyY) else { return false }
    let key = JacobianPoint(
      x: field.toMontgomery(keyX), y: field.toMontgomery(keyY), z: field.montgomeryOne)
    guard isOnCurve(x: key.x, y: key.y) else { return false }
    // Steps 2–3: e is the digest as an integer; the digest has exactly the bit length
    // of n, and e < 2^bits < 2n, so one subtraction reduces it.
    let e = order.reduceOnce(order.load(digest))
    // Steps 4–5: w = s⁻¹ mod n (Montgomery form), u1 = e·w, u2 = r·w (plain: each
    // product with a Montgomery operand drops one factor R).
    let w = order.inverse(order.toMontgomery(s))
    let u1 = order.multiply(e, w)
    let u2 = order.multiply(r, w)
    // Step 6: R = u1·G + u2·Q; the point at infinity rejects.
    let point = linearCombination(u1, u2, key)
    guard !field.isZero(point.z) else { return false }
    // Steps 7–8: accept if x_R mod n = r, where x_R = X/Z². x_R < p < 2n, so x_R mod n
    // is r exactly when x_R is r or r + n (the latter only if below p). Each candidate
    // c is compared as c·Z² = X, which needs no inversion.
    let zSquared = field.square(point.z)
    if field.isEqual(field.multiply(field.toMontgomery(r), zSquared), point.x) { return true }
    let (rPlusN, carry) = field.addWrapping(r, order.modulus)
    guard !carry, field.isReduced(rPlusN) else { return false }
    return field.isEqual(field.multiply(field.toMontgomery(rPlusN), zSquared), point.x)
  }
}
