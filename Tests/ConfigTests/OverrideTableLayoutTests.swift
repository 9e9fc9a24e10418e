import CompiledConfig
import Config
import DNSWire
import TestSupport
import XCTest

/// The byte layout of `OverrideTable` (records, base-128 index, fences) and its
/// round trip through generated source, against a plain reference model of
/// the lookup rules.
final class OverrideTableLayoutTests: XCTestCase {
  /// One entry as the reference model keeps it.
  struct ModelEntry {
    var name: [UInt8]
    var kind: OverrideKind
    var ipv4: [UInt8] = []
    var ipv6: [UInt8] = []
  }

  /// The answer of the lookup rules, computed the obvious way: for the name
  /// and then each ancestor, the first entry by kind that applies.
  static func modelLookup(_ entries: [ModelEntry], _ query: [UInt8]) -> ModelEntry? {
    let lowered = query.map(Name.asciiLowercased)
    var suffix = 0
    var isQueriedName = true
    while suffix < lowered.count {
      let candidate = Array(lowered[suffix...])
      let matching = entries.filter { $0.name.map(Name.asciiLowercased) == candidate }
        .sorted { $0.kind.rawValue < $1.kind.rawValue }
      for entry in matching {
        switch entry.kind {
        case .exact where isQueriedName, .block: return entry
        case .wildcard where !isQueriedName: return entry
        default: continue
        }
      }
      if lowered[suffix] == 0 { break }
      suffix += 1 + Int(lowered[suffix])
      isQueriedName = false
    }
    return nil
  }

  /// The table answers `query` as the model does: kind and address bytes.
  func assertSameAnswer(
    _ table: OverrideTable, _ entries: [ModelEntry], _ query: [UInt8],
    file: StaticString = #filePath, line: UInt = #line
  ) {
    let expected = Self.modelLookup(entries, query)
    let actual = query.withUnsafeBytes { table.lookup($0) }
    XCTAssertEqual(actual?.kind, expected?.kind, "\(query)", file: file, line: line)
    guard let actual, let expected, expected.kind != .block else { return }
    let addresses = Array(
      table.addressBytes[actual.ipv4Offset..<(actual.ipv6Offset + 16 * actual.ipv6Count)])
    XCTAssertEqual(addresses, expected.ipv4 + expected.ipv6, "\(query)", file: file, line: line)
  }

  /// Random labels from a small alphabet, so that names collide, share
  /// suffixes and nest; with `highBytes`, labels also hold bytes 0x80...0xFF
  /// (legal in wire names, though the config language cannot write them).
  static func randomName(
    _ random: inout SystemRandomNumberGenerator, labels: Int, highBytes: Bool
  ) -> [UInt8] {
    var name: [UInt8] = []
    for _ in 0..<labels {
      let length = Int.random(in: 1...3, using: &random)
      name.append(UInt8(length))
      for _ in 0..<length {
        let pick = Int.random(in: 0..<(highBytes ? 6 : 4), using: &random)
        let byte: [UInt8] = [0x61, 0x62, 0x41, 0x2D, 0xC3, 0xFF]
        name.append(byte[pick])
      }
    }
    name.append(0)
    return name
  }

  /// A random table the parser could have built (at most one exact and one
  /// wildcard per name, blocks possibly repeated) and its model.
  static func randomTable(highBytes: Bool, count: Int) -> (OverrideTable, [ModelEntry]) {
    var random = SystemRandomNumberGenerator()
    var builder = OverrideTableBuilder()
    var entries: [ModelEntry] = []
    var overridden: Set<[UInt8]> = []
    for index in 0..<count {
      let name = randomName(
        &random, labels: Int.random(in: 1...3, using: &random), highBytes: highBytes)
      let kind = OverrideKind(rawValue: UInt8(Int.random(in: 0...2, using: &random)))!
      var entry = ModelEntry(name: name, kind: kind)
      if kind != .block {
        let key = [kind.rawValue] + name.map(Name.asciiLowercased)
        guard overridden.insert(key).inserted else { continue }
        entry.ipv4 = [10, 0, UInt8(index >> 8), UInt8(index & 0xFF)]
        entry.ipv6 =
          index % 3 == 0 ? [UInt8](repeating: 0xFD, count: 15) + [UInt8(index & 0xFF)] : []
      }
      builder.add(
        OverrideTableBuilder.Entry(name: name, kind: kind, ipv4: entry.ipv4, ipv6: entry.ipv6))
      entries.append(entry)
    }
    return (builder.build(), entries)
  }

  /// Queries: each entry's name in flipped case, names below it, and
  /// random names that mostly miss.
  static func queries(for entries: [ModelEntry], highBytes: Bool) -> [[UInt8]] {
    var random = SystemRandomNumberGenerator()
    var queries: [[UInt8]] = [[0]]
    for entry in entries {
      queries.append(entry.name.map { $0 == 0x61 ? 0x41 : $0 == 0x41 ? 0x61 : $0 })
      queries.append([1, 0x78] + entry.name)
      queries.append([1, 0x41, 2, 0x62, 0x62] + entry.name)
    }
    for _ in 0..<500 {
      queries.append(
        randomName(&random, labels: Int.random(in: 1...4, using: &random), highBytes: highBytes))
    }
    return queries
  }

  func testLookupsMatchTheModel() {
    for highBytes in [false, true] {
      let (table, entries) = Self.randomTable(highBytes: highBytes, count: 400)
      for query in Self.queries(for: entries, highBytes: highBytes) {
        assertSameAnswer(table, entries, query)
      }
    }
  }

