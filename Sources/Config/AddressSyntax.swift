import CompiledConfig

/// An address as written: the family is the one of the text, so that
/// `::ffff:1.2.3.4` in an `override` is an AAAA record while `1.2.3.4` is an A
/// record, although both are the same `IPAddress`.
public enum ParsedAddress: Equatable {
  case ipv4(UInt32)
  case ipv6(IPAddress)

  /// The 128-bit form (IPv4 as `::ffff:a.b.c.d`, RFC 4291 §2.5.5.2).
  public var address: IPAddress {
    switch self {
    case .ipv4(let value): return IPAddress(ipv4: value)
    case .ipv6(let address): return address
    }
  }
}

/// Text forms of addresses, endpoints and prefixes, parsed without the C
/// library (no `inet_pton`), with a message that says what is wrong.
///
/// - IPv4: exactly four decimal octets 0...255. A leading zero (`010`) is
///   rejected: `inet_aton` reads it as octal, so its meaning is ambiguous.
/// - IPv6: RFC 4291 §2.2 — eight groups of 1...4 hex digits, `::` at most
///   once for one or more zero groups, an optional dotted IPv4 address as
///   the last 32 bits. Zone indices (`%eth0`) are not supported.
/// - Endpoints: `1.2.3.4`, `1.2.3.4:53`, `[::1]`, `[::1]:53` (RFC 3986
///   §3.2.2 brackets); without a port, `defaultPort`.
/// - Prefixes: `ADDRESS/LENGTH` with no host bits set, or a bare address.
public enum AddressSyntax {
  public static func parseAddress(_ text: String) throws(AddressSyntaxError) -> ParsedAddress {
    try parseAddress(ArraySlice(text.utf8))
  }

  public static func parseEndpoint(_ text: String, defaultPort: UInt16 = 53)
    throws(AddressSyntaxError) -> Endpoint
  {
    try parseEndpoint(ArraySlice(text.utf8), defaultPort: defaultPort)
  }

  public static func parsePrefix(_ text: String) throws(AddressSyntaxError) -> AddressPrefix {
    try parsePrefix(ArraySlice(text.utf8))
  }

  // MARK: - Bytes

  static let colon = UInt8(ascii: ":")
  static let dot = UInt8(ascii: ".")

  static func parseAddress(_ text: ArraySlice<UInt8>) throws(AddressSyntaxError) -> ParsedAddress {
    if text.contains(colon) { return .ipv6(try parseIPv6(text)) }
    return .ipv4(try parseIPv4(text))
  }

  /// Four dotted decimal octets.
  static func parseIPv4(_ text: ArraySlice<UInt8>) throws(AddressSyntaxError) -> UInt32 {
    let what = "bad IPv4 address \(quoted(text))"
    guard !text.isEmpty else { throw AddressSyntaxError("missing address") }
    if let first = text.first, isASCIILetter(first) {
      throw AddressSyntaxError("\(quoted(text)) is not an address (host names are not resolved)")
    }
    let octets = split(text, at: dot)
    guard octets.count == 4 else {
      throw AddressSyntaxError("\(what): expected 4 dotted octets, found \(octets.count)")
    }
    var value: UInt32 = 0
    for octet in octets {
      guard !octet.isEmpty else { throw AddressSyntaxError("\(what): empty octet") }
      if let bad = octet.first(where: { !isDigit($0) }) {
        throw AddressSyntaxError("\(what): unexpected character \(quoted([bad]))")
      }
      guard octet.count == 1 || octet.first != UInt8(ascii: "0") else {
        throw AddressSyntaxError(
          "\(what): leading zero in octet \(quoted(octet)) is ambiguous (octal in some parsers)")
      }
      guard octet.count <= 3, let number = decimal(octet), number <= 255 else {
        throw AddressSyntaxError("\(what): octet \(quoted(octet)) is out of range 0...255")
      }
      value = value << 8 | UInt32(number)
    }
    return value
  }

