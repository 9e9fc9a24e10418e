import CompiledConfig
import Config
import XCTest

/// A large table built through the parser from generated config text.
final class OverrideTableTests: XCTestCase {
  static let exactCount = 100_000
  static let wildcardCount = 200
  static let blockCount = 200

  /// The IPv4 address of `hN.example`: 10.x.y.z from N.
  static func address(_ index: Int) -> String {
    "10.\(index >> 16).\((index >> 8) & 0xFF).\(index & 0xFF)"
  }

  /// 100,000 exact overrides, wildcards `*.wN.example`, blocks `bN.example`,
  /// plus exceptions that test "most specific wins", shuffled so the builder
  /// has to sort.
  static func configText() -> String {
    var lines: [String] = []
    lines.reserveCapacity(exactCount + wildcardCount + blockCount + 8)
    for index in 0..<exactCount {
      lines.append("override h\(index).example \(address(index))")
    }
    for index in 0..<wildcardCount {
      lines.append(
        "override *.w\(index).example 172.16.\(index / 256).\(index % 256) fd00::\(index)")
    }
    for index in 0..<blockCount {
      lines.append("block b\(index).example")
    }
    // A wildcard below a name that also has an exact entry, and an exact
    // entry and a wildcard below a blocked name (exceptions to the block).
    lines.append("override *.h5.example 192.168.5.5")
    lines.append("override allowed.b0.example 192.168.0.1")
    lines.append("override *.cdn.b1.example 192.168.0.2")
    lines.append("override deep.x.w3.example 192.168.0.3")
    var generator = SystemRandomNumberGenerator()
    lines.shuffle(using: &generator)
    return "# generated\nlisten 127.0.0.1:53\n" + lines.joined(separator: "\n") + "\n"
  }

  nonisolated(unsafe) static var cachedSettings: Settings? = nil

  static func settings() throws -> Settings {
    if let cachedSettings { return cachedSettings }
    let settings = try ConfigParser.parse(configText(), fileName: "big.conf")
    cachedSettings = settings
    return settings
  }

  func testEveryExactEntryIsFound() throws {
    let table = try Self.settings().overrides
    XCTAssertEqual(table.count, Self.exactCount + Self.wildcardCount + Self.blockCount + 4)
    for index in 0..<Self.exactCount {
      guard let match = lookup(table, "h\(index).example") else {
        XCTFail("h\(index).example not found")
        return
      }
      XCTAssertEqual(match.kind, .exact)
      XCTAssertEqual(match.ipv6Count, 0)
      let expected = Self.address(index)
      let actual = ipv4Addresses(table, match)
      if actual != [expected] {
        XCTFail("h\(index).example: \(actual) instead of \(expected)")
        return
      }
    }
  }

  func testTableIsSortedAndNamesAreUnique() throws {
    let table = try Self.settings().overrides
    var previous: [UInt8] = []
    var previousKind = -1
    for index in 0..<table.count {
      let name = table.withName(at: index) { Array($0) }
      let kind = Int(table.kind(at: index).rawValue)
      let isAscending =
        previous.lexicographicallyPrecedes(name)
        || (previous == name && previousKind < kind)
      XCTAssertTrue(index == 0 || isAscending, "entry \(index) out of order")
      previous = name
      previousKind = kind
    }
  }

  func testWildcardsAndBlocks() throws {
    let table = try Self.settings().overrides
    for index in stride(from: 0, to: Self.wildcardCount, by: 7) {
      let match = try XCTUnwrap(lookup(table, "host.w\(index).example"))
      XCTAssertEqual(match.kind, .wildcard)
      XCTAssertEqual(ipv4Addresses(table, match), ["172.16.\(index / 256).\(index % 256)"])
      let ipv6 = try AddressSyntax.parseAddress("fd00::\(index)").address
      XCTAssertEqual(ipv6Addresses(table, match), [describe(ipv6)])
      XCTAssertEqual(lookup(table, "a.b.c.W\(index).Example")?.kind, .wildcard)
      // A wildcard does not match the name it hangs from.
      XCTAssertNil(lookup(table, "w\(index).example"))
    }
    for index in stride(from: 0, to: Self.blockCount, by: 7) {
      XCTAssertEqual(lookup(table, "b\(index).example")?.kind, .block)
      XCTAssertEqual(lookup(table, "x.y.b\(index).example")?.kind, .block)
    }
  }

  func testMostSpecificWins() throws {
    let table = try Self.settings().overrides
    XCTAssertEqual(lookup(table, "h5.example").map { ipv4Addresses(table, $0) }, ["10.0.0.5"])
    XCTAssertEqual(
      lookup(table, "www.h5.example").map { ipv4Addresses(table, $0) }, ["192.168.5.5"])
    XCTAssertEqual(lookup(table, "allowed.b0.example")?.kind, .exact)
    XCTAssertEqual(lookup(table, "sub.allowed.b0.example")?.kind, .block)
    XCTAssertEqual(lookup(table, "img.cdn.b1.example")?.kind, .wildcard)
    XCTAssertEqual(lookup(table, "cdn.b1.example")?.kind, .block)
    let deep = try XCTUnwrap(lookup(table, "deep.x.w3.example"))
    XCTAssertEqual(ipv4Addresses(table, deep), ["192.168.0.3"])
    XCTAssertEqual(
      lookup(table, "other.x.w3.example").map { ipv4Addresses(table, $0) }, ["172.16.0.3"])
  }

  func testNonMembersAreNotFound() throws {
    let table = try Self.settings().overrides
    let absent = [
      "h\(Self.exactCount).example", "example", "h1.example.com", "x.h1.example", "h1",
      "h12345.exampl", "w\(Self.wildcardCount).example", "www.b\(Self.blockCount).example",
      "a.h99999.example", ".",
    ]
    for name in absent {
      XCTAssertNil(lookup(table, name), name)
    }
    for index in stride(from: 0, to: 1000, by: 1) {
      XCTAssertNil(lookup(table, "n\(index).example"))
    }
  }
}
