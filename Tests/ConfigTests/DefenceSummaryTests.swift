import CompiledConfig
import Config
import Foundation
import XCTest

/// The defence directives in `--check` / `--print-config`, and the shipped
/// configs that use them.
extension DefenceDirectiveTests {
  // MARK: - Summary

  func testSummary() throws {
    let defaults = ConfigGenerator.summary(try XCTUnwrap(parse("")))
    XCTAssertTrue(
      defaults.hasSuffix(
        "\nbogus: none; bogus-nxdomain: none; detect-nxdomain-redirect: off\n"
          + "verify: none; hold-on: off\n"
          + "rebind-protection: off, rebind-allow: none\n"
          + "override-check: off\n"
          + "rate-limit: off, refuse-any: on\n"
          + "forward-single-label: off, forward-private-reverse: off, filter-aaaa: off\n"
          + "dnssec: off; trust anchors: 2 (root: 2)\n"),
      defaults)
    let full = ConfigGenerator.summary(try XCTUnwrap(parse(Self.fullConfig)))
    XCTAssertTrue(
      full.contains(
        "\nupstreams: udp 192.0.2.53:53, tcp 9.9.9.9:53 trusted, resolv-conf /etc/resolv.conf, "
          + "udp [2001:db8::53]:5353 trusted\n"), full)
    XCTAssertTrue(
      full.hasSuffix(
        "\nbogus: 198.51.100.7/32, 198.51.100.0/24, 2001:db8:bad::/48; "
          + "bogus-nxdomain: 203.0.113.9/32, 2001:db8::1/128; detect-nxdomain-redirect: on\n"
          + "verify: 2 names (strict: trusted answers only); hold-on: 30ms\n"
          + "rebind-protection: on, rebind-allow: 2 names\n"
          + "override-check: tcp:443 every 300s\n"
          + "rate-limit: 200/s, refuse-any: off\n"
          + "forward-single-label: on, forward-private-reverse: on, filter-aaaa: on\n"
          + "dnssec: off; trust anchors: 2 (root: 2)\n"),
      full)
    // Accepted, but said to do nothing.
    let idle = ConfigGenerator.summary(
      try XCTUnwrap(
        parse(
          "upstream tcp 9.9.9.9 trusted\nverify a.example\ndetect-nxdomain-redirect on\n"
            + "rebind-allow lan\noverride-check tcp:80\nblock ads.example\nhold-on 1s")))
    XCTAssertTrue(
      idle.contains(
        "; detect-nxdomain-redirect: on (no effect: no upstream that is not trusted)\n"
          + "verify: 1 name; hold-on: 1s\n"
          + "rebind-protection: off, rebind-allow: 1 name (no effect: rebind-protection is off)\n"
          + "override-check: tcp:80 every 60s (no effect: no override addresses)\n"), idle)
  }

