import CompiledConfig
import Config
import DNSWire
import Foundation
import TestSupport
import XCTest

/// The flat wire forms of `names`, one after another.
func flatNames(_ names: String...) -> [UInt8] { names.flatMap { flatName($0) } }

func lookup(_ table: OverrideTable, _ name: String) -> OverrideMatch? {
  flatName(name).withUnsafeBytes { table.lookup($0) }
}

/// The A records of a match, as dotted quads.
func ipv4Addresses(_ table: OverrideTable, _ match: OverrideMatch) -> [String] {
  (0..<match.ipv4Count).map { index in
    let start = match.ipv4Offset + 4 * index
    return table.addressBytes[start..<(start + 4)].map { "\($0)" }.joined(separator: ".")
  }
}

/// The AAAA records of a match, in RFC 5952 text.
func ipv6Addresses(_ table: OverrideTable, _ match: OverrideMatch) -> [String] {
  (0..<match.ipv6Count).map { index in
    let start = match.ipv6Offset + 16 * index
    var high: UInt64 = 0
    var low: UInt64 = 0
    for offset in 0..<8 {
      high = high << 8 | UInt64(table.addressBytes[start + offset])
      low = low << 8 | UInt64(table.addressBytes[start + 8 + offset])
    }
    return describe(IPAddress(high: high, low: low))
  }
}

/// Parses `text`, failing the test with the parser's message on error.
func parseOrFail(
  _ text: String, file: StaticString = #filePath, line: UInt = #line
) -> Settings? {
  do throws(ConfigError) {
    return try ConfigParser.parse(text, fileName: "test.conf")
  } catch {
    XCTFail("unexpected config error: \(error.description)", file: file, line: line)
    return nil
  }
}

/// The error `text` produces, or nil (and a test failure) if it parses.
func parseError(
  _ text: String, file: StaticString = #filePath, line: UInt = #line
) -> ConfigError? {
  do throws(ConfigError) {
    _ = try ConfigParser.parse(text, fileName: "test.conf")
    XCTFail("expected a config error for:\n\(text)", file: file, line: line)
    return nil
  } catch {
    return error
  }
}

/// The three lines every bad-line table's fragments follow.
let badLinePreamble = "# test config\n\nlisten 127.0.0.1:53\n"

/// Each of `badLines` — a config fragment, the message it must fail with,
/// and the line of the fragment it must be reported on — written after
/// `badLinePreamble` and before a good last line, fails with exactly
/// `test.conf:LINE: message`.
func assertBadLines(
  _ badLines: [(String, String, Int)], file: StaticString = #filePath, line: UInt = #line
) {
  let preambleLines = badLinePreamble.reduce(0) { $1 == "\n" ? $0 + 1 : $0 }
  for (fragment, message, lineInFragment) in badLines {
    guard
      let error = parseError(badLinePreamble + fragment + "\nlog info\n", file: file, line: line)
    else { continue }
    let expectedLine = preambleLines + lineInFragment
    XCTAssertEqual(error.file, "test.conf", file: file, line: line)
    XCTAssertEqual(error.line, expectedLine, fragment, file: file, line: line)
    XCTAssertEqual(error.message, message, fragment, file: file, line: line)
    XCTAssertEqual(
      error.description, "test.conf:\(expectedLine): \(message)", file: file, line: line)
  }
}

/// `upstream`'s usage, as messages quote it.
let upstreamUsage =
  "upstream udp|tcp ADDRESS[:PORT] [trusted], "
  + "upstream tls|https|httpdns ADDRESS[:PORT] [OPTION...] or upstream resolv-conf PATH"

/// The configs the project ships, by path in the source tree.
let shippedConfigPaths = [
  "Sources/DefaultConfig/dnsward.conf", "Board/generic-aarch64/dnsward.conf",
  "Board/generic-armv7/dnsward.conf", "Board/openwrt/dnsward.conf",
]

/// The default config's text.
func defaultConfigText() throws -> String {
  try String(contentsOf: SourceTree.url(shippedConfigPaths[0]), encoding: .utf8)
}

/// The config at `path` in the source tree, parsed; nil, and a test
/// failure with the parser's message, when it does not parse.
func parsedShippedConfig(_ path: String) throws -> Settings? {
  let text = try String(contentsOf: SourceTree.url(path), encoding: .utf8)
  do throws(ConfigError) {
    return try ConfigParser.parse(text, fileName: path)
  } catch {
    XCTFail(error.description)
    return nil
  }
}

/// Tests of directives that parse their directives after a `listen 127.0.0.1`
/// line, the one directive every config needs.
protocol ParsesDirectives {}

extension ParsesDirectives {
  /// `directives` after `listen 127.0.0.1`, parsed; nil, and a test failure
  /// with the parser's message, when they do not parse.
  func parse(_ directives: String, file: StaticString = #filePath, line: UInt = #line)
    -> Settings?
  {
    parseOrFail("listen 127.0.0.1\n" + directives + "\n", file: file, line: line)
  }

  /// Each of `cases`, a value's text and what it means, written as
  /// `directive TEXT`, sets `field` to what it means.
  func assertValues<Value: Equatable>(
    of directive: String, _ cases: [(String, Value)], in field: KeyPath<Settings, Value>,
    file: StaticString = #filePath, line: UInt = #line
  ) {
    for (text, value) in cases {
      let written = "\(directive) \(text)"
      XCTAssertEqual(
        parse(written, file: file, line: line)?[keyPath: field], value, written, file: file,
        line: line)
    }
  }

  /// The summary of `directives`, parsed, contains `expected` (the summary
  /// is the failure message).
  func assertSummary(
    of directives: String, contains expected: String, file: StaticString = #filePath,
    line: UInt = #line
  ) {
    guard let settings = parse(directives, file: file, line: line) else { return }
    let summary = ConfigGenerator.summary(settings)
    XCTAssertTrue(summary.contains(expected), summary, file: file, line: line)
  }
}

/// Tests of directives that read other files (lists), parsing configs that
/// `listen 127.0.0.1` first, with the files from a `FakeFiles`.
protocol ParsesWithFakeFiles {}

extension ParsesWithFakeFiles {
  func parse(
    _ config: String, files: BlockListDirectiveTests.FakeFiles = .init([:]),
    lines: inout SourceLines
  ) throws(ConfigError) -> Settings {
    try ConfigParser.parse(
      bytes: Array(("listen 127.0.0.1\n" + config + "\n").utf8), fileName: "conf/dnsward.conf",
      readFile: files.read, lines: &lines)
  }

  func parse(
    _ config: String, files: BlockListDirectiveTests.FakeFiles = .init([:])
  ) throws(ConfigError) -> Settings {
    var lines = SourceLines()
    return try parse(config, files: files, lines: &lines)
  }
}
