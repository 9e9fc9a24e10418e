// Curve25519Field.swift — arithmetic in GF(p), p = 2^255 − 19, the field of edwards25519
// (RFC 8032 §5.1). Used by Ed25519 verification (Ed25519.swift). Embedded-clean: fixed-size
// values only, no allocation. Verification handles public data, so nothing here is written to
// run in constant time.

/// The mask of one 51-bit limb.
private let limbMask: UInt64 = (1 << 51) - 1

/// The full 128-bit product of two limbs (one multiply instruction on 64-bit machines).
@inline(__always)
private func wideProduct(_ a: UInt64, _ b: UInt64) -> UInt128 {
  UInt128(a) &* UInt128(b)
}

/// An element of GF(p), p = 2^255 − 19, as five 51-bit limbs:
/// value = limb0 + limb1·2^51 + limb2·2^102 + limb3·2^153 + limb4·2^204.
///
/// Invariant (weakly reduced): every operator takes and returns limbs below 2^51 + 2^18, so
/// the value is right modulo p but not unique (it may be ≥ p). `canonical` is the unique
/// representative below p; `==` compares those. The limbs are five stored words rather than an
/// InlineArray so that the products below work on registers, not on copies of an array.
struct Curve25519FieldElement: Equatable {
  var limb0: UInt64
  var limb1: UInt64
  var limb2: UInt64
  var limb3: UInt64
  var limb4: UInt64

  init(_ limb0: UInt64, _ limb1: UInt64, _ limb2: UInt64, _ limb3: UInt64, _ limb4: UInt64) {
    self.limb0 = limb0
    self.limb1 = limb1
    self.limb2 = limb2
    self.limb3 = limb3
    self.limb4 = limb4
  }

  init(limbs: InlineArray<5, UInt64>) {
    self.init(limbs[0], limbs[1], limbs[2], limbs[3], limbs[4])
  }

  static var zero: Curve25519FieldElement { Curve25519FieldElement(0, 0, 0, 0, 0) }
  static var one: Curve25519FieldElement { Curve25519FieldElement(1, 0, 0, 0, 0) }

  /// d = −121665/121666 mod p, the curve constant (RFC 8032 §5.1).
  static var curveD: Curve25519FieldElement {
    Curve25519FieldElement(
      0x3_4dca_1359_78a3, 0x1_a828_3b15_6ebd, 0x5_e7a2_6001_c029, 0x7_39c6_63a0_3cbb,
      0x5_2036_cee2_b6ff)
  }

  /// 2·d, the factor in the addition formula (RFC 8032 §5.1.4).
  static var doubleCurveD: Curve25519FieldElement {
    Curve25519FieldElement(
      0x6_9b94_26b2_f159, 0x3_5050_762a_dd7a, 0x3_cf44_c003_8052, 0x6_738c_c740_7977,
      0x2_406d_9dc5_6dff)
  }

  /// 2^((p−1)/4), a square root of −1 (RFC 8032 §5.1.3 step 3).
  static var squareRootOfMinusOne: Curve25519FieldElement {
    Curve25519FieldElement(
      0x6_1b27_4a0e_a0b0, 0x0_d5a5_fc8f_189d, 0x7_ef5e_9cbd_0c60, 0x7_8595_a680_4c9e,
      0x2_b832_4804_fc1d)
  }

  /// The low 255 bits of a 32-byte little-endian encoding (RFC 8032 §5.1.2); bit 255, the
  /// sign of x in a point encoding, is ignored. `bytes.count` must be at least 32. The limbs
  /// hold the number exactly, which may be ≥ p: see `isCanonical`.
  init(lowBitsOf bytes: UnsafeRawBufferPointer) {
    let w0 = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
    let w1 = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    let w2 = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
    let w3 = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
    self.init(
      w0 & limbMask, (w0 >> 51 | w1 << 13) & limbMask, (w1 >> 38 | w2 << 26) & limbMask,
      (w2 >> 25 | w3 << 39) & limbMask, (w3 >> 12) & limbMask)
  }

  /// Whether the limbs already are the unique representative below p; for a value just read
  /// with `init(lowBitsOf:)` that is "the encoded number is < p" (RFC 8032 §5.1.3 step 1).
  var isCanonical: Bool { canonical.hasSameLimbs(as: self) }

