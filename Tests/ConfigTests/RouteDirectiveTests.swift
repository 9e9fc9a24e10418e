import CompiledConfig
import Config
import DNSWire
import TestSupport
import XCTest

/// `upstream ... for DOMAIN` and `for-list PATH`: the syntax on every kind,
/// route groups, dnsmasq `server=` lines, bad lines (`file:line`, skipped in
/// lists), and the `--check` summary.
final class RouteDirectiveTests: XCTestCase, ParsesWithFakeFiles {
  typealias FakeFiles = BlockListDirectiveTests.FakeFiles

  func group(_ settings: Settings, _ name: String) -> UInt8 {
    flatName(name).withUnsafeBytes { settings.routes.routeGroup($0) }
  }

  /// The upstreams (indices) that serve `name`'s group.
  func upstreams(_ settings: Settings, _ name: String) -> [Int] {
    let route = group(settings, name)
    return settings.upstreams.indices.filter { settings.upstreams[$0].serves(routeGroup: route) }
  }

  func testForOnEveryKindAndTheLongestMatch() throws {
    let settings = try parse(
      """
      upstream udp 192.0.2.1
      upstream udp 10.8.0.1 for corp.example for 8.10.in-addr.arpa
      upstream tcp 10.8.0.2 trusted for corp.example
      upstream tls 192.0.2.3 name=dns.example for Lab.Corp.Example.
      upstream https 192.0.2.4 for cdn.example name=dns.example
      upstream httpdns 192.0.2.5 format=json for cn
      upstream udp 127.0.0.1:5353 for lan
      """)
    XCTAssertEqual(settings.upstreams.count, 7)
    XCTAssertTrue(settings.upstreams[2].trusted, "other options still read")
    XCTAssertEqual(settings.upstreams[3].tlsName, Array("dns.example".utf8))
    XCTAssertEqual(settings.routes.count, 6)
    XCTAssertEqual(settings.upstreams[0].routeGroups, 0)
    XCTAssertEqual(upstreams(settings, "www.example"), [0])
    XCTAssertEqual(upstreams(settings, "a.corp.example"), [1, 2])
    XCTAssertEqual(upstreams(settings, "1.2.8.10.in-addr.arpa"), [1])
    XCTAssertEqual(upstreams(settings, "x.lab.corp.example"), [3])
    XCTAssertEqual(upstreams(settings, "img.cdn.example"), [4])
    XCTAssertEqual(upstreams(settings, "baidu.cn"), [5])
    XCTAssertEqual(upstreams(settings, "printer.lan"), [6])
    XCTAssertEqual(group(settings, "cdn.example.com"), 0)
  }

  func testListsTakeNamesCommentsAndDnsmasqServerLines() throws {
    let files = FakeFiles([
      "conf/china.conf": """
      # dnsmasq-china-list format
      server=/baidu.com/114.114.114.114
      server=/qq.com/weixin.qq.com/114.114.114.114
      server=/local.example/
      Taobao.com   # a bare name
      \tjd.com\r

      """
    ])
    var lines = SourceLines()
    let settings = try parse(
      "upstream tls 9.9.9.9 name=dns.quad9.net\nupstream udp 223.5.5.5 for-list china.conf",
      files: files, lines: &lines)
    XCTAssertEqual(files.reads, ["conf/china.conf"])
    XCTAssertTrue(lines.skippedListLines.isEmpty)
    XCTAssertEqual(settings.routes.count, 6)
    for name in [
      "www.baidu.com", "qq.com", "x.weixin.qq.com", "a.local.example", "taobao.com", "jd.com",
    ] {
      XCTAssertEqual(upstreams(settings, name), [1], name)
    }
    XCTAssertEqual(upstreams(settings, "google.com"), [0])
  }

