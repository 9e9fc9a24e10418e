// Arithmetic modulo an odd n in Montgomery form, and the modular power RSA verification
// computes (RFC 8017 §5.2.2, RSAVP1: m = s^e mod n). The loops run on limb pointers into
// one block of stack storage (`MontgomeryWorkspace`): no 512-byte `BigUnsigned` is copied
// per product.

/// Arithmetic modulo an odd n of `limbCount` limbs in Montgomery form: x is held as
/// x·R mod n, with R = 2^(64·limbCount), so that a product needs no division.
struct MontgomeryModulus {
  let modulus: BigUnsigned
  let limbCount: Int
  /// −n⁻¹ mod 2^64: adding (t[0]·inverse mod 2^64)·n to t clears t's low limb.
  let negativeInverse: UInt64

  /// Nil unless n is odd, has exactly `limbCount` limbs (top limb not zero) and n > 1.
  init?(modulus: BigUnsigned, limbCount: Int) {
    guard limbCount >= 1, limbCount <= BigUnsigned.maximumLimbs else { return nil }
    let lowLimb = modulus.limbs[0]
    let topLimb = modulus.limbs[limbCount - 1]
    guard lowLimb & 1 == 1, topLimb != 0, limbCount > 1 || lowLimb > 1 else { return nil }
    self.modulus = modulus
    self.limbCount = limbCount
    // Newton's iteration x ← x·(2 − n·x) doubles the correct low bits of n⁻¹ mod 2^64;
    // x = n is right to 3 bits (n·n ≡ 1 mod 8 for odd n), so 5 steps give 96 ≥ 64.
    var inverse = lowLimb
    for _ in 0..<5 { inverse = inverse &* (2 &- lowLimb &* inverse) }
    negativeInverse = 0 &- inverse
  }

  /// base^exponent mod n, base < n, base and result in ordinary form (not Montgomery), for
  /// a big-endian exponent of any length (leading zero bytes allowed; 1 for none):
  /// left-to-right square-and-multiply over the exponent's bits (public, so the time may
  /// depend on them). The base enters Montgomery form by one division; the last product,
  /// for an odd exponent, takes the base in ordinary form, and its R⁻¹ brings the result
  /// out of Montgomery form with no further product.
  func modularPower(_ base: BigUnsigned, exponent: UnsafeRawBufferPointer) -> BigUnsigned {
    var first = 0  // the first nonzero byte of the exponent
    while first < exponent.count, exponent[first] == 0 { first += 1 }
    var result = BigUnsigned()
    guard first < exponent.count else {
      result.limbs[0] = 1
      return result
    }
    let bitCount = (exponent.count - first) * 8 - exponent[first].leadingZeroBitCount
    if bitCount == 1 { return base }
    /// Bit `index` of the exponent, 0 the least significant.
    func bit(_ index: Int) -> Bool {
      (exponent[exponent.count - 1 - (index >> 3)] >> UInt8(index & 7)) & 1 == 1
    }
    let count = limbCount
    withWorkspace { workspace in
      let ordinaryBase = workspace.slot(1)
      let montgomeryBase = workspace.slot(2)
      var current = workspace.slot(3)
      var spare = workspace.slot(4)
      base.withLimbs(count) { workspace.copy($0.baseAddress!, to: ordinaryBase) }
      workspace.toMontgomery(ordinaryBase, into: montgomeryBase, scratch: current, spare)
      workspace.copy(montgomeryBase, to: current)
      for index in stride(from: bitCount - 2, through: 0, by: -1) {
        workspace.square(current, into: spare)
        swap(&current, &spare)
        if bit(index) {
          workspace.product(current, index == 0 ? ordinaryBase : montgomeryBase, into: spare)
          swap(&current, &spare)
        }
      }
      if !bit(0) {  // an even exponent: out of Montgomery form by a product with 1
        workspace.set(ordinaryBase, to: 1)
        workspace.product(current, ordinaryBase, into: spare)
        swap(&current, &spare)
      }
      result.withMutableLimbs(count) { workspace.copy(current, to: $0.baseAddress!) }
    }
    return result
  }

  /// body(a workspace holding n, its other slots zero).
  private func withWorkspace(_ body: (MontgomeryWorkspace) -> Void) {
    var storage = InlineArray<320, UInt64>(repeating: 0)  // 5 slots of maximumLimbs
    var span = storage.mutableSpan
    span.withUnsafeMutableBufferPointer { buffer in
      let workspace = MontgomeryWorkspace(
        base: buffer.baseAddress!, limbCount: limbCount, negativeInverse: negativeInverse)
      modulus.withLimbs(limbCount) { workspace.copy($0.baseAddress!, to: workspace.modulus) }
      body(workspace)
    }
  }