  /// RFC 4291 §2.2 text forms.
  static func parseIPv6(_ text: ArraySlice<UInt8>) throws(AddressSyntaxError) -> IPAddress {
    let what = "bad IPv6 address \(quoted(text))"
    if text.contains(UInt8(ascii: "%")) {
      throw AddressSyntaxError("\(what): zone indices ('%...') are not supported")
    }
    if containsRun(text, of: colon, length: 3) {
      throw AddressSyntaxError("\(what): ':::' is not valid")
    }
    // Groups before and after the one `::`, if any.
    var head = text
    var tail: ArraySlice<UInt8>? = nil
    if let doubleColon = firstRun(text, of: colon, length: 2) {
      head = text[text.startIndex..<doubleColon]
      let after = text[(doubleColon + 2)...]
      if firstRun(after, of: colon, length: 2) != nil {
        throw AddressSyntaxError("\(what): '::' may appear only once")
      }
      tail = after
    }
    let headGroups = head.isEmpty && tail != nil ? [] : split(head, at: colon)
    let tailGroups = tail.map { $0.isEmpty ? [] : split($0, at: colon) } ?? []
    // An embedded IPv4 address is the last 32 bits (RFC 4291 §2.2 item 3), so
    // it can be in the head only when there is no `::` after it.
    let lastGroupIsInHead = tail == nil

    func words(_ groups: [ArraySlice<UInt8>], holdsLast: Bool) throws(AddressSyntaxError)
      -> [UInt16]
    {
      var result: [UInt16] = []
      for (index, group) in groups.enumerated() {
        guard !group.isEmpty else {
          throw AddressSyntaxError("\(what): empty group (a lone ':' at the start or the end?)")
        }
        if group.contains(dot) {
          guard holdsLast, index == groups.count - 1 else {
            throw AddressSyntaxError("\(what): an embedded IPv4 address must come last")
          }
          let ipv4 = try parseIPv4(group)
          result.append(UInt16(truncatingIfNeeded: ipv4 >> 16))
          result.append(UInt16(truncatingIfNeeded: ipv4))
          continue
        }
        guard group.count <= 4 else {
          throw AddressSyntaxError("\(what): group \(quoted(group)) has more than 4 hex digits")
        }
        var word: UInt16 = 0
        for byte in group {
          guard let digit = hexValue(byte) else {
            throw AddressSyntaxError("\(what): unexpected character \(quoted([byte]))")
          }
          word = word << 4 | UInt16(digit)
        }
        result.append(word)
      }
      return result
    }

    let headWords = try words(headGroups, holdsLast: lastGroupIsInHead)
    let tailWords = try words(tailGroups, holdsLast: true)
    var all: [UInt16]
    if tail != nil {
      // `::` stands for one or more zero groups (RFC 4291 §2.2 item 2).
      guard headWords.count + tailWords.count <= 7 else {
        throw AddressSyntaxError("\(what): too many groups to leave room for '::'")
      }
      let zeros = [UInt16](repeating: 0, count: 8 - headWords.count - tailWords.count)
      all = headWords + zeros + tailWords
    } else {
      guard headWords.count == 8 else {
        throw AddressSyntaxError(
          "\(what): \(headWords.count) groups instead of 8 (use '::' to abbreviate zeros)")
      }
      all = headWords
    }
    var high: UInt64 = 0
    var low: UInt64 = 0
    for index in 0..<4 {
      high = high << 16 | UInt64(all[index])
      low = low << 16 | UInt64(all[index + 4])
    }
    return IPAddress(high: high, low: low)
  }

  /// - Parameter allowAnyPort: accept port 0 (a listener on a port the
  ///   kernel picks, for tests); never valid for a peer.
  static func parseEndpoint(
    _ text: ArraySlice<UInt8>, defaultPort: UInt16, allowAnyPort: Bool = false
  ) throws(AddressSyntaxError) -> Endpoint {
    guard let first = text.first else { throw AddressSyntaxError("missing address") }
    if first == UInt8(ascii: "[") {
      guard let close = text.firstIndex(of: UInt8(ascii: "]")) else {
        throw AddressSyntaxError("bad endpoint \(quoted(text)): missing ']'")
      }
      let inside = text[(text.startIndex + 1)..<close]
      guard inside.contains(colon) else {
        throw AddressSyntaxError(
          "bad endpoint \(quoted(text)): brackets are only for IPv6 addresses")
      }
      let address = try parseIPv6(inside)
      let rest = text[(close + 1)...]
      if rest.isEmpty { return Endpoint(address: address, port: defaultPort) }
      guard rest.first == colon else {
        throw AddressSyntaxError("bad endpoint \(quoted(text)): expected ':PORT' after ']'")
      }
      return Endpoint(
        address: address,
        port: try parsePort(rest.dropFirst(), in: text, allowAnyPort: allowAnyPort))
    }
    let colons = text.lazy.filter { $0 == colon }.count
    if colons > 1 {
      throw AddressSyntaxError(
        "bad endpoint \(quoted(text)): write an IPv6 endpoint in brackets, as [::1]:53")
    }
    guard let separator = text.firstIndex(of: colon) else {
      return Endpoint(address: IPAddress(ipv4: try parseIPv4(text)), port: defaultPort)
    }
    let address = IPAddress(ipv4: try parseIPv4(text[..<separator]))
    return Endpoint(
      address: address,
      port: try parsePort(text[(separator + 1)...], in: text, allowAnyPort: allowAnyPort))
  }

