/// Swift source for `StaticString` literals that hold arbitrary bytes below
/// 0x80, for the large tables of a compiled config.
///
/// Why a string and not an array literal: swiftc type-checks every element
/// of an array literal, which takes minutes for a hundred thousand bytes and
/// gives up on a few hundred thousand; a string literal is one token, so a
/// 25 MB table compiles in seconds, and its bytes land in read-only data.
///
/// Invariants of the output:
/// - the literal's UTF-8 bytes are exactly the input bytes: printable ASCII
///   stands for itself, `\0`, `\\` and `\"` for NUL, backslash and quote,
///   and every other byte (control bytes such as a name's length octets,
///   space, DEL) is `\u{X}`, the scalar X, whose UTF-8 encoding is the single
///   byte X because X is below 0x80;
/// - a byte 0x80 or above has no one-byte spelling (UTF-8 makes it part of
///   a multi-byte character), so `canEncode` is false and the caller falls
///   back to an integer array;
/// - a multi-line literal (`"""`) puts each piece on lines of its own, joined
///   by a trailing `\` (which adds no byte), indented by two spaces (which
///   the closing delimiter's indentation strips), at most `lineWidth`
///   characters per line; no line of content can end the literal, since
///   every quote is escaped.
enum StaticStringLiteral {
  static let lineWidth = 96

  /// Whether every byte has a one-byte spelling in a string literal.
  static func canEncode<Bytes: Sequence>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
    bytes.allSatisfy { $0 < 0x80 }
  }

  /// The spelling of one byte below 0x80 inside a string literal.
  static func escape(_ byte: UInt8, into text: inout [UInt8]) {
    precondition(byte < 0x80, "only bytes below 0x80 have a one-byte spelling")
    switch byte {
    case 0:
      text.append(UInt8(ascii: "\\"))
      text.append(UInt8(ascii: "0"))
    case UInt8(ascii: "\\"), UInt8(ascii: "\""):
      text.append(UInt8(ascii: "\\"))
      text.append(byte)
    case 0x21..<0x7F:
      text.append(byte)
    default:
      text.append(UInt8(ascii: "\\"))
      text.append(UInt8(ascii: "u"))
      text.append(UInt8(ascii: "{"))
      if byte >= 0x10 { text.append(upperHexDigit(byte >> 4)) }
      text.append(upperHexDigit(byte & 0xF))
      text.append(UInt8(ascii: "}"))
    }
  }

  /// How many characters `escape` writes for `byte`.
  static func spelledWidth(_ byte: UInt8) -> Int {
    switch byte {
    case 0, UInt8(ascii: "\\"), UInt8(ascii: "\""): return 2
    case 0x21..<0x7F: return 1
    default: return byte >= 0x10 ? 6 : 5
    }
  }

  /// The content lines of a multi-line literal holding `pieces` one after
  /// another: each piece starts a new line when `piecePerLine`, else pieces
  /// share lines up to the width; a piece wider than a line is split
  /// between two escapes. Lines carry no indentation and no trailing `\`.
  static func contentLines(_ pieces: [ArraySlice<UInt8>], piecePerLine: Bool) -> [String] {
    var lines: [String] = []
    var line: [UInt8] = []
    func flush() {
      if !line.isEmpty { lines.append(String(decoding: line, as: UTF8.self)) }
      line.removeAll(keepingCapacity: true)
    }
    for piece in pieces {
      let width = piece.reduce(0) { $0 + spelledWidth($1) }
      if piecePerLine || line.count + width > lineWidth { flush() }
      for byte in piece {
        if line.count + spelledWidth(byte) > lineWidth { flush() }
        escape(byte, into: &line)
      }
    }
    flush()
    return lines
  }

  /// `let NAME: StaticString = ...` holding the concatenated pieces, all of
  /// whose bytes must be below 0x80.
  static func declaration(
    _ name: String, pieces: [ArraySlice<UInt8>], piecePerLine: Bool
  ) -> [String] {
    let lines = contentLines(pieces, piecePerLine: piecePerLine)
    guard !lines.isEmpty else { return ["let \(name): StaticString = \"\""] }
    var source = ["let \(name): StaticString = \"\"\""]
    for (number, line) in lines.enumerated() {
      source.append("  " + line + (number + 1 < lines.count ? "\\" : ""))
    }
    source.append("  \"\"\"")
    return source
  }
}
