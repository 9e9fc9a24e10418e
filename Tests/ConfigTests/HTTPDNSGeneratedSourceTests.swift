import CompiledConfig
import Config
import TestSupport
import XCTest

/// `upstream httpdns` through the generator and the summary, and the
/// shipped config's commented examples.
extension HTTPDNSDirectiveTests {
  static let fullConfig = """
    upstream httpdns 203.107.1.1 format=alibaba account=139450 secret=\(everySecretCharacter) trusted
    upstream httpdns 119.29.29.29 format=dnspod
    upstream httpdns [2001:db8::53]:8053 trusted
    upstream httpdns 203.107.1.2:8080 format=alibaba account=Ab_-9
    upstream tcp 9.9.9.9
    """

  func testGeneratedSource() throws {
    let settings = try XCTUnwrap(parse(Self.fullConfig))
    let source = ConfigGenerator.swiftSource(settings, sourceName: "httpdns.conf")
    let secret = Array(Self.everySecretCharacter.utf8).map {
      "0x" + String($0, radix: 16, uppercase: true)
    }
    XCTAssertTrue(
      source.contains(
        "\n    UpstreamServer(\n      transport: .httpdns,\n      // 203.107.1.1:80\n"
          + "      endpoint: Endpoint(\n        address: IPAddress(ipv4: 0xCB6B_0101),\n"
          + "        port: 80),\n      trusted: true,\n      httpdnsFormat: .alibaba,\n"
          + "      // account 139450\n      account: [\n"
          + "        0x31, 0x33, 0x39, 0x34, 0x35, 0x30,\n      ],\n      secret: [\n"
          + "        \(secret[0..<12].joined(separator: ", ")),\n"), source)
    XCTAssertTrue(
      source.contains(
        "\n        \(secret[84...].joined(separator: ", ")),\n      ]),\n"), source)
    XCTAssertTrue(
      source.contains(
        "\n      trusted: false,\n      httpdnsFormat: .dnspod,\n      // account none\n"
          + "      account: [],\n      secret: []),\n"), source)
    // udp and tcp upstreams are written as before.
    XCTAssertTrue(
      source.contains(
        "\n      transport: .tcp,\n      // 9.9.9.9:53\n      endpoint: Endpoint(\n"
          + "        address: IPAddress(ipv4: 0x0909_0909),\n        port: 53),\n"
          + "      trusted: false),\n  ]\n"), source)
    assertNoStringValues(source)
    assertLinesFit(source)
    let again = try XCTUnwrap(parse(Self.fullConfig))
    XCTAssertEqual(ConfigGenerator.swiftSource(again, sourceName: "httpdns.conf"), source)
  }

  /// The generated source compiled by swiftc and run gives back the
  /// parsed upstreams, field by field.
  func testCompiledSettingsMatchTheParsedOnes() throws {
    let settings = try XCTUnwrap(parse(Self.fullConfig))
    let generated = ConfigGenerator.swiftSource(settings, sourceName: "httpdns.conf")
    let lines = try runGeneratedSource(generated, main: Self.probeMain)
    XCTAssertEqual(lines, settings.upstreams.map(Self.probeLine))
  }

  static func probeLine(_ server: UpstreamServer) -> String {
    "\(server.transport.rawValue) \(server.endpoint.address.high),\(server.endpoint.address.low) "
      + "\(server.endpoint.port) \(server.trusted) \(server.httpdnsFormat.rawValue) "
      + "\(server.account) \(server.secret) \(server.answersEveryType)"
  }

  static let probeMain = #"""
    // Prints the compiled upstreams, one a line.
    for server in compiledSettings().upstreams {
      print(
        "\(server.transport.rawValue) \(server.endpoint.address.high),\(server.endpoint.address.low) "
          + "\(server.endpoint.port) \(server.trusted) \(server.httpdnsFormat.rawValue) "
          + "\(server.account) \(server.secret) \(server.answersEveryType)")
    }
    """#

  func testSummary() throws {
    let summary = ConfigGenerator.summary(try XCTUnwrap(parse(Self.fullConfig)))
    XCTAssertTrue(
      summary.contains(
        "\nupstreams: httpdns 203.107.1.1:80 format=alibaba account=139450 signed trusted "
          + "(A/AAAA only), httpdns 119.29.29.29:80 format=dnspod (A/AAAA only), "
          + "httpdns [2001:db8::53]:8053 format=json trusted, "
          + "httpdns 203.107.1.2:8080 format=alibaba account=Ab_-9 (A/AAAA only), "
          + "tcp 9.9.9.9:53\n"), summary)
    XCTAssertFalse(summary.contains(Self.everySecretCharacter))
  }

  /// The default config has the two public endpoints as commented
  /// examples; uncommented, they parse (and the default stays offline).
  func testDefaultConfigExamples() throws {
    let text = try defaultConfigText()
    let examples = [
      "upstream httpdns 119.29.29.29 format=dnspod", "upstream httpdns 223.5.5.5 format=json",
    ]
    let lines = text.split(separator: "\n").map(String.init)
    for example in examples {
      XCTAssertTrue(lines.contains("# " + example), example)
      XCTAssertFalse(lines.contains(example), example)
    }
    let settings = try XCTUnwrap(parse(examples.joined(separator: "\n")))
    let summary = ConfigGenerator.summary(settings)
    XCTAssertTrue(
      summary.contains(
        "\nupstreams: httpdns 119.29.29.29:80 format=dnspod (A/AAAA only), "
          + "httpdns 223.5.5.5:80 format=json\n"), summary)
    let shipped = try XCTUnwrap(parseOrFail(text))
    XCTAssertFalse(shipped.upstreams.contains { $0.transport == .httpdns })
  }
}
