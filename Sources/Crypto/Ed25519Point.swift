// Ed25519Point.swift — the group of edwards25519 for Ed25519 verification (Ed25519.swift):
// points in extended coordinates (RFC 8032 §5.1.4) over the field of Curve25519Field.swift,
// point decoding (§5.1.3), the dedicated doubling and the addition of a prepared addend
// (§5.1.4), and [S]B − [k]A by signed windows (Ed25519.swift makes the digits). Everything is
// public, so nothing here runs in constant time.

/// A point (x, y) of edwards25519, −x² + y² = 1 + d·x²·y² (RFC 8032 §5.1), in extended
/// coordinates (X, Y, Z, T) with x = X/Z, y = Y/Z, x·y = T/Z and Z ≠ 0 (§5.1.4).
///
/// Doubling reads only X, Y and Z, so the loops below skip T (one product) where a doubling
/// comes next: a point made with `computingT: false` has T = 0, not X·Y/Z, and is only
/// doubled, compared or tested for the identity.
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
      x: Curve25519FieldElement(
        0x6_2d60_8f25_d51a, 0x4_12a4_b4f6_592a, 0x7_5b71_71a4_b31d, 0x1_ff60_5271_18fe,
        0x2_1693_6d3c_d6e5),
      y: Curve25519FieldElement(
        0x6_6666_6666_6658, 0x4_cccc_cccc_cccc, 0x1_9999_9999_9999, 0x3_3333_3333_3333,
        0x6_6666_6666_6666),
      z: .one,
      t: Curve25519FieldElement(
        0x6_8ab3_a5b7_dda3, 0x0_0eea_2a5e_adbb, 0x2_af8d_f483_c27e, 0x3_32b3_7527_4732,
        0x6_7875_f0fd_78b7))
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
    let ySquared = y.squared
    guard
      var x = Curve25519FieldElement.squareRoot(
        ofRatio: ySquared - .one, to: Curve25519FieldElement.curveD * ySquared + .one)
    else { return nil }
    // Step 4.
    if x == .zero && signIsNegative { return nil }
    if x.isNegative != signIsNegative { x = -x }
    self.init(x: x, y: y, z: .one, t: x * y)
  }

  /// The addition formulas of RFC 8032 §5.1.4 for a = −1, complete on edwards25519 (d is not
  /// a square): any two points, equal, opposite or the identity included.
  static func + (p: EdwardsPoint, q: EdwardsPoint) -> EdwardsPoint {
    var sum = p
    sum.add(EdwardsAddend(q), negated: false, isAffine: false, computingT: true)
    return sum
  }

  /// 2·P by the doubling formulas of RFC 8032 §5.1.4 (four squarings, three or four
  /// products): A = X², B = Y², C = 2·Z², H = A + B, E = H − (X + Y)², G = A − B, F = C + G,
  /// then X = E·F, Y = G·H, Z = F·G, T = E·H. Complete like the addition: its denominators
  /// y² − x² = 1 + d·x²·y² and 2 − y² + x² = 1 − d·x²·y² are never zero on the curve. T is
  /// not read.
  @inline(never)
  mutating func double(computingT: Bool) {
    let a = x.squared
    let b = y.squared
    let zSquared = z.squared
    let c = zSquared + zSquared
    let h = a + b
    let e = h - (x + y).squared
    let g = a - b
    let f = c + g
    self = EdwardsPoint(x: e * f, y: g * h, z: f * g, t: computingT ? e * h : .zero)
  }

  /// P + Q, or P − Q when `negated`, by the addition formulas of RFC 8032 §5.1.4 with a = −1:
  /// A = (Y1 − X1)·(Y2 − X2), B = (Y1 + X1)·(Y2 + X2), C = T1·2·d·T2, D = Z1·2·Z2,
  /// E = B − A, F = D − C, G = D + C, H = B + A, then X = E·F, Y = G·H, Z = F·G, T = E·H.
  /// −Q = (−X2, Y2, Z2, −T2) swaps Y2 + X2 with Y2 − X2 and negates C, which swaps F and G.
  /// An affine Q (Z2 = 1) makes D = 2·Z1, a sum instead of a product.
  @inline(never)
  mutating func add(_ q: EdwardsAddend, negated: Bool, isAffine: Bool, computingT: Bool) {
    let a = (y - x) * (negated ? q.yPlusX : q.yMinusX)
    let b = (y + x) * (negated ? q.yMinusX : q.yPlusX)
    let c = t * q.doubleDT
    let d = isAffine ? z + z : z * q.doubleZ
    let e = b - a
    let h = b + a
    let difference = d - c
    let sum = d + c
    let (f, g) = negated ? (sum, difference) : (difference, sum)
    self = EdwardsPoint(x: e * f, y: g * h, z: f * g, t: computingT ? e * h : .zero)
  }

  /// Whether this is the identity (0, 1): X = 0 and Y = Z.
  var isIdentity: Bool { x == .zero && y == z }

  /// Whether both are the same point: X1·Z2 = X2·Z1 and Y1·Z2 = Y2·Z1. T is not read.
  func isSamePoint(as other: EdwardsPoint) -> Bool {
    x * other.z == other.x * z && y * other.z == other.y * z
  }

  /// Whether [8]P is the identity: P lies in the torsion subgroup of order 8.
  var hasSmallOrder: Bool {
    var multiple = self
    for _ in 0..<3 { multiple.double(computingT: false) }
    return multiple.isIdentity
  }

  /// [s]B − [k]A for the width-4 signed digits of s and k (`Ed25519Scalar.signedDigits`), by
  /// Straus's method from the top digit down: one doubling per digit, then for a non-zero
  /// digit of s the addition of that odd multiple of B (`EdwardsAddend.baseOddMultiple`,
  /// affine), for one of k the subtraction of that odd multiple of A.
  static func baseMultipleMinusMultiple(
    baseDigits: InlineArray<256, Int8>, pointDigits: InlineArray<256, Int8>, of a: EdwardsPoint
  ) -> EdwardsPoint {
    let pointTable = oddMultiples(of: a)
    let table = pointTable.span
    let sDigits = baseDigits.span
    let kDigits = pointDigits.span
    var top = 255
    while top >= 0 && sDigits[top] == 0 && kDigits[top] == 0 { top -= 1 }
    var sum = EdwardsPoint.identity
    var index = top
    while index >= 0 {
      let sDigit = sDigits[index]
      let kDigit = kDigits[index]
      sum.double(computingT: sDigit != 0 || kDigit != 0)
      if sDigit != 0 {
        sum.add(
          EdwardsAddend.baseOddMultiple(Int(sDigit.magnitude >> 1)), negated: sDigit < 0,
          isAffine: true, computingT: kDigit != 0)
      }
      if kDigit != 0 {
        sum.add(
          table[Int(kDigit.magnitude >> 1)], negated: kDigit > 0, isAffine: false,
          computingT: false)
      }
      index -= 1
    }
    return sum
  }

  /// P, 3P, 5P and 7P as addends: 2P once, then 2P added three times.
  @inline(never)
  static func oddMultiples(of p: EdwardsPoint) -> InlineArray<4, EdwardsAddend> {
    var oddMultiples = InlineArray<4, EdwardsAddend>(repeating: EdwardsAddend(p))
    var table = oddMultiples.mutableSpan
    var multiple = p
    multiple.double(computingT: true)
    let twiceP = EdwardsAddend(multiple)
    multiple = p
    for index in 1..<table.count {
      multiple.add(twiceP, negated: false, isAffine: false, computingT: true)
      table[index] = EdwardsAddend(multiple)
    }
    return oddMultiples
  }
}

/// A point prepared to be added (RFC 8032 §5.1.4): the sums and the product the addition
/// formulas take of the second point, made once for a point added many times.
struct EdwardsAddend {
  /// Y + X.
  var yPlusX: Curve25519FieldElement
  /// Y − X.
  var yMinusX: Curve25519FieldElement
  /// 2·Z; unused (and set to 2) for an affine addend.
  var doubleZ: Curve25519FieldElement
  /// 2·d·T.
  var doubleDT: Curve25519FieldElement

  @inline(never)
  init(_ p: EdwardsPoint) {
    yPlusX = p.y + p.x
    yMinusX = p.y - p.x
    doubleZ = p.z + p.z
    doubleDT = p.t * Curve25519FieldElement.doubleCurveD
  }

  /// An affine point (Z = 1) given as y + x, y − x and 2·d·x·y.
  init(
    affineYPlusX yPlusX: Curve25519FieldElement, yMinusX: Curve25519FieldElement,
    doubleDXY: Curve25519FieldElement
  ) {
    self.yPlusX = yPlusX
    self.yMinusX = yMinusX
    self.doubleZ = Curve25519FieldElement(2, 0, 0, 0, 0)
    self.doubleDT = doubleDXY
  }
}
