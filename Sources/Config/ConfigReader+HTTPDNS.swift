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
      var option = HTTPDNSOption.format
      while !isWord(key, option.spelling) {
        guard let next = HTTPDNSOption(rawValue: option.rawValue + 1) else {
          throw HTTPDNSOption.unknown(key)
        }
        option = next
      }
      let bit: UInt8 = 1 << option.rawValue
      guard seen & bit == 0 else {
        throw httpdnsError("duplicate httpdns option ", key, " (each option at most once)")
      }
      seen |= bit
      let value = token[key.endIndex...]
      if option != .trusted && value.isEmpty {
        throw httpdnsError(
          "empty value for ", key,
          """
           (usage: upstream httpdns ADDRESS[:PORT] [format=alibaba|dnspod|json] [account=ID] \
          [secret=KEY] [trusted])
          """)
      }
      switch option {
      case .format:
        if isWord(value, "alibaba") {
          server.httpdnsFormat = .alibaba
        } else if isWord(value, "dnspod") {
          server.httpdnsFormat = .dnspod
        } else if !isWord(value, "json") {
          throw httpdnsError(
            "unknown httpdns format ", value, " (expected alibaba, dnspod or json)")
        }
      case .account:
        guard value.count <= 64, value.allSatisfy(isAccountByte) else {
          throw httpdnsError(
            "bad httpdns account ", value, " (up to 64 letters, digits, '_' or '-')")
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
      let key: StaticString = server.account.isEmpty ? "secret=" : "account="
      throw httpdnsError(
        "", key.withUTF8Buffer { Array($0) }[...],
        " is only for format=alibaba (this upstream's format is ",
        server.httpdnsFormat.name, ")")
    }
  }
}

/// `BEFORE'TOKEN'AFTER`, then `MORE` and `END` as they are: the messages of
/// `upstream httpdns` through one out-of-line call each (a `String`
/// interpolation per message would cost far more code in Embedded builds).
@inline(never)
func httpdnsError(
  _ before: StaticString, _ token: ArraySlice<UInt8>, _ after: StaticString,
  _ more: String = "", _ end: StaticString = ""
) -> LineError {
  LineError("\(before)\(quoted: token)\(after)\(more)\(end)")
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

  var spelling: StaticString {
    switch self {
    case .format: return "format="
    case .account: return "account="
    case .secret: return "secret="
    case .trusted: return "trusted"
    }
  }

  /// `unknown httpdns option 'KEY'`, with `(did you mean 'account='?)` for
  /// a near miss, else the options.
  static func unknown(_ key: ArraySlice<UInt8>) -> LineError {
    let lowered = key.map(Name.asciiLowercased)
    for option in allCases
    where option.spelling.withUTF8Buffer({ editDistance(lowered, Array($0)) }) <= 2 {
      return httpdnsError(
        "unknown httpdns option ", key, " (did you mean '",
        option.spelling.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }, "'?)")
    }
    return httpdnsError(
      "unknown httpdns option ", key, " (expected format=, account=, secret= or trusted)")
  }
}

extension UpstreamTransport {
  /// The spelling in the config, for messages, the summary and the generator.
  var name: String {
    switch self {
    case .udp: return "udp"
    case .tcp: return "tcp"
    case .httpdns: return "httpdns"
    case .tls: return "tls"
    case .https: return "https"
    }
  }

  /// The port when the config gives none: HTTP's and HTTPS's (RFC 9110
  /// §4.2.1, §4.2.2), DoT's (RFC 7858 §3.1), DNS's for the others.
  var defaultPort: UInt16 {
    switch self {
    case .udp, .tcp: return 53
    case .httpdns: return 80
    case .tls: return 853
    case .https: return 443
    }
  }
}

extension HTTPDNSFormat {
  /// The spelling in the config (`format=NAME`).
  var name: String {
    switch self {
    case .alibaba: return "alibaba"
    case .dnspod: return "dnspod"
    case .json: return "json"
    case .dnsMessage: return "dns-message"
    }
  }
}
