/// Point arithmetic on the curves of WeierstrassCurve.swift (y² = x³ − 3x + b, prime
/// order): points in Jacobian coordinates (X, Y, Z) for the affine point (X/Z², Y/Z³),
/// coordinates in Montgomery form; Z = 0 is the point at infinity.

struct JacobianPoint {
  var x: Limbs
  var y: Limbs
  var z: Limbs
}

extension WeierstrassCurve {
  typealias Point = JacobianPoint

  /// The point at infinity.
  var infinity: Point {
    Point(x: field.montgomeryOne, y: field.montgomeryOne, z: Limbs(repeating: 0))
  }

  /// True if the affine point (x, y), in Montgomery form, satisfies y² = x³ − 3x + b.
  func isOnCurve(x: Limbs, y: Limbs) -> Bool {
    let xCubed = field.multiply(field.square(x), x)
    let threeX = field.add(field.add(x, x), x)
    let right = field.add(field.subtract(xCubed, threeX), field.toMontgomery(b))
    return field.isEqual(field.square(y), right)
  }

  /// −P = (X, −Y, Z).
  func negate(_ point: Point) -> Point {
    Point(x: point.x, y: field.negate(point.y), z: point.z)
  }

  /// 2·P for a = −3 ("dbl-2001-b", Bernstein–Lange), written with 2Y: with γ = Y²,
  /// β = X·γ and α = 3·(X − Z²)·(X + Z²), X3 = α² − 8β, Y3 = α·(4β − X3) − 8γ² and
  /// Z3 = 2·Y·Z; (2Y)² = 4γ gives 4β in one product and (4γ)²/2 = 8γ², so the multiples
  /// of β and γ² take two additions and a halving instead of six additions. 4
  /// multiplications, 4 squarings. The point at infinity (Z = 0) doubles to Z = 0; no
  /// point of a curve of prime order has Y = 0.
  @inline(never)
  func double(_ point: Point) -> Point {
    let delta = field.square(point.z)
    let twiceY = field.add(point.y, point.y)
    let gamma4 = field.square(twiceY)
    let beta4 = field.multiply(point.x, gamma4)
    let product = field.multiply(
      field.subtract(point.x, delta), field.add(point.x, delta))
    let alpha = field.add(field.add(product, product), product)
    let x = field.subtract(field.square(alpha), field.add(beta4, beta4))
    let z = field.multiply(twiceY, point.z)
    let gammaSquared8 = field.halve(field.square(gamma4))
    let y = field.subtract(field.multiply(alpha, field.subtract(beta4, x)), gammaSquared8)
    return Point(x: x, y: y, z: z)
  }

  /// P + Q for any two points, including the point at infinity, Q = P and Q = −P
  /// ("add-1998-cmo-2"): 12 multiplications and 4 squarings, or 8 and 3 when Q's Z is 1
  /// (an affine point of a table, "madd").
  @inline(never)
  func add(_ p: Point, _ q: Point) -> Point {
    if field.isZero(p.z) { return q }
    if field.isZero(q.z) { return p }
    // With Q's Z = 1: U1 = X1, S1 = Y1, and Z3 = Z1·H.
    var u1 = p.x
    var s1 = p.y
    var zProduct = p.z
    if !field.isEqual(q.z, field.montgomeryOne) {
      let qzSquared = field.square(q.z)
      u1 = field.multiply(p.x, qzSquared)
      s1 = field.multiply(p.y, field.multiply(q.z, qzSquared))
      zProduct = field.multiply(p.z, q.z)
    }
    let pzSquared = field.square(p.z)
    let u2 = field.multiply(q.x, pzSquared)
    let s2 = field.multiply(q.y, field.multiply(p.z, pzSquared))
    let h = field.subtract(u2, u1)
    let r = field.subtract(s2, s1)
    if field.isZero(h) {
      // Same x: Q = P, or Q = −P whose sum is the point at infinity.
      if field.isZero(r) { return double(p) }
      return infinity
    }
    let hSquared = field.square(h)
    let hCubed = field.multiply(h, hSquared)
    let v = field.multiply(u1, hSquared)
    let x = field.subtract(field.subtract(field.square(r), hCubed), field.add(v, v))
    let y = field.subtract(
      field.multiply(r, field.subtract(v, x)), field.multiply(s1, hCubed))
    let z = field.multiply(zProduct, h)
    return Point(x: x, y: y, z: z)
  }

  /// The odd multiples P, 3P, …, 15P of a point, for a wNAF of width 5.
  func oddMultiples(_ point: Point) -> KeyMultiples {
    var table = KeyMultiples(repeating: point)
    let twice = double(point)
    for index in 1..<table.count { table[index] = add(table[index - 1], twice) }
    return table
  }

  /// `generatorMultiples`' entry for the odd multiple (2·index + 1)·G, with Z = 1.
  func generatorMultiple(_ index: Int) -> Point {
    var point = Point(x: Limbs(repeating: 0), y: Limbs(repeating: 0), z: field.montgomeryOne)
    let start = 2 * field.limbCount * index
    for limb in 0..<field.limbCount {
      point.x[limb] = generatorMultiples[start + limb]
      point.y[limb] = generatorMultiples[start + field.limbCount + limb]
    }
    return point
  }

  /// u1·G + u2·Q by Straus's method (Shamir's trick) with both scalars in wNAF: one pass
  /// from the top digit, one doubling per digit, and for each nonzero digit d the
  /// addition of |d|·G or |d|·Q from a table of odd multiples, negated for d < 0. G's
  /// table is a constant (`generatorMultiples`), Q's is made here.
  func linearCombination(_ u1: Limbs, _ u2: Limbs, _ key: Point) -> Point {
    let bitCount = 64 * field.limbCount
    let generatorWidth =
      (generatorMultiples.count / (2 * field.limbCount)).trailingZeroBitCount + 2
    var generatorDigits = ScalarDigits(repeating: 0)
    var keyDigits = ScalarDigits(repeating: 0)
    let generatorTop = writeDigits(
      of: u1, bitCount: bitCount, width: generatorWidth, into: &generatorDigits)
    let keyTable = oddMultiples(key)
    let keyTop = writeDigits(
      of: u2, bitCount: bitCount, width: keyTable.count.trailingZeroBitCount + 2,
      into: &keyDigits)
    var result = infinity
    var position = max(generatorTop, keyTop) - 1
    while position >= 0 {
      result = double(result)
      let generatorDigit = Int(generatorDigits[position])
      if generatorDigit != 0 {
        let multiple = generatorMultiple(abs(generatorDigit) >> 1)
        result = add(result, generatorDigit > 0 ? multiple : negate(multiple))
      }
      let keyDigit = Int(keyDigits[position])
      if keyDigit != 0 {
        // Through a span: indexing the table itself with a variable copies it whole.
        let multiple = keyTable.span[abs(keyDigit) >> 1]
        result = add(result, keyDigit > 0 ? multiple : negate(multiple))
      }
      position -= 1
    }
    return result
  }
}
