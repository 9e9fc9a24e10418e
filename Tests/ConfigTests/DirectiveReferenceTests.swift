import CompiledConfig
import Foundation
import TestSupport
import XCTest

@testable import Config

/// The directive declarations (`Directive.declaration`) against what they
/// must agree with: `Settings()`, the reference (Sources/Config/README.md)
/// and `--help-config`.
final class DirectiveReferenceTests: XCTestCase {
  static let readme = SourceTree.url("Sources/Config/README.md")

  /// A row of the reference's directive table: `| `DIRECTIVE ...` | meaning | default |`.
  struct Row {
    let name: String
    let defaultCell: String
    let text: String
  }

  /// The rows of the table, each named by the first word in its first
  /// cell's backticks. `upstream` and `override` have several rows (one per
  /// transport, exact and wildcard).
  static func rows(_ text: String) -> [Row] {
    text.split(separator: "\n").compactMap { line -> Row? in
      guard line.hasPrefix("| `") else { return nil }
      let name = line.dropFirst(3).prefix { $0 != " " && $0 != "`" }
      // Cells end at a `|` that is not escaped as `\|`.
      var cells: [String] = []
      var cell = ""
      var previous: Character = " "
      for character in line {
        if character == "|" && previous != "\\" {
          cells.append(cell)
          cell = ""
        } else {
          cell.append(character)
        }
        previous = character
      }
      // "", directive, meaning, default, "" (after the closing `|`).
      guard cells.count >= 4 else { return nil }
      return Row(name: String(name), defaultCell: cells[cells.count - 1], text: String(line))
    }
  }

  func referenceRows() throws -> [Row] {
    let text = try String(contentsOf: Self.readme, encoding: .utf8)
    let rows = Self.rows(text)
    XCTAssertGreaterThan(rows.count, 40, "no directive table in \(Self.readme.path)")
    return rows
  }

  static func name(_ directive: Directive) -> String { text(directive.name) }

  static func text(_ declared: DeclaredText) -> String { String(decoding: declared, as: UTF8.self) }

  /// Each declaration's text is `NAME SYNTAX`, then at most a usage note
  /// and a `default VALUE` line, then one line of help: a line more would
  /// be read as none of them.
  func testDeclarationsAreWellFormed() {
    for directive in Directive.allCases {
      let declared = directive.declaration
      let lines = Self.text(declared.bytes).split(separator: "\n", omittingEmptySubsequences: false)
      let name = Self.name(directive)
      XCTAssertTrue((2...4).contains(lines.count), name)
      XCTAssertFalse(name.isEmpty || Self.text(declared.syntax).isEmpty, name)
      XCTAssertFalse(Self.text(declared.help).isEmpty, name)
      let middle = lines.dropFirst().dropLast()
      XCTAssertLessThanOrEqual(middle.filter { $0.hasPrefix("default ") }.count, 1, name)
      XCTAssertLessThanOrEqual(middle.filter { !$0.hasPrefix("default ") }.count, 1, name)
      XCTAssertFalse(middle.contains { $0.isEmpty }, name)
      XCTAssertEqual(declared.unit == .none, declared.range == 0...0, name)
    }
  }

  /// Every directive has a row, and every row names a directive; the rows
  /// that are not directives are the upstream options `... trusted`,
  /// `... for DOMAIN` and `... for-list PATH`.
  func testEveryDirectiveHasAReferenceRowAndEveryRowADirective() throws {
    let rows = try referenceRows()
    let declared = Set(Directive.allCases.map(Self.name))
    XCTAssertEqual(declared.count, Directive.allCases.count, "two directives spelled alike")
    var documented = Set<String>()
    for row in rows {
      if row.name == "..." {
        XCTAssertTrue(
          ["| `... trusted`", "| `... for DOMAIN`", "| `... for-list PATH`"].contains {
            row.text.hasPrefix($0)
          }, row.text)
        continue
      }
      XCTAssertTrue(declared.contains(row.name), "reference row for no directive: \(row.text)")
      documented.insert(row.name)
    }
    for name in declared.subtracting(documented).sorted() {
      XCTFail("directive '\(name)' has no row in \(Self.readme.path)")
    }
  }