  /// A port number 1...65535; port 0 means "any" to the socket API, never a
  /// peer, so it is accepted only for listeners (`allowAnyPort`).
  static func parsePort(
    _ text: ArraySlice<UInt8>, in endpoint: ArraySlice<UInt8>, allowAnyPort: Bool = false
  ) throws(AddressSyntaxError) -> UInt16 {
    let lowest = allowAnyPort ? 0 : 1
    guard !text.isEmpty else {
      throw AddressSyntaxError("bad endpoint \(quoted(endpoint)): missing port after ':'")
    }
    guard text.allSatisfy(isDigit), let port = decimal(text), port >= lowest, port <= 65535 else {
      throw AddressSyntaxError(
        "bad port \(quoted(text)) in \(quoted(endpoint)): expected a number \(lowest)...65535")
    }
    return UInt16(port)
  }

  /// `ADDRESS/LENGTH` or a bare address (a /32 or /128). An IPv4 /n becomes
  /// the mapped /(96+n). Host bits past the length are an error, because a
  /// prefix like 192.168.1.1/24 is more often a typo than a network.
  static func parsePrefix(_ text: ArraySlice<UInt8>) throws(AddressSyntaxError) -> AddressPrefix {
    let slash = text.firstIndex(of: UInt8(ascii: "/"))
    let parsed = try parseAddress(slash.map { text[..<$0] } ?? text)
    let isIPv4: Bool
    if case .ipv4 = parsed { isIPv4 = true } else { isIPv4 = false }
    let familyBits = isIPv4 ? 32 : 128
    var length = familyBits
    if let slash {
      let lengthText = text[(slash + 1)...]
      guard !lengthText.isEmpty else {
        throw AddressSyntaxError("bad prefix \(quoted(text)): missing length after '/'")
      }
      guard lengthText.allSatisfy(isDigit), let value = decimal(lengthText) else {
        throw AddressSyntaxError(
          "bad prefix \(quoted(text)): length \(quoted(lengthText)) is not a number")
      }
      guard value <= familyBits else {
        throw AddressSyntaxError(
          "bad prefix \(quoted(text)): length \(value) is too long for "
            + "\(isIPv4 ? "IPv4" : "IPv6") (at most \(familyBits))")
      }
      length = value
    }
    let address = parsed.address
    let prefix = AddressPrefix(address: address, length: UInt8(length + 128 - familyBits))
    guard prefix.address == address else {
      throw AddressSyntaxError(
        "bad prefix \(quoted(text)): host bits are set past /\(length) "
          + "(the network is \(describe(prefix)))")
    }
    return prefix
  }

  // MARK: - Helpers

  static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

  static func isASCIILetter(_ byte: UInt8) -> Bool { (byte | 0x20) &- 0x61 < 26 }

  static func hexValue(_ byte: UInt8) -> UInt8? {
    if isDigit(byte) { return byte - 0x30 }
    let lower = byte | 0x20
    return lower &- 0x61 < 6 ? lower - 0x61 + 10 : nil
  }

  /// The value of a run of decimal digits, or nil past 9 digits (no overflow).
  static func decimal(_ digits: ArraySlice<UInt8>) -> Int? {
    guard !digits.isEmpty, digits.count <= 9 else { return nil }
    var value = 0
    for byte in digits {
      guard isDigit(byte) else { return nil }
      value = value * 10 + Int(byte - 0x30)
    }
    return value
  }

  /// Splits at every `separator`, keeping empty pieces.
  static func split(_ text: ArraySlice<UInt8>, at separator: UInt8) -> [ArraySlice<UInt8>] {
    text.split(separator: separator, omittingEmptySubsequences: false)
  }

  static func firstRun(_ text: ArraySlice<UInt8>, of byte: UInt8, length: Int) -> Int? {
    var run = 0
    for index in text.indices {
      run = text[index] == byte ? run + 1 : 0
      if run == length { return index - length + 1 }
    }
    return nil
  }

  static func containsRun(_ text: ArraySlice<UInt8>, of byte: UInt8, length: Int) -> Bool {
    firstRun(text, of: byte, length: length) != nil
  }
}
