import CompiledConfig
import Config
import Foundation
import TestSupport
import XCTest

/// Routes through the generator (the compiled-in config): the route table's
/// bytes land in string literals, each routed upstream carries its groups,
/// and the source compiled by swiftc routes names as the parsed settings do;
/// the `nftset` table and directives too.
final class RouteGeneratedSourceTests: XCTestCase {
  static let config = """
    listen 127.0.0.1
    upstream tls 9.9.9.9 name=dns.quad9.net trusted
    upstream udp 223.5.5.5 for baidu.com for qq.com
    upstream udp 10.8.0.1 for corp.example for qq.com
    upstream httpdns 192.0.2.5 format=json for cdn.example
    upstream udp 127.0.0.1:5353 for lan for 168.192.in-addr.arpa
    nftset inet fw vpn4,vpn6 for cdn.example for qq.com
    nftset ip6 fw six for qq.com
    """

  static let probeNames = [
    "www.baidu.com", "qq.com", "a.corp.example", "x.cdn.example", "printer.lan",
    "1.1.168.192.in-addr.arpa", "google.com",
  ]

  func testTheRouteTableAndGroupsAreGenerated() throws {
    let settings = try XCTUnwrap(parseOrFail(Self.config))
    let source = ConfigGenerator.swiftSource(settings, sourceName: "routes.conf")
    XCTAssertEqual(
      staticStringBytes(of: "routeRecords", in: source), Array(settings.routes.records))
    XCTAssertEqual(staticStringBytes(of: "routeIndex", in: source), Array(settings.routes.index))
    XCTAssertTrue(source.contains("\n  settings.routes = OverrideTable(\n"), source)
    XCTAssertTrue(
      source.contains(
        "      trusted: false,\n      routeGroups: 0x\(String(format: "%016X", settings.upstreams[1].routeGroups))),\n"
      ), source)
    XCTAssertNotEqual(settings.upstreams[1].routeGroups, settings.upstreams[2].routeGroups)
    assertNoStringValues(source)
    // Without routes, the upstreams are written as before.
    let plain = ConfigGenerator.swiftSource(
      try XCTUnwrap(parseOrFail("listen 127.0.0.1\nupstream udp 192.0.2.1")), sourceName: "p.conf")
    XCTAssertFalse(plain.contains("routeGroups"))
    XCTAssertTrue(plain.contains("\nlet routeRecords: StaticString = \"\"\n"), plain)
  }

  func testCompiledRoutesMatchTheParsedOnes() throws {
    let settings = try XCTUnwrap(parseOrFail(Self.config))
    let generated = ConfigGenerator.swiftSource(settings, sourceName: "routes.conf")
    let probeMain = """
      let settings = compiledSettings()
      print(settings.upstreams.map { String($0.routeGroups) }.joined(separator: " "))
      for text in [\(Self.probeNames.map { "\"\($0)\"" }.joined(separator: ", "))] {
        var name = [UInt8](repeating: 0, count: 256)
        let count = Array(text.utf8).withUnsafeBytes { textBytes in
          name.withUnsafeMutableBytes { try! Name.parse(text: textBytes, into: $0) }
        }
        let flat = Array(name[..<count])
        let sets = Int(flat.withUnsafeBytes { settings.nftsetNames.routeGroup($0) })
        print(
          flat.withUnsafeBytes { settings.routes.routeGroup($0) },
          sets == 0 ? 0 : settings.nftsetGroups[sets - 1])
      }
      print(settings.nftsets.map { "\\($0.family) \\($0.ipv4Set.count) \\($0.ipv6Set.count)" })
      """
    guard let lines = try runGeneratedSource(generated, main: probeMain) else { return }
    let expected =
      [settings.upstreams.map { String($0.routeGroups) }.joined(separator: " ")]
      + Self.probeNames.map { name in
        let sets = Int(flatName(name).withUnsafeBytes { settings.nftsetNames.routeGroup($0) })
        let route = flatName(name).withUnsafeBytes { settings.routes.routeGroup($0) }
        return "\(route) \(sets == 0 ? 0 : settings.nftsetGroups[sets - 1])"
      } + [#"["1 4 4", "10 0 3"]"#]
    XCTAssertEqual(lines, expected)
    XCTAssertEqual(expected[expected.count - 2], "0 0", "an unrouted name")
    XCTAssertTrue(expected.contains { $0.hasSuffix(" 3") }, "qq.com fills both directives")
  }
}
