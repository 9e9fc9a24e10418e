import CompiledConfig
import Config
import DNSWire
import TestSupport
import XCTest

/// `nftset FAMILY TABLE SET[,SET6] for DOMAIN | for-list PATH`: the families
/// and their sets, the domains in their own route-style table (longest
/// match, groups of directives), dnsmasq `nftset=` list lines, bad lines,
/// the `--check` summary and the generated source.
final class NftSetDirectiveTests: XCTestCase, ParsesWithFakeFiles {
  typealias FakeFiles = BlockListDirectiveTests.FakeFiles

  /// The directives (indices) whose sets `name` fills.
  func directives(_ settings: Settings, _ name: String) -> [Int] {
    let group = flatName(name).withUnsafeBytes { settings.nftsetNames.routeGroup($0) }
    guard group != 0 else { return [] }
    let members = settings.nftsetGroups[Int(group) - 1]
    return settings.nftsets.indices.filter { members & (1 << UInt64($0)) != 0 }
  }

  func testFamiliesAndSets() throws {
    let settings = try parse(
      """
      nftset inet fw vpn4,vpn6 for video.example
      nftset ip filter only4 for a.example
      nftset ip6 filter only6 for b.example
      nftset inet fw ,just6 for c.example
      nftset inet fw just4 for d.example
      """)
    let bytes = { (text: String) in Array(text.utf8) }
    XCTAssertEqual(
      settings.nftsets,
      [
        NftSetTarget(family: 1, table: bytes("fw"), ipv4Set: bytes("vpn4"), ipv6Set: bytes("vpn6")),
        NftSetTarget(family: 2, table: bytes("filter"), ipv4Set: bytes("only4"), ipv6Set: []),
        NftSetTarget(family: 10, table: bytes("filter"), ipv4Set: [], ipv6Set: bytes("only6")),
        NftSetTarget(family: 1, table: bytes("fw"), ipv4Set: [], ipv6Set: bytes("just6")),
        NftSetTarget(family: 1, table: bytes("fw"), ipv4Set: bytes("just4"), ipv6Set: []),
      ])
    XCTAssertEqual(settings.routes.count, 0, "nftset domains are not routes")
  }

  func testDomainsGroupsAndTheLongestMatch() throws {
    let settings = try parse(
      """
      upstream udp 192.0.2.1
      nftset inet fw vpn4,vpn6 for video.example for Shared.Example.
      nftset ip fw other for shared.example for cdn.video.example
      """)
    XCTAssertEqual(settings.nftsetNames.count, 3, "shared.example kept once")
    XCTAssertEqual(directives(settings, "www.video.example"), [0])
    XCTAssertEqual(directives(settings, "video.example"), [0])
    XCTAssertEqual(directives(settings, "x.cdn.video.example"), [1], "the longest domain decides")
    XCTAssertEqual(directives(settings, "a.shared.example"), [0, 1])
    XCTAssertEqual(directives(settings, "example"), [])
    XCTAssertEqual(directives(settings, "other.example"), [])
  }

  func testForListTakesDomainsAndDnsmasqLines() throws {
    let files = FakeFiles([
      "conf/vpn.list": """
      # domains for the VPN
      plain.example
      nftset=/one.example/two.example/4#inet#fw#vpn4
      nftset=//4#inet#fw#vpn4
      bad!name.example
      """
    ])
    var lines = SourceLines()
    let settings = try parse(
      "nftset inet fw vpn4 for-list vpn.list for extra.example", files: files, lines: &lines)
    XCTAssertEqual(directives(settings, "plain.example"), [0])
    XCTAssertEqual(directives(settings, "www.one.example"), [0])
    XCTAssertEqual(directives(settings, "two.example"), [0])
    XCTAssertEqual(directives(settings, "extra.example"), [0])
    XCTAssertEqual(settings.nftsetNames.count, 4)
    XCTAssertEqual(
      lines.skippedListLines.map(\.description),
      [
        // '#' starts a comment in a list as in the config: dnsmasq's
        // `4#FAMILY#TABLE#SET` tail is read as `4`.
        "conf/vpn.list:4: bad dnsmasq line 'nftset=//4' "
          + "(expected nftset=/DOMAIN/[DOMAIN/...]4#inet#TABLE#SET)",
        "conf/vpn.list:5: bad name 'bad!name.example': unexpected character '!' "
          + "(use letters, digits, '-' and '_')",
      ])
  }

