// Ed25519.swift — Ed25519 signature verification (RFC 8032 §5.1.7), DNSSEC algorithm 15
// (RFC 8080). Verification only: no keys are generated and nothing is signed. The points and
// their arithmetic are in Ed25519Point.swift, the field in Curve25519Field.swift; the hash is
// SHA512. Embedded-clean and allocation-free. Everything verified is public, so nothing here
// runs in constant time.

/// Ed25519 signature verification (RFC 8032 §5.1.7).
public enum Ed25519 {
  /// RFC 8032 §5.1.7: signature is R || S (64 bytes), publicKey 32 bytes, message any length.
  ///
  /// False, never a trap, for: wrong lengths; S ≥ L (step 1); an A or R that does not decode
  /// (§5.1.3: y ≥ p, x² = (y² − 1)/(d·y² + 1) without a root, x = 0 with the sign bit set);
  /// a public key of small order (below); and a failed equation.
  ///
  /// The equation is the cofactorless one, [S]B = R + [k]A, which §5.1.7 allows ("sufficient,
  /// but not required", against the cofactored [8][S]B = [8]R + [8][k]A), because it is the
  /// one OpenSSL checks, and so unbound, the validator dnsward is compared with: the two agree
  /// even on a signature its key's owner crafted to pass only the cofactored check (a key or
  /// R with a small-order component), while an honest signature passes both. (OpenSSL
  /// compares R's bytes with the encoding of [S]B − [k]A; R decoded and compared as a point
  /// is the same test, as an R that does not decode never equals a canonical encoding.) On
  /// top of §5.1.7 a public key A of small order ([8]A = identity) is refused: [k]A then
  /// takes at most 8 values, so anyone could forge for such a key by guessing one, and no
  /// key made by §5.1.5 has small order.
  public static func verify(
    signature: UnsafeRawBufferPointer, publicKey: UnsafeRawBufferPointer,
    message: UnsafeRawBufferPointer
  ) -> Bool {
    guard signature.count == 64, publicKey.count == 32 else { return false }
    let encodedR = UnsafeRawBufferPointer(rebasing: signature[0..<32])
    // Step 1: S must be below L.
    let s = Ed25519Scalar.littleEndian(UnsafeRawBufferPointer(rebasing: signature[32..<64]))
    guard Ed25519Scalar.isBelowOrder(s) else { return false }
    // Step 1: decode A and R (§5.1.3).
    guard let a = EdwardsPoint(decoding: publicKey), !a.hasSmallOrder,
      let r = EdwardsPoint(decoding: encodedR)
    else { return false }
    // Step 2: k = SHA-512(dom2(F, C) || R || A || PH(M)) mod L; dom2 and PH are empty for
    // Ed25519.
    var hasher = SHA512()
    hasher.update(encodedR)
    hasher.update(publicKey)
    hasher.update(message)
    let k = Ed25519Scalar.reduced(hasher.finalize())
    // Step 3: [S]B = R + [k]A, checked as [S]B − [k]A = R. S and k are below L < 2^253.
    let difference = EdwardsPoint.baseMultipleMinusMultiple(
      baseDigits: Ed25519Scalar.signedDigits(s), pointDigits: Ed25519Scalar.signedDigits(k),
      of: a)
    return difference.isSamePoint(as: r)
  }
}

/// Integers modulo L = 2^252 + 27742317777372353535851937790883648493, the order of B
/// (RFC 8032 §5.1), as four little-endian 64-bit words.
enum Ed25519Scalar {
  typealias Words = InlineArray<4, UInt64>

  static var order: Words {
    [0x5812_631a_5cf5_d3ed, 0x14de_f9de_a2f7_9cd6, 0, 0x1000_0000_0000_0000]
  }

