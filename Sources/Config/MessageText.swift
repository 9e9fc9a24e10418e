import CompiledConfig
import DNSWire

/// Text for messages and summaries, built from pieces by out-of-line calls.
///
/// Written like a `String` literal (`"duplicate allow \(prefix) (first on
/// line \(line))"`), but a `String` interpolation expands, in Embedded Swift
/// at `-Osize`, into several hundred bytes of inlined `String` code per
/// site; here each literal piece and each value is one call to a function
/// below, marked `@inline(never)` so that the optimizer cannot copy it back
/// into every site. The bytes are UTF-8 throughout: a `String` is made only
/// once, by `string`.
struct MessageText: ExpressibleByStringInterpolation, StringInterpolationProtocol,
  CustomStringConvertible
{
  private(set) var bytes: [UInt8]

  @inline(never)
  init() { bytes = [] }

  init(literalCapacity: Int, interpolationCount: Int) { self.init() }

  @inline(never)
  init(stringLiteral literal: StaticString) {
    self.init()
    appendLiteral(literal)
  }

  init(stringInterpolation: MessageText) { self = stringInterpolation }

  /// The text as a `String`.
  var string: String {
    @inline(never) get { String(decoding: bytes, as: UTF8.self) }
  }

  /// The same, so that a `MessageText` inside a `String` interpolation
  /// reads as its text.
  var description: String { string }

  var isEmpty: Bool { bytes.isEmpty }

  @inline(never)
  mutating func appendLiteral(_ literal: StaticString) {
    literal.withUTF8Buffer { appendInterpolation($0) }
  }

  /// Text made elsewhere (a name, a described address).
  @inline(never)
  mutating func appendInterpolation(_ text: String) {
    bytes.append(contentsOf: text.utf8)
  }

  @inline(never)
  mutating func appendInterpolation(_ text: MessageText) {
    bytes.append(contentsOf: text.bytes)
  }

  /// UTF-8 text made elsewhere (a file name, a message), as is.
  @inline(never)
  mutating func appendInterpolation(bytes text: [UInt8]) {
    bytes.append(contentsOf: text)
  }

  /// The presentation form of a flat wire name (`printer.lan.`).
  @inline(never)
  mutating func appendInterpolation(name flatName: [UInt8]) {
    var text = [UInt8](repeating: 0, count: 4 * Name.maxLength + 1)
    let count = flatName.withUnsafeBytes { name in
      text.withUnsafeMutableBytes { Name.format(name, into: $0) }
    }
    bytes.append(contentsOf: text[..<count])
  }

  @inline(never)
  mutating func appendInterpolation(_ text: StaticString) {
    appendLiteral(text)
  }

  /// A literal picked by a `switch` (`LiteralText`).
  mutating func appendInterpolation(_ text: LiteralText) {
    appendInterpolation(UnsafeBufferPointer(start: text.start, count: text.count))
  }

  /// A piece of a directive's declaration (`DeclaredText`).
  @inline(never)
  mutating func appendInterpolation(_ text: UnsafeBufferPointer<UInt8>) {
    // As raw bytes: the cache file's writer appends those already, and
    // one specialization of `append(contentsOf:)` serves both.
    bytes.append(contentsOf: UnsafeRawBufferPointer(text))
  }

  /// A number in decimal.
  @inline(never)
  mutating func appendInterpolation(_ value: Int) {
    let magnitude = value.magnitude
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    // The power of ten of the leading digit, then each digit from there.
    var unit: UInt = 1
    while magnitude / unit >= 10 { unit *= 10 }
    repeat {
      bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude / unit % 10))
      unit /= 10
    } while unit > 0
  }

  /// Other integer types, through `Int` (every value here fits).
  @inline(__always)
  mutating func appendInterpolation<Value: BinaryInteger>(_ value: Value) {
    appendInterpolation(Int(value))
  }

  /// A user-supplied token in single quotes, escaped (see `escaped`).
  @inline(never)
  mutating func appendInterpolation(quoted token: ArraySlice<UInt8>) {
    bytes.append(UInt8(ascii: "'"))
    appendInterpolation(escaped: token)
    bytes.append(UInt8(ascii: "'"))
  }

  @inline(__always)
  mutating func appendInterpolation(quoted token: [UInt8]) {
    appendInterpolation(quoted: token[...])
  }

  /// Printable ASCII as is, every other byte as `\xNN`.
  @inline(never)
  mutating func appendInterpolation(escaped token: ArraySlice<UInt8>) {
    for byte in token {
      if byte >= 0x20 && byte < 0x7F {
        bytes.append(byte)
      } else {
        bytes.append(UInt8(ascii: "\\"))
        bytes.append(UInt8(ascii: "x"))
        bytes.append(upperHexDigit(byte >> 4))
        bytes.append(upperHexDigit(byte & 0xF))
      }
    }
  }

  @inline(__always)
  mutating func appendInterpolation(escaped token: [UInt8]) {
    appendInterpolation(escaped: token[...])
  }
}

