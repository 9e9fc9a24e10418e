import DNSWire
import XCTest

/// Builds bytes from golden-byte text, one field per argument so that every
/// field can carry its own comment at the call site. Tokens are separated by
/// spaces:
///
/// - hex digits, any even count: `1234`, `c0 0c`, `00010001`;
/// - a quoted ASCII run: `'example'` (no spaces inside);
/// - a repeated byte: `61*63` is 63 bytes of 0x61.
func wire(_ fields: String...) -> [UInt8] {
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

/// A flat name from presentation text, through the code under test.
func flatName(_ text: String, allowWildcard: Bool = false) -> [UInt8] {
  var output = [UInt8](repeating: 0xEE, count: 300)
  let utf8 = Array(text.utf8)
  let count = utf8.withUnsafeBytes { raw in
    output.withUnsafeMutableBytes { out in
      try! Name.parse(text: raw, into: out, allowWildcard: allowWildcard)
    }
  }
  return Array(output[0..<count])
}

/// The error `Message(validating:)` throws for `bytes`, or nil if it accepts them.
func validationError(_ bytes: [UInt8], allowTrailingData: Bool = false) -> WireError? {
  bytes.withUnsafeBytes { raw -> WireError? in
    do throws(WireError) {
      _ = try Message(validating: raw, allowTrailingData: allowTrailingData)
      return nil
    } catch {
      return error
    }
  }
}

/// The error `Name.read` throws for the name at `offset`, or nil if it reads.
func nameReadError(_ bytes: [UInt8], at offset: Int) -> WireError? {
  bytes.withUnsafeBytes { raw -> WireError? in
    do throws(WireError) {
      try Name.read(in: raw, at: offset)
      return nil
    } catch {
      return error
    }
  }
}

/// Reads the possibly compressed name at `offset` of `raw` as a flat name.
func readFlat(_ raw: UnsafeRawBufferPointer, at offset: Int, lowercase: Bool = false) throws
  -> (name: [UInt8], end: Int)
{
  var output = [UInt8](repeating: 0, count: Name.maxLength)
  let result = try output.withUnsafeMutableBytes { out in
    try Name.read(in: raw, at: offset, into: out, lowercase: lowercase)
  }
  return (Array(output[0..<result.length]), result.end)
}

/// The presentation form of a flat name.
func formatted(_ flat: [UInt8]) -> String {
  var output = [UInt8](repeating: 0, count: 1200)
  let count = flat.withUnsafeBytes { raw in
    output.withUnsafeMutableBytes { out in Name.format(raw, into: out) }
  }
  return String(decoding: output[0..<count], as: UTF8.self)
}

func bytesOf(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>) -> [UInt8] {
  Array(raw[range])
}

func hexString(_ bytes: [UInt8]) -> String {
  bytes.map { byte in
    let digits = String(byte, radix: 16)
    return digits.count == 1 ? "0" + digits : digits
  }.joined(separator: " ")
}

/// `withUnsafeBytes` for typed-throws bodies (the stdlib one rethrows `any Error`).
func withBytes<R>(
  _ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(WireError) -> R
) throws(WireError) -> R {
  let result: Result<R, WireError> = bytes.withUnsafeBytes { raw in
    do throws(WireError) { return .success(try body(raw)) } catch { return .failure(error) }
  }
  return try result.get()
}
