import DNSWire

/// Caller scratch for converting text: one token, and one flat name.
struct TextScratch {
  /// `HTTPDNSLimits.maxTokenBytes`.
  let token: UnsafeMutableRawBufferPointer
  /// At least `Name.maxLength` bytes.
  let name: UnsafeMutableRawBufferPointer

  static let byteCount = HTTPDNSLimits.maxTokenBytes + Name.maxLength

  init(_ bytes: UnsafeMutableRawBufferPointer) {
    token = UnsafeMutableRawBufferPointer(rebasing: bytes[0..<HTTPDNSLimits.maxTokenBytes])
    name = UnsafeMutableRawBufferPointer(rebasing: bytes[HTTPDNSLimits.maxTokenBytes...])
  }

  func tokenText(_ length: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(rebasing: token[0..<length])
  }
}

/// The `data` text of a JSON answer record (the record's presentation form,
/// RFC 1035 §5.1, without owner, TTL, class and type) turned into RDATA.
enum RDataText {
  /// RDATA names are compressed only in the RFC 1035 types (RFC 3597 §4).
  private static let dname = RRType(rawValue: 39)
  private static let srv = RRType(rawValue: 33)

  /// The types whose text form `write` knows; any other type is converted
  /// only from the generic `\# LENGTH HEX` form (RFC 3597 §5).
  static func knows(_ type: RRType) -> Bool {
    switch type {
    case .a, .aaaa, .ns, .cname, .soa, .ptr, .mx, .txt, srv, dname: return true
    default: return false
    }
  }

  /// Whether the text starts with `\#`, the generic form.
  static func isGeneric(_ source: TextSource) throws(HTTPDNSError) -> Bool {
    var probe = source
    var byte = try probe.nextByte()
    while let current = byte, PresentationText.isSpace(current) { byte = try probe.nextByte() }
    guard byte == UInt8(ascii: "\\") else { return false }
    return try probe.nextByte() == UInt8(ascii: "#")
  }

  /// Appends the RDATA of `type` read from `source` (all of it) to `writer`.
  static func write(
    _ type: RRType, from source: inout TextSource, scratch: TextScratch,
    into writer: inout MessageWriter
  ) throws(HTTPDNSError) {
    if type == .txt { return try characterStrings(from: &source, into: &writer) }
    var fields = Fields(scratch: scratch)
    let first = try fields.next(&source)
    if first.count == 2 && first[0] == UInt8(ascii: "\\") && first[1] == UInt8(ascii: "#") {
      let start = writer.count
      try generic(&fields, &source, into: &writer)
      // A type with names gets them flat and whole (RFC 3597 §4–5): the
      // bytes alone, where every pointer is refused.
      let rdata = UnsafeRawBufferPointer(rebasing: writer.written[start...])
      do throws(WireError) {
        try RDATANames.check(
          type: type, rrClass: .internet, in: rdata, at: 0, firstTarget: rdata.count)
      } catch { throw .malformedBody }
      return
    }
    switch type {
    case .a:
      guard PresentationText.ipv4(first, into: scratch.name) else { throw .malformedBody }
      try put(UnsafeRawBufferPointer(rebasing: scratch.name[0..<4]), &writer)
    case .aaaa:
      guard PresentationText.ipv6(first, into: scratch.name) else { throw .malformedBody }
      try put(UnsafeRawBufferPointer(rebasing: scratch.name[0..<16]), &writer)
    case .ns, .cname, .ptr, dname:
      try name(first, scratch, compress: type != dname, &writer)
    case .mx:
      try number(first, maximum: 0xFFFF, &writer)
      try name(try fields.next(&source), scratch, compress: true, &writer)
    case srv:
      // Priority, weight, port, target (RFC 2782); the target is not compressed.
      try number(first, maximum: 0xFFFF, &writer)
      try number(try fields.next(&source), maximum: 0xFFFF, &writer)
      try number(try fields.next(&source), maximum: 0xFFFF, &writer)
      try name(try fields.next(&source), scratch, compress: false, &writer)
    case .soa:
      // MNAME RNAME SERIAL REFRESH RETRY EXPIRE MINIMUM (RFC 1035 §3.3.13).
      try name(first, scratch, compress: true, &writer)
      try name(try fields.next(&source), scratch, compress: true, &writer)
      for _ in 0..<5 { try number(try fields.next(&source), maximum: UInt32.max, &writer) }
    default:
      throw .unsupportedRecord
    }
    guard try PresentationText.atEnd(&source) else { throw .malformedBody }
  }

