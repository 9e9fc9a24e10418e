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
    guard settings.nftsets.count < Self.nftsetLimit else {
      throw LineError("at most 64 'nftset' directives are allowed")
    }
    var family = NftSetTarget.inet
    if ConfigValues.isWord(arguments[0], "ip") {
      family = NftSetTarget.ip
    } else if ConfigValues.isWord(arguments[0], "ip6") {
      family = NftSetTarget.ip6
    } else if !ConfigValues.isWord(arguments[0], "inet") {
      throw LineError("unknown family \(quoted: arguments[0]) (inet, ip or ip6)")
    }
    let table = try nftName(arguments[1], what: "table")
    // `SET`, `SET,SET6` or `,SET6`; a comma only for inet.
    let sets = arguments[2]
    let comma = sets.firstIndex(of: UInt8(ascii: ",")) ?? sets.endIndex
    guard comma == sets.endIndex || family == NftSetTarget.inet else {
      throw LineError("\(quoted: sets): SET,SET6 is for family inet")
    }
    var ipv4Set: [UInt8] = []
    var ipv6Set: [UInt8] = []
    if comma < sets.endIndex {
      if comma > sets.startIndex { ipv4Set = try nftName(sets[..<comma], what: "set") }
      ipv6Set = try nftName(sets[(comma + 1)...], what: "set")
    } else if family == NftSetTarget.ip6 {
      ipv6Set = try nftName(sets, what: "set")
    } else {
      ipv4Set = try nftName(sets, what: "set")
    }
    let (rest, domains) = try routeOptions(arguments[3...])
    if let extra = rest.first { throw LineError("unexpected \(quoted: extra)") }
    guard !domains.isEmpty else { throw LineError("missing 'for DOMAIN' or 'for-list PATH'") }
    settings.nftsets.append(
      NftSetTarget(family: family, table: table, ipv4Set: ipv4Set, ipv6Set: ipv6Set))
    let index = settings.nftsets.count - 1
    for pair in stride(from: 0, to: domains.count, by: 2) {
      if ConfigValues.isWord(domains[pair], "for") {
        try addRoute(domains[pair + 1], upstream: index, forSets: true)
      } else {
        try addRouteList(domains[pair + 1], upstream: index, forSets: true)
      }
    }
  }

  /// A table or set name: 1…255 printable ASCII bytes (a `#` would start a
  /// comment, and a `,` separates the two sets).
  func nftName(_ token: ArraySlice<UInt8>, what: StaticString) throws(LineError) -> [UInt8] {
    guard !token.isEmpty, token.count <= Self.nftNameLimit,
      !token.contains(where: { $0 <= 0x20 || $0 >= 0x7F })
    else { throw LineError("bad \(what) name \(quoted: token) (1-255 printable ASCII bytes)") }
    return Array(token)
  }

  /// Builds the table of nftset domains and the directives of each group.
  mutating func finishNftSets() throws(LineError) {
    guard nftsetNames.count > 0 else { return }
    var groups: [UInt64] = []
    settings.nftsetNames = nftsetNames.build(routeGroups: &groups)
    // A record keeps its group in 7 bits (`OverrideTableBuilder.closeRoute`).
    guard groups.count <= 127 else {
      throw LineError("over 127 different sets of 'nftset' directives share domains")
    }
    settings.nftsetGroups = groups
  }
}
