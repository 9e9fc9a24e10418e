/// Text forms of addresses over raw bytes, usable in Embedded Swift (no
/// String): the firmware reads /etc/resolv.conf at start-up with these.
extension IPAddress {
  /// Parses dotted-quad IPv4 (`192.0.2.1`, no leading zeros) or RFC 4291
  /// §2.2 IPv6 text (`2001:db8::1`, `::ffff:192.0.2.1`); nil if invalid.
  public init?(text: UnsafeRawBufferPointer) {
    if let value = Self.parseIPv4(text) {
      self.init(ipv4: value)
      return
    }
    guard let (high, low) = Self.parseIPv6(text) else { return nil }
    self.init(high: high, low: low)
  }

  static func parseIPv4(_ text: UnsafeRawBufferPointer) -> UInt32? {
    var value: UInt32 = 0
    var octets = 0
    var index = 0
    while index < text.count {
      var octet: UInt32 = 0
      var digits = 0
      while index < text.count, text[index] &- 0x30 < 10 {
        // "010" is ambiguous (octal in inet_aton): reject leading zeros.
        if digits == 1 && octet == 0 { return nil }
        octet = octet * 10 + UInt32(text[index] - 0x30)
        digits += 1
        index += 1
        if octet > 255 { return nil }
      }
      guard digits > 0 else { return nil }
      value = value << 8 | octet
      octets += 1
      if index == text.count { break }
      guard text[index] == UInt8(ascii: "."), octets < 4 else { return nil }
      index += 1
      guard index < text.count else { return nil }
    }
    return octets == 4 ? value : nil
  }

  static func hexValue(_ byte: UInt8) -> UInt16? {
    if byte &- 0x30 < 10 { return UInt16(byte - 0x30) }
    let lower = byte | 0x20
    if lower &- 0x61 < 6 { return UInt16(lower - 0x61 + 10) }
    return nil
  }

  static func parseIPv6(_ text: UnsafeRawBufferPointer) -> (UInt64, UInt64)? {
    var groups: (UInt64, UInt64) = (0, 0)
    var head: [UInt16] = []
    var tail: [UInt16] = []
    var seenGap = false
    var index = 0
    let count = text.count
    guard count >= 2 else { return nil }
    if text[0] == UInt8(ascii: ":") {
      guard text[1] == UInt8(ascii: ":") else { return nil }
      seenGap = true
      index = 2
    }
    while index < count {
      // An embedded IPv4 address ends the text (RFC 4291 §2.2 form 3).
      var end = index
      while end < count, text[end] != UInt8(ascii: ":") { end += 1 }
      let field = UnsafeRawBufferPointer(rebasing: text[index..<end])
      if end == count, field.contains(UInt8(ascii: ".")) {
        guard let ipv4 = parseIPv4(field) else { return nil }
        if seenGap {
          tail.append(UInt16(ipv4 >> 16))
          tail.append(UInt16(ipv4 & 0xFFFF))
        } else {
          head.append(UInt16(ipv4 >> 16))
          head.append(UInt16(ipv4 & 0xFFFF))
        }
        index = end
        break
      }
      guard field.count >= 1, field.count <= 4 else { return nil }
      var value: UInt16 = 0
      for byte in field {
        guard let digit = hexValue(byte) else { return nil }
        value = value << 4 | digit
      }
      if seenGap { tail.append(value) } else { head.append(value) }
      index = end
      if index == count { break }
      index += 1  // the colon
      if index < count, text[index] == UInt8(ascii: ":") {
        guard !seenGap else { return nil }
        seenGap = true
        index += 1
      } else if index == count {
        return nil  // a single trailing colon
      }
    }
    let total = head.count + tail.count
    guard seenGap ? total <= 7 : total == 8 else { return nil }
    var all = head
    for _ in 0..<(8 - total) { all.append(0) }
    all.append(contentsOf: tail)
    for position in 0..<8 {
      let shift = UInt64(48 - 16 * (position % 4))
      if position < 4 {
        groups.0 |= UInt64(all[position]) << shift
      } else {
        groups.1 |= UInt64(all[position]) << shift
      }
    }
    return groups
  }
}

/// resolv.conf(5): the `nameserver ADDRESS` lines, in order. Other lines,
/// comments (`#`, `;`) and addresses with a zone (`fe80::1%eth0`) are skipped.
public enum ResolvConf {
  public static func nameservers(in text: UnsafeRawBufferPointer) -> [IPAddress] {
    var result: [IPAddress] = []
    var lineStart = 0
    while lineStart < text.count {
      var lineEnd = lineStart
      while lineEnd < text.count, text[lineEnd] != 0x0A { lineEnd += 1 }
      let line = UnsafeRawBufferPointer(rebasing: text[lineStart..<lineEnd])
      if let address = nameserver(in: line) { result.append(address) }
      lineStart = lineEnd + 1
    }
    return result
  }

  static func isBlank(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0D
  }

  static func nameserver(in line: UnsafeRawBufferPointer) -> IPAddress? {
    let keyword: StaticString = "nameserver"
    var index = 0
    while index < line.count, isBlank(line[index]) { index += 1 }
    let keywordLength = keyword.utf8CodeUnitCount
    guard index + keywordLength < line.count else { return nil }
    for offset in 0..<keywordLength where line[index + offset] != keyword.utf8Start[offset] {
      return nil
    }
    index += keywordLength
    guard isBlank(line[index]) else { return nil }
    while index < line.count, isBlank(line[index]) { index += 1 }
    var end = index
    while end < line.count, !isBlank(line[end]), line[end] != UInt8(ascii: "#"),
      line[end] != UInt8(ascii: ";")
    {
      end += 1
    }
    return IPAddress(text: UnsafeRawBufferPointer(rebasing: line[index..<end]))
  }
}
