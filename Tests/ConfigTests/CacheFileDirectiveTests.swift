import CompiledConfig
import Config
import Foundation
import TestSupport
import XCTest

/// `cache-file`, `cache-save-interval`, `prefetch` and `prefetch-hits`:
/// values, errors with their lines, the generated source and the summary.
final class CacheFileDirectiveTests: XCTestCase, ParsesDirectives {
  /// The defaults, and a config without the directives gets exactly these.
  func testDefaults() throws {
    for settings in [Settings(), try XCTUnwrap(parse("# none of them"))] {
      XCTAssertEqual(settings.cacheFilePath, [])
      XCTAssertEqual(settings.cacheSaveSeconds, 300)
      XCTAssertEqual(settings.prefetchNames, [])
      XCTAssertEqual(settings.prefetchHits, 0)
    }
  }

  func testCacheFile() {
    XCTAssertEqual(
      parse("cache-file /tmp/dnsward.cache")?.cacheFilePath, Array("/tmp/dnsward.cache".utf8))
    XCTAssertEqual(parse("cache-file /x")?.cacheFilePath, Array("/x".utf8))
    let longest = "/" + String(repeating: "a", count: 4090)
    XCTAssertEqual(parse("cache-file \(longest)")?.cacheFilePath.count, 4091)
  }

  func testSaveInterval() {
    let cases: [(String, UInt32)] = [
      ("30", 30), ("30s", 30), ("90", 90), ("5m", 300), ("1h", 3600), ("24h", 86_400),
      ("1d", 86_400), ("86400", 86_400),
    ]
    assertValues(of: "cache-save-interval", cases, in: \.cacheSaveSeconds)
  }

  /// Names are lower-cased flat wire names, concatenated in config order.
  func testPrefetchNames() {
    XCTAssertEqual(parse("prefetch example.com")?.prefetchNames, flatNames("example.com"))
    XCTAssertEqual(
      parse("prefetch WWW.Example.COM.\nprefetch a.b\nprefetch _srv-1.lan")?.prefetchNames,
      flatNames("www.example.com", "a.b", "_srv-1.lan"))
    XCTAssertEqual(
      parse("prefetch a.b")?.prefetchNames,
      [1, UInt8(ascii: "a"), 1, UInt8(ascii: "b"), 0])
    // A prefetched name may also be overridden or blocked elsewhere.
    XCTAssertEqual(
      parse("block ads.example\nprefetch ads.example")?.prefetchNames, flatNames("ads.example"))
  }

  func testPrefetchHits() {
    for count in [0, 1, 10, 1_000_000] {
      XCTAssertEqual(parse("prefetch-hits \(count)")?.prefetchHits, UInt32(count))
    }
  }

