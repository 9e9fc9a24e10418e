// Ed25519.swift — Ed25519 signature verification (RFC 8032 §5.1.7), DNSSEC algorithm 15
// (RFC 8080). Verification only: no keys are generated and nothing is signed. Points are
// kept in extended twisted Edwards coordinates (RFC 8032 §5.1.4) over the field of
// Curve25519Field.swift; the hash is SHA512. Embedded-clean and allocation-free. Everything
// verified is public, so nothing here runs in constant time.

/// Ed25519 signature verification (RFC 8032 §5.1.7).
public enum Ed25519 {
  /// RFC 8032 §5.1.7: signature is R || S (64 bytes), publicKey 32 bytes, message any length.
  ///
  /// False, never a trap, for: wrong lengths; S ≥ L (step 1); an A or R that does not decode
  /// (§5.1.3: y ≥ p, x² = (y² − 1)/(d·y² + 1) without a root, x = 0 with the sign bit set);
  /// a public key of small order (below); and a failed equation.
  ///
  /// The equation is the cofactorless one, [S]B = R + [k]A, which §5.1.7 allows ("sufficient,
  /// but not required", against the cofactored [8][S]B = [8]R + [8][k]A), because it is the
  /// one OpenSSL checks, and so unbound, the validator dnsward is compared with: the two agree
  /// even on a signature its key's owner crafted to pass only the cofactored check (a key or
  /// R with a small-order component), while an honest signature passes both. (OpenSSL
  /// compares R's bytes with the encoding of [S]B − [k]A; R decoded and compared as a point
  /// is the same test, as an R that does not decode never equals a canonical encoding.) On
  /// top of §5.1.7 a public key A of small order ([8]A = identity) is refused: [k]A then
  /// takes at most 8 values, so anyone could forge for such a key by guessing one, and no
  /// key made by §5.1.5 has small order.
  public static func verify(
    signature: UnsafeRawBufferPointer, publicKey: UnsafeRawBufferPointer,
    message: UnsafeRawBufferPointer
  ) -> Bool {
    guard signature.count == 64, publicKey.count == 32 else { return false }
    let encodedR = UnsafeRawBufferPointer(rebasing: signature[0..<32])
    // Step 1: S must be below L.
    let s = Ed25519Scalar.littleEndian(UnsafeRawBufferPointer(rebasing: signature[32..<64]))
    guard Ed25519Scalar.isBelowOrder(s) else { return false }
    // Step 1: decode A and R (§5.1.3).
    guard let a = EdwardsPoint(decoding: publicKey), !a.hasSmallOrder,
      let r = EdwardsPoint(decoding: encodedR)
    else { return false }
    // Step 2: k = SHA-512(dom2(F, C) || R || A || PH(M)) mod L; dom2 and PH are empty for
    // Ed25519.
    var hasher = SHA512()
    hasher.update(encodedR)
    hasher.update(publicKey)
    hasher.update(message)
    let k = Ed25519Scalar.reduced(hasher.finalize())
    // Step 3: [S]B − [k]A by Straus's method: one doubling per bit, then one addition of
    // the table entry the bits of S and k pick (the identity, B, −A or B − A). S and k are
    // below L < 2^253.
    let minusA = a.negated
    let base = EdwardsPoint.base
    let table: InlineArray<4, EdwardsPoint> = [.identity, base, minusA, base + minusA]
    var sum = EdwardsPoint.identity
    for bit in (0..<253).reversed() {
      sum = sum + sum
      sum = sum + table[Ed25519Scalar.bit(bit, of: s) + 2 * Ed25519Scalar.bit(bit, of: k)]
    }
    // [S]B − [k]A − R = identity.
    return (sum + r.negated).isIdentity
  }
}

/// A point (x, y) of edwards25519, −x² + y² = 1 + d·x²·y² (RFC 8032 §5.1), in extended
/// coordinates (X, Y, Z, T) with x = X/Z, y = Y/Z, x·y = T/Z and Z ≠ 0 (§5.1.4).
struct EdwardsPoint {
  var x: Curve25519FieldElement
  var y: Curve25519FieldElement
  var z: Curve25519FieldElement
  var t: Curve25519FieldElement

  /// The neutral element (0, 1).
  static var identity: EdwardsPoint {
    EdwardsPoint(x: .zero, y: .one, z: .one, t: .zero)
  }

  /// The base point B (RFC 8032 §5.1): y = 4/5, x positive (even).
  static var base: EdwardsPoint {
    EdwardsPoint(
      x: Curve25519FieldElement(limbs: [
        0x6_2d60_8f25_d51a, 0x4_12a4_b4f6_592a, 0x7_5b71_71a4_b31d, 0x1_ff60_5271_18fe,
        0x2_1693_6d3c_d6e5,
      ]),
      y: Curve25519FieldElement(limbs: [
        0x6_6666_6666_6658, 0x4_cccc_cccc_cccc, 0x1_9999_9999_9999, 0x3_3333_3333_3333,
        0x6_6666_6666_6666,
      ]),
      z: .one,
      t: Curve25519FieldElement(limbs: [
        0x6_8ab3_a5b7_dda3, 0x0_0eea_2a5e_adbb, 0x2_af8d_f483_c27e, 0x3_32b3_7527_4732,
        0x6_7875_f0fd_78b7,
      ]))
  }

  init(
    x: Curve25519FieldElement, y: Curve25519FieldElement, z: Curve25519FieldElement,
    t: Curve25519FieldElement
  ) {
    self.x = x
    self.y = y
    self.z = z
    self.t = t
  }