  func testBadLines() {
    let usage =
      "usage: nftset inet|ip|ip6 TABLE SET[,SET6] for DOMAIN [for DOMAIN...] | for-list PATH"
    let printable = "(1-255 printable ASCII bytes)"
    assertBadLines([
      (
        "nftset inet fw",
        "missing argument to 'nftset' (\(usage), "
          + "e.g. nftset inet fw vpn4,vpn6 for video.example)", 1
      ),
      ("nftset inet fw s", "missing 'for DOMAIN' or 'for-list PATH'", 1),
      ("nftset arp fw s for a.example", "unknown family 'arp' (inet, ip or ip6)", 1),
      ("nftset ip fw s4,s6 for a.example", "'s4,s6': SET,SET6 is for family inet", 1),
      ("\nnftset ip6 fw a,b for a.example", "'a,b': SET,SET6 is for family inet", 2),
      ("nftset inet fw s, for a.example", "bad set name '' \(printable)", 1),
      ("nftset inet fw s\u{e9} for a.example", "bad set name 's\\xC3\\xA9' \(printable)", 1),
      ("nftset inet fw s trusted for a.example", "unexpected 'trusted'", 1),
      ("nftset inet fw s for", "missing 'for' value (e.g. for corp.example, for-list cn.conf)", 1),
      (
        "nftset inet fw s for *.a.example",
        "'for' takes a domain, not a wildcard: '*.a.example' already covers every name below it",
        1
      ),
      (
        "nftset inet fw s for bad!name",
        "bad name 'bad!name': unexpected character '!' (use letters, digits, '-' and '_')", 1
      ),
    ])
    let table = String(repeating: "t", count: 256)
    assertBadLines([
      ("nftset inet \(table) s for a.example", "bad table name '\(table)' \(printable)", 1)
    ])
  }

  func testTheSummaryCountsDirectivesAndDomains() throws {
    let settings = try parse(
      """
      nftset inet fw vpn4,vpn6 for video.example for shared.example
      nftset ip6 fw six for shared.example
      """)
    let summary = ConfigGenerator.summary(settings)
    XCTAssertTrue(
      summary.contains("\nnftsets: 2 directives, 2 domains, addresses kept for their TTL\n"),
      summary)
    XCTAssertFalse(ConfigGenerator.summary(try parse("")).contains("nftsets:"))
  }

  func testTheGeneratedSourceCarriesTheSets() throws {
    let settings = try parse(
      """
      nftset inet fw vpn4,vpn6 for video.example
      nftset ip fw other for video.example for a.example
      """)
    let source = ConfigGenerator.swiftSource(settings, sourceName: "nft.conf")
    XCTAssertEqual(
      staticStringBytes(of: "nftsetRecords", in: source), Array(settings.nftsetNames.records))
    XCTAssertEqual(
      staticStringBytes(of: "nftsetIndex", in: source), Array(settings.nftsetNames.index))
    XCTAssertTrue(source.contains("\n  settings.nftsetNames = OverrideTable(\n"), source)
    XCTAssertTrue(source.contains("    // family 2 fw other,\n"), source)
    XCTAssertTrue(
      source.contains(
        "  settings.nftsetGroups = [\n    0x0000000000000002, 0x0000000000000003,\n  ]\n"),
      source)
    XCTAssertTrue(source.contains("      table: [\n        0x66, 0x77,\n      ],\n"), source)
    assertNoStringValues(source)
  }
}