  /// A fragment after three preamble lines, its message, and its line in
  /// the fragment.
  static let badLines: [(String, String, Int)] = [
    // cache-file PATH
    ("cache-file tmp/dnsward.cache", "cache-file path 'tmp/dnsward.cache' must be absolute", 1),
    ("cache-file ./x", "cache-file path './x' must be absolute", 1),
    (
      "cache-file /tmp/",
      "cache-file path '/tmp/' names a directory; name a file in it, e.g. /tmp/dnsward.cache", 1
    ),
    (
      "cache-file /",
      "cache-file path '/' names a directory; name a file in it, "
        + "e.g. /tmp/dnsward.cache", 1
    ),
    ("cache-file /tmp/a\u{7F}b", "bad cache-file path '/tmp/a\\x7Fb'", 1),
    (
      "cache-file /" + String(repeating: "a", count: 4091),
      "bad cache-file path '/" + String(repeating: "a", count: 4091) + "'", 1
    ),
    (
      "cache-file",
      "missing argument to 'cache-file' (usage: cache-file PATH, absolute, "
        + "e.g. /tmp/dnsward.cache)", 1
    ),
    (
      "cache-file /a /b",
      "extra argument '/b' to 'cache-file' (usage: cache-file PATH, absolute, "
        + "e.g. /tmp/dnsward.cache)", 1
    ),
    ("cache-file /a\n\ncache-file /a", "duplicate 'cache-file' directive (first on line 4)", 3),
    ("cache-flie /a", "unknown directive 'cache-flie' (did you mean 'cache-file'?)", 1),
    // cache-save-interval DURATION
    ("cache-save-interval 29", "cache-save-interval 29 is out of range 30s...1d", 1),
    ("cache-save-interval 0", "cache-save-interval 0 is out of range 30s...1d", 1),
    ("cache-save-interval 25h", "cache-save-interval 25h is out of range 30s...1d", 1),
    ("cache-save-interval 2d", "cache-save-interval 2d is out of range 30s...1d", 1),
    ("cache-save-interval 86401", "cache-save-interval 86401 is out of range 30s...1d", 1),
    ("cache-save-interval 500ms", "unknown unit 'ms' in '500ms' (use s, m, h or d)", 1),
    (
      "cache-save-interval 1.5m",
      "bad duration '1.5m': use a whole number, e.g. 90m rather than 1.5h", 1
    ),
    (
      "cache-save-interval often",
      "bad duration 'often' for 'cache-save-interval' (e.g. 300 (seconds), 5m, 1h or 1d)", 1
    ),
    (
      "cache-save-interval",
      "missing argument to 'cache-save-interval' (usage: cache-save-interval DURATION, "
        + "30s...1d, e.g. 5m or 300 (seconds))", 1
    ),
    (
      "cache-save-interval 5m\ncache-save-interval 10m",
      "duplicate 'cache-save-interval' directive (first on line 4)", 2
    ),
    // prefetch NAME
    (
      "prefetch example.com\nprefetch Example.COM.",
      "duplicate prefetch of 'Example.COM.' (first on line 4)", 2
    ),
    (
      "prefetch a.lan\nprefetch b.lan\n\nprefetch A.LAN",
      "duplicate prefetch of 'A.LAN' (first on line 4)", 4
    ),
    (
      "prefetch *.example.com",
      "prefetch takes a name, not a wildcard: only names asked before can be refreshed", 1
    ),
    ("prefetch .", "the root name cannot be prefetched", 1),
    (
      "prefetch a..b",
      "bad name 'a..b': empty label (two dots in a row, or a leading dot)", 1
    ),
    (
      "prefetch exa$mple.com",
      "bad name 'exa$mple.com': unexpected character '$' (use letters, digits, '-' and '_')", 1
    ),
    (
      "prefetch " + String(repeating: "a", count: 64) + ".com",
      "bad name '" + String(repeating: "a", count: 64) + ".com': label '"
        + String(repeating: "a", count: 20) + "'... is 64 characters long, more than 63 "
        + "(RFC 1035 §2.3.4)", 1
    ),
    ("prefetch", "missing argument to 'prefetch' (usage: prefetch NAME)", 1),
    ("prefetch a.lan b.lan", "extra argument 'b.lan' to 'prefetch' (usage: prefetch NAME)", 1),
    // prefetch-hits COUNT
    ("prefetch-hits 1000001", "prefetch-hits 1000001 is out of range 0...1000000", 1),
    ("prefetch-hits -1", "'prefetch-hits' expects a number, got '-1'", 1),
    ("prefetch-hits 10k", "'prefetch-hits' expects a number, got '10k'", 1),
    (
      "prefetch-hits",
      "missing argument to 'prefetch-hits' (usage: prefetch-hits COUNT, 0 (off)...1000000)", 1
    ),
    (
      "prefetch-hits 1\nprefetch-hits 2", "duplicate 'prefetch-hits' directive (first on line 4)", 2
    ),
    ("prefetch-hit 5", "unknown directive 'prefetch-hit' (did you mean 'prefetch-hits'?)", 1),
  ]

  func testErrorsAreReportedWithFileAndLine() {
    assertBadLines(Self.badLines)
  }

  /// The resolv-conf messages are unchanged by the shared path check.
  func testResolvConfPathMessagesUnchanged() throws {
    let relative = try XCTUnwrap(parseError("listen 127.0.0.1\nupstream resolv-conf etc/r\n"))
    XCTAssertEqual(relative.description, "test.conf:2: resolv-conf path 'etc/r' must be absolute")
  }

  // MARK: - Generated source

