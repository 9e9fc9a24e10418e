// Fixed-size unsigned integers of up to 4096 bits and Montgomery arithmetic modulo an odd
// number: what RSA verification (RFC 8017 §5.2.2, RSAVP1) needs and nothing more.
// Every value lives in an `InlineArray` on the stack (no heap), and every operation works
// only on the limbs the modulus needs, so a 1024-bit key costs a quarter of the limbs of a
// 4096-bit one, and a sixteenth of the multiplications.

/// An unsigned integer of up to `maximumLimbs` 64-bit limbs, least significant limb first.
/// Each operation takes the number of limbs to work on; limbs at and above it stay zero.
struct BigUnsigned {
  static let maximumLimbs = 64
  var limbs: InlineArray<64, UInt64>

  init() { limbs = .init(repeating: 0) }

  /// The big-endian unsigned number in `bytes` (leading zero bytes allowed, as in RFC 8017
  /// §4.2 OS2IP); nil if it does not fit in `limbCount` limbs.
  init?(bigEndian bytes: UnsafeRawBufferPointer, limbCount: Int) {
    self.init()
    guard limbCount >= 1, limbCount <= Self.maximumLimbs else { return nil }
    var position = 0  // from the least significant byte
    for index in stride(from: bytes.count - 1, through: 0, by: -1) {
      let byte = bytes[index]
      if position >= limbCount * 8 {
        if byte != 0 { return nil }
      } else {
        limbs[position >> 3] |= UInt64(byte) << UInt64((position & 7) * 8)
      }
      position += 1
    }
  }

  /// Byte `index` of the number as `byteCount` big-endian bytes (RFC 8017 §4.1 I2OSP); bytes
  /// above the limbs are zero.
  func bigEndianByte(_ index: Int, byteCount: Int) -> UInt8 {
    let position = byteCount - 1 - index  // from the least significant byte
    guard position >= 0, position < Self.maximumLimbs * 8 else { return 0 }
    return withLimbs(Self.maximumLimbs) {
      UInt8(truncatingIfNeeded: $0[position >> 3] >> UInt64((position & 7) * 8))
    }
  }

  /// Whether self < other, comparing the low `limbCount` limbs.
  func isLess(than other: BigUnsigned, limbCount: Int) -> Bool {
    withLimbs(limbCount) { x in other.withLimbs(limbCount) { y in Self.isLess(x, y) } }
  }

  /// self -= other modulo 2^(64·limbCount).
  mutating func subtract(_ other: BigUnsigned, limbCount: Int) {
    withMutableLimbs(limbCount) { x in
      other.withLimbs(limbCount) { y in Self.subtract(y, from: x) }
    }
  }

  /// self = 2·self modulo 2^(64·limbCount); true if a bit was shifted out of the top limb.
  mutating func double(limbCount: Int) -> Bool {
    withMutableLimbs(limbCount) { limbs in
      var carry: UInt64 = 0
      for index in limbs.indices {
        let limb = limbs[index]
        limbs[index] = limb << 1 | carry
        carry = limb >> 63
      }
      return carry != 0
    }
  }

  // The limbs are reached through buffer pointers: reading an element of an InlineArray
  // stored in a struct can copy the whole array, 512 bytes, on each access.

  /// body(the low `count` limbs), for count ≤ maximumLimbs.
  func withLimbs<Result>(_ count: Int, _ body: (UnsafeBufferPointer<UInt64>) -> Result) -> Result {
    limbs.span.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[..<count])) }
  }

  /// body(the low `count` limbs, writable), for count ≤ maximumLimbs.
  mutating func withMutableLimbs<Result>(
    _ count: Int, _ body: (UnsafeMutableBufferPointer<UInt64>) -> Result
  ) -> Result {
    var span = limbs.mutableSpan
    return span.withUnsafeMutableBufferPointer {
      body(UnsafeMutableBufferPointer(rebasing: $0[..<count]))
    }
  }

  /// x < y, for limb buffers of the same length.
  static func isLess(_ x: UnsafeBufferPointer<UInt64>, _ y: UnsafeBufferPointer<UInt64>) -> Bool {
    var index = x.count - 1
    while index >= 0 {
      if x[index] != y[index] { return x[index] < y[index] }
      index -= 1
    }
    return false
  }

  /// x -= y modulo 2^(64·count), for limb buffers of the same length.
  static func subtract(_ y: UnsafeBufferPointer<UInt64>, from x: UnsafeMutableBufferPointer<UInt64>)
  {
    var borrow = false
    for index in x.indices {
      let (difference, borrowed) = x[index].subtractingReportingOverflow(y[index])
      let (result, borrowedAgain) = difference.subtractingReportingOverflow(borrow ? 1 : 0)
      x[index] = result
      borrow = borrowed || borrowedAgain
    }
  }
}

/// high·2^64 + low = a·b + c + d. It cannot overflow: (2^64−1)² + 2·(2^64−1) = 2^128 − 1.
@inline(__always)
func multiplyAdd(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ d: UInt64) -> (
  high: UInt64, low: UInt64
) {
  let product = a.multipliedFullWidth(by: b)
  let (low, overflow) = product.low.addingReportingOverflow(c)
  let (lowAgain, overflowAgain) = low.addingReportingOverflow(d)
  return (product.high &+ (overflow ? 1 : 0) &+ (overflowAgain ? 1 : 0), lowAgain)
}