  /// Whitespace-separated fields; a missing one is an error.
  private struct Fields {
    let scratch: TextScratch
    mutating func next(_ source: inout TextSource) throws(HTTPDNSError)
      -> UnsafeRawBufferPointer
    {
      let (length, _) = try PresentationText.token(&source, into: scratch.token)
      guard length > 0 else { throw .malformedBody }
      return scratch.tokenText(length)
    }
  }

  /// `\# LENGTH HEX...` (RFC 3597 §5): the hex may be split by whitespace.
  private static func generic(
    _ fields: inout Fields, _ source: inout TextSource, into writer: inout MessageWriter
  ) throws(HTTPDNSError) {
    guard let length = PresentationText.decimal(try fields.next(&source), maximum: 0xFFFF) else {
      throw .malformedBody
    }
    var written = 0
    var high: UInt8? = nil
    while let byte = try source.nextByte() {
      if PresentationText.isSpace(byte) { continue }
      guard let digit = HTTPText.hexValue(byte) else { throw .malformedBody }
      if let value = high {
        guard written < length else { throw .malformedBody }
        try put(value << 4 | digit, &writer)
        written += 1
        high = nil
      } else {
        high = digit
      }
    }
    guard high == nil, written == Int(length) else { throw .malformedBody }
  }

  /// TXT (RFC 1035 §3.3.14): one or more `"quoted strings"` with `\X` and
  /// `\DDD` escapes; text that does not start with a quote (as some APIs
  /// write a single string) is taken verbatim as one string. Strings over 255
  /// bytes continue in the next character-string.
  private static func characterStrings(
    from source: inout TextSource, into writer: inout MessageWriter
  ) throws(HTTPDNSError) {
    var byte = try source.nextByte()
    while let current = byte, PresentationText.isSpace(current) { byte = try source.nextByte() }
    let quoted = byte == UInt8(ascii: "\"")
    if quoted { byte = try source.nextByte() }
    var lengthOffset = writer.count
    try put(0, &writer)
    while true {
      guard var current = byte else {
        guard !quoted else { throw .malformedBody }  // unterminated
        break
      }
      if quoted && current == UInt8(ascii: "\"") {
        // The string ends; another may follow after whitespace.
        byte = try source.nextByte()
        while let next = byte, PresentationText.isSpace(next) { byte = try source.nextByte() }
        guard let next = byte else { break }
        guard next == UInt8(ascii: "\"") else { throw .malformedBody }
        byte = try source.nextByte()
        lengthOffset = writer.count
        try put(0, &writer)
        continue
      }
      if quoted && current == UInt8(ascii: "\\") {
        guard let escaped = try source.nextByte() else { throw .malformedBody }
        current = escaped
        if escaped &- 0x30 < 10 {
          var value = UInt32(escaped &- 0x30)
          for _ in 0..<2 {
            guard let digit = try source.nextByte(), digit &- 0x30 < 10 else {
              throw .malformedBody
            }
            value = value * 10 + UInt32(digit &- 0x30)
          }
          guard value <= 255 else { throw .malformedBody }
          current = UInt8(value)
        }
      }
      if writer.count - lengthOffset > 255 {
        lengthOffset = writer.count
        try put(0, &writer)
      }
      try put(current, &writer)
      writer.buffer[lengthOffset] = UInt8(writer.count - lengthOffset - 1)
      byte = try source.nextByte()
    }
  }

  // MARK: Writing, with the writer's only error mapped

  private static func name(
    _ text: UnsafeRawBufferPointer, _ scratch: TextScratch, compress: Bool,
    _ writer: inout MessageWriter
  ) throws(HTTPDNSError) {
    guard let length = PresentationText.name(text, into: scratch.name) else {
      throw .malformedBody
    }
    do throws(WireError) {
      try writer.writeName(
        UnsafeRawBufferPointer(rebasing: scratch.name[0..<length]), compress: compress)
    } catch { throw .bufferTooSmall }
  }

  private static func number(
    _ text: UnsafeRawBufferPointer, maximum: UInt32, _ writer: inout MessageWriter
  ) throws(HTTPDNSError) {
    guard let value = PresentationText.decimal(text, maximum: maximum) else {
      throw .malformedBody
    }
    do throws(WireError) {
      if maximum <= 0xFFFF {
        try writer.writeUInt16(UInt16(value))
      } else {
        try writer.writeUInt32(value)
      }
    } catch { throw .bufferTooSmall }
  }

  static func put(_ bytes: UnsafeRawBufferPointer, _ writer: inout MessageWriter)
    throws(HTTPDNSError)
  {
    do throws(WireError) { try writer.write(bytes) } catch { throw .bufferTooSmall }
  }

  @inline(never)
  static func put(_ byte: UInt8, _ writer: inout MessageWriter) throws(HTTPDNSError) {
    do throws(WireError) { try writer.writeUInt8(byte) } catch { throw .bufferTooSmall }
  }
}