  /// A list is data from elsewhere: its bad lines are skipped with
  /// `LIST:LINE: message`, and the rest is routed.
  func testBadListLinesAreSkippedWithTheirFileAndLine() throws {
    let files = FakeFiles([
      "conf/list.txt": """
      good.example
      two names.example
      server=//114.114.114.114
      server=/a.example/bad!name.example/114.114.114.114
      server=/no-slash.example
      bad!name.example
      *.wild.example
      also-good.example
      """
    ])
    var lines = SourceLines()
    let settings = try parse(
      "upstream udp 192.0.2.1\nupstream udp 192.0.2.2 for-list list.txt", files: files,
      lines: &lines)
    XCTAssertEqual(upstreams(settings, "good.example"), [1])
    XCTAssertEqual(upstreams(settings, "also-good.example"), [1])
    XCTAssertEqual(settings.routes.count, 2)
    XCTAssertEqual(group(settings, "a.example"), 0, "a bad line routes none of its domains")
    XCTAssertEqual(
      lines.skippedListLines.map(\.description),
      [
        "conf/list.txt:2: one domain per line, found 'names.example' after 'two'",
        "conf/list.txt:3: bad dnsmasq line 'server=//114.114.114.114' "
          + "(expected server=/DOMAIN/[DOMAIN/...]ADDRESS)",
        "conf/list.txt:4: bad name 'bad!name.example': unexpected character '!' "
          + "(use letters, digits, '-' and '_')",
        "conf/list.txt:5: bad dnsmasq line 'server=/no-slash.example' "
          + "(expected server=/DOMAIN/[DOMAIN/...]ADDRESS)",
        "conf/list.txt:6: bad name 'bad!name.example': unexpected character '!' "
          + "(use letters, digits, '-' and '_')",
        "conf/list.txt:7: 'for' takes a domain, not a wildcard: '*.wild.example' already "
          + "covers every name below it",
      ])
  }

  func testBadLines() {
    assertBadLines([
      (
        "upstream udp 192.0.2.1 for",
        "missing 'for' value (e.g. for corp.example, for-list cn.conf)", 1
      ),
      (
        "upstream udp 192.0.2.1 for-list",
        "missing 'for-list' value (e.g. for corp.example, for-list cn.conf)", 1
      ),
      (
        "upstream udp 192.0.2.1\nupstream tcp 192.0.2.2 for .",
        "'for .' would route every name: leave 'for' out for the upstreams of the other names", 2
      ),
      (
        "upstream udp 192.0.2.1 for a..example",
        "bad name 'a..example': empty label (two dots in a row, or a leading dot)", 1
      ),
      (
        "upstream resolv-conf /etc/resolv.conf for lan",
        "'upstream resolv-conf' takes no 'for': route domains to an upstream udp or tcp instead", 1
      ),
      (
        "upstream udp 192.0.2.1 for lan bogus",
        "unknown upstream option 'bogus' (expected trusted; usage: \(upstreamUsage))", 1
      ),
      (
        "upstream udp 192.0.2.1 for-list missing.txt",
        "cannot read for-list 'missing.txt': files cannot be read here", 1
      ),
    ])
  }

  func testAnUnreadableListFailsTheConfig() {
    XCTAssertThrowsError(
      try parse("upstream udp 192.0.2.1 for-list gone.txt", files: FakeFiles([:]))
    ) { error in
      XCTAssertEqual(
        (error as? ConfigError)?.description,
        "conf/dnsward.conf:2: cannot read for-list 'conf/gone.txt': No such file or directory")
    }
  }

  func testWithoutForNothingIsRouted() throws {
    let settings = try parse("upstream udp 192.0.2.1\nupstream tcp 192.0.2.2")
    XCTAssertEqual(settings.routes.count, 0)
    XCTAssertEqual(settings.upstreams.map(\.routeGroups), [0, 0])
    XCTAssertFalse(ConfigGenerator.summary(settings).contains("routes:"))
  }

  func testTheSummaryCountsEachUpstreamsDomains() throws {
    let files = FakeFiles(["conf/cn.txt": "server=/a.cn/b.cn/1.1.1.1\nc.cn\n"])
    let settings = try parse(
      """
      upstream tls 9.9.9.9 name=dns.quad9.net
      upstream udp 10.8.0.1 for corp.example for-list cn.txt
      upstream udp 10.8.0.2 for corp.example
      """, files: files)
    let summary = ConfigGenerator.summary(settings)
    XCTAssertTrue(
      summary.contains(
        """
        routes: 4 domains, the other names to the upstreams without 'for'
          udp 10.8.0.1:53: 4 domains
          udp 10.8.0.2:53: 1 domain

        """), summary)
  }
}
