import DNSWire

/// The flat wire form of a presentation name, through DNSWire's parser; a
/// test's names are valid, so an invalid one stops the test run.
public func flatName(_ text: String, allowWildcard: Bool = false) -> [UInt8] {
  var output = [UInt8](repeating: 0xEE, count: Name.maxLength + 45)
  let utf8 = Array(text.utf8)
  let count = utf8.withUnsafeBytes { raw in
    output.withUnsafeMutableBytes { out in
      (try? Name.parse(text: raw, into: out, allowWildcard: allowWildcard)) ?? 0
    }
  }
  precondition(count > 0, "test names are valid: \(text)")
  return Array(output[0..<count])
}