  /// The 256-bit little-endian number in 32 bytes.
  static func littleEndian(_ bytes: UnsafeRawBufferPointer) -> Words {
    var words = Words(repeating: 0)
    for i in 0..<4 {
      words[i] = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self))
    }
    return words
  }

  /// Whether n < L, comparing from the top word down.
  static func isBelowOrder(_ n: Words) -> Bool {
    let order = Ed25519Scalar.order
    for i in (0..<4).reversed() where n[i] != order[i] { return n[i] < order[i] }
    return false
  }

  /// The 512-bit little-endian digest reduced mod L (RFC 8032 §5.1.7 step 2), 32 bits at a
  /// time from the top, r = high·2^128 + low < L: t = r·2^32 + the next 32 bits (below
  /// 2^285), then t − q·L for q = ⌊t / 2^252⌋ = ⌊r / 2^220⌋ (below 2^33). L = 2^252 + c with
  /// c < 2^125, so t/2^252 exceeds t/L by t·c/(2^252·L) < 1: q is ⌊t/L⌋ or one more, t − q·L
  /// lies in [−L, L), and adding L when it is negative leaves r in [0, L). t − q·L is
  /// (t mod 2^252) − q·c, with q·c below 2^158 (its top 30 bits in `productHigh`).
  static func reduced(_ digest: InlineArray<64, UInt8>) -> Words {
    let c: UInt128 = 0x14de_f9de_a2f7_9cd6_5812_631a_5cf5_d3ed
    let lowMask: UInt128 = 1 << 64 - 1
    var (low, high): (UInt128, UInt128) = (0, 0)
    digest.span.withUnsafeBytes { bytes in
      for offset in stride(from: 60, through: 0, by: -4) {
        let next = UInt32(
          littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        let q = high >> 92
        let tLow = low << 32 | UInt128(next)
        let tHigh = (high & (1 << 92 - 1)) << 32 | low >> 96
        let product0 = q &* (c & lowMask)  // below 2^97
        let product1 = q &* (c >> 64)  // below 2^94
        let (productLow, carry) = product0.addingReportingOverflow(product1 << 64)
        let productHigh = product1 >> 64 &+ (carry ? 1 : 0)
        let borrow: Bool
        (low, borrow) = tLow.subtractingReportingOverflow(productLow)
        high = tHigh &- productHigh &- (borrow ? 1 : 0)
        if high >> 127 == 1 {  // negative: add L = 2^252 + c
          let (sum, carryOut) = low.addingReportingOverflow(c)
          low = sum
          high = high &+ (1 << 124) &+ (carryOut ? 1 : 0)
        }
      }
    }
    return [
      UInt64(truncatingIfNeeded: low), UInt64(truncatingIfNeeded: low >> 64),
      UInt64(truncatingIfNeeded: high), UInt64(truncatingIfNeeded: high >> 64),
    ]
  }

  /// The width-4 signed digits of n < 2^253 (its non-adjacent form of width 4): n =
  /// Σ digits[i]·2^i, each digit 0 or odd in −7…7, and a non-zero digit followed by at least
  /// three zeros. From the bottom, with a carry c (0 or 1) from the digits below: where bit
  /// i + c is even, digit i is 0 (c stays); where it is odd, the four bits from i plus c make
  /// an odd w < 16, the digit is w, or w − 16 with c = 1 when w > 8, and the next three
  /// digits are 0. A window from bit 250 on holds at most bits 250…252 (n < 2^253), so w < 8
  /// there and no carry is left; a window from bit 249 or below ends by bit 252, leaving a
  /// digit below 256 for a last carry.
  static func signedDigits(_ n: Words) -> InlineArray<256, Int8> {
    var digits = InlineArray<256, Int8>(repeating: 0)
    var span = digits.mutableSpan
    var carry: UInt64 = 0
    var index = 0
    while index < 256 {
      let word = index >> 6
      let shift = UInt64(index & 63)
      var window = n[word] >> shift
      if shift > 60 && word < 3 { window |= n[word + 1] << (64 - shift) }
      if window & 1 == carry {
        index += 1
        continue
      }
      window = (window & 15) + carry
      carry = window > 8 ? 1 : 0
      span[index] = Int8(truncatingIfNeeded: Int64(window) - Int64(carry << 4))
      index += 4
    }
    return digits
  }
}