  /// A `bogus` prefix that holds a `bogus-nxdomain` entry (or the other
  /// way round) is accepted, but the engine makes an answer with only
  /// addresses of the `bogus-nxdomain` entry NXDOMAIN before the bogus
  /// check: `--check` says so, naming both entries and their lines.
  func testBogusOverlappingBogusNXDomainIsNoted() throws {
    let text =
      "listen 127.0.0.1:53\nupstream udp 192.0.2.53\nbogus 198.51.100.0/24\n"
      + "bogus-nxdomain 198.51.100.7\nbogus 2001:db8:bad::1\n"
      + "bogus-nxdomain 2001:db8:bad::/48\nbogus-nxdomain 203.0.113.9\n"
    var lines = SourceLines()
    let settings = try ConfigParser.parse(
      bytes: Array(text.utf8), fileName: "test.conf", lines: &lines)
    XCTAssertEqual(lines.bogus, [3, 5])
    XCTAssertEqual(lines.bogusNXDomain, [4, 6, 7])
    let summary = ConfigGenerator.summary(settings, lines: lines)
    XCTAssertTrue(
      summary.contains(
        "; detect-nxdomain-redirect: off\n"
          + "warning: bogus 198.51.100.0/24 (line 3) contains bogus-nxdomain 198.51.100.7 "
          + "(line 4): an answer with only that address becomes NXDOMAIN\n"
          + "warning: bogus-nxdomain 2001:db8:bad::/48 (line 6) contains bogus "
          + "2001:db8:bad::1 (line 5): an answer with only addresses in 2001:db8:bad::/48 "
          + "becomes NXDOMAIN, even with that address\n"
          + "verify: none"), summary)
    XCTAssertFalse(summary.contains("203.0.113.9 ("), summary)
    // Without lines (the compiled-in config), the same notes without them.
    let compiled = ConfigGenerator.summary(settings)
    XCTAssertTrue(
      compiled.contains(
        "warning: bogus 198.51.100.0/24 contains bogus-nxdomain 198.51.100.7: an answer with "
          + "only that address becomes NXDOMAIN\n"), compiled)
    // Disjoint prefixes, and bogus prefixes overlapping each other: no note.
    let disjoint = ConfigGenerator.summary(try XCTUnwrap(parse(Self.fullConfig)))
    XCTAssertFalse(disjoint.contains("warning:"), disjoint)
  }

  // MARK: - Shipped configs

  /// The shipped configs still parse and leave the defences that need the
  /// internet or a chosen trusted upstream off; the board configs turn
  /// rebind protection on.
  func testShippedConfigs() throws {
    for path in shippedConfigPaths {
      guard let settings = try parsedShippedConfig(path) else { continue }
      XCTAssertEqual(settings.detectNXDomainRedirect, false, path)
      XCTAssertEqual(settings.verifyNames, [], path)
      XCTAssertEqual(settings.overrideCheckPort, 0, path)
      XCTAssertEqual(settings.refuseAny, true, path)
      XCTAssertFalse(settings.upstreams.contains { $0.trusted }, path)
      // On in the router configs (as OpenWrt's dnsmasq has it), not in
      // the default one, which may run behind an office's own resolver.
      XCTAssertEqual(settings.rebindProtection, path.hasPrefix("Board/"), path)
    }
  }

  /// The commented examples in the default config are valid directives.
  func testDefaultConfigExamplesParse() throws {
    let text = try defaultConfigText()
    let directives = [
      "upstream", "bogus", "bogus-nxdomain", "detect-nxdomain-redirect", "verify", "hold-on",
      "rebind-protection", "rebind-allow", "override-check", "override-check-interval",
      "rate-limit", "refuse-any", "forward-single-label", "forward-private-reverse", "filter-aaaa",
    ]
    var found: [String] = []
    let uncommented = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      for directive in directives where line.hasPrefix("# \(directive) ") {
        found.append(directive)
        return String(line.dropFirst(2))
      }
      return String(line)
    }.joined(separator: "\n")
    for directive in directives {
      XCTAssertTrue(found.contains(directive), "no commented example of \(directive)")
    }
    let settings = try XCTUnwrap(parseOrFail(uncommented))
    XCTAssertTrue(settings.upstreams.contains { $0.trusted })
    XCTAssertFalse(settings.bogusPrefixes.isEmpty)
    XCTAssertFalse(settings.bogusNXDomainPrefixes.isEmpty)
    XCTAssertTrue(settings.detectNXDomainRedirect)
    XCTAssertFalse(settings.verifyNames.isEmpty)
    XCTAssertGreaterThan(settings.holdOnMilliseconds, 0)
    XCTAssertTrue(settings.rebindProtection)
    XCTAssertFalse(settings.rebindAllowNames.isEmpty)
    XCTAssertNotEqual(settings.overrideCheckPort, 0)
    XCTAssertGreaterThan(settings.rateLimitPerSecond, 0)
    XCTAssertTrue(settings.filterAAAA)
  }
}