  private func hasSameLimbs(as other: Curve25519FieldElement) -> Bool {
    limb0 == other.limb0 && limb1 == other.limb1 && limb2 == other.limb2
      && limb3 == other.limb3 && limb4 == other.limb4
  }

  /// One carry pass from limb 0 up, bit 255 and up folded back into limb 0 as 19 times as
  /// much (2^255 ≡ 19): limbs 1–4 end below 2^51, limb 0 below 2^51 + 19·(limb4 >> 51).
  /// Limbs must be below 2^63.
  private var carriedFromTheBottom: Curve25519FieldElement {
    let h1 = limb1 + limb0 >> 51
    let h2 = limb2 + h1 >> 51
    let h3 = limb3 + h2 >> 51
    let h4 = limb4 + h3 >> 51
    return Curve25519FieldElement(
      (limb0 & limbMask) + 19 * (h4 >> 51), h1 & limbMask, h2 & limbMask, h3 & limbMask,
      h4 & limbMask)
  }

  /// The unique representative below p, each limb below 2^51.
  var canonical: Curve25519FieldElement {
    // Limbs start below 2^52. Two carry passes leave each below 2^51, so the value is
    // below 2^255 < 2p (the second pass only moves the 19 a first pass may add to limb 0).
    let h = carriedFromTheBottom.carriedFromTheBottom
    // value ≥ p exactly when value + 19 ≥ 2^255: q is the carry out of bit 255.
    var q = (h.limb0 + 19) >> 51
    q = (h.limb1 + q) >> 51
    q = (h.limb2 + q) >> 51
    q = (h.limb3 + q) >> 51
    q = (h.limb4 + q) >> 51
    // Subtract q·p: add 19·q, carry, and drop bit 255 (the mask of limb 4).
    let h0 = h.limb0 + 19 * q
    let h1 = h.limb1 + h0 >> 51
    let h2 = h.limb2 + h1 >> 51
    let h3 = h.limb3 + h2 >> 51
    let h4 = h.limb4 + h3 >> 51
    return Curve25519FieldElement(
      h0 & limbMask, h1 & limbMask, h2 & limbMask, h3 & limbMask, h4 & limbMask)
  }

  /// Whether x is "negative": its canonical value is odd (RFC 8032 §5.1.2, §5.1.3 step 4).
  var isNegative: Bool { canonical.limb0 & 1 == 1 }

  static func == (a: Curve25519FieldElement, b: Curve25519FieldElement) -> Bool {
    a.canonical.hasSameLimbs(as: b.canonical)
  }

  /// Carries limbs each below 2^54 into weakly reduced form, every carry taken from the
  /// limbs as given (so the five are independent): each carry is below 2^3, the one out of
  /// limb 4 comes back into limb 0 as 19 times as much (2^255 ≡ 19), so limb 0 ends below
  /// 2^51 + 19·2^3 and the others below 2^51 + 2^3.
  @inline(__always)
  private static func carriedInParallel(
    _ s0: UInt64, _ s1: UInt64, _ s2: UInt64, _ s3: UInt64, _ s4: UInt64
  ) -> Curve25519FieldElement {
    Curve25519FieldElement(
      (s0 & limbMask) &+ 19 &* (s4 >> 51), (s1 & limbMask) &+ (s0 >> 51),
      (s2 & limbMask) &+ (s1 >> 51), (s3 & limbMask) &+ (s2 >> 51), (s4 & limbMask) &+ (s3 >> 51))
  }

  /// Carries wide limbs (each below 2^112) into weakly reduced form, using 2^255 ≡ 19. The
  /// carries run from limb 0 to limb 4, each below 2^61; the one out of limb 4 is below 2^56
  /// when limb 4 is below 2^107 (it is for a product or square of weakly reduced inputs: five
  /// terms below 2^103, no factor 19), so 19 times it fits 64 bits with room, limb 0 ends
  /// below 2^51 and limb 1 below 2^51 + 2^11.
  @inline(__always)
  private static func carried(
    _ t0: UInt128, _ t1: UInt128, _ t2: UInt128, _ t3: UInt128, _ t4: UInt128
  ) -> Curve25519FieldElement {
    let s1 = t1 &+ (t0 >> 51)
    let s2 = t2 &+ (s1 >> 51)
    let s3 = t3 &+ (s2 >> 51)
    let s4 = t4 &+ (s3 >> 51)
    let r0 =
      (UInt64(truncatingIfNeeded: t0) & limbMask) &+ 19 &* UInt64(truncatingIfNeeded: s4 >> 51)
    return Curve25519FieldElement(
      r0 & limbMask, (UInt64(truncatingIfNeeded: s1) & limbMask) &+ (r0 >> 51),
      UInt64(truncatingIfNeeded: s2) & limbMask, UInt64(truncatingIfNeeded: s3) & limbMask,
      UInt64(truncatingIfNeeded: s4) & limbMask)
  }

