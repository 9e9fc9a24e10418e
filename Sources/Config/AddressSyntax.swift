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

/// Text forms of addresses, endpoints and prefixes, with a message that
/// says what is wrong.
///
/// - Addresses: `AddressText` (CompiledConfig) parses them, so the config
///   compiler and the firmware's resolv.conf reader agree; here its reasons
///   become words.
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

  static func parseAddress(_ text: ArraySlice<UInt8>) throws(AddressSyntaxError) -> ParsedAddress {
    if text.contains(colon) { return .ipv6(try parseIPv6(text)) }
    return .ipv4(try parseIPv4(text))
  }

  static func parseIPv4(_ text: ArraySlice<UInt8>) throws(AddressSyntaxError) -> UInt32 {
    do throws(AddressTextError) {
      return try AddressText.parseIPv4(text)
    } catch {
      throw message(for: error, in: text)
    }
  }

  static func parseIPv6(_ text: ArraySlice<UInt8>) throws(AddressSyntaxError) -> IPAddress {
    do throws(AddressTextError) {
      return try AddressText.parseIPv6(text)
    } catch {
      throw message(for: error, in: text)
    }
  }

  /// The words for what `AddressText` found wrong, quoting the address and
  /// the octet or group at fault.
  static func message(for error: AddressTextError, in text: ArraySlice<UInt8>)
    -> AddressSyntaxError
  {
    let address = text[error.address]
    let part = text[error.part]
    let family: StaticString = error.family == .ipv4 ? "IPv4" : "IPv6"
    let detail: MessageText
    switch error.reason {
    case .empty: return AddressSyntaxError(text: "missing address")
    case .hostName:
      return AddressSyntaxError(
        text: "\(quoted: address) is not an address (host names are not resolved)")
    case .octetCount(let found):
      detail = "expected 4 dotted octets, found \(found)"
    case .emptyOctet: detail = "empty octet"
    case .unexpectedCharacter(let byte):
      detail = "unexpected character \(quoted: [byte])"
    case .leadingZero:
      detail = "leading zero in octet \(quoted: part) is ambiguous (octal in some parsers)"
    case .octetOutOfRange: detail = "octet \(quoted: part) is out of range 0...255"
    case .zoneIndex: detail = "zone indices ('%...') are not supported"
    case .tripleColon: detail = "':::' is not valid"
    case .secondGap: detail = "'::' may appear only once"
    case .emptyGroup: detail = "empty group (a lone ':' at the start or the end?)"
    case .ipv4NotLast: detail = "an embedded IPv4 address must come last"
    case .groupTooLong: detail = "group \(quoted: part) has more than 4 hex digits"
    case .tooManyGroupsForGap: detail = "too many groups to leave room for '::'"
    case .groupCount(let found):
      detail = "\(found) groups instead of 8 (use '::' to abbreviate zeros)"
    }
    return AddressSyntaxError(text: "bad \(family) address \(quoted: address): \(detail)")
  }

  /// - Parameter allowAnyPort: accept port 0 (a listener on a port the
  ///   kernel picks, for tests); never valid for a peer.
  static func parseEndpoint(
    _ text: ArraySlice<UInt8>, defaultPort: UInt16, allowAnyPort: Bool = false
  ) throws(AddressSyntaxError) -> Endpoint {
    guard let first = text.first else { throw AddressSyntaxError(text: "missing address") }
    if first == UInt8(ascii: "[") {
      guard let close = text.firstIndex(of: UInt8(ascii: "]")) else {
        throw AddressSyntaxError(text: "bad endpoint \(quoted: text): missing ']'")
      }
      let inside = text[(text.startIndex + 1)..<close]
      guard inside.contains(colon) else {
        throw AddressSyntaxError(
          text: "bad endpoint \(quoted: text): brackets are only for IPv6 addresses")
      }
      let address = try parseIPv6(inside)
      let rest = text[(close + 1)...]
      if rest.isEmpty { return Endpoint(address: address, port: defaultPort) }
      guard rest.first == colon else {
        throw AddressSyntaxError(text: "bad endpoint \(quoted: text): expected ':PORT' after ']'")
      }
      return Endpoint(
        address: address,
        port: try parsePort(rest.dropFirst(), in: text, allowAnyPort: allowAnyPort))
    }
    let colons = text.lazy.filter { $0 == colon }.count
    if colons > 1 {
      throw AddressSyntaxError(
        text: "bad endpoint \(quoted: text): write an IPv6 endpoint in brackets, as [::1]:53")
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
      throw AddressSyntaxError(text: "bad endpoint \(quoted: endpoint): missing port after ':'")
    }
    guard text.allSatisfy(isDigit), let port = decimal(text), port >= lowest, port <= 65535 else {
      throw AddressSyntaxError(
        text: "bad port \(quoted: text) in \(quoted: endpoint): expected a number \(lowest)...65535"
      )
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
        throw AddressSyntaxError(text: "bad prefix \(quoted: text): missing length after '/'")
      }
      guard lengthText.allSatisfy(isDigit), let value = decimal(lengthText) else {
        throw AddressSyntaxError(
          text: "bad prefix \(quoted: text): length \(quoted: lengthText) is not a number")
      }
      guard value <= familyBits else {
        let family: StaticString = isIPv4 ? "IPv4" : "IPv6"
        throw AddressSyntaxError(
          text: """
            bad prefix \(quoted: text): length \(value) is too long for \(family) \
            (at most \(familyBits))
            """)
      }
      length = value
    }
    let address = parsed.address
    let prefix = AddressPrefix(address: address, length: UInt8(length + 128 - familyBits))
    guard prefix.address == address else {
      throw AddressSyntaxError(
        text: """
          bad prefix \(quoted: text): host bits are set past /\(length) \
          (the network is \(prefix))
          """)
    }
    return prefix
  }

  // MARK: - Helpers

  static func isDigit(_ byte: UInt8) -> Bool { AddressText.isDigit(byte) }

  static func decimal(_ digits: ArraySlice<UInt8>) -> Int? { AddressText.decimal(digits) }
}
