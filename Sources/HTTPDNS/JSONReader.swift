/// A pull reader for JSON (RFC 8259) over a response body: the caller asks
/// for what it expects next (an object's next key, an array's next element, a
/// string's next byte, a number) and skips what it does not want. Nothing is
/// allocated and nothing is copied; strings are decoded a byte at a time.
///
/// Bounded: nesting deeper than `HTTPDNSLimits.maxJSONDepth` is an error, so
/// `skipValue`'s recursion is too. Every syntax error is `malformedBody`.
/// The reader is a value: a copy taken before a value can read it again later.
struct JSONReader {
  var body: BodyCursor
  var depth = 0
  /// UTF-8 bytes still to deliver from a `\u` escape, first in the low byte.
  var pending: UInt32 = 0
  var pendingCount = 0

  init(body: BodyCursor) { self.body = body }

  /// Whitespace is space, tab, LF and CR (RFC 8259 §2).
  @inline(never)
  mutating func peekNonSpace() -> UInt8? {
    while let byte = body.peek() {
      guard byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D else { return byte }
      body.advance()
    }
    return nil
  }

  @inline(never)
  mutating func consume(_ expected: UInt8) throws(HTTPDNSError) {
    guard peekNonSpace() == expected else { throw .malformedBody }
    body.advance()
  }

  /// After the top-level value only whitespace may follow.
  @inline(never)
  mutating func finish() throws(HTTPDNSError) {
    guard peekNonSpace() == nil else { throw .malformedBody }
  }

  // MARK: Objects and arrays

  mutating func beginObject() throws(HTTPDNSError) { try begin(UInt8(ascii: "{")) }
  mutating func beginArray() throws(HTTPDNSError) { try begin(UInt8(ascii: "[")) }

  @inline(never)
  private mutating func begin(_ bracket: UInt8) throws(HTTPDNSError) {
    try consume(bracket)
    depth += 1
    guard depth <= HTTPDNSLimits.maxJSONDepth else { throw .malformedBody }
  }

  /// The next member's key, packed by `JSONKey.pack`, with the reader at its
  /// value; nil (and the object consumed) at `}`. `first` starts true.
  @inline(never)
  mutating func nextKey(_ first: inout Bool) throws(HTTPDNSError) -> UInt64? {
    guard try nextMember(UInt8(ascii: "}"), &first) else { return nil }
    var key = JSONKey.Packer()
    try beginString()
    while let byte = try nextStringByte() { key.add(byte) }
    try consume(UInt8(ascii: ":"))
    return key.value
  }

  /// Whether another element follows, with the reader at it; false (and the
  /// array consumed) at `]`. `first` starts true.
  mutating func nextElement(_ first: inout Bool) throws(HTTPDNSError) -> Bool {
    try nextMember(UInt8(ascii: "]"), &first)
  }

  @inline(never)
  private mutating func nextMember(_ close: UInt8, _ first: inout Bool) throws(HTTPDNSError)
    -> Bool
  {
    if peekNonSpace() == close {
      body.advance()
      depth -= 1
      return false
    }
    if !first { try consume(UInt8(ascii: ",")) }
    first = false
    return true
  }

  // MARK: Strings

  mutating func beginString() throws(HTTPDNSError) {
    try consume(UInt8(ascii: "\""))
    pendingCount = 0
  }

  /// The next byte of the string's UTF-8 value, escapes decoded; nil (and
  /// the closing quote consumed) at its end (RFC 8259 §7).
  @inline(never)
  mutating func nextStringByte() throws(HTTPDNSError) -> UInt8? {
    if pendingCount > 0 {
      let byte = UInt8(truncatingIfNeeded: pending)
      pending >>= 8
      pendingCount -= 1
      return byte
    }
    guard let byte = body.next() else { throw .malformedBody }
    switch byte {
    case UInt8(ascii: "\""):
      return nil
    case UInt8(ascii: "\\"):
      guard let escaped = body.next() else { throw .malformedBody }
      switch escaped {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return escaped
      case UInt8(ascii: "b"): return 0x08
      case UInt8(ascii: "f"): return 0x0C
      case UInt8(ascii: "n"): return 0x0A
      case UInt8(ascii: "r"): return 0x0D
      case UInt8(ascii: "t"): return 0x09
      case UInt8(ascii: "u"): return try unicodeEscape()
      default: throw .malformedBody
      }
    case 0..<0x20:
      // Control characters must be escaped.
      throw .malformedBody
    default:
      return byte
    }
  }

  @inline(never)
  mutating func skipString() throws(HTTPDNSError) {
    try beginString()
    while try nextStringByte() != nil {}
  }

