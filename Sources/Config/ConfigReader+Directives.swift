import CompiledConfig
import DNSWire

/// The directives that add entries: addresses, upstreams and names.
extension ConfigReader {
  mutating func addListen(_ token: ArraySlice<UInt8>, line: Int) throws(LineError) {
    let endpoint = try ConfigValues.endpoint(token, allowAnyPort: true)
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
    _ allOptions: ArraySlice<ArraySlice<UInt8>>, line: Int
  ) throws(LineError) {
    let (options, routes) = try routeOptions(allOptions)
    // nil: resolv-conf.
    let transport: UpstreamTransport?
    if ConfigValues.isWord(transportToken, "udp") {
      transport = .udp
    } else if ConfigValues.isWord(transportToken, "tcp") {
      transport = .tcp
    } else if ConfigValues.isWord(transportToken, "tls") {
      transport = .tls
    } else if ConfigValues.isWord(transportToken, "https") {
      transport = .https
    } else if ConfigValues.isWord(transportToken, "httpdns") {
      transport = .httpdns
    } else if ConfigValues.isWord(transportToken, "resolv-conf") {
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
      if transport == nil, let option = options.first, ConfigValues.isWord(option, "trusted") {
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
      guard routes.isEmpty else {
        throw LineError(
          "'upstream resolv-conf' takes no 'for': route domains to an upstream udp or tcp instead")
      }
      guard resolvConfLine == 0 else {
        throw LineError(
          "second 'upstream resolv-conf' (first on line \(resolvConfLine)); at most one is allowed"
        )
      }
      settings.resolvConfPath = try ConfigValues.path(target)
      settings.resolvConfPosition = settings.upstreams.count
      resolvConfLine = line
      return
    }
    // HTTP's, HTTPS's and DoT's own ports, DNS's for udp and tcp.
    var server = UpstreamServer(
      transport: transport,
      endpoint: try ConfigValues.endpoint(target, defaultPort: transport.defaultPort))
    guard server.endpoint.address != IPAddress.anyV6,
      server.endpoint.address != IPAddress(ipv4: 0)
    else {
      throw LineError("upstream address \(quoted: target) is unspecified (0.0.0.0 or ::)")
    }
    if takesOptions {
      try readUpstreamOptions(options, into: &server)
    } else if let option = options.first {
      guard ConfigValues.isWord(option, "trusted") else {
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
    try addRoutes(routes)
  }

  /// `override NAME ADDRESS...` or `override *.NAME ADDRESS...`.
  mutating func addOverride(
    _ nameToken: ArraySlice<UInt8>, _ addressTokens: ArraySlice<ArraySlice<UInt8>>, line: Int
  ) throws(LineError) {
    let isWildcard = nameToken.starts(with: [UInt8(ascii: "*"), UInt8(ascii: ".")])
    if nameToken.elementsEqual([UInt8(ascii: "*")]) {
      throw LineError("'*' alone would match every name; write *.NAME")
    }
    let name = try ConfigValues.flatName(
      isWildcard ? nameToken.dropFirst(2) : nameToken, written: nameToken)
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
    let name = try ConfigValues.flatName(nameToken, written: nameToken)
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
    let name = try ConfigValues.flatName(nameToken, written: nameToken)
    guard name != Name.root else { throw LineError("the root name cannot be prefetched") }
    var lines = nameLines.lines(for: name) ?? NameLines()
    if lines.prefetch != 0 {
      throw .duplicate("prefetch of \(quoted: nameToken)", firstOn: lines.prefetch)
    }
    lines.prefetch = line
    nameLines.setLines(lines, for: name)
    settings.prefetchNames.append(contentsOf: name)
  }
}