  // The operations one at a time, on numbers below n (the tests check each).

  /// a·b·R⁻¹ mod n, for a, b < n; the result is < n.
  func multiply(_ a: BigUnsigned, _ b: BigUnsigned) -> BigUnsigned {
    var result = BigUnsigned()
    let count = limbCount
    withWorkspace { workspace in
      a.withLimbs(count) { workspace.copy($0.baseAddress!, to: workspace.slot(1)) }
      b.withLimbs(count) { workspace.copy($0.baseAddress!, to: workspace.slot(2)) }
      workspace.product(workspace.slot(1), workspace.slot(2), into: workspace.slot(3))
      result.withMutableLimbs(count) { workspace.copy(workspace.slot(3), to: $0.baseAddress!) }
    }
    return result
  }

  /// x·R mod n, for x < n.
  func toMontgomery(_ x: BigUnsigned) -> BigUnsigned {
    var result = BigUnsigned()
    let count = limbCount
    withWorkspace { workspace in
      x.withLimbs(count) { workspace.copy($0.baseAddress!, to: workspace.slot(1)) }
      workspace.toMontgomery(
        workspace.slot(1), into: workspace.slot(2), scratch: workspace.slot(3), workspace.slot(4))
      result.withMutableLimbs(count) { workspace.copy(workspace.slot(2), to: $0.baseAddress!) }
    }
    return result
  }

  /// x·R⁻¹ mod n: back from Montgomery form, fully reduced.
  func fromMontgomery(_ x: BigUnsigned) -> BigUnsigned {
    var unit = BigUnsigned()
    unit.limbs[0] = 1
    return multiply(x, unit)
  }

  /// base^exponent in Montgomery form, for base in Montgomery form (R mod n for none).
  func power(_ base: BigUnsigned, exponent: UnsafeRawBufferPointer) -> BigUnsigned {
    toMontgomery(modularPower(fromMontgomery(base), exponent: exponent))
  }

  /// R mod n: the Montgomery form of 1.
  var one: BigUnsigned {
    var unit = BigUnsigned()
    unit.limbs[0] = 1
    return toMontgomery(unit)
  }

  /// R² mod n: a Montgomery product with it turns x into x·R mod n.
  var rSquared: BigUnsigned { toMontgomery(one) }
}

/// Five numbers of up to `BigUnsigned.maximumLimbs` limbs side by side (slot 0 holds n) and
/// the loops over them; only the low `limbCount` limbs of a slot are used.
struct MontgomeryWorkspace {
  let base: UnsafeMutablePointer<UInt64>
  let limbCount: Int
  let negativeInverse: UInt64

  var modulus: UnsafeMutablePointer<UInt64> { base }

  /// Slot 1...4: room for one number.
  func slot(_ index: Int) -> UnsafeMutablePointer<UInt64> {
    base + index * BigUnsigned.maximumLimbs
  }

  /// t = a·b·R⁻¹ mod n, for a, b < n (a and b may be the same; t is neither). Each round
  /// adds a·b[i] and the multiple m·n of n that clears the low limb, then drops that limb,
  /// one pass over the limbs for both: the two carry chains are independent, so the
  /// processor runs them side by side. t stays below 2n: (t + a·b[i] + m·n)/2^64 <
  /// (2n + 2·(2^64−1)·n)/2^64 = 2n, so one subtraction reduces it at the end.
  @inline(never)
  func product(
    _ a: UnsafeMutablePointer<UInt64>, _ b: UnsafeMutablePointer<UInt64>,
    into t: UnsafeMutablePointer<UInt64>
  ) {
    let count = limbCount
    let n = modulus
    set(t, to: 0)
    var tTop: UInt64 = 0  // limb `count` of t: 0 or 1, as t < 2n
    for i in 0..<count {
      let bLimb = b[i]
      var (productCarry, low) = multiplyAdd(a[0], bLimb, t[0], 0)
      let m = low &* negativeInverse  // low + m·n[0] ≡ 0 mod 2^64
      var reductionCarry = multiplyAdd(m, n[0], low, 0).high
      var j = 1
      while j < count {
        (productCarry, low) = multiplyAdd(a[j], bLimb, t[j], productCarry)
        (reductionCarry, t[j - 1]) = multiplyAdd(m, n[j], low, reductionCarry)
        j += 1
      }
      // tTop + both carries < 3·2^64; the new t < 2n leaves at most 1 above limb count − 1.
      let (sum, overflow) = tTop.addingReportingOverflow(productCarry)
      let (total, overflowAgain) = sum.addingReportingOverflow(reductionCarry)
      t[count - 1] = total
      tTop = (overflow ? 1 : 0) &+ (overflowAgain ? 1 : 0)
    }
    if tTop != 0 || !isLess(t, n) { subtract(n, from: t) }
  }

