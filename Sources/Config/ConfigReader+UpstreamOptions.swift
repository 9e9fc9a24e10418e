import CompiledConfig
import DNSWire

/// The options of `upstream httpdns|tls|https ADDRESS[:PORT] [OPTION...]`:
///
/// - `httpdns`: an HTTP DNS API reached by IP, `[format=alibaba|dnspod|json|
///   dns-message] [account=ID] [secret=KEY] [path=/PATH] [trusted]`;
/// - `tls`: DNS over TLS (RFC 7858), `name=NAME [pin=sha256/BASE64] [trusted]`;
/// - `https`: DNS over HTTPS (RFC 8484), `name=NAME [path=/PATH]
///   [format=dns-message|json] [pin=sha256/BASE64] [trusted]`.
extension ConfigReader {
  /// The options after the address, in any order, each at most once. The
  /// format is `dns-message` for https unless given, and for httpdns
  /// `alibaba` with `account=`, else `json`;
  /// `account=` is required for `alibaba` and, like `secret=` (which makes
  /// dnsward sign its requests), allowed for no other format; `path=` only
  /// for `json` and `dns-message`; `name=` is required for tls and https.
  func readUpstreamOptions(
    _ options: ArraySlice<ArraySlice<UInt8>>, into server: inout UpstreamServer
  ) throws(LineError) {
    let transport = server.transport
    if transport == .https { server.httpdnsFormat = .dnsMessage }
    var seen: UInt8 = 0
    for token in options {
      let equals = token.firstIndex(of: UInt8(ascii: "="))
      // `format=`, `account=`, ... with the `=`; `trusted` alone. Messages
      // quote only this part, so that a secret is never repeated in a
      // build log.
      let key = token[..<(equals.map { $0 + 1 } ?? token.endIndex)]
      guard let option = UpstreamOption.named(key), option.isOption(of: transport) else {
        throw UpstreamOption.unknown(key, for: transport)
      }
      guard seen & option.bit == 0 else {
        throw upstreamError(
          "duplicate ", transport, " option ", key, " (each option at most once)")
      }
      seen |= option.bit
      let value = token[key.endIndex...]
      if option != .trusted && value.isEmpty {
        throw upstreamError(
          "empty value for ", transport, " option ", key, " (a value must follow the '=')")
      }
      switch option {
      case .format: server.httpdnsFormat = try format(value, for: transport)
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
      case .name: server.tlsName = try tlsName(value)
      case .pin: server.pin = try pin(value)
      case .path: server.path = try requestPath(value)
      case .trusted: server.trusted = true
      }
    }
    if transport.usesTLS && server.tlsName.isEmpty {
      throw LineError(
        """
        upstream \(transport.name) needs name=NAME, the name its certificate is issued to \
        (e.g. name=dns.quad9.net); the server is still reached by its address
        """)
    }
    if transport == .https && server.tlsName.count + server.path.count > Self.maxNameAndPathLength {
      throw LineError(
        """
        name= and path= together are longer than 250 characters \
        (a request must fit dnsward's 1 KiB buffer)
        """)
    }
    guard transport.isHTTP else { return }
    // `account=` without `format=`: the one format that takes an account.
    if transport == .httpdns && seen & UpstreamOption.format.bit == 0 && !server.account.isEmpty {
      server.httpdnsFormat = .alibaba
    }
    let format = server.httpdnsFormat
    if format == .alibaba {
      guard !server.account.isEmpty else {
        throw LineError(
          "format=alibaba needs account=ID (the account ID of the Alibaba Cloud HTTPDNS service)")
      }
    } else if !server.account.isEmpty || !server.secret.isEmpty {
      throw httpdnsError(
        "", spelling(server.account.isEmpty ? "secret=" : "account="),
        " is only for format=alibaba (this upstream's format is ", format.name, ")")
    }
    if !server.path.isEmpty && format != .json && format != .dnsMessage {
      throw httpdnsError(
        "", spelling("path="), " is only for format=json or dns-message (format=",
        format.name, " has its own paths)")
    }
  }

  /// `format=`: any of the four for httpdns; for https only the two that
  /// are served over HTTPS (alibaba and dnspod are plain-HTTP APIs).
  func format(_ value: ArraySlice<UInt8>, for transport: UpstreamTransport) throws(LineError)
    -> HTTPDNSFormat
  {
    if ConfigValues.isWord(value, "json") { return .json }
    if ConfigValues.isWord(value, "dns-message") { return .dnsMessage }
    if transport == .httpdns {
      if ConfigValues.isWord(value, "alibaba") { return .alibaba }
      if ConfigValues.isWord(value, "dnspod") { return .dnspod }
    }
    let expected: StaticString =
      transport == .https
      ? "dns-message or json; alibaba and dnspod are plain-HTTP APIs, for upstream httpdns"
      : "alibaba, dnspod, json or dns-message"
    throw upstreamError("unknown ", transport, " format ", value, " (expected ", expected, ")")
  }
}

