/// 256 bits, one per octet of a flat name: which letters are upper case.
/// Records a client's question case (restored in its reply) and the 0x20
/// pattern sent upstream.
struct CaseMask: Equatable {
  var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

  static func == (lhs: CaseMask, rhs: CaseMask) -> Bool {
    lhs.words == rhs.words
  }

  subscript(index: Int) -> Bool {
    get {
      let bit = UInt64(1) << UInt64(index & 63)
      switch index >> 6 {
      case 0: return words.0 & bit != 0
      case 1: return words.1 & bit != 0
      case 2: return words.2 & bit != 0
      default: return words.3 & bit != 0
      }
    }
    set {
      let bit = UInt64(1) << UInt64(index & 63)
      switch index >> 6 {
      case 0: words.0 = newValue ? words.0 | bit : words.0 & ~bit
      case 1: words.1 = newValue ? words.1 | bit : words.1 & ~bit
      case 2: words.2 = newValue ? words.2 | bit : words.2 & ~bit
      default: words.3 = newValue ? words.3 | bit : words.3 & ~bit
      }
    }
  }

  /// The mask of the letters that are upper case in `name`.
  init(of name: UnsafeRawBufferPointer) {
    for index in 0..<min(name.count, 256) where name[index] &- 0x41 < 26 {
      self[index] = true
    }
  }

  init() {}

  /// Writes `lowercased` with this mask's case into `output`. Only letters
  /// are affected; length octets never are (they are below 64).
  func apply(to lowercased: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
    for index in 0..<lowercased.count {
      let byte = lowercased[index]
      output[index] = self[index] && byte &- 0x61 < 26 ? byte & ~0x20 : byte
    }
  }
}
