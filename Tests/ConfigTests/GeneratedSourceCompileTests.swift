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

  static func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
  }

  /// What the probe prints for `query`: the kind and address bytes, or `-`.
  static func answer(_ table: OverrideTable, _ query: [UInt8]) -> String {
    guard let match = query.withUnsafeBytes({ table.lookup($0) }) else { return "-" }
    let end = match.ipv6Offset + 16 * match.ipv6Count
    return "\(match.kind.rawValue) " + hex(Array(table.addressBytes[match.ipv4Offset..<end]))
  }

  static let probeMain = #"""
    // Prints the compiled table's bytes, then answers one hex query per line.
    func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
      let digits = Array("0123456789abcdef".utf8)
      var text: [UInt8] = []
      for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0xF)])
      }
      return String(decoding: text, as: UTF8.self)
    }
    func bytes(_ hexText: Substring) -> [UInt8] {
      var result: [UInt8] = []
      var index = hexText.startIndex
      while index < hexText.endIndex {
        let next = hexText.index(index, offsetBy: 2)
        result.append(UInt8(hexText[index..<next], radix: 16)!)
        index = next
      }
      return result
    }
    let table = compiledSettings().overrides
    let isLiteral = table.records.isLiteral && table.index.isLiteral && table.fences.isLiteral
    print(isLiteral ? "literal" : "array")
    print(hex(table.records))
    print(hex(table.index))
    print(hex(table.fences))
    while let line = readLine() {
      let query = bytes(Substring(line))
      guard let match = query.withUnsafeBytes({ table.lookup($0) }) else {
        print("-")
        continue
      }
      let end = match.ipv6Offset + 16 * match.ipv6Count
      print("\(match.kind.rawValue) " + hex(table.addressBytes[match.ipv4Offset..<end]))
    }
    """#

  func testCompiledTableHasTheSameBytesAndAnswers() throws {
    guard let swiftc = swiftCompiler() else { throw XCTSkip("swiftc not found") }
    let table = try table()
    var settings = Settings()
    settings.overrides = table
    let generated = ConfigGenerator.swiftSource(settings, sourceName: "probe.conf")
    XCTAssertTrue(generated.contains("let overrideRecords: StaticString = \"\"\""))

    let root = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let work = FileManager.default.temporaryDirectory
      .appendingPathComponent("dnsward-probe-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: work) }
    var sources: [String] = []
    for module in ["DNSWire", "CompiledConfig"] {
      let folder = root.appendingPathComponent("Sources/\(module)")
      for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
      where file.hasSuffix(".swift") {
        let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
        let copy = work.appendingPathComponent("\(module)-\(file)")
        try withoutImports(text).write(to: copy, atomically: true, encoding: .utf8)
        sources.append(copy.path)
      }
    }
    let generatedFile = work.appendingPathComponent("Generated.swift")
    try withoutImports(generated).write(to: generatedFile, atomically: true, encoding: .utf8)
    let mainFile = work.appendingPathComponent("main.swift")
    try Self.probeMain.write(to: mainFile, atomically: true, encoding: .utf8)
    let probe = work.appendingPathComponent("probe")
    let compile = try runProcess(
      swiftc,
      ["-Onone", "-module-name", "Probe", "-o", probe.path, generatedFile.path, mainFile.path]
        + sources)
    XCTAssertEqual(compile.status, 0, compile.error)
    guard compile.status == 0 else { return }

    var queries: [[UInt8]] = []
    for index in 0..<table.count {
      let name = table.withName(at: index) { Array($0) }
      queries += [name, [1, 0x41] + name, name.map { $0 == 0x61 ? 0x41 : $0 }]
    }
    queries += [flatName("unknown.example"), flatName("lan"), [0]]
    let input = work.appendingPathComponent("queries")
    try queries.map { Self.hex($0) + "\n" }.joined().write(
      to: input, atomically: true, encoding: .utf8)
    let result = try runProcess(
      URL(fileURLWithPath: "/bin/sh"), ["-c", "'\(probe.path)' < '\(input.path)'"])
    XCTAssertEqual(result.status, 0, result.error)
    let lines = String(decoding: result.output, as: UTF8.self).split(separator: "\n").map(
      String.init)
    let expected =
      [
        "literal", Self.hex(Array(table.records)), Self.hex(Array(table.index)),
        Self.hex(Array(table.fences)),
      ]
      + queries.map { Self.answer(table, $0) }
    XCTAssertEqual(lines, expected)
  }

  /// The text without its `import` lines: every module is one here.
  func withoutImports(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false)
      .filter { !$0.hasPrefix("import ") }
      .joined(separator: "\n")
  }
}
