import CompiledConfig
import Config
import XCTest

/// Every directive lands in the right `Settings` field.
final class ConfigParserTests: XCTestCase {
  let everyDirective = """
    # Full config: every directive once or more.
    listen 127.0.0.1:8053            # loopback, custom port
    listen [::1]:8053
    listen 192.168.1.1               # port 53 by default
    allow 127.0.0.0/8
    allow 192.168.1.0/24
    allow fd00::/8
    allow 10.9.8.7                   # a single host
    upstream udp 127.0.0.1:5300
    upstream tcp [::1]:5300
    upstream resolv-conf /etc/resolv.conf
    upstream udp 192.0.2.53
    timeout 2s
    inflight 4096
    override printer.lan 192.168.1.20 fd00::20
    override *.dev.lan 192.168.1.30
    override nas.lan fd00::40 fd00::41
    block ads.example
    override-ttl 60
    user nobody
    seccomp on
    log debug
    tcp-clients 64
    tcp-idle 30s
    edns-size 1400
    case-randomization off
    cache 2048
    cache-bytes 512k
    min-ttl 30
    max-ttl 2h
    neg-ttl-max 15m
    stale 2d
    stale-first on
    """

  func testEveryDirective() throws {
    let settings = try XCTUnwrap(parseOrFail(everyDirective))
    XCTAssertEqual(
      settings.listen.map { describe($0) }, ["127.0.0.1:8053", "[::1]:8053", "192.168.1.1:53"])
    XCTAssertEqual(
      settings.allow.map { describe($0) },
      ["127.0.0.0/8", "192.168.1.0/24", "fd00::/8", "10.9.8.7/32"])
    XCTAssertEqual(settings.allow[3].length, 128)
    XCTAssertEqual(settings.upstreams.map(\.transport), [.udp, .tcp, .udp])
    XCTAssertEqual(
      settings.upstreams.map { describe($0.endpoint) },
      ["127.0.0.1:5300", "[::1]:5300", "192.0.2.53:53"])
    XCTAssertEqual(settings.resolvConfPath, Array("/etc/resolv.conf".utf8))
    XCTAssertEqual(settings.resolvConfPosition, 2)
    XCTAssertEqual(settings.timeoutMilliseconds, 2000)
    XCTAssertEqual(settings.inflight, 4096)
    XCTAssertEqual(settings.overrideTTL, 60)
    XCTAssertEqual(settings.user, Array("nobody".utf8))
    XCTAssertEqual(settings.logLevel, .debug)
    XCTAssertEqual(settings.tcpClients, 64)
    XCTAssertEqual(settings.tcpIdleMilliseconds, 30_000)
    XCTAssertEqual(settings.ednsPayloadSize, 1400)
    XCTAssertEqual(settings.caseRandomization, false)
    XCTAssertEqual(settings.cacheEntries, 2048)
    XCTAssertEqual(settings.cacheBytes, 512 * 1024)
    XCTAssertEqual(settings.minTTL, 30)
    XCTAssertEqual(settings.maxTTL, 7200)
    XCTAssertEqual(settings.negativeTTLMax, 900)
    XCTAssertEqual(settings.staleSeconds, 172_800)
    XCTAssertEqual(settings.staleFirst, true)

    let table = settings.overrides
    XCTAssertEqual(table.count, 4)
    let printer = try XCTUnwrap(lookup(table, "printer.lan"))
    XCTAssertEqual(printer.kind, .exact)
    XCTAssertEqual(ipv4Addresses(table, printer), ["192.168.1.20"])
    XCTAssertEqual(ipv6Addresses(table, printer), ["fd00::20"])
    let nas = try XCTUnwrap(lookup(table, "NAS.lan."))
    XCTAssertEqual(ipv4Addresses(table, nas), [])
    XCTAssertEqual(ipv6Addresses(table, nas), ["fd00::40", "fd00::41"])
    let dev = try XCTUnwrap(lookup(table, "api.dev.lan"))
    XCTAssertEqual(dev.kind, .wildcard)
    XCTAssertEqual(ipv4Addresses(table, dev), ["192.168.1.30"])
    XCTAssertNil(lookup(table, "dev.lan"))
    XCTAssertEqual(lookup(table, "ads.example")?.kind, .block)
    XCTAssertEqual(lookup(table, "x.y.ads.example")?.kind, .block)
  }

