import CompiledConfig
import Config
import Foundation
import TestSupport
import XCTest

/// The defence directives through the generator: the Swift source it
/// writes, compiled and run, gives back the parsed settings.
extension DefenceDirectiveTests {
  // MARK: - Generated source

  static let fullConfig = """
    upstream udp 192.0.2.53
    upstream tcp 9.9.9.9 trusted
    upstream resolv-conf /etc/resolv.conf
    upstream udp [2001:db8::53]:5353 trusted
    override printer.lan 192.168.1.20
    bogus 198.51.100.7
    bogus 198.51.100.0/24
    bogus 2001:db8:bad::/48
    bogus-nxdomain 203.0.113.9
    bogus-nxdomain 2001:db8::1
    detect-nxdomain-redirect on
    verify Bank.Example
    verify update.example.org
    hold-on 30ms
    rebind-protection on
    strict on
    rebind-allow lan
    rebind-allow plex.direct
    override-check tcp:443
    override-check-interval 5m
    rate-limit 200/s
    refuse-any off
    seccomp on
    forward-single-label on
    forward-private-reverse on
    filter-aaaa on
    """

  func testGeneratedSourceRoundTrips() throws {
    for config in ["# defaults", Self.fullConfig] {
      let settings = try XCTUnwrap(parse(config))
      let source = ConfigGenerator.swiftSource(settings, sourceName: "defence.conf")
      let values = assignments(in: source)
      XCTAssertEqual(
        values["detectNXDomainRedirect"], "\(settings.detectNXDomainRedirect)", config)
      XCTAssertEqual(values["verifyNames"], "verifyNameBytes")
      XCTAssertEqual(values["rebindAllowNames"], "rebindAllowNameBytes")
      XCTAssertEqual(
        values["holdOnMilliseconds"].flatMap { UInt32($0) }, settings.holdOnMilliseconds)
      XCTAssertEqual(values["rebindProtection"], "\(settings.rebindProtection)")
      XCTAssertEqual(values["strict"], "\(settings.strict)")
      XCTAssertEqual(
        values["overrideCheckPort"].flatMap { UInt16($0) }, settings.overrideCheckPort)
      XCTAssertEqual(
        values["overrideCheckSeconds"].flatMap { UInt32($0) }, settings.overrideCheckSeconds)
      XCTAssertEqual(
        values["rateLimitPerSecond"].flatMap { UInt32($0) }, settings.rateLimitPerSecond)
      XCTAssertEqual(values["refuseAny"], "\(settings.refuseAny)")
      XCTAssertEqual(values["forwardSingleLabel"], "\(settings.forwardSingleLabel)")
      XCTAssertEqual(values["forwardPrivateReverse"], "\(settings.forwardPrivateReverse)")
      XCTAssertEqual(values["filterAAAA"], "\(settings.filterAAAA)")
      XCTAssertEqual(values["seccomp"], "\(settings.seccomp)")
      XCTAssertEqual(
        integers(of: "verifyNameBytes", type: "UInt8", in: source),
        settings.verifyNames.map(UInt64.init))
      XCTAssertEqual(
        integers(of: "rebindAllowNameBytes", type: "UInt8", in: source),
        settings.rebindAllowNames.map(UInt64.init))
      assertNoStringValues(source)
      assertLinesFit(source)
      let again = try XCTUnwrap(parse(config))
      XCTAssertEqual(ConfigGenerator.swiftSource(again, sourceName: "defence.conf"), source)
    }
  }

