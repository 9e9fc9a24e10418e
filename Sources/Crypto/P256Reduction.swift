/// Montgomery multiplication modulo the P-256 prime p = 2^256 − 2^224 + 2^192 + 2^96 − 1
/// (SP 800-186 §3.2.1.3), written out for its four limbs. The prime's shape makes each
/// reduction step cheap: p ≡ −1 mod 2^64, so the factor that clears the low limb of the
/// running total is that limb itself (−p⁻¹ mod 2^64 = 1), and of p's limbs
/// [2^64 − 1, 2^32 − 1, 0, 2^64 − 2^32 + 1] only the top one needs a multiplication.
/// `PrimeField.multiply` calls this for P-256's field; everything else there is generic.

/// The P-256 prime p, limbs from 4 on zero.
let p256Prime: Limbs = [
  0xFFFF_FFFF_FFFF_FFFF, 0x0000_0000_FFFF_FFFF, 0, 0xFFFF_FFFF_0000_0001, 0, 0,
]

/// The running total of the product: five limbs and the bit above them.
private struct P256Total {
  var t0: UInt64 = 0
  var t1: UInt64 = 0
  var t2: UInt64 = 0
  var t3: UInt64 = 0
  var t4: UInt64 = 0
  var overflow: UInt64 = 0
}

/// One round: total += a·factor, then total += m·p with m = total's low limb, which
/// clears that limb, and total shifts down one limb. With a < p and the total below 2p
/// before, it stays below 2p after.
@inline(__always)
private func p256Round(_ total: inout P256Total, _ a: Limbs, _ factor: UInt64) {
  var carry: UInt64 = 0
  (carry, total.t0) = multiplyAdd(a[0], factor, total.t0, carry)
  (carry, total.t1) = multiplyAdd(a[1], factor, total.t1, carry)
  (carry, total.t2) = multiplyAdd(a[2], factor, total.t2, carry)
  (carry, total.t3) = multiplyAdd(a[3], factor, total.t3, carry)
  total.t4 = addCarrying(total.t4, carry, &total.overflow)
  // m·p = m·2^256 − m·2^224 + m·2^192 + m·2^96 − m. Added to the total: the low limb
  // (t0 + m·(2^64 − 1) = m·2^64) becomes 0 and carries m; limb 1 gains m·(2^32 − 1) + m
  // = m·2^32, whose top 32 bits go to limb 2; limb 3 gains m·(2^64 − 2^32 + 1).
  let m = total.t0
  let top = m.multipliedFullWidth(by: p256Prime[3])
  carry = 0
  total.t0 = addCarrying(total.t1, m << 32, &carry)
  total.t1 = addCarrying(total.t2, m >> 32, &carry)
  total.t2 = addCarrying(total.t3, top.low, &carry)
  total.t3 = addCarrying(total.t4, top.high, &carry)
  total.t4 = total.overflow &+ carry
  total.overflow = 0
}

/// a·b·2^−256 mod p for a, b < p: four rounds of `p256Round`, then p subtracted once if
/// the total (below 2p) is not below p.
// Inlined into PrimeField.multiply, its one caller: a call in between wrote the product
// to a temporary that the caller then copied, and reading its 8-byte stores as 16-byte
// words stalled the store buffer (a tenth of a verification's time in the firmware).
@inline(__always)
func multiplyModuloP256(_ a: Limbs, _ b: Limbs) -> Limbs {
  var total = P256Total()
  p256Round(&total, a, b[0])
  p256Round(&total, a, b[1])
  p256Round(&total, a, b[2])
  p256Round(&total, a, b[3])
  var borrow: UInt64 = 0
  let r0 = subtractBorrowing(total.t0, p256Prime[0], &borrow)
  let r1 = subtractBorrowing(total.t1, p256Prime[1], &borrow)
  let r2 = subtractBorrowing(total.t2, p256Prime[2], &borrow)
  let r3 = subtractBorrowing(total.t3, p256Prime[3], &borrow)
  // total ≥ p exactly when its fifth limb is set or the subtraction did not borrow.
  if total.t4 != 0 || borrow == 0 { return [r0, r1, r2, r3, 0, 0] }
  return [total.t0, total.t1, total.t2, total.t3, 0, 0]
}
