import DNSWire

/// Presentation text (RFC 1035 §5.1) as the HTTP APIs write it: addresses,
/// decimal numbers and domain names, read from a stream of bytes (a decoded
/// JSON string, a dnspod body) a token at a time into caller scratch.
/// One concrete source (no generics, so each reader exists once in the
/// firmware): the decoded bytes of a JSON string, or a body as it is.
struct TextSource {
  var reader: JSONReader
  private let inString: Bool
  private var ended = false

  /// The string at `reader`, which must be at its opening quote.
  @inline(never)
  init(string reader: JSONReader) throws(HTTPDNSError) {
    self.reader = reader
    inString = true
    try self.reader.beginString()
  }

  init(body: BodyCursor) {
    reader = JSONReader(body: body)
    inString = false
  }

  /// The next byte; after the end (a JSON string's closing quote) always nil.
  @inline(never)
  mutating func nextByte() throws(HTTPDNSError) -> UInt8? {
    guard !ended, let byte = inString ? try reader.nextStringByte() : reader.body.next() else {
      ended = true
      return nil
    }
    return byte
  }
}

enum PresentationText {
  @inline(__always)
  static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
  }

  /// Reads the next token into `scratch`: leading whitespace skipped, then
  /// up to whitespace (`listItem` false) or up to `;` or `,` with trailing
  /// whitespace dropped (`listItem` true, the dnspod list). Returns the
  /// token's length and the byte that ended it (nil at the end of the text).
  static func token(
    _ source: inout TextSource, into scratch: UnsafeMutableRawBufferPointer, listItem: Bool = false
  ) throws(HTTPDNSError) -> (length: Int, terminator: UInt8?) {
    var length = 0
    var byte = try source.nextByte()
    while let current = byte, isSpace(current) { byte = try source.nextByte() }
    while let current = byte {
      if listItem ? current == UInt8(ascii: ";") || current == UInt8(ascii: ",") : isSpace(current)
      {
        break
      }
      guard length < scratch.count else { throw .malformedBody }
      scratch[length] = current
      length += 1
      byte = try source.nextByte()
    }
    if listItem { while length > 0, isSpace(scratch[length - 1]) { length -= 1 } }
    return (length, byte)
  }

  /// Whether only whitespace is left.
  static func atEnd(_ source: inout TextSource) throws(HTTPDNSError) -> Bool {
    while let byte = try source.nextByte() { guard isSpace(byte) else { return false } }
    return true
  }

  /// 1...10 decimal digits, at most `maximum`.
  static func decimal(_ text: UnsafeRawBufferPointer, maximum: UInt32) -> UInt32? {
    guard !text.isEmpty, text.count <= 10 else { return nil }
    var value: UInt64 = 0
    for byte in text {
      guard byte &- 0x30 < 10 else { return nil }
      value = value * 10 + UInt64(byte &- 0x30)
    }
    return value <= UInt64(maximum) ? UInt32(value) : nil
  }

  /// Dotted-quad IPv4, four decimal octets 0...255, into `output[0..<4]`.
  static func ipv4(_ text: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer)
    -> Bool
  {
    var octet = 0
    var start = 0
    for index in 0...text.count where index == text.count || text[index] == UInt8(ascii: ".") {
      guard octet < 4,
        let value = decimal(UnsafeRawBufferPointer(rebasing: text[start..<index]), maximum: 255),
        index - start <= 3
      else { return false }
      output[octet] = UInt8(value)
      octet += 1
      start = index + 1
    }
    return octet == 4
  }

  /// IPv6 text (RFC 4291 §2.2): eight groups of 1...4 hex digits, one `::`
  /// for a run of zero groups, an optional dotted IPv4 address as the last
  /// 32 bits; into `output[0..<16]`.
  static func ipv6(_ text: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer)
    -> Bool
  {
    guard text.count >= 2, text.count <= 45 else { return false }
    for index in 0..<16 { output[index] = 0 }
    var written = 0  // bytes of groups before a `::`, then after it
    var gap = -1  // byte offset of the `::`
    var index = 0
    if text[0] == UInt8(ascii: ":") {
      guard text[1] == UInt8(ascii: ":") else { return false }
      gap = 0
      index = 2
    }
    while index < text.count {
      var end = index
      var value = 0
      while end < text.count, end - index < 5, let digit = HTTPText.hexValue(text[end]) {
        value = value << 4 | Int(digit)
        end += 1
      }
      if end < text.count, text[end] == UInt8(ascii: ".") {
        // The embedded IPv4 address ends the text.
        guard written + 4 <= 16,
          ipv4(
            UnsafeRawBufferPointer(rebasing: text[index...]),
            into: UnsafeMutableRawBufferPointer(rebasing: output[written..<(written + 4)]))
        else { return false }
        written += 4
        break
      }
      guard end > index, end - index <= 4, written + 2 <= 16 else { return false }
      output[written] = UInt8(value >> 8)
      output[written + 1] = UInt8(truncatingIfNeeded: value)
      written += 2
      index = end
      guard index < text.count else { break }
      guard text[index] == UInt8(ascii: ":"), index + 1 < text.count else { return false }
      index += 1
      if text[index] == UInt8(ascii: ":") {
        guard gap < 0 else { return false }
        gap = written
        index += 1
      }
    }
    if gap < 0 { return written == 16 }
    // Move the groups after `::` to the end; the gap holds at least one group.
    guard written <= 14 else { return false }
    let tail = written - gap
    for offset in stride(from: tail - 1, through: 0, by: -1) {
      output[16 - tail + offset] = output[gap + offset]
      output[gap + offset] = 0
    }
    return true
  }

  /// A domain name in presentation form (`mail.example.com.`, `.` for the
  /// root; `\X` and `\DDD` escapes, RFC 1035 §5.1), as a flat wire name in
  /// `output` (at least `Name.maxLength` bytes); case is kept. A name without
  /// the final dot is taken as absolute too: the APIs write names in full.
  /// Returns its length.
  static func name(_ text: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer)
    -> Int?
  {
    guard !text.isEmpty, output.count >= Name.maxLength else { return nil }
    if text.count == 1 && text[0] == UInt8(ascii: ".") {
      output[0] = 0
      return 1
    }
    // output[labelStart] will hold the open label's length; `written` bytes
    // are taken. Every store is below Name.maxLength, so the root fits too.
    var labelStart = 0
    var written = 1
    var index = 0
    while index < text.count {
      var byte = text[index]
      index += 1
      if byte == UInt8(ascii: ".") {
        guard written - labelStart > 1, written < Name.maxLength else { return nil }
        output[labelStart] = UInt8(written - labelStart - 1)
        labelStart = written
        written += 1
        continue
      }
      if byte == UInt8(ascii: "\\") {
        guard index < text.count else { return nil }
        if text[index] &- 0x30 < 10 {
          guard index + 3 <= text.count,
            let value = decimal(
              UnsafeRawBufferPointer(rebasing: text[index..<(index + 3)]), maximum: 255)
          else { return nil }
          byte = UInt8(value)
          index += 3
        } else {
          byte = text[index]
          index += 1
        }
      }
      guard written - labelStart <= Name.maxLabelLength, written < Name.maxLength - 1 else {
        return nil
      }
      output[written] = byte
      written += 1
    }
    let open = written - labelStart - 1
    output[labelStart] = UInt8(open)
    if open == 0 { return written }  // ended with a dot: that byte is the root
    output[written] = 0
    return written + 1
  }
}
