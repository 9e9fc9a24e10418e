import Foundation
import XCTest

@testable import Engine

/// The `Statistic` table's lines are well formed, and the list in
/// Sources/Engine/Statistics/README.md is the table's, with each case's doc
/// comment as what it counts.
final class StatisticTableTests: XCTestCase {
  static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../Sources/Engine/Statistics").standardized

  /// Each case's doc comment in Statistic.swift, joined into one line.
  func documentation() throws -> [String: String] {
    let text = try String(
      contentsOf: Self.sources.appendingPathComponent("Statistic.swift"), encoding: .utf8)
    var comment: [String] = []
    var byName: [String: String] = [:]
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.hasPrefix("/// ") {
        comment.append(String(trimmed.dropFirst(4)))
      } else if trimmed.hasPrefix("case "), let equals = trimmed.firstIndex(of: " ") {
        let name = trimmed[trimmed.index(after: equals)...].prefix { $0 != " " }
        byName[String(name)] = comment.joined(separator: " ")
        comment = []
      } else if !trimmed.hasPrefix("#") {
        comment = []
      }
    }
    return byName
  }

  func testEveryLineNamesItsCaseAKindAGroupAndADocComment() throws {
    let documentation = try documentation()
    let groups = Set(StatisticGroup.allCases.map { String(decoding: $0.word.bytes, as: UTF8.self) })
    var names = Set<String>()
    for (position, statistic) in Statistic.allCases.enumerated() {
      let name = String(decoding: statistic.name, as: UTF8.self)
      XCTAssertEqual(name, "\(statistic)", "NAME is the case's own name")
      XCTAssertTrue(names.insert(name).inserted, "\(name) twice")
      let kind = String(decoding: statistic.rawValue.word(2), as: UTF8.self)
      XCTAssertTrue(["", "level"].contains(kind), "\(name): \(kind)")
      XCTAssertEqual(statistic.isLevel, kind == "level", name)
      let group = String(decoding: statistic.rawValue.word(1), as: UTF8.self)
      XCTAssertTrue(groups.contains(group), "\(name): GROUP \(group)")
      XCTAssertEqual(String(decoding: statistic.group.word.bytes, as: UTF8.self), group, name)
      XCTAssertEqual(statistic.rawValue.word(3).count, 0, "\(name): at most three words")
      XCTAssertFalse(documentation[name, default: ""].isEmpty, "\(name): what it counts")
      XCTAssertEqual(statistic.index, position, "\(name): the index is the declaration order")
      XCTAssertEqual(Statistic(index: position), statistic, name)
    }
    XCTAssertEqual(Statistic.count, Statistic.allCases.count)
  }

  func testTheTableStartsAndReadsBackZero() {
    let statistics = Statistics()
    for statistic in Statistic.allCases { XCTAssertEqual(statistics[statistic], 0) }
    statistics[.blocked] += 3
    XCTAssertEqual(statistics[.blocked], 3)
    XCTAssertEqual(statistics[.overridden], 0, "one slot each")
  }

  func testTheDocumentedListIsTheTable() throws {
    let documentation = try documentation()
    let readme = Self.sources.appendingPathComponent("README.md")
    let text = try String(contentsOf: readme, encoding: .utf8)
    let start = "<!-- statistics -->\n"
    let end = "<!-- end of statistics -->"
    let head = try XCTUnwrap(text.range(of: start), "the README's marker")
    let tail = try XCTUnwrap(text.range(of: end, range: head.upperBound..<text.endIndex))
    var list = "| name | kind | log line | what it counts |\n| --- | --- | --- | --- |\n"
    for statistic in Statistic.allCases {
      list += "| `\(String(decoding: statistic.name, as: UTF8.self))` | "
      list += statistic.isLevel ? "level" : "count"
      list += " | \(String(decoding: statistic.group.word.bytes, as: UTF8.self))"
      list += " | \(documentation["\(statistic)"] ?? "") |\n"
    }
    if ProcessInfo.processInfo.environment["DNSWARD_WRITE_DOCS"] == "1" {
      let updated = text.replacingCharacters(in: head.upperBound..<tail.lowerBound, with: list)
      try updated.write(to: readme, atomically: true, encoding: .utf8)
      return
    }
    XCTAssertEqual(
      String(text[head.upperBound..<tail.lowerBound]), list,
      "run DNSWARD_WRITE_DOCS=1 swift test --filter StatisticTableTests")
  }
}
