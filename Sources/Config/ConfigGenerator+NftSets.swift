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

  /// `nftsets: 2 directives, 5 domains, addresses kept for their TTL`.
  static func appendNftSets(_ settings: Settings, to out: inout MessageText) {
    guard !settings.nftsets.isEmpty else { return }
    out.append(
      """
      nftsets: \(settings.nftsets.count) directives, \(settings.nftsetNames.count) domains, \
      addresses kept for their TTL

      """)
  }
}