  /// t = a·a·R⁻¹ mod n, for a < n (t is not a): `product(a, a, into: t)` with each cross
  /// product a[i]·a[j] (i < j) made once and doubled. Round i adds a[i]·v, v = a[i] at limb
  /// i + 2·a[j] at each limb j > i (relative to the limbs round i has already dropped), and
  /// reduces as `product` does. v < 2a < 2n, so a round adds below 2^64·3n and t stays
  /// below 4n (two bits above limb count − 1); at the end t = (a² + M·n)/R with M < R, so
  /// t < 2n and one subtraction reduces it.
  @inline(never)
  func square(_ a: UnsafeMutablePointer<UInt64>, into t: UnsafeMutablePointer<UInt64>) {
    let count = limbCount
    let n = modulus
    set(t, to: 0)
    var tTop: UInt64 = 0  // limb `count` of t: 0...3
    for i in 0..<count {
      let aLimb = a[i]
      var squareCarry: UInt64
      var low: UInt64
      var reductionCarry: UInt64
      let m: UInt64
      if i == 0 {  // a[0]² at limb 0 decides the multiple of n
        (squareCarry, low) = multiplyAdd(aLimb, aLimb, t[0], 0)
        m = low &* negativeInverse
        reductionCarry = multiplyAdd(m, n[0], low, 0).high
      } else {  // limbs below i: only the reduction
        m = t[0] &* negativeInverse
        reductionCarry = multiplyAdd(m, n[0], t[0], 0).high
        var j = 1
        while j + 1 < i {  // two limbs a turn: less loop overhead
          (reductionCarry, t[j - 1]) = multiplyAdd(m, n[j], t[j], reductionCarry)
          (reductionCarry, t[j]) = multiplyAdd(m, n[j + 1], t[j + 1], reductionCarry)
          j += 2
        }
        if j < i {
          (reductionCarry, t[j - 1]) = multiplyAdd(m, n[j], t[j], reductionCarry)
        }
        (squareCarry, low) = multiplyAdd(aLimb, aLimb, t[i], 0)
        (reductionCarry, t[i - 1]) = multiplyAdd(m, n[i], low, reductionCarry)
      }
      var shiftedOut: UInt64 = 0  // the top bit of a[j − 1] for 2·a[j], none for j = i + 1
      var j = i + 1
      while j + 1 < count {  // two limbs a turn: less loop overhead
        let aj = a[j]
        let ajNext = a[j + 1]
        (squareCarry, low) = multiplyAdd(aLimb, aj << 1 | shiftedOut, t[j], squareCarry)
        (reductionCarry, t[j - 1]) = multiplyAdd(m, n[j], low, reductionCarry)
        (squareCarry, low) = multiplyAdd(aLimb, ajNext << 1 | aj >> 63, t[j + 1], squareCarry)
        (reductionCarry, t[j]) = multiplyAdd(m, n[j + 1], low, reductionCarry)
        shiftedOut = ajNext >> 63
        j += 2
      }
      if j < count {
        let aj = a[j]
        (squareCarry, low) = multiplyAdd(aLimb, aj << 1 | shiftedOut, t[j], squareCarry)
        (reductionCarry, t[j - 1]) = multiplyAdd(m, n[j], low, reductionCarry)
        shiftedOut = aj >> 63
      }
      // Limb count: the top bit of 2·a[count − 1] (none in the last round), tTop and carries.
      let (high, sum) = multiplyAdd(aLimb, shiftedOut, tTop, squareCarry)
      let (total, overflow) = sum.addingReportingOverflow(reductionCarry)
      t[count - 1] = total
      tTop = high &+ (overflow ? 1 : 0)
    }
    if tTop != 0 || !isLess(t, n) { subtract(n, from: t) }
  }

