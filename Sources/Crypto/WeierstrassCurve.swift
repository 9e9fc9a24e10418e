/// The short Weierstrass curves y² = x³ − 3x + b over a prime field (SP 800-186 §3.2.1:
/// P-256 and P-384; both have a = −3 and cofactor 1) and the ECDSA verification of
/// FIPS 186-5 §6.4.2 on them. Points are in Jacobian coordinates (X, Y, Z) for the
/// affine point (X/Z², Y/Z³), field elements in Montgomery form; Z = 0 is the point at
/// infinity.

struct JacobianPoint {
  var x: Limbs
  var y: Limbs
  var z: Limbs
}

struct WeierstrassCurve {
  /// Coordinates are numbers modulo the prime p.
  let field: PrimeField
  /// Scalars are numbers modulo the group order n (a prime; the cofactor is 1).
  let order: PrimeField
  /// The constant b, not in Montgomery form.
  let b: Limbs
  /// The generator G, not in Montgomery form.
  let generatorX: Limbs
  let generatorY: Limbs

  /// The size in bytes of a coordinate, a scalar and a digest (RFC 6605 §4).
  var byteCount: Int { 8 * field.limbCount }

  /// P-256 (SP 800-186 §3.2.1); R² values are 2^512 mod p and mod n.
  static var p256: WeierstrassCurve {
    WeierstrassCurve(
      field: PrimeField(
        modulus: [0xFFFF_FFFF_FFFF_FFFF, 0x0000_0000_FFFF_FFFF, 0, 0xFFFF_FFFF_0000_0001, 0, 0],
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
      generatorX: [
        0xF4A1_3945_D898_C296, 0x7703_7D81_2DEB_33A0, 0xF8BC_E6E5_63A4_40F2,
        0x6B17_D1F2_E12C_4247, 0, 0,
      ],
      generatorY: [
        0xCBB6_4068_37BF_51F5, 0x2BCE_3357_6B31_5ECE, 0x8EE7_EB4A_7C0F_9E16,
        0x4FE3_42E2_FE1A_7F9B, 0, 0,
      ])
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
      generatorX: [
        0x3A54_5E38_7276_0AB7, 0x5502_F25D_BF55_296C, 0x59F7_41E0_8254_2A38,
        0x6E1D_3B62_8BA7_9B98, 0x8EB1_C71E_F320_AD74, 0xAA87_CA22_BE8B_0537,
      ],
      generatorY: [
        0x7A43_1D7C_90EA_0E5F, 0x0A60_B1CE_1D7E_819D, 0xE9DA_3113_B5F0_B8C0,
        0xF8F4_1DBD_289A_147C, 0x5D9E_98BF_9292_DC29, 0x3617_DE4A_9626_2C6F,
      ])
  }

  /// True if the affine point (x, y), in Montgomery form, satisfies y² = x³ − 3x + b.
  func isOnCurve(x: Limbs, y: Limbs, bMontgomery: Limbs) -> Bool {
    let xCubed = field.multiply(field.square(x), x)
    let threeX = field.add(field.add(x, x), x)
    let right = field.add(field.subtract(xCubed, threeX), bMontgomery)
    return field.isEqual(field.square(y), right)
  }

  /// 2·P for a = −3 ("dbl-2001-b", Bernstein–Lange): 3 multiplications, 5 squarings.
  /// The point at infinity (Z = 0) doubles to Z = 0; no point of a curve of prime
  /// order has Y = 0.
  func double(_ point: JacobianPoint) -> JacobianPoint {
    let delta = field.square(point.z)
    let gamma = field.square(point.y)
    let beta = field.multiply(point.x, gamma)
    let product = field.multiply(
      field.subtract(point.x, delta), field.add(point.x, delta))
    let alpha = field.add(field.add(product, product), product)
    let beta2 = field.add(beta, beta)
    let beta4 = field.add(beta2, beta2)
    let beta8 = field.add(beta4, beta4)
    let x = field.subtract(field.square(alpha), beta8)
    let sum = field.add(point.y, point.z)
    let z = field.subtract(field.subtract(field.square(sum), gamma), delta)
    let gammaSquared = field.square(gamma)
    let gamma2 = field.add(gammaSquared, gammaSquared)
    let gamma4 = field.add(gamma2, gamma2)
    let gamma8 = field.add(gamma4, gamma4)
    let y = field.subtract(field.multiply(alpha, field.subtract(beta4, x)), gamma8)
    return JacobianPoint(x: x, y: y, z: z)
  }