  func testRecordsAndIndexBytes() throws {
    var builder = OverrideTableBuilder()
    builder.add(.init(name: flatName("B.example"), kind: .block))
    builder.add(.init(name: flatName("a.example"), kind: .exact, ipv4: [192, 0, 2, 1]))
    builder.add(.init(name: flatName("b.example"), kind: .block))
    builder.add(
      .init(name: flatName("a.example"), kind: .wildcard, ipv6: Array(repeating: 1, count: 16)))
    let table = builder.build()
    // Sorted by name then kind; the duplicate block is kept once.
    XCTAssertEqual(table.count, 3)
    let example: [UInt8] = [7] + Array("example".utf8) + [0]
    XCTAssertEqual(
      Array(table.records),
      [0, /* 1 A */ 1, 0, /* 0 AAAA */ 0, 0, /* address offset 0 */ 0, 0, 0, 0]
        + [1, 0x61] + example
        + [1, /* 0 A */ 0, 0, /* 1 AAAA */ 1, 0, /* address offset 4 */ 4, 0, 0, 0]
        + [1, 0x61] + example
        + [2] + [1, 0x62] + example)
    XCTAssertEqual(Array(table.index), [0, 0, 0, 0, 20, 0, 0, 0, 40, 0, 0, 0])
    // One fence (entry 0): its name's first eight bytes.
    XCTAssertEqual(Array(table.fences), [1, 0x61] + example.prefix(6))
    XCTAssertEqual(Array(table.addressBytes), [192, 0, 2, 1] + Array(repeating: 1, count: 16))
    XCTAssertEqual(table.recordRange(at: 2), 40..<52)
    XCTAssertEqual(table.withName(at: 2) { Array($0) }, [1, 0x62] + example)
    XCTAssertEqual(table.kind(at: 1), .wildcard)
    XCTAssertEqual(table.match(at: 1).ipv6Offset, 4)
  }

  /// Base-128 offsets carry over their 7-bit digits: records past 16 KiB
  /// (the third digit) are still found.
  func testOffsetsPastTwoDigits() throws {
    var builder = OverrideTableBuilder()
    for index in 0..<3000 {
      builder.add(.init(name: flatName("host-\(index).example"), kind: .block))
    }
    let table = builder.build()
    XCTAssertGreaterThan(table.records.count, 1 << 14)
    XCTAssertTrue(table.index.allSatisfy { $0 < 0x80 })
    XCTAssertTrue(table.records.allSatisfy { $0 < 0x80 })
    for index in stride(from: 0, to: 3000, by: 7) {
      XCTAssertEqual(lookup(table, "x.Host-\(index).example")?.kind, .block)
    }
    XCTAssertNil(lookup(table, "host-3000.example"))
  }

  /// Generated source rebuilds a table that answers as the model does, for
  /// tables with bytes 0x80 and above (records as an array literal) and
  /// without (records as a string literal).
  func testGeneratedSourceRoundTrips() throws {
    for highBytes in [false, true] {
      let (table, entries) = Self.randomTable(highBytes: highBytes, count: 300)
      var settings = Settings()
      settings.overrides = table
      let source = ConfigGenerator.swiftSource(settings, sourceName: "random.conf")
      assertNoStringValues(source)
      XCTAssertEqual(
        source.contains("let overrideRecords: StaticString = \"\"\""), !highBytes,
        "highBytes \(highBytes)")
      let rebuilt = try rebuiltTable(from: source)
      XCTAssertEqual(Array(rebuilt.records), Array(table.records))
      XCTAssertEqual(Array(rebuilt.index), Array(table.index))
      XCTAssertEqual(Array(rebuilt.fences), Array(table.fences))
      for query in Self.queries(for: entries, highBytes: highBytes) {
        assertSameAnswer(rebuilt, entries, query)
      }
    }
  }

  /// Fences only narrow the search: a table without them, or with fences of
  /// the wrong size, answers the same.
  func testFencesOnlyNarrowTheSearch() {
    for highBytes in [false, true] {
      let (table, entries) = Self.randomTable(highBytes: highBytes, count: 400)
      XCTAssertEqual(
        table.fences.count,
        OverrideRecord.fenceKeySize
          * ((table.count + OverrideRecord.fenceStride - 1) / OverrideRecord.fenceStride))
      let unfenced = OverrideTable(
        records: table.records, index: table.index, addressBytes: table.addressBytes)
      let misfenced = OverrideTable(
        records: table.records, index: table.index, fences: TableBytes([1, 2, 3]),
        addressBytes: table.addressBytes)
      for query in Self.queries(for: entries, highBytes: highBytes) {
        assertSameAnswer(unfenced, entries, query)
        assertSameAnswer(misfenced, entries, query)
      }
    }
  }

  /// Names that share their first eight bytes give many equal fence keys;
  /// the search then spans all the fences with that key.
  func testEqualFenceKeys() {
    var builder = OverrideTableBuilder()
    var entries: [ModelEntry] = []
    for index in 0..<500 {
      // `\u{c}aaaaaaa...N.example`: the same first eight bytes for all.
      let name = flatName("aaaaaaaaaaa\(index).example")
      builder.add(.init(name: name, kind: .block))
      entries.append(ModelEntry(name: name, kind: .block))
    }
    for index in 0..<100 {
      let name = flatName("b\(index).example")
      builder.add(.init(name: name, kind: .exact, ipv4: [10, 0, 0, UInt8(index)]))
      entries.append(ModelEntry(name: name, kind: .exact, ipv4: [10, 0, 0, UInt8(index)]))
    }
    let table = builder.build()
    var queries: [[UInt8]] = entries.flatMap { [$0.name, [1, 0x78] + $0.name] }
    queries += ["aaaaaaaaaaa", "aaaaaaaaaaa500.example", "aaaaaaa.example", "b100.example", "a"]
      .map { flatName($0) }
    for query in queries {
      assertSameAnswer(table, entries, query)
    }
  }
}
