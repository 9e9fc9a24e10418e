#if TLS
  /// An RFC 7469 public-key pin: the SHA-256 of a certificate's
  /// SubjectPublicKeyInfo DER, as in `pin=sha256/BASE64`. Kept as four words
  /// so it is compared without allocation.
  public struct SPKIPin: Equatable, Sendable {
    var w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64

    /// From the 32 digest bytes.
    public init?(digest: UnsafeRawBufferPointer) {
      guard digest.count == 32 else { return nil }
      w0 = digest.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
      w1 = digest.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
      w2 = digest.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
      w3 = digest.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
    }

    /// From standard base64 (RFC 4648 §4, with `=` padding: 44 characters),
    /// the text after `sha256/`. nil unless it decodes to exactly 32 bytes.
    public init?(base64 text: UnsafeRawBufferPointer) {
      var digest: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
      let decoded = withUnsafeMutableBytes(of: &digest) { out in
        Base64.decode(text, into: out)
      }
      guard decoded == 32 else { return nil }
      let pin = withUnsafeBytes(of: &digest) { SPKIPin(digest: $0) }
      guard let pin else { return nil }
      self = pin
    }
  }

  enum Base64 {
    /// The value of one RFC 4648 base64 character, or nil.
    static func value(_ c: UInt8) -> UInt32? {
      switch c {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"): return UInt32(c - UInt8(ascii: "A"))
      case UInt8(ascii: "a")...UInt8(ascii: "z"): return UInt32(c - UInt8(ascii: "a")) + 26
      case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(c - UInt8(ascii: "0")) + 52
      case UInt8(ascii: "+"): return 62
      case UInt8(ascii: "/"): return 63
      default: return nil
      }
    }

    /// Decodes padded base64 into `out`; the byte count, or nil when the
    /// text is malformed or `out` is too small.
    static func decode(_ text: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer)
      -> Int?
    {
      guard text.count % 4 == 0 else { return nil }
      var written = 0
      var index = 0
      while index < text.count {
        let isLast = index + 4 == text.count
        var group: UInt32 = 0
        var padding = 0
        for offset in 0..<4 {
          let c = text[index + offset]
          if c == UInt8(ascii: "="), isLast, offset >= 2 {
            padding += 1
            group <<= 6
            continue
          }
          guard padding == 0, let v = value(c) else { return nil }
          group = group << 6 | v
        }
        let count = 3 - padding
        guard written + count <= out.count else { return nil }
        for k in 0..<count { out[written + k] = UInt8(truncatingIfNeeded: group >> (16 - 8 * k)) }
        written += count
        index += 4
      }
      return written
    }
  }
#endif