  /// Limbs below 2^52 + 2^19 before the carry.
  static func + (a: Curve25519FieldElement, b: Curve25519FieldElement) -> Curve25519FieldElement {
    carriedInParallel(
      a.limb0 &+ b.limb0, a.limb1 &+ b.limb1, a.limb2 &+ b.limb2, a.limb3 &+ b.limb3,
      a.limb4 &+ b.limb4)
  }

  /// a − b computed as a + 2p − b, so that no limb goes below zero: each limb of 2p
  /// (2^52 − 38, then 2^52 − 2) is above any limb of b (below 2^51 + 2^18). Limbs below
  /// 2^53 + 2^18 before the carry.
  static func - (a: Curve25519FieldElement, b: Curve25519FieldElement) -> Curve25519FieldElement {
    carriedInParallel(
      a.limb0 &+ ((1 << 52) - 38 &- b.limb0), a.limb1 &+ ((1 << 52) - 2 &- b.limb1),
      a.limb2 &+ ((1 << 52) - 2 &- b.limb2), a.limb3 &+ ((1 << 52) - 2 &- b.limb3),
      a.limb4 &+ ((1 << 52) - 2 &- b.limb4))
  }

  static prefix func - (a: Curve25519FieldElement) -> Curve25519FieldElement { zero - a }

  /// Schoolbook product. A term a[i]·b[j] with i + j ≥ 5 has weight 2^(51·(i+j−5))·2^255
  /// ≡ 19·2^(51·(i+j−5)), so b's limbs are taken times 19 first (below 2^56). Each term is
  /// below 2^103, times 19 below 2^108; five per limb stay below 2^111.
  @inline(never)
  static func * (a: Curve25519FieldElement, b: Curve25519FieldElement) -> Curve25519FieldElement {
    let (a0, a1, a2, a3, a4) = (a.limb0, a.limb1, a.limb2, a.limb3, a.limb4)
    let (b0, b1, b2, b3, b4) = (b.limb0, b.limb1, b.limb2, b.limb3, b.limb4)
    let (b1n, b2n, b3n, b4n) = (19 &* b1, 19 &* b2, 19 &* b3, 19 &* b4)
    let t0 =
      wideProduct(a0, b0) &+ wideProduct(a1, b4n) &+ wideProduct(a2, b3n)
      &+ wideProduct(a3, b2n) &+ wideProduct(a4, b1n)
    let t1 =
      wideProduct(a0, b1) &+ wideProduct(a1, b0) &+ wideProduct(a2, b4n)
      &+ wideProduct(a3, b3n) &+ wideProduct(a4, b2n)
    let t2 =
      wideProduct(a0, b2) &+ wideProduct(a1, b1) &+ wideProduct(a2, b0)
      &+ wideProduct(a3, b4n) &+ wideProduct(a4, b3n)
    let t3 =
      wideProduct(a0, b3) &+ wideProduct(a1, b2) &+ wideProduct(a2, b1)
      &+ wideProduct(a3, b0) &+ wideProduct(a4, b4n)
    let t4 =
      wideProduct(a0, b4) &+ wideProduct(a1, b3) &+ wideProduct(a2, b2)
      &+ wideProduct(a3, b1) &+ wideProduct(a4, b0)
    return carried(t0, t1, t2, t3, t4)
  }

