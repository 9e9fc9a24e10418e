/// Domain names on the wire (RFC 1035 §3.1, §4.1.4). Names stay wire bytes
/// throughout dnsward: a "flat" name is an uncompressed sequence of labels
/// ending in the zero-length root label, at most 255 octets.
public enum Name {
  /// RFC 1035 §2.3.4: 255 octets for the whole name, 63 for a label.
  public static let maxLength = 255
  public static let maxLabelLength = 63
  /// The root name, a single zero octet.
  public static let root: [UInt8] = [0]

  /// At most this many compression pointers per name: no valid name has more
  /// than 127 labels, so no sensible encoding needs more jumps.
  public static let maxPointers = 127

  /// Reads the possibly compressed name at `offset` in `message`.
  ///
  /// Invariant that makes loops impossible by construction: a compression
  /// pointer is followed only to an offset strictly before the start of the
  /// run of labels that contains it, so every jump moves backwards and the
  /// walk ends. `maxPointers` also bounds the work: a chain of pointers to
  /// pointers would otherwise cost a step per earlier pointer in the message.
  ///
  /// - Parameter firstTarget: the lowest offset a pointer may name. A
  ///   message passes `HeaderField.size`: no name starts in the header
  ///   (RFC 1035 §4.1.4), and one read from there would change with the ID
  ///   that a forwarder rewrites.
  /// - Returns: `end`, the offset just past the name where it is written
  ///   (after its first pointer if compressed), and `length`, the octets of
  ///   the uncompressed name. When `output` is given the flat name is copied
  ///   into it, lower-cased if `lowercase` is set.
  @discardableResult
  public static func read(
    in message: UnsafeRawBufferPointer, at offset: Int,
    into output: UnsafeMutableRawBufferPointer? = nil, lowercase: Bool = false,
    firstTarget: Int = 0
  ) throws(WireError) -> (end: Int, length: Int) {
    var position = offset
    var runStart = offset
    var end = -1
    var length = 0
    var pointers = 0
    while true {
      guard position < message.count else { throw .truncatedName }
      let lengthByte = message[position]
      switch lengthByte & 0xC0 {
      case 0x00:
        let labelLength = Int(lengthByte)
        if labelLength == 0 {
          length += 1
          if let output {
            guard length <= output.count else { throw .bufferFull }
            output[length - 1] = 0
          }
          return (end < 0 ? position + 1 : end, length)
        }
        guard position + 1 + labelLength <= message.count else { throw .truncatedName }
        // The root octet still has to fit after this label.
        guard length + 1 + labelLength + 1 <= maxLength else { throw .nameTooLong }
        if let output {
          guard length + 1 + labelLength <= output.count else { throw .bufferFull }
          output[length] = lengthByte
          for index in 1...labelLength {
            let byte = message[position + index]
            output[length + index] = lowercase ? asciiLowercased(byte) : byte
          }
        }
        length += 1 + labelLength
        position += 1 + labelLength
      case 0xC0:
        guard position + 1 < message.count else { throw .truncatedName }
        let target = Int(lengthByte & 0x3F) << 8 | Int(message[position + 1])
        if end < 0 { end = position + 2 }
        guard target < message.count else { throw .pointerOutOfBounds }
        guard target <= position else { throw .forwardPointer }
        guard target < runStart else { throw .pointerLoop }
        guard target >= firstTarget else { throw .pointerIntoHeader }
        pointers += 1
        guard pointers <= maxPointers else { throw .tooManyPointers }
        runStart = target
        position = target
      case 0x40:
        throw .labelTooLong
      default:
        throw .reservedLabelType
      }
    }
  }

  @inline(__always)
  public static func asciiLowercased(_ byte: UInt8) -> UInt8 {
    byte &- 0x41 < 26 ? byte | 0x20 : byte
  }

  /// Case-insensitive equality of two flat names (RFC 4343). Length octets are
  /// at most 63, below every ASCII letter, so lower-casing them is harmless.
  public static func equalIgnoringCase(
    _ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer
  ) -> Bool {
    guard lhs.count == rhs.count else { return false }
    for index in 0..<lhs.count where asciiLowercased(lhs[index]) != asciiLowercased(rhs[index]) {
      return false
    }
    return true
  }

  /// Orders flat names by their lower-cased bytes; the override table is
  /// sorted with it. Returns <0, 0 or >0.
  public static func compareIgnoringCase(
    _ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer
  ) -> Int {
    let common = min(lhs.count, rhs.count)
    for index in 0..<common {
      let left = asciiLowercased(lhs[index])
      let right = asciiLowercased(rhs[index])
      if left != right { return left < right ? -1 : 1 }
    }
    return lhs.count - rhs.count
  }