  /// The integers of `let NAME: [UInt8] = [...]`, comments ignored.
  func bytes(of name: String, in source: String) -> [UInt8]? {
    let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
    let header = "let \(name): [UInt8] = ["
    guard let start = lines.firstIndex(where: { $0.hasPrefix(header) }) else { return nil }
    if lines[start].hasSuffix("[]") { return [] }
    var values: [UInt8] = []
    for line in lines[(start + 1)...].prefix(while: { !$0.hasPrefix("]") }) {
      let code = line.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)[0]
      for token in code.split(separator: ",") {
        let literal = token.filter { $0 != " " }
        guard !literal.isEmpty else { continue }
        guard literal.hasPrefix("0x"), let value = UInt8(literal.dropFirst(2), radix: 16) else {
          XCTFail("not a byte literal: \(literal)")
          return nil
        }
        values.append(value)
      }
    }
    return values
  }

  func testGeneratedSourceRoundTrips() throws {
    let configs = [
      "# defaults",
      "cache-file /tmp/dnsward.cache\ncache-save-interval 30s\nprefetch-hits 1000000",
      "cache-file /var/lib/dnsward/cache\ncache-save-interval 1d\nprefetch example.com\n"
        + "prefetch Www.Example.Org.\nprefetch-hits 5",
    ]
    for config in configs {
      let settings = try XCTUnwrap(parse(config))
      let source = ConfigGenerator.swiftSource(settings, sourceName: "persist.conf")
      let values = assignments(in: source)
      XCTAssertEqual(values["cacheFilePath"], "cacheFilePathBytes", config)
      XCTAssertEqual(values["prefetchNames"], "prefetchNameBytes", config)
      XCTAssertEqual(
        values["cacheSaveSeconds"].flatMap { UInt32($0) }, settings.cacheSaveSeconds, config)
      XCTAssertEqual(values["prefetchHits"].flatMap { UInt32($0) }, settings.prefetchHits, config)
      XCTAssertEqual(bytes(of: "cacheFilePathBytes", in: source), settings.cacheFilePath, config)
      XCTAssertEqual(bytes(of: "prefetchNameBytes", in: source), settings.prefetchNames, config)
      assertNoStringValues(source)
      assertLinesFit(source)
      let again = try XCTUnwrap(parse(config))
      XCTAssertEqual(ConfigGenerator.swiftSource(again, sourceName: "persist.conf"), source)
    }
  }

  /// Each prefetch name gets a comment with its presentation form.
  func testGeneratedPrefetchNamesAreCommented() throws {
    let settings = try XCTUnwrap(parse("prefetch Example.com\nprefetch a.b"))
    let source = ConfigGenerator.swiftSource(settings, sourceName: "p.conf")
    XCTAssertTrue(
      source.contains(
        "\nlet prefetchNameBytes: [UInt8] = [\n  // example.com.\n"
          + "  0x07, 0x65, 0x78, 0x61, 0x6D, 0x70, 0x6C, 0x65, 0x03, 0x63, 0x6F, 0x6D,\n"
          + "  0x00,\n  // a.b.\n  0x01, 0x61, 0x01, 0x62, 0x00,\n]\n"), source)
    let none = ConfigGenerator.swiftSource(try XCTUnwrap(parse("")), sourceName: "p.conf")
    XCTAssertTrue(none.contains("\nlet prefetchNameBytes: [UInt8] = []\n"))
    XCTAssertTrue(none.contains("\nlet cacheFilePathBytes: [UInt8] = []\n"))
  }

  // MARK: - Summary

  func testSummary() {
    assertSummary(of: "", contains: "\ncache-file: off; prefetch: none; prefetch-hits: off\n")
    assertSummary(
      of: "stale 1d\ncache-file /tmp/d.cache\ncache-save-interval 10m\nprefetch a.lan\n"
        + "prefetch b.lan\nprefetch-hits 20",
      contains:
        "\ncache-file: /tmp/d.cache, saved every 600s; prefetch: 2 names; prefetch-hits: 20\n")
    assertSummary(of: "prefetch a.lan", contains: "; prefetch: 1 name; ")
    // Accepted, but said to do nothing, like stale-first without stale.
    assertSummary(
      of: "cache-file /tmp/d.cache",
      contains: "\ncache-file: /tmp/d.cache, saved every 300s (no effect: loaded answers are "
        + "served only as stale ones, and stale is off); ")
    assertSummary(
      of: "cache 0\nstale 1d\ncache-file /tmp/d.cache",
      contains: "saved every 300s (no effect: the cache is off); ")
  }

  /// The shipped configs still parse and leave persistence and prefetch off.
  func testShippedConfigs() throws {
    for path in shippedConfigPaths {
      guard let settings = try parsedShippedConfig(path) else { continue }
      XCTAssertEqual(settings.cacheFilePath, [], path)
      XCTAssertEqual(settings.cacheSaveSeconds, 300, path)
      XCTAssertEqual(settings.prefetchNames, [], path)
      XCTAssertEqual(settings.prefetchHits, 0, path)
    }
  }

  /// The commented examples in the default config are valid directives.
  func testDefaultConfigExamplesParse() throws {
    let text = try defaultConfigText()
    let uncommented = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      for directive in ["cache-file", "cache-save-interval", "prefetch", "prefetch-hits"]
      where line.hasPrefix("# \(directive) ") {
        return String(line.dropFirst(2))
      }
      return String(line)
    }.joined(separator: "\n")
    let settings = try XCTUnwrap(parseOrFail(uncommented))
    XCTAssertEqual(settings.cacheFilePath, Array("/tmp/dnsward.cache".utf8))
    XCTAssertEqual(settings.cacheSaveSeconds, 300)
    XCTAssertEqual(settings.prefetchNames, flatName("example.com"))
    XCTAssertEqual(settings.prefetchHits, 0)
  }
}
