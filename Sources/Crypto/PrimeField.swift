/// Arithmetic modulo an odd prime of 256 or 384 bits, shared by the ECDSA curves
/// (P-256 and P-384 of SP 800-186 §3.2.1) for both their field prime p and their group
/// order n. Numbers are `Limbs`: 64-bit limbs, least significant first; a field uses
/// the first `limbCount` of them and keeps the rest zero. Multiplication is Montgomery's
/// (the operands and the product carry a factor R = 2^(64·limbCount)); addition,
/// subtraction and comparison are the same for numbers in and out of Montgomery form.
/// Every function takes and returns fully reduced numbers (less than the modulus).
/// Verification handles public data only, so nothing here tries to run in constant time.
///
/// The curve code is written once for both sizes; the three operations it spends its
/// time in (add, subtract, multiply) go to code compiled for the field's limb count
/// (`FixedWidth`), and P-256's multiplication to code for its prime (P256Reduction.swift).

/// An unsigned number of up to 384 bits, least significant limb first.
typealias Limbs = InlineArray<6, UInt64>

struct PrimeField {
  /// The odd prime; limbs from `limbCount` on are zero.
  let modulus: Limbs
  /// 4 for a 256-bit prime, 6 for a 384-bit one.
  let limbCount: Int
  /// R² mod modulus, which takes a number into Montgomery form.
  let rSquared: Limbs
  /// −modulus⁻¹ mod 2^64, the factor of Montgomery reduction.
  let reductionFactor: UInt64
  /// True for P-256's prime p, whose multiplication has code of its own.
  let isP256Prime: Bool
  /// R mod modulus: one in Montgomery form.
  let montgomeryOne: Limbs

  init(modulus: Limbs, limbCount: Int, rSquared: Limbs) {
    self.modulus = modulus
    self.limbCount = limbCount
    self.rSquared = rSquared
    // Newton's iteration x ← x·(2 − m·x) doubles the number of correct low bits; an odd
    // m is its own inverse mod 8 (3 bits), so five steps give 96 ≥ 64 bits.
    var inverse = modulus[0]
    for _ in 0..<5 { inverse = inverse &* (2 &- modulus[0] &* inverse) }
    reductionFactor = 0 &- inverse
    var p256Difference: UInt64 = 0
    for index in 0..<6 { p256Difference |= modulus[index] ^ p256Prime[index] }
    isP256Prime = p256Difference == 0
    // R mod m = R − m, as the modulus has its top bit set (R/2 < m < R): the two's
    // complement of m in limbCount limbs.
    var one = Limbs(repeating: 0)
    var borrow: UInt64 = 0
    for index in 0..<limbCount { one[index] = subtractBorrowing(0, modulus[index], &borrow) }
    montgomeryOne = one
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
      let offset = bytes.count - 8 * (index + 1)
      result[index] = UInt64(
        bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
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

  /// a − b mod 2^(64·limbCount), and whether it borrowed.
  @inline(never)
  func subtractWrapping(_ a: Limbs, _ b: Limbs) -> (difference: Limbs, borrow: Bool) {
    limbCount == 4
      ? FixedWidth<4>.subtractWrapping(a, b) : FixedWidth<6>.subtractWrapping(a, b)
  }

  /// a + b mod 2^(64·limbCount), and whether it carried.
  @inline(never)
  func addWrapping(_ a: Limbs, _ b: Limbs) -> (sum: Limbs, carry: Bool) {
    limbCount == 4 ? FixedWidth<4>.addWrapping(a, b) : FixedWidth<6>.addWrapping(a, b)
  }

  /// `a` less the modulus if it is not below it; for 0 ≤ a < 2·modulus (`carry` being
  /// the bit above the limbs) this reduces it.
  func reduceOnce(_ a: Limbs, carry: Bool = false) -> Limbs {
    let (difference, borrow) = subtractWrapping(a, modulus)
    return carry || !borrow ? difference : a
  }

  // Not inlined: the curve formulas call add and subtract some forty times.
  @inline(never) @_optimize(speed)
  func add(_ a: Limbs, _ b: Limbs) -> Limbs {
    limbCount == 4
      ? FixedWidth<4>.add(a, b, modulo: modulus) : FixedWidth<6>.add(a, b, modulo: modulus)
  }

  @inline(never) @_optimize(speed)
  func subtract(_ a: Limbs, _ b: Limbs) -> Limbs {
    limbCount == 4
      ? FixedWidth<4>.subtract(a, b, modulo: modulus)
      : FixedWidth<6>.subtract(a, b, modulo: modulus)
  }

  /// a / 2 mod modulus: a shifted right, after adding the (odd) modulus if a is odd.
  @inline(never) @_optimize(speed)
  func halve(_ a: Limbs) -> Limbs {
    limbCount == 4
      ? FixedWidth<4>.halve(a, modulo: modulus) : FixedWidth<6>.halve(a, modulo: modulus)
  }

  /// −a.
  func negate(_ a: Limbs) -> Limbs { subtract(Limbs(repeating: 0), a) }

  /// a·b·R⁻¹ mod modulus (Montgomery multiplication).
  @inline(never) @_optimize(speed)
  func multiply(_ a: Limbs, _ b: Limbs) -> Limbs {
    if isP256Prime { return multiplyModuloP256(a, b) }
    return limbCount == 4
      ? FixedWidth<4>.multiply(a, b, modulo: modulus, reductionFactor: reductionFactor)
      : FixedWidth<6>.multiply(a, b, modulo: modulus, reductionFactor: reductionFactor)
  }

  func square(_ a: Limbs) -> Limbs { multiply(a, a) }

  /// a·R mod modulus: `a` in Montgomery form.
  func toMontgomery(_ a: Limbs) -> Limbs { multiply(a, rSquared) }

  /// a·R⁻¹ mod modulus: `a` out of Montgomery form.
  func fromMontgomery(_ a: Limbs) -> Limbs { multiply(a, Self.limbs(1)) }

  /// base^exponent in Montgomery form (base in Montgomery form), four bits at a time
  /// from the top with a table of base^1 … base^15: besides the squarings, about 78
  /// products for a 256-bit exponent where one bit at a time takes about 128 (the
  /// inverse of an ECDSA signature's s).
  func power(_ base: Limbs, _ exponent: Limbs) -> Limbs {
    var powers = InlineArray<15, Limbs>(repeating: base)
    for index in 1..<15 { powers[index] = multiply(powers[index - 1], base) }
    var result = montgomeryOne
    var position = 64 * limbCount - 4
    while position >= 0 {
      for _ in 0..<4 { result = square(result) }
      let digit = Int(exponent[position >> 6] >> UInt64(position & 63) & 15)
      if digit != 0 { result = multiply(result, powers.span[digit - 1]) }
      position -= 4
    }
    return result
  }

  /// a⁻¹ in Montgomery form (a in Montgomery form, not zero) by Fermat's little
  /// theorem: the modulus is prime, so a^(modulus − 2) = a⁻¹.
  func inverse(_ a: Limbs) -> Limbs {
    power(a, subtractWrapping(modulus, Self.limbs(2)).difference)
  }
}
