/// The arithmetic PrimeField spends its time in, compiled once for each limb count
/// (`count`: 4 for 256-bit numbers, 6 for 384-bit ones) so that every loop has a fixed
/// length and unrolls. Operands are `Limbs` whose limbs from `count` on are zero, and
/// results keep them zero.
enum FixedWidth<let count: Int> {
  /// a − b mod 2^(64·count), and whether it borrowed.
  @inline(__always)
  static func subtractWrapping(_ a: Limbs, _ b: Limbs) -> (difference: Limbs, borrow: Bool) {
    let a = a.span
    let b = b.span
    var result = Limbs(repeating: 0)
    var borrow: UInt64 = 0
    for index in 0..<count { result[index] = subtractBorrowing(a[index], b[index], &borrow) }
    return (result, borrow != 0)
  }

  /// a + b mod 2^(64·count), and whether it carried.
  @inline(__always)
  static func addWrapping(_ a: Limbs, _ b: Limbs) -> (sum: Limbs, carry: Bool) {
    let a = a.span
    let b = b.span
    var result = Limbs(repeating: 0)
    var carry: UInt64 = 0
    for index in 0..<count { result[index] = addCarrying(a[index], b[index], &carry) }
    return (result, carry != 0)
  }

  /// a + b mod m, for a, b < m.
  @inline(__always)
  static func add(_ a: Limbs, _ b: Limbs, modulo m: Limbs) -> Limbs {
    let (sum, carry) = addWrapping(a, b)
    let (reduced, borrow) = subtractWrapping(sum, m)
    return carry || !borrow ? reduced : sum
  }

  /// a − b mod m, for a, b < m.
  @inline(__always)
  static func subtract(_ a: Limbs, _ b: Limbs, modulo m: Limbs) -> Limbs {
    let (difference, borrow) = subtractWrapping(a, b)
    return borrow ? addWrapping(difference, m).sum : difference
  }

  /// a / 2 mod m for a < m, m odd: a, or a + m if a is odd, shifted right one bit (the
  /// carry of a + m comes in at the top).
  @inline(__always)
  static func halve(_ a: Limbs, modulo m: Limbs) -> Limbs {
    let (sum, carry) = a[0] & 1 == 0 ? (a, false) : addWrapping(a, m)
    let limbs = sum.span
    var result = Limbs(repeating: 0)
    for index in 0..<count {
      let above = index + 1 < count ? limbs[index + 1] : (carry ? 1 : 0)
      result[index] = limbs[index] >> 1 | above << 63
    }
    return result
  }

  /// a·b·R⁻¹ mod m for a, b < m, R = 2^(64·count), `reductionFactor` = −m⁻¹ mod 2^64
  /// (Montgomery multiplication, coarsely integrated operand scanning). Each round adds
  /// a·b[i] to the running total, then the multiple of m that clears its low limb, and
  /// shifts it one limb right. The total stays below 2·m: `top` is its limb above the
  /// `count` in `total`, and `overflow` the bit above that, which only a·b[i]'s addition
  /// can set.
  @inline(never) @_optimize(speed)
  static func multiply(_ a: Limbs, _ b: Limbs, modulo modulus: Limbs, reductionFactor: UInt64)
    -> Limbs
  {
    // Read through spans: indexing an InlineArray value with a variable can copy the
    // whole array first.
    let a = a.span
    let b = b.span
    let m = modulus.span
    var totalLimbs = Limbs(repeating: 0)
    var total = totalLimbs.mutableSpan
    var top: UInt64 = 0
    for round in 0..<count {
      let factor = b[round]
      var carry: UInt64 = 0
      for index in 0..<count {
        (carry, total[index]) = multiplyAdd(a[index], factor, total[index], carry)
      }
      let (sum, overflow) = top.addingReportingOverflow(carry)

      let reduction = total[0] &* reductionFactor
      carry = multiplyAdd(reduction, m[0], total[0], 0).high
      for index in 1..<count {
        (carry, total[index - 1]) = multiplyAdd(reduction, m[index], total[index], carry)
      }
      let (shifted, shiftedCarry) = sum.addingReportingOverflow(carry)
      total[count - 1] = shifted
      top = (overflow ? 1 : 0) + (shiftedCarry ? 1 : 0)
    }
    _ = consume total
    let (reduced, borrow) = subtractWrapping(totalLimbs, modulus)
    return top != 0 || !borrow ? reduced : totalLimbs
  }
}

/// a + b + carry, setting carry to the carry out (0 or 1).
@inline(__always)
func addCarrying(_ a: UInt64, _ b: UInt64, _ carry: inout UInt64) -> UInt64 {
  let (sum, carried) = a.addingReportingOverflow(b)
  let (sumAgain, carriedAgain) = sum.addingReportingOverflow(carry)
  carry = (carried ? 1 : 0) &+ (carriedAgain ? 1 : 0)
  return sumAgain
}

/// a − b − borrow, setting borrow to the borrow out (0 or 1). In 128 bits the borrow is
/// the high half, 0 or all ones: no branch on it (x86 compiled the two-overflow form of
/// RSA's long subtraction to a data-dependent jump per limb).
@inline(__always)
func subtractBorrowing(_ a: UInt64, _ b: UInt64, _ borrow: inout UInt64) -> UInt64 {
  let difference = UInt128(a) &- UInt128(b) &- UInt128(borrow)
  borrow = 0 &- UInt64(truncatingIfNeeded: difference >> 64)
  return UInt64(truncatingIfNeeded: difference)
}
