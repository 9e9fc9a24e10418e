import CompiledConfig

/// The Host field of an HTTP upstream's requests (RFC 9110 §7.2), made once
/// per upstream at start-up.
extension HTTPDNSUpstreamPool {
  /// `a.b.c.d`, with `:port` unless it is 80; IPv6 in brackets, every group
  /// written out (RFC 9110 §7.2 allows any form of the literal).
  static func hostHeader(_ endpoint: Endpoint) -> [UInt8] {
    var text: [UInt8] = []
    let address = endpoint.address
    if address.isIPv4 {
      for shift in stride(from: 24, through: 0, by: -8) {
        appendDecimal(UInt64((address.ipv4 >> UInt32(shift)) & 0xFF), to: &text)
        if shift > 0 { text.append(UInt8(ascii: ".")) }
      }
    } else {
      let digits: StaticString = "0123456789abcdef"
      text.append(UInt8(ascii: "["))
      for group in 0..<8 {
        let word = group < 4 ? address.high : address.low
        let value = (word >> UInt64(48 - 16 * (group % 4))) & 0xFFFF
        var started = false
        for nibble in stride(from: 12, through: 0, by: -4) {
          let digit = Int((value >> UInt64(nibble)) & 0xF)
          if digit != 0 || started || nibble == 0 {
            text.append(digits.utf8Start[digit])
            started = true
          }
        }
        if group < 7 { text.append(UInt8(ascii: ":")) }
      }
      text.append(UInt8(ascii: "]"))
    }
    if endpoint.port != 80 {
      text.append(UInt8(ascii: ":"))
      appendDecimal(UInt64(endpoint.port), to: &text)
    }
    return text
  }

  /// `dns.example`, with `:port` unless it is 443 (RFC 9110 §7.2).
  static func hostHeader(name: [UInt8], port: UInt16) -> [UInt8] {
    var text = name
    if port != 443 {
      text.append(UInt8(ascii: ":"))
      appendDecimal(UInt64(port), to: &text)
    }
    return text
  }

  private static func appendDecimal(_ value: UInt64, to text: inout [UInt8]) {
    if value >= 10 { appendDecimal(value / 10, to: &text) }
    text.append(UInt8(ascii: "0") + UInt8(value % 10))
  }
}
