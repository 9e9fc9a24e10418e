/// A scalar of up to 384 bits in width-w non-adjacent form (wNAF): digits d_i with
/// Σ d_i·2^i = the scalar, each 0 or odd with |d_i| < 2^(w−1), and at least w − 1 zeros
/// after every nonzero digit. A scalar multiplication with it adds one of the odd
/// multiples P, 3P, …, (2^(w−1) − 1)·P (or their negations) about once every w + 1
/// doublings, where a bit at a time adds P every other doubling.

/// The odd multiples P, 3P, …, 15P of a public key: the 2^(w−2) points a wNAF of width
/// w = 5 adds.
typealias KeyMultiples = InlineArray<8, JacobianPoint>

/// Digit i of a scalar's wNAF is the coefficient of 2^i; 385 digits hold any scalar of up
/// to 384 bits (a wNAF is at most one digit longer than the binary number).
typealias ScalarDigits = InlineArray<385, Int8>

/// Writes the width-`width` NAF of `scalar`, of `bitCount` bits, into `digits` (which
/// must be all zero) and returns one more than the position of its top nonzero digit (0
/// for the scalar 0). The scalar is read `width` bits at a time from the bottom; the
/// invariant: the part still to encode is ⌊scalar / 2^position⌋ + carry.
func writeDigits(
  of scalar: Limbs, bitCount: Int, width: Int, into digits: inout ScalarDigits
) -> Int {
  let windowMask: UInt64 = 1 << UInt64(width) - 1
  let half: UInt64 = 1 << UInt64(width - 1)
  var carry: UInt64 = 0
  var count = 0
  var position = 0
  while position <= bitCount {
    let value = (bits(of: scalar, from: position) & windowMask) + carry
    if value & 1 == 0 {
      // Even: the digit is 0; the scalar's bit here equals the carry, so the carry
      // passes on unchanged.
      position += 1
      continue
    }
    // Odd: the digit is the value brought into (−2^(w−1), 2^(w−1)); the value minus the
    // digit is 0 or 2^w, which carries into the next window.
    digits[position] = value < half ? Int8(value) : Int8(Int(value) - (1 << width))
    carry = value < half ? 0 : 1
    count = position + 1
    position += width
  }
  return count
}

/// 64 bits of `scalar` from bit `position` on (zeros above its top).
private func bits(of scalar: Limbs, from position: Int) -> UInt64 {
  let limb = position >> 6
  let shift = UInt64(position & 63)
  guard limb < scalar.count else { return 0 }
  var result = scalar[limb] >> shift
  if shift != 0, limb + 1 < scalar.count { result |= scalar[limb + 1] << (64 - shift) }
  return result
}
