import CompiledConfig
import Config
import Foundation
import XCTest

/// The cache directives: their units, bounds and defaults, and how they reach
/// the generated source and the summary. (Errors: `ConfigErrorTests.cacheCases`.)
final class CacheDirectiveTests: XCTestCase, ParsesDirectives {
  /// The defaults, and a config without the directives gets exactly these.
  func testDefaults() throws {
    for settings in [Settings(), try XCTUnwrap(parse("# no cache lines"))] {
      XCTAssertEqual(settings.cacheEntries, 4096)
      XCTAssertEqual(settings.cacheBytes, 1_048_576)
      XCTAssertEqual(settings.minTTL, 0)
      XCTAssertEqual(settings.maxTTL, 86400)
      XCTAssertEqual(settings.negativeTTLMax, 3600)
      XCTAssertEqual(settings.staleSeconds, 0)
      XCTAssertEqual(settings.staleFirst, false)
    }
  }

  func testCacheEntries() {
    for count in [0, 1, 4096, 1_048_576] {
      XCTAssertEqual(parse("cache \(count)")?.cacheEntries, count)
    }
  }

  func testCacheBytesUnits() {
    let cases: [(String, Int)] = [
      ("16k", 16_384), ("16384", 16_384), ("65536", 65_536), ("512k", 524_288),
      ("1m", 1_048_576), ("1024k", 1_048_576), ("2m", 2_097_152), ("256m", 268_435_456),
      ("268435456", 268_435_456), ("0016k", 16_384),
    ]
    assertValues(of: "cache-bytes", cases, in: \.cacheBytes)
  }

  func testDurationsAreSecondsWithUnits() {
    let minimum: [(String, UInt32)] = [
      ("0", 0), ("0s", 0), ("30", 30), ("30s", 30), ("5m", 300), ("60m", 3600), ("1h", 3600),
      ("3600", 3600), ("3600s", 3600),
    ]
    assertValues(of: "min-ttl", minimum, in: \.minTTL)
    let maximum: [(String, UInt32)] = [
      ("1", 1), ("1s", 1), ("90s", 90), ("1d", 86400), ("168h", 604_800), ("7d", 604_800),
      ("604800", 604_800),
    ]
    assertValues(of: "max-ttl", maximum, in: \.maxTTL)
    let negative: [(String, UInt32)] = [("0", 0), ("15m", 900), ("1h", 3600), ("1d", 86400)]
    assertValues(of: "neg-ttl-max", negative, in: \.negativeTTLMax)
    let stale: [(String, UInt32)] = [
      ("0", 0), ("0d", 0), ("90m", 5400), ("1d", 86400), ("3d", 259_200), ("7d", 604_800),
      ("604800", 604_800),
    ]
    assertValues(of: "stale", stale, in: \.staleSeconds)
    assertValues(of: "stale-first", [("on", true), ("off", false)], in: \.staleFirst)
  }

  /// A bare number is seconds for the cache durations, and still
  /// milliseconds for `timeout`.
  func testBareNumbersSecondsHereMillisecondsForTimeout() throws {
    let settings = try XCTUnwrap(parse("timeout 2000\nmax-ttl 2000\nstale 2000"))
    XCTAssertEqual(settings.timeoutMilliseconds, 2000)
    XCTAssertEqual(settings.maxTTL, 2000)
    XCTAssertEqual(settings.staleSeconds, 2000)
  }

  func testTTLOrder() throws {
    let equal = try XCTUnwrap(parse("min-ttl 1h\nmax-ttl 3600"))
    XCTAssertEqual(equal.minTTL, 3600)
    XCTAssertEqual(equal.maxTTL, 3600)
    // Either order, as long as max >= min.
    let reversed = try XCTUnwrap(parse("max-ttl 2m\nmin-ttl 60"))
    XCTAssertEqual(reversed.minTTL, 60)
    XCTAssertEqual(reversed.maxTTL, 120)
    // One alone never conflicts with the other's default.
    XCTAssertEqual(parse("min-ttl 1h")?.maxTTL, 86400)
    XCTAssertEqual(parse("max-ttl 1")?.minTTL, 0)
  }

