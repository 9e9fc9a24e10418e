import CompiledConfig
import Foundation
import TestSupport
import XCTest

/// The bytes of `let NAME: StaticString = ...` in generated source, decoded
/// independently of the generator by the rules of Swift string literals
/// (SE-0168 multi-line literals: content lines lose the closing delimiter's
/// indentation, a line ending in `\` joins the next without a newline);
/// nil when the declaration is missing or is not a literal this decodes.
func staticStringBytes(of name: String, in source: String) -> [UInt8]? {
  let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
  let header = "let \(name): StaticString = "
  guard let start = lines.firstIndex(where: { $0.hasPrefix(header) }) else { return nil }
  let opening = lines[start].dropFirst(header.count)
  if opening == "\"\"" { return [] }
  guard opening == "\"\"\"",
    let end = lines[(start + 1)...].firstIndex(where: { $0 == "  \"\"\"" })
  else { return nil }
  var bytes: [UInt8] = []
  for (number, line) in lines[(start + 1)..<end].enumerated() {
    guard line.hasPrefix("  ") else { return nil }
    guard let continued = decodeLiteralLine(Array(line.utf8.dropFirst(2)), into: &bytes) else {
      return nil
    }
    let isLast = start + 1 + number == end - 1
    if !continued && !isLast { bytes.append(0x0A) }
    if continued && isLast { return nil }  // Swift rejects `\` before the closing delimiter.
  }
  return bytes
}

/// Decodes the escapes of one content line; true when it ends in a line
/// continuation, nil for an escape the generator should never write.
private func decodeLiteralLine(_ line: [UInt8], into bytes: inout [UInt8]) -> Bool? {
  var index = 0
  while index < line.count {
    let byte = line[index]
    guard byte == UInt8(ascii: "\\") else {
      // An unescaped quote could close the literal; non-ASCII would be UTF-8.
      guard byte != UInt8(ascii: "\""), byte < 0x80 else { return nil }
      bytes.append(byte)
      index += 1
      continue
    }
    guard index + 1 < line.count else { return true }
    let escaped = line[index + 1]
    switch escaped {
    case UInt8(ascii: "0"): bytes.append(0)
    case UInt8(ascii: "\\"), UInt8(ascii: "\""): bytes.append(escaped)
    case UInt8(ascii: "u"):
      guard let close = line[index...].firstIndex(of: UInt8(ascii: "}")),
        line[index + 2] == UInt8(ascii: "{"),
        let value = UInt8(String(decoding: line[(index + 3)..<close], as: UTF8.self), radix: 16),
        value < 0x80
      else { return nil }
      bytes.append(value)
      index = close + 1
      continue
    default: return nil
    }
    index += 2
  }
  return false
}

/// Fails unless generated source is free of `String` values (Embedded-safe):
/// the word appears only in `StaticString`, and quotes only delimit those
/// literals (inside them, every quote is escaped).
func assertNoStringValues(_ source: String, file: StaticString = #filePath, line: UInt = #line) {
  XCTAssertFalse(
    source.replacingOccurrences(of: "StaticString", with: "").contains("String"),
    "String in generated source", file: file, line: line)
  for text in source.split(separator: "\n") where text.contains("\"") {
    let isDelimiter =
      text.hasSuffix(": StaticString = \"\"\"") || text.hasSuffix(": StaticString = \"\"")
      || text == "  \"\"\""
    let unescaped = text.replacingOccurrences(of: "\\\\", with: "")
      .replacingOccurrences(of: "\\\"", with: "")
    XCTAssertTrue(isDelimiter || !unescaped.contains("\""), String(text), file: file, line: line)
  }
}

/// The table a generated source declares, rebuilt from its literals the way
/// `compiledSettings()` builds it (the records may be an array literal).
func rebuiltTable(from source: String, file: StaticString = #filePath, line: UInt = #line)
  throws -> OverrideTable
{
  let records =
    staticStringBytes(of: "overrideRecords", in: source)
    ?? integers(of: "overrideRecords", type: "UInt8", in: source)?.map { UInt8($0) }
  let fences =
    staticStringBytes(of: "overrideFences", in: source)
    ?? integers(of: "overrideFences", type: "UInt8", in: source)?.map { UInt8($0) }
  return OverrideTable(
    records: TableBytes(try XCTUnwrap(records, "overrideRecords", file: file, line: line)),
    index: TableBytes(
      try XCTUnwrap(
        staticStringBytes(of: "overrideIndex", in: source), "overrideIndex", file: file,
        line: line)),
    fences: TableBytes(try XCTUnwrap(fences, "overrideFences", file: file, line: line)),
    addressBytes: TableBytes(
      try XCTUnwrap(
        integers(of: "overrideAddressBytes", type: "UInt8", in: source)?.map { UInt8($0) },
        "overrideAddressBytes", file: file, line: line)))
}

/// The integers of the array literal `let NAME: [TYPE] = [ ... ]` in `source`,
/// ignoring comments; nil when the declaration is missing.
func integers(of name: String, type: String, in source: String) -> [UInt64]? {
  let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
  let header = "let \(name): [\(type)] = ["
  guard let start = lines.firstIndex(where: { $0.hasPrefix(header) }) else { return nil }
  // The literal runs to the first line that closes it (`]` alone, or on
  // the declaration line itself for `[]`).
  if lines[start].dropFirst(header.count).hasPrefix("]") { return [] }
  let body = lines[(start + 1)...].prefix { !$0.hasPrefix("]") }
  var values: [UInt64] = []
  for line in body {
    let code = line.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)[0]
    for token in code.split(separator: ",") {
      let literal = token.filter { $0 != " " && $0 != "_" }
      guard !literal.isEmpty else { continue }
      let value =
        literal.hasPrefix("0x") ? UInt64(literal.dropFirst(2), radix: 16) : UInt64(literal)
      guard let value else {
        XCTFail("not an integer literal: \(literal)")
        return nil
      }
      values.append(value)
    }
  }
  return values
}

/// The `settings.NAME = VALUE` lines of `compiledSettings()`, by name.
func assignments(in source: String) -> [String: String] {
  var values: [String: String] = [:]
  for line in source.split(separator: "\n") where line.hasPrefix("  settings.") {
    let parts = line.dropFirst("  settings.".count).split(separator: " = ", maxSplits: 1)
    guard parts.count == 2 else { continue }
    values[String(parts[0])] = String(parts[1])
  }
  return values
}

/// Fails for each line of generated source longer than 100 columns.
func assertLinesFit(_ source: String, file: StaticString = #filePath, line: UInt = #line) {
  for text in source.split(separator: "\n") {
    XCTAssertLessThanOrEqual(text.count, 100, String(text), file: file, line: line)
  }
}
