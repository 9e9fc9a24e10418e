import CompiledConfig
import Config
import DNSWire
import Foundation
import TestSupport
import XCTest

/// The generated source compiled by swiftc and run: its string literals hold
/// exactly the table's bytes, and the compiled table answers lookups as the
/// parsed one does. The whole generated source is compiled into one module
/// with the DNSWire and CompiledConfig sources (their imports removed), so
/// the test needs nothing but the compiler.
final class GeneratedSourceCompileTests: XCTestCase {
  /// A config with every kind of entry, plus names whose labels hold every
  /// byte 0x01...0x7F (the config language cannot write those, but wire
  /// names can hold them, and the literal must carry them all).
  func table() throws -> OverrideTable {
    let settings = try XCTUnwrap(
      parseOrFail(
        """
        listen 127.0.0.1
        override dnsward.test 127.0.0.53 ::1
        override *.dev.lan 192.168.1.30 fd00::30
        override printer.lan 192.168.1.20
        block ads.example
        override allowed.ads.example 10.0.0.1
        """))
    var builder = OverrideTableBuilder()
    for index in 0..<settings.overrides.count {
      let match = settings.overrides.match(at: index)
      let addresses = Array(
        settings.overrides.addressBytes[
          match.ipv4Offset..<(match.ipv6Offset + 16 * match.ipv6Count)])
      builder.add(
        .init(
          name: settings.overrides.withName(at: index) { Array($0) },
          kind: settings.overrides.kind(at: index),
          ipv4: Array(addresses.prefix(4 * match.ipv4Count)),
          ipv6: Array(addresses.dropFirst(4 * match.ipv4Count))))
    }
    let everyByte = [UInt8](1...0x7F)
    builder.add(
      .init(
        name: [63] + everyByte[0..<63] + [63] + everyByte[63..<126] + [1, 0x7F, 0], kind: .block))
    builder.add(
      .init(name: [3, 0x22, 0x5C, 0x20, 2, 0x0A, 0x0D, 0], kind: .exact, ipv4: [1, 2, 3, 4]))
    return builder.build()
  }

  /// What the probe prints for `query`: the kind and address bytes, or `-`.
  static func answer(_ table: OverrideTable, _ query: [UInt8]) -> String {
    guard let match = query.withUnsafeBytes({ table.lookup($0) }) else { return "-" }
    let end = match.ipv6Offset + 16 * match.ipv6Count
    return "\(match.kind.rawValue) " + hexString(table.addressBytes[match.ipv4Offset..<end])
  }

  static let probeMain = #"""
    // Prints the compiled table's bytes, then answers one hex query per line.
    let table = compiledSettings().overrides
    let isLiteral = table.records.isLiteral && table.index.isLiteral && table.fences.isLiteral
    print(isLiteral ? "literal" : "array")
    print(hexString(table.records))
    print(hexString(table.index))
    print(hexString(table.fences))
    while let line = readLine() {
      let query = hexBytes(line)
      guard let match = query.withUnsafeBytes({ table.lookup($0) }) else {
        print("-")
        continue
      }
      let end = match.ipv6Offset + 16 * match.ipv6Count
      print("\(match.kind.rawValue) " + hexString(table.addressBytes[match.ipv4Offset..<end]))
    }
    """#

  func testCompiledTableHasTheSameBytesAndAnswers() throws {
    let table = try table()
    var settings = Settings()
    settings.overrides = table
    let generated = ConfigGenerator.swiftSource(settings, sourceName: "probe.conf")
    XCTAssertTrue(generated.contains("let overrideRecords: StaticString = \"\"\""))

    var queries: [[UInt8]] = []
    for index in 0..<table.count {
      let name = table.withName(at: index) { Array($0) }
      queries += [name, [1, 0x41] + name, name.map { $0 == 0x61 ? 0x41 : $0 }]
    }
    queries += [flatName("unknown.example"), flatName("lan"), [0]]
    guard
      let lines = try runGeneratedSource(
        generated, main: Self.probeMain, input: queries.map { hexString($0) })
    else { return }
    let expected =
      [
        "literal", hexString(table.records), hexString(table.index), hexString(table.fences),
      ]
      + queries.map { Self.answer(table, $0) }
    XCTAssertEqual(lines, expected)
  }
}
