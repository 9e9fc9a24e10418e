/// SHA-1 (FIPS 180-4): the compression function of §6.1.2 over 512-bit
/// blocks, the functions and constants of §4.1.1 and §4.2.1, the padding of
/// §5.1.1 and the initial values of §5.3.1. DNSSEC needs it only for DS digest
/// type 1 (RFC 4034 §5.1.4); no signature algorithm that we verify uses it.
///
/// Whole 64-byte blocks are compressed straight from the caller's buffer;
/// only a partial block is copied. No heap: the state is 5 words, a 64-byte
/// block and two counters.
public struct SHA1 {
  public static let digestByteCount = 20
  static let blockByteCount = 64

  // Invariant: `pendingCount < 64`; `pending[0..<pendingCount]` are the bytes
  // after the last whole block; `byteCount` counts every byte given.
  /// FIPS 180-4 §5.3.1.
  var state: InlineArray<5, UInt32> = [
    0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476, 0xc3d2_e1f0,
  ]
  var pending = InlineArray<64, UInt8>(repeating: 0)
  var pendingCount = 0
  var byteCount: UInt64 = 0

  public init() {}

  public mutating func update(_ bytes: UnsafeRawBufferPointer) {
    var offset = 0
    let count = bytes.count
    byteCount &+= UInt64(truncatingIfNeeded: count)
    if pendingCount > 0 {
      let taken = min(Self.blockByteCount - pendingCount, count)
      for index in 0..<taken { pending[pendingCount + index] = bytes[index] }
      pendingCount += taken
      offset = taken
      if pendingCount < Self.blockByteCount { return }
      withUnsafeBytes(of: &pending) { Self.compress(&state, $0, at: 0) }
      pendingCount = 0
    }
    while count - offset >= Self.blockByteCount {
      Self.compress(&state, bytes, at: offset)
      offset += Self.blockByteCount
    }
    for index in offset..<count { pending[index - offset] = bytes[index] }
    pendingCount = count - offset
  }

  /// The digest of everything passed to `update`. The value is spent
  /// afterwards: start a new one with `init()`.
  public mutating func finalize() -> InlineArray<20, UInt8> {
    // FIPS 180-4 §5.1.1: a 1 bit, zeros, the 64-bit big-endian bit length.
    pending[pendingCount] = 0x80
    for index in (pendingCount + 1)..<Self.blockByteCount { pending[index] = 0 }
    if pendingCount >= Self.blockByteCount - 8 {
      withUnsafeBytes(of: &pending) { Self.compress(&state, $0, at: 0) }
      for index in 0..<Self.blockByteCount { pending[index] = 0 }
    }
    let bitCount = byteCount << 3
    for index in 0..<8 {
      pending[56 + index] = UInt8(truncatingIfNeeded: bitCount >> UInt64(56 - 8 * index))
    }
    withUnsafeBytes(of: &pending) { Self.compress(&state, $0, at: 0) }
    pendingCount = 0
    return InlineArray { index in
      UInt8(truncatingIfNeeded: state[index >> 2] >> UInt32(24 - 8 * (index & 3)))
    }
  }

  public static func hash(_ bytes: UnsafeRawBufferPointer) -> InlineArray<20, UInt8> {
    var hasher = SHA1()
    hasher.update(bytes)
    return hasher.finalize()
  }

  /// One block, FIPS 180-4 §6.1.2. The message schedule is kept as a
  /// 16-word ring: W[t] only depends on W[t-3], W[t-8], W[t-14], W[t-16].
  static func compress(
    _ state: inout InlineArray<5, UInt32>, _ bytes: UnsafeRawBufferPointer, at offset: Int
  ) {
    var schedule = InlineArray<16, UInt32>(repeating: 0)
    for index in 0..<16 {
      schedule[index] = UInt32(
        bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 4 * index, as: UInt32.self))
    }
    var a = state[0]
    var b = state[1]
    var c = state[2]
    var d = state[3]
    var e = state[4]
    for round in 0..<80 {
      let word: UInt32
      if round < 16 {
        word = schedule[round]
      } else {
        let mixed =
          schedule[(round - 3) & 15] ^ schedule[(round - 8) & 15] ^ schedule[(round - 14) & 15]
          ^ schedule[round & 15]
        word = rotateLeft(mixed, 1)
        schedule[round & 15] = word
      }
      // §4.1.1 and §4.2.1: Ch, Parity, Maj, Parity, 20 rounds each.
      let function: UInt32
      let constant: UInt32
      switch round {
      case 0..<20:
        function = (b & c) | (~b & d)
        constant = 0x5a82_7999
      case 20..<40:
        function = b ^ c ^ d
        constant = 0x6ed9_eba1
      case 40..<60:
        function = (b & c) | (b & d) | (c & d)
        constant = 0x8f1b_bcdc
      default:
        function = b ^ c ^ d
        constant = 0xca62_c1d6
      }
      let temp = rotateLeft(a, 5) &+ function &+ e &+ constant &+ word
      e = d
      d = c
      c = rotateLeft(b, 30)
      b = a
      a = temp
    }
    state[0] &+= a
    state[1] &+= b
    state[2] &+= c
    state[3] &+= d
    state[4] &+= e
  }

  @inline(__always)
  static func rotateLeft(_ value: UInt32, _ count: UInt32) -> UInt32 {
    (value << count) | (value >> (32 - count))
  }
}