  /// Decodes a 32-byte point encoding (RFC 8032 §5.1.3), or nil: y (the low 255 bits) must be
  /// below p, (y² − 1)/(d·y² + 1) must have a square root x, and x = 0 must not come with the
  /// sign bit (bit 255) set. `bytes.count` must be 32.
  init?(decoding bytes: UnsafeRawBufferPointer) {
    // Step 1.
    let y = Curve25519FieldElement(lowBitsOf: bytes)
    guard y.isCanonical else { return nil }
    let signIsNegative = bytes[31] >> 7 == 1
    // Steps 2–3.
    let ySquared = y * y
    guard
      var x = Curve25519FieldElement.squareRoot(
        ofRatio: ySquared - .one, to: Curve25519FieldElement.curveD * ySquared + .one)
    else { return nil }
    // Step 4.
    if x == .zero && signIsNegative { return nil }
    if x.isNegative != signIsNegative { x = -x }
    self.init(x: x, y: y, z: .one, t: x * y)
  }

  /// −(x, y) = (−x, y).
  var negated: EdwardsPoint { EdwardsPoint(x: -x, y: y, z: z, t: -t) }

  /// The addition formulas of RFC 8032 §5.1.4 for a = −1. They are complete on
  /// edwards25519 (d is not a square), so they also double: verification uses them for
  /// both, which keeps the code small.
  static func + (p: EdwardsPoint, q: EdwardsPoint) -> EdwardsPoint {
    let a = (p.y - p.x) * (q.y - q.x)
    let b = (p.y + p.x) * (q.y + q.x)
    let c = p.t * Curve25519FieldElement.doubleCurveD * q.t
    let d = p.z * (q.z + q.z)
    let e = b - a
    let f = d - c
    let g = d + c
    let h = b + a
    return EdwardsPoint(x: e * f, y: g * h, z: f * g, t: e * h)
  }

  /// Whether this is the identity (0, 1): X = 0 and Y = Z.
  var isIdentity: Bool { x == .zero && y == z }

  /// Whether [8]P is the identity: P lies in the torsion subgroup of order 8.
  var hasSmallOrder: Bool {
    var multiple = self
    for _ in 0..<3 { multiple = multiple + multiple }
    return multiple.isIdentity
  }
}

/// Integers modulo L = 2^252 + 27742317777372353535851937790883648493, the order of B
/// (RFC 8032 §5.1), as four little-endian 64-bit words.
enum Ed25519Scalar {
  typealias Words = InlineArray<4, UInt64>

  static var order: Words {
    [0x5812_631a_5cf5_d3ed, 0x14de_f9de_a2f7_9cd6, 0, 0x1000_0000_0000_0000]
  }

  /// The 256-bit little-endian number in 32 bytes.
  static func littleEndian(_ bytes: UnsafeRawBufferPointer) -> Words {
    var words = Words(repeating: 0)
    for i in 0..<4 {
      words[i] = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self))
    }
    return words
  }

  /// Whether n < L, comparing from the top word down.
  static func isBelowOrder(_ n: Words) -> Bool {
    let order = Ed25519Scalar.order
    for i in (0..<4).reversed() where n[i] != order[i] { return n[i] < order[i] }
    return false
  }

  /// The 512-bit little-endian digest reduced mod L (RFC 8032 §5.1.7 step 2), 32 bits at a
  /// time from the top, r = high·2^128 + low < L: t = r·2^32 + the next 32 bits (below
  /// 2^285), then t − q·L for q = ⌊t / 2^252⌋ = ⌊r / 2^220⌋ (below 2^33). L = 2^252 + c with
  /// c < 2^125, so t/2^252 exceeds t/L by t·c/(2^252·L) < 1: q is ⌊t/L⌋ or one more, t − q·L
  /// lies in [−L, L), and adding L when it is negative leaves r in [0, L). t − q·L is
  /// (t mod 2^252) − q·c, with q·c below 2^158 (its top 30 bits in `productHigh`).
  static func reduced(_ digest: InlineArray<64, UInt8>) -> Words {
    let c: UInt128 = 0x14de_f9de_a2f7_9cd6_5812_631a_5cf5_d3ed
    let lowMask: UInt128 = 1 << 64 - 1
    var (low, high): (UInt128, UInt128) = (0, 0)
    digest.span.withUnsafeBytes { bytes in
      for offset in stride(from: 60, through: 0, by: -4) {
        let next = UInt32(
          littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        let q = high >> 92
        let tLow = low << 32 | UInt128(next)
        let tHigh = (high & (1 << 92 - 1)) << 32 | low >> 96
        let product0 = q &* (c & lowMask)  // below 2^97
        let product1 = q &* (c >> 64)  // below 2^94
        let (productLow, carry) = product0.addingReportingOverflow(product1 << 64)
        let productHigh = product1 >> 64 &+ (carry ? 1 : 0)
        let borrow: Bool
        (low, borrow) = tLow.subtractingReportingOverflow(productLow)
        high = tHigh &- productHigh &- (borrow ? 1 : 0)
        if high >> 127 == 1 {  // negative: add L = 2^252 + c
          let (sum, carry) = low.addingReportingOverflow(c)
          low = sum
          high = high &+ (1 << 124) &+ (carry ? 1 : 0)
        }
      }
    }
    return [
      UInt64(truncatingIfNeeded: low), UInt64(truncatingIfNeeded: low >> 64),
      UInt64(truncatingIfNeeded: high), UInt64(truncatingIfNeeded: high >> 64),
    ]
  }

  /// Bit `index` (0 the least significant) of n, as 0 or 1.
  static func bit(_ index: Int, of n: Words) -> Int {
    Int(truncatingIfNeeded: n[index >> 6] >> UInt64(index & 63)) & 1
  }
}
