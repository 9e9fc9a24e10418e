import CompiledConfig
import DNSWire

/// The directives that add entries: addresses, upstreams and names.
extension ConfigReader {
  mutating func addListen(_ token: ArraySlice<UInt8>, line: Int) throws(LineError) {
    let endpoint = try endpoint(token, allowAnyPort: true)
    if let index = settings.listen.firstIndex(of: endpoint) {
      throw .duplicate("listen \(endpoint)", firstOn: listenLines[index])
    }
    settings.listen.append(endpoint)
    listenLines.append(line)
  }

  mutating func addAllow(_ token: ArraySlice<UInt8>, line: Int) throws(LineError) {
    let prefix: AddressPrefix
    do throws(AddressSyntaxError) {
      prefix = try AddressSyntax.parsePrefix(token)
    } catch {
      throw LineError(error)
    }
    if let index = settings.allow.firstIndex(of: prefix) {
      throw .duplicate("allow \(prefix)", firstOn: allowLines[index])
    }
    settings.allow.append(prefix)
    allowLines.append(line)
  }

  /// `upstream udp|tcp ADDRESS[:PORT] [trusted]`, `upstream httpdns|tls|https
  /// ADDRESS[:PORT] [OPTION...]` (see `readUpstreamOptions`) or `upstream
  /// resolv-conf PATH`.
  mutating func addUpstream(
    _ transportToken: ArraySlice<UInt8>, _ target: ArraySlice<UInt8>,
    _ options: ArraySlice<ArraySlice<UInt8>>, line: Int
  ) throws(LineError) {
    // nil: resolv-conf.
    let transport: UpstreamTransport?
    if isWord(transportToken, "udp") {
      transport = .udp
    } else if isWord(transportToken, "tcp") {
      transport = .tcp
    } else if isWord(transportToken, "tls") {
      transport = .tls
    } else if isWord(transportToken, "https") {
      transport = .https
    } else if isWord(transportToken, "httpdns") {
      transport = .httpdns
    } else if isWord(transportToken, "resolv-conf") {
      transport = nil
    } else {
      throw LineError(
        """
        unknown upstream transport \(quoted: transportToken) \
        (expected udp, tcp, tls, https, httpdns or resolv-conf)
        """)
    }
    // udp and tcp take at most `trusted`, resolv-conf nothing; the options
    // of the others are read below.
    let takesOptions = transport.map { $0.isHTTP || $0.usesTLS } ?? false
    if !takesOptions {
      if transport == nil, let option = options.first, isWord(option, "trusted") {
        throw LineError(
          """
          'upstream resolv-conf' cannot be trusted: its nameservers are the network's own \
          (mark an upstream udp, tcp, tls or https trusted, e.g. upstream tcp 9.9.9.9 trusted)
          """)
      }
      let allowed = transport == nil ? 0 : 1
      if options.count > allowed {
        throw LineError(
          """
          extra argument \(quoted: options[options.startIndex + allowed]) to 'upstream' \
          (usage: \(Directive.upstream.usage))
          """)
      }
    }
    guard let transport else {
      guard resolvConfLine == 0 else {
        throw LineError(
          "second 'upstream resolv-conf' (first on line \(resolvConfLine)); at most one is allowed"
        )
      }
      settings.resolvConfPath = try path(target)
      settings.resolvConfPosition = settings.upstreams.count
      resolvConfLine = line
      return
    }
    // HTTP's, HTTPS's and DoT's own ports, DNS's for udp and tcp.
    var server = UpstreamServer(
      transport: transport, endpoint: try endpoint(target, defaultPort: transport.defaultPort))
    guard server.endpoint.address != IPAddress.anyV6,
      server.endpoint.address != IPAddress(ipv4: 0)
    else {
      throw LineError("upstream address \(quoted: target) is unspecified (0.0.0.0 or ::)")
    }
    if takesOptions {
      try readUpstreamOptions(options, into: &server)
    } else if let option = options.first {
      guard isWord(option, "trusted") else {
        throw LineError(
          "unknown upstream option \(quoted: option) (expected trusted; usage: \(Directive.upstream.usage))"
        )
      }
      server.trusted = true
    }
    // The same server twice is a duplicate whether or not either is trusted,
    // and for httpdns and https whatever its format and name: one server
    // speaks one API.
    if let index = settings.upstreams.firstIndex(where: {
      $0.transport == server.transport && $0.endpoint == server.endpoint
    }) {
      throw .duplicate(
        "upstream \(transport.name) \(server.endpoint)", firstOn: upstreamLines[index])
    }
    settings.upstreams.append(server)
    upstreamLines.append(line)
  }