  /// result = x·R mod n, for x < n (result may be x; `divisor` and `remainder` are
  /// scratch slots): long division of x·2^(64·limbCount) by n, one limb of quotient at a
  /// time. Both are first scaled by 2^shift, the shift that sets the divisor's top bit d:
  /// then the quotient limb q estimated from the remainder's top two limbs T as
  /// ⌊T / (d + 1)⌋ is at most 3 below the true one (T < 2^64·(d + 1) and d ≥ 2^63, so
  /// T/(d·(d + 1)) + 1/d + 1 < 3 + 2^−63), and never above it; a few subtractions of
  /// the divisor finish the step.
  @inline(never)
  func toMontgomery(
    _ x: UnsafeMutablePointer<UInt64>, into result: UnsafeMutablePointer<UInt64>,
    scratch divisor: UnsafeMutablePointer<UInt64>, _ remainder: UnsafeMutablePointer<UInt64>
  ) {
    let count = limbCount
    let shift = modulus[count - 1].leadingZeroBitCount
    shiftLeft(modulus, by: shift, into: divisor)
    shiftLeft(x, by: shift, into: remainder)  // x < n: nothing leaves the top limb
    let divisorTop = divisor[count - 1]
    for _ in 0..<count {
      // remainder ← remainder·2^64 mod divisor. remainder < divisor, so its top limb (the
      // top of T) is at most divisorTop and the quotient fits in a limb.
      let high = remainder[count - 1]
      let low = count > 1 ? remainder[count - 2] : 0
      let quotient =
        divisorTop == .max ? high : (divisorTop + 1).dividingFullWidth((high, low)).quotient
      // remainder·2^64 − quotient·divisor, limb by limb; carry is the high limb of
      // quotient·divisor's limbs so far plus the borrow of the last subtraction. It cannot
      // overflow: a high limb of 2^64 − 1 comes with a low limb of 0, which never borrows.
      var carry: UInt64 = 0
      var limbBelow: UInt64 = 0  // limb j of remainder·2^64 is limb j − 1 of remainder
      for j in 0..<count {
        let (high, low) = multiplyAdd(quotient, divisor[j], carry, 0)
        // In 128 bits the borrow is the high half, 0 or all ones (no branch on it).
        let difference = UInt128(limbBelow) &- UInt128(low)
        limbBelow = remainder[j]
        remainder[j] = UInt64(truncatingIfNeeded: difference)
        carry = high &- UInt64(truncatingIfNeeded: difference >> 64)
      }
      // The limb above: the remainder is below 4·divisor, so 0...3.
      var top = limbBelow &- carry
      while top != 0 || !isLess(remainder, divisor) {
        if subtract(divisor, from: remainder) { top &-= 1 }
      }
    }
    // Scaled back: the remainder is 2^shift·(x·R mod n), its low `shift` bits zero.
    for j in 0..<count {
      let above = j + 1 < count ? remainder[j + 1] << (64 - shift) : 0
      result[j] = remainder[j] >> shift | above
    }
  }

  /// destination = source, limbCount limbs.
  func copy(_ source: UnsafePointer<UInt64>, to destination: UnsafeMutablePointer<UInt64>) {
    for j in 0..<limbCount { destination[j] = source[j] }
  }

  /// destination = limb, a number of limbCount limbs.
  func set(_ destination: UnsafeMutablePointer<UInt64>, to limb: UInt64) {
    destination[0] = limb
    for j in 1..<limbCount { destination[j] = 0 }
  }

  /// destination = source·2^shift, for shift < 64 and a result that fits in limbCount limbs.
  private func shiftLeft(
    _ source: UnsafeMutablePointer<UInt64>, by shift: Int,
    into destination: UnsafeMutablePointer<UInt64>
  ) {
    for j in 0..<limbCount {
      let below = j > 0 ? source[j - 1] >> (64 - shift) : 0
      destination[j] = source[j] << shift | below
    }
  }

  /// x < y, both of limbCount limbs.
  private func isLess(_ x: UnsafeMutablePointer<UInt64>, _ y: UnsafeMutablePointer<UInt64>)
    -> Bool
  {
    BigUnsigned.isLess(
      UnsafeBufferPointer(start: x, count: limbCount),
      UnsafeBufferPointer(start: y, count: limbCount))
  }

  /// x -= y modulo 2^(64·limbCount); true if it borrowed.
  @discardableResult
  private func subtract(_ y: UnsafeMutablePointer<UInt64>, from x: UnsafeMutablePointer<UInt64>)
    -> Bool
  {
    BigUnsigned.subtract(
      UnsafeBufferPointer(start: y, count: limbCount),
      from: UnsafeMutableBufferPointer(start: x, count: limbCount))
  }
}