  /// Where a directive declares a default, its row's default cell shows
  /// that text in backticks. Contained rather than equal: the cells add
  /// prose such as "`0` (`1d` in the shipped configs)", which a reader
  /// needs and an exact comparison would forbid.
  func testReferenceDefaultsAreTheDeclaredOnes() throws {
    let rows = try referenceRows()
    for directive in Directive.allCases {
      let declared = Self.text(directive.declaration.defaultValue)
      guard !declared.isEmpty else { continue }
      let cells = rows.filter { $0.name == Self.name(directive) }.map(\.defaultCell)
      for cell in cells {
        XCTAssertTrue(
          cell.contains("`\(declared)`"),
          "\(Self.name(directive)): declared default \(declared), reference says \(cell)")
      }
    }
  }

  /// Each declared default, written in a config, gives what a config
  /// without the directive gets: `Settings()`. Compared through the
  /// generated source, which holds every setting.
  func testDeclaredDefaultsAreTheSettingsDefaults() throws {
    let base = "listen 127.0.0.1:53\n"
    let expected = ConfigGenerator.swiftSource(
      try ConfigParser.parse(base, fileName: "test.conf"), sourceName: "test.conf")
    var checked = 0
    for directive in Directive.allCases {
      let declared = Self.text(directive.declaration.defaultValue)
      guard !declared.isEmpty else { continue }
      let line = "\(Self.name(directive)) \(declared)"
      let settings: Settings
      do throws(ConfigError) {
        settings = try ConfigParser.parse(base + line + "\n", fileName: "test.conf")
      } catch {
        XCTFail("declared default does not parse: \(error.description)")
        continue
      }
      let source = ConfigGenerator.swiftSource(settings, sourceName: "test.conf")
      XCTAssertEqual(source, expected, "'\(line)' is not what Settings() holds")
      checked += 1
    }
    XCTAssertGreaterThan(checked, 25)
  }

  /// Every value at the ends of a declared range is accepted, and one past
  /// either end refused with the range in the message.
  func testDeclaredRangesAreTheParsersRanges() throws {
    for directive in Directive.allCases where directive.declaration.unit == .count {
      let name = Self.name(directive)
      let range = directive.declaration.range
      // inflight's bounds, 16 and 65536, are powers of two as it requires.
      for value in [range.lowerBound, range.upperBound] {
        XCTAssertNotNil(parseOrFail("listen 127.0.0.1:53\n\(name) \(value)\n"))
      }
      for value in [range.lowerBound - 1, range.upperBound + 1] where value >= 0 {
        XCTAssertEqual(
          parseError("listen 127.0.0.1:53\n\(name) \(value)\n")?.message,
          "\(name) \(value) is out of range \(range.lowerBound)...\(range.upperBound)")
      }
    }
    XCTAssertEqual(
      parseError("listen 127.0.0.1:53\nhold-on 1001ms\n")?.message,
      "hold-on 1001ms is out of range 0ms...1s")
    XCTAssertEqual(
      parseError("listen 127.0.0.1:53\nrate-limit 1000001/s\n")?.message,
      "rate-limit 1000001/s is out of range 1/s...1000000/s")
    XCTAssertEqual(parseOrFail("listen 127.0.0.1:53\nrate-limit 0/s\n")?.rateLimitPerSecond, 0)
  }

  /// `--help-config`: every directive's usage line, then its help with
  /// whether it repeats and its default.
  func testHelpConfigDescribesEveryDirective() {
    let text = ConfigReference.text
    XCTAssertTrue(
      text.hasPrefix(
        "dnsward.conf: one directive per line; '#' starts a comment.\n"
          + "DURATION: 300 (seconds), 90s, 5m, 1h or 1d; for timeout, tcp-idle, hold-on: "
          + "1500 (milliseconds), 1500ms or 2s.\nSIZE: 65536 (bytes), 512k or 2m.\n\n"), text)
    for directive in Directive.allCases {
      XCTAssertTrue(text.contains("\n\(directive.usage)\n    "), "\(Self.name(directive))")
    }
    XCTAssertTrue(
      text.contains(
        "\ninflight COUNT, 16...65536, a power of two\n"
          + "    upstream questions in flight; when all are taken, SERVFAIL; default 1024\n"),
      text)
    XCTAssertTrue(
      text.contains(
        "\nbogus ADDRESS[/LENGTH]\n    an answer with an address in it is forged: "
          + "dropped, the real one awaited; repeatable\n"), text)
    XCTAssertTrue(text.contains("\nstale DURATION, 0 (off)...7d, e.g. 1d or 86400 (seconds)\n"))
  }
}
