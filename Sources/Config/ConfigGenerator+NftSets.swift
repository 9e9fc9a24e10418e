import CompiledConfig

/// `nftset` in the generated source and in the `--check` summary.
extension ConfigGenerator {
  /// `nftset`: each directive's family, table and sets, and the directives
  /// of each group of `nftsetNames`.
  static func emitNftSets(_ settings: Settings, into out: inout SourceText) {
    out.arrayStart("settings.nftsets", isEmpty: settings.nftsets.isEmpty)
    for target in settings.nftsets {
      out.line(
        "    // family \(target.family) \(escaped(target.table)) "
          + "\(escaped(target.ipv4Set)),\(escaped(target.ipv6Set))")
      out.line("    NftSetTarget(")
      out.line("      family: \(target.family),")
      out.byteArray("      table: ", target.table, suffix: ",")
      out.byteArray("      ipv4Set: ", target.ipv4Set, suffix: ",")
      out.byteArray("      ipv6Set: ", target.ipv6Set, suffix: "),")
    }
    out.arrayEnd(isEmpty: settings.nftsets.isEmpty)
    out.arrayStart("settings.nftsetGroups", isEmpty: settings.nftsetGroups.isEmpty)
    if !settings.nftsetGroups.isEmpty {
      out.values(
        settings.nftsetGroups.map { "0x" + hexDigits($0, width: 16) }, perLine: 3,
        indent: "  ")
    }
    out.arrayEnd(isEmpty: settings.nftsetGroups.isEmpty)
  }

  /// `nftsets: N domains` and each directive: `  inet fw vpn4,vpn6: 2 domains`.
  static func appendNftSets(_ settings: Settings, to out: inout MessageText) {
    let names = settings.nftsetNames
    guard !settings.nftsets.isEmpty else { return }
    var perGroup = [Int](repeating: 0, count: 128)
    for index in 0..<names.count { perGroup[Int(names.routeGroup(at: index) & 127)] += 1 }
    let plural: StaticString = names.count == 1 ? "" : "s"
    out.append("nftsets: \(names.count) domain\(plural), addresses kept for their TTL\n")
    for (index, target) in settings.nftsets.enumerated() {
      var domains = 0
      for (group, members) in settings.nftsetGroups.enumerated()
      where members & (1 << UInt64(index)) != 0 {
        domains += perGroup[group + 1]
      }
      let family: StaticString =
        target.family == NftSetTarget.ip ? "ip" : target.family == NftSetTarget.ip6 ? "ip6" : "inet"
      out.append("  \(family) \(escaped: target.table) ")
      if target.family == NftSetTarget.inet {
        out.append("\(escaped: target.ipv4Set),\(escaped: target.ipv6Set)")
      } else {
        out.append("\(escaped: target.ipv4Set)\(escaped: target.ipv6Set)")
      }
      let plural: StaticString = domains == 1 ? "" : "s"
      out.append(": \(domains) domain\(plural)\n")
    }
  }
}
