// Fixed-size unsigned integers of up to 4096 bits: what RSA verification (RFC 8017 §5.2.2,
// RSAVP1) needs and nothing more; the Montgomery arithmetic on them is in
// MontgomeryModulus.swift. Every value lives in an `InlineArray` on the stack (no heap),
// and every operation works only on the limbs the modulus needs, so a 1024-bit key costs a
// quarter of the limbs of a 4096-bit one, and a sixteenth of the multiplications.

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
    let fits = withMutableLimbs(limbCount) { limbs in
      var end = bytes.count  // bytes[..<end] are still to be read
      var index = 0
      while index < limbCount, end >= 8 {  // a whole limb: 8 bytes at once
        limbs[index] = UInt64(
          bigEndian: bytes.loadUnaligned(fromByteOffset: end - 8, as: UInt64.self))
        end -= 8
        index += 1
      }
      if index < limbCount {  // the last 0...7 bytes
        for byte in bytes[..<end] { limbs[index] = limbs[index] << 8 | UInt64(byte) }
        end = 0
      }
      return !bytes[..<end].contains { $0 != 0 }  // above limbCount limbs: zeros only
    }
    if !fits { return nil }
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

  /// x -= y modulo 2^(64·count), for limb buffers of the same length; true if it borrowed
  /// (y > x).
  @discardableResult
  static func subtract(_ y: UnsafeBufferPointer<UInt64>, from x: UnsafeMutableBufferPointer<UInt64>)
    -> Bool
  {
    var borrow: UInt64 = 0
    for index in x.indices { x[index] = subtractBorrowing(x[index], y[index], &borrow) }
    return borrow != 0
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