  /// P + Q for any two points, including the point at infinity, Q = P and Q = −P.
  func add(_ p: JacobianPoint, _ q: JacobianPoint) -> JacobianPoint {
    if field.isZero(p.z) { return q }
    if field.isZero(q.z) { return p }
    let pzSquared = field.square(p.z)
    let qzSquared = field.square(q.z)
    let u1 = field.multiply(p.x, qzSquared)
    let u2 = field.multiply(q.x, pzSquared)
    let s1 = field.multiply(p.y, field.multiply(q.z, qzSquared))
    let s2 = field.multiply(q.y, field.multiply(p.z, pzSquared))
    let h = field.subtract(u2, u1)
    let r = field.subtract(s2, s1)
    if field.isZero(h) {
      // Same x: Q = P, or Q = −P whose sum is the point at infinity.
      if field.isZero(r) { return double(p) }
      return JacobianPoint(x: p.x, y: p.y, z: Limbs(repeating: 0))
    }
    let hSquared = field.square(h)
    let hCubed = field.multiply(h, hSquared)
    let v = field.multiply(u1, hSquared)
    let x = field.subtract(field.subtract(field.square(r), hCubed), field.add(v, v))
    let y = field.subtract(
      field.multiply(r, field.subtract(v, x)), field.multiply(s1, hCubed))
    let z = field.multiply(field.multiply(p.z, q.z), h)
    return JacobianPoint(x: x, y: y, z: z)
  }

  /// u1·G + u2·Q by Shamir's trick: one pass over the bits of both scalars from the
  /// top, doubling, then adding G, Q or G + Q as the two bits say.
  func linearCombination(
    _ u1: Limbs, _ generator: JacobianPoint, _ u2: Limbs, _ publicKey: JacobianPoint
  ) -> JacobianPoint {
    let both = add(generator, publicKey)
    var result = JacobianPoint(
      x: field.montgomeryOne, y: field.montgomeryOne, z: Limbs(repeating: 0))
    var position = 64 * field.limbCount - 1
    while position >= 0 {
      result = double(result)
      switch (order.bit(u1, position), order.bit(u2, position)) {
      case (true, true): result = add(result, both)
      case (true, false): result = add(result, generator)
      case (false, true): result = add(result, publicKey)
      case (false, false): break
      }
      position -= 1
    }
    return result
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
    let one = field.montgomeryOne
    let key = JacobianPoint(x: field.toMontgomery(keyX), y: field.toMontgomery(keyY), z: one)
    guard isOnCurve(x: key.x, y: key.y, bMontgomery: field.toMontgomery(b)) else {
      return false
    }
    // Steps 2–3: e is the digest as an integer; the digest has exactly the bit length
    // of n, and e < 2^bits < 2n, so one subtraction reduces it.
    let e = order.reduceOnce(order.load(digest))
    // Steps 4–5: w = s⁻¹ mod n (Montgomery form), u1 = e·w, u2 = r·w (plain: each
    // product with a Montgomery operand drops one factor R).
    let w = order.inverse(order.toMontgomery(s))
    let u1 = order.multiply(e, w)
    let u2 = order.multiply(r, w)
    // Step 6: R = u1·G + u2·Q; the point at infinity rejects.
    let generator = JacobianPoint(
      x: field.toMontgomery(generatorX), y: field.toMontgomery(generatorY), z: one)
    let point = linearCombination(u1, generator, u2, key)
    guard !field.isZero(point.z) else { return false }
    // Steps 7–8: v = x_R mod n (x_R < p < 2n: one subtraction), accept if v = r.
    let zInverse = field.inverse(point.z)
    let affineX = field.fromMontgomery(field.multiply(point.x, field.square(zInverse)))
    return order.isEqual(order.reduceOnce(affineX), r)
  }
}