  func testGeneratedPrefixesAndUpstreams() throws {
    let settings = try XCTUnwrap(parse(Self.fullConfig))
    let source = ConfigGenerator.swiftSource(settings, sourceName: "defence.conf")
    XCTAssertTrue(
      source.contains(
        "\n  settings.bogusPrefixes = [\n    // 198.51.100.7/32\n    AddressPrefix(\n"
          + "      address: IPAddress(ipv4: 0xC633_6407),\n      length: 128),\n"), source)
    XCTAssertTrue(
      source.contains(
        "\n    // 2001:db8:bad::/48\n    AddressPrefix(\n"
          + "      address: IPAddress(high: 0x2001_0DB8_0BAD_0000, low: 0x0000_0000_0000_0000),\n"
          + "      length: 48),\n  ]\n"), source)
    XCTAssertTrue(
      source.contains("\n  settings.bogusNXDomainPrefixes = [\n    // 203.0.113.9/32\n"), source)
    XCTAssertTrue(
      source.contains(
        "\n      transport: .tcp,\n      // 9.9.9.9:53\n      endpoint: Endpoint(\n"
          + "        address: IPAddress(ipv4: 0x0909_0909),\n        port: 53),\n"
          + "      trusted: true),\n"), source)
    XCTAssertTrue(
      source.contains(
        "\nlet verifyNameBytes: [UInt8] = [\n  // bank.example.\n"
          + "  0x04, 0x62, 0x61, 0x6E, 0x6B, 0x07, 0x65, 0x78, 0x61, 0x6D, 0x70, 0x6C,\n"
          + "  0x65, 0x00,\n  // update.example.org.\n"), source)
    XCTAssertTrue(source.contains("\nlet rebindAllowNameBytes: [UInt8] = [\n  // lan.\n"), source)
    let defaults = ConfigGenerator.swiftSource(try XCTUnwrap(parse("")), sourceName: "d.conf")
    XCTAssertTrue(defaults.contains("\n  settings.bogusPrefixes = []\n"))
    XCTAssertTrue(defaults.contains("\n  settings.bogusNXDomainPrefixes = []\n"))
    XCTAssertTrue(defaults.contains("\nlet verifyNameBytes: [UInt8] = []\n"))
    XCTAssertTrue(defaults.contains("\nlet rebindAllowNameBytes: [UInt8] = []\n"))
  }

  /// The generated source compiled by swiftc and run prints the same
  /// settings as the parsed ones (see GeneratedSourceCompileTests).
  func testCompiledSettingsMatchTheParsedOnes() throws {
    let settings = try XCTUnwrap(parse(Self.fullConfig))
    let generated = ConfigGenerator.swiftSource(settings, sourceName: "defence.conf")
    guard let lines = try runGeneratedSource(generated, main: Self.probeMain) else { return }
    XCTAssertEqual(lines, Self.probeLines(settings))
  }

  /// What the probe prints for `settings`.
  static func probeLines(_ settings: Settings) -> [String] {
    func prefixes(_ list: [AddressPrefix]) -> String {
      list.map { "\($0.address.high),\($0.address.low)/\($0.length)" }.joined(separator: " ")
    }
    return [
      settings.upstreams.map {
        "\($0.transport.rawValue) \($0.endpoint.address.high),\($0.endpoint.address.low) "
          + "\($0.endpoint.port) \($0.trusted)"
      }.joined(separator: "; "),
      prefixes(settings.bogusPrefixes),
      prefixes(settings.bogusNXDomainPrefixes),
      "\(settings.detectNXDomainRedirect)",
      settings.verifyNames.map { "\($0)" }.joined(separator: " "),
      "\(settings.holdOnMilliseconds)",
      "\(settings.rebindProtection) \(settings.strict)",
      settings.rebindAllowNames.map { "\($0)" }.joined(separator: " "),
      "\(settings.overrideCheckPort) \(settings.overrideCheckSeconds)",
      "\(settings.rateLimitPerSecond) \(settings.refuseAny)",
      "\(settings.forwardSingleLabel) \(settings.forwardPrivateReverse) \(settings.filterAAAA)",
    ]
  }

  static let probeMain = #"""
    // Prints the defence settings of the compiled config, one field a line.
    func prefixes(_ list: [AddressPrefix]) -> String {
      list.map { "\($0.address.high),\($0.address.low)/\($0.length)" }.joined(separator: " ")
    }
    let settings = compiledSettings()
    print(
      settings.upstreams.map {
        "\($0.transport.rawValue) \($0.endpoint.address.high),\($0.endpoint.address.low) "
          + "\($0.endpoint.port) \($0.trusted)"
      }.joined(separator: "; "))
    print(prefixes(settings.bogusPrefixes))
    print(prefixes(settings.bogusNXDomainPrefixes))
    print(settings.detectNXDomainRedirect)
    print(settings.verifyNames.map { "\($0)" }.joined(separator: " "))
    print(settings.holdOnMilliseconds)
    print("\(settings.rebindProtection) \(settings.strict)")
    print(settings.rebindAllowNames.map { "\($0)" }.joined(separator: " "))
    print("\(settings.overrideCheckPort) \(settings.overrideCheckSeconds)")
    print("\(settings.rateLimitPerSecond) \(settings.refuseAny)")
    print("\(settings.forwardSingleLabel) \(settings.forwardPrivateReverse) \(settings.filterAAAA)")
    """#
}
