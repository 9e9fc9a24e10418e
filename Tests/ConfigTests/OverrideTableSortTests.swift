import TestSupport
import XCTest

@testable import CompiledConfig

/// The override table builder's own merge sort against the standard
/// library's sort with the same order, on names made to collide: shared
/// eight-byte prefixes (the integer key ties), names that are prefixes of
/// others, the same name with several kinds, and the same block twice.
final class OverrideTableSortTests: XCTestCase {
  func randomBuilder(count: Int, seed: UInt64) -> OverrideTableBuilder {
    var random = SplitMix64(seed: seed)
    var builder = OverrideTableBuilder()
    let labels = ["a", "ab", "abcdefgh", "abcdefghi", "x", "tracker1", "tracker12", "ads"]
    for _ in 0..<count {
      var name: [UInt8] = []
      for _ in 0..<(1 + Int(random.next() % 3)) {
        let label = labels[Int(random.next() % UInt64(labels.count))]
        name.append(UInt8(label.utf8.count))
        name += Array(label.utf8)
      }
      name.append(0)
      let kind: OverrideKind = [.exact, .wildcard, .block][Int(random.next() % 3)]
      let ipv4: [UInt8] =
        kind == .block ? [] : [192, 0, 2, UInt8(truncatingIfNeeded: random.next())]
      builder.add(OverrideTableBuilder.Entry(name: name, kind: kind, ipv4: ipv4))
    }
    return builder
  }

  func testTheMergeSortOrdersAsTheStandardSortDoes() {
    for (count, seed) in [(0, 1), (1, 2), (2, 3), (7, 4), (64, 5), (1000, 6), (4099, 7)]
      as [(Int, UInt64)]
    {
      let builder = randomBuilder(count: count, seed: seed)
      let sorted = builder.sortedEntries()
      var expected = sorted.sorted { $0.entry < $1.entry }
      builder.names.withUnsafeBytes { names in
        // The standard sort is not promised to be stable: ties are broken
        // by entry number, which is the order a stable sort keeps.
        expected.sort { lhs, rhs in
          builder.precedes(lhs, rhs, names: names)
            || (!builder.precedes(rhs, lhs, names: names) && lhs.entry < rhs.entry)
        }
      }
      XCTAssertEqual(sorted.map(\.entry), expected.map(\.entry), "\(count) entries")
      XCTAssertEqual(Set(sorted.map(\.entry)), Set(0..<count), "every entry once")
    }
  }
}
