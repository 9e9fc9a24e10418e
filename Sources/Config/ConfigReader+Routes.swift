import CompiledConfig
import DNSWire

/// Domain routing (split DNS): `upstream KIND ADDRESS ... for NAME` and
/// `... for-list PATH`, on every kind but `resolv-conf`.
///
/// An upstream with `for` answers only the names at or below its domains,
/// and the names no `for` matches go only to the upstreams without one; the
/// longest matching domain decides. Upstreams naming the same domain answer
/// it together (failover in config order). Each domain lands in
/// `Settings.routes` with the group of the set of upstreams naming it
/// (`OverrideTableBuilder.buildRoutes`); each upstream's `routeGroups` has a
/// bit for each group it serves.
///
/// A `for-list` file has one domain per line, `#` comments, or dnsmasq's
/// `server=/DOMAIN/.../ADDRESS` lines (the domains are taken, the address
/// ignored), so that lists written for dnsmasq work unchanged. A list is
/// data fetched from elsewhere: a bad line in it is skipped and reported as
/// `LIST:LINE: message` in `SourceLines.skippedListLines` (logged by
/// `dnsward --config`, fatal for `dnsward-confgen`), never failing the
/// config.
extension ConfigReader {
  /// Upstreams that can carry routes: `routeGroups` bits are per upstream
  /// index below 64 (`OverrideTableBuilder.Entry.upstream`).
  static let routedUpstreamLimit = 64
  /// Route groups: distinct sets of upstreams sharing domains (bits 1…63
  /// of `UpstreamServer.routeGroups`).
  static let routeGroupLimit = 63

  /// Splits the `for NAME` and `for-list PATH` pairs off an upstream's
  /// options: the other options, and the pairs (`isList`, value) in order.
  func routeOptions(_ options: ArraySlice<ArraySlice<UInt8>>) throws(LineError) -> (
    rest: ArraySlice<ArraySlice<UInt8>>, routes: [(isList: Bool, value: ArraySlice<UInt8>)]
  ) {
    var rest: [ArraySlice<UInt8>] = []
    var routes: [(isList: Bool, value: ArraySlice<UInt8>)] = []
    var index = options.startIndex
    while index < options.endIndex {
      let token = options[index]
      let isList = isWord(token, "for-list")
      guard isList || isWord(token, "for") else {
        rest.append(token)
        index += 1
        continue
      }
      guard index + 1 < options.endIndex else {
        throw LineError(
          isList
            ? "missing file after 'for-list' (e.g. for-list china.conf)"
            : "missing domain after 'for' (e.g. for corp.example)")
      }
      routes.append((isList, options[index + 1]))
      index += 2
    }
    return (rest[...], routes)
  }

  /// Adds the routes of the upstream just added (the last of
  /// `settings.upstreams`).
  mutating func addRoutes(_ routes: [(isList: Bool, value: ArraySlice<UInt8>)]) throws(LineError) {
    guard !routes.isEmpty else { return }
    let upstream = settings.upstreams.count - 1
    guard upstream < Self.routedUpstreamLimit else {
      throw LineError(
        "'for' is allowed on the first \(Self.routedUpstreamLimit) upstreams only")
    }
    for route in routes {
      if route.isList {
        try addRouteList(route.value, upstream: upstream)
      } else {
        try addRoute(route.value, upstream: upstream)
      }
    }
  }

  /// One routed domain: a name (not `*.`, not the root).
  mutating func addRoute(_ token: ArraySlice<UInt8>, upstream: Int) throws(LineError) {
    if token.first == UInt8(ascii: "*") {
      throw LineError(
        "'for' takes a domain, not a wildcard: \(quoted: token) already covers every name below it")
    }
    let name = try flatName(token, written: token)
    guard name != Name.root else {
      throw LineError(
        "'for .' would route every name: leave 'for' out for the upstreams of the other names")
    }
    let entry = OverrideTableBuilder.Entry(name: name, kind: .route, upstream: UInt8(upstream))
    guard routes.hasRoom(for: entry) else {
      throw LineError(
        "too many routed domains: the route table holds at most \(OverrideRecord.offsetLimit >> 20) MiB of names"
      )
    }
    routes.add(entry)
  }

  /// `for-list PATH`: every domain of the file; bad lines are skipped.
  mutating func addRouteList(_ token: ArraySlice<UInt8>, upstream: Int) throws(LineError) {
    guard token.count < 4096, !token.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
      throw LineError("bad for-list path \(quoted: token)")
    }
    let path = resolvedPath(token)
    let read = readFile?(path) ?? .failure(ConfigFileError(reason: "files cannot be read here"))
    let contents: [UInt8]
    switch read {
    case .success(let bytes): contents = bytes
    case .failure(let error):
      throw LineError("cannot read for-list \(quoted: path): \(error.reason)")
    }
    let listName = String(decoding: path, as: UTF8.self)
    var lineNumber = 0
    var lineStart = 0
    while lineStart < contents.count {
      lineNumber += 1
      let lineEnd = contents[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? contents.count
      let tokens = ConfigParser.tokenize(contents[lineStart..<lineEnd])
      lineStart = lineEnd + 1
      guard !tokens.isEmpty else { continue }
      do throws(LineError) {
        for domain in try listedDomains(tokens) { try addRoute(domain, upstream: upstream) }
      } catch {
        skippedListLines.append(
          ConfigError(file: listName, line: lineNumber, message: error.message))
      }
    }
  }

  /// The domains of one list line: the line itself, or those of a dnsmasq
  /// `server=/DOMAIN/.../ADDRESS` line.
  func listedDomains(_ tokens: [ArraySlice<UInt8>]) throws(LineError) -> [ArraySlice<UInt8>] {
    guard tokens.count == 1 else {
      throw LineError(
        "one domain per line, found \(quoted: tokens[1]) after \(quoted: tokens[0])")
    }
    let token = tokens[0]
    let prefix: [UInt8] = Array("server=/".utf8)
    guard token.starts(with: prefix) else { return [token] }
    // The pieces between the slashes are domains; the last is the address.
    let pieces = token.dropFirst(prefix.count).split(
      separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
    let domains = pieces.dropLast()
    guard !domains.isEmpty, !domains.contains(where: { $0.isEmpty }) else {
      throw LineError(
        "bad dnsmasq line \(quoted: token) (expected server=/DOMAIN/[DOMAIN/...]ADDRESS)")
    }
    return Array(domains)
  }

  /// Builds the route table and gives each upstream its groups.
  mutating func finishRoutes() throws(LineError) {
    guard routes.count > 0 else { return }
    let built = routes.buildRoutes()
    guard built.routeGroups.count <= Self.routeGroupLimit else {
      throw LineError(
        """
        \(built.routeGroups.count) different sets of upstreams share routed domains; \
        at most \(Self.routeGroupLimit) are allowed
        """)
    }
    for (index, members) in built.routeGroups.enumerated() {
      for upstream in 0..<min(settings.upstreams.count, Self.routedUpstreamLimit)
      where members & (1 << UInt64(upstream)) != 0 {
        settings.upstreams[upstream].routeGroups |= 1 << UInt64(index + 1)
      }
    }
    settings.routes = built.table
  }
}
