// Hexadecimal text for test vectors and failure messages, shared by every
// test target (WireText.swift's `wire` adds quoted ASCII and repeats on top).

/// The bytes written in `text` as hexadecimal digits (either case); spaces,
/// tabs and newlines between them are ignored, so vectors can be copied as
/// printed. Anything else, or an odd number of digits, stops the test.
public func hexBytes(_ text: String) -> [UInt8] {
  var bytes: [UInt8] = []
  var high: UInt8? = nil
  for character in text.utf8 {
    let nibble: UInt8
    switch character {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = character - UInt8(ascii: "A") + 10
    case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"): continue
    default: preconditionFailure("not a hexadecimal digit in a test vector")
    }
    if let pending = high {
      bytes.append(pending << 4 | nibble)
      high = nil
    } else {
      high = nibble
    }
  }
  precondition(high == nil, "odd number of hexadecimal digits in a test vector")
  return bytes
}

/// `bytes` as lowercase hexadecimal, two digits a byte, `separator` between
/// bytes (none by default).
public func hexString<C: Collection>(_ bytes: C, separator: String = "") -> String
where C.Element == UInt8 {
  let digits = Array("0123456789abcdef".utf8)
  var text: [UInt8] = []
  text.reserveCapacity(bytes.count * (2 + separator.utf8.count))
  for (index, byte) in bytes.enumerated() {
    if index > 0 { text += separator.utf8 }
    text.append(digits[Int(byte >> 4)])
    text.append(digits[Int(byte & 0x0f)])
  }
  return String(decoding: text, as: UTF8.self)
}

/// `bytes` as lowercase hexadecimal: a digest or a fixed-size key.
public func hexString<let count: Int>(_ bytes: InlineArray<count, UInt8>) -> String {
  hexString(bytes.indices.map { bytes[$0] })
}