  /// `stale 0` switches stale answers off on its own; `stale-first` stays
  /// as written (the summary says it has no effect).
  func testStaleFirstWithoutStaleIsAccepted() throws {
    let settings = try XCTUnwrap(parse("stale-first on\nstale 0"))
    XCTAssertEqual(settings.staleSeconds, 0)
    XCTAssertEqual(settings.staleFirst, true)
    XCTAssertTrue(
      ConfigGenerator.summary(settings).contains("; stale: off (stale-first on has no effect)\n"))
  }

  func testSummary() {
    assertSummary(
      of: "",
      contains: "\ncache: 4096 entries, 1048576 bytes; ttl 0...86400s, negative at most 3600s; "
        + "stale: off\n")
    assertSummary(of: "cache 0\nstale 1d", contains: "\ncache: off\n")
    assertSummary(
      of: "cache 100\ncache-bytes 64k\nmin-ttl 1m\nneg-ttl-max 0\nstale 1h\nstale-first off",
      contains: "\ncache: 100 entries, 65536 bytes; ttl 60...86400s, negative answers not cached; "
        + "stale: 3600s, stale-first off\n")
  }

  /// Every cache field reaches the generated source, and reading the
  /// generated values back gives the parsed settings again.
  func testGeneratedSourceRoundTrips() throws {
    let configs = [
      "# defaults",
      "cache 0\ncache-bytes 16k\nmin-ttl 1h\nmax-ttl 1h\nneg-ttl-max 0\nstale 0\nstale-first off",
      "cache 1048576\ncache-bytes 256m\nmin-ttl 0\nmax-ttl 7d\nneg-ttl-max 1d\nstale 7d\n"
        + "stale-first on",
      "cache 777\ncache-bytes 300000\nmin-ttl 59\nmax-ttl 61m\nneg-ttl-max 5m\nstale 25h",
    ]
    for config in configs {
      let settings = try XCTUnwrap(parse(config))
      let source = ConfigGenerator.swiftSource(settings, sourceName: "cache.conf")
      let values = assignments(in: source)
      XCTAssertEqual(values["cacheEntries"].flatMap { Int($0) }, settings.cacheEntries, config)
      XCTAssertEqual(values["cacheBytes"].flatMap { Int($0) }, settings.cacheBytes, config)
      XCTAssertEqual(values["minTTL"].flatMap { UInt32($0) }, settings.minTTL, config)
      XCTAssertEqual(values["maxTTL"].flatMap { UInt32($0) }, settings.maxTTL, config)
      XCTAssertEqual(
        values["negativeTTLMax"].flatMap { UInt32($0) }, settings.negativeTTLMax, config)
      XCTAssertEqual(
        values["staleSeconds"].flatMap { UInt32($0) }, settings.staleSeconds, config)
      XCTAssertEqual(values["staleFirst"].flatMap { Bool($0) }, settings.staleFirst, config)
      // The source stays Embedded-safe and deterministic.
      assertNoStringValues(source)
      let again = try XCTUnwrap(parse(config))
      XCTAssertEqual(ConfigGenerator.swiftSource(again, sourceName: "cache.conf"), source)
    }
  }

  /// The shipped configs parse, with the cache sizes chosen for each.
  func testShippedConfigs() throws {
    // Entries and bytes, in the order of shippedConfigPaths.
    let sizes = [(4096, 1 << 20), (2048, 512 << 10), (1024, 256 << 10), (1024, 256 << 10)]
    for (path, (entries, bytes)) in zip(shippedConfigPaths, sizes) {
      guard let settings = try parsedShippedConfig(path) else { continue }
      XCTAssertEqual(settings.cacheEntries, entries, path)
      XCTAssertEqual(settings.cacheBytes, bytes, path)
      XCTAssertEqual(settings.minTTL, 0, path)
      XCTAssertEqual(settings.maxTTL, 86400, path)
      XCTAssertEqual(settings.negativeTTLMax, 3600, path)
      XCTAssertEqual(settings.staleSeconds, 86400, path)
      XCTAssertEqual(settings.staleFirst, false, path)
    }
  }
}