  func testListenAcceptsPortZeroForAKernelChosenPort() throws {
    let settings = try XCTUnwrap(parseOrFail("listen 127.0.0.1:0\nlisten [::1]:0\n"))
    XCTAssertEqual(settings.listen.map(\.port), [0, 0])
  }

  func testDefaultsWhenOnlyListenIsGiven() throws {
    let settings = try XCTUnwrap(parseOrFail("listen 127.0.0.1:8053\n"))
    let defaults = Settings()
    XCTAssertTrue(settings.allow.isEmpty)
    XCTAssertEqual(settings.effectiveAllow, defaultAllowPrefixes)
    XCTAssertTrue(settings.upstreams.isEmpty)
    XCTAssertTrue(settings.resolvConfPath.isEmpty)
    XCTAssertEqual(settings.timeoutMilliseconds, defaults.timeoutMilliseconds)
    XCTAssertEqual(settings.inflight, defaults.inflight)
    XCTAssertEqual(settings.overrideTTL, defaults.overrideTTL)
    XCTAssertEqual(settings.logLevel, defaults.logLevel)
    XCTAssertEqual(settings.caseRandomization, defaults.caseRandomization)
    XCTAssertEqual(settings.cacheEntries, defaults.cacheEntries)
    XCTAssertEqual(settings.cacheBytes, defaults.cacheBytes)
    XCTAssertEqual(settings.minTTL, defaults.minTTL)
    XCTAssertEqual(settings.maxTTL, defaults.maxTTL)
    XCTAssertEqual(settings.negativeTTLMax, defaults.negativeTTLMax)
    XCTAssertEqual(settings.staleSeconds, defaults.staleSeconds)
    XCTAssertEqual(settings.staleFirst, defaults.staleFirst)
    XCTAssertEqual(settings.overrides.count, 0)
  }

  func testSyntaxDetails() throws {
    // Tabs, CRLF, comments glued to tokens, trailing dots, upper case, no final newline.
    let text =
      "listen\t127.0.0.1:53\r\n\r\n  # only a comment\r\noverride Printer.LAN.\t10.0.0.1#c\r\n"
      + "timeout 1500\r\ncase-randomization on"
    let settings = try XCTUnwrap(parseOrFail(text))
    XCTAssertEqual(settings.timeoutMilliseconds, 1500)
    XCTAssertEqual(settings.caseRandomization, true)
    let match = try XCTUnwrap(lookup(settings.overrides, "printer.lan"))
    XCTAssertEqual(ipv4Addresses(settings.overrides, match), ["10.0.0.1"])
  }

  func testDurationsAndLimits() throws {
    let cases: [(String, UInt32)] = [
      ("50ms", 50), ("50", 50), ("60s", 60_000), ("60000ms", 60_000), ("1s", 1000),
    ]
    for (text, milliseconds) in cases {
      let settings = try XCTUnwrap(parseOrFail("listen 127.0.0.1\ntimeout \(text)\n"))
      XCTAssertEqual(settings.timeoutMilliseconds, milliseconds, text)
    }
    for count in [16, 65_536] {
      XCTAssertEqual(parseOrFail("listen 127.0.0.1\ninflight \(count)")?.inflight, count)
    }
    XCTAssertEqual(parseOrFail("listen 127.0.0.1\noverride-ttl 0")?.overrideTTL, 0)
    XCTAssertEqual(parseOrFail("listen 127.0.0.1\noverride-ttl 604800")?.overrideTTL, 604_800)
    XCTAssertEqual(parseOrFail("listen 127.0.0.1\nedns-size 512")?.ednsPayloadSize, 512)
    XCTAssertEqual(parseOrFail("listen 127.0.0.1\nedns-size 4096")?.ednsPayloadSize, 4096)
    XCTAssertEqual(parseOrFail("listen 127.0.0.1\ntcp-clients 4096")?.tcpClients, 4096)
    XCTAssertEqual(parseOrFail("listen 127.0.0.1\ntcp-idle 1500ms")?.tcpIdleMilliseconds, 1500)
    for (word, level) in [("error", LogLevel.error), ("warning", .warning), ("info", .info)] {
      XCTAssertEqual(parseOrFail("listen 127.0.0.1\nlog \(word)")?.logLevel, level)
    }
  }