  /// After `\u`: four hex digits, and a second escape for a surrogate pair;
  /// returns the first UTF-8 byte and keeps the rest in `pending`.
  private mutating func unicodeEscape() throws(HTTPDNSError) -> UInt8 {
    var scalar = try hex4()
    if scalar & 0xFC00 == 0xD800 {
      guard body.next() == UInt8(ascii: "\\"), body.next() == UInt8(ascii: "u") else {
        throw .malformedBody
      }
      let low = try hex4()
      guard low & 0xFC00 == 0xDC00 else { throw .malformedBody }
      scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
    } else if scalar & 0xFC00 == 0xDC00 {
      throw .malformedBody
    }
    // UTF-8 (RFC 3629 §3): lead byte now, continuation bytes queued.
    var lead: UInt32
    var trail = 0
    switch scalar {
    case 0..<0x80: lead = scalar
    case 0x80..<0x800: lead = 0xC0 | scalar >> 6; trail = 1
    case 0x800..<0x10000: lead = 0xE0 | scalar >> 12; trail = 2
    default: lead = 0xF0 | scalar >> 18; trail = 3
    }
    pending = 0
    for index in 0..<trail {
      let shift = UInt32(6 * (trail - 1 - index))
      pending |= (0x80 | (scalar >> shift) & 0x3F) << UInt32(8 * index)
    }
    pendingCount = trail
    return UInt8(truncatingIfNeeded: lead)
  }

  private mutating func hex4() throws(HTTPDNSError) -> UInt32 {
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard let byte = body.next(), let digit = HTTPText.hexValue(byte) else {
        throw .malformedBody
      }
      value = value << 4 | UInt32(digit)
    }
    return value
  }

  // MARK: Numbers, literals, any value

  /// A number (RFC 8259 §6); returns its value when it is a non-negative
  /// integer up to `UInt32.max`, nil for any other valid number (negative,
  /// fractional, exponent, too large).
  @inline(never)
  mutating func readNumber() throws(HTTPDNSError) -> UInt32? {
    var exact = true
    if peekNonSpace() == UInt8(ascii: "-") {
      body.advance()
      exact = false
    }
    var value: UInt64 = 0
    let first = body.peek()
    let integerDigits = digits(into: &value)
    guard integerDigits > 0, first != UInt8(ascii: "0") || integerDigits == 1 else {
      throw .malformedBody
    }
    if body.peek() == UInt8(ascii: ".") {
      body.advance()
      exact = false
      guard digits(into: &value) > 0 else { throw .malformedBody }
    }
    if let byte = body.peek(), byte | 0x20 == UInt8(ascii: "e") {
      body.advance()
      exact = false
      if body.peek() == UInt8(ascii: "+") || body.peek() == UInt8(ascii: "-") { body.advance() }
      guard digits(into: &value) > 0 else { throw .malformedBody }
    }
    guard exact, value <= UInt64(UInt32.max) else { return nil }
    return UInt32(value)
  }

  /// Consumes a run of digits, accumulating (saturated) into `value`.
  private mutating func digits(into value: inout UInt64) -> Int {
    var count = 0
    while let byte = body.peek(), byte &- 0x30 < 10 {
      body.advance()
      value = value > UInt64(UInt32.max) ? value : value * 10 + UInt64(byte &- 0x30)
      count += 1
    }
    return count
  }

  /// Skips one value of any kind, checking its syntax.
  mutating func skipValue() throws(HTTPDNSError) {
    var first = true
    switch peekNonSpace() {
    case UInt8(ascii: "{"):
      try beginObject()
      while try nextKey(&first) != nil { try skipValue() }
    case UInt8(ascii: "["):
      try beginArray()
      while try nextElement(&first) { try skipValue() }
    case UInt8(ascii: "\""):
      try skipString()
    case UInt8(ascii: "t"): try literal("true")
    case UInt8(ascii: "f"): try literal("false")
    case UInt8(ascii: "n"): try literal("null")
    default:
      _ = try readNumber()
    }
  }

  /// Whether the next value is `null` (then consumed).
  @inline(never)
  mutating func skipNull() throws(HTTPDNSError) -> Bool {
    guard peekNonSpace() == UInt8(ascii: "n") else { return false }
    try literal("null")
    return true
  }

  private mutating func literal(_ word: StaticString) throws(HTTPDNSError) {
    let bytes = word.utf8Start
    for index in 0..<word.utf8CodeUnitCount {
      guard body.next() == bytes[index] else { throw .malformedBody }
    }
  }
}

/// Object keys as integers: up to eight bytes packed big-endian, so the keys
/// the codec knows compare as constants. Longer keys are all `JSONKey.long`.
enum JSONKey {
  static let long = UInt64.max

  struct Packer {
    var value: UInt64 = 0
    var count = 0
    mutating func add(_ byte: UInt8) {
      count += 1
      value = count > 8 ? JSONKey.long : value << 8 | UInt64(byte)
    }
  }

  // Alibaba: {"host":..,"ips":[..],"ipsv6":[..],"ttl":N}
  static let ips: UInt64 = 0x69_70_73  // "ips"
  static let ipsv6: UInt64 = 0x69_70_73_76_36  // "ipsv6"
  static let ttl: UInt64 = 0x74_74_6C  // "ttl"
  // JSON resolve API: {"Status":N,"Answer":[{"name":..,"type":N,"TTL":N,"data":..}]}
  static let status: UInt64 = 0x53_74_61_74_75_73  // "Status"
  static let answer: UInt64 = 0x41_6E_73_77_65_72  // "Answer"
  static let name: UInt64 = 0x6E_61_6D_65  // "name"
  static let type: UInt64 = 0x74_79_70_65  // "type"
  static let upperTTL: UInt64 = 0x54_54_4C  // "TTL"
  static let data: UInt64 = 0x64_61_74_61  // "data"
}