/// `BEFORE'TOKEN'AFTER`, then `MORE` and `END` as they are: the messages of
/// the upstream options through one out-of-line call each (a `String`
/// interpolation per message would cost far more code in Embedded builds).
@inline(never)
func httpdnsError(
  _ before: StaticString, _ token: ArraySlice<UInt8>, _ after: StaticString,
  _ more: StaticString = "", _ end: StaticString = ""
) -> LineError {
  LineError("\(before)\(quoted: token)\(after)\(more)\(end)")
}

/// `BEFORE TRANSPORT MIDDLE'TOKEN'AFTER` then `MORE` and `END`: a message
/// naming the upstream's transport.
@inline(never)
func upstreamError(
  _ before: StaticString, _ transport: UpstreamTransport, _ middle: StaticString,
  _ token: ArraySlice<UInt8>, _ after: StaticString, _ more: StaticString = "",
  _ end: StaticString = ""
) -> LineError {
  LineError("\(before)\(transport.name)\(middle)\(quoted: token)\(after)\(more)\(end)")
}

/// The bytes of a literal, to quote it like a token.
func spelling(_ text: StaticString) -> ArraySlice<UInt8> {
  text.withUTF8Buffer { Array($0) }[...]
}

/// An account ID's characters: letters, digits, `_` and `-`.
func isAccountByte(_ byte: UInt8) -> Bool {
  (Name.asciiLowercased(byte) &- 0x61 < 26) || (byte &- 0x30 < 10) || byte == UInt8(ascii: "_")
    || byte == UInt8(ascii: "-")
}

/// The options of `upstream httpdns|tls|https`; the raw value is the
/// option's bit in the set of those seen on the line. Near-miss hints try
/// them in this order.
enum UpstreamOption: UInt8, CaseIterable {
  case format, account, secret, name, pin, path, trusted

  var bit: UInt8 { 1 << rawValue }

  var spelling: StaticString {
    switch self {
    case .format: return "format="
    case .account: return "account="
    case .secret: return "secret="
    case .name: return "name="
    case .pin: return "pin="
    case .path: return "path="
    case .trusted: return "trusted"
    }
  }

  /// The option spelled `key` (with its `=`), if any.
  static func named(_ key: ArraySlice<UInt8>) -> UpstreamOption? {
    for option in allCases where option.spelling.withUTF8Buffer({ key.elementsEqual($0) }) {
      return option
    }
    return nil
  }

  /// Whether `transport` takes it.
  func isOption(of transport: UpstreamTransport) -> Bool {
    switch self {
    case .format, .path: return transport.isHTTP
    case .account, .secret: return transport == .httpdns
    case .name, .pin: return transport.usesTLS
    case .trusted: return true
    }
  }

  /// `unknown tls option 'KEY'`, with `(did you mean 'name='?)` for a near
  /// miss among the transport's options, else the transport's options.
  static func unknown(_ key: ArraySlice<UInt8>, for transport: UpstreamTransport) -> LineError {
    let lowered = key.map(Name.asciiLowercased)
    for option in allCases
    where option.isOption(of: transport)
      && option.spelling.withUTF8Buffer({ editDistance(lowered, Array($0)) }) <= 2
    {
      return upstreamError(
        "unknown ", transport, " option ", key, " (did you mean '", option.spelling, "'?)")
    }
    return upstreamError(
      "unknown ", transport, " option ", key, " (expected ", transport.optionList, ")")
  }
}

extension UpstreamTransport {
  /// The spelling in the config, for messages, the summary and the generator.
  var name: StaticString {
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

  /// The options it takes, for messages.
  var optionList: StaticString {
    switch self {
    case .httpdns: return "format=, account=, secret=, path= or trusted"
    case .tls: return "name=, pin= or trusted"
    case .https: return "name=, path=, format=, pin= or trusted"
    case .udp, .tcp: return "trusted"
    }
  }
}

extension HTTPDNSFormat {
  /// The spelling in the config (`format=NAME`).
  var name: StaticString {
    switch self {
    case .alibaba: return "alibaba"
    case .dnspod: return "dnspod"
    case .json: return "json"
    case .dnsMessage: return "dns-message"
    }
  }

  /// The case's name in Swift source.
  var swiftName: StaticString { self == .dnsMessage ? "dnsMessage" : name }

  /// The request path when `path=` gives none.
  var defaultPath: StaticString {
    switch self {
    case .json: return "/resolve"
    case .dnsMessage: return "/dns-query"
    case .alibaba, .dnspod: return ""
    }
  }
}
