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
/// (`OverrideTableBuilder.build(routeGroups:)`); each upstream's `routeGroups` has a
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
  /// options: the other options, and the pairs, keyword then value.
  func routeOptions(_ options: ArraySlice<ArraySlice<UInt8>>) throws(LineError) -> (
    rest: ArraySlice<ArraySlice<UInt8>>, routes: [ArraySlice<UInt8>]
  ) {
    var rest: [ArraySlice<UInt8>] = []
    var routes: [ArraySlice<UInt8>] = []
    var index = options.startIndex
    while index < options.endIndex {
      let token = options[index]
      index += 1
      guard ConfigValues.isWord(token, "for") || ConfigValues.isWord(token, "for-list") else {
        rest.append(token)
        continue
      }
      guard index < options.endIndex else {
        throw LineError("missing \(quoted: token) value (e.g. for corp.example, for-list cn.conf)")
      }
      routes.append(token)
      routes.append(options[index])
      index += 1
    }
    return (rest[...], routes)
  }

  /// Adds the routes (`routeOptions`) of the upstream just added, the last
  /// of `settings.upstreams`.
  mutating func addRoutes(_ routes: [ArraySlice<UInt8>]) throws(LineError) {
    let upstream = settings.upstreams.count - 1
    guard routes.isEmpty || upstream < Self.routedUpstreamLimit else {
      throw LineError("'for' is allowed on the first \(Self.routedUpstreamLimit) upstreams only")
    }
    for pair in stride(from: 0, to: routes.count, by: 2) {
      if ConfigValues.isWord(routes[pair], "for") {
        try addRoute(routes[pair + 1], upstream: upstream)
      } else {
        try addRouteList(routes[pair + 1], upstream: upstream)
      }
    }
  }

  /// One routed domain: a name (not `*.`, not the root). `upstream` is the
  /// upstream's index, or for `nftset` (`forSets`) the directive's. Out of
  /// line: the optimizer would otherwise copy it into `addListedRoute` a
  /// second time.
  @inline(never)
  mutating func addRoute(_ token: ArraySlice<UInt8>, upstream: Int, forSets: Bool = false)
    throws(LineError)
  {
    if token.first == UInt8(ascii: "*") {
      throw LineError(
        "'for' takes a domain, not a wildcard: \(quoted: token) already covers every name below it")
    }
    let name = try ConfigValues.flatName(token, written: token)
    guard name != Name.root else {
      throw LineError(
        "'for .' would route every name: leave 'for' out for the upstreams of the other names")
    }
    let entry = OverrideTableBuilder.Entry(name: name, kind: .route, upstream: UInt8(upstream))
    guard forSets ? nftsetNames.hasRoom(for: entry) : routes.hasRoom(for: entry) else {
      throw LineError(
        "too many routed domains: the route table holds at most \(OverrideRecord.offsetLimit >> 20) MiB of names"
      )
    }
    if forSets { nftsetNames.add(entry) } else { routes.add(entry) }
  }

  /// `for-list PATH`: every domain of the file; bad lines are skipped.
  mutating func addRouteList(_ token: ArraySlice<UInt8>, upstream: Int, forSets: Bool = false)
    throws(LineError)
  {
    let path = try listPath(token, directive: "for-list")
    let contents = try readList(path, directive: "for-list")
    try Self.forEachListLine(contents) { (tokens, lineNumber) throws(LineError) in
      do throws(LineError) {
        try addListedRoute(tokens, upstream: upstream, forSets: forSets)
      } catch {
        skippedListLines.append(
          ConfigError(fileBytes: path, line: lineNumber, messageBytes: error.message))
      }
    }
  }

  /// The domain of one list line, or those of a dnsmasq
  /// `server=/DOMAIN/.../ADDRESS` or `nftset=/DOMAIN/.../[4|6]#FAMILY#TABLE#SET`
  /// line (all of them or, if one is bad, none; what follows the last '/'
  /// is dnsmasq's and ignored: the directive naming the list decides).
  mutating func addListedRoute(
    _ tokens: [ArraySlice<UInt8>], upstream: Int, forSets: Bool = false
  ) throws(LineError) {
    guard tokens.count == 1 else {
      throw LineError(
        "one domain per line, found \(quoted: tokens[1]) after \(quoted: tokens[0])")
    }
    let token = tokens[0]
    var prefix = spelling("server=/")
    if !token.starts(with: prefix) { prefix = spelling("nftset=/") }
    guard token.starts(with: prefix) else {
      return try addRoute(token, upstream: upstream, forSets: forSets)
    }
    // Each piece that a '/' ends is a domain; what follows the last, the address.
    var domains: [ArraySlice<UInt8>] = []
    var start = token.startIndex + prefix.count
    while let slash = token[start...].firstIndex(of: UInt8(ascii: "/")), slash > start {
      domains.append(token[start..<slash])
      start = slash + 1
    }
    // An empty domain (`//`) stops the walk before a '/'.
    guard !domains.isEmpty, !token[start...].contains(UInt8(ascii: "/")) else {
      throw LineError(
        token.starts(with: spelling("server=/"))
          ? "bad dnsmasq line \(quoted: token) (expected server=/DOMAIN/[DOMAIN/...]ADDRESS)"
          : "bad dnsmasq line \(quoted: token) (expected nftset=/DOMAIN/[DOMAIN/...]4#inet#TABLE#SET)"
      )
    }
    for domain in domains { _ = try ConfigValues.flatName(domain, written: domain) }
    for domain in domains { try addRoute(domain, upstream: upstream, forSets: forSets) }
  }

  /// Builds the route table and gives each upstream its groups.
  mutating func finishRoutes() throws(LineError) {
    guard routes.count > 0 else { return }
    var groups: [UInt64] = []
    settings.routes = routes.build(routeGroups: &groups)
    guard groups.count <= Self.routeGroupLimit else {
      throw LineError(
        """
        \(groups.count) different sets of upstreams share routed domains; \
        at most \(Self.routeGroupLimit) are allowed
        """)
    }
    for (index, members) in groups.enumerated() {
      for upstream in 0..<min(settings.upstreams.count, Self.routedUpstreamLimit)
      where members & (1 << UInt64(upstream)) != 0 {
        settings.upstreams[upstream].routeGroups |= 1 << UInt64(index + 1)
      }
    }
  }
}
