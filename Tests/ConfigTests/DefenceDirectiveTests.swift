import CompiledConfig
import Config
import Foundation
import XCTest

/// The hijack-defence directives (issue 6): `upstream ... trusted`, `bogus`,
/// `bogus-nxdomain`, `detect-nxdomain-redirect`, `verify`, `hold-on`,
/// `rebind-protection`, `rebind-allow`, `override-check`,
/// `override-check-interval`, `rate-limit` and `refuse-any`: values, errors
/// with their lines, the generated source and the summary.
final class DefenceDirectiveTests: XCTestCase, ParsesDirectives {
  func prefix(_ text: String, file: StaticString = #filePath, line: UInt = #line)
    -> AddressPrefix?
  {
    do throws(AddressSyntaxError) {
      return try AddressSyntax.parsePrefix(text)
    } catch {
      XCTFail(error.description, file: file, line: line)
      return nil
    }
  }

  static let trusted = "upstream tcp 9.9.9.9 trusted"

  func testDefaults() throws {
    let settings = try XCTUnwrap(parse("# none of them"))
    XCTAssertEqual(settings.bogusPrefixes, [])
    XCTAssertEqual(settings.bogusNXDomainPrefixes, [])
    XCTAssertEqual(settings.detectNXDomainRedirect, false)
    XCTAssertEqual(settings.verifyNames, [])
    XCTAssertEqual(settings.holdOnMilliseconds, 0)
    XCTAssertEqual(settings.rebindProtection, false)
    XCTAssertEqual(settings.rebindAllowNames, [])
    XCTAssertEqual(settings.overrideCheckPort, 0)
    XCTAssertEqual(settings.overrideCheckSeconds, 60)
    XCTAssertEqual(settings.rateLimitPerSecond, 0)
    XCTAssertEqual(settings.refuseAny, true)
  }

  func testTrustedUpstreams() throws {
    let settings = try XCTUnwrap(
      parse(
        "upstream udp 192.0.2.53\nupstream tcp 9.9.9.9 trusted\n"
          + "upstream udp [2001:db8::53]:5353 trusted\nupstream tcp 192.0.2.53"))
    XCTAssertEqual(settings.upstreams.map(\.trusted), [false, true, true, false])
    XCTAssertEqual(settings.upstreams.map(\.transport), [.udp, .tcp, .udp, .tcp])
    XCTAssertEqual(settings.upstreams[1].endpoint.port, 53)
    XCTAssertEqual(settings.upstreams[2].endpoint.port, 5353)
    // resolv-conf keeps its place between the trusted ones.
    let mixed = try XCTUnwrap(
      parse("upstream tcp 9.9.9.9 trusted\nupstream resolv-conf /etc/resolv.conf"))
    XCTAssertEqual(mixed.resolvConfPosition, 1)
  }

  func testBogusPrefixes() throws {
    let settings = try XCTUnwrap(
      parse(
        "bogus 198.51.100.7\nbogus 198.51.100.0/24\nbogus 2001:db8:bad::/48\n"
          + "bogus-nxdomain 203.0.113.9\nbogus-nxdomain 2001:db8::1\n"
          + "bogus-nxdomain 10.0.0.0/8"))
    XCTAssertEqual(
      settings.bogusPrefixes,
      [prefix("198.51.100.7"), prefix("198.51.100.0/24"), prefix("2001:db8:bad::/48")])
    XCTAssertEqual(settings.bogusPrefixes[0].length, 128)
    XCTAssertEqual(settings.bogusPrefixes[1].length, 96 + 24)
    XCTAssertEqual(
      settings.bogusNXDomainPrefixes,
      [prefix("203.0.113.9"), prefix("2001:db8::1"), prefix("10.0.0.0/8")])
    // Overlapping but different prefixes are no conflict.
    XCTAssertEqual(
      parse("bogus 198.51.100.0/24\nbogus-nxdomain 198.51.100.7")?.bogusNXDomainPrefixes.count, 1)
  }

  func testOnOffDirectives() {
    XCTAssertEqual(parse("detect-nxdomain-redirect on")?.detectNXDomainRedirect, true)
    XCTAssertEqual(parse("detect-nxdomain-redirect off")?.detectNXDomainRedirect, false)
    XCTAssertEqual(parse("rebind-protection on")?.rebindProtection, true)
    XCTAssertEqual(parse("# none")?.strict, false)
    XCTAssertEqual(parse("strict on")?.strict, true)
    XCTAssertEqual(parse("strict off")?.strict, false)
    XCTAssertEqual(parse("rebind-protection off")?.rebindProtection, false)
    XCTAssertEqual(parse("refuse-any on")?.refuseAny, true)
    XCTAssertEqual(parse("refuse-any off")?.refuseAny, false)
    XCTAssertEqual(parse("# none")?.seccomp, false)
    XCTAssertEqual(parse("seccomp on")?.seccomp, true)
    XCTAssertEqual(parse("seccomp off")?.seccomp, false)
  }

  /// Names are lower-cased flat wire names, concatenated in config order;
  /// a `verify` may come before the trusted upstream it needs.
  func testVerifyNames() {
    XCTAssertEqual(
      parse("verify Bank.Example.\nverify update.example.org\n" + Self.trusted)?.verifyNames,
      flatNames("bank.example", "update.example.org"))
    XCTAssertEqual(
      parse(Self.trusted + "\nverify a.b")?.verifyNames,
      [1, UInt8(ascii: "a"), 1, UInt8(ascii: "b"), 0])
    // A verified name may also be prefetched, overridden or rebind-allowed.
    XCTAssertEqual(
      parse(
        "prefetch bank.example\noverride bank.example 192.0.2.1\nrebind-allow bank.example\n"
          + "verify bank.example\n" + Self.trusted)?.verifyNames, flatNames("bank.example"))
  }

  func testRebindAllowNames() {
    XCTAssertEqual(
      parse("rebind-protection on\nrebind-allow LAN\nrebind-allow plex.direct")?
        .rebindAllowNames, flatNames("lan", "plex.direct"))
    // Allowed without rebind-protection: it then does nothing (see the summary).
    XCTAssertEqual(parse("rebind-allow home.arpa")?.rebindAllowNames, flatNames("home.arpa"))
  }

  func testHoldOn() {
    let cases: [(String, UInt32)] = [
      ("0", 0), ("0ms", 0), ("0s", 0), ("1", 1), ("30", 30), ("30ms", 30), ("250ms", 250),
      ("1000", 1000), ("1s", 1000),
    ]
    assertValues(of: "hold-on", cases, in: \.holdOnMilliseconds)
  }

  func testOverrideCheck() {
    XCTAssertEqual(parse("override-check tcp:443")?.overrideCheckPort, 443)
    XCTAssertEqual(parse("override-check tcp:1")?.overrideCheckPort, 1)
    XCTAssertEqual(parse("override-check tcp:65535")?.overrideCheckPort, 65535)
    XCTAssertEqual(parse("override-check off")?.overrideCheckPort, 0)
    let cases: [(String, UInt32)] = [
      ("5", 5), ("5s", 5), ("60", 60), ("5m", 300), ("1h", 3600), ("1d", 86_400),
      ("86400", 86_400),
    ]
    assertValues(of: "override-check-interval", cases, in: \.overrideCheckSeconds)
  }

  func testRateLimit() {
    let cases: [(String, UInt32)] = [
      ("off", 0), ("0", 0), ("0/s", 0), ("1/s", 1), ("200/s", 200), ("1000000/s", 1_000_000),
    ]
    assertValues(of: "rate-limit", cases, in: \.rateLimitPerSecond)
  }

  /// A fragment after three preamble lines, its message, and its line in
  /// the fragment.
  static let badLines: [(String, String, Int)] = [
    // upstream ... trusted
    (
      "upstream tcp 9.9.9.9 trustd",
      "unknown upstream option 'trustd' (expected trusted; usage: \(upstreamUsage))", 1
    ),
    (
      "upstream udp 9.9.9.9 Trusted",
      "unknown upstream option 'Trusted' (expected trusted; usage: \(upstreamUsage))", 1
    ),
    (
      "upstream tcp 9.9.9.9 trusted extra",
      "extra argument 'extra' to 'upstream' (usage: \(upstreamUsage))", 1
    ),
    (
      "upstream resolv-conf /etc/resolv.conf trusted",
      "'upstream resolv-conf' cannot be trusted: its nameservers are the network's own "
        + "(mark an upstream udp, tcp, tls or https trusted, e.g. upstream tcp 9.9.9.9 trusted)", 1
    ),
    (
      "upstream resolv-conf /etc/resolv.conf now",
      "extra argument 'now' to 'upstream' (usage: \(upstreamUsage))", 1
    ),
    (
      "upstream tcp 9.9.9.9\nupstream tcp 9.9.9.9:53 trusted",
      "duplicate upstream tcp 9.9.9.9:53 (first on line 4)", 2
    ),
    (
      "upstream udp 9.9.9.9 trusted\n\nupstream udp 9.9.9.9",
      "duplicate upstream udp 9.9.9.9:53 (first on line 4)", 3
    ),
    (
      "upstream tcp 9.9.9.9:0 trusted",
      "bad port '0' in '9.9.9.9:0': expected a number 1...65535", 1
    ),
    // bogus / bogus-nxdomain ADDRESS[/LENGTH]
    (
      "bogus 198.51.100.7\nbogus 198.51.100.7/32",
      "duplicate bogus 198.51.100.7/32 (first on line 4)", 2
    ),
    (
      "bogus 2001:db8:bad::/48\n\nbogus 2001:DB8:BAD::/48",
      "duplicate bogus 2001:db8:bad::/48 (first on line 4)", 3
    ),
    (
      "bogus-nxdomain 203.0.113.9\nbogus-nxdomain 203.0.113.9",
      "duplicate bogus-nxdomain 203.0.113.9/32 (first on line 4)", 2
    ),
    (
      "bogus 203.0.113.9\nbogus-nxdomain 203.0.113.9",
      "bogus-nxdomain 203.0.113.9/32 is also 'bogus' on line 4 (bogus drops the answer, "
        + "bogus-nxdomain turns it into NXDOMAIN: keep one)", 2
    ),
    (
      "bogus-nxdomain 10.0.0.0/8\nbogus 10.0.0.0/8",
      "bogus 10.0.0.0/8 is also 'bogus-nxdomain' on line 4 (bogus drops the answer, "
        + "bogus-nxdomain turns it into NXDOMAIN: keep one)", 2
    ),
    (
      "bogus 198.51.100.1/24",
      "bad prefix '198.51.100.1/24': host bits are set past /24 (the network is "
        + "198.51.100.0/24)", 1
    ),
    (
      "bogus 198.51.100.256",
      "bad IPv4 address '198.51.100.256': octet '256' is out of range 0...255", 1
    ),
    (
      "bogus ads.example",
      "'ads.example' is not an address (host names are not resolved)", 1
    ),
    (
      "bogus 0.0.0.0/0",
      "bogus 0.0.0.0/0 would match every IPv4 address, so every answer would be dropped", 1
    ),
    (
      "bogus-nxdomain ::/0",
      "bogus-nxdomain ::/0 would match every address, so every answer would be NXDOMAIN", 1
    ),
    ("bogus", "missing argument to 'bogus' (usage: bogus ADDRESS[/LENGTH])", 1),
    (
      "bogus 192.0.2.1 192.0.2.2",
      "extra argument '192.0.2.2' to 'bogus' (usage: bogus ADDRESS[/LENGTH])", 1
    ),
    (
      "bogus-nxdomain",
      "missing argument to 'bogus-nxdomain' (usage: bogus-nxdomain ADDRESS[/LENGTH])", 1
    ),
    (
      "bogus-nxdomian 1.2.3.4",
      "unknown directive 'bogus-nxdomian' (did you mean 'bogus-nxdomain'?)", 1
    ),
    // detect-nxdomain-redirect, rebind-protection, refuse-any on|off
    (
      "detect-nxdomain-redirect yes",
      "'detect-nxdomain-redirect' expects on or off, got 'yes'", 1
    ),
    (
      "detect-nxdomain-redirect on\ndetect-nxdomain-redirect off",
      "duplicate 'detect-nxdomain-redirect' directive (first on line 4)", 2
    ),
    ("rebind-protection 1", "'rebind-protection' expects on or off, got '1'", 1),
    ("strict yes", "'strict' expects on or off, got 'yes'", 1),
    ("seccomp strict", "'seccomp' expects on or off, got 'strict'", 1),
    ("seccomp on\nseccomp on", "duplicate 'seccomp' directive (first on line 4)", 2),
    (
      "rebind-protection",
      "missing argument to 'rebind-protection' (usage: rebind-protection on|off)", 1
    ),
    ("refuse-any ON", "'refuse-any' expects on or off, got 'ON'", 1),
    (
      "refuse-any off\n\n\nrefuse-any off",
      "duplicate 'refuse-any' directive (first on line 4)", 4
    ),
    // verify NAME
    (
      "verify bank.example\nverify BANK.example.",
      "duplicate verify of 'BANK.example.' (first on line 4)", 2
    ),
    (
      "verify *.bank.example",
      "verify takes a name, not a wildcard: 'verify NAME' already covers every name below NAME",
      1
    ),
    (
      "verify .",
      "verify . would ask the trusted upstream about every name; list the sensitive names "
        + "instead (or keep only trusted upstreams)", 1
    ),
    (
      "verify ba$nk.example",
      "bad name 'ba$nk.example': unexpected character '$' (use letters, digits, '-' and '_')", 1
    ),
    ("verify", "missing argument to 'verify' (usage: verify NAME)", 1),
    ("verify a.b c.d", "extra argument 'c.d' to 'verify' (usage: verify NAME)", 1),
    // hold-on DURATION
    ("hold-on 1001", "hold-on 1001 is out of range 0ms...1s", 1),
    ("hold-on 2s", "hold-on 2s is out of range 0ms...1s", 1),
    ("hold-on 30m", "unknown unit 'm' in '30m' (use ms or s)", 1),
    ("hold-on 0.5s", "bad duration '0.5s': use whole milliseconds, e.g. 1500ms", 1),
    ("hold-on brief", "bad duration 'brief' for 'hold-on' (e.g. 1500ms or 2s)", 1),
    (
      "hold-on",
      "missing argument to 'hold-on' (usage: hold-on DURATION, 0 (off)...1s, e.g. 30ms)", 1
    ),
    ("hold-on 10ms\nhold-on 20ms", "duplicate 'hold-on' directive (first on line 4)", 2),
    // rebind-allow NAME
    (
      "rebind-allow lan\nrebind-allow LAN.",
      "duplicate rebind-allow of 'LAN.' (first on line 4)", 2
    ),
    (
      "rebind-allow *.lan",
      "rebind-allow takes a name, not a wildcard: 'rebind-allow NAME' already covers every "
        + "name below NAME", 1
    ),
    (
      "rebind-allow .",
      "rebind-allow . would allow every name; write rebind-protection off instead", 1
    ),
    (
      "rebind-allow a..lan", "bad name 'a..lan': empty label (two dots in a row, or a leading dot)",
      1
    ),
    ("rebind-allow", "missing argument to 'rebind-allow' (usage: rebind-allow NAME)", 1),
    // override-check tcp:PORT | off
    (
      "override-check 443",
      "bad override-check '443' (usage: override-check tcp:PORT or override-check off, "
        + "e.g. tcp:443)", 1
    ),
    (
      "override-check udp:53",
      "bad override-check 'udp:53' (usage: override-check tcp:PORT or override-check off, "
        + "e.g. tcp:443)", 1
    ),
    (
      "override-check on",
      "bad override-check 'on' (usage: override-check tcp:PORT or override-check off, "
        + "e.g. tcp:443)", 1
    ),
    ("override-check tcp:0", "bad port '0' in 'tcp:0': expected a number 1...65535", 1),
    ("override-check tcp:65536", "bad port '65536' in 'tcp:65536': expected a number 1...65535", 1),
    ("override-check tcp:https", "bad port 'https' in 'tcp:https': expected a number 1...65535", 1),
    ("override-check tcp:", "bad endpoint 'tcp:': missing port after ':'", 1),
    (
      "override-check tcp:443 tcp:80",
      "extra argument 'tcp:80' to 'override-check' (usage: override-check tcp:PORT or "
        + "override-check off, e.g. tcp:443)", 1
    ),
    (
      "override-check tcp:443\noverride-check off",
      "duplicate 'override-check' directive (first on line 4)", 2
    ),
    // override-check-interval DURATION
    ("override-check-interval 4", "override-check-interval 4 is out of range 5s...1d", 1),
    ("override-check-interval 0", "override-check-interval 0 is out of range 5s...1d", 1),
    ("override-check-interval 2d", "override-check-interval 2d is out of range 5s...1d", 1),
    ("override-check-interval 500ms", "unknown unit 'ms' in '500ms' (use s, m, h or d)", 1),
    (
      "override-check-interval",
      "missing argument to 'override-check-interval' (usage: override-check-interval DURATION, "
        + "5s...1d, e.g. 60 (seconds) or 5m)", 1
    ),
    (
      "override-check-intervall 5m",
      "unknown directive 'override-check-intervall' (did you mean 'override-check-interval'?)",
      1
    ),
    // rate-limit COUNT/s | off | 0
    (
      "rate-limit 200",
      "rate-limit 200 needs its unit: write 200/s (queries per second per client)", 1
    ),
    ("rate-limit 200/m", "unknown unit '/m' in '200/m' (use /s)", 1),
    ("rate-limit 200qps", "unknown unit 'qps' in '200qps' (use /s)", 1),
    (
      "rate-limit 1000001/s",
      "rate-limit 1000001/s is out of range 1/s...1000000/s", 1
    ),
    (
      "rate-limit 99999999999999999999/s",
      "rate-limit 99999999999999999999/s is out of range 1/s...1000000/s", 1
    ),
    (
      "rate-limit fast",
      "bad rate 'fast' for 'rate-limit' (usage: rate-limit COUNT/s, 1/s...1000000/s, "
        + "or off, e.g. 200/s)", 1
    ),
    (
      "rate-limit /s",
      "bad rate '/s' for 'rate-limit' (usage: rate-limit COUNT/s, 1/s...1000000/s, "
        + "or off, e.g. 200/s)", 1
    ),
    (
      "rate-limit 200/s\nrate-limit off",
      "duplicate 'rate-limit' directive (first on line 4)", 2
    ),
    (
      "rate-limit",
      "missing argument to 'rate-limit' (usage: rate-limit COUNT/s, 1/s...1000000/s, "
        + "or off, e.g. 200/s)", 1
    ),
  ]

  func testErrorsAreReportedWithFileAndLine() {
    assertBadLines(Self.badLines)
  }

  /// `verify` without a trusted upstream anywhere in the file is reported
  /// at the end of the parse, on the first `verify` line.
  func testVerifyNeedsATrustedUpstream() throws {
    let message = "verify needs an upstream marked trusted (e.g. upstream tcp 9.9.9.9 trusted)"
    let untrusted = try XCTUnwrap(
      parseError(
        "listen 127.0.0.1\nupstream tcp 9.9.9.9\n\nverify bank.example\nverify b.example\n"))
    XCTAssertEqual(untrusted.description, "test.conf:4: \(message)")
    let none = try XCTUnwrap(parseError("listen 127.0.0.1\nverify bank.example\n"))
    XCTAssertEqual(none.description, "test.conf:2: \(message)")
    let resolvConfOnly = try XCTUnwrap(
      parseError(
        "listen 127.0.0.1\nupstream resolv-conf /etc/resolv.conf\nlog info\nverify a.example\n"))
    XCTAssertEqual(resolvConfOnly.description, "test.conf:4: \(message)")
    // A line error earlier in the file is still reported first.
    let earlier = try XCTUnwrap(parseError("listen 127.0.0.1\nverify a.example\nhold-on 5s\n"))
    XCTAssertEqual(earlier.description, "test.conf:3: hold-on 5s is out of range 0ms...1s")
    // And a missing listen, the problem of the whole file, before it.
    let noListen = try XCTUnwrap(parseError("verify a.example\n"))
    XCTAssertEqual(noListen.line, 0)
  }
}
