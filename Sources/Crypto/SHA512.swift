/// SHA-512 and SHA-384 (FIPS 180-4): one compression function over 1024-bit
/// blocks of 64-bit words (§6.4.2), the padding of §5.1.2 with a 128-bit
/// length, and two sets of initial values (§5.3.5 SHA-512, §5.3.4 SHA-384);
/// SHA-384 keeps the first 48 bytes of the final state (§6.5).
///
/// Whole 128-byte blocks are compressed straight from the caller's buffer;
/// only a partial block is copied. No heap: the state is 8 words, a 128-byte
/// block and two counters.
public struct SHA512 {
  public static let digestByteCount = 64
  var core = SHA512Core(initialState: SHA512Core.sha512InitialState)

  public init() {}

  public mutating func update(_ bytes: UnsafeRawBufferPointer) {
    core.update(bytes)
  }

  /// The digest of everything passed to `update`. The value is spent
  /// afterwards: start a new one with `init()`.
  public mutating func finalize() -> InlineArray<64, UInt8> {
    core.finalize()
    return InlineArray { core.digestByte($0) }
  }

  public static func hash(_ bytes: UnsafeRawBufferPointer) -> InlineArray<64, UInt8> {
    var hasher = SHA512()
    hasher.update(bytes)
    return hasher.finalize()
  }
}

/// SHA-384: the SHA-512 computation from the initial values of FIPS 180-4
/// §5.3.4, truncated to its first 384 bits (§6.5).
public struct SHA384 {
  public static let digestByteCount = 48
  var core = SHA512Core(initialState: SHA512Core.sha384InitialState)

  public init() {}

  public mutating func update(_ bytes: UnsafeRawBufferPointer) {
    core.update(bytes)
  }

  /// The digest of everything passed to `update`. The value is spent
  /// afterwards: start a new one with `init()`.
  public mutating func finalize() -> InlineArray<48, UInt8> {
    core.finalize()
    return InlineArray { core.digestByte($0) }
  }

  public static func hash(_ bytes: UnsafeRawBufferPointer) -> InlineArray<48, UInt8> {
    var hasher = SHA384()
    hasher.update(bytes)
    return hasher.finalize()
  }
}

/// The SHA-512 family's state between blocks.
/// Invariant: `pendingCount < 128`; `pending[0..<pendingCount]` are the
/// bytes after the last whole block; `byteCount` counts every byte given.
struct SHA512Core {
  static let blockByteCount = 128

  /// FIPS 180-4 §5.3.5.
  static let sha512InitialState: InlineArray<8, UInt64> = [
    0x6a09_e667_f3bc_c908, 0xbb67_ae85_84ca_a73b, 0x3c6e_f372_fe94_f82b, 0xa54f_f53a_5f1d_36f1,
    0x510e_527f_ade6_82d1, 0x9b05_688c_2b3e_6c1f, 0x1f83_d9ab_fb41_bd6b, 0x5be0_cd19_137e_2179,
  ]

  /// FIPS 180-4 §5.3.4.
  static let sha384InitialState: InlineArray<8, UInt64> = [
    0xcbbb_9d5d_c105_9ed8, 0x629a_292a_367c_d507, 0x9159_015a_3070_dd17, 0x152f_ecd8_f70e_5939,
    0x6733_2667_ffc0_0b31, 0x8eb4_4a87_6858_1511, 0xdb0c_2e0d_64f9_8fa7, 0x47b5_481d_befa_4fa4,
  ]

  /// FIPS 180-4 §4.2.3: the first 64 bits of the fractional parts of the cube
  /// roots of the first 80 primes.
  static let roundConstants: InlineArray<80, UInt64> = [
    0x428a_2f98_d728_ae22, 0x7137_4491_23ef_65cd, 0xb5c0_fbcf_ec4d_3b2f, 0xe9b5_dba5_8189_dbbc,
    0x3956_c25b_f348_b538, 0x59f1_11f1_b605_d019, 0x923f_82a4_af19_4f9b, 0xab1c_5ed5_da6d_8118,
    0xd807_aa98_a303_0242, 0x1283_5b01_4570_6fbe, 0x2431_85be_4ee4_b28c, 0x550c_7dc3_d5ff_b4e2,
    0x72be_5d74_f27b_896f, 0x80de_b1fe_3b16_96b1, 0x9bdc_06a7_25c7_1235, 0xc19b_f174_cf69_2694,
    0xe49b_69c1_9ef1_4ad2, 0xefbe_4786_384f_25e3, 0x0fc1_9dc6_8b8c_d5b5, 0x240c_a1cc_77ac_9c65,
    0x2de9_2c6f_592b_0275, 0x4a74_84aa_6ea6_e483, 0x5cb0_a9dc_bd41_fbd4, 0x76f9_88da_8311_53b5,
    0x983e_5152_ee66_dfab, 0xa831_c66d_2db4_3210, 0xb003_27c8_98fb_213f, 0xbf59_7fc7_beef_0ee4,
    0xc6e0_0bf3_3da8_8fc2, 0xd5a7_9147_930a_a725, 0x06ca_6351_e003_826f, 0x1429_2967_0a0e_6e70,
    0x27b7_0a85_46d2_2ffc, 0x2e1b_2138_5c26_c926, 0x4d2c_6dfc_5ac4_2aed, 0x5338_0d13_9d95_b3df,
    0x650a_7354_8baf_63de, 0x766a_0abb_3c77_b2a8, 0x81c2_c92e_47ed_aee6, 0x9272_2c85_1482_353b,
    0xa2bf_e8a1_4cf1_0364, 0xa81a_664b_bc42_3001, 0xc24b_8b70_d0f8_9791, 0xc76c_51a3_0654_be30,
    0xd192_e819_d6ef_5218, 0xd699_0624_5565_a910, 0xf40e_3585_5771_202a, 0x106a_a070_32bb_d1b8,
    0x19a4_c116_b8d2_d0c8, 0x1e37_6c08_5141_ab53, 0x2748_774c_df8e_eb99, 0x34b0_bcb5_e19b_48a8,
    0x391c_0cb3_c5c9_5a63, 0x4ed8_aa4a_e341_8acb, 0x5b9c_ca4f_7763_e373, 0x682e_6ff3_d6b2_b8a3,
    0x748f_82ee_5def_b2fc, 0x78a5_636f_4317_2f60, 0x84c8_7814_a1f0_ab72, 0x8cc7_0208_1a64_39ec,
    0x90be_fffa_2363_1e28, 0xa450_6ceb_de82_bde9, 0xbef9_a3f7_b2c6_7915, 0xc671_78f2_e372_532b,
    0xca27_3ece_ea26_619c, 0xd186_b8c7_21c0_c207, 0xeada_7dd6_cde0_eb1e, 0xf57d_4f7f_ee6e_d178,
    0x06f0_67aa_7217_6fba, 0x0a63_7dc5_a2c8_98a6, 0x113f_9804_bef9_0dae, 0x1b71_0b35_131c_471b,
    0x28db_77f5_2304_7d84, 0x32ca_ab7b_40c7_2493, 0x3c9e_be0a_15c9_bebc, 0x431d_67c4_9c10_0d4c,
    0x4cc5_d4be_cb3e_42b6, 0x597f_299c_fc65_7e2a, 0x5fcb_6fab_3ad6_faec, 0x6c44_198c_4a47_5817,
  ]

