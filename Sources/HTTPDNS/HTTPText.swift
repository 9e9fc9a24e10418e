/// Byte-level helpers for HTTP/1.1 text (RFC 9110 §5.6, RFC 9112 §2.2):
/// lines, optional whitespace, comma-separated lists and case-insensitive
/// tokens, all over ranges of the received bytes.
enum HTTPText {
  static let cr = UInt8(ascii: "\r")
  static let lf = UInt8(ascii: "\n")

  /// OWS is spaces and horizontal tabs (RFC 9110 §5.6.3).
  @inline(__always)
  static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

  @inline(__always)
  static func lowercased(_ byte: UInt8) -> UInt8 { byte &- 0x41 < 26 ? byte | 0x20 : byte }

  static func hexValue(_ byte: UInt8) -> UInt8? {
    if byte &- 0x30 < 10 { return byte &- 0x30 }
    let lower = byte | 0x20
    if lower &- 0x61 < 6 { return lower &- 0x61 + 10 }
    return nil
  }

  /// The offset of the LF that ends the line at `from`, or nil while it has
  /// not arrived. A head (from `start`) longer than `maxHeadBytes` throws.
  @inline(never)
  static func lineEnd(_ bytes: UnsafeRawBufferPointer, from: Int, start: Int) throws(HTTPDNSError)
    -> Int?
  {
    let limit = min(bytes.count, start + HTTPDNSLimits.maxHeadBytes)
    var index = from
    while index < limit {
      if bytes[index] == lf { return index }
      index += 1
    }
    if limit < bytes.count { throw .malformedHTTP }
    return nil
  }

  /// The line from `start` to the LF at `lf`, without its CR.
  static func lineContent(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ lf: Int) -> Range<Int> {
    lf > start && bytes[lf - 1] == cr ? start..<(lf - 1) : start..<lf
  }

  /// `range` without leading and trailing OWS.
  @inline(never)
  static func trimmed(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Range<Int> {
    var lower = range.lowerBound
    var upper = range.upperBound
    while lower < upper, isBlank(bytes[lower]) { lower += 1 }
    while upper > lower, isBlank(bytes[upper - 1]) { upper -= 1 }
    return lower..<upper
  }

  @inline(never)
  static func find(_ byte: UInt8, in bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int? {
    for index in range where bytes[index] == byte { return index }
    return nil
  }

  /// Whether `range` spells `lowercase` (a lower-case ASCII literal), ignoring case.
  @inline(never)
  static func equals(
    _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ lowercase: StaticString
  )
    -> Bool
  {
    range.count == lowercase.utf8CodeUnitCount && matches(bytes, at: range.lowerBound, lowercase)
  }

  /// Whether the bytes at `offset` start with `lowercase`, ignoring case.
  @inline(never)
  static func matches(_ bytes: UnsafeRawBufferPointer, at offset: Int, _ lowercase: StaticString)
    -> Bool
  {
    let count = lowercase.utf8CodeUnitCount
    guard offset + count <= bytes.count else { return false }
    let literal = lowercase.utf8Start
    for index in 0..<count where lowercased(bytes[offset + index]) != literal[index] {
      return false
    }
    return true
  }

  /// A transfer coding without its parameters (`chunked;x=1` → `chunked`).
  static func parameterless(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Range<Int> {
    guard let semicolon = find(UInt8(ascii: ";"), in: bytes, range) else { return range }
    return trimmed(bytes, range.lowerBound..<semicolon)
  }

  /// delta-seconds (RFC 9111 §1.2.2): 1*DIGIT, a value past 2^31 taken as
  /// 2^31; nil if it is not digits.
  @inline(never)
  static func deltaSeconds(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> UInt32? {
    guard !range.isEmpty else { return nil }
    let ceiling: UInt64 = 1 << 31
    var value: UInt64 = 0
    for index in range {
      let digit = bytes[index] &- 0x30
      guard digit < 10 else { return nil }
      value = min(ceiling, value * 10 + UInt64(digit))
    }
    return UInt32(value)
  }

  /// The seconds of a Cache-Control directive `NAME=delta-seconds` (the
  /// name in lower case, matched ignoring case; the value may be quoted,
  /// RFC 9111 §5.2); nil for another directive or a value that does not
  /// parse.
  static func directive(
    _ bytes: UnsafeRawBufferPointer, _ element: Range<Int>, _ lowercaseName: StaticString
  ) -> UInt32? {
    guard let sign = find(UInt8(ascii: "="), in: bytes, element),
      equals(bytes, trimmed(bytes, element.lowerBound..<sign), lowercaseName)
    else { return nil }
    var value = trimmed(bytes, (sign + 1)..<element.upperBound)
    if value.count >= 2, bytes[value.lowerBound] == UInt8(ascii: "\""),
      bytes[value.upperBound - 1] == UInt8(ascii: "\"")
    {
      value = (value.lowerBound + 1)..<(value.upperBound - 1)
    }
    return deltaSeconds(bytes, value)
  }

  /// 1*DIGIT with at most `maxContentLengthDigits` digits.
  static func decimal(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) throws(HTTPDNSError)
    -> Int
  {
    guard !range.isEmpty, range.count <= HTTPDNSLimits.maxContentLengthDigits else {
      throw .malformedHTTP
    }
    var value = 0
    for index in range {
      let digit = bytes[index] &- 0x30
      guard digit < 10 else { throw .malformedHTTP }
      value = value * 10 + Int(digit)
    }
    return value
  }

  /// The elements of a comma-separated list field (RFC 9110 §5.6.1), trimmed,
  /// empty ones skipped.
  struct ListElements {
    var range: Range<Int>

    @inline(never)
    mutating func next(in bytes: UnsafeRawBufferPointer) -> Range<Int>? {
      while !range.isEmpty {
        let comma = find(UInt8(ascii: ","), in: bytes, range) ?? range.upperBound
        let element = trimmed(bytes, range.lowerBound..<comma)
        range = min(comma + 1, range.upperBound)..<range.upperBound
        if !element.isEmpty { return element }
      }
      return nil
    }
  }
}