  /// 0x20 encoding (draft-vixie-dnsext-dns0x20): sets the case of each letter
  /// of a flat name from successive bits of `bits`, taking more words from
  /// `nextBits` as needed. Length octets are never touched.
  public static func randomizeCase(
    _ name: UnsafeMutableRawBufferPointer, nextBits: () -> UInt64
  ) {
    var bits = nextBits()
    var bitsLeft = 64
    var position = 0
    while position < name.count {
      let labelLength = Int(name[position])
      if labelLength == 0 { return }
      for index in (position + 1)..<min(position + 1 + labelLength, name.count) {
        let lower = asciiLowercased(name[index])
        guard lower &- 0x61 < 26 else { continue }
        if bitsLeft == 0 {
          bits = nextBits()
          bitsLeft = 64
        }
        name[index] = bits & 1 == 1 ? lower & ~0x20 : lower
        bits >>= 1
        bitsLeft -= 1
      }
      position += 1 + labelLength
    }
  }

  /// Number of labels in a flat name, not counting the root.
  public static func labelCount(_ name: UnsafeRawBufferPointer) -> Int {
    var count = 0
    var position = 0
    while position < name.count, name[position] != 0 {
      count += 1
      position += 1 + Int(name[position])
    }
    return count
  }

  /// The offset of the suffix of a flat name that drops its first label, or
  /// nil for the root.
  public static func parentOffset(_ name: UnsafeRawBufferPointer, from offset: Int) -> Int? {
    guard offset < name.count, name[offset] != 0 else { return nil }
    return offset + 1 + Int(name[offset])
  }

  /// Parses presentation text (`printer.lan`, `printer.lan.`, `.` for the root)
  /// as a host name into flat wire form, lower-cased. Accepts letters, digits,
  /// `-` and `_`; a leading `*` label is allowed when `allowWildcard` is set.
  /// - Returns: the number of octets written.
  public static func parse(
    text: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
    allowWildcard: Bool = false
  ) throws(WireError) -> Int {
    var count = text.count
    if count > 0, text[count - 1] == UInt8(ascii: ".") { count -= 1 }
    if count == 0 {
      guard text.count == 1, output.count >= 1 else {
        throw text.count == 0 ? .badName : .bufferFull
      }
      output[0] = 0
      return 1
    }
    var written = 0
    var labelStart = 0
    var index = 0
    while index <= count {
      if index == count || text[index] == UInt8(ascii: ".") {
        let labelLength = index - labelStart
        guard labelLength > 0 else { throw .badName }
        guard labelLength <= maxLabelLength else { throw .labelTooLong }
        guard written + 1 + labelLength + 1 <= maxLength else { throw .nameTooLong }
        guard written + 1 + labelLength + 1 <= output.count else { throw .bufferFull }
        output[written] = UInt8(labelLength)
        for offset in 0..<labelLength {
          let byte = asciiLowercased(text[labelStart + offset])
          let isStar = byte == UInt8(ascii: "*")
          if isStar {
            guard allowWildcard, labelStart == 0, labelLength == 1 else { throw .badName }
          } else {
            let isHostByte =
              (byte &- 0x61 < 26) || (byte &- 0x30 < 10) || byte == UInt8(ascii: "-")
              || byte == UInt8(ascii: "_")
            guard isHostByte else { throw .badName }
          }
          output[written + 1 + offset] = byte
        }
        written += 1 + labelLength
        labelStart = index + 1
      }
      index += 1
    }
    output[written] = 0
    return written + 1
  }

  /// Appends the presentation form of a flat name (`printer.lan.`) to
  /// `output`; non-printable octets are written as `\DDD` (RFC 1035 §5.1).
  /// - Returns: the number of bytes written (truncated to fit).
  public static func format(
    _ name: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
  ) -> Int {
    var written = 0
    func put(_ byte: UInt8) {
      if written < output.count {
        output[written] = byte
        written += 1
      }
    }
    var position = 0
    if name.count == 0 || name[0] == 0 {
      put(UInt8(ascii: "."))
      return written
    }
    while position < name.count, name[position] != 0 {
      let labelLength = Int(name[position])
      for index in (position + 1)..<min(position + 1 + labelLength, name.count) {
        let byte = name[index]
        if byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: ".") && byte != UInt8(ascii: "\\") {
          put(byte)
        } else {
          put(UInt8(ascii: "\\"))
          put(0x30 + byte / 100)
          put(0x30 + (byte / 10) % 10)
          put(0x30 + byte % 10)
        }
      }
      put(UInt8(ascii: "."))
      position += 1 + labelLength
    }
    return written
  }
}
