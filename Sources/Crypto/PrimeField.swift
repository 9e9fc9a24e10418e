/// Arithmetic modulo an odd prime of 256 or 384 bits, shared by the ECDSA curves
/// (P-256 and P-384 of SP 800-186 §3.2.1) for both their field prime p and their group
/// order n. Numbers are `Limbs`: 64-bit limbs, least significant first; a field uses
/// the first `limbCount` of them and keeps the rest zero. Multiplication is Montgomery's
/// (the operands and the product carry a factor R = 2^(64·limbCount)); addition,
/// subtraction and comparison are the same for numbers in and out of Montgomery form.
/// Every function takes and returns fully reduced numbers (less than the modulus).
/// Verification handles public data only, so nothing here tries to run in constant time.

/// An unsigned number of up to 384 bits, least significant limb first.
typealias Limbs = InlineArray<6, UInt64>

// `multiplyAdd` (a·b + c + d in 128 bits) is shared with RSA: BigUnsigned.swift.

struct PrimeField {
  /// The odd prime; limbs from `limbCount` on are zero.
  let modulus: Limbs
  /// 4 for a 256-bit prime, 6 for a 384-bit one.
  let limbCount: Int
  /// R² mod modulus, which takes a number into Montgomery form.
  let rSquared: Limbs
  /// −modulus⁻¹ mod 2^64, the factor of Montgomery reduction.
  let reductionFactor: UInt64

  init(modulus: Limbs, limbCount: Int, rSquared: Limbs) {
    self.modulus = modulus
    self.limbCount = limbCount
    self.rSquared = rSquared
    // Newton's iteration x ← x·(2 − m·x) doubles the number of correct low bits; an odd
    // m is its own inverse mod 8 (3 bits), so five steps give 96 ≥ 64 bits.
    var inverse = modulus[0]
    for _ in 0..<5 { inverse = inverse &* (2 &- modulus[0] &* inverse) }
    reductionFactor = 0 &- inverse
  }

  /// The number with value `small`.
  static func limbs(_ small: UInt64) -> Limbs {
    var result = Limbs(repeating: 0)
    result[0] = small
    return result
  }

  /// The big-endian unsigned number in `bytes`, whose count is 8·limbCount.
  func load(_ bytes: UnsafeRawBufferPointer) -> Limbs {
    var result = Limbs(repeating: 0)
    for index in 0..<limbCount {
      var limb: UInt64 = 0
      let end = bytes.count - 8 * index
      for offset in (end - 8)..<end { limb = limb << 8 | UInt64(bytes[offset]) }
      result[index] = limb
    }
    return result
  }

  func isZero(_ a: Limbs) -> Bool {
    var bits: UInt64 = 0
    for index in 0..<limbCount { bits |= a[index] }
    return bits == 0
  }

  func isEqual(_ a: Limbs, _ b: Limbs) -> Bool {
    var difference: UInt64 = 0
    for index in 0..<limbCount { difference |= a[index] ^ b[index] }
    return difference == 0
  }

  func isLess(_ a: Limbs, _ b: Limbs) -> Bool {
    var index = limbCount - 1
    while index >= 0 {
      if a[index] != b[index] { return a[index] < b[index] }
      index -= 1
    }
    return false
  }

  /// True if `a` is a fully reduced number: 0 ≤ a < modulus.
  func isReduced(_ a: Limbs) -> Bool { isLess(a, modulus) }

  /// The bit at `position` (0 = least significant).
  func bit(_ a: Limbs, _ position: Int) -> Bool {
    a[position >> 6] >> UInt64(position & 63) & 1 == 1
  }

  /// a − b mod 2^(64·limbCount), and whether it borrowed.
  func subtractWrapping(_ a: Limbs, _ b: Limbs) -> (difference: Limbs, borrow: Bool) {
    var result = Limbs(repeating: 0)
    var borrow: UInt64 = 0
    for index in 0..<limbCount {
      let (difference1, borrow1) = a[index].subtractingReportingOverflow(b[index])
      let (difference2, borrow2) = difference1.subtractingReportingOverflow(borrow)
      result[index] = difference2
      borrow = (borrow1 ? 1 : 0) + (borrow2 ? 1 : 0)
    }
    return (result, borrow != 0)
  }