  /// `override NAME ADDRESS...` or `override *.NAME ADDRESS...`.
  mutating func addOverride(
    _ nameToken: ArraySlice<UInt8>, _ addressTokens: ArraySlice<ArraySlice<UInt8>>, line: Int
  ) throws(LineError) {
    let isWildcard = nameToken.starts(with: [UInt8(ascii: "*"), UInt8(ascii: ".")])
    if nameToken.elementsEqual([UInt8(ascii: "*")]) {
      throw LineError("'*' alone would match every name; write *.NAME")
    }
    let name = try flatName(isWildcard ? nameToken.dropFirst(2) : nameToken, written: nameToken)
    guard name != Name.root else { throw LineError("the root name cannot be overridden") }
    var lines = nameLines.lines(for: name) ?? NameLines()
    if isWildcard {
      if lines.wildcard != 0 {
        throw .duplicate("override of \(quoted: nameToken)", firstOn: lines.wildcard)
      }
      if lines.block != 0 {
        throw LineError(
          """
          override of \(quoted: nameToken) conflicts with the block on line \(lines.block), \
          which already covers every name below it
          """)
      }
      lines.wildcard = line
    } else {
      if lines.exact != 0 {
        throw .duplicate("override of \(quoted: nameToken)", firstOn: lines.exact)
      }
      if lines.block != 0 {
        throw LineError(
          "override of \(quoted: nameToken) conflicts with the block on line \(lines.block)")
      }
      lines.exact = line
    }
    var ipv4: [UInt8] = []
    var ipv6: [UInt8] = []
    var seen: [ParsedAddress] = []
    for token in addressTokens {
      let parsed: ParsedAddress
      do throws(AddressSyntaxError) {
        parsed = try AddressSyntax.parseAddress(token)
      } catch {
        throw LineError(error)
      }
      guard !seen.contains(parsed) else {
        throw LineError("duplicate address \(quoted: token) for \(quoted: nameToken)")
      }
      seen.append(parsed)
      switch parsed {
      case .ipv4(let value):
        for shift in stride(from: 24, through: 0, by: -8) {
          ipv4.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
        }
      case .ipv6(let address):
        for index in 0..<16 { ipv6.append(address.byte(index)) }
      }
    }
    // The counts are stored in one byte each (OverrideTable entry layout).
    guard ipv4.count / 4 <= 255, ipv6.count / 16 <= 255 else {
      let family: StaticString = ipv4.count / 4 > 255 ? "IPv4" : "IPv6"
      throw LineError("more than 255 \(family) addresses for \(quoted: nameToken)")
    }
    try addEntry(
      OverrideTableBuilder.Entry(
        name: name, kind: isWildcard ? .wildcard : .exact, ipv4: ipv4, ipv6: ipv6))
    nameLines.setLines(lines, for: name)
  }

  /// `block NAME`: NAME and everything below it.
  mutating func addBlock(_ nameToken: ArraySlice<UInt8>, line: Int) throws(LineError) {
    if nameToken.first == UInt8(ascii: "*") {
      throw LineError(
        "block takes a name, not a wildcard: 'block NAME' already covers every name below NAME")
    }
    let name = try flatName(nameToken, written: nameToken)
    guard name != Name.root else {
      throw LineError("the root name cannot be blocked (that would block every name)")
    }
    var lines = nameLines.lines(for: name) ?? NameLines()
    if lines.block != 0 {
      throw .duplicate("block of \(quoted: nameToken)", firstOn: lines.block)
    }
    if lines.exact != 0 || lines.wildcard != 0 {
      let other = lines.exact != 0 ? lines.exact : lines.wildcard
      throw LineError(
        "block of \(quoted: nameToken) conflicts with the override on line \(other)")
    }
    lines.block = line
    try addEntry(OverrideTableBuilder.Entry(name: name, kind: .block))
    nameLines.setLines(lines, for: name)
  }

  /// `prefetch NAME`: a name kept warm; the engine reads the flat names
  /// back from `Settings.prefetchNames`.
  mutating func addPrefetch(_ nameToken: ArraySlice<UInt8>, line: Int) throws(LineError) {
    if nameToken.first == UInt8(ascii: "*") {
      throw LineError(
        "prefetch takes a name, not a wildcard: only names asked before can be refreshed")
    }
    let name = try flatName(nameToken, written: nameToken)
    guard name != Name.root else { throw LineError("the root name cannot be prefetched") }
    var lines = nameLines.lines(for: name) ?? NameLines()
    if lines.prefetch != 0 {
      throw .duplicate("prefetch of \(quoted: nameToken)", firstOn: lines.prefetch)
    }
    lines.prefetch = line
    nameLines.setLines(lines, for: name)
    settings.prefetchNames.append(contentsOf: name)
  }

