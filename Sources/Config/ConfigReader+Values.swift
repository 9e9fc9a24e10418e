import CompiledConfig
import DNSWire

/// The values directives take: endpoints, names, paths, words and numbers.
/// Each reads one token and nothing of the reader's state; a bad one is a
/// `LineError` (the reader adds the file and line).
enum ConfigValues {
  static func endpoint(
    _ token: ArraySlice<UInt8>, defaultPort: UInt16 = 53, allowAnyPort: Bool = false
  ) throws(LineError) -> Endpoint {
    do throws(AddressSyntaxError) {
      return try AddressSyntax.parseEndpoint(
        token, defaultPort: defaultPort, allowAnyPort: allowAnyPort)
    } catch {
      throw LineError(error)
    }
  }

  /// `metrics ADDRESS:PORT`: the port is required (no port is the metrics
  /// port by convention); 0 binds a free one.
  static func metricsEndpoint(_ token: ArraySlice<UInt8>) throws(LineError) -> Endpoint {
    let colon = UInt8(ascii: ":")
    let bracketed = token.first == UInt8(ascii: "[")
    let close = token.firstIndex(of: UInt8(ascii: "]"))
    let portGiven =
      bracketed
      ? close.map { $0 + 1 < token.endIndex && token[$0 + 1] == colon } ?? true
      : token.contains(colon)
    guard portGiven else {
      throw LineError("metrics \(quoted: token): missing ':PORT' (e.g. 127.0.0.1:9153)")
    }
    return try Self.endpoint(token, allowAnyPort: true)
  }

  /// A host name as lower-cased flat wire bytes. `written` is the token as it
  /// appears in the file, for messages. The characters are checked here
  /// first so that the message can name the offending one.
  static func flatName(_ text: ArraySlice<UInt8>, written: ArraySlice<UInt8>) throws(LineError)
    -> [UInt8]
  {
    guard !text.isEmpty else { throw LineError("bad name \(quoted: written): nothing after '*.'") }
    for byte in text {
      let lower = Name.asciiLowercased(byte)
      let isAllowed =
        (lower &- 0x61 < 26) || (byte &- 0x30 < 10) || byte == UInt8(ascii: "-")
        || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
      guard isAllowed else {
        if byte == UInt8(ascii: "*") {
          throw LineError(
            "bad name \(quoted: written): '*' is allowed only as the whole first label, as in *.dev.lan"
          )
        }
        throw LineError(
          """
          bad name \(quoted: written): unexpected character \(quoted: [byte]) \
          (use letters, digits, '-' and '_')
          """)
      }
    }
    if text.count > 1, Self.hasEmptyLabel(text) {
      throw LineError(
        "bad name \(quoted: written): empty label (two dots in a row, or a leading dot)")
    }
    var output = [UInt8](repeating: 0, count: Name.maxLength)
    // `withUnsafeBytes` rethrows untyped errors, so the result comes out as a
    // `Result` to keep the error typed.
    let parsed = Array(text).withUnsafeBytes { textBytes in
      output.withUnsafeMutableBytes { outputBytes in
        Result { () throws(WireError) in try Name.parse(text: textBytes, into: outputBytes) }
      }
    }
    let length: Int
    switch parsed {
    case .success(let count): length = count
    case .failure(let error):
      switch error {
      case .labelTooLong:
        let longest = text.split(separator: UInt8(ascii: ".")).first { $0.count > 63 }
        throw LineError(
          """
          bad name \(quoted: written): label \(quoted: longest?.prefix(20) ?? [])... is \
          \(longest?.count ?? 64) characters long, more than 63 (RFC 1035 §2.3.4)
          """)
      case .nameTooLong, .bufferFull:
        throw LineError(
          "bad name \(quoted: written): longer than 255 octets in wire form (RFC 1035 §2.3.4)")
      default:
        throw LineError("bad name \(quoted: written)")
      }
    }
    return Array(output[..<length])
  }

  /// Whether the text has an empty label: a leading dot or two dots in a
  /// row. A single trailing dot (a fully qualified name) is fine.
  static func hasEmptyLabel(_ text: ArraySlice<UInt8>) -> Bool {
    var previousWasDot = true
    for byte in text {
      let isDot = byte == UInt8(ascii: ".")
      if isDot && previousWasDot { return true }
      previousWasDot = isDot
    }
    return false
  }

  /// An absolute file path without control characters, at most PATH_MAX - 1
  /// (4095) bytes less `reserve`. `label` names it in messages.
  static func path(
    _ token: ArraySlice<UInt8>, label: StaticString = "resolv-conf", reserve: Int = 0
  )
    throws(LineError) -> [UInt8]
  {
    guard token.first == UInt8(ascii: "/") else {
      throw LineError("\(label) path \(quoted: token) must be absolute")
    }
    guard token.count < 4096 - reserve, !token.contains(where: { $0 < 0x20 || $0 == 0x7F })
    else {
      throw LineError("bad \(label) path \(quoted: token)")
    }
    return Array(token)
  }