  /// a + b mod 2^(64·limbCount), and whether it carried.
  func addWrapping(_ a: Limbs, _ b: Limbs) -> (sum: Limbs, carry: Bool) {
    var result = Limbs(repeating: 0)
    var carry: UInt64 = 0
    for index in 0..<limbCount {
      let (sum1, carry1) = a[index].addingReportingOverflow(b[index])
      let (sum2, carry2) = sum1.addingReportingOverflow(carry)
      result[index] = sum2
      carry = (carry1 ? 1 : 0) + (carry2 ? 1 : 0)
    }
    return (result, carry != 0)
  }

  /// `a` less the modulus if it is not below it; for 0 ≤ a < 2·modulus (`carry` being
  /// the bit above the limbs) this reduces it.
  func reduceOnce(_ a: Limbs, carry: Bool = false) -> Limbs {
    if carry || !isLess(a, modulus) { return subtractWrapping(a, modulus).difference }
    return a
  }

  // Not inlined: the curve formulas call add and subtract some forty times; inlined
  // they cost about 2 KB of firmware for no measurable speed.
  @inline(never)
  func add(_ a: Limbs, _ b: Limbs) -> Limbs {
    let (sum, carry) = addWrapping(a, b)
    return reduceOnce(sum, carry: carry)
  }

  @inline(never)
  func subtract(_ a: Limbs, _ b: Limbs) -> Limbs {
    let (difference, borrow) = subtractWrapping(a, b)
    return borrow ? addWrapping(difference, modulus).sum : difference
  }

  /// a·b·R⁻¹ mod modulus (Montgomery multiplication, coarsely integrated operand
  /// scanning). Each round adds a·b[i], then a multiple of the modulus that clears the
  /// low limb, and shifts one limb right; the total stays below 2·modulus.
  func multiply(_ a: Limbs, _ b: Limbs) -> Limbs {
    let count = limbCount
    var total = InlineArray<8, UInt64>(repeating: 0)
    for round in 0..<count {
      var carry: UInt64 = 0
      for index in 0..<count {
        let step = multiplyAdd(a[index], b[round], total[index], carry)
        total[index] = step.low
        carry = step.high
      }
      let (top, topCarry) = total[count].addingReportingOverflow(carry)
      total[count] = top
      total[count + 1] = topCarry ? 1 : 0

      let factor = total[0] &* reductionFactor
      carry = multiplyAdd(factor, modulus[0], total[0], 0).high
      for index in 1..<count {
        let step = multiplyAdd(factor, modulus[index], total[index], carry)
        total[index - 1] = step.low
        carry = step.high
      }
      let (shifted, shiftedCarry) = total[count].addingReportingOverflow(carry)
      total[count - 1] = shifted
      total[count] = total[count + 1] &+ (shiftedCarry ? 1 : 0)
    }
    var result = Limbs(repeating: 0)
    for index in 0..<count { result[index] = total[index] }
    return reduceOnce(result, carry: total[count] != 0)
  }

  func square(_ a: Limbs) -> Limbs { multiply(a, a) }

  /// a·R mod modulus: `a` in Montgomery form.
  func toMontgomery(_ a: Limbs) -> Limbs { multiply(a, rSquared) }

  /// a·R⁻¹ mod modulus: `a` out of Montgomery form.
  func fromMontgomery(_ a: Limbs) -> Limbs { multiply(a, Self.limbs(1)) }

  /// R mod modulus: one in Montgomery form.
  var montgomeryOne: Limbs { toMontgomery(Self.limbs(1)) }

  /// base^exponent in Montgomery form (base in Montgomery form), square and multiply
  /// from the top bit.
  func power(_ base: Limbs, _ exponent: Limbs) -> Limbs {
    var result = montgomeryOne
    var position = 64 * limbCount - 1
    while position >= 0 {
      result = square(result)
      if bit(exponent, position) { result = multiply(result, base) }
      position -= 1
    }
    return result
  }

  /// a⁻¹ in Montgomery form (a in Montgomery form, not zero) by Fermat's little
  /// theorem: the modulus is prime, so a^(modulus − 2) = a⁻¹.
  func inverse(_ a: Limbs) -> Limbs {
    power(a, subtractWrapping(modulus, Self.limbs(2)).difference)
  }
}
