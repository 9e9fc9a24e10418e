/// MD5 (RFC 1321), only for the Alibaba HTTPDNS signature `s`, which the API
/// defines as MD5 over `host-secret-t`. Not used for anything that needs a
/// secure hash. Fed a byte at a time so the message needs no buffer.
struct MD5 {
  /// A, B, C, D (RFC 1321 §3.3).
  private var state: InlineArray<4, UInt32> = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476]
  /// The current 64-byte block as sixteen little-endian words (RFC 1321 §3.4).
  private var block: InlineArray<16, UInt32> = .init(repeating: 0)
  private var length: UInt64 = 0

  mutating func update(_ byte: UInt8) {
    let index = Int(length & 63)
    block[index >> 2] |= UInt32(byte) << UInt32((index & 3) * 8)
    length &+= 1
    if length & 63 == 0 { compress() }
  }

  mutating func update(_ bytes: UnsafeRawBufferPointer) {
    for byte in bytes { update(byte) }
  }

  /// Pads (RFC 1321 §3.1–3.2) and returns the 16-byte digest, low word first.
  mutating func finalize() -> InlineArray<16, UInt8> {
    let bits = length &* 8
    update(0x80)
    while length & 63 != 56 { update(0) }
    for shift in stride(from: UInt64(0), to: 64, by: 8) {
      update(UInt8(truncatingIfNeeded: bits >> shift))
    }
    var digest = InlineArray<16, UInt8>(repeating: 0)
    for index in 0..<16 {
      digest[index] = UInt8(truncatingIfNeeded: state[index >> 2] >> UInt32((index & 3) * 8))
    }
    return digest
  }

  /// The four rounds of RFC 1321 §3.4 over `block`, which is then cleared.
  private mutating func compress() {
    var a = state[0]
    var b = state[1]
    var c = state[2]
    var d = state[3]
    for step in 0..<64 {
      var f: UInt32
      var word: Int
      switch step >> 4 {
      case 0:
        f = (b & c) | (~b & d)
        word = step
      case 1:
        f = (d & b) | (~d & c)
        word = (5 &* step &+ 1) & 15
      case 2:
        f = b ^ c ^ d
        word = (3 &* step &+ 5) & 15
      default:
        f = c ^ (b | ~d)
        word = (7 &* step) & 15
      }
      f = f &+ a &+ md5Sines[step] &+ block[word]
      a = d
      d = c
      c = b
      let shift = UInt32(md5Shifts[(step >> 4) << 2 | step & 3])
      b = b &+ (f << shift | f >> (32 - shift))
    }
    state[0] &+= a
    state[1] &+= b
    state[2] &+= c
    state[3] &+= d
    for index in 0..<16 { block[index] = 0 }
  }
}

/// Per-round left rotations, four per round (RFC 1321 §3.4).
private let md5Shifts: [UInt8] = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21]

/// T[i] = floor(2^32 × |sin(i + 1)|) (RFC 1321 §3.4).
private let md5Sines: [UInt32] = [
  0xD76A_A478, 0xE8C7_B756, 0x2420_70DB, 0xC1BD_CEEE, 0xF57C_0FAF, 0x4787_C62A, 0xA830_4613,
  0xFD46_9501, 0x6980_98D8, 0x8B44_F7AF, 0xFFFF_5BB1, 0x895C_D7BE, 0x6B90_1122, 0xFD98_7193,
  0xA679_438E, 0x49B4_0821, 0xF61E_2562, 0xC040_B340, 0x265E_5A51, 0xE9B6_C7AA, 0xD62F_105D,
  0x0244_1453, 0xD8A1_E681, 0xE7D3_FBC8, 0x21E1_CDE6, 0xC337_07D6, 0xF4D5_0D87, 0x455A_14ED,
  0xA9E3_E905, 0xFCEF_A3F8, 0x676F_02D9, 0x8D2A_4C8A, 0xFFFA_3942, 0x8771_F681, 0x6D9D_6122,
  0xFDE5_380C, 0xA4BE_EA44, 0x4BDE_CFA9, 0xF6BB_4B60, 0xBEBF_BC70, 0x289B_7EC6, 0xEAA1_27FA,
  0xD4EF_3085, 0x0488_1D05, 0xD9D4_D039, 0xE6DB_99E5, 0x1FA2_7CF8, 0xC4AC_5665, 0xF429_2244,
  0x432A_FF97, 0xAB94_23A7, 0xFC93_A039, 0x655B_59C3, 0x8F0C_CC92, 0xFFEF_F47D, 0x8584_5DD1,
  0x6FA8_7E4F, 0xFE2C_E6E0, 0xA301_4314, 0x4E08_11A1, 0xF753_7E82, 0xBD3A_F235, 0x2AD7_D2BB,
  0xEB86_D391,
]

/// Lower-case hex digits, as the signature is written.
let hexDigits: StaticString = "0123456789abcdef"
