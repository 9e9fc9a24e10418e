// Curve25519Field.swift — arithmetic in GF(p), p = 2^255 − 19, the field of edwards25519
// (RFC 8032 §5.1). Used by Ed25519 verification (Ed25519.swift). Embedded-clean: fixed-size
// values only, no allocation. Verification handles public data, so nothing here is written to
// run in constant time.

/// The mask of one 51-bit limb.
private let limbMask: UInt64 = (1 << 51) - 1

/// An element of GF(p), p = 2^255 − 19, as five 51-bit limbs:
/// value = limbs[0] + limbs[1]·2^51 + limbs[2]·2^102 + limbs[3]·2^153 + limbs[4]·2^204.
///
/// Invariant (weakly reduced): every operator returns limbs below 2^51 + 2^18, so the value is
/// right modulo p but not unique (it may be ≥ p). `canonicalLimbs` is the unique representative
/// below p; `==` compares those.
struct Curve25519FieldElement: Equatable {
  var limbs: InlineArray<5, UInt64>

  init(limbs: InlineArray<5, UInt64>) {
    self.limbs = limbs
  }

  static var zero: Curve25519FieldElement { Curve25519FieldElement(limbs: [0, 0, 0, 0, 0]) }
  static var one: Curve25519FieldElement { Curve25519FieldElement(limbs: [1, 0, 0, 0, 0]) }

  /// d = −121665/121666 mod p, the curve constant (RFC 8032 §5.1).
  static var curveD: Curve25519FieldElement {
    Curve25519FieldElement(limbs: [
      0x3_4dca_1359_78a3, 0x1_a828_3b15_6ebd, 0x5_e7a2_6001_c029, 0x7_39c6_63a0_3cbb,
      0x5_2036_cee2_b6ff,
    ])
  }

  /// 2·d, the factor in the addition formula (RFC 8032 §5.1.4).
  static var doubleCurveD: Curve25519FieldElement {
    Curve25519FieldElement(limbs: [
      0x6_9b94_26b2_f159, 0x3_5050_762a_dd7a, 0x3_cf44_c003_8052, 0x6_738c_c740_7977,
      0x2_406d_9dc5_6dff,
    ])
  }

  /// 2^((p−1)/4), a square root of −1 (RFC 8032 §5.1.3 step 3).
  static var squareRootOfMinusOne: Curve25519FieldElement {
    Curve25519FieldElement(limbs: [
      0x6_1b27_4a0e_a0b0, 0x0_d5a5_fc8f_189d, 0x7_ef5e_9cbd_0c60, 0x7_8595_a680_4c9e,
      0x2_b832_4804_fc1d,
    ])
  }

  /// The low 255 bits of a 32-byte little-endian encoding (RFC 8032 §5.1.2); bit 255, the
  /// sign of x in a point encoding, is ignored. `bytes.count` must be at least 32. The limbs
  /// hold the number exactly, which may be ≥ p: see `isCanonical`.
  init(lowBitsOf bytes: UnsafeRawBufferPointer) {
    let w0 = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
    let w1 = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    let w2 = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
    let w3 = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
    limbs = [
      w0 & limbMask,
      (w0 >> 51 | w1 << 13) & limbMask,
      (w1 >> 38 | w2 << 26) & limbMask,
      (w2 >> 25 | w3 << 39) & limbMask,
      (w3 >> 12) & limbMask,
    ]
  }

  /// Whether the limbs already are the unique representative below p; for a value just read
  /// with `init(lowBitsOf:)` that is "the encoded number is < p" (RFC 8032 §5.1.3 step 1).
  var isCanonical: Bool {
    let canonical = canonicalLimbs
    for i in 0..<5 where canonical[i] != limbs[i] { return false }
    return true
  }

  /// The unique representative below p, each limb below 2^51.
  var canonicalLimbs: InlineArray<5, UInt64> {
    var h = limbs
    // Limbs start below 2^52. Two carry passes leave each below 2^51, so the value is
    // below 2^255 < 2p (the second pass only moves the 19 a first pass may add to limb 0).
    for _ in 0..<2 {
      for i in 0..<4 {
        h[i + 1] += h[i] >> 51
        h[i] &= limbMask
      }
      h[0] += 19 * (h[4] >> 51)
      h[4] &= limbMask
    }
    // value ≥ p exactly when value + 19 ≥ 2^255: q is the carry out of bit 255.
    var q = (h[0] + 19) >> 51
    for i in 1..<5 { q = (h[i] + q) >> 51 }
    // Subtract q·p: add 19·q and drop bit 255.
    h[0] += 19 * q
    for i in 0..<4 {
      h[i + 1] += h[i] >> 51
      h[i] &= limbMask
    }
    h[4] &= limbMask
    return h
  }

  /// Whether x is "negative": its canonical value is odd (RFC 8032 §5.1.2, §5.1.3 step 4).
  var isNegative: Bool { canonicalLimbs[0] & 1 == 1 }

