import CompiledConfig
import DNSWire

/// `upstream httpdns ADDRESS[:PORT] [format=alibaba|dnspod|json] [account=ID]
/// [secret=KEY] [trusted]`: an HTTP DNS API reached by IP (issue 7).
extension ConfigReader {
  /// The options after the address, in any order, each at most once. The
  /// format is `json` unless given; `account=` is required for `alibaba`
  /// and, like `secret=` (which makes dnsward sign its requests), allowed
  /// for no other format.
  func readHTTPDNSOptions(
    _ options: ArraySlice<ArraySlice<UInt8>>, into server: inout UpstreamServer
  ) throws(LineError) {
    var seen: UInt8 = 0
    for token in options {
      let equals = token.firstIndex(of: UInt8(ascii: "="))
      // `format=`, `account=`, `secret=` with the `=`; `trusted` alone.
      // Messages quote only this part, so that a secret is never repeated
      // in a build log.
      let key = token[..<(equals.map { $0 + 1 } ?? token.endIndex)]
      guard
        let option = HTTPDNSOption.allCases.first(where: { key.elementsEqual($0.spelling.utf8) })
      else {
        throw LineError("unknown httpdns option \(quoted(key)) \(HTTPDNSOption.hint(for: key))")
      }
      let bit: UInt8 = 1 << option.rawValue
      guard seen & bit == 0 else {
        throw LineError("duplicate httpdns option \(quoted(key)) (each option at most once)")
      }
      seen |= bit
      let value = token[key.endIndex...]
      if option != .trusted && value.isEmpty {
        throw LineError("empty value for \(quoted(key)) (usage: \(HTTPDNSOption.usage))")
      }
      switch option {
      case .format: server.httpdnsFormat = try httpdnsFormat(value)
      case .account:
        guard value.count <= 64, value.allSatisfy(isAccountByte) else {
          throw LineError(
            "bad httpdns account \(quoted(value)) (up to 64 letters, digits, '_' or '-')")
        }
        server.account = Array(value)
      case .secret:
        guard value.count <= 128, !value.contains(where: { $0 <= 0x20 || $0 >= 0x7F || $0 == 0x22 })
        else {
          throw LineError(
            "bad httpdns secret (up to 128 printable ASCII characters, no spaces, '#' or '\"')")
        }
        server.secret = Array(value)
      case .trusted: server.trusted = true
      }
    }
    if server.httpdnsFormat == .alibaba {
      guard !server.account.isEmpty else {
        throw LineError(
          "format=alibaba needs account=ID (the account ID of the Alibaba Cloud HTTPDNS service)")
      }
    } else if !server.account.isEmpty || !server.secret.isEmpty {
      let key = server.account.isEmpty ? "secret=" : "account="
      throw LineError(
        "'\(key)' is only for format=alibaba (this upstream's format is "
          + "\(server.httpdnsFormat.name))")
    }
  }

  func httpdnsFormat(_ token: ArraySlice<UInt8>) throws(LineError) -> HTTPDNSFormat {
    if isWord(token, "alibaba") { return .alibaba }
    if isWord(token, "dnspod") { return .dnspod }
    if isWord(token, "json") { return .json }
    throw LineError("unknown httpdns format \(quoted(token)) (expected alibaba, dnspod or json)")
  }
}

/// An account ID's characters: letters, digits, `_` and `-`.
func isAccountByte(_ byte: UInt8) -> Bool {
  (Name.asciiLowercased(byte) &- 0x61 < 26) || (byte &- 0x30 < 10) || byte == UInt8(ascii: "_")
    || byte == UInt8(ascii: "-")
}

/// The options of `upstream httpdns`; the raw value is the option's bit in
/// the set of those seen on the line.
enum HTTPDNSOption: UInt8, CaseIterable {
  case format, account, secret, trusted

  static var usage: String {
    "upstream httpdns ADDRESS[:PORT] [format=alibaba|dnspod|json] [account=ID] [secret=KEY] "
      + "[trusted]"
  }

  var spelling: String {
    switch self {
    case .format: return "format="
    case .account: return "account="
    case .secret: return "secret="
    case .trusted: return "trusted"
    }
  }

  /// `(did you mean 'account='?)` for a near miss, else the usage.
  static func hint(for key: ArraySlice<UInt8>) -> String {
    let lowered = key.map(Name.asciiLowercased)
    for option in allCases where editDistance(lowered, Array(option.spelling.utf8)) <= 2 {
      return "(did you mean '\(option.spelling)'?)"
    }
    return "(usage: \(usage))"
  }
}

extension UpstreamTransport {
  /// The spelling in the config, for messages, the summary and the generator.
  var name: String {
    switch self {
    case .udp: return "udp"
    case .tcp: return "tcp"
    case .httpdns: return "httpdns"
    }
  }

  /// The port when the config gives none: HTTP's (RFC 9110 §4.2.1) for
  /// httpdns, DNS's for the others.
  var defaultPort: UInt16 { self == .httpdns ? 80 : 53 }
}

extension HTTPDNSFormat {
  /// The spelling in the config (`format=NAME`).
  var name: String {
    switch self {
    case .alibaba: return "alibaba"
    case .dnspod: return "dnspod"
    case .json: return "json"
    }
  }
}
