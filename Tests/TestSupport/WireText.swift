// Message bytes written as text, for tests of every layer that reads or
// writes DNS messages (DNSWire, HTTPDNS, the engine).

/// Bytes from golden-byte text, one field per argument so that every field
/// can carry its own comment at the call site. Tokens are separated by
/// spaces:
///
/// - hex digits, any even count: `1234`, `c0 0c`, `00010001`;
/// - a quoted ASCII run: `'example'` (no spaces inside);
/// - a repeated byte: `61*63` is 63 bytes of 0x61.
public func wire(_ fields: String...) -> [UInt8] {
  var out: [UInt8] = []
  for field in fields {
    for token in field.split(separator: " ", omittingEmptySubsequences: true) {
      if token.hasPrefix("'") {
        precondition(token.count >= 2 && token.hasSuffix("'"), "bad ASCII token")
        out += Array(token.dropFirst().dropLast().utf8)
      } else if let star = token.firstIndex(of: "*") {
        let byte = UInt8(token[..<star], radix: 16)!
        let count = Int(token[token.index(after: star)...])!
        out += Array(repeating: byte, count: count)
      } else {
        precondition(token.count % 2 == 0, "odd hex token")
        var index = token.startIndex
        while index < token.endIndex {
          let next = token.index(index, offsetBy: 2)
          out.append(UInt8(token[index..<next], radix: 16)!)
          index = next
        }
      }
    }
  }
  return out
}

/// The flat wire form of a name, keeping its letter case ("." is the root):
/// DNSWire's own parser lower-cases, and 0x20-randomized questions need the
/// case.
public func wireName(_ text: String) -> [UInt8] {
  var out: [UInt8] = []
  for label in text.split(separator: ".", omittingEmptySubsequences: true) {
    precondition(label.utf8.count <= 63, "label too long")
    out.append(UInt8(label.utf8.count))
    out += Array(label.utf8)
  }
  out.append(0)
  return out
}

/// Presentation text of a flat name, keeping its case: "www.Example.com".
public func nameText(_ flat: [UInt8]) -> String {
  var labels: [String] = []
  var position = 0
  while position < flat.count, flat[position] != 0 {
    let length = Int(flat[position])
    let end = min(position + 1 + length, flat.count)
    labels.append(String(decoding: flat[(position + 1)..<end], as: UTF8.self))
    position += 1 + length
  }
  return labels.isEmpty ? "." : labels.joined(separator: ".")
}