  /// self², with the 15 distinct products of the schoolbook product (a[i]·a[j] = a[j]·a[i]
  /// is taken once, times 2). Multipliers are below 2^57 (38·a[4]), each term below 2^109,
  /// a limb's sum below 2^111.
  @inline(never)
  var squared: Curve25519FieldElement {
    let (a0, a1, a2, a3, a4) = (limb0, limb1, limb2, limb3, limb4)
    let (twiceA0, twiceA1) = (2 &* a0, 2 &* a1)
    let (a3n, a4n) = (19 &* a3, 19 &* a4)
    let (twiceA3n, twiceA4n) = (38 &* a3, 38 &* a4)
    let t0 = wideProduct(a0, a0) &+ wideProduct(a1, twiceA4n) &+ wideProduct(a2, twiceA3n)
    let t1 = wideProduct(twiceA0, a1) &+ wideProduct(a2, twiceA4n) &+ wideProduct(a3, a3n)
    let t2 = wideProduct(twiceA0, a2) &+ wideProduct(a1, a1) &+ wideProduct(a3, twiceA4n)
    let t3 = wideProduct(twiceA0, a3) &+ wideProduct(twiceA1, a2) &+ wideProduct(a4, a4n)
    let t4 = wideProduct(twiceA0, a4) &+ wideProduct(twiceA1, a3) &+ wideProduct(a2, a2)
    return Curve25519FieldElement.carried(t0, t1, t2, t3, t4)
  }

  /// self^(2^count) · factor, by `count` squarings and a product: one step of the addition
  /// chain below.
  @inline(never)
  func squared(times count: Int, thenTimes factor: Curve25519FieldElement)
    -> Curve25519FieldElement
  {
    var result = self
    for _ in 0..<count { result = result.squared }
    return result * factor
  }

  /// (self^(2^250 − 1), self^11): the common start of the exponents p − 2 = 2^255 − 21 and
  /// (p − 5)/8 = 2^252 − 3, in an addition chain of 249 squarings and 10 products. Each
  /// power of the form self^(2^n − 1) comes from two shorter ones:
  /// (self^(2^m − 1))^(2^n) · self^(2^n − 1) = self^(2^(m+n) − 1).
  @inline(never)
  private var powerTo2To250Minus1AndPowerTo11: (Curve25519FieldElement, Curve25519FieldElement) {
    let power2 = squared
    let power9 = power2.squared(times: 2, thenTimes: self)
    let power11 = power9 * power2
    let power2To5Minus1 = power11.squared(times: 1, thenTimes: power9)  // 22 + 9 = 31
    let power2To10Minus1 = power2To5Minus1.squared(times: 5, thenTimes: power2To5Minus1)
    let power2To20Minus1 = power2To10Minus1.squared(times: 10, thenTimes: power2To10Minus1)
    let power2To40Minus1 = power2To20Minus1.squared(times: 20, thenTimes: power2To20Minus1)
    let power2To50Minus1 = power2To40Minus1.squared(times: 10, thenTimes: power2To10Minus1)
    let power2To100Minus1 = power2To50Minus1.squared(times: 50, thenTimes: power2To50Minus1)
    let power2To200Minus1 = power2To100Minus1.squared(times: 100, thenTimes: power2To100Minus1)
    let power2To250Minus1 = power2To200Minus1.squared(times: 50, thenTimes: power2To50Minus1)
    return (power2To250Minus1, power11)
  }

  /// 1/self = self^(p−2) (Fermat); zero for zero. (2^250 − 1)·2^5 + 11 = 2^255 − 21.
  var inverse: Curve25519FieldElement {
    let (power2To250Minus1, power11) = powerTo2To250Minus1AndPowerTo11
    return power2To250Minus1.squared(times: 5, thenTimes: power11)
  }

  /// self^((p−5)/8): (2^250 − 1)·2^2 + 1 = 2^252 − 3.
  private var powerToPMinus5Over8: Curve25519FieldElement {
    powerTo2To250Minus1AndPowerTo11.0.squared(times: 2, thenTimes: self)
  }

  /// A root x of v·x² = u, or nil when u/v is not a square (RFC 8032 §5.1.3 steps 2–3):
  /// the candidate x = u·v³·(u·v⁷)^((p−5)/8); if v·x² = −u instead of u, x·√−1 is the root.
  /// v must not be zero (point decoding's v = d·y² + 1 never is: d is not a square, and
  /// −1/d would have to be y²).
  static func squareRoot(ofRatio u: Curve25519FieldElement, to v: Curve25519FieldElement)
    -> Curve25519FieldElement?
  {
    let v3 = v.squared * v
    let v7 = v3.squared * v
    let x = u * v3 * (u * v7).powerToPMinus5Over8
    let vxx = v * x.squared
    if vxx == u { return x }
    if vxx == -u { return x * squareRootOfMinusOne }
    return nil
  }
}