  // MARK: - Values

  func endpoint(
    _ token: ArraySlice<UInt8>, defaultPort: UInt16 = 53, allowAnyPort: Bool = false
  ) throws(LineError) -> Endpoint {
    do throws(AddressSyntaxError) {
      return try AddressSyntax.parseEndpoint(
        token, defaultPort: defaultPort, allowAnyPort: allowAnyPort)
    } catch {
      throw LineError(error)
    }
  }

  /// A host name as lower-cased flat wire bytes. `written` is the token as it
  /// appears in the file, for messages. The characters are checked here
  /// first so that the message can name the offending one.
  func flatName(_ text: ArraySlice<UInt8>, written: ArraySlice<UInt8>) throws(LineError)
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
    if text.count > 1, hasEmptyLabel(text) {
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
  func hasEmptyLabel(_ text: ArraySlice<UInt8>) -> Bool {
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
  func path(_ token: ArraySlice<UInt8>, label: StaticString = "resolv-conf", reserve: Int = 0)
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
  func cacheFilePath(_ token: ArraySlice<UInt8>) throws(LineError) -> [UInt8] {
    let path = try path(token, label: "cache-file", reserve: 4)
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
  func caFilePath(_ token: ArraySlice<UInt8>) throws(LineError) -> [UInt8] {
    let path = try path(token, label: "ca-file")
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
  func userName(_ token: ArraySlice<UInt8>) throws(LineError) -> [UInt8] {
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

  func logLevel(_ token: ArraySlice<UInt8>) throws(LineError) -> LogLevel {
    if isWord(token, "error") { return .error }
    if isWord(token, "warning") { return .warning }
    if isWord(token, "info") { return .info }
    if isWord(token, "debug") { return .debug }
    throw LineError(
      "unknown log level \(quoted: token) (expected error, warning, info or debug)")
  }

  func onOff(_ token: ArraySlice<UInt8>, for directive: Directive) throws(LineError) -> Bool {
    if isWord(token, "on") { return true }
    if isWord(token, "off") { return false }
    throw LineError("'\(directive.name)' expects on or off, got \(quoted: token)")
  }

  /// A decimal number within `range`.
  func number(_ token: ArraySlice<UInt8>, for directive: Directive, range: ClosedRange<Int>)
    throws(LineError) -> Int
  {
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

  /// `1500ms`, `2s` or a bare number of milliseconds, within `range` (ms).
  func duration(_ token: ArraySlice<UInt8>, for directive: Directive, range: ClosedRange<UInt32>)
    throws(LineError) -> UInt32
  {
    let lower = Int(range.lowerBound)
    let upper = Int(range.upperBound)
    return UInt32(try quantity(token, for: directive, scale: .milliseconds, range: lower...upper))
  }

  /// `300`, `90s`, `5m`, `1h` or `1d`: whole seconds within `range` (s).
  /// Unlike `duration`, a bare number is seconds, the unit of a DNS TTL.
  func seconds(_ token: ArraySlice<UInt8>, for directive: Directive, range: ClosedRange<UInt32>)
    throws(LineError) -> UInt32
  {
    let lower = Int(range.lowerBound)
    let upper = Int(range.upperBound)
    return UInt32(try quantity(token, for: directive, scale: .seconds, range: lower...upper))
  }

  /// Decimal digits and an optional unit of `scale`, scaled to the base unit
  /// and within `range` (in the base unit). Ten digits or more, or a product
  /// that overflows `Int`, are out of range, never a trap.
  func quantity(
    _ token: ArraySlice<UInt8>, for directive: Directive, scale: UnitScale,
    range: ClosedRange<Int>
  ) throws(LineError) -> Int {
    let digits = token.prefix(while: AddressSyntax.isDigit)
    let unit = token[digits.endIndex...]
    guard !digits.isEmpty else {
      throw LineError(
        "bad \(scale.kind) \(quoted: token) for '\(directive.name)' (\(scale.example))")
    }
    if unit.first == UInt8(ascii: ".") {
      throw LineError("bad \(scale.kind) \(quoted: token): \(scale.fractionHint)")
    }
    guard let multiplier = unit.isEmpty ? scale.bareMultiplier : scale.multiplier(of: unit) else {
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
  func isWord(_ token: ArraySlice<UInt8>, _ word: StaticString) -> Bool {
    word.withUTF8Buffer { token.elementsEqual($0) }
  }
}
