import CompiledConfig
import Config
import Foundation
import TestSupport
import XCTest

/// `local-names`, `hosts`, `leases` and `domain`: values, errors with their
/// lines, the summary and the generated source (compiled and run).
final class LocalNamesDirectiveTests: XCTestCase, ParsesDirectives {
  static let fullConfig = """
    listen 127.0.0.1
    local-names 100
    hosts /etc/hosts
    leases /tmp/dhcp.leases
    hosts /tmp/hosts/odhcpd
    domain Home.LAN.
    """

  func testDefaults() throws {
    let defaults = Settings()
    XCTAssertEqual(defaults.localNamesCapacity, 4096)
    XCTAssertEqual(defaults.hostsFiles, [])
    XCTAssertEqual(defaults.leaseFiles, [])
    XCTAssertEqual(defaults.localDomain, [])
    let settings = try XCTUnwrap(parse("# none of them"))
    XCTAssertEqual(settings.localNamesCapacity, 4096)
    XCTAssertEqual(settings.hostsFiles, [])
    XCTAssertEqual(settings.leaseFiles, [])
    XCTAssertEqual(settings.localDomain, [])
  }

  func testValues() throws {
    let settings = try XCTUnwrap(parseOrFail(Self.fullConfig))
    XCTAssertEqual(settings.localNamesCapacity, 100)
    XCTAssertEqual(
      settings.hostsFiles, [Array("/etc/hosts".utf8), Array("/tmp/hosts/odhcpd".utf8)])
    XCTAssertEqual(settings.leaseFiles, [Array("/tmp/dhcp.leases".utf8)])
    XCTAssertEqual(settings.localDomain, flatName("home.lan"), "lower-cased, the final dot dropped")
  }

  func testBadLines() {
    assertBadLines([
      ("hosts etc/hosts", "hosts path 'etc/hosts' must be absolute", 1),
      ("leases tmp/dhcp.leases", "leases path 'tmp/dhcp.leases' must be absolute", 1),
      ("hosts /a\nleases /b\nhosts /a", "duplicate file '/a' (first on line 4)", 3),
      ("hosts /a\nleases /a", "duplicate file '/a' (first on line 4)", 2),
      (
        "hosts",
        "missing argument to 'hosts' (usage: hosts PATH, absolute, e.g. /etc/hosts or /tmp/hosts/odhcpd)",
        1
      ),
      ("domain lan\ndomain home", "duplicate 'domain' directive (first on line 4)", 2),
      ("domain *.lan", "domain takes a name, not a wildcard: every name below it is local", 1),
      ("domain .", "the root cannot be the local domain (no name would be forwarded)", 1),
      (
        "domain la!n",
        "bad name 'la!n': unexpected character '!' (use letters, digits, '-' and '_')", 1
      ),
      ("local-names 8", "local-names 8 is out of range 16...1048576", 1),
      ("local-names many", "'local-names' expects a number, got 'many'", 1),
    ])
  }

  func testSummary() throws {
    let settings = try XCTUnwrap(parseOrFail(Self.fullConfig))
    let summary = ConfigGenerator.summary(settings)
    XCTAssertTrue(
      summary.contains(
        "\nlocal names: 2 hosts and 1 lease files, up to 100 names; domain home.lan.\n"),
      summary)
    let none = ConfigGenerator.summary(try XCTUnwrap(parse("")))
    XCTAssertFalse(none.contains("local names"), none)
  }

  func testGeneratedSource() throws {
    let settings = try XCTUnwrap(parseOrFail(Self.fullConfig))
    let source = ConfigGenerator.swiftSource(settings, sourceName: "local.conf")
    XCTAssertTrue(source.contains("\n  settings.localNamesCapacity = 100\n"), source)
    XCTAssertTrue(
      source.contains("\n  settings.hostsFiles = [\n    // /etc/hosts\n    [\n"), source)
    XCTAssertTrue(source.contains("\n  // domain home.lan.\n  settings.localDomain = [\n"), source)
    assertNoStringValues(source)
    assertLinesFit(source)
    let defaults = ConfigGenerator.swiftSource(try XCTUnwrap(parse("")), sourceName: "d.conf")
    XCTAssertTrue(defaults.contains("\n  settings.hostsFiles = []\n"), defaults)
    XCTAssertTrue(defaults.contains("\n  settings.leaseFiles = []\n"), defaults)
    XCTAssertTrue(defaults.contains("\n  settings.localDomain = []\n"), defaults)
  }

  /// The generated source compiled by swiftc and run gives the parsed values.
  func testCompiledSettingsMatchTheParsedOnes() throws {
    let settings = try XCTUnwrap(parseOrFail(Self.fullConfig))
    let generated = ConfigGenerator.swiftSource(settings, sourceName: "local.conf")
    let main = #"""
      let settings = compiledSettings()
      print(settings.localNamesCapacity)
      for path in settings.hostsFiles { print("hosts", path.map { "\($0)" }.joined(separator: ",")) }
      for path in settings.leaseFiles { print("leases", path.map { "\($0)" }.joined(separator: ",")) }
      print(settings.localDomain.map { "\($0)" }.joined(separator: ","))
      """#
    guard let lines = try runGeneratedSource(generated, main: main) else { return }
    func bytes(_ path: [UInt8]) -> String { path.map { "\($0)" }.joined(separator: ",") }
    XCTAssertEqual(
      lines,
      ["100"] + settings.hostsFiles.map { "hosts " + bytes($0) }
        + settings.leaseFiles.map { "leases " + bytes($0) } + [bytes(settings.localDomain)])
  }
}
