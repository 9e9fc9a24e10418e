// The statistics of `dnsward stats --json` as one JSON object (RFC 8259):
// every `name=value` in the server's order, a value of decimal digits as a
// number and anything else as a string; `upstreamN.key=value` go to the
// object at index N of an `upstreams` array, written after the rest.
// Bytes only (the firmware has no String machinery).

struct StatisticsJSON {
  /// `"name": value` members of the top-level object, comma-separated.
  private var members: [UInt8] = []
  /// The members of each upstream's object, by index.
  private var upstreams: [[UInt8]] = []

  mutating func add(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
    let prefix: StaticString = "upstream"
    let prefixBytes = UnsafeRawBufferPointer(
      start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
    if name.count > prefixBytes.count, name.starts(with: prefixBytes),
      let dot = name.firstIndex(of: UInt8(ascii: ".")), dot > prefixBytes.count,
      let index = Self.decimal(UnsafeRawBufferPointer(rebasing: name[prefixBytes.count..<dot])),
      index < 4096
    {
      while upstreams.count <= index { upstreams.append([]) }
      Self.appendMember(
        to: &upstreams[index], name: UnsafeRawBufferPointer(rebasing: name[(dot + 1)...]),
        value: value)
    } else {
      Self.appendMember(to: &members, name: name, value: value)
    }
  }

  /// The whole object and a newline.
  var bytes: [UInt8] {
    var output: [UInt8] = [UInt8(ascii: "{")]
    output.append(contentsOf: members)
    if !upstreams.isEmpty {
      if !members.isEmpty { output.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: " ")]) }
      Self.appendString(
        to: &output, UnsafeRawBufferPointer(start: nil, count: 0), upstreamsKey: true)
      output.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " "), UInt8(ascii: "[")])
      for index in upstreams.indices {
        if index > 0 { output.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: " ")]) }
        output.append(UInt8(ascii: "{"))
        output.append(contentsOf: upstreams[index])
        output.append(UInt8(ascii: "}"))
      }
      output.append(UInt8(ascii: "]"))
    }
    output.append(contentsOf: [UInt8(ascii: "}"), 0x0A])
    return output
  }

  private static func appendMember(
    to object: inout [UInt8], name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer
  ) {
    if !object.isEmpty { object.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: " ")]) }
    appendString(to: &object, name)
    object.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
    if decimal(value) != nil {
      object.append(contentsOf: value)
    } else {
      appendString(to: &object, value)
    }
  }

  /// A JSON string: `"` and `\\` escaped, control bytes as `\\u00XX`
  /// (RFC 8259 §7); `upstreamsKey` writes `"upstreams"`.
  private static func appendString(
    to output: inout [UInt8], _ text: UnsafeRawBufferPointer, upstreamsKey: Bool = false
  ) {
    output.append(UInt8(ascii: "\""))
    if upstreamsKey {
      let key: StaticString = "upstreams"
      output.append(
        contentsOf: UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
    }
    let hex: StaticString = "0123456789abcdef"
    for byte in text {
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"):
        output.append(contentsOf: [UInt8(ascii: "\\"), byte])
      case 0..<0x20, 0x7F:
        output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), 0x30, 0x30])
        output.append(hex.utf8Start[Int(byte >> 4)])
        output.append(hex.utf8Start[Int(byte & 0xF)])
      default:
        output.append(byte)
      }
    }
    output.append(UInt8(ascii: "\""))
  }

  /// The value of 1 to 19 decimal digits, without a leading zero unless it
  /// is 0 (a JSON number); nil for anything else.
  static func decimal(_ digits: UnsafeRawBufferPointer) -> Int? {
    guard !digits.isEmpty, digits.count <= 18, digits[0] != UInt8(ascii: "0") || digits.count == 1
    else { return nil }
    var value = 0
    for byte in digits {
      guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
      value = value * 10 + Int(byte - UInt8(ascii: "0"))
    }
    return value
  }
}
