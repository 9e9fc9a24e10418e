import CompiledConfig
import Config
import TestSupport
import XCTest

/// `upstream tls|https`, `path=`, `format=dns-message` and `ca-file`
/// through the generator and the summary.
extension TLSDirectiveTests {
  static let fullConfig = """
    ca-file /etc/dnsward/ca.pem
    upstream tls 9.9.9.9 name=dns.quad9.net pin=\(pinText) trusted
    upstream https 1.1.1.1 name=cloudflare-dns.com
    upstream https [2001:4860:4860::8888]:8443 name=dns.google format=json path=/resolve?ct=x \
    trusted pin=\(otherPinText)
    upstream httpdns 223.5.5.5 format=dns-message path=/dns-query
    upstream httpdns 203.107.1.1 format=alibaba account=139450 secret=Sesame
    upstream udp 192.0.2.53
    """

  func testGeneratedSource() throws {
    let settings = try XCTUnwrap(parse(Self.fullConfig))
    let source = ConfigGenerator.swiftSource(settings, sourceName: "tls.conf")
    XCTAssertTrue(
      source.contains(
        "\n      transport: .tls,\n      // 9.9.9.9:853\n      endpoint: Endpoint(\n"
          + "        address: IPAddress(ipv4: 0x0909_0909),\n        port: 853),\n"
          + "      trusted: true,\n      // name dns.quad9.net\n      // pin \(Self.pinText)\n"
          + "      tlsName: [\n"
          + "        0x64, 0x6E, 0x73, 0x2E, 0x71, 0x75, 0x61, 0x64, 0x39, 0x2E, 0x6E, 0x65,\n"
          + "        0x74,\n      ],\n      pin: [\n"
          + "        0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B,\n"
          + "        0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,\n"
          + "        0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F,\n      ]),\n"), source)
    XCTAssertTrue(
      source.contains(
        "\n      trusted: false,\n      httpdnsFormat: .dnsMessage,\n"
          + "      // name cloudflare-dns.com\n      // pin none\n      tlsName: [\n"), source)
    XCTAssertTrue(
      source.contains(
        "      httpdnsFormat: .json,\n      // name dns.google\n      // pin \(Self.otherPinText)\n"
          + "      // path /resolve?ct=x\n"), source)
    XCTAssertTrue(
      source.contains(
        "      httpdnsFormat: .dnsMessage,\n      // account none\n      // path /dns-query\n"
          + "      account: [],\n      secret: [],\n      path: [\n"
          + "        0x2F, 0x64, 0x6E, 0x73, 0x2D, 0x71, 0x75, 0x65, 0x72, 0x79,\n      ]),\n"),
      source)
    XCTAssertTrue(source.contains("\n/// `ca-file`: /etc/dnsward/ca.pem.\n"), source)
    XCTAssertTrue(source.contains("\n  settings.caFile = caFileBytes\n"), source)
    XCTAssertFalse(source.contains("Sesame"))
    assertNoStringValues(source)
    assertLinesFit(source)
    let again = try XCTUnwrap(parse(Self.fullConfig))
    XCTAssertEqual(ConfigGenerator.swiftSource(again, sourceName: "tls.conf"), source)
    let none = ConfigGenerator.swiftSource(try XCTUnwrap(parse("")), sourceName: "t.conf")
    XCTAssertTrue(none.contains("\n/// `ca-file`: none.\nlet caFileBytes: [UInt8] = []\n"))
  }

  /// The generated source compiled by swiftc and run gives back the
  /// parsed upstreams, field by field, and the CA file.
  func testCompiledSettingsMatchTheParsedOnes() throws {
    let settings = try XCTUnwrap(parse(Self.fullConfig))
    let generated = ConfigGenerator.swiftSource(settings, sourceName: "tls.conf")
    let lines = try runGeneratedSource(generated, main: Self.probeMain)
    XCTAssertEqual(lines, settings.upstreams.map(Self.probeLine) + ["\(settings.caFile)"])
  }

  static func probeLine(_ server: UpstreamServer) -> String {
    "\(server.transport.rawValue) \(server.endpoint.address.high),\(server.endpoint.address.low) "
      + "\(server.endpoint.port) \(server.trusted) \(server.httpdnsFormat.rawValue) "
      + "\(server.account) \(server.secret) \(server.tlsName) \(server.pin) \(server.path) "
      + "\(server.answersEveryType)"
  }

  static let probeMain = #"""
    // Prints the compiled upstreams, one a line, then the CA file.
    let settings = compiledSettings()
    for server in settings.upstreams {
      print(
        "\(server.transport.rawValue) \(server.endpoint.address.high),\(server.endpoint.address.low) "
          + "\(server.endpoint.port) \(server.trusted) \(server.httpdnsFormat.rawValue) "
          + "\(server.account) \(server.secret) \(server.tlsName) \(server.pin) \(server.path) "
          + "\(server.answersEveryType)")
    }
    print(settings.caFile)
    """#

  func testSummary() throws {
    let summary = ConfigGenerator.summary(try XCTUnwrap(parse(Self.fullConfig)))
    XCTAssertTrue(
      summary.contains(
        "\nupstreams: tls 9.9.9.9:853 name=dns.quad9.net pin=\(Self.pinText) trusted, "
          + "https 1.1.1.1:443 name=cloudflare-dns.com format=dns-message, "
          + "https [2001:4860:4860::8888]:8443 name=dns.google format=json path=/resolve?ct=x "
          + "pin=\(Self.otherPinText) trusted, "
          + "httpdns 223.5.5.5:80 format=dns-message path=/dns-query, "
          + "httpdns 203.107.1.1:80 format=alibaba account=139450 signed (A/AAAA only), "
          + "udp 192.0.2.53:53\nca-file: /etc/dnsward/ca.pem\ntimeout: "), summary)
    XCTAssertFalse(summary.contains("Sesame"))
  }

  /// The CA file line: the system bundle when TLS is used without one, the
  /// file when one is set, nothing when neither.
  func testCAFileSummary() throws {
    let system = ConfigGenerator.summary(try XCTUnwrap(parse("upstream tls 9.9.9.9 name=x")))
    XCTAssertTrue(
      system.contains(
        "\nca-file: the system bundle (/etc/ssl/certs/ca-certificates.crt)\ntimeout: "), system)
    let unused = ConfigGenerator.summary(
      try XCTUnwrap(parse("upstream udp 192.0.2.53\nca-file /etc/ca.pem")))
    XCTAssertTrue(unused.contains("\nca-file: /etc/ca.pem\n"), unused)
    let plain = ConfigGenerator.summary(try XCTUnwrap(parse("upstream httpdns 223.5.5.5")))
    XCTAssertFalse(plain.contains("ca-file"), plain)
  }
}
