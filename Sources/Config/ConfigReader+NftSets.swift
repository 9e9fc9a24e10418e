import CompiledConfig

/// `nftset FAMILY TABLE SET[,SET6] for NAME [for NAME...] | for-list PATH`:
/// the addresses of answers for NAME and the names below it go to an
/// nftables set (dnsmasq's `nftset=`).
///
/// The domains use the machinery of domain routing (`ConfigReader+Routes`):
/// each lands in `Settings.nftsetNames` as a `.route` entry whose "upstream"
/// is the directive's index, so a name listed by several directives is kept
/// once, with the group of the set of directives naming it, and the longest
/// matching domain decides, as for routes. `for-list` files take the same
/// lines as for upstreams, and dnsmasq's `nftset=/DOMAIN/...` lines.
///
/// FAMILY `inet` takes an IPv4 set and, after a comma, an IPv6 one (either
/// may be left out: `inet t s`, `inet t ,s6`); `ip` an IPv4 set only, `ip6`
/// an IPv6 set only.
extension ConfigReader {
  /// Directives: the group bits of `Settings.nftsetGroups` are 64 wide.
  static let nftsetLimit = 64
  /// NFT_NAME_MAXLEN (256) less the NUL the kernel wants.
  static let nftNameLimit = 255

  mutating func addNftSet(_ arguments: [ArraySlice<UInt8>]) throws(LineError) {
    let usage: StaticString =
      "usage: nftset inet|ip|ip6 TABLE SET[,SET6] for DOMAIN [for DOMAIN...] | for-list PATH"
    guard arguments.count >= 3 else { throw LineError("missing arguments (\(usage))") }
    guard settings.nftsets.count < Self.nftsetLimit else {
      throw LineError("at most \(Self.nftsetLimit) 'nftset' directives are allowed")
    }
    let family: UInt8
    if isWord(arguments[0], "inet") {
      family = NftSetTarget.inet
    } else if isWord(arguments[0], "ip") {
      family = NftSetTarget.ip
    } else if isWord(arguments[0], "ip6") {
      family = NftSetTarget.ip6
    } else {
      throw LineError("unknown family \(quoted: arguments[0]) (\(usage))")
    }
    let table = try nftName(arguments[1], what: "table")
    let sets = arguments[2]
    var ipv4Set: [UInt8] = []
    var ipv6Set: [UInt8] = []
    if let comma = sets.firstIndex(of: UInt8(ascii: ",")) {
      guard family == NftSetTarget.inet else {
        throw LineError(
          """
          \(quoted: sets): two sets for family \(quoted: arguments[0]), which has one address \
          family (SET,SET6 is for inet)
          """)
      }
      let first = sets[..<comma]
      let second = sets[(comma + 1)...]
      if !first.isEmpty { ipv4Set = try nftName(first, what: "set") }
      ipv6Set = try nftName(second, what: "set")
    } else if family == NftSetTarget.ip6 {
      ipv6Set = try nftName(sets, what: "set")
    } else {
      ipv4Set = try nftName(sets, what: "set")
    }
    let (rest, domains) = try routeOptions(arguments[3...])
    if let extra = rest.first {
      throw LineError("unexpected \(quoted: extra) (\(usage))")
    }
    guard !domains.isEmpty else { throw LineError("missing 'for DOMAIN' or 'for-list PATH'") }
    settings.nftsets.append(
      NftSetTarget(family: family, table: table, ipv4Set: ipv4Set, ipv6Set: ipv6Set))
    let index = settings.nftsets.count - 1
    for pair in stride(from: 0, to: domains.count, by: 2) {
      if isWord(domains[pair], "for") {
        try addRoute(domains[pair + 1], upstream: index, forSets: true)
      } else {
        try addRouteList(domains[pair + 1], upstream: index, forSets: true)
      }
    }
  }

  /// A table or set name: 1…255 printable ASCII bytes (a `#` would start a
  /// comment, and a `,` separates the two sets).
  func nftName(_ token: ArraySlice<UInt8>, what: StaticString) throws(LineError) -> [UInt8] {
    guard !token.isEmpty else { throw LineError("empty \(what) name") }
    guard token.count <= Self.nftNameLimit else {
      throw LineError("\(what) name longer than \(Self.nftNameLimit) characters")
    }
    for byte in token where byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "#") {
      throw LineError("bad \(what) name \(quoted: token) (printable ASCII)")
    }
    return Array(token)
  }

  /// Builds the table of nftset domains and the directives of each group.
  mutating func finishNftSets() throws(LineError) {
    guard nftsetNames.count > 0 else { return }
    var groups: [UInt64] = []
    settings.nftsetNames = nftsetNames.build(routeGroups: &groups)
    // A record keeps its group in 7 bits (`OverrideTableBuilder.closeRoute`).
    guard groups.count <= 127 else {
      throw LineError(
        "\(groups.count) different sets of 'nftset' directives share domains; at most 127 are allowed"
      )
    }
    settings.nftsetGroups = groups
  }
}