  static func == (a: Curve25519FieldElement, b: Curve25519FieldElement) -> Bool {
    let canonicalA = a.canonicalLimbs
    let canonicalB = b.canonicalLimbs
    for i in 0..<5 where canonicalA[i] != canonicalB[i] { return false }
    return true
  }

  /// Carries wide limbs (each below 2^112) into weakly reduced form, using 2^255 ≡ 19.
  private static func carried(_ wide: InlineArray<5, UInt128>) -> Curve25519FieldElement {
    var t = wide
    for i in 0..<4 {
      t[i + 1] += t[i] >> 51
      t[i] &= UInt128(limbMask)
    }
    // t[4] >> 51 < 2^62, so t[0] stays below 2^51 + 19·2^62 < 2^67, and the carry into
    // limb 1 below 2^16: limb 1 ends below 2^51 + 2^16, every other limb below 2^51.
    t[0] += 19 * (t[4] >> 51)
    t[4] &= UInt128(limbMask)
    t[1] += t[0] >> 51
    t[0] &= UInt128(limbMask)
    return Curve25519FieldElement(limbs: [
      UInt64(t[0]), UInt64(t[1]), UInt64(t[2]), UInt64(t[3]), UInt64(t[4]),
    ])
  }

  static func + (a: Curve25519FieldElement, b: Curve25519FieldElement) -> Curve25519FieldElement {
    var wide = InlineArray<5, UInt128>(repeating: 0)
    for i in 0..<5 { wide[i] = UInt128(a.limbs[i]) + UInt128(b.limbs[i]) }
    return carried(wide)
  }

  /// a − b computed as a + 2p − b, so that no limb goes below zero: each limb of 2p
  /// (2^52 − 38, then 2^52 − 2) is above any limb of b (below 2^51 + 2^18).
  static func - (a: Curve25519FieldElement, b: Curve25519FieldElement) -> Curve25519FieldElement {
    var wide = InlineArray<5, UInt128>(repeating: 0)
    for i in 0..<5 {
      let twiceP: UInt64 = i == 0 ? (1 << 52) - 38 : (1 << 52) - 2
      wide[i] = UInt128(a.limbs[i] + twiceP - b.limbs[i])
    }
    return carried(wide)
  }

  static prefix func - (a: Curve25519FieldElement) -> Curve25519FieldElement { zero - a }

  /// Schoolbook product. A term a[i]·b[j] with i + j ≥ 5 has weight 2^(51·(i+j−5))·2^255
  /// ≡ 19·2^(51·(i+j−5)). Each term is below 2^104, times 19 below 2^109; five per limb
  /// stay below 2^112.
  static func * (a: Curve25519FieldElement, b: Curve25519FieldElement) -> Curve25519FieldElement {
    var wide = InlineArray<5, UInt128>(repeating: 0)
    for i in 0..<5 {
      for j in 0..<5 {
        let product = UInt128(a.limbs[i]) * UInt128(b.limbs[j])
        if i + j < 5 {
          wide[i + j] += product
        } else {
          wide[i + j - 5] += 19 * product
        }
      }
    }
    return carried(wide)
  }

  /// self^exponent by square-and-multiply, the exponent a 256-bit little-endian number.
  func raised(to exponent: InlineArray<4, UInt64>) -> Curve25519FieldElement {
    var result = Curve25519FieldElement.one
    for bit in (0..<256).reversed() {
      result = result * result
      if (exponent[bit >> 6] >> UInt64(bit & 63)) & 1 == 1 { result = result * self }
    }
    return result
  }

  /// 1/self = self^(p−2) (Fermat); zero for zero.
  var inverse: Curve25519FieldElement {
    raised(to: [
      0xffff_ffff_ffff_ffeb, 0xffff_ffff_ffff_ffff, 0xffff_ffff_ffff_ffff, 0x7fff_ffff_ffff_ffff,
    ])
  }

  /// A root x of v·x² = u, or nil when u/v is not a square (RFC 8032 §5.1.3 steps 2–3):
  /// the candidate x = u·v³·(u·v⁷)^((p−5)/8); if v·x² = −u instead of u, x·√−1 is the root.
  /// v must not be zero (point decoding's v = d·y² + 1 never is: d is not a square, and
  /// −1/d would have to be y²).
  static func squareRoot(ofRatio u: Curve25519FieldElement, to v: Curve25519FieldElement)
    -> Curve25519FieldElement?
  {
    let v3 = v * v * v
    let v7 = v3 * v3 * v
    // (p − 5)/8 = 2^252 − 3.
    let power = (u * v7).raised(to: [
      0xffff_ffff_ffff_fffd, 0xffff_ffff_ffff_ffff, 0xffff_ffff_ffff_ffff, 0x0fff_ffff_ffff_ffff,
    ])
    let x = u * v3 * power
    let vxx = v * x * x
    if vxx == u { return x }
    if vxx == -u { return x * squareRootOfMinusOne }
    return nil
  }
}