/// Arithmetic modulo an odd n of `limbCount` limbs in Montgomery form: x is held as
/// x·R mod n, with R = 2^(64·limbCount), so that a product needs no division.
struct MontgomeryModulus {
  let modulus: BigUnsigned
  let limbCount: Int
  /// −n⁻¹ mod 2^64: adding (t[0]·inverse mod 2^64)·n to t clears t's low limb.
  let negativeInverse: UInt64
  /// R mod n: the Montgomery form of 1.
  private(set) var one = BigUnsigned()
  /// R² mod n: a Montgomery product with it turns x into x·R mod n.
  private(set) var rSquared = BigUnsigned()

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
    // R mod n: 2^(bits−1) < n, doubled modulo n until it is 2^(64·limbCount).
    let bits = limbCount * 64 - topLimb.leadingZeroBitCount
    var r = BigUnsigned()
    r.limbs[(bits - 1) >> 6] = 1 << UInt64((bits - 1) & 63)
    for _ in 0..<(limbCount * 64 - bits + 1) { doubleModulo(&r) }
    one = r
    // R² mod n is 2^(64·limbCount) in Montgomery form: that power of 2·R mod n.
    doubleModulo(&r)
    let twoR = r
    let exponent = UInt16(limbCount * 64).bigEndian
    rSquared = withUnsafeBytes(of: exponent) { power(twoR, exponent: $0) }
  }

  /// x = 2·x mod n, for x < n.
  private func doubleModulo(_ x: inout BigUnsigned) {
    let carry = x.double(limbCount: limbCount)
    if carry || !x.isLess(than: modulus, limbCount: limbCount) {
      x.subtract(modulus, limbCount: limbCount)
    }
  }

  /// a·b·R⁻¹ mod n, for a, b < n; the result is < n. Never inlined: its
  /// callers (power, the conversions) would each carry a copy of the
  /// product loops, kilobytes of firmware, to save a call per product.
  @inline(never)
  func multiply(_ a: BigUnsigned, _ b: BigUnsigned) -> BigUnsigned {
    var t = BigUnsigned()
    t.withMutableLimbs(limbCount) { t in
      a.withLimbs(limbCount) { a in
        b.withLimbs(limbCount) { b in
          modulus.withLimbs(limbCount) { n in montgomeryProduct(a, b, n, into: t) }
        }
      }
    }
    return t
  }

  /// t = a·b·R⁻¹ mod n, t zero on entry. Coarsely integrated operand scanning (CIOS): for
  /// each limb of b, add a·b[i], then add the multiple of n that clears the low limb and
  /// drop that limb. t stays below 2n, so one subtraction reduces it at the end.
  private func montgomeryProduct(
    _ a: UnsafeBufferPointer<UInt64>, _ b: UnsafeBufferPointer<UInt64>,
    _ n: UnsafeBufferPointer<UInt64>, into t: UnsafeMutableBufferPointer<UInt64>
  ) {
    var tHigh: UInt64 = 0  // limb limbCount of t
    for i in 0..<limbCount {
      let bLimb = b[i]
      var carry: UInt64 = 0
      for j in 0..<limbCount {
        (carry, t[j]) = multiplyAdd(a[j], bLimb, t[j], carry)
      }
      let (sum, overflow) = tHigh.addingReportingOverflow(carry)
      let tTop: UInt64 = overflow ? 1 : 0  // limb limbCount + 1 of t
      let m = t[0] &* negativeInverse
      carry = multiplyAdd(m, n[0], t[0], 0).high
      for j in 1..<limbCount {
        (carry, t[j - 1]) = multiplyAdd(m, n[j], t[j], carry)
      }
      let (shiftedSum, shiftedOverflow) = sum.addingReportingOverflow(carry)
      t[limbCount - 1] = shiftedSum
      tHigh = tTop + (shiftedOverflow ? 1 : 0)
    }
    if tHigh != 0 || !BigUnsigned.isLess(UnsafeBufferPointer(t), n) {
      BigUnsigned.subtract(n, from: t)
    }
  }

  /// x·R mod n, for x < n.
  func toMontgomery(_ x: BigUnsigned) -> BigUnsigned { multiply(x, rSquared) }

  /// x·R⁻¹ mod n: back from Montgomery form, fully reduced.
  func fromMontgomery(_ x: BigUnsigned) -> BigUnsigned {
    var unit = BigUnsigned()
    unit.limbs[0] = 1
    return multiply(x, unit)
  }

  /// base^exponent in Montgomery form, for base in Montgomery form and a big-endian
  /// exponent of any length: left-to-right square-and-multiply over its bits (the exponent
  /// is public, so the time may depend on it).
  @inline(never)
  func power(_ base: BigUnsigned, exponent: UnsafeRawBufferPointer) -> BigUnsigned {
    var result = one
    var started = false  // before the first set bit, result is 1 and squaring it is a no-op
    for byte in exponent {
      var mask: UInt8 = 0x80
      while mask != 0 {
        if started { result = multiply(result, result) }
        if byte & mask != 0 {
          result = started ? multiply(result, base) : base
          started = true
        }
        mask >>= 1
      }
    }
    return result
  }
}
