// The statistics of `dnsward stats --json` as one JSON object (RFC 8259),
// written as the `name=value` strings arrive: a value of decimal digits as a
// number and anything else as a string; the `upstreamN.key=value` strings,
// which the server sends last and upstream by upstream (Engine/Statistics/ChaosAnswers.swift),
// as the objects of an `upstreams` array, N its index. An `upstreamN.` out of
// that order stays a plain member. Bytes only (the firmware has no String
// machinery).

struct StatisticsJSON {
  private(set) var bytes: [UInt8] = [UInt8(ascii: "{")]
  /// Members written to the object now open (the top level or an upstream's).
  private var membersInObject = 0
  /// The upstream whose object is open, -1 before the array.
  private var upstream = -1

  mutating func add(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
    var key = name
    if let index = Self.upstreamIndex(name), index == upstream || index == upstream + 1 {
      if index != upstream {
        append(upstream < 0 ? (membersInObject > 0 ? ", " : "") : "}, ")
        if upstream < 0 { append("\"upstreams\": [") }
        append("{")
        upstream = index
        membersInObject = 0
      }
      let dot = name.firstIndex(of: UInt8(ascii: "."))! + 1
      key = UnsafeRawBufferPointer(rebasing: name[dot...])
    } else if upstream >= 0 {
      return  // a top-level name after the upstreams: not sent by dnsward
    }
    if membersInObject > 0 { append(", ") }
    membersInObject += 1
    appendString(key)
    append(": ")
    if Self.isNumber(value) { bytes.append(contentsOf: value) } else { appendString(value) }
  }

  /// Closes the object; the bytes end with a newline.
  mutating func finish() {
    append(upstream >= 0 ? "}]}\n" : "}\n")
  }

  private mutating func append(_ text: StaticString) {
    bytes.append(
      contentsOf: UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  /// A JSON string: `"` and `\` escaped, control bytes as `\u00XX`
  /// (RFC 8259 §7).
  private mutating func appendString(_ text: UnsafeRawBufferPointer) {
    let hex: StaticString = "0123456789abcdef"
    bytes.append(UInt8(ascii: "\""))
    for byte in text {
      if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
        bytes.append(UInt8(ascii: "\\"))
        bytes.append(byte)
      } else if byte < 0x20 || byte == 0x7F {
        append("\\u00")
        bytes.append(hex.utf8Start[Int(byte >> 4)])
        bytes.append(hex.utf8Start[Int(byte & 0xF)])
      } else {
        bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  /// N of `upstreamN.key`, nil for any other name.
  static func upstreamIndex(_ name: UnsafeRawBufferPointer) -> Int? {
    let prefix: StaticString = "upstream"
    let length = prefix.utf8CodeUnitCount
    guard name.count > length + 2,
      name.starts(with: UnsafeRawBufferPointer(start: prefix.utf8Start, count: length)),
      let dot = name.firstIndex(of: UInt8(ascii: ".")),
      isNumber(UnsafeRawBufferPointer(rebasing: name[length..<dot])), dot - length <= 4
    else { return nil }
    var index = 0
    for byte in name[length..<dot] { index = index * 10 + Int(byte &- UInt8(ascii: "0")) }
    return index
  }

  /// Whether `digits` is a JSON number of 1 to 19 decimal digits: no sign,
  /// no leading zero unless it is 0.
  static func isNumber(_ digits: UnsafeRawBufferPointer) -> Bool {
    guard !digits.isEmpty, digits.count <= 19,
      digits[0] != UInt8(ascii: "0") || digits.count == 1
    else { return false }
    return digits.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
  }
}
