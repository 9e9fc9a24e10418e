/// SHA-256 (FIPS 180-4): the compression function of §6.2.2 over 512-bit
/// blocks of 32-bit words, the padding of §5.1.1 with a 64-bit length, and
/// the initial values of §5.3.3.
///
/// Whole 64-byte blocks are compressed straight from the caller's buffer;
/// only a partial block is copied. No heap: the state is 8 words, a 64-byte
/// block and two counters.
public struct SHA256 {
  public static let digestByteCount = 32
  static let blockByteCount = 64

  /// FIPS 180-4 §5.3.3.
  static let initialState: InlineArray<8, UInt32> = [
    0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab,
    0x5be0_cd19,
  ]

  /// FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube
  /// roots of the first 64 primes.
  static let roundConstants: InlineArray<64, UInt32> = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4,
    0xab1c_5ed5, 0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe,
    0x9bdc_06a7, 0xc19b_f174, 0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f,
    0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da, 0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7,
    0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967, 0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc,
    0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85, 0xa2bf_e8a1, 0xa81a_664b,
    0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070, 0x19a4_c116,
    0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7,
    0xc671_78f2,
  ]

  // Invariant: `pendingCount < 64`; `pending[0..<pendingCount]` are the bytes
  // after the last whole block; `byteCount` counts every byte given.
  var state = SHA256.initialState
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
  public mutating func finalize() -> InlineArray<32, UInt8> {
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

  public static func hash(_ bytes: UnsafeRawBufferPointer) -> InlineArray<32, UInt8> {
    var hasher = SHA256()
    hasher.update(bytes)
    return hasher.finalize()
  }

  /// One block, FIPS 180-4 §6.2.2. The message schedule is kept as a
  /// 16-word ring: W[t] only depends on W[t-2], W[t-7], W[t-15], W[t-16].
  static func compress(
    _ state: inout InlineArray<8, UInt32>, _ bytes: UnsafeRawBufferPointer, at offset: Int
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
    var f = state[5]
    var g = state[6]
    var h = state[7]
    for round in 0..<64 {
      let word: UInt32
      if round < 16 {
        word = schedule[round]
      } else {
        let w2 = schedule[(round - 2) & 15]
        let w15 = schedule[(round - 15) & 15]
        let sigma1 = rotateRight(w2, 17) ^ rotateRight(w2, 19) ^ (w2 >> 10)
        let sigma0 = rotateRight(w15, 7) ^ rotateRight(w15, 18) ^ (w15 >> 3)
        word = sigma1 &+ schedule[(round - 7) & 15] &+ sigma0 &+ schedule[round & 15]
        schedule[round & 15] = word
      }
      let bigSigma1 = rotateRight(e, 6) ^ rotateRight(e, 11) ^ rotateRight(e, 25)
      let choose = (e & f) ^ (~e & g)
      let temp1 = h &+ bigSigma1 &+ choose &+ roundConstants[round] &+ word
      let bigSigma0 = rotateRight(a, 2) ^ rotateRight(a, 13) ^ rotateRight(a, 22)
      let majority = (a & b) ^ (a & c) ^ (b & c)
      let temp2 = bigSigma0 &+ majority
      h = g
      g = f
      f = e
      e = d &+ temp1
      d = c
      c = b
      b = a
      a = temp1 &+ temp2
    }
    state[0] &+= a
    state[1] &+= b
    state[2] &+= c
    state[3] &+= d
    state[4] &+= e
    state[5] &+= f
    state[6] &+= g
    state[7] &+= h
  }

  @inline(__always)
  static func rotateRight(_ value: UInt32, _ count: UInt32) -> UInt32 {
    (value >> count) | (value << (32 - count))
  }
}