  func testResolvConfPosition() throws {
    let first = try XCTUnwrap(
      parseOrFail("listen 127.0.0.1\nupstream resolv-conf /r\nupstream udp 192.0.2.1"))
    XCTAssertEqual(first.resolvConfPosition, 0)
    XCTAssertEqual(first.upstreams.count, 1)
    let overridesOnly = try XCTUnwrap(parseOrFail("listen 127.0.0.1\noverride a.lan 10.0.0.1"))
    XCTAssertTrue(overridesOnly.upstreams.isEmpty)
    XCTAssertTrue(overridesOnly.resolvConfPath.isEmpty)
  }

  func testOverrideBelowABlockIsAnException() throws {
    let settings = try XCTUnwrap(
      parseOrFail(
        """
        listen 127.0.0.1
        block example.com
        override www.example.com 192.0.2.80
        override *.cdn.example.com 192.0.2.81
        """))
    let table = settings.overrides
    XCTAssertEqual(lookup(table, "www.example.com")?.kind, .exact)
    XCTAssertEqual(lookup(table, "a.cdn.example.com")?.kind, .wildcard)
    XCTAssertEqual(lookup(table, "cdn.example.com")?.kind, .block)
    XCTAssertEqual(lookup(table, "a.www.example.com")?.kind, .block)
  }

  func testExactAndWildcardOfTheSameName() throws {
    let settings = try XCTUnwrap(
      parseOrFail("listen 127.0.0.1\noverride *.lan 10.0.0.1\noverride lan 10.0.0.2"))
    let table = settings.overrides
    XCTAssertEqual(lookup(table, "lan").map { ipv4Addresses(table, $0) }, ["10.0.0.2"])
    XCTAssertEqual(lookup(table, "a.b.lan").map { ipv4Addresses(table, $0) }, ["10.0.0.1"])
  }

  func testMaximumAddressesPerFamily() throws {
    let v4 = (0..<255).map { "10.0.\($0 / 256).\($0 % 256)" }.joined(separator: " ")
    let v6 = (0..<255).map { "fd00::\(String($0, radix: 16))" }.joined(separator: " ")
    let settings = try XCTUnwrap(parseOrFail("listen 127.0.0.1\noverride many.lan \(v4) \(v6)"))
    let match = try XCTUnwrap(lookup(settings.overrides, "many.lan"))
    XCTAssertEqual(match.ipv4Count, 255)
    XCTAssertEqual(match.ipv6Count, 255)
    XCTAssertEqual(ipv6Addresses(settings.overrides, match).last, "fd00::fe")
  }

  func testSummary() throws {
    let settings = try XCTUnwrap(parseOrFail(everyDirective))
    let summary = ConfigGenerator.summary(settings)
    XCTAssertTrue(summary.contains("listen: 127.0.0.1:8053, [::1]:8053, 192.168.1.1:53"))
    XCTAssertTrue(summary.contains("allow: 4 prefixes"))
    XCTAssertTrue(
      summary.contains(
        "upstreams: udp 127.0.0.1:5300, tcp [::1]:5300, resolv-conf /etc/resolv.conf, "
          + "udp 192.0.2.53:53"))
    XCTAssertTrue(summary.contains("timeout: 2s, inflight: 4096"))
    XCTAssertTrue(summary.contains("overrides: 2 exact, 1 wildcard, 1 blocked"))
    XCTAssertTrue(summary.contains("case-randomization: off"))
    XCTAssertTrue(summary.contains("\nuser: nobody, seccomp: on\n"))
    XCTAssertTrue(
      summary.contains(
        "\ncache: 2048 entries, 524288 bytes; ttl 30...7200s, negative at most 900s; "
          + "stale: 172800s, stale-first on\n"))
  }
}