/// Addresses, endpoints and prefixes, as `describe` writes them.
extension MessageText {
  /// The forms `describe(_: IPAddress)` documents.
  @inline(never)
  mutating func appendInterpolation(_ address: IPAddress) {
    if address.isIPv4 { return appendIPv4(address.ipv4) }
    var groups = [UInt16](repeating: 0, count: 8)
    for index in 0..<8 {
      groups[index] = UInt16(address.byte(2 * index)) << 8 | UInt16(address.byte(2 * index + 1))
    }
    // The longest run of two or more zero groups, the first one on a tie.
    var bestStart = 8
    var bestLength = 1
    var index = 0
    while index < 8 {
      guard groups[index] == 0 else {
        index += 1
        continue
      }
      var end = index
      while end < 8 && groups[end] == 0 { end += 1 }
      if end - index > bestLength {
        bestStart = index
        bestLength = end - index
      }
      index = end
    }
    index = 0
    while index < 8 {
      if index == bestStart {
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: ":"))
        index += bestLength
        continue
      }
      if index > 0 && index != bestStart + bestLength { bytes.append(UInt8(ascii: ":")) }
      appendLowerHex(groups[index])
      index += 1
    }
  }

  /// `a.b.c.d` of an address in host order.
  @inline(never)
  mutating func appendIPv4(_ value: UInt32) {
    for shift in stride(from: 24, through: 0, by: -8) {
      if shift < 24 { bytes.append(UInt8(ascii: ".")) }
      appendInterpolation(Int((value >> UInt32(shift)) & 0xFF))
    }
  }

  /// Lower-case hex without leading zeros (`0` for zero).
  mutating func appendLowerHex(_ value: UInt16) {
    var shift = 12
    while shift > 0 && value >> UInt16(shift) == 0 { shift -= 4 }
    while shift >= 0 {
      let digit = UInt8(truncatingIfNeeded: value >> UInt16(shift)) & 0xF
      bytes.append(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
      shift -= 4
    }
  }

  /// `1.2.3.4:53` or `[::1]:53` (RFC 3986 §3.2.2).
  @inline(never)
  mutating func appendInterpolation(_ endpoint: Endpoint) {
    let isIPv4 = endpoint.address.isIPv4
    if !isIPv4 { bytes.append(UInt8(ascii: "[")) }
    appendInterpolation(endpoint.address)
    if !isIPv4 { bytes.append(UInt8(ascii: "]")) }
    bytes.append(UInt8(ascii: ":"))
    appendInterpolation(Int(endpoint.port))
  }

  /// `10.0.0.0/8` for an IPv4-mapped prefix of length 96 or more, else IPv6.
  @inline(never)
  mutating func appendInterpolation(_ prefix: AddressPrefix) {
    appendInterpolation(prefix.address)
    bytes.append(UInt8(ascii: "/"))
    let isIPv4 = prefix.address.isIPv4 && prefix.length >= 96
    appendInterpolation(Int(prefix.length) - (isIPv4 ? 96 : 0))
  }
}

extension MessageText {
  /// Appends `text`: a literal with interpolations, built by the calls above.
  @inline(never)
  mutating func append(_ text: MessageText) {
    bytes.append(contentsOf: text.bytes)
  }

  /// `, ` before every item of a list but the first (`index` 0).
  @inline(never)
  mutating func appendInterpolation(separator index: Int) {
    if index > 0 { appendLiteral(", ") }
  }
}