  /// `cache-file PATH`: a file, not a directory; `PATH.tmp` (where it is
  /// written before the rename) must fit PATH_MAX too.
  static func cacheFilePath(_ token: ArraySlice<UInt8>) throws(LineError) -> [UInt8] {
    let path = try Self.path(token, label: "cache-file", reserve: 4)
    guard path.last != UInt8(ascii: "/") else {
      throw LineError(
        """
        cache-file path \(quoted: token) names a directory; name a file in it, \
        e.g. /tmp/dnsward.cache
        """)
    }
    return path
  }

  /// `ca-file PATH`: a file of PEM certificates, not a directory.
  static func caFilePath(_ token: ArraySlice<UInt8>) throws(LineError) -> [UInt8] {
    let path = try Self.path(token, label: "ca-file")
    guard path.last != UInt8(ascii: "/") else {
      throw LineError(
        """
        ca-file path \(quoted: token) names a directory; name a file of PEM certificates, \
        e.g. /etc/ssl/certs/ca-certificates.crt
        """)
    }
    return path
  }

  /// A portable user name (POSIX.1 §3.437 portable filename characters, not
  /// starting with '-'), at most 32 bytes like the `useradd` limit.
  static func userName(_ token: ArraySlice<UInt8>) throws(LineError) -> [UInt8] {
    let isPortable = token.allSatisfy { byte in
      (Name.asciiLowercased(byte) &- 0x61 < 26) || (byte &- 0x30 < 10)
        || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
    }
    guard isPortable, token.count <= 32, token.first != UInt8(ascii: "-") else {
      throw LineError(
        """
        bad user name \(quoted: token) (up to 32 letters, digits, '.', '_' or '-', \
        not starting with '-')
        """)
    }
    return Array(token)
  }

  static func logLevel(_ token: ArraySlice<UInt8>) throws(LineError) -> LogLevel {
    if Self.isWord(token, "error") { return .error }
    if Self.isWord(token, "warning") { return .warning }
    if Self.isWord(token, "info") { return .info }
    if Self.isWord(token, "debug") { return .debug }
    throw LineError(
      "unknown log level \(quoted: token) (expected error, warning, info or debug)")
  }

  static func onOff(_ token: ArraySlice<UInt8>, for directive: Directive) throws(LineError) -> Bool
  {
    if Self.isWord(token, "on") { return true }
    if Self.isWord(token, "off") { return false }
    throw LineError("'\(directive.name)' expects on or off, got \(quoted: token)")
  }

  /// The number `token` writes for `directive`, in the unit and within the
  /// range of its declaration (`Directive.declaration`): decimal digits and,
  /// but for a plain count, an optional unit suffix, scaled to the base unit.
  /// Ten digits or more, or a product that overflows `Int`, are out of
  /// range, never a trap.
  static func number(_ token: ArraySlice<UInt8>, for directive: Directive) throws(LineError) -> Int
  {
    let declared = directive.declaration
    let range = declared.range
    guard let scale = declared.unit.scale else {
      guard token.allSatisfy(AddressSyntax.isDigit) else {
        throw LineError("'\(directive.name)' expects a number, got \(quoted: token)")
      }
      guard let value = AddressSyntax.decimal(token), range.contains(value) else {
        throw LineError(
          "\(directive.name) \(escaped: token) is out of range \(range.lowerBound)...\(range.upperBound)"
        )
      }
      return value
    }
    let digits = token.prefix(while: AddressSyntax.isDigit)
    let unit = token[digits.endIndex...]
    guard !digits.isEmpty else {
      throw LineError(
        "bad \(scale.kind) \(quoted: token) for '\(directive.name)' (\(scale.example))")
    }
    if unit.first == UInt8(ascii: ".") {
      throw LineError("bad \(scale.kind) \(quoted: token): \(scale.fractionHint)")
    }
    guard let multiplier = unit.isEmpty ? 1 : scale.multiplier(of: unit) else {
      throw LineError("unknown unit \(quoted: unit) in \(quoted: token) (use \(scale.unitList))")
    }
    guard let number = AddressSyntax.decimal(digits),
      case let (value, overflow) = number.multipliedReportingOverflow(by: multiplier),
      !overflow, range.contains(value)
    else {
      throw LineError(
        """
        \(directive.name) \(escaped: token) is out of range \
        \(scale.describe(range.lowerBound))...\(scale.describe(range.upperBound))
        """)
    }
    return value
  }

  /// Whether the token is exactly `word`, byte for byte. (Comparing bytes,
  /// not Strings, keeps the Unicode tables out of Embedded Swift builds.)
  static func isWord(_ token: ArraySlice<UInt8>, _ word: StaticString) -> Bool {
    word.withUTF8Buffer { token.elementsEqual($0) }
  }
}