  var state: InlineArray<8, UInt64>
  var pending = InlineArray<128, UInt8>(repeating: 0)
  var pendingCount = 0
  var byteCount: UInt64 = 0

  init(initialState: InlineArray<8, UInt64>) {
    state = initialState
  }

  mutating func update(_ bytes: UnsafeRawBufferPointer) {
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

  /// Pads the message (FIPS 180-4 §5.1.2: a 1 bit, zeros, the 128-bit
  /// big-endian bit length) and compresses the last block or two.
  mutating func finalize() {
    pending[pendingCount] = 0x80
    for index in (pendingCount + 1)..<Self.blockByteCount { pending[index] = 0 }
    if pendingCount >= Self.blockByteCount - 16 {
      withUnsafeBytes(of: &pending) { Self.compress(&state, $0, at: 0) }
      for index in 0..<Self.blockByteCount { pending[index] = 0 }
    }
    // The bit length is byteCount * 8: its top three bits go into the high word.
    let bitCountHigh = byteCount >> 61
    let bitCountLow = byteCount << 3
    for index in 0..<8 {
      let shift = UInt64(56 - 8 * index)
      pending[112 + index] = UInt8(truncatingIfNeeded: bitCountHigh >> shift)
      pending[120 + index] = UInt8(truncatingIfNeeded: bitCountLow >> shift)
    }
    withUnsafeBytes(of: &pending) { Self.compress(&state, $0, at: 0) }
    pendingCount = 0
  }

  /// Byte `index` of the big-endian encoding of the state words.
  func digestByte(_ index: Int) -> UInt8 {
    UInt8(truncatingIfNeeded: state[index >> 3] >> UInt64(56 - 8 * (index & 7)))
  }

  /// One block, FIPS 180-4 §6.4.2. The message schedule is kept as a
  /// 16-word ring: W[t] only depends on W[t-2], W[t-7], W[t-15], W[t-16].
  static func compress(
    _ state: inout InlineArray<8, UInt64>, _ bytes: UnsafeRawBufferPointer, at offset: Int
  ) {
    var schedule = InlineArray<16, UInt64>(repeating: 0)
    for index in 0..<16 {
      schedule[index] = UInt64(
        bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 8 * index, as: UInt64.self))
    }
    var a = state[0]
    var b = state[1]
    var c = state[2]
    var d = state[3]
    var e = state[4]
    var f = state[5]
    var g = state[6]
    var h = state[7]
    for round in 0..<80 {
      let word: UInt64
      if round < 16 {
        word = schedule[round]
      } else {
        let w2 = schedule[(round - 2) & 15]
        let w15 = schedule[(round - 15) & 15]
        let sigma1 = rotateRight(w2, 19) ^ rotateRight(w2, 61) ^ (w2 >> 6)
        let sigma0 = rotateRight(w15, 1) ^ rotateRight(w15, 8) ^ (w15 >> 7)
        word = sigma1 &+ schedule[(round - 7) & 15] &+ sigma0 &+ schedule[round & 15]
        schedule[round & 15] = word
      }
      let bigSigma1 = rotateRight(e, 14) ^ rotateRight(e, 18) ^ rotateRight(e, 41)
      let choose = (e & f) ^ (~e & g)
      let temp1 = h &+ bigSigma1 &+ choose &+ roundConstants[round] &+ word
      let bigSigma0 = rotateRight(a, 28) ^ rotateRight(a, 34) ^ rotateRight(a, 39)
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
  static func rotateRight(_ value: UInt64, _ count: UInt64) -> UInt64 {
    (value >> count) | (value << (64 - count))
  }
}
